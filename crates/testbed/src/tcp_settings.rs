//! The scenario's `[tcp]` (`tcp::TcpConfig`, keys declared in crates/tcp/src/params.rs) as Linux
//! settings of the run's namespaces: sysctls (per namespace, both sides the same), route
//! options on the route to the other side, the TUN devices' MTU and socket options.
//!
//! | key               | Linux                                                             |
//! |-------------------|-------------------------------------------------------------------|
//! | variant           | route `congctl` reno/cubic + `tcp_sack` (newreno = reno without SACK, Linux's non-SACK recovery is RFC 6582; sack = reno + SACK; cubic / cubic_sack); tahoe and reno cannot be expressed |
//! | mss               | MTU = mss + 40 (+ 12 with timestamps): Linux's segments then carry `mss` payload bytes |
//! | initial_window    | route `initcwnd`                                                  |
//! | receive_window    | route `window` (the advertised-window clamp)                      |
//! | min_rto           | route `rto_min` (with `rto = "linux"` exact; else noted: Linux's floor is SRTT + rto_min) |
//! | initial_rto       | only 1 s (Linux's fixed TCP_TIMEOUT_INIT)                         |
//! | max_rto           | `tcp_rto_max_ms` (1 s – 120 s, whole ms)                          |
//! | clock_granularity | only ≤ 1 ms (Linux samples RTT in µs; no coarse tick)             |
//! | delayed_ack       | false → route `quickack 1`; 40 ms → Linux's own (adaptive 40–200 ms, noted); others cannot be expressed |
//! | quickack_mode     | only true (Linux's quick-ACK mode cannot be turned off)            |
//! | rto               | "linux" exact; "rfc6298" noted (Linux's estimator runs)           |
//! | dupack_threshold  | `tcp_reordering` (1–300)                                          |
//! | max_syn_retries   | `tcp_syn_retries`, `tcp_synack_retries` (1–127)                   |
//! | max_retries       | `tcp_retries2` (0–255)                                            |
//! | ecn               | `tcp_ecn` 1 / 0                                                   |
//! | limited_transmit  | only true (Linux always sends new data on the first duplicate ACKs) |
//! | timestamps        | `tcp_timestamps` 1 / 0                                            |
//! | ns2_fulltcp, ssthresh = "ns2", backoff_reset = "ack", slow_start = "ns2", rto = "bsd" | cannot be expressed |
//! | variant = "bbr"   | route `congctl bbr` + SACK (the host needs `tcp_bbr`)            |
//! | pacing            | false, or with BBR (Linux paces other algorithms only under fq) |
//! | pacing_ss/ca_ratio | `tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio` (set when not 200/120) |
//! | bbr_lt_bw         | only true                                                         |
//! | hystart           | CUBIC: only true (tcp_cubic's host-wide module parameter, default on); others: no effect |
//! | hystart_plus_plus | only false (Linux has no HyStart++)                               |
//! | sack_on_timeout   | with SACK only "keep" (Linux's `tcp_timeout_mark_lost`)           |
//! | rack_tlp          | with SACK `tcp_recovery` 1 / 0 and `tcp_early_retrans` 3 / 0 (false: Linux's DupThresh marking, noted) |
//!
//! A key the scenario gives (in `[tcp]`, through its `profile`, or in the variant's `tcp`)
//! that Linux cannot express is an error `FILE: tcp.KEY: reason` before anything runs. A key
//! left at aqmlab's default that Linux cannot express (the default initial RTO of 3 s, the
//! 10 ms tick, no Limited Transmit, no quick-ACK mode, RFC 6298 RTO rules) runs with Linux's
//! behaviour instead, and
//! says so: each such key is a note printed at the start and written to run.json
//! (`tcp_linux.notes`). Always set, whatever the scenario: `tcp_no_metrics_save = 1` (every
//! connection starts fresh, as in the simulator), `tcp_fastopen = 0`, TCP_NODELAY on every
//! socket (seed 000 §3.4.3: Nagle off, as the simulator's endpoints).
//!
//! Validation: unit tests below (the default, `linux`, `freebsd` and `ns2` profiles; every
//! rejected key).

use std::collections::BTreeSet;
use tcp::{
    BackoffReset, RtoRules, SackOnTimeout, SlowStartGrowth, SsthreshRule, TcpConfig, Variant,
};
use units::SimDuration;

/// Linux settings for one run (both namespaces get the same).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LinuxTcp {
    /// `net.*` sysctls, in the order written.
    pub sysctls: Vec<(String, String)>,
    /// Options of the route to the other side, as `ip route` words (`initcwnd 2`, …).
    pub route_opts: Vec<String>,
    /// MTU of the TUN (or veth) devices, bytes.
    pub mtu: u32,
    /// Keys left at a default Linux cannot express, and what runs instead.
    pub notes: Vec<String>,
    /// Closest-Linux only (`--closest-linux`): keys the scenario gave that Linux cannot
    /// express, each `tcp.KEY: asked …; runs …` with the nearest Linux behaviour used instead.
    pub substitutions: Vec<String>,
}

/// A `[tcp]` key Linux cannot express: `tcp.KEY` and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexpressible {
    /// Dotted key path, `tcp.<key>`.
    pub key: String,
    /// Why, and what Linux can do instead.
    pub reason: String,
}

enum Outcome {
    /// Linux does this.
    Exact,
    /// Linux does nearly this (a note, never an error).
    Near(String),
    /// Linux cannot do this: why, and the nearest Linux behaviour (an error if the scenario
    /// gave the key, unless closest-Linux was asked for: then a substitution; a key left at
    /// aqmlab's default gets a note with Linux's behaviour).
    No(String, String),
}

fn ms(d: SimDuration) -> String {
    let ns = d.as_nanos();
    if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else {
        format!("{}us", ns.div_ceil(1000))
    }
}

/// The `[tcp]` keys a scenario sets explicitly for one experiment: those of the root `[tcp]`
/// table, of the variant's `tcp` table (variant `variant`, if the file has variants), and
/// every key the `profile` named there sets.
pub fn explicit_keys(doc: &toml::Table, variant: Option<&str>) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut profile: Option<String> = None;
    let mut take = |t: &toml::Table| {
        for (k, v) in t {
            if k == "profile" {
                profile = v.as_str().map(str::to_string);
            } else {
                keys.insert(k.clone());
            }
        }
    };
    if let Some(t) = doc.get("tcp").and_then(|v| v.as_table()) {
        take(t);
    }
    if let (Some(name), Some(list)) = (variant, doc.get("variant").and_then(|v| v.as_array())) {
        for v in list.iter().filter_map(|v| v.as_table()) {
            if v.get("name").and_then(|n| n.as_str()) == Some(name) {
                if let Some(t) = v.get("tcp").and_then(|v| v.as_table()) {
                    take(t);
                }
            }
        }
    }
    if let Some(p) = profile {
        if let Some(prof) = tcp::params::MODEL.profiles.iter().find(|x| x.name == p) {
            keys.extend(prof.sets.iter().map(|s| s.key.to_string()));
        }
    }
    keys
}

/// Map `c` to Linux. `explicit` are the keys the scenario gave ([`explicit_keys`]); a given key
/// Linux cannot express is an error (all such keys, in key order of the declaration).
pub fn map(c: &TcpConfig, explicit: &BTreeSet<String>) -> Result<LinuxTcp, Vec<Unexpressible>> {
    map_with(c, explicit, false)
}

/// [`map`], or with `closest` (`aqmlab testbed --closest-linux`) never an error: every given
/// key Linux cannot express is replaced by the nearest Linux behaviour (a value clamped to
/// Linux's range, or Linux's own rule) and listed in `substitutions`.
pub fn map_with(
    c: &TcpConfig,
    explicit: &BTreeSet<String>,
    closest: bool,
) -> Result<LinuxTcp, Vec<Unexpressible>> {
    let mut sysctls: Vec<(String, String)> = Vec::new();
    let mut route_opts: Vec<String> = Vec::new();
    let mut notes = Vec::new();
    let mut substitutions = Vec::new();
    let mut errors = Vec::new();
    let mut set = |k: &str, v: String| sysctls.push((format!("net.ipv4.{k}"), v));

    // variant
    let (cc, sack, variant_out) = match c.variant {
        Variant::NewReno => ("reno", false, Outcome::Exact),
        Variant::Cubic => ("cubic", false, Outcome::Exact),
        Variant::Sack => (
            "reno",
            true,
            Outcome::Near("Linux's SACK recovery adds PRR to RFC 6675".into()),
        ),
        Variant::CubicSack => (
            "cubic",
            true,
            Outcome::Near("Linux's SACK recovery adds PRR to RFC 6675".into()),
        ),
        Variant::Bbr => (
            "bbr",
            true,
            Outcome::Near(
                "Linux's BBR adds idle restart (the host needs the tcp_bbr module)".into(),
            ),
        ),
        Variant::Reno => (
            "reno",
            false,
            Outcome::No(
                "Linux has no RFC 5681 Reno recovery (without SACK it always recovers as \
                 NewReno, RFC 6582): use variant = \"newreno\""
                    .into(),
                "Linux `reno` (route congctl) without SACK: NewReno recovery (RFC 6582)".into(),
            ),
        ),
        Variant::Dctcp => (
            "dctcp",
            false,
            Outcome::Near(
                "Linux's DCTCP counts packets (not bytes) for alpha and reduces through PRR".into(),
            ),
        ),
        Variant::Prague => (
            "dctcp",
            false,
            Outcome::No(
                "TCP Prague is not in mainline Linux: use variant = \"dctcp\"".into(),
                "Linux `dctcp` (route congctl): DCTCP's response with ECT(0), no RTT independence"
                    .into(),
            ),
        ),
        Variant::Tahoe => (
            "reno",
            false,
            Outcome::No(
                "Linux has no Tahoe (fast retransmit without fast recovery): use \"newreno\""
                    .into(),
                "Linux `reno` (route congctl) without SACK: NewReno recovery (RFC 6582)".into(),
            ),
        ),
    };
    // Per route, not the `tcp_congestion_control` sysctl: outside the host namespace Linux
    // lets that sysctl name only the algorithms of the host's
    // `tcp_allowed_congestion_control` (EPERM otherwise), which is the host's to set.
    route_opts.push(format!("congctl {cc}"));
    set("tcp_sack", u8::from(sack).to_string());
    set("tcp_dsack", u8::from(sack).to_string());
    let mut outcomes: Vec<(&str, Outcome)> = vec![("variant", variant_out)];

    // mss → MTU (Linux's MSS is the MTU − 40; the timestamps option takes 12 of it).
    let mtu = u64::from(c.mss) + 40 + if c.timestamps { 12 } else { 0 };
    let mtu_ok = (68..=65535).contains(&mtu);
    outcomes.push((
        "mss",
        if mtu_ok {
            Outcome::Exact
        } else {
            Outcome::No(
                format!(
                    "needs an MTU of {mtu} B (mss + 40{}); Linux devices take 68–65535 B",
                    if c.timestamps {
                        " + 12 for timestamps"
                    } else {
                        ""
                    }
                ),
                "MTU 1500 B (Linux's Ethernet default)".into(),
            )
        },
    ));
    let mtu = if mtu_ok { mtu as u32 } else { 1500 };

    route_opts.push(format!("initcwnd {}", c.initial_window));
    outcomes.push(("initial_window", Outcome::Exact));
    route_opts.push(format!("window {}", c.receive_window));
    outcomes.push(("receive_window", Outcome::Exact));

    route_opts.push(format!("rto_min {}", ms(c.min_rto)));
    outcomes.push((
        "min_rto",
        if c.rto_rules == RtoRules::Linux {
            Outcome::Exact
        } else {
            Outcome::Near("Linux's RTO floor is SRTT + rto_min, not max(rto_min, RTO)".into())
        },
    ));

    outcomes.push((
        "initial_rto",
        if c.initial_rto == SimDuration::from_secs(1) {
            Outcome::Exact
        } else {
            Outcome::No(
                format!(
                "Linux's initial RTO (and SYN timeout) is fixed at 1s (TCP_TIMEOUT_INIT), not {}",
                ms(c.initial_rto)
            ),
                "Linux's fixed initial RTO of 1s".into(),
            )
        },
    ));

    let max_ms = c.max_rto.as_nanos() / 1_000_000;
    if c.max_rto.as_nanos().is_multiple_of(1_000_000) && (1000..=120_000).contains(&max_ms) {
        set("tcp_rto_max_ms", max_ms.to_string());
        outcomes.push(("max_rto", Outcome::Exact));
    } else {
        let near = max_ms.clamp(1000, 120_000);
        if closest {
            set("tcp_rto_max_ms", near.to_string());
        }
        outcomes.push((
            "max_rto",
            Outcome::No(
                format!(
                    "Linux's tcp_rto_max_ms takes whole milliseconds from 1s to 120s, not {}",
                    ms(c.max_rto)
                ),
                format!("tcp_rto_max_ms {near}"),
            ),
        ));
    }

    outcomes.push((
        "clock_granularity",
        if c.clock_granularity <= SimDuration::from_millis(1) {
            Outcome::Exact
        } else {
            Outcome::No(
                format!(
                    "Linux measures RTTs in microseconds and has no coarse TCP tick; only ≤ 1ms \
                 can be expressed, not {}",
                    ms(c.clock_granularity)
                ),
                "Linux's microsecond RTT samples and jiffy timers (not expressible: no \
                coarse tick, so retransmit timers fire on time, not on tick boundaries)"
                    .into(),
            )
        },
    ));

    match c.delayed_ack {
        None => {
            route_opts.push("quickack 1".into());
            outcomes.push(("delayed_ack", Outcome::Exact));
        }
        Some(d) if d == SimDuration::from_millis(40) => outcomes.push((
            "delayed_ack",
            Outcome::Near(
                "Linux's delayed-ACK timeout starts at 40ms and adapts up to 200ms".into(),
            ),
        )),
        Some(d) => outcomes.push((
            "delayed_ack",
            Outcome::No(
                format!(
                "Linux's delayed-ACK timer is its own (40ms, adaptive up to 200ms): only false \
                 (route quickack) or \"40ms\" can be expressed, not {}",
                ms(d)
            ),
                "Linux's own delayed ACK (40ms, adaptive up to 200ms)".into(),
            ),
        )),
    }

    outcomes.push((
        "quickack_mode",
        if c.quickack_mode {
            Outcome::Exact
        } else {
            Outcome::No(
                "Linux starts every connection in quick-ACK mode (its first data segments \
                 ACKed at once, alone, ahead of the reply); it cannot be turned off"
                    .into(),
                "Linux's quick-ACK mode (always on)".into(),
            )
        },
    ));

    if (1..=300).contains(&c.dupack_threshold) {
        set("tcp_reordering", c.dupack_threshold.to_string());
        outcomes.push(("dupack_threshold", Outcome::Exact));
    } else {
        let near = c.dupack_threshold.clamp(1, 300);
        if closest {
            set("tcp_reordering", near.to_string());
        }
        outcomes.push((
            "dupack_threshold",
            Outcome::No(
                format!(
                    "Linux's tcp_reordering takes 1–300, not {}",
                    c.dupack_threshold
                ),
                format!("tcp_reordering {near}"),
            ),
        ));
    }

    if (1..=127).contains(&c.max_syn_retries) {
        set("tcp_syn_retries", c.max_syn_retries.to_string());
        set("tcp_synack_retries", c.max_syn_retries.to_string());
        outcomes.push(("max_syn_retries", Outcome::Exact));
    } else {
        let near = c.max_syn_retries.clamp(1, 127);
        if closest {
            set("tcp_syn_retries", near.to_string());
            set("tcp_synack_retries", near.to_string());
        }
        outcomes.push((
            "max_syn_retries",
            Outcome::No(
                format!(
                    "Linux's tcp_syn_retries takes 1–127, not {}",
                    c.max_syn_retries
                ),
                format!("tcp_syn_retries and tcp_synack_retries {near}"),
            ),
        ));
    }

    if c.max_retries <= 255 {
        set("tcp_retries2", c.max_retries.to_string());
        outcomes.push(("max_retries", Outcome::Exact));
    } else {
        if closest {
            set("tcp_retries2", "255".into());
        }
        outcomes.push((
            "max_retries",
            Outcome::No(
                format!("Linux's tcp_retries2 takes 0–255, not {}", c.max_retries),
                "tcp_retries2 255".into(),
            ),
        ));
    }

    set("tcp_ecn", u8::from(c.ecn).to_string());
    outcomes.push(("ecn", Outcome::Exact));
    set("tcp_timestamps", u8::from(c.timestamps).to_string());
    outcomes.push(("timestamps", Outcome::Exact));

    outcomes.push((
        "limited_transmit",
        if c.limited_transmit {
            Outcome::Exact
        } else {
            Outcome::No(
                "Linux always sends new data on the first duplicate ACKs (Limited Transmit); \
                 it cannot be turned off"
                    .into(),
                "Linux's Limited Transmit (always on)".into(),
            )
        },
    ));
    // SACK loss recovery: Linux keeps the SACK marks over a timeout (tcp_timeout_mark_lost,
    // forgotten only when the receiver reneges); RACK and TLP are per-namespace sysctls.
    outcomes.push((
        "sack_on_timeout",
        if !sack || c.sack_on_timeout == SackOnTimeout::Keep {
            Outcome::Exact
        } else {
            Outcome::No(
                "Linux keeps the SACK marks over a retransmission timeout (tcp_timeout_mark_lost) \
                 and forgets them only when the receiver reneges"
                    .into(),
                "Linux's SACK marks kept over a timeout".into(),
            )
        },
    ));
    if sack {
        set("tcp_recovery", u8::from(c.rack_tlp).to_string());
        set(
            "tcp_early_retrans",
            if c.rack_tlp { "3" } else { "0" }.into(),
        );
    }
    outcomes.push((
        "rack_tlp",
        if !sack || c.rack_tlp {
            Outcome::Exact
        } else {
            Outcome::Near(
                "without RACK (tcp_recovery 0) Linux marks losses by its own DupThresh \
                 scoreboard (tcp_update_scoreboard), with PRR"
                    .into(),
            )
        },
    ));
    outcomes.push((
        "ns2_fulltcp",
        if c.ns2_fulltcp {
            Outcome::No(
                "ns-2 Full-TCP's packet sequence is not Linux's".into(),
                "Linux's own segment and ACK sequence".into(),
            )
        } else {
            Outcome::Exact
        },
    ));
    outcomes.push((
        "rto",
        match c.rto_rules {
            RtoRules::Rfc6298 => Outcome::Near(
                "Linux's RTO estimator (mdev with a floor of SRTT + rto_min) is not RFC 6298's"
                    .into(),
            ),
            RtoRules::Linux => Outcome::Exact,
            RtoRules::Bsd => Outcome::No(
                "FreeBSD's tcp_xmit_timer rules (tick-based samples) are not Linux's".into(),
                "Linux's RTO estimator (µs samples, mdev, floor SRTT + rto_min)".into(),
            ),
        },
    ));
    outcomes.push((
        "ssthresh",
        match c.ssthresh_rule {
            SsthreshRule::Rfc5681 => Outcome::Exact,
            SsthreshRule::Ns2 => Outcome::No(
                "ns-2's halving on every loss is not Linux's".into(),
                "Linux's ssthresh (RFC 5681, once per window)".into(),
            ),
        },
    ));
    outcomes.push((
        "backoff_reset",
        match c.backoff_reset {
            BackoffReset::Sample => Outcome::Exact,
            BackoffReset::NewAck => Outcome::No(
                "ns-2's backoff reset on any new ACK is not Linux's".into(),
                "Linux's backoff reset (on a valid RTT sample)".into(),
            ),
        },
    ));
    outcomes.push((
        "slow_start",
        match c.slow_start {
            SlowStartGrowth::Rfc5681 => Outcome::Exact,
            SlowStartGrowth::Ns2 => Outcome::No(
                "ns-2's one segment per ACK is not Linux's slow start".into(),
                "Linux's slow start (RFC 5681 with ABC)".into(),
            ),
        },
    ));

    // Pacing: Linux paces BBR itself; other algorithms only under the fq qdisc.
    outcomes.push((
        "pacing",
        if c.pacing && c.variant != Variant::Bbr {
            Outcome::No(
                "Linux paces a non-BBR flow only under the fq qdisc, which the testbed does not \
                 install"
                    .into(),
                "no pacing (Linux without fq)".into(),
            )
        } else {
            Outcome::Exact
        },
    ));
    if (c.pacing_ss_ratio, c.pacing_ca_ratio) != (200, 120) {
        set("tcp_pacing_ss_ratio", c.pacing_ss_ratio.to_string());
        set("tcp_pacing_ca_ratio", c.pacing_ca_ratio.to_string());
    }
    outcomes.push(("pacing_ss_ratio", Outcome::Exact));
    outcomes.push(("pacing_ca_ratio", Outcome::Exact));
    outcomes.push((
        "bbr_lt_bw",
        if c.bbr_lt_bw {
            Outcome::Exact
        } else {
            Outcome::No(
                "Linux's BBR always samples the long-term (policer) bandwidth".into(),
                "Linux's BBR with long-term sampling".into(),
            )
        },
    ));
    let cubic = matches!(c.variant, Variant::Cubic | Variant::CubicSack);
    outcomes.push((
        "hystart",
        if c.hystart || !cubic {
            Outcome::Exact
        } else {
            Outcome::No(
                "tcp_cubic's HyStart is a module parameter of the host (on by default), not a \
                 setting of the run's namespaces"
                    .into(),
                "Linux CUBIC with HyStart".into(),
            )
        },
    ));

    outcomes.push((
        "hystart_plus_plus",
        if c.hystart_plus_plus {
            Outcome::No(
                "Linux has no HyStart++ (RFC 9406)".into(),
                "Linux's slow start (CUBIC: with HyStart)".into(),
            )
        } else {
            Outcome::Exact
        },
    ));

    // Always: fresh state per connection, no TFO, ports for many connections per host, a
    // listen backlog for bursts of arrivals.
    set("tcp_no_metrics_save", "1".into());
    set("tcp_fastopen", "0".into());
    set("ip_local_port_range", "1024 65535".into());
    set("tcp_max_syn_backlog", "65536".into());
    sysctls.push(("net.core.somaxconn".into(), "65535".into()));

    for (key, out) in outcomes {
        match out {
            Outcome::Exact => {}
            Outcome::Near(why) => notes.push(format!("tcp.{key}: close, not identical: {why}")),
            Outcome::No(why, instead) if explicit.contains(key) && closest => substitutions.push(
                format!("tcp.{key}: closest Linux: {instead} (asked: {why})"),
            ),
            Outcome::No(why, _) if explicit.contains(key) => errors.push(Unexpressible {
                key: format!("tcp.{key}"),
                reason: format!("cannot be expressed on Linux: {why}"),
            }),
            Outcome::No(why, _) => notes.push(format!(
                "tcp.{key}: left at aqmlab's default, which Linux cannot express; runs with \
                 Linux's behaviour: {why}"
            )),
        }
    }
    if errors.is_empty() {
        Ok(LinuxTcp {
            sysctls,
            route_opts,
            mtu,
            notes,
            substitutions,
        })
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(text: &str) -> (TcpConfig, BTreeSet<String>) {
        let doc: toml::Table = toml::from_str(text).unwrap();
        let full = format!(
            "[run]\nwarmup = \"0s\"\nduration = \"1s\"\n[topology]\nkind = \"dumbbell\"\n\
             clients = 1\nservers = 1\naccess_rate = \"100Mbps\"\naccess_delay = \"1ms\"\n\
             bottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"10ms\"\n[queue]\n\
             kind = \"droptail\"\nlimit = 10\n{text}\n[[workload]]\nkind = \"bulk\"\n\
             flows = [{{ start = \"0s\", client = 0, server = 0 }}]\n"
        );
        let exps = scenario::parse_str(&full, "t.toml", std::path::Path::new("."))
            .unwrap_or_else(|e| panic!("{e}"));
        (exps[0].experiment.tcp.clone(), explicit_keys(&doc, None))
    }

    fn sysctl<'a>(l: &'a LinuxTcp, k: &str) -> &'a str {
        &l.sysctls
            .iter()
            .find(|(key, _)| key == k)
            .unwrap_or_else(|| panic!("no {k}"))
            .1
    }

    #[test]
    fn default_runs_as_newreno_with_notes() {
        let (c, keys) = cfg("");
        assert!(keys.is_empty());
        let l = map(&c, &keys).unwrap();
        assert_eq!(sysctl(&l, "net.ipv4.tcp_sack"), "0");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_timestamps"), "0");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_ecn"), "0");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_rto_max_ms"), "60000");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_reordering"), "3");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_syn_retries"), "6");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_retries2"), "15");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_no_metrics_save"), "1");
        assert_eq!(
            l.route_opts,
            [
                "congctl reno",
                "initcwnd 2",
                "window 65535",
                "rto_min 1000ms",
                "quickack 1"
            ]
        );
        assert_eq!(l.mtu, 1500);
        let noted: Vec<&str> = l
            .notes
            .iter()
            .map(|n| n.split(':').next().unwrap())
            .collect();
        assert_eq!(
            noted,
            [
                "tcp.min_rto",
                "tcp.initial_rto",
                "tcp.clock_granularity",
                "tcp.quickack_mode",
                "tcp.limited_transmit",
                "tcp.rto"
            ]
        );
    }

    #[test]
    fn linux_profile_maps_without_errors() {
        let (c, keys) = cfg("[tcp]\nprofile = \"linux\"");
        assert!(keys.contains("variant") && keys.contains("initial_rto"));
        let l = map(&c, &keys).unwrap();
        assert_eq!(sysctl(&l, "net.ipv4.tcp_sack"), "1");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_recovery"), "1");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_early_retrans"), "3");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_timestamps"), "1");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_rto_max_ms"), "120000");
        assert_eq!(
            l.route_opts,
            [
                "congctl cubic",
                "initcwnd 10",
                "window 6291456",
                "rto_min 200ms"
            ]
        );
        // 1448 B of payload + 40 B of headers + 12 B of timestamps option.
        assert_eq!(l.mtu, 1500);
        // Only "close" notes (variant, delayed_ack); limited_transmit is not set by the
        // profile: noted as a default. min_rto and rto are Linux's estimator: no note.
        let noted: Vec<&str> = l
            .notes
            .iter()
            .map(|n| n.split(':').next().unwrap())
            .collect();
        assert_eq!(
            noted,
            ["tcp.variant", "tcp.delayed_ack", "tcp.limited_transmit"],
            "{:?}",
            l.notes
        );
        assert!(l.notes[0].starts_with("tcp.variant: close"));
    }

    #[test]
    fn freebsd_profile_is_rejected_key_by_key() {
        let (c, keys) = cfg("[tcp]\nprofile = \"freebsd\"");
        let errs = map(&c, &keys).unwrap_err();
        let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "tcp.variant",
                "tcp.initial_rto",
                "tcp.clock_granularity",
                "tcp.rto"
            ]
        );
        assert!(errs[2].reason.contains("not 500ms"), "{}", errs[2].reason);
        assert!(errs[1].reason.contains("not 6000ms"), "{}", errs[1].reason);
    }

    #[test]
    fn closest_linux_substitutes_the_freebsd_profile() {
        let (c, keys) = cfg("[tcp]\nprofile = \"freebsd\"");
        let l = map_with(&c, &keys, true).unwrap();
        let subst: Vec<&str> = l
            .substitutions
            .iter()
            .map(|n| n.split(':').next().unwrap())
            .collect();
        assert_eq!(
            subst,
            [
                "tcp.variant",
                "tcp.initial_rto",
                "tcp.clock_granularity",
                "tcp.rto"
            ]
        );
        assert!(
            l.substitutions[0].contains("without SACK"),
            "{:?}",
            l.substitutions
        );
        assert!(
            l.substitutions[2].contains("not 500ms"),
            "{:?}",
            l.substitutions
        );
        // Reno → Linux reno without SACK, timestamps on, MSS 1448 (MTU 1500), IW 2, 16 KB
        // window clamp, min RTO 1 s, no delayed ACK → quickack.
        assert_eq!(sysctl(&l, "net.ipv4.tcp_sack"), "0");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_timestamps"), "1");
        assert_eq!(l.mtu, 1500);
        assert_eq!(
            l.route_opts,
            [
                "congctl reno",
                "initcwnd 2",
                "window 16384",
                "rto_min 1000ms",
                "quickack 1"
            ]
        );
        // Without the opt-in the same scenario is still refused.
        assert!(map_with(&c, &keys, false).is_err());
        // Out-of-range values are clamped to Linux's range.
        let (c, keys) = cfg("[tcp]\nmax_syn_retries = 0\nmax_rto = \"300s\"");
        let l = map_with(&c, &keys, true).unwrap();
        assert_eq!(sysctl(&l, "net.ipv4.tcp_syn_retries"), "1");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_rto_max_ms"), "120000");
        assert_eq!(l.substitutions.len(), 2, "{:?}", l.substitutions);
        // A mappable scenario has no substitutions.
        let (c, keys) = cfg("[tcp]\nprofile = \"linux\"");
        assert!(map_with(&c, &keys, true).unwrap().substitutions.is_empty());
    }

    #[test]
    fn ns2_profile_and_single_keys_are_rejected() {
        let (c, keys) = cfg("[tcp]\nprofile = \"ns2\"");
        let errs = map(&c, &keys).unwrap_err();
        let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "tcp.ns2_fulltcp",
                "tcp.ssthresh",
                "tcp.backoff_reset",
                "tcp.slow_start"
            ]
        );
        let (c, keys) = cfg("[tcp]\ndelayed_ack = \"200ms\"");
        let e = map(&c, &keys).unwrap_err();
        assert_eq!(e[0].key, "tcp.delayed_ack");
        assert!(e[0].reason.contains("not 200ms"), "{}", e[0].reason);
        let (c, keys) = cfg("[tcp]\nmax_syn_retries = 0");
        assert_eq!(map(&c, &keys).unwrap_err()[0].key, "tcp.max_syn_retries");
        let (c, keys) = cfg("[tcp]\nmss = \"20B\"");
        assert_eq!(map(&c, &keys).unwrap_err()[0].key, "tcp.mss");
        let (c, keys) = cfg("[tcp]\nvariant = \"tahoe\"");
        assert_eq!(map(&c, &keys).unwrap_err()[0].key, "tcp.variant");
    }

    #[test]
    fn expressible_keys_map_exactly() {
        let (c, keys) = cfg(
            "[tcp]\nvariant = \"cubic\"\nmss = \"1000B\"\ninitial_window = 4\n\
             min_rto = \"250ms\"\ninitial_rto = \"1s\"\nmax_rto = \"30s\"\necn = true\n\
             delayed_ack = \"40ms\"\nlimited_transmit = true\ndupack_threshold = 5",
        );
        let l = map(&c, &keys).unwrap();
        assert_eq!(sysctl(&l, "net.ipv4.tcp_sack"), "0");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_ecn"), "1");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_rto_max_ms"), "30000");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_reordering"), "5");
        assert_eq!(
            l.route_opts,
            [
                "congctl cubic",
                "initcwnd 4",
                "window 65535",
                "rto_min 250ms"
            ]
        );
        assert_eq!(l.mtu, 1040);
    }

    #[test]
    fn variant_tcp_keys_are_explicit() {
        let doc: toml::Table = toml::from_str(
            "[tcp]\nmss = \"1000B\"\n[[variant]]\nname = \"a\"\ntcp = { timestamps = true }\n\
             [[variant]]\nname = \"b\"",
        )
        .unwrap();
        let a: Vec<String> = explicit_keys(&doc, Some("a")).into_iter().collect();
        assert_eq!(a, ["mss", "timestamps"]);
        let b: Vec<String> = explicit_keys(&doc, Some("b")).into_iter().collect();
        assert_eq!(b, ["mss"]);
    }

    #[test]
    fn bbr_pacing_and_hystart_map_or_are_rejected() {
        let (c, keys) = cfg("[tcp]\nvariant = \"bbr\"");
        let l = map(&c, &keys).unwrap();
        assert_eq!(l.route_opts[0], "congctl bbr");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_sack"), "1");
        // Non-default pacing ratios become the sysctls.
        let (c, keys) = cfg("[tcp]\nvariant = \"bbr\"\npacing_ss_ratio = 150");
        let l = map(&c, &keys).unwrap();
        assert_eq!(sysctl(&l, "net.ipv4.tcp_pacing_ss_ratio"), "150");
        assert_eq!(sysctl(&l, "net.ipv4.tcp_pacing_ca_ratio"), "120");
        for (text, key) in [
            ("[tcp]\npacing = true", "tcp.pacing"),
            (
                "[tcp]\nvariant = \"sack\"\nsack_on_timeout = \"clear\"",
                "tcp.sack_on_timeout",
            ),
            (
                "[tcp]\nvariant = \"bbr\"\nbbr_lt_bw = false",
                "tcp.bbr_lt_bw",
            ),
            ("[tcp]\nvariant = \"cubic\"\nhystart = false", "tcp.hystart"),
            (
                "[tcp]\nvariant = \"newreno\"\nhystart_plus_plus = true",
                "tcp.hystart_plus_plus",
            ),
        ] {
            let (c, keys) = cfg(text);
            let e = map(&c, &keys).unwrap_err();
            assert_eq!(e.len(), 1, "{text}");
            assert_eq!(e[0].key, key);
        }
        // HyStart off is Linux's CUBIC only when the scenario says so: left at the default
        // (off) it is a note, as every default Linux cannot express.
        let (c, keys) = cfg("[tcp]\nvariant = \"cubic\"");
        let l = map(&c, &keys).unwrap();
        assert!(
            l.notes.iter().any(|n| n.starts_with("tcp.hystart:")),
            "{:?}",
            l.notes
        );
    }
}
