//! One merged scenario document → `experiment::Experiment`: top-level keys, `[run]`, `[monitor]`, and
//! the parts parsed by `topology.rs`, `tcp.rs` and `workload.rs`, in that order (the first
//! error wins).
//!
//! `[run]`: `seed` (integer ≥ 0, default 1), `warmup` (duration, required, may be 0),
//! `duration` (required, > 0: measured time after the warm-up; warmup + duration at most
//! `units::limits::MAX_RUN`, 1e9 s), `stop_after_responses` (optional integer ≥ 1).
//! Last, `experiment::budget` (the engine's cost model) refuses a run whose workloads and monitor
//! samples would exceed its event or memory bound.
//! `[monitor]`: `queue_interval`, `queue_sample`, `link_interval` (durations > 0; defaults
//! `experiment::MonitorConfig::default()`); `pcap` (array of link names, default none: each a link of
//! the topology, one direction, or a two-way name such as `bottleneck`; checked against the
//! topology by `experiment::pcap_links::check`, an error names `monitor.pcap[i]`).

use crate::error::{KeyError, Res};
use crate::value::{as_str, positive, Tbl};
use crate::{tcp, topology, workload};
use experiment::{Experiment, MonitorConfig};
use std::path::Path;
use toml::Table;
use traffic::WorkloadConfig;
use units::limits::MAX_RUN;

/// Top-level keys (`variant` is removed before this runs; listed for the message). `tune` is
/// `aqmlab tune`'s table (`tune/` checks it); the engine ignores it, so a
/// scenario with a `[tune]` table runs as written.
const TOP_KEYS: &[&str] = &[
    "run",
    "topology",
    "queue",
    "reverse_queue",
    "tcp",
    "workload",
    "monitor",
    "variant",
    "tune",
];

pub(crate) fn build(doc: &Table, base_dir: &Path) -> Res<Experiment> {
    let root = Tbl::root(doc);
    root.allow(TOP_KEYS)?;

    let run = root.req_table("run")?;
    run.allow(&["seed", "warmup", "duration", "stop_after_responses"])?;
    let seed = run.int("seed", 0, i64::MAX)?.unwrap_or(1) as u64;
    let warmup = run.req_duration("warmup")?;
    let duration = positive(run.req_duration("duration")?, &run.key("duration"))?;
    if warmup.0.saturating_add(duration.0) > MAX_RUN.0 {
        return Err(KeyError::new(
            run.key("duration"),
            format!(
                "too long: warmup ({warmup}) + duration ({duration}) must be at most 1e9s \
                 (about 31.7 years)"
            ),
        ));
    }
    let stop_after_responses = run
        .int("stop_after_responses", 1, i64::MAX)?
        .map(|n| n as u64);

    let (topology, groups) = topology::parse(&root, base_dir)?;
    let tcp = tcp::parse(&root)?;
    let mut workloads = Vec::new();
    let mut placements = Vec::new();
    let mut delayboxes = Vec::new();
    for (w, p, d) in workload::parse(&root, &groups, base_dir)? {
        workloads.push(w);
        placements.push(p);
        delayboxes.push(d);
    }
    let workload_tcp = crate::tcp::parse_per_workload(&root)?;
    one_way_only_without_requests(&root, &tcp, &workload_tcp, &workloads)?;
    let monitor = parse_monitor(&root)?;

    let exp = Experiment {
        seed,
        warmup,
        duration,
        stop_after_responses,
        topology,
        tcp,
        workload_tcp,
        workloads,
        placements,
        delayboxes,
        monitor,
    };
    experiment::pcap_links::check(&exp).map_err(|e| KeyError::new(e.key, e.reason))?;
    experiment::budget::check_run(&exp, &|i| root.elem("workload", i))
        .map_err(|e| KeyError::new(e.key, e.reason))?;
    Ok(exp)
}

/// `handshake = false` (ns-2's one-way agents) carries data from server to client only, so it
/// applies to the workloads whose clients send no request (bulk, pareto_web; datagram
/// workloads use no TCP); any other workload running with it is refused at its `kind`.
fn one_way_only_without_requests(
    root: &Tbl,
    tcp: &::tcp::TcpConfig,
    per_workload: &[Option<::tcp::TcpConfig>],
    workloads: &[WorkloadConfig],
) -> Res<()> {
    for (i, w) in workloads.iter().enumerate() {
        let cfg = per_workload.get(i).and_then(Option::as_ref).unwrap_or(tcp);
        let one_way_ok = matches!(
            w,
            WorkloadConfig::Bulk { .. }
                | WorkloadConfig::ParetoWeb { .. }
                | WorkloadConfig::Cbr(_)
                | WorkloadConfig::OnOff { .. }
        );
        if !cfg.handshake && !one_way_ok {
            return Err(KeyError::new(
                format!("{}.kind", root.elem("workload", i)),
                "its clients send requests, which tcp.handshake = false (ns-2's one-way \
                 agents: data from server to client only) cannot carry; use bulk or pareto_web"
                    .to_string(),
            ));
        }
    }
    Ok(())
}

fn parse_monitor(root: &Tbl) -> Res<MonitorConfig> {
    let mut m = MonitorConfig::default();
    let Some(t) = root.table("monitor")? else {
        return Ok(m);
    };
    t.allow(&["queue_interval", "queue_sample", "link_interval", "pcap"])?;
    for (k, slot) in [
        ("queue_interval", &mut m.queue_interval),
        ("queue_sample", &mut m.queue_sample),
        ("link_interval", &mut m.link_interval),
    ] {
        if let Some(d) = t.duration(k)? {
            *slot = positive(d, &t.key(k))?;
        }
    }
    if let Some(list) = t.array("pcap")? {
        for (i, v) in list.iter().enumerate() {
            m.pcap.push(as_str(v, &t.elem("pcap", i))?.to_string());
        }
    }
    Ok(m)
}
