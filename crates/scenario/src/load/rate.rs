//! Rate strings as `load` and `[calibration]` read them (`"10Mbps"`, `"1.5Gbps"`, `"64kbps"`;
//! decimal SI, as crates/units/src/parse.rs), in bit/s as a float: `load · C` is float
//! arithmetic.

use crate::error::{KeyError, Res};
use crate::sweep::canonical::py_repr;
use toml::Value;

/// Units by length, longest first, and their multipliers.
const UNITS: [(&str, f64); 5] = [
    ("kbps", 1e3),
    ("Kbps", 1e3),
    ("Mbps", 1e6),
    ("Gbps", 1e9),
    ("bps", 1.0),
];

/// The rate `v` (None: missing) in bit/s; `KEY: expected a positive rate …` otherwise.
pub(crate) fn rate_bps(v: Option<&Value>, key: &str) -> Res<f64> {
    let bad = || {
        let got = v.map_or_else(|| "None".to_string(), py_repr);
        KeyError::new(
            key,
            format!("expected a positive rate such as \"10Mbps\", got {got}"),
        )
    };
    let s = v.and_then(Value::as_str).ok_or_else(bad)?.trim();
    let (unit, mult) = UNITS.iter().find(|(u, _)| s.ends_with(u)).ok_or_else(bad)?;
    let number: f64 = s[..s.len() - unit.len()]
        .trim()
        .parse()
        .map_err(|_| bad())?;
    let bps = number * mult;
    if bps.is_finite() && bps > 0.0 {
        Ok(bps)
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(t: &str) -> Value {
        Value::String(t.into())
    }

    #[test]
    fn rates() {
        assert_eq!(rate_bps(Some(&s("10Mbps")), "k").unwrap(), 10e6);
        assert_eq!(rate_bps(Some(&s("1.5Gbps")), "k").unwrap(), 1.5e9);
        assert_eq!(rate_bps(Some(&s("64kbps")), "k").unwrap(), 64e3);
        assert_eq!(rate_bps(Some(&s("100bps")), "k").unwrap(), 100.0);
        let e = rate_bps(Some(&s("10 mbit")), "f.k").unwrap_err();
        assert_eq!(e.key, "f.k");
        assert_eq!(
            e.reason,
            "expected a positive rate such as \"10Mbps\", got '10 mbit'"
        );
        assert!(rate_bps(Some(&s("0Mbps")), "k").is_err());
        assert!(rate_bps(Some(&Value::Integer(10)), "k")
            .unwrap_err()
            .reason
            .ends_with("got 10"));
        assert!(rate_bps(None, "k")
            .unwrap_err()
            .reason
            .ends_with("got None"));
    }
}
