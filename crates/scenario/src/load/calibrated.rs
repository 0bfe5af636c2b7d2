//! A scenario read for calibration: which workload is calibrated, over which parameter, what
//! `load` asks for, the real bottleneck rate C it is a fraction of, and the `[calibration]`
//! settings. Every mistake is a `FILE: KEY: reason` before anything runs.

use super::parameter::Parameter;
use super::rate::rate_bps;
use super::settings::{check_link, Settings};
use super::text::py_path;
use crate::error::{KeyError, ScenarioError};
use crate::sweep::canonical::py_repr;
use sha2::{Digest, Sha256};
use std::path::{Component, Path, PathBuf};
use toml::{Table, Value};

/// Routers of a parking lot that does not say (as the topology's default).
const DEFAULT_ROUTERS: i64 = 8;

/// A scenario's calibrated workload and what calibrating it needs.
#[derive(Clone, Debug)]
pub struct Calibrated {
    /// The file as messages name it (`str(Path(label))`, as they always have).
    pub file: String,
    /// The document, its relative data files made absolute against `base_dir`.
    pub doc: Table,
    /// The directory relative paths of the document resolve against.
    pub base_dir: PathBuf,
    /// Index of the calibrated `[[workload]]`.
    pub workload: usize,
    pub parameter: Parameter,
    /// The fraction of C `load` asks for (None: the file gives the parameter itself).
    pub load: Option<f64>,
    /// C: the real forward bottleneck rate (dumbbell `bottleneck_rate`, parking-lot
    /// `link_rate`), bit/s.
    pub bottleneck_bps: f64,
    /// `[calibration]` over the defaults.
    pub settings: Settings,
    /// SHA-256 (hex) of each data file the document reads, in document order, each file once
    /// (None: unreadable; the scenario parser reports it).
    pub data: Vec<Option<String>>,
    /// Whether the topology is a parking lot (else a dumbbell).
    pub parking_lot: bool,
    /// Parking lot: its routers and its `bottleneck` link.
    pub routers: i64,
    pub default_link: Option<String>,
}

impl Calibrated {
    /// The topology key the calibration rate replaces.
    pub fn rate_key(&self) -> &'static str {
        if self.parking_lot {
            "link_rate"
        } else {
            "bottleneck_rate"
        }
    }

    /// Parking lot: the (forward, reverse) links measured with `link` (None: the default);
    /// None on a dumbbell.
    pub fn links(&self, link: Option<&str>) -> Option<(String, String)> {
        if !self.parking_lot {
            return None;
        }
        let fwd = link
            .or(self.default_link.as_deref())
            .unwrap_or("r1_r2")
            .to_string();
        let (a, b) = fwd.split_once('_').unwrap_or((&fwd, ""));
        let rev = format!("{b}_{a}");
        Some((fwd, rev))
    }
}

/// Read `doc` (named `label` in messages, data files relative to `base_dir`) for calibration:
/// the workload with `load`, else `workload`, else the only one of a calibrated kind.
pub fn find(
    doc: &Table,
    label: &str,
    base_dir: &Path,
    workload: Option<i64>,
) -> Result<Calibrated, ScenarioError> {
    let file = py_path(label);
    find_in(doc, base_dir, workload, &file).map_err(|e| e.in_file(&file))
}

fn find_in(
    doc: &Table,
    base_dir: &Path,
    workload: Option<i64>,
    file: &str,
) -> Result<Calibrated, KeyError> {
    let topo = doc
        .get("topology")
        .and_then(Value::as_table)
        .ok_or_else(|| {
            KeyError::new(
                "topology",
                "missing table (calibration needs a dumbbell or parking-lot topology)",
            )
        })?;
    let kind = topo.get("kind");
    let parking_lot = match kind.and_then(Value::as_str) {
        Some("dumbbell") => false,
        Some("parking_lot") => true,
        _ => {
            return Err(KeyError::new(
                "topology.kind",
                format!(
                    "calibration needs kind = \"dumbbell\" or \"parking_lot\" (their \
                     bottleneck_rate or link_rate is what is made unconstrained), got {}",
                    kind.map_or_else(|| "None".into(), py_repr)
                ),
            ))
        }
    };
    let rate_key = if parking_lot {
        "link_rate"
    } else {
        "bottleneck_rate"
    };
    let bottleneck_bps = rate_bps(topo.get(rate_key), &format!("topology.{rate_key}"))?;
    let mut routers = 0;
    let mut default_link = None;
    if parking_lot {
        routers = match topo.get("routers") {
            None => DEFAULT_ROUTERS,
            Some(Value::Integer(n)) => *n,
            Some(_) => DEFAULT_ROUTERS, // the scenario parser reports a bad `routers`
        };
        let link = topo
            .get("bottleneck")
            .cloned()
            .unwrap_or_else(|| Value::String("r1_r2".into()));
        check_link(&link, routers, "topology.bottleneck")?;
        default_link = link.as_str().map(str::to_string);
    }
    let wls: Vec<&Table> = match doc.get("workload").and_then(Value::as_array) {
        Some(a) if !a.is_empty() && a.iter().all(Value::is_table) => {
            a.iter().filter_map(Value::as_table).collect()
        }
        _ => {
            return Err(KeyError::new(
                "workload",
                "at least one [[workload]] table is required",
            ))
        }
    };

    let with_load: Vec<usize> = (0..wls.len())
        .filter(|&i| wls[i].contains_key("load"))
        .collect();
    let mut load = None;
    for &i in &with_load {
        let (w, key) = (wls[i], format!("workload[{i}].load"));
        if i != with_load[0] {
            return Err(KeyError::new(
                key,
                format!(
                    "only one workload may have load (workload[{}] has it too)",
                    with_load[0]
                ),
            ));
        }
        let Some(param) = Parameter::of(w) else {
            return Err(KeyError::new(
                key,
                format!(
                    "not supported for kind = {} (load resolves rate/users of http10, users of \
                     mah, rate of packmime, flows of pareto_web)",
                    w.get("kind").map_or_else(|| "None".into(), py_repr)
                ),
            ));
        };
        if w.contains_key(param.key()) {
            return Err(KeyError::new(
                key,
                format!("conflicts with {p}: give one of load, {p}", p = param.key()),
            ));
        }
        let v = &w["load"];
        let x = match v {
            Value::Integer(n) => Some(*n as f64),
            Value::Float(f) => Some(*f),
            _ => None,
        };
        match x {
            Some(x) if x.is_finite() && x > 0.0 => load = Some(x),
            _ => {
                return Err(KeyError::new(
                    key,
                    format!(
                        "must be a number greater than 0 (a fraction of bottleneck_rate), got {}",
                        py_repr(v)
                    ),
                ))
            }
        }
    }
    check_variants_have_no_load(doc)?;

    let index = if let Some(&first) = with_load.first() {
        if let Some(w) = workload.filter(|&w| w != first as i64) {
            return Err(KeyError::new(
                format!("workload[{w}]"),
                format!("the scenario's load is on workload[{first}]"),
            ));
        }
        first
    } else if let Some(w) = workload {
        if !(0..wls.len() as i64).contains(&w) {
            return Err(KeyError::new(
                "workload",
                format!("no workload[{w}] (the file has {})", wls.len()),
            ));
        }
        let w = w as usize;
        if Parameter::of(wls[w]).is_none() {
            return Err(KeyError::new(
                format!("workload[{w}].kind"),
                format!(
                    "kind {} cannot be calibrated",
                    wls[w].get("kind").map_or_else(|| "None".into(), py_repr)
                ),
            ));
        }
        w
    } else {
        let able: Vec<usize> = (0..wls.len())
            .filter(|&i| Parameter::of(wls[i]).is_some())
            .collect();
        match able.as_slice() {
            [one] => *one,
            [] => {
                return Err(KeyError::new(
                    "workload",
                    "no workload that can be calibrated",
                ))
            }
            several => {
                let names: Vec<String> = several.iter().map(|i| format!("workload[{i}]")).collect();
                return Err(KeyError::new(
                    "workload",
                    format!(
                        "several workloads can be calibrated ({}): choose one",
                        names.join(", ")
                    ),
                ));
            }
        }
    };
    let parameter = Parameter::of(wls[index]).expect("checked above");
    let settings = Settings::from_table(doc.get("calibration"))?;
    settings.check(parking_lot, routers)?;

    let mut doc = doc.clone();
    let mut found = Vec::new();
    absolutize_table(&mut doc, base_dir, &mut found);
    let mut seen: Vec<&PathBuf> = Vec::new();
    let mut data = Vec::new();
    for p in &found {
        if !seen.contains(&p) {
            seen.push(p);
            data.push(std::fs::read(p).ok().map(|b| hex(&Sha256::digest(b))));
        }
    }
    Ok(Calibrated {
        file: file.to_string(),
        doc,
        base_dir: base_dir.to_path_buf(),
        workload: index,
        parameter,
        load,
        bottleneck_bps,
        settings,
        data,
        parking_lot,
        routers,
        default_link,
    })
}

/// `load` is resolved only in the base `[[workload]]` tables.
fn check_variants_have_no_load(doc: &Table) -> Result<(), KeyError> {
    let Some(vars) = doc.get("variant").and_then(Value::as_array) else {
        return Ok(());
    };
    for (vi, var) in vars.iter().enumerate() {
        let Some(var) = var.as_table() else { continue };
        let Some(wls) = var.get("workload").and_then(Value::as_array) else {
            continue;
        };
        for (j, w) in wls.iter().enumerate() {
            if w.as_table().is_some_and(|w| w.contains_key("load")) {
                let name = match var.get("name") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => py_repr(v),
                    None => vi.to_string(),
                };
                return Err(KeyError::new(
                    format!("variant[{name}].workload[{j}].load"),
                    "load is resolved only in the base [[workload]] tables; give the variant's \
                     workload a rate/users or move load to the base",
                ));
            }
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Make relative data files absolute (`matrix_file`, and `file` of an empirical
/// distribution), in place, collecting them in document order.
fn absolutize_table(t: &mut Table, base: &Path, found: &mut Vec<PathBuf>) {
    let empirical = t.get("dist").and_then(Value::as_str) == Some("empirical");
    for (k, v) in t.iter_mut() {
        match v {
            Value::String(s) if k == "matrix_file" || (k == "file" && empirical) => {
                let p = Path::new(s.as_str());
                let abs = if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    resolve(&base.join(p))
                };
                *s = abs.display().to_string();
                found.push(abs);
            }
            other => absolutize_value(other, base, found),
        }
    }
}

fn absolutize_value(v: &mut Value, base: &Path, found: &mut Vec<PathBuf>) {
    match v {
        Value::Table(t) => absolutize_table(t, base, found),
        Value::Array(a) => a.iter_mut().for_each(|x| absolutize_value(x, base, found)),
        _ => {}
    }
}

/// An absolute path without symbolic links where the file exists, else made absolute and
/// normalized by its text (as Python's `Path.resolve()`).
fn resolve(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = match std::env::current_dir() {
        Ok(cwd) if p.is_relative() => cwd.join(p),
        _ => p.to_path_buf(),
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
