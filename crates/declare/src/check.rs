//! The single-key range checks ([`check_ranges`]) every model's `validate` starts with, and
//! how a bound is written in messages and tables ([`bound`]).

use crate::model::{err, ParamError};
use crate::param::{Param, Range};
use crate::table::duration_text;
use crate::value::Value;

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
        (Range::Positive | Range::PositiveAtMost(_), Value::Duration(d)) if d.as_nanos() == 0 => {
            Some("must be greater than 0".into())
        }
        (Range::PositiveAtMost(hi), Value::Duration(d)) if d > hi => Some(format!(
            "must be at most {}, got {}",
            duration_text(hi.as_nanos()),
            duration_text(d.as_nanos())
        )),
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
        "segments" if n == 1.0 => " segment".into(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use units::SimDuration;

    #[test]
    fn messages_name_the_bound_and_the_value() {
        let ms = SimDuration::from_millis;
        let r = Range::PositiveAtMost(ms(500));
        assert_eq!(violation(r, Value::Duration(ms(500)), ""), None);
        assert_eq!(
            violation(r, Value::Duration(ms(600)), "").as_deref(),
            Some("must be at most 500ms, got 600ms")
        );
        assert_eq!(
            violation(r, Value::Duration(ms(0)), "").as_deref(),
            Some("must be greater than 0")
        );
        assert_eq!(violation(r, Value::Unset, ""), None);
        assert_eq!(
            violation(Range::AtLeast(1.0), Value::Int(0), "segments").as_deref(),
            Some("must be at least 1 segment, got 0")
        );
        assert_eq!(
            violation(Range::OpenClosed(0.0, 1.0), Value::Num(0.0), "").as_deref(),
            Some("must be in (0, 1], got 0")
        );
        assert_eq!(bound(1e9), "1e9");
    }
}
