//! One testbed run, start to finish: load the scenario exactly as `aqmlab run` does
//! (`scenario::load`, then the variant by name), check that the testbed can run it ([`prepare`]:
//! every refusal is `FILE: KEY: reason` before anything is created), then for each variant
//! ([`run_variant`]): remove stale namespaces of killed runs, create this run's two namespaces,
//! write the `[tcp]` sysctls, make the path (router TUNs or veth), start the router, the server
//! and the client, run until warm-up + duration (or Ctrl-C/SIGTERM), stop them in that order,
//! remove the namespaces, and write the run directory `OUT/<variant>/` with crates/store: the
//! same files and summary.json keys as `aqmlab run`, plus `"engine": "testbed-linux"` in
//! summary.json and the testbed's own counters in run.json (`engine`). With the router and a
//! DelayBox, each record's `base_rtt_ns` is joined to the router's draw for its connection
//! (`rtt_join.rs`; run.json `engine.delaybox_join`, the draws in [`DELAYBOX_LOG`]). The request columns
//! the testbed cannot measure ([`http::NOT_MEASURED`](crate::http::NOT_MEASURED)) are nulls in
//! requests.parquet and listed in run.json `engine.not_measured`; summary.json's sums of them
//! (`fin_retx`) are null.
//!
//! The run directory is written atomically like `aqmlab run`'s (python/aqmlab/storage/run_dir.py): into
//! `OUT/<variant>.tmp-<pid>`, summary.json last, then renamed; a run stopped by Ctrl-C or
//! SIGTERM is renamed to `OUT/<variant>.interrupted` instead (run.json `engine.interrupted`),
//! so that it never takes the name of a complete run ([`commit_run_dir`]).
//!
//! Scale limits ([`LIMITS`]): what one 2-core machine was measured to sustain
//! (`docs/testbed.md`); a scenario beyond them is refused rather than run wrong.

use crate::client::{self, ClientPlan, ClientReport};
use crate::hop::NetnsHop;
use crate::http::{Tickets, NOT_MEASURED};
use crate::netns::{self, Namespaces, Side};
use crate::path::{self, PathKind, IFNAME};
use crate::rtt_join::{self, JoinStats};
use crate::server;
use crate::tcp_settings::{self, LinuxTcp};
use experiment::{Experiment, HostPlacement, Topology};
use metrics::{Observer, SummaryTotals};
use router::{RouterReport, RouterSpec};
use scenario::ScenarioError;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use traffic::workload::{Arrival, Workload, WorkloadConfig};
use units::{SimDuration, SimTime};

/// The `engine` value of a testbed run's summary.json.
pub const ENGINE: &str = "testbed-linux";

/// What one machine sustains (measured on the 2-core development machine, `docs/testbed.md`).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Fastest bottleneck, bit/s.
    pub max_bottleneck_bps: u64,
    /// Most new connections per second offered by open-loop workloads (sum).
    pub max_conn_rate: f64,
    /// Most closed-loop users or flows (sum over workloads).
    pub max_users: u64,
    /// Most hosts per side.
    pub max_hosts: u32,
}

/// The limits [`prepare`] enforces.
pub const LIMITS: Limits = Limits {
    max_bottleneck_bps: 100_000_000,
    max_conn_rate: 500.0,
    max_users: 5000,
    max_hosts: 1000,
};

/// Command-line options of a testbed run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Scenario file.
    pub scenario: PathBuf,
    /// Output directory: one run directory per variant in it.
    pub out: PathBuf,
    /// Only this variant.
    pub variant: Option<String>,
    /// Replaces `[run] duration` (measured time after the warm-up).
    pub duration: Option<SimDuration>,
    /// Replaces `[run] warmup`.
    pub warmup: Option<SimDuration>,
    /// Ask the router for a pcap of each bottleneck direction (in the run directory).
    pub pcap: bool,
    /// Router (default) or the veth fallback.
    pub path: PathKind,
    /// `--closest-linux`: `[tcp]` keys Linux cannot express run with the nearest Linux
    /// behaviour (each substitution printed and in run.json `tcp_linux.substitutions`)
    /// instead of being refused.
    pub closest_linux: bool,
    /// No progress lines.
    pub quiet: bool,
}

/// A variant checked and ready to run.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// Variant name (its run directory's name).
    pub name: String,
    /// The experiment, with the command line's duration and warm-up.
    pub exp: Experiment,
    /// The `[tcp]` settings on Linux.
    pub tcp: LinuxTcp,
    /// The router's bottleneck (also built for the veth path, so that a refusal is the same).
    pub router: RouterSpec,
}

fn err(file: &str, key: &str, reason: impl Into<String>) -> String {
    ScenarioError {
        file: file.into(),
        key: key.into(),
        reason: reason.into(),
    }
    .to_string()
}

/// Load and check every variant to run; the first problem is `FILE: KEY: reason` (all of
/// the `[tcp]` keys Linux cannot express, one per line).
pub fn prepare(o: &Options) -> Result<Vec<Prepared>, String> {
    let file = o.scenario.display().to_string();
    let exps = scenario::load(&o.scenario).map_err(|e| e.to_string())?;
    let names: Vec<&str> = exps.iter().map(|n| n.name.as_str()).collect();
    if let Some(v) = &o.variant {
        if !names.contains(&v.as_str()) {
            return Err(err(
                &file,
                "variant",
                format!(
                    "no variant named \"{v}\" (the file has: {})",
                    names.join(", ")
                ),
            ));
        }
    }
    let text =
        std::fs::read_to_string(&o.scenario).map_err(|e| err(&file, "(file)", e.to_string()))?;
    let doc: toml::Table =
        toml::from_str(&text).map_err(|e| err(&file, "(syntax)", e.to_string()))?;
    let has_variants = doc.contains_key("variant");
    let mut out = Vec::new();
    for ne in exps {
        if o.variant.as_ref().is_some_and(|v| *v != ne.name) {
            continue;
        }
        let mut exp = ne.experiment;
        if let Some(d) = o.duration {
            exp.duration = d;
        }
        if let Some(w) = o.warmup {
            exp.warmup = w;
        }
        check_supported(&exp).map_err(|(k, r)| err(&file, &k, r))?;
        let keys = tcp_settings::explicit_keys(&doc, has_variants.then_some(ne.name.as_str()));
        let tcp = tcp_settings::map_with(&exp.tcp, &keys, o.closest_linux).map_err(|errs| {
            errs.iter()
                .map(|e| err(&file, &e.key, &e.reason))
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let router = RouterSpec::from_experiment(&exp).map_err(|e| format!("{file}: {e}"))?;
        out.push(Prepared {
            name: ne.name,
            exp,
            tcp,
            router,
        });
    }
    Ok(out)
}

/// What the testbed can run: a dumbbell; HTTP (`http10`, `mah`, `packmime` 1.0 and 1.1,
/// `pareto_web`, `replay` without RTT columns) and `bulk` workloads, forward or reverse
/// (`direction`), with or without per-workload DelayBoxes; within [`LIMITS`]. Returns (key,
/// reason).
pub fn check_supported(exp: &Experiment) -> Result<(), (String, String)> {
    let Topology::Dumbbell(db) = &exp.topology else {
        return Err((
            "topology.kind".into(),
            "the testbed runs a dumbbell only (one bottleneck between two namespaces)".into(),
        ));
    };
    let bps = db.bottleneck_rate.bps;
    if bps > LIMITS.max_bottleneck_bps {
        return Err((
            "topology.bottleneck_rate".into(),
            format!(
                "{} Mbps is beyond what this machine's testbed router sustains ({} Mbps)",
                bps as f64 / 1e6,
                LIMITS.max_bottleneck_bps / 1_000_000
            ),
        ));
    }
    for (k, n) in [
        ("topology.clients", db.clients),
        ("topology.servers", db.servers),
    ] {
        if n > LIMITS.max_hosts {
            return Err((
                k.into(),
                format!(
                    "{n} hosts: the testbed takes at most {} per side",
                    LIMITS.max_hosts
                ),
            ));
        }
    }
    let mut conn_rate = 0.0;
    let mut users = 0u64;
    for (i, w) in exp.workloads.iter().enumerate() {
        let key = format!("workload[{i}]");
        match exp.placements.get(i) {
            None | Some(HostPlacement::Default) | Some(HostPlacement::Reverse) => {}
            Some(HostPlacement::Groups { .. }) => {
                return Err((
                    format!("{key}.placement"),
                    "the testbed places a workload's clients on one side of the dumbbell and \
                     its servers on the other only (direction = \"forward\" or \"reverse\"), \
                     not in named host groups"
                        .into(),
                ))
            }
        }
        match w {
            WorkloadConfig::Http10 { arrival, .. } => match arrival {
                Arrival::Poisson { rate } => conn_rate += rate,
                Arrival::Users { users: u, .. } => users += u64::from(*u),
            },
            WorkloadConfig::ParetoWeb { flows, .. } => users += u64::from(*flows),
            WorkloadConfig::Mah(m) => users += u64::from(m.users),
            WorkloadConfig::Bulk { flows } => users += flows.len() as u64,
            WorkloadConfig::PackMime { rate, .. } => conn_rate += rate,
            WorkloadConfig::Replay { conns, .. } => {
                if conns.iter().any(|c| c.box_rtt.is_some()) {
                    return Err((
                        format!("{key}.file"),
                        "per-connection DelayBox RTTs of a replay are not supported by the \
                         testbed router"
                            .into(),
                    ));
                }
            }
            WorkloadConfig::Cbr(_) | WorkloadConfig::OnOff { .. } => {
                return Err((
                    format!("{key}.kind"),
                    "datagram workloads (cbr, onoff) are not supported by the testbed (TCP only)"
                        .into(),
                ))
            }
        }
    }
    if conn_rate > LIMITS.max_conn_rate {
        return Err((
            "workload".into(),
            format!(
                "{conn_rate} new connections/s in all: the testbed sustains at most {} on this \
                 machine",
                LIMITS.max_conn_rate
            ),
        ));
    }
    if users > LIMITS.max_users {
        return Err((
            "workload".into(),
            format!(
                "{users} users/flows in all: the testbed sustains at most {}",
                LIMITS.max_users
            ),
        ));
    }
    Ok(())
}

/// What a finished variant reports back.
#[derive(Debug)]
pub struct Outcome {
    /// The run directory written (`<variant>.interrupted` when interrupted).
    pub dir: PathBuf,
    /// summary.json's text.
    pub summary_json: String,
    /// Stopped by Ctrl-C or SIGTERM (the directory holds what was measured until then).
    pub interrupted: bool,
}

/// Check that `OUT/<name>` may receive a run (missing, empty, or a run directory that is
/// replaced), before anything runs.
pub fn check_target(out: &Path, name: &str) -> Result<(), String> {
    let d = out.join(name);
    if d.exists() {
        let is_run = d.join("summary.json").is_file();
        let empty = d
            .read_dir()
            .map(|mut r| r.next().is_none())
            .unwrap_or(false);
        if !(d.is_dir() && (is_run || empty)) {
            return Err(format!(
                "{}: exists and is not a run directory; not replacing it",
                d.display()
            ));
        }
    }
    Ok(())
}

fn io_err(what: &str) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Raise the open-file limit to its hard maximum (one descriptor per socket).
fn raise_nofile() {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain getrlimit/setrlimit on a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// Clean up after a run killed while writing into `out` (as python/aqmlab/storage/run_dir.py
/// `remove_stale_scratch` does for `aqmlab run`): every `NAME.tmp-PID` / `NAME.old-PID`
/// directory whose process no longer runs is removed, except an `.old-PID` whose NAME is
/// missing (killed between the two renames: the only complete copy), which gets its name back.
pub fn remove_stale_scratch(out: &Path) {
    let Ok(rd) = std::fs::read_dir(out) else {
        return;
    };
    for e in rd.filter_map(|e| e.ok()) {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((stem, pid)) = name.rsplit_once('-') else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let (final_name, old) = if let Some(f) = stem.strip_suffix(".tmp") {
            (f, false)
        } else if let Some(f) = stem.strip_suffix(".old") {
            (f, true)
        } else {
            continue;
        };
        if final_name.is_empty() || Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        let path = e.path();
        let final_path = out.join(final_name);
        if old && !final_path.exists() && path.join("summary.json").is_file() {
            let _ = std::fs::rename(&path, &final_path);
        } else {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Run one prepared variant and write `OUT/<name>/`.
pub fn run_variant(p: &Prepared, o: &Options) -> Result<Outcome, String> {
    raise_nofile();
    let log = |m: String| {
        if !o.quiet {
            eprintln!("aqmlab testbed: {m}");
        }
    };
    for s in netns::remove_stale() {
        log(format!(
            "removed namespace {s} of a run that no longer runs"
        ));
    }
    for n in &p.tcp.notes {
        log(format!("note: {n}"));
    }
    for n in &p.tcp.substitutions {
        // Printed even with --quiet: the run is not the scenario's TCP.
        eprintln!("aqmlab testbed: substituted: {n}");
    }
    remove_stale_scratch(&o.out);
    let tmp = o.out.join(format!("{}.tmp-{}", p.name, std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io_err(&tmp.display().to_string()))?;
    let result = run_in(p, o, &tmp, &log);
    let (summary_json, interrupted) = match result {
        Ok(x) => x,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let dir = commit_run_dir(&o.out, &tmp, &p.name, interrupted)?;
    Ok(Outcome {
        dir,
        summary_json,
        interrupted,
    })
}

/// The name an interrupted run of variant `name` is kept under: `<name>.interrupted`, never
/// `<name>` (its tables hold only what was measured before the signal).
pub fn interrupted_name(name: &str) -> String {
    format!("{name}.interrupted")
}

/// Move the finished scratch directory `tmp` into place and return where it now is: a
/// complete run replaces `OUT/<name>` (an earlier run there moved aside to `<name>.old-<pid>`
/// first, as python/aqmlab/storage/run_dir.py `commit_run_dir` does); an interrupted run goes to
/// `OUT/<name>.interrupted` ([`interrupted_name`], replacing an earlier interrupted run there)
/// and leaves a complete `OUT/<name>` untouched.
pub fn commit_run_dir(
    out: &Path,
    tmp: &Path,
    name: &str,
    interrupted: bool,
) -> Result<PathBuf, String> {
    let final_dir = out.join(if interrupted {
        interrupted_name(name)
    } else {
        name.to_string()
    });
    let shown = final_dir.display().to_string();
    if final_dir.exists() {
        let replaceable = final_dir.join("summary.json").is_file()
            || final_dir
                .read_dir()
                .map(|mut r| r.next().is_none())
                .unwrap_or(false);
        if !replaceable {
            return Err(format!(
                "{shown}: exists and is not a run directory; not replacing it (the run is in {})",
                tmp.display()
            ));
        }
        let old = out.join(format!("{name}.old-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&old);
        std::fs::rename(&final_dir, &old).map_err(io_err(&shown))?;
        std::fs::rename(tmp, &final_dir).map_err(io_err(&shown))?;
        let _ = std::fs::remove_dir_all(&old);
    } else {
        std::fs::rename(tmp, &final_dir).map_err(io_err(&shown))?;
    }
    Ok(final_dir)
}

/// Everything between the namespaces' creation and their removal; writes the tables and
/// summary into `dir`.
fn run_in(
    p: &Prepared,
    o: &Options,
    dir: &Path,
    log: &dyn Fn(String),
) -> Result<(String, bool), String> {
    let exp = &p.exp;
    let Topology::Dumbbell(db) = &exp.topology else {
        return Err("not a dumbbell".into());
    };
    let run_id = netns::new_run_id();
    let mut ns = Namespaces::create(&run_id).map_err(io_err("creating the namespaces"))?;
    log(format!(
        "{}: namespaces {} and {}, path {}, {:.1} s (warm-up {:.1} s)",
        p.name,
        ns.client,
        ns.server,
        o.path.as_str(),
        (exp.warmup.as_nanos() + exp.duration.as_nanos()) as f64 / 1e9,
        exp.warmup.as_secs_f64()
    ));
    for side in [Side::Client, Side::Server] {
        netns::apply_sysctls(ns.of(side), &p.tcp.sysctls).map_err(io_err("sysctls"))?;
    }
    let stop_router = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let mut router_thread = None;
    match o.path {
        PathKind::Veth => {
            path::create_veth(&ns.client, &ns.server).map_err(io_err("veth"))?;
            path::configure(&ns, db.clients, db.servers, &p.tcp).map_err(io_err("addresses"))?;
        }
        PathKind::Router => {
            let cfd =
                router::open_tun_in_netns(&ns.client, IFNAME).map_err(io_err("client-side TUN"))?;
            let sfd =
                router::open_tun_in_netns(&ns.server, IFNAME).map_err(io_err("server-side TUN"))?;
            path::configure(&ns, db.clients, db.servers, &p.tcp).map_err(io_err("addresses"))?;
            let mut spec = p.router.clone();
            spec.epoch = Some(t0);
            spec.client_hosts = (0..db.clients)
                .map(|i| netns::host_addr(Side::Client, i))
                .collect();
            spec.server_hosts = (0..db.servers)
                .map(|i| netns::host_addr(Side::Server, i))
                .collect();
            if o.pcap {
                spec.pcap_dir = Some(dir.to_path_buf());
            }
            let stop = stop_router.clone();
            router_thread = Some(
                std::thread::Builder::new()
                    .name("testbed-router".into())
                    .spawn(move || router::run(&spec, cfd, sfd, &stop))
                    .map_err(io_err("router thread"))?,
            );
        }
    }
    let tickets: Tickets = Default::default();
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let stop_traffic = Arc::new(AtomicBool::new(false));
    // Workload w's servers listen on port 80 + w, in the namespace opposite its clients.
    let reverse: Vec<bool> = (0..exp.workloads.len())
        .map(|i| exp.placements.get(i) == Some(&HostPlacement::Reverse))
        .collect();
    let mut servers = Vec::new();
    for (side_ns, rev) in [(&ns.server, false), (&ns.client, true)] {
        let ports: Vec<u16> = (0..reverse.len())
            .filter(|&w| reverse[w] == rev)
            .filter_map(router::ports::server_port)
            .collect();
        if ports.is_empty() {
            continue;
        }
        servers.push(
            server::spawn_server(
                side_ns.clone(),
                ports,
                tickets.clone(),
                ev_tx.clone(),
                stop_traffic.clone(),
            )
            .map_err(|e| e.to_string())?,
        );
    }
    let prop_rtt_ns = 2 * (2 * db.access_delay.as_nanos() + db.bottleneck_delay.as_nanos());
    let end = SimTime::from_nanos(exp.warmup.as_nanos() + exp.duration.as_nanos());
    let plan = ClientPlan {
        seed: exp.seed,
        end,
        warmup: SimTime::from_nanos(exp.warmup.as_nanos()),
        stop_after_responses: exp.stop_after_responses,
        prop_rtt_ns,
        grace: Duration::from_millis(500),
        at_end: Some(stop_router.clone()),
        server_override: None,
        reverse: reverse.clone(),
        hop: None,
    };
    let workloads: Vec<Workload> = exp
        .workloads
        .iter()
        .map(|w| Workload::new(w.clone()))
        .collect::<Result<_, _>>()?;
    let client_ns = ns.client.clone();
    let server_ns = ns.server.clone();
    let any_reverse = reverse.contains(&true);
    let mut plan = plan;
    let stop_flag = stop_traffic.clone();
    let client = std::thread::Builder::new()
        .name("testbed-client".into())
        .spawn(move || -> std::io::Result<ClientReport> {
            netns::enter(&client_ns)?;
            if any_reverse {
                plan.hop = Some(Arc::new(NetnsHop::open(&client_ns, &server_ns)?));
            }
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            // The signal flag reaches the client through a watcher task.
            let stop = stop_flag.clone();
            Ok(rt.block_on(async move {
                let watch = stop.clone();
                tokio::spawn(async move {
                    loop {
                        if netns::STOP.load(Ordering::SeqCst) {
                            watch.store(true, Ordering::SeqCst);
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                });
                client::client_main(plan, workloads, t0, tickets, ev_tx, ev_rx, stop).await
            }))
        })
        .map_err(io_err("client thread"))?;
    // A router that ends early (an IO error) would leave the hosts disconnected for the rest
    // of the run: stop the traffic then, and report the router's error below.
    while !client.is_finished() {
        if router_thread.as_ref().is_some_and(|h| h.is_finished()) {
            stop_traffic.store(true, Ordering::SeqCst);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let client_rep = client.join();
    stop_traffic.store(true, Ordering::SeqCst);
    for s in servers {
        let _ = s.join();
    }
    stop_router.store(true, Ordering::SeqCst);
    let router_rep: Option<std::io::Result<RouterReport>> = router_thread.map(|h| {
        h.join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the router thread panicked")))
    });
    ns.teardown();
    let mut client_rep = client_rep
        .map_err(|_| "the client thread panicked".to_string())?
        .map_err(io_err("client"))?;
    let router_rep = match router_rep {
        Some(r) => Some(r.map_err(io_err("router"))?),
        None => None,
    };
    let interrupted = netns::STOP.load(Ordering::SeqCst);

    // The run directory.
    let warmup_ns = exp.warmup.as_nanos();
    let mut w = store::RunWriter::create(dir, warmup_ns).map_err(|e| e.to_string())?;
    w.declare_not_measured(&NOT_MEASURED)
        .map_err(|e| e.to_string())?;
    let null_keys = w.summary_keys_not_measured();
    // base_rtt_ns: the delay the router applied to each connection (rtt_join.rs).
    let any_box = router::delaybox::DelayBox::any(db.delaybox.as_ref(), &p.router.workload_boxes);
    let join = match &router_rep {
        Some(r) if any_box => {
            let (st, claimed) = rtt_join::join(
                &mut client_rep.records,
                &client_rep.tuples,
                &r.delaybox_log,
                prop_rtt_ns,
            );
            write_file(
                &dir.join(DELAYBOX_LOG),
                &delaybox_csv(&r.delaybox_log, &claimed),
            )?;
            Some(st)
        }
        _ => None,
    };
    for r in &client_rep.records {
        w.on_request(r.clone());
    }
    let end_ns = router_rep
        .as_ref()
        .map_or(client_rep.end_ns, |r| r.end_ns.max(client_rep.end_ns));
    let (fwd_link, totals) = match &router_rep {
        Some(r) => {
            for q in &r.queue_rows {
                w.on_queue_row(q.clone());
            }
            for l in &r.link_rows {
                w.on_link_row(l.clone());
            }
            (r.fwd_link.clone(), r.totals)
        }
        None => (
            "bottleneck_fwd".to_string(),
            SummaryTotals {
                fwd_bytes: 0,
                bottleneck_bps: db.bottleneck_rate.bps,
                drops: Default::default(),
                measured_ns: client_rep.end_ns.saturating_sub(warmup_ns),
                forced_defined: false,
                dual_queue: None,
            },
        ),
    };
    let summary = w.finish(&fwd_link, &totals).map_err(|e| e.to_string())?;
    let summary_json = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    let mut summary_json = null_keys_of(&summary_json, &null_keys)?;
    // Same keys in the same order as `aqmlab run`'s, then the engine.
    if summary_json.ends_with("\n}") {
        summary_json.truncate(summary_json.len() - 2);
        summary_json.push_str(&format!(",\n  \"engine\": \"{ENGINE}\"\n}}"));
    }
    let info = run_info(
        p,
        o,
        &client_rep,
        router_rep.as_ref(),
        join.as_ref(),
        end_ns,
        interrupted,
    );
    let info_text = serde_json::to_string_pretty(&info).map_err(|e| e.to_string())? + "\n";
    write_file(&dir.join("run.json"), &info_text)?;
    write_file(&dir.join("summary.json"), &(summary_json.clone() + "\n"))?;
    Ok((summary_json, interrupted))
}

/// `json` (a pretty-printed flat object, one `  "key": value` line per key) with the values
/// of `keys` replaced by null, keys and order unchanged. A key that is not on exactly one
/// line of its own is an error (the text is not the summary it should be).
fn null_keys_of(json: &str, keys: &[&str]) -> Result<String, String> {
    let mut lines: Vec<String> = json.lines().map(String::from).collect();
    for k in keys {
        let prefix = format!("  \"{k}\": ");
        let at: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with(&prefix))
            .collect();
        let [i] = at[..] else {
            return Err(format!(
                "summary.json: the key {k:?} is on {} lines, not 1; cannot write it as null",
                at.len()
            ));
        };
        let comma = if lines[i].ends_with(',') { "," } else { "" };
        lines[i] = format!("{prefix}null{comma}");
    }
    Ok(lines.join("\n"))
}

/// File name of the router's DelayBox draws in the run directory (router path with a DelayBox).
pub const DELAYBOX_LOG: &str = "delaybox.csv";

/// The draws as CSV, one line per draw in the order made: router time (ns since the epoch), the
/// SYN's source (client) and destination (server) address and port, the one-way delay applied
/// (ns; the connection's extra RTT is twice it), the `conn_id` of the record that got it
/// (empty: no record claimed it), the workload (from the server port; empty: none) and the
/// one-way delay's parts: the dumbbell box, the workload's client box and server box (ns).
fn delaybox_csv(draws: &[router::delaybox::Draw], claimed: &[Option<u64>]) -> String {
    let mut s = String::from(
        "at_ns,client,client_port,server,server_port,one_way_ns,conn_id,workload,topology_ns,\
         client_box_ns,server_box_ns\n",
    );
    for (d, c) in draws.iter().zip(claimed) {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            d.at_ns,
            d.src.ip(),
            d.src.port(),
            d.dst.ip(),
            d.dst.port(),
            d.one_way_ns,
            c.map_or(String::new(), |c| c.to_string()),
            d.workload.map_or(String::new(), |w| w.to_string()),
            d.topology_ns,
            d.client_box_ns,
            d.server_box_ns,
        ));
    }
    s
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn run_info(
    p: &Prepared,
    o: &Options,
    c: &ClientReport,
    r: Option<&RouterReport>,
    join: Option<&JoinStats>,
    end_ns: u64,
    interrupted: bool,
) -> serde_json::Value {
    use serde_json::json;
    let router = r.map(|r| {
        let path = |c: &router::PathCounters| {
            json!({
                "in_packets": c.in_packets, "in_bytes": c.in_bytes,
                "out_packets": c.out_packets, "out_bytes": c.out_bytes,
                "dropped_packets": c.dropped_packets, "dropped_bytes": c.dropped_bytes,
                "marked_packets": c.marked_packets,
                "queued_packets": c.queued_packets, "in_flight_packets": c.in_flight_packets,
                "conservation": c.check().err().unwrap_or_else(|| "ok".into()),
            })
        };
        let pacing = |x: &router::Pacing| {
            json!({
                "configured_bps": x.configured_bps, "achieved_bps": x.achieved_bps,
                "rate_error": x.rate_error, "delay_error_p50_ns": x.delay_error_p50_ns,
                "delay_error_p99_ns": x.delay_error_p99_ns,
                "delay_error_max_ns": x.delay_error_max_ns, "samples": x.samples,
            })
        };
        json!({
            "fwd": path(&r.fwd), "rev": path(&r.rev),
            "fwd_pacing": pacing(&r.fwd_pacing), "rev_pacing": pacing(&r.rev_pacing),
            "not_ipv4": r.not_ipv4, "delaybox_draws": r.delaybox_draws,
            "delaybox_unknown_workload": r.delaybox_unknown_workload,
            "realtime": r.realtime,
            "write_errors": r.write_errors,
        })
    });
    json!({
        "name": p.name,
        "scenario": o.scenario.display().to_string(),
        "seed": p.exp.seed,
        "warmup_ns": p.exp.warmup.as_nanos(),
        "engine": {
            "kind": ENGINE,
            "path": o.path.as_str(),
            "end_ns": end_ns,
            "connections": c.connections,
            "peak_open_connections": c.peak_open,
            "congestion_control": c.congestion_control,
            "server_gave_up": c.server_gave_up,
            "arrival_lateness_max_ns": c.lateness_max_ns,
            "arrival_lateness_mean_ns": c.lateness_sum_ns.checked_div(c.deadlines).unwrap_or(0),
            "interrupted": interrupted,
            "not_measured": NOT_MEASURED,
            "delaybox_join": join.map(|j| json!({
                "draws": j.draws, "joined": j.joined, "unjoined": j.unjoined,
                "draws_unclaimed": j.draws_unclaimed, "syn_out_of_order": j.syn_out_of_order,
            })),
            "router": router,
            "tcp_linux": p.tcp,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use traffic::workload::HttpVersion;

    /// A fresh directory for one test (no tempfile crate here).
    fn scratch_out(test: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("aqmlab-testbed-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn run_dir(at: &Path, marker: &str) {
        std::fs::create_dir_all(at).unwrap();
        std::fs::write(at.join("summary.json"), marker).unwrap();
    }

    fn names(out: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn an_interrupted_run_keeps_a_name_that_says_so_and_leaves_the_complete_run_alone() {
        let out = scratch_out("interrupted");
        run_dir(&out.join("tb"), "complete");
        let tmp = out.join(format!("tb.tmp-{}", std::process::id()));
        run_dir(&tmp, "interrupted 1");
        let at = commit_run_dir(&out, &tmp, "tb", true).unwrap();
        assert_eq!(at, out.join("tb.interrupted"));
        assert_eq!(names(&out), ["tb", "tb.interrupted"]);
        let read = |d: &str| std::fs::read_to_string(out.join(d).join("summary.json")).unwrap();
        assert_eq!(read("tb"), "complete");
        assert_eq!(read("tb.interrupted"), "interrupted 1");
        // A second interrupted run replaces the first; a complete one then replaces `tb` only.
        run_dir(&tmp, "interrupted 2");
        commit_run_dir(&out, &tmp, "tb", true).unwrap();
        assert_eq!(read("tb.interrupted"), "interrupted 2");
        run_dir(&tmp, "complete 2");
        assert_eq!(
            commit_run_dir(&out, &tmp, "tb", false).unwrap(),
            out.join("tb")
        );
        assert_eq!(names(&out), ["tb", "tb.interrupted"]);
        assert_eq!(read("tb"), "complete 2");
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn an_interrupted_run_does_not_replace_a_directory_that_is_not_a_run() {
        let out = scratch_out("not-a-run");
        std::fs::create_dir_all(out.join("tb.interrupted")).unwrap();
        std::fs::write(out.join("tb.interrupted").join("notes.txt"), "mine").unwrap();
        let tmp = out.join("tb.tmp-1");
        run_dir(&tmp, "interrupted");
        let e = commit_run_dir(&out, &tmp, "tb", true).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{}: exists and is not a run directory; not replacing it (the run is in {})",
                out.join("tb.interrupted").display(),
                tmp.display()
            )
        );
        assert!(out.join("tb.interrupted").join("notes.txt").is_file());
        assert!(tmp.join("summary.json").is_file());
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn summary_keys_not_measured_become_null_in_place() {
        let json =
            "{\n  \"drops\": 3,\n  \"syn_retx\": 4,\n  \"fin_retx\": 0,\n  \"timeouts\": 2\n}";
        let out = null_keys_of(json, &["fin_retx", "timeouts"]).unwrap();
        assert_eq!(
            out,
            "{\n  \"drops\": 3,\n  \"syn_retx\": 4,\n  \"fin_retx\": null,\n  \"timeouts\": null\n}"
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["fin_retx"].is_null() && v["syn_retx"] == 4);
        assert_eq!(null_keys_of(json, &[]).unwrap(), json);
        let e = null_keys_of(json, &["loss_events"]).unwrap_err();
        assert!(e.contains("\"loss_events\" is on 0 lines"), "{e}");
    }

    #[test]
    fn a_testbed_summary_has_fin_retx_null_and_the_rest_as_computed() {
        let dir = std::env::temp_dir().join(format!("aqmlab-testbed-null-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut w = store::RunWriter::create(&dir, 0).unwrap();
        w.declare_not_measured(&NOT_MEASURED).unwrap();
        let keys = w.summary_keys_not_measured();
        assert_eq!(keys, ["fin_retx"]);
        let totals = SummaryTotals {
            fwd_bytes: 0,
            bottleneck_bps: 1_000_000,
            drops: Default::default(),
            measured_ns: 1_000_000_000,
            forced_defined: false,
            dual_queue: None,
        };
        let summary = w.finish("bottleneck_fwd", &totals).unwrap();
        let json = serde_json::to_string_pretty(&summary).unwrap();
        let out = null_keys_of(&json, &keys).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let want: serde_json::Value = serde_json::from_str(&json).unwrap();
        let (v, want) = (v.as_object().unwrap(), want.as_object().unwrap());
        assert_eq!(v.len(), want.len());
        for (k, x) in want {
            if k == "fin_retx" {
                assert!(v[k].is_null());
            } else {
                assert_eq!(&v[k], x, "{k}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn options(scenario: PathBuf, closest_linux: bool) -> Options {
        Options {
            scenario,
            out: std::env::temp_dir().join("aqmlab-testbed-unused"),
            variant: None,
            duration: None,
            warmup: None,
            pcap: false,
            path: PathKind::Router,
            closest_linux,
            quiet: true,
        }
    }

    fn twin() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/ns2-twin/seed001_dt_80.toml")
    }

    #[test]
    fn seed_001s_twin_is_accepted_with_its_reverse_cloud_and_packmime_boxes() {
        let p = prepare(&options(twin(), true)).unwrap();
        assert_eq!(p.len(), 1);
        let r = &p[0].router;
        // Both clouds' client and server boxes reach the router, one workload per port.
        assert_eq!(r.workload_boxes.len(), 2);
        assert!(r
            .workload_boxes
            .iter()
            .all(|b| b.client.is_some() && b.server.is_some()));
        assert!(r.delaybox.is_none());
        assert_eq!(
            p[0].exp.placements,
            [HostPlacement::Default, HostPlacement::Reverse]
        );
        // Without the opt-in the ns-2 FullTcp keys are refused, each as FILE: key: reason.
        let e = prepare(&options(twin(), false)).unwrap_err();
        let file = twin().display().to_string();
        for key in ["tcp.ns2_fulltcp", "tcp.ssthresh", "tcp.slow_start"] {
            assert!(
                e.lines()
                    .any(|l| l.starts_with(&format!("{file}: {key}: "))),
                "{key} not in {e}"
            );
        }
    }

    #[test]
    fn http11_is_accepted_and_datagrams_are_still_refused_with_file_key_reason() {
        let text = std::fs::read_to_string(twin()).unwrap();
        let dir =
            std::env::temp_dir().join(format!("aqmlab-testbed-refuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("twin_http11.toml");
        let http11 = text.replacen(
            "rate = 101.0\ndirection = \"reverse\"",
            "rate = 101.0\nhttp = \"1.1\"\ndirection = \"reverse\"",
            1,
        );
        assert_ne!(http11, text);
        std::fs::write(&f, &http11).unwrap();
        let p = prepare(&options(f.clone(), true)).unwrap();
        assert!(matches!(
            p[0].exp.workloads[1],
            WorkloadConfig::PackMime {
                http: HttpVersion::Http11,
                ..
            }
        ));
        // A third workload of datagrams: still refused, naming the file, the key and why.
        let cbr = format!(
            "{http11}\n[[workload]]\nkind = \"cbr\"\nrate = \"1Mbps\"\nclient = 0\nserver = 0\n"
        );
        std::fs::write(&f, cbr).unwrap();
        let e = prepare(&options(f.clone(), true)).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{}: workload[2].kind: datagram workloads (cbr, onoff) are not supported by the \
                 testbed (TCP only)",
                f.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn every_seed_001_preset_is_accepted_with_closest_linux() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("scenarios/ns2-twin"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.push(root.join("scenarios/weigle2006/dumbbell.toml"));
        for f in std::fs::read_dir(root.join("studies/weigle2006")).unwrap() {
            files.push(f.unwrap().path());
        }
        // Study files with a [sweep] are expanded by `aqmlab study`, not by the testbed.
        files.retain(|f| {
            f.extension().is_some_and(|e| e == "toml")
                && !std::fs::read_to_string(f).unwrap().contains("\n[sweep]")
        });
        files.sort();
        assert!(files.len() >= 12, "{files:?}");
        for f in files {
            let p = prepare(&options(f.clone(), true))
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            for v in &p {
                assert_eq!(v.router.workload_boxes.len(), v.exp.workloads.len());
            }
        }
    }
}
