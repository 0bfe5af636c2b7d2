//! Build a world from an [`Experiment`], run the event loop to the end, collect the outputs and
//! check conservation.
//!
//! Topologies: `Dumbbell` (`topology/dumbbell.rs`) and `ParkingLot` (`topology/parking_lot.rs`);
//! each workload's clients and servers are resolved from its [`HostPlacement`] against the
//! topology's named host groups before anything runs (an unknown group or an out-of-range host
//! is a `SimError` naming `workload[i]`). The summary reports the topology's bottleneck link.
//!
//! Validation: `tests/cross_traffic.rs` (datagrams, two-way traffic, parking lot), and the
//! other end-to-end tests in `tests/`.

use crate::config::{DelayBoxConfig, Experiment, HostPlacement, Topology};
use crate::event::Event;
use crate::output::{EngineStats, RunEnd, RunOutput, SimError};
use crate::topology;
use crate::world::{Monitors, World, WorldParts};
use aqm::{QueueDisc, QueueStats};
use metrics::{
    DropCounts, LaneSojourns, LinkMonitor, Observer, QueueMonitor, Recorder, Summary, SummaryInput,
    SummaryTotals,
};
use std::path::Path;
use traffic::{Workload, WorkloadConfig};
use units::{SimDuration, SimTime};

fn check_hosts(i: usize, cfg: &WorkloadConfig, clients: u32, servers: u32) -> Result<(), SimError> {
    let bad = |what: &str, idx: u32, n: u32| SimError {
        key: format!("workload[{i}]"),
        reason: format!(
            "{what} {idx} has no route: the topology has {n} {what}s (0..{})",
            n.saturating_sub(1)
        ),
    };
    match cfg {
        WorkloadConfig::Http10 {
            clients: c,
            servers: s,
            ..
        }
        | WorkloadConfig::ParetoWeb {
            clients: c,
            servers: s,
            ..
        }
        | WorkloadConfig::Mah(traffic::MahConfig {
            clients: c,
            servers: s,
            ..
        })
        | WorkloadConfig::PackMime {
            clients: c,
            servers: s,
            ..
        }
        | WorkloadConfig::Replay {
            clients: c,
            servers: s,
            ..
        } => {
            if *c > clients {
                return Err(bad("client", *c - 1, clients));
            }
            if *s > servers {
                return Err(bad("server", *s - 1, servers));
            }
        }
        WorkloadConfig::Cbr(f) | WorkloadConfig::OnOff { flow: f, .. } => {
            if f.client >= clients {
                return Err(bad("client", f.client, clients));
            }
            if f.server >= servers {
                return Err(bad("server", f.server, servers));
            }
        }
        WorkloadConfig::Bulk { flows } => {
            for f in flows {
                if f.client >= clients {
                    return Err(bad("client", f.client, clients));
                }
                if f.server >= servers {
                    return Err(bad("server", f.server, servers));
                }
            }
        }
    }
    Ok(())
}

/// The (client nodes, server nodes) of workload `i` placed as `p`.
fn resolve_placement(
    i: usize,
    p: &HostPlacement,
    topo: &Topology,
    groups: &[(String, Vec<u32>)],
) -> Result<(Vec<u32>, Vec<u32>), SimError> {
    let group = |name: &str| {
        groups
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, nodes)| nodes.clone())
            .ok_or_else(|| SimError {
                key: format!("workload[{i}]"),
                reason: format!(
                    "no host group {name:?}; the topology has: {}",
                    groups
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
    };
    match (p, topo) {
        (HostPlacement::Default, Topology::Dumbbell(_)) => {
            Ok((group("clients")?, group("servers")?))
        }
        (HostPlacement::Reverse, Topology::Dumbbell(_)) => {
            Ok((group("servers")?, group("clients")?))
        }
        (HostPlacement::Groups { clients, servers }, _) => Ok((group(clients)?, group(servers)?)),
        (_, Topology::ParkingLot(_)) => Err(SimError {
            key: format!("workload[{i}]"),
            reason: "a parking-lot workload must name its client and server clouds".into(),
        }),
    }
}

/// Run `exp` to completion, keeping every record in memory (sorted by request id) and
/// computing the summary from them. `progress(now, end)` is called about every simulated
/// second.
pub fn run(
    exp: &Experiment,
    progress: &mut dyn FnMut(SimTime, SimTime),
) -> Result<RunOutput, SimError> {
    let end = run_with(exp, progress, Recorder::default())?;
    let mut rec = end.obs;
    rec.requests.sort_by_key(|r| r.id);
    let fwd_rows: Vec<_> = rec
        .queue
        .iter()
        .filter(|r| r.link == end.fwd_link)
        .cloned()
        .collect();
    let t = end.totals;
    let summary = Summary::compute(&SummaryInput {
        requests: &rec.requests,
        queue_rows: &fwd_rows,
        fwd_bytes: t.fwd_bytes,
        bottleneck_bps: t.bottleneck_bps,
        drops: t.drops,
        warmup_ns: end.warmup_ns,
        measured_ns: t.measured_ns,
        forced_defined: t.forced_defined,
        dual_queue: t.dual_queue,
    });
    Ok(RunOutput {
        datagrams: end.datagrams,
        link_stats: end.link_stats,
        bottleneck_queue: end.bottleneck_queue,
        summary,
        requests: rec.requests,
        queue: rec.queue,
        links: rec.links,
        engine: end.engine,
    })
}

/// Run `exp` to completion, handing every record to `obs` as it is produced (requests when
/// they end, in no particular id order; queue and link rows in time order). Returns `obs` and
/// the run-wide totals; the caller builds the summary (see [`run`]). An experiment with
/// `[monitor] pcap` needs a run directory: [`run_in`].
pub fn run_with<O: Observer>(
    exp: &Experiment,
    progress: &mut dyn FnMut(SimTime, SimTime),
    obs: O,
) -> Result<RunEnd<O>, SimError> {
    run_inner(exp, progress, obs, None)
}

/// [`run_with`], writing the experiment's files into the existing run directory `dir`: one
/// `{link}.pcap` per link `[monitor] pcap` selects (`crate::pcap`).
pub fn run_in<O: Observer>(
    exp: &Experiment,
    progress: &mut dyn FnMut(SimTime, SimTime),
    obs: O,
    dir: &Path,
) -> Result<RunEnd<O>, SimError> {
    run_inner(exp, progress, obs, Some(dir))
}

fn run_inner<O: Observer>(
    exp: &Experiment,
    progress: &mut dyn FnMut(SimTime, SimTime),
    obs: O,
    dir: Option<&Path>,
) -> Result<RunEnd<O>, SimError> {
    let (built, delaybox) = match &exp.topology {
        Topology::Dumbbell(db) => (
            topology::dumbbell::build(db, exp.seed)?,
            db.delaybox.clone(),
        ),
        Topology::ParkingLot(pl) => (topology::parking_lot::build(pl, exp.seed)?, None),
    };
    if let (Topology::Dumbbell(db), Some(DelayBoxConfig::Matrix { rtt })) =
        (&exp.topology, &delaybox)
    {
        if rtt.len() != db.clients as usize || rtt.iter().any(|r| r.len() != db.servers as usize) {
            return Err(SimError {
                key: "topology.delaybox.matrix".into(),
                reason: format!(
                    "must be {} rows (clients) × {} columns (servers)",
                    db.clients, db.servers
                ),
            });
        }
    }
    let mut workloads = Vec::new();
    let mut workload_hosts = Vec::new();
    for (i, w) in exp.workloads.iter().enumerate() {
        let placement = exp.placements.get(i).cloned().unwrap_or_default();
        let hosts = resolve_placement(i, &placement, &exp.topology, &built.groups)?;
        check_hosts(i, w, hosts.0.len() as u32, hosts.1.len() as u32)?;
        workload_hosts.push(hosts);
        workloads.push(Workload::new(w.clone()).map_err(|e| SimError {
            key: format!("workload[{i}]"),
            reason: e,
        })?);
    }
    if exp.monitor.queue_sample.as_nanos() == 0
        || exp.monitor.queue_interval.as_nanos() == 0
        || exp.monitor.link_interval.as_nanos() == 0
    {
        return Err(SimError {
            key: "monitor".into(),
            reason: "intervals must be positive".into(),
        });
    }
    let fwd = built.bottleneck_fwd;
    let bottleneck_bps = built.net.links[fwd as usize].rate.bps;
    let warmup = SimTime::ZERO + exp.warmup;
    let mut end = warmup + exp.duration;
    let monitored = built.monitored.clone();
    let dgram_src = crate::pcap::datagram_sources(&exp.workloads, &workload_hosts);
    let mut w = World::new(WorldParts {
        net: built.net,
        client_nodes: built.client_nodes,
        server_nodes: built.server_nodes,
        workload_hosts,
        delaybox_node: built.delaybox_node,
        delaybox,
        workload_boxes: exp.delayboxes.clone(),
        workloads,
        tcp: exp.tcp.clone(),
        workload_tcp: exp.workload_tcp.clone(),
        seed: exp.seed,
        obs,
        warmup,
    });
    for (mi, &l) in monitored.iter().enumerate() {
        let link = &mut w.net.links[l as usize];
        link.monitor = Some(mi);
        let name = link.name.clone();
        w.monitors.push(Monitors {
            link: l,
            queue: QueueMonitor::new(&name, 0),
            bytes: LinkMonitor::new(&name),
            lanes: link.has_lanes.then(LaneSojourns::default),
        });
    }
    if !exp.monitor.pcap.is_empty() {
        let dir = dir.ok_or_else(|| SimError {
            key: "monitor.pcap".into(),
            reason: "pcap files need a run directory (sim::run_in)".into(),
        })?;
        let tap =
            crate::pcap::Tap::create(dir, &exp.monitor.pcap, &w.net, &built.groups, dgram_src)?;
        w.pcap = Some(Box::new(tap));
    }
    for l in 0..w.net.links.len() {
        if let Some(d) = w.net.links[l].disc.next_deadline() {
            w.q.schedule(d, Event::Queue { link: l as u32 });
        }
    }
    let mon = &exp.monitor;
    w.q.schedule(SimTime::ZERO + mon.queue_sample, Event::QueueSample);
    w.q.schedule(SimTime::ZERO + mon.queue_interval, Event::QueueInterval);
    w.q.schedule(SimTime::ZERO + mon.link_interval, Event::LinkInterval);
    w.q.schedule(warmup, Event::WarmupEnd);
    w.start_workloads(SimTime::ZERO);

    let mut snap_stats = QueueStats::default();
    let mut snap_bytes = 0u64;
    let mut next_progress = SimTime::ZERO;
    let mut stopped_early = false;
    let progress_step = SimDuration::from_secs(1);
    while let Some((now, ev)) = w.q.pop_until(end) {
        w.prefetch_next();
        if now >= next_progress {
            progress(now, end);
            next_progress = now + progress_step;
        }
        match ev {
            Event::QueueSample => {
                for m in w.monitors.iter_mut() {
                    m.queue
                        .sample(w.net.links[m.link as usize].disc.len_packets());
                }
                w.q.schedule(now + mon.queue_sample, Event::QueueSample);
            }
            Event::QueueInterval => {
                for m in w.monitors.iter_mut() {
                    let qlen = w.net.links[m.link as usize].disc.len_packets();
                    m.queue.close_interval(now.as_nanos(), qlen, &mut w.obs);
                }
                w.q.schedule(now + mon.queue_interval, Event::QueueInterval);
            }
            Event::LinkInterval => {
                for m in w.monitors.iter_mut() {
                    m.bytes.close_interval(now.as_nanos(), &mut w.obs);
                }
                w.q.schedule(now + mon.link_interval, Event::LinkInterval);
            }
            Event::WarmupEnd => {
                for lanes in w.monitors.iter_mut().filter_map(|m| m.lanes.as_mut()) {
                    *lanes = LaneSojourns::default();
                }
                let l = &w.net.links[fwd as usize];
                snap_stats = l.disc.stats().clone();
                snap_bytes = l.tx_bytes;
            }
            ev => w.handle(now, ev),
        }
        if let Some(n) = exp.stop_after_responses {
            if w.measured_completions >= n {
                end = now;
                stopped_early = true;
                break;
            }
        }
    }
    progress(end, end);
    w.settle_all(end, stopped_early);
    w.close_all(end);
    if let Some(tap) = w.pcap.take() {
        tap.finish(end)?;
    }

    // Conservation: every packet created was delivered, dropped, or is still in a queue or on
    // a wire (an Arrive event) — and each queue's counters satisfy their identities.
    let mut in_queues = 0u64;
    let mut identity_errors = Vec::new();
    for l in &w.net.links {
        let len = l.disc.len_packets() as u64;
        in_queues += len;
        if let Err(e) = l.disc.stats().check_identities(len) {
            identity_errors.push(format!("{}: {e}", l.name));
        }
    }
    let created = w.pkts.created();
    let live = w.pkts.live();
    let events = w.q.processed();
    let on_wire =
        w.q.drain()
            .filter(|e| matches!(e, Event::Arrive { .. }))
            .count() as u64;
    if created != w.delivered + w.dropped + live {
        identity_errors.push(format!(
            "created {created} != delivered {} + dropped {} + live {live}",
            w.delivered, w.dropped
        ));
    }
    if live != in_queues + on_wire {
        identity_errors.push(format!(
            "live packets {live} != queued {in_queues} + on the wire {on_wire}"
        ));
    }
    if !identity_errors.is_empty() {
        return Err(SimError {
            key: "engine".into(),
            reason: format!("conservation violated: {}", identity_errors.join("; ")),
        });
    }

    let fl = &w.net.links[fwd as usize];
    let st = fl.disc.stats();
    let (measured_from, fwd_bytes, drops) = if end >= warmup {
        (
            warmup,
            fl.tx_bytes - snap_bytes,
            DropCounts {
                arrivals: st.arrivals - snap_stats.arrivals,
                early: st.early_drops - snap_stats.early_drops,
                forced: st.forced_drops - snap_stats.forced_drops,
                overflow: st.overflow_drops - snap_stats.overflow_drops,
                dequeue: st.dequeue_drops - snap_stats.dequeue_drops,
                marks: st.marks - snap_stats.marks,
            },
        )
    } else {
        (end, 0, DropCounts::default())
    };
    let fwd_link = fl.name.clone();
    // A dual queue's sojourns: those since the warm-up (none when the run ended before it).
    let dual_queue = w
        .monitors
        .iter()
        .find(|m| m.link == fwd)
        .and_then(|m| m.lanes.as_ref())
        .map(|l| {
            if end >= warmup {
                l.summary()
            } else {
                LaneSojourns::default().summary()
            }
        });
    let totals = SummaryTotals {
        fwd_bytes,
        bottleneck_bps,
        drops,
        measured_ns: (end - measured_from).as_nanos(),
        forced_defined: fl.disc.defines_forced_split(),
        dual_queue,
    };
    let bottleneck_queue = w.net.links[fwd as usize].disc.clone();
    let link_stats = w
        .net
        .links
        .iter()
        .map(|l| (l.name.clone(), l.disc.stats().clone(), l.tx_bytes))
        .collect();
    Ok(RunEnd {
        totals,
        warmup_ns: warmup.as_nanos(),
        fwd_link,
        datagrams: std::mem::take(&mut w.datagrams),
        link_stats,
        bottleneck_queue,
        engine: EngineStats {
            events,
            packets_created: created,
            packets_delivered: w.delivered,
            packets_dropped: w.dropped,
            packets_in_flight: live,
            connections: w.connections_opened(),
            peak_open_connections: w.peak_open,
            end_ns: end.as_nanos(),
        },
        // Last: the other fields borrow `w` as a whole.
        obs: w.obs,
    })
}
