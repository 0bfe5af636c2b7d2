//! `kind = "blue"` and `"avq"` (aqm `blue.rs`, `avq.rs`).
//!
//! BLUE keys: `d1`, `d2` (numbers), `freeze_time` (duration string), `limit` (integer packets),
//! `threshold` (integer packets, < limit), `ecn` (bool). Defaults: `aqm::BlueParams::default()`.
//! AVQ keys: `gamma`, `alpha`, `initial_capacity`, `buflim` (numbers), `limit` (integer
//! packets), `byte_mode` (bool), `mean_pktsize` (size string), `ecn`, `ns2_capacity_update`
//! (bools). Defaults: `aqm::AvqParams::default()` (ns-2 `Queue/Vq`). BLUE is validated here;
//! AVQ needs the link rate and is validated by `check` on its link.

use super::codel::limit_packets;
use crate::error::Res;
use crate::value::{size_u32, Tbl};
use aqm::{AvqParams, Blue, BlueParams, DisciplineParams, ParamError};

/// Parse a `blue` table.
pub(super) fn parse_blue(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(&[
        "kind",
        "d1",
        "d2",
        "freeze_time",
        "limit",
        "threshold",
        "ecn",
    ])?;
    let mut p = BlueParams::default();
    if let Some(x) = t.num("d1")? {
        p.d1 = x;
    }
    if let Some(x) = t.num("d2")? {
        p.d2 = x;
    }
    if let Some(d) = t.duration("freeze_time")? {
        p.freeze_time = d;
    }
    if let Some(n) = limit_packets(t, "BLUE")? {
        p.limit = n;
    }
    if let Some(n) = t.int("threshold", 0, i64::MAX)? {
        p.threshold = Some(n as u64);
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    Blue::new(p.clone()).map_err(|e: ParamError| t.err(&e.key, e.reason))?;
    Ok(DisciplineParams::Blue(p))
}

/// Parse an `avq` table.
pub(super) fn parse_avq(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(&[
        "kind",
        "gamma",
        "alpha",
        "initial_capacity",
        "buflim",
        "limit",
        "byte_mode",
        "mean_pktsize",
        "ecn",
        "ns2_capacity_update",
    ])?;
    let mut p = AvqParams::default();
    let frac = |k: &str, x: f64, lo_open: bool| -> Res<f64> {
        let ok = if lo_open { x > 0.0 } else { x >= 0.0 };
        if ok && x <= 1.0 {
            Ok(x)
        } else {
            Err(t.err(k, format!("must be in (0, 1], got {x}")))
        }
    };
    if let Some(x) = t.num("gamma")? {
        p.gamma = frac("gamma", x, true)?;
    }
    if let Some(x) = t.num("alpha")? {
        if x <= 0.0 {
            return Err(t.err("alpha", format!("must be greater than 0, got {x}")));
        }
        p.alpha = x;
    }
    if let Some(x) = t.num("initial_capacity")? {
        p.initial_capacity = frac("initial_capacity", x, true)?;
    }
    if let Some(x) = t.num("buflim")? {
        if x <= 0.0 {
            return Err(t.err("buflim", format!("must be greater than 0, got {x}")));
        }
        p.buflim = x;
    }
    if let Some(n) = limit_packets(t, "AVQ")? {
        p.limit = n;
    }
    if let Some(b) = t.bool("byte_mode")? {
        p.byte_mode = b;
    }
    if let Some(b) = t.size("mean_pktsize")? {
        p.mean_pktsize = size_u32(b, &t.key("mean_pktsize"), 1)?;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    if let Some(b) = t.bool("ns2_capacity_update")? {
        p.ns2_capacity_update = b;
    }
    Ok(DisciplineParams::Avq(p))
}
