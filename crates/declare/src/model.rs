//! A model's complete declaration ([`Model`]): its keys, the rules between keys, its named
//! profiles and its validation; and [`Declared`], the same behind one object type for every
//! params struct (what parsers, tables and the CLI hold).

use crate::param::{Param, ParamInfo, Syntax};
use crate::value::Value;

/// An invalid parameter: the key and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub key: String,
    pub reason: String,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)
    }
}
impl std::error::Error for ParamError {}

/// A `ParamError` for `key`.
pub fn err(key: &str, reason: impl Into<String>) -> ParamError {
    ParamError {
        key: key.into(),
        reason: reason.into(),
    }
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
    /// `key` may only be given when the choice key `other` is `value`.
    NeedsChoice {
        key: &'static str,
        other: &'static str,
        value: &'static str,
        reason: &'static str,
    },
    /// `key` given as true only when the choice key `other` (given or from a profile) is one
    /// of `values`; the error ends with the value: `{reason} ({other} "{value}")`.
    TrueNeedsChoice {
        key: &'static str,
        other: &'static str,
        values: &'static [&'static str],
        reason: &'static str,
    },
    /// `key` must be given (it has no default).
    Required { key: &'static str },
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

impl ProfileSet {
    /// `key = value`, unconditionally (unless the table gives `key`).
    pub const fn set(key: &'static str, value: Value) -> ProfileSet {
        ProfileSet {
            key,
            value,
            unless: &[],
            when: None,
        }
    }
}

/// A named profile (`profile = "ns2"`): an override table over the defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    /// What the profile stands for (and its source).
    pub doc: &'static str,
    pub sets: &'static [ProfileSet],
}

/// A model's complete declaration: its keys, rules between keys, profiles and the model's own
/// validation (ranges from the declaration plus cross-field rules). `O` is what the parser
/// hands on (the params struct itself, or an engine enum wrapping it).
pub struct Model<P: 'static, O: 'static> {
    /// The `kind` that selects it (or, for a table without kinds such as `[tcp]`, its name).
    pub kind: &'static str,
    /// One line naming the model and its reference.
    pub title: &'static str,
    /// Its keys, in groups (a group may be shared with another model through a macro).
    pub params: &'static [&'static [Param<P>]],
    pub rules: &'static [KeyRule],
    pub profiles: &'static [Profile],
    /// Ranges and cross-field rules (the model's `validate`).
    pub validate: fn(&P) -> Result<(), ParamError>,
    /// Into what the parser hands on.
    pub wrap: fn(P) -> O,
}

/// A model's declaration, behind one object type for every params struct.
pub trait Declared<O>: Sync {
    /// The `kind` that selects it.
    fn kind(&self) -> &'static str;
    /// One line naming the model and its reference.
    fn title(&self) -> &'static str;
    /// Every key with its default.
    fn params(&self) -> Vec<ParamInfo>;
    /// Its named profiles.
    fn profiles(&self) -> &'static [Profile];
    /// Every key of this model in a table: the params and `profile` if it has profiles (a
    /// parser of kind-dispatched tables adds `kind`).
    fn keys(&self) -> Vec<&'static str> {
        let mut k: Vec<&'static str> = self.params().iter().map(|p| p.key).collect();
        if !self.profiles().is_empty() {
            k.push("profile");
        }
        k
    }
    /// The declared syntax of `key`, if it is declared.
    fn syntax(&self, key: &str) -> Option<Syntax> {
        self.params()
            .iter()
            .find(|p| p.key == key)
            .map(|p| p.syntax)
    }
    /// Params from the defaults, a profile and the `given` keys (already of their syntax),
    /// checked by the key rules and the model's `validate`. Errors name the key.
    fn assemble(
        &self,
        given: &[(&'static str, Value)],
        profile: Option<&str>,
    ) -> Result<O, ParamError>;
}

impl<P: Default + 'static, O: 'static> Model<P, O> {
    fn all(&self) -> impl Iterator<Item = &Param<P>> {
        self.params.iter().flat_map(|g| g.iter())
    }
    fn param(&self, key: &str) -> Option<&Param<P>> {
        self.all().find(|p| p.key == key)
    }
}

impl<P: Default + 'static, O: 'static> Model<P, O> {
    /// A cross-key error of `validate` names the first key of its rule; if the table did not give
    /// that key, report it at the first key its reason names that the table did give (the one
    /// the user most likely set: `mss = "70000B"` breaks `receive_window ≥ mss` at `mss`).
    fn at_given_key(&self, e: ParamError, has: &dyn Fn(&str) -> bool) -> ParamError {
        if has(&e.key) {
            return e;
        }
        let named = e
            .reason
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| self.param(w).is_some() && has(w));
        match named {
            Some(k) => ParamError {
                key: k.to_string(),
                reason: e.reason,
            },
            None => e,
        }
    }
}

impl<P: Default + 'static, O: 'static> Declared<O> for Model<P, O> {
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
                required: self.rules.contains(&KeyRule::Required { key: p.key }),
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
    ) -> Result<O, ParamError> {
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
        let is_choice = |k: &str, want: &'static str| {
            self.param(k)
                .is_some_and(|q| (q.access.get)(&p) == Value::Choice(want))
        };
        // Missing keys first: they are reported before any other rule.
        for r in self.rules {
            if let KeyRule::Required { key } = *r {
                if !has(key) {
                    return Err(err(key, "missing required key"));
                }
            }
        }
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
                KeyRule::NeedsChoice {
                    key,
                    other,
                    value,
                    reason,
                } if has(key) && !is_choice(other, value) => return Err(err(key, reason)),
                KeyRule::TrueNeedsChoice {
                    key,
                    other,
                    values,
                    reason,
                } if has(key) && is_true(key) && !values.iter().any(|v| is_choice(other, v)) => {
                    let value = match self.param(other).map(|q| (q.access.get)(&p)) {
                        Some(Value::Choice(c)) => c,
                        _ => "",
                    };
                    return Err(err(key, format!("{reason} ({other} \"{value}\")")));
                }
                _ => {}
            }
        }
        (self.validate)(&p).map_err(|e| self.at_given_key(e, &has))?;
        Ok((self.wrap)(p))
    }
}
