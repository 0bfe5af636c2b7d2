//! A table of declared keys → its model's output. This file knows how each declared
//! [`Syntax`] is written in TOML, nothing about any model: every key, default, unit, range, rule
//! and profile is declared once beside its model (the `declare` crate's `Model`, e.g. each
//! `crates/aqm/src/<kind>.rs` and `crates/tcp/src/config.rs`), and `Declared::assemble` applies
//! them; a `ParamError.key` is mapped under the table's key path.
//!
//! Validation: `queue/tests.rs`, `tcp.rs`'s tests, `tests/bad_files.rs`, and the models'
//! `tests/params_declared.rs` (every declared key parses, every accepted key is declared).

use crate::error::{KeyError, Res};
use crate::value::Tbl;
use crate::value::{as_bool, as_duration, as_int, as_num, as_size, as_str, describe, size_u32};
use declare::{Declared, ParamInfo, Range, Syntax, Value};
use toml::Value as Toml;

/// Parse `t` as a table of `m`'s keys (plus `extra`, keys the caller handles, such as `kind`):
/// unknown keys refused, each given key read by its declared syntax, `profile` applied, then the
/// model's key rules and `validate`. Errors name the key under `t`'s path.
pub(crate) fn parse<O>(t: &Tbl, m: &dyn Declared<O>, extra: &[&str]) -> Res<O> {
    let mut keys = extra.to_vec();
    keys.extend(m.keys());
    t.allow(&keys)?;
    let profile = match t.has("profile") {
        true => Some(as_str(t.req("profile")?, &t.key("profile"))?),
        false => None,
    };
    let mut given = Vec::new();
    for p in m.params() {
        if let Some(v) = t.get(p.key) {
            given.push((p.key, value(v, &p, &t.key(p.key))?));
        }
    }
    m.assemble(&given, profile)
        .map_err(|e| t.err(&e.key, e.reason))
}

/// The smallest integer a key's range allows (0 if it sets none).
fn min_of(r: Range) -> u64 {
    match r {
        Range::AtLeast(x) => x.max(0.0) as u64,
        _ => 0,
    }
}

/// One TOML value as the declared syntax of its key.
fn value(v: &Toml, p: &ParamInfo, path: &str) -> Res<Value> {
    let min = min_of(p.range);
    Ok(match p.syntax {
        Syntax::Number => Value::Num(as_num(v, path)?),
        Syntax::Fraction => Value::Num(fraction(v, path)?),
        Syntax::Integer(max) => {
            let max = i64::try_from(max).unwrap_or(i64::MAX);
            Value::Int(as_int(v, path, min as i64, max)? as u64)
        }
        Syntax::PacketLimit(why) => {
            if let Toml::String(_) = v {
                return Err(KeyError::new(
                    path,
                    format!("{why}: expected an integer, found {}", describe(v)),
                ));
            }
            Value::Int(as_int(v, path, min as i64, i64::MAX)? as u64)
        }
        Syntax::PacketsOrBytes => match v {
            Toml::Integer(_) => Value::Limit(as_int(v, path, min as i64, i64::MAX)? as u64, false),
            Toml::String(_) => {
                let b = as_size(v, path)?;
                if b < min {
                    return Err(KeyError::new(path, format!("must be at least {min} byte")));
                }
                Value::Limit(b, true)
            }
            _ => {
                return Err(KeyError::new(
                    path,
                    format!(
                        "expected an integer number of packets or a size string such as \"180KB\", found {}",
                        describe(v)
                    ),
                ))
            }
        },
        Syntax::Size => Value::Int(size_u32(as_size(v, path)?, path, min as u32)? as u64),
        Syntax::Duration => Value::Duration(as_duration(v, path)?),
        Syntax::Delay => Value::Duration(crate::value::as_delay(v, path)?),
        Syntax::Rate => Value::Int(crate::value::as_rate(v, path)?.bps),
        Syntax::DurationOrOff(hint) => match v {
            Toml::Boolean(false) => Value::Unset,
            Toml::Boolean(true) => return Err(KeyError::new(path, hint)),
            _ => Value::Duration(as_duration(v, path)?),
        },
        Syntax::Bool => Value::Bool(as_bool(v, path)?),
        Syntax::Choice { noun, options } => {
            let s = as_str(v, path)?;
            match options.iter().find(|o| **o == s) {
                Some(o) => Value::Choice(o),
                None => {
                    return Err(KeyError::new(
                        path,
                        format!(
                            "unknown {noun} {s:?}; expected one of: {}",
                            options.join(", ")
                        ),
                    ))
                }
            }
        }
        Syntax::BoolOr(options) => match v {
            Toml::Boolean(b) => Value::Bool(*b),
            Toml::String(s) if options.contains(&s.as_str()) => {
                Value::Choice(options.iter().find(|o| **o == s).expect("contained"))
            }
            _ => {
                let names: Vec<String> = options.iter().map(|o| format!("{o:?}")).collect();
                return Err(KeyError::new(
                    path,
                    format!(
                        "expected true, false or {}, found {}",
                        names.join(" or "),
                        describe(v)
                    ),
                ));
            }
        },
    })
}

/// A number, a numeric string or a fraction string "a/b" (`w_q = "1/512"` is 1.0/512.0).
fn fraction(v: &Toml, path: &str) -> Res<f64> {
    let x = match v {
        Toml::String(s) => {
            let bad = || {
                KeyError::new(
                    path,
                    format!("{s:?} is not a number or a fraction such as \"1/512\""),
                )
            };
            match s.split_once('/') {
                Some((a, b)) => {
                    let a: f64 = a.trim().parse().map_err(|_| bad())?;
                    let b: f64 = b.trim().parse().map_err(|_| bad())?;
                    if b == 0.0 {
                        return Err(KeyError::new(path, format!("{s:?} divides by zero")));
                    }
                    a / b
                }
                None => s.trim().parse().map_err(|_| bad())?,
            }
        }
        _ => as_num(v, path)?,
    };
    if !x.is_finite() {
        return Err(KeyError::new(path, "must be a finite number"));
    }
    Ok(x)
}
