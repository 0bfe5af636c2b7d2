//! Parameter declarations: every model (a queue discipline, the TCP endpoint, …) declares each of
//! its scenario keys once, in a [`Model`] next to its params struct: the key, how it is written
//! ([`Syntax`]), its unit, its valid values ([`Range`]), a one-line doc, its source, and which
//! field it sets ([`Access`], usually [`field!`]). Everything else reads that declaration:
//!
//! - the scenario parser (`crates/scenario/src/declared.rs`: TOML → [`Value`] by syntax only),
//! - each model's `validate` ([`check_ranges`] plus its own cross-field rules),
//! - named profiles (`profile = "ns2"`, `"linux"`, `"freebsd"`): override tables ([`Profile`]),
//! - `aqmlab params` and the generated tables of `docs/` ([`table`]),
//! - the default search range a tuner offers for each key ([`search`]).
//!
//! Defaults are the params struct's `Default` impl (one value per field, beside the
//! declaration); tables and search ranges read that default back through each key's getter.
//!
//! Validation: `crates/aqm/tests/params_declared.rs`, `crates/tcp/tests/params_declared.rs`
//! (every declared key parses, every accepted key is declared, docs current) and the tests here.

pub mod check;
pub mod model;
pub mod param;
pub mod search;
pub mod table;
pub mod value;

pub use check::{bound, check_ranges};
pub use model::{Declared, KeyRule, Model, ParamError, Profile, ProfileSet};
pub use param::{Access, Param, ParamInfo, Range, Syntax};
pub use search::{default_search, search_text, Search};
pub use value::{Choice, FieldValue, Value};
