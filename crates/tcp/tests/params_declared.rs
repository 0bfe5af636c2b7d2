//! The `[tcp]` declaration (`tcp::params::MODEL`) is the one source: the TCP table of
//! `docs/tcp.md` is what it renders now, every key is documented with a source, defaults are
//! valid, every profile sets declared keys only and gives a valid configuration, and each key's
//! declared default is `TcpConfig::default()`'s.
//!
//! After editing the declaration: `AQMLAB_WRITE_DOCS=1 cargo test -p tcp --test params_declared`
//! rewrites the generated block.

use declare::table::{check_current, markdown};
use declare::{Declared, Value};
use std::path::PathBuf;
use tcp::params::MODEL;
use tcp::TcpConfig;

#[test]
fn docs_table_is_generated_from_the_declaration() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/tcp.md");
    let block = |what: &str| (what == "params tcp").then(|| markdown(&MODEL));
    let want = check_current(&path, &block, "cargo test -p tcp --test params_declared");
    assert!(want.contains(&format!(
        "<!-- generated: params tcp -->\n{}",
        markdown(&MODEL)
    )));
    for p in MODEL.params() {
        assert!(!p.doc.is_empty() && !p.source.is_empty(), "{}", p.key);
    }
}

#[test]
fn defaults_and_profiles_are_valid_and_declared() {
    assert_eq!(MODEL.assemble(&[], None).unwrap(), TcpConfig::default());
    let keys = MODEL.keys();
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), keys.len(), "a key declared twice");
    for prof in MODEL.profiles() {
        let c = MODEL.assemble(&[], Some(prof.name)).unwrap();
        assert_ne!(c, TcpConfig::default(), "{} changes nothing", prof.name);
        for s in prof.sets {
            let p = MODEL.params().into_iter().find(|p| p.key == s.key);
            let p = p.unwrap_or_else(|| panic!("{}: {} undeclared", prof.name, s.key));
            // Each override is a value of the key's own kind.
            let same_kind = matches!(
                (p.default, s.value),
                (Value::Num(_), Value::Num(_))
                    | (Value::Int(_), Value::Int(_))
                    | (Value::Bool(_), Value::Bool(_))
                    | (Value::Duration(_), Value::Duration(_))
                    | (Value::Unset, Value::Duration(_))
                    | (Value::Choice(_), Value::Choice(_))
            );
            assert!(same_kind, "{}: {} = {:?}", prof.name, s.key, s.value);
        }
    }
}

#[test]
fn every_profile_override_changes_the_configuration() {
    // Each override alone is valid and reaches a field.
    for prof in MODEL.profiles() {
        for s in prof.sets {
            let c = MODEL.assemble(&[(s.key, s.value)], None);
            let c = c.unwrap_or_else(|e| panic!("{} {}: {e}", prof.name, s.key));
            // A profile may restate a default (freebsd's initial_window 2: the host's value,
            // whatever the default becomes); any other value must reach a field.
            let info = MODEL.params().into_iter().find(|p| p.key == s.key).unwrap();
            if info.default != s.value {
                assert_ne!(
                    c,
                    TcpConfig::default(),
                    "{} {} reaches no field",
                    prof.name,
                    s.key
                );
            }
        }
    }
}
