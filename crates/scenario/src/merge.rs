//! `[[variant]]` handling: each variant is a `name` plus overrides deep-merged into the base
//! document before validation, and errors inside what a variant overrides are reported under
//! `variant[<name>]`.
//!
//! Merge rule: tables merge key by key, recursively; any other value (arrays included, so a
//! variant's `workload` replaces the whole list) replaces the base value; a table whose
//! selector (`kind` or `dist`) differs from the base table's replaces it wholesale (switching
//! `queue` from droptail to red must not inherit droptail keys); and setting one of the
//! mutually exclusive `rtt` / `matrix` / `matrix_file` drops the base's others.
//!
//! Attribution rule: an error whose key path starts with a top-level key the variant sets is
//! reported as `variant[<name>].<path>`; otherwise it is the base's and keeps its plain path.
//!
//! Names: unique, non-empty, only `[A-Za-z0-9_.-]`, not `.` or `..` (they become directories).
//!
//! Validation: tests below; `tests/full_scenario.rs` (red variant keeps the base tcp) and
//! `tests/bad_files.rs` (`duplicate_variant_names`, `red_min_th_above_max_th_in_variant`).

use crate::error::{index, KeyError, Res};
use crate::value::{as_array, as_table};
use toml::{Table, Value};

/// One variant: its name and its overrides (the table without `name`).
#[derive(Clone, Debug)]
pub(crate) struct Variant {
    pub name: String,
    pub overrides: Table,
}

/// Whether `name` may become a directory name.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// Remove `variant` from `root` and check it; `None` when there is no `variant` key.
pub(crate) fn take_variants(root: &mut Table) -> Res<Option<Vec<Variant>>> {
    let Some(v) = root.remove("variant") else {
        return Ok(None);
    };
    let list = as_array(&v, "variant")?;
    if list.is_empty() {
        return Err(KeyError::new(
            "variant",
            "empty: add [[variant]] tables or remove the key",
        ));
    }
    let mut out: Vec<Variant> = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let path = index("variant", i);
        let t = as_table(item, &path)?;
        let name = t.req_str("name")?;
        if !valid_name(name) {
            return Err(t.err(
                "name",
                format!("invalid variant name {name:?}: use only letters, digits, '_', '.', '-' (it becomes a directory name)"),
            ));
        }
        if let Some(j) = out.iter().position(|o| o.name == name) {
            return Err(t.err(
                "name",
                format!("duplicate variant name {name:?} (also variant[{j}])"),
            ));
        }
        let mut overrides = t.t.clone();
        overrides.remove("name");
        if overrides.contains_key("variant") {
            return Err(KeyError::new(
                format!("variant[{name}].variant"),
                "a variant cannot contain variants",
            ));
        }
        out.push(Variant {
            name: name.to_string(),
            overrides,
        });
    }
    Ok(Some(out))
}

/// Keys of which a table holds at most one (`topology.delaybox`).
pub(crate) const EXCLUSIVE: &[&[&str]] = &[&["rtt", "matrix", "matrix_file"]];

/// Deep-merge `over` into `base` (rule in the header).
pub(crate) fn deep_merge(base: &mut Table, over: &Table) {
    for group in EXCLUSIVE {
        if group.iter().any(|k| over.contains_key(*k)) {
            for k in group.iter().filter(|k| !over.contains_key(**k)) {
                base.remove(*k);
            }
        }
    }
    for (k, ov) in over {
        match (base.get_mut(k), ov) {
            (Some(Value::Table(bt)), Value::Table(ot)) if same_kind(bt, ot) => deep_merge(bt, ot),
            _ => {
                base.insert(k.clone(), ov.clone());
            }
        }
    }
}

/// Keys that select a table's model: a variant table with another value replaces the base's.
pub(crate) const SELECTORS: [&str; 2] = ["kind", "dist"];

/// Whether the two tables have the same selectors (an absent selector in `over` keeps the base's).
pub(crate) fn same_kind(base: &Table, over: &Table) -> bool {
    SELECTORS
        .iter()
        .all(|sel| match (base.get(*sel), over.get(*sel)) {
            (Some(b), Some(o)) => b == o,
            _ => true,
        })
}

/// First component of a key path (`workload[1].x` → `workload`).
fn head(key: &str) -> &str {
    let end = key.find(['.', '[']).unwrap_or(key.len());
    &key[..end]
}

/// Report `e` under `variant[<name>]` when it lies in what the variant overrides.
pub(crate) fn attribute(e: KeyError, v: &Variant) -> KeyError {
    if v.overrides.contains_key(head(&e.key)) {
        KeyError {
            key: format!("variant[{}].{}", v.name, e.key),
            reason: e.reason,
        }
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn tables_merge_and_kind_switch_replaces() {
        let mut base = t("[tcp]\nmss = \"1000B\"\nmin_rto = \"1s\"\n[queue]\nkind = \"droptail\"\nlimit = \"180KB\"\n");
        deep_merge(
            &mut base,
            &t("[tcp]\nmin_rto = \"200ms\"\n[queue]\nkind = \"red\"\nmin_th = 5"),
        );
        assert_eq!(
            base["tcp"],
            Value::Table(t("mss = \"1000B\"\nmin_rto = \"200ms\""))
        );
        assert_eq!(base["queue"], Value::Table(t("kind = \"red\"\nmin_th = 5")));
        let mut base = t("[queue]\nkind = \"droptail\"\nlimit = 10\nns2_off_by_one = true");
        deep_merge(&mut base, &t("[queue]\nlimit = 20"));
        assert_eq!(
            base["queue"],
            Value::Table(t("kind = \"droptail\"\nlimit = 20\nns2_off_by_one = true"))
        );
    }

    #[test]
    fn dist_switch_and_exclusive_delaybox_sources_replace() {
        let mut base = t("[d]\nrtt = { dist = \"uniform\", min = \"0ms\", max = \"1ms\" }");
        deep_merge(
            &mut base,
            &t("[d]\nrtt = { dist = \"constant\", value = \"5ms\" }"),
        );
        assert_eq!(
            base["d"],
            Value::Table(t("rtt = { dist = \"constant\", value = \"5ms\" }"))
        );
        deep_merge(&mut base, &t("[d]\nmatrix_file = \"m.csv\""));
        assert_eq!(base["d"], Value::Table(t("matrix_file = \"m.csv\"")));
    }

    #[test]
    fn arrays_replace() {
        let mut base = t("[[workload]]\nkind = \"a\"\n[[workload]]\nkind = \"b\"");
        deep_merge(&mut base, &t("[[workload]]\nkind = \"c\""));
        assert_eq!(base["workload"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn names() {
        assert!(valid_name("red-0.1_x"));
        for bad in ["", ".", "..", "a/b", "a b", "é"] {
            assert!(!valid_name(bad), "{bad:?}");
        }
        let mut root = t("[[variant]]\nname = \"a\"\n[[variant]]\nname = \"a\"");
        let e = take_variants(&mut root).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "variant[1].name",
                "duplicate variant name \"a\" (also variant[0])"
            )
        );
    }

    #[test]
    fn attribution_by_top_level_key() {
        let v = Variant {
            name: "red".into(),
            overrides: t("[queue]\nkind = \"red\""),
        };
        assert_eq!(
            attribute(KeyError::new("queue.min_th", "x"), &v).key,
            "variant[red].queue.min_th"
        );
        assert_eq!(attribute(KeyError::new("tcp.mss", "x"), &v).key, "tcp.mss");
    }
}
