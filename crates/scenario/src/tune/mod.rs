//! `[tune]`: which keys of a scenario `aqmlab tune` searches, what it optimises and under which
//! constraints, parsed and checked here; the Python tuner (python/aqmlab/tuning/search.py) only asks
//! Optuna for values and tells it the results. Example (scenarios/quickstart_tune.toml):
//!
//! ```toml
//! [tune]
//! variant = "red"                    # the variant tuned (required if the file has several)
//! baselines = ["red", "droptail"]    # variants run as written, to compare against
//!                                    # (default: the tuned variant as written)
//! objectives = ["max pct_le_1s"]     # "min COL" / "max COL", COL a summary column; several
//!                                    # give a Pareto front (NSGA-II)
//! constraints = ["utilization >= 0.85"]  # "COL >= NUMBER" / "COL <= NUMBER", on the mean
//! trials = 40                        # trials in the study (all invocations together)
//! timeout = 600                      # optional: stop asking new trials after this many s
//! replications = 2                   # seeds run.seed, run.seed + 1, … for EVERY trial
//! final_replications = 6             # the finalists and baselines re-run with these seeds
//! finalists = 3                      # how many of the best trials are re-run
//! seed = 1                           # the sampler's seed (same seed, same trials)
//! batch = 4                          # trials asked together, then run in parallel
//! population = 10                    # NSGA-II population (several objectives only)
//!
//! [tune.params]                      # key path = search range (`range.rs`)
//! "queue.min_th" = { int = [5, 120], log = true }
//! "queue.w_q" = "default"            # the range the core declares (aqmlab params red)
//! "queue.target" = { duration = ["1ms", "50ms"], log = true }
//! "queue.kind" = { choice = ["red", "pie"] }
//! "queue.alpha" = { float = [0.01, 1], when = { "queue.kind" = "pie" } }  # `when.rs`
//!
//! [tune.derive]                      # computed in this order (sweep/expr.rs)
//! "queue.max_th" = "3 * queue.min_th"
//! "queue.limit" = { expr = "max(8 * queue.min_th, 120)", when = { "queue.kind" = "red" } }
//! ```
//!
//! Or `paired = ["A", "B"]` instead of `variant`: each trial runs both variants with the same
//! values and seeds, the tuned keys written into the base document (so they reach both; a key
//! A's or B's own table sets would hide it: an error); every column is the per-seed difference
//! A − B averaged over the replications (the tuner's part); the baseline is the pair as written;
//! no `constraints` or `baselines`.
//!
//! Key paths are those of sweeps (`sweep/path.rs`); with `variant` a path names a key of that
//! variant's configuration and is written into the variant's own table (`apply.rs`). Setting a
//! table's `kind` to another kind replaces the table by `{ kind = … }`. Objectives and
//! constraints are means over a trial's replications, which use the same seeds in every trial
//! (common random numbers). Every mistake is `FILE: KEY: reason` before anything runs
//! (`parse.rs`; `check.rs` has the core build the baselines and a sample trial of each choice).
//!
//! Validation: `tests.rs` (hand-computed values, every message); python/tests/test_tune_spec.py.

mod apply;
mod check;
pub mod defaults;
pub mod objective;
mod parse;
pub mod range;
pub mod when;

pub use apply::DeriveError;
pub use check::Size;
pub use objective::{Constraint, Objective, SUMMARY_COLUMNS};
pub use parse::{parse, split, Overrides};
pub use range::{Kind, Param};
pub use when::Condition;

use crate::sweep::expr::Expr;
use std::path::PathBuf;
use toml::Table;

/// The keys of a `[tune]` table.
pub const TUNE_KEYS: [&str; 15] = [
    "params",
    "derive",
    "objectives",
    "constraints",
    "trials",
    "timeout",
    "replications",
    "final_replications",
    "finalists",
    "seed",
    "variant",
    "baselines",
    "batch",
    "population",
    "paired",
];

/// One derived value: computed after the tuned ones, in file order, when its conditions hold.
#[derive(Clone, Debug)]
pub struct Derived {
    pub path: String,
    pub expr: Expr,
    pub when: Vec<Condition>,
}

/// A checked `[tune]` table with the base scenario it applies to.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The file as the caller named it (errors).
    pub file: String,
    /// Where the scenario's relative data files resolve.
    pub base_dir: PathBuf,
    /// The scenario without `[tune]`, `[sweep]` and `[calibration]`.
    pub base: Table,
    /// The tuned variant (None: the file has none, or `paired`).
    pub variant: Option<String>,
    /// The two variants of a paired search (A, B: objectives on A − B).
    pub paired: Option<[String; 2]>,
    /// Variants run as written (None: the scenario itself, a file without variants).
    pub baselines: Vec<Option<String>>,
    pub params: Vec<Param>,
    pub derive: Vec<Derived>,
    pub objectives: Vec<Objective>,
    pub constraints: Vec<Constraint>,
    pub trials: i64,
    /// Seconds after which no new trial is asked.
    pub timeout: Option<f64>,
    pub replications: i64,
    pub final_replications: i64,
    pub finalists: i64,
    /// The sampler's seed.
    pub seed: i64,
    pub batch: i64,
    pub population: i64,
    /// `run.seed` of the base (default 1): replication i runs with `run_seed + i`.
    pub run_seed: i64,
    /// Run columns besides the summary's (`aqmlab tune --metrics STUDY`).
    pub extra_columns: Vec<String>,
}

impl Spec {
    /// The seeds of `n` replications: run.seed, run.seed + 1, … (the same for every trial).
    pub fn seeds(&self, n: i64) -> Vec<i64> {
        (0..n).map(|i| self.run_seed.saturating_add(i)).collect()
    }
}

#[cfg(test)]
mod tests;
