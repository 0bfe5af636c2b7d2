//! aqmlab side of validation/ns2/red_side_by_side.tcl: the same dumbbell, flows and RED, gentle
//! RED and Adaptive RED settings (ns-2.35's rules: wait, backlog gate, idle decay, arrival-
//! triggered adaptation, frozen gentle slope; packet mode; `use_mark_p_ false` in the Tcl keeps
//! the forced drops), printing one
//! line per run in the format of validation/ns2/run.sh.
//!
//! Run: `cargo run --release -p sim --example red_side_by_side`

use aqm::{
    AdaptOn, AredParams, CountRule, Discipline, DisciplineParams, DropTailParams, IdleDecay,
    RedParams,
};
use sim::{DumbbellConfig, Experiment, MonitorConfig, Topology};
use tcp::TcpConfig;
use traffic::{BulkFlow, WorkloadConfig};
use units::{Rate, SimDuration, SimTime};

fn queue(mode: &str) -> DisciplineParams {
    let red = RedParams {
        min_th: 5.0,
        max_th: 15.0,
        w_q: 0.002,
        max_p: 0.1,
        limit: 100,
        mean_pktsize: 1500,
        count_rule: CountRule::Ns2Wait,
        backlog_gate: true,
        idle_decay: IdleDecay::Ns2,
        ..Default::default()
    };
    match mode {
        "red" => DisciplineParams::Red(red),
        "gentle" => DisciplineParams::Red(RedParams {
            gentle: true,
            ..red
        }),
        _ => DisciplineParams::Ared(AredParams {
            limit: 100,
            mean_pktsize: 1500,
            count_rule: CountRule::Ns2Wait,
            clamp_max_p: false,
            gentle_uses_initial_max_p: true,
            backlog_gate: true,
            idle_decay: IdleDecay::Ns2,
            adapt_on: AdaptOn::Arrival,
            ..Default::default()
        }),
    }
}

fn main() {
    for mode in ["red", "gentle", "ared"] {
        for n in [4u32, 20] {
            let q = queue(mode);
            let exp = Experiment {
                seed: 1,
                warmup: SimDuration::from_secs(20),
                duration: SimDuration::from_secs(60),
                stop_after_responses: None,
                topology: Topology::Dumbbell(DumbbellConfig {
                    clients: n,
                    servers: n,
                    access_rate: Rate::from_mbps(100),
                    server_access_rate: None,
                    access_delay: SimDuration::from_millis(1),
                    access_queue: DisciplineParams::DropTail(DropTailParams {
                        limit: 1000,
                        ..Default::default()
                    }),
                    bottleneck_rate: Rate::from_mbps(10),
                    bottleneck_delay: SimDuration::from_millis(10),
                    forward_queue: q.clone(),
                    reverse_queue: q,
                    delaybox: None,
                }),
                tcp: TcpConfig {
                    receive_window: 1 << 30,
                    ..Default::default()
                },
                workloads: vec![WorkloadConfig::Bulk {
                    flows: (0..n)
                        .map(|i| BulkFlow {
                            start: SimTime::from_millis(i as u64),
                            client: i,
                            server: i,
                            bytes: None,
                        })
                        .collect(),
                }],
                placements: Vec::new(),
                delayboxes: Vec::new(),
                workload_tcp: Vec::new(),
                monitor: MonitorConfig::default(),
            };
            let out = sim::run(&exp, &mut |_, _| {}).expect("run");
            let s = &out.summary;
            let (max_p, avg) = match &out.bottleneck_queue {
                Discipline::Red(r) => (r.max_p(), r.avg()),
                Discipline::Ared(a) => (a.max_p(), a.avg()),
                _ => unreachable!(),
            };
            println!(
                "aqmlab mode={mode} flows={n} arrivals={} drops={} early={} forced={} util={:.4} \
                 final_max_p={max_p:.5} final_ave={avg:.3} mean_q={:.3}",
                s.arrivals,
                s.drops,
                (s.unforced_pct.unwrap_or(f64::NAN) / 100.0 * s.drops as f64).round(),
                (s.forced_pct.unwrap_or(f64::NAN) / 100.0 * s.drops as f64).round(),
                s.utilization,
                s.mean_qlen
            );
        }
    }
}
