//! `kind = "red"`: `min_th`, `max_th` (packets, numbers), `w_q` (number, or a fraction string
//! "1/512" computed as 1.0/512.0), `max_p`, `limit` (integer packets), `mean_pktsize` (size
//! string, default "1500B"), `ecn` (bool: mark ECT packets instead of early drops). Other
//! defaults: `aqm::RedParams::default()`.
//!
//! Options (see `aqm::red`): `count_rule` = "paper" (default) | "altq" | "ns2_wait"; `gentle`
//! (bool, default false); `byte_mode` (bool, ns-2 `bytes_`); `queue_in_bytes` (bool: avg and
//! limit in bytes as mean-size packets); `ecn_rule` = "gentle_drop" (default) | "always", or
//! `ecn_mark_p` = number in (0, 1] (ns-2 `use_mark_p_`); both need `ecn = true`;
//! `backlog_gate` (bool, ns-2 `enque()`'s `qlen > 1`); `forced_drop_on_avg` (bool, default
//! true; false = ns-2 `use_mark_p_`); `idle_decay` = "paper" (default) | "ns2". The option
//! parsers are shared with `ared.rs`.
//!
//! `profile = "ns2"`: the rule options default to ns-2.35's `REDQueue` — `count_rule =
//! "ns2_wait"`, `gentle = true`, `backlog_gate = true`, `forced_drop_on_avg = false`,
//! `idle_decay = "ns2"`, and with `ecn` `ecn_mark_p = 0.1` (ns-2.35 `tcl/lib/ns-default.tcl`,
//! `queue/red.cc`). Not the units: `byte_mode`, `queue_in_bytes`, `mean_pktsize` and `limit`
//! stay as given (ns-2.35's own defaults are bytes, bytes, 500 B, 50).

use super::parse_fraction;
use crate::error::Res;
use crate::value::{kind, size_u32, Tbl};
use aqm::{CountRule, DisciplineParams, EcnRule, IdleDecay, RedParams};
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
    "count_rule",
    "gentle",
    "byte_mode",
    "queue_in_bytes",
    "ecn_rule",
    "ecn_mark_p",
    "backlog_gate",
    "forced_drop_on_avg",
    "idle_decay",
    "profile",
];

/// RED options shared by `red` and `ared` tables, with their defaults where absent.
pub(super) struct Options {
    /// `profile = "ns2"` was given.
    pub ns2: bool,
    pub count_rule: CountRule,
    pub byte_mode: bool,
    pub queue_in_bytes: bool,
    pub ecn: bool,
    pub ecn_rule: EcnRule,
    pub backlog_gate: bool,
    pub forced_drop_on_avg: bool,
    pub idle_decay: IdleDecay,
}

/// Parse `profile`, `count_rule`, `byte_mode`, `queue_in_bytes`, `ecn`, `ecn_rule`,
/// `ecn_mark_p`, `backlog_gate`, `forced_drop_on_avg` and `idle_decay`.
pub(super) fn options(t: &Tbl) -> Res<Options> {
    let ns2 = super::ns2_profile(t)?;
    let count_rule = match t.has("count_rule") {
        false if ns2 => CountRule::Ns2Wait,
        false => CountRule::Paper,
        true => match kind(t, "count_rule", &["paper", "altq", "ns2_wait"])? {
            "altq" => CountRule::Altq,
            "ns2_wait" => CountRule::Ns2Wait,
            _ => CountRule::Paper,
        },
    };
    let ecn = t.bool("ecn")?.unwrap_or(false);
    let mut ecn_rule = match t.has("ecn_rule") {
        false if ns2 && ecn => EcnRule::MarkP(0.1),
        false => EcnRule::GentleDrop,
        true => match kind(t, "ecn_rule", &["gentle_drop", "always"])? {
            "always" => EcnRule::Always,
            _ => EcnRule::GentleDrop,
        },
    };
    if let Some(m) = t.num("ecn_mark_p")? {
        if t.has("ecn_rule") {
            return Err(t.err(
                "ecn_mark_p",
                "conflicts with ecn_rule: ecn_mark_p selects ns-2's mark_p rule; give one of them",
            ));
        }
        if !(m > 0.0 && m <= 1.0) {
            return Err(t.err("ecn_mark_p", format!("must be in (0, 1], got {m}")));
        }
        ecn_rule = EcnRule::MarkP(m);
    }
    for k in ["ecn_rule", "ecn_mark_p"] {
        if t.has(k) && !ecn {
            return Err(t.err(k, "has no effect unless ecn = true"));
        }
    }
    let idle_decay = match t.has("idle_decay") {
        false if ns2 => IdleDecay::Ns2,
        false => IdleDecay::Paper,
        true => match kind(t, "idle_decay", &["paper", "ns2"])? {
            "ns2" => IdleDecay::Ns2,
            _ => IdleDecay::Paper,
        },
    };
    Ok(Options {
        ns2,
        count_rule,
        byte_mode: t.bool("byte_mode")?.unwrap_or(false),
        queue_in_bytes: t.bool("queue_in_bytes")?.unwrap_or(false),
        ecn,
        ecn_rule,
        backlog_gate: t.bool("backlog_gate")?.unwrap_or(ns2),
        forced_drop_on_avg: t.bool("forced_drop_on_avg")?.unwrap_or(!ns2),
        idle_decay,
    })
}

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
    let o = options(t)?;
    p.count_rule = o.count_rule;
    p.byte_mode = o.byte_mode;
    p.queue_in_bytes = o.queue_in_bytes;
    p.ecn = o.ecn;
    p.ecn_rule = o.ecn_rule;
    p.backlog_gate = o.backlog_gate;
    p.forced_drop_on_avg = o.forced_drop_on_avg;
    p.idle_decay = o.idle_decay;
    p.gentle = t.bool("gentle")?.unwrap_or(o.ns2);
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
