//! `load = …` in a base `[[workload]]` and the `[calibration]` table (docs/calibration.md).
//! A workload of a calibrated kind may give `load` (a fraction of the scenario's real
//! bottleneck rate C) instead of its size parameter; the parameter is resolved from a
//! calibration of the scenario: offered load measured against the parameter on an
//! unconstrained link, fitted to a line and cached by the scenario's content hash.
//!
//! One concept per file: `parameter.rs` (which key `load` stands for), `rate.rs` (rate
//! strings), `settings.rs` (`[calibration]`), `calibrated.rs` (reading and checking a scenario
//! for calibration), `hash.rs` (the cache key), `points.rs` (the calibration runs' documents),
//! `fit.rs` (least squares), `record.rs` (the cached JSON), `procedure.rs` (calibrating, the
//! engine runs supplied by the caller), `resolve.rs` (resolving `load`), `text.rs` (numbers
//! and paths written as Python wrote them, as messages and caches always had them).
//!
//! Validation: unit tests in each file; `tests/load_calibration.rs` (content hashes pinned from
//! the Python implementation on shipped scenarios, resolution by hand);
//! python/tests/test_calibrate.py and test_load_everywhere.py (through the engine).

mod calibrated;
mod fit;
mod hash;
mod parameter;
mod points;
mod procedure;
mod rate;
mod record;
mod resolve;
mod settings;
pub mod text;

/// Version of the cached record and of what the hash covers (2: the measured link joined the
/// hash; per-workload DelayBoxes changed what runs measure). Bump to invalidate old caches.
pub const SCHEMA: i64 = 2;

pub use calibrated::{find, Calibrated};
pub use fit::{fit_line, Fit};
pub use hash::{content_hash, LANGUAGE_TABLES};
pub use parameter::Parameter;
pub use points::{auto_points, point_doc, AUTO_FRACTIONS};
pub use procedure::{calibrate, Outcome, Runner, MAX_CALIBRATION_UTILIZATION};
pub use record::{cache_dir, Calibration, Pilot, Point};
pub use resolve::{has_load, without_language_tables, Resolver};
pub use settings::{Overrides, Settings, DIRECTIONS};
