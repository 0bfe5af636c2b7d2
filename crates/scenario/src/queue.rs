//! Queue tables (`[queue]`, `[reverse_queue]`, `topology.access_queue`) → `aqm::DisciplineParams`,
//! then validated by the discipline itself (`DisciplineParams::build` on the link it will feed),
//! with its `ParamError.key` mapped under the table's key path.
//!
//! - `kind = "droptail"`: `limit` = integer packets, or a size string ("180KB") for byte mode;
//!   `ns2_off_by_one` (bool). Defaults: `aqm::DropTailParams::default()`.
//! - `kind = "red"`: `min_th`, `max_th` (packets, numbers), `w_q` (number, or a fraction string
//!   "1/512" computed as 1.0/512.0), `max_p`, `limit` (integer packets), `mean_pktsize` (size
//!   string, default "1500B"), `ecn` (bool: mark ECT packets instead of early drops). Other defaults:
//!   `aqm::RedParams::default()`.
//!
//! The checks here (thresholds ordered, 0 < w_q ≤ 1, 0 < max_p ≤ 1) give precise messages
//! before `build` runs; `build` stays the authority for everything else.
//!
//! Validation: tests below and `tests/bad_files.rs` (`red_min_th_above_max_th_in_variant`,
//! `red_w_q_zero`).

use crate::error::{KeyError, Res};
use crate::value::{kind, size_u32, Tbl};
use aqm::{DisciplineParams, DropTailParams, LimitUnit, LinkInfo, RedParams};
use toml::Value;

const KINDS: &[&str] = &["droptail", "red"];

/// Parse a queue table (without validating against a link; see [`check`]).
pub(crate) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    match kind(t, "kind", KINDS)? {
        "droptail" => parse_droptail(t).map(DisciplineParams::DropTail),
        _ => parse_red(t).map(DisciplineParams::Red),
    }
}

fn parse_droptail(t: &Tbl) -> Res<DropTailParams> {
    t.allow(&["kind", "limit", "ns2_off_by_one"])?;
    let mut p = DropTailParams::default();
    if let Some(v) = t.get("limit") {
        let path = t.key("limit");
        match v {
            Value::Integer(_) => {
                p.limit = crate::value::as_int(v, &path, 1, i64::MAX)? as u64;
                p.unit = LimitUnit::Packets;
            }
            Value::String(_) => {
                p.limit = crate::value::as_size(v, &path)?;
                if p.limit == 0 {
                    return Err(KeyError::new(path, "must be at least 1 byte"));
                }
                p.unit = LimitUnit::Bytes;
            }
            _ => {
                return Err(KeyError::new(
                    path,
                    format!(
                        "expected an integer number of packets or a size string such as \"180KB\", found {}",
                        crate::value::describe(v)
                    ),
                ))
            }
        }
    }
    if let Some(b) = t.bool("ns2_off_by_one")? {
        p.ns2_off_by_one = b;
    }
    Ok(p)
}

/// `w_q` as a number, a numeric string or a fraction string "a/b".
fn parse_fraction(v: &Value, path: &str) -> Res<f64> {
    let x = match v {
        Value::String(s) => {
            let bad = || {
                KeyError::new(
                    path,
                    format!("{s:?} is not a number or a fraction such as \"1/512\""),
                )
            };
            match s.split_once('/') {
                Some((a, b)) => {
                    let a: f64 = a.trim().parse().map_err(|_| bad())?;
                    let b: f64 = b.trim().parse().map_err(|_| bad())?;
                    if b == 0.0 {
                        return Err(KeyError::new(path, format!("{s:?} divides by zero")));
                    }
                    a / b
                }
                None => s.trim().parse().map_err(|_| bad())?,
            }
        }
        _ => crate::value::as_num(v, path)?,
    };
    if !x.is_finite() {
        return Err(KeyError::new(path, "must be a finite number"));
    }
    Ok(x)
}

/// Keys a `red` queue table may have.
const RED_KEYS: &[&str] = &[
    "kind",
    "min_th",
    "max_th",
    "w_q",
    "max_p",
    "limit",
    "mean_pktsize",
    "ecn",
];

fn parse_red(t: &Tbl) -> Res<RedParams> {
    t.allow(RED_KEYS)?;
    let mut p = RedParams {
        mean_pktsize: 1500,
        ..RedParams::default()
    };
    if let Some(x) = t.num("min_th")? {
        p.min_th = x;
    }
    if let Some(x) = t.num("max_th")? {
        p.max_th = x;
    }
    if let Some(v) = t.get("w_q") {
        p.w_q = parse_fraction(v, &t.key("w_q"))?;
    }
    if let Some(x) = t.num("max_p")? {
        p.max_p = x;
    }
    if let Some(v) = t.get("limit") {
        if let Value::String(_) = v {
            return Err(t.err(
                "limit",
                format!(
                    "RED's limit is in packets: expected an integer, found {}",
                    crate::value::describe(v)
                ),
            ));
        }
        p.limit = crate::value::as_int(v, &t.key("limit"), 1, i64::MAX)? as u64;
    }
    if let Some(b) = t.size("mean_pktsize")? {
        p.mean_pktsize = size_u32(b, &t.key("mean_pktsize"), 1)?;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    if p.min_th < 0.0 {
        return Err(t.err("min_th", format!("must be at least 0, got {}", p.min_th)));
    }
    if p.min_th >= p.max_th {
        return Err(t.err(
            "min_th",
            format!(
                "must be less than max_th (min_th = {}, max_th = {})",
                p.min_th, p.max_th
            ),
        ));
    }
    if !(p.w_q > 0.0 && p.w_q <= 1.0) {
        return Err(t.err("w_q", format!("must be in (0, 1], got {}", p.w_q)));
    }
    if !(p.max_p > 0.0 && p.max_p <= 1.0) {
        return Err(t.err("max_p", format!("must be in (0, 1], got {}", p.max_p)));
    }
    Ok(p)
}

/// Validate `p` as the discipline of a link with `link`'s rate and delay; errors under `path`.
pub(crate) fn check(p: &DisciplineParams, link: LinkInfo, path: &str) -> Res<()> {
    p.build(link)
        .map(|_| ())
        .map_err(|e| KeyError::new(crate::error::join(path, &e.key), e.reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Res<DisciplineParams> {
        let t: toml::Table = toml::from_str(text).unwrap();
        parse(&Tbl {
            path: "queue".into(),
            t: &t,
        })
    }

    #[test]
    fn droptail_packets_and_bytes() {
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = 120").unwrap() else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (120, LimitUnit::Packets));
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = \"180KB\"").unwrap()
        else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (180_000, LimitUnit::Bytes));
        let e = q("kind = \"droptail\"\nlimit = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.limit");
    }

    #[test]
    fn red_fraction_w_q_is_exact() {
        let DisciplineParams::Red(p) = q(
            "kind = \"red\"\nmin_th = 30\nmax_th = 90\nw_q = \"1/512\"\nmax_p = 0.1\nlimit = 480",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(p.w_q, 1.0 / 512.0);
        assert_eq!(
            (p.min_th, p.max_th, p.max_p, p.limit, p.mean_pktsize),
            (30.0, 90.0, 0.1, 480, 1500)
        );
    }

    #[test]
    fn red_errors() {
        let e = q("kind = \"red\"\nmin_th = 30\nmax_th = 30").unwrap_err();
        assert_eq!(e.key, "queue.min_th");
        let e = q("kind = \"red\"\nmin_th = 3\nmax_th = 30\nw_q = \"1/0\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.w_q", "\"1/0\" divides by zero")
        );
        let e = q("kind = \"red\"\nmax_p = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.max_p");
        let e = q("kind = \"codel\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "queue.kind",
                "unknown kind \"codel\"; expected one of: droptail, red"
            )
        );
    }
}
