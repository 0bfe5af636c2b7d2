//! Errors of the scenario loader: the public [`ScenarioError`] (file, key path, reason) and the
//! crate-internal [`KeyError`] (key path, reason) that every parser returns before the file label
//! is known to it.
//!
//! Key paths are dotted TOML paths with array indices, e.g. `workload[1].response_size.shape`;
//! inside a variant they start with `variant[<name>]` (see `merge.rs`).

use std::fmt;

/// A scenario rejected before anything runs: which file, which key, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file as the caller named it (`load`: the path; `parse_str`: the label).
    pub file: String,
    /// Dotted key path, e.g. `variant[red].queue.min_th`; a position (`line 3, column 7`) for
    /// TOML syntax errors.
    pub key: String,
    pub reason: String,
}

impl fmt::Display for ScenarioError {
    /// `FILE: KEY: reason` on one line: a line break inside any part (a quoted value or key as
    /// the user wrote it) is shown as `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            one_line(&self.file),
            one_line(&self.key),
            one_line(&self.reason)
        )
    }
}

/// `s` with carriage returns and line feeds escaped (`\r`, `\n`).
fn one_line(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\n', '\r']) {
        s.replace('\r', "\\r").replace('\n', "\\n").into()
    } else {
        s.into()
    }
}

impl std::error::Error for ScenarioError {}

/// An error at a key path, before the file label is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeyError {
    pub key: String,
    pub reason: String,
}

impl KeyError {
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Self {
        KeyError {
            key: key.into(),
            reason: reason.into(),
        }
    }

    pub fn in_file(self, file: &str) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            key: self.key,
            reason: self.reason,
        }
    }
}

pub(crate) type Res<T> = Result<T, KeyError>;

/// `parent.child`, or `child` at the top level; a key that is not a TOML bare key (empty, or
/// with characters other than `A-Za-z0-9_-`) is quoted, `""` or `"a b"`, so the path is never
/// blank or ambiguous (an empty key gave `FILE: : unknown key`, found by
/// tests/fuzz_parser.rs).
pub(crate) fn join(parent: &str, child: &str) -> String {
    let bare = !child.is_empty()
        && child
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    let child = if bare {
        child.to_string()
    } else {
        format!("{child:?}")
    };
    if parent.is_empty() {
        child
    } else {
        format!("{parent}.{child}")
    }
}

/// `parent[i]`.
pub(crate) fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_are_not_bare_are_quoted() {
        assert_eq!(join("", "queue"), "queue");
        assert_eq!(join("queue", "min_th"), "queue.min_th");
        assert_eq!(join("", ""), "\"\"");
        assert_eq!(join("queue", "limit "), "queue.\"limit \"");
        assert_eq!(join("topology.clouds", "a.b"), "topology.clouds.\"a.b\"");
    }

    #[test]
    fn display_is_one_line() {
        let e = ScenarioError {
            file: "f.toml".into(),
            key: "queue.\"a\nb\"".into(),
            reason: "\"10\r\nMbps\": expected a rate".into(),
        };
        assert_eq!(
            e.to_string(),
            "f.toml: queue.\"a\\nb\": \"10\\r\\nMbps\": expected a rate"
        );
    }
}
