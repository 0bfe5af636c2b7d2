//! Calibrating a scenario (docs/calibration.md): use the cached fit for its content hash when
//! its settings match (or, for `load`, whatever they were), else run the points, fit, store.
//! Points are given, or placed from two pilot runs (`points::auto_points`). This crate runs
//! nothing: the engine runs come from the caller's [`Runner`] (crates/py runs them in
//! parallel), which gets the points' documents.

use super::calibrated::Calibrated;
use super::hash::content_hash;
use super::points::{point_doc, sorted_distinct};
use super::record::{self, Calibration, Pilot, Point};
use super::settings::{Overrides, Settings};
use super::text::{fixed, g, py_path};
use crate::error::{KeyError, ScenarioError};
use crate::sweep::canonical::py_float;
use std::path::Path;
use toml::Value;

/// Above this utilization of the calibration link a point is not "unconstrained".
pub const MAX_CALIBRATION_UTILIZATION: f64 = 0.5;

/// What runs a calibration's points.
pub trait Runner {
    type Error: From<ScenarioError>;
    /// (forward, reverse) offered load, bit/s, of each document (in order), run after the
    /// warm-up; `links`: the parking lot's (forward, reverse) measured links (None: the
    /// dumbbell's bottleneck); `label` names the runs in errors.
    fn run(
        &mut self,
        docs: Vec<toml::Table>,
        links: Option<(String, String)>,
        label: &str,
    ) -> Result<Vec<(f64, f64)>, Self::Error>;
    /// Called once before the first run with the cache directory (check it can be written).
    fn before_runs(&mut self, cache_dir: &Path) -> Result<(), Self::Error>;
    /// A progress line.
    fn say(&mut self, line: &str);
    /// The calibration could not be stored at `path`.
    fn store_failed(&mut self, path: &Path, e: std::io::Error) -> Self::Error;
}

/// A calibration and how it was obtained.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub calibration: Calibration,
    /// Read from the cache.
    pub cached: bool,
    /// Engine runs made (pilots included).
    pub runs: usize,
}

/// Calibrate `sc` with `overrides` over its `[calibration]`. `cache`: the cache root (None:
/// `$AQMLAB_CACHE` or `.aqmlab-cache`); `force`: recompute; `strict`: a stored calibration
/// is used only if computed with the same settings (`aqmlab calibrate`), else whatever they
/// were (`load`).
pub fn calibrate<R: Runner>(
    sc: &Calibrated,
    overrides: &Overrides,
    cache: Option<&Path>,
    force: bool,
    strict: bool,
    runner: &mut R,
) -> Result<Outcome, R::Error> {
    let file = sc.file.as_str();
    let s = sc.settings.over(overrides).map_err(|e| e.in_file(file))?;
    s.check(sc.parking_lot, sc.routers)
        .map_err(|e| e.in_file(file))?;
    let hash = content_hash(sc, &s.direction, s.link.as_deref());
    let dir = record::cache_dir(cache);
    let path = dir.join(format!("{hash}.json"));
    let shown = py_path(&path.display().to_string());
    if !force {
        if let Some(c) = record::read(&path) {
            if !strict || c.settings.as_ref() == Some(&s) {
                runner.say(&format!("calibration: using {shown}"));
                return Ok(Outcome {
                    calibration: c,
                    cached: true,
                    runs: 0,
                });
            }
        }
    }
    validate(sc, &s)?;
    runner.before_runs(&dir)?;
    let label = format!("{file} (calibration run)");
    let links = sc.links(s.link.as_deref());
    let place = where_text(sc, &s);
    let p = sc.parameter;
    let mut runs = 0;
    let mut pilot = None;
    let xs = match &s.points {
        Some(points) => {
            let mut xs: Vec<f64> = points.iter().map(|x| p.point(*x)).collect();
            sorted_distinct(&mut xs);
            xs
        }
        None => {
            let x0 = p.pilot();
            let x1 = p.point(2.0 * x0);
            let x0_text = if p.whole() {
                format!("{}", x0 as i64)
            } else {
                py_float(x0)
            };
            runner.say(&format!(
                "calibration: pilot runs at {} = {x0_text}, {} on {place}",
                p.key(),
                g(x1, 6)
            ));
            let docs = vec![point_doc(sc, &s, x0), point_doc(sc, &s, x1)];
            let m = runner.run(docs, links.clone(), &label)?;
            runs += 2;
            let (y0, y1) = (load_of(m[0], &s.direction), load_of(m[1], &s.direction));
            if y1.is_nan() || y1 <= 0.0 {
                let e = KeyError::new(
                    format!("workload[{}]", sc.workload),
                    format!(
                        "the pilot run at {} = {} offered no load",
                        p.key(),
                        g(x1, 6)
                    ),
                );
                return Err(e.in_file(file).into());
            }
            let (u, b, xs) = super::points::auto_points(sc, x0, y0, x1, y1);
            pilot = Some(Pilot {
                points: [(x0, y0), (x1, y1)],
                slope: u,
                intercept: b,
            });
            xs
        }
    };
    let xs_text: Vec<String> = xs.iter().map(|x| g(*x, 6)).collect();
    runner.say(&format!(
        "calibration: {} runs of {} + {} on {place}, {} = {}",
        xs.len(),
        s.warmup.as_deref().unwrap_or("the scenario warm-up"),
        s.duration,
        p.key(),
        xs_text.join(", ")
    ));
    let docs = xs.iter().map(|x| point_doc(sc, &s, *x)).collect();
    let measured = runner.run(docs, links, &label)?;
    runs += xs.len();
    let points: Vec<Point> = xs
        .iter()
        .zip(&measured)
        .map(|(x, m)| Point {
            x: *x,
            forward_bps: m.0,
            reverse_bps: m.1,
            load_bps: load_of(*m, &s.direction),
        })
        .collect();
    let ys: Vec<f64> = points.iter().map(|p| p.load_bps).collect();
    let fit = super::fit::fit_line(&xs, &ys).expect("at least two distinct points");
    if fit.slope.is_nan() || fit.slope <= 0.0 {
        let e = KeyError::new(
            format!("workload[{}].{}", sc.workload, p.key()),
            format!(
                "offered load does not grow with {} (fitted slope {} bit/s per unit)",
                p.key(),
                g(fit.slope, 6)
            ),
        );
        return Err(e.in_file(file).into());
    }
    let kind = workload_kind(sc);
    let c = Calibration {
        hash,
        scenario: file.to_string(),
        workload: sc.workload as i64,
        kind,
        parameter: p.key().into(),
        direction: s.direction.clone(),
        settings: Some(s.clone()),
        points,
        slope: fit.slope,
        intercept: fit.intercept,
        r2: fit.r2,
        max_rel_residual: fit.max_rel_residual,
        date: record::utc_now(),
        pilot,
    };
    let cal_bps = s.rate_bps().map_err(|e| e.in_file(file))?;
    let top = c
        .points
        .iter()
        .map(|p| p.forward_bps.max(p.reverse_bps))
        .fold(f64::NEG_INFINITY, f64::max)
        / cal_bps;
    if top > MAX_CALIBRATION_UTILIZATION {
        runner.say(&format!(
            "calibration: warning: the top point uses {} % of the {} calibration link, so it is \
             not unconstrained; use a faster --rate or fewer points",
            fixed(100.0 * top, 0),
            s.rate
        ));
    }
    record::store(&c, &path).map_err(|e| runner.store_failed(&path, e))?;
    runner.say(&format!("calibration: stored {shown}"));
    Ok(Outcome {
        calibration: c,
        cached: false,
        runs,
    })
}

/// The scenario itself (at the pilot value) and its calibration run parse, before anything
/// runs; errors name the scenario file.
fn validate(sc: &Calibrated, s: &Settings) -> Result<(), ScenarioError> {
    let x = sc.parameter.pilot();
    let mut own = super::resolve::without_language_tables(&sc.doc);
    super::points::set_parameter(&mut own, sc, x);
    crate::parse_document(own, &sc.file, &sc.base_dir)?;
    let label = format!("{} (calibration run)", sc.file);
    crate::parse_document(point_doc(sc, s, x), &label, &sc.base_dir)?;
    Ok(())
}

fn workload_kind(sc: &Calibrated) -> String {
    let w = sc
        .doc
        .get("workload")
        .and_then(Value::as_array)
        .and_then(|a| a.get(sc.workload))
        .and_then(|w| w.get("kind"));
    match w {
        Some(Value::String(k)) => k.clone(),
        Some(v) => crate::sweep::canonical::py_repr(v),
        None => "None".into(),
    }
}

/// The measured direction's load of (forward, reverse).
fn load_of(m: (f64, f64), direction: &str) -> f64 {
    match direction {
        "reverse" => m.1,
        "both" => (m.0 + m.1) / 2.0,
        _ => m.0,
    }
}

/// Where a calibration measures, in words.
fn where_text(sc: &Calibrated, s: &Settings) -> String {
    match sc.links(s.link.as_deref()) {
        None => format!("a {} bottleneck", s.rate),
        Some((f, r)) => format!("{} router links, measured on {f} (reverse {r})", s.rate),
    }
}
