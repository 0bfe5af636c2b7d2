//! The seed 000 laboratory-network preset (`scenarios/christiansen2000/lab_unconstrained.toml`),
//! scaled down (700 of the 3353 browsers, 15 min warm-up, 15 min measured), against the thesis's
//! per-browser figures: 461,837 requests by 3353 browsers in 70 min = 1.968 requests/min
//! (Table 4.5), 9.8 Mbit/s / 3353 = 2.92 kbit/s of link traffic per browser (Table 3.5), no
//! drops, median response 229 ms (Table 4.2). The issue asks for both rates within 20 %;
//! reference/mah/MAH-MODEL.md §5.3 predicts +19 % and +13 % for this reading of the thesis rules
//! (2.34/min, ~3.3 kbit/s). Conservation and determinism are checked on the way.

use std::path::Path;
use units::SimDuration;

#[test]
fn lab_unconstrained_matches_the_thesis_per_browser_rates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let exps = scenario::load(&root.join("scenarios/christiansen2000/lab_unconstrained.toml"))
        .expect("the preset loads");
    assert_eq!(exps.len(), 1);
    let mut exp = exps[0].experiment.clone();
    let browsers = 700u32;
    let traffic::WorkloadConfig::Mah(m) = &mut exp.workloads[0] else {
        panic!("the preset's workload is Mah's")
    };
    assert_eq!(
        m.users, 3353,
        "the preset itself has the thesis's 98 % setting"
    );
    m.users = browsers;
    exp.warmup = SimDuration::from_secs(15 * 60);
    exp.duration = SimDuration::from_secs(15 * 60);
    let out = sim::run(&exp, &mut |_, _| {}).expect("run");
    let e = &out.engine;
    assert_eq!(
        e.packets_created,
        e.packets_delivered + e.packets_dropped + e.packets_in_flight
    );
    let s = &out.summary;
    assert_eq!(s.drops, 0, "unconstrained: no drops");
    let minutes = s.measured_s / 60.0;
    let per_min = s.responses_started as f64 / browsers as f64 / minutes;
    let kbps = s.kb_per_s * 8.0 / browsers as f64;
    assert!(
        (per_min / 1.968 - 1.0).abs() < 0.20,
        "{per_min:.3} requests/min per browser"
    );
    assert!(
        (kbps / 2.92 - 1.0).abs() < 0.20,
        "{kbps:.3} kbit/s per browser"
    );
    assert!(
        (s.median_rt_ms / 229.0 - 1.0).abs() < 0.25,
        "median {} ms",
        s.median_rt_ms
    );
    assert!(s.pct_le_1s > 95.0, "{} % within 1 s", s.pct_le_1s);
    // Pages: every request of a Mah workload carries its page; a page has ≥ 1 request.
    assert!(out.requests.iter().all(|r| r.page != 0));
    // Same scenario, same seed: same records.
    let again = sim::run(&exp, &mut |_, _| {}).expect("run");
    assert_eq!(again.requests, out.requests);
    eprintln!(
        "per browser: {per_min:.3} requests/min, {kbps:.3} kbit/s; median {} ms",
        s.median_rt_ms
    );
}
