//! The workload declarations (`traffic::workload::params`) are the one source: the tables of
//! `docs/workloads.md` are what they render now, every key has a doc and a source, and no key is
//! declared twice.
//!
//! After editing a declaration: `AQMLAB_WRITE_DOCS=1 cargo test -p traffic --test params_declared`
//! rewrites the generated blocks.

use declare::table::{check_current, markdown};
use std::path::PathBuf;
use traffic::workload::params::{model, models};

#[test]
fn docs_are_generated_from_the_declarations() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/workloads.md");
    let block = |what: &str| model(what.strip_prefix("params ")?).map(markdown);
    let want = check_current(
        &path,
        &block,
        "cargo test -p traffic --test params_declared",
    );
    for m in models() {
        let table = markdown(*m);
        assert!(
            want.contains(&format!("<!-- generated: params {} -->\n{table}", m.kind())),
            "docs/workloads.md has no table for {}",
            m.kind()
        );
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
            assert!(table.contains(&format!("| `{}` |", p.key)));
        }
    }
}
