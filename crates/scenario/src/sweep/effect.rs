//! Sweep keys that change no run: a key every run's variant hides (the variant sets it, sets a
//! table on its path with another `kind`/`dist`, replaces an array on its path, or sets one of
//! the mutually exclusive `rtt`/`matrix`/`matrix_file`: the merge rule of `merge.rs`), a
//! `variant[NAME]` key of a variant that is not run, a `var.NAME` that no effective derived
//! value reads, and replications when every variant sets `run.seed`. A key read by a derived
//! value that takes effect is effective (an input). Each is refused naming the key, the
//! variants that hide it and the path that would work.
//!
//! Validation: tests in `mod.rs`; python/tests/test_sweep_effect.py.

use super::canonical::{py_repr, value_json};
use super::path::{is_var, parse, Index};
use super::{qkey, Run, SweepTable};
use crate::error::KeyError;
use crate::merge::{same_kind, EXCLUSIVE, SELECTORS};
use std::collections::HashMap;
use toml::{Table, Value};

fn fmt_selector(t: &Table) -> String {
    let parts: Vec<String> = SELECTORS
        .iter()
        .filter_map(|k| t.get(*k).map(|v| format!("{k} = {}", value_json(v))))
        .collect();
    if parts.is_empty() {
        "no kind".into()
    } else {
        parts.join(", ")
    }
}

/// Why the `[[variant]]` entry `variant` hides the key `path` of the document `base` when the
/// core merges it in, or None when the base value reaches the run.
pub fn shadowed_by(base: &Table, variant: &Table, path: &str) -> Option<String> {
    let segs = parse(path).ok()?;
    let name_v = match variant.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(v) => py_repr(v),
        None => "None".into(),
    };
    let mut over: Table = variant.clone();
    over.remove("name");
    let mut node_b: Option<Table> = Some(base.clone());
    let mut node_o = over;
    let mut done: Vec<String> = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        let name = seg.name.as_str();
        for group in EXCLUSIVE {
            if group.contains(&name) && !node_o.contains_key(name) {
                if let Some(other) = group.iter().find(|k| node_o.contains_key(**k)) {
                    let at = done
                        .iter()
                        .map(String::as_str)
                        .chain([*other])
                        .collect::<Vec<_>>()
                        .join(".");
                    return Some(format!(
                        "variant {name_v} sets {at}, which drops the base's {name}"
                    ));
                }
            }
        }
        let ov = node_o.get(name)?.clone();
        let bv = node_b.as_ref().and_then(|t| t.get(name)).cloned();
        let here = done
            .iter()
            .map(String::as_str)
            .chain([name])
            .collect::<Vec<_>>()
            .join(".");
        if seg.index != Index::Key {
            return Some(format!("variant {name_v} replaces the whole array {here}"));
        }
        if i == segs.len() - 1 {
            return Some(format!("variant {name_v} sets {here} itself"));
        }
        let (Value::Table(ot), Some(Value::Table(bt))) = (ov, bv) else {
            return Some(format!("variant {name_v} replaces {here} as a whole"));
        };
        if !same_kind(&bt, &ot) {
            return Some(format!(
                "variant {name_v} sets [{here}] with {}, which replaces the base's [{here}] ({}) wholesale",
                fmt_selector(&ot),
                fmt_selector(&bt)
            ));
        }
        node_b = Some(bt);
        node_o = ot;
        done.push(name.to_string());
    }
    None
}

/// The variant a `variant[NAME]…` path names.
fn variant_of(path: &str) -> Option<String> {
    match parse(path).ok()?.into_iter().next()? {
        s if s.name == "variant" => match s.index {
            Index::Named(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

/// Refuse a swept, zipped or derived key that changes no run; set each run's `applies`.
/// Checked on every distinct (point, variant): a key counts if it reaches one run.
pub(super) fn check(
    table: &SweepTable,
    runs: &mut [Run],
    selected: &[String],
) -> Result<(), KeyError> {
    let sections = table.sections();
    let mut why: HashMap<&str, Vec<(String, String)>> = HashMap::new();
    let mut effective: Vec<&str> = Vec::new();
    let mut seen: HashMap<(String, String), Vec<String>> = HashMap::new();
    for run in runs.iter_mut() {
        let key = (
            run.values
                .iter()
                .map(|(k, v)| format!("{k}={}", value_json(v)))
                .collect::<Vec<_>>()
                .join("\u{0}"),
            run.name.clone(),
        );
        if let Some(a) = seen.get(&key) {
            run.applies = a.clone();
            continue;
        }
        let variant = match (run.name.is_empty(), run.doc.get("variant")) {
            (false, Some(Value::Array(a))) => a.first().and_then(Value::as_table).cloned(),
            _ => None,
        };
        let mut here: Vec<&str> = Vec::new();
        // Derived values last-first: a key read by an effective derived value is effective.
        for (path, _) in sections.iter().rev() {
            let reason = if is_var(path) {
                Some("no derived value that takes effect reads it".to_string())
            } else if let Some(v_name) = variant_of(path) {
                (v_name != run.name).then(|| {
                    let only = table.variants.as_ref().map_or(String::new(), |o| {
                        let names: Vec<Value> =
                            o.iter().map(|s| Value::String(s.clone())).collect();
                        format!(" (sweep.variants = {})", py_repr(&Value::Array(names)))
                    });
                    format!("variant {v_name} is not run{only}")
                })
            } else if let Some(v) = &variant {
                shadowed_by(&run.doc, v, path)
            } else {
                None
            };
            let read = here.iter().any(|d| {
                table
                    .derive
                    .iter()
                    .any(|(p, e)| p == d && e.refs.iter().any(|r| r == path))
            });
            match reason {
                Some(r) if !read => {
                    let list = why.entry(path).or_default();
                    if !list.iter().any(|(n, _)| *n == run.name) {
                        list.push((run.name.clone(), r));
                    }
                }
                _ => here.push(path),
            }
        }
        for p in &here {
            if !effective.contains(p) {
                effective.push(p);
            }
        }
        let applies: Vec<String> = sections
            .iter()
            .filter(|(p, _)| here.contains(&p.as_str()))
            .map(|(p, _)| p.clone())
            .collect();
        seen.insert(key, applies.clone());
        run.applies = applies;
    }
    if table.replications > 1 && !selected.is_empty() {
        // Replications differ only by run.seed: a variant that sets it makes them all one run.
        let hiding: Vec<Option<String>> = runs
            .iter()
            .map(|r| {
                let v = r.doc.get("variant")?.as_array()?.first()?.as_table()?;
                shadowed_by(&r.doc, v, "run.seed")
            })
            .collect();
        if !hiding.is_empty() && hiding.iter().all(Option::is_some) {
            return Err(KeyError::new(
                "sweep.replications",
                format!(
                    "{}, so every replication runs with the same seed; remove run.seed from the variants or set replications = 1",
                    hiding[0].as_deref().unwrap_or_default()
                ),
            ));
        }
    }
    let dead: Vec<&(String, &str)> = sections
        .iter()
        .filter(|(p, _)| !effective.contains(&p.as_str()))
        .collect();
    let Some((path, section)) = dead.first() else {
        return Ok(());
    };
    let hidden = why.get(path.as_str()).cloned().unwrap_or_default();
    let mut reasons: Vec<&str> = Vec::new();
    for (_, r) in &hidden {
        if !reasons.contains(&r.as_str()) {
            reasons.push(r);
        }
    }
    let fix = if is_var(path) {
        "read it in a [sweep.derive] value or remove it".to_string()
    } else if variant_of(path).is_some() {
        "add the variant to sweep.variants or remove the key".to_string()
    } else {
        let alts: Vec<String> = hidden
            .iter()
            .map(|(n, _)| format!("\"variant[{n}].{path}\""))
            .collect();
        format!("sweep {} instead", alts.join(" and "))
    };
    let also = if dead.len() > 1 {
        let rest: Vec<&str> = dead[1..].iter().map(|(p, _)| p.as_str()).collect();
        format!(" (also without effect: {})", rest.join(", "))
    } else {
        String::new()
    };
    Err(KeyError::new(
        qkey(section, path),
        format!("changes no run: {}; {fix}{also}", reasons.join("; ")),
    ))
}
