//! aqmlab benchmark: runs fixed scenarios and prints simulated events per second, simulated
//! seconds per wall-clock second and peak memory (VmHWM), one line per run.
//!
//! Usage: `aqmlab-bench [--quick] [--no-records] [SCENARIO[:VARIANT] ...]`. Without arguments it runs the
//! quickstart (drop-tail and RED variants) and the 100 Mbps and 1 Gbps bench scenarios. `--quick` cuts
//! every run to 60 simulated seconds (for CI smoke runs; figures in the README use full runs).
//! Each target runs in a child process of its own, so the peak memory printed is that run's.
//! By default a run keeps every record and computes the summary (`sim::run`, as the Python
//! API's in-memory runs do); `--no-records` counts the request records and drops them
//! (`sim::run_with`), so the time is the engine's alone: keeping the quickstart's 148,343
//! records grows a vector by doubling (copies and fresh pages, ≈ 15 % of the run in perf) and
//! sorts it, and that is the harness's cost, not the engine's.

use std::path::PathBuf;
use std::time::Instant;
use units::{SimDuration, SimTime};

fn peak_rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Counts request records and drops them (`--no-records`).
#[derive(Default)]
struct CountRequests {
    requests: u64,
}

impl metrics::Observer for CountRequests {
    fn on_request(&mut self, _r: metrics::RequestRecord) {
        self.requests += 1;
    }
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut quick = false;
    let mut child = false;
    let mut no_records = false;
    let mut targets: Vec<String> = Vec::new();
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--quick" => quick = true,
            "--child" => child = true,
            "--no-records" => no_records = true,
            _ => targets.push(a),
        }
    }
    if targets.is_empty() {
        targets = vec![
            "scenarios/quickstart.toml:droptail".into(),
            "scenarios/quickstart.toml:red".into(),
            "scenarios/bench_100mbps.toml".into(),
            "scenarios/bench_1gbps.toml".into(),
        ];
    }
    if !child {
        println!(
            "{:<40} {:>10} {:>12} {:>12} {:>14} {:>12} {:>10}",
            "run", "sim_s", "wall_s", "events", "events/s", "sim_s/wall_s", "peak_MiB"
        );
        let exe = std::env::current_exe().expect("own path");
        for t in targets {
            let mut cmd = std::process::Command::new(&exe);
            cmd.arg("--child").arg(&t);
            if quick {
                cmd.arg("--quick");
            }
            if no_records {
                cmd.arg("--no-records");
            }
            let status = cmd.status().expect("spawn the benchmark child");
            if !status.success() {
                std::process::exit(status.code().unwrap_or(1));
            }
        }
        return;
    }
    for t in targets {
        let (file, variant) = match t.split_once(':') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (t.clone(), None),
        };
        let path = if PathBuf::from(&file).is_absolute() {
            PathBuf::from(&file)
        } else {
            root.join(&file)
        };
        let exps = match scenario::load(&path) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("aqmlab-bench: error: {e}");
                std::process::exit(2);
            }
        };
        for ne in exps {
            if variant.as_ref().is_some_and(|v| *v != ne.name) {
                continue;
            }
            let mut exp = ne.experiment.clone();
            if quick {
                exp.warmup = SimDuration::from_secs(10);
                exp.duration = SimDuration::from_secs(50);
            }
            let name = format!("{}:{}", file.rsplit('/').next().unwrap_or(&file), ne.name);
            if no_records {
                let t0 = Instant::now();
                let end = match sim::run_with(
                    &exp,
                    &mut |_: SimTime, _: SimTime| {},
                    CountRequests::default(),
                ) {
                    Ok(o) => o,
                    Err(e) => {
                        eprintln!("aqmlab-bench: error: {e}");
                        std::process::exit(1);
                    }
                };
                let wall = t0.elapsed().as_secs_f64();
                let (eng, sim_s) = (&end.engine, end.engine.end_ns as f64 / 1e9);
                println!(
                    "{name:<40} {sim_s:>10.1} {wall:>12.3} {:>12} {:>14.0} {:>12.1} {:>10.1}",
                    eng.events,
                    eng.events as f64 / wall,
                    sim_s / wall,
                    peak_rss_kib().unwrap_or(0) as f64 / 1024.0
                );
                println!(
                    "    packets {}  events/packet {:.2}  request records {} (dropped)  peak open conns {}",
                    eng.packets_created,
                    eng.events as f64 / eng.packets_created.max(1) as f64,
                    end.obs.requests,
                    eng.peak_open_connections
                );
                continue;
            }
            let t0 = Instant::now();
            let out = match sim::run(&exp, &mut |_: SimTime, _: SimTime| {}) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("aqmlab-bench: error: {e}");
                    std::process::exit(1);
                }
            };
            let wall = t0.elapsed().as_secs_f64();
            let sim_s = out.engine.end_ns as f64 / 1e9;
            println!(
                "{:<40} {:>10.1} {:>12.3} {:>12} {:>14.0} {:>12.1} {:>10.1}",
                name,
                sim_s,
                wall,
                out.engine.events,
                out.engine.events as f64 / wall,
                sim_s / wall,
                peak_rss_kib().unwrap_or(0) as f64 / 1024.0
            );
            println!(
                "    packets {}  events/packet {:.2}  util {:.3}  drops {:.2}% (AQM {:.1}%)  mean qlen {:.1}  responses {}  median {:.0} ms  ≤1s {:.1}%  peak open conns {}",
                out.engine.packets_created,
                out.engine.events as f64 / out.engine.packets_created.max(1) as f64,
                out.summary.utilization,
                out.summary.drops_pct,
                out.summary.aqm_drops_pct,
                out.summary.mean_qlen,
                out.summary.responses_completed,
                out.summary.median_rt_ms,
                out.summary.pct_le_1s,
                out.engine.peak_open_connections
            );
        }
    }
}
