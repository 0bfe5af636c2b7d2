//! `extends = "base.toml"`: a scenario file written as the differences from another. The base
//! file (its path relative to the directory of the file that names it) is read, its own
//! `extends` resolved first (chains), and the file's tables are deep-merged over it by the
//! variant merge rule (`merge::deep_merge`: tables merge key by key, arrays and values replace,
//! a table with another `kind`/`dist` replaces the base's). A file that extends itself, directly
//! or through others, is refused naming the chain. An error inside a base file names that file.
//!
//! Relative data files (`matrix_file`, empirical `file`) resolve against the directory of the
//! file that is run, wherever the base file lies.
//!
//! Validation: tests below (chains, cycles, the merge, errors naming the base file);
//! python/tests/test_scenario_document.py (study files written with `extends` expand to the
//! same runs, ids included).

use crate::error::ScenarioError;
use crate::merge::deep_merge;
use crate::read;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// The key naming the base file.
pub const KEY: &str = "extends";

/// `root` (of the file `label`, whose `extends` resolves against `dir`) merged over the chain of
/// files it extends; `root` itself when it has no `extends`.
pub(crate) fn resolve(root: Table, label: &str, dir: &Path) -> Result<Table, ScenarioError> {
    let mut chain: Vec<(PathBuf, String)> = Vec::new();
    if let Ok(own) = Path::new(label).canonicalize() {
        chain.push((own, label.to_string()));
    }
    resolve_in(root, label, dir, &mut chain)
}

fn resolve_in(
    mut root: Table,
    label: &str,
    dir: &Path,
    chain: &mut Vec<(PathBuf, String)>,
) -> Result<Table, ScenarioError> {
    let err = |reason: String| ScenarioError {
        file: label.to_string(),
        key: KEY.to_string(),
        reason,
    };
    let rel = match root.remove(KEY) {
        None => return Ok(root),
        Some(Value::String(s)) if !s.trim().is_empty() => s,
        Some(v) => {
            return Err(err(format!(
                "must be the path of a base scenario file, got {}",
                crate::value::describe(&v)
            )))
        }
    };
    let path = dir.join(&rel);
    let shown = path.display().to_string();
    let canon = path
        .canonicalize()
        .map_err(|e| err(format!("cannot read the base file {shown}: {e}")))?;
    if let Some(i) = chain.iter().position(|(p, _)| *p == canon) {
        let names: Vec<&str> = chain[i..].iter().map(|(_, s)| s.as_str()).collect();
        return Err(err(format!(
            "a cycle: {} → {shown} (a file cannot extend itself)",
            names.join(" → ")
        )));
    }
    chain.push((canon, shown.clone()));
    let text = read::read_text(&path)
        .map_err(|reason| err(format!("cannot read the base file {shown}: {reason}")))?;
    let base_root: Table =
        toml::from_str(&text).map_err(|e| crate::syntax_error(&e, &text).in_file(&shown))?;
    let mut base = resolve_in(base_root, &shown, &read::base_dir(&path), chain)?;
    deep_merge(&mut base, &root);
    Ok(base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("aqmlab-extends-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn doc(d: &Path, file: &str) -> Result<Table, ScenarioError> {
        let p = d.join(file);
        let text = fs::read_to_string(&p).unwrap();
        let root: Table = toml::from_str(&text).unwrap();
        resolve(root, &p.display().to_string(), d)
    }

    #[test]
    fn a_chain_merges_tables_and_replaces_arrays_and_other_kinds() {
        let d = dir("chain");
        fs::write(
            d.join("a.toml"),
            "[run]\nseed = 1\nwarmup = \"1s\"\n[queue]\nkind = \"droptail\"\nlimit = 120\n[[workload]]\nkind = \"http10\"\n",
        )
        .unwrap();
        fs::create_dir(d.join("sub")).unwrap();
        fs::write(
            d.join("sub/b.toml"),
            "extends = \"../a.toml\"\n[run]\nseed = 2\n[queue]\nlimit = 60\n",
        )
        .unwrap();
        fs::write(
            d.join("sub/c.toml"),
            "extends = \"b.toml\"\n[queue]\nkind = \"red\"\nmin_th = 5\n[[workload]]\nkind = \"mah\"\n",
        )
        .unwrap();
        let b = doc(&d.join("sub"), "b.toml").unwrap();
        assert_eq!(b["run"]["seed"].as_integer(), Some(2));
        assert_eq!(b["run"]["warmup"].as_str(), Some("1s")); // kept from a
        assert_eq!(b["queue"]["limit"].as_integer(), Some(60));
        assert_eq!(b["queue"]["kind"].as_str(), Some("droptail"));
        assert!(!b.contains_key(KEY));
        let c = doc(&d.join("sub"), "c.toml").unwrap();
        // Another kind replaces the queue table wholesale: b's limit does not leak into red.
        let q = c["queue"].as_table().unwrap();
        assert_eq!(q.len(), 2);
        assert_eq!(q["kind"].as_str(), Some("red"));
        let wl = c["workload"].as_array().unwrap();
        assert_eq!(wl.len(), 1);
        assert_eq!(wl[0]["kind"].as_str(), Some("mah"));
        assert_eq!(c["run"]["seed"].as_integer(), Some(2));
    }

    #[test]
    fn a_cycle_is_refused_naming_the_chain() {
        let d = dir("cycle");
        fs::write(d.join("x.toml"), "extends = \"y.toml\"\n").unwrap();
        fs::write(d.join("y.toml"), "extends = \"x.toml\"\n").unwrap();
        let e = doc(&d, "x.toml").unwrap_err();
        let x = d.join("x.toml").display().to_string();
        let y = d.join("y.toml").display().to_string();
        assert_eq!(e.file, y);
        assert_eq!(e.key, "extends");
        assert_eq!(
            e.reason,
            format!("a cycle: {x} → {y} → {x} (a file cannot extend itself)")
        );
        fs::write(d.join("z.toml"), "extends = \"z.toml\"\n").unwrap();
        let z = d.join("z.toml").display().to_string();
        assert_eq!(
            doc(&d, "z.toml").unwrap_err().reason,
            format!("a cycle: {z} → {z} (a file cannot extend itself)")
        );
    }

    #[test]
    fn a_missing_or_broken_base_names_its_file() {
        let d = dir("missing");
        fs::write(d.join("m.toml"), "extends = \"nope.toml\"\n").unwrap();
        let e = doc(&d, "m.toml").unwrap_err();
        assert_eq!(e.key, "extends");
        assert!(
            e.reason.starts_with("cannot read the base file "),
            "{}",
            e.reason
        );
        fs::write(d.join("bad.toml"), "[run]\nseed = = 1\n").unwrap();
        fs::write(d.join("n.toml"), "extends = \"bad.toml\"\n").unwrap();
        let e = doc(&d, "n.toml").unwrap_err();
        assert_eq!(e.file, d.join("bad.toml").display().to_string());
        assert_eq!(e.key, "line 2, column 8");
        fs::write(d.join("o.toml"), "extends = 3\n").unwrap();
        assert_eq!(
            doc(&d, "o.toml").unwrap_err().reason,
            "must be the path of a base scenario file, got the integer 3"
        );
    }
}
