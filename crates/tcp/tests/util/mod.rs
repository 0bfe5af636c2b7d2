//! Shared test harness (STYLE.md §12, §14): a two-endpoint pipe with a fixed one-way delay,
//! optional serialization time per byte, an explicit clock that jumps to the earliest of (next
//! delivery, either endpoint's deadline), a scripted drop list, the HTTP/1.0 application the
//! engine runs, and fixtures that put a lone endpoint into a given state.
//!
//! The pipe drives endpoints exactly as the engine does (`sim/src/world.rs` `service`): after
//! every input drain `poll_transmit`, then `poll_event` (the application may `send`/`close`),
//! repeat until no event, then read `next_deadline`. Deliveries at the same instant go first,
//! in send order; then wake-ups, client before server. Every run ends with
//! [`Pipe::check_counters`], the counter identities of `TcpStats`.

#![allow(dead_code)]

use tcp::{AppEvent, Ecn, Endpoint, Flags, Segment, State, TcpConfig, TxKind};
use units::{SimDuration, SimTime};

pub const CLIENT: usize = 0;
pub const SERVER: usize = 1;
pub const MSS: u64 = 1460;

pub fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}
pub fn dms(x: u64) -> SimDuration {
    SimDuration::from_millis(x)
}

/// A segment as a peer would send it (window 65535, nothing else set).
pub fn seg(seq: u64, ack: u64, len: u32, flags: Flags) -> Segment {
    Segment {
        seq,
        ack,
        len,
        flags,
        wnd: 65535,
        ..Segment::default()
    }
}

/// All segments the endpoint wants to send now.
pub fn drain(ep: &mut Endpoint, now: SimTime) -> Vec<Segment> {
    std::iter::from_fn(|| ep.poll_transmit(now))
        .take(10_000)
        .collect()
}

/// All pending application events.
pub fn events(ep: &mut Endpoint) -> Vec<AppEvent> {
    std::iter::from_fn(|| ep.poll_event()).take(100).collect()
}

/// (seq, ack, len, flags) of a segment, for compact assertions.
pub fn sal(s: &Segment) -> (u64, u64, u32, Flags) {
    (s.seq, s.ack, s.len, s.flags)
}

pub const SYN: Flags = Flags::SYN;
pub const ACK: Flags = Flags::ACK;
pub const FIN: Flags = Flags::FIN;
pub const SYN_ACK: Flags = Flags(Flags::SYN.0 | Flags::ACK.0);
pub const FIN_ACK: Flags = Flags(Flags::FIN.0 | Flags::ACK.0);

// ---- lone-endpoint fixtures (peer scripted by hand, RTT 100 ms) ----

/// Client after SYN at 0 and SYN-ACK at 100 ms; its handshake ACK has been drained.
pub fn client_established(cfg: TcpConfig) -> Endpoint {
    let mut c = Endpoint::connect(cfg, ms(0));
    assert_eq!(drain(&mut c, ms(0)).len(), 1);
    c.on_segment(ms(100), &seg(0, 1, 0, SYN_ACK));
    drain(&mut c, ms(100));
    assert_eq!(events(&mut c), vec![AppEvent::Connected]);
    assert_eq!(c.state(), State::Established);
    c
}

/// Server after SYN at 0 and the handshake ACK at 100 ms (SRTT 100 ms).
pub fn server_established(cfg: TcpConfig) -> Endpoint {
    let mut s = Endpoint::listen(cfg);
    s.on_segment(ms(0), &seg(0, 0, 0, SYN));
    assert_eq!(drain(&mut s, ms(0)).len(), 1);
    s.on_segment(ms(100), &seg(1, 1, 0, ACK));
    assert!(drain(&mut s, ms(100)).is_empty());
    assert_eq!(events(&mut s), vec![AppEvent::Connected]);
    assert_eq!(s.state(), State::Established);
    s
}

// ---- the pipe ----

/// Which segments the pipe loses.
#[derive(Clone, Copy, Debug)]
pub enum DropRule {
    /// The k-th segment (1-based, pure ACKs included) sent by `side`.
    Nth { side: usize, k: usize },
    /// Up to `times` segments sent by `side` that start at `seq` and occupy sequence space
    /// (payload, SYN or FIN; pure ACKs never match), of `kind` if given.
    Seq {
        side: usize,
        seq: u64,
        kind: Option<TxKind>,
        times: usize,
    },
    /// Up to `times` segments with FIN sent by `side`.
    Fin { side: usize, times: usize },
}

/// One transmission, as logged by the pipe.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub t: SimTime,
    pub side: usize,
    pub seg: Segment,
    pub dropped: bool,
}

/// One entry of the pipe's state trace, recorded after every input to `side`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trace {
    pub t: SimTime,
    pub side: usize,
    pub snd_una: u64,
    pub cwnd: u64,
    pub ssthresh: u64,
    pub in_recovery: bool,
}

/// The HTTP/1.0 application of `sim/src/conn.rs`.
#[derive(Clone, Copy, Debug)]
pub struct Http {
    pub request: u64,
    pub response: u64,
}

pub struct Pipe {
    pub eps: [Endpoint; 2],
    pub now: SimTime,
    pub delay: SimDuration,
    /// Serialization time per wire byte (0 = infinitely fast link).
    pub ns_per_byte: u64,
    busy_until: [SimTime; 2],
    /// (arrival, send order, destination side, segment)
    in_flight: Vec<(SimTime, u64, usize, Segment)>,
    order: u64,
    pub drops: Vec<DropRule>,
    /// Segments the pipe CE-marks instead of dropping (same matching as `drops`; ECT only).
    pub marks: Vec<DropRule>,
    /// After every input to a side (and its transmissions): the side's state.
    pub trace: Vec<Trace>,
    /// Random loss on both directions, per mille (0 = none), from a xorshift64 stream.
    pub loss_per_mille: u64,
    /// Random CE marks on ECT segments that were not lost, per mille (0 = none).
    pub mark_per_mille: u64,
    pub rng: u64,
    sent_by: [usize; 2],
    pub log: Vec<Sent>,
    pub events: Vec<(SimTime, usize, AppEvent)>,
    pub app: Option<Http>,
    responded: bool,
    /// When the client had the whole response (the engine's response-complete instant).
    pub completed: Option<SimTime>,
    pub done: [bool; 2],
    /// Drive as `sim/src/world.rs` `service` does today: the application's events first, then
    /// the segments (so a client's FIN rides on its ACK of the last response byte). Default
    /// false: segments first, then events (what every older test was derived with).
    pub engine_order: bool,
    /// Application writes at fixed instants, (time, side, bytes, close after the write), in
    /// time order: the persistent-connection tests (`Pipe::scripted`).
    pub writes: Vec<(SimTime, usize, u64, bool)>,
}

impl Pipe {
    /// Client and server with the HTTP/1.0 application; the client connects and writes its
    /// request at t = 0.
    pub fn http(cfg: TcpConfig, delay: SimDuration, request: u64, response: u64) -> Pipe {
        Self::http_with(cfg.clone(), cfg, delay, request, response, vec![])
    }

    pub fn http_with(
        client_cfg: TcpConfig,
        server_cfg: TcpConfig,
        delay: SimDuration,
        request: u64,
        response: u64,
        drops: Vec<DropRule>,
    ) -> Pipe {
        Self::http_full(client_cfg, server_cfg, delay, 0, request, response, drops)
    }

    /// As [`Pipe::http_with`], with `ns_per_byte` of serialization time per wire byte.
    pub fn http_full(
        client_cfg: TcpConfig,
        server_cfg: TcpConfig,
        delay: SimDuration,
        ns_per_byte: u64,
        request: u64,
        response: u64,
        drops: Vec<DropRule>,
    ) -> Pipe {
        let mut client = Endpoint::connect(client_cfg, SimTime::ZERO);
        if request > 0 {
            client.send(request);
        }
        let mut p = Pipe {
            eps: [client, Endpoint::listen(server_cfg)],
            now: SimTime::ZERO,
            delay,
            ns_per_byte,
            busy_until: [SimTime::ZERO; 2],
            in_flight: Vec::new(),
            order: 0,
            drops,
            marks: Vec::new(),
            trace: Vec::new(),
            loss_per_mille: 0,
            mark_per_mille: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            sent_by: [0; 2],
            log: Vec::new(),
            events: Vec::new(),
            app: Some(Http { request, response }),
            responded: false,
            completed: None,
            done: [false; 2],
            engine_order: false,
            writes: Vec::new(),
        };
        p.service(CLIENT);
        p
    }

    /// Client and server without an application: the client connects at t = 0 and each side
    /// writes `writes` (time, side, bytes, close after) at the instants given, as a test script
    /// of ns-2 (`advance-bytes`, `sendmsg … MSG_EOF`) drives two Full-TCP agents. Runs in
    /// engine order. A write at t = 0 by the client goes with the connect.
    pub fn scripted(
        cfg: TcpConfig,
        delay: SimDuration,
        writes: Vec<(SimTime, usize, u64, bool)>,
    ) -> Pipe {
        let mut p = Self::http_full(cfg.clone(), cfg, delay, 0, 0, 0, vec![]);
        p.app = None;
        p.engine_order = true;
        p.writes = writes;
        p.writes.sort_by_key(|w| w.0);
        p.do_writes();
        p
    }

    /// Perform the scripted writes due now.
    fn do_writes(&mut self) {
        while let Some(&(t, side, bytes, close)) = self.writes.first() {
            if t > self.now {
                break;
            }
            self.writes.remove(0);
            self.eps[side].send(bytes);
            if close {
                self.eps[side].close();
            }
            self.service(side);
        }
    }

    fn dropped(&mut self, side: usize, s: &Segment) -> bool {
        if self.loss_per_mille > 0 {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            if self.rng % 1000 < self.loss_per_mille {
                return true;
            }
        }
        let k = self.sent_by[side];
        Self::matches(&mut self.drops, side, k, s)
    }

    /// Whether `s`, the `k`-th segment of `side`, matches one of `rules` (consuming a use).
    fn matches(rules: &mut [DropRule], side: usize, k: usize, s: &Segment) -> bool {
        for r in rules.iter_mut() {
            match r {
                DropRule::Nth { side: sd, k: kk } if *sd == side && *kk == k => return true,
                DropRule::Seq {
                    side: sd,
                    seq,
                    kind,
                    times,
                } if *sd == side
                    && *times > 0
                    && s.seq == *seq
                    && s.seq_len() > 0
                    && kind.is_none_or(|kd| kd == s.kind) =>
                {
                    *times -= 1;
                    return true;
                }
                DropRule::Fin { side: sd, times }
                    if *sd == side && *times > 0 && s.flags.contains(FIN) =>
                {
                    *times -= 1;
                    return true;
                }
                _ => {}
            }
        }
        false
    }

    fn transmit(&mut self, side: usize, mut s: Segment) {
        self.sent_by[side] += 1;
        let dropped = self.dropped(side, &s);
        if !dropped && Self::matches(&mut self.marks, side, self.sent_by[side], &s) {
            assert!(
                s.ecn.is_ect(),
                "the pipe may only CE-mark ECT segments: {s:?}"
            );
            s.ecn = Ecn::Ce;
        }
        if !dropped && s.ecn.ecn_capable() && self.mark_per_mille > 0 {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            if self.rng % 1000 < self.mark_per_mille {
                s.ecn = Ecn::Ce;
            }
        }
        self.log.push(Sent {
            t: self.now,
            side,
            seg: s,
            dropped,
        });
        let start = self.now.max(self.busy_until[side]);
        let done = start + SimDuration(self.ns_per_byte * s.wire_bytes() as u64);
        self.busy_until[side] = done;
        if !dropped {
            self.in_flight
                .push((done + self.delay, self.order, 1 - side, s));
            self.order += 1;
        }
    }

    /// What the engine does after any input to `side`.
    pub fn service(&mut self, side: usize) {
        loop {
            let mut sent = false;
            if !self.engine_order {
                while let Some(s) = self.eps[side].poll_transmit(self.now) {
                    self.transmit(side, s);
                }
            }
            let mut any = false;
            while let Some(ev) = self.eps[side].poll_event() {
                any = true;
                self.events.push((self.now, side, ev));
                self.on_app_event(side, ev);
            }
            if self.engine_order {
                while let Some(s) = self.eps[side].poll_transmit(self.now) {
                    sent = true;
                    self.transmit(side, s);
                }
            }
            if !any && !sent {
                break;
            }
        }
        let e = &self.eps[side];
        self.trace.push(Trace {
            t: self.now,
            side,
            snd_una: e.send_sequence().0,
            cwnd: e.cwnd(),
            ssthresh: e.ssthresh(),
            in_recovery: e.in_recovery(),
        });
    }

    fn on_app_event(&mut self, side: usize, ev: AppEvent) {
        let Some(app) = self.app else { return };
        match (side, ev) {
            (SERVER, AppEvent::Connected) if app.request == 0 && !self.responded => {
                self.respond(app)
            }
            (SERVER, AppEvent::Data { total }) if !self.responded && total >= app.request => {
                self.respond(app)
            }
            (CLIENT, AppEvent::Data { total })
                if self.completed.is_none() && total >= app.response =>
            {
                self.completed = Some(self.now);
                // PackMime's client never closes: Full-TCP closes on the server's FIN
                // (`ns2_fulltcp`, halfclose_ false).
                if !self.eps[CLIENT].config().ns2_fulltcp {
                    self.eps[CLIENT].close();
                }
            }
            (CLIENT, AppEvent::PeerClosed) if self.completed.is_none() => self.eps[CLIENT].close(),
            (_, AppEvent::Closed | AppEvent::Aborted) => self.done[side] = true,
            _ => {}
        }
    }

    fn respond(&mut self, app: Http) {
        self.responded = true;
        self.eps[SERVER].send(app.response);
        self.eps[SERVER].close();
    }

    /// The next instant something happens, if any.
    fn next_time(&self) -> Option<SimTime> {
        let d = self.in_flight.iter().map(|f| f.0).min();
        let t = self.eps.iter().filter_map(|e| e.next_deadline()).min();
        let w = self.writes.first().map(|w| w.0);
        [d, t, w].into_iter().flatten().min()
    }

    /// Process one instant's first event. False when nothing is left.
    pub fn step(&mut self) -> bool {
        if self.done[CLIENT] && self.done[SERVER] {
            return false;
        }
        let Some(t) = self.next_time() else {
            return false;
        };
        assert!(t >= self.now, "time went backwards");
        self.now = t;
        if self.writes.first().is_some_and(|w| w.0 <= t) {
            self.do_writes();
            return true;
        }
        // Deliveries at t first, in send order.
        if let Some(i) = (0..self.in_flight.len())
            .filter(|&i| self.in_flight[i].0 == t)
            .min_by_key(|&i| self.in_flight[i].1)
        {
            let (_, _, to, s) = self.in_flight.remove(i);
            self.eps[to].on_segment(t, &s);
            self.service(to);
            return true;
        }
        for side in [CLIENT, SERVER] {
            if self.eps[side].next_deadline().is_some_and(|d| d <= t) {
                self.eps[side].on_timeout(t);
                self.service(side);
                return true;
            }
        }
        unreachable!("next_time returned an instant with nothing due");
    }

    /// Run until both ends are done (or nothing is pending), at most until `limit`.
    pub fn run_until(&mut self, limit: SimTime) {
        for _ in 0..1_000_000 {
            match self.next_time() {
                Some(t) if t <= limit => {
                    if !self.step() {
                        break;
                    }
                }
                _ => break,
            }
        }
    }

    /// Run to completion (a 1000 s guard) and check the counter identities.
    pub fn run(&mut self) {
        self.run_until(SimTime::from_secs(1000));
        self.check_counters();
    }

    /// Segments sent by `side`, in order.
    pub fn sent(&self, side: usize) -> Vec<Sent> {
        self.log
            .iter()
            .filter(|s| s.side == side)
            .copied()
            .collect()
    }

    /// Times at which `side` sent a segment with payload starting at `seq`.
    pub fn send_times(&self, side: usize, seq: u64) -> Vec<SimTime> {
        self.log
            .iter()
            .filter(|s| s.side == side && s.seg.seq == seq && s.seg.len > 0)
            .map(|s| s.t)
            .collect()
    }

    /// First event `ev` of `side`, with its time.
    pub fn event_time(&self, side: usize, ev: AppEvent) -> Option<SimTime> {
        self.events
            .iter()
            .find(|e| e.1 == side && e.2 == ev)
            .map(|e| e.0)
    }

    /// The counter identities of `TcpStats` against the pipe's log (STYLE.md §10).
    pub fn check_counters(&self) {
        for side in [CLIENT, SERVER] {
            let st = self.eps[side].stats();
            let mine: Vec<&Sent> = self.log.iter().filter(|s| s.side == side).collect();
            let count =
                |f: &dyn Fn(&Segment) -> bool| mine.iter().filter(|s| f(&s.seg)).count() as u32;
            assert_eq!(
                st.segments_sent,
                mine.len() as u64,
                "segments_sent of side {side}"
            );
            let rtx_data = count(&|s| s.len > 0 && s.kind == TxKind::Retransmit);
            assert_eq!(
                st.data_retransmits, rtx_data,
                "data_retransmits of side {side}"
            );
            let syns = count(&|s| s.flags.contains(SYN));
            assert_eq!(
                st.syn_retransmits,
                syns.saturating_sub(1),
                "syn_retransmits of side {side}"
            );
            assert_eq!(
                st.syn_retransmits,
                count(&|s| s.flags.contains(SYN) && s.kind == TxKind::Retransmit)
            );
            let fins = count(&|s| s.flags.contains(FIN));
            assert_eq!(
                st.fin_retransmits,
                fins.saturating_sub(1),
                "fin_retransmits of side {side}"
            );
            assert!(st.fast_retransmits <= st.data_retransmits + st.fin_retransmits);
            let ep = &self.eps[side];
            // CWR goes out once after each window reduction (ECE, fast retransmit, timeout).
            assert!(
                count(&|s| s.flags.contains(Flags::CWR) && !s.flags.contains(SYN))
                    <= st.ecn_reductions + st.fast_retransmits + st.timeouts
            );
            if !ep.ecn_enabled() {
                assert_eq!(st.ecn_reductions, 0);
            }
            for s in &mine {
                // RFC 3168 §6.1.5: ECT exactly on new data of an ECN connection.
                let new_data = s.seg.len > 0 && s.seg.kind == TxKind::New;
                assert_eq!(
                    s.seg.ecn.ecn_capable(),
                    new_data && ep.ecn_enabled(),
                    "ECT rule of side {side}: {:?}",
                    s.seg
                );
                assert!(ep.sack_enabled() || s.seg.sack.is_empty());
                if s.seg.len > 0 {
                    assert!(
                        s.seg.cwnd_hint >= 1,
                        "data segment without cwnd hint: {:?}",
                        s.seg
                    );
                } else {
                    assert_eq!(
                        s.seg.cwnd_hint, 0,
                        "hint on a segment without data: {:?}",
                        s.seg
                    );
                }
                assert!(s.seg.len as u64 <= self.eps[side].config().mss as u64);
            }
        }
    }
}
