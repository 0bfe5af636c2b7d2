//! Parameter declarations: every queue discipline declares each of its scenario keys once, in a
//! `MODEL` next to its params struct (key, how it is written, unit, valid range, one-line doc,
//! source, and which field it sets). Everything else reads that declaration: the scenario
//! parser (`crates/scenario/src/queue.rs`: kind dispatch and TOML → [`Value`] only), the range
//! checks of each model's `validate`, the `ns2` profile (an override table), `aqmlab params
//! KIND` and the generated parameter tables of `docs/queue-disciplines.md` and the README
//! ([`crate::params_table`]).
//!
//! Defaults are the params struct's `Default` impl (one value per field, beside the
//! declaration); the tables show them by reading that default through each key's getter.
//!
//! Validation: the tests in `crates/aqm/tests/params_declared.rs` (every declared key accepted,
//! every accepted key declared, docs current) and each discipline's own tests.

use crate::discipline::{DisciplineParams, ParamError};
use units::SimDuration;

/// How a key's value is written in a scenario file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Syntax {
    /// A finite number (integer or float).
    Number,
    /// A number, or a fraction string such as `"1/512"` (computed as 1.0/512.0).
    Fraction,
    /// An integer no larger than the given maximum (its minimum is the key's [`Range::AtLeast`]).
    Integer(u64),
    /// A buffer limit in packets: an integer; a size string is refused with this explanation.
    PacketLimit(&'static str),
    /// An integer (packets) or a size string such as `"180KB"` (bytes).
    PacketsOrBytes,
    /// A size string with a unit (`"1500B"`), in bytes, at most `u32::MAX`.
    Size,
    /// A duration string with a unit (`"5ms"`).
    Duration,
    /// `true` or `false`.
    Bool,
    /// One of the listed strings; errors call the value a `noun` ("unknown NOUN \"x\"").
    Choice {
        noun: &'static str,
        options: &'static [&'static str],
    },
    /// `true`, `false` or one of the listed strings.
    BoolOr(&'static [&'static str]),
}

/// The rule a single key's value must satisfy (checked by [`check_ranges`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// Anything the syntax accepts.
    Any,
    /// A number ≥ the bound (for integers and sizes: at least that many).
    AtLeast(f64),
    /// A number > the bound.
    Above(f64),
    /// In (lo, hi].
    OpenClosed(f64, f64),
    /// In [lo, hi].
    Closed(f64, f64),
    /// In (lo, hi).
    Open(f64, f64),
    /// A duration greater than zero.
    Positive,
    /// Depends on other keys, checked by the model's `validate`; the text is for the tables.
    Cross(&'static str),
}

/// A parsed value of a key (the parser's output, a profile's override, a default as read back).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Num(f64),
    Int(u64),
    Bool(bool),
    Duration(SimDuration),
    /// One of a [`Syntax::Choice`] / [`Syntax::BoolOr`]'s strings.
    Choice(&'static str),
    /// A [`Syntax::PacketsOrBytes`] limit: the count and whether it is in bytes.
    Limit(u64, bool),
    /// Not set (an optional field left to its automatic value).
    Unset,
}

impl Value {
    /// The number of a `Num` (or `Int`); 0 otherwise (the parser never sends another variant).
    pub fn num(self) -> f64 {
        match self {
            Value::Num(x) => x,
            Value::Int(i) => i as f64,
            _ => 0.0,
        }
    }
    /// The integer of an `Int`.
    pub fn int(self) -> u64 {
        match self {
            Value::Int(i) | Value::Limit(i, _) => i,
            _ => 0,
        }
    }
    /// The boolean of a `Bool`.
    pub fn bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }
    /// The string of a `Choice` ("" otherwise).
    pub fn choice(self) -> &'static str {
        match self {
            Value::Choice(s) => s,
            _ => "",
        }
    }
}

/// A field type a key may set directly (see [`field!`](crate::field)).
pub trait FieldValue: Sized {
    fn to_value(&self) -> Value;
    fn from_value(v: Value) -> Self;
}

impl FieldValue for f64 {
    fn to_value(&self) -> Value {
        Value::Num(*self)
    }
    fn from_value(v: Value) -> Self {
        v.num()
    }
}
impl FieldValue for u64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
    fn from_value(v: Value) -> Self {
        v.int()
    }
}
impl FieldValue for u32 {
    fn to_value(&self) -> Value {
        Value::Int(*self as u64)
    }
    fn from_value(v: Value) -> Self {
        u32::try_from(v.int()).unwrap_or(u32::MAX)
    }
}
impl FieldValue for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: Value) -> Self {
        v.bool()
    }
}
impl FieldValue for SimDuration {
    fn to_value(&self) -> Value {
        Value::Duration(*self)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::Duration(d) => d,
            _ => SimDuration::ZERO,
        }
    }
}
impl<T: FieldValue> FieldValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Unset, T::to_value)
    }
    fn from_value(v: Value) -> Self {
        match v {
            Value::Unset => None,
            v => Some(T::from_value(v)),
        }
    }
}

/// How a key reaches its params struct: write a parsed value, read the current one back.
#[derive(Clone, Copy)]
pub struct Access<P> {
    pub set: fn(&mut P, Value),
    pub get: fn(&P) -> Value,
}

/// [`Access`] to one field (a path such as `pi.q_ref` reaches a nested struct).
#[macro_export]
macro_rules! field {
    ($($f:ident).+) => {
        $crate::params::Access {
            set: |p, v| p.$($f).+ = $crate::params::FieldValue::from_value(v),
            get: |p| $crate::params::FieldValue::to_value(&p.$($f).+),
        }
    };
}

/// One scenario key of a discipline: the single declaration of that parameter.
#[derive(Clone, Copy)]
pub struct Param<P> {
    /// The key in a queue table.
    pub key: &'static str,
    /// How its value is written.
    pub syntax: Syntax,
    /// Its unit ("packets", "bytes", "Hz", …; "" for a pure number, a switch or a choice).
    pub unit: &'static str,
    /// The values it accepts.
    pub range: Range,
    /// One line: what it does.
    pub doc: &'static str,
    /// Where its default comes from (paper, RFC, ns-2, a seed study).
    pub source: &'static str,
    /// The field(s) it sets.
    pub access: Access<P>,
}

/// A rule between two keys of one table, on which keys were given (not on their values).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyRule {
    /// `key` and `other` may not both be given.
    Conflict {
        key: &'static str,
        other: &'static str,
        reason: &'static str,
    },
    /// `key` set to true and `other` may not both be given.
    ConflictIfTrue {
        key: &'static str,
        other: &'static str,
        reason: &'static str,
    },
    /// `key` may only be given when the bool key `other` is true.
    NeedsTrue {
        key: &'static str,
        other: &'static str,
        reason: &'static str,
    },
}

/// One override of a named profile: `key = value` where the table does not give `key`, none of
/// `unless` is given, and the bool key `when` (if any) is true.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileSet {
    pub key: &'static str,
    pub value: Value,
    pub unless: &'static [&'static str],
    pub when: Option<&'static str>,
}

/// A named profile (`profile = "ns2"`): an override table over the defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// What the profile stands for (and its source).
    pub doc: &'static str,
    pub sets: &'static [ProfileSet],
}

/// A discipline's complete declaration: its keys, rules between keys, profiles and the model's
/// own validation (ranges from the declaration plus cross-field rules).
pub struct Model<P: 'static> {
    /// The `kind` that selects it.
    pub kind: &'static str,
    /// One line naming the discipline and its reference.
    pub title: &'static str,
    /// Its keys, in groups (a group may be shared with another discipline through a macro).
    pub params: &'static [&'static [Param<P>]],
    pub rules: &'static [KeyRule],
    pub profiles: &'static [Profile],
    /// Ranges and cross-field rules (the model's `validate`).
    pub validate: fn(&P) -> Result<(), ParamError>,
    /// Into the engine's enum.
    pub wrap: fn(P) -> DisciplineParams,
}

/// What the tables, the CLI and the parser know of a key, without the params type.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamInfo {
    pub key: &'static str,
    pub syntax: Syntax,
    pub unit: &'static str,
    pub range: Range,
    pub doc: &'static str,
    pub source: &'static str,
    /// The default, as read from the params struct's `Default`.
    pub default: Value,
}

/// A discipline's declaration, behind one object type for every params struct.
pub trait Declared: Sync {
    /// The `kind` that selects it.
    fn kind(&self) -> &'static str;
    /// One line naming the discipline and its reference.
    fn title(&self) -> &'static str;
    /// Every key with its default.
    fn params(&self) -> Vec<ParamInfo>;
    /// Its named profiles.
    fn profiles(&self) -> &'static [Profile];
    /// Every key a table of this kind accepts (`kind`, the params, `profile` if any).
    fn keys(&self) -> Vec<&'static str> {
        let mut k = vec!["kind"];
        k.extend(self.params().iter().map(|p| p.key));
        if !self.profiles().is_empty() {
            k.push("profile");
        }
        k
    }
    /// Params from the defaults, a profile and the `given` keys (already of their syntax),
    /// checked by the key rules and the model's `validate`. Errors name the key.
    fn assemble(
        &self,
        given: &[(&'static str, Value)],
        profile: Option<&str>,
    ) -> Result<DisciplineParams, ParamError>;
}

impl<P: Default + 'static> Model<P> {
    fn all(&self) -> impl Iterator<Item = &Param<P>> {
        self.params.iter().flat_map(|g| g.iter())
    }
    fn param(&self, key: &str) -> Option<&Param<P>> {
        self.all().find(|p| p.key == key)
    }
}

fn err(key: &str, reason: impl Into<String>) -> ParamError {
    ParamError {
        key: key.into(),
        reason: reason.into(),
    }
}

impl<P: Default + 'static> Declared for Model<P> {
    fn kind(&self) -> &'static str {
        self.kind
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn params(&self) -> Vec<ParamInfo> {
        let d = P::default();
        self.all()
            .map(|p| ParamInfo {
                key: p.key,
                syntax: p.syntax,
                unit: p.unit,
                range: p.range,
                doc: p.doc,
                source: p.source,
                default: (p.access.get)(&d),
            })
            .collect()
    }
    fn profiles(&self) -> &'static [Profile] {
        self.profiles
    }
    fn assemble(
        &self,
        given: &[(&'static str, Value)],
        profile: Option<&str>,
    ) -> Result<DisciplineParams, ParamError> {
        let has = |k: &str| given.iter().any(|(g, _)| *g == k);
        let mut p = P::default();
        for (k, v) in given {
            let param = self
                .param(k)
                .ok_or_else(|| err(k, format!("not a key of {}", self.kind)))?;
            (param.access.set)(&mut p, *v);
        }
        if let Some(name) = profile {
            let names: Vec<_> = self.profiles.iter().map(|x| x.name).collect();
            let prof = self
                .profiles
                .iter()
                .find(|x| x.name == name)
                .ok_or_else(|| {
                    err(
                        "profile",
                        format!(
                            "unknown profile {name:?}; expected one of: {}",
                            names.join(", ")
                        ),
                    )
                })?;
            for s in prof.sets {
                let when = s.when.is_none_or(|w| {
                    self.param(w)
                        .is_some_and(|q| (q.access.get)(&p) == Value::Bool(true))
                });
                if !has(s.key) && !s.unless.iter().any(|u| has(u)) && when {
                    let q = self.param(s.key).expect("a profile sets a declared key");
                    (q.access.set)(&mut p, s.value);
                }
            }
        }
        let is_true = |k: &str| {
            self.param(k)
                .is_some_and(|q| (q.access.get)(&p) == Value::Bool(true))
        };
        for r in self.rules {
            match *r {
                KeyRule::Conflict { key, other, reason } if has(key) && has(other) => {
                    return Err(err(key, reason))
                }
                KeyRule::ConflictIfTrue { key, other, reason }
                    if has(key) && is_true(key) && has(other) =>
                {
                    return Err(err(key, reason))
                }
                KeyRule::NeedsTrue { key, other, reason } if has(key) && !is_true(other) => {
                    return Err(err(key, reason))
                }
                _ => {}
            }
        }
        (self.validate)(&p)?;
        Ok((self.wrap)(p))
    }
}

/// Check every declared single-key range of `p` (keys whose value is `Unset` are skipped;
/// [`Range::Cross`] is left to the caller). The first violation, in declaration order.
pub fn check_ranges<P>(groups: &[&[Param<P>]], p: &P) -> Result<(), ParamError> {
    for param in groups.iter().flat_map(|g| g.iter()) {
        let v = (param.access.get)(p);
        if let Some(reason) = violation(param.range, v, param.unit) {
            return Err(err(param.key, reason));
        }
    }
    Ok(())
}

/// Why `v` breaks `range`, if it does.
fn violation(range: Range, v: Value, unit: &str) -> Option<String> {
    let u = if unit.is_empty() || unit == "packets" || unit == "bytes" {
        String::new()
    } else {
        format!(" {unit}")
    };
    match (range, v) {
        (Range::Positive, Value::Duration(d)) if d.as_nanos() == 0 => {
            Some("must be greater than 0".into())
        }
        (Range::AtLeast(lo), Value::Int(i) | Value::Limit(i, _)) if (i as f64) < lo => Some(
            format!("must be at least {lo}{}, got {i}", plural(unit, lo)),
        ),
        (Range::AtLeast(lo), Value::Num(x)) if !(x.is_finite() && x >= lo) => {
            Some(format!("must be a finite number ≥ {lo}{u}, got {x}"))
        }
        (Range::Above(lo), Value::Num(x)) if !(x.is_finite() && x > lo) => {
            Some(format!("must be a finite number > {lo}{u}, got {x}"))
        }
        (Range::OpenClosed(lo, hi), Value::Num(x)) if !(x > lo && x <= hi) => Some(format!(
            "must be in ({}, {}]{u}, got {x}",
            bound(lo),
            bound(hi)
        )),
        (Range::Closed(lo, hi), Value::Num(x)) if !(x >= lo && x <= hi) => Some(format!(
            "must be in [{}, {}]{u}, got {x}",
            bound(lo),
            bound(hi)
        )),
        (Range::Open(lo, hi), Value::Num(x)) if !(x > lo && x < hi) => Some(format!(
            "must be in ({}, {}){u}, got {x}",
            bound(lo),
            bound(hi)
        )),
        _ => None,
    }
}

fn plural(unit: &str, n: f64) -> String {
    match unit {
        "packets" if n == 1.0 => " packet".into(),
        "bytes" if n == 1.0 => " byte".into(),
        "" => String::new(),
        u => format!(" {u}"),
    }
}

/// A range bound as written in messages and tables: 1e9, not 1000000000.
pub fn bound(x: f64) -> String {
    if x.abs() >= 1e6 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}
