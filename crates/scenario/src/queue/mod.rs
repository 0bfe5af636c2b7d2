//! Queue tables (`[queue]`, `[reverse_queue]`, `topology.access_queue`, `link_queue.*`) →
//! `aqm::DisciplineParams`. This file knows the structure of a queue table only: `kind`
//! dispatch; the keys are read by `declared.rs` from the `MODEL` of each
//! `crates/aqm/src/<kind>.rs`, where every key, default, unit, range, rule and profile is declared
//! once.
//!
//! To add a discipline: its `MODEL` in aqm and its line in `aqm::models()`; nothing here.
//!
//! Validation: `tests.rs` here, `tests/bad_files.rs`, and aqm's `tests/params_declared.rs`
//! (every declared key parses, every accepted key is declared).

use crate::error::{KeyError, Res};
use crate::value::{kind, Tbl};
use aqm::{model, models, DisciplineParams, LinkInfo};

#[cfg(test)]
mod tests;

/// Every `kind` a queue table may name.
pub(crate) fn kinds() -> Vec<&'static str> {
    models().iter().map(|m| m.kind()).collect()
}

/// Parse a queue table (without validating against a link; see [`check`]).
pub(crate) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    let k = kind(t, "kind", &kinds())?;
    let m = model(k).expect("a listed kind is declared");
    crate::declared::parse(t, m, &["kind"])
}

/// Validate `p` as the discipline of a link with `link`'s rate and delay; errors under `path`.
pub(crate) fn check(p: &DisciplineParams, link: LinkInfo, path: &str) -> Res<()> {
    p.build(link)
        .map(|_| ())
        .map_err(|e| KeyError::new(crate::error::join(path, &e.key), e.reason))
}
