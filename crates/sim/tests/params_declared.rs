//! The topology declarations (`sim::topology::params`) are the one source: the tables of
//! `docs/topologies.md` are what they render now, and every key has a doc and a source.
//!
//! After editing a declaration: `AQMLAB_WRITE_DOCS=1 cargo test -p sim --test params_declared`
//! rewrites the generated blocks.

use declare::table::{check_current, markdown};
use declare::Declared;
use sim::topology::params::{CLOUD, DUMBBELL, PARKING_LOT};
use std::path::PathBuf;

#[test]
fn docs_are_generated_from_the_declarations() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/topologies.md");
    let tables = [
        ("dumbbell", markdown(&DUMBBELL), DUMBBELL.params()),
        ("parking_lot", markdown(&PARKING_LOT), PARKING_LOT.params()),
        ("cloud", markdown(&CLOUD), CLOUD.params()),
    ];
    let block = |what: &str| {
        let kind = what.strip_prefix("params ")?;
        tables.iter().find(|t| t.0 == kind).map(|t| t.1.clone())
    };
    let want = check_current(&path, &block, "cargo test -p sim --test params_declared");
    for (kind, table, params) in &tables {
        assert!(want.contains(&format!("<!-- generated: params {kind} -->\n{table}")));
        for p in params {
            assert!(
                !p.doc.is_empty() && !p.source.is_empty(),
                "{kind}.{}",
                p.key
            );
        }
    }
    // Required keys are shown as required, defaults as written.
    assert!(tables[0]
        .1
        .contains("| `clients` | integer | hosts | required |"));
    assert!(tables[1]
        .1
        .contains("| `routers` | integer | routers | 8 | ≥ 2 |"));
}
