//! Resolving `load = …`: the workload's parameter x = (load·C − intercept) / slope from the
//! calibration of the file's base scenario (users and flows whole, a rate to 6 significant
//! digits), C the document's own bottleneck rate; a variant that sets its own rate (and not its
//! own workloads) gets the value for its rate. `aqmlab run`, `aqmlab.run()`, every run of a
//! sweep and a tune's base all resolve through [`Resolver`], so one file means one rate
//! whatever the command.

use super::calibrated::{find, Calibrated};
use super::hash::LANGUAGE_TABLES;
use super::parameter::Parameter;
use super::points::set_parameter;
use super::rate::rate_bps;
use super::record::Calibration;
use super::text::g;
use crate::error::{KeyError, ScenarioError};
use crate::sweep::canonical::py_repr;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// Whether a base `[[workload]]` of `doc` has `load` (a variant's workloads do not count).
pub fn has_load(doc: &Table) -> bool {
    doc.get("workload")
        .and_then(Value::as_array)
        .is_some_and(|a| {
            a.iter()
                .any(|w| w.as_table().is_some_and(|w| w.contains_key("load")))
        })
}

/// `doc` without the tables the scenario parser does not read (`[calibration]`, `[tune]`,
/// `[sweep]`).
pub fn without_language_tables(doc: &Table) -> Table {
    let mut d = doc.clone();
    for k in LANGUAGE_TABLES {
        d.remove(k);
    }
    d
}

/// The parameter value `sc`'s load resolves to on a link of `capacity_bps`; `KEY: …` when the
/// other workloads already offer that much.
pub(crate) fn resolve_x(
    sc: &Calibrated,
    c: &Calibration,
    capacity_bps: f64,
    key: &str,
) -> Result<f64, KeyError> {
    let load = sc.load.unwrap_or(0.0);
    let x = sc.parameter.resolved(c.x_for(load * capacity_bps));
    if x > 0.0 {
        Ok(x)
    } else {
        Err(KeyError::new(
            key,
            format!(
                "load = {} of {} Mbps resolves to {} = {} (the other workloads already offer {} \
                 Mbit/s)",
                g(load, 6),
                g(capacity_bps / 1e6, 6),
                sc.parameter.key(),
                g(x, 6),
                g(c.intercept / 1e6, 3)
            ),
        ))
    }
}

/// The variants of `sc` that set their own bottleneck rate and not their own workloads, with
/// that rate (bit/s), in file order.
fn variant_rates(sc: &Calibrated) -> Result<Vec<(String, f64)>, KeyError> {
    let mut out = Vec::new();
    let Some(vars) = sc.doc.get("variant").and_then(Value::as_array) else {
        return Ok(out);
    };
    let key = sc.rate_key();
    for var in vars.iter().filter_map(Value::as_table) {
        let own = var.get("topology").and_then(Value::as_table);
        if let Some(t) = own.filter(|t| t.contains_key(key)) {
            if var.contains_key("workload") {
                continue;
            }
            let name = match var.get("name") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => py_repr(v),
                None => "None".into(),
            };
            let bps = rate_bps(t.get(key), &format!("variant[{name}].topology.{key}"))?;
            out.push((name, bps));
        }
    }
    Ok(out)
}

/// `doc` with `load` replaced by x (and, for each variant in `per_variant`, the base workloads
/// with its own value), without the language tables.
fn resolved_doc(doc: &Table, sc: &Calibrated, x: f64, per_variant: &[(String, f64)]) -> Table {
    let mut doc = without_language_tables(doc);
    set_parameter(&mut doc, sc, x);
    if per_variant.is_empty() {
        return doc;
    }
    let base_workloads = doc.get("workload").cloned();
    if let Some(Value::Array(vars)) = doc.get_mut("variant") {
        for var in vars.iter_mut().filter_map(Value::as_table_mut) {
            let name = var.get("name").and_then(Value::as_str).map(str::to_string);
            let own = per_variant
                .iter()
                .find(|(n, _)| Some(n) == name.as_ref())
                .map(|(_, x)| *x);
            if let (Some(vx), Some(Value::Array(wls))) = (own, &base_workloads) {
                if var.contains_key("workload") {
                    continue;
                }
                let mut wls = wls.clone();
                if let Some(Value::Table(w)) = wls.get_mut(sc.workload) {
                    w.insert(sc.parameter.key().into(), sc.parameter.typed(vx));
                }
                var.insert("workload".into(), Value::Array(wls));
            }
        }
    }
    doc
}

/// Resolves `load` in the documents of one scenario file. The calibration is that of the
/// file's base document (without `[sweep]`/`[tune]`, as `aqmlab calibrate FILE` caches it),
/// obtained once, when a document first needs it.
pub struct Resolver {
    base: Table,
    label: String,
    base_dir: PathBuf,
    calibration: Option<Calibration>,
    said: Vec<String>,
}

impl Resolver {
    /// A resolver for the file `label` whose base document is `base` (with its
    /// `[calibration]` table, if any), data files relative to `base_dir`.
    pub fn new(base: Table, label: &str, base_dir: &Path) -> Resolver {
        Resolver {
            base,
            label: label.to_string(),
            base_dir: base_dir.to_path_buf(),
            calibration: None,
            said: Vec::new(),
        }
    }

    /// `doc` with `load` resolved and the language tables dropped. `calibrate(sc)` gives the
    /// calibration of the base scenario `sc` the first time one is needed; `say` hears each
    /// value used, once.
    pub fn resolve<E: From<ScenarioError>>(
        &mut self,
        doc: &Table,
        calibrate: impl FnOnce(&Calibrated) -> Result<Calibration, E>,
        say: &mut dyn FnMut(&str),
    ) -> Result<Table, E> {
        if !has_load(doc) {
            return Ok(without_language_tables(doc));
        }
        let mut with_calibration = doc.clone();
        if let Some(t) = self.base.get("calibration") {
            with_calibration.insert("calibration".into(), t.clone());
        }
        let sc = find(&with_calibration, &self.label, &self.base_dir, None)?;
        if self.calibration.is_none() {
            let index = if has_load(&self.base) {
                None
            } else {
                Some(sc.workload as i64)
            };
            let base = find(&self.base, &self.label, &self.base_dir, index)?;
            self.calibration = Some(calibrate(&base)?);
        }
        let c = self.calibration.as_ref().expect("set above");
        let in_file = |e: KeyError| e.in_file(&sc.file);
        let key = format!("workload[{}].load", sc.workload);
        let x = resolve_x(&sc, c, sc.bottleneck_bps, &key).map_err(in_file)?;
        let p = sc.parameter;
        let mut lines = vec![format!(
            "{}: workload[{}].load = {} of {} Mbps → {} = {} {} (calibration {}: {} kbit/s per \
             {}, intercept {} Mbit/s, R² = {})",
            sc.file,
            sc.workload,
            g(sc.load.unwrap_or(0.0), 6),
            g(sc.bottleneck_bps / 1e6, 6),
            p.key(),
            value_text(p, x),
            p.unit(),
            c.hash.get(..12).unwrap_or(&c.hash),
            g(c.slope / 1e3, 5),
            p.per(),
            g(c.intercept / 1e6, 3),
            super::text::fixed(c.r2, 4)
        )];
        let mut per_variant = Vec::new();
        for (name, bps) in variant_rates(&sc).map_err(in_file)? {
            let key = format!("variant[{name}].workload[{}].load", sc.workload);
            let vx = resolve_x(&sc, c, bps, &key).map_err(in_file)?;
            lines.push(format!(
                "{}: variant[{name}]: load = {} of {} Mbps → {} = {} {}",
                sc.file,
                g(sc.load.unwrap_or(0.0), 6),
                g(bps / 1e6, 6),
                p.key(),
                value_text(p, vx),
                p.unit()
            ));
            per_variant.push((name, vx));
        }
        for line in lines {
            if !self.said.contains(&line) {
                say(&line);
                self.said.push(line);
            }
        }
        Ok(resolved_doc(doc, &sc, x, &per_variant))
    }
}

/// A resolved value as messages print it (`format(value, "g")` of the typed value).
fn value_text(p: Parameter, x: f64) -> String {
    match p.typed(x) {
        Value::Integer(i) => g(i as f64, 6),
        _ => g(x, 6),
    }
}
