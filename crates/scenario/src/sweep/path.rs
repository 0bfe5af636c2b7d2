//! Key paths of sweeps and tuning tables: segments joined by `.`, each a key (`queue`), an
//! array element (`workload[0]`) or a variant by name (`variant[red]`, the `[[variant]]` entry
//! whose `name` is `red`). `var.NAME` is a sweep variable, not a key of the document.
//!
//! Validation: tests below; python/tests/test_sweep_spec.py (paths that do not resolve).

use super::canonical::py_str;
use toml::{Table, Value};

/// Which element of an array a segment names, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Index {
    /// A plain key (`queue`).
    Key,
    /// An element by position (`workload[0]`).
    At(usize),
    /// A `[[variant]]` entry by its `name` (`variant[red]`).
    Named(String),
}

/// One segment of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub name: String,
    pub index: Index,
}

/// Whether `path` names a sweep variable (`var.NAME`).
pub fn is_var(path: &str) -> bool {
    path.starts_with("var.")
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// `workload[0].rate` → `[workload at 0, rate]`; the error says what is malformed.
pub fn parse(path: &str) -> Result<Vec<Segment>, String> {
    if path.is_empty() {
        return Err("empty key path".into());
    }
    path.split('.')
        .map(|part| {
            let malformed = || {
                format!(
                    "malformed key path segment {} (want key, key[N] or variant[NAME])",
                    py_str(part)
                )
            };
            let (name, index) = match part.find('[') {
                None => (part, None),
                Some(i) => {
                    let inner = part[i + 1..].strip_suffix(']').ok_or_else(malformed)?;
                    if inner.is_empty() || inner.contains(['[', ']']) {
                        return Err(malformed());
                    }
                    (&part[..i], Some(inner))
                }
            };
            if !is_ident(name) {
                return Err(malformed());
            }
            let index = match index {
                None => Index::Key,
                Some(i) if i.bytes().all(|b| b.is_ascii_digit()) => {
                    Index::At(i.parse().map_err(|_| malformed())?)
                }
                Some(i) if name == "variant" => Index::Named(i.to_string()),
                Some(_) => {
                    return Err(format!(
                        "{}: index must be a non-negative integer",
                        py_str(part)
                    ))
                }
            };
            Ok(Segment {
                name: name.to_string(),
                index,
            })
        })
        .collect()
}

/// The element of array `arr` (the key `name` of `path`) that `index` names.
fn element<'a>(
    arr: &'a mut [Value],
    name: &str,
    index: &Index,
    path: &str,
) -> Result<&'a mut Value, String> {
    let len = arr.len();
    match index {
        Index::At(i) => arr
            .get_mut(*i)
            .ok_or_else(|| format!("{path}: {name}[{i}] is out of range (the scenario has {len})")),
        Index::Named(n) => {
            let pos = arr
                .iter()
                .position(|v| v.get("name").and_then(Value::as_str) == Some(n.as_str()));
            match pos {
                Some(p) => Ok(&mut arr[p]),
                None => {
                    let names: Vec<String> = arr
                        .iter()
                        .filter_map(|v| v.as_table())
                        .map(|t| match t.get("name") {
                            Some(Value::String(s)) => s.clone(),
                            Some(v) => super::canonical::py_repr(v),
                            None => "None".into(),
                        })
                        .collect();
                    Err(format!(
                        "{path}: no variant named {} (the file has: {})",
                        py_str(n),
                        names.join(", ")
                    ))
                }
            }
        }
        Index::Key => unreachable!("element() is called for indexed segments"),
    }
}

/// One step down from `node` by `seg`; with `create`, a missing key becomes an empty table.
fn step<'a>(
    node: &'a mut Value,
    seg: &Segment,
    path: &str,
    create: bool,
) -> Result<&'a mut Value, String> {
    let Value::Table(t) = node else {
        return Err(format!(
            "{path}: {} is inside a value that is not a table",
            py_str(&seg.name)
        ));
    };
    if seg.index == Index::Key {
        if !t.contains_key(&seg.name) {
            if !create {
                return Err(format!(
                    "{path}: no key {} in the scenario",
                    py_str(&seg.name)
                ));
            }
            t.insert(seg.name.clone(), Value::Table(Table::new()));
        }
        return Ok(t.get_mut(&seg.name).expect("inserted above"));
    }
    match t.get_mut(&seg.name) {
        Some(Value::Array(arr)) => element(arr, &seg.name, &seg.index, path),
        _ => Err(format!(
            "{path}: {} is not an array in the scenario",
            py_str(&seg.name)
        )),
    }
}

/// The value at `path` of `doc`.
pub fn get(doc: &Table, path: &str) -> Result<Value, String> {
    let segs = parse(path)?;
    // Walk a copy: the steps are shared with `set`, which needs them mutable.
    let mut node = Value::Table(doc.clone());
    let mut cur = &mut node;
    for seg in &segs {
        cur = step(cur, seg, path, false)?;
    }
    Ok(cur.clone())
}

/// Set `path` of `doc` to `value`, creating missing tables on the way (not arrays or array
/// elements).
pub fn set(doc: &mut Table, path: &str, value: Value) -> Result<(), String> {
    let segs = parse(path)?;
    let (last, init) = segs.split_last().expect("parse gives at least one segment");
    let mut root = Value::Table(std::mem::take(doc));
    let result = (|| {
        let mut cur = &mut root;
        for seg in init {
            cur = step(cur, seg, path, true)?;
        }
        let Value::Table(t) = cur else {
            return Err(format!(
                "{path}: {} is inside a value that is not a table",
                py_str(&last.name)
            ));
        };
        match (&last.index, t.get_mut(&last.name)) {
            (Index::Key, _) => {
                t.insert(last.name.clone(), value);
                Ok(())
            }
            (Index::At(i), Some(Value::Array(arr))) if *i < arr.len() => {
                arr[*i] = value;
                Ok(())
            }
            _ => Err(format!(
                "{path}: the last segment must be a key or an existing array element"
            )),
        }
    })();
    if let Value::Table(t) = root {
        *doc = t;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Table {
        toml::from_str(
            "[queue]\nkind = \"red\"\nmin_th = 5\n[[workload]]\nrate = 1.0\n\
             [[variant]]\nname = \"a\"\n[[variant]]\nname = \"red\"\nqueue = { min_th = 7 }\n",
        )
        .unwrap()
    }

    #[test]
    fn parses_keys_indices_and_variant_names() {
        let s = parse("variant[red].queue.min_th").unwrap();
        assert_eq!(s[0].index, Index::Named("red".into()));
        assert_eq!(parse("workload[12].rate").unwrap()[0].index, Index::At(12));
        assert_eq!(
            parse("queue..min_th").unwrap_err(),
            "malformed key path segment '' (want key, key[N] or variant[NAME])"
        );
        assert_eq!(
            parse("workload[x].rate").unwrap_err(),
            "'workload[x]': index must be a non-negative integer"
        );
        assert_eq!(parse("").unwrap_err(), "empty key path");
        assert!(parse("a[1]b").is_err() && parse("1a").is_err() && parse("a[]").is_err());
    }

    #[test]
    fn gets_and_sets_through_arrays_and_variants() {
        let mut d = doc();
        assert_eq!(
            get(&d, "variant[red].queue.min_th").unwrap().as_integer(),
            Some(7)
        );
        set(&mut d, "variant[a].queue.limit", Value::Integer(60)).unwrap();
        assert_eq!(d["variant"][0]["queue"]["limit"].as_integer(), Some(60));
        set(&mut d, "workload[0].rate", Value::Float(2.0)).unwrap();
        assert_eq!(d["workload"][0]["rate"].as_float(), Some(2.0));
        set(&mut d, "run.seed", Value::Integer(3)).unwrap(); // creates [run]
        assert_eq!(d["run"]["seed"].as_integer(), Some(3));
        assert_eq!(
            get(&d, "workload[3].rate").unwrap_err(),
            "workload[3].rate: workload[3] is out of range (the scenario has 1)"
        );
        assert_eq!(
            get(&d, "queue.min_thh").unwrap_err(),
            "queue.min_thh: no key 'min_thh' in the scenario"
        );
        assert_eq!(
            get(&d, "variant[b].x").unwrap_err(),
            "variant[b].x: no variant named 'b' (the file has: a, red)"
        );
        assert_eq!(
            set(&mut d, "queue.kind.x", Value::Integer(1)).unwrap_err(),
            "queue.kind.x: 'x' is inside a value that is not a table"
        );
        assert_eq!(
            get(&d, "queue[0]").unwrap_err(),
            "queue[0]: 'queue' is not an array in the scenario"
        );
        assert_eq!(
            set(&mut d, "workload[5]", Value::Integer(1)).unwrap_err(),
            "workload[5]: the last segment must be a key or an existing array element"
        );
        assert_eq!(d["queue"]["min_th"].as_integer(), Some(5)); // a failed set leaves the rest
    }
}
