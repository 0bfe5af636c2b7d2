//! The one place where unit strings become typed values (STYLE.md "stringly-typed" rule).
//!
//! - rates: `"10Mbps"`, `"1.5Gbps"`, `"64kbps"`, `"100bps"` (decimal SI: k = 1e3, M = 1e6, G = 1e9);
//! - durations: `"79ms"`, `"1.5s"`, `"200us"`, `"10ns"`, `"2min"`, `"1h"`;
//! - sizes: `"1460B"`, `"1.5KB"`, `"2MB"` (decimal: KB = 1000 B, as the studies use),
//!   `"16KiB"` (binary: 1024 B).

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
    Ok(SimDuration((v * ns_per).round() as u64))
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
    Ok((v * mult).round() as u64)
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
}
