//! Diagnostic: peak memory of one run of a scenario's first variant through the engine alone
//! (an observer that drops every record) or through `RunWriter` (`--write DIR`), printing the
//! process's resident memory (VmRSS / VmHWM, MiB) every simulated hour and at the end.
//!
//!     cargo run --release -p store --example engine_rss -- SCENARIO [--write DIR]

use metrics::Observer;
use std::path::Path;

/// Drops every record.
struct Discard;
impl Observer for Discard {}

fn status_mib(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let exps = scenario::load(Path::new(&args[1])).expect("scenario");
    let exp = &exps[0].experiment;
    let mut next = 0.0;
    let mut progress = |now: units::SimTime, _end: units::SimTime| {
        if now.as_secs_f64() >= next {
            println!(
                "t {:>6.0} s: rss {} MiB, hwm {} MiB",
                now.as_secs_f64(),
                status_mib("VmRSS"),
                status_mib("VmHWM")
            );
            next += 3600.0;
        }
    };
    if args.get(2).map(String::as_str) == Some("--write") {
        let dir = Path::new(&args[3]);
        std::fs::create_dir_all(dir).expect("dir");
        let w = store::RunWriter::create(dir, exp.warmup.as_nanos()).expect("writer");
        let end = sim::run_with(exp, &mut progress, w).expect("run");
        println!(
            "run over: rss {} hwm {}",
            status_mib("VmRSS"),
            status_mib("VmHWM")
        );
        end.obs.finish(&end.fwd_link, &end.totals).expect("finish");
    } else {
        let _ = sim::run_with(exp, &mut progress, Discard).expect("run");
    }
    println!(
        "end: rss {} MiB, hwm {} MiB",
        status_mib("VmRSS"),
        status_mib("VmHWM")
    );
}
