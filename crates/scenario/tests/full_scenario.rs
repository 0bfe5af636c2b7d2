//! Valid scenarios parse to exactly the expected `sim::Experiment` values: a full file with
//! every section and two variants, data files (empirical CDF, RTT matrix CSV), and the shipped
//! `scenarios/quickstart.toml`.

use aqm::{DisciplineParams, DropTailParams, LimitUnit, RedParams};
use scenario::{load, parse_str, NamedExperiment};
use sim::{DelayBoxConfig, DumbbellConfig, Experiment, Topology};
use std::path::{Path, PathBuf};
use tcp::{TcpConfig, Variant};
use traffic::{Arrival, BulkFlow, EmpiricalCdf, SizeDist, WorkloadConfig};
use units::{Rate, SimDuration, SimTime};

const FULL: &str = r#"
[run]
seed = 7
warmup = "60s"
duration = "10min"
stop_after_responses = 50000

[topology]
kind = "dumbbell"
clients = 2
servers = 3
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
access_queue = { kind = "droptail", limit = 500 }

[topology.delaybox]
matrix = [["10ms", "20ms", "30ms"], ["40ms", "1.5ms", "0ms"]]

[queue]
kind = "droptail"
limit = "180KB"

[reverse_queue]
kind = "droptail"
limit = 1000

[tcp]
variant = "reno"
mss = "1000B"
initial_window = 4
receive_window = "64KiB"
min_rto = "200ms"
initial_rto = "1s"
max_rto = "30s"
clock_granularity = "1ms"
delayed_ack = "100ms"
dupack_threshold = 2
max_syn_retries = 3
max_retries = 5

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 225.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }

[[workload]]
kind = "http10"
arrival = "users"
users = 100
think = { dist = "exponential", mean = "5s" }
request_size = { dist = "uniform", min = "200B", max = "1.5KB" }
response_size = { dist = "lognormal", mu = 8.5, sigma = 1.25 }
clients = 1

[[workload]]
kind = "pareto_web"
flows = 100

[[workload]]
kind = "bulk"
flows = [{ start = "0s", client = 0, server = 2, bytes = "10MB" }, { start = "2.5s", client = 1, server = 0 }]

[monitor]
queue_interval = "50ms"
queue_sample = "1ms"
pcap = ["bottleneck", "client0_up"]

[[variant]]
name = "droptail-120"
queue = { kind = "droptail", limit = 120 }

[[variant]]
name = "red"
queue = { kind = "red", min_th = 30, max_th = 90, w_q = "1/512", max_p = 0.1, limit = 480 }
reverse_queue = { limit = 2000 }
run = { seed = 8 }
"#;

fn dumbbell(e: &Experiment) -> &DumbbellConfig {
    match &e.topology {
        Topology::Dumbbell(d) => d,
        other => panic!("expected a dumbbell, got {other:?}"),
    }
}

fn droptail(limit: u64, unit: LimitUnit) -> DisciplineParams {
    DisciplineParams::DropTail(DropTailParams {
        limit,
        unit,
        ..Default::default()
    })
}

// `..Default::default()` keeps these compiling when the owners add fields (with defaults).
#[allow(clippy::needless_update)]
fn red_30_90() -> DisciplineParams {
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

#[allow(clippy::needless_update)]
fn expected_tcp() -> TcpConfig {
    TcpConfig {
        variant: Variant::Reno,
        mss: 1000,
        initial_window: 4,
        receive_window: 65536,
        min_rto: SimDuration::from_millis(200),
        initial_rto: SimDuration::from_secs(1),
        max_rto: SimDuration::from_secs(30),
        clock_granularity: SimDuration::from_millis(1),
        delayed_ack: Some(SimDuration::from_millis(100)),
        dupack_threshold: 2,
        max_syn_retries: 3,
        max_retries: 5,
        ..TcpConfig::default()
    }
}

fn expected_workloads() -> Vec<WorkloadConfig> {
    vec![
        WorkloadConfig::Http10 {
            arrival: Arrival::Poisson { rate: 225.0 },
            request_bytes: SizeDist::Constant { value: 300.0 },
            response_bytes: SizeDist::BoundedPareto {
                shape: 1.2,
                min: 1000.0,
                max: 2_000_000.0,
            },
            clients: 2,
            servers: 3,
        },
        WorkloadConfig::Http10 {
            arrival: Arrival::Users {
                users: 100,
                think_s: SizeDist::Exponential { mean: 5.0 },
            },
            request_bytes: SizeDist::Uniform {
                min: 200.0,
                max: 1500.0,
            },
            response_bytes: SizeDist::Lognormal {
                mu: 8.5,
                sigma: 1.25,
            },
            clients: 1,
            servers: 3,
        },
        WorkloadConfig::ParetoWeb {
            flows: 100,
            sizes: traffic::ParetoSizes::Pareto,
            shape: 1.2,
            mean_bytes: 10_000.0,
            min_bytes: 1_000.0,
            max_bytes: 2_000_000.0,
            off_time: SimDuration::from_millis(500),
            clients: 2,
            servers: 3,
        },
        WorkloadConfig::Bulk {
            flows: vec![
                BulkFlow {
                    start: SimTime::ZERO,
                    client: 0,
                    server: 2,
                    bytes: Some(10_000_000),
                },
                BulkFlow {
                    start: SimTime::from_millis(2500),
                    client: 1,
                    server: 0,
                    bytes: None,
                },
            ],
        },
    ]
}

/// Everything but the queues and the seed is the same in both variants.
fn assert_common(e: &Experiment) {
    assert_eq!(e.warmup, SimDuration(60_000_000_000));
    assert_eq!(e.duration, SimDuration(600_000_000_000));
    assert_eq!(e.stop_after_responses, Some(50_000));
    let d = dumbbell(e);
    assert_eq!((d.clients, d.servers), (2, 3));
    assert_eq!(d.access_rate, Rate::from_bps(100_000_000));
    assert_eq!(d.access_delay, SimDuration(1_000_000));
    assert_eq!(d.bottleneck_rate, Rate::from_bps(10_000_000));
    assert_eq!(d.bottleneck_delay, SimDuration(10_000_000));
    assert_eq!(d.access_queue, droptail(500, LimitUnit::Packets));
    match &d.delaybox {
        Some(DelayBoxConfig::Matrix { rtt }) => {
            let ms = |x: u64| SimDuration::from_millis(x);
            assert_eq!(
                rtt,
                &vec![
                    vec![ms(10), ms(20), ms(30)],
                    vec![ms(40), SimDuration(1_500_000), ms(0)]
                ]
            );
        }
        other => panic!("expected a matrix delaybox, got {other:?}"),
    }
    assert_eq!(e.tcp, expected_tcp());
    assert_eq!(e.workloads, expected_workloads());
    assert_eq!(e.monitor.queue_interval, SimDuration::from_millis(50));
    assert_eq!(e.monitor.queue_sample, SimDuration::from_millis(1));
    assert_eq!(e.monitor.link_interval, SimDuration::from_secs(1)); // default
    assert_eq!(e.monitor.pcap, ["bottleneck", "client0_up"]);
}

fn parse_full() -> Vec<NamedExperiment> {
    parse_str(FULL, "full.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn full_scenario_variants_in_order() {
    let names: Vec<_> = parse_full().into_iter().map(|n| n.name).collect();
    assert_eq!(names, ["droptail-120", "red"]);
}

#[test]
fn full_scenario_droptail_variant_exact_values() {
    let exps = parse_full();
    let e = &exps[0].experiment;
    assert_common(e);
    assert_eq!(e.seed, 7);
    let d = dumbbell(e);
    assert_eq!(d.forward_queue, droptail(120, LimitUnit::Packets));
    assert_eq!(d.reverse_queue, droptail(1000, LimitUnit::Packets));
}

#[test]
fn full_scenario_red_variant_is_deep_merged() {
    let exps = parse_full();
    let e = &exps[1].experiment;
    // The red variant keeps the base tcp, workloads, topology and monitor (assert_common),
    // overrides only run.seed (keeping warmup/duration) and the queues.
    assert_common(e);
    assert_eq!(e.seed, 8);
    let d = dumbbell(e);
    assert_eq!(d.forward_queue, red_30_90());
    let DisciplineParams::Red(r) = &d.forward_queue else {
        unreachable!()
    };
    assert_eq!(r.w_q, 0.001953125); // 1/512 exactly
                                    // reverse_queue = { limit = 2000 } merges into the base's droptail reverse queue.
    assert_eq!(d.reverse_queue, droptail(2000, LimitUnit::Packets));
}

#[test]
fn no_variants_gives_one_experiment_named_after_the_stem() {
    let base = FULL.split("[[variant]]").next().unwrap();
    let exps = parse_str(base, "scenarios/my-study.toml", Path::new(".")).unwrap();
    assert_eq!(exps.len(), 1);
    assert_eq!(exps[0].name, "my-study");
    let d = dumbbell(&exps[0].experiment);
    assert_eq!(d.forward_queue, droptail(180_000, LimitUnit::Bytes));
    let exps = parse_str(base, "", Path::new(".")).unwrap();
    assert_eq!(exps[0].name, "base");
}

#[test]
fn defaults_when_optional_sections_are_absent() {
    let text = r#"
[run]
warmup = "0s"
duration = "1s"
[topology]
kind = "dumbbell"
clients = 1
servers = 1
access_rate = "1Gbps"
access_delay = "0ms"
bottleneck_rate = "1.5Mbps"
bottleneck_delay = "79ms"
[queue]
kind = "red"
[[workload]]
kind = "bulk"
flows = [{ start = "1s", client = 0, server = 0 }]
"#;
    let exps = parse_str(text, "min.toml", Path::new(".")).unwrap();
    let e = &exps[0].experiment;
    assert_eq!(e.seed, 1);
    assert_eq!(e.stop_after_responses, None);
    assert_eq!(e.tcp, TcpConfig::default());
    let d = dumbbell(e);
    assert_eq!(d.bottleneck_rate.bps, 1_500_000);
    assert_eq!(d.bottleneck_delay, SimDuration::from_millis(79));
    assert_eq!(d.access_queue, droptail(1000, LimitUnit::Packets));
    assert_eq!(
        d.forward_queue,
        DisciplineParams::Red(RedParams {
            mean_pktsize: 1500,
            ..RedParams::default()
        })
    );
    assert_eq!(d.reverse_queue, d.forward_queue);
    assert!(d.delaybox.is_none());
    assert_eq!(e.monitor.queue_interval, SimDuration::from_millis(100));
    assert!(e.monitor.pcap.is_empty()); // default: no pcap
}

/// A fresh directory under the system temp dir for data files.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scenario-test-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn data_files_resolve_against_the_scenario_directory() {
    let dir = temp_dir("data");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("data/resp.csv"),
        "value,cdf\n500,0.25\n1500,0.75\n15000,1.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("data/rtt.csv"), "# ms\n10, 20.5\n0,150\n").unwrap();
    let text = FULL
        .split("[[variant]]")
        .next()
        .unwrap()
        .replace(
            r#"matrix = [["10ms", "20ms", "30ms"], ["40ms", "1.5ms", "0ms"]]"#,
            r#"matrix_file = "data/rtt.csv""#,
        )
        .replace("servers = 3", "servers = 2")
        .replace("server = 2,", "server = 1,")
        .replace(
            r#"response_size = { dist = "lognormal", mu = 8.5, sigma = 1.25 }"#,
            r#"response_size = { dist = "empirical", file = "data/resp.csv" }"#,
        );
    std::fs::write(dir.join("study.toml"), &text).unwrap();
    let exps = load(&dir.join("study.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exps[0].name, "study");
    let e = &exps[0].experiment;
    match &dumbbell(e).delaybox {
        Some(DelayBoxConfig::Matrix { rtt }) => assert_eq!(
            rtt,
            &vec![
                vec![SimDuration::from_millis(10), SimDuration(20_500_000)],
                vec![SimDuration::ZERO, SimDuration::from_millis(150)]
            ]
        ),
        other => panic!("expected a matrix delaybox, got {other:?}"),
    }
    let WorkloadConfig::Http10 { response_bytes, .. } = &e.workloads[1] else {
        panic!()
    };
    assert_eq!(
        response_bytes,
        &SizeDist::Empirical(EmpiricalCdf {
            points: vec![(500.0, 0.25), (1500.0, 0.75), (15000.0, 1.0)]
        })
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quickstart_file_loads_with_both_variants() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let exps = load(&path).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = exps.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["droptail", "red"]);
    for n in &exps {
        let e = &n.experiment;
        assert_eq!(e.seed, 1);
        assert_eq!(e.warmup, SimDuration::from_secs(60));
        assert_eq!(e.duration, SimDuration::from_secs(600));
        assert_eq!(e.tcp, TcpConfig::default());
        let d = dumbbell(e);
        assert_eq!((d.clients, d.servers), (20, 20));
        assert_eq!(
            (d.access_rate.bps, d.access_delay),
            (100_000_000, SimDuration::from_millis(1))
        );
        assert_eq!(
            (d.bottleneck_rate.bps, d.bottleneck_delay),
            (10_000_000, SimDuration::from_millis(10))
        );
        match &d.delaybox {
            Some(DelayBoxConfig::Distribution { rtt_s }) => assert_eq!(
                rtt_s,
                &SizeDist::Uniform {
                    min: 0.0,
                    max: 0.15
                }
            ),
            other => panic!("expected a uniform RTT distribution, got {other:?}"),
        }
        assert_eq!(
            e.workloads,
            vec![WorkloadConfig::Http10 {
                arrival: Arrival::Poisson { rate: 225.0 },
                request_bytes: SizeDist::Constant { value: 300.0 },
                response_bytes: SizeDist::BoundedPareto {
                    shape: 1.2,
                    min: 1000.0,
                    max: 2_000_000.0
                },
                clients: 20,
                servers: 20,
            }]
        );
        assert_eq!(d.reverse_queue, d.forward_queue);
    }
    assert_eq!(
        dumbbell(&exps[0].experiment).forward_queue,
        droptail(120, LimitUnit::Packets)
    );
    assert_eq!(dumbbell(&exps[1].experiment).forward_queue, red_30_90());
}

#[test]
fn every_shipped_scenario_file_is_valid() {
    // scenarios/ and its study subdirectories (one level).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<PathBuf> = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else {
            files.push(p);
        }
    }
    files.retain(|p| p.extension().is_some_and(|x| x == "toml"));
    files.sort();
    assert!(files.iter().any(|p| p.ends_with("quickstart.toml")));
    assert!(files
        .iter()
        .any(|p| p.ends_with("christiansen2000/lab_constrained.toml")));
    for f in files {
        let exps = load(&f).unwrap_or_else(|e| panic!("{e}"));
        assert!(!exps.is_empty(), "{}", f.display());
    }
}

#[test]
fn replay_workload_reads_its_trace_and_rejects_what_would_mislead() {
    let dir = temp_dir("replay");
    std::fs::write(
        dir.join("trace.csv"),
        "start_s,request_bytes,response_bytes,server_delay_s,client_rtt_s,server_rtt_s\n\
         0.25,300,12000,0.01,0.02,0.06\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("bad.csv"),
        "start_s,request_bytes,response_bytes\n1,0,5\n",
    )
    .unwrap();
    let base = r#"
[run]
warmup = "0s"
duration = "10s"
[topology]
kind = "dumbbell"
clients = 3
servers = 3
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"
[queue]
kind = "droptail"
limit = 100
[[workload]]
kind = "replay"
file = "trace.csv"
direction = "reverse"
clients = 2
"#;
    let load_text = |text: &str| {
        std::fs::write(dir.join("s.toml"), text).unwrap();
        load(&dir.join("s.toml"))
    };
    let exps = load_text(base).unwrap_or_else(|e| panic!("{e}"));
    let e = &exps[0].experiment;
    let WorkloadConfig::Replay {
        conns,
        clients,
        servers,
    } = &e.workloads[0]
    else {
        panic!("{:?}", e.workloads[0])
    };
    assert_eq!((conns.len(), *clients, *servers), (1, 2, 3));
    assert_eq!(conns[0].response_bytes, 12000);
    assert_eq!(
        conns[0].box_rtt,
        Some([SimDuration::from_millis(20), SimDuration::from_millis(60)])
    );
    for (text, key, reason) in [
        (
            base.replace("file = \"trace.csv\"", "file = \"bad.csv\""),
            "workload[0].file",
            "bad.csv: line 2: request_bytes: expected a whole number of bytes ≥ 1, got \"0\"",
        ),
        (
            base.replace("file = \"trace.csv\"", "file = \"none.csv\""),
            "workload[0].file",
            "cannot read the trace",
        ),
        (
            base.replace(
                "clients = 2\n",
                "delaybox = { client = { dist = \"constant\", value = \"5ms\" } }\n",
            ),
            "workload[0].delaybox",
            "the trace file has client_rtt_s/server_rtt_s columns",
        ),
        (
            base.replace("clients = 2\n", "rate = 3\n"),
            "workload[0].rate",
            "unknown key",
        ),
    ] {
        let err = load_text(&text).expect_err("must be rejected");
        assert_eq!(err.key, key, "{err}");
        assert!(err.reason.contains(reason), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
