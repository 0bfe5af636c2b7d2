//! Dumbbell: client hosts — router C ══ bottleneck ══ router S — server hosts.
//!
//! Node numbering: clients `0..C`, servers `C..C+S`, router C = `C+S`, router S = `C+S+1`.
//! Link names: `client{i}_up` / `client{i}_down`, `server{j}_up` / `server{j}_down`,
//! `bottleneck_fwd` (S → C, carries responses) and `bottleneck_rev` (C → S).
//! DelayBox sits at router C, as ns-2's PackMime examples place it beside the client cloud.
//! Server hosts use `server_access_rate` when set (seed 003 §4.7's asymmetric access links).
//! Host groups: `clients` and `servers` (a reverse workload swaps them).

use super::Built;
use crate::config::DumbbellConfig;
use crate::network::{LinkSpec, Network};
use crate::output::SimError;

/// Build the dumbbell described by `cfg`.
pub fn build(cfg: &DumbbellConfig, seed: u64) -> Result<Built, SimError> {
    if cfg.clients == 0 || cfg.servers == 0 {
        return Err(SimError {
            key: "topology".into(),
            reason: "needs at least one client and one server".into(),
        });
    }
    let c = cfg.clients;
    let s = cfg.servers;
    let rc = c + s;
    let rs = c + s + 1;
    let mut net = Network::new(c + s + 2);
    let qerr = |key: &str| {
        let key = key.to_string();
        move |e: aqm::ParamError| SimError {
            key: format!("{key}.{}", e.key),
            reason: e.reason,
        }
    };
    for i in 0..c {
        net.add_link(
            LinkSpec {
                name: &format!("client{i}_up"),
                from: i,
                to: rc,
                rate: cfg.access_rate,
                delay: cfg.access_delay,
                queue: &cfg.access_queue,
            },
            seed,
        )
        .map_err(qerr("topology.access_queue"))?;
        net.add_link(
            LinkSpec {
                name: &format!("client{i}_down"),
                from: rc,
                to: i,
                rate: cfg.access_rate,
                delay: cfg.access_delay,
                queue: &cfg.access_queue,
            },
            seed,
        )
        .map_err(qerr("topology.access_queue"))?;
    }
    let server_rate = cfg.server_access_rate.unwrap_or(cfg.access_rate);
    for j in 0..s {
        let n = c + j;
        net.add_link(
            LinkSpec {
                name: &format!("server{j}_up"),
                from: n,
                to: rs,
                rate: server_rate,
                delay: cfg.access_delay,
                queue: &cfg.access_queue,
            },
            seed,
        )
        .map_err(qerr("topology.access_queue"))?;
        net.add_link(
            LinkSpec {
                name: &format!("server{j}_down"),
                from: rs,
                to: n,
                rate: server_rate,
                delay: cfg.access_delay,
                queue: &cfg.access_queue,
            },
            seed,
        )
        .map_err(qerr("topology.access_queue"))?;
    }
    let fwd = net
        .add_link(
            LinkSpec {
                name: "bottleneck_fwd",
                from: rs,
                to: rc,
                rate: cfg.bottleneck_rate,
                delay: cfg.bottleneck_delay,
                queue: &cfg.forward_queue,
            },
            seed,
        )
        .map_err(qerr("queue"))?;
    let rev = net
        .add_link(
            LinkSpec {
                name: "bottleneck_rev",
                from: rc,
                to: rs,
                rate: cfg.bottleneck_rate,
                delay: cfg.bottleneck_delay,
                queue: &cfg.reverse_queue,
            },
            seed,
        )
        .map_err(qerr("reverse_queue"))?;
    net.compute_routes();
    Ok(Built {
        net,
        client_nodes: (0..c).collect(),
        server_nodes: (c..c + s).collect(),
        delaybox_node: cfg.delaybox.as_ref().map(|_| rc),
        monitored: vec![fwd, rev],
        bottleneck_fwd: fwd,
        groups: vec![
            ("clients".to_string(), (0..c).collect()),
            ("servers".to_string(), (c..c + s).collect()),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm::{DisciplineParams, DropTailParams};
    use units::{Rate, SimDuration};

    #[test]
    fn built_names_are_the_descriptions() {
        let q = DisciplineParams::DropTail(DropTailParams::default());
        let cfg = DumbbellConfig {
            clients: 3,
            servers: 2,
            access_rate: Rate::from_mbps(100),
            server_access_rate: None,
            access_delay: SimDuration::from_millis(1),
            access_queue: q.clone(),
            bottleneck_rate: Rate::from_mbps(10),
            bottleneck_delay: SimDuration::from_millis(10),
            forward_queue: q.clone(),
            reverse_queue: q,
            delaybox: None,
        };
        let b = build(&cfg, 1).unwrap();
        let built: Vec<&str> = b.net.links.iter().map(|l| l.name.as_str()).collect();
        let topo = crate::Topology::Dumbbell(cfg);
        let named = experiment::topology_names::link_names(&topo);
        assert_eq!(built, named);
        assert_eq!(named.len(), 2 * (3 + 2) + 2);
        assert_eq!(&named[6..8], ["server0_up", "server0_down"]);
        assert_eq!(&named[10..], ["bottleneck_fwd", "bottleneck_rev"]);
        let groups: Vec<(String, u32)> = b
            .groups
            .iter()
            .map(|(n, h)| (n.clone(), h.len() as u32))
            .collect();
        assert_eq!(
            groups,
            experiment::topology_names::host_groups(&topo),
            "clients then servers"
        );
    }
}
