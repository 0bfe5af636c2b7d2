//! One key's declaration: [`Param`] (syntax, unit, range, doc, source, field) and the view of it
//! without the params type, [`ParamInfo`].

use crate::value::Value;
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
    /// A duration string that is a propagation delay or an RTT: at most
    /// `units::limits::MAX_DELAY` (1e6 s), refused as written above that.
    Delay,
    /// A rate string with a unit (`"10Mbps"`), in bit/s ([`Value::Int`]).
    Rate,
    /// `false` (off: [`Value::Unset`]) or a duration string; `true` is refused with this hint.
    DurationOrOff(&'static str),
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

/// The rule a single key's value must satisfy (checked by [`check_ranges`](crate::check_ranges)).
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
    /// A duration greater than zero and at most the bound.
    PositiveAtMost(SimDuration),
    /// Depends on other keys, checked by the model's `validate`; the text is for the tables.
    Cross(&'static str),
}

/// How a key reaches its params struct: write a parsed value, read the current one back.
#[derive(Clone, Copy)]
pub struct Access<P> {
    pub set: fn(&mut P, Value),
    pub get: fn(&P) -> Value,
}

/// One scenario key of a model: the single declaration of that parameter.
#[derive(Clone, Copy)]
pub struct Param<P> {
    /// The key in its table.
    pub key: &'static str,
    /// How its value is written.
    pub syntax: Syntax,
    /// Its unit ("packets", "bytes", "segments", "Hz", …; "" for a pure number, a switch or a
    /// choice).
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
    /// The key must be given ([`KeyRule::Required`](crate::KeyRule::Required)); `default` is then
    /// only the struct's placeholder.
    pub required: bool,
}
