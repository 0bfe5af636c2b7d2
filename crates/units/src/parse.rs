//! The one place where unit strings become typed values (STYLE.md "stringly-typed" rule).
//!
//! - rates: `"10Mbps"`, `"1.5Gbps"`, `"64kbps"`, `"100bps"` (decimal SI: k = 1e3, M = 1e6, G = 1e9);
//! - durations: `"79ms"`, `"1.5s"`, `"200us"`, `"10ns"`, `"2min"`, `"1h"`;
//! - sizes: `"1460B"`, `"1.5KB"`, `"2MB"` (decimal: KB = 1000 B, as the studies use),
//!   `"16KiB"` (binary: 1024 B).
//!
//! Each parser refuses a value above its bound in `limits.rs` before converting it to an
//! integer (so nothing saturates silently), with the value as written in the message.

use crate::limits::{MAX_DURATION, MAX_RATE_BPS, MAX_SIZE_BYTES};
use crate::rate::Rate;
use crate::time::SimDuration;
use std::fmt;

/// Why a unit string could not be parsed; the caller adds file and key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError {
    pub input: String,
    pub reason: String,
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\": {}", self.input, self.reason)
    }
}
impl std::error::Error for UnitError {}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| {
            !(c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == 'E' || *c == '-' || *c == '+')
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // "e" may start a unit? No unit here starts with e, so allowing exponents is safe.
    let (num, unit) = s.split_at(end);
    let v: f64 = num.parse().ok()?;
    Some((v, unit.trim()))
}

fn err(input: &str, reason: impl Into<String>) -> UnitError {
    UnitError {
        input: input.to_string(),
        reason: reason.into(),
    }
}

fn number_and_unit<'a>(
    input: &'a str,
    what: &str,
    units: &str,
) -> Result<(f64, &'a str), UnitError> {
    let (v, unit) = split_number(input)
        .ok_or_else(|| err(input, format!("expected a {what} such as {units}")))?;
    if !v.is_finite() {
        return Err(err(input, "not a finite number"));
    }
    if v < 0.0 {
        return Err(err(input, format!("a {what} cannot be negative")));
    }
    Ok((v, unit))
}

/// Parse a rate such as `"10Mbps"` into bits per second.
pub fn parse_rate(input: &str) -> Result<Rate, UnitError> {
    let (v, unit) = number_and_unit(input, "rate", "\"10Mbps\"")?;
    let mult = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "" => return Err(err(input, "missing unit (bps, kbps, Mbps, Gbps)")),
        u => {
            return Err(err(
                input,
                format!("unknown rate unit \"{u}\" (bps, kbps, Mbps, Gbps)"),
            ))
        }
    };
    let bps = (v * mult).round();
    if bps <= 0.0 {
        return Err(err(input, "a rate must be positive"));
    }
    if bps > MAX_RATE_BPS as f64 {
        return Err(err(
            input,
            "too large: a rate must be at most 10000Gbps (1e13 bps)",
        ));
    }
    Ok(Rate::from_bps(bps as u64))
}

/// Parse a duration such as `"79ms"`.
pub fn parse_duration(input: &str) -> Result<SimDuration, UnitError> {
    let (v, unit) = number_and_unit(input, "duration", "\"79ms\"")?;
    let ns_per = match unit {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "h" => 3600e9,
        "" => return Err(err(input, "missing unit (ns, us, ms, s, min, h)")),
        u => {
            return Err(err(
                input,
                format!("unknown time unit \"{u}\" (ns, us, ms, s, min, h)"),
            ))
        }
    };
    let ns = (v * ns_per).round();
    if ns > MAX_DURATION.0 as f64 {
        return Err(err(
            input,
            "too large: a duration must be at most 1e9s (about 31.7 years)",
        ));
    }
    Ok(SimDuration(ns as u64))
}

/// Parse a size such as `"1.5KB"` into bytes (rounded to the nearest byte).
pub fn parse_size(input: &str) -> Result<u64, UnitError> {
    let (v, unit) = number_and_unit(input, "size", "\"1.5KB\"")?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "" => return Err(err(input, "missing unit (B, KB, MB, GB, KiB, MiB)")),
        u => {
            return Err(err(
                input,
                format!("unknown size unit \"{u}\" (B, KB, MB, GB, KiB, MiB)"),
            ))
        }
    };
    let bytes = (v * mult).round();
    if bytes > MAX_SIZE_BYTES as f64 {
        return Err(err(
            input,
            "too large: a size must be at most 1000GB (1e12 B)",
        ));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("10Mbps").unwrap().bps, 10_000_000);
        assert_eq!(parse_rate("1.5Gbps").unwrap().bps, 1_500_000_000);
        assert!(parse_rate("-3Mbps")
            .unwrap_err()
            .reason
            .contains("negative"));
        assert!(parse_rate("10MB")
            .unwrap_err()
            .reason
            .contains("unknown rate unit"));
        assert!(parse_rate("10")
            .unwrap_err()
            .reason
            .contains("missing unit"));
        assert!(parse_rate("0Mbps").unwrap_err().reason.contains("positive"));
    }

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("79ms").unwrap(),
            SimDuration::from_millis(79)
        );
        assert_eq!(
            parse_duration("1.5s").unwrap(),
            SimDuration::from_millis(1500)
        );
        assert_eq!(
            parse_duration("10min").unwrap(),
            SimDuration::from_secs(600)
        );
        assert!(parse_duration("fast").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1.5KB").unwrap(), 1500);
        assert_eq!(parse_size("16KiB").unwrap(), 16384);
        assert_eq!(parse_size("1460B").unwrap(), 1460);
        assert!(parse_size("3 apples").is_err());
    }

    #[test]
    fn bounds_are_inclusive_and_checked_before_saturation() {
        assert!(parse_rate("10Tbps").unwrap_err().reason.contains("unknown"));
        assert_eq!(parse_rate("10000Gbps").unwrap().bps, MAX_RATE_BPS);
        assert_eq!(parse_duration("1e9s").unwrap(), MAX_DURATION);
        assert_eq!(parse_size("1000GB").unwrap(), MAX_SIZE_BYTES);
        let e = parse_rate("10001Gbps").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"10001Gbps\": too large: a rate must be at most 10000Gbps (1e13 bps)"
        );
        let e = parse_rate("1e30Gbps").unwrap_err();
        assert!(e.to_string().starts_with("\"1e30Gbps\": too large"), "{e}");
        let e = parse_duration("1e30s").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"1e30s\": too large: a duration must be at most 1e9s (about 31.7 years)"
        );
        assert!(parse_duration("16666667min").is_err()); // 1.00000002e9 s
        let e = parse_size("1e30B").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"1e30B\": too large: a size must be at most 1000GB (1e12 B)"
        );
        // Past f64's range the product is infinite: still the same clean error.
        assert!(parse_size("1e308GB")
            .unwrap_err()
            .reason
            .starts_with("too large"));
    }
}
