//! The plain-data description of one run, as the scenario parser produces it and the engine
//! consumes it. No behaviour here; validation of each part lives with the part
//! (`aqm::DisciplineParams::build`, `traffic::Workload::new`, `sim::World::build`).

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
    /// A workload's own TCP settings, for both ends of its connections (index as `workloads`);
    /// a missing or `None` entry uses `tcp` (a Prague and a CUBIC flow side by side).
    pub workload_tcp: Vec<Option<TcpConfig>>,
    /// Traffic sources; host indices refer to the client and server hosts of each workload's
    /// placement.
    pub workloads: Vec<WorkloadConfig>,
    /// Where each workload's clients and servers are (index as `workloads`); a missing entry is
    /// [`HostPlacement::Default`].
    pub placements: Vec<HostPlacement>,
    /// Each workload's DelayBoxes (index as `workloads`); a missing entry has none.
    pub delayboxes: Vec<WorkloadDelayBox>,
    pub monitor: MonitorConfig,
}

/// Network shape.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per run, never on a hot path
pub enum Topology {
    Dumbbell(DumbbellConfig),
    ParkingLot(ParkingLotConfig),
}

/// Which host groups ("clouds") a workload's clients and servers live in. Every topology
/// names its groups: the dumbbell has `clients` (client side) and `servers` (server side); the
/// parking lot has the clouds its config lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum HostPlacement {
    /// Dumbbell: clients in `clients`, servers in `servers` (responses flow forward).
    /// Parking lot: not allowed (name the clouds).
    #[default]
    Default,
    /// Dumbbell: clients in `servers`, servers in `clients` (two-way traffic, seed 001:
    /// responses of this workload flow over the reverse bottleneck).
    Reverse,
    /// Clients in the group named `clients`, servers in the group named `servers`.
    Groups { clients: String, servers: String },
}

/// Seed 002's "8Q parking lot" (§III-A, Fig. 1), generalised: routers R0 … R(n−1) in a chain,
/// a link each way between neighbours; host clouds attached to routers by access links.
///
/// Link names: `r{i}_r{i+1}` (forward, left to right) and `r{i+1}_r{i}` (reverse) between
/// routers; `{cloud}{k}_up` (host → router) and `{cloud}{k}_down` (router → host) for host k
/// of a cloud. Every router-router link is monitored.
#[derive(Clone, Debug)]
pub struct ParkingLotConfig {
    /// Number of routers (≥ 2; seed 002: 8).
    pub routers: u32,
    /// Rate of every router-router link, both directions (seed 002: 10 Mbps).
    pub link_rate: Rate,
    /// One-way propagation delay of every router-router link (seed 002: 1 ms).
    pub link_delay: SimDuration,
    /// Queue of each router-router link by name (`r1_r2`, `r2_r1`, …); every one of the
    /// 2·(routers − 1) links must be present.
    pub link_queues: Vec<(String, DisciplineParams)>,
    /// Queue at both ends of every access link.
    pub access_queue: DisciplineParams,
    pub clouds: Vec<CloudConfig>,
    /// Name of the router-router link the summary reports (its queue, drops, throughput).
    pub bottleneck: String,
}

/// A group of hosts attached to one router, each by its own access link.
#[derive(Clone, Debug)]
pub struct CloudConfig {
    pub name: String,
    /// Router index (0 … routers − 1).
    pub router: u32,
    /// Number of hosts (≥ 1).
    pub hosts: u32,
    /// Access link rate, both directions.
    pub access_rate: Rate,
    /// Access link one-way propagation delay.
    pub access_delay: SimDuration,
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
    /// Rate of the server hosts' access links if different from `access_rate` (seed 003 §4.7:
    /// 35 Mbps on the client side, 30 Mbps on the server side).
    pub server_access_rate: Option<Rate>,
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

/// Base RTT one DelayBox adds to each connection (drawn once per connection, applied half in
/// each direction).
#[derive(Clone, Debug)]
pub enum BoxRtt {
    /// Independent draws of the RTT in seconds.
    Dist(SizeDist),
    /// PackMime-HTTP's `PackMimeHTTPXmit` (MODEL.md §3.8): the `side` table, its FARIMA driver
    /// at connection rate `rate` (per second), so successive connections' RTTs are long-range
    /// dependent as in ns-2.
    PackMime {
        side: traffic::packmime::RttSide,
        rate: f64,
    },
}

/// The DelayBoxes of one workload (seed 002 §III-B: "each DelayBox delays only those flows
/// whose source or destination node is directly connected to the DelayBox"): `client` at the
/// router of the connection's client host, `server` at the router of its server host.
#[derive(Clone, Debug, Default)]
pub struct WorkloadDelayBox {
    pub client: Option<BoxRtt>,
    pub server: Option<BoxRtt>,
}

impl WorkloadDelayBox {
    /// PackMime's client-side and server-side RTT distributions (reference/packmime/MODEL.md
    /// §3.8) at `rate` connections per second, as `delaybox = { client = "packmime", server =
    /// "packmime" }` gives.
    pub fn packmime(rate: f64) -> WorkloadDelayBox {
        use traffic::packmime::RttSide;
        WorkloadDelayBox {
            client: Some(BoxRtt::PackMime {
                side: RttSide::Client,
                rate,
            }),
            server: Some(BoxRtt::PackMime {
                side: RttSide::Server,
                rate,
            }),
        }
    }
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
    /// Links to write a pcap of, as the scenario lists them (`[monitor] pcap`): link names
    /// (one direction) or two-way names (`bottleneck` = `bottleneck_fwd` + `bottleneck_rev`);
    /// one `{link}.pcap` each in the run directory (`sim::pcap`). Default none.
    pub pcap: Vec<String>,
}

impl Default for MonitorConfig {
    fn default() -> Self {
        MonitorConfig {
            queue_interval: SimDuration::from_millis(100), // seed 000 §4.1.3
            queue_sample: SimDuration::from_millis(3),     // seed 000 §4.1.3
            link_interval: SimDuration::from_secs(1),      // seed 000 §4.1.3 ("typically 1s")
            pcap: Vec::new(),
        }
    }
}
