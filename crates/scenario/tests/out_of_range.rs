//! Out-of-range quantities (issue 15): a rate, duration, size or count beyond what the engine
//! can represent or run is refused at parse time with the file, the key and the value as the
//! user wrote it; values at the bounds of `units::limits` and `sim::budget` are accepted.

mod fixture;
use fixture::{edit, edit_of, BASE};
use scenario::{parse_str, ScenarioError};
use std::path::Path;

const PARKING_LOT: &str = r#"
[run]
warmup = "1s"
duration = "10s"

[topology]
kind = "parking_lot"
routers = 3
link_rate = "10Mbps"
link_delay = "5ms"

[topology.clouds.a]
router = 0
hosts = 2
access_rate = "100Mbps"
access_delay = "1ms"

[topology.clouds.b]
router = 2
hosts = 2
access_rate = "100Mbps"
access_delay = "1ms"

[queue]
kind = "droptail"
limit = 100

[[workload]]
kind = "packmime"
rate = 10.0
client_cloud = "a"
server_cloud = "b"
"#;

/// Parse `text` expecting failure at `key` with exactly `reason`.
fn rejects(text: &str, key: &str, reason: &str) -> ScenarioError {
    let e = match parse_str(text, "big.toml", Path::new("/nonexistent-scenario-dir")) {
        Ok(_) => panic!("accepted; expected an error at {key}"),
        Err(e) => e,
    };
    assert_eq!(
        (e.file.as_str(), e.key.as_str(), e.reason.as_str()),
        ("big.toml", key, reason)
    );
    e
}

fn accepts(text: &str) {
    if let Err(e) = parse_str(text, "ok.toml", Path::new(".")) {
        panic!("rejected: {e}");
    }
}

const SIZE: &str = "too large: a size must be at most 1000GB (1e12 B)";
const DURATION: &str = "too large: a duration must be at most 1e9s (about 31.7 years)";
const DELAY: &str = "too large: a delay or RTT must be at most 1e6s (about 11.6 days)";
const RATE: &str = "too large: a rate must be at most 10000Gbps (1e13 bps)";

#[test]
fn size_shows_the_value_as_written_not_a_saturated_integer() {
    let e = rejects(
        &edit(&[("value = \"300B\"", "value = \"1e30B\"")]),
        "workload[0].request_size.value",
        &format!("\"1e30B\": {SIZE}"),
    );
    assert_eq!(
        e.to_string(),
        format!("big.toml: workload[0].request_size.value: \"1e30B\": {SIZE}")
    );
    rejects(
        &edit(&[("max = \"2MB\"", "max = \"1.5e12B\"")]),
        "workload[0].response_size.max",
        &format!("\"1.5e12B\": {SIZE}"),
    );
    rejects(
        &edit(&[("limit = 100", "limit = \"1e30B\"")]),
        "queue.limit",
        &format!("\"1e30B\": {SIZE}"),
    );
}

#[test]
fn link_delays_are_bounded_at_1e6_s() {
    rejects(
        &edit(&[(
            "bottleneck_delay = \"10ms\"",
            "bottleneck_delay = \"1e30s\"",
        )]),
        "topology.bottleneck_delay",
        &format!("\"1e30s\": {DURATION}"),
    );
    rejects(
        &edit(&[("access_delay = \"1ms\"", "access_delay = \"1000001s\"")]),
        "topology.access_delay",
        &format!("\"1000001s\": {DELAY}"),
    );
    rejects(
        &edit_of(
            PARKING_LOT,
            &[("link_delay = \"5ms\"", "link_delay = \"12d\"")],
        ),
        "topology.link_delay",
        "\"12d\": unknown time unit \"d\" (ns, us, ms, s, min, h)",
    );
    rejects(
        &edit_of(
            PARKING_LOT,
            &[("link_delay = \"5ms\"", "link_delay = \"300h\"")],
        ),
        "topology.link_delay",
        &format!("\"300h\": {DELAY}"),
    );
    rejects(
        &edit_of(
            PARKING_LOT,
            &[("access_delay = \"1ms\"", "access_delay = \"2e6s\"")],
        ),
        "topology.clouds.a.access_delay",
        &format!("\"2e6s\": {DELAY}"),
    );
    accepts(&edit(&[(
        "bottleneck_delay = \"10ms\"",
        "bottleneck_delay = \"1e6s\"",
    )]));
}

#[test]
fn delaybox_rtts_are_bounded_at_1e6_s() {
    let matrix = |cell: &str| {
        format!(
            "{BASE}\n[topology.delaybox]\nmatrix = [[\"1ms\", \"{cell}\"], [\"3ms\", \"4ms\"]]\n"
        )
    };
    rejects(
        &matrix("1e30ms"),
        "topology.delaybox.matrix[0][1]",
        &format!("\"1e30ms\": {DURATION}"),
    );
    rejects(
        &matrix("2e9ms"),
        "topology.delaybox.matrix[0][1]",
        &format!("\"2e9ms\": {DELAY}"),
    );
    accepts(&matrix("1e9ms"));
    rejects(
        &format!(
            "{BASE}\n[topology.delaybox]\nrtt = {{ dist = \"constant\", value = \"1e30ms\" }}\n"
        ),
        "topology.delaybox.rtt.value",
        &format!("\"1e30ms\": {DURATION}"),
    );
    rejects(
        &format!("{BASE}\n[topology.delaybox]\nrtt = {{ dist = \"uniform\", min = \"0s\", max = \"3e6s\" }}\n"),
        "topology.delaybox.rtt.max",
        &format!("\"3e6s\": {DELAY}"),
    );
    rejects(
        &edit(&[(
            "rate = 10.0\n",
            "rate = 10.0\ndelaybox = { client = { dist = \"exponential\", mean = \"2e6s\" } }\n",
        )]),
        "workload[0].delaybox.client.mean",
        &format!("\"2e6s\": {DELAY}"),
    );
}

#[test]
fn delaybox_matrix_file_cells_are_bounded() {
    let dir = std::env::temp_dir().join(format!("scenario-oor-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("rtt.csv"), "1,2\n3,1e30\n").unwrap();
    let text = format!("{BASE}\n[topology.delaybox]\nmatrix_file = \"rtt.csv\"\n");
    let e = parse_str(&text, "big.toml", &dir).unwrap_err();
    assert_eq!(e.key, "topology.delaybox.matrix_file");
    assert!(
        e.reason
            .ends_with(&format!("rtt.csv line 2, column 2: \"1e30\" ms: {DELAY}")),
        "{}",
        e.reason
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn run_length_is_bounded_at_1e9_s() {
    rejects(
        &edit(&[("duration = \"10s\"", "duration = \"1e30s\"")]),
        "run.duration",
        &format!("\"1e30s\": {DURATION}"),
    );
    rejects(
        &edit(&[
            ("warmup = \"1s\"", "warmup = \"6e8s\""),
            ("duration = \"10s\"", "duration = \"6e8s\""),
            ("rate = 10.0", "rate = 0.001"),
        ]),
        "run.duration",
        "too long: warmup (600000000.000000000s) + duration (600000000.000000000s) must be at \
         most 1e9s (about 31.7 years)",
    );
}

#[test]
fn rates_are_bounded_before_rounding() {
    rejects(
        &edit(&[(
            "bottleneck_rate = \"10Mbps\"",
            "bottleneck_rate = \"1e30Gbps\"",
        )]),
        "topology.bottleneck_rate",
        &format!("\"1e30Gbps\": {RATE}"),
    );
    accepts(&edit(&[(
        "access_rate = \"100Mbps\"",
        "access_rate = \"10000Gbps\"",
    )]));
}

#[test]
fn budget_connection_rate_refused_by_events() {
    rejects(
        &edit(&[("rate = 10.0", "rate = 1e30")]),
        "workload[0].rate",
        // 1.1e32 events / 8e6 per s = 1.375e25 s = 4.4e17 years.
        "too large a run: 1e30 connections/s over 11 s (warmup + duration) is about 1.1e31 \
         connections, at least 1.1e32 events, about 4.4e17 years at 8e6 events/s; aqmlab refuses \
         runs above 1e11 events (3.5 h)",
    );
}

#[test]
fn budget_connection_rate_refused_by_memory() {
    // 1e7/s × 11 s = 1.1e8 connections: 1.1e9 events (allowed) but 19.8 GB of records.
    rejects(
        &edit(&[("rate = 10.0", "rate = 1e7")]),
        "workload[0].rate",
        "too large a run: 1e7 connections/s over 11 s (warmup + duration) is about 1.1e8 \
         connections, needing about 19.8 GB of memory; aqmlab refuses more than 8.0 GB",
    );
    // 4e7 connections: 7.2 GB, allowed.
    accepts(&edit(&[("rate = 10.0", "rate = 3.6e6")]));
}

#[test]
fn budget_datagrams_refused_by_events() {
    let cbr = |rate: &str| {
        format!(
            "{BASE}\n[[workload]]\nkind = \"cbr\"\nrate = \"{rate}\"\npacket_size = \"1000B\"\n"
        )
    };
    rejects(
        &cbr("1e30Gbps"),
        "workload[1].rate",
        &format!("\"1e30Gbps\": {RATE}"),
    );
    // 10 Tbps / 8000 bit × 11 s = 1.375e10 datagrams, 2.75e10 events: allowed; with 210-B
    // packets 6.5e10 datagrams, 1.3e11 events: refused.
    accepts(&cbr("10000Gbps"));
    rejects(
        &cbr("10000Gbps").replace("packet_size = \"1000B\"\n", ""),
        "workload[1].rate",
        // 1.31e11 events / 8e6 per s = 16,370 s = 4.5 h.
        "too large a run: 1e13 bps in 210 B packets for 11 s is about 6.55e10 datagrams, at \
         least 1.31e11 events, about 4.5 h at 8e6 events/s; aqmlab refuses runs above 1e11 \
         events (3.5 h)",
    );
}

#[test]
fn budget_monitor_samples_refused_by_events() {
    // Issue 30: the quickstart's 660 s with a queue sample every 1 ns is 6.6e11 samples, each
    // an event; the cost model did not count them (an ETA of about 3 hours once started).
    let long = |sample: &str| {
        edit(&[
            ("warmup = \"1s\"", "warmup = \"60s\""),
            ("duration = \"10s\"", "duration = \"600s\""),
        ]) + &format!("\n[monitor]\nqueue_sample = \"{sample}\"\n")
    };
    rejects(
        &long("1ns"),
        "monitor.queue_sample",
        // 6.6e11 / 8e6 per s = 82,500 s = 23 h (0.95 days).
        "too large a run: a queue sample every 1ns for 660 s (warmup + duration) is 6.6e11 \
         samples, at least 6.6e11 events, about 23 h at 8e6 events/s; aqmlab refuses runs above \
         1e11 events (3.5 h)",
    );
    // Every 7 ns: 9.4e10 samples, under the bound (announced by `aqmlab run`, not refused).
    accepts(&long("7ns"));
    rejects(
        &long("6ns"),
        "monitor.queue_sample",
        "too large a run: a queue sample every 6ns for 660 s (warmup + duration) is 1.1e11 \
         samples, at least 1.1e11 events, about 3.8 h at 8e6 events/s; aqmlab refuses runs above \
         1e11 events (3.5 h)",
    );
    // The intervals count too: 6.01e11 + 1.5e11 (+ 2e5 samples, 6e4 connections' 6e5 events)
    // = 7.51e11 events, 93,900 s = 1.1 days.
    let intervals = edit(&[("duration = \"10s\"", "duration = \"600s\"")])
        + "\n[monitor]\nqueue_interval = \"1ns\"\nlink_interval = \"4ns\"\n";
    rejects(
        &intervals,
        "monitor.queue_interval",
        "too large a run: a queue interval every 1ns for 601 s (warmup + duration) is 6.01e11 \
         intervals, at least 6.01e11 events (7.51e11 for the whole run), about 1.1 days at 8e6 \
         events/s; aqmlab refuses runs above 1e11 events (3.5 h)",
    );
}

#[test]
fn budget_users_hosts_and_routers_refused_by_memory() {
    rejects(
        &edit(&[
            ("arrival = \"poisson\"\nrate = 10.0", "arrival = \"users\"\nusers = 4000000000\nthink = { dist = \"constant\", value = \"1s\" }"),
        ]),
        "workload[0].users",
        "too large a run: 4000000000 users at ≈ 197 B each (state and one request record), \
         needing about 788.0 GB of memory; aqmlab refuses more than 8.0 GB",
    );
    rejects(
        &format!("{BASE}\n[[workload]]\nkind = \"mah\"\nusers = 100000000\n"),
        "workload[1].users",
        "too large a run: 100000000 users at ≈ 228 B each (state and one request record), \
         needing about 22.8 GB of memory; aqmlab refuses more than 8.0 GB",
    );
    rejects(
        &edit(&[("clients = 2", "clients = 4000000000")]),
        "topology.clients",
        "too many hosts: 4000000004 nodes (4000000000 clients + 2 servers + 2 routers) need \
         about 6.40e10 GB of memory for routes (4 B per pair of nodes) and links; aqmlab \
         refuses more than 8.0 GB (at most 44596 nodes)",
    );
    rejects(
        &edit_of(PARKING_LOT, &[("routers = 3", "routers = 4000000000")]),
        "topology.routers",
        "too many hosts: 4000000000 routers need about 6.40e10 GB of memory for routes (4 B per \
         pair of nodes) and links; aqmlab refuses more than 8.0 GB (at most 44596 nodes)",
    );
    rejects(
        &edit_of(PARKING_LOT, &[("hosts = 2\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\n[topology.clouds.b]", "hosts = 50000\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\n[topology.clouds.b]")]),
        "topology.clouds.a.hosts",
        "too many hosts: 50005 nodes (3 routers + 50002 hosts) need about 10.1 GB of memory for \
         routes (4 B per pair of nodes) and links; aqmlab refuses more than 8.0 GB (at most \
         44596 nodes)",
    );
}

#[test]
fn budget_error_in_a_variant_names_the_variant() {
    let text = format!("{BASE}\n[[variant]]\nname = \"fast\"\nworkload = [{{ kind = \"http10\", arrival = \"poisson\", rate = 1e30, request_size = {{ dist = \"constant\", value = \"300B\" }}, response_size = {{ dist = \"constant\", value = \"1KB\" }} }}]\n");
    let e = parse_str(&text, "big.toml", Path::new(".")).unwrap_err();
    assert_eq!(e.key, "variant[fast].workload[0].rate");
    assert!(
        e.reason.starts_with("too large a run: 1e30 connections/s"),
        "{}",
        e.reason
    );
}
