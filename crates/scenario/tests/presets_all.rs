//! Every scenario file under `scenarios/` (issue 5: "every preset runs end to end in a short
//! test with conservation and determinism checks"): each variant, scaled down to a few
//! simulated seconds, conserves packets (created = delivered + dropped + in flight), completes
//! responses, and the first variant run twice gives identical events, summary and records.

use std::path::{Path, PathBuf};
use units::SimDuration;

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("scenarios/ is readable")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

/// A scaled-down copy: `warmup` of warm-up, `measured` measured, no response cap.
fn scaled(exp: &sim::Experiment, warmup: u64, measured: u64) -> sim::Experiment {
    let mut e = exp.clone();
    e.warmup = SimDuration::from_secs(warmup);
    e.duration = SimDuration::from_secs(measured);
    e.stop_after_responses = None;
    e
}

#[test]
fn every_preset_conserves_packets_completes_responses_and_is_deterministic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    // quickstart, bench, two seed-000 lab presets, pisa, three parking lots, seed 001: at least.
    assert!(files.len() >= 9, "{files:?}");
    for file in &files {
        let exps = scenario::load(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert!(!exps.is_empty(), "{}", file.display());
        for (i, named) in exps.iter().enumerate() {
            let what = format!("{} [{}]", file.display(), named.name);
            let exp = scaled(&named.experiment, 3, 7);
            let out = sim::run(&exp, &mut |_, _| {}).unwrap_or_else(|e| panic!("{what}: {e}"));
            let e = &out.engine;
            assert_eq!(
                e.packets_created,
                e.packets_delivered + e.packets_dropped + e.packets_in_flight,
                "{what}: {e:?}"
            );
            assert!(e.packets_delivered > 0, "{what}: nothing delivered");
            // Long-lived flows alone (e.g. bbr_long_flow.toml) never complete a response.
            let only_bulk = exp
                .workloads
                .iter()
                .all(|w| matches!(w, traffic::WorkloadConfig::Bulk { .. }));
            let completed = out.requests.iter().filter(|r| r.completed).count();
            assert!(
                completed > 0 || only_bulk,
                "{what}: no response completed in 10 s"
            );
            if i == 0 {
                let again = sim::run(&exp, &mut |_, _| {}).expect("second run");
                assert_eq!(
                    out.engine.events, again.engine.events,
                    "{what}: events differ"
                );
                // Compared as text: a run without responses has NaN quantiles (NaN ≠ NaN).
                assert_eq!(
                    format!("{:?}", out.summary),
                    format!("{:?}", again.summary),
                    "{what}: summaries differ"
                );
                assert_eq!(out.requests, again.requests, "{what}: records differ");
                assert_eq!(out.queue, again.queue, "{what}: queue rows differ");
            }
        }
    }
}
