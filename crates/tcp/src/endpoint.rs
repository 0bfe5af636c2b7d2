//! One TCP connection end: the public face (quinn's four families, STYLE.md §7) and its state.
//!
//! RFC 793 states and sequence numbers (ISS = 0 on both sides, SYN and FIN take one number,
//! data starts at 1), RFC 5681 congestion control counted in bytes (congestion/: Tahoe, Reno,
//! RFC 6582 NewReno, RFC 6675 SACK with the RFC 2018 option and scoreboard.rs), RFC 3168 ECN
//! (ecn.rs), RFC 3042 Limited Transmit (option), RFC 6298 RTO (rtt.rs; Linux's estimator,
//! rtt_linux.rs, as an option), RFC 1122 delayed ACKs (optional; Linux's quick-ACK and
//! ping-pong modes on top, quickack.rs, an option), reassembly and SACK blocks (recv.rs), timers as a deadline table (timers.rs).
//! Input handling is in input.rs, segment generation in output.rs. Payload is counted, never
//! carried. CUBIC (RFC 9438) is congestion/cubic.rs (Linux's HyStart: hystart.rs; HyStart++,
//! RFC 9406, for any RFC 5681 slow start: hystart_plus_plus.rs), BBR v1
//! congestion/bbr.rs with delivery-rate samples from rate.rs; sender pacing is pacing.rs; the
//! RFC 7323 timestamps option is timestamps.rs (without it RTT is timed one segment at a time);
//! Linux's RACK-TLP (`rack_tlp`) is rack.rs and rack_tlp.rs.
//!
//! Differences from ns-2 Full-TCP and BSD (each a deliberate choice, see also the module docs):
//! - cwnd and ssthresh in bytes with RFC 5681 byte counting (ns-2: segments, per-ACK growth);
//! - Nagle off (the studies disabled it, seed 000 §3.4.3; ns-2 Full-TCP default `nodelay_
//!   false` has it on); segments are full MSS except the last of the queued data, and a
//!   segment is sent only if all of it fits in the window (sender SWS avoidance);
//! - RTT timed one segment at a time as BSD/ns-2, in ticks of `clock_granularity` (phase 0);
//! - no TIME_WAIT timer: entering TIME_WAIT reports `Closed` at once; no RST segments; no
//!   simultaneous open; no persist timer (the window never closes: the application drains
//!   instantly); no idle restart (ns-2 `slow_start_restart_`) — connections are not reused;
//! - if the SYN or SYN-ACK was retransmitted (by the timer, or the server answering a
//!   duplicate SYN), the initial window is 1 MSS (RFC 5681 §3.1), and after a handshake timeout
//!   data starts with RTO = max(`initial_rto`, 3 s) and no backoff (RFC 6298 §5.7); ns-2 does
//!   neither;
//! - ssthresh starts at the peer's advertised window (RFC 5681 §3.1's example; ns-2 `window_`);
//!   a timeout never recomputes it upward during fast recovery (congestion/mod.rs);
//! - SYN and SYN-ACK samples count for RTT (as BSD and Linux), Karn's rule included;
//! - the delayed-ACK timer is relative (fires `delayed_ack` after the first unacknowledged
//!   segment), not ns-2/BSD's periodic tick.
//!
//! Read RFC 793 §3.9, RFC 5681 §3–4, RFC 6298, RFC 6582 §3, RFC 6675 and RFC 3168 §6.1
//! before editing.
//! Validation (tests/, organised by state, STYLE.md §12): syn_sent.rs (handshake, lost SYN,
//! abort), listen.rs (SYN-ACK, duplicate SYN, lost SYN-ACK), established.rs (transfer times,
//! delayed ACKs, early/stale wake-ups, cwnd hints), recovery.rs (fast retransmit, Reno and
//! NewReno, two losses, timeout during recovery), rto.rs (RTO arithmetic, Karn, backoff, retry
//! limit, go-back-N), closing.rs (FIN states, lost FINs, TIME-WAIT), fall_floyd.rs (1–4 losses
//! in one window, all four variants), sack.rs (negotiation, block order, scoreboard at a
//! timeout), ecn.rs (negotiation, ECT rule, once-per-window reduction, CWR),
//! limited_transmit.rs (1–4-segment responses), delayed_ack.rs (receiver ACK policy),
//! quickack.rs (Linux's quick-ACK and ping-pong modes),
//! timestamps.rs (RFC 7323 echo and RTTM), rack.rs (RACK-TLP: probe, reorder timer, lost
//! retransmissions), soak.rs (400 lossy exchanges, every variant, ECN marks, and Linux's loss
//! recovery, must all finish with exact byte counts).

use crate::config::TcpConfig;
use crate::congestion::bbr::BbrAck;
use crate::congestion::hystart::HyAck;
use crate::congestion::hystart_plus_plus::HyStartPlusPlus;
use crate::congestion::Congestion;
use crate::pacing::Pacer;
use crate::quickack::QuickAck;
use crate::rack::Rack;
use crate::rate::{RateSample, RateSampler};
use crate::recv::Receiver;
use crate::rtt::RttEstimator;
use crate::scoreboard::Scoreboard;
use crate::segment::Segment;
use crate::timers::{Timer, Timers};
use units::{SimDuration, SimTime};

/// RFC 793 connection states (Debug prints the RFC names without the hyphen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// Notifications to the application, drained with [`Endpoint::poll_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppEvent {
    /// Handshake complete.
    Connected,
    /// New in-order payload arrived; `total` is all payload received so far, bytes.
    Data { total: u64 },
    /// The peer's FIN arrived (after all its data).
    PeerClosed,
    /// Both directions closed and acknowledged; the endpoint will send nothing more.
    Closed,
    /// Gave up after too many retransmissions.
    Aborted,
}

/// Per-connection counters exposed to metrics.
///
/// Identities (checked by the tests' harness): every retransmitted segment counts once in
/// `segments_sent`; a segment carrying retransmitted data counts in `data_retransmits`; a
/// retransmitted SYN or SYN-ACK in `syn_retransmits`; a FIN sent again in `fin_retransmits`.
/// `timeouts` counts every expiry of the retransmission timer (handshake and data phase,
/// including the final one that aborts); `fast_retransmits` counts entries into fast recovery
/// (Tahoe: fast retransmits); `ecn_reductions` counts ECE responses (each sets CWR on the next
/// new data segment, so CWR segments sent ≤ reductions + loss responses).
///
/// Loss events (issue 4 item 8): `loss_events` = `fast_retransmits` + data-phase expiries of
/// the retransmission timer that retransmit (every expiry after the handshake except the one
/// that aborts; a repeated expiry counts again, with cwnd then 1 MSS). At each, the cwnd just
/// before the reduction is added to `loss_cwnd_sum` (bytes) and, for the first
/// [`LOSS_TRACE_LEN`], stored in `loss_cwnd` in order; so the mean cwnd at loss in segments is
/// `loss_cwnd_sum / loss_events / mss`. ECN reductions are not loss events.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    pub syn_retransmits: u32,
    pub fin_retransmits: u32,
    pub data_retransmits: u32,
    pub timeouts: u32,
    pub fast_retransmits: u32,
    pub segments_sent: u64,
    /// Window reductions in response to ECN-Echo (RFC 3168 §6.1.2), at most one per window.
    pub ecn_reductions: u32,
    /// Fast retransmits plus data-phase timeouts that retransmitted (see above).
    pub loss_events: u32,
    /// Sum over loss events of cwnd just before the reduction, bytes.
    pub loss_cwnd_sum: u64,
    /// cwnd just before each of the first [`LOSS_TRACE_LEN`] loss events, bytes (0 = none).
    pub loss_cwnd: [u64; LOSS_TRACE_LEN],
}

/// Loss events whose cwnd [`TcpStats::loss_cwnd`] keeps individually.
pub const LOSS_TRACE_LEN: usize = 4;

impl TcpStats {
    /// Record a loss event at congestion window `cwnd` (bytes, before the reduction).
    pub(crate) fn loss_event(&mut self, cwnd: u64) {
        if let Some(slot) = self.loss_cwnd.get_mut(self.loss_events as usize) {
            *slot = cwnd;
        }
        self.loss_events += 1;
        self.loss_cwnd_sum += cwnd;
    }
}

// Pending application events, one bit each, delivered in this order.
pub(crate) const EV_CONNECTED: u8 = 1;
pub(crate) const EV_DATA: u8 = 2;
pub(crate) const EV_PEER_CLOSED: u8 = 4;
pub(crate) const EV_CLOSED: u8 = 8;
pub(crate) const EV_ABORTED: u8 = 16;

/// One end of a TCP connection, sans I/O.
///
/// # Contract with the engine
///
/// - **Open.** Client: [`Endpoint::connect`], then (optionally, at once) [`Endpoint::send`] of
///   the request; data queued before the handshake completes goes out once established, the
///   first segment carrying the handshake's final ACK. Server: [`Endpoint::listen`]; its first
///   input is the client's SYN.
/// - **Call order.** After every input — [`on_segment`](Endpoint::on_segment),
///   [`on_timeout`](Endpoint::on_timeout), [`send`](Endpoint::send),
///   [`close`](Endpoint::close) — drain [`poll_transmit`](Endpoint::poll_transmit) until
///   `None` (one segment per call, pure ACKs included), then drain
///   [`poll_event`](Endpoint::poll_event) (the application may call `send`/`close` from there;
///   drain `poll_transmit` again afterwards), then read
///   [`next_deadline`](Endpoint::next_deadline) and call `on_timeout(now)` at or after it.
///   `now` never decreases across calls. A wake-up before the deadline, or for a deadline that
///   has since moved later, does nothing (no segment, no event).
/// - **Events.** `Connected` when the handshake completes (client: SYN-ACK received; server:
///   the ACK of its SYN-ACK received). `Data { total }` when in-order payload advances (`total`
///   = all payload received so far; several arrivals between two drains give one event).
///   `PeerClosed` when the peer's FIN is reached in order. `Closed` exactly once when this end
///   is done: on entering TIME-WAIT (our FIN acknowledged and the peer's FIN received; there is
///   no 2·MSL timer) or when LAST-ACK's FIN is acknowledged (state becomes CLOSED), or when
///   `close()` is called in LISTEN. An endpoint in TIME-WAIT still acknowledges a retransmitted
///   FIN, so the engine should keep it until the peer is done. `Aborted` instead of `Closed` when the retransmission limit is hit (`max_syn_retries`
///   in SYN-SENT/SYN-RECEIVED, `max_retries` otherwise): state becomes CLOSED at that expiry.
///   Order within one drain: Connected, Data, PeerClosed, Closed, Aborted.
/// - **CLOSED ignores everything**: segments are dropped silently (no RST), nothing is sent.
/// - **Application model.** Data is a byte count; `send(u64::MAX / 4)` is an endless source and
///   costs nothing. The receiving application reads instantly, so the advertised window is
///   always `cfg.receive_window`. `close()` queues a FIN after all queued data (it rides on the
///   last data segment when that is still unsent); `send` after `close` is ignored.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub(crate) cfg: TcpConfig,
    pub(crate) state: State,
    /// Oldest unacknowledged sequence number (SND.UNA).
    pub(crate) snd_una: u64,
    /// Next sequence number to send (SND.NXT); moves back to SND.UNA on a timeout (go-back-N).
    pub(crate) snd_nxt: u64,
    /// Highest sequence number sent, plus one (SND.MAX).
    pub(crate) snd_max: u64,
    /// One past the last payload byte queued by the application (payload starts at 1); the FIN,
    /// if any, has sequence number `data_end`.
    pub(crate) data_end: u64,
    /// `close()` was called in a synchronized state: a FIN follows the data.
    pub(crate) fin_queued: bool,
    /// `close()` was called before the handshake completed.
    pub(crate) close_pending: bool,
    /// The peer's advertised window, bytes.
    pub(crate) peer_wnd: u64,
    /// The SYN (client) or SYN-ACK (server) must be (re)sent by the next `poll_transmit`.
    pub(crate) syn_pending: bool,
    /// The segment at SND.UNA must be retransmitted now (fast retransmit, partial ACK).
    pub(crate) rtx_head: bool,
    /// Our SYN/SYN-ACK was retransmitted, or a duplicate SYN arrived (RFC 5681 §3.1: IW = 1).
    pub(crate) handshake_rtx: bool,
    /// When our SYN or SYN-ACK was last sent.
    pub(crate) syn_sent_at: SimTime,
    /// Consecutive expiries of the retransmission timer without SND.UNA advancing.
    pub(crate) retries: u32,
    /// RTT measurement in progress: (sequence number timed, time it was sent).
    pub(crate) timing: Option<(u64, SimTime)>,
    pub(crate) rtt: RttEstimator,
    pub(crate) cc: Congestion,
    pub(crate) rcv: Receiver,
    /// An ACK must go out with the next segment (a pure ACK if there is no data to send).
    pub(crate) ack_now: bool,
    /// Payload bytes received since we last sent an ACK (delayed-ACK counting).
    pub(crate) unacked_rx: u64,
    pub(crate) timers: Timers,
    pub(crate) events: u8,
    pub(crate) stats: TcpStats,
    /// SACK agreed on the handshake (both ends `Variant::Sack`).
    pub(crate) sack_ok: bool,
    /// SACK scoreboard (sender side), used only when `sack_ok`.
    pub(crate) sb: Scoreboard,
    /// RACK-TLP marks (rack.rs), with `rack_tlp` once SACK is agreed.
    pub(crate) rack: Option<Box<Rack>>,
    /// The probe timer fired: the next `poll_transmit` sends the tail loss probe (rack_tlp.rs).
    pub(crate) tlp_pending: bool,
    /// ECN agreed on the handshake (both ends `ecn`).
    pub(crate) ecn_ok: bool,
    /// Receiver side: a CE arrived and no CWR since — set ECE on every ACK (RFC 3168 §6.1.3).
    pub(crate) ece_echo: bool,
    /// Receiver of a scalable variant: the ACK of the data held before a CE change, sent
    /// before anything else (RFC 8257 §3.2).
    pub(crate) ce_ack: Option<Segment>,
    /// Sender side: set CWR on the next new data segment (RFC 3168 §6.1.2).
    pub(crate) cwr_pending: bool,
    /// SND.MAX at the last window reduction (ECN, fast retransmit or timeout): ECE is ignored
    /// until an ACK passes it (once per window of data).
    pub(crate) ecn_recover: u64,
    /// SND.MAX at the last fast retransmit or timeout: Limited Transmit only once SND.UNA ≥ it.
    pub(crate) loss_recover: u64,
    /// SND.MAX at the last timeout that kept the SACK scoreboard (`sack_on_timeout = "keep"`):
    /// until SND.UNA reaches it the sender is in Linux's Loss state (0 = never).
    pub(crate) loss_until: u64,
    /// Duplicate ACKs since the last new ACK that may release Limited Transmit segments.
    pub(crate) lt_dupacks: u32,
    /// Payload sent beyond cwnd by Limited Transmit since the last new ACK (excluded from
    /// FlightSize at fast retransmit, RFC 5681 §3.2 step 2).
    pub(crate) lt_bytes: u64,
    /// Timestamps agreed on the handshake (both ends `timestamps`, RFC 7323 §3.2).
    pub(crate) ts_ok: bool,
    /// TS.Recent (RFC 7323 §4.3): the TSval we echo, ns.
    pub(crate) ts_recent: u64,
    /// Last.ACK.sent (RFC 7323 §4.3): the ACK field of the last segment we sent.
    pub(crate) last_ack_sent: u64,
    /// The next segment is a pure ACK, sent before any data or FIN: `ns2_fulltcp`'s (the
    /// handshake's final ACK, the ACK of the peer's FIN before our own), `quickack_mode`'s (the
    /// handshake's final ACK, a quick ACK ahead of the reply).
    pub(crate) pure_ack_first: bool,
    /// Linux's quick-ACK and ping-pong state (quickack.rs); used only with `quickack_mode`.
    pub(crate) qa: QuickAck,
    /// Sender pacing (pacing.rs); consulted only when [`Endpoint::paced`].
    pub(crate) pacer: Pacer,
    /// Delivery-rate sampler (rate.rs), kept for BBR only.
    pub(crate) rate: Option<Box<RateSampler>>,
    /// HyStart++ (congestion/hystart_plus_plus.rs), with `hystart_plus_plus`, from the data
    /// phase on.
    pub(crate) hspp: Option<HyStartPlusPlus>,
    /// Seed of the endpoint's random choices (BBR's PROBE_BW start phase).
    pub(crate) seed: u64,
    /// `handshake = false`: `close()` was called with data unacknowledged; the end finishes
    /// (TIME-WAIT, `Closed`) when SND.UNA reaches the end of the data, without a FIN.
    pub(crate) close_when_acked: bool,
}

impl Endpoint {
    fn new(cfg: TcpConfig, state: State) -> Self {
        Endpoint {
            rtt: RttEstimator::new(&cfg),
            cc: Congestion::new(&cfg),
            rate: cfg.uses_rate_samples().then(Box::default),
            hspp: None,
            peer_wnd: cfg.receive_window as u64,
            cfg,
            state,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_end: 1,
            fin_queued: false,
            close_pending: false,
            syn_pending: false,
            rtx_head: false,
            handshake_rtx: false,
            syn_sent_at: SimTime::ZERO,
            retries: 0,
            timing: None,
            rcv: Receiver::default(),
            ack_now: false,
            unacked_rx: 0,
            timers: Timers::default(),
            events: 0,
            stats: TcpStats::default(),
            sack_ok: false,
            sb: Scoreboard::default(),
            rack: None,
            tlp_pending: false,
            ecn_ok: false,
            ece_echo: false,
            ce_ack: None,
            cwr_pending: false,
            ecn_recover: 0,
            loss_recover: 0,
            loss_until: 0,
            lt_dupacks: 0,
            lt_bytes: 0,
            ts_ok: false,
            ts_recent: 0,
            last_ack_sent: 0,
            pure_ack_first: false,
            qa: QuickAck::default(),
            pacer: Pacer::default(),
            seed: 0,
            close_when_acked: false,
        }
    }

    /// `handshake = false` (ns-2's one-way `Agent/TCP` and `TCPSink`): ESTABLISHED at once, as
    /// if SYN and SYN-ACK had been exchanged in no time. Both sequence spaces start at 1, the
    /// peer's window is our `receive_window`, cwnd the initial window; no RTT sample yet, so the
    /// first data segment is timed with `initial_rto` (ns-2 `rtxcur_init_`). `Connected` is
    /// pending.
    fn open_one_way(cfg: TcpConfig, now: SimTime) -> Self {
        let mut e = Endpoint::new(cfg, State::Established);
        (e.snd_una, e.snd_nxt, e.snd_max) = (1, 1, 1);
        e.rcv.on_syn(0);
        e.start_data_phase(now);
        e
    }

    // ---- construction (application commands) ----

    /// Active open: the first `poll_transmit` returns the SYN (seq 0), and starts its timer.
    /// With `handshake = false` the endpoint is ESTABLISHED at once (no SYN).
    pub fn connect(cfg: TcpConfig, now: SimTime) -> Self {
        if !cfg.handshake {
            return Endpoint::open_one_way(cfg, now);
        }
        let mut e = Endpoint::new(cfg, State::SynSent);
        e.syn_pending = true;
        e
    }
    /// Seed the endpoint's random choices (BBR's PROBE_BW start phase); the same seed gives
    /// the same run. Default 0.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }
    /// Passive open: waits for a SYN. With `handshake = false` the endpoint is ESTABLISHED at
    /// once with `Connected` pending (a one-way sender, ready to send its data).
    pub fn listen(cfg: TcpConfig) -> Self {
        if !cfg.handshake {
            // The opening instant matters only to BBR, which needs SACK and so a handshake.
            return Endpoint::open_one_way(cfg, SimTime::ZERO);
        }
        Endpoint::new(cfg, State::Listen)
    }

    // ---- inputs ----

    /// A segment from the peer arrived at `now` (see input.rs). Ignored in CLOSED.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment) {
        self.input_segment(now, seg);
    }

    /// Wake-up at `now`: fire every timer whose deadline is ≤ `now` (delayed ACK, then
    /// retransmission). Early or stale wake-ups do nothing.
    pub fn on_timeout(&mut self, now: SimTime) {
        if self.state == State::Closed {
            return;
        }
        if self.timers.take_expired(Timer::DelayedAck, now) {
            self.ack_now = true;
            self.qa.on_delack_timeout();
        }
        if self.timers.take_expired(Timer::Reorder, now) {
            self.rack_detect(now, true);
        }
        if self.timers.take_expired(Timer::LossProbe, now) {
            self.fire_loss_probe(now);
        }
        if self.timers.take_expired(Timer::Rto, now) {
            self.fire_rto(now);
        }
        // The pacing release needs no action: the next poll_transmit sends what was held.
        self.timers.take_expired(Timer::Pacing, now);
    }

    // ---- outputs ----

    /// The next segment to send at `now`, or `None` (see output.rs). Call until `None`.
    pub fn poll_transmit(&mut self, now: SimTime) -> Option<Segment> {
        self.output(now)
    }

    /// Earliest timer deadline (retransmission or delayed ACK), if any.
    pub fn next_deadline(&self) -> Option<SimTime> {
        self.timers.next()
    }

    /// True if application events wait for [`Endpoint::poll_event`].
    #[inline]
    pub fn has_events(&self) -> bool {
        self.events != 0
    }

    /// Next application event, in the order documented on [`Endpoint`].
    pub fn poll_event(&mut self) -> Option<AppEvent> {
        if self.events == 0 {
            return None;
        }
        let bit = self.events & self.events.wrapping_neg();
        self.events &= !bit;
        Some(match bit {
            EV_CONNECTED => AppEvent::Connected,
            EV_DATA => AppEvent::Data {
                total: self.rcv.data_total(),
            },
            EV_PEER_CLOSED => AppEvent::PeerClosed,
            EV_CLOSED => AppEvent::Closed,
            _ => AppEvent::Aborted,
        })
    }

    // ---- application commands ----

    /// Queue `bytes` more payload for sending. Ignored after `close()` or once closing.
    pub fn send(&mut self, bytes: u64) {
        let open = matches!(
            self.state,
            State::Listen | State::SynSent | State::SynReceived
        ) || matches!(self.state, State::Established | State::CloseWait);
        if open && !self.fin_queued && !self.close_pending {
            self.data_end = self.data_end.saturating_add(bytes);
        }
    }

    /// Send a FIN after all queued payload. ESTABLISHED → FIN-WAIT-1, CLOSE-WAIT → LAST-ACK;
    /// before the handshake completes the FIN waits for it; in LISTEN the endpoint closes at
    /// once (`Closed` event). With `handshake = false` no FIN is sent: the end goes to
    /// TIME-WAIT (`Closed`; it still acknowledges what arrives) once everything it sent is
    /// acknowledged — at once for a receiver.
    pub fn close(&mut self) {
        if !self.cfg.handshake {
            if self.state == State::Established {
                self.close_when_acked = true;
                self.finish_one_way();
            }
            return;
        }
        match self.state {
            State::Listen => {
                self.state = State::Closed;
                self.events |= EV_CLOSED;
            }
            State::SynSent | State::SynReceived => self.close_pending = true,
            State::Established => {
                self.state = State::FinWait1;
                self.fin_queued = true;
            }
            State::CloseWait => {
                self.state = State::LastAck;
                self.fin_queued = true;
            }
            _ => {}
        }
    }

    // ---- getters ----

    pub fn state(&self) -> State {
        self.state
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cc.window().cwnd
    }
    /// Slow-start threshold, bytes (u64::MAX until the handshake sets it to the peer's window).
    pub fn ssthresh(&self) -> u64 {
        self.cc.window().ssthresh
    }
    /// The retransmission timeout now in use, backoff included (RFC 6298).
    pub fn rto(&self) -> SimDuration {
        self.rtt.rto()
    }
    /// Smoothed RTT, once a sample has been taken.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.rtt.srtt()
    }
    /// RTT variation (RFC 6298 RTTVAR); zero before the first sample.
    pub fn rttvar(&self) -> SimDuration {
        self.rtt.rttvar()
    }
    /// Payload bytes of ours the peer has acknowledged.
    pub fn bytes_acked(&self) -> u64 {
        self.data_bytes(1, self.snd_una)
    }
    /// In-order payload bytes received from the peer.
    pub fn bytes_received(&self) -> u64 {
        self.rcv.data_total()
    }
    /// FlightSize: payload bytes sent and not yet acknowledged.
    pub fn flight_size(&self) -> u64 {
        self.data_bytes(self.snd_una, self.snd_max)
    }
    /// In fast recovery (Reno, NewReno) or SACK loss recovery (Tahoe: never).
    pub fn in_recovery(&self) -> bool {
        self.cc.in_recovery()
    }
    /// SND.UNA, SND.NXT, SND.MAX (sequence numbers, see [`Segment`]).
    pub fn send_sequence(&self) -> (u64, u64, u64) {
        (self.snd_una, self.snd_nxt, self.snd_max)
    }
    /// RCV.NXT: the next sequence number expected from the peer.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv.rcv_nxt()
    }
    /// The configuration this endpoint runs with.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }
    /// SACK was agreed on the handshake (both ends `Variant::Sack`).
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    /// ECN was agreed on the handshake (both ends `ecn`).
    pub fn ecn_enabled(&self) -> bool {
        self.ecn_ok
    }
    /// The timestamps option was agreed on the handshake (both ends `timestamps`).
    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }
    /// TS.Recent (RFC 7323 §4.3): the peer's TSval this end echoes next, ns.
    pub fn ts_recent(&self) -> u64 {
        self.ts_recent
    }
    /// SACKed ranges the sender knows of, above SND.UNA (empty without SACK).
    pub fn sacked(&self) -> &[(u64, u64)] {
        self.sb.blocks()
    }
    /// RFC 6675 pipe: payload bytes estimated in flight from the scoreboard (SACK only;
    /// meaningful during loss recovery).
    pub fn pipe(&self) -> u64 {
        let end = self.snd_max.min(self.data_end);
        self.sb
            .pipe(self.snd_una, end, self.eff_mss(), self.cfg.dupack_threshold)
    }

    // ---- shared helpers ----

    /// After a timeout that kept the SACK scoreboard, until SND.UNA passes the SND.MAX of that
    /// timeout (Linux's TCP_CA_Loss): the holes are resent by NextSeg, clocked by pipe.
    pub(crate) fn in_loss_state(&self) -> bool {
        self.sack_ok && self.snd_una < self.loss_until
    }

    /// `handshake = false`: after `close()`, finish once SND.UNA reaches the end of the data.
    pub(crate) fn finish_one_way(&mut self) {
        if self.close_when_acked && self.snd_una >= self.data_end {
            self.close_when_acked = false;
            self.state = State::TimeWait;
            self.events |= EV_CLOSED;
        }
    }

    /// Payload bytes in the sequence range `[a, b)` (SYN at 0 and FIN at `data_end` excluded).
    pub(crate) fn data_bytes(&self, a: u64, b: u64) -> u64 {
        b.min(self.data_end).saturating_sub(a.max(1))
    }

    /// Largest payload per segment: MSS, or the peer's window if smaller (never 0).
    pub(crate) fn eff_mss(&self) -> u64 {
        (self.cfg.mss as u64).min(self.peer_wnd).max(1)
    }

    /// (Re)arm the retransmission timer at now + RTO.
    pub(crate) fn restart_rto(&mut self, now: SimTime) {
        self.timers.set(Timer::Rto, now + self.rtt.rto());
    }

    /// Whether data segments are paced: the `pacing` option, a variant that always paces
    /// (Prague, BBR: `Variant::paced_by_default`), or a congestion control with its own rate.
    pub(crate) fn paced(&self) -> bool {
        self.cfg.pacing || self.cfg.variant.paced_by_default() || self.cc.pacing_rate().is_some()
    }

    /// Recompute the pacing rate after an ACK: the congestion control's own rate if it has one,
    /// else Linux's ratio rule (pacing.rs).
    pub(crate) fn update_pacing_rate(&mut self) {
        self.pacer.rate = match self.cc.pacing_rate() {
            Some(r) => Some(r),
            None => crate::pacing::linux_rate(
                self.cwnd(),
                self.ssthresh(),
                self.flight_size(),
                self.rtt.srtt(),
                self.cfg.pacing_ss_ratio,
                self.cfg.pacing_ca_ratio,
            ),
        };
    }

    /// The current pacing rate, payload bytes/s (`None`: not paced, or no rate yet).
    pub fn pacing_rate(&self) -> Option<u64> {
        if self.paced() {
            self.pacer.rate
        } else {
            None
        }
    }

    /// Bytes in flight as BBR counts them: RACK's in flight (Linux `tcp_packets_in_flight`)
    /// with `rack_tlp`, RFC 6675 pipe with SACK, else FlightSize.
    pub(crate) fn bbr_inflight(&self) -> u64 {
        if let Some(r) = self.rack.as_deref() {
            r.in_flight()
        } else if self.sack_ok {
            self.pipe()
        } else {
            self.flight_size()
        }
    }

    /// CUBIC's HyStart (congestion/hystart.rs) on an ACK of new data, before the window grows
    /// (Linux calls `pkts_acked` before `cong_avoid`). `rtt`: this ACK's RTT sample.
    pub(crate) fn hystart_ack(&mut self, now: SimTime, rtt: Option<SimDuration>) {
        let pacing_rate = crate::pacing::linux_rate(
            self.cwnd(),
            self.ssthresh(),
            self.flight_size(),
            self.rtt.srtt(),
            self.cfg.pacing_ss_ratio,
            self.cfg.pacing_ca_ratio,
        );
        let a = HyAck {
            now,
            rtt,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            cwnd_segs: self.cwnd() / self.eff_mss(),
            slow_start: self.cwnd() < self.ssthresh(),
            paced: self.paced(),
            pacing_rate,
        };
        self.cc.hystart_ack(&a);
    }

    /// HyStart++'s look at an ACK of new data, before the window grows (RFC 9406 §4.2: round,
    /// then cwnd update, then RTT test). `rtt`: this ACK's RTT sample.
    pub(crate) fn hystart_pp_ack(&mut self, rtt: Option<SimDuration>) {
        if let Some(h) = self.hspp.as_mut() {
            h.on_ack(self.snd_una, self.snd_nxt, rtt, self.cc.window_mut());
        }
    }

    /// BBR's per-ACK step: the delivery-rate sample of this ACK, then the model and the
    /// window (congestion/bbr.rs). `prior_inflight` is the flight before the ACK.
    pub(crate) fn bbr_on_ack(&mut self, now: SimTime, rs: &RateSample, prior_inflight: u64) {
        let inflight = self.bbr_inflight();
        let srtt = self.rtt.srtt();
        let release = self.pacer.release;
        let (Some(rate), Some(bbr)) = (self.rate.as_deref_mut(), self.cc.bbr_mut()) else {
            return;
        };
        let a = BbrAck {
            now,
            delivered: rate.delivered,
            delivered_time: rate.delivered_time(),
            lost: rate.lost,
            inflight,
            prior_inflight,
            release,
            srtt,
        };
        if bbr.on_ack(rs, &a) {
            rate.mark_app_limited(inflight);
        }
    }

    /// Give up: CLOSED, `Aborted`, nothing more to send.
    pub(crate) fn abort(&mut self) {
        self.tlp_pending = false;
        self.state = State::Closed;
        self.events |= EV_ABORTED;
        self.timers.stop_all();
        self.ack_now = false;
        self.syn_pending = false;
        self.rtx_head = false;
    }
}
