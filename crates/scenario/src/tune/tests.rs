//! The `[tune]` table, rule by rule, against hand-computed values and the exact messages.

use super::range::duration_ms;
use super::*;
use crate::sweep::{path, run_id};
use std::path::Path;
use toml::{Table, Value};

/// scenarios/quickstart_tune.toml without its `[tune]` table (droptail and red variants).
fn base_text() -> &'static str {
    let text = include_str!("../../../../scenarios/quickstart_tune.toml");
    &text[..text
        .find("[tune]")
        .expect("the quickstart has a [tune] table")]
}

fn spec_of(tune: &str) -> Result<Spec, crate::ScenarioError> {
    let root: Table = toml::from_str(&format!("{}{tune}", base_text())).expect("valid TOML");
    let (t, base) = split(&root, "t.toml")?;
    parse(&t, base, "t.toml", Path::new("."), &Table::new(), &[])
}

fn spec(tune: &str) -> Spec {
    spec_of(tune).unwrap_or_else(|e| panic!("{e}"))
}

/// (key, reason) of the error of `tune`.
fn err(tune: &str) -> (String, String) {
    let e = spec_of(tune).expect_err("refused");
    assert_eq!(e.file, "t.toml");
    (e.key, e.reason)
}

fn table(text: &str) -> Table {
    toml::from_str(text).expect("valid TOML")
}

const GOOD: &str = "[tune]\nvariant = \"red\"\nobjectives = [\"min median_rt_ms\"]\n\
                    [tune.params]\n\"queue.min_th\" = { int = [5, 60] }\n";

#[test]
fn durations_are_milliseconds() {
    let ms = |s: &str| duration_ms(&Value::String(s.into()));
    assert_eq!(ms("20ms"), Ok(20.0));
    assert_eq!(ms(" 2.5 s "), Ok(2500.0));
    assert_eq!(ms("500us"), Ok(0.5));
    assert_eq!(ms("500µs"), Ok(0.5));
    assert_eq!(ms("1e3us"), Ok(1.0));
    assert_eq!(ms("2min"), Ok(120_000.0));
    assert_eq!(ms(".5h"), Ok(1_800_000.0));
    for bad in ["20", "ms", "20 m", "2.ms", "-1ms"] {
        assert!(ms(bad).is_err(), "{bad}");
    }
    assert_eq!(
        duration_ms(&Value::Integer(5)),
        Err("5 is not a duration such as \"20ms\" (ns, us, ms, s, min, h)".into())
    );
}

#[test]
fn the_quickstart_table_and_its_declared_ranges() {
    let text = include_str!("../../../../scenarios/quickstart_tune.toml");
    let root: Table = toml::from_str(text).unwrap();
    let (t, base) = split(&root, "q.toml").unwrap();
    let s = parse(&t, base, "q.toml", Path::new("."), &Table::new(), &[]).unwrap();
    let by = |p: &str| s.params.iter().find(|q| q.path == p).unwrap().clone();
    let (min_th, max_p, w_q) = (by("queue.min_th"), by("queue.max_p"), by("queue.w_q"));
    assert_eq!(
        (min_th.kind, &min_th.lo, &min_th.hi),
        (Kind::Int, &Value::Integer(5), &Value::Integer(120))
    );
    // RED's declared max_p = 0.1 in (0, 1]: ÷/× 10 capped at 1; printed "1", read as an integer.
    assert_eq!((max_p.kind, max_p.log), (Kind::Float, true));
    assert_eq!(
        (max_p.lo.as_float(), max_p.hi.as_integer()),
        (Some(0.01), Some(1))
    );
    // w_q = 0.002: 0.0002 to 0.02.
    assert_eq!(
        (w_q.lo.as_float(), w_q.hi.as_float()),
        (Some(0.0002), Some(0.02))
    );
    assert_eq!(s.variant.as_deref(), Some("red"));
    assert_eq!(
        s.baselines,
        [Some("red".to_string()), Some("droptail".to_string())]
    );
    assert_eq!(s.objectives[0].label(), "max pct_le_1s");
    let c = &s.constraints[0];
    assert_eq!(
        (c.column.as_str(), c.op(), c.bound),
        ("utilization", ">=", 0.8)
    );
    assert_eq!(
        (s.trials, s.replications, s.final_replications, s.finalists),
        (40, 2, 6, 3)
    );
    assert_eq!((s.seed, s.batch, s.population, s.timeout), (1, 4, 10, None));
    assert_eq!(s.seeds(3), [1, 2, 3]);
    s.validate().unwrap();
    // 40 × 2 search runs + (3 finalists + 2 baselines) × 6 final runs.
    let size = s.size();
    assert_eq!((size.runs, size.key), (110, "tune.trials"));
    assert_eq!(
        size.text,
        "40 trials × 2 replications + (3 finalists + 2 baselines) × 6 final replications"
    );
}

#[test]
fn defaults_when_the_table_says_little() {
    let s = spec(GOOD);
    assert_eq!((s.trials, s.replications, s.final_replications), (40, 2, 6));
    assert_eq!((s.finalists, s.seed, s.batch, s.population), (3, 1, 4, 10));
    assert_eq!(s.baselines, [Some("red".to_string())]);
    let s = spec(&GOOD.replace(
        "variant = \"red\"\n",
        "variant = \"red\"\nreplications = 8\n",
    ));
    assert_eq!(s.final_replications, 8); // at least the search's replications
    let over = table("trials = 7\nseed = 3\n");
    let root: Table = toml::from_str(&format!("{}{GOOD}", base_text())).unwrap();
    let (t, base) = split(&root, "t.toml").unwrap();
    let s = parse(&t, base, "t.toml", Path::new("."), &over, &[]).unwrap();
    assert_eq!((s.trials, s.seed), (7, 3));
}

#[test]
fn a_trial_is_written_into_the_variants_table_with_derived_values() {
    let s = spec(&format!(
        "{GOOD}\"queue.max_p\" = {{ float = [0.01, 0.5] }}\n[tune.derive]\n\"queue.max_th\" = \"3 * queue.min_th\"\n"
    ));
    let vals = s
        .derived(&table("\"queue.min_th\" = 20\n\"queue.max_p\" = 0.2\n"))
        .unwrap();
    assert_eq!(vals["queue.max_th"], Value::Integer(60));
    let doc = s.resolve(&vals, Some(7), None).unwrap();
    // The base is left alone; the red variant's own table gets the values; only it runs.
    let want = base_text()
        .replace("seed = 1", "seed = 7")
        .replace(
            "[[variant]]\nname = \"droptail\"\nqueue = { kind = \"droptail\", limit = 120 }\n\n",
            "",
        )
        .replace(
            "min_th = 30, max_th = 90, w_q = \"1/512\", max_p = 0.1",
            "min_th = 20, max_th = 60, w_q = \"1/512\", max_p = 0.2",
        );
    assert_eq!(run_id(&doc), run_id(&table(&want)));
    assert_eq!(
        path::get(&doc, "queue.kind").unwrap().as_str(),
        Some("droptail")
    );
    // Same values and seed, same id; another seed, another id.
    assert_eq!(
        run_id(&s.resolve(&vals, Some(7), None).unwrap()),
        run_id(&doc)
    );
    assert_ne!(
        run_id(&s.resolve(&vals, Some(8), None).unwrap()),
        run_id(&doc)
    );
    // The baseline is the variant as written.
    let b = s.baseline(Some("droptail"), Some(2));
    assert_eq!(
        Value::Array(vec![Value::Table(table(
            "name = \"droptail\"\nqueue = { kind = \"droptail\", limit = 120 }"
        ))]),
        b["variant"]
    );
    assert_eq!(path::get(&b, "run.seed").unwrap(), Value::Integer(2));
}

#[test]
fn a_kind_choice_replaces_the_table_and_conditions_follow_it() {
    let s = spec(
        "[tune]\nvariant = \"red\"\nobjectives = [\"min median_rt_ms\", \"max utilization\"]\n\
         [tune.params]\n\"queue.kind\" = { choice = [\"red\", \"pie\", \"codel\"] }\n\
         \"queue.min_th\" = { int = [5, 60], when = { \"queue.kind\" = \"red\" } }\n\
         \"queue.target\" = { duration = [\"2ms\", \"50ms\"], log = true, when = { \"queue.kind\" = [\"pie\", \"codel\"] } }\n\
         \"queue.mean_pktsize\" = { search = \"default\", when = { \"queue.kind\" = \"red\" } }\n\
         [tune.derive]\n\"queue.max_th\" = { expr = \"3 * queue.min_th\", when = { \"queue.kind\" = \"red\" } }\n",
    );
    let points = s.sample_points();
    assert_eq!(points.len(), 3);
    // red: min_th at (5 + 60) / 2 = 32.5 → 32 (halves to even); mean_pktsize 150..15000 on a
    // log scale: √(150 · 15000) = 1500, a size written in bytes.
    assert_eq!(
        points[0],
        table(
            "\"queue.kind\" = \"red\"\n\"queue.min_th\" = 32\n\"queue.mean_pktsize\" = \"1500B\"\n"
        )
    );
    // pie: target √(2 · 50) = 10 ms = 10000 µs.
    assert_eq!(
        points[1],
        table("\"queue.kind\" = \"pie\"\n\"queue.target\" = \"10000us\"\n")
    );
    s.validate().unwrap();
    let pie = s.derived(&points[1]).unwrap();
    assert!(!pie.contains_key("queue.max_th")); // inactive: not computed, not written
    let doc = s.resolve(&pie, None, None).unwrap();
    assert_eq!(
        path::get(&doc, "variant[red].queue").unwrap(),
        Value::Table(table("kind = \"pie\"\ntarget = \"10000us\""))
    );
    // The same kind keeps the variant's own table (w_q, limit as written).
    let red = s
        .derived(&table("\"queue.kind\" = \"red\"\n\"queue.min_th\" = 10\n"))
        .unwrap();
    let q = path::get(&s.resolve(&red, None, None).unwrap(), "variant[red].queue").unwrap();
    assert_eq!(
        q,
        Value::Table(table(
            "kind = \"red\"\nmin_th = 10\nmax_th = 30\nw_q = \"1/512\"\nmax_p = 0.1\nlimit = 480"
        ))
    );
    let size = s
        .params
        .iter()
        .find(|p| p.path == "queue.mean_pktsize")
        .unwrap();
    assert_eq!((size.kind, size.unit), (Kind::Int, "B"));
    assert_eq!(
        size.written(Value::Integer(700)),
        Value::String("700B".into())
    );
}

#[test]
fn written_values_round_half_to_even_in_microseconds() {
    let s = spec(&GOOD.replace(
        "\"queue.min_th\" = { int = [5, 60] }",
        "\"queue.min_th\" = { int = [5, 60] }\n\"var.t\" = { duration = [\"1ms\", \"9ms\"] }",
    ));
    let t = &s.params[1];
    let w = |x: f64| t.written(Value::Float(x));
    assert_eq!(w(12.3456), Value::String("12346us".into()));
    assert_eq!(w(0.0625), Value::String("62us".into())); // 62.5 → 62
    assert_eq!(w(0.1875), Value::String("188us".into())); // 187.5 → 188
    assert_eq!(w(0.0001), Value::String("1us".into())); // at least 1 µs
                                                        // Linear middle of 1..9 ms: 5 ms.
    assert_eq!(
        s.sample_points()[0]["var.t"],
        Value::String("5000us".into())
    );
}

#[test]
fn conditions_compare_as_python_does() {
    let s = spec(
        "[tune]\nvariant = \"red\"\nobjectives = [\"min median_rt_ms\"]\n[tune.params]\n\
         \"var.n\" = { choice = [1, 2] }\n\"var.x\" = { float = [0, 1], when = { \"var.n\" = 1.0 } }\n",
    );
    let x = &s.params[1];
    assert!(when::active(&x.when, &table("\"var.n\" = 1")));
    assert!(!when::active(&x.when, &table("\"var.n\" = 2")));
    assert!(!when::active(&x.when, &Table::new()));
}

#[test]
fn a_derived_value_reads_the_trial_then_the_variant_then_the_base() {
    let s = spec(&format!(
        "{GOOD}[tune.derive]\n\"queue.max_th\" = \"queue.limit - queue.min_th\"\n\
         \"var.z\" = \"var.missing\"\n"
    ));
    // limit 480 is the red variant's own (the base droptail has 120).
    let e = s.derived(&table("\"queue.min_th\" = 30")).unwrap_err();
    assert_eq!(e.path, "var.z");
    assert_eq!(
        e.reason,
        "no tuned variable 'var.missing' (or it is not active in this trial)"
    );
    let s = spec(&format!(
        "{GOOD}[tune.derive]\n\"queue.max_th\" = \"queue.limit - queue.min_th\"\n"
    ));
    let v = s.derived(&table("\"queue.min_th\" = 30")).unwrap();
    assert_eq!(v["queue.max_th"], Value::Integer(450));
}

#[test]
fn paired_writes_into_the_base_for_both_variants() {
    let s = spec(
        "[tune]\npaired = [\"red\", \"droptail\"]\nobjectives = [\"max pct_le_1s\"]\n\
         [tune.params]\n\"tcp.min_rto\" = { duration = [\"200ms\", \"1s\"] }\n",
    );
    assert_eq!(s.paired, Some(["red".to_string(), "droptail".to_string()]));
    assert_eq!(s.variant, None);
    assert_eq!(s.baselines, [None]); // the pair as written
    let vals = s.sample_points().remove(0);
    assert_eq!(vals, table("\"tcp.min_rto\" = \"600000us\"\n")); // (200 + 1000) / 2 ms
    let a = s.resolve(&vals, Some(3), Some("red")).unwrap();
    let b = s.resolve(&vals, Some(3), Some("droptail")).unwrap();
    for (doc, name) in [(&a, "red"), (&b, "droptail")] {
        assert_eq!(
            path::get(doc, "tcp.min_rto").unwrap().as_str(),
            Some("600000us")
        );
        let names: Vec<&str> = doc["variant"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [name]);
    }
    assert_eq!(a["run"]["seed"], b["run"]["seed"]);
    s.validate().unwrap();
    // Both variants on every seed: (40 × 2 + (3 + 1) × 6) × 2.
    let size = s.size();
    assert_eq!((size.runs, size.key), (160 + 48, "tune.trials"));
    assert_eq!(
        size.text,
        "40 trials × 2 replications + (3 finalists + 1 baselines) × 6 final replications × 2 variants"
    );
    // The pair as written keeps both variants.
    let b = s.baseline(None, None);
    assert_eq!(b["variant"].as_array().map(Vec::len), Some(2));
}

#[test]
fn a_variants_array_key_is_set_in_a_copy_of_the_base_array() {
    let s = spec(&format!(
        "{GOOD}\"workload[0].rate\" = {{ float = [100, 300] }}\n"
    ));
    let doc = s
        .resolve(
            &table("\"queue.min_th\" = 10\n\"workload[0].rate\" = 150.0\n"),
            None,
            None,
        )
        .unwrap();
    let mut want = doc["workload"].as_array().unwrap()[0].clone();
    want.as_table_mut()
        .unwrap()
        .insert("rate".into(), Value::Float(150.0));
    assert_eq!(
        path::get(&doc, "variant[red].workload").unwrap(),
        Value::Array(vec![want])
    );
    assert_eq!(
        path::get(&doc, "workload[0].rate").unwrap(),
        Value::Float(225.0)
    ); // base as written
    s.validate().unwrap();
}

#[test]
fn extra_columns_may_be_named() {
    let tune = GOOD.replace("min median_rt_ms", "min e2e_median_rt_ms");
    assert_eq!(
        err(&tune).1.split(" (columns").next(),
        Some("'e2e_median_rt_ms': not a summary column")
    );
    let root: Table = toml::from_str(&format!("{}{tune}", base_text())).unwrap();
    let (t, base) = split(&root, "t.toml").unwrap();
    let extra = ["e2e_median_rt_ms".to_string()];
    let s = parse(
        &t,
        base.clone(),
        "t.toml",
        Path::new("."),
        &Table::new(),
        &extra,
    )
    .unwrap();
    assert_eq!(
        (s.objectives[0].column.as_str(), s.extra_columns.len()),
        ("e2e_median_rt_ms", 1)
    );
    let other = ["http_loss_pct".to_string()];
    let e = parse(&t, base, "t.toml", Path::new("."), &Table::new(), &other).unwrap_err();
    assert!(e.reason.starts_with(
        "'e2e_median_rt_ms': not a summary or --metrics column (columns: measured_s,"
    ));
    assert!(
        e.reason.ends_with(", timeouts, http_loss_pct)"),
        "{}",
        e.reason
    );
}

#[test]
fn paired_mistakes() {
    let t = |paired: &str, extra: &str| {
        err(&format!(
            "[tune]\npaired = {paired}\n{extra}objectives = [\"max pct_le_1s\"]\n[tune.params]\n\"var.x\" = {{ float = [0, 1] }}\n"
        ))
    };
    let key = "tune.paired".to_string();
    assert_eq!(
        t("[\"red\", \"droptail\"]", "variant = \"red\"\n"),
        (
            key.clone(),
            "give either tune.variant or tune.paired".into()
        )
    );
    assert_eq!(
        t("[\"red\", \"pie\"]", ""),
        (
            key.clone(),
            "no variant \"pie\" (variants: droptail, red)".into()
        )
    );
    for bad in [
        "[\"red\", \"red\"]",
        "[\"red\"]",
        "[\"red\", \"droptail\", \"x\"]",
        "\"red\"",
        "[\"red\", 1]",
    ] {
        assert_eq!(
            t(bad, ""),
            (key.clone(), "give two distinct variant names".into()),
            "{bad}"
        );
    }
    assert_eq!(
        t(
            "[\"red\", \"droptail\"]",
            "constraints = [\"utilization >= 0.5\"]\n"
        ),
        (
            "tune.constraints".into(),
            "not allowed with tune.paired".into()
        )
    );
}

#[test]
fn range_mistakes() {
    let p = |range: &str| err(&GOOD.replace("{ int = [5, 60] }", range));
    let k = "tune.params.\"queue.min_th\"";
    assert_eq!(
        p("{ int = [60, 5] }"),
        (
            format!("{k}.int"),
            "bad range: lo must be less than hi, got [60, 5]".into()
        )
    );
    assert_eq!(
        p("{ int = [5, 60.5] }"),
        (
            format!("{k}.int"),
            "bounds must be integers, got [5, 60.5]".into()
        )
    );
    assert_eq!(
        p("{ float = [0, inf] }"),
        (
            format!("{k}.float"),
            "bounds must be finite, got [0, inf]".into()
        )
    );
    assert_eq!(
        p("{ float = [0, 1, 2] }"),
        (
            format!("{k}.float"),
            "must be [lo, hi], got [0, 1, 2]".into()
        )
    );
    assert_eq!(
        p("{ float = [0, 0.5], log = true }"),
        (
            format!("{k}.log"),
            "a log scale needs a positive lower bound, got 0".into()
        )
    );
    assert_eq!(
        p("{ float = [1, 2], log = 1 }"),
        (format!("{k}.log"), "must be true or false, got 1".into())
    );
    assert_eq!(
        p("{ int = [5, 60], float = [1, 2] }"),
        (k.into(), "give exactly one of int, float, duration, choice (or \"default\"), got ['int', 'float']".into())
    );
    assert_eq!(
        p("{ log = true }"),
        (
            k.into(),
            "give exactly one of int, float, duration, choice (or \"default\"), got none".into()
        )
    );
    assert_eq!(
        p("{ int = [5, 60], step = 2.5 }"),
        (
            format!("{k}.step"),
            "must be an integer for an int range, got 2.5".into()
        )
    );
    assert_eq!(
        p("{ int = [5, 60], step = 2, log = true }"),
        (
            format!("{k}.step"),
            "a positive number, for int and float ranges on a linear scale".into()
        )
    );
    assert_eq!(
        p("{ duration = [\"1ms\", 5] }"),
        (
            format!("{k}.duration"),
            "5 is not a duration such as \"20ms\" (ns, us, ms, s, min, h)".into()
        )
    );
    assert_eq!(
        p("{ choice = [] }"),
        (
            format!("{k}.choice"),
            "must be a non-empty array of values".into()
        )
    );
    assert_eq!(
        p("{ choice = [5, 5] }"),
        (format!("{k}.choice"), "has a value twice".into())
    );
    assert_eq!(
        p("{ choice = [5, 6], log = true }"),
        (k.into(), "a choice takes no log or step".into())
    );
    assert_eq!(p("{ int = [5, 60], lo = 1 }").0, format!("{k}.lo"));
    assert!(p("7")
        .1
        .starts_with("must be \"default\" or a range such as"));
    assert_eq!(
        err(&GOOD.replace("\"queue.min_th\"", "\"queue..min_th\"")).0,
        "tune.params.\"queue..min_th\""
    );
}

#[test]
fn declared_keys_and_default_ranges() {
    let k = |p: &str| format!("tune.params.\"{p}\"");
    let (key, reason) = err(&GOOD.replace("min_th", "min_thh"));
    assert_eq!(key, k("queue.min_thh"));
    assert!(
        reason.starts_with("unknown key: a red table has no 'min_thh' (keys: "),
        "{reason}"
    );
    assert!(reason.ends_with("; aqmlab params red)"), "{reason}");
    assert_eq!(
        err(&format!("{GOOD}\"run.duration\" = \"default\"\n")),
        (k("run.duration"), "\"default\": no declared model holds this key; give a range such as { float = [lo, hi] }".into())
    );
    assert_eq!(
        err(&format!("{GOOD}\"queue.gentle\" = \"default\"\n")),
        (k("queue.gentle"), "\"default\": red declares no search range for it; give a range such as { float = [lo, hi] }".into())
    );
    assert_eq!(
        err(&format!(
            "{GOOD}\"queue.w_q\" = {{ search = \"default\", float = [0, 1] }}\n"
        )),
        (
            format!("{}.search", k("queue.w_q")),
            "must be \"default\" (the declared range), without a range".into()
        )
    );
    // `log` as written overrides the declared scale.
    let s = spec(&format!(
        "{GOOD}\"queue.w_q\" = {{ search = \"default\", log = false }}\n"
    ));
    assert!(!s.params[1].log);
    // `[tcp]` is the tcp model: mss = 1460 B gives 146..14600, written in bytes.
    let s = spec(&format!("{GOOD}\"tcp.mss\" = \"default\"\n"));
    let mss = &s.params[1];
    assert_eq!((mss.kind, mss.unit), (Kind::Int, "B"));
    assert_eq!(
        (&mss.lo, &mss.hi),
        (&Value::Integer(146), &Value::Integer(14600))
    );
    // The dumbbell's bottleneck_rate is required: it has no default to search around.
    assert!(err(&format!(
        "{GOOD}\"topology.bottleneck_rate\" = \"default\"\n"
    ))
    .1
    .starts_with("\"default\": dumbbell declares no search range for it"));
}

#[test]
fn condition_mistakes() {
    let w = "tune.params.\"queue.max_p\".when".to_string();
    assert_eq!(
        err(&format!("{GOOD}\"queue.max_p\" = {{ float = [0.01, 0.5], when = {{ \"queue.kind\" = \"red\" }} }}\n")),
        (w.clone(), "'queue.kind' is not a choice parameter listed before this key".into())
    );
    let choice = GOOD.replace(
        "\"queue.min_th\" = { int = [5, 60] }",
        "\"var.k\" = { choice = [\"a\", \"b\"] }\n\"queue.min_th\" = { int = [5, 60] }",
    );
    assert_eq!(
        err(&format!("{choice}\"queue.max_p\" = {{ float = [0.01, 0.5], when = {{ \"var.k\" = [\"c\", \"a\"] }} }}\n")),
        (w.clone(), "['c']: not among the choices of var.k ['a', 'b']".into())
    );
    assert_eq!(
        err(&format!(
            "{choice}\"queue.max_p\" = {{ float = [0.01, 0.5], when = {{ \"var.k\" = [] }} }}\n"
        )),
        (
            w.clone(),
            "(): not among the choices of var.k ['a', 'b']".into()
        )
    );
    assert_eq!(
        err(&format!(
            "{choice}\"queue.max_p\" = {{ float = [0.01, 0.5], when = {{}} }}\n"
        )),
        (
            w,
            "must be a table such as { \"queue.kind\" = \"red\" }".into()
        )
    );
}

#[test]
fn table_mistakes() {
    let o = |objectives: &str| err(&GOOD.replace("[\"min median_rt_ms\"]", objectives));
    assert_eq!(
        o("[\"best median_rt_ms\"]"),
        (
            "tune.objectives".into(),
            "'best median_rt_ms': want \"min COLUMN\" or \"max COLUMN\"".into()
        )
    );
    assert!(o("[\"min median_rt\"]")
        .1
        .starts_with("'median_rt': not a summary column (columns: measured_s, kb_per_s,"));
    assert_eq!(
        o("[]"),
        (
            "tune.objectives".into(),
            "at least one, e.g. [\"min median_rt_ms\"]".into()
        )
    );
    assert_eq!(
        o("[\"min pct_le_1s\", \"maximize pct_le_1s\"]"),
        ("tune.objectives".into(), "a column is named twice".into())
    );
    assert_eq!(
        o("[1]"),
        (
            "tune.objectives".into(),
            "must be an array of strings".into()
        )
    );
    let c = |constraint: &str| {
        err(&GOOD.replace(
            "objectives",
            &format!("constraints = [\"{constraint}\"]\nobjectives"),
        ))
    };
    assert_eq!(
        c("utilization > 0.9"),
        (
            "tune.constraints".into(),
            "'utilization > 0.9': want \"COLUMN >= NUMBER\" or \"COLUMN <= NUMBER\"".into()
        )
    );
    assert!(c("utilisation >= 0.9")
        .1
        .starts_with("'utilisation': not a summary column"));
    let s = spec(&GOOD.replace(
        "objectives",
        "constraints = [\" drops_pct <= -1.5e-1 \"]\nobjectives",
    ));
    let k = &s.constraints[0];
    assert_eq!(
        (k.at_most, k.bound, k.text.as_str()),
        (true, -0.15, "drops_pct <= -1.5e-1")
    );
    assert_eq!(k.violation(Some(0.05)), 0.05 + 0.15);
    assert_eq!(k.violation(None), f64::INFINITY);
    assert_eq!(k.violation(Some(f64::NAN)), f64::INFINITY);

    let t = |line: &str| {
        err(&GOOD.replace(
            "variant = \"red\"\n",
            &format!("variant = \"red\"\n{line}\n"),
        ))
    };
    assert_eq!(t("trails = 3").0, "tune.trails");
    assert!(t("trails = 3")
        .1
        .starts_with("unknown key (allowed: params, derive,"));
    assert_eq!(
        t("replications = 0"),
        (
            "tune.replications".into(),
            "must be an integer >= 1, got 0".into()
        )
    );
    assert_eq!(
        t("replications = 4\nfinal_replications = 3"),
        (
            "tune.final_replications".into(),
            "must be an integer >= replications (4), got 3".into()
        )
    );
    assert_eq!(
        t("timeout = 0"),
        (
            "tune.timeout".into(),
            "must be a number of seconds > 0, got 0".into()
        )
    );
    assert_eq!(
        t("seed = -1"),
        ("tune.seed".into(), "must be an integer >= 0, got -1".into())
    );
    assert_eq!(
        t("population = 1"),
        (
            "tune.population".into(),
            "must be an integer >= 2, got 1".into()
        )
    );
    assert_eq!(
        t("baselines = [\"pie\"]"),
        (
            "tune.baselines".into(),
            "no variant named 'pie' (the file has: droptail, red)".into()
        )
    );
    assert_eq!(
        err(&GOOD.replace("variant = \"red\"\n", "")),
        (
            "tune.variant".into(),
            "the file has 2 variants (droptail, red): name the one to tune".into()
        )
    );
    assert_eq!(
        err(&GOOD.replace("\"red\"", "\"pie\"")),
        (
            "tune.variant".into(),
            "no variant named 'pie' (the file has: droptail, red)".into()
        )
    );
    assert_eq!(
        err(&format!("{GOOD}\"run.seed\" = {{ int = [1, 9] }}\n")),
        (
            "tune.params.\"run.seed\"".into(),
            "the seed is not a parameter (replications set it)".into()
        )
    );
    assert_eq!(
        err(&format!("{GOOD}[tune.derive]\n\"queue.min_th\" = \"5\"\n")),
        (
            "tune.derive.\"queue.min_th\"".into(),
            "already a tuned parameter".into()
        )
    );
    assert_eq!(
        err(&format!(
            "{GOOD}[tune.derive]\n\"queue.max_th\" = {{ expr = \"1\", by = 2 }}\n"
        )),
        (
            "tune.derive.\"queue.max_th\".by".into(),
            "unknown key (allowed: expr, when)".into()
        )
    );
    assert_eq!(
        err(&format!("{GOOD}[tune.derive]\n\"queue.max_th\" = 3\n")),
        (
            "tune.derive.\"queue.max_th\"".into(),
            "expected an expression string, got 3".into()
        )
    );
    assert!(err(&format!(
        "{GOOD}[tune.derive]\n\"queue.max_th\" = \"3 *\"\n"
    ))
    .1
    .contains("syntax error"));
    let root: Table = toml::from_str(base_text()).unwrap();
    assert_eq!(
        split(&root, "t.toml").unwrap_err().to_string(),
        "t.toml: tune: no [tune] table: nothing to tune (see docs/scenarios.md, \"Tuning\")"
    );
}

#[test]
fn the_core_checks_the_sample_trials() {
    // max_th = min_th: RED refuses it; the sample trial is min_th at (5 + 60) / 2 → 32.
    let s = spec(&format!(
        "{GOOD}[tune.derive]\n\"queue.max_th\" = \"queue.min_th\"\n"
    ));
    let e = s.validate().unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.key.as_str()),
        ("t.toml", "variant[red].queue.min_th")
    );
    assert!(
        e.reason.contains("must be less than max_th"),
        "{}",
        e.reason
    );
    assert!(
        e.reason.ends_with(" (sample trial: queue.min_th = 32)"),
        "{}",
        e.reason
    );
    // A derived value that cannot be computed is named with the trial.
    let s = spec(&format!(
        "{GOOD}[tune.derive]\n\"queue.max_th\" = \"3 * queue.nothing\"\n"
    ));
    let e = s.validate().unwrap_err();
    assert_eq!(e.key, "tune.derive.\"queue.max_th\"");
    assert!(e.reason.contains("no key 'nothing'"), "{}", e.reason);
    assert!(
        e.reason.ends_with("(sample trial: queue.min_th = 32)"),
        "{}",
        e.reason
    );
    // A baseline the core refuses names itself.
    let s = spec(&GOOD.replace(
        "variant = \"red\"\n",
        "variant = \"red\"\nbaselines = [\"droptail\"]\n",
    ));
    let mut broken = s.clone();
    path::set(
        &mut broken.base,
        "variant[droptail].queue.limit",
        Value::Integer(-1),
    )
    .unwrap();
    let e = broken.validate().unwrap_err();
    assert!(e.reason.ends_with("(baseline droptail)"), "{}", e.reason);
}
