//! Topology builders: each turns a plain-data config into a [`Network`](crate::network::Network)
//! plus the node indices of its client and server hosts and its named host groups
//! (`dumbbell.rs`: `clients`, `servers`; `parking_lot.rs`: the configured clouds).

pub mod dumbbell;
/// The topology tables' declared keys (`experiment::topology_params`).
pub use experiment::topology_params as params;
pub mod parking_lot;

/// A built topology.
#[derive(Debug)]
pub struct Built {
    pub net: crate::network::Network,
    /// Node index of client host i.
    pub client_nodes: Vec<u32>,
    /// Node index of server host j.
    pub server_nodes: Vec<u32>,
    /// Node where DelayBox delays are applied (packets arriving at it are held per flow).
    pub delaybox_node: Option<u32>,
    /// Links whose queue and throughput are monitored, with their names.
    pub monitored: Vec<u32>,
    /// The forward bottleneck link (the one summarized).
    pub bottleneck_fwd: u32,
    /// Named host groups ("clouds") and their nodes, for workload placement.
    pub groups: Vec<(String, Vec<u32>)>,
}
