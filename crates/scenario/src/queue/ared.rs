//! `kind = "ared"` (Adaptive RED, `aqm::ared`): `target_delay` (duration, default "5ms"; seed
//! 001's settings are "5ms" and "60ms"), `interval` (duration, "500ms"), `alpha` (0.01), `beta`
//! (0.9), `top` (0.5), `bottom` (0.01), `initial_max_p` (0.1), `w_q` (number or fraction
//! string; default automatic 1 − exp(−1/C)), `limit` (integer packets, 50), `mean_pktsize`
//! (size string, "1250B"), `clamp_max_p` (bool, true), `gentle_uses_initial_max_p` (bool,
//! false), and RED's options `count_rule`, `byte_mode`, `queue_in_bytes`, `ecn`, `ecn_rule`,
//! `ecn_mark_p`, `backlog_gate`, `forced_drop_on_avg`, `idle_decay` (see `red.rs`);
//! `adapt_on` = "timer" (default) | "arrival" (ns-2.35); `auto_bottom` (bool: ns-2.35's
//! `min(0.01, 80000/bandwidth)`). Defaults: `aqm::AredParams::default()`. Ranges are checked
//! by `Ared::new` (through `check`), under the same key names.
//!
//! `profile = "ns2"`: RED's ns-2 rules (`red.rs`) plus `adapt_on = "arrival"`, `clamp_max_p =
//! false`, `gentle_uses_initial_max_p = true` and, unless `bottom` is given, `auto_bottom =
//! true` — ns-2.35's `adaptive_ 1` queue with automatic thresholds, in the units the table
//! states.

use super::parse_fraction;
use super::red::options;
use crate::error::Res;
use crate::value::{kind, positive, size_u32, Tbl};
use aqm::{AdaptOn, AredParams, DisciplineParams};
use toml::Value;

/// Keys an `ared` queue table may have.
const ARED_KEYS: &[&str] = &[
    "kind",
    "target_delay",
    "interval",
    "alpha",
    "beta",
    "top",
    "bottom",
    "initial_max_p",
    "w_q",
    "limit",
    "mean_pktsize",
    "clamp_max_p",
    "gentle_uses_initial_max_p",
    "count_rule",
    "byte_mode",
    "queue_in_bytes",
    "ecn",
    "ecn_rule",
    "ecn_mark_p",
    "backlog_gate",
    "forced_drop_on_avg",
    "idle_decay",
    "adapt_on",
    "auto_bottom",
    "profile",
];

/// Parse an `ared` table.
pub(super) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    t.allow(ARED_KEYS)?;
    let mut p = AredParams::default();
    if let Some(d) = t.duration("target_delay")? {
        p.target_delay = positive(d, &t.key("target_delay"))?;
    }
    if let Some(d) = t.duration("interval")? {
        p.interval = positive(d, &t.key("interval"))?;
    }
    for (k, field) in [
        ("alpha", &mut p.alpha),
        ("beta", &mut p.beta),
        ("top", &mut p.top),
        ("bottom", &mut p.bottom),
        ("initial_max_p", &mut p.initial_max_p),
    ] {
        if let Some(x) = t.num(k)? {
            *field = x;
        }
    }
    if let Some(v) = t.get("w_q") {
        p.w_q = Some(parse_fraction(v, &t.key("w_q"))?);
    }
    if let Some(v) = t.get("limit") {
        if let Value::String(_) = v {
            return Err(t.err(
                "limit",
                format!(
                    "ARED's limit is in packets: expected an integer, found {}",
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
    p.clamp_max_p = t.bool("clamp_max_p")?.unwrap_or(!o.ns2);
    p.gentle_uses_initial_max_p = t.bool("gentle_uses_initial_max_p")?.unwrap_or(o.ns2);
    p.auto_bottom = t.bool("auto_bottom")?.unwrap_or(o.ns2 && !t.has("bottom"));
    if p.auto_bottom && t.has("bottom") {
        return Err(t.err(
            "auto_bottom",
            "conflicts with bottom: auto_bottom computes bottom from the link rate; give one of them",
        ));
    }
    p.adapt_on = match t.has("adapt_on") {
        false if o.ns2 => AdaptOn::Arrival,
        false => AdaptOn::Timer,
        true => match kind(t, "adapt_on", &["timer", "arrival"])? {
            "arrival" => AdaptOn::Arrival,
            _ => AdaptOn::Timer,
        },
    };
    p.count_rule = o.count_rule;
    p.byte_mode = o.byte_mode;
    p.queue_in_bytes = o.queue_in_bytes;
    p.ecn = o.ecn;
    p.ecn_rule = o.ecn_rule;
    p.backlog_gate = o.backlog_gate;
    p.forced_drop_on_avg = o.forced_drop_on_avg;
    p.idle_decay = o.idle_decay;
    Ok(DisciplineParams::Ared(p))
}

#[cfg(test)]
mod tests {
    use super::super::parse as parse_queue;
    use crate::error::Res;
    use crate::value::Tbl;
    use aqm::{CountRule, DisciplineParams, EcnRule};
    use units::SimDuration;

    fn q(text: &str) -> Res<DisciplineParams> {
        let t: toml::Table = toml::from_str(text).unwrap();
        parse_queue(&Tbl {
            path: "queue".into(),
            t: &t,
        })
    }

    /// Seed 001's "ARED + ECN-60 ms" queue on its 370-packet buffer, with ns-2's wait rule.
    #[test]
    fn seed_001_settings_are_direct() {
        let DisciplineParams::Ared(p) =
            q("kind = \"ared\"\ntarget_delay = \"60ms\"\nlimit = 370\n\
             ecn = true\ncount_rule = \"ns2_wait\"\nw_q = \"1/1000\"")
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(p.target_delay, SimDuration::from_millis(60));
        assert_eq!(
            (p.limit, p.ecn, p.count_rule),
            (370, true, CountRule::Ns2Wait)
        );
        assert_eq!(p.w_q, Some(0.001));
        assert_eq!(
            (p.mean_pktsize, p.interval),
            (1250, SimDuration::from_millis(500))
        );
        let DisciplineParams::Ared(p) = q("kind = \"ared\"").unwrap() else {
            panic!()
        };
        assert_eq!(p, aqm::AredParams::default());
    }

    #[test]
    fn red_options_parse() {
        let DisciplineParams::Red(p) = q("kind = \"red\"\ngentle = true\ncount_rule = \"altq\"\n\
             byte_mode = true\nqueue_in_bytes = true\necn = true\necn_mark_p = 0.1")
        .unwrap() else {
            panic!()
        };
        assert!(p.gentle && p.byte_mode && p.queue_in_bytes && p.ecn);
        assert_eq!(
            (p.count_rule, p.ecn_rule),
            (CountRule::Altq, EcnRule::MarkP(0.1))
        );
        let DisciplineParams::Red(p) =
            q("kind = \"red\"\necn = true\necn_rule = \"always\"").unwrap()
        else {
            panic!()
        };
        assert_eq!(p.ecn_rule, EcnRule::Always);
    }

    /// `profile = "ns2"` sets ns-2.35's rules (reference: ns-2.35 `ns-default.tcl`, `red.cc`)
    /// and leaves the units alone; a key in the table overrides the profile.
    #[test]
    fn ns2_profile_sets_the_rules_not_the_units() {
        use aqm::{AdaptOn, IdleDecay};
        let DisciplineParams::Ared(p) =
            q("kind = \"ared\"\nprofile = \"ns2\"\necn = true\nlimit = 370").unwrap()
        else {
            panic!()
        };
        assert_eq!(p.count_rule, CountRule::Ns2Wait);
        assert!(p.backlog_gate && !p.forced_drop_on_avg && p.auto_bottom);
        assert!(!p.clamp_max_p && p.gentle_uses_initial_max_p);
        assert_eq!(
            (p.idle_decay, p.adapt_on),
            (IdleDecay::Ns2, AdaptOn::Arrival)
        );
        assert_eq!(p.ecn_rule, EcnRule::MarkP(0.1));
        assert!(!p.byte_mode && !p.queue_in_bytes);
        assert_eq!((p.mean_pktsize, p.limit), (1250, 370));
        let DisciplineParams::Ared(p) =
            q("kind = \"ared\"\nprofile = \"ns2\"\nbottom = 0.01\nbacklog_gate = false").unwrap()
        else {
            panic!()
        };
        assert!(!p.auto_bottom && !p.backlog_gate && p.bottom == 0.01);
        let DisciplineParams::Red(p) = q("kind = \"red\"\nprofile = \"ns2\"").unwrap() else {
            panic!()
        };
        assert!(p.gentle && p.backlog_gate && !p.forced_drop_on_avg);
        assert_eq!(p.ecn_rule, EcnRule::GentleDrop);
        let DisciplineParams::DropTail(p) =
            q("kind = \"droptail\"\nprofile = \"ns2\"\nlimit = 149").unwrap()
        else {
            panic!()
        };
        assert!(p.ns2_off_by_one);
        let e = q("kind = \"red\"\nprofile = \"linux\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "queue.profile",
                "unknown profile \"linux\"; expected one of: ns2"
            )
        );
        let e = q("kind = \"ared\"\nauto_bottom = true\nbottom = 0.02").unwrap_err();
        assert_eq!(e.key, "queue.auto_bottom");
    }

    #[test]
    fn option_errors_name_the_key() {
        let e = q("kind = \"ared\"\ntarget_delay = 5").unwrap_err();
        assert_eq!(e.key, "queue.target_delay");
        let e = q("kind = \"ared\"\ninterval = \"0s\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.interval", "must be greater than 0")
        );
        let e = q("kind = \"red\"\ncount_rule = \"wait\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "queue.count_rule",
                "unknown count_rule \"wait\"; expected one of: paper, altq, ns2_wait"
            )
        );
        let e =
            q("kind = \"ared\"\necn = true\necn_rule = \"always\"\necn_mark_p = 0.1").unwrap_err();
        assert_eq!(e.key, "queue.ecn_mark_p");
        let e = q("kind = \"red\"\necn_mark_p = 1.5\necn = true").unwrap_err();
        assert_eq!(e.key, "queue.ecn_mark_p");
        let e = q("kind = \"ared\"\nlimit = \"100KB\"").unwrap_err();
        assert_eq!(e.key, "queue.limit");
    }
}
