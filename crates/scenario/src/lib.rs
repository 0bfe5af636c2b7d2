//! Scenario files (TOML) → validated experiments. This crate runs nothing: it parses, checks
//! every key and value, and rejects a mistake with the file, the key path and the reason
//! (ARCHITECTURE.md "Clear errors") before any run starts.
//!
//! Entry points: [`load`] (a file; relative data files resolve against its directory) and
//! [`parse_str`] (text plus a label for messages and a base directory). Both return one
//! [`NamedExperiment`] per `[[variant]]`, or one named after the file stem ("base" when the
//! label has no usable stem) when there are no variants.
//!
//! Read before editing: `value.rs` (typed getters that carry key paths), `merge.rs` (variant
//! merge and error attribution). Schema, one part per file: `experiment.rs` (top level, `[run]`,
//! `[monitor]`), `extends.rs` (a file written over a base file), `topology.rs` (+ `[queue]`,
//! `[reverse_queue]`), `queue/mod.rs`, `tcp.rs`,
//! `workload.rs`, `dist.rs`; `load = …` and `[calibration]`, `load/`; `[sweep]` expansion (key
//! paths, derived values, run ids), `sweep/`; the `[tune]` search space (ranges, conditions,
//! declared defaults, trials → scenarios), `tune/`; the one TOML writer, `write.rs`; reading files
//! with a size bound, `read.rs`; the run-size limits (events, memory) are the engine's cost model,
//! `experiment::budget`. A TOML syntax error is reported with key `line L, column C`, an
//! unreadable scenario file with key `(file)`.
//!
//! Validation: unit tests in each file; `tests/full_scenario.rs` (exact values of a full file
//! and of `scenarios/quickstart.toml`), `tests/bad_files.rs` (one test per rejected mistake).

mod declared;
mod dist;
mod error;
mod experiment;
pub mod extends;
pub mod load;
mod merge;
mod queue;
pub mod read;
pub mod sweep;
mod tcp;
mod topology;
pub mod tune;
mod value;
mod workload;
pub mod workload_keys;
pub mod write;

pub use error::ScenarioError;

use error::KeyError;
use std::path::Path;

/// One experiment of a scenario file, with the name its results directory gets.
#[derive(Clone, Debug)]
pub struct NamedExperiment {
    pub name: String,
    pub experiment: ::experiment::Experiment,
}

/// Load and validate the scenario file at `path` (`-`: standard input), read once with a bound
/// (`read::read_text`).
pub fn load(path: &Path) -> Result<Vec<NamedExperiment>, ScenarioError> {
    let label = path.display().to_string();
    let text = read::read_text(path).map_err(|reason| ScenarioError {
        file: label.clone(),
        key: "(file)".into(),
        reason: format!("cannot read the file: {reason}"),
    })?;
    parse_str(&text, &label, &read::base_dir(path))
}

/// Parse and validate scenario `text`; `file_label` names it in errors and gives the default
/// experiment name (its stem); data files resolve against `base_dir`.
pub fn parse_str(
    text: &str,
    file_label: &str,
    base_dir: &Path,
) -> Result<Vec<NamedExperiment>, ScenarioError> {
    let root = document(text, file_label, base_dir)?;
    parse_root(root, &default_name(file_label), base_dir).map_err(|e| e.in_file(file_label))
}

/// The document of scenario `text` (named `file_label` in errors) as the rest of the language
/// sees it: parsed once, in file order, with `extends` resolved against `base_dir`
/// (`extends.rs`); not yet checked. Python reads scenarios only through this
/// (`aqmlab._core.scenario_document`).
pub fn document(
    text: &str,
    file_label: &str,
    base_dir: &Path,
) -> Result<toml::Table, ScenarioError> {
    let root: toml::Table =
        toml::from_str(text).map_err(|e| syntax_error(&e, text).in_file(file_label))?;
    extends::resolve(root, file_label, base_dir)
}

/// Each experiment's document before it is checked: the base `root` with one `[[variant]]`'s
/// tables merged in by the variant rule (`merge.rs`), named as [`parse_str`] names the
/// experiments (the default name from `file_label` when there are no variants). The merge rule
/// is written once, here; Python asks for it through `aqmlab._core.variant_documents`.
pub fn variant_documents(
    mut root: toml::Table,
    file_label: &str,
) -> Result<Vec<(String, toml::Table)>, ScenarioError> {
    match merge::take_variants(&mut root).map_err(|e| e.in_file(file_label))? {
        None => Ok(vec![(default_name(file_label), root)]),
        Some(variants) => Ok(variants
            .iter()
            .map(|v| {
                let mut doc = root.clone();
                merge::deep_merge(&mut doc, &v.overrides);
                (v.name.clone(), doc)
            })
            .collect()),
    }
}

/// The experiments of the document `root` (as [`parse_str`] gives them for text; `file_label`
/// names it in errors); the calibration runs of `load` are documents, not text.
pub fn parse_document(
    root: toml::Table,
    file_label: &str,
    base_dir: &Path,
) -> Result<Vec<NamedExperiment>, ScenarioError> {
    parse_root(root, &default_name(file_label), base_dir).map_err(|e| e.in_file(file_label))
}

fn parse_root(
    mut root: toml::Table,
    default_name: &str,
    base_dir: &Path,
) -> Result<Vec<NamedExperiment>, KeyError> {
    match merge::take_variants(&mut root)? {
        None => Ok(vec![NamedExperiment {
            name: default_name.to_string(),
            experiment: experiment::build(&root, base_dir)?,
        }]),
        Some(variants) => variants
            .iter()
            .map(|v| {
                let mut doc = root.clone();
                merge::deep_merge(&mut doc, &v.overrides);
                let experiment =
                    experiment::build(&doc, base_dir).map_err(|e| merge::attribute(e, v))?;
                Ok(NamedExperiment {
                    name: v.name.clone(),
                    experiment,
                })
            })
            .collect(),
    }
}

/// The label's file stem if it is a valid directory name, else "base"; "stdin" for standard
/// input (`-`, as `/dev/stdin` gives).
fn default_name(label: &str) -> String {
    if label == read::STDIN {
        return "stdin".to_string();
    }
    match Path::new(label).file_stem().and_then(|s| s.to_str()) {
        Some(stem) if merge::valid_name(stem) => stem.to_string(),
        _ => "base".to_string(),
    }
}

pub(crate) fn syntax_error(e: &toml::de::Error, text: &str) -> KeyError {
    let key = match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let before = text.get(..start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}")
        }
        None => "(syntax)".to_string(),
    };
    // The parser's message may span lines ("invalid table header\nexpected `.`, `]`"): one line.
    let message: Vec<&str> = e
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    KeyError::new(key, format!("TOML syntax error: {}", message.join(": ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names() {
        assert_eq!(default_name("scenarios/quickstart.toml"), "quickstart");
        assert_eq!(default_name(""), "base");
        assert_eq!(default_name("<inline>"), "base");
        assert_eq!(default_name("-"), "stdin");
        assert_eq!(default_name("/dev/stdin"), "stdin");
    }

    #[test]
    fn variant_documents_merge_by_the_variant_rule() {
        let root: toml::Table = toml::from_str(
            "[queue]\nkind = \"droptail\"\nlimit = 120\n[topology.delaybox]\nrtt = \"10ms\"\n\
             [[variant]]\nname = \"dt60\"\nqueue = { limit = 60 }\n\
             [[variant]]\nname = \"red\"\nqueue = { kind = \"red\", min_th = 5 }\n\
             topology = { delaybox = { matrix_file = \"m.csv\" } }\n",
        )
        .unwrap();
        let docs = variant_documents(root, "f.toml").unwrap();
        let names: Vec<&str> = docs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["dt60", "red"]);
        let q = |i: usize| docs[i].1["queue"].as_table().unwrap().clone();
        assert_eq!(q(0)["kind"].as_str(), Some("droptail")); // same kind: merged key by key
        assert_eq!(q(0)["limit"].as_integer(), Some(60));
        assert_eq!(q(1).len(), 2); // another kind: the base's limit does not leak in
        assert_eq!(q(1)["min_th"].as_integer(), Some(5));
        let dbox = docs[1].1["topology"]["delaybox"].as_table().unwrap();
        assert_eq!(dbox.keys().collect::<Vec<_>>(), ["matrix_file"]); // rtt dropped
        assert!(docs.iter().all(|(_, d)| !d.contains_key("variant")));
        let plain: toml::Table = toml::from_str("[run]\nseed = 1\n").unwrap();
        let one = variant_documents(plain, "dir/plain.toml").unwrap();
        assert_eq!(one[0].0, "plain");
        let dup: toml::Table =
            toml::from_str("[[variant]]\nname = \"a\"\n[[variant]]\nname = \"a\"\n").unwrap();
        let e = variant_documents(dup, "f.toml").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str()),
            ("f.toml", "variant[1].name")
        );
    }

    #[test]
    fn syntax_error_has_position() {
        let e = parse_str("[run]\nseed = = 1\n", "f.toml", Path::new(".")).unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.key.as_str()),
            ("f.toml", "line 2, column 8")
        );
        assert!(e.reason.starts_with("TOML syntax error"), "{}", e.reason);
    }

    #[test]
    fn syntax_error_is_one_line() {
        // The toml crate says "invalid table header\nduplicate key ..." (found by the mutation
        // test, python/tests/test_mutations.py).
        let e = parse_str("[queue]\n[queue]\n", "f.toml", Path::new(".")).unwrap_err();
        assert_eq!(e.key, "line 2, column 1");
        assert!(!e.reason.contains('\n'), "{:?}", e.reason);
        assert!(
            e.reason
                .starts_with("TOML syntax error: invalid table header: duplicate key"),
            "{}",
            e.reason
        );
    }
}
