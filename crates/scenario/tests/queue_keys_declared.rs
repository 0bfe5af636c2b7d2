//! The scenario parser accepts exactly the declared queue keys (`aqm::models()`): each declared
//! key, written as its default is shown in the docs, parses to the discipline's default; and a
//! key that is not declared is refused with the list of the declared ones.

mod fixture;
use aqm::params_table::value_text;
use aqm::{models, Syntax, Value};
use fixture::edit;
use scenario::parse_str;
use std::path::Path;

const QUEUE: &str = "kind = \"droptail\"\nlimit = 100";

fn queue_of(table: &str) -> Result<aqm::DisciplineParams, scenario::ScenarioError> {
    let text = edit(&[(QUEUE, table)]);
    let mut v = parse_str(&text, "keys.toml", Path::new("."))?;
    match v.remove(0).experiment.topology {
        sim::Topology::Dumbbell(d) => Ok(d.forward_queue),
        other => panic!("the fixture is a dumbbell, got {other:?}"),
    }
}

/// A TOML value for `key`: its default, or for an unset optional key a valid sample.
fn sample(syntax: Syntax, default: Value) -> String {
    match (syntax, default) {
        (Syntax::Integer(_), Value::Unset) => "1".into(),
        (Syntax::DurationOrOff(_), Value::Unset) => "\"100ms\"".into(),
        (_, Value::Unset) => "0.1".into(),
        (s, v) => value_text(v, s),
    }
}

#[test]
fn every_declared_key_parses() {
    for m in models() {
        let ecn = m.keys().contains(&"ecn");
        let default = m.assemble(&[], None).unwrap();
        for p in m.params() {
            let mut table = format!(
                "kind = \"{}\"\n{} = {}",
                m.kind(),
                p.key,
                sample(p.syntax, p.default)
            );
            // ECN rules need ECN on.
            if ecn && p.key != "ecn" {
                table += "\necn = true";
            }
            let got =
                queue_of(&table).unwrap_or_else(|e| panic!("{}: `{table}` refused: {e}", m.kind()));
            if p.default != Value::Unset && !ecn {
                assert_eq!(got, default, "{}.{}", m.kind(), p.key);
            }
        }
    }
}

#[test]
fn only_declared_keys_are_accepted() {
    for m in models() {
        let e = queue_of(&format!("kind = \"{}\"\nno_such_key = 1", m.kind())).unwrap_err();
        assert_eq!(e.key, "queue.no_such_key");
        assert_eq!(
            e.reason,
            format!(
                "unknown key; expected one of: kind, {}",
                m.keys().join(", ")
            )
        );
    }
}
