//! `[tcp]` → `tcp::TcpConfig`. Every key is optional; absent keys keep
//! `TcpConfig::default()` (whose doc gives each default and its source).
//!
//! Keys: `variant` ("tahoe" | "reno" | "newreno" | "sack" | "cubic"), `mss`, `receive_window` (sizes),
//! `initial_window` (segments), `min_rto`, `initial_rto`, `max_rto`, `clock_granularity`
//! (durations), `delayed_ack` (false, or a duration such as "200ms"), `dupack_threshold`,
//! `max_syn_retries`, `max_retries` (integers), `ecn`, `limited_transmit`, `timestamps`, `ns2_fulltcp`
//! (booleans), `rto` ("rfc6298" | "bsd": `tcp::RtoRules`), `ssthresh` ("rfc5681" | "ns2":
//! `tcp::SsthreshRule`), `slow_start` ("rfc5681" | "ns2": `tcp::SlowStartGrowth`).
//!
//! Checks: mss ≥ 1, initial_window ≥ 1, receive_window ≥ mss, RTOs > 0 with
//! min_rto ≤ max_rto and initial_rto ≤ max_rto, clock_granularity > 0, delayed ACK in
//! (0, 500 ms] (RFC 1122 §4.2.3.2), dupack_threshold ≥ 1.
//!
//! Validation: tests below; `tests/bad_files.rs` (`unknown_key_in_tcp`,
//! `unknown_tcp_variant`, `tcp_ecn_not_a_boolean`).

use crate::error::Res;
use crate::value::{positive, size_u32, Tbl};
use tcp::{BackoffReset, RtoRules, SlowStartGrowth, SsthreshRule, TcpConfig, Variant};
use toml::Value;
use units::SimDuration;

const KEYS: &[&str] = &[
    "variant",
    "mss",
    "initial_window",
    "receive_window",
    "min_rto",
    "initial_rto",
    "max_rto",
    "clock_granularity",
    "delayed_ack",
    "dupack_threshold",
    "max_syn_retries",
    "max_retries",
    "ecn",
    "limited_transmit",
    "ns2_fulltcp",
    "timestamps",
    "rto",
    "ssthresh",
    "backoff_reset",
    "slow_start",
];

/// Parse `[tcp]` of the root (absent table = all defaults).
pub(crate) fn parse(root: &Tbl) -> Res<TcpConfig> {
    let mut c = TcpConfig::default();
    let Some(t) = root.table("tcp")? else {
        return Ok(c);
    };
    t.allow(KEYS)?;
    if t.has("variant") {
        c.variant = match crate::value::kind(
            &t,
            "variant",
            &["tahoe", "reno", "newreno", "sack", "cubic"],
        )? {
            "tahoe" => Variant::Tahoe,
            "reno" => Variant::Reno,
            "sack" => Variant::Sack,
            "cubic" => Variant::Cubic,
            _ => Variant::NewReno,
        };
    }
    if let Some(b) = t.size("mss")? {
        c.mss = size_u32(b, &t.key("mss"), 1)?;
    }
    if let Some(n) = t.u32("initial_window", 1)? {
        c.initial_window = n;
    }
    if let Some(b) = t.size("receive_window")? {
        c.receive_window = size_u32(b, &t.key("receive_window"), 1)?;
    }
    let dur = |k: &str, slot: &mut SimDuration| -> Res<()> {
        if let Some(d) = t.duration(k)? {
            *slot = positive(d, &t.key(k))?;
        }
        Ok(())
    };
    dur("min_rto", &mut c.min_rto)?;
    dur("initial_rto", &mut c.initial_rto)?;
    dur("max_rto", &mut c.max_rto)?;
    dur("clock_granularity", &mut c.clock_granularity)?;
    if let Some(v) = t.get("delayed_ack") {
        c.delayed_ack = match v {
            Value::Boolean(false) => None,
            Value::Boolean(true) => {
                return Err(t.err("delayed_ack", "give the delayed-ACK timeout as a duration (e.g. \"200ms\") to enable it, or false"))
            }
            _ => {
                let d = positive(crate::value::as_duration(v, &t.key("delayed_ack"))?, &t.key("delayed_ack"))?;
                if d > SimDuration::from_millis(500) {
                    return Err(t.err("delayed_ack", "must be at most 500ms (RFC 1122 §4.2.3.2)"));
                }
                Some(d)
            }
        };
    }
    if let Some(n) = t.u32("dupack_threshold", 1)? {
        c.dupack_threshold = n;
    }
    if let Some(n) = t.u32("max_syn_retries", 0)? {
        c.max_syn_retries = n;
    }
    if let Some(n) = t.u32("max_retries", 0)? {
        c.max_retries = n;
    }
    if let Some(b) = t.bool("ecn")? {
        c.ecn = b;
    }
    if let Some(b) = t.bool("limited_transmit")? {
        c.limited_transmit = b;
    }
    if let Some(b) = t.bool("timestamps")? {
        c.timestamps = b;
    }
    if let Some(b) = t.bool("ns2_fulltcp")? {
        c.ns2_fulltcp = b;
    }
    if t.has("backoff_reset") {
        c.backoff_reset = match crate::value::kind(&t, "backoff_reset", &["sample", "ack"])? {
            "ack" => BackoffReset::NewAck,
            _ => BackoffReset::Sample,
        };
    }
    if t.has("slow_start") {
        c.slow_start = match crate::value::kind(&t, "slow_start", &["rfc5681", "ns2"])? {
            "ns2" => SlowStartGrowth::Ns2,
            _ => SlowStartGrowth::Rfc5681,
        };
    }
    if t.has("ssthresh") {
        c.ssthresh_rule = match crate::value::kind(&t, "ssthresh", &["rfc5681", "ns2"])? {
            "ns2" => SsthreshRule::Ns2,
            _ => SsthreshRule::Rfc5681,
        };
    }
    if t.has("rto") {
        c.rto_rules = match crate::value::kind(&t, "rto", &["rfc6298", "bsd"])? {
            "bsd" => RtoRules::Bsd,
            _ => RtoRules::Rfc6298,
        };
    }
    // Cross-field checks, reported at the key the user most likely set.
    if c.receive_window < c.mss {
        let k = if t.has("receive_window") {
            "receive_window"
        } else {
            "mss"
        };
        return Err(t.err(
            k,
            format!(
                "receive_window ({} B) must be at least one mss ({} B)",
                c.receive_window, c.mss
            ),
        ));
    }
    if c.min_rto > c.max_rto {
        let k = if t.has("min_rto") {
            "min_rto"
        } else {
            "max_rto"
        };
        return Err(t.err(
            k,
            format!(
                "min_rto ({}) must not exceed max_rto ({})",
                c.min_rto, c.max_rto
            ),
        ));
    }
    if c.initial_rto > c.max_rto {
        let k = if t.has("initial_rto") {
            "initial_rto"
        } else {
            "max_rto"
        };
        return Err(t.err(
            k,
            format!(
                "initial_rto ({}) must not exceed max_rto ({})",
                c.initial_rto, c.max_rto
            ),
        ));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(text: &str) -> Res<TcpConfig> {
        let t: toml::Table = toml::from_str(text).unwrap();
        parse(&Tbl::root(&t))
    }

    #[test]
    fn absent_table_is_default_and_keys_override() {
        assert_eq!(tcp("").unwrap(), TcpConfig::default());
        let c = tcp("[tcp]\nvariant = \"reno\"\nmss = \"1000B\"\nreceive_window = \"64KiB\"\ndelayed_ack = \"200ms\"").unwrap();
        assert_eq!(c.variant, Variant::Reno);
        assert_eq!((c.mss, c.receive_window), (1000, 65536));
        assert_eq!(c.delayed_ack, Some(SimDuration::from_millis(200)));
        assert_eq!(c.min_rto, TcpConfig::default().min_rto);
        assert!(!c.ecn && !c.limited_transmit && !c.timestamps);
        assert!(tcp("[tcp]\ntimestamps = true").unwrap().timestamps);
        assert!(!c.ns2_fulltcp);
        assert!(tcp("[tcp]\nns2_fulltcp = true").unwrap().ns2_fulltcp);
        assert_eq!(
            tcp("[tcp]\nns2_fulltcp = 1").unwrap_err().key,
            "tcp.ns2_fulltcp"
        );
        for (name, v) in [
            ("tahoe", Variant::Tahoe),
            ("reno", Variant::Reno),
            ("newreno", Variant::NewReno),
            ("sack", Variant::Sack),
            ("cubic", Variant::Cubic),
        ] {
            let c = tcp(&format!(
                "[tcp]\nvariant = \"{name}\"\necn = true\nlimited_transmit = true"
            ))
            .unwrap();
            assert_eq!((c.variant, c.ecn, c.limited_transmit), (v, true, true));
        }
    }

    #[test]
    fn errors() {
        let e = tcp("[tcp]\ndelayed_ack = true").unwrap_err();
        assert_eq!(e.key, "tcp.delayed_ack");
        let e = tcp("[tcp]\nmin_rto = \"2min\"").unwrap_err();
        assert_eq!(e.key, "tcp.min_rto");
        assert!(e.reason.contains("must not exceed max_rto"), "{}", e.reason);
        let e = tcp("[tcp]\nvariant = \"vegas\"").unwrap_err();
        assert_eq!(e.key, "tcp.variant");
        assert!(
            e.reason.contains("tahoe, reno, newreno, sack, cubic"),
            "{}",
            e.reason
        );
        let e = tcp("[tcp]\necn = \"yes\"").unwrap_err();
        assert_eq!(e.key, "tcp.ecn");
        let e = tcp("[tcp]\ninitial_window = 0").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("tcp.initial_window", "must be at least 1, got 0")
        );
    }
}
