//! One searched key of a `[tune.params]` table and its range: `{ int = [lo, hi] }`,
//! `{ float = [lo, hi] }`, `{ duration = ["lo", "hi"] }` (searched in milliseconds, written in
//! whole microseconds), each with `log = true` (lo > 0) and `step` (int/float, linear scale), or
//! `{ choice = [v1, v2, …] }`.
//!
//! Validation: `tests.rs` (each rule, each message).

use super::when::Condition;
use crate::error::{KeyError, Res};
use crate::sweep::canonical::{py_float, py_repr};
use toml::{Table, Value};

/// The kinds of range, in the order the messages list them.
pub const RANGE_KINDS: [&str; 4] = ["int", "float", "duration", "choice"];

/// How a searched key is sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    /// Searched in milliseconds (a float), written as whole microseconds (`"2500us"`).
    Duration,
    Choice,
}

impl Kind {
    /// The key that gives this range in a tuning table (`int`, `float`, `duration`, `choice`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Duration => "duration",
            Kind::Choice => "choice",
        }
    }
}

/// One searched key: its path, range and the conditions under which it is active.
#[derive(Clone, Debug)]
pub struct Param {
    pub path: String,
    pub kind: Kind,
    /// The bounds as written (an integer or a float; durations in ms as floats); NaN for a choice.
    pub lo: Value,
    pub hi: Value,
    pub log: bool,
    /// `step` as written (int or float ranges on a linear scale), if given.
    pub step: Option<Value>,
    /// The values of a choice, in file order.
    pub choices: Vec<Value>,
    /// Every condition must hold for the key to be searched and written (`when.rs`).
    pub when: Vec<Condition>,
    /// Written after an integer value: `B` for a declared size key, `bps` for a rate key.
    pub unit: &'static str,
}

/// A number as f64 (integers converted), NaN for anything else.
pub(crate) fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Integer(_) | Value::Float(_))
}

impl Param {
    /// The value written into the scenario for a sampled `x` (durations: whole µs, at least 1;
    /// an integer of a size or rate key with its unit, `"700B"`).
    pub fn written(&self, x: Value) -> Value {
        if self.kind == Kind::Duration {
            // Python's round(): halves to even, as the values of earlier studies were written.
            let us = (as_f64(&x) * 1000.0).round_ties_even().max(1.0);
            return Value::String(format!("{}us", us as i64));
        }
        if self.unit.is_empty() {
            return x;
        }
        match x {
            Value::Integer(i) => Value::String(format!("{i}{}", self.unit)),
            Value::Float(f) => Value::String(format!("{}{}", py_float(f), self.unit)),
            x => x,
        }
    }

    /// A point inside the range, before `written`: its geometric (log) or arithmetic middle,
    /// rounded half to even for an int range; the first value of a choice.
    pub fn middle(&self) -> Value {
        if self.kind == Kind::Choice {
            return self.choices[0].clone();
        }
        let (lo, hi) = (as_f64(&self.lo), as_f64(&self.hi));
        let mid = if self.log {
            (lo * hi).sqrt()
        } else {
            (lo + hi) / 2.0
        };
        match self.kind {
            Kind::Int => Value::Integer(mid.round_ties_even() as i64),
            _ => Value::Float(mid),
        }
    }
}

/// Nanoseconds per unit of a duration string.
const NS_PER: [(&str, f64); 7] = [
    ("ns", 1.0),
    ("us", 1e3),
    ("µs", 1e3),
    ("ms", 1e6),
    ("s", 1e9),
    ("min", 60e9),
    ("h", 3600e9),
];

/// Whether `s` is `[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?` (the numbers of durations and constraints,
/// after an optional sign the caller strips).
pub(crate) fn is_decimal(s: &str) -> bool {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => digits(mantissa),
    };
    let exp_ok = exp.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    mantissa_ok && exp_ok
}

/// `"20ms"` → 20.0 (milliseconds): a decimal number and a unit (ns, us, µs, ms, s, min, h),
/// spaces allowed around both; the error says what a duration looks like.
pub fn duration_ms(v: &Value) -> Result<f64, String> {
    let bad = || {
        format!(
            "{} is not a duration such as \"20ms\" (ns, us, ms, s, min, h)",
            py_repr(v)
        )
    };
    let Value::String(s) = v else {
        return Err(bad());
    };
    let s = s.trim();
    // The longest unit first: "20ms" is milliseconds, not "20m" seconds.
    let (num, per) = ["min", "ms", "ns", "us", "µs", "s", "h"]
        .iter()
        .find_map(|u| {
            let num = s.strip_suffix(u)?;
            let per = NS_PER.iter().find(|(n, _)| n == u)?.1;
            Some((num.trim_end(), per))
        })
        .ok_or_else(bad)?;
    if !is_decimal(num) {
        return Err(bad());
    }
    let x: f64 = num.parse().map_err(|_| bad())?;
    Ok(x * per / 1e6)
}

/// The range table `t` of the key `key` (`tune.params."PATH"`) for `path`, with its conditions.
pub(crate) fn parse_range(key: &str, t: &Table, path: &str, when: Vec<Condition>) -> Res<Param> {
    let kinds: Vec<&str> = RANGE_KINDS
        .iter()
        .copied()
        .filter(|k| t.contains_key(*k))
        .collect();
    if kinds.len() != 1 {
        let got = if kinds.is_empty() {
            "none".to_string()
        } else {
            let quoted: Vec<String> = kinds.iter().map(|k| format!("'{k}'")).collect();
            format!("[{}]", quoted.join(", "))
        };
        return Err(KeyError::new(
            key,
            format!(
                "give exactly one of {} (or \"default\"), got {got}",
                RANGE_KINDS.join(", ")
            ),
        ));
    }
    let kind = match kinds[0] {
        "int" => Kind::Int,
        "float" => Kind::Float,
        "duration" => Kind::Duration,
        _ => Kind::Choice,
    };
    let log = match t.get("log") {
        None => false,
        Some(Value::Boolean(b)) => *b,
        Some(v) => {
            return Err(KeyError::new(
                format!("{key}.log"),
                format!("must be true or false, got {}", py_repr(v)),
            ))
        }
    };
    let step = t.get("step").cloned();
    let nan = Value::Float(f64::NAN);
    if kind == Kind::Choice {
        let ckey = format!("{key}.choice");
        let ch = match &t["choice"] {
            Value::Array(a)
                if !a.is_empty()
                    && !a
                        .iter()
                        .any(|c| matches!(c, Value::Table(_) | Value::Array(_))) =>
            {
                a.clone()
            }
            _ => return Err(KeyError::new(ckey, "must be a non-empty array of values")),
        };
        // Two values are the same when Python's repr is: 1 and 1.0 are distinct choices.
        let reprs: std::collections::HashSet<String> = ch.iter().map(py_repr).collect();
        if reprs.len() != ch.len() {
            return Err(KeyError::new(ckey, "has a value twice"));
        }
        if log || step.is_some() {
            return Err(KeyError::new(key, "a choice takes no log or step"));
        }
        return Ok(Param {
            path: path.to_string(),
            kind,
            lo: nan.clone(),
            hi: nan,
            log: false,
            step: None,
            choices: ch,
            when,
            unit: "",
        });
    }
    let rkey = format!("{key}.{}", kind.name());
    let r = match &t[kind.name()] {
        Value::Array(a) if a.len() == 2 => a.clone(),
        v => {
            return Err(KeyError::new(
                rkey,
                format!("must be [lo, hi], got {}", py_repr(v)),
            ))
        }
    };
    let raw = py_repr(&Value::Array(r.clone()));
    let (lo, hi) = if kind == Kind::Duration {
        let lo = duration_ms(&r[0]).map_err(|e| KeyError::new(&rkey, e))?;
        let hi = duration_ms(&r[1]).map_err(|e| KeyError::new(&rkey, e))?;
        (Value::Float(lo), Value::Float(hi))
    } else {
        let ints = r.iter().all(|x| matches!(x, Value::Integer(_)));
        if !r.iter().all(is_number) || (kind == Kind::Int && !ints) {
            let what = if kind == Kind::Int {
                "integers"
            } else {
                "numbers"
            };
            return Err(KeyError::new(
                rkey,
                format!("bounds must be {what}, got {raw}"),
            ));
        }
        if !r.iter().all(|x| as_f64(x).is_finite()) {
            return Err(KeyError::new(
                rkey,
                format!("bounds must be finite, got {raw}"),
            ));
        }
        (r[0].clone(), r[1].clone())
    };
    if as_f64(&lo).partial_cmp(&as_f64(&hi)) != Some(std::cmp::Ordering::Less) {
        return Err(KeyError::new(
            rkey,
            format!("bad range: lo must be less than hi, got {raw}"),
        ));
    }
    if log && as_f64(&lo) <= 0.0 {
        return Err(KeyError::new(
            format!("{key}.log"),
            format!(
                "a log scale needs a positive lower bound, got {}",
                py_repr(&r[0])
            ),
        ));
    }
    if let Some(s) = &step {
        let skey = format!("{key}.step");
        if kind == Kind::Duration || !is_number(s) || as_f64(s) <= 0.0 || log {
            return Err(KeyError::new(
                skey,
                "a positive number, for int and float ranges on a linear scale",
            ));
        }
        if kind == Kind::Int && !matches!(s, Value::Integer(_)) {
            return Err(KeyError::new(
                skey,
                format!("must be an integer for an int range, got {}", py_repr(s)),
            ));
        }
    }
    Ok(Param {
        path: path.to_string(),
        kind,
        lo,
        hi,
        log,
        step,
        choices: Vec::new(),
        when,
        unit: "",
    })
}
