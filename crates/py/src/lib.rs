//! `aqmlab._core`: the thin PyO3 binding between the Rust core and the `aqmlab` Python package.
//! It loads scenario files (`scenario::load`) and runs one experiment: `run_variant` (a file,
//! `aqmlab run`) and `run_scenario_text` (a resolved scenario's text: sweeps, tuning, studies)
//! both write its tables to Parquet as the run goes (`sim::run_in` + `store::RunWriter`,
//! memory bounded by the open connections), so the same experiment gives the same files
//! whichever way it came. pandas, the CLI and plots live in `python/aqmlab/`. Nothing here
//! computes anything the core already does.
//!
//! Exceptions: `ScenarioError` (a `ValueError`, message "file: key: reason", attributes `file`,
//! `key`, `reason`) for a rejected scenario or an unknown variant; `SimError` (a `RuntimeError`,
//! message "key: reason", attributes `key`, `reason`) for an experiment the engine cannot build.
//! An exception raised by the progress callable (or a pending Ctrl-C) aborts the run and is
//! re-raised as is. `progress=True` draws the core's own bar instead (`progress_bar`).
//!
//! Validation: `python/tests/` (the engine tests run scenarios end to end through this module).

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Instant;

mod calibration;
mod progress_bar;
mod tune;

create_exception!(
    aqmlab._core,
    ScenarioError,
    PyValueError,
    "A scenario rejected before the run: \"file: key: reason\"."
);
create_exception!(
    aqmlab._core,
    SimError,
    PyRuntimeError,
    "An experiment the engine cannot build: \"key: reason\"."
);

fn scenario_err(py: Python<'_>, e: &scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    // Attribute setting on a fresh exception instance cannot fail in practice; ignore if it does.
    let _ = v.setattr("file", &e.file);
    let _ = v.setattr("key", &e.key);
    let _ = v.setattr("reason", &e.reason);
    err
}

fn sim_err(py: Python<'_>, e: &sim::SimError) -> PyErr {
    let err = SimError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("key", &e.key);
    let _ = v.setattr("reason", &e.reason);
    err
}

fn load(py: Python<'_>, path: &str) -> PyResult<Vec<scenario::NamedExperiment>> {
    scenario::load(Path::new(path)).map_err(|e| scenario_err(py, &e))
}

/// The text of the scenario file at `path` (`-`: standard input) and the directory its
/// relative data files resolve against, read once and at most `scenario::read::MAX_INPUT_BYTES`
/// (64 MiB): `aqmlab run` reads a scenario only through this, so `/dev/stdin` and `-` work and
/// `/dev/zero` is one line. A `ScenarioError` (`PATH: (file): cannot read the file: …`) if it
/// cannot be read, is larger or is not UTF-8.
#[pyfunction]
fn read_scenario(py: Python<'_>, path: &str) -> PyResult<(String, String)> {
    let p = Path::new(path);
    let text = scenario::read::read_text(p).map_err(|reason| {
        let e = scenario::ScenarioError {
            file: path.to_string(),
            key: "(file)".into(),
            reason: format!("cannot read the file: {reason}"),
        };
        scenario_err(py, &e)
    })?;
    let base = scenario::read::base_dir(p).display().to_string();
    Ok((text, base))
}

/// The scenario document of `text` as a dict, in file order (`scenario::document`: parsed once,
/// `extends` resolved against `base_dir`; `label` names it in errors), for the Python side of
/// the language (sweeps, tuning, `load`), which reads scenarios only through this. Integers,
/// floats, strings, booleans, arrays and tables as TOML says; a TOML date-time as its TOML text.
#[pyfunction]
fn scenario_document<'py>(
    py: Python<'py>,
    text: &str,
    label: &str,
    base_dir: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let doc =
        scenario::document(text, label, Path::new(base_dir)).map_err(|e| scenario_err(py, &e))?;
    table_dict(py, &doc)
}

/// `[(name, document)]`: each experiment of the scenario document `doc` (a dict as
/// `scenario_document` gives) with its `[[variant]]` merged into the base by the core's rule
/// (`scenario::variant_documents`); `label` names it in errors and gives the name of a document
/// without variants. A value that is not a TOML value raises `TypeError` naming its key.
#[pyfunction]
fn variant_documents<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    label: &str,
) -> PyResult<Vec<(String, Bound<'py, PyDict>)>> {
    let root = dict_table(doc, "")?;
    let docs = scenario::variant_documents(root, label).map_err(|e| scenario_err(py, &e))?;
    docs.into_iter()
        .map(|(name, t)| Ok((name, table_dict(py, &t)?)))
        .collect()
}

/// The plan of the sweep document `doc` (a dict as `scenario_document` gives; `label` names it
/// in errors) before anything is expanded (`scenario::sweep::plan`): a dict with `axes`,
/// `replications`, `load_axis` (None when there is none), `data_dir` (as written), `variants`
/// (the variants run), `runs` (grid points × zip rows × replications × variants), `size_text`
/// (how they multiply) and `size_key` (the `[sweep]` key of the largest factor). A rejected
/// table raises `ScenarioError` (`FILE: KEY: reason`).
#[pyfunction]
fn sweep_plan<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    label: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let root = dict_table(doc, "")?;
    let plan = scenario::sweep::plan(&root, label).map_err(|e| scenario_err(py, &e))?;
    plan_dict(py, &plan)
}

fn plan_dict<'py>(py: Python<'py>, plan: &scenario::sweep::Plan) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("axes", &plan.axes)?;
    d.set_item("replications", plan.replications)?;
    d.set_item("load_axis", &plan.load_axis)?;
    d.set_item("data_dir", &plan.data_dir)?;
    d.set_item("variants", &plan.variants)?;
    d.set_item("runs", plan.runs)?;
    d.set_item("size_text", &plan.size_text)?;
    d.set_item("size_key", plan.size_key)?;
    Ok(d)
}

/// `(plan, runs)` of the sweep document `doc` (`scenario::sweep::expand`): `plan` as
/// `sweep_plan` gives it, `runs` one dict per run in run order with `id` (16 hex digits),
/// `name` (its variant, "" without variants), `replication`, `seed`, `values` (the point's
/// grid, zip and derived values by key path, in axis order), `applies` (the keys of `values`
/// that reach this run) and `doc` (the resolved scenario document). `ScenarioError` for any
/// mistake of the sweep.
#[pyfunction]
fn sweep_expand<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    label: &str,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyList>)> {
    let root = dict_table(doc, "")?;
    let (plan, runs) = py
        .allow_threads(|| scenario::sweep::expand(&root, label))
        .map_err(|e| scenario_err(py, &e))?;
    let out = PyList::empty(py);
    for r in &runs {
        let d = PyDict::new(py);
        d.set_item("id", &r.id)?;
        d.set_item("name", &r.name)?;
        d.set_item("replication", r.replication)?;
        d.set_item("seed", toml_value(py, &r.seed)?)?;
        let values = PyDict::new(py);
        for (k, v) in &r.values {
            values.set_item(k, toml_value(py, v)?)?;
        }
        d.set_item("values", values)?;
        d.set_item("applies", pyo3::types::PyTuple::new(py, &r.applies)?)?;
        d.set_item("doc", table_dict(py, &r.doc)?)?;
        out.append(d)?;
    }
    Ok((plan_dict(py, &plan)?, out))
}

/// The run id of the scenario document `doc`: the first 16 hex digits of the SHA-256 of its
/// canonical JSON (`scenario::sweep::run_id`), the id of a sweep's or a tune's run.
#[pyfunction]
fn run_id(doc: &Bound<'_, PyDict>) -> PyResult<String> {
    Ok(scenario::sweep::run_id(&dict_table(doc, "")?))
}

/// `doc` as canonical JSON (sorted keys, no whitespace; `scenario::sweep::canonical_json`).
#[pyfunction]
fn canonical_json(doc: &Bound<'_, PyDict>) -> PyResult<String> {
    Ok(scenario::sweep::canonical_json(&dict_table(doc, "")?))
}

/// `doc` as TOML text the core reads back to the same document (`scenario::write`), the one
/// writer of the scenario files Python makes; a `TypeError` names a value TOML cannot hold.
#[pyfunction]
fn toml_text(doc: &Bound<'_, PyDict>) -> PyResult<String> {
    scenario::write::document_text(&dict_table(doc, "")?).map_err(PyTypeError::new_err)
}

/// A copy of `doc` with the key path `path` (`workload[0].rate`, `variant[red].queue.min_th`;
/// `scenario::sweep::path`) set to `value`, missing tables created on the way; a `ValueError`
/// with the reason when the path is malformed or does not resolve.
#[pyfunction]
fn set_key<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    path: &str,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut t = dict_table(doc, "")?;
    let v = py_value(value, path)?;
    scenario::sweep::path::set(&mut t, path, v).map_err(PyValueError::new_err)?;
    table_dict(py, &t)
}

/// The value at the key path `path` of `doc` (a copy); a `ValueError` with the reason when the
/// path is malformed or does not resolve.
#[pyfunction]
fn get_key<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    path: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let t = dict_table(doc, "")?;
    let v = scenario::sweep::path::get(&t, path).map_err(PyValueError::new_err)?;
    toml_value(py, &v)
}

/// Check the key path `path` (`ValueError` with the reason when it is malformed).
#[pyfunction]
fn check_key_path(path: &str) -> PyResult<()> {
    scenario::sweep::path::parse(path)
        .map(drop)
        .map_err(PyValueError::new_err)
}

/// A derived value's expression (`scenario::sweep::expr`: the safe arithmetic of
/// `[sweep.derive]` and `[tune.derive]`): `Expr(text)` parses it (`ValueError` naming the
/// problem), `refs` lists the key paths it reads, `eval(lookup)` computes it, `lookup(path)`
/// giving each value (a `ValueError` it raises becomes the reason of the `ValueError` raised).
#[pyclass(name = "Expr", module = "aqmlab._core", frozen)]
struct PyExpr {
    inner: scenario::sweep::expr::Expr,
}

#[pymethods]
impl PyExpr {
    #[new]
    fn new(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let Ok(text) = text.extract::<String>() else {
            return Err(PyValueError::new_err(format!(
                "expected an expression string, got {}",
                text.repr()?
            )));
        };
        scenario::sweep::expr::parse(&text)
            .map(|inner| PyExpr { inner })
            .map_err(PyValueError::new_err)
    }

    #[getter]
    fn text(&self) -> String {
        self.inner.text.clone()
    }

    #[getter]
    fn refs(&self) -> Vec<String> {
        self.inner.refs.clone()
    }

    fn eval<'py>(&self, py: Python<'py>, lookup: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let mut other: Option<PyErr> = None;
        let mut look = |p: &str| -> Result<toml::Value, String> {
            let got = lookup.call1((p,)).and_then(|v| py_value(&v, p));
            got.map_err(|e| {
                if e.is_instance_of::<PyValueError>(py) || e.is_instance_of::<PyTypeError>(py) {
                    e.value(py).to_string()
                } else {
                    let msg = e.to_string();
                    other.get_or_insert(e);
                    msg
                }
            })
        };
        let result = self.inner.eval(&mut look);
        if let Some(e) = other {
            return Err(e);
        }
        toml_value(py, &result.map_err(PyValueError::new_err)?)
    }
}

/// Why the `[[variant]]` entry `variant` hides the key `path` of the document `base` when the
/// core merges it in (`scenario::sweep::shadowed_by`), or None when the base value reaches the
/// run.
#[pyfunction]
fn shadowed_by(
    base: &Bound<'_, PyDict>,
    variant: &Bound<'_, PyDict>,
    path: &str,
) -> PyResult<Option<String>> {
    Ok(scenario::sweep::shadowed_by(
        &dict_table(base, "")?,
        &dict_table(variant, "")?,
        path,
    ))
}

fn dict_table(d: &Bound<'_, PyDict>, path: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let k: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{path}: a key that is not a string")))?;
        let at = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        t.insert(k, py_value(&v, &at)?);
    }
    Ok(t)
}

fn py_value(v: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    use toml::Value as V;
    if v.is_instance_of::<PyBool>() {
        return Ok(V::Boolean(v.extract()?));
    }
    if let Ok(d) = v.downcast::<PyDict>() {
        return Ok(V::Table(dict_table(d, path)?));
    }
    if let Ok(l) = v.downcast::<PyList>() {
        let items: PyResult<Vec<V>> = l
            .iter()
            .enumerate()
            .map(|(i, x)| py_value(&x, &format!("{path}[{i}]")))
            .collect();
        return Ok(V::Array(items?));
    }
    if let Ok(l) = v.downcast::<pyo3::types::PyTuple>() {
        let items: PyResult<Vec<V>> = l
            .iter()
            .enumerate()
            .map(|(i, x)| py_value(&x, &format!("{path}[{i}]")))
            .collect();
        return Ok(V::Array(items?));
    }
    if let Ok(s) = v.extract::<String>() {
        return Ok(V::String(s));
    }
    if v.is_instance_of::<pyo3::types::PyInt>() {
        return v.extract::<i64>().map(V::Integer).map_err(|_| {
            PyTypeError::new_err(format!("{path}: integer out of TOML's 64-bit range"))
        });
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok(V::Float(f));
    }
    Err(PyTypeError::new_err(format!(
        "{path}: not a TOML value (string, number, boolean, list or dict)"
    )))
}

fn table_dict<'py>(py: Python<'py>, t: &toml::Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, toml_value(py, v)?)?;
    }
    Ok(d)
}

fn toml_value<'py>(py: Python<'py>, v: &toml::Value) -> PyResult<Bound<'py, PyAny>> {
    use toml::Value as V;
    Ok(match v {
        V::String(s) => s.into_pyobject(py)?.into_any(),
        V::Integer(i) => i.into_pyobject(py)?.into_any(),
        V::Float(f) => f.into_pyobject(py)?.into_any(),
        V::Boolean(b) => PyBool::new(py, *b).to_owned().into_any(),
        V::Datetime(dt) => dt.to_string().into_pyobject(py)?.into_any(),
        V::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(toml_value(py, x)?)?;
            }
            l.into_any()
        }
        V::Table(t) => table_dict(py, t)?.into_any(),
    })
}

/// Names of the experiments (variants) of the scenario file at `path`, in file order.
#[pyfunction]
fn scenario_variants(py: Python<'_>, path: &str) -> PyResult<Vec<String>> {
    Ok(load(py, path)?.into_iter().map(|n| n.name).collect())
}

fn engine_dict<'py>(py: Python<'py>, e: &sim::EngineStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("events", e.events)?;
    d.set_item("packets_created", e.packets_created)?;
    d.set_item("packets_delivered", e.packets_delivered)?;
    d.set_item("packets_dropped", e.packets_dropped)?;
    d.set_item("packets_in_flight", e.packets_in_flight)?;
    d.set_item("connections", e.connections)?;
    d.set_item("peak_open_connections", e.peak_open_connections)?;
    d.set_item("end_ns", e.end_ns)?;
    Ok(d)
}

/// Panic payload used to unwind out of the engine when the progress callable raised; never
/// escapes `simulate` (it is caught there and the Python exception is raised instead).
struct AbortRun;

/// Run variant `variant` of the scenario file at `path`, writing its tables into the existing
/// directory `dir` as the run goes (`requests.parquet`, `queue.parquet`, `links.parquet`,
/// each under `NAME.part` until complete; `store::RunWriter`), and `{link}.pcap` for each link
/// `[monitor] pcap` selects (`sim::run_in`). `progress`: None or False for nothing; True for
/// the core's progress bar on stderr, drawn only when stderr is a terminal (`progress_bar`);
/// or a callable `progress(sim_s, end_s)`, called about once per simulated second, an
/// exception from which aborts the run (the directory then holds partial `.part` files: the
/// caller removes it); anything else is a TypeError before the run. Ctrl-C is checked with
/// each call of a callable, else every 50 ms of wall time; the engine runs without the GIL
/// (`simulate`). A file-system error raises `OSError` (`PATH: reason`).
///
/// Returns a dict: `name`, `seed`, `warmup_ns`, `summary_json` (the run summary as pretty JSON,
/// keys in `metrics::Summary` field order), `engine` (engine counters) and `wall_s`
/// (wall-clock seconds of the run and the writing).
#[pyfunction]
#[pyo3(signature = (path, variant, dir, progress=None))]
fn run_variant<'py>(
    py: Python<'py>,
    path: &str,
    variant: &str,
    dir: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let exps = load(py, path)?;
    run_into(py, &exps, path, variant, dir, progress)
}

fn store_err(e: store::StoreError) -> PyErr {
    PyOSError::new_err(e.to_string())
}

/// Names of the experiments (variants) of scenario `text`, in file order. `label` names the text
/// in errors (and gives the default experiment name, its stem); data files named in it resolve
/// against `base_dir`. Used by sweeps (python/aqmlab/sweeps/run.py), which resolve scenarios in
/// Python and hand the resolved text to the core.
#[pyfunction]
fn scenario_text_variants(
    py: Python<'_>,
    text: &str,
    label: &str,
    base_dir: &str,
) -> PyResult<Vec<String>> {
    let exps =
        scenario::parse_str(text, label, Path::new(base_dir)).map_err(|e| scenario_err(py, &e))?;
    Ok(exps.into_iter().map(|n| n.name).collect())
}

/// Run variant `variant` of scenario `text` (see `scenario_text_variants` for `label` and
/// `base_dir`) into the existing directory `dir`, exactly as `run_variant` runs a file (sweeps,
/// tuning, studies: the same writer, so the same files, byte for byte); progress, errors and
/// the returned dict as in `run_variant`.
#[pyfunction]
#[pyo3(signature = (text, label, base_dir, variant, dir, progress=None))]
fn run_scenario_text<'py>(
    py: Python<'py>,
    text: &str,
    label: &str,
    base_dir: &str,
    variant: &str,
    dir: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let exps =
        scenario::parse_str(text, label, Path::new(base_dir)).map_err(|e| scenario_err(py, &e))?;
    run_into(py, &exps, label, variant, dir, progress)
}

/// Run the experiment named `variant` of `exps` (loaded from `label`) into `dir` through
/// `store::RunWriter` (`run_variant`'s dict).
fn run_into<'py>(
    py: Python<'py>,
    exps: &[scenario::NamedExperiment],
    label: &str,
    variant: &str,
    dir: &str,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let named = find_variant(py, exps, label, variant)?;
    let mut progress = Progress::from_arg(progress, &named.name)?;
    if let Progress::Bar(bar) = &mut progress {
        let est = sim::budget::estimate(&named.experiment);
        if est.setup_s >= SETUP_LINE_S {
            bar.setting_up(format!(
                "setting up {} nodes (routes between every pair: at least {})",
                est.nodes,
                sim::budget::duration_text(est.setup_s)
            ));
        }
    }
    let started = Instant::now();
    let warmup_ns = named.experiment.warmup.as_nanos();
    let writer = store::RunWriter::create(Path::new(dir), warmup_ns).map_err(store_err)?;
    let end = simulate(py, named, progress, |exp, on_progress| {
        sim::run_in(exp, on_progress, writer, Path::new(dir))
    })?;
    let summary = end
        .obs
        .finish(&end.fwd_link, &end.totals)
        .map_err(store_err)?;
    let d = result_dict(py, named, &summary, &end.engine)?;
    d.set_item("wall_s", started.elapsed().as_secs_f64())?;
    Ok(d)
}

/// Shortest estimated set-up, seconds, that gets its own line before the progress bar: below
/// it the bar appears too soon for a blank terminal to matter.
const SETUP_LINE_S: f64 = 1.0;

/// What each experiment of scenario `text` will cost at least (`sim::budget::estimate`), in
/// file order: one dict each with `name`, `events`, `setup_s`, `seconds` (wall-clock: set-up plus
/// events at `sim::budget::EVENTS_PER_S`) and `nodes`. Parses as `scenario_text_variants`
/// (ScenarioError for a bad text): `aqmlab run` prints an estimate above a minute, sweeps and
/// tunes add them up.
#[pyfunction]
fn scenario_text_estimates<'py>(
    py: Python<'py>,
    text: &str,
    label: &str,
    base_dir: &str,
) -> PyResult<Bound<'py, PyList>> {
    let exps =
        scenario::parse_str(text, label, Path::new(base_dir)).map_err(|e| scenario_err(py, &e))?;
    let out = PyList::empty(py);
    for n in &exps {
        let est = sim::budget::estimate(&n.experiment);
        let d = PyDict::new(py);
        d.set_item("name", &n.name)?;
        d.set_item("events", est.events)?;
        d.set_item("setup_s", est.setup_s)?;
        d.set_item("seconds", est.seconds)?;
        d.set_item("nodes", est.nodes)?;
        out.append(d)?;
    }
    Ok(out)
}

/// A wall-clock time as the estimates print it (`40 s`, `1.5 min`, `3.5 h`, `2.1e5 years`).
#[pyfunction]
fn duration_text(seconds: f64) -> String {
    sim::budget::duration_text(seconds)
}

/// The cost model's figures for messages: `events_per_s` (`sim::budget::EVENTS_PER_S`) and
/// `max_events` (a run's bound, `sim::budget::MAX_EVENTS`).
#[pyfunction]
fn budget_constants<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("events_per_s", sim::budget::EVENTS_PER_S)?;
    d.set_item("max_events", sim::budget::MAX_EVENTS)?;
    Ok(d)
}

/// The experiment named `variant` of `exps` (loaded from `label`), or a ScenarioError.
fn find_variant<'a>(
    py: Python<'_>,
    exps: &'a [scenario::NamedExperiment],
    label: &str,
    variant: &str,
) -> PyResult<&'a scenario::NamedExperiment> {
    exps.iter().find(|n| n.name == variant).ok_or_else(|| {
        let names: Vec<&str> = exps.iter().map(|n| n.name.as_str()).collect();
        let e = scenario::ScenarioError {
            file: label.to_string(),
            key: "variant".into(),
            reason: format!(
                "no variant named \"{variant}\" (the file has: {})",
                names.join(", ")
            ),
        };
        scenario_err(py, &e)
    })
}

/// What the `progress` argument of `run_variant` / `run_scenario_text` asks for. It holds no
/// GIL-bound reference, so the run can go on with the GIL released (`simulate`).
enum Progress {
    /// Nothing (None or False).
    Off,
    /// The core's bar (True).
    Bar(progress_bar::SimBar),
    /// A Python callable `(sim_s, end_s)`.
    Call(Py<PyAny>),
}

impl Progress {
    /// The `progress` argument for the variant `name`; a TypeError for anything but None, a
    /// bool or a callable.
    fn from_arg(arg: Option<Bound<'_, PyAny>>, name: &str) -> PyResult<Self> {
        let Some(arg) = arg else {
            return Ok(Progress::Off);
        };
        if let Ok(b) = arg.downcast::<PyBool>() {
            return Ok(match b.is_true() {
                true => Progress::Bar(progress_bar::SimBar::new(name)),
                false => Progress::Off,
            });
        }
        if arg.is_callable() {
            return Ok(Progress::Call(arg.unbind()));
        }
        let kind = arg.get_type().name().map(|n| n.to_string());
        Err(PyTypeError::new_err(format!(
            "progress: expected True, False, None or a callable(sim_s, end_s), got {}",
            kind.unwrap_or_else(|_| "an object".into())
        )))
    }

    /// The run is at `now` of `end`. The GIL is taken only when needed: for a callable, and
    /// for the Ctrl-C check when `signals_due`.
    fn report(
        &mut self,
        now: units::SimTime,
        end: units::SimTime,
        signals_due: bool,
    ) -> PyResult<()> {
        match self {
            Progress::Call(cb) => Python::with_gil(|py| {
                py.check_signals()?;
                cb.call1(py, (now.as_secs_f64(), end.as_secs_f64()))
                    .map(drop)
            }),
            Progress::Bar(bar) => {
                bar.update(now, end);
                check_signals_if(signals_due)
            }
            Progress::Off => check_signals_if(signals_due),
        }
    }
}

/// Ctrl-C's exception if one is pending and `due` (the GIL taken for the check only then).
fn check_signals_if(due: bool) -> PyResult<()> {
    if due {
        Python::with_gil(|py| py.check_signals())
    } else {
        Ok(())
    }
}

/// How often (wall time) a run without a progress callable takes the GIL back to check for
/// Ctrl-C: seldom enough that a Python thread working meanwhile is not held up (taking the
/// GIL from a running thread waits up to its switch interval, 5 ms), often enough that
/// Ctrl-C stops the run at once.
const SIGNAL_CHECK_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// Run `named` through `go(experiment, on_progress)` (`sim::run_in`), reporting `progress`
/// (a callable about once per simulated second) and checking for Ctrl-C then (at most every
/// `SIGNAL_CHECK_EVERY` without a callable); an exception there aborts the run and is
/// returned. A bar is left in its last state when this returns, whatever the outcome.
///
/// The GIL is released while the engine runs and taken back only for those calls and
/// checks, so Python threads go on meanwhile: `aqmlab run` imports what it
/// needs after the run while the engine runs (`aqmlab.cli.cmd_run`).
fn simulate<T: Send>(
    py: Python<'_>,
    named: &scenario::NamedExperiment,
    mut progress: Progress,
    go: impl FnOnce(
            &sim::Experiment,
            &mut dyn FnMut(units::SimTime, units::SimTime),
        ) -> Result<T, sim::SimError>
        + Send,
) -> PyResult<T> {
    let (result, aborted) = py.allow_threads(|| {
        let mut aborted: Option<PyErr> = None;
        let mut last_check = Instant::now();
        let result = {
            let mut on_progress = |now: units::SimTime, end: units::SimTime| {
                let signals_due = last_check.elapsed() >= SIGNAL_CHECK_EVERY;
                if signals_due {
                    last_check = Instant::now();
                }
                if let Err(e) = progress.report(now, end, signals_due) {
                    aborted = Some(e);
                    // `resume_unwind` does not run the panic hook: nothing is printed.
                    resume_unwind(Box::new(AbortRun));
                }
            };
            catch_unwind(AssertUnwindSafe(|| go(&named.experiment, &mut on_progress)))
        };
        (result, aborted)
    });
    // With the GIL (a callable is released at once): the bar's last line, before Python prints
    // anything.
    drop(progress);
    match result {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(e)) => Err(sim_err(py, &e)),
        Err(payload) => match (payload.downcast::<AbortRun>(), aborted) {
            (Ok(_), Some(e)) => Err(e),
            (Ok(payload), None) => resume_unwind(payload),
            (Err(payload), _) => resume_unwind(payload),
        },
    }
}

/// `name`, `seed`, `warmup_ns`, `summary_json` and `engine` of a finished run.
fn result_dict<'py>(
    py: Python<'py>,
    named: &scenario::NamedExperiment,
    summary: &metrics::Summary,
    engine: &sim::EngineStats,
) -> PyResult<Bound<'py, PyDict>> {
    let summary_json = serde_json::to_string_pretty(summary)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialize the summary: {e}")))?;
    let d = PyDict::new(py);
    d.set_item("name", &named.name)?;
    d.set_item("seed", named.experiment.seed)?;
    d.set_item("warmup_ns", named.experiment.warmup.as_nanos())?;
    d.set_item("summary_json", summary_json)?;
    d.set_item("engine", engine_dict(py, engine)?)?;
    Ok(d)
}

/// Every declared model a scenario table selects: `tcp` (the `[tcp]` table), the topology
/// tables (`dumbbell`, `parking_lot`, `cloud`), every queue `kind` in the order of the docs,
/// then the declared workload kinds and those the scenario crate parses itself (`http10`,
/// `bulk`, `replay`: `scenario::workload_keys`).
#[pyfunction]
fn param_models() -> Vec<&'static str> {
    let mut names = vec![tcp::params::MODEL.kind];
    names.extend(topology_models().iter().map(|m| m.0));
    names.extend(aqm::models().iter().map(|m| m.kind()));
    names.extend(traffic::workload::params::models().iter().map(|m| m.kind()));
    names.extend(scenario::workload_keys::KINDS.iter().map(|k| k.kind));
    names
}

/// Every queue `kind`, in the order of the docs.
#[pyfunction]
fn queue_kinds() -> Vec<&'static str> {
    aqm::models().iter().map(|m| m.kind()).collect()
}

/// The topology tables' declarations (`sim::topology::params`), with their names.
fn topology_models() -> [(&'static str, Vec<declare::ParamInfo>, String); 3] {
    use declare::table::text;
    use declare::Declared;
    use sim::topology::params::{CLOUD, DUMBBELL, PARKING_LOT};
    [
        (DUMBBELL.kind, DUMBBELL.params(), text(&DUMBBELL)),
        (PARKING_LOT.kind, PARKING_LOT.params(), text(&PARKING_LOT)),
        (CLOUD.kind, CLOUD.params(), text(&CLOUD)),
    ]
}

/// The keys and the plain-text table of model `name` (`tcp` or a queue kind).
fn declared(name: &str) -> PyResult<(Vec<declare::ParamInfo>, String)> {
    use declare::Declared;
    if name == tcp::params::MODEL.kind {
        let m = &tcp::params::MODEL;
        return Ok((m.params(), declare::table::text(m)));
    }
    if let Some((_, params, text)) = topology_models().into_iter().find(|m| m.0 == name) {
        return Ok((params, text));
    }
    if let Some(m) = traffic::workload::params::model(name) {
        return Ok((m.params(), declare::table::text(m)));
    }
    // Keys of distributions, flow arrays and files: text only, no `declare` parameters.
    if let Some(k) = scenario::workload_keys::kind(name) {
        return Ok((Vec::new(), scenario::workload_keys::text(k)));
    }
    match aqm::model(name) {
        Some(m) => Ok((m.params(), declare::table::text(m))),
        None => Err(PyValueError::new_err(format!(
            "unknown model {name:?}; expected one of: {}",
            param_models().join(", ")
        ))),
    }
}

/// The declared keys of model `name` (`tcp`, a queue kind or a declared workload kind; `declare`
/// crate), one dict each: key, value (how it is written), unit, default (as written in a
/// scenario, or "required"), range, doc,
/// source, search (the default search range a tuner offers, as a tuning table writes it, or
/// ""). `ValueError` for an unknown name.
#[pyfunction]
fn model_params<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
    use declare::table::{range_text, syntax_text, value_text};
    let out = PyList::empty(py);
    for p in declared(name)?.0 {
        let d = PyDict::new(py);
        d.set_item("key", p.key)?;
        d.set_item("value", syntax_text(p.syntax))?;
        d.set_item("unit", p.unit)?;
        let default = match p.required {
            true => "required".to_string(),
            false => value_text(p.default, p.syntax),
        };
        d.set_item("default", default)?;
        d.set_item("range", range_text(p.range))?;
        d.set_item("doc", p.doc)?;
        d.set_item("source", p.source)?;
        let search = declare::default_search(&p).map(declare::search_text);
        d.set_item("search", search.unwrap_or_default())?;
        out.append(d)?;
    }
    Ok(out)
}

/// `model_params(name)` as an aligned text table with the model's title and profiles.
#[pyfunction]
fn model_params_text(name: &str) -> PyResult<String> {
    Ok(declared(name)?.1)
}

/// PackMime HTTP/1.0's expectations per connection at `rate` (conn/s), by quadrature of the
/// model's inverse CDFs (`traffic::packmime::expectation`), as aqmlab draws sizes (whole bytes):
/// a dict with `request_bytes`, `response_bytes`, `payload_bytes` (their sum), `cache_share`
/// (share of cache-validation responses) and `data_segments` (E[⌈request/mss⌉ +
/// ⌈response/mss⌉], segments of `mss` bytes). `tail_floor`: the smallest upper-tail
/// probability of a download-size draw (None: aqmlab's 53-bit uniforms, 2⁻⁵³; 1/n gives the
/// sizes a sample of about n downloads reaches). `cap`: sizes above `cap` bytes count as `cap`
/// (a light-tailed variable whose sample mean has a standard error). A ValueError for a rate,
/// mss, floor or cap out of range.
#[pyfunction]
#[pyo3(signature = (rate, mss, tail_floor=None, cap=None))]
fn packmime_expectation<'py>(
    py: Python<'py>,
    rate: f64,
    mss: f64,
    tail_floor: Option<f64>,
    cap: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    use traffic::packmime::expectation::{expected_per_connection, AQMLAB_TAIL_FLOOR};
    let floor = tail_floor.unwrap_or(AQMLAB_TAIL_FLOOR);
    if !(rate.is_finite() && rate > 0.0 && mss.is_finite() && mss >= 1.0) {
        return Err(PyValueError::new_err(format!(
            "packmime_expectation: rate {rate} conn/s and mss {mss} B must be finite, rate > 0, mss >= 1"
        )));
    }
    if !(AQMLAB_TAIL_FLOOR..1.0).contains(&floor) {
        return Err(PyValueError::new_err(format!(
            "packmime_expectation: tail_floor {floor} must lie in [2^-53, 1)"
        )));
    }
    let cap = cap.unwrap_or(f64::INFINITY);
    if cap.is_nan() || cap < 1.0 {
        return Err(PyValueError::new_err(format!(
            "packmime_expectation: cap {cap} B must be at least 1"
        )));
    }
    let (bytes, segs) = py.allow_threads(|| {
        (
            expected_per_connection(rate, floor, |x| x.min(cap)),
            expected_per_connection(rate, floor, |x| (x.min(cap) / mss).ceil()),
        )
    });
    let d = PyDict::new(py);
    d.set_item("request_bytes", bytes.request)?;
    d.set_item("response_bytes", bytes.response)?;
    d.set_item("payload_bytes", bytes.total())?;
    d.set_item("cache_share", bytes.cache_share)?;
    d.set_item("data_segments", segs.total())?;
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimError", py.get_type::<SimError>())?;
    m.add_function(wrap_pyfunction!(read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_variants, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_document, m)?)?;
    m.add_function(wrap_pyfunction!(variant_documents, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_expand, m)?)?;
    m.add_function(wrap_pyfunction!(run_id, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_json, m)?)?;
    m.add_function(wrap_pyfunction!(toml_text, m)?)?;
    m.add_function(wrap_pyfunction!(set_key, m)?)?;
    m.add_function(wrap_pyfunction!(shadowed_by, m)?)?;
    m.add_function(wrap_pyfunction!(get_key, m)?)?;
    m.add_function(wrap_pyfunction!(check_key_path, m)?)?;
    m.add_class::<PyExpr>()?;
    m.add_function(wrap_pyfunction!(run_variant, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_text_variants, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_text_estimates, m)?)?;
    m.add_function(wrap_pyfunction!(duration_text, m)?)?;
    m.add_function(wrap_pyfunction!(budget_constants, m)?)?;
    m.add_function(wrap_pyfunction!(run_scenario_text, m)?)?;
    m.add_function(wrap_pyfunction!(param_models, m)?)?;
    m.add_function(wrap_pyfunction!(queue_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(model_params, m)?)?;
    m.add_function(wrap_pyfunction!(model_params_text, m)?)?;
    m.add_function(wrap_pyfunction!(packmime_expectation, m)?)?;
    tune::register(m)?;
    calibration::register(m)?;
    Ok(())
}
