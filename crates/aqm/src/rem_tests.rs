//! Tests of `rem.rs` (kept apart to hold each file under ~600 lines).

use super::*;
use crate::pi::fixtures::{ms, pkt};
use units::Rate;

/// 10 Mbps with 1000-byte mean packets and a 2 ms period: c = 10e6·0.002/8000 = 2.5.
fn link() -> LinkInfo {
    LinkInfo {
        rate: Rate::from_mbps(10),
        delay: SimDuration::from_millis(10),
    }
}

/// γ = 1, φ = 2, α = 0.5, b* = 2, input weight 0.5: numbers one can follow by hand.
fn readable() -> RemParams {
    RemParams {
        gamma: 1.0,
        phi: 2.0,
        alpha: 0.5,
        b_star: 2.0,
        input_weight: 0.5,
        limit: 100,
        ..Default::default()
    }
}

fn arrive(q: &mut Rem, n: u32, size: u32, t: SimTime, rng: &mut Rng) -> Vec<Verdict> {
    (0..n)
        .map(|i| q.enqueue(t, pkt(i, size, 0, false), rng))
        .collect()
}

fn depart(q: &mut Rem, n: u32) {
    let mut d = Vec::new();
    for _ in 0..n {
        q.dequeue(SimTime::ZERO, &mut d).unwrap();
    }
}

#[test]
fn price_sequence_by_hand() {
    let mut q = Rem::new(readable(), link()).unwrap();
    let mut rng = units::stream(1, "rem");
    assert_eq!(q.capacity_per_period(), 2.5);
    assert_eq!(q.next_deadline(), Some(ms(2)));
    // Period 1: 6 arrivals (prob 0: all kept), 3 departures → b = 3.
    // in_avg = 0.5·6 = 3; P = 0 + 1·(3 + 0.5·(3 − 2) − 2.5) = 1; prob = 1 − 2^−1 = 0.5.
    assert_eq!(
        arrive(&mut q, 6, 1000, ms(0), &mut rng),
        [Verdict::Enqueued; 6]
    );
    depart(&mut q, 3);
    q.on_timeout(ms(2));
    assert_eq!((q.in_avg(), q.price(), q.prob()), (3.0, 1.0, 0.5));
    // Period 2: no arrivals, 1 departure → b = 2. in_avg = 1.5; P = 1 + (1.5 + 0 − 2.5) = 0.
    depart(&mut q, 1);
    q.on_timeout(ms(4));
    assert_eq!((q.in_avg(), q.price(), q.prob()), (1.5, 0.0, 0.0));
    // Period 3: nothing; b = 2. in_avg = 0.75; 0 + (0.75 − 2.5) < 0 → P clamped at 0.
    q.on_timeout(ms(6));
    assert_eq!((q.in_avg(), q.price(), q.prob()), (0.75, 0.0, 0.0));
    // Period 4: 9 arrivals (prob 0), no departures → b = 11.
    // in_avg = 0.375 + 4.5 = 4.875; P = 4.875 + 0.5·9 − 2.5 = 6.875; prob = 1 − 2^−6.875.
    arrive(&mut q, 9, 1000, ms(7), &mut rng);
    q.on_timeout(ms(8));
    assert_eq!((q.in_avg(), q.price()), (4.875, 6.875));
    let prob4 = 1.0 - 1.0 / units::math::powf(2.0, 6.875);
    assert!((q.prob() - prob4).abs() < 1e-15);
    assert!((q.prob() - 0.991_480_408_338_6).abs() < 1e-12);
    // Period 5: 4 arrivals, each dropped iff U < prob4 (next draws of the stream); every
    // arrival counts in `in`, dropped or not. in_avg = 2.4375 + 2 = 4.4375;
    // P = 6.875 + 4.4375 + 0.5·(11 + kept − 2) − 2.5.
    let mut shadow = rng.clone();
    let want: Vec<bool> = (0..4).map(|_| shadow.gen::<f64>() < prob4).collect();
    let got = arrive(&mut q, 4, 1000, ms(9), &mut rng);
    let kept = want.iter().filter(|d| !**d).count();
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(*g == Verdict::Dropped(DropReason::Early), *w);
    }
    q.on_timeout(ms(10));
    assert_eq!(q.in_avg(), 4.4375);
    let p5 = 6.875 + 4.4375 + 0.5 * (9.0 + kept as f64) - 2.5;
    assert!((q.price() - p5).abs() < 1e-12);
    q.stats().check_identities(q.len_packets() as u64).unwrap();
    assert_eq!(q.len_packets() as usize, 11 + kept);
}

#[test]
fn byte_mode_by_hand() {
    let mut q = Rem::new(
        RemParams {
            byte_mode: true,
            input_weight: 1.0,
            limit: 5,
            ..readable()
        },
        link(),
    )
    .unwrap();
    let mut rng = units::stream(2, "rem");
    // 3 × 1500 B + 2 × 40 B arrive (4580 B → in = 4.58), one 1500-byte packet leaves
    // (b = 3080/1000 = 3.08). P = 4.58 + 0.5·(3.08 − 2) − 2.5 = 2.62.
    arrive(&mut q, 3, 1500, ms(0), &mut rng);
    arrive(&mut q, 2, 40, ms(0), &mut rng);
    depart(&mut q, 1);
    q.on_timeout(ms(2));
    assert!((q.in_avg() - 4.58).abs() < 1e-12);
    assert!((q.price() - 2.62).abs() < 1e-12);
    let prob = 1.0 - units::math::powf(2.0, -2.62);
    assert!((q.prob() - 0.837_332_268_069_8).abs() < 1e-12);
    // Byte-scaled: 40 B faces prob·0.04; 1500 B faces min(1, 1.5·prob) = 1.
    let mut shadow = rng.clone();
    for i in 0..200 {
        let want = shadow.gen::<f64>() < prob * 0.04;
        let v = q.enqueue(ms(3), pkt(i, 40, 0, false), &mut rng);
        assert_eq!(
            v == Verdict::Dropped(DropReason::Early),
            want,
            "arrival {i}"
        );
        if !want {
            depart(&mut q, 1);
        }
    }
    assert_eq!(
        q.enqueue(ms(3), pkt(9, 1500, 0, false), &mut rng),
        Verdict::Dropped(DropReason::Early)
    );
    // Buffer 5·1000 = 5000 B: with prob 0, 40-byte packets are kept while the bytes
    // waiting are below 5000; the first arrival that finds ≥ 5000 B overflows.
    q.prob = 0.0;
    let mut n = 0;
    while q.len_bytes() < 5000 {
        assert_eq!(
            q.enqueue(ms(3), pkt(n, 40, 0, false), &mut rng),
            Verdict::Enqueued
        );
        n += 1;
    }
    assert!(q.len_bytes() < 5040);
    assert_eq!(
        q.enqueue(ms(3), pkt(n, 40, 0, false), &mut rng),
        Verdict::Dropped(DropReason::Overflow)
    );
    q.stats().check_identities(q.len_packets() as u64).unwrap();
}

#[test]
fn timer_runs_without_arrivals() {
    // ns-2 defaults: γ = 0.001, α = 0.1, b* = 20, input weight 1, c = 2.5.
    let mut q = Rem::new(RemParams::default(), link()).unwrap();
    let mut rng = units::stream(3, "rem");
    arrive(&mut q, 30, 1000, ms(0), &mut rng);
    // Update 1 (2 ms): in = 30, b = 30: P = 0.001·(30 + 1 − 2.5) = 0.0285.
    q.on_timeout(ms(2));
    assert!((q.price() - 0.0285).abs() < 1e-15);
    assert!((q.prob() - (1.0 - units::math::powf(1.001, -0.0285))).abs() < 1e-18);
    // No more arrivals, b stays 30: each update adds 0.001·(0 + 1 − 2.5) = −0.0015.
    for k in 1..=5u64 {
        assert_eq!(q.next_deadline(), Some(ms(2 + 2 * k)));
        q.on_timeout(ms(2 + 2 * k));
        assert!((q.price() - (0.0285 - 0.0015 * k as f64)).abs() < 1e-15);
    }
    // Early wake-up: nothing. Late wake-up at 40 ms: updates at 14..=40 ms (14 of them):
    // 0.021 − 14·0.0015 = 0 (the clamp is not needed to reach it but keeps it there).
    q.on_timeout(SimTime::from_micros(13_999));
    assert!((q.price() - 0.021).abs() < 1e-15);
    q.on_timeout(ms(40));
    assert!(q.price().abs() < 1e-15);
    q.on_timeout(ms(42));
    assert_eq!((q.price(), q.prob()), (0.0, 0.0));
    assert_eq!(q.next_deadline(), Some(ms(44)));
}

#[test]
fn arrivals_follow_the_random_stream() {
    let mut q = Rem::new(readable(), link()).unwrap();
    let mut rng = units::stream(4, "rem");
    arrive(&mut q, 6, 1000, ms(0), &mut rng);
    depart(&mut q, 3);
    q.on_timeout(ms(2));
    assert_eq!(q.prob(), 0.5);
    let mut shadow = rng.clone();
    let mut drops = 0;
    for i in 0..20_000 {
        let want = shadow.gen::<f64>() < 0.5;
        let v = q.enqueue(ms(3), pkt(i, 1000, 0, true), &mut rng);
        assert_eq!(v == Verdict::Dropped(DropReason::Early), want);
        drops += want as u32;
        if !want {
            depart(&mut q, 1);
        }
    }
    assert!((drops as f64 / 20_000.0 - 0.5).abs() < 0.01);
    q.stats().check_identities(q.len_packets() as u64).unwrap();
}

/// Price ≥ 1 with φ = 1e18 gives prob = 1 − 1e−18, which is 1.0 in f64: every arrival hit.
fn certain(ecn: RemEcn) -> (Rem, Rng) {
    let mut q = Rem::new(
        RemParams {
            phi: 1e18,
            ecn,
            ..readable()
        },
        link(),
    )
    .unwrap();
    let mut rng = units::stream(5, "rem");
    arrive(&mut q, 8, 1000, ms(0), &mut rng);
    q.on_timeout(ms(2));
    assert_eq!(q.prob(), 1.0);
    (q, rng)
}

#[test]
fn ecn_modes() {
    let ect = |q: &mut Rem, rng: &mut Rng| q.enqueue(ms(3), pkt(1, 1000, 9, true), rng);
    let not = |q: &mut Rem, rng: &mut Rng| q.enqueue(ms(3), pkt(2, 40, 0, false), rng);
    let early = Verdict::Dropped(DropReason::Early);
    let (mut q, mut r) = certain(RemEcn::Off);
    assert_eq!((ect(&mut q, &mut r), not(&mut q, &mut r)), (early, early));
    let (mut q, mut r) = certain(RemEcn::Mark);
    assert_eq!(
        (ect(&mut q, &mut r), not(&mut q, &mut r)),
        (Verdict::EnqueuedMarked, early)
    );
    // ns-2 markpkts_: both kept at arrival; at departure only the ECT one (the 9th stored)
    // is marked.
    let (mut q, mut r) = certain(RemEcn::Ns2MarkPkts);
    assert_eq!(
        (ect(&mut q, &mut r), not(&mut q, &mut r)),
        (Verdict::Enqueued, Verdict::Enqueued)
    );
    let mut d = Vec::new();
    let mut marked_at = Vec::new();
    for i in 0..10 {
        q.dequeue(ms(3), &mut d).unwrap();
        if q.dequeue_marked() {
            marked_at.push(i);
        }
    }
    assert_eq!(marked_at, [8]);
    assert!(q.dequeue(ms(3), &mut d).is_none());
    assert!(!q.dequeue_marked());
    let s = q.stats();
    assert_eq!((s.marks, s.early_drops), (1, 0));
    s.check_identities(0).unwrap();
}

/// ns-2 markpkts_ decides at departure with the probability current then: ECT packets
/// stored while prob = 0 are marked when they leave after prob has risen to 0.5, each iff
/// its U (drawn when it was stored) is below 0.5.
#[test]
fn ns2_markpkts_uses_the_probability_at_departure() {
    // 8 Mbps: c = 8e6·0.002/8000 = 2. α = 0, input weight 1, γ = 1/256, φ = 2.
    let mut q = Rem::new(
        RemParams {
            ecn: RemEcn::Ns2MarkPkts,
            alpha: 0.0,
            input_weight: 1.0,
            gamma: 1.0 / 256.0,
            limit: 1000,
            ..readable()
        },
        LinkInfo {
            rate: Rate::from_mbps(8),
            delay: SimDuration::ZERO,
        },
    )
    .unwrap();
    let mut rng = units::stream(7, "rem");
    let mut shadow = rng.clone();
    let us: Vec<f64> = (0..258).map(|_| shadow.gen::<f64>()).collect();
    for i in 0..258 {
        assert_eq!(
            q.enqueue(ms(0), pkt(i, 1000, 9, true), &mut rng),
            Verdict::Enqueued
        );
    }
    let mut d = Vec::new();
    for _ in 0..250 {
        q.dequeue(ms(1), &mut d).unwrap();
        assert!(!q.dequeue_marked(), "prob is still 0");
    }
    // Update at 2 ms: in = 258, P = (258 − 2)/256 = 1, prob = 0.5.
    q.on_timeout(ms(2));
    assert_eq!((q.price(), q.prob()), (1.0, 0.5));
    let mut marks = 0;
    for u in &us[250..] {
        q.dequeue(ms(3), &mut d).unwrap();
        assert_eq!(q.dequeue_marked(), *u < 0.5);
        marks += (*u < 0.5) as u64;
    }
    assert_eq!(q.stats().marks, marks);
    q.stats().check_identities(0).unwrap();
}

#[test]
fn ns2_off_by_one_holds_limit_minus_one() {
    for (off, held) in [(false, 3), (true, 2)] {
        let mut q = Rem::new(
            RemParams {
                limit: 3,
                ns2_off_by_one: off,
                ..Default::default()
            },
            link(),
        )
        .unwrap();
        let mut rng = units::stream(6, "rem");
        let v = arrive(&mut q, 5, 1000, ms(0), &mut rng);
        assert_eq!(q.len_packets(), held);
        assert_eq!(q.stats().overflow_drops, 5 - held as u64);
        assert!(v[held as usize..]
            .iter()
            .all(|x| *x == Verdict::Dropped(DropReason::Overflow)));
        // Overflowed arrivals still count in `in`: 5 arrivals, b = held.
        q.on_timeout(ms(2));
        let want = 0.001 * (5.0 + 0.1 * (held as f64 - 20.0) - 2.5);
        assert!((q.price() - want.max(0.0)).abs() < 1e-15);
    }
}

#[test]
fn bad_parameters_name_their_key() {
    let bad = |p: RemParams| Rem::new(p, link()).unwrap_err().key;
    let d = RemParams::default;
    assert_eq!(bad(RemParams { gamma: 0.0, ..d() }), "gamma");
    assert_eq!(bad(RemParams { phi: 1.0, ..d() }), "phi");
    assert_eq!(bad(RemParams { alpha: -0.1, ..d() }), "alpha");
    assert_eq!(
        bad(RemParams {
            update_period: SimDuration::ZERO,
            ..d()
        }),
        "update_period"
    );
    assert_eq!(
        bad(RemParams {
            b_star: f64::NAN,
            ..d()
        }),
        "b_star"
    );
    assert_eq!(
        bad(RemParams {
            input_weight: 0.0,
            ..d()
        }),
        "input_weight"
    );
    assert_eq!(
        bad(RemParams {
            mean_pktsize: 0,
            ..d()
        }),
        "mean_pktsize"
    );
    assert_eq!(bad(RemParams { limit: 0, ..d() }), "limit");
    assert_eq!(
        bad(RemParams {
            limit: 1,
            ns2_off_by_one: true,
            ..d()
        }),
        "limit"
    );
}
