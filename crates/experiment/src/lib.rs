//! The plain experiment description: what one run is (topology, queues, TCP, workloads, their
//! placement and DelayBoxes, monitors, run window), as the `scenario` crate resolves a file to
//! it and every runner reads it — the simulator (`sim`) and the testbed (`router`, `testbed`).
//! Data and pure functions of it only: nothing here parses files or runs anything.
//!
//! Files: the description itself, `config.rs`; the DelayBox delay samplers both runners draw
//! from, `delaybox.rs`; the topology tables' declared keys, `topology_params.rs`; the names a
//! topology gives its links and host groups, `topology_names.rs`; the conventions shared by the
//! simulator's and the router's pcaps, `pcap_format.rs`, and the `[monitor] pcap` link
//! selection, `pcap_links.rs`; the engine's cost model that refuses an oversized run before it
//! starts, `budget.rs`.

pub mod budget;
pub mod config;
pub mod delaybox;
pub mod pcap_format;
pub mod pcap_links;
pub mod topology_names;
pub mod topology_params;

pub use config::{
    BoxRtt, CloudConfig, DelayBoxConfig, DumbbellConfig, Experiment, HostPlacement, MonitorConfig,
    ParkingLotConfig, Topology, WorkloadDelayBox,
};
pub use delaybox::DelayBoxes;
