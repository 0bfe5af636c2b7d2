//! `load` and `[calibration]` (src/load/): the cache key of shipped scenarios is the one the
//! Python implementation computed (so calibrations already cached stay valid), and `load`
//! resolves to the rate computed by hand from a calibration.

use scenario::load::{self, Calibration, Resolver};
use std::path::Path;
use toml::{Table, Value};

fn document(path: &str) -> (Table, std::path::PathBuf) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    let text = scenario::read::read_text(&p).unwrap();
    let base = scenario::read::base_dir(&p);
    (scenario::document(&text, path, &base).unwrap(), base)
}

/// The hash of `path`'s calibrated workload (`workload` when it has several).
fn hash(path: &str, workload: Option<i64>, direction: &str, link: Option<&str>) -> String {
    let (doc, base) = document(path);
    let sc = load::find(&doc, path, &base, workload).unwrap();
    load::content_hash(&sc, direction, link)
}

#[test]
fn content_hashes_are_the_ones_python_computed() {
    // aqmlab.engine.calibrate.content_hash(read_scenario(path, workload), direction, link) before the
    // language moved to this crate (commit ceee42d).
    let cases = [
        (
            "scenarios/quickstart.toml",
            None,
            "forward",
            None,
            "84b730a8b127002f55d7de4472e0be31e2e6cd9a2c02d40ee27d0da6ea68ec8b",
        ),
        (
            "scenarios/quickstart.toml",
            None,
            "both",
            None,
            "791f3cafb5c22ccfdfb44eacd29defe6bdfc595b3f4fa87671f62a7fc25f4b26",
        ),
        // An empirical RTT distribution read from a file: its contents are hashed.
        (
            "scenarios/weigle2006/dumbbell.toml",
            Some(0),
            "forward",
            None,
            "900304d3e0db0d0e7bad699f0104026cbdee320cb866652d1d1b63761600ca5d",
        ),
        // A DelayBox matrix file, and `extends`.
        (
            "studies/pisa/rtt_ftp200.toml",
            None,
            "forward",
            None,
            "6102dd94c7e3130ae694c0762e244c82f8b70c3038e6c4b647269fc2a613eb2a",
        ),
        (
            "studies/christiansen/red_qlen.toml",
            None,
            "forward",
            None,
            "76f4fa7aff897d046d23d376adff2724bcead34aa6f6571ae74b647468519080",
        ),
        // A parking lot: its default measured link, and another one.
        (
            "scenarios/weigle_multi/parking_lot_1congested.toml",
            Some(0),
            "forward",
            None,
            "1c1860a6f8d03080270d3d42cf895311bc33ad3c7c450ac8be466b03a126d7e2",
        ),
        (
            "scenarios/weigle_multi/parking_lot_1congested.toml",
            Some(0),
            "forward",
            Some("r2_r3"),
            "bad44dc5b1d7a077921964bb428652db54c2737ec951a717a37021c7429b90cc",
        ),
    ];
    for (path, workload, direction, link, want) in cases {
        assert_eq!(
            hash(path, workload, direction, link),
            want,
            "{path} {direction}"
        );
    }
}

const BASE: &str = r#"
[topology]
kind = "dumbbell"
clients = 4
servers = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 120

[[workload]]
kind = "http10"
arrival = "poisson"
load = 0.9
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "uniform", min = "2000B", max = "2900B" }

[[variant]]
name = "dt"
queue = { kind = "droptail", limit = 120 }

[[variant]]
name = "fast"
topology = { bottleneck_rate = "20Mbps" }

[calibration]
points = [100, 200]
"#;

fn calibration(slope: f64, intercept: f64) -> Calibration {
    Calibration {
        hash: "0123456789abcdef".into(),
        scenario: "f.toml".into(),
        workload: 0,
        kind: "http10".into(),
        parameter: "rate".into(),
        direction: "forward".into(),
        settings: None,
        points: vec![],
        slope,
        intercept,
        r2: 1.0,
        max_rel_residual: 0.0,
        date: "2026-11-29T00:00:00+00:00".into(),
        pilot: None,
    }
}

fn resolve(text: &str, c: Calibration) -> Result<(Table, Vec<String>), scenario::ScenarioError> {
    let doc: Table = toml::from_str(text).unwrap();
    let mut r = Resolver::new(doc.clone(), "dir/./f.toml", Path::new("."));
    let mut said = Vec::new();
    let out = r.resolve(&doc, |_| Ok::<_, scenario::ScenarioError>(c), &mut |l| {
        said.push(l.to_string())
    })?;
    Ok((out, said))
}

#[test]
fn load_resolves_to_the_rate_by_hand() {
    // 20,880 bit per connection (python/tests/test_calibrate.py's SMALL, counted by hand), no
    // other traffic: 0.9 × 10 Mbit/s / 20,880 = 431.0345 conn/s, to 6 digits 431.034; the
    // variant "fast" with its own 20 Mbit/s gets 862.0690 → 862.069.
    let (doc, said) = resolve(BASE, calibration(20_880.0, 0.0)).unwrap();
    let w = doc["workload"][0].as_table().unwrap();
    assert_eq!(w.get("rate"), Some(&Value::Float(431.034)));
    assert!(!w.contains_key("load") && !doc.contains_key("calibration"));
    let vars = doc["variant"].as_array().unwrap();
    assert!(!vars[0].as_table().unwrap().contains_key("workload"));
    assert_eq!(vars[1]["workload"][0]["rate"], Value::Float(862.069));
    assert_eq!(
        said,
        [
            "dir/f.toml: workload[0].load = 0.9 of 10 Mbps → rate = 431.034 conn/s (calibration \
             0123456789ab: 20.88 kbit/s per conn/s, intercept 0 Mbit/s, R² = 1.0000)",
            "dir/f.toml: variant[fast]: load = 0.9 of 20 Mbps → rate = 862.069 conn/s",
        ]
    );
}

#[test]
fn users_are_whole_and_an_impossible_load_is_named() {
    // Mah users: 10 kbit/s per user over 1 Mbit/s of other traffic; load 0.5 of 10 Mbit/s:
    // (5 − 1) Mbit/s / 10 kbit/s = 400 users; 0.45 → 350; 0.4525 → 352.5 → 352 (halves to even).
    let mah = BASE
        .replace("kind = \"http10\"\narrival = \"poisson\"", "kind = \"mah\"")
        .replace(
            "[[variant]]\nname = \"fast\"",
            "[[variant]]\nname = \"slow\"",
        );
    for (load, users) in [("0.5", 400), ("0.45", 350), ("0.4525", 352)] {
        let text = mah.replace("load = 0.9", &format!("load = {load}"));
        let (doc, _) = resolve(&text, calibration(10_000.0, 1e6)).unwrap();
        assert_eq!(doc["workload"][0]["users"], Value::Integer(users), "{load}");
    }
    // 6 Mbit/s of other traffic: load 0.5 would need −100 users.
    let e = resolve(
        &mah.replace("load = 0.9", "load = 0.5"),
        calibration(10_000.0, 6e6),
    )
    .unwrap_err();
    assert_eq!(e.key, "workload[0].load");
    assert_eq!(
        e.reason,
        "load = 0.5 of 10 Mbps resolves to users = -100 (the other workloads already offer 6 \
         Mbit/s)"
    );
}

#[test]
fn mistakes_in_load_are_one_line_naming_file_and_key() {
    let cases = [
        ("load = 0.9", "load = 0", "workload[0].load", "must be a number greater than 0 (a fraction of bottleneck_rate), got 0"),
        ("load = 0.9", "load = \"98%\"", "workload[0].load", "must be a number greater than 0 (a fraction of bottleneck_rate), got '98%'"),
        ("load = 0.9", "load = 0.9\nrate = 100.0", "workload[0].load", "conflicts with rate: give one of load, rate"),
        ("kind = \"dumbbell\"", "kind = \"star\"", "topology.kind", "calibration needs kind = \"dumbbell\" or \"parking_lot\" (their bottleneck_rate or link_rate is what is made unconstrained), got 'star'"),
        ("points = [100, 200]", "points = [100]", "calibration.points", "must be at least two distinct positive numbers, got [100]"),
        ("name = \"dt\"\n", "name = \"dt\"\nworkload = [{ kind = \"mah\", load = 0.5 }]\n", "variant[dt].workload[0].load", "load is resolved only in the base [[workload]] tables; give the variant's workload a rate/users or move load to the base"),
        ("arrival = \"poisson\"\n", "arrival = \"poisson\"\n", "", ""),
    ];
    for (from, to, key, reason) in cases.into_iter().filter(|c| !c.2.is_empty()) {
        let text = BASE.replacen(from, to, 1);
        let doc: Table = toml::from_str(&text).unwrap();
        let e = load::find(&doc, "f.toml", Path::new("."), None).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str(), e.reason.as_str()),
            ("f.toml", key, reason),
            "{to}"
        );
    }
    let two = BASE.replace(
        "[[variant]]\nname = \"dt\"",
        "[[workload]]\nkind = \"mah\"\nload = 0.2\n\n[[variant]]\nname = \"dt\"",
    );
    let doc: Table = toml::from_str(&two).unwrap();
    let e = load::find(&doc, "f.toml", Path::new("."), None).unwrap_err();
    assert_eq!(
        (e.key.as_str(), e.reason.as_str()),
        (
            "workload[1].load",
            "only one workload may have load (workload[0] has it too)"
        )
    );
}

#[test]
fn calibration_runs_are_the_base_on_the_calibration_link() {
    let doc: Table = toml::from_str(&format!(
        "[run]\nduration = \"300s\"\nstop_after_responses = 5\n{BASE}"
    ))
    .unwrap();
    let sc = load::find(&doc, "f.toml", Path::new("."), None).unwrap();
    let s = load::Settings {
        warmup: Some("2s".into()),
        ..load::Settings::default()
    };
    let p = load::point_doc(&sc, &s, 250.0);
    assert!(!p.contains_key("variant") && !p.contains_key("calibration"));
    let run = p["run"].as_table().unwrap();
    assert_eq!(run.keys().collect::<Vec<_>>(), ["duration", "warmup"]);
    assert_eq!(run["duration"].as_str(), Some("120s"));
    assert_eq!(p["topology"]["bottleneck_rate"].as_str(), Some("100Mbps"));
    assert_eq!(p["workload"][0]["rate"], Value::Float(250.0));
    // Parsed as a scenario: the run the engine gets.
    let exps = scenario::parse_document(p, "f.toml (calibration run)", Path::new(".")).unwrap();
    assert_eq!(exps.len(), 1);
}

#[test]
fn automatic_points_allow_for_the_traffic_that_does_not_scale() {
    // Pilots at 10 and 20 conn/s offer 1.2088 and 1.4176 Mbit/s: u = 20,880 bit/s per conn/s,
    // b = 1 Mbit/s. Points at f·10 Mbit/s: (2.5 − 1)/0.02088 = 71.839 → 71.84, 191.6, 311.3,
    // 431.0, 550.8 (4 significant digits).
    let doc: Table = toml::from_str(BASE).unwrap();
    let sc = load::find(&doc, "f.toml", Path::new("."), None).unwrap();
    let (u, b, xs) = load::auto_points(&sc, 10.0, 1.2088e6, 20.0, 1.4176e6);
    assert!(
        (u - 20_880.0).abs() < 1e-6 && (b - 1e6).abs() < 1e-3,
        "{u} {b}"
    );
    assert_eq!(xs, [71.84, 191.6, 311.3, 431.0, 550.8]);
}

/// A stand-in for the engine: each point offers `per_unit`·x + `other` bit/s forward and half
/// of that in reverse; it counts runs and keeps what it was told.
struct LineEngine {
    per_unit: f64,
    other: f64,
    runs: Vec<f64>,
    said: Vec<String>,
    checked: usize,
}

impl load::Runner for LineEngine {
    type Error = scenario::ScenarioError;
    fn run(
        &mut self,
        docs: Vec<Table>,
        _links: Option<(String, String)>,
        label: &str,
    ) -> Result<Vec<(f64, f64)>, Self::Error> {
        assert_eq!(label, "f.toml (calibration run)");
        Ok(docs
            .iter()
            .map(|d| {
                let x = d["workload"][0]["rate"].as_float().unwrap();
                assert_eq!(d["topology"]["bottleneck_rate"].as_str(), Some("100Mbps"));
                self.runs.push(x);
                let y = self.per_unit * x + self.other;
                (y, y / 2.0)
            })
            .collect())
    }
    fn before_runs(&mut self, _: &Path) -> Result<(), Self::Error> {
        self.checked += 1;
        Ok(())
    }
    fn say(&mut self, line: &str) {
        self.said.push(line.to_string());
    }
    fn store_failed(&mut self, path: &Path, e: std::io::Error) -> Self::Error {
        panic!("{}: {e}", path.display())
    }
}

/// BASE with the `[run]` table a scenario needs to be run.
fn runnable(text: &str) -> Table {
    toml::from_str(&format!(
        "[run]\nseed = 1\nwarmup = \"1s\"\nduration = \"2s\"\n{text}"
    ))
    .unwrap()
}

fn engine() -> LineEngine {
    LineEngine {
        per_unit: 20_880.0,
        other: 1e6,
        runs: vec![],
        said: vec![],
        checked: 0,
    }
}

#[test]
fn calibrating_fits_stores_and_reuses() {
    let cache = std::env::temp_dir().join(format!("loadcore-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let doc = runnable(BASE);
    let sc = load::find(&doc, "f.toml", Path::new("."), None).unwrap();
    let none = load::Overrides::default();
    // [calibration] points = [100, 200]: loads 3.088 and 5.176 Mbit/s, an exact line.
    let mut e = engine();
    let first = load::calibrate(&sc, &none, Some(&cache), false, true, &mut e).unwrap();
    assert_eq!(
        (first.cached, first.runs, e.runs.clone()),
        (false, 2, vec![100.0, 200.0])
    );
    let c = &first.calibration;
    assert!((c.slope - 20_880.0).abs() < 1e-6 && (c.intercept - 1e6).abs() < 1e-3);
    assert_eq!(c.points[1].reverse_bps, 5_176_000.0 / 2.0);
    assert_eq!(e.checked, 1);
    assert_eq!(
        e.said[0],
        "calibration: 2 runs of the scenario warm-up + 120s on a 100Mbps bottleneck, rate = 100, 200"
    );
    // Again: from the cache, nothing run; other points (strict) run again; `load` (not strict)
    // takes the stored one whatever its points.
    let mut e = engine();
    let again = load::calibrate(&sc, &none, Some(&cache), false, true, &mut e).unwrap();
    assert!(again.cached && e.runs.is_empty());
    assert_eq!(again.calibration, first.calibration);
    let other = load::Overrides {
        points: Some(vec![50.0, 150.0, 300.0]),
        ..load::Overrides::default()
    };
    let mut e = engine();
    assert!(
        load::calibrate(&sc, &other, Some(&cache), false, false, &mut e)
            .unwrap()
            .cached
    );
    let redo = load::calibrate(&sc, &other, Some(&cache), false, true, &mut e).unwrap();
    assert_eq!(
        (redo.cached, e.runs.clone()),
        (false, vec![50.0, 150.0, 300.0])
    );
    std::fs::remove_dir_all(&cache).unwrap();
}

#[test]
fn automatic_points_come_from_two_pilot_runs() {
    let cache = std::env::temp_dir().join(format!("loadcore-auto-{}", std::process::id()));
    let doc = runnable(&BASE.replace("points = [100, 200]", ""));
    let sc = load::find(&doc, "f.toml", Path::new("."), None).unwrap();
    let mut e = engine();
    let none = load::Overrides::default();
    let out = load::calibrate(&sc, &none, Some(&cache), true, true, &mut e).unwrap();
    // Pilots at 10 and 20 conn/s; then (f·10 Mbit/s − 1 Mbit/s) / 20,880 to 4 digits.
    assert_eq!(e.runs, [10.0, 20.0, 71.84, 191.6, 311.3, 431.0, 550.8]);
    assert_eq!(out.runs, 7);
    let pilot = out.calibration.pilot.unwrap();
    assert_eq!(pilot.points, [(10.0, 1_208_800.0), (20.0, 1_417_600.0)]);
    std::fs::remove_dir_all(&cache).unwrap();
}

#[test]
fn a_resolver_calibrates_once_for_every_document() {
    // A sweep's runs: each document's load resolves against the one calibration, asked once.
    let base: Table = toml::from_str(BASE).unwrap();
    let mut r = Resolver::new(base.clone(), "f.toml", Path::new("."));
    let mut asked = 0;
    let mut said = Vec::new();
    for load in ["0.9", "0.5", "0.9"] {
        let doc: Table =
            toml::from_str(&BASE.replace("load = 0.9", &format!("load = {load}"))).unwrap();
        let out = r
            .resolve(
                &doc,
                |_| {
                    asked += 1;
                    Ok::<_, scenario::ScenarioError>(calibration(20_880.0, 0.0))
                },
                &mut |l| said.push(l.to_string()),
            )
            .unwrap();
        let want = if load == "0.5" { 239.464 } else { 431.034 }; // 5e6 / 20,880 = 239.4636
        assert_eq!(out["workload"][0]["rate"], Value::Float(want));
    }
    assert_eq!(asked, 1);
    assert_eq!(said.len(), 4); // 0.9 and 0.5, each for the base and "fast"; the repeat is silent
}
