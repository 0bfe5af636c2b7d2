//! `[sweep]`: one scenario file describing many runs, expanded here into resolved runs.
//!
//! The base scenario is everything but `[sweep]` (and `[calibration]`); a set of points gives
//! keys other values; each point runs `replications` times with consecutive seeds (`run.seed`,
//! default 1, then the next ones) for each selected `[[variant]]`:
//!
//! ```toml
//! [sweep]
//! replications = 5                 # seeds run.seed, run.seed + 1, …
//! variants = ["red"]               # optional: only these variants (default: all)
//! load_axis = "workload[0].rate"   # optional: the x axis of the load figures
//! data_dir = "../data"             # optional: where relative data files resolve
//!
//! [sweep.grid]                     # product of the lists (first key varies slowest)
//! "variant[red].queue.min_th" = [5, 30, 60]
//! "workload[0].rate" = [150.0, 200.0, 250.0]
//!
//! [sweep.zip]                      # lists of one length, taken together (i-th with i-th)
//! "variant[red].queue.w_q" = ["1/512", "1/128"]
//! "variant[red].queue.max_p" = [0.1, 0.05]
//!
//! [sweep.derive]                   # derived values, in this order (`expr.rs`)
//! "variant[red].queue.max_th" = "3 * variant[red].queue.min_th"
//! ```
//!
//! Points are grid × zip rows; runs are point-major, then replication, then variant. Key paths
//! (`path.rs`) write into the base document; `var.NAME` is a variable only derived values read.
//! A run's document is the base with the point's values and the seed set, `[sweep]` and
//! `[calibration]` removed and `[[variant]]` reduced to its own variant, runnable on its own; its
//! id is `canonical::run_id` of that document, so the same resolved scenario always gets the same
//! id. A key a run's variant hides is left out of that run's document (so it does not make two
//! ids of one scenario). Keys that change no run are refused (`effect.rs`). Every mistake is
//! `FILE: KEY: reason` before anything runs.
//!
//! The `load = …` of a workload and the run-cost limits are resolved by the caller between
//! [`plan`] and [`expand`] (python/aqmlab/sweeps/run.py).
//!
//! Validation: tests below (hand-computed grids, zips, derived values, each error);
//! python/tests/test_sweep_spec.py, test_sweep_effect.py, test_scenario_document.py (every
//! shipped sweep gives the ids it gave when Python expanded it).

pub mod canonical;
mod effect;
pub mod expr;
pub mod path;

pub use canonical::{canonical_json, run_id};
pub use effect::shadowed_by;

use crate::error::{KeyError, ScenarioError};
use expr::Expr;
use path::is_var;
use toml::{Table, Value};

/// The keys of a `[sweep]` table.
pub const SWEEP_KEYS: [&str; 7] = [
    "grid",
    "zip",
    "derive",
    "replications",
    "variants",
    "load_axis",
    "data_dir",
];

/// `sweep.SECTION."PATH"`, the key of one entry of a sweep section.
pub(crate) fn qkey(section: &str, path: &str) -> String {
    format!("sweep.{section}.\"{path}\"")
}

/// A checked `[sweep]` table.
#[derive(Clone, Debug)]
pub(crate) struct SweepTable {
    grid: Vec<(String, Vec<Value>)>,
    zip: Vec<(String, Vec<Value>)>,
    derive: Vec<(String, Expr)>,
    replications: i64,
    variants: Option<Vec<String>>,
    load_axis: Option<String>,
    data_dir: String,
}

impl SweepTable {
    /// Every swept key with its section, in axis order (grid, zip, derive).
    fn sections(&self) -> Vec<(String, &'static str)> {
        let g = self.grid.iter().map(|(p, _)| (p.clone(), "grid"));
        let z = self.zip.iter().map(|(p, _)| (p.clone(), "zip"));
        let d = self.derive.iter().map(|(p, _)| (p.clone(), "derive"));
        g.chain(z).chain(d).collect()
    }
}

/// What a sweep is before it is expanded: its axes and its size.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The key paths that vary between points (grid, zip, derive, in file order).
    pub axes: Vec<String>,
    pub replications: i64,
    /// The x axis of load figures: `sweep.load_axis`, else a swept workload intensity
    /// (`workload[i].rate` / `users` / `flows`) or `var.load`.
    pub load_axis: Option<String>,
    /// `sweep.data_dir` as written ("." when absent), relative to the sweep file.
    pub data_dir: String,
    /// The variants run, in file order (empty for a file without variants).
    pub variants: Vec<String>,
    /// Runs: grid points × zip rows × replications × variants (saturating).
    pub runs: u128,
    /// How the runs multiply, for messages: `3 × 2 grid points × 5 replications × 1 variant`.
    pub size_text: String,
    /// The `[sweep]` key of the largest factor (the first on ties), where a refusal points.
    pub size_key: &'static str,
}

/// One run of a sweep.
#[derive(Clone, Debug)]
pub struct Run {
    /// `run_id(doc)`.
    pub id: String,
    /// Its variant ("" for a file without variants).
    pub name: String,
    /// 0-based replication.
    pub replication: i64,
    /// Its seed (`run.seed` of the point for one replication).
    pub seed: Value,
    /// The point's grid, zip and derived values by key path (in that order).
    pub values: Vec<(String, Value)>,
    /// The resolved scenario document.
    pub doc: Table,
    /// The keys of `values` that take effect in this run (in axis order).
    pub applies: Vec<String>,
}

fn values_list(v: &Value, section: &str, path: &str) -> Result<Vec<Value>, KeyError> {
    match v {
        Value::Array(a) if !a.is_empty() => Ok(a.clone()),
        _ => Err(KeyError::new(
            qkey(section, path),
            "must be a non-empty array of values",
        )),
    }
}

fn section<'a>(sweep: &'a Table, name: &str) -> Result<Option<&'a Table>, KeyError> {
    match sweep.get(name) {
        None => Ok(None),
        Some(Value::Table(t)) => Ok(Some(t)),
        Some(_) => Err(KeyError::new(
            format!("sweep.{name}"),
            "must be a table of \"key.path\" = ...",
        )),
    }
}

fn parse_table(sweep: &Value) -> Result<SweepTable, KeyError> {
    let Value::Table(sweep) = sweep else {
        return Err(KeyError::new("sweep", "must be a table"));
    };
    let data_dir = match sweep.get("data_dir") {
        None => ".".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(KeyError::new(
                "sweep.data_dir",
                format!(
                    "must be a directory path string, got {}",
                    canonical::py_repr(v)
                ),
            ))
        }
    };
    for k in sweep.keys() {
        if !SWEEP_KEYS.contains(&k.as_str()) {
            return Err(KeyError::new(
                format!("sweep.{k}"),
                format!("unknown key (allowed: {})", SWEEP_KEYS.join(", ")),
            ));
        }
    }
    let (grid, zip, derive) = (
        section(sweep, "grid")?,
        section(sweep, "zip")?,
        section(sweep, "derive")?,
    );
    let empty = Table::new();
    let (grid, zip, derive) = (
        grid.unwrap_or(&empty),
        zip.unwrap_or(&empty),
        derive.unwrap_or(&empty),
    );
    let grid: Vec<(String, Vec<Value>)> = grid
        .iter()
        .map(|(p, v)| Ok((p.clone(), values_list(v, "grid", p)?)))
        .collect::<Result<_, KeyError>>()?;
    let zip: Vec<(String, Vec<Value>)> = zip
        .iter()
        .map(|(p, v)| Ok((p.clone(), values_list(v, "zip", p)?)))
        .collect::<Result<_, KeyError>>()?;
    if zip.iter().any(|(_, v)| v.len() != zip[0].1.len()) {
        let desc: Vec<String> = zip
            .iter()
            .map(|(p, v)| format!("{p} has {}", v.len()))
            .collect();
        return Err(KeyError::new(
            "sweep.zip",
            format!("all lists must have one length ({})", desc.join(", ")),
        ));
    }
    let derive: Vec<(String, Expr)> = derive
        .iter()
        .map(|(p, v)| {
            let parsed = match v {
                Value::String(text) => expr::parse(text),
                v => Err(format!(
                    "expected an expression string, got {}",
                    canonical::py_repr(v)
                )),
            };
            parsed
                .map(|e| (p.clone(), e))
                .map_err(|e| KeyError::new(qkey("derive", p), e))
        })
        .collect::<Result<_, KeyError>>()?;
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let all = grid
        .iter()
        .map(|(p, _)| (p.as_str(), "grid"))
        .chain(zip.iter().map(|(p, _)| (p.as_str(), "zip")))
        .chain(derive.iter().map(|(p, _)| (p.as_str(), "derive")));
    for (p, sec) in all {
        path::parse(p).map_err(|e| KeyError::new(qkey(sec, p), e))?;
        if let Some((_, first)) = seen.iter().find(|(q, _)| *q == p) {
            return Err(KeyError::new(
                qkey(sec, p),
                format!("already set in sweep.{first}"),
            ));
        }
        seen.push((p, sec));
    }
    let replications = match sweep.get("replications") {
        None => 1,
        Some(Value::Integer(n)) if *n >= 1 => *n,
        Some(v) => {
            return Err(KeyError::new(
                "sweep.replications",
                format!("must be an integer >= 1, got {}", canonical::py_repr(v)),
            ))
        }
    };
    if replications > 1 {
        if let Some((_, sec)) = seen.iter().find(|(p, _)| *p == "run.seed") {
            return Err(KeyError::new(
                qkey(sec, "run.seed"),
                "cannot be swept with replications > 1",
            ));
        }
    }
    let variants = match sweep.get("variants") {
        None => None,
        Some(Value::Array(a))
            if !a.is_empty() && a.iter().all(|v| matches!(v, Value::String(_))) =>
        {
            Some(
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect(),
            )
        }
        Some(_) => {
            return Err(KeyError::new(
                "sweep.variants",
                "must be a non-empty array of variant names",
            ))
        }
    };
    let load_axis = match sweep.get("load_axis") {
        None => None,
        Some(Value::String(s)) if seen.iter().any(|(p, _)| p == s) => Some(s.clone()),
        Some(v) => {
            return Err(KeyError::new(
                "sweep.load_axis",
                format!(
                    "{} is not a key of sweep.grid, sweep.zip or sweep.derive",
                    canonical::py_repr(v)
                ),
            ))
        }
    };
    Ok(SweepTable {
        grid,
        zip,
        derive,
        replications,
        variants,
        load_axis,
        data_dir,
    })
}

/// A swept workload intensity (`workload[i].rate` / `users` / `flows`), or `var.load`.
fn guess_load_axis(axes: &[String]) -> Option<String> {
    axes.iter()
        .find(|a| {
            if *a == "var.load" {
                return true;
            }
            let Some(rest) = a.strip_prefix("workload[") else {
                return false;
            };
            let Some((n, key)) = rest.split_once("].") else {
                return false;
            };
            !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && matches!(key, "rate" | "users" | "flows")
        })
        .cloned()
}

/// The base document (no `[sweep]`, no `[calibration]`) and the checked table of `root`.
fn split(root: &Table) -> Result<(Table, SweepTable, Vec<String>), KeyError> {
    let mut base = root.clone();
    let Some(sweep) = base.remove("sweep") else {
        return Err(KeyError::new(
            "sweep",
            "no [sweep] table: this is not a sweep (use `aqmlab run`)",
        ));
    };
    let table = parse_table(&sweep)?;
    base.remove("calibration"); // `aqmlab calibrate`'s defaults; not part of a run
    let all_names: Vec<String> = match base.get("variant") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_table)
            .map(|t| match t.get("name") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => canonical::py_repr(v),
                None => "None".into(),
            })
            .collect(),
        _ => Vec::new(),
    };
    if let Some(only) = &table.variants {
        if let Some(v) = only.iter().find(|v| !all_names.contains(v)) {
            return Err(KeyError::new(
                "sweep.variants",
                format!(
                    "no variant named {} (the file has: {})",
                    canonical::py_str(v),
                    all_names.join(", ")
                ),
            ));
        }
    }
    let selected = all_names
        .into_iter()
        .filter(|n| table.variants.as_ref().is_none_or(|o| o.contains(n)))
        .collect();
    Ok((base, table, selected))
}

/// The checked `[sweep]` table of the document `root` (of `file`) and its size, before anything
/// is expanded.
pub fn plan(root: &Table, file: &str) -> Result<Plan, ScenarioError> {
    let (_, table, selected) = split(root).map_err(|e| e.in_file(file))?;
    Ok(plan_of(&table, selected))
}

fn plan_of(table: &SweepTable, variants: Vec<String>) -> Plan {
    let axes: Vec<String> = table.sections().into_iter().map(|(p, _)| p).collect();
    let n_grid: Vec<u128> = table.grid.iter().map(|(_, v)| v.len() as u128).collect();
    let grid_points: u128 = n_grid.iter().fold(1u128, |a, b| a.saturating_mul(*b));
    let n_zip = table.zip.first().map_or(1, |(_, v)| v.len() as u128);
    let reps = table.replications as u128;
    let n_var = variants.len().max(1) as u128;
    let runs = grid_points
        .saturating_mul(n_zip)
        .saturating_mul(reps)
        .saturating_mul(n_var);
    let plural = |n: u128, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if !table.grid.is_empty() {
        let g: Vec<String> = n_grid.iter().map(u128::to_string).collect();
        parts.push(format!("{} grid points", g.join(" × ")));
    }
    if !table.zip.is_empty() {
        parts.push(format!("{n_zip} zip rows"));
    }
    parts.push(plural(reps, "replication"));
    parts.push(plural(n_var, "variant"));
    let factors = [
        ("sweep.grid", grid_points),
        ("sweep.zip", n_zip),
        ("sweep.replications", reps),
        ("sweep.variants", n_var),
    ];
    let mut size_key = factors[0];
    for f in &factors[1..] {
        if f.1 > size_key.1 {
            size_key = *f;
        }
    }
    Plan {
        load_axis: table.load_axis.clone().or_else(|| guess_load_axis(&axes)),
        axes,
        replications: table.replications,
        data_dir: table.data_dir.clone(),
        variants,
        runs,
        size_text: parts.join(" × "),
        size_key: size_key.0,
    }
}

/// `values` as the messages show a point: `queue.min_th = 20, run.seed = 7`.
pub fn describe(values: &[(String, Value)]) -> String {
    if values.is_empty() {
        return "the base scenario".into();
    }
    let parts: Vec<String> = values
        .iter()
        .map(|(k, v)| format!("{k} = {}", canonical::py_repr(v)))
        .collect();
    parts.join(", ")
}

/// Every point: grid (first key slowest) × zip rows, each as (path, value) in axis order.
fn points(table: &SweepTable) -> Vec<Vec<(String, Value)>> {
    let mut grid: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for (p, vals) in &table.grid {
        grid = grid
            .into_iter()
            .flat_map(|pt| {
                vals.iter().map(move |v| {
                    let mut pt = pt.clone();
                    pt.push((p.clone(), v.clone()));
                    pt
                })
            })
            .collect();
    }
    let rows = table.zip.first().map_or(0, |(_, v)| v.len());
    let zip: Vec<Vec<(String, Value)>> = (0..rows)
        .map(|i| {
            table
                .zip
                .iter()
                .map(|(p, v)| (p.clone(), v[i].clone()))
                .collect()
        })
        .collect();
    let zip = if zip.is_empty() {
        vec![Vec::new()]
    } else {
        zip
    };
    grid.iter()
        .flat_map(|g| zip.iter().map(move |z| [g.clone(), z.clone()].concat()))
        .collect()
}

fn only_variant(doc: &mut Table, name: &str) {
    if let Some(Value::Array(a)) = doc.get_mut("variant") {
        a.retain(|v| v.get("name").and_then(Value::as_str) == Some(name));
    }
}

/// The runs of the sweep document `root` (of `file`), with their resolved documents and ids.
pub fn expand(root: &Table, file: &str) -> Result<(Plan, Vec<Run>), ScenarioError> {
    expand_runs(root).map_err(|e| e.in_file(file))
}

fn expand_runs(root: &Table) -> Result<(Plan, Vec<Run>), KeyError> {
    let (base, table, selected) = split(root)?;
    let run_seed = match base
        .get("run")
        .and_then(Value::as_table)
        .and_then(|r| r.get("seed"))
    {
        None => 1,
        Some(Value::Integer(i)) => *i,
        Some(v) => {
            return Err(KeyError::new(
                "run.seed",
                format!("must be an integer, got {}", canonical::py_repr(v)),
            ))
        }
    };
    let reps = table.replications;
    let mut runs: Vec<Run> = Vec::new();
    for point in points(&table) {
        let mut doc0 = base.clone();
        for (p, v) in &point {
            if is_var(p) {
                continue;
            }
            let sec = if table.grid.iter().any(|(g, _)| g == p) {
                "grid"
            } else {
                "zip"
            };
            path::set(&mut doc0, p, v.clone()).map_err(|e| KeyError::new(qkey(sec, p), e))?;
        }
        for r in 0..reps {
            let mut doc = doc0.clone();
            let seed = if reps > 1 {
                let s = Value::Integer(run_seed.saturating_add(r));
                path::set(&mut doc, "run.seed", s.clone())
                    .map_err(|e| KeyError::new("run.seed", e))?;
                s
            } else {
                match doc.get("run").and_then(Value::as_table) {
                    Some(t) => t.get("seed").cloned().unwrap_or(Value::Integer(run_seed)),
                    None => Value::Integer(run_seed),
                }
            };
            let mut vals = point.clone();
            for (p, e) in &table.derive {
                let mut lookup = |q: &str| -> Result<Value, String> {
                    if is_var(q) {
                        return vals
                            .iter()
                            .find(|(k, _)| k == q)
                            .map(|(_, v)| v.clone())
                            .ok_or_else(|| {
                                format!(
                                    "no sweep variable {} (define it in sweep.grid or sweep.zip)",
                                    canonical::py_str(q)
                                )
                            });
                    }
                    path::get(&doc, q)
                };
                let at = |e: String| {
                    KeyError::new(qkey("derive", p), format!("{e} (at {})", describe(&point)))
                };
                let v = e.eval(&mut lookup).map_err(at)?;
                if !is_var(p) {
                    path::set(&mut doc, p, v.clone()).map_err(at)?;
                }
                vals.push((p.clone(), v));
            }
            let names: Vec<Option<&String>> = if selected.is_empty() {
                vec![None]
            } else {
                selected.iter().map(Some).collect()
            };
            for name in names {
                let mut rdoc = doc.clone();
                if let Some(n) = name {
                    only_variant(&mut rdoc, n);
                }
                runs.push(Run {
                    id: run_id(&rdoc),
                    name: name.cloned().unwrap_or_default(),
                    replication: r,
                    seed: seed.clone(),
                    values: vals.clone(),
                    doc: rdoc,
                    applies: Vec::new(),
                });
            }
        }
    }
    effect::check(&table, &mut runs, &selected)?;
    for run in &mut runs {
        drop_hidden(&base, run, reps)?;
    }
    Ok((plan_of(&table, selected), runs))
}

/// Rebuild `run`'s document from `base` with only the values that apply to it, so a base key its
/// variant hides (the base `[queue]`'s limit under a variant with another queue kind) does not
/// make two ids of one scenario, run twice and counted as two replications.
fn drop_hidden(base: &Table, run: &mut Run, reps: i64) -> Result<(), KeyError> {
    let hidden = run
        .values
        .iter()
        .any(|(p, _)| !is_var(p) && !run.applies.contains(p));
    if !hidden {
        return Ok(());
    }
    let mut doc = base.clone();
    if reps > 1 {
        path::set(&mut doc, "run.seed", run.seed.clone())
            .map_err(|e| KeyError::new("run.seed", e))?;
    }
    for p in run.applies.iter().filter(|p| !is_var(p)) {
        let v = run
            .values
            .iter()
            .find(|(k, _)| k == p)
            .map(|(_, v)| v.clone());
        if let Some(v) = v {
            path::set(&mut doc, p, v).map_err(|e| KeyError::new(p.clone(), e))?;
        }
    }
    if !run.name.is_empty() {
        only_variant(&mut doc, &run.name);
    }
    run.id = run_id(&doc);
    run.doc = doc;
    Ok(())
}

#[cfg(test)]
mod tests;
