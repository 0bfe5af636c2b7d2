//! The queue disciplines' parameter tables, rendered from the declarations ([`crate::params`])
//! by the `declare` crate's table code: markdown for `docs/queue-disciplines.md` and
//! `docs/scenarios.md` (between `<!-- generated: … -->` markers, kept current by
//! `crates/aqm/tests/params_declared.rs`), and plain text for `aqmlab params KIND`.

use crate::discipline::{model, models};
use crate::params::QueueModel;

pub use declare::table::{range_text, syntax_text, value_text};

/// The markdown table of one discipline's keys and its profiles.
pub fn markdown(m: &QueueModel) -> String {
    declare::table::markdown(m)
}

/// The kinds overview of `docs/scenarios.md`: each kind, what it is, its keys.
pub fn readme_markdown() -> String {
    let mut out = "| kind | discipline | keys |\n|---|---|---|\n".to_string();
    for m in models() {
        let keys: Vec<String> = m.params().iter().map(|p| format!("`{}`", p.key)).collect();
        let mut keys = keys.join(", ");
        for prof in m.profiles() {
            keys += &format!("; `profile = \"{}\"`", prof.name);
        }
        out += &format!("| `{}` | {} | {} |\n", m.kind(), m.title(), keys);
    }
    out
}

/// An aligned plain-text table of `kind`'s keys (for `aqmlab params KIND`), or `None`.
pub fn text(kind: &str) -> Option<String> {
    model(kind).map(declare::table::text)
}

/// The queue blocks of a generated document: `params KIND` is KIND's table, `queue kinds` the
/// kinds overview (`docs/scenarios.md`); other blocks are not the queues' (None).
pub fn block(what: &str) -> Option<String> {
    match what.strip_prefix("params ") {
        Some(kind) => model(kind).map(markdown),
        None if what == "queue kinds" => Some(readme_markdown()),
        None => None,
    }
}

/// Replace the body of every queue block of `doc` ([`block`]) with its current table; other
/// blocks are left as they are.
pub fn regenerate(doc: &str) -> String {
    declare::table::regenerate(doc, &block)
}
