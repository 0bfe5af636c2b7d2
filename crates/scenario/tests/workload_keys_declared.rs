//! The scenario parser accepts exactly the declared keys of the declared workload kinds
//! (`traffic::workload::params::models()`): each declared key, written as the docs show its
//! default (or a valid sample where it has none), parses; an undeclared key is refused with
//! the declared ones; a required key left out is named.

mod fixture;
use declare::table::value_text;
use declare::{Syntax, Value};
use scenario::parse_str;
use std::path::Path;
use traffic::workload::params::models;

/// The fixture's workload replaced by `table`.
fn parse(table: &str) -> Result<traffic::WorkloadConfig, scenario::ScenarioError> {
    let base = fixture::BASE;
    let i = base.find("[[workload]]").unwrap();
    let text = format!("{}[[workload]]\n{table}\n", &base[..i]);
    let mut v = parse_str(&text, "w.toml", Path::new("."))?;
    Ok(v.remove(0).experiment.workloads.remove(0))
}

/// The required keys of each kind, with a valid value.
fn required(kind: &str) -> &'static str {
    match kind {
        "mah" => "users = 3",
        "packmime" => "rate = 10.0",
        "pareto_web" => "flows = 2",
        "cbr" => "rate = \"1Mbps\"",
        _ => "rate = \"1Mbps\"\non_time = \"1s\"\noff_time = \"2s\"",
    }
}

fn sample(syntax: Syntax, default: Value) -> String {
    match (syntax, default) {
        (Syntax::Duration, Value::Unset) => "\"100s\"".into(),
        (_, Value::Unset) => "1".into(),
        (s, v) => value_text(v, s),
    }
}

#[test]
fn every_declared_key_parses() {
    for m in models() {
        let base = format!("kind = \"{}\"\n{}", m.kind(), required(m.kind()));
        let plain = parse(&base).unwrap_or_else(|e| panic!("{}: {e}", m.kind()));
        for p in m.params() {
            if base.contains(&format!("{} =", p.key)) {
                continue;
            }
            let mut table = format!("{base}\n{} = {}", p.key, sample(p.syntax, p.default));
            if p.key == "zipf_exponent" {
                table += "\nserver_choice = \"zipf\"";
            }
            let got = parse(&table).unwrap_or_else(|e| panic!("`{table}` refused: {e}"));
            // A key written as its default changes nothing.
            if p.default != Value::Unset && p.key != "zipf_exponent" {
                assert_eq!(got, plain, "{table}");
            }
        }
    }
}

#[test]
fn only_declared_keys_are_accepted_and_required_keys_are_named() {
    for m in models() {
        let e = parse(&format!(
            "kind = \"{}\"\n{}\nno_such_key = 1",
            m.kind(),
            required(m.kind())
        ))
        .unwrap_err();
        assert_eq!(e.key, "workload[0].no_such_key");
        assert_eq!(
            e.reason,
            format!(
                "unknown key; expected one of: kind, {}",
                m.keys().join(", ")
            )
        );
        let e = parse(&format!("kind = \"{}\"", m.kind())).unwrap_err();
        assert_eq!(e.reason, "missing required key", "{}", m.kind());
    }
}
