//! Same (config, stream) → the same requests at the same times; another stream → different.

use super::*;
use crate::distribution::SizeDist;

fn configs() -> Vec<WorkloadConfig> {
    vec![
        WorkloadConfig::Http10 {
            arrival: Arrival::Poisson { rate: 20.0 },
            request_bytes: SizeDist::Lognormal {
                mu: 5.5,
                sigma: 0.5,
            },
            response_bytes: SizeDist::BoundedPareto {
                shape: 1.2,
                min: 1000.0,
                max: 2e6,
            },
            clients: 4,
            servers: 4,
        },
        WorkloadConfig::Http10 {
            arrival: Arrival::Users {
                users: 20,
                think_s: SizeDist::Exponential { mean: 3.0 },
            },
            request_bytes: SizeDist::Uniform {
                min: 200.0,
                max: 400.0,
            },
            response_bytes: SizeDist::Exponential { mean: 8000.0 },
            clients: 3,
            servers: 5,
        },
        WorkloadConfig::ParetoWeb {
            flows: 20,
            sizes: ParetoSizes::Pareto,
            shape: 1.2,
            mean_bytes: 10_000.0,
            min_bytes: 1_000.0,
            max_bytes: 2e6,
            off_time: SimDuration::from_millis(500),
            clients: 20,
            servers: 20,
        },
    ]
}

fn run(cfg: &WorkloadConfig, stream: &str) -> Vec<(SimTime, Request)> {
    let mut w = Workload::new(cfg.clone()).unwrap();
    let mut r = units::stream(42, stream);
    drive(&mut w, &mut r, secs(60), |q| {
        Some(SimDuration::from_nanos(q.response_bytes * 800 + 50_000_000))
    })
}

#[test]
fn same_stream_same_sequence_other_stream_differs() {
    for cfg in configs() {
        let a = run(&cfg, "workload:0");
        assert!(a.len() > 100, "{cfg:?}");
        assert_eq!(a, run(&cfg, "workload:0"), "{cfg:?}");
        assert_ne!(a, run(&cfg, "workload:1"), "{cfg:?}");
    }
}
