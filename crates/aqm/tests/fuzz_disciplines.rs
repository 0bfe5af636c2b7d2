//! Fuzzing every queue discipline (issue 15) as a property test on stable `cargo test`
//! (proptest, fixed seed 15 unless `PROPTEST_RNG_SEED` is set; `PROPTEST_CASES` sets the number
//! of inputs, the long run of `docs/testing.md` uses 1,000,000 in release mode).
//!
//! Each input is one of the thirteen disciplines with random parameters (around the defaults,
//! every option switched at random), a link of 64 kbit/s to 10 Gbit/s, and a sequence of
//! arrivals (40–1500 B, any ECN codepoint, any class, cwnd hint and flow), dequeues and timer wake-ups
//! at times that only move forward, as the engine calls them (`QueueDisc`'s contract). After
//! every call: no panic; conservation (a model of the stored packets, by id, agrees with what
//! `enqueue`, `dequeue`, `take_evicted` and the dequeue-time drops say, and with `len_packets`,
//! `len_bytes` and `QueueStats::check_identities`); only stored packets come out, each once; a
//! CE mark only on an ECT packet; the queue never above its limit (packets, or bytes in byte
//! mode, where the check is made before the arrival so the last one may overshoot by its own
//! size); every probability the discipline exposes in [0, 1]; the next deadline never in the
//! past after a wake-up.

use std::collections::BTreeMap;

use aqm::{
    AdaptOn, AredParams, AvqParams, BlueParams, CodelParams, CountRule, Discipline,
    DisciplineParams, DropReason, DropTailParams, DualPi2Params, Ecn, EcnRule, FqCodelParams,
    HintlessPolicy, IdleDecay, LimitUnit, LinkInfo, PacketClass, PacketMeta, PiParams, PieParams,
    PimcParams, PisaParams, QueueDisc, RedParams, RemEcn, RemParams, Verdict,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use units::{Rate, SimDuration, SimTime};

/// Inputs in `cargo test` (debug, well under 20 s); `PROPTEST_CASES` overrides.
const CI_CASES: u32 = 20_000;
/// Largest arrival, bytes.
const MAX_PKT: u32 = 1500;

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

/// A queue limit: often small, so that the buffer fills.
fn lim() -> impl Strategy<Value = u64> {
    prop_oneof![1u64..12, 1u64..600]
}

fn ms(lo: u64, hi: u64) -> impl Strategy<Value = SimDuration> {
    (lo..hi).prop_map(SimDuration::from_millis)
}

fn red() -> impl Strategy<Value = RedParams> {
    (
        (
            0.0f64..60.0,
            1.0f64..200.0,
            prop_oneof![Just(0.002), Just(1.0 / 512.0), Just(0.05), Just(1.0)],
        ),
        (0.001f64..=1.0, lim(), any::<[bool; 7]>()),
        (0usize..3, 0usize..3, 0.01f64..=1.0, any::<bool>()),
    )
        .prop_map(
            |((min_th, span, w_q), (max_p, limit, b), (cr, er, mark_p, ns2_idle))| RedParams {
                min_th,
                max_th: min_th + span,
                w_q,
                max_p,
                limit,
                ecn: b[0],
                gentle: b[1],
                byte_mode: b[2],
                queue_in_bytes: b[3],
                backlog_gate: b[4],
                forced_drop_on_avg: b[5],
                count_rule: [CountRule::Paper, CountRule::Altq, CountRule::Ns2Wait][cr],
                ecn_rule: [EcnRule::GentleDrop, EcnRule::Always, EcnRule::MarkP(mark_p)][er],
                idle_decay: if ns2_idle {
                    IdleDecay::Ns2
                } else {
                    IdleDecay::Paper
                },
                ..RedParams::default()
            },
        )
}

fn ared() -> impl Strategy<Value = AredParams> {
    (ms(1, 100), ms(10, 1000), lim(), any::<[bool; 9]>()).prop_map(
        |(target_delay, interval, limit, b)| AredParams {
            target_delay,
            interval,
            limit,
            ecn: b[0],
            byte_mode: b[1],
            queue_in_bytes: b[2],
            clamp_max_p: b[3],
            gentle_uses_initial_max_p: b[4],
            adapt_on: if b[5] {
                AdaptOn::Arrival
            } else {
                AdaptOn::Timer
            },
            auto_bottom: b[6],
            backlog_gate: b[7],
            forced_drop_on_avg: b[8],
            ..AredParams::default()
        },
    )
}

fn pi() -> impl Strategy<Value = PiParams> {
    (1.0f64..100.0, lim(), any::<[bool; 3]>()).prop_map(|(q_ref, limit, b)| PiParams {
        q_ref,
        limit,
        queue_in_bytes: b[0],
        byte_prob: b[1],
        ecn: b[2],
        ..PiParams::default()
    })
}

fn params() -> impl Strategy<Value = DisciplineParams> {
    prop_oneof![
        (1u64..400, any::<bool>(), any::<bool>()).prop_map(|(limit, bytes, off)| {
            DisciplineParams::DropTail(DropTailParams {
                limit: if bytes { limit * 700 } else { limit },
                unit: if bytes {
                    LimitUnit::Bytes
                } else {
                    LimitUnit::Packets
                },
                ns2_off_by_one: off && limit > 1,
            })
        }),
        red().prop_map(DisciplineParams::Red),
        ared().prop_map(DisciplineParams::Ared),
        pi().prop_map(DisciplineParams::Pi),
        (pi(), any::<bool>()).prop_map(|(pi, protect)| DisciplineParams::Pisa(PisaParams {
            pi,
            hintless: if protect {
                HintlessPolicy::Protect
            } else {
                HintlessPolicy::Pi
            },
            ..PisaParams::default()
        })),
        (pi(), 0u32..20)
            .prop_map(|(pi, min_cwnd)| DisciplineParams::Pimc(PimcParams { pi, min_cwnd })),
        (lim().prop_map(|l| l + 1), 0usize..3, any::<[bool; 2]>()).prop_map(|(limit, e, b)| {
            DisciplineParams::Rem(RemParams {
                limit,
                byte_mode: b[0],
                ns2_off_by_one: b[1],
                ecn: [RemEcn::Off, RemEcn::Mark, RemEcn::Ns2MarkPkts][e],
                ..RemParams::default()
            })
        }),
        (ms(1, 30), ms(30, 300), lim(), any::<bool>()).prop_map(
            |(target, interval, limit, ecn)| {
                DisciplineParams::Codel(CodelParams {
                    target,
                    interval,
                    limit,
                    ecn,
                    ..CodelParams::default()
                })
            }
        ),
        (1u32..128, 300u32..3000, lim(), any::<bool>()).prop_map(|(flows, quantum, limit, ecn)| {
            DisciplineParams::FqCodel(FqCodelParams {
                flows,
                quantum,
                limit,
                ecn,
                ..FqCodelParams::default()
            })
        }),
        (ms(1, 50), lim(), any::<[bool; 2]>()).prop_map(|(target, limit, b)| {
            DisciplineParams::Pie(PieParams {
                target,
                limit,
                ecn: b[0],
                cap_drop_adjustment: b[1],
                ..PieParams::default()
            })
        }),
        (
            lim().prop_map(|l| l + 1),
            prop::option::of(lim()),
            any::<bool>()
        )
            .prop_map(|(limit, threshold, ecn)| {
                DisciplineParams::Blue(BlueParams {
                    limit,
                    threshold: threshold.map(|t| t.min(limit - 1)),
                    ecn,
                    ..BlueParams::default()
                })
            }),
        (
            lim(),
            0u64..101,
            1u64..5,
            any::<[bool; 4]>(),
            ms(0, 3),
            0u64..4
        )
            .prop_map(|(limit, wc, k, b, step, step_p)| DisciplineParams::DualPi2(
                DualPi2Params {
                    limit,
                    classic_protection: wc,
                    coupling_factor: k,
                    drop_on_overload: b[0],
                    drop_enqueue: b[1],
                    any_ect: b[2],
                    max_rtt: b[3].then_some(SimDuration::from_millis(100)),
                    step_thresh: step,
                    step_thresh_packets: step_p,
                    min_qlen_step: step_p,
                    ..DualPi2Params::default()
                }
            )),
        (lim(), any::<[bool; 3]>()).prop_map(|(limit, b)| DisciplineParams::Avq(AvqParams {
            limit,
            byte_mode: b[0],
            ecn: b[1],
            ns2_capacity_update: b[2],
            ..AvqParams::default()
        })),
    ]
}

/// The limit the discipline enforces: (packets, bytes) — one of them `u64::MAX`.
fn limit_of(p: &DisciplineParams) -> (u64, u64) {
    let bytes = |limit: u64, size: u32| (u64::MAX, limit.saturating_mul(size as u64));
    match p {
        DisciplineParams::DropTail(d) => match d.unit {
            LimitUnit::Packets => (d.limit, u64::MAX),
            LimitUnit::Bytes => (u64::MAX, d.limit),
        },
        DisciplineParams::Red(r) if r.queue_in_bytes => bytes(r.limit, r.mean_pktsize),
        DisciplineParams::Red(r) => (r.limit, u64::MAX),
        DisciplineParams::Ared(a) if a.queue_in_bytes => bytes(a.limit, a.mean_pktsize),
        DisciplineParams::Ared(a) => (a.limit, u64::MAX),
        DisciplineParams::Pi(p)
        | DisciplineParams::Pisa(PisaParams { pi: p, .. })
        | DisciplineParams::Pimc(PimcParams { pi: p, .. }) => {
            if p.queue_in_bytes {
                bytes(p.limit, p.mean_pktsize)
            } else {
                (p.limit, u64::MAX)
            }
        }
        DisciplineParams::Rem(r) if r.byte_mode => bytes(r.limit, r.mean_pktsize),
        DisciplineParams::Rem(r) => (r.limit, u64::MAX),
        DisciplineParams::Codel(c) => (c.limit, u64::MAX),
        DisciplineParams::FqCodel(c) => (c.limit, u64::MAX),
        DisciplineParams::Pie(c) => (c.limit, u64::MAX),
        DisciplineParams::Blue(c) => (c.limit, u64::MAX),
        DisciplineParams::Avq(c) => (c.limit, u64::MAX),
        DisciplineParams::DualPi2(c) => (c.limit, u64::MAX),
    }
}

/// Every probability the discipline exposes.
fn probabilities(d: &Discipline, avgs: &[f64]) -> Vec<f64> {
    match d {
        Discipline::Red(r) => {
            let mut v = vec![r.max_p()];
            v.extend(avgs.iter().map(|&a| r.p_b(a)));
            v
        }
        Discipline::Ared(a) => {
            let mut v = vec![a.max_p()];
            v.extend(avgs.iter().map(|&x| a.p_b(x)));
            v
        }
        Discipline::Pi(p) => vec![p.core().p()],
        Discipline::Pisa(p) => vec![p.core().p()],
        Discipline::Pimc(p) => vec![p.core().p()],
        Discipline::Rem(r) => vec![r.prob()],
        Discipline::Pie(p) => vec![p.drop_prob()],
        Discipline::Blue(b) => vec![b.p_m()],
        Discipline::DualPi2(d) => vec![d.base_prob()],
        _ => vec![],
    }
}

#[derive(Clone, Debug)]
enum Op {
    Arrive {
        size: u32,
        /// ECN bits (RFC 3168 values 0–3).
        ecn: u8,
        class: u8,
        cwnd: u32,
        flow: u32,
    },
    /// This many arrivals of one flow at one instant (1500 B, the four codepoints in turn).
    Burst(u32, u32),
    Dequeue,
    /// Advance the clock by this many µs.
    Advance(u32),
    /// Advance to the next deadline (if any) and run `on_timeout`.
    Wake,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (40u32..=MAX_PKT, 0u8..4, 0u8..4, 0u32..100, 0u32..32)
            .prop_map(|(size, ecn, class, cwnd, flow)| Op::Arrive { size, ecn, class, cwnd, flow }),
        1 => (1u32..80, 0u32..32).prop_map(|(n, flow)| Op::Burst(n, flow)),
        4 => Just(Op::Dequeue),
        2 => prop_oneof![0u32..100, 0u32..2_000_000].prop_map(Op::Advance),
        1 => Just(Op::Wake),
    ]
}

fn link() -> impl Strategy<Value = LinkInfo> {
    (
        prop_oneof![
            Just(64_000u64),
            Just(1_500_000),
            Just(10_000_000),
            Just(10_000_000_000)
        ],
        0u64..200,
    )
        .prop_map(|(bps, d)| LinkInfo {
            rate: Rate::from_bps(bps),
            delay: SimDuration::from_millis(d),
        })
}

/// The stored packets as the discipline's answers say, by id.
struct Model {
    stored: BTreeMap<u32, PacketMeta>,
    bytes: u64,
}

impl Model {
    fn remove(&mut self, id: u32, what: &str) -> Result<PacketMeta, TestCaseError> {
        let p = self.stored.remove(&id);
        prop_assert!(p.is_some(), "{what} of packet {id}, which is not stored");
        let p = p.unwrap();
        self.bytes -= p.size_bytes as u64;
        Ok(p)
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_discipline_conserves_packets_and_stays_in_bounds(
        params in params(), link in link(), seed in any::<u64>(), ops in prop::collection::vec(op(), 1..300)
    ) {
        let mut d = params.build(link).map_err(|e| TestCaseError::fail(format!("{}: {e}", params.name())))?;
        let (max_pkts, max_bytes) = limit_of(&params);
        let mut rng = units::stream(seed, "fuzz");
        let mut now = SimTime::ZERO;
        let mut m = Model { stored: BTreeMap::new(), bytes: 0 };
        let mut next_id = 0u32;
        let (mut dropped, mut evicted) = (Vec::new(), Vec::new());
        let ops = ops.into_iter().flat_map(|op| match op {
            Op::Burst(n, flow) => (0..n)
                .map(|i| Op::Arrive { size: MAX_PKT, ecn: (i % 4) as u8, class: 1, cwnd: 10, flow })
                .collect::<Vec<_>>(),
            op => vec![op],
        });
        for op in ops {
            match op {
                Op::Burst(..) => unreachable!("expanded above"),
                Op::Arrive { size, ecn, class, cwnd, flow } => {
                    let class = [PacketClass::Http, PacketClass::Bulk, PacketClass::Control, PacketClass::Other][class as usize];
                    let pkt = PacketMeta { id: next_id, size_bytes: size, ecn: Ecn::from_bits(ecn), class, cwnd_hint: cwnd, flow, enqueued_at: SimTime::ZERO };
                    next_id += 1;
                    let before = m.bytes;
                    match d.enqueue(now, pkt, &mut rng) {
                        Verdict::Enqueued | Verdict::EnqueuedMarked => {
                            m.stored.insert(pkt.id, pkt);
                            m.bytes += size as u64;
                        }
                        Verdict::Dropped(_) => {}
                    }
                    d.take_evicted(&mut evicted);
                    prop_assert!(evicted.is_empty() || d.evicts(), "{} evicts but says it never does", params.name());
                    for (p, why) in evicted.drain(..) {
                        prop_assert_eq!(why, DropReason::Overflow);
                        m.remove(p.id, "eviction")?;
                    }
                    // Byte limits are checked against the backlog before the arrival.
                    prop_assert!(m.bytes <= max_bytes.max(before).saturating_add(MAX_PKT as u64),
                        "{} bytes stored, limit {max_bytes}", m.bytes);
                }
                Op::Dequeue => {
                    // A discipline that says it needs not hear of its link going idle: the
                    // dequeue that finds it empty changes nothing in it (the engine skips it).
                    let quiet = d.len_packets() == 0 && !d.hears_idle();
                    let state = if quiet { format!("{d:?}") } else { String::new() };
                    let out = d.dequeue(now, &mut dropped);
                    if quiet {
                        prop_assert_eq!(format!("{d:?}"), state, "{}: an empty dequeue changed it", params.name());
                    }
                    for (p, why) in dropped.drain(..) {
                        prop_assert_eq!(why, DropReason::DequeueTime);
                        m.remove(p.id, "dequeue-time drop")?;
                    }
                    if let Some(p) = out {
                        let stored = m.remove(p.id, "dequeue")?;
                        prop_assert_eq!(p.size_bytes, stored.size_bytes);
                        prop_assert!(!d.dequeue_marked() || p.ecn.ecn_capable(), "CE on a non-ECT packet");
                        prop_assert!(!d.dequeue_marked() || d.marks_at_dequeue(), "{} marks at dequeue but says it never does", params.name());
                        prop_assert!(p.enqueued_at <= now);
                    } else {
                        // Work-conserving: nothing comes out only when nothing is stored.
                        prop_assert!(m.stored.is_empty(), "dequeue gave nothing with {} packets stored", m.stored.len());
                    }
                }
                Op::Advance(us) => now += SimDuration::from_micros(us as u64),
                Op::Wake => {
                    if let Some(t) = d.next_deadline() {
                        now = now.max(t);
                    }
                    d.on_timeout(now);
                    if let Some(t) = d.next_deadline() {
                        prop_assert!(t > now, "deadline {t:?} not after the wake-up at {now:?}");
                    }
                }
            }
            prop_assert_eq!(d.len_packets() as usize, m.stored.len(), "len_packets");
            prop_assert_eq!(d.len_bytes(), m.bytes, "len_bytes");
            prop_assert!((d.len_packets() as u64) <= max_pkts, "{} packets, limit {max_pkts}", d.len_packets());
            d.stats().check_identities(m.stored.len() as u64).map_err(TestCaseError::fail)?;
            let avgs = [0.0, (max_pkts.min(1000) as f64) / 2.0, d.len_packets() as f64, 1e6];
            for p in probabilities(&d, &avgs) {
                prop_assert!((0.0..=1.0).contains(&p), "probability {p} of {}", params.name());
            }
        }
    }
}

#[test]
fn the_generators_reach_every_discipline() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut names = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let p = params().new_tree(&mut runner).unwrap().current();
        p.build(LinkInfo {
            rate: Rate::from_bps(10_000_000),
            delay: SimDuration::from_millis(10),
        })
        .unwrap_or_else(|e| panic!("{}: {e}", p.name()));
        names.insert(p.name());
    }
    assert_eq!(names.len(), 13, "{names:?}");
}
