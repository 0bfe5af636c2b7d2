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

/// Each `[[workload]]`'s own `tcp = { … }`: its keys over `[tcp]`'s (the same declared keys),
/// for both ends of that workload's connections; `None` where a workload has none.
pub(crate) fn parse_per_workload(root: &Tbl) -> Res<Vec<Option<TcpConfig>>> {
    let Some(list) = root.array("workload")? else {
        return Ok(Vec::new());
    };
    let base = root.table("tcp")?.map(|t| t.t.clone()).unwrap_or_default();
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let w = crate::value::as_table(v, &root.elem("workload", i))?;
            let Some(own) = w.table("tcp")? else {
                return Ok(None);
            };
            let mut merged = base.clone();
            crate::merge::deep_merge(&mut merged, own.t);
            let t = Tbl {
                path: own.path.clone(),
                t: &merged,
            };
            crate::declared::parse(&t, &tcp::params::MODEL, &[]).map(Some)
        })
        .collect()
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
    fn a_workloads_tcp_table_overrides_the_scenarios() {
        let text = "[tcp]\nvariant = \"cubic\"\nmss = \"1000B\"\n\
                    [[workload]]\ntcp = { variant = \"prague\" }\n[[workload]]\nkind = \"x\"";
        let t: toml::Table = toml::from_str(text).unwrap();
        let per = parse_per_workload(&Tbl::root(&t)).unwrap();
        let prague = per[0].as_ref().unwrap();
        assert_eq!(
            (prague.variant, prague.mss),
            (Variant::Prague, 1000),
            "[tcp]'s mss kept"
        );
        assert!(per[1].is_none());
        let bad: toml::Table =
            toml::from_str("[[workload]]\ntcp = { variant = \"vegas\" }").unwrap();
        let e = parse_per_workload(&Tbl::root(&bad)).unwrap_err();
        assert_eq!(e.key, "workload[0].tcp.variant");
    }

    #[test]
    fn one_way_and_initial_ssthresh_keys() {
        let c = tcp("[tcp]\nhandshake = false\ninitial_ssthresh = 50").unwrap();
        assert!(!c.handshake);
        assert_eq!(c.initial_ssthresh, Some(50));
        let d = tcp("").unwrap();
        assert!(d.handshake);
        assert_eq!(d.initial_ssthresh, None);
        let e = tcp("[tcp]\ninitial_ssthresh = 0").unwrap_err();
        assert_eq!(e.key, "tcp.initial_ssthresh");
        let e = tcp("[tcp]\nhandshake = false\necn = true").unwrap_err();
        assert_eq!(e.key, "tcp.handshake");
        assert!(e.reason.contains("ECN"), "{}", e.reason);
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
