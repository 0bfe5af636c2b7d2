//! The documents a calibration runs: the scenario's base (no `[[variant]]`: variants change
//! queues, which do not matter on an unconstrained link) at one parameter value, on the
//! calibration link rate, for the calibration's warm-up and measured time.

use super::calibrated::Calibrated;
use super::hash::LANGUAGE_TABLES;
use super::settings::Settings;
use toml::{Table, Value};

/// Fractions of C the automatic points offer (25 … 125 %: they bracket every load a scenario
/// is likely to ask for; aqmlab choice).
pub const AUTO_FRACTIONS: [f64; 5] = [0.25, 0.5, 0.75, 1.0, 1.25];

/// The calibration run of `sc` at parameter value `x` under settings `s`.
pub fn point_doc(sc: &Calibrated, s: &Settings, x: f64) -> Table {
    let mut doc = sc.doc.clone();
    doc.remove("variant");
    for k in LANGUAGE_TABLES {
        doc.remove(k);
    }
    let run = doc
        .entry("run")
        .or_insert_with(|| Value::Table(Table::new()));
    if let Value::Table(run) = run {
        run.remove("stop_after_responses");
        if let Some(w) = &s.warmup {
            run.insert("warmup".into(), Value::String(w.clone()));
        }
        run.insert("duration".into(), Value::String(s.duration.clone()));
    }
    if let Some(Value::Table(t)) = doc.get_mut("topology") {
        t.insert(sc.rate_key().into(), Value::String(s.rate.clone()));
    }
    set_parameter(&mut doc, sc, x);
    doc
}

/// `doc`'s calibrated workload with `load` replaced by the parameter at `x`.
pub(crate) fn set_parameter(doc: &mut Table, sc: &Calibrated, x: f64) {
    if let Some(Value::Table(w)) = doc
        .get_mut("workload")
        .and_then(Value::as_array_mut)
        .and_then(|a| a.get_mut(sc.workload))
    {
        w.remove("load");
        w.insert(sc.parameter.key().into(), sc.parameter.typed(x));
    }
}

/// Automatic points from two pilot runs at x₀ and x₁ offering y₀ and y₁: the line u = (y₁ −
/// y₀)/(x₁ − x₀) (or y₁/x₁ when noise swamps the difference), b = y₀ − u·x₀, and x = (f·C −
/// b)/u for each fraction f where f·C > b; (u, b, points), three doublings of x₀ when fewer
/// than two remain.
pub fn auto_points(sc: &Calibrated, x0: f64, y0: f64, x1: f64, y1: f64) -> (f64, f64, Vec<f64>) {
    let mut u = (y1 - y0) / (x1 - x0);
    if u.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        u = y1 / x1;
    }
    let b = y0 - u * x0;
    let c = sc.bottleneck_bps;
    let mut xs: Vec<f64> = AUTO_FRACTIONS
        .iter()
        .filter(|f| *f * c > b)
        .map(|f| sc.parameter.point((f * c - b) / u))
        .collect();
    sorted_distinct(&mut xs);
    if xs.len() < 2 {
        xs = [x0, 2.0 * x0, 4.0 * x0]
            .iter()
            .map(|x| sc.parameter.point(*x))
            .collect();
        sorted_distinct(&mut xs);
    }
    (u, b, xs)
}

/// Sort and drop repeats.
pub fn sorted_distinct(xs: &mut Vec<f64>) {
    xs.sort_by(f64::total_cmp);
    xs.dedup();
}
