//! `kind = "ared"` (Adaptive RED, `aqm::ared`): `target_delay` (duration, default "5ms"; seed
//! 001's settings are "5ms" and "60ms"), `interval` (duration, "500ms"), `alpha` (0.01), `beta`
//! (0.9), `top` (0.5), `bottom` (0.01), `initial_max_p` (0.1), `w_q` (number or fraction
//! string; default automatic 1 − exp(−1/C)), `limit` (integer packets, 50), `mean_pktsize`
//! (size string, "1250B"), `clamp_max_p` (bool, true), `gentle_uses_initial_max_p` (bool,
//! false), and RED's options `count_rule`, `byte_mode`, `queue_in_bytes`, `ecn`, `ecn_rule`,
//! `ecn_mark_p` (see `red.rs`). Defaults: `aqm::AredParams::default()`. Ranges are checked by
//! `Ared::new` (through `check`), under the same key names.

use super::parse_fraction;
use super::red::options;
use crate::error::Res;
use crate::value::{positive, size_u32, Tbl};
use aqm::{AredParams, DisciplineParams};
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
    if let Some(b) = t.bool("clamp_max_p")? {
        p.clamp_max_p = b;
    }
    if let Some(b) = t.bool("gentle_uses_initial_max_p")? {
        p.gentle_uses_initial_max_p = b;
    }
    let o = options(t)?;
    p.count_rule = o.count_rule;
    p.byte_mode = o.byte_mode;
    p.queue_in_bytes = o.queue_in_bytes;
    p.ecn = o.ecn;
    p.ecn_rule = o.ecn_rule;
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
