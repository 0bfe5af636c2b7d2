//! Queue tables through the declarations: exact values of the shipped settings (seeds 001–003),
//! the `ns2` profile, and errors that name their key.

use super::parse;
use crate::error::Res;
use crate::value::Tbl;
use aqm::DisciplineParams;

fn q(text: &str) -> Res<DisciplineParams> {
    let t: toml::Table = toml::from_str(text).unwrap();
    parse(&Tbl {
        path: "queue".into(),
        t: &t,
    })
}

mod basic {
    use super::q;
    use aqm::*;

    #[test]
    fn droptail_packets_and_bytes() {
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = 120").unwrap() else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (120, LimitUnit::Packets));
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = \"180KB\"").unwrap()
        else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (180_000, LimitUnit::Bytes));
        let e = q("kind = \"droptail\"\nlimit = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.limit");
    }

    #[test]
    fn red_fraction_w_q_is_exact() {
        let DisciplineParams::Red(p) = q(
            "kind = \"red\"\nmin_th = 30\nmax_th = 90\nw_q = \"1/512\"\nmax_p = 0.1\nlimit = 480",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(p.w_q, 1.0 / 512.0);
        assert_eq!(
            (p.min_th, p.max_th, p.max_p, p.limit, p.mean_pktsize),
            (30.0, 90.0, 0.1, 480, 1500)
        );
    }

    #[test]
    fn red_errors() {
        let e = q("kind = \"red\"\nmin_th = 30\nmax_th = 30").unwrap_err();
        assert_eq!(e.key, "queue.min_th");
        let e = q("kind = \"red\"\nmin_th = 3\nmax_th = 30\nw_q = \"1/0\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.w_q", "\"1/0\" divides by zero")
        );
        let e = q("kind = \"red\"\nmax_p = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.max_p");
        let e = q("kind = \"nosuchkind\"").unwrap_err();
        assert_eq!(e.key, "queue.kind");
        assert!(
            e.reason
                .starts_with("unknown kind \"nosuchkind\"; expected one of: droptail, red"),
            "{}",
            e.reason
        );
    }
}

mod red_options {
    use super::q;
    use aqm::*;
    use units::SimDuration;

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

mod pi_rem {
    use super::q;
    use aqm::*;

    #[test]
    fn seed_002_pi_and_seed_003_pisa_pimc() {
        let DisciplineParams::Pi(p) =
            q("kind = \"pi\"\nq_ref = 20\nlimit = 200\nbyte_mode = true\necn = true").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.q_ref, p.limit, p.queue_in_bytes, p.byte_prob, p.ecn),
            (20.0, 200, true, true, true)
        );
        assert_eq!(
            (p.a, p.b, p.w_hz, p.mean_pktsize),
            (1.822e-5, 1.816e-5, 170.0, 500)
        );
        let DisciplineParams::Pisa(p) = q("kind = \"pisa\"\nhintless = \"pi\"").unwrap() else {
            panic!()
        };
        assert_eq!(
            (p.pi.q_ref, p.pi.limit, p.alpha, p.weight, p.hintless),
            (200.0, 800, 3.0, 0.02, HintlessPolicy::Pi)
        );
        let DisciplineParams::Pimc(p) =
            q("kind = \"pimc\"\nmin_cwnd = 4\nmean_pktsize = \"1000B\"").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.min_cwnd, p.pi.mean_pktsize, p.pi.q_ref),
            (4, 1000, 200.0)
        );
    }

    #[test]
    fn rem_keys() {
        let DisciplineParams::Rem(p) = q(
            "kind = \"rem\"\nupdate_period = \"5ms\"\nalpha = 0.2\nb_star = 30\necn = \"ns2_markpkts\"",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(p.update_period, units::SimDuration::from_millis(5));
        assert_eq!(
            (p.alpha, p.b_star, p.ecn),
            (0.2, 30.0, aqm::RemEcn::Ns2MarkPkts)
        );
        let e = q("kind = \"rem\"\necn = \"yes\"").unwrap_err();
        assert_eq!(e.key, "queue.ecn");
    }

    #[test]
    fn errors_name_the_key() {
        let e = q("kind = \"pi\"\nw_hz = 0").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.w_hz", "must be in (0, 1e9] Hz, got 0")
        );
        let e = q("kind = \"pi\"\nbyte_mode = true\nbyte_prob = false").unwrap_err();
        assert_eq!(e.key, "queue.byte_prob");
        let e = q("kind = \"pi\"\nlimit = \"100KB\"").unwrap_err();
        assert_eq!(e.key, "queue.limit");
        let e = q("kind = \"pi\"\nmin_cwnd = 7").unwrap_err();
        assert_eq!(
            (e.key.as_str(), &e.reason[..11]),
            ("queue.min_cwnd", "unknown key")
        );
        let e = q("kind = \"pisa\"\nhintless = \"drop\"").unwrap_err();
        assert_eq!(e.key, "queue.hintless");
        let e = q("kind = \"pisa\"\nweight = 0").unwrap_err();
        assert_eq!(e.key, "queue.weight");
        let e = q("kind = \"rem\"\nphi = 0.9").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.phi", "must be a finite number > 1, got 0.9")
        );
        let e = q("kind = \"rem\"\nupdate_period = \"0ms\"").unwrap_err();
        assert_eq!(e.key, "queue.update_period");
    }
}
