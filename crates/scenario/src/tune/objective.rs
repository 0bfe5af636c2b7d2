//! What a tune optimises and under which constraints: `objectives = ["min COL", "max COL"]` and
//! `constraints = ["COL >= NUMBER", "COL <= NUMBER"]`, COL a column of a run's summary.json
//! (or an extra column of `aqmlab tune --metrics STUDY`).
//! Both are computed on the mean over a trial's replications.
//!
//! Validation: `tests.rs`; python/tests/test_tune_spec.py checks `SUMMARY_COLUMNS` against the
//! summary.json of a run.

use super::range::is_decimal;
use crate::error::{KeyError, Res};
use crate::sweep::canonical::py_str;

/// The columns of summary.json (`crates/metrics/src/summary.rs`, `Summary`), in its order.
pub const SUMMARY_COLUMNS: [&str; 50] = [
    "measured_s",
    "kb_per_s",
    "utilization",
    "drops_pct",
    "aqm_drops_pct",
    "overflow_drops_pct",
    "unforced_pct",
    "forced_pct",
    "marks",
    "arrivals",
    "drops",
    "drops_aqm",
    "drops_overflow",
    "mean_qlen",
    "max_qlen",
    "responses_started",
    "responses_completed",
    "pct_completed",
    "steady_state",
    "in_progress_first_tenth",
    "in_progress_last_tenth",
    "forced_drops_first_tenth",
    "forced_drops_last_tenth",
    "median_rt_ms",
    "p10_rt_ms",
    "p25_rt_ms",
    "p75_rt_ms",
    "p90_rt_ms",
    "p95_rt_ms",
    "p99_rt_ms",
    "pct_le_1s",
    "pct_1_2s",
    "pct_2_3s",
    "pct_gt_3s",
    "mean_rt_ms_of_completed",
    "median_rt_ms_of_completed",
    "p10_rt_ms_of_completed",
    "p25_rt_ms_of_completed",
    "p75_rt_ms_of_completed",
    "p90_rt_ms_of_completed",
    "p95_rt_ms_of_completed",
    "p99_rt_ms_of_completed",
    "pct_le_1s_of_completed",
    "pct_1_2s_of_completed",
    "pct_2_3s_of_completed",
    "pct_gt_3s_of_completed",
    "syn_retx",
    "fin_retx",
    "data_retx",
    "timeouts",
];

/// One objective: a summary column, minimised or maximised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Objective {
    pub column: String,
    pub maximize: bool,
}

impl Objective {
    /// `minimize` or `maximize` (Optuna's direction).
    pub fn direction(&self) -> &'static str {
        if self.maximize {
            "maximize"
        } else {
            "minimize"
        }
    }

    /// `min COL` / `max COL`, as the reports name it.
    pub fn label(&self) -> String {
        format!(
            "{} {}",
            if self.maximize { "max" } else { "min" },
            self.column
        )
    }
}

/// One constraint: `column <= bound` (`at_most`) or `column >= bound`, on the trial's mean.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    pub column: String,
    pub at_most: bool,
    pub bound: f64,
    /// As written, without surrounding spaces.
    pub text: String,
}

impl Constraint {
    /// `<=` or `>=`.
    pub fn op(&self) -> &'static str {
        if self.at_most {
            "<="
        } else {
            ">="
        }
    }

    /// How far the mean `v` is on the wrong side of the bound (≤ 0: satisfied); infinite for a
    /// value not measured (NaN or None).
    pub fn violation(&self, v: Option<f64>) -> f64 {
        match v {
            Some(v) if !v.is_nan() => {
                if self.at_most {
                    v - self.bound
                } else {
                    self.bound - v
                }
            }
            _ => f64::INFINITY,
        }
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// `column` must be a summary column or one of `extra` (`--metrics` columns).
fn column_check(key: &str, column: &str, extra: &[String]) -> Res<()> {
    if SUMMARY_COLUMNS.contains(&column) || extra.iter().any(|e| e == column) {
        return Ok(());
    }
    let what = match extra.is_empty() {
        true => "a summary column",
        false => "a summary or --metrics column",
    };
    let known: Vec<&str> = SUMMARY_COLUMNS
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
        .collect();
    Err(KeyError::new(
        key,
        format!(
            "{}: not {what} (columns: {})",
            py_str(column),
            known.join(", ")
        ),
    ))
}

/// `"min median_rt_ms"` (also `minimize`, `max`, `maximize`).
pub(crate) fn parse_objective(text: &str, extra: &[String]) -> Res<Objective> {
    let key = "tune.objectives";
    let bad = || {
        KeyError::new(
            key,
            format!("{}: want \"min COLUMN\" or \"max COLUMN\"", py_str(text)),
        )
    };
    let t = text.trim();
    let (word, column) = t.split_once(char::is_whitespace).ok_or_else(bad)?;
    let column = column.trim_start();
    let maximize = match word {
        "min" | "minimize" => false,
        "max" | "maximize" => true,
        _ => return Err(bad()),
    };
    if !is_ident(column) {
        return Err(bad());
    }
    column_check(key, column, extra)?;
    Ok(Objective {
        column: column.to_string(),
        maximize,
    })
}

/// `"utilization >= 0.8"` (or `<=`).
pub(crate) fn parse_constraint(text: &str, extra: &[String]) -> Res<Constraint> {
    let key = "tune.constraints";
    let bad = || {
        KeyError::new(
            key,
            format!(
                "{}: want \"COLUMN >= NUMBER\" or \"COLUMN <= NUMBER\"",
                py_str(text)
            ),
        )
    };
    let t = text.trim();
    let at = t
        .find("<=")
        .into_iter()
        .chain(t.find(">="))
        .min()
        .ok_or_else(bad)?;
    let (column, number) = (t[..at].trim_end(), t[at + 2..].trim_start());
    let unsigned = number.strip_prefix(['+', '-']).unwrap_or(number);
    if !is_ident(column) || !is_decimal(unsigned) {
        return Err(bad());
    }
    column_check(key, column, extra)?;
    Ok(Constraint {
        column: column.to_string(),
        at_most: &t[at..at + 2] == "<=",
        bound: number.parse().map_err(|_| bad())?,
        text: t.to_string(),
    })
}
