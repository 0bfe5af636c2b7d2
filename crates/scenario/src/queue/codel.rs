//! `kind = "codel"`, `"fq_codel"` and `"pie"` (aqm `codel.rs`, `fq_codel.rs`, `pie.rs`).
//!
//! CoDel keys: `target`, `interval` (duration strings), `mtu` (size string), `limit` (integer
//! packets), `ecn` (bool). FQ-CoDel adds `flows` (integer), `quantum` (size string). PIE:
//! `target`, `tupdate`, `max_burst` (durations), `alpha`, `beta` (numbers, Hz), `mean_pktsize`
//! (size string), `limit` (integer packets), `ecn` (bool), `max_ecnth` (number in [0, 1]),
//! `cap_drop_adjustment` (bool). Defaults: `aqm::CodelParams::default()`,
//! `FqCodelParams::default()`, `PieParams::default()`. Each table is validated by the
//! discipline's own constructor here, so an error names the key under the table's path.

use crate::error::Res;
use crate::value::{describe, size_u32, Tbl};
use aqm::{
    Codel, CodelParams, DisciplineParams, FqCodel, FqCodelParams, ParamError, Pie, PieParams,
};
use toml::Value;

/// `limit` as an integer number of packets (a size string is refused: these count packets).
pub(super) fn limit_packets(t: &Tbl, what: &str) -> Res<Option<u64>> {
    match t.get("limit") {
        None => Ok(None),
        Some(v @ Value::String(_)) => Err(t.err(
            "limit",
            format!(
                "{what}'s limit is in packets: expected an integer, found {}",
                describe(v)
            ),
        )),
        Some(v) => Ok(Some(
            crate::value::as_int(v, &t.key("limit"), 1, i64::MAX)? as u64
        )),
    }
}

fn size_key(t: &Tbl, k: &str) -> Res<Option<u32>> {
    match t.size(k)? {
        None => Ok(None),
        Some(b) => Ok(Some(size_u32(b, &t.key(k), 1)?)),
    }
}

/// Parse a `codel` table.
pub(super) fn parse_codel(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(&["kind", "target", "interval", "mtu", "limit", "ecn"])?;
    let mut p = CodelParams::default();
    if let Some(d) = t.duration("target")? {
        p.target = d;
    }
    if let Some(d) = t.duration("interval")? {
        p.interval = d;
    }
    if let Some(b) = size_key(t, "mtu")? {
        p.mtu = b;
    }
    if let Some(n) = limit_packets(t, "CoDel")? {
        p.limit = n;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    Codel::new(p.clone()).map_err(|e: ParamError| t.err(&e.key, e.reason))?;
    Ok(DisciplineParams::Codel(p))
}

/// Parse a `fq_codel` table.
pub(super) fn parse_fq_codel(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(&[
        "kind", "target", "interval", "flows", "quantum", "mtu", "limit", "ecn",
    ])?;
    let mut p = FqCodelParams::default();
    if let Some(d) = t.duration("target")? {
        p.target = d;
    }
    if let Some(d) = t.duration("interval")? {
        p.interval = d;
    }
    if let Some(n) = t.u32("flows", 1)? {
        p.flows = n;
    }
    if let Some(b) = size_key(t, "quantum")? {
        p.quantum = b;
    }
    if let Some(b) = size_key(t, "mtu")? {
        p.mtu = b;
    }
    if let Some(n) = limit_packets(t, "FQ-CoDel")? {
        p.limit = n;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    FqCodel::new(p.clone()).map_err(|e: ParamError| t.err(&e.key, e.reason))?;
    Ok(DisciplineParams::FqCodel(p))
}

/// Parse a `pie` table.
pub(super) fn parse_pie(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(&[
        "kind",
        "target",
        "tupdate",
        "alpha",
        "beta",
        "max_burst",
        "mean_pktsize",
        "limit",
        "ecn",
        "max_ecnth",
        "cap_drop_adjustment",
    ])?;
    let mut p = PieParams::default();
    if let Some(d) = t.duration("target")? {
        p.target = d;
    }
    if let Some(d) = t.duration("tupdate")? {
        p.tupdate = d;
    }
    if let Some(x) = t.num("alpha")? {
        p.alpha = x;
    }
    if let Some(x) = t.num("beta")? {
        p.beta = x;
    }
    if let Some(d) = t.duration("max_burst")? {
        p.max_burst = d;
    }
    if let Some(b) = size_key(t, "mean_pktsize")? {
        p.mean_pktsize = b;
    }
    if let Some(n) = limit_packets(t, "PIE")? {
        p.limit = n;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    if let Some(x) = t.num("max_ecnth")? {
        p.max_ecnth = x;
    }
    if let Some(b) = t.bool("cap_drop_adjustment")? {
        p.cap_drop_adjustment = b;
    }
    Pie::new(p.clone()).map_err(|e: ParamError| t.err(&e.key, e.reason))?;
    Ok(DisciplineParams::Pie(p))
}
