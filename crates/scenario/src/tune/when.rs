//! `when = { "PATH" = VALUE or [VALUES] }`: a searched key (or derived value) active only when
//! the choice parameter PATH, listed before it, took one of those values. An inactive key is
//! neither searched nor written.
//!
//! Values compare as Python's `==` does (the tuner's values come from Python): 1 == 1.0 == true.
//!
//! Validation: `tests.rs`.

use super::range::{Kind, Param};
use crate::error::{KeyError, Res};
use crate::sweep::canonical::{py_repr, py_str};
use toml::{Table, Value};

/// One condition: the choice parameter `path` took one of `allowed`.
#[derive(Clone, Debug)]
pub struct Condition {
    pub path: String,
    pub allowed: Vec<Value>,
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Integer(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Boolean(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

/// Python's `a == b` for TOML values (numbers and booleans by value, arrays and tables item by
/// item).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q))
        }
        (Value::Table(x), Value::Table(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => a == b,
    }
}

/// Whether every condition holds for the trial's values so far.
pub fn active(when: &[Condition], values: &Table) -> bool {
    when.iter().all(|c| {
        values
            .get(&c.path)
            .is_some_and(|v| c.allowed.iter().any(|a| py_eq(v, a)))
    })
}

/// The `when` table `when` of the entry `key`, against the choice parameters listed before it.
pub(crate) fn parse_when(key: &str, when: &Value, params: &[Param]) -> Res<Vec<Condition>> {
    let wkey = format!("{key}.when");
    let table = match when {
        Value::Table(t) if !t.is_empty() => t,
        _ => {
            return Err(KeyError::new(
                wkey,
                "must be a table such as { \"queue.kind\" = \"red\" }",
            ))
        }
    };
    let mut out = Vec::new();
    for (p, allowed) in table {
        let Some(choice) = params
            .iter()
            .find(|q| q.kind == Kind::Choice && &q.path == p)
        else {
            return Err(KeyError::new(
                wkey,
                format!(
                    "{} is not a choice parameter listed before this key",
                    py_str(p)
                ),
            ));
        };
        let allowed = match allowed {
            Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        };
        let bad: Vec<Value> = allowed
            .iter()
            .filter(|a| !choice.choices.iter().any(|c| py_eq(a, c)))
            .cloned()
            .collect();
        if !bad.is_empty() || allowed.is_empty() {
            let shown = if bad.is_empty() {
                "()".to_string()
            } else {
                py_repr(&Value::Array(bad))
            };
            return Err(KeyError::new(
                wkey,
                format!(
                    "{shown}: not among the choices of {p} {}",
                    py_repr(&Value::Array(choice.choices.clone()))
                ),
            ));
        }
        out.push(Condition {
            path: p.clone(),
            allowed,
        });
    }
    Ok(out)
}
