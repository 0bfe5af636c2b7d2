//! The scenario parser accepts exactly the declared `[tcp]` keys (`tcp::params::MODEL`): each
//! declared key, written as the docs show its default, parses to `TcpConfig::default()`; an
//! undeclared key is refused with the declared ones; each profile gives what it declares, keys
//! given in the table win, and cross-key errors are reported at the key the table gave.

mod fixture;
use declare::table::value_text;
use declare::{Declared, Syntax, Value};
use scenario::parse_str;
use std::path::Path;
use tcp::params::MODEL;
use tcp::{RtoRules, TcpConfig, Variant};
use units::SimDuration;

fn tcp_of(table: &str) -> Result<TcpConfig, scenario::ScenarioError> {
    let text = format!("{}\n[tcp]\n{table}\n", fixture::BASE);
    let mut v = parse_str(&text, "tcp.toml", Path::new("."))?;
    Ok(v.remove(0).experiment.tcp)
}

#[test]
fn every_declared_key_parses_to_its_default() {
    for p in MODEL.params() {
        let written = match (p.syntax, p.default) {
            (Syntax::DurationOrOff(_), Value::Unset) => "false".to_string(),
            // No text means "unset" for other syntaxes (initial_ssthresh): leaving the key out
            // is the default, checked by `defaults_and_profiles_are_valid_and_declared`.
            (_, Value::Unset) => continue,
            (s, v) => value_text(v, s),
        };
        let table = format!("{} = {written}", p.key);
        let got = tcp_of(&table).unwrap_or_else(|e| panic!("`{table}` refused: {e}"));
        assert_eq!(got, TcpConfig::default(), "{table}");
    }
}

#[test]
fn only_declared_keys_are_accepted() {
    let e = tcp_of("no_such_key = 1").unwrap_err();
    assert_eq!(e.key, "tcp.no_such_key");
    assert_eq!(
        e.reason,
        format!("unknown key; expected one of: {}", MODEL.keys().join(", "))
    );
    assert!(MODEL.keys().contains(&"profile"));
}

#[test]
fn profiles_set_their_keys_and_the_table_wins() {
    let ms = SimDuration::from_millis;
    let bsd = tcp_of("profile = \"freebsd\"").unwrap();
    assert_eq!(
        (bsd.variant, bsd.mss, bsd.receive_window, bsd.initial_window),
        (Variant::Reno, 1448, 16384, 2)
    );
    assert_eq!(
        (bsd.min_rto, bsd.initial_rto, bsd.clock_granularity),
        (ms(1000), ms(6000), ms(500))
    );
    assert!(bsd.timestamps);
    assert_eq!(bsd.rto_rules, RtoRules::Bsd);
    assert!(!bsd.quickack_mode);

    let ns2 = tcp_of("profile = \"ns2\"").unwrap();
    let four = tcp_of(
        "ns2_fulltcp = true\nssthresh = \"ns2\"\nbackoff_reset = \"ack\"\nslow_start = \"ns2\"",
    )
    .unwrap();
    assert_eq!(ns2, four);
    assert_ne!(ns2, TcpConfig::default());

    let linux = tcp_of("profile = \"linux\"").unwrap();
    assert_eq!(
        (linux.variant, linux.initial_window, linux.delayed_ack),
        (Variant::CubicSack, 10, Some(ms(40)))
    );
    assert_eq!((linux.min_rto, linux.max_rto), (ms(200), ms(120_000)));
    // Linux's ACK timing and RTO estimator (issue 33); off in the other profiles.
    assert_eq!(
        (linux.quickack_mode, linux.rto_rules),
        (true, RtoRules::Linux)
    );
    assert_eq!(
        (ns2.quickack_mode, ns2.rto_rules),
        (false, RtoRules::Rfc6298)
    );
    let bad = tcp_of("rto = \"linux2\"").unwrap_err();
    assert_eq!(bad.key, "tcp.rto");
    assert!(bad.reason.contains("rfc6298, bsd, linux"), "{}", bad.reason);
    // The table wins over the profile.
    let mine = tcp_of("profile = \"linux\"\ninitial_window = 4\ndelayed_ack = false").unwrap();
    assert_eq!((mine.initial_window, mine.delayed_ack), (4, None));

    let e = tcp_of("profile = \"windows\"").unwrap_err();
    assert_eq!(e.key, "tcp.profile");
    assert_eq!(
        e.reason,
        "unknown profile \"windows\"; expected one of: ns2, freebsd, linux"
    );
}

#[test]
fn cross_key_errors_name_the_key_the_table_gave() {
    let e = tcp_of("mss = \"70000B\"").unwrap_err();
    assert_eq!(e.key, "tcp.mss");
    assert_eq!(
        e.reason,
        "receive_window (65535 B) must be at least one mss (70000 B)"
    );
    let e = tcp_of("receive_window = \"1000B\"").unwrap_err();
    assert_eq!(e.key, "tcp.receive_window");
    let e = tcp_of("max_rto = \"500ms\"").unwrap_err();
    assert_eq!(e.key, "tcp.max_rto");
    assert!(
        e.reason.starts_with("min_rto (1s) must not exceed max_rto"),
        "{}",
        e.reason
    );
    let e = tcp_of("delayed_ack = \"600ms\"").unwrap_err();
    assert_eq!(
        (e.key.as_str(), e.reason.as_str()),
        ("tcp.delayed_ack", "must be at most 500ms, got 600ms")
    );
    let e = tcp_of("delayed_ack = true").unwrap_err();
    assert!(e.reason.contains("as a duration"), "{}", e.reason);
    // The freebsd profile's 16 KB window with a larger mss given in the table.
    let e = tcp_of("profile = \"freebsd\"\nmss = \"20000B\"").unwrap_err();
    assert_eq!(e.key, "tcp.mss");
}
