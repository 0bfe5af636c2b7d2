//! Typed getters over parsed TOML that carry the key path, so every error names its key.
//!
//! [`Tbl`] wraps one TOML table with its path; `allow` rejects unknown keys, the getters return
//! `Ok(None)` for an absent key and an error for a present key of the wrong type or unit.
//! Quantities with units are strings parsed only by `units::parse_rate`, `parse_duration` and
//! `parse_size`; a bare number where a unit is required is rejected with the expected unit.
//! Propagation delays and RTTs (`as_delay`) are further bounded by `units::limits::MAX_DELAY`.

use crate::error::{index, join, KeyError, Res};
use toml::{Table, Value};
use units::limits::MAX_DELAY;
use units::{Rate, SimDuration};

const RATE_HINT: &str = "a rate string with a unit, e.g. \"10Mbps\" (bps, kbps, Mbps, Gbps)";
const DURATION_HINT: &str = "a duration string with a unit, e.g. \"10ms\" (ns, us, ms, s, min, h)";
const SIZE_HINT: &str = "a size string with a unit, e.g. \"1500B\" (B, KB, MB, GB, KiB, MiB)";

/// "the integer 3", "the string \"x\"", … for error messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string {s:?}"),
        Value::Integer(i) => format!("the integer {i}"),
        Value::Float(f) => format!("the float {f}"),
        Value::Boolean(b) => format!("the boolean {b}"),
        Value::Datetime(d) => format!("the datetime {d}"),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

fn wrong_type(path: &str, expected: &str, v: &Value) -> KeyError {
    KeyError::new(path, format!("expected {expected}, found {}", describe(v)))
}

pub(crate) fn as_table<'a>(v: &'a Value, path: &str) -> Res<Tbl<'a>> {
    match v {
        Value::Table(t) => Ok(Tbl {
            path: path.to_string(),
            t,
        }),
        _ => Err(wrong_type(path, "a table", v)),
    }
}

pub(crate) fn as_array<'a>(v: &'a Value, path: &str) -> Res<&'a [Value]> {
    match v {
        Value::Array(a) => Ok(a),
        _ => Err(wrong_type(path, "an array", v)),
    }
}

pub(crate) fn as_str<'a>(v: &'a Value, path: &str) -> Res<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(wrong_type(path, "a string", v)),
    }
}

pub(crate) fn as_bool(v: &Value, path: &str) -> Res<bool> {
    match v {
        Value::Boolean(b) => Ok(*b),
        _ => Err(wrong_type(path, "a boolean (true or false)", v)),
    }
}

/// An integer in `[min, max]`.
pub(crate) fn as_int(v: &Value, path: &str, min: i64, max: i64) -> Res<i64> {
    let i = match v {
        Value::Integer(i) => *i,
        _ => return Err(wrong_type(path, "an integer", v)),
    };
    if i < min {
        return Err(KeyError::new(
            path,
            format!("must be at least {min}, got {i}"),
        ));
    }
    if i > max {
        return Err(KeyError::new(
            path,
            format!("must be at most {max}, got {i}"),
        ));
    }
    Ok(i)
}

/// A plain finite number (integer or float).
pub(crate) fn as_num(v: &Value, path: &str) -> Res<f64> {
    let x = match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => return Err(wrong_type(path, "a number", v)),
    };
    if !x.is_finite() {
        return Err(KeyError::new(
            path,
            format!("must be a finite number, got {x}"),
        ));
    }
    Ok(x)
}

/// The string of a unit-carrying quantity; a bare number gets a message naming the unit.
fn unit_str<'a>(v: &'a Value, path: &str, hint: &str) -> Res<&'a str> {
    match v {
        Value::String(s) => Ok(s),
        Value::Integer(_) | Value::Float(_) => Err(KeyError::new(
            path,
            format!(
                "a unit is required: expected {hint}, found the plain number {}",
                plain(v)
            ),
        )),
        _ => Err(wrong_type(path, hint, v)),
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        _ => String::new(),
    }
}

pub(crate) fn as_rate(v: &Value, path: &str) -> Res<Rate> {
    let s = unit_str(v, path, RATE_HINT)?;
    units::parse_rate(s).map_err(|e| KeyError::new(path, e.to_string()))
}

pub(crate) fn as_duration(v: &Value, path: &str) -> Res<SimDuration> {
    let s = unit_str(v, path, DURATION_HINT)?;
    units::parse_duration(s).map_err(|e| KeyError::new(path, e.to_string()))
}

/// A propagation delay or RTT: a duration of at most `units::limits::MAX_DELAY` (1e6 s).
pub(crate) fn as_delay(v: &Value, path: &str) -> Res<SimDuration> {
    let d = as_duration(v, path)?;
    if d > MAX_DELAY {
        let s = unit_str(v, path, DURATION_HINT)?;
        return Err(KeyError::new(path, format!("\"{s}\": {DELAY_TOO_LARGE}")));
    }
    Ok(d)
}

/// Why a delay or RTT above `MAX_DELAY` is refused (after the value as written).
pub(crate) const DELAY_TOO_LARGE: &str =
    "too large: a delay or RTT must be at most 1e6s (about 11.6 days)";

/// Bytes.
pub(crate) fn as_size(v: &Value, path: &str) -> Res<u64> {
    let s = unit_str(v, path, SIZE_HINT)?;
    units::parse_size(s).map_err(|e| KeyError::new(path, e.to_string()))
}

/// One TOML table and its key path.
#[derive(Clone, Debug)]
pub(crate) struct Tbl<'a> {
    pub path: String,
    pub t: &'a Table,
}

impl<'a> Tbl<'a> {
    pub fn root(t: &'a Table) -> Self {
        Tbl {
            path: String::new(),
            t,
        }
    }

    /// Path of a key of this table.
    pub fn key(&self, k: &str) -> String {
        join(&self.path, k)
    }

    /// Path of element `i` of the array under `k`.
    pub fn elem(&self, k: &str, i: usize) -> String {
        index(&self.key(k), i)
    }

    /// Reject any key not in `keys` (the message lists them in the given order).
    pub fn allow(&self, keys: &[&str]) -> Res<()> {
        match self.t.keys().find(|k| !keys.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => Err(KeyError::new(
                self.key(k),
                format!("unknown key; expected one of: {}", keys.join(", ")),
            )),
        }
    }

    pub fn get(&self, k: &str) -> Option<&'a Value> {
        self.t.get(k)
    }

    pub fn has(&self, k: &str) -> bool {
        self.t.contains_key(k)
    }

    pub fn req(&self, k: &str) -> Res<&'a Value> {
        self.t
            .get(k)
            .ok_or_else(|| KeyError::new(self.key(k), "missing required key"))
    }

    /// Apply `f` to the value of `k` and its path, if present.
    fn opt<T>(&self, k: &str, f: impl FnOnce(&'a Value, &str) -> Res<T>) -> Res<Option<T>> {
        match self.t.get(k) {
            None => Ok(None),
            Some(v) => f(v, &self.key(k)).map(Some),
        }
    }

    fn required<T>(&self, k: &str, f: impl FnOnce(&'a Value, &str) -> Res<T>) -> Res<T> {
        f(self.req(k)?, &self.key(k))
    }

    pub fn table(&self, k: &str) -> Res<Option<Tbl<'a>>> {
        self.opt(k, as_table)
    }
    pub fn req_table(&self, k: &str) -> Res<Tbl<'a>> {
        let v = self
            .t
            .get(k)
            .ok_or_else(|| KeyError::new(self.key(k), "missing required table"))?;
        as_table(v, &self.key(k))
    }
    pub fn array(&self, k: &str) -> Res<Option<&'a [Value]>> {
        self.opt(k, as_array)
    }
    pub fn req_str(&self, k: &str) -> Res<&'a str> {
        self.required(k, as_str)
    }
    pub fn int(&self, k: &str, min: i64, max: i64) -> Res<Option<i64>> {
        self.opt(k, |v, p| as_int(v, p, min, max))
    }
    pub fn req_int(&self, k: &str, min: i64, max: i64) -> Res<i64> {
        self.required(k, |v, p| as_int(v, p, min, max))
    }
    /// A u32 ≥ `min`.
    pub fn u32(&self, k: &str, min: u32) -> Res<Option<u32>> {
        Ok(self.int(k, min as i64, u32::MAX as i64)?.map(|i| i as u32))
    }
    pub fn req_u32(&self, k: &str, min: u32) -> Res<u32> {
        Ok(self.req_int(k, min as i64, u32::MAX as i64)? as u32)
    }
    pub fn num(&self, k: &str) -> Res<Option<f64>> {
        self.opt(k, as_num)
    }
    pub fn req_num(&self, k: &str) -> Res<f64> {
        self.required(k, as_num)
    }
    pub fn duration(&self, k: &str) -> Res<Option<SimDuration>> {
        self.opt(k, as_duration)
    }
    pub fn req_duration(&self, k: &str) -> Res<SimDuration> {
        self.required(k, as_duration)
    }
    /// A required propagation delay (`as_delay`).
    pub fn size(&self, k: &str) -> Res<Option<u64>> {
        self.opt(k, as_size)
    }

    /// An error at key `k` of this table.
    pub fn err(&self, k: &str, reason: impl Into<String>) -> KeyError {
        KeyError::new(self.key(k), reason)
    }
}

/// A positive duration (`> 0`).
pub(crate) fn positive(d: SimDuration, path: &str) -> Res<SimDuration> {
    if d.0 == 0 {
        Err(KeyError::new(path, "must be greater than 0"))
    } else {
        Ok(d)
    }
}

/// A byte count that must fit a u32 and be at least `min`.
pub(crate) fn size_u32(bytes: u64, path: &str, min: u32) -> Res<u32> {
    if bytes < min as u64 {
        return Err(KeyError::new(
            path,
            format!("must be at least {min} bytes, got {bytes} B"),
        ));
    }
    u32::try_from(bytes).map_err(|_| {
        KeyError::new(
            path,
            format!("must be at most {} bytes, got {bytes} B", u32::MAX),
        )
    })
}

/// Kind selector of a table (`kind`, `dist`): required string from `choices`.
pub(crate) fn kind<'a>(t: &Tbl<'a>, k: &str, choices: &[&str]) -> Res<&'a str> {
    let s = t.req_str(k)?;
    if choices.contains(&s) {
        Ok(s)
    } else {
        Err(t.err(
            k,
            format!("unknown {k} {s:?}; expected one of: {}", choices.join(", ")),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tbl(text: &str) -> Table {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn unknown_key_lists_expected() {
        let t = tbl("a = 1\nzz = 2");
        let e = Tbl {
            path: "x".into(),
            t: &t,
        }
        .allow(&["a", "b"])
        .unwrap_err();
        assert_eq!(
            e,
            KeyError::new("x.zz", "unknown key; expected one of: a, b")
        );
    }

    #[test]
    fn bare_number_for_rate_names_the_unit() {
        let t = tbl("r = 10");
        let e = as_rate(&t["r"], "r").unwrap_err();
        assert_eq!(e.key, "r");
        assert!(
            e.reason.contains("a unit is required") && e.reason.contains("Mbps"),
            "{}",
            e.reason
        );
    }

    #[test]
    fn int_range_and_type() {
        let t = tbl("n = 0\ns = \"3\"");
        let r = Tbl::root(&t);
        assert_eq!(
            r.u32("n", 1).unwrap_err().reason,
            "must be at least 1, got 0"
        );
        assert_eq!(
            r.u32("s", 1).unwrap_err().reason,
            "expected an integer, found the string \"3\""
        );
        assert_eq!(r.u32("absent", 1).unwrap(), None);
        assert_eq!(
            r.req_u32("absent", 1).unwrap_err().reason,
            "missing required key"
        );
    }

    #[test]
    fn delay_bound_shows_the_value_as_written() {
        let t = tbl("a = \"1e6s\"\nb = \"1000001s\"\nc = \"1e30s\"");
        let delay = |k: &str| as_delay(&t[k], k);
        assert_eq!(delay("a").unwrap(), MAX_DELAY);
        let e = delay("b").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "b",
                "\"1000001s\": too large: a delay or RTT must be at most 1e6s (about 11.6 days)"
            )
        );
        // Above every duration's bound, the units parser's own message comes first.
        assert!(delay("c")
            .unwrap_err()
            .reason
            .starts_with("\"1e30s\": too large"));
    }

    #[test]
    fn num_accepts_int_and_rejects_nan() {
        let t = tbl("a = 2\nb = nan");
        let r = Tbl::root(&t);
        assert_eq!(r.num("a").unwrap(), Some(2.0));
        assert!(r.num("b").unwrap_err().reason.contains("finite"));
    }
}
