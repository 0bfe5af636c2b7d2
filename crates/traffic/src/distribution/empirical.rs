//! Empirical distributions: a table of (value, cumulative probability) points, sampled by inverse
//! CDF with linear interpolation between points (ns-2 `RandomVariable/Empirical` with
//! `interpolation_ 1`, reference/mah/MAH-MODEL.md [S5]). The CDF is piecewise linear: a first
//! point with cdf > 0 is an atom (mass cdf₀ at the first value); equal values with rising cdf are
//! an atom at that value; equal cdfs with rising values are a gap with no mass.
//!
//! CSV form: a header line naming the columns, then one point per line. The columns are found
//! by name, in any order: `value` (or `value_UNIT`, e.g. `value_bytes`) and `cdf`, or `value`
//! and `count` (a frequency per value: the CDF is the running sum of the counts over their
//! total), or all three (the Mah tables in `data/mah/`, `value_bytes,count,cdf`: the cdf is
//! used). A header naming anything else (`value,cdf,x`), or no header, is an error naming the
//! columns: a table read by position would silently take a wrong column (issue 30). Blank lines
//! and `#` comments (whole line or trailing) are ignored. Values are plain numbers (bytes or
//! seconds), finite and ≥ 0, non-decreasing; cdf in [0, 1], non-decreasing, the last within
//! 1e-6 of 1 (the tolerance of the scenario loader); counts finite and ≥ 0, not all 0. Errors
//! name the 1-based line number of the file and the reason.
//!
//! Validation: `distribution::tests` — `inverse_cdf_*` (hand-picked u, atoms, gaps), `empirical_mean_*`,
//! `csv_*` (headers in any order, counts, comments, errors naming the line and the columns).

use std::path::Path;

/// Largest allowed distance of the last cdf from 1 (matches `scenario`'s loader).
pub(crate) const CDF_END_TOLERANCE: f64 = 1e-6;

/// An empirical distribution given by CDF points (value, cumulative probability), sampled by
/// inverse-CDF with linear interpolation between points.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// (value, cdf) pairs, value ascending, cdf non-decreasing ending at 1.
    pub points: Vec<(f64, f64)>,
}

/// The value whose CDF is `u` (u in [0, 1)): with points (vᵢ, cᵢ), the first i with cᵢ > u gives
/// v = vᵢ₋₁ + (u − cᵢ₋₁)/(cᵢ − cᵢ₋₁)·(vᵢ − vᵢ₋₁); u < c₀ gives v₀ (the atom at the first value);
/// u ≥ the last cdf gives the last value. Empty table → 0.
pub(crate) fn inverse_cdf(points: &[(f64, f64)], u: f64) -> f64 {
    if points.is_empty() {
        return 0.0;
    }
    match points.partition_point(|&(_, c)| c <= u) {
        0 => points[0].0,
        i if i == points.len() => points[i - 1].0,
        i => {
            let (v0, c0) = points[i - 1];
            let (v1, c1) = points[i];
            // c1 > u ≥ c0, so c1 − c0 > 0.
            v0 + (u - c0) / (c1 - c0) * (v1 - v0)
        }
    }
}

/// Check that point `(v, p)` may follow `prev`; the reason names no location (callers add it).
fn check_point(prev: Option<(f64, f64)>, v: f64, p: f64) -> Result<(), String> {
    if !(v.is_finite() && v >= 0.0) {
        return Err(format!("value {v} must be a finite number ≥ 0"));
    }
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("cdf {p} must lie in [0, 1]"));
    }
    if let Some((pv, pp)) = prev {
        if v < pv {
            return Err(format!("values must be non-decreasing ({v} after {pv})"));
        }
        if p < pp {
            return Err(format!(
                "CDF must be non-decreasing and end at 1 ({p} after {pp})"
            ));
        }
    }
    Ok(())
}

fn check_end(last: Option<(f64, f64)>) -> Result<(), String> {
    match last {
        None => Err("CDF has no points".to_string()),
        Some((_, p)) if (p - 1.0).abs() > CDF_END_TOLERANCE => Err(format!(
            "CDF must be non-decreasing and end at 1 (ends at {p})"
        )),
        Some(_) => Ok(()),
    }
}

/// Where a table's columns are, from its header.
struct Columns {
    /// Number of columns.
    width: usize,
    /// Index of the value column.
    value: usize,
    /// Index of the cdf column, or of the count column when `counts`.
    weight: usize,
    /// Whether `weight` is a count (no cdf column).
    counts: bool,
}

impl Columns {
    /// The columns named by `header`: `value` (or `value_UNIT`) with `cdf`, `count` or both,
    /// each once, nothing else.
    fn from_header(header: &[&str]) -> Result<Columns, String> {
        let find = |want: &dyn Fn(&str) -> bool| {
            let at: Vec<usize> = (0..header.len()).filter(|&i| want(header[i])).collect();
            at
        };
        let is_value = |c: &str| c == "value" || c.starts_with("value_");
        let value = find(&is_value);
        let cdf = find(&|c: &str| c == "cdf");
        let count = find(&|c: &str| c == "count");
        let known = value.len() + cdf.len() + count.len();
        let ok = value.len() == 1
            && cdf.len() <= 1
            && count.len() <= 1
            && !(cdf.is_empty() && count.is_empty())
            && known == header.len();
        if !ok {
            return Err(format!(
                "the header names the columns {:?}; expected value,cdf or value,count (in any \
                 order; `value` may be `value_UNIT`), or value,count,cdf",
                header.join(",")
            ));
        }
        Ok(match cdf.first() {
            Some(&c) => Columns {
                width: header.len(),
                value: value[0],
                weight: c,
                counts: false,
            },
            None => Columns {
                width: header.len(),
                value: value[0],
                weight: count[0],
                counts: true,
            },
        })
    }
}

/// Replace each row's count by the running sum of the counts over their total (the CDF at that
/// value: a count is the mass at its value).
fn counts_to_cdf(rows: &mut [(usize, f64, f64)]) -> Result<(), String> {
    for &(lineno, _, c) in rows.iter() {
        if !(c.is_finite() && c >= 0.0) {
            return Err(format!(
                "line {lineno}: count {c} must be a finite number ≥ 0"
            ));
        }
    }
    let total: f64 = rows.iter().map(|r| r.2).sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(format!(
            "the counts must add up to a finite number > 0, got {total}"
        ));
    }
    let mut run = 0.0;
    for r in rows.iter_mut() {
        run += r.2;
        r.2 = run / total;
    }
    Ok(())
}

impl EmpiricalCdf {
    /// Check the table; the reason names the 0-based point index.
    pub fn validate(&self) -> Result<(), String> {
        let mut prev = None;
        for (i, &(v, p)) in self.points.iter().enumerate() {
            check_point(prev, v, p).map_err(|e| format!("point {i}: {e}"))?;
            prev = Some((v, p));
        }
        check_end(prev)
    }

    /// Exact mean of the piecewise-linear CDF: the atom c₀·v₀, plus each segment's mass times its
    /// midpoint, plus any mass left above the last cdf (≤ 1e-6) at the last value.
    pub fn mean(&self) -> f64 {
        let Some(&(v0, c0)) = self.points.first() else {
            return 0.0;
        };
        let mut m = c0 * v0;
        for w in self.points.windows(2) {
            let ((va, ca), (vb, cb)) = (w[0], w[1]);
            m += (cb - ca) * 0.5 * (va + vb);
        }
        let &(vn, cn) = self.points.last().expect("non-empty");
        m + (1.0 - cn).max(0.0) * vn
    }

    /// Parse CSV text (see the module doc). Errors read `line N: reason`.
    pub fn from_csv_str(text: &str) -> Result<EmpiricalCdf, String> {
        let mut columns: Option<Columns> = None;
        // (line, value, cdf or count) per data line.
        let mut rows: Vec<(usize, f64, f64)> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let lineno = n + 1;
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            let bad = |why: String| format!("line {lineno}: {why}");
            let Some(cols) = &columns else {
                columns = Some(Columns::from_header(&fields).map_err(bad)?);
                continue;
            };
            if fields.len() != cols.width {
                return Err(bad(format!(
                    "expected {} columns as the header names, found {}",
                    cols.width,
                    fields.len()
                )));
            }
            let num = |i: usize| fields[i].parse::<f64>().ok();
            let (Some(v), Some(p)) = (num(cols.value), num(cols.weight)) else {
                return Err(bad(format!("{line:?} is not numbers")));
            };
            rows.push((lineno, v, p));
        }
        let Some(cols) = columns else {
            return Err("no data lines".to_string());
        };
        if rows.is_empty() {
            return Err("no data lines".to_string());
        }
        if cols.counts {
            counts_to_cdf(&mut rows)?;
        }
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(rows.len());
        for &(lineno, v, p) in &rows {
            check_point(points.last().copied(), v, p).map_err(|e| format!("line {lineno}: {e}"))?;
            points.push((v, p));
        }
        let last_line = rows.last().map_or(0, |r| r.0);
        check_end(points.last().copied()).map_err(|e| format!("line {last_line}: {e}"))?;
        Ok(EmpiricalCdf { points })
    }

    /// Read and parse a CSV file; errors read `<path>: line N: reason` or `cannot read <path>: …`.
    pub fn from_path(path: impl AsRef<Path>) -> Result<EmpiricalCdf, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_csv_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}
