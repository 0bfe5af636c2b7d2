//! `[[workload]]` tables → `traffic::WorkloadConfig`; at least one is required.
//!
//! - `kind = "http10"`: `arrival = "poisson"` with `rate` (connections/s, number > 0), or
//!   `arrival = "users"` with `users` (≥ 1) and `think` (duration distribution);
//!   `request_size`, `response_size` (size distributions, required); optional `clients`,
//!   `servers` (how many of the topology's hosts take part, default all).
//! - `kind = "pareto_web"`: `flows` (≥ 1, required); `shape` (1.2), `mean` ("10KB"), `min`
//!   ("1KB"), `max` ("2MB"), `off_time` ("0.5s") — the defaults are seed 003 §4 (p. 548–550);
//!   optional `clients`, `servers` as above.
//! - `kind = "bulk"`: `flows = [{ start, client, server, bytes }]`, `bytes` optional (endless);
//!   host indices are 0-based and must exist in the topology (else "no route").
//! - `kind = "mah"`: Mah's browsing users (seed 000 §3.3, tables embedded): `users` (required),
//!   `server_choice` ("uniform" | "zipf", with `zipf_exponent`, default 1), `max_parallel` (2),
//!   `think_cap` ("600s"), `primary_replies` ("first_of_page" | "first_two_of_page" |
//!   "first_two_of_run"; default "first_of_page"), `think_on_server_change` (true);
//!   optional `clients`, `servers` as above.
//! - `kind = "packmime"`: PackMime-HTTP (ns-2.35, model inter-arrivals, sizes and server delays
//!   embedded): `rate` (new connections per second, number > 0, required); `http` ("1.0" |
//!   "1.1", default "1.0": HTTP/1.1 persistent connections of MODEL.md §3.5–3.7); optional
//!   `clients`, `servers` as above (connection n uses client n mod clients, server n mod
//!   servers).
//!
//! - `kind = "replay"`: HTTP/1.0 connections replayed from a CSV trace (`traffic`'s
//!   `workload/replay.rs` gives the columns): `file` (required, relative to the scenario's
//!   directory); optional `clients`, `servers` as for packmime. When the file has the
//!   `client_rtt_s`/`server_rtt_s` columns, they are the connection's DelayBoxes and the
//!   workload may not also have `delaybox`.
//!
//! - `kind = "cbr"`: constant-bit-rate datagrams (ns-2 CBR over UDP, unresponsive): `rate`
//!   (required), `packet_size` (whole packet on the wire, default "210B" = ns-2's default),
//!   `start` ("0s"), `stop` (optional), `client`, `server` (host indices, default 0). Packets
//!   go from the server host to the client host.
//! - `kind = "onoff"`: Pareto ON/OFF datagrams (ns-2 `Application/Traffic/Pareto`): as `cbr`
//!   (`rate` is the rate during ON) plus `on_time`, `off_time` (mean ON/OFF durations,
//!   required) and `shape` (1.5, ns-2's default).
//! - Placement, any kind: `direction = "forward"` (default: clients in the dumbbell's client
//!   cloud, servers in its server cloud) or `"reverse"` (swapped, so responses cross the
//!   reverse bottleneck); or `client_cloud`, `server_cloud` naming host groups (the dumbbell's
//!   are `clients` and `servers`; the parking lot's are its `[topology.clouds.NAME]`, and there
//!   both are required). `clients`/`servers`/`client`/`server` then count within those clouds.
//! - DelayBoxes, any kind (seed 002 §III-B): `delaybox = { client = RTT, server = RTT }`, each
//!   optional: a base RTT drawn per connection at the router of its client host and at the
//!   router of its server host, applied half in each direction (`experiment::WorkloadDelayBox`). RTT
//!   is a duration distribution table (`dist.rs`), or `"packmime"` (kind `packmime` only:
//!   PackMime's `PackMimeHTTPXmit`, client table for `client`, server table for `server`, at
//!   the workload's rate), or `{ dist = "packmime", rate = R }` (the same at rate R, any kind).
//!
//! Validation: `tests/bad_files.rs` (`no_workload`, `bulk_server_out_of_range`, `unknown_dist`,
//! `lognormal_sigma_*`, `empirical_file_missing`, `mah_*`, `packmime_*`).

use crate::dist::{parse_dist, Quantity};
use crate::error::{KeyError, Res};
use crate::value::{as_str, as_table, kind, Tbl};
use experiment::{BoxRtt, HostPlacement, WorkloadDelayBox};
use std::path::Path;
use toml::Value;
use traffic::packmime::RttSide;
use traffic::{Arrival, BulkFlow, WorkloadConfig};
use units::SimTime;

/// Host counts of the topology the workloads run on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hosts {
    pub clients: u32,
    pub servers: u32,
}

/// The topology's host groups (name, host count); `dumbbell` = the groups are the dumbbell's
/// `clients` and `servers` (so `direction` applies).
pub(crate) struct Groups {
    pub groups: Vec<(String, u32)>,
    pub dumbbell: bool,
}

const PLACEMENT_KEYS: &[&str] = &[
    "direction",
    "client_cloud",
    "server_cloud",
    "delaybox",
    "tcp",
];

/// Read `delaybox` of workload table `t` (see the module doc).
fn parse_delaybox(t: &Tbl, base_dir: &Path) -> Res<WorkloadDelayBox> {
    let Some(d) = t.table("delaybox")? else {
        return Ok(WorkloadDelayBox::default());
    };
    d.allow(&["client", "server"])?;
    let own_rate = match t.get("kind").and_then(Value::as_str) {
        Some("packmime") => t.num("rate")?,
        _ => None,
    };
    let side = |k: &str, side: RttSide| -> Res<Option<BoxRtt>> {
        let Some(v) = d.get(k) else { return Ok(None) };
        let key = d.key(k);
        if let Some(s) = v.as_str() {
            if s != "packmime" {
                return Err(KeyError::new(
                    key,
                    format!("expected \"packmime\" or a distribution table, got {s:?}"),
                ));
            }
            let rate = own_rate.ok_or_else(|| {
                KeyError::new(
                    key.clone(),
                    "\"packmime\" takes the rate of a packmime workload; on this workload give { dist = \"packmime\", rate = R }",
                )
            })?;
            return Ok(Some(BoxRtt::PackMime { side, rate }));
        }
        let vt = as_table(v, &key)?;
        if vt.get("dist").and_then(Value::as_str) == Some("packmime") {
            vt.allow(&["dist", "rate"])?;
            let rate = vt.req_num("rate")?;
            if !(rate > 0.0 && rate.is_finite()) {
                return Err(vt.err("rate", format!("must be a number > 0, got {rate}")));
            }
            return Ok(Some(BoxRtt::PackMime { side, rate }));
        }
        Ok(Some(BoxRtt::Dist(parse_dist(
            v,
            &key,
            Quantity::Rtt,
            base_dir,
        )?)))
    };
    Ok(WorkloadDelayBox {
        client: side("client", RttSide::Client)?,
        server: side("server", RttSide::Server)?,
    })
}

/// Read the placement keys of workload table `t`: the placement and the host counts it gives.
fn parse_placement(t: &Tbl, g: &Groups) -> Res<(HostPlacement, Hosts)> {
    let count = |key: &str, name: &str| -> Res<u32> {
        g.groups
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                let names: Vec<&str> = g.groups.iter().map(|(n, _)| n.as_str()).collect();
                t.err(
                    key,
                    format!("no cloud {name:?}; the topology has: {}", names.join(", ")),
                )
            })
    };
    let cloud =
        |key: &str| -> Res<Option<&str>> { t.get(key).map(|v| as_str(v, &t.key(key))).transpose() };
    let (cc, sc) = (cloud("client_cloud")?, cloud("server_cloud")?);
    let direction = match t.get("direction") {
        None => None,
        Some(_) => Some(kind(t, "direction", &["forward", "reverse"])?),
    };
    match (cc, sc, direction) {
        (Some(c), Some(s), None) => Ok((
            HostPlacement::Groups {
                clients: c.to_string(),
                servers: s.to_string(),
            },
            Hosts {
                clients: count("client_cloud", c)?,
                servers: count("server_cloud", s)?,
            },
        )),
        (Some(_), Some(_), Some(_)) => Err(t.err(
            "direction",
            "conflicts with client_cloud/server_cloud; give one or the other",
        )),
        (Some(_), None, _) => {
            Err(t.err("server_cloud", "missing: client_cloud needs server_cloud"))
        }
        (None, Some(_), _) => {
            Err(t.err("client_cloud", "missing: server_cloud needs client_cloud"))
        }
        (None, None, _) if !g.dumbbell => Err(t.err(
            "client_cloud",
            "missing: on this topology a workload must name client_cloud and server_cloud",
        )),
        (None, None, d) => {
            let (c, s) = (count("kind", "clients")?, count("kind", "servers")?);
            if d == Some("reverse") {
                Ok((
                    HostPlacement::Reverse,
                    Hosts {
                        clients: s,
                        servers: c,
                    },
                ))
            } else {
                Ok((
                    HostPlacement::Default,
                    Hosts {
                        clients: c,
                        servers: s,
                    },
                ))
            }
        }
    }
}

/// One parsed `[[workload]]`: the model, where its hosts are, its DelayBoxes.
pub(crate) type ParsedWorkload = (WorkloadConfig, HostPlacement, WorkloadDelayBox);

/// Parse every `[[workload]]` of the document root, with each one's placement and DelayBoxes.
pub(crate) fn parse(root: &Tbl, groups: &Groups, base_dir: &Path) -> Res<Vec<ParsedWorkload>> {
    let none = || {
        KeyError::new(
            "workload",
            "no workload: at least one [[workload]] table is required",
        )
    };
    let list = root.array("workload")?.ok_or_else(none)?;
    if list.is_empty() {
        return Err(none());
    }
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let t = as_table(v, &root.elem("workload", i))?;
            let (placement, hosts) = parse_placement(&t, groups)?;
            let boxes = parse_delaybox(&t, base_dir)?;
            // The model parsers see the table without the placement keys.
            let mut rest = t.t.clone();
            for k in PLACEMENT_KEYS {
                rest.remove(*k);
            }
            let rest = Tbl {
                path: t.path.clone(),
                t: &rest,
            };
            let cfg = parse_one(&rest, hosts, base_dir)?;
            if let WorkloadConfig::Replay { conns, .. } = &cfg {
                let own = conns.first().is_some_and(|c| c.box_rtt.is_some());
                if own && (boxes.client.is_some() || boxes.server.is_some()) {
                    return Err(t.err(
                        "delaybox",
                        "the trace file has client_rtt_s/server_rtt_s columns, which are this \
                         workload's DelayBoxes; remove delaybox or those columns",
                    ));
                }
            }
            Ok((cfg, placement, boxes))
        })
        .collect()
}

fn parse_one(t: &Tbl, hosts: Hosts, base_dir: &Path) -> Res<WorkloadConfig> {
    let mut kinds: Vec<&str> = crate::workload_keys::KINDS.iter().map(|k| k.kind).collect();
    kinds.extend(traffic::workload::params::models().iter().map(|m| m.kind()));
    match kind(t, "kind", &kinds)? {
        "replay" => parse_replay(t, hosts, base_dir),
        "http10" => parse_http10(t, hosts, base_dir),
        "bulk" => parse_bulk(t, hosts),
        k => {
            let m = traffic::workload::params::model(k).expect("a listed kind is declared");
            crate::declared::parse(t, m, &["kind"])?
                .place(hosts.clients, hosts.servers)
                .map_err(|e| t.err(&e.key, e.reason))
        }
    }
}

/// Optional `clients`/`servers` subset sizes, bounded by the topology.
fn host_subset(t: &Tbl, hosts: Hosts) -> Res<(u32, u32)> {
    let mut out = (hosts.clients, hosts.servers);
    for (k, have, slot) in [
        ("clients", hosts.clients, &mut out.0),
        ("servers", hosts.servers, &mut out.1),
    ] {
        if let Some(n) = t.u32(k, 1)? {
            if n > have {
                return Err(t.err(
                    k,
                    format!("no route: {n} {k} requested but the topology has {have}"),
                ));
            }
            *slot = n;
        }
    }
    Ok(out)
}

fn parse_http10(t: &Tbl, hosts: Hosts, base_dir: &Path) -> Res<WorkloadConfig> {
    let arrival_kind = kind(t, "arrival", &["poisson", "users"])?;
    t.allow(&crate::workload_keys::allowed(
        &crate::workload_keys::HTTP10,
        Some(arrival_kind),
    ))?;
    let arrival = if arrival_kind == "poisson" {
        let rate = t.req_num("rate")?;
        if rate <= 0.0 {
            return Err(t.err(
                "rate",
                format!("must be greater than 0 connections per second, got {rate}"),
            ));
        }
        Arrival::Poisson { rate }
    } else {
        let users = t.req_u32("users", 1)?;
        let think_s = parse_dist(
            t.req("think")?,
            &t.key("think"),
            Quantity::Seconds,
            base_dir,
        )?;
        Arrival::Users { users, think_s }
    };
    let request_bytes = parse_dist(
        t.req("request_size")?,
        &t.key("request_size"),
        Quantity::Bytes,
        base_dir,
    )?;
    let response_bytes = parse_dist(
        t.req("response_size")?,
        &t.key("response_size"),
        Quantity::Bytes,
        base_dir,
    )?;
    let (clients, servers) = host_subset(t, hosts)?;
    Ok(WorkloadConfig::Http10 {
        arrival,
        request_bytes,
        response_bytes,
        clients,
        servers,
    })
}

/// `kind = "replay"`: a connection trace (`traffic::parse_replay_csv`), read now.
fn parse_replay(t: &Tbl, hosts: Hosts, base_dir: &Path) -> Res<WorkloadConfig> {
    t.allow(&crate::workload_keys::allowed(
        &crate::workload_keys::REPLAY,
        None,
    ))?;
    let file = as_str(t.req("file")?, &t.key("file"))?;
    let path = base_dir.join(file);
    let text = crate::read::read_text(&path).map_err(|e| {
        t.err(
            "file",
            format!("cannot read the trace {}: {e}", path.display()),
        )
    })?;
    let conns = traffic::parse_replay_csv(&text)
        .map_err(|e| t.err("file", format!("{}: {e}", path.display())))?;
    let (clients, servers) = host_subset(t, hosts)?;
    Ok(WorkloadConfig::Replay {
        conns,
        clients,
        servers,
    })
}

fn parse_bulk(t: &Tbl, hosts: Hosts) -> Res<WorkloadConfig> {
    t.allow(&crate::workload_keys::allowed(
        &crate::workload_keys::BULK,
        None,
    ))?;
    let list: &[Value] = match t.req("flows")? {
        Value::Array(a) => a,
        v => {
            return Err(t.err(
                "flows",
                format!(
                    "expected an array of flow tables {{ start, client, server, bytes }}, found {}",
                    crate::value::describe(v)
                ),
            ))
        }
    };
    if list.is_empty() {
        return Err(t.err("flows", "at least one flow is required"));
    }
    let mut flows = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let f = as_table(v, &t.elem("flows", i))?;
        f.allow(&crate::workload_keys::element_keys(
            &crate::workload_keys::BULK,
        ))?;
        let start = SimTime(f.req_duration("start")?.0);
        let client = f.req_u32("client", 0)?;
        let server = f.req_u32("server", 0)?;
        for (k, idx, have) in [
            ("client", client, hosts.clients),
            ("server", server, hosts.servers),
        ] {
            if idx >= have {
                return Err(f.err(
                    k,
                    format!("no route: {k} {idx} does not exist; the topology has {have} {k}s (indices 0..={})", have - 1),
                ));
            }
        }
        let bytes = match f.size("bytes")? {
            Some(0) => {
                return Err(f.err(
                    "bytes",
                    "must be at least 1 byte (omit it for an endless flow)",
                ))
            }
            b => b,
        };
        flows.push(BulkFlow {
            start,
            client,
            server,
            bytes,
        });
    }
    Ok(WorkloadConfig::Bulk { flows })
}
