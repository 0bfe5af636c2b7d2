//! The plain-data description of one run, as the scenario parser produces it and the engine
//! consumes it. No behaviour here; validation of each part lives with the part
//! (`aqm::DisciplineParams::build`, `traffic::Workload::new`, [`crate::World::build`]).

use aqm::DisciplineParams;
use tcp::TcpConfig;
use traffic::{SizeDist, WorkloadConfig};
use units::{Rate, SimDuration};

/// One simulation run.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// Run seed; every random consumer derives its own stream from it and its name.
    pub seed: u64,
    /// Time before measurement starts; records that start before it are excluded.
    pub warmup: SimDuration,
    /// Measured time after the warm-up; the run ends at `warmup + duration`.
    pub duration: SimDuration,
    /// End the run early once this many responses completed after the warm-up.
    pub stop_after_responses: Option<u64>,
    pub topology: Topology,
    /// TCP settings of every endpoint.
    pub tcp: TcpConfig,
    /// Traffic sources; host indices refer to the topology's client and server hosts.
    pub workloads: Vec<WorkloadConfig>,
    pub monitor: MonitorConfig,
}

/// Network shape.
#[derive(Clone, Debug)]
pub enum Topology {
    Dumbbell(DumbbellConfig),
}

/// Client hosts — router C — bottleneck — router S — server hosts.
///
/// "Forward" is the direction of responses (server side → client side), the congested one in
/// the studies; "reverse" carries requests and ACKs.
#[derive(Clone, Debug)]
pub struct DumbbellConfig {
    pub clients: u32,
    pub servers: u32,
    /// Rate of every host access link (both directions).
    pub access_rate: Rate,
    /// One-way propagation delay of every access link.
    pub access_delay: SimDuration,
    /// Queue discipline at both ends of every access link.
    pub access_queue: DisciplineParams,
    pub bottleneck_rate: Rate,
    /// One-way propagation delay of the bottleneck.
    pub bottleneck_delay: SimDuration,
    /// Queue of the forward bottleneck direction (router S → router C).
    pub forward_queue: DisciplineParams,
    /// Queue of the reverse bottleneck direction (router C → router S).
    pub reverse_queue: DisciplineParams,
    /// Per-connection extra delay applied at router C (DelayBox); `None` = none.
    pub delaybox: Option<DelayBoxConfig>,
}

/// DelayBox: each connection gets an extra base round-trip time, applied half in each direction.
#[derive(Clone, Debug)]
pub enum DelayBoxConfig {
    /// Extra RTT sampled per connection from a distribution in seconds.
    Distribution { rtt_s: SizeDist },
    /// Extra RTT per (client, server) pair: `rtt[client][server]`.
    Matrix { rtt: Vec<Vec<SimDuration>> },
}

/// What to monitor and how often (seed 000 §4.1.3).
#[derive(Clone, Debug)]
pub struct MonitorConfig {
    /// Queue summary interval (forwarded, drops, min/max queue). Default 100 ms (seed 000).
    pub queue_interval: SimDuration,
    /// Queue length sampling period for mean and variance. Default 3 ms (seed 000).
    pub queue_sample: SimDuration,
    /// Link throughput interval. Default 1 s (seed 000).
    pub link_interval: SimDuration,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        MonitorConfig {
            queue_interval: SimDuration::from_millis(100), // seed 000 §4.1.3
            queue_sample: SimDuration::from_millis(3),     // seed 000 §4.1.3
            link_interval: SimDuration::from_secs(1),      // seed 000 §4.1.3 ("typically 1s")
        }
    }
}
