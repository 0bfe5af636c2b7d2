//! The models a tuned key belongs to and their declared default search ranges (`"default"`):
//! the range `aqmlab params MODEL` shows as `search` (`declare::default_search`: the default
//! ÷/× 10 on a log scale inside the declared range), read as a tuning table writes it.
//!
//! Validation: `tests.rs` (RED's `max_p`, `w_q`, `mean_pktsize`; unknown keys; a kind choice).

use super::range::{Kind, Param};
use super::when::Condition;
use crate::error::{KeyError, Res};
use crate::sweep::canonical::{py_repr, py_str};
use crate::sweep::path;
use declare::{Declared, ParamInfo, Syntax};
use toml::{Table, Value};

/// The declared keys of model `name` (`tcp`, a topology table, a queue or workload kind); None
/// for an unknown name and for the kinds whose keys are not declared (`http10`, `bulk`,
/// `replay`, `scenario::workload_keys`).
pub fn model_params(name: &str) -> Option<Vec<ParamInfo>> {
    use experiment::topology_params::{CLOUD, DUMBBELL, PARKING_LOT};
    let params = if name == tcp::params::MODEL.kind {
        tcp::params::MODEL.params()
    } else if name == DUMBBELL.kind {
        DUMBBELL.params()
    } else if name == PARKING_LOT.kind {
        PARKING_LOT.params()
    } else if name == CLOUD.kind {
        CLOUD.params()
    } else if let Some(m) = traffic::workload::params::model(name) {
        m.params()
    } else if let Some(m) = aqm::model(name) {
        m.params()
    } else {
        return None;
    };
    (!params.is_empty()).then_some(params)
}

/// The declared default search range of a key as a range table (`{ float = [0.01, 1], log =
/// true }`), or None when it declares none (switches, choices). It goes through the text `aqmlab
/// params` shows, so "default" means exactly what the user reads there.
pub fn default_range(info: &ParamInfo) -> Option<Table> {
    let text = declare::search_text(declare::default_search(info)?);
    let doc: Table = toml::from_str(&format!("x = {text}")).ok()?;
    match doc.get("x") {
        Some(Value::Table(t)) => Some(t.clone()),
        _ => None,
    }
}

/// The unit an integer value of this key is written with: `B` for a size, `bps` for a rate.
pub fn unit_of(info: &ParamInfo) -> &'static str {
    match info.syntax {
        Syntax::Size => "B",
        Syntax::Rate => "bps",
        _ => "",
    }
}

/// The Python `str()` of a value: a string as is, anything else as its repr.
fn py_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => py_repr(v),
    }
}

/// The model whose keys the table at `table` holds: `tcp`, or the table's `kind` as the tuned
/// configuration has it (the variant's own table first), None when not known.
fn model_of(base: &Table, variant: Option<&str>, table: &str) -> Option<String> {
    if table == "tcp" {
        return Some("tcp".into());
    }
    let own = variant.map(|v| format!("variant[{v}].{table}"));
    own.into_iter()
        .chain(std::iter::once(table.to_string()))
        .find_map(|candidate| match path::get(base, &candidate) {
            Ok(Value::Table(t)) => t.get("kind").map(py_text),
            _ => None,
        })
}

/// The declarations of `path` in every model it may name (several under a kind choice), each
/// with its model's name; an error for a key one of them does not declare; empty when no model
/// declares the table (or for `var.` and `kind` paths).
pub(crate) fn check_declared(
    key: &str,
    base: &Table,
    variant: Option<&str>,
    path: &str,
    params: &[Param],
    when: &[Condition],
) -> Res<Vec<(String, ParamInfo)>> {
    if path::is_var(path) {
        return Ok(Vec::new());
    }
    let Some((table, leaf)) = path.rsplit_once('.') else {
        return Ok(Vec::new());
    };
    if leaf == "kind" {
        return Ok(Vec::new());
    }
    let kind_path = format!("{table}.kind");
    let kinds: Vec<String> = match params.iter().find(|p| p.path == kind_path) {
        Some(kp) => {
            let allowed = when
                .iter()
                .find(|c| c.path == kind_path)
                .map_or(&kp.choices, |c| &c.allowed);
            allowed.iter().map(py_text).collect()
        }
        None => model_of(base, variant, table).into_iter().collect(),
    };
    let mut out = Vec::new();
    for m in kinds {
        let Some(decl) = model_params(&m) else {
            continue;
        };
        match decl.iter().find(|p| p.key == leaf) {
            Some(info) => out.push((m, info.clone())),
            None => {
                let keys: Vec<&str> = decl.iter().map(|p| p.key).collect();
                return Err(KeyError::new(
                    key,
                    format!(
                        "unknown key: a {m} table has no {} (keys: {}; aqmlab params {m})",
                        py_str(leaf),
                        keys.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(out)
}

/// `raw` with `"default"` replaced by the declared range of `decls` (one range all of them
/// declare; `log` as written overrides the declared one).
pub(crate) fn resolve_default(key: &str, raw: &Table, decls: &[(String, ParamInfo)]) -> Res<Table> {
    let is_default = matches!(raw.get("search"), Some(Value::String(s)) if s == "default");
    let with_range = super::range::RANGE_KINDS
        .iter()
        .any(|k| raw.contains_key(*k));
    if !is_default || with_range {
        return Err(KeyError::new(
            format!("{key}.search"),
            "must be \"default\" (the declared range), without a range",
        ));
    }
    let ranges: Vec<Option<Table>> = decls.iter().map(|(_, d)| default_range(d)).collect();
    let missing = decls
        .iter()
        .zip(&ranges)
        .find(|(_, r)| r.is_none())
        .map(|((m, _), _)| m);
    if decls.is_empty() || missing.is_some() {
        let why = match missing {
            Some(m) => format!("{m} declares no search range for it"),
            None => "no declared model holds this key".to_string(),
        };
        return Err(KeyError::new(
            key,
            format!("\"default\": {why}; give a range such as {{ float = [lo, hi] }}"),
        ));
    }
    let ranges: Vec<Table> = ranges.into_iter().flatten().collect();
    let first = Value::Table(ranges[0].clone());
    if ranges
        .iter()
        .any(|r| !super::when::py_eq(&Value::Table(r.clone()), &first))
    {
        let shown: Vec<Value> = ranges.into_iter().map(Value::Table).collect();
        return Err(KeyError::new(
            key,
            format!(
                "\"default\": the kinds declare different ranges ({}); give one",
                py_repr(&Value::Array(shown))
            ),
        ));
    }
    let mut table = ranges[0].clone();
    if let Some(log) = raw.get("log") {
        table.insert("log".into(), log.clone());
    }
    Ok(table)
}

/// The unit of an int range whose models all write it with one unit.
pub(crate) fn unit(kind: Kind, decls: &[(String, ParamInfo)]) -> &'static str {
    let units: std::collections::BTreeSet<&str> = decls.iter().map(|(_, d)| unit_of(d)).collect();
    match (kind, units.len()) {
        (Kind::Int, 1) => units.into_iter().next().unwrap_or(""),
        _ => "",
    }
}
