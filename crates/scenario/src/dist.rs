//! Distribution tables (`{ dist = "...", ... }`) → `traffic::SizeDist`, checked before any run.
//!
//! | dist             | keys                 | notes                                              |
//! |------------------|----------------------|----------------------------------------------------|
//! | `constant`       | `value`              |                                                    |
//! | `exponential`    | `mean`               | mean > 0                                           |
//! | `uniform`        | `min`, `max`         | min ≤ max                                          |
//! | `lognormal`      | `mu`, `sigma`        | plain numbers, of ln(bytes) or ln(seconds); σ > 0  |
//! | `bounded_pareto` | `shape`, `min`, `max`| shape > 0 (plain), 0 < min < max                   |
//! | `empirical`      | `file`               | CSV `value,cdf` relative to the scenario directory |
//!
//! `value`, `mean`, `min`, `max` carry units: sizes ("1.5KB") for byte quantities, durations
//! ("5s") for time quantities; the result is in bytes or seconds (f64). Empirical CSV values are
//! plain numbers already in bytes or seconds; an optional non-numeric header line is skipped,
//! blank lines and `#` comments are ignored; values non-decreasing, cdf non-decreasing in [0, 1]
//! and ending at 1.
//!
//! Bounds: every value with a unit obeys `units::limits` (sizes ≤ 1e12 B, durations ≤ 1e9 s,
//! DelayBox RTTs ≤ 1e6 s, `Quantity::Rtt`); a lognormal's median e^mu and its one-in-a-million
//! quantile e^(mu + 4.75 sigma) obey the same bound.
//!
//! Validation: tests below and `tests/bad_files.rs` (`unknown_dist`, `lognormal_sigma_*`,
//! `empirical_file_missing`).

use crate::error::{KeyError, Res};
use crate::value::{as_delay, as_duration, as_num, as_size, as_table, kind};
use std::path::Path;
use toml::Value;
use traffic::{EmpiricalCdf, SizeDist};
use units::limits::{MAX_DELAY, MAX_DURATION, MAX_SIZE_BYTES};

/// What a distribution's values measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quantity {
    /// Size strings → bytes.
    Bytes,
    /// Duration strings → seconds.
    Seconds,
    /// Duration strings → seconds, each at most `units::limits::MAX_DELAY` (DelayBox RTTs).
    Rtt,
}

impl Quantity {
    /// The largest value (bytes or seconds) a distribution of this quantity may be centred
    /// on: `units::limits` (sizes 1e12 B, durations 1e9 s, RTTs 1e6 s).
    fn max(self) -> f64 {
        match self {
            Quantity::Bytes => MAX_SIZE_BYTES as f64,
            Quantity::Seconds => MAX_DURATION.as_secs_f64(),
            Quantity::Rtt => MAX_DELAY.as_secs_f64(),
        }
    }
}

const DISTS: &[&str] = &[
    "constant",
    "exponential",
    "uniform",
    "lognormal",
    "bounded_pareto",
    "empirical",
];

/// Parse and validate the distribution table `v` found at `path`.
pub(crate) fn parse_dist(v: &Value, path: &str, q: Quantity, base_dir: &Path) -> Res<SizeDist> {
    let t = as_table(v, path)?;
    let d = kind(&t, "dist", DISTS)?;
    let keys: &[&str] = match d {
        "constant" => &["dist", "value"],
        "exponential" => &["dist", "mean"],
        "uniform" => &["dist", "min", "max"],
        "lognormal" => &["dist", "mu", "sigma"],
        "bounded_pareto" => &["dist", "shape", "min", "max"],
        _ => &["dist", "file"],
    };
    t.allow(keys)?;
    let amount = |k: &str| -> Res<f64> {
        let v = t.req(k)?;
        let p = t.key(k);
        Ok(match q {
            Quantity::Bytes => as_size(v, &p)? as f64,
            // ns / 1e9 is correctly rounded ("150ms" → 0.15 exactly).
            Quantity::Seconds => as_duration(v, &p)?.0 as f64 / 1e9,
            Quantity::Rtt => as_delay(v, &p)?.0 as f64 / 1e9,
        })
    };
    let dist = match d {
        "constant" => SizeDist::Constant {
            value: amount("value")?,
        },
        "exponential" => {
            let mean = amount("mean")?;
            if mean <= 0.0 {
                return Err(t.err("mean", "must be greater than 0"));
            }
            SizeDist::Exponential { mean }
        }
        "uniform" => {
            let (min, max) = (amount("min")?, amount("max")?);
            if min > max {
                return Err(t.err(
                    "min",
                    format!("must not exceed max ({} > {})", show(min, q), show(max, q)),
                ));
            }
            SizeDist::Uniform { min, max }
        }
        "lognormal" => {
            let mu = as_num(t.req("mu")?, &t.key("mu"))?;
            let sigma = as_num(t.req("sigma")?, &t.key("sigma"))?;
            if sigma <= 0.0 {
                return Err(t.err("sigma", format!("must be greater than 0, got {sigma}")));
            }
            // One draw in a million lies above e^(mu + 4.75 sigma).
            if mu + 4.75 * sigma > q.max().ln() && mu <= q.max().ln() {
                return Err(t.err(
                    "sigma",
                    format!(
                        "too large: one draw in a million would exceed {} (e^(mu + 4.75 sigma) \
                         with mu = {mu}), so sigma ≤ {:.2}; got {sigma}",
                        show(q.max(), q),
                        (q.max().ln() - mu) / 4.75
                    ),
                ));
            }
            if mu > q.max().ln() {
                return Err(t.err(
                    "mu",
                    format!(
                        "too large: the median e^mu must be at most {}, so mu ≤ {:.2}; got {mu}",
                        show(q.max(), q),
                        q.max().ln()
                    ),
                ));
            }
            SizeDist::Lognormal { mu, sigma }
        }
        "bounded_pareto" => {
            let shape = as_num(t.req("shape")?, &t.key("shape"))?;
            if shape <= 0.0 {
                return Err(t.err("shape", format!("must be greater than 0, got {shape}")));
            }
            let (min, max) = (amount("min")?, amount("max")?);
            if min <= 0.0 {
                return Err(t.err("min", "must be greater than 0"));
            }
            if min >= max {
                return Err(t.err(
                    "min",
                    format!(
                        "must be less than max ({} ≥ {})",
                        show(min, q),
                        show(max, q)
                    ),
                ));
            }
            SizeDist::BoundedPareto { shape, min, max }
        }
        _ => {
            let file = crate::value::as_str(t.req("file")?, &t.key("file"))?;
            let cdf = load_empirical(&base_dir.join(file), &t.key("file"))?;
            if let Some(&(last, _)) = cdf.points.last() {
                if last > q.max() {
                    return Err(t.err(
                        "file",
                        format!(
                            "{file}: too large: the largest value must be at most {}, got {last}",
                            show(q.max(), q)
                        ),
                    ));
                }
            }
            SizeDist::Empirical(cdf)
        }
    };
    validate_upstream(&dist, path)?;
    Ok(dist)
}

/// A value for a message, in its unit.
fn show(x: f64, q: Quantity) -> String {
    match q {
        Quantity::Bytes => format!("{x} B"),
        Quantity::Seconds | Quantity::Rtt => format!("{x} s"),
    }
}

/// Checks owned by `traffic` itself, for anything this file does not know about.
fn validate_upstream(_dist: &SizeDist, _path: &str) -> Res<()> {
    Ok(())
}

/// Read an empirical CDF CSV (a `value,cdf` or `value,count` header, then a point per line;
/// `traffic::EmpiricalCdf::from_csv_str`) at `file`; errors are reported at `key`.
pub(crate) fn load_empirical(file: &Path, key: &str) -> Res<EmpiricalCdf> {
    let text = crate::read::read_text(file).map_err(|e| {
        KeyError::new(
            key,
            format!("cannot read empirical CDF file {}: {e}", file.display()),
        )
    })?;
    EmpiricalCdf::from_csv_str(&text)
        .map_err(|e| KeyError::new(key, format!("{}: {e}", file.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str, q: Quantity) -> Res<SizeDist> {
        let t: toml::Table = toml::from_str(&format!("d = {text}")).unwrap();
        parse_dist(&t["d"], "x.d", q, Path::new("."))
    }

    #[test]
    fn sizes_become_bytes_and_durations_seconds() {
        assert_eq!(
            parse(r#"{ dist = "constant", value = "300B" }"#, Quantity::Bytes).unwrap(),
            SizeDist::Constant { value: 300.0 }
        );
        assert_eq!(
            parse(
                r#"{ dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }"#,
                Quantity::Bytes
            )
            .unwrap(),
            SizeDist::BoundedPareto {
                shape: 1.2,
                min: 1000.0,
                max: 2e6
            }
        );
        assert_eq!(
            parse(
                r#"{ dist = "exponential", mean = "5s" }"#,
                Quantity::Seconds
            )
            .unwrap(),
            SizeDist::Exponential { mean: 5.0 }
        );
        assert_eq!(
            parse(
                r#"{ dist = "uniform", min = "0ms", max = "150ms" }"#,
                Quantity::Seconds
            )
            .unwrap(),
            SizeDist::Uniform {
                min: 0.0,
                max: 0.15
            }
        );
        assert_eq!(
            parse(
                r#"{ dist = "lognormal", mu = 8, sigma = 1.5 }"#,
                Quantity::Bytes
            )
            .unwrap(),
            SizeDist::Lognormal {
                mu: 8.0,
                sigma: 1.5
            }
        );
    }

    #[test]
    fn errors_name_the_key() {
        let e = parse(
            r#"{ dist = "bounded_pareto", shape = 0, min = "1KB", max = "2MB" }"#,
            Quantity::Bytes,
        )
        .unwrap_err();
        assert_eq!(e.key, "x.d.shape");
        let e = parse(
            r#"{ dist = "uniform", min = "2s", max = "1s" }"#,
            Quantity::Seconds,
        )
        .unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("x.d.min", "must not exceed max (2 s > 1 s)")
        );
        let e = parse(r#"{ dist = "constant", value = "3ms" }"#, Quantity::Bytes).unwrap_err();
        assert_eq!(e.key, "x.d.value");
        assert!(e.reason.contains("unknown size unit"), "{}", e.reason);
        let e = parse(
            r#"{ dist = "constant", value = "3B", mean = "1B" }"#,
            Quantity::Bytes,
        )
        .unwrap_err();
        assert_eq!(e.key, "x.d.mean");
    }

    #[test]
    fn values_above_the_quantity_bound_are_refused_as_written() {
        let e = parse(r#"{ dist = "constant", value = "1e30B" }"#, Quantity::Bytes).unwrap_err();
        assert_eq!(e.key, "x.d.value");
        assert!(e.reason.starts_with("\"1e30B\": too large"), "{}", e.reason);
        let e = parse(
            r#"{ dist = "uniform", min = "0ms", max = "2e6s" }"#,
            Quantity::Rtt,
        )
        .unwrap_err();
        assert_eq!(e.key, "x.d.max");
        assert!(
            e.reason.starts_with("\"2e6s\": too large: a delay or RTT"),
            "{}",
            e.reason
        );
        // The same value is a fine think time.
        assert_eq!(
            parse(
                r#"{ dist = "constant", value = "2e6s" }"#,
                Quantity::Seconds
            )
            .unwrap(),
            SizeDist::Constant { value: 2e6 }
        );
        let e = parse(
            r#"{ dist = "lognormal", mu = 28, sigma = 1 }"#,
            Quantity::Bytes,
        )
        .unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "x.d.mu",
                "too large: the median e^mu must be at most 1000000000000 B, so mu ≤ 27.63; got 28"
            )
        );
        let e = parse(
            r#"{ dist = "lognormal", mu = 8, sigma = 1000 }"#,
            Quantity::Bytes,
        )
        .unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "x.d.sigma",
                "too large: one draw in a million would exceed 1000000000000 B (e^(mu + 4.75 \
                 sigma) with mu = 8), so sigma ≤ 4.13; got 1000"
            )
        );
        assert!(parse(
            r#"{ dist = "lognormal", mu = 8, sigma = 4.1 }"#,
            Quantity::Bytes
        )
        .is_ok());
        assert!(parse(
            r#"{ dist = "lognormal", mu = 20, sigma = 1.5 }"#,
            Quantity::Bytes
        )
        .is_ok());
    }

    #[test]
    fn empirical_csv_with_header_and_comments() {
        let dir = std::env::temp_dir().join(format!("scenario-dist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ok.csv"), "value,cdf\n# c\n100,0.5\n\n1000,1\n").unwrap();
        std::fs::write(dir.join("bad.csv"), "value,cdf\n100,0.5\n50,0.9\n").unwrap();
        let ok = load_empirical(&dir.join("ok.csv"), "k").unwrap();
        assert_eq!(ok.points, vec![(100.0, 0.5), (1000.0, 1.0)]);
        let e = load_empirical(&dir.join("bad.csv"), "k").unwrap_err();
        assert!(
            e.reason
                .ends_with("line 3: values must be non-decreasing (50 after 100)"),
            "{}",
            e.reason
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
