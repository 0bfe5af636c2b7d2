//! The `[tcp]` table's keys, declared once ([`MODEL`]): key, syntax, unit, range, doc, source
//! and the [`TcpConfig`] field each sets; defaults are `TcpConfig::default()` (config.rs, with
//! their sources). The scenario parser, `aqmlab params tcp`, the table of `docs/tcp.md` and the
//! default search ranges read this declaration; [`TcpConfig::validate`] holds the cross-key
//! rules on values, the key rule the one on a given key (`hystart = true` only with CUBIC: a
//! profile's HyStart is inert under another variant, as Linux's `tcp_cubic` parameter is).
//!
//! Profiles (`profile = "…"`, keys given in the table win):
//! - `ns2`: ns-2.35 Full-TCP's rules as the twins use them (issue 11; each key's own source);
//! - `freebsd`: seed 000's FreeBSD 2.2.8 hosts (§4.1.4; why each value:
//!   `scenarios/christiansen2000/lab_unconstrained.toml`);
//! - `linux`: Linux's defaults as far as aqmlab can express them (CUBIC with SACK recovery and
//!   HyStart, IW 10, RTO 200 ms – 120 s from Linux's estimator (SRTT + 200 ms at least),
//!   timestamps, 40 ms delayed ACK with quick-ACK and ping-pong modes, SACK marks kept over a
//!   timeout, RACK-TLP). Not expressed: the adaptive delayed-ACK timeout (40–200 ms), PRR (here
//!   cwnd set at recovery entry), RACK's reordering adaptation (reo_wnd steps, DSACK),
//!   receive-buffer autotuning (here a fixed window at `tcp_rmem`'s maximum).
//!
//! Validation: `tests/params_declared.rs` (every key parses, profiles set declared keys, the
//! table of `docs/tcp.md` is current) and the scenario crate's `tcp.rs` and `tests/bad_files.rs`.

use crate::config::{
    BackoffReset, RtoRules, SackOnTimeout, SlowStartGrowth, SsthreshRule, TcpConfig, Variant,
};
use declare::table::duration_text;
use declare::{
    check_ranges, choices, field, Choice, KeyRule, Model, Param, ParamError, Profile, ProfileSet,
    Range, Syntax, Value,
};
use units::SimDuration;

choices!(Variant {
    Tahoe => "tahoe",
    Reno => "reno",
    NewReno => "newreno",
    Sack => "sack",
    Cubic => "cubic",
    CubicSack => "cubic_sack",
    Dctcp => "dctcp",
    Prague => "prague",
    Bbr => "bbr",
});
choices!(RtoRules { Rfc6298 => "rfc6298", Bsd => "bsd", Linux => "linux" });
choices!(SsthreshRule { Rfc5681 => "rfc5681", Ns2 => "ns2" });
choices!(BackoffReset { Sample => "sample", NewAck => "ack" });
choices!(SlowStartGrowth { Rfc5681 => "rfc5681", Ns2 => "ns2" });
choices!(SackOnTimeout { Clear => "clear", Keep => "keep" });

const fn choice(noun: &'static str, options: &'static [&'static str]) -> Syntax {
    Syntax::Choice { noun, options }
}

const DUR: Syntax = Syntax::Duration;
const COUNT: Syntax = Syntax::Integer(u32::MAX as u64);

/// The `[tcp]` table: every key, its profiles and the cross-key rules.
pub const MODEL: Model<TcpConfig, TcpConfig> = Model {
    kind: "tcp",
    title: "TCP endpoint of every host (`[tcp]`): loss recovery, timers, ACK policy, options",
    params: &[&KEYS],
    rules: &[KeyRule::TrueNeedsChoice {
        key: "hystart",
        other: "variant",
        values: &["cubic", "cubic_sack"],
        reason: "HyStart is CUBIC's",
    }],
    profiles: &[NS2, FREEBSD, LINUX],
    validate: TcpConfig::validate,
    wrap: |c| c,
};

const KEYS: [Param<TcpConfig>; 32] = [
    Param {
        key: "variant",
        syntax: choice("variant", Variant::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "Loss recovery / congestion control: RFC 6582 NewReno, Tahoe, RFC 5681 Reno, RFC 2018+6675 SACK, RFC 9438 CUBIC (NewReno recovery), CUBIC with SACK recovery (Linux), RFC 8257 DCTCP, TCP Prague (both turn ECN on; Prague paced), BBR v1 (Linux tcp_bbr.c, SACK recovery, paced)",
        source: "RFC 6582 (the standard Reno-family recovery)",
        access: field!(variant),
    },
    Param {
        key: "mss",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Maximum segment size (payload)",
        source: "1500-byte Ethernet MTU − 40",
        access: field!(mss),
    },
    Param {
        key: "initial_window",
        syntax: COUNT,
        unit: "segments",
        range: Range::AtLeast(1.0),
        doc: "Initial congestion window",
        source: "RFC 5681 §3.1 (SMSS > 1095); ns-2 windowInit_ 2; seed 001 Table 2",
        access: field!(initial_window),
    },
    Param {
        key: "receive_window",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::Cross("≥ mss"),
        doc: "Receiver window: most unacknowledged bytes the peer may have",
        source: "RFC 7323: largest window without scaling",
        access: field!(receive_window),
    },
    Param {
        key: "min_rto",
        syntax: DUR,
        unit: "",
        range: Range::Positive,
        doc: "Minimum retransmission timeout (≤ max_rto)",
        source: "RFC 6298 §2.4; seed 001 Table 2",
        access: field!(min_rto),
    },
    Param {
        key: "initial_rto",
        syntax: DUR,
        unit: "",
        range: Range::Positive,
        doc: "RTO before the first RTT sample, and of the SYN (≤ max_rto)",
        source: "RFC 6298 §5.7 / RFC 1122",
        access: field!(initial_rto),
    },
    Param {
        key: "max_rto",
        syntax: DUR,
        unit: "",
        range: Range::Positive,
        doc: "Largest RTO after backoff",
        source: "RFC 6298 §2.5; ns-2 maxrto_ 60",
        access: field!(max_rto),
    },
    Param {
        key: "clock_granularity",
        syntax: DUR,
        unit: "",
        range: Range::Positive,
        doc: "Clock tick G: RTT samples in whole ticks, RTO ≥ SRTT + max(G, 4·RTTVAR)",
        source: "RFC 6298 §2; ns-2 tcpTick_ 0.01",
        access: field!(clock_granularity),
    },
    Param {
        key: "delayed_ack",
        syntax: Syntax::DurationOrOff(
            "give the delayed-ACK timeout as a duration (e.g. \"200ms\") to enable it, or false",
        ),
        unit: "",
        range: Range::PositiveAtMost(SimDuration::from_millis(500)),
        doc: "Delayed-ACK timeout (false: ACK every segment); when on, every second full segment is ACKed at once",
        source: "seed 001 Table 2 (off); RFC 1122 §4.2.3.2 (at most 500 ms)",
        access: field!(delayed_ack),
    },
    Param {
        key: "dupack_threshold",
        syntax: COUNT,
        unit: "",
        range: Range::AtLeast(1.0),
        doc: "Duplicate ACKs that trigger fast retransmit",
        source: "RFC 5681 §3.2",
        access: field!(dupack_threshold),
    },
    Param {
        key: "max_syn_retries",
        syntax: COUNT,
        unit: "",
        range: Range::Any,
        doc: "Retransmissions of a SYN or SYN-ACK before the connection is abandoned",
        source: "Linux tcp_syn_retries",
        access: field!(max_syn_retries),
    },
    Param {
        key: "max_retries",
        syntax: COUNT,
        unit: "",
        range: Range::Any,
        doc: "Retransmissions of a data segment or FIN before the connection is abandoned",
        source: "Linux tcp_retries2",
        access: field!(max_retries),
    },
    Param {
        key: "ecn",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "ECN (RFC 3168): negotiated on the handshake; ECT data, ECE halves the window once per window",
        source: "ns-2 ecn_ 0; seed 001 runs both",
        access: field!(ecn),
    },
    Param {
        key: "limited_transmit",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Limited Transmit (RFC 3042): a new segment on each of the first two duplicate ACKs",
        source: "ns-2 Full-TCP has none",
        access: field!(limited_transmit),
    },
    Param {
        key: "timestamps",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Timestamps option (RFC 7323): 12 more bytes per segment, an RTT sample on every advancing ACK",
        source: "ns-2 Full-TCP timestamps_ false",
        access: field!(timestamps),
    },
    Param {
        key: "ns2_fulltcp",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "ns-2.35 Full-TCP's packet sequence as PackMime drives it (pure ACK before the request, FIN rules, 100 ms ACK tick)",
        source: "ns-2.35 tcp/tcp-full.cc (issue 11); off: the RFC behaviour",
        access: field!(ns2_fulltcp),
    },
    Param {
        key: "quickack_mode",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Linux's ACK timing: a new connection ACKs each in-order data segment at once for up to 16 (min(16, window/(2·mss))), as a segment of its own ahead of any reply; a reply within the delayed-ACK timeout enters ping-pong mode (delayed ACKs again); the client's handshake ACK goes before its data",
        source: "Linux 6.x net/ipv4/tcp_input.c tcp_incr_quickack, tcp_event_data_recv, __tcp_ack_snd_check; tcp_output.c tcp_event_data_sent; off: RFC 1122 §4.2.3.2 / RFC 5681 §4.2",
        access: field!(quickack_mode),
    },
    Param {
        key: "rto",
        syntax: choice("rto", RtoRules::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "RTO rules: RFC 6298; FreeBSD's tcp_xmit_timer (samples from one tick, RTO ≥ sample + 2 ticks); or Linux's tcp_rtt_estimator (RTO = SRTT + rttvar, rttvar ≥ min_rto and decaying once per round, so RTO ≥ SRTT + min_rto)",
        source: "RFC 6298; bsd: FreeBSD 2.2.8 (seed 000); linux: Linux 6.x net/ipv4/tcp_input.c tcp_rtt_estimator, tcp_set_rto",
        access: field!(rto_rules),
    },
    Param {
        key: "ssthresh",
        syntax: choice("ssthresh", SsthreshRule::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "Loss response: max(FlightSize/2, 2·MSS) at the first expiry, or ns-2's half window on every loss",
        source: "RFC 5681 eq. 4; ns2: ns-2.35 tcp.cc slowdown()",
        access: field!(ssthresh_rule),
    },
    Param {
        key: "backoff_reset",
        syntax: choice("backoff_reset", BackoffReset::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "When the RTO backoff ends: the next valid RTT sample, or any ACK of new data",
        source: "RFC 6298 §5.5 with Karn; ack: ns-2.35 tcp-full.cc newack()",
        access: field!(backoff_reset),
    },
    Param {
        key: "slow_start",
        syntax: choice("slow_start", SlowStartGrowth::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "Slow-start growth per ACK: min(bytes acknowledged, MSS), or one segment per ACK of new data",
        source: "RFC 5681 eq. 2; ns2: ns-2.35 tcp.cc opencwnd()",
        access: field!(slow_start),
    },
    Param {
        key: "prague_rtt_target",
        syntax: Syntax::DurationOrOff(
            "give Prague's RTT target as a duration (e.g. \"25ms\"), or false to turn the RTT independence off",
        ),
        unit: "",
        range: Range::Positive,
        doc: "Prague only: with SRTT below it, congestion-avoidance increases × (SRTT/target)² (RTT independence; false: off)",
        source: "reference TCP Prague prague_rtt_target (25 ms); RFC 9331 §4.3",
        access: field!(prague_rtt_target),
    },
    Param {
        key: "pacing",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Sender pacing: data segments at least payload/rate apart, rate = ratio · max(cwnd, FlightSize)/SRTT (BBR always paces at its own rate)",
        source: "Linux tcp_update_pacing_rate (net/ipv4/tcp_input.c); off: the studies' stacks",
        access: field!(pacing),
    },
    Param {
        key: "pacing_ss_ratio",
        syntax: COUNT,
        unit: "%",
        range: Range::AtLeast(1.0),
        doc: "Pacing rate while cwnd < ssthresh/2, percent of max(cwnd, FlightSize)/SRTT",
        source: "Linux sysctl tcp_pacing_ss_ratio 200",
        access: field!(pacing_ss_ratio),
    },
    Param {
        key: "pacing_ca_ratio",
        syntax: COUNT,
        unit: "%",
        range: Range::AtLeast(1.0),
        doc: "Pacing rate once cwnd ≥ ssthresh/2, percent of max(cwnd, FlightSize)/SRTT",
        source: "Linux sysctl tcp_pacing_ca_ratio 120",
        access: field!(pacing_ca_ratio),
    },
    Param {
        key: "bbr_lt_bw",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "BBR only: long-term bandwidth sampling (policer detection: two lossy intervals of equal rate → pace at their mean for 48 rounds)",
        source: "Linux net/ipv4/tcp_bbr.c (always on)",
        access: field!(bbr_lt_bw),
    },
    Param {
        key: "hystart",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Cross("true: variant cubic or cubic_sack"),
        doc: "CUBIC only: HyStart ends slow start early (ssthresh = cwnd) on an ACK train longer than min RTT/2 or an RTT rise of clamp(min RTT/8, 4, 16 ms), from cwnd 16 segments",
        source: "Linux net/ipv4/tcp_cubic.c (hystart = 1); off: RFC 9438 §4.10 (RFC 5681 slow start)",
        access: field!(hystart),
    },
    Param {
        key: "hystart_plus_plus",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Cross("tahoe, reno, newreno, sack, cubic, cubic_sack; not with hystart or slow_start = \"ns2\""),
        doc: "HyStart++: in the initial slow start (cwnd += min(N, 8 MSS) per ACK, unbounded when paced), a round's min RTT ≥ the last round's + clamp(its/8, 4, 16 ms) over 8 samples enters Conservative Slow Start (growth ÷ 4); an RTT back below its baseline resumes slow start, 5 rounds of it end slow start (ssthresh = cwnd)",
        source: "RFC 9406 §4.2–4.3; off: RFC 5681 slow start (Linux does not run HyStart++)",
        access: field!(hystart_plus_plus),
    },
    Param {
        key: "handshake",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Cross("false: not with SACK, ECN, timestamps, ns2_fulltcp"),
        doc: "Open with the three-way handshake and close with FINs; false: ns-2's one-way Agent/TCP + TCPSink (no SYN, no FIN, the response leaves at once, ACKs from the receiver)",
        source: "RFC 793; false: ns-2 tcp/tcp.cc, tcp/tcp-sink.cc (seed 003's agents, issue 34)",
        access: field!(handshake),
    },
    Param {
        key: "initial_ssthresh",
        syntax: COUNT,
        unit: "segments",
        range: Range::AtLeast(1.0),
        doc: "Initial slow-start threshold (unset: the peer's advertised window)",
        source: "RFC 5681 §3.1; ns-2 ssthresh_ = window_ (tcp.cc reset()); seed 003 §4.7 states 50",
        access: field!(initial_ssthresh),
    },
    Param {
        key: "sack_on_timeout",
        syntax: choice("sack_on_timeout", SackOnTimeout::OPTIONS),
        unit: "",
        range: Range::Any,
        doc: "SACK scoreboard at a retransmission timeout: clear it and go back N from SND.UNA, or keep it, count the rest as lost and resend only the holes (then new data), clocked by pipe; inert without SACK",
        source: "RFC 6675 §5.1, ns-2 clear_on_timeout_; keep: Linux tcp_enter_loss / tcp_timeout_mark_lost (net/ipv4/tcp_input.c; no reneging here)",
        access: field!(sack_on_timeout),
    },
    Param {
        key: "rack_tlp",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "RACK-TLP with SACK: a segment is lost once one sent after it is delivered and RACK.rtt + reo_wnd has passed (reo_wnd min(min RTT/4, SRTT), 0 in recovery or with ≥ 3 segments SACKed; reorder timer), lost retransmissions resent without a timeout, recovery entered on a RACK loss; tail loss probe 2·SRTT (+ min_rto with one segment out, else + 2 ms; ≤ the RTO) sends new data or resends the last segment, one per episode, a probe-repaired loss reduces cwnd once. Simplified: no reordering detection or reo_wnd steps (no DSACK), no PRR, RTO separate from the probe and reorder timers",
        source: "RFC 8985; Linux 6.x net/ipv4/tcp_recovery.c, tcp_output.c tcp_schedule_loss_probe / tcp_send_loss_probe, tcp_input.c tcp_process_tlp_ack; off: RFC 6675 alone",
        access: field!(rack_tlp),
    },
];

const NS2: Profile = Profile {
    name: "ns2",
    doc: "ns-2.35 Full-TCP's rules, as the ns-2 twins run them (issue 11)",
    sets: &[
        ProfileSet::set("ns2_fulltcp", Value::Bool(true)),
        ProfileSet::set("ssthresh", Value::Choice("ns2")),
        ProfileSet::set("backoff_reset", Value::Choice("ack")),
        ProfileSet::set("slow_start", Value::Choice("ns2")),
    ],
};

const FREEBSD: Profile = Profile {
    name: "freebsd",
    doc: "seed 000's FreeBSD 2.2.8 hosts (§4.1.4): Reno, timestamps, 16 KB window, 500 ms slow timer, BSD RTO rules",
    sets: &[
        ProfileSet::set("variant", Value::Choice("reno")),
        ProfileSet::set("timestamps", Value::Bool(true)),
        ProfileSet::set("mss", Value::Int(1448)),
        ProfileSet::set("receive_window", Value::Int(16384)),
        ProfileSet::set("initial_window", Value::Int(2)),
        ProfileSet::set("min_rto", Value::Duration(SimDuration::from_secs(1))),
        ProfileSet::set("initial_rto", Value::Duration(SimDuration::from_secs(6))),
        ProfileSet::set("clock_granularity", Value::Duration(SimDuration::from_millis(500))),
        ProfileSet::set("rto", Value::Choice("bsd")),
    ],
};

const LINUX: Profile = Profile {
    name: "linux",
    doc: "Linux defaults as far as expressible: CUBIC with SACK and HyStart (tcp_congestion_control, tcp_sack, tcp_cubic hystart), IW 10 (TCP_INIT_CWND), RTO 200 ms – 120 s from 1 s (TCP_RTO_MIN/MAX, TCP_TIMEOUT_INIT), timestamps with MSS 1448, 40 ms delayed ACK (TCP_DELACK_MIN), 1 ms tick, window at tcp_rmem's maximum, Linux's RTO estimator (RTO ≥ SRTT + 200 ms, tcp_rtt_estimator) and quick-ACK mode (tcp_incr_quickack; the request's ACK ahead of the reply, the handshake ACK ahead of the request), SACK marks kept over a timeout (tcp_enter_loss), RACK-TLP (tcp_recovery.c, tail loss probe); not expressed: the adaptive delayed-ACK timeout (40–200 ms), PRR, RACK's reordering adaptation",
    sets: &[
        ProfileSet::set("variant", Value::Choice("cubic_sack")),
        ProfileSet::set("initial_window", Value::Int(10)),
        ProfileSet::set("min_rto", Value::Duration(SimDuration::from_millis(200))),
        ProfileSet::set("initial_rto", Value::Duration(SimDuration::from_secs(1))),
        ProfileSet::set("max_rto", Value::Duration(SimDuration::from_secs(120))),
        ProfileSet::set("timestamps", Value::Bool(true)),
        ProfileSet::set("mss", Value::Int(1448)),
        ProfileSet::set("delayed_ack", Value::Duration(SimDuration::from_millis(40))),
        ProfileSet::set("clock_granularity", Value::Duration(SimDuration::from_millis(1))),
        ProfileSet::set("receive_window", Value::Int(6_291_456)),
        ProfileSet::set("hystart", Value::Bool(true)),
        ProfileSet::set("sack_on_timeout", Value::Choice("keep")),
        ProfileSet::set("rack_tlp", Value::Bool(true)),
        ProfileSet::set("quickack_mode", Value::Bool(true)),
        ProfileSet::set("rto", Value::Choice("linux")),
    ],
};

fn cross(key: &str, reason: String) -> Result<(), ParamError> {
    Err(ParamError {
        key: key.into(),
        reason,
    })
}

impl TcpConfig {
    /// The declared ranges ([`MODEL`]), then receive_window ≥ mss, min_rto ≤ max_rto,
    /// handshake = false only without negotiated options, hystart_plus_plus only with an
    /// RFC 5681 slow start (not bbr, dctcp, prague), without hystart or ns-2's growth, and
    /// initial_rto ≤ max_rto. A cross-key error names the first key of its rule; the parser
    /// reports it at the key of the rule the table gave.
    pub fn validate(&self) -> Result<(), ParamError> {
        check_ranges(MODEL.params, self)?;
        if self.receive_window < self.mss {
            return cross(
                "receive_window",
                format!(
                    "receive_window ({} B) must be at least one mss ({} B)",
                    self.receive_window, self.mss
                ),
            );
        }
        if self.min_rto > self.max_rto {
            return cross(
                "min_rto",
                format!(
                    "min_rto ({}) must not exceed max_rto ({})",
                    duration_text(self.min_rto.as_nanos()),
                    duration_text(self.max_rto.as_nanos())
                ),
            );
        }
        if !self.handshake {
            let negotiated = [
                (self.variant.uses_sack(), "a SACK variant"),
                (self.wants_ecn(), "ECN"),
                (self.timestamps, "timestamps"),
                (self.ns2_fulltcp, "ns2_fulltcp"),
            ];
            if let Some((_, what)) = negotiated.iter().find(|(on, _)| *on) {
                return cross(
                    "handshake",
                    format!(
                        "handshake = false (ns-2's one-way agents) cannot run with {what}: it is \
                         agreed on the SYN, or (ns2_fulltcp) needs Full-TCP's handshake"
                    ),
                );
            }
        }
        if self.hystart_plus_plus {
            let v = self.variant;
            let refused = if matches!(v, Variant::Bbr | Variant::Dctcp | Variant::Prague) {
                Some(format!(
                    "HyStart++ runs with the RFC 5681 slow start of tahoe, reno, newreno, sack, \
                     cubic or cubic_sack, not with variant {}",
                    v.name()
                ))
            } else if self.hystart {
                Some(
                    "not with hystart = true: Linux's HyStart would end the same slow start \
                     (set hystart = false; the linux profile turns it on)"
                        .to_string(),
                )
            } else if self.slow_start == SlowStartGrowth::Ns2 {
                Some(
                    "not with slow_start = \"ns2\": RFC 9406 grows cwnd by the bytes each ACK \
                     acknowledges, not by one segment per ACK"
                        .to_string(),
                )
            } else {
                None
            };
            if let Some(why) = refused {
                return cross("hystart_plus_plus", why);
            }
        }
        if self.initial_rto > self.max_rto {
            return cross(
                "initial_rto",
                format!(
                    "initial_rto ({}) must not exceed max_rto ({})",
                    duration_text(self.initial_rto.as_nanos()),
                    duration_text(self.max_rto.as_nanos())
                ),
            );
        }
        Ok(())
    }
}
