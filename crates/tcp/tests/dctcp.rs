//! DCTCP and Prague at the endpoint (RFC 8257 §3.1–3.2; RFC 9331 §4): the codepoint on data,
//! ECN turned on by the variant, and the receiver's exact CE echo — with delayed ACKs an
//! arrival that changes the CE state first releases an ACK of the data held, with the old state.
//!
//! The client of `established` (handshake with ECN done at 100 ms, RCV.NXT = 1) receives
//! server segments of MSS 1460: segment i is [1 + (i−1)·1460, 1 + i·1460).

mod util;

use tcp::{Ecn, Endpoint, Flags, Segment, TcpConfig, Variant};
use util::*;

fn established(cfg: TcpConfig) -> Endpoint {
    let mut c = Endpoint::connect(cfg, ms(0));
    let syn = drain(&mut c, ms(0));
    assert_eq!(
        syn[0].flags,
        SYN | Flags::ECE | Flags::CWR,
        "the variant turns ECN on"
    );
    c.on_segment(ms(100), &seg(0, 1, 0, SYN_ACK | Flags::ECE));
    drain(&mut c, ms(100));
    assert!(c.ecn_enabled());
    c
}

fn s(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

fn data(i: u64, ce: bool) -> Segment {
    let mut d = seg(s(i), 1, MSS as u32, ACK);
    d.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
    d
}

/// (ack, ECE) of every segment sent at `t`.
fn acks(c: &mut Endpoint, t: u64) -> Vec<(u64, bool)> {
    drain(c, ms(t))
        .iter()
        .map(|a| (a.ack, a.flags.contains(Flags::ECE)))
        .collect()
}

fn cfg(variant: Variant, delayed: Option<u64>) -> TcpConfig {
    TcpConfig {
        variant,
        delayed_ack: delayed.map(dms),
        ..TcpConfig::default()
    }
}

#[test]
fn dctcp_receiver_echoes_ce_exactly_with_delayed_acks() {
    let mut c = established(cfg(Variant::Dctcp, Some(200)));
    // 200: seg 1, no CE: held (timer at 400).
    c.on_segment(ms(200), &data(1, false));
    assert!(acks(&mut c, 200).is_empty());
    // 210: seg 2 with CE: the state changes with seg 1 held → ACK 1461 at once, no ECE; seg 2
    // is then held under the new state.
    c.on_segment(ms(210), &data(2, true));
    assert_eq!(acks(&mut c, 210), vec![(s(2), false)]);
    assert_eq!(c.next_deadline(), Some(ms(410)));
    // 220: seg 3 with CE: no change; 2 segments held → ACK 4381 with ECE.
    c.on_segment(ms(220), &data(3, true));
    assert_eq!(acks(&mut c, 220), vec![(s(4), true)]);
    // 230: seg 4 without CE: a change, but nothing held: no ACK; the state is now "no CE".
    c.on_segment(ms(230), &data(4, false));
    assert!(acks(&mut c, 230).is_empty());
    // 240: seg 5 without CE: ACK 7301, no ECE (an RFC 3168 receiver would still set it).
    c.on_segment(ms(240), &data(5, false));
    assert_eq!(acks(&mut c, 240), vec![(s(6), false)]);
    // 250: seg 6 with CE, nothing held: no immediate ACK; the timer's ACK at 450 has ECE.
    c.on_segment(ms(250), &data(6, true));
    assert!(acks(&mut c, 250).is_empty());
    c.on_timeout(ms(450));
    assert_eq!(acks(&mut c, 450), vec![(s(7), true)]);
}

#[test]
fn rfc3168_receiver_keeps_ece_until_cwr_for_contrast() {
    let mut c = established(TcpConfig {
        ecn: true,
        ..cfg(Variant::NewReno, Some(200))
    });
    c.on_segment(ms(200), &data(1, false));
    c.on_segment(ms(210), &data(2, true));
    assert_eq!(acks(&mut c, 210), vec![(s(3), true)]);
    c.on_segment(ms(220), &data(3, false));
    c.on_segment(ms(230), &data(4, false));
    assert_eq!(acks(&mut c, 230), vec![(s(5), true)]);
}

#[test]
fn without_delayed_acks_each_ack_carries_its_segments_ce() {
    let mut c = established(cfg(Variant::Dctcp, None));
    let pattern = [false, true, true, false, true, false, false];
    let got: Vec<(u64, bool)> = pattern
        .iter()
        .enumerate()
        .flat_map(|(k, &ce)| {
            let i = k as u64 + 1;
            c.on_segment(ms(200 + i), &data(i, ce));
            acks(&mut c, 200 + i)
        })
        .collect();
    let want: Vec<(u64, bool)> = pattern
        .iter()
        .enumerate()
        .map(|(k, &ce)| (s(k as u64 + 2), ce))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn prague_sends_ect1_and_dctcp_ect0_on_new_data() {
    for (variant, want) in [(Variant::Prague, Ecn::Ect1), (Variant::Dctcp, Ecn::Ect0)] {
        let mut c = established(cfg(variant, None));
        c.send(3000);
        let out = drain(&mut c, ms(100));
        assert_eq!(out.len(), 2, "IW 2");
        assert!(
            out.iter().all(|d| d.len > 0 && d.ecn == want),
            "{variant:?}: {out:?}"
        );
        // Pure ACKs are never ECT.
        c.on_segment(ms(150), &data(1, false));
        let a = drain(&mut c, ms(150));
        assert!(a
            .iter()
            .filter(|x| x.len == 0)
            .all(|x| x.ecn == Ecn::NotEct));
    }
}

#[test]
fn dctcp_sender_cuts_by_alpha_over_two_once_per_window() {
    // 10 segments out (cwnd 10·MSS after slow start from IW 10); α starts at 1.
    let mut c = established(TcpConfig {
        initial_window: 10,
        ..cfg(Variant::Dctcp, None)
    });
    c.send(100 * MSS);
    let out = drain(&mut c, ms(100));
    assert_eq!(out.len(), 10);
    // ACK of segment 1 with ECE at 200: the first ACK ends α's first window (F = 1, α = 1),
    // and the cut is cwnd·(1 − 1/2): slow start had made cwnd 11·MSS = 16 060 → 8030.
    let mut a = seg(1, s(2), 0, ACK | Flags::ECE);
    a.wnd = 65535;
    c.on_segment(ms(200), &a);
    assert_eq!(c.cwnd(), 8030);
    // A second ECE in the same window: no further cut (RFC 8257 §3.4, once per window).
    c.on_segment(ms(201), &seg(1, s(3), 0, ACK | Flags::ECE));
    assert_eq!(c.cwnd(), 8030 + 1460 * 1460 / 8030);
}
