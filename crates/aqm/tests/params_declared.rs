//! The declarations are the one source: the checked-in parameter tables of
//! `docs/queue-disciplines.md` and the kinds overview of `docs/scenarios.md` are what
//! `aqm::params_table` renders now, every declared key appears in them, and every profile
//! overrides declared keys only.
//!
//! After editing a declaration: `AQMLAB_WRITE_DOCS=1 cargo test -p aqm --test params_declared`
//! rewrites the generated blocks.

use aqm::params_table::markdown;
use aqm::{models, Value};
use declare::table::check_current;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compare (or, with AQMLAB_WRITE_DOCS=1, rewrite) the generated blocks of `rel`.
fn current(rel: &str) -> String {
    let how = "cargo test -p aqm --test params_declared";
    check_current(&root().join(rel), &aqm::params_table::block, how)
}

#[test]
fn docs_are_generated_from_the_declarations() {
    let doc = current("docs/queue-disciplines.md");
    let overview = current("docs/scenarios.md");
    for m in models() {
        assert!(
            doc.contains(&format!(
                "<!-- generated: params {} -->\n{}",
                m.kind(),
                markdown(*m)
            )),
            "docs/queue-disciplines.md has no table for {}",
            m.kind()
        );
        for p in m.params() {
            assert!(markdown(*m).contains(&format!("| `{}` |", p.key)));
            assert!(overview.contains(&format!("`{}`", p.key)), "{}", p.key);
        }
        assert!(overview.contains(&format!("| `{}` |", m.kind())));
    }
}

#[test]
fn every_kind_and_key_is_declared_once() {
    let mut kinds: Vec<_> = models().iter().map(|m| m.kind()).collect();
    kinds.sort();
    kinds.dedup();
    assert_eq!(kinds.len(), models().len());
    for m in models() {
        let keys = m.keys();
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(
            unique.len(),
            keys.len(),
            "{}: a key declared twice",
            m.kind()
        );
        for p in m.params() {
            assert!(!p.doc.is_empty() && !p.source.is_empty(), "{}", p.key);
        }
    }
}

#[test]
fn defaults_are_valid_and_profiles_set_declared_keys() {
    for m in models() {
        m.assemble(&[], None)
            .unwrap_or_else(|e| panic!("{}: default invalid: {e}", m.kind()));
        for prof in m.profiles() {
            for s in prof.sets {
                assert!(m.keys().contains(&s.key), "{}: {}", m.kind(), s.key);
            }
            let mut given = vec![];
            if m.keys().contains(&"ecn") {
                given.push(("ecn", Value::Bool(true)));
            }
            m.assemble(&given, Some(prof.name))
                .unwrap_or_else(|e| panic!("{} {}: {e}", m.kind(), prof.name));
        }
    }
}
