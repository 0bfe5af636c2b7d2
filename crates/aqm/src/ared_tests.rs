//! Tests of Adaptive RED (child module of `ared.rs`); expected values derived in the comments.

use super::*;
use crate::packet::{Ecn, PacketClass};
use units::Rate;

fn link(mbps: u64) -> LinkInfo {
    LinkInfo {
        rate: Rate::from_mbps(mbps),
        delay: SimDuration::from_millis(10),
    }
}

fn pkt(id: u32) -> PacketMeta {
    PacketMeta {
        id,
        size_bytes: 1250,
        ecn: Ecn::NotEct,
        class: PacketClass::Bulk,
        cwnd_hint: 0,
        flow: 0,
        enqueued_at: SimTime::ZERO,
    }
}

fn secs_ms(ms: u64) -> SimTime {
    SimTime::from_millis(ms)
}

/// 10 Mbps, 5 ms target, w_q = 1 (avg = packets waiting before the last arrival): thresholds
/// (5, 15), band (9, 11). Arrivals at t = 0 until `n` packets wait; nothing is dequeued, so the
/// link stays busy and avg = n − 1 for the timer.
fn held(n: u32, over: AredParams) -> Ared {
    let mut q = Ared::new(
        AredParams {
            w_q: Some(1.0),
            ..over
        },
        link(10),
    )
    .unwrap();
    let mut rng = units::stream(1, "ared");
    let mut id = 0;
    while q.len_packets() < n {
        q.enqueue(SimTime::ZERO, pkt(id), &mut rng);
        id += 1;
    }
    assert_eq!(q.avg(), (n - 1) as f64);
    q
}

/// Fire the timer at every deadline up to `until_ms`, returning max_p after each.
fn trace(q: &mut Ared, until_ms: u64) -> Vec<f64> {
    let mut out = Vec::new();
    while let Some(d) = q.next_deadline() {
        if d > secs_ms(until_ms) {
            break;
        }
        q.on_timeout(d);
        out.push(q.max_p());
    }
    out
}

/// Seed 001 Table 1 lists (min_th, max_th) = (5, 15) for 5 ms and (30, 90) for 60 ms on its
/// 10 Mbps link with 1250-byte packets: C = 10⁷/(8·1250) = 1000 packets/s, so 0.005·1000/2 =
/// 2.5 → max(5, 2.5) = 5, and 0.06·1000/2 = 30. At 100 Mbps, C = 10 000: 25 and 300. w_q =
/// 1 − e^(−1/C) = x − x²/2 + x³/6 − … with x = 1/C. With ns-2's 500-byte default, 10 Mbps gives
/// ptc 2500 and min_th 6.25 (reference/aqm-defaults.md §2.2 worked example).
#[test]
fn derived_parameters_10_and_100_mbps() {
    let th = |mbps: u64, ms: u64, size: u32| {
        let q = Ared::new(
            AredParams {
                target_delay: SimDuration::from_millis(ms),
                mean_pktsize: size,
                ..Default::default()
            },
            link(mbps),
        )
        .unwrap();
        let p = q.red_params().clone();
        (p.min_th, p.max_th, p.w_q, p.gentle, p.max_p)
    };
    let series = |x: f64| x - x * x / 2.0 + x * x * x / 6.0 - x * x * x * x / 24.0;
    let (lo, hi, w, gentle, max_p) = th(10, 5, 1250);
    assert_eq!((lo, hi, gentle, max_p), (5.0, 15.0, true, 0.1));
    assert!((w - series(1e-3)).abs() < 2e-17, "{w}"); // next term x⁵/120 ≈ 8e-18
    assert!((w - 0.000_999_500_166_6).abs() < 1e-13); // seed 001 §6.2 "0.001"
    let (lo, hi, ..) = th(10, 60, 1250);
    assert!(
        (lo - 30.0).abs() < 1e-12 && (hi - 90.0).abs() < 1e-12,
        "{lo} {hi}"
    );
    let (lo, hi, w, ..) = th(100, 5, 1250);
    assert!(
        (lo - 25.0).abs() < 1e-12 && (hi - 75.0).abs() < 1e-12,
        "{lo} {hi}"
    );
    assert!((w - series(1e-4)).abs() < 1e-19, "{w}");
    let (lo, hi, ..) = th(100, 60, 1250);
    assert!((lo - 300.0).abs() < 1e-9 && (hi - 900.0).abs() < 1e-9);
    let (lo, hi, ..) = th(10, 5, 500);
    assert!((lo - 6.25).abs() < 1e-12 && (hi - 18.75).abs() < 1e-12);
    let q = Ared::new(AredParams::default(), link(10)).unwrap();
    assert_eq!(q.target_band(), (9.0, 11.0)); // 5 + 0.4·10, 15 − 0.4·10
}

/// avg held at 19 > 11: every 0.5 s max_p += min(0.01, max_p/4) = 0.01 (max_p ≥ 0.04): 0.11,
/// 0.12, … up to 0.5 (40 steps from 0.1; rounding may leave it a hair below 0.5, and the next
/// step is then clamped to 0.5), never above.
#[test]
fn max_p_rises_while_avg_above_band() {
    let mut q = held(20, AredParams::default());
    let t = trace(&mut q, 30_000);
    assert_eq!(t.len(), 60);
    for (k, &m) in t.iter().enumerate().take(39) {
        assert!(
            (m - (0.1 + 0.01 * (k + 1) as f64)).abs() < 1e-12,
            "step {k}: {m}"
        );
    }
    assert!(t.iter().all(|&m| m <= 0.5));
    assert_eq!(*t.last().unwrap(), 0.5);
    let (inc, dec) = q.adaptations();
    assert!((inc == 40 || inc == 41) && dec == 0, "{inc} {dec}");
    // From max_p = 0.01 the step is max_p/4 (×1.25) until max_p ≥ 0.04, then +0.01.
    let mut q = held(
        20,
        AredParams {
            initial_max_p: 0.01,
            ..Default::default()
        },
    );
    let t = trace(&mut q, 4_000);
    let want = [
        0.0125,
        0.015625,
        0.01953125,
        0.0244140625,
        0.030517578125,
        0.03814697265625,
        0.0476837158203125,
        0.0576837158203125,
    ];
    for (m, w) in t.iter().zip(want) {
        assert!((m - w).abs() < 1e-15, "{m} vs {w}");
    }
}

/// avg 0 (empty, idle) < 9: max_p ·= 0.9 every 0.5 s: 0.1·0.9^k while above 0.01; 0.1·0.9^21 =
/// 0.01094 > 0.01, so the 22nd step gives 0.1·0.9^22 = 0.009848, clamped to 0.01 — or left at
/// 0.009848 (ns-2) without the clamp; no further step either way.
#[test]
fn max_p_falls_while_avg_below_band() {
    let mut q = Ared::new(AredParams::default(), link(10)).unwrap();
    let t = trace(&mut q, 20_000);
    for (k, &m) in t.iter().enumerate().take(21) {
        assert!(
            (m - 0.1 * 0.9f64.powi(k as i32 + 1)).abs() < 1e-15,
            "{k}: {m}"
        );
    }
    assert_eq!(t[21], 0.01);
    assert!(t[21..].iter().all(|&m| m == 0.01));
    assert_eq!(q.adaptations(), (0, 22));
    let mut q = Ared::new(
        AredParams {
            clamp_max_p: false,
            ..Default::default()
        },
        link(10),
    )
    .unwrap();
    let t = trace(&mut q, 20_000);
    assert!((t[21] - 0.1 * 0.9f64.powi(22)).abs() < 1e-15);
    assert!(t[21] < 0.01 && t[21..].iter().all(|&m| m == t[21]));
}

/// avg 10 is inside the band (9, 11): no step at all.
#[test]
fn max_p_holds_inside_band() {
    let mut q = held(11, AredParams::default());
    let t = trace(&mut q, 10_000);
    assert_eq!(t.len(), 20);
    assert!(t.iter().all(|&m| m == 0.1));
    assert_eq!(q.adaptations(), (0, 0));
}

/// The timer is due at 0.5 s from the start, then every 0.5 s, with no arrival at all; a late
/// call runs every missed step. With the link idle the timer sees the idle-decayed average
/// (w_q ½, s = 1 ms: after 0.4 s idle, (½)^400 of it), not the stale stored one.
#[test]
fn timer_runs_without_arrivals() {
    let mut q = Ared::new(AredParams::default(), link(10)).unwrap();
    assert_eq!(q.next_deadline(), Some(secs_ms(500)));
    q.on_timeout(secs_ms(499)); // early wake-up: nothing
    assert_eq!((q.max_p(), q.next_deadline()), (0.1, Some(secs_ms(500))));
    q.on_timeout(secs_ms(2_200)); // late: steps at 0.5, 1.0, 1.5, 2.0
    assert_eq!(q.next_deadline(), Some(secs_ms(2_500)));
    assert_eq!(q.adaptations(), (0, 4));
    assert!((q.max_p() - 0.1 * 0.9f64.powi(4)).abs() < 1e-15);

    let mut q = Ared::new(
        AredParams {
            w_q: Some(0.5),
            ..Default::default()
        },
        link(10),
    )
    .unwrap();
    let mut rng = units::stream(2, "ared");
    let mut id = 0;
    while q.len_packets() < 20 {
        q.enqueue(SimTime::ZERO, pkt(id), &mut rng);
        id += 1;
    }
    let stored = q.avg();
    assert!(stored > 11.0, "{stored}");
    let mut d = Vec::new();
    while q.dequeue(secs_ms(100), &mut d).is_some() {}
    q.on_timeout(secs_ms(500));
    assert_eq!(q.avg(), stored);
    assert_eq!(q.adaptations(), (0, 1));
    assert!((q.max_p() - 0.09).abs() < 1e-15);
    q.red.stats().check_identities(0).unwrap();
}

/// After one increase (max_p 0.11) the gentle p_b at 1.5·max_th = 22.5 is 0.11 + 0.89·½ = 0.555
/// (FGS 2001); ns-2 keeps the slope from the initial 0.1: 0.1 + 0.9·½ = 0.55. The linear
/// segment uses the current max_p in both: p_b(10) = 0.11·½.
#[test]
fn ns2_frozen_gentle_slope() {
    for (frozen, want) in [(false, 0.555), (true, 0.55)] {
        let mut q = held(
            20,
            AredParams {
                gentle_uses_initial_max_p: frozen,
                ..Default::default()
            },
        );
        q.on_timeout(secs_ms(500));
        assert!((q.max_p() - 0.11).abs() < 1e-15);
        assert!((q.p_b(22.5) - want).abs() < 1e-12, "{}", q.p_b(22.5));
        assert!((q.p_b(10.0) - 0.055).abs() < 1e-15);
    }
}

#[test]
fn bad_parameters_name_their_key() {
    let bad = |p: AredParams| Ared::new(p, link(10)).unwrap_err().key;
    let d = AredParams::default;
    assert_eq!(
        bad(AredParams {
            target_delay: SimDuration::ZERO,
            ..d()
        }),
        "target_delay"
    );
    assert_eq!(bad(AredParams { beta: 1.0, ..d() }), "beta");
    assert_eq!(bad(AredParams { bottom: 0.6, ..d() }), "bottom");
    assert_eq!(
        bad(AredParams {
            initial_max_p: 0.6,
            ..d()
        }),
        "initial_max_p"
    );
    assert_eq!(bad(AredParams { limit: 0, ..d() }), "limit");
}

/// `adapt_on = Arrival` (ns-2.35 `estimator()`): no timer; an arrival adapts only when `now >
/// last_change + interval` (strictly), on the average it has just computed. Held at 20 waiting
/// (w_q 1: each held arrival sees avg ≥ 20 > band top 11), arrivals at 400 and 500 ms change
/// nothing (500 > 0 + 500 is false); at 501 ms max_p = 0.1 + min(0.01, 0.1/4) = 0.11 and the
/// change time moves to 501 ms, so 1001 ms changes nothing and 1002 ms gives 0.12.
#[test]
fn ns2_adapts_on_arrivals_after_interval_since_last_change() {
    let mut q = held(
        20,
        AredParams {
            adapt_on: AdaptOn::Arrival,
            ..Default::default()
        },
    );
    assert_eq!(q.next_deadline(), None);
    let mut rng = units::stream(2, "ared-arrival");
    let mut at = |q: &mut Ared, ms: u64, id: u32| {
        q.enqueue(secs_ms(ms), pkt(id), &mut rng);
        q.max_p()
    };
    assert_eq!(at(&mut q, 400, 100), 0.1);
    assert_eq!(at(&mut q, 500, 101), 0.1);
    assert!((at(&mut q, 501, 102) - 0.11).abs() < 1e-15);
    assert!((at(&mut q, 1001, 103) - 0.11).abs() < 1e-15);
    assert!((at(&mut q, 1002, 104) - 0.12).abs() < 1e-15);
    assert_eq!(q.adaptations(), (2, 0));
}

/// `auto_bottom` (ns-2.35 `bottom_ 0`): bottom = min(0.01, 80000/bps): 0.008 at 10 Mbps,
/// 0.0008 at 100 Mbps, 0.01 at 1.5 Mbps. Below the band with no clamp, max_p = 0.1·0.9^k falls
/// while above bottom: 0.1·0.9^22 = 0.00985 is the first value under 0.01 (fixed bottom, 22
/// steps), 0.1·0.9^24 = 0.00798 the first under 0.008 (auto, 24 steps).
#[test]
fn ns2_automatic_bottom() {
    let auto = AredParams {
        auto_bottom: true,
        ..Default::default()
    };
    assert!((auto.bottom_on(link(10)) - 0.008).abs() < 1e-15);
    assert!((auto.bottom_on(link(100)) - 0.0008).abs() < 1e-15);
    let slow = LinkInfo {
        rate: Rate::from_bps(1_500_000),
        delay: SimDuration::from_millis(10),
    };
    assert_eq!(auto.bottom_on(slow), 0.01);
    for (auto_bottom, steps) in [(false, 22), (true, 24)] {
        let mut q = held(
            1,
            AredParams {
                auto_bottom,
                clamp_max_p: false,
                ..Default::default()
            },
        );
        let t = trace(&mut q, 30_000);
        assert_eq!(q.adaptations(), (0, steps));
        let want = 0.1 * 0.9f64.powi(steps as i32);
        assert!((t.last().unwrap() - want).abs() < 1e-12, "{:?}", t.last());
    }
}
