//! The aqmlab discrete-event engine: integer-nanosecond time, events ordered by
//! (time, insertion sequence), unidirectional links with a queue discipline at the sending end,
//! nodes with static routes, DelayBox per-connection delay, topology builders, and the loop that
//! wires `tcp`, `aqm` and `traffic` together and reports through `metrics`.

pub mod budget;
mod cache_hint;
pub mod config;
mod conn;
mod delaybox;
pub mod event;
pub mod network;
pub mod output;
mod packet;
pub mod pcap;
mod prefetch;
mod quad_heap;
mod run;
#[cfg(test)]
mod scrambled;
mod sorted_run;
mod timers;
mod timing_wheel;
pub mod topology;
mod world;

pub use config::{
    BoxRtt, CloudConfig, DelayBoxConfig, DumbbellConfig, Experiment, HostPlacement, MonitorConfig,
    ParkingLotConfig, Topology, WorkloadDelayBox,
};
pub use delaybox::DelayBoxes;
pub use output::{DatagramStats, EngineStats, RunEnd, RunOutput, SimError};
pub use run::{run, run_in, run_with};
