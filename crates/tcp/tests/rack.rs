//! RACK-TLP (`rack_tlp`, RFC 8985 as Linux 6.x runs it) end to end, times computed by hand:
//! a tail drop repaired by the probe 2·SRTT + 2 ms after the last ACK (not at the RTO), a lone
//! loss found by the reorder timer at RACK.rtt + min RTT/4, a lost retransmission found one
//! RTT after it instead of at the RTO. Each is run with `rack_tlp = false` too, which times out.
//!
//! Setup: one-way delay 50 ms (RTT 100 ms), ACK every segment, IW 10, SACK (RFC 6675 window
//! rules), min RTO 200 ms. The server's SRTT is 100 ms from the handshake (SYN-ACK at 50 ms,
//! ACK at 150 ms); its RTO is then 300 ms (RTTVAR 50 ms) and 250 ms after the next sample.

mod util;

use tcp::{SackOnTimeout, TcpConfig, TxKind, Variant};
use util::*;

fn cfg(rack_tlp: bool) -> TcpConfig {
    TcpConfig {
        variant: Variant::Sack,
        initial_window: 10,
        min_rto: dms(200),
        sack_on_timeout: SackOnTimeout::Keep,
        rack_tlp,
        ..TcpConfig::default()
    }
}

fn s_of(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

fn drop_seg(i: u64, times: usize) -> DropRule {
    DropRule::Seq {
        side: SERVER,
        seq: s_of(i),
        kind: None,
        times,
    }
}

/// (ms, segment number) of the server's data retransmissions.
fn retransmissions(p: &Pipe) -> Vec<(u64, u64)> {
    p.sent(SERVER)
        .iter()
        .filter(|s| s.seg.kind == TxKind::Retransmit && s.seg.len > 0)
        .map(|s| (s.t.as_nanos() / 1_000_000, (s.seg.seq - 1) / MSS + 1))
        .collect()
}

#[test]
fn rack_tlp_tail_drop_is_repaired_by_the_probe_not_the_rto() {
    // Response 6 segments at 150 ms (FIN on 6); 5 and 6 lost. ACKs of 1–4 at 250 ms leave two
    // segments out: PTO = 2·SRTT + 2 ms = 202 ms → the probe resends 6 (no new data) at 452 ms,
    // before the RTO (250 + 250 = 500 ms). Its SACK at 552 ms (RACK.rtt 100 ms ≥ min RTT) makes
    // 5, sent at 150 ms, lost (150 + 100 + reo_wnd 25 ms ≤ 552): recovery, 5 resent at 552 ms,
    // the client has everything at 602 ms.
    let mut p = Pipe::http_with(
        cfg(true),
        cfg(true),
        dms(50),
        100,
        6 * MSS,
        vec![drop_seg(5, 1), drop_seg(6, 1)],
    );
    p.run();
    assert_eq!(retransmissions(&p), vec![(452, 6), (552, 5)]);
    assert_eq!(p.completed, Some(ms(602)));
    let st = p.eps[SERVER].stats();
    assert_eq!((st.timeouts, st.fast_retransmits), (0, 1));
    // Without RACK-TLP the RTO at 500 ms resends 5 (cwnd 1 MSS), then 6 at 600 ms.
    let mut p = Pipe::http_with(
        cfg(false),
        cfg(false),
        dms(50),
        100,
        6 * MSS,
        vec![drop_seg(5, 1), drop_seg(6, 1)],
    );
    p.run();
    assert_eq!(retransmissions(&p), vec![(500, 5), (600, 6)]);
    assert_eq!(p.completed, Some(ms(650)));
    assert_eq!(p.eps[SERVER].stats().timeouts, 1);
}

#[test]
fn rack_reorder_timer_finds_a_lone_loss_at_rtt_plus_a_quarter_min_rtt() {
    // Response 3 segments, 2 lost: one duplicate ACK (SACK of 3) at 250 ms, too few for
    // DupThresh. RACK: 3 was delivered (RACK.rtt 100 ms), 2 was sent at the same instant with
    // a lower sequence number, one segment SACKed → reo_wnd = min RTT/4 = 25 ms: 2 is lost at
    // 150 + 100 + 25 = 275 ms, when the reorder timer fires; resent at once, complete at 325.
    let mut p = Pipe::http_with(
        cfg(true),
        cfg(true),
        dms(50),
        100,
        3 * MSS,
        vec![drop_seg(2, 1)],
    );
    p.run();
    assert_eq!(retransmissions(&p), vec![(275, 2)]);
    assert_eq!(p.completed, Some(ms(325)));
    assert_eq!(p.eps[SERVER].stats().timeouts, 0);
    // RFC 6675 alone: the RTO (250 + 250 ms) resends 2.
    let mut p = Pipe::http_with(
        cfg(false),
        cfg(false),
        dms(50),
        100,
        3 * MSS,
        vec![drop_seg(2, 1)],
    );
    p.run();
    assert_eq!(retransmissions(&p), vec![(500, 2)]);
    assert_eq!(p.eps[SERVER].stats().timeouts, 1);
}

#[test]
fn rack_finds_a_lost_retransmission_one_rtt_after_it() {
    // Response 20 segments; 3 lost, and its retransmission at 250 ms lost too. The segments
    // sent after that retransmission (new data, same instant, higher sequence numbers) are
    // SACKed at 350 ms with RACK.rtt 100 ms; in recovery reo_wnd is 0, so the retransmission is
    // lost at 250 + 100 = 350 ms and goes again then — no timeout.
    let mut p = Pipe::http_with(
        cfg(true),
        cfg(true),
        dms(50),
        100,
        20 * MSS,
        vec![drop_seg(3, 2)],
    );
    p.run();
    let of3: Vec<u64> = retransmissions(&p)
        .iter()
        .filter(|r| r.1 == 3)
        .map(|r| r.0)
        .collect();
    assert_eq!(of3, vec![250, 350]);
    assert_eq!(p.eps[SERVER].stats().timeouts, 0);
    assert_eq!(p.eps[CLIENT].bytes_received(), 20 * MSS);
    // RFC 6675 alone: HighRxt is past 3, so only the RTO resends it again.
    let mut p = Pipe::http_with(
        cfg(false),
        cfg(false),
        dms(50),
        100,
        20 * MSS,
        vec![drop_seg(3, 2)],
    );
    p.run();
    let of3: Vec<u64> = retransmissions(&p)
        .iter()
        .filter(|r| r.1 == 3)
        .map(|r| r.0)
        .collect();
    assert_eq!(of3.len(), 2);
    assert_eq!(of3[0], 250);
    assert_eq!(p.eps[SERVER].stats().timeouts, 1);
}

#[test]
fn rack_tlp_probe_sends_new_data_when_the_window_holds_it_back() {
    // Response 20 segments; 1–10 at 150 ms (IW 10), and the client's ten ACKs of them (its
    // segments 3–12, after the SYN and the request) are all lost. The probe 2·SRTT + 2 ms after
    // the send, at 352 ms, is new data (segment 11, beyond cwnd, within the peer's window), not
    // a retransmission; its ACK at 452 ms covers 1–11 and the transfer goes on without a timeout.
    let drops = (3..=12)
        .map(|k| DropRule::Nth { side: CLIENT, k })
        .collect();
    let mut p = Pipe::http_with(cfg(true), cfg(true), dms(50), 100, 20 * MSS, drops);
    p.run();
    let eleven: Vec<(u64, TxKind)> = p
        .sent(SERVER)
        .iter()
        .filter(|s| s.seg.len > 0 && s.seg.seq == s_of(11))
        .map(|s| (s.t.as_nanos() / 1_000_000, s.seg.kind))
        .collect();
    assert_eq!(eleven, vec![(352, TxKind::New)]);
    assert!(retransmissions(&p).is_empty());
    assert_eq!(p.eps[SERVER].stats().timeouts, 0);
    assert_eq!(p.eps[CLIENT].bytes_received(), 20 * MSS);
    // Without the probe the RTO (150 + 300 ms) resends segment 1.
    let drops = (3..=12)
        .map(|k| DropRule::Nth { side: CLIENT, k })
        .collect();
    let mut p = Pipe::http_with(cfg(false), cfg(false), dms(50), 100, 20 * MSS, drops);
    p.run();
    assert_eq!(retransmissions(&p)[0], (450, 1));
}

#[test]
fn rack_tlp_loss_repaired_by_the_probe_reduces_cwnd_once() {
    // A lone server (SACK agreed, SRTT 100 ms from the handshake at 100 ms) sends 4 segments at
    // 100 ms; the ACK of 1–3 at 200 ms leaves segment 4 alone out: PTO = 2·SRTT + min_rto =
    // 400 ms, capped at the RTO (250 ms after that sample): the probe resends 4 at 450 ms and
    // the RTO restarts. Two more segments go at 460 ms. The ACK of everything at 550 ms passes
    // the probe's SND.MAX: the probe repaired a loss (Linux tcp_process_tlp_ack): cwnd 11 MSS
    // (IW 10 + 1 for the first ACK), + 1 for this ACK, then halved once: ssthresh = cwnd = 6 MSS.
    let mut s = tcp::Endpoint::listen(cfg(true));
    let mut syn = seg(0, 0, 0, SYN);
    syn.sack_ok = true;
    s.on_segment(ms(0), &syn);
    drain(&mut s, ms(0));
    s.on_segment(ms(100), &seg(1, 1, 0, ACK));
    s.send(4 * MSS);
    assert_eq!(drain(&mut s, ms(100)).len(), 4);
    s.on_segment(ms(200), &seg(1, s_of(4), 0, ACK));
    assert!(drain(&mut s, ms(200)).is_empty());
    assert_eq!(s.cwnd(), 11 * MSS);
    assert_eq!(s.next_deadline(), Some(ms(450)));
    s.on_timeout(ms(450));
    let probe = drain(&mut s, ms(450));
    assert_eq!(probe.len(), 1);
    assert_eq!((probe[0].seq, probe[0].kind), (s_of(4), TxKind::Retransmit));
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(
        s.next_deadline(),
        Some(ms(700)),
        "RTO restarted from the probe"
    );
    s.send(2 * MSS);
    assert_eq!(drain(&mut s, ms(460)).len(), 2);
    s.on_segment(ms(550), &seg(1, s_of(7), 0, ACK));
    assert_eq!((s.cwnd(), s.ssthresh()), (6 * MSS, 6 * MSS));
}
