//! Parking lot: routers R0 … R(n−1) in a chain, host clouds hanging off the routers (seed 002
//! §III-A, "8Q parking lot", after Floyd).
//!
//! Node numbering: routers `0..n`, then the hosts of each cloud in config order. Links, in this
//! order: for i in 0..n−1, `r{i}_r{i+1}` (forward, left to right) then `r{i+1}_r{i}`
//! (reverse), each with its own queue from `link_queues`; then per cloud and host k,
//! `{cloud}{k}_up` and `{cloud}{k}_down` with the access queue. Routes are shortest-hop, so a
//! packet between clouds at routers a < b crosses exactly the links r{a}_r{a+1} … r{b−1}_r{b}
//! (and the reverse links on the way back). Every router-router link is monitored, forward
//! links first; the summary reports the link named `bottleneck`. DelayBoxes are per workload
//! (`delaybox.rs`), at the routers of each connection's hosts.
//!
//! Validation: `topology::parking_lot::tests` (node/link layout, routes across all links and
//! across one link) and `crates/sim/tests/parking_lot.rs` (offered load per link).

use super::Built;
use crate::config::ParkingLotConfig;
use crate::network::{LinkSpec, Network};
use crate::output::SimError;

/// Name of the router-router link from router `a` to router `b` (the description's naming,
/// `experiment::topology_names`).
pub use experiment::topology_names::router_link_name as link_name;

/// Build the parking lot described by `cfg`.
pub fn build(cfg: &ParkingLotConfig, seed: u64) -> Result<Built, SimError> {
    let err = |key: &str, reason: String| SimError {
        key: key.to_string(),
        reason,
    };
    let n = cfg.routers;
    if n < 2 {
        return Err(err(
            "topology.routers",
            format!("must be at least 2, got {n}"),
        ));
    }
    if cfg.clouds.is_empty() {
        return Err(err(
            "topology.clouds",
            "at least one cloud is required".into(),
        ));
    }
    let mut hosts_total = 0u32;
    for c in &cfg.clouds {
        let key = format!("topology.clouds.{}", c.name);
        if c.router >= n {
            return Err(err(
                &format!("{key}.router"),
                format!("router {} does not exist (routers 0..={})", c.router, n - 1),
            ));
        }
        if c.hosts == 0 {
            return Err(err(&format!("{key}.hosts"), "must be at least 1".into()));
        }
        if cfg.clouds.iter().filter(|d| d.name == c.name).count() > 1 {
            return Err(err(&key, "cloud names must be unique".into()));
        }
        hosts_total = hosts_total
            .checked_add(c.hosts)
            .ok_or_else(|| err(&key, "too many hosts".into()))?;
    }
    let mut net = Network::new(n + hosts_total);
    let mut monitored_fwd = Vec::new();
    let mut monitored_rev = Vec::new();
    for i in 0..n - 1 {
        for (a, b) in [(i, i + 1), (i + 1, i)] {
            let name = link_name(a, b);
            let queue = cfg
                .link_queues
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, q)| q)
                .ok_or_else(|| err("topology.link_queue", format!("no queue for link {name}")))?;
            let l = net
                .add_link(
                    LinkSpec {
                        name: &name,
                        from: a,
                        to: b,
                        rate: cfg.link_rate,
                        delay: cfg.link_delay,
                        queue,
                    },
                    seed,
                )
                .map_err(|e| SimError {
                    key: format!("topology.link_queue.{name}.{}", e.key),
                    reason: e.reason,
                })?;
            if a < b {
                monitored_fwd.push(l);
            } else {
                monitored_rev.push(l);
            }
        }
    }
    let mut groups = Vec::new();
    let mut next_node = n;
    for c in &cfg.clouds {
        let mut nodes = Vec::new();
        for k in 0..c.hosts {
            let h = next_node;
            next_node += 1;
            nodes.push(h);
            for (suffix, from, to) in [("up", h, c.router), ("down", c.router, h)] {
                net.add_link(
                    LinkSpec {
                        name: &format!("{}{k}_{suffix}", c.name),
                        from,
                        to,
                        rate: c.access_rate,
                        delay: c.access_delay,
                        queue: &cfg.access_queue,
                    },
                    seed,
                )
                .map_err(|e| SimError {
                    key: format!("topology.access_queue.{}", e.key),
                    reason: e.reason,
                })?;
            }
        }
        groups.push((c.name.clone(), nodes));
    }
    net.compute_routes();
    let bottleneck = net
        .links
        .iter()
        .position(|l| l.name == cfg.bottleneck && l.from < n && l.to < n)
        .ok_or_else(|| {
            err(
                "topology.bottleneck",
                format!(
                    "{:?} is not a router-router link (r0_r1 … r{}_r{})",
                    cfg.bottleneck,
                    n - 2,
                    n - 1
                ),
            )
        })? as u32;
    monitored_fwd.extend(monitored_rev);
    Ok(Built {
        net,
        client_nodes: Vec::new(),
        server_nodes: Vec::new(),
        delaybox_node: None,
        monitored: monitored_fwd,
        bottleneck_fwd: bottleneck,
        groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CloudConfig;
    use aqm::{DisciplineParams, DropTailParams};
    use units::{Rate, SimDuration};

    fn cloud(name: &str, router: u32, hosts: u32) -> CloudConfig {
        CloudConfig {
            name: name.into(),
            router,
            hosts,
            access_rate: Rate::from_mbps(4),
            access_delay: SimDuration::from_millis(1),
        }
    }

    fn eight() -> ParkingLotConfig {
        let q = DisciplineParams::DropTail(DropTailParams::default());
        let mut link_queues = Vec::new();
        for i in 0..7 {
            link_queues.push((link_name(i, i + 1), q.clone()));
            link_queues.push((link_name(i + 1, i), q.clone()));
        }
        ParkingLotConfig {
            routers: 8,
            link_rate: Rate::from_mbps(10),
            link_delay: SimDuration::from_millis(1),
            link_queues,
            access_queue: q,
            clouds: vec![
                cloud("left", 0, 2),
                cloud("right", 7, 2),
                cloud("x1", 1, 1),
                cloud("y1", 2, 1),
            ],
            bottleneck: "r1_r2".into(),
        }
    }

    #[test]
    fn built_names_are_the_descriptions() {
        let cfg = eight();
        let b = build(&cfg, 1).unwrap();
        let built: Vec<&str> = b.net.links.iter().map(|l| l.name.as_str()).collect();
        let topo = crate::Topology::ParkingLot(cfg);
        let named = experiment::topology_names::link_names(&topo);
        assert_eq!(built, named);
        // 7 router pairs both ways, then 6 hosts up and down.
        assert_eq!(named.len(), 14 + 12);
        assert_eq!(&named[..3], ["r0_r1", "r1_r0", "r1_r2"]);
        assert_eq!(&named[14..16], ["left0_up", "left0_down"]);
        let groups: Vec<(String, u32)> = b
            .groups
            .iter()
            .map(|(n, h)| (n.clone(), h.len() as u32))
            .collect();
        assert_eq!(groups, experiment::topology_names::host_groups(&topo));
    }

    /// Follow the routes from `src` to `dst`; the names of the links crossed.
    fn path(b: &Built, src: u32, dst: u32) -> Vec<String> {
        let mut at = src;
        let mut out = Vec::new();
        while at != dst {
            let l = &b.net.links[b.net.next_link(at, dst) as usize];
            out.push(l.name.clone());
            at = l.to;
        }
        out
    }

    #[test]
    fn end_to_end_packets_cross_all_seven_router_links_in_order() {
        let b = build(&eight(), 1).unwrap();
        // 8 routers + 6 hosts; 14 router links + 12 access links.
        assert_eq!(b.net.nodes, 14);
        assert_eq!(b.net.links.len(), 26);
        let left = &b.groups[0].1;
        let right = &b.groups[1].1;
        assert_eq!(left, &vec![8, 9]);
        let p = path(&b, left[1], right[0]);
        let want: Vec<String> = std::iter::once("left1_up".to_string())
            .chain((0..7).map(|i| link_name(i, i + 1)))
            .chain(std::iter::once("right0_down".to_string()))
            .collect();
        assert_eq!(p, want);
        let back = path(&b, right[0], left[0]);
        assert_eq!(back.len(), 9);
        assert_eq!(back[1], "r7_r6");
        assert_eq!(back[7], "r1_r0");
        assert_eq!(b.monitored.len(), 14);
        assert_eq!(b.net.links[b.bottleneck_fwd as usize].name, "r1_r2");
    }

    #[test]
    fn cross_traffic_crosses_only_its_link() {
        let b = build(&eight(), 1).unwrap();
        let (x, y) = (b.groups[2].1[0], b.groups[3].1[0]);
        assert_eq!(path(&b, x, y), vec!["x10_up", "r1_r2", "y10_down"]);
        assert_eq!(path(&b, y, x), vec!["y10_up", "r2_r1", "x10_down"]);
    }

    #[test]
    fn bad_configs_name_the_key() {
        let mut c = eight();
        c.bottleneck = "left0_up".into();
        assert_eq!(build(&c, 1).unwrap_err().key, "topology.bottleneck");
        let mut c = eight();
        c.clouds[0].router = 8;
        assert_eq!(build(&c, 1).unwrap_err().key, "topology.clouds.left.router");
        let mut c = eight();
        c.link_queues.pop();
        let e = build(&c, 1).unwrap_err();
        assert!(e.reason.contains("r7_r6"), "{e}");
    }
}
