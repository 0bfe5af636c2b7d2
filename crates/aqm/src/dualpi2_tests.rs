//! Tests of `dualpi2.rs`: Linux's derived values, hand-computed controller steps, marking
//! probabilities, the scheduler and the step threshold.

use super::*;
use crate::packet::PacketClass;

fn pkt(id: u32, size: u32, ecn: Ecn) -> PacketMeta {
    PacketMeta {
        id,
        size_bytes: size,
        ecn,
        class: PacketClass::Bulk,
        cwnd_hint: 0,
        flow: 0,
        enqueued_at: SimTime::ZERO,
    }
}

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

/// tc's display of an internal gain: `%f` of unscale(x)/256.
fn shown(internal: u32) -> String {
    format!("{:.6}", unscale_alpha_beta(internal) as f64 / 256.0)
}

#[test]
fn derived_values_match_linux_tc_testing() {
    // tc-testing qdiscs/dualpi2.json, test 2130: "typical_rtt 20ms max_rtt 200ms" shows
    // "target 20ms tupdate 20ms alpha 0.042969 beta 1.496094".
    let p = DualPi2Params {
        typical_rtt: Some(SimDuration::from_millis(20)),
        max_rtt: Some(SimDuration::from_millis(200)),
        ..Default::default()
    };
    let g = DualPi2::new(p).unwrap().gains();
    assert_eq!((g.target_ns, g.tupdate_ns), (20_000_000, 20_000_000));
    assert_eq!(
        (shown(g.alpha).as_str(), shown(g.beta).as_str()),
        ("0.042969", "1.496094")
    );
    // Test 90c1: "max_rtt 300ms" shows "target 50ms tupdate 50ms alpha 0.050781 beta 0.996094".
    let p = DualPi2Params {
        max_rtt: Some(SimDuration::from_millis(300)),
        ..Default::default()
    };
    let g = DualPi2::new(p).unwrap().gains();
    assert_eq!((g.target_ns, g.tupdate_ns), (50_000_000, 50_000_000));
    assert_eq!(
        (shown(g.alpha).as_str(), shown(g.beta).as_str()),
        ("0.050781", "0.996094")
    );
    // tc's netlink values before the kernel's rounding: 0.05·256 = 12.8 → 12, 1.5·256 → 384.
    assert_eq!(tc_derive(20_000, 200_000), (20_000, 20_000, 12, 384));
}

#[test]
fn default_gains_are_linuxs_41_and_819_over_256() {
    // scale(41) = ⌊⌊41·(2³²−1)/4⌋ / 10⁹⌋ = ⌊44 023 414 773 / 10⁹⌋ = 44; scale(819) = 879.
    let g = DualPi2::new(DualPi2Params::default()).unwrap().gains();
    assert_eq!(
        g,
        Pi2Gains {
            target_ns: 15_000_000,
            tupdate_ns: 16_000_000,
            alpha: 44,
            beta: 879
        }
    );
}

#[test]
fn controller_steps_by_hand() {
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    let mut rng = units::stream(1, "t");
    let mut out = Vec::new();
    q.enqueue(ms(0), pkt(1, 1500, Ecn::NotEct), &mut rng);
    assert_eq!(q.next_deadline(), Some(ms(16)));
    // t = 16 ms: qdelay 16 ms; Δ = (16e6 − 15e6)·44 + (16e6 − 0)·879 = 14 108e6; /64 = 220 437 500.
    q.on_timeout(ms(16));
    assert_eq!(q.base_prob_raw(), 220_437_500);
    // t = 32 ms: Δ = 17e6·44 + 16e6·879 = 14 812e6; /64 = 231 437 500.
    q.on_timeout(ms(32));
    assert_eq!(q.base_prob_raw(), 451_875_000);
    // The packet leaves (backlog < 2 MTU: no drop); the queue is empty at 48 ms:
    // Δ = −15e6·44 − 32e6·879 = −28 788e6; /64 = 449 812 500 → 2 062 500.
    assert_eq!(q.dequeue(ms(33), &mut out).unwrap().id, 1);
    q.on_timeout(ms(48));
    assert_eq!(q.base_prob_raw(), 2_062_500);
    // t = 64 ms: Δ = −15e6·44 = −660e6; /64 = 10 312 500 > p': clamped to 0.
    q.on_timeout(ms(64));
    assert_eq!(q.base_prob_raw(), 0);
}

#[test]
fn the_larger_queue_delay_drives_the_controller() {
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    let mut rng = units::stream(1, "t");
    q.enqueue(ms(0), pkt(1, 1500, Ecn::Ect1), &mut rng); // L, 16 ms old at the update
    q.enqueue(ms(10), pkt(2, 1500, Ecn::NotEct), &mut rng); // C, 6 ms old
    q.on_timeout(ms(16));
    assert_eq!(q.base_prob_raw(), 220_437_500, "as with 16 ms in one queue");
}

#[test]
fn classification_by_ecn_codepoint() {
    let mut rng = units::stream(1, "t");
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    for (i, e) in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce]
        .into_iter()
        .enumerate()
    {
        q.enqueue(ms(0), pkt(i as u32, 100, e), &mut rng);
    }
    assert_eq!((q.l_len(), q.c_len()), (2, 2), "ECT(1) and CE in L");
    let mut q = DualPi2::new(DualPi2Params {
        any_ect: true,
        ..Default::default()
    })
    .unwrap();
    for (i, e) in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce]
        .into_iter()
        .enumerate()
    {
        q.enqueue(ms(0), pkt(i as u32, 100, e), &mut rng);
    }
    assert_eq!((q.l_len(), q.c_len()), (3, 1), "any_ect: ECT(0) in L too");
}

/// Marks and drops of `n` packets of codepoint `ecn` through a queue held at p' = `p`, ten
/// packets standing (above the 2-MTU guard), sojourn 0 (no step marks).
fn fates(params: DualPi2Params, p: f64, ecn: Ecn, n: u32) -> (f64, f64) {
    let mut q = DualPi2::new(params).unwrap();
    q.prob = (p * MAX_PROB as f64) as u32;
    let mut rng = units::stream(7, "fates");
    let mut out = Vec::new();
    let (mut marks, mut id) = (0u32, 0u32);
    let t = ms(1);
    while q.len_packets() < 10 {
        assert!(q.enqueue(t, pkt(id, 1500, ecn), &mut rng) == Verdict::Enqueued);
        id += 1;
    }
    let before = q.stats().dequeue_drops;
    for _ in 0..n {
        q.enqueue(t, pkt(id, 1500, ecn), &mut rng);
        id += 1;
        if q.dequeue(t, &mut out).is_some() && q.dequeue_marked() {
            marks += 1;
        }
        while q.len_packets() < 10 {
            q.enqueue(t, pkt(id, 1500, ecn), &mut rng);
            id += 1;
        }
    }
    let drops = q.stats().dequeue_drops - before;
    q.stats().check_identities(q.len_packets() as u64).unwrap();
    (
        marks as f64 / n as f64,
        drops as f64 / (marks as u64 + drops + (n - marks) as u64) as f64,
    )
}

#[test]
fn classic_is_squared_and_l4s_is_coupled() {
    let d = DualPi2Params::default;
    // p' = 0.3: classic p'² = 0.09 (marked if ECT(0), dropped if Not-ECT); L k·p' = 0.6.
    let (m, dr) = fates(d(), 0.3, Ecn::Ect0, 20_000);
    assert!(
        (m - 0.09).abs() < 0.01 && dr == 0.0,
        "classic ECT(0): marks {m}, drops {dr}"
    );
    let (m, dr) = fates(d(), 0.3, Ecn::NotEct, 20_000);
    assert!(
        m == 0.0 && (dr - 0.09).abs() < 0.01,
        "classic Not-ECT: drops {dr}"
    );
    let (m, dr) = fates(d(), 0.3, Ecn::Ect1, 20_000);
    assert!((m - 0.6).abs() < 0.015 && dr == 0.0, "L: marks {m}");
    // k = 1: L at p' itself.
    let (m, _) = fates(
        DualPi2Params {
            coupling_factor: 1,
            ..d()
        },
        0.3,
        Ecn::Ect1,
        20_000,
    );
    assert!((m - 0.3).abs() < 0.015, "k = 1: marks {m}");
}

#[test]
fn overload_drops_with_p_squared_or_marks_everything() {
    // p' = 0.6: k·p' = 1.2 > 1. drop_on_overload: L packets dropped with p'² = 0.36, every
    // other one marked; without it, all marked.
    let (m, dr) = fates(DualPi2Params::default(), 0.6, Ecn::Ect1, 20_000);
    // (A few pass unmarked: drops in a row leave less than 2 MTU behind.)
    assert!((dr - 0.36).abs() < 0.015 && m > 0.999, "m {m} dr {dr}");
    let p = DualPi2Params {
        drop_on_overload: false,
        ..Default::default()
    };
    let (m, dr) = fates(p, 0.6, Ecn::Ect1, 5_000);
    assert_eq!((m, dr), (1.0, 0.0));
    // Classic ECT(0) at overload: hit with p'² and dropped, never marked.
    let (m, dr) = fates(DualPi2Params::default(), 0.6, Ecn::Ect0, 20_000);
    assert!(
        m == 0.0 && (dr - 0.36).abs() < 0.015,
        "classic at overload: m {m} dr {dr}"
    );
}

#[test]
fn without_drop_on_overload_the_controller_caps_p_at_one_over_k() {
    let p = DualPi2Params {
        drop_on_overload: false,
        ..Default::default()
    };
    let mut q = DualPi2::new(p).unwrap();
    let mut rng = units::stream(1, "t");
    q.enqueue(ms(0), pkt(1, 1500, Ecn::NotEct), &mut rng);
    q.on_timeout(ms(5000)); // 5 s standing: p' would pass 1
    assert_eq!(q.base_prob_raw(), MAX_PROB / 2);
}

#[test]
fn nothing_is_hit_below_two_mtu() {
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    q.prob = MAX_PROB;
    let mut rng = units::stream(1, "t");
    let mut out = Vec::new();
    // Two 1500-byte packets: at each dequeue at most 1500 B remain, below 3000.
    q.enqueue(ms(0), pkt(1, 1500, Ecn::NotEct), &mut rng);
    q.enqueue(ms(0), pkt(2, 1500, Ecn::NotEct), &mut rng);
    assert_eq!(q.dequeue(ms(0), &mut out).unwrap().id, 1);
    assert_eq!(q.dequeue(ms(0), &mut out).unwrap().id, 2);
    assert!(out.is_empty());
    // Four: the first two leave 4500 and 3000 B behind: dropped (p' = 1); the rest pass.
    for i in 0..4 {
        q.enqueue(ms(1), pkt(10 + i, 1500, Ecn::NotEct), &mut rng);
    }
    assert_eq!(q.dequeue(ms(1), &mut out).unwrap().id, 12);
    assert_eq!(
        out.iter().map(|(p, _)| p.id).collect::<Vec<_>>(),
        vec![10, 11]
    );
    assert!(out.iter().all(|(_, r)| *r == DropReason::DequeueTime));
}

fn order(q: &mut DualPi2) -> String {
    let mut out = Vec::new();
    std::iter::from_fn(|| q.dequeue(ms(0), &mut out))
        .map(|p| if p.ecn == Ecn::Ect1 { 'L' } else { 'C' })
        .collect()
}

#[test]
fn scheduler_gives_classic_its_share_by_bytes() {
    // Credit starts at 1500·(10 − 90) = −120 000: L while ≤ 0, +10·1500 per L packet, −90·1500
    // per C packet, while the other queue waits. 10 L and 10 C packets of 1500 B:
    // 9 L (credit −120 000 … 0), C (15 000 → −120 000), L, then C alone.
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    let mut rng = units::stream(1, "t");
    for i in 0..10 {
        q.enqueue(ms(0), pkt(i, 1500, Ecn::Ect1), &mut rng);
        q.enqueue(ms(0), pkt(100 + i, 1500, Ecn::NotEct), &mut rng);
    }
    assert_eq!(order(&mut q), "LLLLLLLLLCLCCCCCCCCC");
    assert_eq!(q.credit(), -120_000, "reset when empty");
    // 50 %: credit 0 → L, +75 000 → C, −75 000 → 0 → L …: alternate.
    let p = DualPi2Params {
        classic_protection: 50,
        ..Default::default()
    };
    let mut q = DualPi2::new(p).unwrap();
    for i in 0..4 {
        q.enqueue(ms(0), pkt(i, 1500, Ecn::Ect1), &mut rng);
        q.enqueue(ms(0), pkt(100 + i, 1500, Ecn::NotEct), &mut rng);
    }
    assert_eq!(order(&mut q), "LCLCLCLC");
    // Credit moves by size: 10 % with 150-byte L packets: 81 of them pass before the first C
    // (credit −120 000 + 1 500·k ≤ 0 for k ≤ 80).
    let mut q = DualPi2::new(DualPi2Params::default()).unwrap();
    for i in 0..100 {
        q.enqueue(ms(0), pkt(i, 150, Ecn::Ect1), &mut rng);
    }
    q.enqueue(ms(0), pkt(1000, 1500, Ecn::NotEct), &mut rng);
    assert_eq!(order(&mut q).find('C'), Some(81));
}

/// Share of `n` L packets marked when each waits `sojourn` behind nothing (p' = 0).
fn step_marked(params: DualPi2Params, sojourn_us: u64, n: u64) -> f64 {
    let mut q = DualPi2::new(params).unwrap();
    let mut rng = units::stream(3, "step");
    let mut out = Vec::new();
    let mut marks = 0;
    for i in 0..n {
        let t = 10_000 * i;
        q.enqueue(us(t), pkt(i as u32, 1500, Ecn::Ect1), &mut rng);
        q.dequeue(us(t + sojourn_us), &mut out).unwrap();
        marks += q.dequeue_marked() as u64;
    }
    marks as f64 / n as f64
}

#[test]
fn step_threshold_marks_none_below_and_all_above() {
    // In the style of Linux's sch_red.sh selftest: below the 1 ms threshold 0 % marked, above
    // it ≥ 95 % (here all: the step is deterministic).
    let d = DualPi2Params::default;
    assert_eq!(step_marked(d(), 500, 1000), 0.0);
    assert_eq!(
        step_marked(d(), 1000, 1000),
        0.0,
        "a sojourn equal to the threshold passes"
    );
    assert!(step_marked(d(), 1001, 1000) >= 0.95);
    assert_eq!(step_marked(d(), 1001, 1000), 1.0);
    // min_qlen_step 1: a packet that found the L queue empty is never step-marked.
    assert_eq!(
        step_marked(
            DualPi2Params {
                min_qlen_step: 1,
                ..d()
            },
            5000,
            100
        ),
        0.0
    );
}

#[test]
fn step_threshold_in_packets_counts_the_l_queue_behind() {
    // step 3 packets: of 6 L packets dequeued back to back, those leaving more than 3 behind
    // (5 and 4 behind) are marked, the rest not.
    let p = DualPi2Params {
        step_thresh_packets: 3,
        ..Default::default()
    };
    let mut q = DualPi2::new(p).unwrap();
    let mut rng = units::stream(1, "t");
    let mut out = Vec::new();
    for i in 0..6 {
        q.enqueue(ms(0), pkt(i, 100, Ecn::Ect1), &mut rng);
    }
    let marked: Vec<bool> = (0..6)
        .map(|_| {
            q.dequeue(ms(50), &mut out).unwrap();
            q.dequeue_marked()
        })
        .collect();
    assert_eq!(marked, vec![true, true, false, false, false, false]);
    assert_eq!(q.step_marks(), 2);
}

#[test]
fn drop_enqueue_decides_on_arrival() {
    let p = DualPi2Params {
        drop_enqueue: true,
        ..Default::default()
    };
    let mut q = DualPi2::new(p).unwrap();
    q.prob = MAX_PROB;
    let mut rng = units::stream(1, "t");
    let v: Vec<Verdict> = (0..4)
        .map(|i| q.enqueue(ms(0), pkt(i, 1500, Ecn::NotEct), &mut rng))
        .collect();
    // The third finds 3000 B (2 MTU) stored: from then on dropped early (p' = 1).
    let e = Verdict::Enqueued;
    assert_eq!(
        v,
        vec![
            e,
            e,
            Verdict::Dropped(DropReason::Early),
            Verdict::Dropped(DropReason::Early)
        ]
    );
    // ECT(0) classic at p' = 1 is overload (k·p' > 1): dropped, not marked.
    assert_eq!(
        q.enqueue(ms(0), pkt(9, 1500, Ecn::Ect0), &mut rng),
        Verdict::Dropped(DropReason::Early)
    );
}

#[test]
fn limit_is_shared_by_both_queues() {
    let mut q = DualPi2::new(DualPi2Params {
        limit: 3,
        ..Default::default()
    })
    .unwrap();
    let mut rng = units::stream(1, "t");
    q.enqueue(ms(0), pkt(1, 100, Ecn::Ect1), &mut rng);
    q.enqueue(ms(0), pkt(2, 100, Ecn::NotEct), &mut rng);
    q.enqueue(ms(0), pkt(3, 100, Ecn::Ect1), &mut rng);
    assert_eq!(
        q.enqueue(ms(0), pkt(4, 100, Ecn::NotEct), &mut rng),
        Verdict::Dropped(DropReason::Overflow)
    );
    q.stats().check_identities(3).unwrap();
}

#[test]
fn bad_parameters_name_their_key() {
    let bad = |p: DualPi2Params| DualPi2::new(p).unwrap_err();
    let e = bad(DualPi2Params {
        max_rtt: Some(SimDuration::from_millis(100)),
        target: SimDuration::from_millis(5),
        ..Default::default()
    });
    assert_eq!(e.key, "max_rtt");
    assert!(e.reason.contains("target"), "{}", e.reason);
    let e = bad(DualPi2Params {
        typical_rtt: Some(SimDuration::from_millis(300)),
        max_rtt: Some(SimDuration::from_millis(100)),
        ..Default::default()
    });
    assert_eq!(e.key, "typical_rtt");
    assert_eq!(
        bad(DualPi2Params {
            classic_protection: 101,
            ..Default::default()
        })
        .key,
        "classic_protection"
    );
    assert_eq!(
        bad(DualPi2Params {
            coupling_factor: 0,
            ..Default::default()
        })
        .key,
        "coupling_factor"
    );
    // max_rtt 60 s: α = 0.1·10 s/3600 s² = 2.8e-4 Hz < 1/256: tc refuses it too.
    assert_eq!(
        bad(DualPi2Params {
            max_rtt: Some(SimDuration::from_secs(60)),
            ..Default::default()
        })
        .key,
        "max_rtt"
    );
}

#[test]
fn dequeued_lane_names_the_queue_the_packet_left() {
    // RFC 9331 §5.1: ECT(1) and CE to L, ECT(0) too with any_ect, everything else to C.
    let mut rng = units::stream(5, "lane");
    let mut out = Vec::new();
    for (any_ect, ecn, lane) in [
        (false, Ecn::Ect1, Lane::L),
        (false, Ecn::Ce, Lane::L),
        (false, Ecn::Ect0, Lane::C),
        (false, Ecn::NotEct, Lane::C),
        (true, Ecn::Ect0, Lane::L),
    ] {
        let p = DualPi2Params {
            any_ect,
            ..Default::default()
        };
        let mut q = DualPi2::new(p).unwrap();
        assert!(q.has_lanes());
        q.enqueue(ms(0), pkt(1, 1500, ecn), &mut rng);
        assert_eq!(q.dequeue(ms(1), &mut out).map(|p| p.id), Some(1));
        assert_eq!(q.dequeued_lane(), Some(lane), "{ecn:?}, any_ect {any_ect}");
    }
    let dt = crate::DropTail::new(crate::DropTailParams::default()).unwrap();
    assert!(!dt.has_lanes() && dt.dequeued_lane().is_none());
}
