//! Tests of RED's options (count rules, gentle, byte mode, byte queue, ECN rules); a child
//! module of `red.rs`. Every expected value is derived by hand in the comments.

use super::*;
use crate::packet::{Ecn, PacketClass};
use units::{Rate, SimDuration};

fn link() -> LinkInfo {
    LinkInfo {
        rate: Rate::from_bps(10_000_000),
        delay: SimDuration::from_millis(10),
    }
}

fn pkt(id: u32, size: u32, ect: bool) -> PacketMeta {
    PacketMeta {
        id,
        size_bytes: size,
        ecn: Ecn::rfc3168(ect),
        class: PacketClass::Bulk,
        cwnd_hint: 0,
        flow: 0,
        enqueued_at: SimTime::ZERO,
    }
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

/// RED's defaults with `mean_pktsize` 1000, the unit the byte-mode cases below are computed in.
fn base() -> RedParams {
    RedParams {
        mean_pktsize: 1000,
        ..RedParams::default()
    }
}

/// `min_th` 4, `max_th` 8, `max_p` 1/8, `w_q` 1 (avg = packets waiting before the arrival):
/// every value below is exact in binary; at avg 8 − ε … the linear p_b is `(q − 4)/32`.
fn pinned(over: RedParams) -> RedParams {
    RedParams {
        min_th: 4.0,
        max_th: 8.0,
        max_p: 0.125,
        w_q: 1.0,
        limit: 1000,
        ..over
    }
}

/// Hold the queue at `hold` packets of `size` bytes (each accepted arrival is followed by one
/// departure) and return the gaps between drops — arrivals since the previous drop, the drop
/// included — over `n` arrivals; the first, partial gap is discarded.
fn gaps(p: RedParams, hold: u32, size: u32, n: u32, seed: u64) -> Vec<u32> {
    let mut q = Red::new(p, link()).unwrap();
    let mut rng = units::stream(seed, "red-options");
    let mut d = Vec::new();
    let mut id = 0;
    while q.len_packets() < hold {
        q.enqueue(ms(0), pkt(id, size, false), &mut rng);
        id += 1;
    }
    let (mut out, mut gap, mut seen_drop) = (Vec::new(), 0u32, false);
    for _ in 0..n {
        gap += 1;
        match q.enqueue(ms(1), pkt(id, size, false), &mut rng) {
            Verdict::Dropped(DropReason::Early) => {
                if seen_drop {
                    out.push(gap);
                }
                seen_drop = true;
                gap = 0;
            }
            Verdict::Enqueued => {
                q.dequeue(ms(1), &mut d).unwrap();
            }
            v => panic!("unexpected {v:?}"),
        }
        assert_eq!(q.avg(), hold as f64);
        id += 1;
    }
    assert_eq!(q.stats().forced_drops + q.stats().overflow_drops, 0);
    q.stats().check_identities(q.len_packets() as u64).unwrap();
    out
}

/// Share of each gap length `lo..=hi` among `g`; panics on a gap outside.
fn shares(g: &[u32], lo: u32, hi: u32) -> Vec<f64> {
    let mut h = vec![0u32; (hi - lo + 1) as usize];
    for &x in g {
        assert!((lo..=hi).contains(&x), "gap {x} outside {lo}..={hi}");
        h[(x - lo) as usize] += 1;
    }
    h.iter().map(|&c| c as f64 / g.len() as f64).collect()
}

#[test]
fn count_rule_formulas_by_hand() {
    let p_b = 0.0625; // 1/16
                      // Altq, eq. C.2: p_b/(2 − n·p_b).
    assert_eq!(CountRule::Altq.p_a(p_b, 0), 0.03125);
    assert_eq!(CountRule::Altq.p_a(p_b, 16), 0.0625); // 1/16 / (2 − 1)
    assert_eq!(CountRule::Altq.p_a(p_b, 30), 0.5); // 1/16 / (2 − 30/16)
    assert_eq!(CountRule::Altq.p_a(p_b, 31), 1.0); // denominator 1/16 = p_b
                                                   // Ns2Wait: 0 while n·p_b < 1, then p_b/(2 − n·p_b), then 1.
    assert_eq!(CountRule::Ns2Wait.p_a(p_b, 15), 0.0);
    assert_eq!(CountRule::Ns2Wait.p_a(p_b, 16), 0.0625);
    assert_eq!(CountRule::Ns2Wait.p_a(p_b, 24), 0.125); // 1/16 / (2 − 1.5)
    assert_eq!(CountRule::Ns2Wait.p_a(p_b, 31), 1.0);
    assert_eq!(CountRule::Ns2Wait.p_a(p_b, 40), 1.0);
    // Paper: p_b/(1 − n·p_b), 1 from n = 15 (denominator 1/16).
    assert_eq!(CountRule::Paper.p_a(p_b, 8), 0.125);
    assert_eq!(CountRule::Paper.p_a(p_b, 15), 1.0);
}

/// ALTQ rule at constant p_b = 1/16 (avg held at 8 with min_th 4, max_th 12, max_p 1/8). The
/// k-th arrival after a drop (count = k) survives with 1 − p_b/(2 − k·p_b) = (2 − (k+1)p_b)/
/// (2 − k·p_b); the product over k = 1..n telescopes to P(gap > n) = (2 − (n+1)p_b)/(2 − p_b),
/// linear in n, so P(gap = n) = p_b/(2 − p_b) = 1/31 for n = 1..=31 (p_a = 1 at count 31):
/// uniform on 1..=2/p_b − 1, mean 16 = 1/p_b — half the paper rule's drop rate (mean gap 8),
/// which is why seed 000 Appendix C doubles max_p for ALTQ.
#[test]
fn altq_gap_uniform_on_1_to_2_over_p_b() {
    let p = pinned(RedParams {
        count_rule: CountRule::Altq,
        ..base()
    });
    let p = RedParams { max_th: 12.0, ..p };
    assert_eq!(p.p_b(8.0), 0.0625);
    let g = gaps(p.clone(), 8, 1000, 300_000, 11);
    let s = shares(&g, 1, 31);
    for (i, x) in s.iter().enumerate() {
        assert!((x - 1.0 / 31.0).abs() < 0.005, "gap {}: share {x}", i + 1);
    }
    assert_eq!(*g.iter().max().unwrap(), 31);
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!((mean - 16.0).abs() < 0.25, "mean gap {mean}");
    // The paper rule on the same queue: uniform on 1..=15, mean 8.
    let g = gaps(
        RedParams {
            count_rule: CountRule::Paper,
            ..p
        },
        8,
        1000,
        100_000,
        12,
    );
    assert_eq!(*g.iter().max().unwrap(), 15);
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!((mean - 8.0).abs() < 0.15, "mean gap {mean}");
}

/// ns-2 wait rule at p_b = 1/16: no drop before count 16 (16·p_b = 1); from there the survival
/// product telescopes as for ALTQ, P(gap > n) = (2 − (n+1)p_b)/(2 − 16·p_b) = 2 − (n+1)/16 for
/// n ≥ 16, so gaps are uniform on 16..=31 (1/16 each), mean 23.5.
#[test]
fn ns2_wait_gap_uniform_on_1_over_p_b_to_2_over_p_b() {
    let p = pinned(RedParams {
        count_rule: CountRule::Ns2Wait,
        ..base()
    });
    let p = RedParams { max_th: 12.0, ..p };
    let g = gaps(p, 8, 1000, 300_000, 13);
    let s = shares(&g, 16, 31);
    for (i, x) in s.iter().enumerate() {
        assert!((x - 1.0 / 16.0).abs() < 0.006, "gap {}: share {x}", i + 16);
    }
    assert_eq!(*g.iter().min().unwrap(), 16);
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!((mean - 23.5).abs() < 0.2, "mean gap {mean}");
}

#[test]
fn gentle_p_b_by_hand() {
    let p = RedParams {
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        gentle: true,
        ..base()
    };
    assert!((p.p_b(10.0) - 0.05).abs() < 1e-15); // linear segment unchanged
    assert_eq!(p.p_b(15.0), 0.1); // max_p at max_th
    assert!((p.p_b(22.5) - 0.55).abs() < 1e-15); // 1.5·max_th: 0.1 + 0.9·7.5/15
    assert_eq!(p.p_b(30.0), 1.0); // 2·max_th
    let hard = RedParams { gentle: false, ..p };
    assert_eq!(hard.p_b(22.5), 1.0);
}

/// All packets ECT and `ecn_rule = Always`: early decisions become marks, so the queue grows
/// by one per arrival until the forced rule stops it — at 2·max_th = 16 with gentle, at
/// max_th = 8 without. With `GentleDrop`, arrivals that find 8 ≤ avg < 16 are dropped, never
/// marked, and the queue stops at 12: p_b(12) = 0.5625 > ½ makes p_a = 1 from count 1 (see
/// the next test), while at 11 (p_b = 0.453) some arrivals pass; no forced drop ever.
#[test]
fn gentle_forces_only_at_twice_max_th() {
    for (gentle, rule, cap) in [
        (true, EcnRule::Always, 16),
        (false, EcnRule::Always, 8),
        (true, EcnRule::GentleDrop, 12),
    ] {
        let mut q = Red::new(
            pinned(RedParams {
                gentle,
                ecn: true,
                ecn_rule: rule,
                ..base()
            }),
            link(),
        )
        .unwrap();
        let mut rng = units::stream(5, "red-options");
        let mut first_forced = None;
        for i in 0..400 {
            let before = q.len_packets();
            let v = q.enqueue(ms(0), pkt(i, 1000, true), &mut rng);
            match v {
                Verdict::Dropped(DropReason::Forced) => {
                    first_forced.get_or_insert(before);
                }
                Verdict::EnqueuedMarked => assert!(
                    before < 8 || rule == EcnRule::Always,
                    "marked at {before} with {rule:?}"
                ),
                Verdict::Dropped(DropReason::Early) => {
                    assert!(rule == EcnRule::GentleDrop && before >= 8)
                }
                _ => {}
            }
            assert!(first_forced.is_none() || v == Verdict::Dropped(DropReason::Forced));
        }
        let want = (rule == EcnRule::Always).then_some(cap);
        assert_eq!(first_forced, want, "gentle {gentle} {rule:?}");
        assert_eq!(q.len_packets(), cap);
        q.stats().check_identities(cap as u64).unwrap();
    }
}

/// At avg = 12 = 1.5·max_th (gentle), p_b = 1/8 + 7/8·4/8 = 0.5625 > 1/2, so with the paper
/// rule p_a = 1 already at count 1 (1 − 0.5625 ≤ p_b): after the first drop every non-ECT
/// arrival is an early (not forced) drop.
#[test]
fn gentle_region_drops_every_arrival_at_one_and_a_half_max_th() {
    let p = pinned(RedParams {
        gentle: true,
        ecn: true,
        ecn_rule: EcnRule::Always,
        ..base()
    });
    let mut q = Red::new(p, link()).unwrap();
    assert_eq!(q.p_b(12.0), 0.5625);
    let mut rng = units::stream(6, "red-options");
    for i in 0..12 {
        // ECT packets: marked or accepted, so the queue reaches 12.
        assert_ne!(
            q.enqueue(ms(0), pkt(i, 1000, true), &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
    }
    assert_eq!(q.len_packets(), 12);
    let v: Vec<_> = (0..50)
        .map(|i| q.enqueue(ms(0), pkt(100 + i, 1000, false), &mut rng))
        .collect();
    let first = v.iter().position(|x| *x != Verdict::Enqueued).unwrap();
    assert_eq!(first, 0, "count ≥ 1 already: p_a = 1 at once");
    assert!(v.iter().all(|x| *x == Verdict::Dropped(DropReason::Early)));
    assert_eq!(q.count(), 0);
}

/// Byte mode with the paper rule at p_b = 1/16 and 250-byte packets (mean 1000): the k-th
/// arrival after a drop has n = ⌊250k/1000⌋ = ⌊k/4⌋ and p_a = ¼·(1/16)/(1 − n/16) =
/// 1/(4·(16 − n)) for n ≤ 14, and 1 (unscaled) from n = 15 (k = 60). The mean gap is
/// Σ_{k≥0} P(gap > k), computed below from this formula; 1000-byte packets give the plain
/// paper rule, mean gap 8.
#[test]
fn byte_mode_scales_probability_by_size() {
    let p = RedParams {
        max_th: 12.0,
        byte_mode: true,
        ..pinned(base())
    };
    let mut expect = 0.0;
    let mut survive = 1.0;
    for k in 1..=60u32 {
        expect += survive; // P(gap > k − 1)
        let n = (k / 4) as f64;
        let p_a = if n >= 15.0 {
            1.0
        } else {
            1.0 / (4.0 * (16.0 - n))
        };
        survive *= 1.0 - p_a;
    }
    assert!(survive == 0.0);
    assert!(expect > 30.0 && expect < 40.0, "{expect}"); // about four times 8
    let g = gaps(p.clone(), 8, 250, 400_000, 21);
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!(
        (mean - expect).abs() < 0.01 * expect,
        "mean {mean} vs {expect}"
    );
    assert!(*g.iter().max().unwrap() <= 60);
    let g = gaps(p, 8, 1000, 100_000, 22);
    let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
    assert!((mean - 8.0).abs() < 0.15, "mean {mean}");
}

/// ns-2 wait rule in byte mode with 100-byte packets (mean 1000) at avg 1 with min_th 0,
/// max_th 2, max_p 1: p_b = 1/2; n = ⌊100k/1000⌋. n ≤ 1 gives n·p_b < 1, p_a = 0: the first 19
/// arrivals after a drop always pass; n = 2 (k = 20..=29): p_a = ½/(2 − 1) = ½, scaled ×0.1 to
/// 0.05; n = 3 (k = 30): p_a = 1. So gaps lie in 20..=30 and P(gap = 30) = 0.95^10 = 0.5987.
/// In packet mode (n = k) the same queue gives gaps 2 or 3, each with probability ½.
#[test]
fn byte_mode_counts_in_mean_size_packets() {
    let p = RedParams {
        min_th: 0.0,
        max_th: 2.0,
        max_p: 1.0,
        w_q: 1.0,
        limit: 100,
        count_rule: CountRule::Ns2Wait,
        byte_mode: true,
        ..base()
    };
    let g = gaps(p.clone(), 1, 100, 200_000, 31);
    let s = shares(&g, 20, 30);
    assert!((s[10] - 0.95f64.powi(10)).abs() < 0.01, "P(30) = {}", s[10]);
    assert!((s[0] - 0.05).abs() < 0.005, "P(20) = {}", s[0]);
    let g = gaps(
        RedParams {
            byte_mode: false,
            ..p
        },
        1,
        100,
        20_000,
        32,
    );
    let s = shares(&g, 2, 3);
    assert!((s[0] - 0.5).abs() < 0.02, "P(2) = {}", s[0]);
}

/// `queue_in_bytes`: the sample is bytes waiting / mean_pktsize. 500-byte packets, mean 1000,
/// w_q ½, link busy: arrivals see 0 (idle start, m = 0), then 0.5, 1.0, 1.5 mean-size packets
/// → avg 0.25, 0.625, 1.0625. The limit of 2 is 2000 bytes: 500-byte packets are accepted while
/// fewer than 2000 bytes wait (4 of them); 1500-byte packets at 0 and 1500 bytes (the second
/// goes over), the third overflows.
#[test]
fn byte_queue_average_and_limit() {
    let p = RedParams {
        w_q: 0.5,
        min_th: 100.0,
        max_th: 200.0,
        limit: 2,
        queue_in_bytes: true,
        ..base()
    };
    let mut q = Red::new(p.clone(), link()).unwrap();
    let mut rng = units::stream(1, "red-options");
    let mut avgs = Vec::new();
    let mut v = Vec::new();
    for i in 0..5 {
        v.push(q.enqueue(ms(0), pkt(i, 500, false), &mut rng));
        avgs.push(q.avg());
    }
    assert_eq!(avgs[..4], [0.0, 0.25, 0.625, 1.0625]);
    assert_eq!(v[..4], [Verdict::Enqueued; 4]);
    assert_eq!(v[4], Verdict::Dropped(DropReason::Overflow));
    let mut q = Red::new(p, link()).unwrap();
    let v: Vec<_> = (0..3)
        .map(|i| q.enqueue(ms(0), pkt(i, 1500, false), &mut rng))
        .collect();
    assert_eq!(
        v,
        [
            Verdict::Enqueued,
            Verdict::Enqueued,
            Verdict::Dropped(DropReason::Overflow)
        ]
    );
    assert_eq!(q.len_bytes(), 3000);
    q.stats().check_identities(2).unwrap();
}

/// ns-2 `use_mark_p_` test with mark_p 0.05: linear p_b = (q − 4)/32 is 0, 1/32 at q = 4, 5
/// (below 0.05: marks, never early drops) and 1/16, 3/32 at q = 6, 7 (drops, never marks).
#[test]
fn ecn_mark_p_marks_only_below_threshold() {
    let mut q = Red::new(
        pinned(RedParams {
            ecn: true,
            ecn_rule: EcnRule::MarkP(0.05),
            ..base()
        }),
        link(),
    )
    .unwrap();
    let mut rng = units::stream(8, "red-options");
    let mut d = Vec::new();
    let (mut marks_low, mut drops_high) = (0, 0);
    for i in 0..20_000 {
        let before = q.len_packets();
        match q.enqueue(ms(1), pkt(i, 1000, true), &mut rng) {
            Verdict::EnqueuedMarked => {
                assert!(before == 5, "mark at {before}");
                marks_low += 1;
            }
            Verdict::Dropped(DropReason::Early) => {
                assert!(before == 6 || before == 7, "drop at {before}");
                drops_high += 1;
            }
            Verdict::Enqueued => {}
            v => panic!("{v:?}"),
        }
        if q.len_packets() >= 8 {
            for _ in 0..4 {
                q.dequeue(ms(1), &mut d).unwrap();
            }
        }
    }
    assert!(
        marks_low > 100 && drops_high > 100,
        "{marks_low} {drops_high}"
    );
    q.stats().check_identities(q.len_packets() as u64).unwrap();
}

#[test]
fn bad_ecn_mark_p_names_its_key() {
    let e = Red::new(
        RedParams {
            ecn_rule: EcnRule::MarkP(0.0),
            ..base()
        },
        link(),
    )
    .unwrap_err();
    assert_eq!(e.key, "ecn_mark_p");
}

/// `backlog_gate` (ns-2.35 `enque()`): `min_th` 0.5, `max_th` 100.5, `max_p` 1, `w_q` 1, so
/// with one packet waiting avg = 1 and p_b = 0.5/100 = 0.005 (Paper rule: p_a ≥ 0.005 on every
/// arrival). Held at one packet for 20 000 arrivals, RED without the gate drops about 20 000 /
/// (mean gap (1 + 199)/2 = 100; gaps uniform on 1..=1/p_b − 1) = 200 packets early; with the
/// gate the backlog never exceeds 1 and nothing is dropped.
#[test]
fn backlog_gate_spares_a_one_packet_queue() {
    for (gate, dropped) in [(false, true), (true, false)] {
        let mut q = Red::new(
            RedParams {
                min_th: 0.5,
                max_th: 100.5,
                max_p: 1.0,
                w_q: 1.0,
                limit: 1000,
                backlog_gate: gate,
                ..base()
            },
            link(),
        )
        .unwrap();
        let mut rng = units::stream(3, "red-gate");
        let mut d = Vec::new();
        q.enqueue(ms(0), pkt(0, 1000, false), &mut rng);
        for id in 1..20_001 {
            if let Verdict::Enqueued = q.enqueue(ms(1), pkt(id, 1000, false), &mut rng) {
                q.dequeue(ms(1), &mut d).unwrap();
            }
            assert_eq!(q.len_packets(), 1);
        }
        let early = q.stats().early_drops;
        assert_eq!(early > 150, dropped, "gate {gate}: {early} early drops");
        if gate {
            assert_eq!(early, 0);
        }
    }
}

/// `backlog_gate`, count restart: `min_th` 2, `max_th` 6, `max_p` 1, `w_q` 1, Paper rule, so
/// at 3 packets waiting p_b = (3 − 2)/4 = ¼. Filling the queue, the arrival that finds 2 waiting
/// (avg 2 ≥ min_th, backlog 2 > 1) opens the active period: count = 1, no test. Held at 3, the
/// next arrival has count 2: p_a = ¼/(1 − 2·¼) = ½; if it passes, count 3: p_a = ¼/(1 − ¾) = 1.
/// So the first drop is the first or the second held arrival, each with probability ½ (without
/// the gate the first tested arrival has count 0 and p_a = ¼, the next ⅓, ½, then 1). Draining to
/// one packet closes the period; refilling restarts count at 1 the same way.
#[test]
fn backlog_gate_restarts_count_at_one() {
    let p = RedParams {
        min_th: 2.0,
        max_th: 6.0,
        max_p: 1.0,
        w_q: 1.0,
        limit: 1000,
        backlog_gate: true,
        ..base()
    };
    let mut first = 0;
    let seeds = 2000;
    for seed in 0..seeds {
        let mut q = Red::new(p.clone(), link()).unwrap();
        let mut rng = units::stream(seed, "red-gate-count");
        let mut d = Vec::new();
        for id in 0..3 {
            assert_eq!(
                q.enqueue(ms(0), pkt(id, 1000, false), &mut rng),
                Verdict::Enqueued
            );
        }
        assert_eq!(q.count(), 1);
        // Close the period (one packet left), then reopen it.
        q.dequeue(ms(1), &mut d).unwrap();
        q.dequeue(ms(1), &mut d).unwrap();
        q.enqueue(ms(2), pkt(3, 1000, false), &mut rng); // finds 1 waiting: avg 1 < min_th
        assert_eq!(q.count(), -1);
        q.enqueue(ms(2), pkt(4, 1000, false), &mut rng); // finds 2: entry, count 1
        assert_eq!((q.count(), q.len_packets()), (1, 3));
        let v1 = q.enqueue(ms(3), pkt(5, 1000, false), &mut rng);
        if v1 == Verdict::Dropped(DropReason::Early) {
            first += 1;
        } else {
            q.dequeue(ms(3), &mut d).unwrap();
            let v2 = q.enqueue(ms(3), pkt(6, 1000, false), &mut rng);
            assert_eq!(v2, Verdict::Dropped(DropReason::Early));
        }
        assert_eq!(q.count(), 0);
    }
    // Binomial(2000, ½): sd ≈ 22; 5 sd.
    assert!((first as i64 - 1000).abs() < 112, "{first} of {seeds}");
}

/// `forced_drop_on_avg = false` (ns-2's `use_mark_p_`), byte mode, `Ns2Wait`, `mean_pktsize`
/// 500: held at 10 packets (avg 10 ≥ max_th 8, not gentle) p_b = 1, and after a drop
/// `n = ⌊40·k/500⌋` for the k-th 40-byte arrival: p_a = 0 while n = 0 (k ≤ 12), then at k = 13
/// n = 1, n·p_b = 1 → p_a = 1/(2 − 1) = 1 (not scaled: only p_a < 1 is). Every gap is exactly
/// 13, and every drop is early. With the paper's forced drop every arrival is a forced drop.
#[test]
fn no_forced_drop_on_average_passes_small_packets() {
    let p = pinned(RedParams {
        byte_mode: true,
        count_rule: CountRule::Ns2Wait,
        mean_pktsize: 500,
        forced_drop_on_avg: false,
        ..base()
    });
    let g = gaps(p.clone(), 10, 40, 2000, 1);
    assert!(g.len() > 100 && g.iter().all(|&x| x == 13), "{g:?}");
    let mut q = Red::new(
        RedParams {
            forced_drop_on_avg: true,
            ..p
        },
        link(),
    )
    .unwrap();
    let mut rng = units::stream(1, "red-forced");
    for id in 0..10 {
        q.enqueue(ms(0), pkt(id, 40, false), &mut rng);
    }
    for id in 10..20 {
        assert_eq!(
            q.enqueue(ms(0), pkt(id, 40, false), &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
    }
}

/// `idle_decay = Ns2`: 10 Mbps and 1250-byte typical packets give s = 1 ms. After q = 1, 2, 3
/// with w 0.1 (avg a), the queue drains and goes idle at 5 ms; an arrival at 8.7 ms has m =
/// 3.7: the paper decays by 0.9^3.7; ns-2 by 0.9^(⌊3.7⌋ + 1) = 0.9^4, plus 0.1·q with q = 0.
#[test]
fn ns2_idle_decay_rounds_down_and_adds_one_step() {
    for (rule, power) in [(IdleDecay::Paper, 3.7), (IdleDecay::Ns2, 4.0)] {
        let mut q = Red::new(
            RedParams {
                w_q: 0.1,
                min_th: 100.0,
                max_th: 200.0,
                mean_pktsize: 1250,
                limit: 1000,
                idle_decay: rule,
                ..base()
            },
            link(),
        )
        .unwrap();
        let mut rng = units::stream(1, "red-idle");
        for id in 0..4 {
            q.enqueue(ms(0), pkt(id, 1000, false), &mut rng);
        }
        let a = ((0.1 * 0.9 + 0.2) * 0.9) + 0.3;
        assert!((q.avg() - a).abs() < 1e-12);
        let mut d = Vec::new();
        for _ in 0..4 {
            q.dequeue(ms(4), &mut d).unwrap();
        }
        assert!(q.dequeue(ms(5), &mut d).is_none());
        q.enqueue(SimTime::from_micros(8_700), pkt(9, 1000, false), &mut rng);
        let want = a * units::math::powf(0.9, power);
        assert!(
            (q.avg() - want).abs() < 1e-12,
            "{rule:?}: {} vs {want}",
            q.avg()
        );
    }
}
