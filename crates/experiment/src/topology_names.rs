//! The names a topology description gives its links and host groups, in the order the engine's
//! builders create them (`sim::topology::dumbbell`, `parking_lot`), read from the description
//! alone, without building the network: the `link` column of queue.parquet, `[monitor] pcap`
//! entries ([`crate::pcap_links::check`]) and workload placement name them.
//!
//! Dumbbell: `client{i}_up`, `client{i}_down` per client, `server{j}_up`, `server{j}_down` per
//! server, then `bottleneck_fwd`, `bottleneck_rev`; groups `clients`, `servers`.
//! Parking lot: per i in 0..n−1, `r{i}_r{i+1}` then `r{i+1}_r{i}`; then per cloud (file order)
//! and host k, `{cloud}{k}_up`, `{cloud}{k}_down`; groups: the clouds in file order.
//!
//! Validation: `sim::topology` tests (the built networks' link names and groups equal these).

use crate::config::Topology;

/// Name of the parking lot's router-router link from router `a` to router `b`.
pub fn router_link_name(a: u32, b: u32) -> String {
    format!("r{a}_r{b}")
}

/// Every link's name, one direction each, in the builder's link order.
pub fn link_names(topology: &Topology) -> Vec<String> {
    let mut names = Vec::new();
    match topology {
        Topology::Dumbbell(d) => {
            access_links(&mut names, "client", d.clients);
            access_links(&mut names, "server", d.servers);
            names.push("bottleneck_fwd".into());
            names.push("bottleneck_rev".into());
        }
        Topology::ParkingLot(p) => {
            for i in 0..p.routers.saturating_sub(1) {
                names.push(router_link_name(i, i + 1));
                names.push(router_link_name(i + 1, i));
            }
            for c in &p.clouds {
                access_links(&mut names, &c.name, c.hosts);
            }
        }
    }
    names
}

/// The up and down access links of each of `hosts` hosts of `group`.
fn access_links(names: &mut Vec<String>, group: &str, hosts: u32) {
    for k in 0..hosts {
        names.push(format!("{group}{k}_up"));
        names.push(format!("{group}{k}_down"));
    }
}

/// The host groups (name, number of hosts) in the topology's order: the dumbbell's `clients`
/// and `servers`, a parking lot's clouds.
pub fn host_groups(topology: &Topology) -> Vec<(String, u32)> {
    match topology {
        Topology::Dumbbell(d) => vec![("clients".into(), d.clients), ("servers".into(), d.servers)],
        Topology::ParkingLot(p) => p.clouds.iter().map(|c| (c.name.clone(), c.hosts)).collect(),
    }
}
