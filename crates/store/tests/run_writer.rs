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
            marks: long(r, 6),
            min_qlen: long(r, 7) as u32,
            max_qlen: long(r, 8) as u32,
            mean_qlen: double(r, 9),
            var_qlen: double(r, 10),
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
