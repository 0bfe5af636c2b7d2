//! `kind = "droptail"`: `limit` = integer packets, or a size string ("180KB") for byte mode;
//! `ns2_off_by_one` (bool); `profile = "ns2"` makes `ns2_off_by_one` default to true (ns-2.35
//! `drop-tail.cc`). Defaults: `aqm::DropTailParams::default()`.

use crate::error::{KeyError, Res};
use crate::value::Tbl;
use aqm::{DisciplineParams, DropTailParams, LimitUnit};
use toml::Value;

/// Parse a `droptail` table.
pub(super) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    parse_droptail(t).map(DisciplineParams::DropTail)
}

fn parse_droptail(t: &Tbl) -> Res<DropTailParams> {
    t.allow(&["kind", "limit", "ns2_off_by_one", "profile"])?;
    let mut p = DropTailParams {
        ns2_off_by_one: super::ns2_profile(t)?,
        ..DropTailParams::default()
    };
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
