//! What the router emulates, built from the same `sim::Experiment` the simulator runs, so a
//! scenario gives identical bottleneck parameters both ways.
//!
//! The dumbbell's bottleneck (`sim::topology::dumbbell`): `fwd` is router S → router C (server
//! side → client side, carries responses; monitored as `bottleneck_fwd`), `rev` the other way
//! (`bottleneck_rev`). Each direction: the queue discipline, a link of `rate`, then `delay`
//! (bottleneck propagation) plus `access_delay` (the two access links a packet crosses in the
//! simulator: sending host's uplink and receiving host's downlink), then the DelayBoxes (the
//! dumbbell's and the connection's workload's client and server boxes, `delaybox.rs`). The
//! access links' rate and queue are not emulated (100 Mbps access links add 0.12 ms per 1500 B
//! packet in the simulator; the testbed's hosts hand packets over at memory speed).
//!
//! Validation: `tests/router.rs` (`spec_from_the_quickstart_*`, `a_parking_lot_is_refused_*`).

use aqm::{DisciplineParams, LinkInfo};
use experiment::{DelayBoxConfig, Experiment, MonitorConfig, Topology, WorkloadDelayBox};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::time::Instant;
use units::{Rate, SimDuration};

/// One direction of the bottleneck.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSpec {
    /// Link name in monitors, pcap file names and reports: `bottleneck_fwd` or `bottleneck_rev`
    /// (the simulator's names).
    pub name: String,
    /// Link rate, bit/s (scenario `bottleneck_rate`).
    pub rate: Rate,
    /// One-way propagation delay of the bottleneck, ns (scenario `bottleneck_delay`).
    pub delay: SimDuration,
    /// Extra fixed one-way delay, ns: the access links' propagation the simulator adds on this
    /// direction (2 × scenario `access_delay`); zero when the testbed emulates them elsewhere.
    pub access_delay: SimDuration,
    /// Queue discipline at the sending end (scenario `[queue]` for fwd, `[reverse_queue]` for
    /// rev), built with `DisciplineParams::build(LinkInfo { rate, delay })` as the simulator does.
    pub queue: DisciplineParams,
}

/// Everything the router needs for one run.
#[derive(Clone, Debug)]
pub struct RouterSpec {
    /// Server side → client side (responses): packets read from the server TUN.
    pub fwd: PathSpec,
    /// Client side → server side (requests, ACKs): packets read from the client TUN.
    pub rev: PathSpec,
    /// The dumbbell's DelayBox (scenario `[topology.delaybox]`): per TCP connection an extra RTT
    /// drawn at its SYN (stream `delaybox` of `seed`, as the simulator), half added each way.
    pub delaybox: Option<DelayBoxConfig>,
    /// Each workload's client and server DelayBoxes (index = the scenario's workload order;
    /// scenario `delaybox = { client = …, server = … }` of a `[[workload]]`): drawn per
    /// connection at its SYN, the workload known from the SYN's destination port
    /// (`ports.rs`), and added to the dumbbell box's delay (`delaybox.rs`).
    pub workload_boxes: Vec<WorkloadDelayBox>,
    /// IPv4 address of client host i (index = the scenario's client index); only needed by a
    /// DelayBox `matrix` (row = the SYN sender's host index, column = the SYN receiver's).
    pub client_hosts: Vec<Ipv4Addr>,
    /// IPv4 address of server host j (see `client_hosts`).
    pub server_hosts: Vec<Ipv4Addr>,
    /// Run seed (scenario `[run] seed`): the discipline's stream is `link:{name}` and the
    /// DelayBox's `delaybox`, as in the simulator.
    pub seed: u64,
    /// Write `{name}.pcap` for each direction into this directory (LINKTYPE_RAW, timestamps =
    /// router time at which the packet leaves the emulated path).
    pub pcap_dir: Option<PathBuf>,
    /// Queue sample and interval periods, link interval (scenario `[monitor]`).
    pub monitor: MonitorConfig,
    /// End of the warm-up in router time (scenario `[run] warmup`): `RouterReport::totals` count
    /// from here, as the simulator's summary does.
    pub warmup: SimDuration,
    /// Router time zero; `None` = when `run` starts. Give the traffic programs the same instant
    /// so their records and the router's rows share one time axis.
    pub epoch: Option<Instant>,
    /// Busy-wait (instead of sleeping in ppoll) when the next wake-up is at most this far, ns
    /// (default 50 µs: ppoll with 1 ns timer slack wakes ~10–60 µs late on a loaded machine).
    pub spin: SimDuration,
}

impl RouterSpec {
    /// The bottleneck of a dumbbell experiment; anything else is refused with the reason.
    pub fn from_experiment(exp: &Experiment) -> Result<RouterSpec, String> {
        let db = match &exp.topology {
            Topology::Dumbbell(db) => db,
            Topology::ParkingLot(_) => {
                return Err(
                    "topology: the testbed router emulates a dumbbell's bottleneck only \
                     (kind = \"dumbbell\"); this scenario is a parking lot"
                        .into(),
                )
            }
        };
        if exp.workloads.len() > crate::ports::MAX_WORKLOADS {
            return Err(format!(
                "workload: {} workloads; the testbed tells at most {} apart (one server port \
                 each, ports.rs)",
                exp.workloads.len(),
                crate::ports::MAX_WORKLOADS
            ));
        }
        let mut workload_boxes = exp.delayboxes.clone();
        workload_boxes.resize(exp.workloads.len(), WorkloadDelayBox::default());
        let link = LinkInfo {
            rate: db.bottleneck_rate,
            delay: db.bottleneck_delay,
        };
        for (key, q) in [
            ("queue", &db.forward_queue),
            ("reverse_queue", &db.reverse_queue),
        ] {
            q.build(link)
                .map_err(|e| format!("{key}.{}: {}", e.key, e.reason))?;
        }
        let path = |name: &str, queue: &DisciplineParams| PathSpec {
            name: name.to_string(),
            rate: db.bottleneck_rate,
            delay: db.bottleneck_delay,
            access_delay: db.access_delay.saturating_mul(2),
            queue: queue.clone(),
        };
        Ok(RouterSpec {
            fwd: path("bottleneck_fwd", &db.forward_queue),
            rev: path("bottleneck_rev", &db.reverse_queue),
            delaybox: db.delaybox.clone(),
            workload_boxes,
            client_hosts: Vec::new(),
            server_hosts: Vec::new(),
            seed: exp.seed,
            pcap_dir: None,
            monitor: exp.monitor.clone(),
            warmup: exp.warmup,
            epoch: None,
            spin: DEFAULT_SPIN,
        })
    }
}

/// Default of [`RouterSpec::spin`]: 50 µs.
pub const DEFAULT_SPIN: SimDuration = SimDuration::from_micros(50);
