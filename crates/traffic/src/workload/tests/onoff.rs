//! Pareto ON/OFF datagram source: the burst/OFF structure of ns-2's `Application/Traffic/
//! Pareto`, and its long-run mean rate against the closed form.

use super::*;
use crate::distribution::unit;
use crate::workload::onoff::ns2_pareto;

fn onoff(rate_bps: u64, on_ms: u64, off_ms: u64, shape: f64, stop: Option<SimTime>) -> Workload {
    Workload::new(WorkloadConfig::OnOff {
        flow: DatagramFlow {
            rate_bps,
            packet_bytes: 1000,
            start: SimTime::ZERO,
            stop,
            client: 0,
            server: 0,
        },
        on_mean: SimDuration::from_millis(on_ms),
        off_mean: SimDuration::from_millis(off_ms),
        shape,
    })
    .unwrap()
}

#[test]
fn ns2_pareto_has_the_requested_mean_scale() {
    // Scale k = mean·(α−1)/α: u = 0 gives k; u = 1 − 2^−α gives 2k.
    assert!((ns2_pareto(0.0, 10.0, 1.5) - 10.0 / 3.0).abs() < 1e-12);
    let u = 1.0 - units::math::powf(2.0, -2.5);
    assert!((ns2_pareto(u, 12.5, 2.5) - 15.0).abs() < 1e-9);
}

#[test]
fn bursts_are_spaced_by_interval_and_separated_by_interval_plus_off() {
    // 1000 B at 1 Mbps: interval 8 ms; mean ON 100 ms = 12.5 packets; mean OFF 100 ms; α 2.5.
    // Replay the draws (burst length X then OFF time Y per burst) from a clone of the stream.
    let mut r = rng("onoff");
    let mut replay = r.clone();
    let mut w = onoff(1_000_000, 100, 100, 2.5, None);
    let log = drive(&mut w, &mut r, secs(5), |_| None);
    let mut t = 0u64; // ns, time of the previous packet (start = 0)
    let mut i = 0;
    while i < log.len() {
        let x = ns2_pareto(unit(&mut replay), 12.5, 2.5);
        let b = ((x + 0.5).floor() as usize).max(1);
        let y = SimDuration::from_secs_f64(ns2_pareto(unit(&mut replay), 0.1, 2.5));
        assert!(y.as_nanos() >= 60_000_000); // OFF ≥ its scale 0.1·1.5/2.5 = 60 ms
        t += 8_000_000 + y.as_nanos();
        for _ in 0..b {
            if i == log.len() {
                break;
            }
            assert_eq!(log[i].0.as_nanos(), t, "packet {i}");
            assert_eq!(log[i].1.kind, FlowKind::Datagram);
            assert_eq!(log[i].1.response_bytes, 1000);
            i += 1;
            t += 8_000_000;
        }
        t -= 8_000_000;
    }
    assert!(
        log.len() > 50,
        "5 s at ≈ 500 kbit/s should send ≈ 300 packets"
    );
}

/// E[B] for B = max(1, ⌊X + 0.5⌋), X Pareto(scale k, shape α): Σ_{n≥1} P(B ≥ n) =
/// 1 + Σ_{n≥2} min(1, (k/(n − 0.5))^α); the tail beyond N by the integral k^α N^(1−α)/(α−1).
fn mean_burst(k: f64, a: f64) -> f64 {
    let n_max = 1_000_000u64;
    let mut s = 1.0;
    for n in 2..=n_max {
        s += units::math::powf(k / (n as f64 - 0.5), a).min(1.0);
    }
    s + units::math::powf(k, a) * units::math::powf(n_max as f64, 1.0 - a) / (a - 1.0)
}

#[test]
fn long_run_mean_rate_is_rate_times_on_over_on_plus_off() {
    // 1 Mbps during ON, ON 100 ms (12.5 packets of 8 ms), OFF 100 ms, shape 2.5 (finite
    // variance, so the sample mean settles). Closed form: rate·E[B]·i/(E[B]·i + off).
    // Over 40 000 s (≈ 200 000 cycles of ≈ 0.2 s) the relative standard error of the measured
    // rate is ≈ 0.9/√200000 ≈ 0.2 % (coefficient of variation of a Pareto-2.5 is
    // 1/√(α(α−2)) ≈ 0.9); we allow 1.5 %.
    let eb = mean_burst(12.5 * 1.5 / 2.5, 2.5);
    assert!(
        (eb - 12.5).abs() / 12.5 < 0.01,
        "rounding moves E[B] to {eb}"
    );
    let want = 1e6 * eb * 0.008 / (eb * 0.008 + 0.1);
    let nominal = 1e6 * 0.1 / (0.1 + 0.1);
    let end = SimTime::from_secs(40_000);
    let mut w = onoff(1_000_000, 100, 100, 2.5, None);
    let mut r = rng("onoff-long");
    let mut out = Vec::new();
    let mut packets = 0u64;
    w.start(SimTime::ZERO, &mut r, &mut out);
    while let Some(t) = w.next_deadline().filter(|t| *t <= end) {
        out.clear();
        w.on_timeout(t, &mut r, &mut out);
        packets += out.len() as u64;
    }
    let rate = packets as f64 * 8000.0 / 40_000.0;
    assert!(
        (rate - want).abs() / want < 0.015,
        "rate {rate} vs closed form {want}"
    );
    assert!(
        (rate - nominal).abs() / nominal < 0.02,
        "rate {rate} vs nominal {nominal}"
    );
}

#[test]
fn onoff_stops_at_stop_and_rejects_bad_shape() {
    let stop = SimTime::from_secs(3);
    let mut w = onoff(1_000_000, 100, 100, 1.5, Some(stop));
    let log = drive(&mut w, &mut rng("onoff"), secs(100), |_| None);
    assert!(!log.is_empty() && log.iter().all(|(t, _)| *t < stop));
    let e = Workload::new(WorkloadConfig::OnOff {
        flow: DatagramFlow {
            rate_bps: 1,
            packet_bytes: 100,
            start: SimTime::ZERO,
            stop: None,
            client: 0,
            server: 0,
        },
        on_mean: SimDuration::from_millis(1),
        off_mean: SimDuration::from_millis(1),
        shape: 1.0,
    })
    .unwrap_err();
    assert!(e.starts_with("shape"), "{e}");
}
