//! Queue-discipline parameter declarations: every discipline declares each of its scenario keys
//! once, in a `MODEL` next to its params struct (key, how it is written, unit, valid range,
//! one-line doc, source, and which field it sets). The mechanics are the `declare` crate's,
//! shared with the TCP model; this module fixes what a queue model hands on
//! ([`DisciplineParams`]) and re-exports the rest, so a discipline file says `Model<RedParams>`.
//!
//! Everything else reads the declarations: the scenario parser (`crates/scenario/src/queue/mod.rs`:
//! kind dispatch only), each model's `validate`, the `ns2` profiles, `aqmlab params KIND`, the
//! default search ranges and the generated tables of `docs/queue-disciplines.md` and
//! `docs/scenarios.md` ([`crate::params_table`]).
//!
//! Validation: `crates/aqm/tests/params_declared.rs` (every declared key accepted, every accepted
//! key declared, docs current) and each discipline's own tests.

use crate::discipline::DisciplineParams;

pub use declare::{
    bound, check_ranges, default_search, Access, Declared, FieldValue, KeyRule, Param, ParamError,
    ParamInfo, Profile, ProfileSet, Range, Search, Syntax, Value,
};

/// A queue discipline's complete declaration (see [`declare::Model`]).
pub type Model<P> = declare::Model<P, DisciplineParams>;

/// Any queue discipline's declaration, behind one object type.
pub type QueueModel = dyn Declared<DisciplineParams>;
