//! The `[tune]` table → a checked [`Spec`], in the order a reader meets the keys; the first
//! mistake is reported as `FILE: KEY: reason` (keys `tune.X`, `tune.params."PATH"`,
//! `tune.params."PATH".int`, …).
//!
//! Validation: `tests.rs`; python/tests/test_tune_spec.py.

use super::defaults::{check_declared, resolve_default, unit};
use super::objective::{parse_constraint, parse_objective};
use super::range::{as_f64, parse_range, Param};
use super::when::parse_when;
use super::{Derived, Spec, TUNE_KEYS};
use crate::error::{KeyError, Res, ScenarioError};
use crate::sweep::canonical::{py_repr, py_str};
use crate::sweep::{expr, path};
use std::path::Path;
use toml::{Table, Value};

/// Values given on the command line that replace the table's (`trials`, `timeout`, `seed`).
pub type Overrides = Table;

/// The keys of a searched key's table.
const PARAM_KEYS: [&str; 8] = [
    "int", "float", "duration", "choice", "search", "log", "step", "when",
];

/// `tune.SECTION."PATH"`.
fn qkey(section: &str, p: &str) -> String {
    format!("tune.{section}.\"{p}\"")
}

/// `[tune]` of the document `root` (of `file`) and the base it applies to: the document without
/// `[tune]` and `[sweep]` (`[calibration]` kept, for resolving `load` before [`parse`]).
pub fn split(root: &Table, file: &str) -> Result<(Value, Table), ScenarioError> {
    let mut base = root.clone();
    let Some(tune) = base.remove("tune") else {
        return Err(KeyError::new(
            "tune",
            "no [tune] table: nothing to tune (see docs/scenarios.md, \"Tuning\")",
        )
        .in_file(file));
    };
    base.remove("sweep");
    Ok((tune, base))
}

/// Check the `[tune]` table `tune` against its `base` (as [`split`] gives it, `load` resolved)
/// and build the [`Spec`]; `overrides` replace the table's values.
/// `extra_columns`: run columns besides the summary's that objectives and constraints may name
/// (`aqmlab tune --metrics STUDY`).
pub fn parse(
    tune: &Value,
    mut base: Table,
    file: &str,
    base_dir: &Path,
    overrides: &Overrides,
    extra_columns: &[String],
) -> Result<Spec, ScenarioError> {
    base.remove("calibration");
    parse_table(tune, base, file, base_dir, overrides, extra_columns).map_err(|e| e.in_file(file))
}

fn variant_names(base: &Table) -> Vec<String> {
    let Some(Value::Array(a)) = base.get("variant") else {
        return Vec::new();
    };
    a.iter()
        .filter_map(Value::as_table)
        .map(|t| match t.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(v) => py_repr(v),
            None => "None".into(),
        })
        .collect()
}

fn int_key(t: &Table, k: &str, default: i64, lo: i64) -> Res<i64> {
    match t.get(k) {
        None => Ok(default),
        Some(Value::Integer(i)) if *i >= lo => Ok(*i),
        Some(v) => Err(KeyError::new(
            format!("tune.{k}"),
            format!("must be an integer >= {lo}, got {}", py_repr(v)),
        )),
    }
}

fn string_list(t: &Table, k: &str) -> Res<Vec<String>> {
    let bad = || KeyError::new(format!("tune.{k}"), "must be an array of strings");
    match t.get(k) {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(String::from).ok_or_else(bad))
            .collect(),
        Some(_) => Err(bad()),
    }
}

fn no_variant(key: &str, name: &str, names: &[String]) -> KeyError {
    let has = if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    };
    KeyError::new(
        key,
        format!("no variant named {} (the file has: {has})", py_str(name)),
    )
}

/// A paired key must reach both variants: neither may set `p` in its own table.
fn check_shared(key: &str, base: &Table, paired: Option<&[String; 2]>, p: &str) -> Res<()> {
    let Some(pair) = paired else {
        return Ok(());
    };
    if path::is_var(p) {
        return Ok(());
    }
    for name in pair {
        if path::get(base, &format!("variant[{name}].{p}")).is_ok() {
            return Err(KeyError::new(
                key,
                format!(
                    "variant \"{name}\" sets it in its own table, so the tuned base value would not apply"
                ),
            ));
        }
    }
    Ok(())
}

/// `tune.paired`: two distinct variant names of the file, without `variant` or `constraints`.
fn parse_paired(t: &Table, names: &[String]) -> Res<Option<[String; 2]>> {
    let Some(v) = t.get("paired") else {
        return Ok(None);
    };
    let key = "tune.paired";
    if t.contains_key("variant") {
        return Err(KeyError::new(
            key,
            "give either tune.variant or tune.paired",
        ));
    }
    let pair: Vec<&str> = match v {
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let two = matches!(v, Value::Array(a) if a.len() == 2) && pair.len() == 2;
    if !two || pair[0] == pair[1] {
        return Err(KeyError::new(key, "give two distinct variant names"));
    }
    if let Some(x) = pair.iter().find(|x| !names.iter().any(|n| n == *x)) {
        let has = match names.is_empty() {
            true => "none".to_string(),
            false => names.join(", "),
        };
        return Err(KeyError::new(
            key,
            format!("no variant \"{x}\" (variants: {has})"),
        ));
    }
    if t.contains_key("constraints") {
        return Err(KeyError::new(
            "tune.constraints",
            "not allowed with tune.paired",
        ));
    }
    if t.contains_key("baselines") {
        return Err(KeyError::new(
            "tune.baselines",
            "not allowed with tune.paired (the baseline is the pair as written)",
        ));
    }
    Ok(Some([pair[0].to_string(), pair[1].to_string()]))
}

fn parse_param(
    p: &str,
    raw: &Value,
    base: &Table,
    variant: Option<&str>,
    params: &[Param],
) -> Res<Param> {
    let key = qkey("params", p);
    path::parse(p).map_err(|e| KeyError::new(&key, e))?;
    let mut raw = match raw {
        Value::String(s) if s == "default" => {
            Table::from_iter([("search".to_string(), Value::String("default".into()))])
        }
        Value::Table(t) => t.clone(),
        _ => return Err(KeyError::new(
            key,
            "must be \"default\" or a range such as { int = [5, 200] }, { float = [0.01, 0.5], \
                 log = true }, { duration = [\"1ms\", \"50ms\"] }, { choice = [...] }",
        )),
    };
    if let Some(k) = raw.keys().find(|k| !PARAM_KEYS.contains(&k.as_str())) {
        return Err(KeyError::new(
            format!("{key}.{k}"),
            format!("unknown key (allowed: {})", PARAM_KEYS.join(", ")),
        ));
    }
    let when = match raw.get("when") {
        Some(w) => parse_when(&key, w, params)?,
        None => Vec::new(),
    };
    let decls = check_declared(&key, base, variant, p, params, &when)?;
    if raw.contains_key("search") {
        raw = resolve_default(&key, &raw, &decls)?;
    }
    let mut param = parse_range(&key, &raw, p, when)?;
    param.unit = unit(param.kind, &decls);
    Ok(param)
}

fn parse_derive(p: &str, raw: &Value, params: &[Param], seen: &[String]) -> Res<Derived> {
    let key = qkey("derive", p);
    path::parse(p).map_err(|e| KeyError::new(&key, e))?;
    if seen.iter().any(|s| s == p) {
        return Err(KeyError::new(key, "already a tuned parameter"));
    }
    let (text, when) = match raw {
        Value::Table(t) => {
            if let Some(k) = t.keys().find(|k| *k != "expr" && *k != "when") {
                return Err(KeyError::new(
                    format!("{key}.{k}"),
                    "unknown key (allowed: expr, when)",
                ));
            }
            let when = match t.get("when") {
                Some(w) => parse_when(&key, w, params)?,
                None => Vec::new(),
            };
            (t.get("expr"), when)
        }
        v => (Some(v), Vec::new()),
    };
    let expr = match text {
        Some(Value::String(s)) => expr::parse(s),
        Some(v) => Err(format!("expected an expression string, got {}", py_repr(v))),
        None => Err("expected an expression string, got None".to_string()),
    }
    .map_err(|e| KeyError::new(&key, e))?;
    Ok(Derived {
        path: p.to_string(),
        expr,
        when,
    })
}

fn parse_table(
    tune: &Value,
    base: Table,
    file: &str,
    base_dir: &Path,
    overrides: &Overrides,
    extra_columns: &[String],
) -> Res<Spec> {
    let Value::Table(t) = tune else {
        return Err(KeyError::new("tune", "must be a table"));
    };
    if let Some(k) = t.keys().find(|k| !TUNE_KEYS.contains(&k.as_str())) {
        return Err(KeyError::new(
            format!("tune.{k}"),
            format!("unknown key (allowed: {})", TUNE_KEYS.join(", ")),
        ));
    }
    let mut t = t.clone();
    for (k, v) in overrides {
        t.insert(k.clone(), v.clone());
    }
    let names = variant_names(&base);
    let paired = parse_paired(&t, &names)?;
    let mut variant = match t.get("variant") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            return Err(KeyError::new(
                "tune.variant",
                format!(
                    "no variant named {} (the file has: {})",
                    py_repr(v),
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                ),
            ))
        }
    };
    if variant.is_none() && paired.is_none() && names.len() > 1 {
        return Err(KeyError::new(
            "tune.variant",
            format!(
                "the file has {} variants ({}): name the one to tune",
                names.len(),
                names.join(", ")
            ),
        ));
    }
    if variant.is_none() && paired.is_none() && names.len() == 1 {
        variant = Some(names[0].clone());
    }
    if let Some(v) = &variant {
        if !names.contains(v) {
            return Err(no_variant("tune.variant", v, &names));
        }
    }
    let mut baselines: Vec<Option<String>> = string_list(&t, "baselines")?
        .into_iter()
        .map(Some)
        .collect();
    if baselines.is_empty() {
        // Paired: the one baseline is the pair as written (no variant picked).
        baselines = vec![variant.clone()];
    }
    for b in baselines.iter().flatten() {
        if !names.contains(b) {
            return Err(no_variant("tune.baselines", b, &names));
        }
    }

    let raw_params = match t.get("params") {
        Some(Value::Table(p)) if !p.is_empty() => p,
        _ => {
            return Err(KeyError::new(
                "tune.params",
                "must be a table of \"key.path\" = range, with at least one key",
            ))
        }
    };
    let mut params: Vec<Param> = Vec::new();
    for (p, raw) in raw_params {
        let param = parse_param(p, raw, &base, variant.as_deref(), &params)?;
        check_shared(&qkey("params", p), &base, paired.as_ref(), p)?;
        params.push(param);
    }
    let empty = Value::Table(Table::new());
    let raw_derive = match t.get("derive").unwrap_or(&empty) {
        Value::Table(d) => d,
        _ => {
            return Err(KeyError::new(
                "tune.derive",
                "must be a table of \"key.path\" = \"expression\"",
            ))
        }
    };
    let mut seen: Vec<String> = params.iter().map(|p| p.path.clone()).collect();
    let mut derive = Vec::new();
    for (p, raw) in raw_derive {
        derive.push(parse_derive(p, raw, &params, &seen)?);
        check_shared(&qkey("derive", p), &base, paired.as_ref(), p)?;
        seen.push(p.clone());
    }

    let objectives = string_list(&t, "objectives")?
        .iter()
        .map(|o| parse_objective(o, extra_columns))
        .collect::<Res<Vec<_>>>()?;
    if objectives.is_empty() {
        return Err(KeyError::new(
            "tune.objectives",
            "at least one, e.g. [\"min median_rt_ms\"]",
        ));
    }
    let columns: std::collections::HashSet<&str> =
        objectives.iter().map(|o| o.column.as_str()).collect();
    if columns.len() != objectives.len() {
        return Err(KeyError::new("tune.objectives", "a column is named twice"));
    }
    let constraints = string_list(&t, "constraints")?
        .iter()
        .map(|c| parse_constraint(c, extra_columns))
        .collect::<Res<Vec<_>>>()?;

    let timeout = match t.get("timeout") {
        None => None,
        Some(v @ (Value::Integer(_) | Value::Float(_))) if as_f64(v) > 0.0 => Some(as_f64(v)),
        Some(v) => {
            return Err(KeyError::new(
                "tune.timeout",
                format!("must be a number of seconds > 0, got {}", py_repr(v)),
            ))
        }
    };
    let seed = match t.get("seed") {
        None => 1,
        Some(Value::Integer(i)) if *i >= 0 => *i,
        Some(v) => {
            return Err(KeyError::new(
                "tune.seed",
                format!("must be an integer >= 0, got {}", py_repr(v)),
            ))
        }
    };
    let replications = int_key(&t, "replications", 2, 1)?;
    let final_replications = match t.get("final_replications") {
        None => replications.max(6),
        Some(Value::Integer(i)) if *i >= replications => *i,
        Some(v) => {
            return Err(KeyError::new(
                "tune.final_replications",
                format!(
                    "must be an integer >= replications ({replications}), got {}",
                    py_repr(v)
                ),
            ))
        }
    };
    let run_seed = match base.get("run") {
        Some(Value::Table(run)) => match run.get("seed") {
            None => 1,
            Some(Value::Integer(i)) => *i,
            Some(v) => {
                return Err(KeyError::new(
                    "run.seed",
                    format!("must be an integer, got {}", py_repr(v)),
                ))
            }
        },
        _ => 1,
    };
    if params.iter().any(|p| p.path == "run.seed") || derive.iter().any(|d| d.path == "run.seed") {
        return Err(KeyError::new(
            qkey("params", "run.seed"),
            "the seed is not a parameter (replications set it)",
        ));
    }
    Ok(Spec {
        file: file.to_string(),
        base_dir: base_dir.to_path_buf(),
        trials: int_key(&t, "trials", 40, 1)?,
        finalists: int_key(&t, "finalists", 3, 1)?,
        batch: int_key(&t, "batch", 4, 1)?,
        population: int_key(&t, "population", 10, 2)?,
        base,
        variant,
        paired,
        baselines,
        params,
        derive,
        objectives,
        constraints,
        timeout,
        replications,
        final_replications,
        seed,
        run_seed,
        extra_columns: extra_columns.to_vec(),
    })
}
