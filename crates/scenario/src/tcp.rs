//! `[tcp]` → `tcp::TcpConfig`. Every key is optional; an absent table or key keeps
//! `TcpConfig::default()`. The keys, their syntax, ranges, profiles (`ns2`, `freebsd`,
//! `linux`) and cross-key rules are declared once in `crates/tcp/src/params.rs`; this file
//! only finds the table.
//!
//! Validation: tests below; `tests/bad_files.rs` (`unknown_key_in_tcp`,
//! `unknown_tcp_variant`, `tcp_ecn_not_a_boolean`, …); tcp's `tests/params_declared.rs`.

use crate::error::Res;
use crate::value::Tbl;
use tcp::TcpConfig;

/// Parse `[tcp]` of the root (absent table = all defaults).
pub(crate) fn parse(root: &Tbl) -> Res<TcpConfig> {
    match root.table("tcp")? {
        Some(t) => crate::declared::parse(&t, &tcp::params::MODEL, &[]),
        None => Ok(TcpConfig::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcp::Variant;
    use units::SimDuration;

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
            ("cubic_sack", Variant::CubicSack),
            ("bbr", Variant::Bbr),
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
        let c = tcp("[tcp]\npacing = true\npacing_ca_ratio = 150\nbbr_lt_bw = false").unwrap();
        assert_eq!(
            (c.pacing, c.pacing_ss_ratio, c.pacing_ca_ratio),
            (true, 200, 150)
        );
        assert!(!c.bbr_lt_bw);
        let e = tcp("[tcp]\npacing_ss_ratio = 0").unwrap_err();
        assert_eq!(e.key, "tcp.pacing_ss_ratio");
        let e = tcp("[tcp]\npacing = \"on\"").unwrap_err();
        assert_eq!(e.key, "tcp.pacing");
        let e = tcp("[tcp]\necn = \"yes\"").unwrap_err();
        assert_eq!(e.key, "tcp.ecn");
        let e = tcp("[tcp]\ninitial_window = 0").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("tcp.initial_window", "must be at least 1, got 0")
        );
    }
}
