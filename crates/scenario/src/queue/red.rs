//! `kind = "red"`: `min_th`, `max_th` (packets, numbers), `w_q` (number, or a fraction string
//! "1/512" computed as 1.0/512.0), `max_p`, `limit` (integer packets), `mean_pktsize` (size
//! string, default "1500B"), `ecn` (bool: mark ECT packets instead of early drops). Other
//! defaults: `aqm::RedParams::default()`.

use super::parse_fraction;
use crate::error::Res;
use crate::value::{size_u32, Tbl};
use aqm::{DisciplineParams, RedParams};
use toml::Value;

/// Parse a `red` table.
pub(super) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    parse_red(t).map(DisciplineParams::Red)
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

