//! The aqmlab discrete-event engine: integer-nanosecond time, events ordered by
//! (time, insertion sequence), unidirectional links with a queue discipline at the sending end,
//! nodes with static routes, DelayBox per-connection delay, topology builders, and the loop that
//! wires `tcp`, `aqm` and `traffic` together and reports through `metrics`. It runs the plain
//! experiment description of the `experiment` crate (re-exported here).

mod cache_hint;
mod conn;
pub mod event;
pub mod lanes;
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

// The plain experiment description lives in its own crate (`experiment`), which the testbed
// reads too; its paths are kept here so `sim::Experiment`, `sim::config::…` keep working.
use experiment::delaybox;
pub use experiment::{budget, config};
pub use experiment::{
    BoxRtt, CloudConfig, DelayBoxConfig, DelayBoxes, DumbbellConfig, Experiment, HostPlacement,
    MonitorConfig, ParkingLotConfig, Topology, WorkloadDelayBox,
};
pub use output::{DatagramStats, EngineStats, RunEnd, RunOutput, SimError};
pub use run::{run, run_in, run_with};
