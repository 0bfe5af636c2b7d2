//! Tests of `pi.rs` (kept apart to hold each file under ~600 lines).

use super::fixtures::{ms, pkt};
use super::*;

/// a = 0.01, b = 0.005, q_ref = 5, w = 1000 Hz (updates every 1 ms), packet mode.
fn small() -> PiParams {
    PiParams {
        a: 0.01,
        b: 0.005,
        w_hz: 1000.0,
        q_ref: 5.0,
        limit: 100,
        ..Default::default()
    }
}

fn fill_to(core: &mut PiCore, n: u32, rng: &mut Rng, now: SimTime) {
    while core.len_packets() > n {
        core.dequeue().unwrap();
    }
    let mut id = 1000;
    while core.len_packets() < n {
        // p = 0 while filling in these tests, so nothing is refused.
        assert_eq!(
            core.admit(now, pkt(id, 1000, 0, false), |_, _| 0.0, rng),
            Verdict::Enqueued
        );
        id += 1;
    }
}

#[test]
fn controller_sequence_by_hand() {
    let mut c = PiCore::new(small()).unwrap();
    let mut rng = units::stream(1, "pi");
    // t = 0, q = 0: p = 0.01·(−5) − 0.005·(0 − 5) + 0 = −0.025 → clamped to 0; q_old = 0.
    assert_eq!(c.next_update(), ms(0));
    c.on_timeout(ms(0));
    assert_eq!((c.p(), c.q_old()), (0.0, 0.0));
    // Scripted queue lengths seen at t = 1, 2, 3, 4, 5 ms, and p by hand:
    //   q=10: 0.01·5    − 0.005·(−5) + 0     = 0.075
    //   q=20: 0.01·15   − 0.005·5    + 0.075 = 0.2
    //   q=20: 0.01·15   − 0.005·15   + 0.2   = 0.275
    //   q=8:  0.01·3    − 0.005·15   + 0.275 = 0.23
    //   q=2:  0.01·(−3) − 0.005·3    + 0.23  = 0.185
    let script = [(10, 0.075), (20, 0.2), (20, 0.275), (8, 0.23), (2, 0.185)];
    for (k, (q, want)) in script.into_iter().enumerate() {
        let t = ms(k as u64 + 1);
        fill_to(
            &mut c,
            q,
            &mut rng,
            SimTime::from_nanos(t.as_nanos() - 1_000),
        );
        c.on_timeout(t);
        assert!((c.p() - want).abs() < 1e-12, "t={t}: p {} vs {want}", c.p());
        assert_eq!(c.q_old(), q as f64);
    }
}

#[test]
fn clamps_to_unit_interval() {
    let mut c = PiCore::new(PiParams {
        a: 0.2,
        b: 0.1,
        ..small()
    })
    .unwrap();
    let mut rng = units::stream(1, "pi");
    c.on_timeout(ms(0));
    // q = 15: 0.2·10 − 0.1·(−5) = 2.5 → 1.
    fill_to(&mut c, 15, &mut rng, ms(0));
    c.on_timeout(ms(1));
    assert_eq!(c.p(), 1.0);
    // q = 5 (error 0): 0 − 0.1·10 + 1 = 0 exactly.
    fill_to(&mut c, 5, &mut rng, ms(1));
    c.on_timeout(ms(2));
    assert_eq!(c.p(), 0.0);
    // q = 0: 0.2·(−5) − 0 + 0 = −1 → 0, not negative.
    fill_to(&mut c, 0, &mut rng, ms(2));
    c.on_timeout(ms(3));
    assert_eq!(c.p(), 0.0);
    // q = 10 after q_old = 0: 0.2·5 − 0.1·(−5) + 0 = 1.5 → 1 (clamped, not 1.5 carried on):
    // the next step at q = 5 gives 0 − 0.1·5 + 1 = 0.5.
    fill_to(&mut c, 10, &mut rng, ms(3));
    c.on_timeout(ms(4));
    assert_eq!(c.p(), 1.0);
    fill_to(&mut c, 5, &mut rng, ms(4));
    c.on_timeout(ms(5));
    assert!((c.p() - 0.5).abs() < 1e-12);
}

#[test]
fn timer_runs_without_arrivals() {
    // w = 170 Hz: period round(1e9/170) = 5_882_353 ns; deadlines at k·period from t = 0.
    let mut q = Pi::new(PiParams {
        a: 0.01,
        b: 0.005,
        q_ref: 5.0,
        ..Default::default()
    })
    .unwrap();
    let mut rng = units::stream(1, "pi");
    assert_eq!(q.next_deadline(), Some(SimTime::ZERO));
    for i in 0..10 {
        q.enqueue(SimTime::ZERO, pkt(i, 1000, 0, false), &mut rng);
    }
    q.on_timeout(SimTime::ZERO);
    // q = 10 throughout (no arrivals, no departures). t = 0, q_old = 0:
    // p = 0.01·5 − 0.005·(−5) = 0.075; each later step adds (a − b)·(10 − 5) = 0.025.
    assert!((q.core().p() - 0.075).abs() < 1e-12);
    let period = 5_882_353u64;
    assert_eq!(q.next_deadline(), Some(SimTime::from_nanos(period)));
    // An early wake-up does nothing.
    q.on_timeout(SimTime::from_nanos(period - 1));
    assert!((q.core().p() - 0.075).abs() < 1e-12);
    for k in 1..=3u64 {
        let d = q.next_deadline().unwrap();
        assert_eq!(d, SimTime::from_nanos(k * period));
        q.on_timeout(d);
        assert!((q.core().p() - (0.075 + 0.025 * k as f64)).abs() < 1e-12);
    }
    // A late wake-up (just before deadline 7) runs the 3 due updates (4, 5, 6): 0.225.
    q.on_timeout(SimTime::from_nanos(7 * period - 1));
    assert!((q.core().p() - 0.225).abs() < 1e-12);
    assert_eq!(q.next_deadline(), Some(SimTime::from_nanos(7 * period)));
    // Drain the queue: q = 0 after q_old = 10: 0.01·(−5) − 0.005·5 + 0.225 = 0.15; then
    // q = q_old = 0: −0.05 + 0.025 + 0.15 = 0.125.
    let mut d = Vec::new();
    while q
        .dequeue(SimTime::from_nanos(7 * period - 1), &mut d)
        .is_some()
    {}
    q.on_timeout(SimTime::from_nanos(7 * period));
    assert!((q.core().p() - 0.15).abs() < 1e-12);
    q.on_timeout(SimTime::from_nanos(8 * period));
    assert!((q.core().p() - 0.125).abs() < 1e-12);
    q.stats().check_identities(0).unwrap();
}

#[test]
fn seed_003_coefficients() {
    // HMT01 / seed 003: a = 1.822e-5, b = 1.816e-5 per packet, w = 170 Hz, q_ref = 200.
    let p = PiParams {
        q_ref: 200.0,
        limit: 800,
        ..Default::default()
    };
    assert_eq!((p.a, p.b, p.w_hz), (0.00001822, 0.00001816, 170.0));
    // From p = 0.01, q_old = 200, q = 300: 1.822e-5·100 − 0 + 0.01 = 0.011822.
    assert!((p.step(0.01, 300.0, 200.0) - 0.011822).abs() < 1e-15);
    // Held at q = 300: each period adds (a − b)·100 = 6e-6.
    assert!((p.step(0.011822, 300.0, 300.0) - 0.011828).abs() < 1e-15);
}

#[test]
fn byte_mode_queue_and_probability() {
    // mean_pktsize 500: three 1000-byte packets are q = 6, a 250-byte packet adds 0.5.
    let mut c = PiCore::new(PiParams {
        queue_in_bytes: true,
        byte_prob: true,
        limit: 7,
        ..small()
    })
    .unwrap();
    let mut rng = units::stream(1, "pi");
    for i in 0..3 {
        c.admit(ms(0), pkt(i, 1000, 0, false), |_, _| 0.0, &mut rng);
    }
    c.admit(ms(0), pkt(3, 250, 0, false), |_, _| 0.0, &mut rng);
    assert_eq!(c.q_now(), 6.5);
    c.on_timeout(ms(0));
    // 0.01·1.5 − 0.005·(−5) = 0.04.
    assert!((c.p() - 0.04).abs() < 1e-12);
    assert!((c.byte_scaled(0.4, 250) - 0.2).abs() < 1e-15);
    assert!((c.byte_scaled(0.4, 500) - 0.4).abs() < 1e-15);
    assert_eq!(c.byte_scaled(0.4, 1500), 1.0);
    // Buffer is 7·500 = 3500 bytes: 3250 stored, a 1000-byte packet still fits (the test is
    // on the backlog before the arrival, as ns-2), then the buffer is full.
    assert_eq!(
        c.admit(ms(0), pkt(4, 1000, 0, false), |_, _| 0.0, &mut rng),
        Verdict::Enqueued
    );
    assert_eq!(
        c.admit(ms(0), pkt(5, 40, 0, false), |_, _| 0.0, &mut rng),
        Verdict::Dropped(DropReason::Overflow)
    );
    // Pi itself applies the byte scaling: with p = 1 (forced below) a 1500-byte packet is
    // always dropped and a 40-byte one with probability 0.08.
    let mut q = Pi::new(PiParams {
        byte_prob: true,
        a: 1.0,
        b: 0.0,
        q_ref: 0.0,
        ..small()
    })
    .unwrap();
    q.enqueue(ms(0), pkt(0, 1000, 0, false), &mut rng);
    q.on_timeout(ms(0));
    assert_eq!(q.core().p(), 1.0);
    let mut shadow = rng.clone();
    let (mut small_drops, n) = (0, 20_000);
    for i in 0..n {
        let v = q.enqueue(ms(0), pkt(i, 40, 0, false), &mut rng);
        let expect = shadow.gen::<f64>() < 0.08;
        assert_eq!(v == Verdict::Dropped(DropReason::Early), expect);
        small_drops += expect as u32;
        let mut d = Vec::new();
        while q.len_packets() > 1 {
            q.dequeue(ms(0), &mut d);
        }
    }
    assert!((small_drops as f64 / n as f64 - 0.08).abs() < 0.006);
    assert_eq!(
        q.enqueue(ms(0), pkt(0, 1500, 0, false), &mut rng),
        Verdict::Dropped(DropReason::Early)
    );
}

#[test]
fn decisions_follow_the_random_stream() {
    // p = 0.3 exactly: a = 0.1, b = 0, q_ref = 0, three packets waiting at t = 0.
    let mut q = Pi::new(PiParams {
        a: 0.1,
        b: 0.0,
        q_ref: 0.0,
        ..small()
    })
    .unwrap();
    let mut rng = units::stream(5, "pi");
    for i in 0..3 {
        q.enqueue(ms(0), pkt(i, 1000, 0, false), &mut rng);
    }
    q.on_timeout(ms(0));
    assert!((q.core().p() - 0.3).abs() < 1e-15);
    let mut shadow = rng.clone();
    let mut d = Vec::new();
    for i in 3..200 {
        let want_drop = shadow.gen::<f64>() < q.core().p();
        let v = q.enqueue(SimTime::from_micros(500), pkt(i, 1000, 0, false), &mut rng);
        assert_eq!(
            v == Verdict::Dropped(DropReason::Early),
            want_drop,
            "arrival {i}"
        );
        if !want_drop {
            q.dequeue(SimTime::from_micros(500), &mut d);
        }
    }
    let s = q.stats();
    assert_eq!(s.arrivals, 200);
    s.check_identities(q.len_packets() as u64).unwrap();
}

#[test]
fn overflow_when_full() {
    let mut q = Pi::new(PiParams {
        limit: 3,
        ..small()
    })
    .unwrap();
    let mut rng = units::stream(1, "pi");
    let v: Vec<_> = (0..5)
        .map(|i| q.enqueue(ms(0), pkt(i, 1000, 0, false), &mut rng))
        .collect();
    assert_eq!(v[..3], [Verdict::Enqueued; 3]);
    assert_eq!(v[3..], [Verdict::Dropped(DropReason::Overflow); 2]);
    assert_eq!((q.stats().overflow_drops, q.stats().early_drops), (2, 0));
    q.stats().check_identities(3).unwrap();
}

#[test]
fn ecn_marks_ect_drops_others() {
    // p = 1: every arrival is hit; ECT ones are marked and kept, others dropped early.
    let mut q = Pi::new(PiParams {
        a: 1.0,
        b: 0.0,
        q_ref: 0.0,
        ecn: true,
        ..small()
    })
    .unwrap();
    let mut rng = units::stream(1, "pi");
    q.enqueue(ms(0), pkt(0, 1000, 0, true), &mut rng);
    q.on_timeout(ms(0));
    assert_eq!(q.core().p(), 1.0);
    assert_eq!(
        q.enqueue(ms(0), pkt(1, 1000, 0, true), &mut rng),
        Verdict::EnqueuedMarked
    );
    assert_eq!(
        q.enqueue(ms(0), pkt(2, 40, 0, false), &mut rng),
        Verdict::Dropped(DropReason::Early)
    );
    let s = q.stats();
    assert_eq!((s.marks, s.early_drops, s.enqueued), (1, 1, 2));
    s.check_identities(2).unwrap();
}

#[test]
fn bad_parameters_name_their_key() {
    let bad = |p: PiParams| Pi::new(p).unwrap_err().key;
    assert_eq!(
        bad(PiParams {
            a: -1.0,
            ..Default::default()
        }),
        "a"
    );
    assert_eq!(
        bad(PiParams {
            b: f64::NAN,
            ..Default::default()
        }),
        "b"
    );
    assert_eq!(
        bad(PiParams {
            w_hz: 0.0,
            ..Default::default()
        }),
        "w_hz"
    );
    assert_eq!(
        bad(PiParams {
            w_hz: 2e9,
            ..Default::default()
        }),
        "w_hz"
    );
    assert_eq!(
        bad(PiParams {
            q_ref: -1.0,
            ..Default::default()
        }),
        "q_ref"
    );
    assert_eq!(
        bad(PiParams {
            limit: 0,
            ..Default::default()
        }),
        "limit"
    );
    assert_eq!(
        bad(PiParams {
            mean_pktsize: 0,
            ..Default::default()
        }),
        "mean_pktsize"
    );
}
