//! `aqmlab._core.TuneSpec`: the `[tune]` search space of a scenario (`scenario::tune`), parsed
//! and checked by the core; Python's tuner (python/aqmlab/tuning/search.py) only asks Optuna for values
//! through `sample` and runs the documents `resolve` gives. Registered by `register`.
//!
//! Exceptions: `ScenarioError` (`FILE: KEY: reason`) for a rejected table or a trial that
//! cannot be written; `DeriveError` (a `ValueError`, "PATH: reason", attributes `path`,
//! `reason`) for a derived value a trial cannot compute.
//!
//! Validation: python/tests/test_tune_spec.py.

use super::{dict_table, py_value, scenario_err, table_dict, toml_value};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use scenario::tune;
use std::path::Path;

create_exception!(
    aqmlab._core,
    DeriveError,
    PyValueError,
    "A derived value a trial cannot compute: \"path: reason\"."
);

/// One searched key (`scenario::tune::Param`): `path`, `kind` (int, float, duration, choice),
/// `lo`/`hi` (as written; durations in ms; None for a choice), `log`, `step` (or None),
/// `choices`, `when` ([(choice path, [allowed values])]), `unit` ("B", "bps" or "");
/// `value(x)` is what a sampled `x` is written as.
#[pyclass(name = "TuneParam", module = "aqmlab._core", frozen)]
struct PyParam {
    inner: tune::Param,
}

fn values_list<'py>(py: Python<'py>, vs: &[toml::Value]) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for v in vs {
        l.append(toml_value(py, v)?)?;
    }
    Ok(l)
}

fn when_list<'py>(py: Python<'py>, when: &[tune::Condition]) -> PyResult<Bound<'py, PyList>> {
    let l = PyList::empty(py);
    for c in when {
        l.append((c.path.as_str(), values_list(py, &c.allowed)?))?;
    }
    Ok(l)
}

#[pymethods]
impl PyParam {
    #[getter]
    fn path(&self) -> &str {
        &self.inner.path
    }
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.name()
    }
    #[getter]
    fn lo<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        bound(py, &self.inner, &self.inner.lo)
    }
    #[getter]
    fn hi<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        bound(py, &self.inner, &self.inner.hi)
    }
    #[getter]
    fn log(&self) -> bool {
        self.inner.log
    }
    #[getter]
    fn step<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .step
            .as_ref()
            .map(|s| toml_value(py, s))
            .transpose()
    }
    #[getter]
    fn choices<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        values_list(py, &self.inner.choices)
    }
    #[getter]
    fn when<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        when_list(py, &self.inner.when)
    }
    #[getter]
    fn unit(&self) -> &'static str {
        self.inner.unit
    }
    /// The value written into the scenario for the sampled `x`.
    fn value<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        toml_value(py, &self.inner.written(py_value(x, &self.inner.path)?))
    }
    fn __repr__(&self) -> String {
        format!("TuneParam({:?})", self.inner)
    }
}

fn bound<'py>(
    py: Python<'py>,
    p: &tune::Param,
    v: &toml::Value,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    match p.kind {
        tune::Kind::Choice => Ok(None),
        _ => toml_value(py, v).map(Some),
    }
}

/// One objective: `column`, `direction` ("minimize"/"maximize"), `label` ("min COL").
#[pyclass(name = "TuneObjective", module = "aqmlab._core", frozen, get_all)]
struct PyObjective {
    column: String,
    direction: &'static str,
    label: String,
}

/// One constraint: `column`, `op` ("<=", ">="), `bound`, `text`; `violation(mean)` ≤ 0 when it
/// holds (infinite for None or NaN).
#[pyclass(name = "TuneConstraint", module = "aqmlab._core", frozen)]
struct PyConstraint {
    inner: tune::Constraint,
}

#[pymethods]
impl PyConstraint {
    #[getter]
    fn column(&self) -> &str {
        &self.inner.column
    }
    #[getter]
    fn op(&self) -> &'static str {
        self.inner.op()
    }
    #[getter]
    fn bound(&self) -> f64 {
        self.inner.bound
    }
    #[getter]
    fn text(&self) -> &str {
        &self.inner.text
    }
    #[pyo3(signature = (mean))]
    fn violation(&self, mean: Option<f64>) -> f64 {
        self.inner.violation(mean)
    }
}

/// A checked `[tune]` table (`scenario::tune::Spec`).
///
/// `TuneSpec(doc, file, base_dir, overrides=None, resolve_base=None)`: `doc` the scenario
/// document (`scenario_document`), `overrides` values of `trials`, `timeout`, `seed` replacing
/// the table's (None: as in the file), `resolve_base(base) -> base` applied to the document
/// without `[tune]`/`[sweep]` before the table is checked (Python's `load` resolution),
/// `columns` run columns besides the summary's that objectives may name (`--metrics STUDY`).
#[pyclass(name = "TuneSpec", module = "aqmlab._core", frozen)]
struct PyTuneSpec {
    inner: tune::Spec,
}

fn derive_err(py: Python<'_>, e: &tune::DeriveError) -> PyErr {
    let err = DeriveError::new_err(format!("{}: {}", e.path, e.reason));
    let v = err.value(py);
    let _ = v.setattr("path", &e.path);
    let _ = v.setattr("reason", &e.reason);
    err
}

#[pymethods]
impl PyTuneSpec {
    #[new]
    #[pyo3(signature = (doc, file, base_dir, overrides=None, resolve_base=None, columns=Vec::new()))]
    fn new(
        py: Python<'_>,
        doc: &Bound<'_, PyDict>,
        file: &str,
        base_dir: &str,
        overrides: Option<&Bound<'_, PyDict>>,
        resolve_base: Option<&Bound<'_, PyAny>>,
        columns: Vec<String>,
    ) -> PyResult<Self> {
        let root = dict_table(doc, "")?;
        let (table, mut base) = tune::split(&root, file).map_err(|e| scenario_err(py, &e))?;
        if let Some(f) = resolve_base {
            let got = f.call1((table_dict(py, &base)?,))?;
            base = dict_table(got.downcast::<PyDict>()?, "")?;
        }
        let mut over = toml::Table::new();
        if let Some(o) = overrides {
            for (k, v) in o.iter() {
                if !v.is_none() {
                    let k: String = k.extract()?;
                    over.insert(k.clone(), py_value(&v, &format!("tune.{k}"))?);
                }
            }
        }
        let inner = tune::parse(&table, base, file, Path::new(base_dir), &over, &columns)
            .map_err(|e| scenario_err(py, &e))?;
        Ok(PyTuneSpec { inner })
    }

    #[getter]
    fn file(&self) -> &str {
        &self.inner.file
    }
    #[getter]
    fn base_dir(&self) -> String {
        self.inner.base_dir.display().to_string()
    }
    /// The scenario without `[tune]`, `[sweep]`, `[calibration]` (a copy).
    #[getter]
    fn base<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        table_dict(py, &self.inner.base)
    }
    #[getter]
    fn variant(&self) -> Option<&str> {
        self.inner.variant.as_deref()
    }
    /// The two variants of a paired search (A, B), or None.
    #[getter]
    fn paired(&self) -> Option<(String, String)> {
        self.inner.paired.clone().map(|[a, b]| (a, b))
    }
    /// Run columns besides the summary's (`--metrics STUDY`).
    #[getter]
    fn extra_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.inner.extra_columns)
    }
    /// Every column of a run's results: the summary's, then `extra_columns`.
    #[getter]
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let extra = self.inner.extra_columns.iter().map(String::as_str);
        let all: Vec<&str> = tune::SUMMARY_COLUMNS.iter().copied().chain(extra).collect();
        PyTuple::new(py, all)
    }
    #[getter]
    fn baselines(&self) -> Vec<Option<String>> {
        self.inner.baselines.clone()
    }
    #[getter]
    fn params(&self) -> Vec<PyParam> {
        let ps = self.inner.params.iter().cloned();
        ps.map(|inner| PyParam { inner }).collect()
    }
    /// The derived values: dicts with `path`, `expr` (its text) and `when`.
    #[getter]
    fn derive<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let l = PyList::empty(py);
        for d in &self.inner.derive {
            let x = PyDict::new(py);
            x.set_item("path", &d.path)?;
            x.set_item("expr", &d.expr.text)?;
            x.set_item("when", when_list(py, &d.when)?)?;
            l.append(x)?;
        }
        Ok(l)
    }
    #[getter]
    fn objectives(&self) -> Vec<PyObjective> {
        let os = self.inner.objectives.iter();
        os.map(|o| PyObjective {
            column: o.column.clone(),
            direction: o.direction(),
            label: o.label(),
        })
        .collect()
    }
    #[getter]
    fn constraints(&self) -> Vec<PyConstraint> {
        let cs = self.inner.constraints.iter().cloned();
        cs.map(|inner| PyConstraint { inner }).collect()
    }
    #[getter]
    fn trials(&self) -> i64 {
        self.inner.trials
    }
    #[getter]
    fn timeout(&self) -> Option<f64> {
        self.inner.timeout
    }
    #[getter]
    fn replications(&self) -> i64 {
        self.inner.replications
    }
    #[getter]
    fn final_replications(&self) -> i64 {
        self.inner.final_replications
    }
    #[getter]
    fn finalists(&self) -> i64 {
        self.inner.finalists
    }
    #[getter]
    fn seed(&self) -> i64 {
        self.inner.seed
    }
    #[getter]
    fn batch(&self) -> i64 {
        self.inner.batch
    }
    #[getter]
    fn population(&self) -> i64 {
        self.inner.population
    }
    #[getter]
    fn run_seed(&self) -> i64 {
        self.inner.run_seed
    }

    /// The seeds of `n` replications: run.seed, run.seed + 1, …
    fn seeds(&self, n: i64) -> Vec<i64> {
        self.inner.seeds(n)
    }

    /// A trial's values: `pick(param)` gives the sampled value of each active searched key, in
    /// order; returned as written into the scenario.
    fn sample<'py>(
        &self,
        py: Python<'py>,
        pick: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut call = |p: &tune::Param| -> PyResult<toml::Value> {
            let x = pick.call1((PyParam { inner: p.clone() },))?;
            py_value(&x, &p.path)
        };
        table_dict(py, &self.inner.sample(&mut call)?)
    }

    /// The values of the sample trials `validate` builds.
    fn sample_points<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let ps = self.inner.sample_points();
        ps.iter().map(|t| table_dict(py, t)).collect()
    }

    /// `values` with the active derived values after them, in order; `DeriveError` naming the
    /// derived key that cannot be computed.
    fn derived<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let v = dict_table(values, "")?;
        let out = self.inner.derived(&v).map_err(|e| derive_err(py, &e))?;
        table_dict(py, &out)
    }

    /// The scenario document of a trial (`values` as `derived` gives them), `[[variant]]`
    /// reduced to `name` (default: the tuned variant), `run.seed` = `seed` (None: as written).
    #[pyo3(signature = (values, seed=None, name=None))]
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyDict>,
        seed: Option<i64>,
        name: Option<&str>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let v = dict_table(values, "")?;
        let doc = self
            .inner
            .resolve(&v, seed, name)
            .map_err(|e| scenario_err(py, &e))?;
        table_dict(py, &doc)
    }

    /// The scenario as written for baseline variant `name` (None: no variants).
    #[pyo3(signature = (name, seed=None))]
    fn baseline<'py>(
        &self,
        py: Python<'py>,
        name: Option<&str>,
        seed: Option<i64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        table_dict(py, &self.inner.baseline(name, seed))
    }

    /// Have the core build every baseline and sample trial (`ScenarioError` for the first it
    /// refuses).
    fn validate(&self, py: Python<'_>) -> PyResult<()> {
        let r = py.allow_threads(|| self.inner.validate());
        r.map_err(|e| scenario_err(py, &e))
    }

    /// `{runs, text, key}`: the tune's runs, how they multiply, the key to blame.
    fn size<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.size();
        let d = PyDict::new(py);
        d.set_item("runs", s.runs)?;
        d.set_item("text", s.text)?;
        d.set_item("key", s.key)?;
        Ok(d)
    }
}

/// Add the tuning classes, `DeriveError` and `SUMMARY_COLUMNS` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DeriveError", py.get_type::<DeriveError>())?;
    m.add("SUMMARY_COLUMNS", PyTuple::new(py, tune::SUMMARY_COLUMNS)?)?;
    m.add_class::<PyTuneSpec>()?;
    m.add_class::<PyParam>()?;
    m.add_class::<PyObjective>()?;
    m.add_class::<PyConstraint>()?;
    Ok(())
}
