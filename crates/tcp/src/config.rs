//! TCP configuration: every default with its source (STYLE.md §3).
//!
//! The defaults describe the web-traffic studies' stacks (seed 001 Table 2: initial window 2,
//! 10 ms TCP tick, 1 s minimum RTO, no delayed ACKs; seed 000 §3.4.3: Nagle off) with the
//! current standards elsewhere: NewReno recovery, MSS 1460, 64 KB receive window, RFC 6298
//! timers with a 3 s initial RTO. ECN, Limited Transmit and timestamps are off by default. The `scenario` crate validates ranges (mss ≥ 1,
//! initial_window ≥ 1, receive_window ≥ mss, min_rto ≤ max_rto, initial_rto ≤ max_rto, …); the
//! endpoint only guards against values that would stall it (mss 0, threshold 0).
//!
//! Validation: the per-state tests (tests/*.rs) compute their expected times and windows by
//! hand from these defaults (e.g. established.rs: IW 2, MSS 1460; rto.rs: min RTO 1 s, tick
//! 10 ms; syn_sent.rs: initial RTO 3 s, max RTO 60 s, 6 SYN retries).

use units::{Ecn, SimDuration};

/// Loss-recovery variant (Fall & Floyd 1996 compare the four).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// 4.3BSD-Tahoe as ns-2 `Agent/TCP`: fast retransmit without fast recovery — on the
    /// threshold-th duplicate ACK, ssthresh = max(FlightSize/2, 2·MSS), cwnd = 1 MSS and the
    /// sender goes back to SND.UNA in slow start (congestion/tahoe.rs).
    Tahoe,
    /// RFC 5681 fast retransmit / fast recovery; leaves recovery on the first new ACK.
    Reno,
    /// RFC 6582: stays in recovery until the recovery point is acknowledged, retransmitting on
    /// each partial ACK.
    NewReno,
    /// RFC 2018 SACK blocks with RFC 6675 loss recovery (scoreboard, pipe, NextSeg). Used only
    /// if both ends are `Sack` (SACK-permitted on SYN and SYN-ACK); otherwise NewReno.
    Sack,
    /// CUBIC, RFC 9438 (C = 0.4, β = 0.7, fast convergence, Reno-friendly region) in
    /// congestion avoidance and at each congestion event, with RFC 6582 NewReno loss recovery
    /// (congestion/cubic.rs).
    Cubic,
    /// CUBIC's window law with RFC 2018 SACK blocks and RFC 6675 loss recovery, as Linux runs it
    /// by default (`tcp_congestion_control = cubic`, `tcp_sack = 1`): at entry ssthresh = cwnd =
    /// β·FlightSize, no inflation, sending clocked by pipe (congestion/cubic.rs). Used only if
    /// both ends offer SACK; otherwise CUBIC with NewReno recovery.
    CubicSack,
    /// DCTCP, RFC 8257: ECT(0), cwnd × (1 − α/2) once per window with α the EWMA of the marked
    /// fraction, exact CE echo by the receiver; NewReno loss recovery (congestion/dctcp.rs).
    /// Turns ECN on.
    Dctcp,
    /// TCP Prague (RFC 9331 §4.3 as the reference implements it): DCTCP's response with ECT(1),
    /// RTT independence (`prague_rtt_target`), NewReno loss recovery (congestion/prague.rs).
    /// Turns ECN on.
    Prague,
    /// BBR v1 as Linux's `tcp_bbr.c` (congestion/bbr.rs): cwnd and pacing rate from the
    /// measured bottleneck bandwidth and min RTT; always paced. Offers SACK and recovers with
    /// RFC 6675 when the peer agrees, else with NewReno's partial-ACK retransmissions.
    Bbr,
}

impl Variant {
    /// Offers SACK on the SYN and recovers with RFC 6675 when the peer agrees.
    pub fn uses_sack(self) -> bool {
        matches!(self, Variant::Sack | Variant::CubicSack | Variant::Bbr)
    }
    /// A scalable congestion control (RFC 9331 §4.3): needs ECN, and its receiver echoes CE
    /// exactly (RFC 8257 §3.2) instead of RFC 3168's sticky ECE.
    pub fn scalable(self) -> bool {
        matches!(self, Variant::Dctcp | Variant::Prague)
    }
    /// Paced whatever `pacing` says: the reference Prague paces (RFC 9331 §4.3 lists pacing
    /// among the L4S sender requirements), and Linux BBR asks for pacing itself.
    pub fn paced_by_default(self) -> bool {
        matches!(self, Variant::Prague | Variant::Bbr)
    }
}

impl TcpConfig {
    /// Whether the endpoint keeps per-segment delivery-rate stamps (rate.rs): BBR, CUBIC
    /// with HyStart, and HyStart++ (their per-ACK RTT samples).
    pub fn uses_rate_samples(&self) -> bool {
        self.variant == Variant::Bbr
            || (self.hystart && matches!(self.variant, Variant::Cubic | Variant::CubicSack))
            || self.hystart_plus_plus
    }
}

/// How NewReno sets cwnd when a full ACK ends fast recovery (RFC 6582 §3.2 step 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullAck {
    /// Option (2): cwnd = ssthresh. ns-2 Full-TCP (cwnd = ssthresh on leaving recovery) and ns-2
    /// one-way NewReno with `exit_recovery_fix_ 0`. The RFC warns it may send a burst.
    Ssthresh,
    /// Option (1): cwnd = min(ssthresh, max(FlightSize, MSS) + MSS), FlightSize after the ACK;
    /// avoids the burst (ns-2 `exit_recovery_fix_ 1`).
    FlightSize,
}

/// How RTT samples become an RTO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoRules {
    /// RFC 6298 (rtt.rs module doc): samples are tick boundaries crossed (≥ 1 tick), RTO =
    /// SRTT + max(G, 4·RTTVAR), at least `min_rto`.
    Rfc6298,
    /// 4.4BSD/FreeBSD `tcp_xmit_timer` (FreeBSD 2.2.8, seed 000's hosts): a sample is 1 + the
    /// ticks crossed (BSD's `t_rtt` starts at 1; with timestamps `tcp_now − tsecr + 1`); the
    /// first sets SRTT = R, RTTVAR = R/2, later ones smooth R − 1 ("origin 0") with gains 1/8
    /// and 1/4; RTO = SRTT + 4·RTTVAR truncated to whole ticks, at least max(`min_rto`,
    /// R + 2 ticks) for the latest sample R. No RFC 6298 §5.7 floor after a SYN timeout.
    Bsd,
    /// Linux 6.x `tcp_rtt_estimator` / `tcp_set_rto` / `tcp_bound_rto` (rtt_linux.rs): RTO =
    /// SRTT + rttvar, where rttvar is the round's largest mean deviation (×4), at least
    /// `min_rto` (`tcp_rto_min`) and decaying once per round; so RTO ≥ SRTT + `min_rto`.
    Linux,
}

/// How a loss reduces ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsthreshRule {
    /// RFC 5681 eq. 4: ssthresh = max(FlightSize/2, 2·MSS), on a timeout only at the first
    /// expiry for a segment, never raised during fast recovery (congestion/mod.rs).
    Rfc5681,
    /// ns-2.35 (`tcp/tcp.cc` `slowdown(CLOSE_SSTHRESH_HALF)`, called by Full-TCP's
    /// `dupack_action` and by `timeout_action` on *every* timeout): ssthresh = max(⌊W/2⌋, 2)
    /// segments with W = ⌊min(cwnd, peer window)⌋ in segments — half the window, not the
    /// FlightSize, so after a first timeout (cwnd 1) a second one sets ssthresh to 2 segments.
    /// The ECN-Echo response follows the same routine (`TcpAgent::ecn()`:
    /// `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`): cwnd = max(⌊W/2⌋, 1) segments, not
    /// ssthresh.
    Ns2,
}

/// How slow start grows cwnd on an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartGrowth {
    /// RFC 5681 §3.1 eq. 2 (byte counting, RFC 3465 with L = 1): cwnd += min(bytes newly
    /// acknowledged, MSS).
    Rfc5681,
    /// ns-2.35 (`tcp/tcp.cc` `opencwnd()`, `increase_num_` 1; Full-TCP counts its window in
    /// segments): one whole segment per ACK of new data, however few bytes it acknowledges — so
    /// on a persistent connection the ACK of a short response (or request) opens cwnd by a full
    /// segment for the next one.
    Ns2,
}

/// When the RTO backoff (the doubling after each expiry) ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackoffReset {
    /// RFC 6298 §5.5 with Karn & Partridge: only with the next valid RTT sample (an ACK of a
    /// segment that was never retransmitted).
    Sample,
    /// ns-2.35 Full-TCP (`tcp/tcp-full.cc`, `newack()`: `t_backoff_ = 1` on every ACK of new
    /// data, the "T. Kelly" change): any ACK that advances SND.UNA ends it.
    NewAck,
}

/// What a retransmission timeout does with the SACK scoreboard (`sack_on_timeout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SackOnTimeout {
    /// Forget the SACKed ranges and go back N from SND.UNA (RFC 6675 §5.1 and RFC 2018 §8
    /// allow it, for a receiver that may have reneged; ns-2 `clear_on_timeout_`).
    Clear,
    /// Keep the SACKed ranges, count every other byte sent as lost and resend only the holes,
    /// in order, clocked by pipe against the post-timeout cwnd; new data once they are sent
    /// (Linux `tcp_enter_loss` / `tcp_timeout_mark_lost`, net/ipv4/tcp_input.c, for a receiver
    /// that has not reneged; aqmlab's receivers never renege).
    Keep,
}

/// Per-endpoint TCP settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Loss-recovery variant. Default NewReno (RFC 6582, the standard Reno-family recovery).
    pub variant: Variant,
    /// Maximum segment size, payload bytes. Default 1460 (Ethernet MTU 1500 − 40).
    pub mss: u32,
    /// Initial congestion window, segments. Default 2 (RFC 5681 §3.1 for SMSS > 1095;
    /// ns-2 `windowInit_ 2`).
    pub initial_window: u32,
    /// Receiver window (the peer may not have more unacknowledged bytes than this), bytes.
    /// Default 65535 (largest window without scaling, RFC 7323).
    pub receive_window: u32,
    /// Minimum RTO. Default 1 s (RFC 6298 §2.4).
    pub min_rto: SimDuration,
    /// RTO before the first RTT sample, and for the SYN. Default 3 s (RFC 6298 §5.7 and
    /// RFC 1122; the value the studies' stacks used).
    pub initial_rto: SimDuration,
    /// Maximum RTO after backoff. Default 60 s (RFC 6298 §2.5; ns-2 `maxrto_ 60`).
    pub max_rto: SimDuration,
    /// Clock granularity G of RFC 6298 (RTT samples are counted in whole ticks and the RTO is
    /// at least srtt + max(G, 4·rttvar)). Default 10 ms (ns-2 `tcpTick_ 0.01`).
    pub clock_granularity: SimDuration,
    /// Delayed ACK timeout; `None` = ACK every segment (default, as seed 001 Table 2).
    /// When on: ACK every second full segment or after this delay (RFC 1122: ≤ 500 ms;
    /// 200 ms is the common choice).
    pub delayed_ack: Option<SimDuration>,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681).
    pub dupack_threshold: u32,
    /// Retransmissions of a SYN (or SYN-ACK) before the connection is abandoned. Default 6
    /// (Linux `tcp_syn_retries`).
    pub max_syn_retries: u32,
    /// Retransmissions of a data segment or FIN before the connection is abandoned.
    /// Default 15 (Linux `tcp_retries2`).
    pub max_retries: u32,
    /// NewReno only: cwnd when a full ACK ends fast recovery. Default [`FullAck::Ssthresh`]
    /// (RFC 6582 §3.2 step 3 option 2; ns-2 `exit_recovery_fix_ 0`).
    pub newreno_full_ack: FullAck,
    /// Explicit Congestion Notification (RFC 3168): offer/accept it on the handshake; when both
    /// ends agree, new data segments are ECT and ECE halves the window once per window of data.
    /// Default false (seed 001 runs with and without it; ns-2 `ecn_ 0`).
    pub ecn: bool,
    /// Limited Transmit (RFC 3042): on each of the first two duplicate ACKs send one new
    /// segment if the outstanding data stays ≤ cwnd + 2·MSS. Default false (ns-2 Full-TCP, the
    /// studies' stack, has none; one-way ns-2 `Agent/TCP` has it on, `singledup_ 1`).
    pub limited_transmit: bool,
    /// Timestamps option (RFC 7323): offered on the SYN, used when both ends have it; then
    /// every segment carries TSval/TSecr (12 more wire bytes) and RTT is sampled from the echo
    /// on every ACK that advances SND.UNA, retransmissions included (timestamps.rs). Default
    /// false (ns-2 Full-TCP `timestamps_ false`, seed 001); seed 000's FreeBSD hosts had it on.
    pub timestamps: bool,
    /// RTO computation. Default RFC 6298; seed 000's FreeBSD hosts: [`RtoRules::Bsd`].
    pub rto_rules: RtoRules,
    /// Emit ns-2.35 Full-TCP's packet sequence as PackMime drives it (issue 11; source
    /// `tcp/tcp-full.cc` of ns-2.35). Default false (the RFC behaviour above). When on:
    /// - (a) the client answers the SYN-ACK with a pure ACK and sends its data after it
    ///   (`recv`, SYN_SENT: "special to ns: generate pure ACK here", `sendpacket(..TH_ACK, 0..)`);
    /// - (b) `close()` is PackMime's `sendmsg(n, "MSG_EOF")`: the FIN rides on the segment
    ///   carrying the last data byte only if, when that segment is first sent, all earlier
    ///   sequence space is acknowledged (`foutput`: `close_on_empty_ && quiet` →
    ///   `TF_NEEDCLOSE`); otherwise the FIN goes alone once an ACK covers everything sent
    ///   (`needoutput` on `ackno == maxseq_`); a FIN already sent rides on retransmissions;
    /// - (c) in CLOSE-WAIT with all our sequence space acknowledged the endpoint closes by
    ///   itself (`halfclose_` false: `usrclosed()` at the end of `recv`): the ACK of the peer's
    ///   FIN leaves first as a pure ACK, then our FIN alone. PackMime's client never closes; the
    ///   application layer (sim `conn.rs`) leaves the client's close to this rule;
    /// - (d) receiver ACK policy of `need_send()` and the delayed-ACK timer: in-order data is
    ///   acknowledged at once when ≥ S·MSS payload is unacknowledged, else at the next multiple
    ///   of the tick period T of simulated time (`delack_timer_` rescheduled to
    ///   `interval_·(⌊now/interval_⌋ + 1)`, then periodic). `delayed_ack = None` gives S = 1,
    ///   T = 100 ms (the twins' `segsperack_ 1`, `interval_ 0.1`); `Some(d)` gives S = 2,
    ///   T = d (`segsperack_ 2`, `interval_ d`). Out-of-order, hole-filling, duplicate data and
    ///   FINs are ACKed at once, as without the option;
    /// - (e) the last byte of the data queued, when it would leave alone in a segment (a size
    ///   ≡ 1 mod MSS), waits until everything before it is acknowledged, then goes with the FIN
    ///   (`send_much` loops while `t_seqno_ < curseq_`, and `curseq_` is that byte's sequence
    ///   number; only `foutput`'s "quiet" path sends it). In a loss-free paired twin every
    ///   response that ns-2 finished later than aqmlab was such a size.
    ///
    /// Not reproduced: Full-TCP's second pure ACK when the client has nothing queued at the
    /// SYN-ACK (`TF_ACKNOW` survives the direct `sendpacket`), and its FIN flag on pure ACKs sent
    /// in FIN-WAIT-1/CLOSING.
    pub ns2_fulltcp: bool,
    /// Linux's receiver ACK timing (quickack.rs): a new connection ACKs each in-order data
    /// segment at once while its quick-ACK budget lasts (up to 16, Linux `TCP_MAX_QUICKACKS`),
    /// a reply sent within the delayed-ACK timeout of the data enters ping-pong mode (ACKs
    /// delayed again); a quick ACK leaves as its own segment at the data's arrival, ahead of
    /// any reply the application writes then (Linux ACKs in the softirq, before the process is
    /// woken); and the client ACKs the SYN-ACK in a segment of its own before its first data
    /// (Linux `tcp_rcv_synsent_state_process`; ns2_fulltcp's rule (a), shared). Default false
    /// (RFC 1122/5681 delayed ACKs); the `linux` profile turns it on.
    pub quickack_mode: bool,
    /// How a loss sets ssthresh. Default [`SsthreshRule::Rfc5681`]; `Ns2` is ns-2's window
    /// halving (issue 11: the seed-001 twins at 105 % load).
    pub ssthresh_rule: SsthreshRule,
    /// When the RTO backoff ends. Default [`BackoffReset::Sample`] (RFC 6298, Karn); `NewAck`
    /// is ns-2.35 Full-TCP's rule.
    pub backoff_reset: BackoffReset,
    /// Slow-start growth per ACK. Default [`SlowStartGrowth::Rfc5681`]; `Ns2` is ns-2's
    /// segment-counting rule (issue 11: HTTP/1.1 persistent connections in the seed-002 twin).
    pub slow_start: SlowStartGrowth,
    /// Prague's RTT independence: with SRTT below this target, congestion-avoidance increases
    /// are scaled by (SRTT/target)²; `None` = off. Default 25 ms (reference Prague
    /// `prague_rtt_target`). Read by `Variant::Prague` only.
    pub prague_rtt_target: Option<SimDuration>,
    /// Sender pacing (pacing.rs): data segments leave no closer than payload / rate apart.
    /// Default false (the studies' stacks did not pace). BBR always paces (Linux BBR requests
    /// pacing itself), whatever this says.
    pub pacing: bool,
    /// Pacing rate in slow start (cwnd < ssthresh/2), percent of max(cwnd, FlightSize)/SRTT.
    /// Default 200 (Linux `tcp_pacing_ss_ratio`).
    pub pacing_ss_ratio: u32,
    /// Pacing rate otherwise, percent of max(cwnd, FlightSize)/SRTT. Default 120 (Linux
    /// `tcp_pacing_ca_ratio`).
    pub pacing_ca_ratio: u32,
    /// BBR only: long-term bandwidth sampling (policer detection, congestion/bbr.rs). Default
    /// true (Linux `tcp_bbr.c` always runs it).
    pub bbr_lt_bw: bool,
    /// CUBIC only (`cubic`, `cubic_sack`): HyStart (congestion/hystart.rs), Linux's hybrid
    /// slow start (ACK-train and delay-increase exits). Default false (RFC 9438 §4.10 leaves
    /// slow start to RFC 5681); Linux runs it (`tcp_cubic.c` `hystart = 1`): the `linux`
    /// profile turns it on.
    pub hystart: bool,
    /// HyStart++ (RFC 9406, congestion/hystart_plus_plus.rs): the initial slow start ends on an
    /// RTT rise through 5 rounds of Conservative Slow Start. Default false (Linux does not run
    /// it); only with variants of RFC 5681 slow start (tahoe, reno, newreno, sack, cubic,
    /// cubic_sack), not with `hystart` nor `slow_start = "ns2"` (params.rs).
    pub hystart_plus_plus: bool,
    /// Open with the three-way handshake (default true, RFC 793). False: ns-2's one-way
    /// agents (`Agent/TCP` sender with a `TCPSink`, ns-2 `tcp/tcp.cc`, `tcp/tcp-sink.cc`): no
    /// SYN, SYN-ACK or FIN; both ends are ESTABLISHED when the connection opens, the server's
    /// data leaves at once and the receiver ACKs it; `close()` ends an end without a FIN once
    /// everything it sent is acknowledged (endpoint.rs). Options negotiated on the SYN (SACK,
    /// ECN, timestamps) and `ns2_fulltcp` are refused with it (params.rs).
    pub handshake: bool,
    /// What a timeout does with the SACK scoreboard. Default [`SackOnTimeout::Clear`] (RFC 6675
    /// §5.1, ns-2); the `linux` profile keeps it. Inert without SACK.
    pub sack_on_timeout: SackOnTimeout,
    /// RACK-TLP loss detection (rack.rs; RFC 8985 as Linux 6.x runs it): time-based loss
    /// marks instead of DupThresh, a reorder timer, and a tail loss probe. Default false (the
    /// studies' stacks, RFC 6675 alone); the `linux` profile turns it on. Used only when SACK
    /// is agreed (Linux's TLP needs SACK).
    pub rack_tlp: bool,
    /// Initial slow-start threshold, segments; `None` = the peer's advertised window (default,
    /// RFC 5681 §3.1's example; ns-2 `ssthresh_ = window_` in `TcpAgent::reset()`). Seed 003
    /// §4.7 states 50.
    pub initial_ssthresh: Option<u32>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::NewReno,                             // RFC 6582
            mss: 1460,                                             // 1500-byte MTU − 40
            initial_window: 2,                  // RFC 5681 §3.1; ns-2 windowInit_
            receive_window: 65535,              // RFC 7323 unscaled maximum
            min_rto: SimDuration::from_secs(1), // RFC 6298 §2.4
            initial_rto: SimDuration::from_secs(3), // RFC 6298 §5.7 / RFC 1122
            max_rto: SimDuration::from_secs(60), // RFC 6298 §2.5; ns-2 maxrto_
            clock_granularity: SimDuration::from_millis(10), // ns-2 tcpTick_
            delayed_ack: None,                  // seed 001 Table 2
            dupack_threshold: 3,                // RFC 5681 §3.2
            max_syn_retries: 6,                 // Linux tcp_syn_retries
            max_retries: 15,                    // Linux tcp_retries2
            newreno_full_ack: FullAck::Ssthresh, // RFC 6582 §3.2 (2); ns-2
            ecn: false,                         // ns-2 ecn_ 0
            limited_transmit: false,            // ns-2 Full-TCP (none)
            timestamps: false,                  // ns-2 timestamps_ false
            rto_rules: RtoRules::Rfc6298,       // RFC 6298
            ns2_fulltcp: false,                 // RFC behaviour
            quickack_mode: false,               // RFC 1122/5681 delayed ACKs
            ssthresh_rule: SsthreshRule::Rfc5681, // RFC 5681 eq. 4
            backoff_reset: BackoffReset::Sample, // RFC 6298 §5.5, Karn
            slow_start: SlowStartGrowth::Rfc5681, // RFC 5681 eq. 2
            prague_rtt_target: Some(SimDuration::from_millis(25)), // reference Prague
            pacing: false,                      // the studies' stacks
            pacing_ss_ratio: 200,               // Linux tcp_pacing_ss_ratio
            pacing_ca_ratio: 120,               // Linux tcp_pacing_ca_ratio
            bbr_lt_bw: true,                    // Linux tcp_bbr.c
            hystart: false,                     // RFC 9438 §4.10
            hystart_plus_plus: false,           // Linux, RFC 5681
            handshake: true,                    // RFC 793
            initial_ssthresh: None,             // the peer's window (RFC 5681 §3.1)
            sack_on_timeout: SackOnTimeout::Clear, // RFC 6675 §5.1; ns-2
            rack_tlp: false,                    // RFC 6675 alone
        }
    }
}

impl TcpConfig {
    /// The ECN codepoint this sender sets on new data once ECN is agreed: ECT(1) for Prague
    /// (the L4S identifier, RFC 9331 §4.1), ECT(0) for DCTCP (RFC 8257 §3.1) and the RFC 3168
    /// variants (RFC 3168 §6.1.1).
    pub fn ect(&self) -> Ecn {
        match self.variant {
            Variant::Prague => Ecn::Ect1,
            _ => Ecn::Ect0,
        }
    }
    /// ECN wanted on the handshake: `ecn`, or a scalable variant (which needs it).
    pub fn wants_ecn(&self) -> bool {
        self.ecn || self.variant.scalable()
    }
}
