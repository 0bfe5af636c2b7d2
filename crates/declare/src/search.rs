//! The default search range a tuner offers for a key, derived from its declaration: the
//! default scaled down and up by [`SPAN`] on a log scale, clipped to the declared range.
//!
//! Offered for the numeric syntaxes (numbers, fractions, integers, packet limits, sizes,
//! durations) whose default is set and positive; switches and choices are modelling choices and
//! are searched only when a tuning table lists them. Keys whose range depends on other keys
//! ([`Range::Cross`], e.g. RED's `max_th > min_th`) get the default-based range; a trial that
//! breaks the cross-key rule is refused by the model's `validate` like any other input.

use crate::param::{ParamInfo, Range, Syntax};
use crate::value::Value;
use units::SimDuration;

/// How far either side of the default a default search range reaches (factor, log scale).
pub const SPAN: f64 = 10.0;

/// A search range over one key's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Search {
    /// Real numbers in [lo, hi].
    Float { lo: f64, hi: f64, log: bool },
    /// Integers in [lo, hi] (packets, bytes, segments: the key's unit).
    Int { lo: u64, hi: u64, log: bool },
    /// Durations in [lo, hi], log scale.
    Duration { lo: SimDuration, hi: SimDuration },
}

/// [lo, hi] of a number key: the default ÷/× SPAN, inside the declared range.
fn float_bounds(d: f64, r: Range) -> Option<(f64, f64)> {
    if !(d.is_finite() && d > 0.0) {
        return None;
    }
    let (mut lo, mut hi) = (d / SPAN, d * SPAN);
    match r {
        Range::AtLeast(a) | Range::Above(a) => lo = lo.max(a),
        Range::OpenClosed(a, b) | Range::Closed(a, b) | Range::Open(a, b) => {
            lo = lo.max(a);
            hi = hi.min(b);
        }
        _ => {}
    }
    (lo < hi).then_some((lo, hi))
}

/// [lo, hi] of an integer key with minimum `min` and maximum `max`.
fn int_bounds(d: u64, min: u64, max: u64) -> Option<Search> {
    if d == 0 {
        return None;
    }
    let lo = ((d as f64 / SPAN).ceil() as u64).max(min).max(1);
    let hi = ((d as f64 * SPAN) as u64).min(max);
    (lo < hi).then_some(Search::Int {
        lo,
        hi,
        log: hi >= 10 * lo,
    })
}

/// The default search range of `p`, if one is offered.
pub fn default_search(p: &ParamInfo) -> Option<Search> {
    let min = match p.range {
        Range::AtLeast(x) => x.max(0.0) as u64,
        _ => 0,
    };
    match (p.syntax, p.default) {
        (Syntax::Number | Syntax::Fraction, Value::Num(d)) => {
            float_bounds(d, p.range).map(|(lo, hi)| Search::Float { lo, hi, log: true })
        }
        (Syntax::Integer(max), Value::Int(d)) => int_bounds(d, min, max),
        (Syntax::PacketLimit(_) | Syntax::PacketsOrBytes, Value::Int(d) | Value::Limit(d, _)) => {
            int_bounds(d, min, u64::MAX)
        }
        (Syntax::Size, Value::Int(d)) => int_bounds(d, min, u32::MAX as u64),
        (Syntax::Rate, Value::Int(d)) => int_bounds(d, min, u64::MAX),
        (Syntax::Duration | Syntax::Delay | Syntax::DurationOrOff(_), Value::Duration(d))
            if d.as_nanos() > 0 =>
        {
            let ns = d.as_nanos() as f64;
            let mut hi = (ns * SPAN) as u64;
            if let Range::PositiveAtMost(b) = p.range {
                hi = hi.min(b.as_nanos());
            }
            Some(Search::Duration {
                lo: SimDuration::from_nanos((ns / SPAN).ceil() as u64),
                hi: SimDuration::from_nanos(hi),
            })
        }
        _ => None,
    }
}

/// A search range as written in a tuning table (`{ float = [0.01, 1.0], log = true }`).
pub fn search_text(s: Search) -> String {
    use crate::table::duration_text;
    let log = |l: bool| if l { ", log = true" } else { "" };
    match s {
        Search::Float { lo, hi, log: l } => format!("{{ float = [{lo}, {hi}]{} }}", log(l)),
        Search::Int { lo, hi, log: l } => format!("{{ int = [{lo}, {hi}]{} }}", log(l)),
        Search::Duration { lo, hi } => format!(
            "{{ duration = [\"{}\", \"{}\"], log = true }}",
            duration_text(lo.as_nanos()),
            duration_text(hi.as_nanos())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(syntax: Syntax, range: Range, default: Value) -> ParamInfo {
        ParamInfo {
            key: "k",
            syntax,
            unit: "",
            range,
            doc: "",
            source: "",
            default,
            required: false,
        }
    }

    #[test]
    fn ranges_span_the_default_inside_the_declared_range() {
        // RED max_p 0.1 in (0, 1]: [0.01, 1], log.
        let s = default_search(&info(
            Syntax::Number,
            Range::OpenClosed(0.0, 1.0),
            Value::Num(0.1),
        ));
        assert_eq!(
            s,
            Some(Search::Float {
                lo: 0.01,
                hi: 1.0,
                log: true
            })
        );
        // A packet limit of 50 with at least 1: [5, 500].
        let s = default_search(&info(
            Syntax::PacketLimit(""),
            Range::AtLeast(1.0),
            Value::Int(50),
        ));
        assert_eq!(
            s,
            Some(Search::Int {
                lo: 5,
                hi: 500,
                log: true
            })
        );
        // An integer 3 with minimum 1 and maximum 5: [1, 5], linear.
        let s = default_search(&info(
            Syntax::Integer(5),
            Range::AtLeast(1.0),
            Value::Int(3),
        ));
        assert_eq!(
            s,
            Some(Search::Int {
                lo: 1,
                hi: 5,
                log: false
            })
        );
        // A delay of 200 ms at most 500 ms: [20 ms, 500 ms].
        let ms = SimDuration::from_millis;
        let s = default_search(&info(
            Syntax::DurationOrOff(""),
            Range::PositiveAtMost(ms(500)),
            Value::Duration(ms(200)),
        ));
        assert_eq!(
            s,
            Some(Search::Duration {
                lo: ms(20),
                hi: ms(500)
            })
        );
        assert_eq!(
            search_text(s.unwrap()),
            "{ duration = [\"20ms\", \"500ms\"], log = true }"
        );
    }

    #[test]
    fn switches_choices_and_unset_or_zero_defaults_are_not_offered() {
        assert_eq!(
            default_search(&info(Syntax::Bool, Range::Any, Value::Bool(true))),
            None
        );
        let none = Value::Unset;
        assert_eq!(
            default_search(&info(Syntax::DurationOrOff(""), Range::Any, none)),
            None
        );
        assert_eq!(
            default_search(&info(Syntax::Number, Range::AtLeast(0.0), Value::Num(0.0))),
            None
        );
    }
}
