//! Run-size limits and the run-time estimate: a scenario whose run would exhaust memory or
//! take practically forever is refused before it starts, with an estimate and the bound, at the
//! key that causes it; a run that is allowed gets a wall-time estimate ([`estimate`]) that
//! `aqmlab run` prints when it exceeds a minute.
//!
//! - Memory ([`MEMORY_BOUND_BYTES`], 8 GB), estimated from what the engine allocates per item:
//!   the route table (4 B per pair of nodes, `sim::Network`: `route[node * nodes + dst]`) plus
//!   [`HOST_BYTES`] per node; per user or flow of `http10` users / `pareto_web` / `mah`, its
//!   state ([`USER_STATE_BYTES`], [`MAH_USER_STATE_BYTES`]) and one request record
//!   ([`RECORD_BYTES`]); per connection of an arrival-rate workload (`http10` poisson,
//!   `packmime`), one request record.
//! - Events ([`MAX_EVENTS`], 1e11, about 3.5 hours at the engine's [`EVENTS_PER_S`]): at least
//!   [`EVENTS_PER_CONNECTION`] per connection of an arrival-rate workload (rate × (warmup +
//!   duration)), [`EVENTS_PER_DATAGRAM`] per datagram of `cbr` / `onoff` (rate / packet size ×
//!   active time; `onoff` × on / (on + off)), and one per monitor sample or interval
//!   (`[monitor] queue_sample`, `queue_interval`, `link_interval`: (warmup + duration) /
//!   period each; `queue_sample = "1ns"` over the quickstart's 660 s is 6.6e11).
//! - Set-up: the route table is filled entry by entry before the first event
//!   ([`SETUP_S_PER_ROUTE`] each): 40,000 clients + 4,000 servers take about 90 s.
//!
//! Every per-item figure is a lower bound of the real cost, so a refused run really is beyond
//! the bound and an estimate is "at least"; `stop_after_responses` is not counted (a run may
//! end before its duration).
//!
//! The engine's cost model (its figures are the engine's, measured), but a pure function of the
//! experiment description, so it lives beside the description: the scenario crate calls it
//! while it parses and reports a refusal at the scenario key that causes it
//! ([`BudgetError::key`]) without depending on the engine; `sim::budget` re-exports it.
//!
//! Validation: tests below and `crates/scenario/tests/out_of_range.rs` (`budget_*`).

use crate::{Experiment, Topology};
use traffic::{Arrival, WorkloadConfig};

/// A refused run: the key (relative to the scenario's root, as the caller named it) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BudgetError {
    pub key: String,
    pub reason: String,
}

type Res<T> = Result<T, BudgetError>;

fn refuse(key: impl Into<String>, reason: String) -> BudgetError {
    BudgetError {
        key: key.into(),
        reason,
    }
}

/// Largest estimated memory of a run, bytes: 8 GB (half the 16 GB of a common workstation;
/// the output tables in Python take several times the engine's records on top).
pub const MEMORY_BOUND_BYTES: f64 = 8e9;
/// Largest estimated number of events of a run: 1e11 (about 3.5 hours at [`EVENTS_PER_S`]).
pub const MAX_EVENTS: f64 = 1e11;
/// Events the engine handles per wall-clock second, for estimates: 8 M (README "Benchmark",
/// the quickstart; a lower figure than the fastest rounds, so estimates stay on the short side
/// of the truth only by the event counts' own lower bounds).
pub const EVENTS_PER_S: f64 = 8e6;
/// Wall-clock seconds per route-table entry at set-up (`Network::compute_routes`, one entry
/// per pair of nodes): 90 s for the 44,002² entries of 40,000 clients + 4,000 servers (issue
/// 30), ≈ 46 ns each: one write per entry, a cache miss each at that size.
pub const SETUP_S_PER_ROUTE: f64 = 90.0 / (44_002.0 * 44_002.0);
/// Bytes of one request record kept for the output tables (README "Benchmark": ≈ 180 B).
pub const RECORD_BYTES: f64 = 180.0;
/// Bytes per node besides its routes: its access links both ways (name, discipline, counters).
pub const HOST_BYTES: f64 = 1000.0;
/// Bytes of the state of one `http10` user or `pareto_web` flow: a timer-heap entry (16 B)
/// and an outstanding flag (`traffic::workload::users`, `pareto_web`).
pub const USER_STATE_BYTES: f64 = 17.0;
/// Bytes of the state of one Mah user: its record (32 B) and a timer-heap entry (16 B)
/// (`traffic::workload::mah`).
pub const MAH_USER_STATE_BYTES: f64 = 48.0;
/// Events of one connection at least: five packets (SYN, SYN-ACK, request, response, FIN),
/// each at least one end of transmission and one arrival.
pub const EVENTS_PER_CONNECTION: f64 = 10.0;
/// Events of one datagram at least: its end of transmission and its arrival.
pub const EVENTS_PER_DATAGRAM: f64 = 2.0;

/// A count for a message: plain below a million, else scientific (`6.6e32`).
fn count(x: f64) -> String {
    if x < 1e6 {
        format!("{}", x.round())
    } else {
        format!("{x:.2e}").replace(".00e", "e").replace("0e", "e")
    }
}

fn gb(bytes: f64) -> String {
    if bytes >= 1e12 {
        format!("{:.2e} GB", bytes / 1e9)
    } else {
        format!("{:.1} GB", bytes / 1e9)
    }
}

/// Refuse a topology of `nodes` nodes whose route table and links would exceed the memory
/// bound; `what` says which count it is (`"4000000002 nodes (clients + servers + 2 routers)"`).
pub fn check_nodes(nodes: u64, what: &str, key: &str) -> Res<()> {
    let n = nodes as f64;
    let bytes = 4.0 * n * n + HOST_BYTES * n;
    if bytes <= MEMORY_BOUND_BYTES {
        return Ok(());
    }
    // Largest n with 4 n² + HOST_BYTES n ≤ bound.
    let max_n = ((HOST_BYTES * HOST_BYTES + 16.0 * MEMORY_BOUND_BYTES).sqrt() - HOST_BYTES) / 8.0;
    Err(refuse(
        key,
        format!(
            "too many hosts: {what} need about {} of memory for routes (4 B per pair of nodes) \
             and links; aqmlab refuses more than {} (at most {} nodes)",
            gb(bytes),
            gb(MEMORY_BOUND_BYTES),
            max_n.floor()
        ),
    ))
}

/// One workload's estimated cost.
struct Cost {
    /// Key that sets it (e.g. `workload[0].rate`).
    key: String,
    events: f64,
    bytes: f64,
    /// What the estimate counts, for the message.
    what: String,
}

fn cost(w: &WorkloadConfig, key: &str, run_s: f64, end_ns: u64) -> Option<Cost> {
    let rate_cost = |rate: f64, unit: &str| {
        let conns = rate * run_s;
        Cost {
            key: format!("{key}.rate"),
            events: conns * EVENTS_PER_CONNECTION,
            bytes: conns * RECORD_BYTES,
            what: format!(
                "{} {unit} over {} s (warmup + duration) is about {} connections",
                count(rate),
                count(run_s),
                count(conns)
            ),
        }
    };
    let users_cost = |users: u32, state: f64, k: &str| {
        let per = state + RECORD_BYTES;
        Cost {
            key: format!("{key}.{k}"),
            events: 0.0,
            bytes: users as f64 * per,
            what: format!("{users} {k} at ≈ {per} B each (state and one request record)"),
        }
    };
    let datagram_cost = |f: &traffic::DatagramFlow, on_share: f64| {
        let stop = f.stop.map_or(end_ns, |s| s.0.min(end_ns));
        let active_s = stop.saturating_sub(f.start.0) as f64 * 1e-9 * on_share;
        let packets = f.rate_bps as f64 / (8.0 * f.packet_bytes as f64) * active_s;
        Cost {
            key: format!("{key}.rate"),
            events: packets * EVENTS_PER_DATAGRAM,
            bytes: 0.0,
            what: format!(
                "{} bps in {} B packets for {} s is about {} datagrams",
                count(f.rate_bps as f64),
                f.packet_bytes,
                count(active_s),
                count(packets)
            ),
        }
    };
    match w {
        WorkloadConfig::Http10 {
            arrival: Arrival::Poisson { rate },
            ..
        } => Some(rate_cost(*rate, "connections/s")),
        WorkloadConfig::Http10 {
            arrival: Arrival::Users { users, .. },
            ..
        } => Some(users_cost(*users, USER_STATE_BYTES, "users")),
        WorkloadConfig::PackMime { rate, .. } => Some(rate_cost(*rate, "connections/s")),
        WorkloadConfig::ParetoWeb { flows, .. } => {
            Some(users_cost(*flows, USER_STATE_BYTES, "flows"))
        }
        WorkloadConfig::Mah(m) => Some(users_cost(m.users, MAH_USER_STATE_BYTES, "users")),
        WorkloadConfig::Cbr(f) => Some(datagram_cost(f, 1.0)),
        WorkloadConfig::OnOff {
            flow,
            on_mean,
            off_mean,
            ..
        } => {
            let (on, off) = (on_mean.0 as f64, off_mean.0 as f64);
            Some(datagram_cost(flow, on / (on + off)))
        }
        WorkloadConfig::Bulk { .. } | WorkloadConfig::Replay { .. } => None,
    }
}

/// The monitor's events: one per queue sample, queue interval and link interval over the run.
fn monitor_costs(exp: &Experiment, run_s: f64) -> Vec<Cost> {
    let m = &exp.monitor;
    [
        ("queue_sample", m.queue_sample, "queue sample", "samples"),
        (
            "queue_interval",
            m.queue_interval,
            "queue interval",
            "intervals",
        ),
        (
            "link_interval",
            m.link_interval,
            "link interval",
            "intervals",
        ),
    ]
    .into_iter()
    .map(|(key, period, what, unit)| {
        let period_s = period.as_secs_f64().max(1e-9);
        let n = run_s / period_s;
        Cost {
            key: format!("monitor.{key}"),
            events: n,
            bytes: 0.0,
            what: format!(
                "a {what} every {} for {} s (warmup + duration) is {} {unit}",
                period_text(period.as_nanos()),
                count(run_s),
                count(n)
            ),
        }
    })
    .collect()
}

/// Every estimated cost of `exp`: its workloads' (`workload_key(i)` names workload i) and its
/// monitor's.
fn costs(exp: &Experiment, workload_key: &dyn Fn(usize) -> String) -> Vec<Cost> {
    let run = exp.warmup + exp.duration;
    let mut costs: Vec<Cost> = exp
        .workloads
        .iter()
        .enumerate()
        .filter_map(|(i, w)| cost(w, &workload_key(i), run.as_secs_f64(), run.0))
        .collect();
    costs.extend(monitor_costs(exp, run.as_secs_f64()));
    costs
}

/// Refuse `exp` if its workloads' and monitor's estimated events or memory exceed the bounds;
/// the error is at the key that contributes most (`workload_key(i)` names workload i).
pub fn check_run(exp: &Experiment, workload_key: &dyn Fn(usize) -> String) -> Res<()> {
    let costs = costs(exp, workload_key);
    // The cost that contributes most to `f`, the total, and the total for the message when the
    // others add more than 1 % to it.
    let largest = |f: fn(&Cost) -> f64, show: fn(f64) -> String| {
        let c = costs.iter().max_by(|a, b| f(a).total_cmp(&f(b)))?;
        let total = costs.iter().map(f).sum::<f64>();
        let note = match total > 1.01 * f(c) {
            true => format!(" ({} for the whole run)", show(total)),
            false => String::new(),
        };
        Some((c, total, note))
    };
    if let Some((c, total, note)) = largest(|c| c.events, count) {
        if total > MAX_EVENTS {
            return Err(refuse(
                c.key.clone(),
                format!(
                    "too large a run: {}, at least {} events{note}, about {} at {} events/s; \
                     aqmlab refuses runs above {} events ({})",
                    c.what,
                    count(c.events),
                    duration_text(total / EVENTS_PER_S),
                    count(EVENTS_PER_S),
                    count(MAX_EVENTS),
                    duration_text(MAX_EVENTS / EVENTS_PER_S),
                ),
            ));
        }
    }
    if let Some((c, total, note)) = largest(|c| c.bytes, gb) {
        if total > MEMORY_BOUND_BYTES {
            return Err(refuse(
                c.key.clone(),
                format!(
                    "too large a run: {}, needing about {} of memory{note}; aqmlab refuses more \
                     than {}",
                    c.what,
                    gb(c.bytes),
                    gb(MEMORY_BOUND_BYTES)
                ),
            ));
        }
    }
    Ok(())
}

/// A period in nanoseconds as a scenario writes it, in the largest unit that keeps it whole
/// (`1ns`, `3ms`, `1s`).
fn period_text(ns: u64) -> String {
    match ns {
        0 => "0s".into(),
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}

/// A wall-clock time for a message: seconds, minutes, hours, days or years, 2 significant
/// digits (`40 s`, `1.5 min`, `3.5 h`, `2.1e5 years`).
pub fn duration_text(s: f64) -> String {
    let (v, unit) = match s {
        s if s < 60.0 => (s, "s"),
        s if s < 3600.0 => (s / 60.0, "min"),
        s if s < 86_400.0 => (s / 3600.0, "h"),
        s if s < 3.15576e7 => (s / 86_400.0, "days"),
        s => (s / 3.15576e7, "years"),
    };
    if v >= 1e4 {
        format!("{} {unit}", format!("{v:.1e}").replace(".0e", "e"))
    } else if v >= 10.0 {
        format!("{v:.0} {unit}")
    } else {
        format!("{v:.1} {unit}")
    }
}

/// Nodes of the topology of `exp` (hosts and routers: `sim::topology`).
pub fn nodes(exp: &Experiment) -> u64 {
    match &exp.topology {
        Topology::Dumbbell(d) => d.clients as u64 + d.servers as u64 + 2,
        Topology::ParkingLot(p) => {
            p.routers as u64 + p.clouds.iter().map(|c| c.hosts as u64).sum::<u64>()
        }
    }
}

/// What a run will cost at least (see the module doc): its events and set-up, in wall-clock
/// seconds at [`EVENTS_PER_S`] and [`SETUP_S_PER_ROUTE`].
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Events at least (workloads and monitor).
    pub events: f64,
    /// Seconds to set up (route table) before the first event.
    pub setup_s: f64,
    /// Seconds in all: set-up plus events at [`EVENTS_PER_S`].
    pub seconds: f64,
    /// Nodes of the topology.
    pub nodes: u64,
}

/// The estimate of `exp` (a lower bound: see the module doc).
pub fn estimate(exp: &Experiment) -> Estimate {
    let events: f64 = costs(exp, &|i| format!("workload[{i}]"))
        .iter()
        .map(|c| c.events)
        .sum();
    let n = nodes(exp);
    let setup_s = (n as f64) * (n as f64) * SETUP_S_PER_ROUTE;
    Estimate {
        events,
        setup_s,
        seconds: setup_s + events / EVENTS_PER_S,
        nodes: n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes_for_messages() {
        assert_eq!(count(660.0), "660");
        assert_eq!(count(6.6e32), "6.6e32");
        assert_eq!(count(1e11), "1e11");
        assert_eq!(count(1.23e7), "1.23e7");
        assert_eq!(gb(8e9), "8.0 GB");
        assert_eq!(gb(7.2e20), "7.20e11 GB");
    }

    #[test]
    fn durations_for_messages() {
        assert_eq!(duration_text(40.0), "40 s");
        assert_eq!(duration_text(90.0), "1.5 min");
        assert_eq!(duration_text(12_500.0), "3.5 h");
        assert_eq!(duration_text(3.0 * 86_400.0), "3.0 days");
        assert_eq!(duration_text(2.1e5 * 3.15576e7), "2.1e5 years");
        assert_eq!(period_text(1), "1ns");
        assert_eq!(period_text(3_000_000), "3ms");
        assert_eq!(period_text(1_500), "1500ns");
        assert_eq!(period_text(2_000_000_000), "2s");
    }

    #[test]
    fn node_bound_sits_where_the_estimate_crosses_8_gb() {
        // 4 n² + 1000 n = 8e9 at n ≈ 44596.5.
        assert!(check_nodes(44_596, "n", "k").is_ok());
        let e = check_nodes(44_597, "44597 nodes", "topology.clients").unwrap_err();
        assert_eq!(e.key, "topology.clients");
        assert_eq!(
            e.reason,
            "too many hosts: 44597 nodes need about 8.0 GB of memory for routes (4 B per pair \
             of nodes) and links; aqmlab refuses more than 8.0 GB (at most 44596 nodes)"
        );
    }
}
