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
    // Each override is valid beside the profile's own variant (hystart = true needs CUBIC)
    // and reaches a field.
    for prof in MODEL.profiles() {
        for s in prof.sets {
            let base: Vec<_> = prof
                .sets
                .iter()
                .filter(|x| x.key == "variant" && s.key != "variant")
                .map(|x| (x.key, x.value))
                .collect();
            let without = MODEL.assemble(&base, None).unwrap();
            let mut given = base.clone();
            given.push((s.key, s.value));
            let c = MODEL.assemble(&given, None);
            let c = c.unwrap_or_else(|e| panic!("{} {}: {e}", prof.name, s.key));
            // A profile may restate a default (freebsd's initial_window 2: the host's value,
            // whatever the default becomes); any other value must reach a field.
            let info = MODEL.params().into_iter().find(|p| p.key == s.key).unwrap();
            if info.default != s.value {
                assert_ne!(c, without, "{} {} reaches no field", prof.name, s.key);
            }
        }
    }
}

#[test]
fn hystart_given_true_needs_a_cubic_variant() {
    let bool_ = |k, v| (k, Value::Bool(v));
    let choice = |k, v| (k, Value::Choice(v));
    // Given with BBR or the default NewReno: refused at hystart, naming the variant.
    for (given, variant) in [
        (
            vec![bool_("hystart", true), choice("variant", "bbr")],
            "bbr",
        ),
        (vec![bool_("hystart", true)], "newreno"),
        (
            vec![bool_("hystart", true), choice("variant", "reno")],
            "reno",
        ),
    ] {
        let e = MODEL.assemble(&given, None).unwrap_err();
        assert_eq!(e.key, "hystart");
        assert_eq!(
            e.reason,
            format!("HyStart is CUBIC's (variant \"{variant}\")")
        );
    }
    // With BBR the linux profile's own HyStart is not an error (it never runs), nor is
    // hystart = false given, nor CUBIC given or from the profile.
    let c = MODEL
        .assemble(&[choice("variant", "bbr")], Some("linux"))
        .unwrap();
    assert_eq!(c.variant, tcp::Variant::Bbr);
    MODEL
        .assemble(&[bool_("hystart", false), choice("variant", "bbr")], None)
        .unwrap();
    for v in ["cubic", "cubic_sack"] {
        let c = MODEL
            .assemble(&[bool_("hystart", true), choice("variant", v)], None)
            .unwrap();
        assert!(c.hystart);
    }
    assert!(
        MODEL
            .assemble(&[bool_("hystart", true)], Some("linux"))
            .unwrap()
            .hystart
    );
}
