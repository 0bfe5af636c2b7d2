//! Shared fixtures for engine end-to-end tests.
#![allow(dead_code)]

use aqm::{DisciplineParams, DropTailParams, RedParams};
use sim::{
    CloudConfig, DelayBoxConfig, DumbbellConfig, Experiment, MonitorConfig, ParkingLotConfig,
    RunOutput, Topology,
};
use tcp::TcpConfig;
use traffic::{Arrival, SizeDist, WorkloadConfig};
use units::{Rate, SimDuration, SimTime};

pub fn droptail(limit: u64) -> DisciplineParams {
    DisciplineParams::DropTail(DropTailParams {
        limit,
        ..Default::default()
    })
}

pub fn red_quickstart() -> DisciplineParams {
    DisciplineParams::Red(RedParams {
        min_th: 30.0,
        max_th: 90.0,
        w_q: 1.0 / 512.0,
        max_p: 0.1,
        limit: 480,
        mean_pktsize: 1500,
        ..Default::default()
    })
}

/// A dumbbell with `n` clients and `n` servers: 100 Mbps / 1 ms access, bottleneck `rate` / 10 ms.
pub fn dumbbell(
    n: u32,
    rate_mbps: u64,
    queue: DisciplineParams,
    delaybox: Option<DelayBoxConfig>,
) -> DumbbellConfig {
    DumbbellConfig {
        clients: n,
        servers: n,
        access_rate: Rate::from_mbps(100),
        server_access_rate: None,
        access_delay: SimDuration::from_millis(1),
        access_queue: droptail(1000),
        bottleneck_rate: Rate::from_mbps(rate_mbps),
        bottleneck_delay: SimDuration::from_millis(10),
        forward_queue: queue.clone(),
        reverse_queue: queue,
        delaybox,
    }
}

/// Poisson HTTP/1.0 at `rate` connections/s with the quickstart's size distributions.
pub fn web(rate: f64, n: u32) -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Poisson { rate },
        request_bytes: SizeDist::Constant { value: 300.0 },
        response_bytes: SizeDist::BoundedPareto {
            shape: 1.2,
            min: 1000.0,
            max: 2e6,
        },
        clients: n,
        servers: n,
    }
}

pub fn experiment(
    db: DumbbellConfig,
    workloads: Vec<WorkloadConfig>,
    warmup_s: u64,
    duration_s: u64,
    seed: u64,
) -> Experiment {
    Experiment {
        seed,
        warmup: SimDuration::from_secs(warmup_s),
        duration: SimDuration::from_secs(duration_s),
        stop_after_responses: None,
        topology: Topology::Dumbbell(db),
        tcp: TcpConfig::default(),
        workloads,
        placements: Vec::new(),
        delayboxes: Vec::new(),
        workload_tcp: Vec::new(),
        monitor: MonitorConfig::default(),
    }
}

pub fn run(exp: &Experiment) -> RunOutput {
    sim::run(exp, &mut |_: SimTime, _: SimTime| {}).expect("run succeeds (conservation holds)")
}

/// Conservation as seen from outside: every packet created is delivered, dropped or in flight.
pub fn assert_conservation(out: &RunOutput) {
    let e = &out.engine;
    assert_eq!(
        e.packets_created,
        e.packets_delivered + e.packets_dropped + e.packets_in_flight,
        "{e:?}"
    );
}

/// Store-and-forward time for one packet of `bytes` alone on a path of (rate bps, delay ns)
/// links: Σ (bytes·8/rate + delay), each serialization rounded up to the nanosecond.
pub fn one_way_ns(bytes: u64, path: &[(u64, u64)]) -> u64 {
    path.iter()
        .map(|&(bps, d)| (bytes * 8 * 1_000_000_000).div_ceil(bps) + d)
        .sum()
}

/// A cloud of `hosts` hosts at `router`, `mbps` / 1 ms access links.
pub fn cloud(name: &str, router: u32, hosts: u32, mbps: u64) -> CloudConfig {
    CloudConfig {
        name: name.into(),
        router,
        hosts,
        access_rate: Rate::from_mbps(mbps),
        access_delay: SimDuration::from_millis(1),
    }
}

/// Seed 002's 8-router parking lot with every router link at `mbps`.
pub fn parking_lot(mbps: u64, queue: DisciplineParams) -> ParkingLotConfig {
    let mut link_queues = Vec::new();
    for i in 0..7 {
        link_queues.push((format!("r{i}_r{}", i + 1), queue.clone()));
        link_queues.push((format!("r{}_r{i}", i + 1), queue.clone()));
    }
    ParkingLotConfig {
        routers: 8,
        link_rate: Rate::from_mbps(mbps),
        link_delay: SimDuration::from_millis(1),
        link_queues,
        access_queue: droptail(1000),
        clouds: vec![
            cloud("left", 0, 2, 4),
            cloud("right", 7, 2, 4),
            cloud("x1", 1, 1, 100),
            cloud("y1", 2, 1, 100),
            cloud("x3", 3, 1, 100),
            cloud("y3", 4, 1, 100),
        ],
        bottleneck: "r1_r2".into(),
    }
}
