//! Run-size limits: a scenario whose run would exhaust memory or take practically forever is
//! refused before it starts, with an estimate and the bound, at the key that causes it.
//!
//! - Memory ([`MEMORY_BOUND_BYTES`], 8 GB), estimated from what the engine allocates per item:
//!   the route table (4 B per pair of nodes, `sim::Network`: `route[node * nodes + dst]`) plus
//!   [`HOST_BYTES`] per node; per user or flow of `http10` users / `pareto_web` / `mah`, its
//!   state ([`USER_STATE_BYTES`], [`MAH_USER_STATE_BYTES`]) and one request record
//!   ([`RECORD_BYTES`]); per connection of an arrival-rate workload (`http10` poisson,
//!   `packmime`), one request record.
//! - Events ([`MAX_EVENTS`], 1e11, about 3.5 hours at the engine's 8 M events/s of the README
//!   benchmark): at least [`EVENTS_PER_CONNECTION`] per connection of an arrival-rate workload
//!   (rate × (warmup + duration)), and [`EVENTS_PER_DATAGRAM`] per datagram of `cbr` / `onoff`
//!   (rate / packet size × active time; `onoff` × on / (on + off)).
//!
//! Every per-item figure is a lower bound of the real cost, so a refused run really is beyond
//! the bound; `stop_after_responses` is not counted (a run may end before its duration).
//!
//! The engine's own cost model, so it lives with the engine; the scenario crate calls it while
//! it parses and reports a refusal at the scenario key that causes it ([`BudgetError::key`]).
//!
//! Validation: tests below and `crates/scenario/tests/bad_files.rs` (`budget_*`).

use crate::Experiment;
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
/// Largest estimated number of events of a run: 1e11.
pub const MAX_EVENTS: f64 = 1e11;
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

/// Refuse `exp` if its workloads' estimated events or memory exceed the bounds; the error is
/// at the key of the workload that contributes most (`workload_key(i)` names workload i).
pub fn check_workloads(exp: &Experiment, workload_key: &dyn Fn(usize) -> String) -> Res<()> {
    let run = exp.warmup + exp.duration;
    let costs: Vec<Cost> = exp
        .workloads
        .iter()
        .enumerate()
        .filter_map(|(i, w)| cost(w, &workload_key(i), run.as_secs_f64(), run.0))
        .collect();
    let largest = |f: fn(&Cost) -> f64| {
        costs
            .iter()
            .max_by(|a, b| f(a).total_cmp(&f(b)))
            .map(|c| (c, costs.iter().map(f).sum::<f64>()))
    };
    if let Some((c, total)) = largest(|c| c.events) {
        if total > MAX_EVENTS {
            return Err(refuse(
                c.key.clone(),
                format!(
                    "too large a run: {}, at least {} events{}; aqmlab refuses runs above {} \
                     events (about 3.5 hours at 8 M events/s)",
                    c.what,
                    count(c.events),
                    if costs.len() > 1 {
                        format!(" ({} for all workloads)", count(total))
                    } else {
                        String::new()
                    },
                    count(MAX_EVENTS)
                ),
            ));
        }
    }
    if let Some((c, total)) = largest(|c| c.bytes) {
        if total > MEMORY_BOUND_BYTES {
            return Err(refuse(
                c.key.clone(),
                format!(
                    "too large a run: {}, needing about {} of memory{}; aqmlab refuses more than {}",
                    c.what,
                    gb(c.bytes),
                    if costs.len() > 1 {
                        format!(" ({} for all workloads)", gb(total))
                    } else {
                        String::new()
                    },
                    gb(MEMORY_BOUND_BYTES)
                ),
            ));
        }
    }
    Ok(())
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
