//! `load = …` and `aqmlab calibrate` for Python (`scenario::load` does the language and the
//! procedure; this module runs the calibration points on the engine). Points run in parallel,
//! one thread each up to `jobs` (default: one per CPU), without the GIL; the main thread checks
//! for Ctrl-C every 50 ms and stops the runs when it comes. A point measures, after its
//! warm-up, the forward bottleneck's wire bit/s as the run summary's `kb_per_s` × 8000 and the
//! reverse link's from its `links` rows that end after the warm-up (parking lot: both from the
//! named links' rows), as the Python implementation measured them.
//!
//! Validation: python/tests/test_calibrate.py (slopes against a hand count, the cache, Ctrl-C
//! free runs) and test_load_everywhere.py.

use crate::{dict_table, scenario_err, sim_err, table_dict};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use scenario::load::{self, Calibrated, Calibration, Overrides, Resolver};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Register this module's functions and classes in `_core`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(calibration_hash, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(has_load, m)?)?;
    m.add_class::<LoadResolver>()?;
    Ok(())
}

/// An error of a calibration: the scenario's, or a Python exception (the engine's, Ctrl-C, a
/// callback's).
enum Failure {
    Scenario(scenario::ScenarioError),
    Py(PyErr),
}

impl From<scenario::ScenarioError> for Failure {
    fn from(e: scenario::ScenarioError) -> Self {
        Failure::Scenario(e)
    }
}

impl Failure {
    fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Scenario(e) => scenario_err(py, &e),
            Failure::Py(e) => e,
        }
    }
}

/// Runs calibration points on the engine (`scenario::load::Runner`).
struct EngineRunner<'py> {
    py: Python<'py>,
    base_dir: PathBuf,
    jobs: Option<usize>,
    log: Option<Bound<'py, PyAny>>,
    before_runs: Option<Bound<'py, PyAny>>,
}

/// Panic payload that unwinds a run out of the engine after Ctrl-C; caught in `run_point`.
struct Stopped;

/// Measures one run: wire bytes after the warm-up of two links (`LinkRow`s, as the `links`
/// table holds them).
struct LinkTap {
    names: [String; 2],
    warmup_ns: u64,
    /// Per link: bytes of the rows ending after the warm-up, and the last row's end.
    seen: [(u64, u64); 2],
}

impl metrics::Observer for LinkTap {
    fn on_link_row(&mut self, r: metrics::LinkRow) {
        if r.t_ns <= self.warmup_ns {
            return;
        }
        for (name, seen) in self.names.iter().zip(self.seen.iter_mut()) {
            if r.link == *name {
                seen.0 += r.bytes;
                seen.1 = seen.1.max(r.t_ns);
            }
        }
    }
}

impl LinkTap {
    /// Wire bit/s of link `i` over the rows after the warm-up (0 without any).
    fn bps(&self, i: usize) -> f64 {
        let (bytes, last) = self.seen[i];
        let span_s = last.saturating_sub(self.warmup_ns) as f64 / 1e9;
        if last == 0 || span_s <= 0.0 {
            0.0
        } else {
            bytes as f64 * 8.0 / span_s
        }
    }
}

/// A point's (forward, reverse) bit/s, the engine's error, or None when stopped.
type PointResult = Option<Result<(f64, f64), sim::SimError>>;

/// (forward, reverse) bit/s of one calibration run; `links`: the parking lot's measured
/// links (None: the dumbbell's bottleneck). Stops early when `stop` is set.
fn run_point(
    exp: &sim::Experiment,
    links: &Option<(String, String)>,
    stop: &AtomicBool,
) -> PointResult {
    let names = match links {
        Some((f, r)) => [f.clone(), r.clone()],
        None => [String::new(), "bottleneck_rev".to_string()],
    };
    let tap = LinkTap {
        names,
        warmup_ns: exp.warmup.as_nanos(),
        seen: [(0, 0); 2],
    };
    let mut progress = |_: units::SimTime, _: units::SimTime| {
        if stop.load(Ordering::Relaxed) {
            resume_unwind(Box::new(Stopped));
        }
    };
    let end = match catch_unwind(AssertUnwindSafe(|| sim::run_with(exp, &mut progress, tap))) {
        Ok(Ok(end)) => end,
        Ok(Err(e)) => return Some(Err(e)),
        Err(payload) if payload.is::<Stopped>() => return None,
        Err(payload) => resume_unwind(payload),
    };
    let reverse = end.obs.bps(1);
    let forward = match links {
        Some(_) => end.obs.bps(0),
        None => {
            // The run summary's kb_per_s × 8000, as Python read it.
            let secs = end.totals.measured_ns as f64 / 1e9;
            let kb_per_s = if secs > 0.0 {
                end.totals.fwd_bytes as f64 / 1000.0 / secs
            } else {
                0.0
            };
            kb_per_s * 8000.0
        }
    };
    Some(Ok((forward, reverse)))
}

/// How often the main thread checks for Ctrl-C while points run.
const SIGNAL_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

impl load::Runner for EngineRunner<'_> {
    type Error = Failure;

    fn run(
        &mut self,
        docs: Vec<toml::Table>,
        links: Option<(String, String)>,
        label: &str,
    ) -> Result<Vec<(f64, f64)>, Failure> {
        let mut exps = Vec::with_capacity(docs.len());
        for doc in docs {
            let mut named = scenario::parse_document(doc, label, &self.base_dir)?;
            let mut exp = named.remove(0).experiment;
            exp.monitor.pcap.clear(); // a calibration run keeps no packet captures
            exps.push(exp);
        }
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = self.jobs.unwrap_or(cpus).clamp(1, exps.len().max(1));
        let next = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let results: Mutex<Vec<PointResult>> = Mutex::new(vec![None; exps.len()]);
        let interrupted = self.py.allow_threads(|| {
            std::thread::scope(|scope| {
                for _ in 0..workers {
                    scope.spawn(|| {
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= exps.len() || stop.load(Ordering::Relaxed) {
                                break;
                            }
                            let r = run_point(&exps[i], &links, &stop);
                            if matches!(r, Some(Err(_))) {
                                stop.store(true, Ordering::Relaxed); // the others are not wanted
                            }
                            results.lock().expect("no worker panics holding it")[i] = r;
                        }
                        finished.fetch_add(1, Ordering::Release);
                    });
                }
                let mut interrupted = None;
                while finished.load(Ordering::Acquire) < workers {
                    std::thread::sleep(SIGNAL_CHECK);
                    if interrupted.is_none() {
                        if let Err(e) = Python::with_gil(|py| py.check_signals()) {
                            stop.store(true, Ordering::Relaxed);
                            interrupted = Some(e);
                        }
                    }
                }
                interrupted
            })
        });
        if let Some(e) = interrupted {
            return Err(Failure::Py(e));
        }
        let results = results.into_inner().expect("workers have ended");
        let mut out = Vec::with_capacity(results.len());
        for r in results.into_iter().flatten() {
            out.push(r.map_err(|e| Failure::Py(sim_err(self.py, &e)))?);
        }
        Ok(out)
    }

    fn before_runs(&mut self, cache_dir: &Path) -> Result<(), Failure> {
        match &self.before_runs {
            None => Ok(()),
            Some(f) => f
                .call1((load::text::py_path(&cache_dir.display().to_string()),))
                .map(drop)
                .map_err(Failure::Py),
        }
    }

    fn say(&mut self, line: &str) {
        if let Some(log) = &self.log {
            // A failing logger must not lose the calibration: the line is dropped.
            let _ = log.call1((line,));
        }
    }

    fn store_failed(&mut self, path: &Path, e: std::io::Error) -> Failure {
        Failure::Py(PyOSError::new_err(format!("{}: {e}", path.display())))
    }
}

fn calibration_dict<'py>(
    py: Python<'py>,
    c: &Calibration,
    cached: bool,
    runs: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("hash", &c.hash)?;
    d.set_item("scenario", &c.scenario)?;
    d.set_item("workload", c.workload)?;
    d.set_item("kind", &c.kind)?;
    d.set_item("parameter", &c.parameter)?;
    d.set_item("direction", &c.direction)?;
    let settings = PyDict::new(py);
    if let Some(s) = &c.settings {
        settings.set_item("points", s.points.clone())?;
        settings.set_item("warmup", s.warmup.clone())?;
        settings.set_item("duration", &s.duration)?;
        settings.set_item("rate", &s.rate)?;
        settings.set_item("direction", &s.direction)?;
        settings.set_item("link", s.link.clone())?;
    }
    d.set_item("settings", settings)?;
    let points = PyList::empty(py);
    for p in &c.points {
        let pd = PyDict::new(py);
        pd.set_item("x", p.x)?;
        pd.set_item("forward_bps", p.forward_bps)?;
        pd.set_item("reverse_bps", p.reverse_bps)?;
        pd.set_item("load_bps", p.load_bps)?;
        points.append(pd)?;
    }
    d.set_item("points", points)?;
    d.set_item("slope", c.slope)?;
    d.set_item("intercept", c.intercept)?;
    d.set_item("r2", c.r2)?;
    d.set_item("max_rel_residual", c.max_rel_residual)?;
    d.set_item("date", &c.date)?;
    match &c.pilot {
        None => d.set_item("pilot", py.None())?,
        Some(p) => {
            let pd = PyDict::new(py);
            let pts: Vec<Vec<f64>> = p.points.iter().map(|(x, y)| vec![*x, *y]).collect();
            pd.set_item("points", pts)?;
            pd.set_item("slope", p.slope)?;
            pd.set_item("intercept", p.intercept)?;
            d.set_item("pilot", pd)?;
        }
    }
    d.set_item("cached", cached)?;
    d.set_item("runs", runs)?;
    d.set_item("text", c.describe())?;
    Ok(d)
}

/// The calibration cache key of the scenario document `doc` (`scenario::load::content_hash`:
/// SHA-256 hex; `label` names it in errors, data files resolve against `base_dir`) measuring
/// `direction` (and on a parking lot `link`, None: its bottleneck), for `workload` (None: the
/// one with `load`, or the only calibratable one). `ScenarioError` for a scenario that cannot
/// be calibrated.
#[pyfunction]
#[pyo3(signature = (doc, label, base_dir, direction="forward", link=None, workload=None))]
fn calibration_hash(
    py: Python<'_>,
    doc: &Bound<'_, PyDict>,
    label: &str,
    base_dir: &str,
    direction: &str,
    link: Option<&str>,
    workload: Option<i64>,
) -> PyResult<String> {
    let root = dict_table(doc, "")?;
    let sc = load::find(&root, label, Path::new(base_dir), workload)
        .map_err(|e| scenario_err(py, &e))?;
    Ok(load::content_hash(&sc, direction, link))
}

/// Whether a base `[[workload]]` of the document `doc` has `load`.
#[pyfunction]
fn has_load(doc: &Bound<'_, PyDict>) -> PyResult<bool> {
    Ok(load::has_load(&dict_table(doc, "")?))
}

/// Calibrate the scenario document `doc` (`label`, `base_dir` as `calibration_hash`): the
/// cached fit when its settings match the requested ones (arguments over the file's
/// `[calibration]` over the defaults), else run the points on the engine (`jobs` in
/// parallel), fit, store in `cache` (None: `$AQMLAB_CACHE` or `.aqmlab-cache`) and return it.
/// `force`: recompute. `log(line)` hears progress; `before_runs(cache_dir)` is called before
/// the first run (to check the cache can be written). Returns a dict: the record's fields
/// (`hash`, `scenario`, `workload`, `kind`, `parameter`, `direction`, `settings`, `points`,
/// `slope`, `intercept`, `r2`, `max_rel_residual`, `date`, `pilot`), `cached`, `runs`
/// (engine runs made) and `text` (points and fit as `aqmlab calibrate` prints them).
/// `ScenarioError` before any run for a bad scenario; `SimError` from the engine.
#[pyfunction]
#[pyo3(signature = (doc, label, base_dir, workload=None, points=None, warmup=None, duration=None,
    rate=None, direction=None, link=None, jobs=None, cache=None, force=false, log=None,
    before_runs=None))]
#[allow(clippy::too_many_arguments)]
fn calibrate<'py>(
    py: Python<'py>,
    doc: &Bound<'py, PyDict>,
    label: &str,
    base_dir: &str,
    workload: Option<i64>,
    points: Option<Vec<f64>>,
    warmup: Option<String>,
    duration: Option<String>,
    rate: Option<String>,
    direction: Option<String>,
    link: Option<String>,
    jobs: Option<usize>,
    cache: Option<PathBuf>,
    force: bool,
    log: Option<Bound<'py, PyAny>>,
    before_runs: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let root = dict_table(doc, "")?;
    let sc = load::find(&root, label, Path::new(base_dir), workload)
        .map_err(|e| scenario_err(py, &e))?;
    let overrides = Overrides {
        points,
        warmup,
        duration,
        rate,
        direction,
        link,
    };
    let mut runner = EngineRunner {
        py,
        base_dir: sc.base_dir.clone(),
        jobs,
        log,
        before_runs,
    };
    let out = load::calibrate(&sc, &overrides, cache.as_deref(), force, true, &mut runner)
        .map_err(|e| e.into_py(py))?;
    calibration_dict(py, &out.calibration, out.cached, out.runs)
}

/// Resolves `load = …` in the documents of one scenario file (`scenario::load::Resolver`):
/// `LoadResolver(base, label, base_dir, cache=None, jobs=None, log=None, before_runs=None)`
/// for the file's base document `base` (with its `[calibration]`); `resolve(doc)` returns
/// `doc` with `load` replaced by the value it resolves to and `[calibration]`, `[tune]`,
/// `[sweep]` dropped. The calibration is looked up (or computed, as `calibrate` with the
/// file's settings) once, when a document first needs it; `log` hears each value used, once.
#[pyclass(module = "aqmlab._core")]
struct LoadResolver {
    inner: Resolver,
    cache: Option<PathBuf>,
    jobs: Option<usize>,
    log: Option<Py<PyAny>>,
    before_runs: Option<Py<PyAny>>,
}

#[pymethods]
impl LoadResolver {
    #[new]
    #[pyo3(signature = (base, label, base_dir, cache=None, jobs=None, log=None, before_runs=None))]
    fn new(
        base: &Bound<'_, PyDict>,
        label: &str,
        base_dir: &str,
        cache: Option<PathBuf>,
        jobs: Option<usize>,
        log: Option<Py<PyAny>>,
        before_runs: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        Ok(LoadResolver {
            inner: Resolver::new(dict_table(base, "")?, label, Path::new(base_dir)),
            cache,
            jobs,
            log,
            before_runs,
        })
    }

    /// `doc` (a dict) with its `load` resolved (see the class).
    fn resolve<'py>(
        &mut self,
        py: Python<'py>,
        doc: &Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let t = dict_table(doc, "")?;
        let log = self.log.as_ref().map(|l| l.bind(py).clone());
        let before_runs = self.before_runs.as_ref().map(|b| b.bind(py).clone());
        let (cache, jobs) = (self.cache.clone(), self.jobs);
        let calibrate = |sc: &Calibrated| {
            let mut runner = EngineRunner {
                py,
                base_dir: sc.base_dir.clone(),
                jobs,
                log: log.clone(),
                before_runs,
            };
            let none = Overrides::default();
            load::calibrate(sc, &none, cache.as_deref(), false, false, &mut runner)
                .map(|o| o.calibration)
        };
        let mut say = |line: &str| {
            if let Some(l) = &log {
                let _ = l.call1((line,));
            }
        };
        let out = self
            .inner
            .resolve(&t, calibrate, &mut say)
            .map_err(|e| e.into_py(py))?;
        table_dict(py, &out)
    }
}
