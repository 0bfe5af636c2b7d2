//! A trial's values → the scenario it runs: the searched values (as written), then the derived
//! ones in order, set into a copy of the base. With `variant` a path is written into that
//! variant's own table (`variant[NAME].queue.min_th`, merged over the base by the core), with
//! `paired` into the base itself (so it reaches both variants); a path into an array the
//! variant's table lacks (`workload[0].rate`) is set in a copy of the base's array there (a
//! variant's array replaces the base's whole). A `kind` set to another kind than
//! the table has replaces the table by `{ kind = … }` (as a variant with another kind does); an
//! inactive key is not written; `var.NAME` values are read by derived values only. The run id
//! is the sweep's (`sweep::run_id` of the resolved document).
//!
//! Validation: `tests.rs`; python/tests/test_tune_spec.py.

use super::range::Param;
use super::when::{active, py_eq};
use super::Spec;
use crate::error::{KeyError, ScenarioError};
use crate::sweep::canonical::py_str;
use crate::sweep::path::{self, is_var};
use toml::{Table, Value};

/// A derived value that cannot be computed for a trial: its key path and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeriveError {
    pub path: String,
    pub reason: String,
}

fn only_variant(doc: &mut Table, name: &str) {
    if let Some(Value::Array(a)) = doc.get_mut("variant") {
        a.retain(|v| v.get("name").and_then(Value::as_str) == Some(name));
    }
}

impl Spec {
    /// The path a tuned key is written at: in the tuned variant's own table, else in the base.
    fn target(&self, p: &str) -> String {
        match &self.variant {
            Some(v) => format!("variant[{v}].{p}"),
            None => p.to_string(),
        }
    }

    /// The values of one trial: each active searched key in order, `pick(param)` giving its
    /// sampled value (a number in the range, ms for durations, or a choice), stored as written
    /// (`Param::written`). `pick`'s error stops the trial.
    pub fn sample<E>(&self, pick: &mut dyn FnMut(&Param) -> Result<Value, E>) -> Result<Table, E> {
        let mut values = Table::new();
        for p in &self.params {
            if active(&p.when, &values) {
                let x = pick(p)?;
                values.insert(p.path.clone(), p.written(x));
            }
        }
        Ok(values)
    }

    /// The value a derived expression reads at `p`: the trial's values, else the tuned variant's
    /// own table, else the base.
    fn lookup(&self, values: &Table, p: &str) -> Result<Value, String> {
        if let Some(v) = values.get(p) {
            return Ok(v.clone());
        }
        if is_var(p) {
            return Err(format!(
                "no tuned variable {} (or it is not active in this trial)",
                py_str(p)
            ));
        }
        if let Some(v) = &self.variant {
            if let Ok(x) = path::get(&self.base, &format!("variant[{v}].{p}")) {
                return Ok(x);
            }
        }
        path::get(&self.base, p)
    }

    /// `values` (searched keys as written) and the active derived values after them, in order.
    pub fn derived(&self, values: &Table) -> Result<Table, DeriveError> {
        let mut out = values.clone();
        for d in &self.derive {
            if !active(&d.when, &out) {
                continue;
            }
            let v = d
                .expr
                .eval(&mut |p| self.lookup(&out, p))
                .map_err(|reason| DeriveError {
                    path: d.path.clone(),
                    reason,
                })?;
            out.insert(d.path.clone(), v);
        }
        Ok(out)
    }

    /// The key of the tuning table that wrote `p` (for an error setting it).
    fn key_of(&self, p: &str) -> String {
        let section = match self.params.iter().any(|q| q.path == p) {
            true => "params",
            false => "derive",
        };
        format!("tune.{section}.\"{p}\"")
    }

    /// Set `kind` at `p` (`queue.kind`): keep the table when it already has that kind, else
    /// replace the variant's (or the base's) table by `{ kind = … }`.
    fn set_kind(&self, doc: &mut Table, p: &str, kind: &Value) -> Result<(), String> {
        let table = p.strip_suffix(".kind").unwrap_or("");
        let own = self
            .variant
            .as_ref()
            .map(|v| format!("variant[{v}].{table}"));
        let current = own
            .into_iter()
            .chain(std::iter::once(table.to_string()))
            .find_map(|c| {
                let t = match c.is_empty() {
                    true => Some(doc.clone()),
                    false => path::get(doc, &c).ok().and_then(|v| v.as_table().cloned()),
                };
                t.and_then(|t| t.get("kind").cloned())
            });
        if current.is_some_and(|c| py_eq(&c, kind)) {
            return Ok(());
        }
        let new = Table::from_iter([("kind".to_string(), kind.clone())]);
        path::set(doc, &self.target(table), Value::Table(new))
    }

    /// A variant's array (`workload`) replaces the base's whole (`merge.rs`): before a tuned key
    /// goes into an element of an array the tuned variant's table lacks (`workload[0].rate`),
    /// the table gets a copy of the base's array.
    fn copy_array(&self, doc: &mut Table, p: &str) {
        let Some(v) = &self.variant else {
            return;
        };
        let head = p.split('.').next().unwrap_or(p);
        let Some((name, _)) = head.split_once('[') else {
            return;
        };
        let Some(Value::Array(base)) = doc.get(name).cloned() else {
            return;
        };
        let Some(Value::Array(variants)) = doc.get_mut("variant") else {
            return;
        };
        let own = variants
            .iter_mut()
            .filter_map(Value::as_table_mut)
            .find(|t| t.get("name").and_then(Value::as_str) == Some(v.as_str()));
        if let Some(t) = own {
            if !t.contains_key(name) {
                t.insert(name.to_string(), Value::Array(base));
            }
        }
    }

    /// The scenario a trial runs: the base with `values` (searched and derived, as
    /// [`Spec::derived`] gives them) set, `[[variant]]` reduced to `name` (default: the tuned
    /// variant; None for a paired spec keeps both), and `run.seed` = `seed` (None: as written).
    pub fn resolve(
        &self,
        values: &Table,
        seed: Option<i64>,
        name: Option<&str>,
    ) -> Result<Table, ScenarioError> {
        let mut doc = self.base.clone();
        if let Some(n) = name.or(self.variant.as_deref()) {
            only_variant(&mut doc, n);
        }
        for (p, v) in values {
            if is_var(p) {
                continue;
            }
            let set = if p == "kind" || p.ends_with(".kind") {
                self.set_kind(&mut doc, p, v)
            } else {
                self.copy_array(&mut doc, p);
                path::set(&mut doc, &self.target(p), v.clone())
            };
            set.map_err(|e| KeyError::new(self.key_of(p), e).in_file(&self.file))?;
        }
        if let Some(s) = seed {
            path::set(&mut doc, "run.seed", Value::Integer(s))
                .map_err(|e| KeyError::new("run.seed", e).in_file(&self.file))?;
        }
        Ok(doc)
    }

    /// The scenario as written for the baseline variant `name` (None: a file without variants)
    /// with `run.seed` = `seed` (None: as written).
    pub fn baseline(&self, name: Option<&str>, seed: Option<i64>) -> Table {
        let mut doc = self.base.clone();
        if let Some(n) = name {
            only_variant(&mut doc, n);
        }
        if let Some(s) = seed {
            // The base is a table, so `run.seed` always resolves.
            let _ = path::set(&mut doc, "run.seed", Value::Integer(s));
        }
        doc
    }
}
