//! `[topology]` (plus the top-level `[queue]` and `[reverse_queue]`) → `experiment::DumbbellConfig`.
//!
//! The plain keys of each table are declared in `experiment::topology_params` (`aqmlab params
//! dumbbell`, `parking_lot`, `cloud`); this file builds the queues, the DelayBox and the host
//! groups around them. Dumbbell: `access_queue` (default droptail, 1000 packets),
//! `[topology.delaybox]` with exactly one of `rtt` (a duration
//! distribution, see `dist.rs`), `matrix` (clients × servers duration strings) or `matrix_file`
//! (CSV, milliseconds as plain numbers, clients rows × servers columns, `#` comments and blank
//! lines ignored, relative to the scenario's directory). Every delay and RTT is at most
//! `units::limits::MAX_DELAY` (1e6 s).
//!
//! `[queue]` (required) is the forward bottleneck (server side → client side);
//! `[reverse_queue]` defaults to the same parameters. Every queue is validated by
//! `DisciplineParams::build` against the link it feeds.
//!
//! `server_access_rate` (optional) gives the server hosts' access links their own rate (seed
//! 003 §4.7: 35 Mbps client side, 30 Mbps server side). Host groups for workload placement:
//! `clients`, `servers`.
//!
//! `kind = "parking_lot"` (seed 002 §III-A, `experiment::ParkingLotConfig`): `access_queue` (as
//! above), `bottleneck` (the router link the summary reports, default `"r1_r2"`, the first
//! congested link of seed 002), `[topology.clouds.NAME]` tables. Queues: `[queue]` on every forward
//! link `r{i}_r{i+1}`, `[reverse_queue]` (default `[queue]`) on every reverse link
//! `r{i+1}_r{i}`, and `[topology.link_queue]` with a queue table per link name to override
//! single links (DT-AQM mixes).
//!
//! Validation: `tests/bad_files.rs` (`missing_bottleneck_rate`, `rate_*`, `delaybox_matrix_*`,
//! `parking_lot_*`).

use crate::declared;
use crate::dist::{parse_dist, Quantity};
use crate::error::{index, KeyError, Res};
use crate::queue;
use crate::value::{as_array, as_delay, as_str, as_table, kind, Tbl, DELAY_TOO_LARGE};
use crate::workload::Groups;
use aqm::{DisciplineParams, DropTailParams, LimitUnit, LinkInfo};
use experiment::topology_params as params;
use experiment::{CloudConfig, DelayBoxConfig, DumbbellConfig, ParkingLotConfig, Topology};
use std::path::Path;
use units::limits::MAX_DELAY;
use units::{Rate, SimDuration};

/// `experiment::budget::check_nodes` with its refusal as a scenario error.
fn check_nodes(nodes: u64, what: &str, key: &str) -> Res<()> {
    experiment::budget::check_nodes(nodes, what, key).map_err(|e| KeyError::new(e.key, e.reason))
}

/// Parse `[topology]`: the topology and its host groups (name, hosts).
pub(crate) fn parse(root: &Tbl, base_dir: &Path) -> Res<(Topology, Groups)> {
    let t = root.req_table("topology")?;
    if kind(&t, "kind", &["dumbbell", "parking_lot"])? == "parking_lot" {
        let pl = parse_parking_lot(root, &t)?;
        let groups = pl
            .clouds
            .iter()
            .map(|c| (c.name.clone(), c.hosts))
            .collect();
        return Ok((
            Topology::ParkingLot(pl),
            Groups {
                groups,
                dumbbell: false,
            },
        ));
    }
    let db = parse_dumbbell(root, base_dir)?;
    let groups = vec![
        ("clients".to_string(), db.clients),
        ("servers".to_string(), db.servers),
    ];
    Ok((
        Topology::Dumbbell(db),
        Groups {
            groups,
            dumbbell: true,
        },
    ))
}

fn parse_parking_lot(root: &Tbl, t: &Tbl) -> Res<ParkingLotConfig> {
    let extra = ["kind", "access_queue", "bottleneck", "clouds", "link_queue"];
    let p = declared::parse(t, &params::PARKING_LOT, &extra)?;
    let routers = p.routers;
    // Before the per-link tables below are built.
    check_nodes(
        routers as u64,
        &format!("{routers} routers"),
        &t.key("routers"),
    )?;
    let (link_rate, link_delay) = (Rate::from_bps(p.link_rate), p.link_delay);
    let link = LinkInfo {
        rate: link_rate,
        delay: link_delay,
    };
    let forward = queue::parse(&root.req_table("queue")?)?;
    queue::check(&forward, link, "queue")?;
    let reverse = match root.table("reverse_queue")? {
        Some(q) => {
            let p = queue::parse(&q)?;
            queue::check(&p, link, "reverse_queue")?;
            p
        }
        None => forward.clone(),
    };
    let mut link_queues = Vec::new();
    for i in 0..routers - 1 {
        link_queues.push((format!("r{i}_r{}", i + 1), forward.clone()));
        link_queues.push((format!("r{}_r{i}", i + 1), reverse.clone()));
    }
    if let Some(lq) = t.table("link_queue")? {
        for (name, v) in lq.t.iter() {
            let key = lq.key(name);
            let Some(slot) = link_queues.iter_mut().find(|(n, _)| n == name) else {
                return Err(KeyError::new(
                    key,
                    format!(
                        "no such router link; the links are r0_r1, r1_r0, … r{}_r{}, r{}_r{}",
                        routers - 2,
                        routers - 1,
                        routers - 1,
                        routers - 2
                    ),
                ));
            };
            let q = queue::parse(&as_table(v, &key)?)?;
            queue::check(&q, link, &key)?;
            slot.1 = q;
        }
    }
    let clouds_t = t.req_table("clouds")?;
    let mut clouds = Vec::new();
    for (name, v) in clouds_t.t.iter() {
        let c = as_table(v, &clouds_t.key(name))?;
        let cp = declared::parse(&c, &params::CLOUD, &[])?;
        let router = cp.router;
        if router >= routers {
            return Err(c.err(
                "router",
                format!(
                    "router {router} does not exist (routers 0..={})",
                    routers - 1
                ),
            ));
        }
        clouds.push(CloudConfig {
            name: name.clone(),
            router,
            hosts: cp.hosts,
            access_rate: Rate::from_bps(cp.access_rate),
            access_delay: cp.access_delay,
        });
    }
    if clouds.is_empty() {
        return Err(KeyError::new(
            clouds_t.path.clone(),
            "at least one cloud is required",
        ));
    }
    let hosts: u64 = clouds.iter().map(|c| c.hosts as u64).sum();
    if let Some(big) = clouds.iter().max_by_key(|c| c.hosts) {
        check_nodes(
            routers as u64 + hosts,
            &format!(
                "{} nodes ({routers} routers + {hosts} hosts)",
                routers as u64 + hosts
            ),
            &format!("{}.hosts", clouds_t.key(&big.name)),
        )?;
    }
    let access_queue = match t.table("access_queue")? {
        Some(q) => queue::parse(&q)?,
        None => default_access_queue(),
    };
    for c in &clouds {
        queue::check(
            &access_queue,
            LinkInfo {
                rate: c.access_rate,
                delay: c.access_delay,
            },
            &t.key("access_queue"),
        )?;
    }
    let bottleneck = match t.get("bottleneck") {
        Some(v) => as_str(v, &t.key("bottleneck"))?.to_string(),
        None => if routers > 2 { "r1_r2" } else { "r0_r1" }.to_string(),
    };
    if !link_queues.iter().any(|(n, _)| *n == bottleneck) {
        return Err(t.err(
            "bottleneck",
            format!("{bottleneck:?} is not a router link (r0_r1, r1_r0, …)"),
        ));
    }
    Ok(ParkingLotConfig {
        routers,
        link_rate,
        link_delay,
        link_queues,
        access_queue,
        clouds,
        bottleneck,
    })
}

/// Default access-link queue: drop-tail, 1000 packets (large enough never to be the bottleneck
/// at 100 Mbps access links; aqmlab choice).
fn default_access_queue() -> DisciplineParams {
    DisciplineParams::DropTail(DropTailParams {
        limit: 1000,
        unit: LimitUnit::Packets,
        ..DropTailParams::default()
    })
}

/// Parse the dumbbell from the document root `root` (which holds `topology`, `queue`,
/// `reverse_queue`).
fn parse_dumbbell(root: &Tbl, base_dir: &Path) -> Res<DumbbellConfig> {
    let t = root.req_table("topology")?;
    let p = declared::parse(&t, &params::DUMBBELL, &["kind", "access_queue", "delaybox"])?;
    let (clients, servers) = (p.clients, p.servers);
    let nodes = clients as u64 + servers as u64 + 2;
    check_nodes(
        nodes,
        &format!("{nodes} nodes ({clients} clients + {servers} servers + 2 routers)"),
        &t.key(if clients >= servers {
            "clients"
        } else {
            "servers"
        }),
    )?;
    let (access_rate, access_delay) = (Rate::from_bps(p.access_rate), p.access_delay);
    let server_access_rate = p.server_access_rate.map(Rate::from_bps);
    let (bottleneck_rate, bottleneck_delay) =
        (Rate::from_bps(p.bottleneck_rate), p.bottleneck_delay);

    let access_queue = match t.table("access_queue")? {
        Some(q) => queue::parse(&q)?,
        None => default_access_queue(),
    };
    queue::check(
        &access_queue,
        LinkInfo {
            rate: access_rate,
            delay: access_delay,
        },
        &t.key("access_queue"),
    )?;

    let bottleneck = LinkInfo {
        rate: bottleneck_rate,
        delay: bottleneck_delay,
    };
    let forward_queue = queue::parse(&root.req_table("queue")?)?;
    queue::check(&forward_queue, bottleneck, "queue")?;
    let reverse_queue = match root.table("reverse_queue")? {
        Some(q) => {
            let p = queue::parse(&q)?;
            queue::check(&p, bottleneck, "reverse_queue")?;
            p
        }
        None => forward_queue.clone(),
    };

    let delaybox = match t.table("delaybox")? {
        Some(d) => Some(parse_delaybox(&d, clients, servers, base_dir)?),
        None => None,
    };

    Ok(DumbbellConfig {
        clients,
        servers,
        access_rate,
        server_access_rate,
        access_delay,
        access_queue,
        bottleneck_rate,
        bottleneck_delay,
        forward_queue,
        reverse_queue,
        delaybox,
    })
}

fn parse_delaybox(d: &Tbl, clients: u32, servers: u32, base_dir: &Path) -> Res<DelayBoxConfig> {
    const KEYS: &[&str] = &["rtt", "matrix", "matrix_file"];
    d.allow(KEYS)?;
    let given: Vec<&str> = KEYS.iter().copied().filter(|k| d.has(k)).collect();
    match given.as_slice() {
        [] => {
            return Err(KeyError::new(
                d.path.clone(),
                "expected exactly one of: rtt, matrix, matrix_file",
            ))
        }
        [_] => {}
        [a, b, ..] => {
            return Err(d.err(
                b,
                format!("conflicts with {a}; give exactly one of: rtt, matrix, matrix_file"),
            ))
        }
    }
    if let Some(v) = d.get("rtt") {
        return Ok(DelayBoxConfig::Distribution {
            rtt_s: parse_dist(v, &d.key("rtt"), Quantity::Rtt, base_dir)?,
        });
    }
    let (rtt, key, source) = if let Some(v) = d.get("matrix") {
        let key = d.key("matrix");
        let rows = as_array(v, &key)?;
        let mut rtt = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            let rp = index(&key, i);
            let cells = as_array(row, &rp)?;
            rtt.push(
                cells
                    .iter()
                    .enumerate()
                    .map(|(j, c)| as_delay(c, &index(&rp, j)))
                    .collect::<Res<Vec<_>>>()?,
            );
        }
        (rtt, key, "matrix".to_string())
    } else {
        let key = d.key("matrix_file");
        let file = base_dir.join(as_str(d.req("matrix_file")?, &key)?);
        (
            read_matrix_csv(&file, &key)?,
            key,
            file.display().to_string(),
        )
    };
    if rtt.len() != clients as usize {
        return Err(KeyError::new(
            key,
            format!(
                "no route for some hosts: {source} has {} rows but the topology has {clients} clients (need {clients} rows × {servers} columns)",
                rtt.len()
            ),
        ));
    }
    if let Some((i, row)) = rtt
        .iter()
        .enumerate()
        .find(|(_, r)| r.len() != servers as usize)
    {
        let where_ = if source == "matrix" {
            index(&key, i)
        } else {
            key.clone()
        };
        return Err(KeyError::new(
            where_,
            format!(
                "no route for some hosts: {source} row {i} has {} columns but the topology has {servers} servers (need {clients} rows × {servers} columns)",
                row.len()
            ),
        ));
    }
    Ok(DelayBoxConfig::Matrix { rtt })
}

/// A CSV of extra RTTs in milliseconds (plain numbers), one row per client.
fn read_matrix_csv(file: &Path, key: &str) -> Res<Vec<Vec<SimDuration>>> {
    let text = crate::read::read_text(file).map_err(|e| {
        KeyError::new(
            key,
            format!("cannot read RTT matrix file {}: {e}", file.display()),
        )
    })?;
    let mut rows = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let row = line
            .split(',')
            .enumerate()
            .map(|(j, cell)| {
                let cell = cell.trim();
                match cell.parse::<f64>() {
                    Ok(ms) if ms.is_finite() && ms * 1e6 > MAX_DELAY.0 as f64 => {
                        Err(KeyError::new(
                            key,
                            format!(
                                "{} line {}, column {}: {cell:?} ms: {DELAY_TOO_LARGE}",
                                file.display(),
                                n + 1,
                                j + 1
                            ),
                        ))
                    }
                    Ok(ms) if ms.is_finite() && ms >= 0.0 => {
                        Ok(SimDuration((ms * 1e6).round() as u64))
                    }
                    _ => Err(KeyError::new(
                        key,
                        format!(
                            "{} line {}, column {}: {cell:?} is not a number of milliseconds ≥ 0",
                            file.display(),
                            n + 1,
                            j + 1
                        ),
                    )),
                }
            })
            .collect::<Res<Vec<_>>>()?;
        rows.push(row);
    }
    Ok(rows)
}
