//! [`Value`]: a parsed value of a key, and [`FieldValue`]: the field types a key may set
//! directly. Enums written as strings implement [`Choice`] through [`choices!`](crate::choices).

use units::SimDuration;

/// A parsed value of a key (the parser's output, a profile's override, a default as read back).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Num(f64),
    Int(u64),
    Bool(bool),
    Duration(SimDuration),
    /// One of a [`Syntax::Choice`](crate::Syntax::Choice) / `BoolOr`'s strings.
    Choice(&'static str),
    /// A [`Syntax::PacketsOrBytes`](crate::Syntax::PacketsOrBytes) limit: the count and whether
    /// it is in bytes.
    Limit(u64, bool),
    /// Not set (an optional field left to its automatic value, or a switch that is off).
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

/// An enum written as one of a fixed set of strings (implemented by [`choices!`](crate::choices)).
pub trait Choice: Sized + Copy + 'static {
    /// Every string, in declaration order (the first is the fallback of `from_value`).
    const OPTIONS: &'static [&'static str];
    /// The string of this variant.
    fn name(self) -> &'static str;
    /// The variant of a string of [`Choice::OPTIONS`].
    fn from_name(s: &str) -> Option<Self>;
}

/// Implement [`Choice`] and [`FieldValue`] for a fieldless enum:
/// `choices!(Variant { Tahoe => "tahoe", Reno => "reno" });`.
#[macro_export]
macro_rules! choices {
    ($t:ty { $($v:ident => $s:literal),+ $(,)? }) => {
        impl $crate::Choice for $t {
            const OPTIONS: &'static [&'static str] = &[$($s),+];
            fn name(self) -> &'static str {
                match self { $(<$t>::$v => $s),+ }
            }
            fn from_name(s: &str) -> Option<Self> {
                match s { $($s => Some(<$t>::$v),)+ _ => None }
            }
        }
        impl $crate::FieldValue for $t {
            fn to_value(&self) -> $crate::Value {
                $crate::Value::Choice($crate::Choice::name(*self))
            }
            fn from_value(v: $crate::Value) -> Self {
                let first = <$t as $crate::Choice>::OPTIONS[0];
                <$t as $crate::Choice>::from_name(v.choice())
                    .or_else(|| <$t as $crate::Choice>::from_name(first))
                    .expect("an option of the enum")
            }
        }
    };
}

/// [`Access`](crate::Access) to one field (a path such as `pi.q_ref` reaches a nested struct).
#[macro_export]
macro_rules! field {
    ($($f:ident).+) => {
        $crate::Access {
            set: |p, v| p.$($f).+ = $crate::FieldValue::from_value(v),
            get: |p| $crate::FieldValue::to_value(&p.$($f).+),
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Mode {
        Paper,
        Ns2,
    }
    crate::choices!(Mode { Paper => "paper", Ns2 => "ns2" });

    #[test]
    fn choices_round_trip_and_fall_back_to_the_first() {
        assert_eq!(Mode::OPTIONS, &["paper", "ns2"]);
        assert_eq!(Mode::Ns2.to_value(), Value::Choice("ns2"));
        assert_eq!(Mode::from_value(Value::Choice("ns2")), Mode::Ns2);
        assert_eq!(Mode::from_value(Value::Choice("paper")), Mode::Paper);
        assert_eq!(Mode::from_value(Value::Num(1.0)), Mode::Paper);
        assert_eq!(Mode::from_name("NS2"), None);
    }

    #[test]
    fn optional_fields_read_unset_as_none() {
        let d = SimDuration::from_millis(40);
        assert_eq!(Option::<SimDuration>::from_value(Value::Unset), None);
        assert_eq!(
            Option::<SimDuration>::from_value(Value::Duration(d)),
            Some(d)
        );
        assert_eq!(Some(d).to_value(), Value::Duration(d));
        assert_eq!(u32::from_value(Value::Int(u64::MAX)), u32::MAX);
    }
}
