//! `kind = "rem"` (aqm `rem.rs`): `gamma`, `phi`, `alpha`, `b_star` (packets), `input_weight`
//! (numbers), `update_period` (duration string, e.g. "2ms"), `limit` (integer packets),
//! `mean_pktsize` (size string), `byte_mode` (bool), `ecn` (false / true = mark ECT and drop
//! others at enqueue, or "ns2_markpkts" = ns-2's markpkts_: mark at dequeue, never drop early),
//! `ns2_off_by_one` (bool). Defaults: `aqm::RemParams::default()`.

use super::pi::packets;
use crate::error::Res;
use crate::value::{positive, size_u32, Tbl};
use aqm::{DisciplineParams, RemEcn, RemParams};
use toml::Value;

const REM_KEYS: &[&str] = &[
    "kind",
    "gamma",
    "phi",
    "alpha",
    "update_period",
    "b_star",
    "input_weight",
    "mean_pktsize",
    "limit",
    "byte_mode",
    "ecn",
    "ns2_off_by_one",
];

/// Parse a `rem` table.
pub(super) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(REM_KEYS)?;
    let mut p = RemParams::default();
    for (k, field) in [
        ("gamma", &mut p.gamma),
        ("phi", &mut p.phi),
        ("alpha", &mut p.alpha),
        ("b_star", &mut p.b_star),
        ("input_weight", &mut p.input_weight),
    ] {
        if let Some(x) = t.num(k)? {
            *field = x;
        }
    }
    if let Some(d) = t.duration("update_period")? {
        p.update_period = positive(d, &t.key("update_period"))?;
    }
    if let Some(b) = t.size("mean_pktsize")? {
        p.mean_pktsize = size_u32(b, &t.key("mean_pktsize"), 1)?;
    }
    if let Some(v) = t.get("limit") {
        p.limit = packets(v, &t.key("limit"))?;
    }
    if let Some(b) = t.bool("byte_mode")? {
        p.byte_mode = b;
    }
    if let Some(v) = t.get("ecn") {
        p.ecn = match v {
            Value::Boolean(false) => RemEcn::Off,
            Value::Boolean(true) => RemEcn::Mark,
            Value::String(s) if s == "ns2_markpkts" => RemEcn::Ns2MarkPkts,
            _ => {
                return Err(t.err(
                    "ecn",
                    format!(
                        "expected true, false or \"ns2_markpkts\", found {}",
                        crate::value::describe(v)
                    ),
                ))
            }
        };
    }
    if let Some(b) = t.bool("ns2_off_by_one")? {
        p.ns2_off_by_one = b;
    }
    p.validate().map_err(|e| t.err(&e.key, e.reason))?;
    Ok(DisciplineParams::Rem(p))
}
