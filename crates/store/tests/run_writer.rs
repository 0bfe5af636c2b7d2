//! The streamed files and summary of real runs equal what the in-memory run gives: every
//! request row (in id order), queue row and link row read back from the Parquet files, and
//! the summary bit for bit; the same run gives the same bytes; the files appear under their
//! final names only when complete.

use metrics::{LinkRow, QueueRow, RequestKind, RequestRecord};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use std::fs::File;
use std::path::{Path, PathBuf};
use store::RunWriter;

/// A congested dumbbell with HTTP/1.0 users, an endless bulk flow opened first (its record,
/// id 0, is written last: every other record arrives ahead of it) and a persistent
/// PackMime workload (several exchanges per connection: id ≠ conn_id).
const SCENARIO: &str = r#"
[run]
seed = 3
warmup = "2s"
duration = "25s"

[topology]
kind = "dumbbell"
clients = 6
servers = 6
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 40

[[workload]]
kind = "bulk"
flows = [{ start = "0s", client = 0, server = 0 }]

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 150.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }

[[workload]]
kind = "packmime"
rate = 20.0
http = "1.1"
"#;

fn experiment() -> sim::Experiment {
    let mut exps = scenario::parse_str(SCENARIO, "streamed.toml", Path::new(".")).unwrap();
    exps.remove(0).experiment
}

fn fresh_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aqmlab-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn streamed(dir: &Path) -> metrics::Summary {
    let exp = experiment();
    let w = RunWriter::create(dir, exp.warmup.as_nanos()).unwrap();
    let end = sim::run_with(&exp, &mut |_, _| {}, w).unwrap();
    end.obs.finish(&end.fwd_link, &end.totals).unwrap()
}

fn rows(path: &Path) -> Vec<Row> {
    let r = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
    r.get_row_iter(None).unwrap().map(|r| r.unwrap()).collect()
}

fn long(r: &Row, i: usize) -> u64 {
    match &r.get_column_iter().nth(i).unwrap().1 {
        Field::Long(v) => *v as u64,
        f => panic!("column {i}: not INT64: {f:?}"),
    }
}

fn text(r: &Row, i: usize) -> String {
    match &r.get_column_iter().nth(i).unwrap().1 {
        Field::Str(s) => s.clone(),
        f => panic!("column {i}: not a string: {f:?}"),
    }
}

fn double(r: &Row, i: usize) -> f64 {
    match &r.get_column_iter().nth(i).unwrap().1 {
        Field::Double(v) => *v,
        f => panic!("column {i}: not DOUBLE: {f:?}"),
    }
}

fn request(r: &Row) -> RequestRecord {
    let completed = match &r.get_column_iter().nth(14).unwrap().1 {
        Field::Bool(b) => *b,
        f => panic!("completed: {f:?}"),
    };
    let kind = match text(r, 4).as_str() {
        "http" => RequestKind::Http,
        "bulk" => RequestKind::Bulk,
        k => panic!("kind {k}"),
    };
    let resp = match &r.get_column_iter().nth(11).unwrap().1 {
        Field::Long(-1) => u64::MAX,
        Field::Long(v) => *v as u64,
        f => panic!("response_bytes: {f:?}"),
    };
    RequestRecord {
        id: long(r, 0),
        conn_id: long(r, 1),
        exchange: long(r, 2) as u32,
        workload: long(r, 3) as u32,
        kind,
        page: long(r, 5),
        client: long(r, 6) as u32,
        server: long(r, 7) as u32,
        start_ns: long(r, 8),
        end_ns: long(r, 9),
        request_bytes: long(r, 10),
        response_bytes: resp,
        server_delay_ns: long(r, 12),
        base_rtt_ns: long(r, 13),
        completed,
        syn_retx: long(r, 15) as u32,
        fin_retx: long(r, 16) as u32,
        data_retx: long(r, 17) as u32,
        timeouts: long(r, 18) as u32,
        fast_retx: long(r, 19) as u32,
        ecn_reductions: long(r, 20) as u32,
        loss_events: long(r, 21) as u32,
        loss_cwnd_bytes: long(r, 22),
        server_syn_retx: long(r, 23) as u32,
        server_fin_retx: long(r, 24) as u32,
        server_data_retx: long(r, 25) as u32,
    }
}

#[test]
fn streamed_files_and_summary_equal_the_in_memory_run() {
    let mem = sim::run(&experiment(), &mut |_, _| {}).unwrap();
    // The scenario does what the test needs: records out of id order, persistent exchanges.
    assert!(mem.requests.len() > 3000, "{}", mem.requests.len());
    assert_eq!(mem.requests[0].kind, RequestKind::Bulk);
    assert!(mem
        .requests
        .iter()
        .any(|r| r.exchange > 0 && r.id != r.conn_id));
    assert!(mem.summary.responses_completed > 1000 && mem.summary.drops > 0);

    let dir = fresh_dir("equal");
    let summary = streamed(&dir);
    assert_eq!(
        serde_json::to_string(&summary).unwrap(),
        serde_json::to_string(&mem.summary).unwrap()
    );
    let reqs: Vec<RequestRecord> = rows(&dir.join("requests.parquet"))
        .iter()
        .map(request)
        .collect();
    assert_eq!(reqs, mem.requests);
    let queue: Vec<QueueRow> = rows(&dir.join("queue.parquet"))
        .iter()
        .map(|r| QueueRow {
            link: text(r, 0),
            t_ns: long(r, 1),
            forwarded: long(r, 2),
            early_drops: long(r, 3),
            forced_drops: long(r, 4),
            overflow_drops: long(r, 5),
            dequeue_drops: long(r, 6),
            marks: long(r, 7),
            min_qlen: long(r, 8) as u32,
            max_qlen: long(r, 9) as u32,
            mean_qlen: double(r, 10),
            var_qlen: double(r, 11),
        })
        .collect();
    assert_eq!(queue, mem.queue);
    let links: Vec<LinkRow> = rows(&dir.join("links.parquet"))
        .iter()
        .map(|r| LinkRow {
            link: text(r, 0),
            t_ns: long(r, 1),
            bytes: long(r, 2),
            packets: long(r, 3),
        })
        .collect();
    assert_eq!(links, mem.links);
    // Only the three tables are left: no scratch file, no `.part`.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["links.parquet", "queue.parquet", "requests.parquet"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_run_same_bytes() {
    let (a, b) = (fresh_dir("a"), fresh_dir("b"));
    assert_eq!(streamed(&a), streamed(&b));
    for f in ["requests.parquet", "queue.parquet", "links.parquet"] {
        let (x, y) = (
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
        );
        assert!(x.len() > 100, "{f}");
        assert!(
            x == y,
            "{f} differs between two runs of the same scenario and seed"
        );
    }
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn files_keep_their_part_names_until_finish() {
    let dir = fresh_dir("part");
    let exp = experiment();
    let w = RunWriter::create(&dir, exp.warmup.as_nanos()).unwrap();
    let end = sim::run_with(&exp, &mut |_, _| {}, w).unwrap();
    // Run over, not finished: nothing looks complete.
    assert!(!dir.join("queue.parquet").exists() && dir.join("queue.parquet.part").exists());
    assert!(!dir.join("requests.parquet").exists());
    end.obs.finish(&end.fwd_link, &end.totals).unwrap();
    assert!(dir.join("queue.parquet").exists() && !dir.join("queue.parquet.part").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A hand-made record with a distinct nonzero value in every numeric column.
fn record(id: u64) -> RequestRecord {
    let k = id as u32;
    RequestRecord {
        id,
        conn_id: id / 2,
        exchange: k % 2,
        workload: 1,
        kind: RequestKind::Http,
        page: id + 7,
        client: k % 5,
        server: k % 3,
        start_ns: 2_000_000_000 + id * 1000,
        end_ns: 2_500_000_000 + id * 1000,
        request_bytes: 300,
        response_bytes: 1000 + id,
        server_delay_ns: 11,
        base_rtt_ns: 80_000_000,
        completed: true,
        syn_retx: 1 + k % 2,
        fin_retx: 2 + k % 3,
        data_retx: 3,
        timeouts: 4,
        fast_retx: 5 + k % 7,
        ecn_reductions: 6,
        loss_events: 7,
        loss_cwnd_bytes: 8000 + id,
        server_syn_retx: 9,
        server_fin_retx: 10 + k % 4,
        server_data_retx: 12,
    }
}

#[test]
fn columns_declared_not_measured_are_null_in_every_row() {
    use metrics::Observer;
    use parquet::file::statistics::Statistics;
    let dir = fresh_dir("not-measured");
    // More than one row group of the requests table.
    let n = (1u64 << 17) + 3;
    let mut w = RunWriter::create(&dir, 1_000_000_000).unwrap();
    // Given out of schema order: kept in schema order.
    w.declare_not_measured(&["server_fin_retx", "fast_retx"])
        .unwrap();
    assert_eq!(w.not_measured(), ["fast_retx", "server_fin_retx"]);
    assert!(w.summary_keys_not_measured().is_empty());
    for id in 0..n {
        w.on_request(record(id));
    }
    let totals = metrics::SummaryTotals {
        fwd_bytes: 0,
        bottleneck_bps: 10_000_000,
        drops: Default::default(),
        measured_ns: 1_000_000_000,
        forced_defined: false,
        dual_queue: None,
    };
    let summary = w.finish("bottleneck_fwd", &totals).unwrap();
    assert_eq!(summary.responses_completed, n);

    let path = dir.join("requests.parquet");
    let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.num_row_groups(), 2);
    let kv = meta.file_metadata().key_value_metadata().unwrap();
    assert_eq!(kv.len(), 1);
    assert_eq!(kv[0].key, store::NOT_MEASURED_KEY);
    assert_eq!(
        kv[0].value.as_deref(),
        Some(r#"["fast_retx", "server_fin_retx"]"#)
    );
    // Column chunk statistics: every value of the two columns null, none of the others.
    for rg in meta.row_groups() {
        for (i, c) in rg.columns().iter().enumerate() {
            let nulls = match c.statistics() {
                Some(Statistics::Int64(s)) => s.null_count_opt(),
                Some(Statistics::Boolean(s)) => s.null_count_opt(),
                Some(Statistics::ByteArray(s)) => s.null_count_opt(),
                s => panic!("column {i}: statistics {s:?}"),
            };
            let want = if i == 19 || i == 24 { rg.num_rows() } else { 0 };
            assert_eq!(nulls, Some(want as u64), "column {i}");
        }
    }
    let mut count = 0u64;
    for (id, r) in rows(&path).iter().enumerate() {
        let cols: Vec<&Field> = r.get_column_iter().map(|(_, f)| f).collect();
        assert_eq!(cols.len(), 26);
        assert_eq!(cols[19], &Field::Null, "fast_retx of row {id}");
        assert_eq!(cols[24], &Field::Null, "server_fin_retx of row {id}");
        // Every other column as written.
        let w = record(id as u64);
        let want: [(usize, u64); 22] = [
            (0, w.id),
            (1, w.conn_id),
            (2, w.exchange as u64),
            (3, w.workload as u64),
            (5, w.page),
            (6, w.client as u64),
            (7, w.server as u64),
            (8, w.start_ns),
            (9, w.end_ns),
            (10, w.request_bytes),
            (11, w.response_bytes),
            (12, w.server_delay_ns),
            (13, w.base_rtt_ns),
            (15, w.syn_retx as u64),
            (16, w.fin_retx as u64),
            (17, w.data_retx as u64),
            (18, w.timeouts as u64),
            (20, w.ecn_reductions as u64),
            (21, w.loss_events as u64),
            (22, w.loss_cwnd_bytes),
            (23, w.server_syn_retx as u64),
            (25, w.server_data_retx as u64),
        ];
        for (i, v) in want {
            assert_eq!(long(r, i), v, "column {i} of row {id}");
        }
        assert_eq!(cols[4], &Field::Str("http".into()));
        assert_eq!(cols[14], &Field::Bool(true));
        count += 1;
    }
    assert_eq!(count, n);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn not_measured_names_are_checked_and_map_to_summary_keys() {
    let dir = fresh_dir("not-measured-names");
    let mut w = RunWriter::create(&dir, 0).unwrap();
    let e = w
        .declare_not_measured(&["fin_retx", "fast_retransmits"])
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("requests.fast_retransmits: cannot be declared not measured: not a column"),
        "{e}"
    );
    assert!(e.contains("fast_retx, ecn_reductions"), "{e}");
    assert!(w.not_measured().is_empty());
    w.declare_not_measured(&["loss_events", "fin_retx", "timeouts", "fin_retx"])
        .unwrap();
    assert_eq!(w.not_measured(), ["fin_retx", "timeouts", "loss_events"]);
    assert_eq!(w.summary_keys_not_measured(), ["fin_retx", "timeouts"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_without_columns_not_measured_has_no_footer_entry() {
    let dir = fresh_dir("all-measured");
    streamed(&dir);
    let reader =
        SerializedFileReader::new(File::open(dir.join("requests.parquet")).unwrap()).unwrap();
    assert!(reader
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .is_none());
    assert!(rows(&dir.join("requests.parquet"))
        .iter()
        .all(|r| r.get_column_iter().all(|(_, f)| f != &Field::Null)));
    std::fs::remove_dir_all(&dir).unwrap();
}
