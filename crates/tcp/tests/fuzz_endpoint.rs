//! Fuzzing the TCP endpoint (issue 15) as property tests on stable `cargo test` (proptest, fixed
//! seed 15 unless `PROPTEST_RNG_SEED` is set; `PROPTEST_CASES` sets the number of inputs, the
//! long run of `docs/testing.md` uses 1,000,000 in release mode).
//!
//! - `adversarial_segments`: one endpoint (client or listener, any variant and options) fed
//!   arbitrary segments — sequence and acknowledgment numbers near its own (SND.UNA, SND.MAX,
//!   RCV.NXT ± a few KB) or anywhere in u64, any flags, lengths, windows, SACK blocks and
//!   timestamps — mixed with timer wake-ups and application sends and closes. No panic, and
//!   the sequence-number invariants after every step: SND.UNA ≤ SND.NXT ≤ SND.MAX, SND.UNA and
//!   RCV.NXT never go back, what is acknowledged was written, every segment sent lies below
//!   SND.MAX and carries at most one MSS, the RTO stays within [min_rto, max_rto].
//! - `lossy_pair`: a client and a server over a channel that an arbitrary schedule delivers,
//!   drops, duplicates, reorders and CE-marks, with sends and closes; the same invariants on
//!   both ends, nothing received that was not sent, and after the schedule a clean channel
//!   must deliver every byte written (or both ends have given up).

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use tcp::{
    AppEvent, Ecn, Endpoint, Flags, SackBlocks, Segment, State, TcpConfig, Timestamps, TxKind,
    Variant,
};
use units::{SimDuration, SimTime};

/// Inputs per target in `cargo test` (debug, each well under 20 s); `PROPTEST_CASES` overrides.
const CI_CASES: u32 = 10_000;

fn config() -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = CI_CASES;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(15);
    }
    c
}

fn tcp_config() -> impl Strategy<Value = TcpConfig> {
    (
        0usize..7,
        any::<[bool; 8]>(),
        1u32..5,
        prop_oneof![Just(536u32), Just(1460u32)],
    )
        .prop_map(
            |(v, [ecn, ts, delack, lt, fulltcp, pacing, hystart, hspp], iw, mss)| TcpConfig {
                variant: [
                    Variant::Tahoe,
                    Variant::Reno,
                    Variant::NewReno,
                    Variant::Sack,
                    Variant::Cubic,
                    Variant::CubicSack,
                    Variant::Bbr,
                ][v],
                pacing,
                hystart,
                // HyStart++ where params.rs accepts it: not BBR, not with HyStart.
                hystart_plus_plus: hspp && v != 6 && !hystart,
                ecn,
                timestamps: ts,
                delayed_ack: delack.then(|| SimDuration::from_millis(100)),
                limited_transmit: lt,
                ns2_fulltcp: fulltcp,
                initial_window: iw,
                mss,
                min_rto: SimDuration::from_millis(200),
                max_retries: 4,
                max_syn_retries: 3,
                ..TcpConfig::default()
            },
        )
}

/// Where a fuzzed sequence or acknowledgment number comes from.
#[derive(Clone, Copy, Debug)]
enum Num {
    /// The endpoint's own SND.UNA, SND.MAX or RCV.NXT (0, 1, 2) plus an offset.
    Near(u8, i32),
    /// Anywhere.
    Any(u64),
}

impl Num {
    fn resolve(self, e: &Endpoint) -> u64 {
        match self {
            Num::Near(which, off) => {
                let (una, _, max) = e.send_sequence();
                let base = [una, max, e.rcv_nxt()][which as usize % 3];
                base.saturating_add_signed(off as i64)
            }
            Num::Any(x) => x,
        }
    }
}

fn num() -> impl Strategy<Value = Num> {
    prop_oneof![
        8 => (0u8..3, -6000i32..6000).prop_map(|(w, o)| Num::Near(w, o)),
        1 => any::<u64>().prop_map(Num::Any),
        1 => prop_oneof![Just(0u64), Just(1), Just(u64::MAX), Just(u64::MAX - 1)].prop_map(Num::Any),
    ]
}

/// A segment from a (possibly malicious) peer, numbers resolved against the receiving endpoint.
#[derive(Clone, Debug)]
struct FuzzSeg {
    seq: Num,
    ack: Num,
    len: u32,
    flags: u8,
    wnd: u32,
    ect: bool,
    ce: bool,
    sack_ok: bool,
    sack: Vec<(Num, u32)>,
    ts: Option<(u64, u64)>,
    retx: bool,
}

fn fuzz_seg() -> impl Strategy<Value = FuzzSeg> {
    (
        (
            num(),
            num(),
            prop_oneof![Just(0u32), 1u32..3000, Just(u32::MAX)],
            0u8..32,
        ),
        (
            prop_oneof![Just(0u32), Just(65535), any::<u32>()],
            any::<[bool; 4]>(),
        ),
        prop::collection::vec((num(), 0u32..5000), 0..4),
        prop::option::of((any::<u64>(), any::<u64>())),
    )
        .prop_map(
            |((seq, ack, len, flags), (wnd, [ect, ce, sack_ok, retx]), sack, ts)| FuzzSeg {
                seq,
                ack,
                len,
                flags,
                wnd,
                ect,
                ce,
                sack_ok,
                sack,
                ts,
                retx,
            },
        )
}

impl FuzzSeg {
    fn resolve(&self, e: &Endpoint) -> Segment {
        Segment {
            seq: self.seq.resolve(e),
            ack: self.ack.resolve(e),
            len: self.len,
            flags: Flags(self.flags),
            wnd: self.wnd,
            // Routers mark only ECN-capable packets: CE needs ECT.
            ecn: match (self.ect, self.ce) {
                (false, _) => Ecn::NotEct,
                (true, false) => Ecn::Ect0,
                (true, true) => Ecn::Ce,
            },
            cwnd_hint: 0,
            kind: if self.retx {
                TxKind::Retransmit
            } else {
                TxKind::New
            },
            sack_ok: self.sack_ok,
            sack: self
                .sack
                .iter()
                .map(|(s, l)| {
                    let s = s.resolve(e);
                    (s, s.saturating_add(*l as u64))
                })
                .collect::<SackBlocks>(),
            ts: self.ts.map(|(val, ecr)| Timestamps { val, ecr }),
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Segment(FuzzSeg),
    /// Advance the clock by this many µs (0 = to the next deadline) and wake the endpoint.
    Wake(u32),
    Send(u32),
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => fuzz_seg().prop_map(Op::Segment),
        2 => prop_oneof![Just(0u32), 0u32..2_000_000].prop_map(Op::Wake),
        1 => (0u32..200_000).prop_map(Op::Send),
        1 => Just(Op::Close),
    ]
}

/// The invariants of one endpoint between calls, against what was seen before.
#[derive(Default)]
struct Watch {
    una: u64,
    rcv_nxt: u64,
    received: u64,
    /// Payload the application wrote and the endpoint took (`send` before `close`, while open).
    written: u64,
    closed: bool,
    aborted: bool,
}

impl Watch {
    fn check(&mut self, e: &Endpoint) -> Result<(), TestCaseError> {
        let (una, nxt, max) = e.send_sequence();
        prop_assert!(
            una <= nxt && nxt <= max,
            "SND.UNA {una} SND.NXT {nxt} SND.MAX {max}"
        );
        prop_assert!(una >= self.una, "SND.UNA went back: {} -> {una}", self.una);
        prop_assert!(e.rcv_nxt() >= self.rcv_nxt, "RCV.NXT went back");
        prop_assert!(
            e.bytes_received() >= self.received,
            "bytes received went back"
        );
        prop_assert!(
            e.bytes_acked() <= self.written,
            "{} bytes acknowledged of {} written",
            e.bytes_acked(),
            self.written
        );
        let cfg = e.config();
        prop_assert!(
            e.rto() <= cfg.max_rto && e.rto() >= cfg.min_rto.min(cfg.initial_rto),
            "RTO {:?}",
            e.rto()
        );
        prop_assert!(e.cwnd() > 0, "cwnd 0");
        self.una = una;
        self.rcv_nxt = e.rcv_nxt();
        self.received = e.bytes_received();
        Ok(())
    }

    fn send(&mut self, e: &mut Endpoint, bytes: u64) {
        let open = matches!(
            e.state(),
            State::Listen
                | State::SynSent
                | State::SynReceived
                | State::Established
                | State::CloseWait
        );
        e.send(bytes);
        if open && !self.closed {
            self.written += bytes;
        }
    }

    fn close(&mut self, e: &mut Endpoint) {
        e.close();
        self.closed = true;
    }
}

/// Every segment the endpoint wants to send now, checked against its sequence numbers; the
/// application events drained (an abort noted in `w`). Also what the engine's `service`
/// relies on to poll once: sending raises no application event, and once `poll_transmit`
/// has said None it says None again.
fn drain(
    e: &mut Endpoint,
    now: SimTime,
    out: &mut Vec<Segment>,
    w: &mut Watch,
) -> Result<(), TestCaseError> {
    let had_events = e.has_events();
    for _ in 0..10_000 {
        prop_assert_eq!(
            e.has_events(),
            had_events,
            "sending raised an application event"
        );
        let Some(s) = e.poll_transmit(now) else {
            prop_assert!(
                e.poll_transmit(now).is_none(),
                "poll_transmit: None, then a segment"
            );
            while let Some(ev) = e.poll_event() {
                w.aborted |= ev == AppEvent::Aborted;
            }
            return Ok(());
        };
        let (_, _, max) = e.send_sequence();
        prop_assert!(s.len <= e.config().mss, "segment of {} bytes", s.len);
        prop_assert!(
            s.seq + s.seq_len() <= max,
            "segment {}+{} beyond SND.MAX {max}",
            s.seq,
            s.seq_len()
        );
        prop_assert!(s.ecn != Ecn::Ce, "an endpoint set CE");
        out.push(s);
    }
    Err(TestCaseError::fail("poll_transmit never returned None"))
}

fn wake(e: &mut Endpoint, now: &mut SimTime, us: u32) {
    *now = if us == 0 {
        e.next_deadline().map_or(*now, |d| d.max(*now))
    } else {
        *now + SimDuration::from_micros(us as u64)
    };
    e.on_timeout(*now);
}

/// What the channel does with the oldest segment in flight one way.
#[derive(Clone, Copy, Debug)]
enum Chan {
    Deliver(bool),
    Drop(bool),
    Duplicate(bool),
    /// Swap the two oldest (reordering).
    Swap(bool),
    Mark(bool),
    Wake(u32),
    Send(bool, u32),
    Close(bool),
}

fn chan() -> impl Strategy<Value = Chan> {
    prop_oneof![
        10 => any::<bool>().prop_map(Chan::Deliver),
        2 => any::<bool>().prop_map(Chan::Drop),
        1 => any::<bool>().prop_map(Chan::Duplicate),
        1 => any::<bool>().prop_map(Chan::Swap),
        1 => any::<bool>().prop_map(Chan::Mark),
        2 => prop_oneof![Just(0u32), 0u32..500_000].prop_map(Chan::Wake),
        1 => (any::<bool>(), 0u32..50_000).prop_map(|(s, b)| Chan::Send(s, b)),
        1 => any::<bool>().prop_map(Chan::Close),
    ]
}

struct Pair {
    ends: [Endpoint; 2],
    watch: [Watch; 2],
    /// In flight from end i to end 1 − i, oldest first.
    wire: [Vec<Segment>; 2],
    now: SimTime,
}

impl Pair {
    /// A client connecting to a listener; the client writes a request, the server a response.
    fn new(cfg: TcpConfig, server_cfg: TcpConfig) -> Result<Pair, TestCaseError> {
        let server_cfg = TcpConfig {
            mss: cfg.mss,
            ..server_cfg
        };
        let now = SimTime::ZERO;
        let mut p = Pair {
            ends: [Endpoint::connect(cfg, now), Endpoint::listen(server_cfg)],
            watch: [Watch::default(), Watch::default()],
            wire: [Vec::new(), Vec::new()],
            now,
        };
        let [c, s] = &mut p.ends;
        p.watch[0].send(c, 3000);
        p.watch[1].send(s, 20_000);
        p.service()?;
        Ok(p)
    }

    /// One step of a clean channel: deliver the oldest segment in flight, else wake.
    fn clean_step(&mut self) -> Result<(), TestCaseError> {
        if self.wire[0].is_empty() && self.wire[1].is_empty() {
            self.wake(0);
        } else {
            let from = if self.wire[0].is_empty() { 1 } else { 0 };
            self.deliver(from);
        }
        self.service()
    }

    fn service(&mut self) -> Result<(), TestCaseError> {
        for i in 0..2 {
            drain(
                &mut self.ends[i],
                self.now,
                &mut self.wire[i],
                &mut self.watch[i],
            )?;
            self.watch[i].check(&self.ends[i])?;
        }
        // Nothing arrives that was not written: RCV.NXT counts the peer's payload.
        for i in 0..2 {
            prop_assert!(
                self.ends[i].bytes_received() <= self.watch[1 - i].written,
                "received {} of {} written",
                self.ends[i].bytes_received(),
                self.watch[1 - i].written
            );
        }
        Ok(())
    }

    fn deliver(&mut self, from: usize) {
        if !self.wire[from].is_empty() {
            let s = self.wire[from].remove(0);
            self.ends[1 - from].on_segment(self.now, &s);
        }
    }

    fn wake(&mut self, us: u32) {
        let next = self.ends.iter().filter_map(|e| e.next_deadline()).min();
        self.now = if us == 0 {
            next.map_or(self.now, |d| d.max(self.now))
        } else {
            self.now + SimDuration::from_micros(us as u64)
        };
        for e in &mut self.ends {
            e.on_timeout(self.now);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn adversarial_segments(cfg in tcp_config(), server_cfg in tcp_config(), which in any::<bool>(),
                            warm in 0usize..60, ops in prop::collection::vec(op(), 1..60)) {
        // A clean exchange of `warm` steps first (0: the fresh client or listener), so the
        // segments below also hit established, recovering and closing endpoints.
        let mut p = Pair::new(cfg, server_cfg)?;
        for _ in 0..warm {
            p.clean_step()?;
        }
        let i = which as usize;
        let Pair { ends, watch, now, .. } = &mut p;
        let (e, w) = (&mut ends[i], &mut watch[i]);
        let mut sent = Vec::new();
        for op in ops {
            match op {
                Op::Segment(s) => {
                    let seg = s.resolve(e);
                    e.on_segment(*now, &seg);
                }
                Op::Wake(us) => wake(e, now, us),
                Op::Send(b) => w.send(e, b as u64),
                Op::Close => w.close(e),
            }
            drain(e, *now, &mut sent, w)?;
            w.check(e)?;
        }
    }

    #[test]
    fn lossy_pair(cfg in tcp_config(), server_cfg in tcp_config(),
                  schedule in prop::collection::vec(chan(), 1..200)) {
        let mut p = Pair::new(cfg, server_cfg)?;
        for step in schedule {
            match step {
                Chan::Deliver(d) => p.deliver(d as usize),
                Chan::Drop(d) => {
                    if !p.wire[d as usize].is_empty() {
                        p.wire[d as usize].remove(0);
                    }
                }
                Chan::Duplicate(d) => {
                    if let Some(&s) = p.wire[d as usize].first() {
                        p.wire[d as usize].push(s);
                    }
                }
                Chan::Swap(d) => {
                    if p.wire[d as usize].len() >= 2 {
                        p.wire[d as usize].swap(0, 1);
                    }
                }
                Chan::Mark(d) => {
                    if let Some(s) = p.wire[d as usize].first_mut() {
                        if s.ecn.ecn_capable() {
                            s.ecn = Ecn::Ce;
                        }
                    }
                }
                Chan::Wake(us) => p.wake(us),
                Chan::Send(d, b) => {
                    let i = d as usize;
                    let Pair { ends, watch, .. } = &mut p;
                    watch[i].send(&mut ends[i], b as u64);
                }
                Chan::Close(d) => {
                    let i = d as usize;
                    let Pair { ends, watch, .. } = &mut p;
                    watch[i].close(&mut ends[i]);
                }
            }
            p.service()?;
        }
        // A clean channel from here on: once nothing is in flight and no timer is set, every
        // byte written has arrived, unless an end gave up (aborted).
        let mut quiet = false;
        for _ in 0..20_000 {
            if p.wire.iter().all(Vec::is_empty) && p.ends.iter().all(|e| e.next_deadline().is_none()) {
                quiet = true;
                break;
            }
            p.clean_step()?;
        }
        prop_assert!(quiet, "no quiescence on a clean channel");
        if !(p.watch[0].aborted || p.watch[1].aborted) {
            for i in 0..2 {
                prop_assert_eq!(p.ends[1 - i].bytes_received(), p.watch[i].written,
                    "end {} received {} of {} written ({:?} / {:?})", 1 - i,
                    p.ends[1 - i].bytes_received(), p.watch[i].written,
                    p.ends[0].state(), p.ends[1].state());
            }
        }
    }
}

// ---- Regressions: the crashes the targets found, each fixed at its cause ----

/// A client and a server with the handshake done (no data).
fn established() -> (Endpoint, Endpoint) {
    let now = SimTime::ZERO;
    let mut c = Endpoint::connect(TcpConfig::default(), now);
    let mut s = Endpoint::listen(TcpConfig::default());
    let syn = c.poll_transmit(now).expect("SYN");
    s.on_segment(now, &syn);
    let syn_ack = s.poll_transmit(now).expect("SYN-ACK");
    c.on_segment(now, &syn_ack);
    let ack = c.poll_transmit(now).expect("ACK");
    s.on_segment(now, &ack);
    assert_eq!(
        (c.state(), s.state()),
        (State::Established, State::Established)
    );
    (c, s)
}

#[test]
fn regression_data_near_u64_max_is_dropped_with_an_ack() {
    // Was: "attempt to add with overflow" in recv.rs (seq + len). Now outside the window:
    // dropped, answered with an ACK of RCV.NXT.
    let (_, mut s) = established();
    let now = SimTime::from_millis(1);
    let bad = Segment {
        seq: u64::MAX - 10,
        ack: 1,
        len: 100,
        flags: Flags::ACK | Flags::FIN,
        wnd: 65535,
        ..Segment::default()
    };
    s.on_segment(now, &bad);
    let ack = s.poll_transmit(now).expect("an ACK");
    assert_eq!(
        (ack.ack, ack.len, s.rcv_nxt(), s.bytes_received()),
        (1, 0, 1, 0)
    );
    assert_eq!(s.state(), State::Established);
}

#[test]
fn regression_payload_beyond_the_advertised_window_is_not_buffered() {
    // Out-of-order data ending at RCV.NXT + receive_window is buffered (the filler brings
    // RCV.NXT past it); one byte further it is dropped (a conforming peer never sends past the
    // window we advertise), so after the filler RCV.NXT stops at its start.
    let now = SimTime::from_millis(1);
    let w = TcpConfig::default().receive_window as u64;
    for (seq, buffered) in [(1 + w - 100, true), (1 + w - 99, false)] {
        let (_, mut s) = established();
        let ooo = Segment {
            seq,
            ack: 1,
            len: 100,
            flags: Flags::ACK,
            wnd: 65535,
            ..Segment::default()
        };
        s.on_segment(now, &ooo);
        let filler = Segment {
            seq: 1,
            ack: 1,
            len: (seq - 1) as u32,
            flags: Flags::ACK,
            wnd: 65535,
            ..Segment::default()
        };
        s.on_segment(now, &filler);
        let want = if buffered { seq + 100 } else { seq };
        assert_eq!(s.rcv_nxt(), want, "seq {seq}");
    }
}

#[test]
fn regression_a_syn_near_u64_max_is_ignored() {
    // Was: overflow of RCV.NXT = seq + 1 (and of the FIN after it). Peers start at 0.
    let mut s = Endpoint::listen(TcpConfig::default());
    let syn = Segment {
        seq: u64::MAX,
        flags: Flags::SYN,
        wnd: 65535,
        ..Segment::default()
    };
    s.on_segment(SimTime::ZERO, &syn);
    assert_eq!(s.state(), State::Listen);
    assert!(s.poll_transmit(SimTime::ZERO).is_none());
}
