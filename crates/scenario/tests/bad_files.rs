//! Every mistake is rejected with the file, the exact key path and a distinctive reason; the
//! Display form is "file: key: reason". Each case edits one valid fixture.

mod fixture;
use fixture::{edit, BASE};
use scenario::{parse_str, ScenarioError};
use std::path::Path;

/// Parse `text` (expecting failure) and check key and reason.
fn rejects(text: &str, key: &str, reason_part: &str) -> ScenarioError {
    let e = match parse_str(text, "bad.toml", Path::new("/nonexistent-scenario-dir")) {
        Ok(x) => panic!(
            "accepted; expected an error at {key}: {} experiments",
            x.len()
        ),
        Err(e) => e,
    };
    assert_eq!(e.file, "bad.toml");
    assert_eq!(e.key, key, "reason was: {}", e.reason);
    assert!(
        e.reason.contains(reason_part),
        "reason {:?} lacks {:?}",
        e.reason,
        reason_part
    );
    e
}

#[test]
fn fixture_is_valid() {
    assert_eq!(parse_str(BASE, "ok.toml", Path::new(".")).unwrap().len(), 1);
}

#[test]
fn unknown_key_at_top_level() {
    rejects(
        &format!("colour = \"red\"\n{BASE}"),
        "colour",
        "unknown key; expected one of: run, topology, queue, reverse_queue, tcp, workload, monitor, variant, tune",
    );
}

#[test]
fn unknown_key_in_tcp() {
    rejects(
        &format!("{BASE}\n[tcp]\nmss = \"1460B\"\nslow_starts = true\n"),
        "tcp.slow_starts",
        "unknown key; expected one of: variant, mss,",
    );
}

#[test]
fn unknown_key_in_a_variant() {
    rejects(
        &format!("{BASE}\n[[variant]]\nname = \"v\"\ntcp = {{ msss = \"1B\" }}\n"),
        "variant[v].tcp.msss",
        "unknown key",
    );
}

#[test]
fn missing_bottleneck_rate() {
    rejects(
        &edit(&[("bottleneck_rate = \"10Mbps\"\n", "")]),
        "topology.bottleneck_rate",
        "missing required key",
    );
}

#[test]
fn missing_run_warmup() {
    rejects(
        &edit(&[("warmup = \"1s\"\n", "")]),
        "run.warmup",
        "missing required key",
    );
}

#[test]
fn rate_with_a_size_unit() {
    rejects(
        &edit(&[("\"10Mbps\"", "\"10MB\"")]),
        "topology.bottleneck_rate",
        "unknown rate unit \"MB\"",
    );
}

#[test]
fn rate_negative() {
    rejects(
        &edit(&[("\"10Mbps\"", "\"-10Mbps\"")]),
        "topology.bottleneck_rate",
        "cannot be negative",
    );
}

#[test]
fn rate_plain_number_names_the_unit() {
    rejects(
        &edit(&[("\"10Mbps\"", "10")]),
        "topology.bottleneck_rate",
        "a unit is required: expected a rate string",
    );
}

#[test]
fn poisson_rate_zero() {
    rejects(
        &edit(&[("rate = 10.0", "rate = 0")]),
        "workload[0].rate",
        "must be greater than 0 connections per second",
    );
}

#[test]
fn red_min_th_above_max_th_in_variant() {
    let text = format!(
        "{BASE}\n[[variant]]\nname = \"ok\"\n\n[[variant]]\nname = \"red\"\nqueue = {{ kind = \"red\", min_th = 100, max_th = 90, w_q = \"1/512\", max_p = 0.1, limit = 480 }}\n"
    );
    rejects(
        &text,
        "variant[red].queue.min_th",
        "must be less than max_th (min_th = 100, max_th = 90)",
    );
}

#[test]
fn red_w_q_zero() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"red\"\nmin_th = 5\nmax_th = 15\nw_q = 0",
        )]),
        "queue.w_q",
        "must be in (0, 1], got 0",
    );
}

#[test]
fn unknown_queue_kind() {
    rejects(
        &edit(&[("kind = \"droptail\"", "kind = \"nosuchkind\"")]),
        "queue.kind",
        "unknown kind \"nosuchkind\"; expected one of: droptail, red",
    );
}

#[test]
fn codel_interval_not_above_target() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"codel\"\ntarget = \"20ms\"\ninterval = \"10ms\"",
        )]),
        "queue.interval",
        "must be greater than target (20000000 ns), got 10000000 ns",
    );
}

#[test]
fn codel_limit_as_size_string() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"codel\"\nlimit = \"100KB\"",
        )]),
        "queue.limit",
        "CoDel's limit is in packets",
    );
}

#[test]
fn pie_max_ecnth_above_one() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"pie\"\necn = true\nmax_ecnth = 1.5",
        )]),
        "queue.max_ecnth",
        "must be in [0, 1], got 1.5",
    );
}

#[test]
fn pie_tupdate_plain_number() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"pie\"\ntupdate = 15",
        )]),
        "queue.tupdate",
        "a unit is required",
    );
}

#[test]
fn blue_threshold_not_below_limit() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"blue\"\nlimit = 40\nthreshold = 40",
        )]),
        "queue.threshold",
        "must be less than limit (40), got 40",
    );
}

#[test]
fn avq_gamma_above_one() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"avq\"\ngamma = 1.2",
        )]),
        "queue.gamma",
        "must be in (0, 1], got 1.2",
    );
}

#[test]
fn fq_codel_zero_flows() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"fq_codel\"\nflows = 0",
        )]),
        "queue.flows",
        "must be at least 1, got 0",
    );
}

#[test]
fn fq_codel_quantum_zero_bytes() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"fq_codel\"\nquantum = \"0B\"",
        )]),
        "queue.quantum",
        "must be at least 1 bytes, got 0 B",
    );
}

#[test]
fn ared_ecn_rule_without_ecn() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"ared\"\ntarget_delay = \"60ms\"\necn_rule = \"always\"",
        )]),
        "queue.ecn_rule",
        "has no effect unless ecn = true",
    );
}

#[test]
fn ared_bottom_above_top() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"ared\"\nbottom = 0.6",
        )]),
        "queue.bottom",
        "must be in (0, top = 0.5), got 0.6",
    );
}

#[test]
fn red_unknown_count_rule() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"red\"\ncount_rule = \"ns2\"",
        )]),
        "queue.count_rule",
        "unknown count_rule \"ns2\"; expected one of: paper, altq, ns2_wait",
    );
}

#[test]
fn droptail_key_on_red_queue() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"",
            "kind = \"red\"\nns2_off_by_one = true",
        )]),
        "queue.ns2_off_by_one",
        "unknown key",
    );
}

#[test]
fn bulk_server_out_of_range_has_no_route() {
    let text = format!("{BASE}\n[[workload]]\nkind = \"bulk\"\nflows = [{{ start = \"0s\", client = 1, server = 2 }}]\n");
    rejects(
        &text,
        "workload[1].flows[0].server",
        "no route: server 2 does not exist; the topology has 2 servers",
    );
}

#[test]
fn delaybox_matrix_wrong_dimensions() {
    let text = format!("{BASE}\n[topology.delaybox]\nmatrix = [[\"1ms\", \"2ms\"], [\"3ms\", \"4ms\"], [\"5ms\", \"6ms\"]]\n");
    rejects(
        &text,
        "topology.delaybox.matrix",
        "matrix has 3 rows but the topology has 2 clients",
    );
    let text = format!("{BASE}\n[topology.delaybox]\nmatrix = [[\"1ms\", \"2ms\"], [\"3ms\"]]\n");
    rejects(
        &text,
        "topology.delaybox.matrix[1]",
        "row 1 has 1 columns but the topology has 2 servers",
    );
}

#[test]
fn delaybox_needs_exactly_one_source() {
    let text = format!("{BASE}\n[topology.delaybox]\nmatrix = [[\"1ms\", \"2ms\"], [\"3ms\", \"4ms\"]]\nrtt = {{ dist = \"constant\", value = \"5ms\" }}\n");
    rejects(&text, "topology.delaybox.matrix", "conflicts with rtt");
}

#[test]
fn delaybox_matrix_file_missing() {
    let text = format!("{BASE}\n[topology.delaybox]\nmatrix_file = \"rtt.csv\"\n");
    rejects(
        &text,
        "topology.delaybox.matrix_file",
        "cannot read RTT matrix file /nonexistent-scenario-dir/rtt.csv",
    );
}

#[test]
fn empirical_file_missing() {
    rejects(
        &edit(&[(
            "{ dist = \"constant\", value = \"300B\" }",
            "{ dist = \"empirical\", file = \"req.csv\" }",
        )]),
        "workload[0].request_size.file",
        "cannot read empirical CDF file /nonexistent-scenario-dir/req.csv",
    );
}

#[test]
fn empirical_file_with_a_header_of_other_columns() {
    // Issue 30: `value,cdf,x` was read by position (the third column as the CDF).
    let dir = std::env::temp_dir().join(format!("scenario-bad-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("resp.csv"), "value,cdf,x\n1000,1,0.5\n2000,1,1\n").unwrap();
    let text = edit(&[(
        "{ dist = \"constant\", value = \"300B\" }",
        "{ dist = \"empirical\", file = \"resp.csv\" }",
    )]);
    let e = parse_str(&text, "bad.toml", &dir).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(e.key, "workload[0].request_size.file");
    assert_eq!(
        e.reason,
        format!(
            "{}: line 1: the header names the columns \"value,cdf,x\"; expected value,cdf or \
             value,count (in any order; `value` may be `value_UNIT`), or value,count,cdf",
            dir.join("resp.csv").display()
        )
    );
}

#[test]
fn duplicate_variant_names() {
    let text = format!(
        "{BASE}\n[[variant]]\nname = \"a\"\n[[variant]]\nname = \"b\"\n[[variant]]\nname = \"a\"\n"
    );
    rejects(
        &text,
        "variant[2].name",
        "duplicate variant name \"a\" (also variant[0])",
    );
}

#[test]
fn variant_name_not_a_directory_name() {
    rejects(
        &format!("{BASE}\n[[variant]]\nname = \"red/1\"\n"),
        "variant[0].name",
        "invalid variant name \"red/1\"",
    );
}

#[test]
fn unknown_dist() {
    rejects(
        &edit(&[("dist = \"bounded_pareto\"", "dist = \"zipf\"")]),
        "workload[0].response_size.dist",
        "unknown dist \"zipf\"; expected one of: constant, exponential, uniform, lognormal, bounded_pareto, empirical",
    );
}

#[test]
fn wrong_type_string_where_integer() {
    rejects(
        &edit(&[("clients = 2", "clients = \"2\"")]),
        "topology.clients",
        "expected an integer, found the string \"2\"",
    );
}

#[test]
fn no_workload() {
    let text = BASE.split("[[workload]]").next().unwrap();
    rejects(
        text,
        "workload",
        "no workload: at least one [[workload]] table is required",
    );
}

#[test]
fn lognormal_sigma_not_positive() {
    rejects(
        &edit(&[(
            "{ dist = \"bounded_pareto\", shape = 1.2, min = \"1KB\", max = \"2MB\" }",
            "{ dist = \"lognormal\", mu = 8, sigma = 0 }",
        )]),
        "workload[0].response_size.sigma",
        "must be greater than 0, got 0",
    );
    rejects(
        &edit(&[(
            "{ dist = \"bounded_pareto\", shape = 1.2, min = \"1KB\", max = \"2MB\" }",
            "{ dist = \"lognormal\", mu = 8, sigma = -1.5 }",
        )]),
        "workload[0].response_size.sigma",
        "must be greater than 0, got -1.5",
    );
}

#[test]
fn bounded_pareto_shape_not_positive() {
    rejects(
        &edit(&[("shape = 1.2", "shape = -1")]),
        "workload[0].response_size.shape",
        "must be greater than 0",
    );
}

#[test]
fn duration_zero() {
    rejects(
        &edit(&[("duration = \"10s\"", "duration = \"0s\"")]),
        "run.duration",
        "must be greater than 0",
    );
}

#[test]
fn toml_syntax_error_has_a_position() {
    rejects(
        &edit(&[("clients = 2", "clients = = 2")]),
        "line 8, column 11",
        "TOML syntax error",
    );
}

#[test]
fn display_is_file_key_reason() {
    let e = rejects(
        &edit(&[("duration = \"10s\"", "duration = \"0s\"")]),
        "run.duration",
        "must be greater than 0",
    );
    assert_eq!(
        e.to_string(),
        "bad.toml: run.duration: must be greater than 0"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert_eq!(
        boxed.to_string(),
        "bad.toml: run.duration: must be greater than 0"
    );
}

#[test]
fn no_panic_on_odd_inputs() {
    for text in [
        "",
        "run = 1",
        "[[run]]\nx = 1",
        "variant = 3",
        "[[variant]]\nname = 5",
        "workload = []",
        "\u{0}",
    ] {
        assert!(
            parse_str(text, "odd.toml", Path::new(".")).is_err(),
            "{text:?}"
        );
    }
}

#[test]
fn load_of_a_missing_file() {
    let e = scenario::load(Path::new("/nonexistent-scenario-dir/x.toml")).unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("/nonexistent-scenario-dir/x.toml", "(file)")
    );
    assert!(e.reason.starts_with("cannot read the file"), "{}", e.reason);
}

#[test]
fn pi_sampling_frequency_zero() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"pi\"\nq_ref = 20\nw_hz = 0",
        )]),
        "queue.w_hz",
        "must be in (0, 1e9] Hz, got 0",
    );
}

#[test]
fn pimc_min_cwnd_negative_in_variant() {
    let text = format!(
        "{BASE}\n[[variant]]\nname = \"pimc\"\nqueue = {{ kind = \"pimc\", min_cwnd = -1 }}\n"
    );
    rejects(&text, "variant[pimc].queue.min_cwnd", "-1");
}

#[test]
fn pisa_unknown_hintless_policy() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"pisa\"\nhintless = \"drop\"",
        )]),
        "queue.hintless",
        "unknown policy \"drop\"; expected one of: protect, pi",
    );
}

#[test]
fn rem_update_period_without_unit() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"rem\"\nb_star = 20\nupdate_period = 0.002",
        )]),
        "queue.update_period",
        "a unit is required",
    );
}

#[test]
fn rem_phi_not_above_one() {
    rejects(
        &edit(&[(
            "kind = \"droptail\"\nlimit = 100",
            "kind = \"rem\"\nphi = 1",
        )]),
        "queue.phi",
        "must be a finite number > 1, got 1",
    );
}

const MAH: &str = r#"kind = "mah"
users = 50"#;

fn mah_with(extra: &str) -> String {
    let from = r#"kind = "http10"
arrival = "poisson"
rate = 10.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }"#;
    edit(&[(from, &format!("{MAH}\n{extra}"))])
}

#[test]
fn mah_zipf_exponent_without_zipf() {
    rejects(
        &mah_with("zipf_exponent = 1.5"),
        "workload[0].zipf_exponent",
        "only meaningful with server_choice = \"zipf\"",
    );
}

#[test]
fn mah_max_parallel_zero() {
    let e = rejects(
        &mah_with("max_parallel = 0"),
        "workload[0].max_parallel",
        "0",
    );
    assert!(
        e.reason.contains("≥ 1") || e.reason.contains("at least 1"),
        "{}",
        e.reason
    );
}

#[test]
fn mah_unknown_server_choice() {
    rejects(
        &mah_with("server_choice = \"popular\""),
        "workload[0].server_choice",
        "expected one of: uniform, zipf",
    );
}

#[test]
fn mah_file_loads_with_the_thesis_rules() {
    let text = mah_with(
        "primary_replies = \"first_two_of_run\"\nthink_on_server_change = false\nthink_cap = \"10min\"",
    );
    let exps = parse_str(&text, "ok.toml", Path::new(".")).unwrap();
    let traffic::WorkloadConfig::Mah(m) = &exps[0].experiment.workloads[0] else {
        panic!("not a Mah workload")
    };
    assert_eq!((m.users, m.max_parallel, m.think_cap_s), (50, 2, 600.0));
    assert_eq!(m.primary_replies, traffic::PrimaryReplies::FirstTwoOfRun);
    assert!(!m.think_on_server_change);
}

#[test]
fn unknown_tcp_variant() {
    rejects(
        &format!("{BASE}\n[tcp]\nvariant = \"vegas\"\n"),
        "tcp.variant",
        "unknown variant \"vegas\"; expected one of: tahoe, reno, newreno, sack, cubic",
    );
}

#[test]
fn tcp_ecn_not_a_boolean() {
    rejects(
        &format!("{BASE}\n[tcp]\necn = \"on\"\nlimited_transmit = true\n"),
        "tcp.ecn",
        "a boolean (true or false)",
    );
    rejects(
        &format!("{BASE}\n[tcp]\nlimited_transmit = 1\n"),
        "tcp.limited_transmit",
        "a boolean (true or false)",
    );
}

/// BASE with its workload replaced by a PackMime one carrying `body`.
fn packmime_with(body: &str) -> String {
    let from = r#"kind = "http10"
arrival = "poisson"
rate = 10.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }"#;
    edit(&[(from, &format!("kind = \"packmime\"\n{body}"))])
}

#[test]
fn packmime_rate_must_be_positive() {
    rejects(
        &packmime_with("rate = 0"),
        "workload[0].rate",
        "must be a finite number ≥ 0.001 connections/s, got 0",
    );
    rejects(
        &packmime_with("rate = 5\nclients = 3"),
        "workload[0].clients",
        "no route: 3 clients requested but the topology has 2",
    );
    let exps = parse_str(
        &packmime_with("rate = 25.5\nservers = 1"),
        "ok.toml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(
        exps[0].experiment.workloads[0],
        traffic::WorkloadConfig::PackMime {
            rate: 25.5,
            clients: 2,
            servers: 1,
            http: traffic::HttpVersion::Http10,
        }
    );
}

#[test]
fn tcp_timestamps_not_a_boolean_and_cubic_is_a_variant() {
    rejects(
        &format!("{BASE}\n[tcp]\nvariant = \"cubic\"\ntimestamps = \"yes\"\n"),
        "tcp.timestamps",
        "a boolean (true or false)",
    );
    rejects(
        &format!("{BASE}\n[tcp]\nvariant = \"CUBIC\"\n"),
        "tcp.variant",
        "unknown variant \"CUBIC\"; expected one of: tahoe, reno, newreno, sack, cubic",
    );
    let exps = parse_str(
        &format!("{BASE}\n[tcp]\nvariant = \"cubic\"\ntimestamps = true\n"),
        "ok.toml",
        Path::new("."),
    )
    .unwrap();
    let tcp = &exps[0].experiment.tcp;
    assert_eq!((tcp.variant, tcp.timestamps), (tcp::Variant::Cubic, true));
}

#[test]
fn packmime_http_version() {
    // `http` is "1.0" (default) or "1.1"; anything else, or a number, names the key.
    rejects(
        &packmime_with("rate = 5\nhttp = \"2.0\""),
        "workload[0].http",
        "expected one of: 1.0, 1.1",
    );
    rejects(
        &packmime_with("rate = 5\nhttp = 1.1"),
        "workload[0].http",
        "a string",
    );
    let exps = parse_str(
        &packmime_with("rate = 5\nhttp = \"1.1\""),
        "ok.toml",
        Path::new("."),
    )
    .unwrap();
    assert!(matches!(
        exps[0].experiment.workloads[0],
        traffic::WorkloadConfig::PackMime {
            http: traffic::HttpVersion::Http11,
            ..
        }
    ));
}

// ----- cross traffic, placement, parking lot (topo) -----------------------------------------

const CBR: &str = "[[workload]]\nkind = \"cbr\"\n";

#[test]
fn cbr_keys_are_checked() {
    let with = |extra: &str| format!("{BASE}{CBR}{extra}");
    rejects(
        &with("packet_size = \"1000B\""),
        "workload[1].rate",
        "missing",
    );
    rejects(
        &with("rate = \"1Mbps\"\npacket_size = \"20B\""),
        "workload[1].packet_size",
        "at least 40",
    );
    rejects(
        &with("rate = \"1Mbps\"\nstart = \"5s\"\nstop = \"5s\""),
        "workload[1].stop",
        "after start",
    );
    rejects(
        &with("rate = \"1Mbps\"\nserver = 2"),
        "workload[1].server",
        "no route",
    );
    rejects(
        &format!("{BASE}[[workload]]\nkind = \"onoff\"\nrate = \"1Mbps\"\non_time = \"1s\"\noff_time = \"1s\"\nshape = 1.0"),
        "workload[1].shape",
        "must be a finite number > 1, got 1",
    );
}

#[test]
fn placement_keys_are_checked() {
    let with = |extra: &str| format!("{BASE}{CBR}rate = \"1Mbps\"\n{extra}");
    rejects(
        &with("direction = \"sideways\""),
        "workload[1].direction",
        "forward, reverse",
    );
    rejects(
        &with("client_cloud = \"clients\""),
        "workload[1].server_cloud",
        "missing",
    );
    rejects(
        &with("client_cloud = \"nowhere\"\nserver_cloud = \"servers\""),
        "workload[1].client_cloud",
        "no cloud \"nowhere\"",
    );
    let exps = parse_str(&with("direction = \"reverse\""), "ok.toml", Path::new(".")).unwrap();
    assert_eq!(
        exps[0].experiment.placements[1],
        sim::HostPlacement::Reverse
    );
}

const PARKING: &str = r#"
[run]
warmup = "1s"
duration = "10s"

[topology]
kind = "parking_lot"
link_rate = "10Mbps"
link_delay = "1ms"

[topology.clouds.a]
router = 0
hosts = 1
access_rate = "4Mbps"
access_delay = "1ms"

[topology.clouds.b]
router = 7
hosts = 1
access_rate = "4Mbps"
access_delay = "1ms"

[queue]
kind = "droptail"
limit = 200

[[workload]]
kind = "cbr"
rate = "1Mbps"
client_cloud = "b"
server_cloud = "a"
"#;

#[test]
fn parking_lot_keys_are_checked() {
    let exps = parse_str(PARKING, "ok.toml", Path::new(".")).unwrap();
    assert!(matches!(
        exps[0].experiment.topology,
        sim::Topology::ParkingLot(_)
    ));
    let bad = |from: &str, to: &str| PARKING.replacen(from, to, 1);
    rejects(
        &bad("router = 7", "router = 8"),
        "topology.clouds.b.router",
        "does not exist",
    );
    rejects(
        &bad("client_cloud = \"b\"\n", ""),
        "workload[0].client_cloud",
        "missing",
    );
    rejects(
        &bad(
            "link_delay = \"1ms\"",
            "link_delay = \"1ms\"\nbottleneck = \"r7_r8\"",
        ),
        "topology.bottleneck",
        "not a router link",
    );
    rejects(
        &bad(
            "link_delay = \"1ms\"",
            "link_delay = \"1ms\"\nlink_queue = { r1_r9 = { kind = \"droptail\" } }",
        ),
        "topology.link_queue.r1_r9",
        "no such router link",
    );
}

#[test]
fn onoff_parses_with_ns2_defaults() {
    let text = format!(
        "{BASE}[[workload]]\nkind = \"onoff\"\nrate = \"2Mbps\"\non_time = \"500ms\"\noff_time = \"1.5s\"\nstop = \"8s\"\nclient = 1"
    );
    let exps = parse_str(&text, "ok.toml", Path::new(".")).unwrap();
    let traffic::WorkloadConfig::OnOff {
        flow,
        on_mean,
        off_mean,
        shape,
    } = &exps[0].experiment.workloads[1]
    else {
        panic!("onoff")
    };
    // ns-2 Application/Traffic/Pareto defaults: packetSize_ 210, shape_ 1.5.
    assert_eq!((flow.packet_bytes, *shape), (210, 1.5));
    assert_eq!(flow.rate_bps, 2_000_000);
    assert_eq!((flow.client, flow.server), (1, 0));
    assert_eq!(flow.stop, Some(units::SimTime::from_secs(8)));
    assert_eq!(
        (on_mean.as_nanos(), off_mean.as_nanos()),
        (500_000_000, 1_500_000_000)
    );
}

#[test]
fn workload_delaybox_parses_and_its_mistakes_are_named() {
    use sim::BoxRtt;
    use traffic::packmime::RttSide;
    let pm = "[[workload]]\nkind = \"packmime\"\nrate = 20.0\nclient_cloud = \"b\"\nserver_cloud = \"a\"\n";
    let text = format!(
        "{PARKING}delaybox = {{ server = {{ dist = \"constant\", value = \"40ms\" }} }}\n{pm}delaybox = {{ client = \"packmime\", server = \"packmime\" }}\n"
    );
    let exps = parse_str(&text, "ok.toml", Path::new(".")).unwrap();
    let boxes = &exps[0].experiment.delayboxes;
    assert!(boxes[0].client.is_none());
    assert!(
        matches!(&boxes[0].server, Some(BoxRtt::Dist(traffic::SizeDist::Constant { value })) if (*value - 0.04).abs() < 1e-12)
    );
    assert!(matches!(
        boxes[1].client,
        Some(BoxRtt::PackMime { side: RttSide::Client, rate }) if rate == 20.0
    ));
    assert!(matches!(
        boxes[1].server,
        Some(BoxRtt::PackMime { side: RttSide::Server, rate }) if rate == 20.0
    ));
    // "packmime" on a workload without a rate of its own.
    rejects(
        &format!("{PARKING}delaybox = {{ client = \"packmime\" }}\n"),
        "workload[0].delaybox.client",
        "rate = R",
    );
    rejects(
        &format!("{PARKING}delaybox = {{ client = {{ dist = \"packmime\", rate = 0 }} }}\n"),
        "workload[0].delaybox.client.rate",
        "> 0",
    );
    rejects(
        &format!("{PARKING}delaybox = {{ clients = \"packmime\" }}\n"),
        "workload[0].delaybox.clients",
        "unknown",
    );
    rejects(
        &format!("{PARKING}delaybox = {{ server = \"fast\" }}\n"),
        "workload[0].delaybox.server",
        "\"packmime\" or a distribution table",
    );
    // With `{ dist = "packmime", rate }` any workload may have PackMime boxes.
    let ok = format!("{PARKING}delaybox = {{ client = {{ dist = \"packmime\", rate = 5 }} }}\n");
    let exps = parse_str(&ok, "ok.toml", Path::new(".")).unwrap();
    assert!(matches!(
        exps[0].experiment.delayboxes[0].client,
        Some(BoxRtt::PackMime { side: RttSide::Client, rate }) if rate == 5.0
    ));
}

#[test]
fn ns2_loss_response_keys_take_their_words_only() {
    rejects(
        &format!("{BASE}\n[tcp]\nssthresh = \"cwnd\"\n"),
        "tcp.ssthresh",
        "unknown ssthresh \"cwnd\"; expected one of: rfc5681, ns2",
    );
    rejects(
        &format!("{BASE}\n[tcp]\nbackoff_reset = \"karn\"\n"),
        "tcp.backoff_reset",
        "expected one of: sample, ack",
    );
    let e = parse_str(
        &format!("{BASE}\n[tcp]\nssthresh = \"ns2\"\nbackoff_reset = \"ack\"\n"),
        "ok.toml",
        Path::new("."),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tcp = &e[0].experiment.tcp;
    assert_eq!(tcp.ssthresh_rule, tcp::SsthreshRule::Ns2);
    assert_eq!(tcp.backoff_reset, tcp::BackoffReset::NewAck);
    let d = parse_str(BASE, "ok.toml", Path::new(".")).unwrap();
    assert_eq!(
        d[0].experiment.tcp.ssthresh_rule,
        tcp::SsthreshRule::Rfc5681
    );
    assert_eq!(d[0].experiment.tcp.backoff_reset, tcp::BackoffReset::Sample);
}

#[test]
fn slow_start_key_takes_its_words_only() {
    rejects(
        &format!("{BASE}\n[tcp]\nslow_start = \"abc\"\n"),
        "tcp.slow_start",
        "expected one of: rfc5681, ns2",
    );
    let e = parse_str(
        &format!("{BASE}\n[tcp]\nslow_start = \"ns2\"\n"),
        "ok.toml",
        Path::new("."),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e[0].experiment.tcp.slow_start, tcp::SlowStartGrowth::Ns2);
    let d = parse_str(BASE, "ok.toml", Path::new(".")).unwrap();
    assert_eq!(
        d[0].experiment.tcp.slow_start,
        tcp::SlowStartGrowth::Rfc5681
    );
}

#[test]
fn pcap_of_an_unknown_link() {
    // The fixture has clients 0 and 1: client2 is no link; the two-way names are listed.
    let e = rejects(
        &format!("{BASE}\n[monitor]\npcap = [\"bottleneck\", \"client2\"]\n"),
        "monitor.pcap[1]",
        "no link named \"client2\"",
    );
    assert!(
        e.reason
            .ends_with("(client0, client1, server0, server1, bottleneck)"),
        "{}",
        e.reason
    );
    assert_eq!(
        e.to_string().split(": ").take(2).collect::<Vec<_>>(),
        ["bad.toml", "monitor.pcap[1]"]
    );
}

#[test]
fn pcap_link_listed_twice_or_not_a_name() {
    rejects(
        &format!("{BASE}\n[monitor]\npcap = [\"bottleneck_rev\", \"bottleneck\"]\n"),
        "monitor.pcap[1]",
        "link bottleneck_rev is listed twice",
    );
    rejects(
        &format!("{BASE}\n[monitor]\npcap = [\"bottleneck\", 3]\n"),
        "monitor.pcap[1]",
        "expected a string",
    );
    rejects(
        &format!("{BASE}\n[monitor]\npcap = \"bottleneck\"\n"),
        "monitor.pcap",
        "expected an array",
    );
}

#[test]
fn pcap_unknown_link_in_a_variant() {
    rejects(
        &format!("{BASE}\n[[variant]]\nname = \"v\"\nmonitor = {{ pcap = [\"r1_r2\"] }}\n"),
        "variant[v].monitor.pcap[0]",
        "no link named \"r1_r2\"",
    );
}

/// BASE with its HTTP workload replaced by seed 003's Pareto web sources.
fn pareto_web_with(body: &str) -> String {
    let from = r#"kind = "http10"
arrival = "poisson"
rate = 10.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }"#;
    edit(&[(from, &format!("kind = \"pareto_web\"\nflows = 2\n{body}"))])
}

#[test]
fn one_way_tcp_only_where_clients_send_no_request() {
    // ns-2's one-way agents carry data from server to client only: an HTTP workload whose
    // clients send requests is refused at its kind, bulk and pareto_web run.
    rejects(
        &format!("{BASE}\n[tcp]\nhandshake = false\n"),
        "workload[0].kind",
        "tcp.handshake = false",
    );
    let ok = format!("{}\n[tcp]\nhandshake = false\n", pareto_web_with(""));
    let exps = parse_str(&ok, "ok.toml", Path::new(".")).unwrap();
    assert!(!exps[0].experiment.tcp.handshake);
    // A per-workload tcp table counts too.
    rejects(
        &edit(&[(
            "rate = 10.0\n",
            "rate = 10.0\ntcp = { handshake = false }\n",
        )]),
        "workload[0].kind",
        "cannot carry",
    );
    rejects(
        &format!("{ok}variant = \"sack\"\n"),
        "tcp.handshake",
        "cannot run with a SACK variant",
    );
}

#[test]
fn pareto_web_sizes_must_be_a_known_law() {
    let exps = parse_str(
        &pareto_web_with("sizes = \"pareto_ii\""),
        "ok.toml",
        Path::new("."),
    )
    .unwrap();
    assert!(matches!(
        exps[0].experiment.workloads[0],
        traffic::WorkloadConfig::ParetoWeb {
            sizes: traffic::ParetoSizes::ParetoII,
            ..
        }
    ));
    rejects(
        &pareto_web_with("sizes = \"lomax\""),
        "workload[0].sizes",
        "pareto, pareto_ii",
    );
}

#[test]
fn hystart_plus_plus_refusals_are_one_line_at_its_key() {
    // With Linux's HyStart (the linux profile turns it on): one line, FILE: KEY: reason.
    let e = rejects(
        &format!("{BASE}\n[tcp]\nprofile = \"linux\"\nhystart_plus_plus = true\n"),
        "tcp.hystart_plus_plus",
        "",
    );
    assert_eq!(
        e.to_string(),
        "bad.toml: tcp.hystart_plus_plus: not with hystart = true: Linux's HyStart would end \
         the same slow start (set hystart = false; the linux profile turns it on)"
    );
    // Variants without an RFC 5681 slow start, named in the reason; in a variant's table too.
    for v in ["bbr", "dctcp", "prague"] {
        let e = rejects(
            &format!("{BASE}\n[tcp]\nvariant = \"{v}\"\nhystart_plus_plus = true\n"),
            "tcp.hystart_plus_plus",
            "",
        );
        assert_eq!(
            e.reason,
            format!(
                "HyStart++ runs with the RFC 5681 slow start of tahoe, reno, newreno, sack, \
                 cubic or cubic_sack, not with variant {v}"
            )
        );
    }
    rejects(
        &format!(
            "{BASE}\n[[variant]]\nname = \"v\"\ntcp = {{ variant = \"bbr\", hystart_plus_plus = true }}\n"
        ),
        "variant[v].tcp.hystart_plus_plus",
        "not with variant bbr",
    );
    rejects(
        &format!("{BASE}\n[tcp]\nslow_start = \"ns2\"\nhystart_plus_plus = true\n"),
        "tcp.hystart_plus_plus",
        "not with slow_start = \"ns2\": RFC 9406 grows cwnd by the bytes each ACK acknowledges",
    );
    rejects(
        &format!("{BASE}\n[tcp]\nhystart_plus_plus = \"yes\"\n"),
        "tcp.hystart_plus_plus",
        "a boolean (true or false)",
    );
    // Accepted: every RFC 5681 variant, and the linux profile with its HyStart off.
    for v in ["tahoe", "reno", "newreno", "sack", "cubic", "cubic_sack"] {
        let text = format!("{BASE}\n[tcp]\nvariant = \"{v}\"\nhystart_plus_plus = true\n");
        let exps = parse_str(&text, "ok.toml", Path::new(".")).unwrap();
        assert!(exps[0].experiment.tcp.hystart_plus_plus, "{v}");
    }
    let text =
        format!("{BASE}\n[tcp]\nprofile = \"linux\"\nhystart = false\nhystart_plus_plus = true\n");
    let tcp = &parse_str(&text, "ok.toml", Path::new(".")).unwrap()[0]
        .experiment
        .tcp;
    assert!(tcp.hystart_plus_plus && !tcp.hystart);
    // Off by default, and off in the linux profile.
    let exps = parse_str(BASE, "ok.toml", Path::new(".")).unwrap();
    assert!(!exps[0].experiment.tcp.hystart_plus_plus);
}
