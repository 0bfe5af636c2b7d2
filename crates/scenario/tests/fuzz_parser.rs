//! Fuzzing the scenario parser (issue 15) as property tests on stable `cargo test` (proptest,
//! fixed seed 15 unless `PROPTEST_RNG_SEED` is set; `PROPTEST_CASES` sets the number of inputs,
//! the long run of `docs/testing.md` uses 1,000,000 in release mode).
//!
//! - `arbitrary_text`: TOML-like text made of tokens (table headers, keys of the scenario
//!   format, `=`, numbers, unit strings, booleans, arrays, inline tables, line breaks, stray
//!   bytes) and arbitrary strings.
//! - `mutated_scenarios`: the shipped scenarios (scenarios/*.toml, */*.toml, embedded at build
//!   time) with lines deleted, duplicated, swapped, cut, or a value replaced by a hostile one
//!   (negative, zero, huge, NaN, inf, a unit of another kind, another type).
//!
//! Every input must give `Ok` or a `ScenarioError` whose `FILE: KEY: reason` text is one line
//! with a non-empty key and reason — never a panic. (The whole loader runs: parsing,
//! validation, the run-size budget; data files resolve against the scenario's directory.)

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// Inputs per target in `cargo test` (debug, each well under 20 s); `PROPTEST_CASES` overrides.
const CI_CASES: u32 = 10_000;

fn config() -> Config {
    let mut c = Config::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        c.cases = CI_CASES;
    }
    if std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        c.rng_seed = RngSeed::Fixed(15);
    }
    c
}

/// The shipped scenarios: (path, text).
fn shipped() -> &'static [(PathBuf, String)] {
    use std::sync::OnceLock;
    static FILES: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("scenarios/") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "toml") {
                    let text = std::fs::read_to_string(&p).expect("scenario text");
                    files.push((p, text));
                }
            }
        }
        files.sort();
        assert!(files.len() >= 20, "{} scenarios", files.len());
        files
    })
}

fn check(text: &str, base: &Path) -> Result<(), TestCaseError> {
    if let Err(e) = scenario::parse_str(text, "fuzz.toml", base) {
        let line = e.to_string();
        prop_assert!(
            !line.contains('\n') && !line.contains('\r'),
            "two lines: {line:?}"
        );
        prop_assert!(line.starts_with("fuzz.toml: "), "{line:?}");
        prop_assert!(!e.key.is_empty() && !e.reason.is_empty(), "{line:?}");
    }
    Ok(())
}

const TOKENS: &[&str] = &[
    "[run]",
    "[topology]",
    "[queue]",
    "[reverse_queue]",
    "[tcp]",
    "[[workload]]",
    "[[variant]]",
    "[topology.delaybox]",
    "[monitor]",
    "[topology.clouds.a]",
    "[topology.link_queue]",
    "seed",
    "warmup",
    "duration",
    "kind",
    "clients",
    "servers",
    "access_rate",
    "access_delay",
    "bottleneck_rate",
    "bottleneck_delay",
    "limit",
    "min_th",
    "max_th",
    "w_q",
    "max_p",
    "rate",
    "users",
    "flows",
    "request_size",
    "response_size",
    "dist",
    "mean",
    "min",
    "max",
    "shape",
    "name",
    "queue",
    "rtt",
    "matrix",
    "file",
    "variant",
    "routers",
    "link_rate",
    "target",
    "\"droptail\"",
    "\"red\"",
    "\"pie\"",
    "\"fq_codel\"",
    "\"dumbbell\"",
    "\"parking_lot\"",
    "\"http10\"",
    "\"mah\"",
    "\"bulk\"",
    "\"cbr\"",
    "\"poisson\"",
    "\"uniform\"",
    "\"constant\"",
    "\"bounded_pareto\"",
    "\"empirical\"",
    "\"10Mbps\"",
    "\"1e30Gbps\"",
    "\"-5ms\"",
    "\"0s\"",
    "\"1min\"",
    "\"nans\"",
    "\"1500B\"",
    "\"1e400KB\"",
    "\"1/512\"",
    "\"1/0\"",
    " = ",
    "=",
    ".",
    ",",
    "{",
    "}",
    "[",
    "]",
    "\n",
    "\n",
    "\n",
    " ",
    "0",
    "1",
    "-1",
    "120",
    "3.5",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "9223372036854775807",
    "18446744073709551616",
    "true",
    "false",
    "\"\"",
    "'",
    "\"",
    "#",
    "\\",
    "\u{0}",
    "é",
    "\"\\n\"",
];

fn token_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            9 => prop::sample::select(TOKENS).prop_map(str::to_string),
            1 => ".{0,12}",
        ],
        0..120,
    )
    .prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_text(text in token_text()) {
        check(&text, Path::new("."))?;
    }
}

const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "-0.5",
    "1e30",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "18446744073709551616",
    "4000000000",
    "0.000001",
    "true",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "[1, 2]",
    "{ dist = \"constant\" }",
    "\"1e30s\"",
    "\"1e30Mbps\"",
    "\"1e30B\"",
    "\"-10ms\"",
    "\"0Mbps\"",
    "\"0B\"",
    "\"5Mbps\"",
    "\"5ms\"",
    "\"5B\"",
    "\"1e-30s\"",
    "\"nanms\"",
    "\"infGbps\"",
    "\"1/0\"",
    "\"0/0\"",
    "\"droptail\"",
    "\"red\"",
    "\"nosuch\"",
    "{ dist = \"uniform\", min = \"5ms\", max = \"1ms\" }",
    "{ dist = \"bounded_pareto\", shape = 0, min = \"1KB\", max = \"2MB\" }",
    "{ dist = \"lognormal\", mu = 1e300, sigma = 1e300 }",
    "{ dist = \"empirical\", file = \"/nonexistent.csv\" }",
    "{ dist = \"exponential\", mean = \"-1s\" }",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Cut(usize),
    Value(usize, &'static str),
    UnknownKey(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let at = any::<prop::sample::Index>().prop_map(|i| i.index(1 << 20));
    prop_oneof![
        2 => at.clone().prop_map(Mutation::Delete),
        1 => at.clone().prop_map(Mutation::Duplicate),
        1 => (at.clone(), at.clone()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        1 => at.clone().prop_map(Mutation::Cut),
        6 => (at.clone(), prop::sample::select(HOSTILE)).prop_map(|(i, v)| Mutation::Value(i, v)),
        1 => at.prop_map(Mutation::UnknownKey),
    ]
}

fn apply(text: &str, ms: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in ms {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match *m {
            Mutation::Delete(i) => {
                lines.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::Swap(a, b) => lines.swap(a % n, b % n),
            Mutation::Cut(i) => {
                let l = &mut lines[i % n];
                let cut = l
                    .char_indices()
                    .nth(i % (l.chars().count() + 1))
                    .map_or(l.len(), |(k, _)| k);
                l.truncate(cut);
            }
            Mutation::Value(i, v) => {
                // The value of the i-th `key = value` line (or inline-table entry) replaced.
                let with_value: Vec<usize> = (0..n).filter(|&k| lines[k].contains(" = ")).collect();
                if let Some(&k) = with_value.get(i % with_value.len().max(1)) {
                    let l = &lines[k];
                    let eqs: Vec<usize> = l.match_indices(" = ").map(|(p, _)| p).collect();
                    let at = eqs[i % eqs.len()] + 3;
                    let rest = &l[at..];
                    // Up to the end of this value: the next `,` or `}` at depth 0, or the line's end.
                    let mut depth = 0i32;
                    let mut in_str = false;
                    let mut end = rest.len();
                    for (p, c) in rest.char_indices() {
                        match c {
                            '"' => in_str = !in_str,
                            '[' | '{' if !in_str => depth += 1,
                            ']' | '}' if !in_str && depth > 0 => depth -= 1,
                            ',' | '}' | '#' if !in_str && depth == 0 => {
                                end = p;
                                break;
                            }
                            _ => {}
                        }
                    }
                    let tail = rest[end..].to_string();
                    lines[k] = format!(
                        "{}{v}{}{tail}",
                        &l[..at],
                        if tail.is_empty() { "" } else { " " }
                    );
                }
            }
            Mutation::UnknownKey(i) => lines.insert(i % (n + 1), "bogus_key = 1".into()),
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_scenarios(file in any::<prop::sample::Index>(), ms in prop::collection::vec(mutation(), 1..4)) {
        let files = shipped();
        let (path, text) = &files[file.index(files.len())];
        let mutated = apply(text, &ms);
        check(&mutated, path.parent().expect("a directory"))?;
    }
}

#[test]
fn regression_an_empty_key_is_named() {
    // Found by `arbitrary_text` (1,000,000 inputs): `"" = "droptail"` gave `fuzz.toml: : unknown
    // key`; the key path now quotes it.
    let e = scenario::parse_str("\"\" = \"droptail\"\n", "fuzz.toml", Path::new(".")).unwrap_err();
    assert_eq!(e.key, "\"\"");
    assert!(
        e.to_string()
            .starts_with("fuzz.toml: \"\": unknown key; expected one of: run,"),
        "{e}"
    );
    let e = scenario::parse_str("[run]\n\"seed \" = 1\n", "fuzz.toml", Path::new(".")).unwrap_err();
    assert_eq!(e.key, "run.\"seed \"");
}

#[test]
fn a_value_mutation_replaces_exactly_one_value() {
    let text = "[queue]\nkind = \"red\"\nq = { a = 1, b = [1, 2], c = \"x\" } # note\n";
    assert_eq!(
        apply(text, &[Mutation::Value(1, "9")]),
        "[queue]\nkind = \"red\"\nq = { a = 9 , b = [1, 2], c = \"x\" } # note\n"
    );
    assert_eq!(
        apply(text, &[Mutation::Value(0, "-1")]),
        "[queue]\nkind = -1\nq = { a = 1, b = [1, 2], c = \"x\" } # note\n"
    );
}
