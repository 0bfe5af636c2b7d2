//! Sweeps expanded by hand: counts, order, values, seeds, hidden keys and every refusal.

use super::*;

const BASE: &str = r#"
[run]
seed = 7
[queue]
kind = "red"
min_th = 5
max_th = 15
limit = 50
[[workload]]
kind = "http10"
rate = 50.0
"#;

const VARIANTS: &str = r#"
[[variant]]
name = "a"
tcp = { variant = "reno" }
[[variant]]
name = "b"
tcp = { variant = "newreno" }
"#;

fn root(sweep: &str, variants: bool) -> Table {
    let text = format!("{BASE}{}\n{sweep}", if variants { VARIANTS } else { "" });
    toml::from_str(&text).unwrap()
}

fn runs(sweep: &str, variants: bool) -> Vec<Run> {
    expand(&root(sweep, variants), "s.toml").unwrap().1
}

fn err(sweep: &str) -> ScenarioError {
    expand(&root(sweep, true), "s.toml").unwrap_err()
}

fn int(doc: &Table, p: &str) -> i64 {
    path::get(doc, p).unwrap().as_integer().unwrap()
}

#[test]
fn grid_first_key_slowest_then_replications_then_variants() {
    let rs = runs(
        "[sweep]\nreplications = 2\n[sweep.grid]\n\"queue.min_th\" = [5, 30, 60]\n\"workload[0].rate\" = [100.0, 200.0]\n",
        true,
    );
    assert_eq!(rs.len(), 3 * 2 * 2 * 2);
    let firsts: Vec<(i64, f64)> = rs
        .iter()
        .step_by(4)
        .map(|r| {
            (
                int(&r.doc, "queue.min_th"),
                r.doc["workload"][0]["rate"].as_float().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        firsts,
        [
            (5, 100.0),
            (5, 200.0),
            (30, 100.0),
            (30, 200.0),
            (60, 100.0),
            (60, 200.0)
        ]
    );
    let order: Vec<(i64, i64, &str)> = rs[..4]
        .iter()
        .map(|r| (r.replication, r.seed.as_integer().unwrap(), r.name.as_str()))
        .collect();
    assert_eq!(order, [(0, 7, "a"), (0, 7, "b"), (1, 8, "a"), (1, 8, "b")]);
    assert_eq!(int(&rs[2].doc, "run.seed"), 8);
    let vs = rs[5].doc["variant"].as_array().unwrap();
    assert_eq!((vs.len(), vs[0]["name"].as_str()), (1, Some("b")));
    assert!(!rs[0].doc.contains_key("sweep"));
    let p = plan(&root("[sweep]\nreplications = 2\n[sweep.grid]\n\"queue.min_th\" = [5, 30, 60]\n\"workload[0].rate\" = [100.0, 200.0]\n", true), "s.toml").unwrap();
    assert_eq!(p.runs, 24);
    assert_eq!(
        p.size_text,
        "3 × 2 grid points × 2 replications × 2 variants"
    );
    assert_eq!(p.size_key, "sweep.grid");
    assert_eq!(p.load_axis.as_deref(), Some("workload[0].rate"));
}

#[test]
fn zip_rows_pair_and_combine_with_the_grid() {
    let rs = runs(
        "[sweep.grid]\n\"queue.limit\" = [50, 100]\n[sweep.zip]\n\"queue.min_th\" = [5, 10, 20]\n\"queue.max_th\" = [15, 30, 60]\n",
        false,
    );
    let got: Vec<(i64, i64, i64)> = rs
        .iter()
        .map(|r| {
            (
                int(&r.doc, "queue.limit"),
                int(&r.doc, "queue.min_th"),
                int(&r.doc, "queue.max_th"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (50, 5, 15),
            (50, 10, 30),
            (50, 20, 60),
            (100, 5, 15),
            (100, 10, 30),
            (100, 20, 60)
        ]
    );
    assert!(rs
        .iter()
        .all(|r| r.seed == Value::Integer(7) && r.name.is_empty()));
}

#[test]
fn derived_values_read_the_point_and_variables() {
    let rs = runs(
        "[sweep.grid]\n\"queue.min_th\" = [5, 30]\n\"var.load\" = [0.5, 0.9]\n[sweep.derive]\n\
         \"queue.max_th\" = \"3 * queue.min_th\"\n\"queue.limit\" = \"max(8 * queue.min_th, 120)\"\n\
         \"workload[0].rate\" = \"250 * var.load\"\n\"run.duration\" = \"str(int(queue.max_th // 3)) + 's'\"\n",
        false,
    );
    let got: Vec<(i64, i64, f64, String)> = rs
        .iter()
        .map(|r| {
            (
                int(&r.doc, "queue.max_th"),
                int(&r.doc, "queue.limit"),
                r.doc["workload"][0]["rate"].as_float().unwrap(),
                r.doc["run"]["duration"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (15, 120, 125.0, "5s".into()),
            (15, 120, 225.0, "5s".into()),
            (90, 240, 125.0, "30s".into()),
            (90, 240, 225.0, "30s".into()),
        ]
    );
    assert!(!rs[0].doc.contains_key("var"));
    let keys: Vec<&str> = rs[0].values.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "queue.min_th",
            "var.load",
            "queue.max_th",
            "queue.limit",
            "workload[0].rate",
            "run.duration"
        ]
    );
}

#[test]
fn ids_ignore_key_order_but_not_values_or_seeds() {
    let a = runs("[sweep.grid]\n\"queue.min_th\" = [5, 6]\n", false);
    let reordered = BASE.replace("min_th = 5\nmax_th = 15\n", "max_th = 15\nmin_th = 5\n");
    let b: Table = toml::from_str(&format!(
        "{reordered}\n[sweep.grid]\n\"queue.min_th\" = [5, 6]\n"
    ))
    .unwrap();
    let b = expand(&b, "s.toml").unwrap().1;
    assert_eq!(a[0].id, b[0].id);
    assert_ne!(a[0].id, a[1].id);
    let c = runs("[sweep.grid]\n\"queue.min_th\" = [5.0]\n", false);
    assert_ne!(c[0].id, a[0].id); // 5.0 is another value than 5
    let d = runs("[sweep]\nreplications = 2\n", false);
    assert_ne!(d[0].id, d[1].id);
    assert_eq!(a[0].id, run_id(&a[0].doc));
}

#[test]
fn each_mistake_is_refused_at_its_key() {
    let cases = [
        ("[sweep]\nrepetitions = 3\n", "sweep.repetitions", "unknown key (allowed: grid, zip, derive, replications, variants, load_axis, data_dir)"),
        ("[sweep]\nreplications = 0\n", "sweep.replications", "must be an integer >= 1, got 0"),
        ("[sweep.zip]\n\"queue.min_th\" = [1, 2]\n\"queue.max_th\" = [3]\n", "sweep.zip", "all lists must have one length (queue.min_th has 2, queue.max_th has 1)"),
        ("[sweep.grid]\n\"queue.min_th\" = []\n", "sweep.grid.\"queue.min_th\"", "must be a non-empty array of values"),
        ("[sweep.grid]\n\"workload[3].rate\" = [1.0]\n", "sweep.grid.\"workload[3].rate\"", "workload[3].rate: workload[3] is out of range (the scenario has 1)"),
        ("[sweep.grid]\n\"queue..min_th\" = [1]\n", "sweep.grid.\"queue..min_th\"", "malformed key path segment '' (want key, key[N] or variant[NAME])"),
        ("[sweep.derive]\n\"queue.max_th\" = \"3 * queue.min_thh\"\n", "sweep.derive.\"queue.max_th\"", "queue.min_thh: no key 'min_thh' in the scenario (at the base scenario)"),
        ("[sweep.derive]\n\"queue.max_th\" = \"2 * var.x\"\n", "sweep.derive.\"queue.max_th\"", "no sweep variable 'var.x' (define it in sweep.grid or sweep.zip) (at the base scenario)"),
        ("[sweep]\nreplications = 2\n[sweep.grid]\n\"run.seed\" = [1, 2]\n", "sweep.grid.\"run.seed\"", "cannot be swept with replications > 1"),
        ("[sweep]\nvariants = [\"c\"]\n", "sweep.variants", "no variant named 'c' (the file has: a, b)"),
        ("[sweep]\nvariants = []\n", "sweep.variants", "must be a non-empty array of variant names"),
        ("[sweep]\nload_axis = \"queue.limit\"\n", "sweep.load_axis", "'queue.limit' is not a key of sweep.grid, sweep.zip or sweep.derive"),
        ("[sweep]\ndata_dir = 3\n", "sweep.data_dir", "must be a directory path string, got 3"),
        ("[sweep]\ngrid = 3\n", "sweep.grid", "must be a table of \"key.path\" = ..."),
        ("[sweep.grid]\n\"queue.limit\" = [1]\n[sweep.zip]\n\"queue.limit\" = [2]\n", "sweep.zip.\"queue.limit\"", "already set in sweep.grid"),
    ];
    for (sweep, key, reason) in cases {
        let e = err(sweep);
        assert_eq!(
            (e.file.as_str(), e.key.as_str(), e.reason.as_str()),
            ("s.toml", key, reason),
            "{sweep}"
        );
    }
    let plain: Table = toml::from_str(BASE).unwrap();
    let e = expand(&plain, "p.toml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "p.toml: sweep: no [sweep] table: this is not a sweep (use `aqmlab run`)"
    );
    let not_table: Table = toml::from_str(&format!("sweep = 1\n{BASE}")).unwrap();
    assert_eq!(
        expand(&not_table, "p.toml").unwrap_err().reason,
        "must be a table"
    );
    let e = err("[sweep.derive]\n\"queue.max_th\" = \"open(1)\"\n");
    assert!(e.reason.contains("unknown function 'open'"), "{}", e.reason);
}

const DT_BASE: &str = r#"
[run]
seed = 7
[queue]
kind = "droptail"
limit = 60
[[workload]]
kind = "http10"
rate = 50.0
[[variant]]
name = "dt"
[[variant]]
name = "red"
queue = { kind = "red", min_th = 5, max_th = 15, limit = 50 }
"#;

#[test]
fn keys_that_change_no_run_are_refused_naming_the_working_path() {
    let t: Table = toml::from_str(&format!(
        "{DT_BASE}\n[sweep]\nvariants = [\"red\"]\n[sweep.grid]\n\"queue.min_th\" = [5, 30]\n\"queue.w_q\" = [0.002]\n"
    ))
    .unwrap();
    let e = expand(&t, "q.toml").unwrap_err();
    assert_eq!(e.key, "sweep.grid.\"queue.min_th\"");
    assert_eq!(
        e.reason,
        "changes no run: variant red sets [queue] with kind = \"red\", which replaces the base's [queue] \
         (kind = \"droptail\") wholesale; sweep \"variant[red].queue.min_th\" instead (also without effect: queue.w_q)"
    );
    let t: Table = toml::from_str(&format!(
        "{DT_BASE}\n[sweep]\nvariants = [\"dt\"]\n[sweep.grid]\n\"variant[red].queue.min_th\" = [5, 30]\n"
    ))
    .unwrap();
    assert_eq!(
        expand(&t, "q.toml").unwrap_err().reason,
        "changes no run: variant red is not run (sweep.variants = ['dt']); add the variant to sweep.variants or remove the key"
    );
    let t: Table =
        toml::from_str(&format!("{DT_BASE}\n[sweep.grid]\n\"var.x\" = [1, 2]\n")).unwrap();
    assert_eq!(
        expand(&t, "q.toml").unwrap_err().reason,
        "changes no run: no derived value that takes effect reads it; read it in a [sweep.derive] value or remove it"
    );
    let pinned = DT_BASE
        .replace("name = \"dt\"\n", "name = \"dt\"\nrun = { seed = 3 }\n")
        .replace("queue = { kind", "run = { seed = 4 }\nqueue = { kind");
    let t: Table = toml::from_str(&format!("{pinned}\n[sweep]\nreplications = 3\n")).unwrap();
    let e = expand(&t, "q.toml").unwrap_err();
    assert_eq!(e.key, "sweep.replications");
    assert_eq!(
        e.reason,
        "variant dt sets run.seed itself, so every replication runs with the same seed; remove run.seed from the variants or set replications = 1"
    );
}

#[test]
fn applies_lists_the_keys_that_reach_each_run_and_hidden_keys_leave_the_document() {
    let t: Table = toml::from_str(&format!(
        "{DT_BASE}\n[sweep.grid]\n\"queue.limit\" = [10, 60]\n\"variant[red].queue.min_th\" = [5, 30]\n\
         \"var.x\" = [2, 3]\n[sweep.derive]\n\"variant[red].queue.max_th\" = \"var.x * variant[red].queue.min_th\"\n"
    ))
    .unwrap();
    let (_, rs) = expand(&t, "q.toml").unwrap();
    assert_eq!(rs.len(), 16);
    for r in &rs {
        let want: &[&str] = match r.name.as_str() {
            "dt" => &["queue.limit"],
            _ => &[
                "variant[red].queue.min_th",
                "var.x",
                "variant[red].queue.max_th",
            ],
        };
        assert_eq!(r.applies, want);
    }
    let ids = |n: &str| {
        let mut v: Vec<&str> = rs
            .iter()
            .filter(|r| r.name == n)
            .map(|r| r.id.as_str())
            .collect();
        v.sort();
        v.dedup();
        v.len()
    };
    assert_eq!((ids("dt"), ids("red")), (2, 4));
    // red's documents keep the base queue limit (60): the swept one is hidden by red's queue.
    assert!(rs
        .iter()
        .filter(|r| r.name == "red")
        .all(|r| int(&r.doc, "queue.limit") == 60));
}

#[test]
fn shadowing_follows_the_merge_rule() {
    let base: Table = toml::from_str(
        "[queue]\nkind = \"red\"\nmin_th = 5\n[topology]\nkind = \"dumbbell\"\ndelaybox = { rtt = 1 }\n",
    )
    .unwrap();
    let v = |s: &str| -> Table { toml::from_str(&format!("name = \"v\"\n{s}")).unwrap() };
    assert_eq!(
        shadowed_by(&base, &v("queue = { max_p = 0.1 }"), "queue.min_th"),
        None
    );
    assert_eq!(
        shadowed_by(&base, &v("queue = { kind = \"red\" }"), "queue.min_th"),
        None
    );
    assert_eq!(
        shadowed_by(&base, &v("queue = { min_th = 7 }"), "queue.min_th").unwrap(),
        "variant v sets queue.min_th itself"
    );
    assert_eq!(
        shadowed_by(&base, &v("queue = 3"), "queue.min_th").unwrap(),
        "variant v replaces queue as a whole"
    );
    assert_eq!(
        shadowed_by(
            &base,
            &v("topology = { delaybox = { matrix_file = \"m.csv\" } }"),
            "topology.delaybox.rtt"
        )
        .unwrap(),
        "variant v sets topology.delaybox.matrix_file, which drops the base's rtt"
    );
    assert_eq!(
        shadowed_by(&base, &v("[[workload]]\nrate = 1.0"), "workload[0].rate").unwrap(),
        "variant v replaces the whole array workload"
    );
}
