//! Workload configs and generators: what connections to open, when, and how big. Each model is a
//! pure state machine in its own file; this file holds the config types, their validation and
//! the [`Workload`] dispatcher.
//!
//! | model                          | file                  | loop   | source                          |
//! |--------------------------------|-----------------------|--------|---------------------------------|
//! | `Http10` + `Arrival::Poisson`  | `workload/poisson.rs` | open   | Poisson connection arrivals     |
//! | `Http10` + `Arrival::Users`    | `workload/users.rs`   | closed | request → response → think      |
//! | `ParetoWeb`                    | `workload/pareto_web.rs` | closed | seed 003 §3.1, §4.7, §6.2   |
//! | `Bulk`                         | `workload/bulk.rs`    | —      | long-lived FTP flows            |
//! | `Mah`                          | `workload/mah.rs`     | closed | Mah 1997 browsing users (seed 000 §3.3) |
//! | `PackMime`                     | `workload/packmime.rs` | open  | ns-2.35 PackMime-HTTP, HTTP/1.0 and 1.1 |
//! | `Cbr`                          | `workload/cbr.rs`     | open   | ns-2 CBR over UDP (datagrams)   |
//! | `OnOff`                        | `workload/onoff.rs`   | open   | ns-2 Pareto ON/OFF (datagrams)  |
//! | `Replay`                       | `workload/replay.rs`  | open   | a connection trace (CSV file)   |
//!
//! Sizes become whole bytes here, once: request = round(x) (0 only if x < 0.5), response =
//! max(1, round(x)), both capped at `u64::MAX − 1` so that only `Bulk` can mean "endless".
//! Times in seconds become `SimDuration` by `from_secs_f64` (nearest nanosecond); a time past
//! the end of the u64 clock ends that source instead of panicking.
//!
//! Each model documents its draw order (which draws, in which order, from the one `&mut Rng` the
//! engine passes). Ties in time are broken by (time, user/flow index), never by arrival order of
//! calls, so a run is a function of (config, stream) alone.
//!
//! Read `lib.rs` (call order) and the model's file before editing.
//!
//! Validation: `workload::tests` — `poisson::*`, `users::*`, `pareto_web::*`, `bulk::*`,
//! `validation::*` (reason texts, offered load), `determinism::*`, `packmime::*`, `cbr::*`,
//! `onoff::*`, `replay::*`.

mod bulk;
mod cbr;
mod mah;
mod onoff;
mod packmime;
pub mod params;
mod pareto_web;
mod poisson;
mod replay;
#[cfg(test)]
mod tests;
mod users;

use crate::distribution::SizeDist;
use units::{Rng, SimDuration, SimTime};

pub use mah::{MahConfig, MahTables, PrimaryReplies, ServerChoice};
pub use pareto_web::{pareto_web_mean_bytes, ParetoSizes};
pub use replay::{parse_replay_csv, ReplayConn, MAX_TIME_S as REPLAY_MAX_TIME_S};

/// What a connection carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    /// One request/response exchange (HTTP/1.0), response time recorded.
    Http,
    /// Long-lived transfer (FTP) from server to client.
    Bulk,
    /// Not a connection: one unresponsive datagram (UDP-like) of `response_bytes` wire bytes
    /// from the server host to the client host, sent now (`Cbr`, `OnOff`).
    Datagram,
}

/// A connection the engine must open now.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Index of the user (closed-loop models) or 0; passed back in `on_response_complete`.
    pub user: u32,
    /// Client host index within the workload's client hosts.
    pub client: u32,
    /// Server host index within the workload's server hosts.
    pub server: u32,
    /// Bytes the client sends (the request).
    pub request_bytes: u64,
    /// Bytes the server sends back; `u64::MAX` for an endless bulk flow.
    pub response_bytes: u64,
    pub kind: FlowKind,
    /// Page (document) this request belongs to, unique within the workload; 0 = not part of a
    /// page (every model but Mah's).
    pub page: u64,
    /// Server think time between the whole request having arrived and the response being
    /// written (PackMime §3.4, reference/packmime/MODEL.md); `ZERO` (answer at once) for every
    /// other model.
    pub server_delay: SimDuration,
    /// Further request/response exchanges on the same connection, in order (HTTP/1.1
    /// persistent connection, not pipelined); empty = one exchange, then close (HTTP/1.0).
    pub more: Vec<Exchange>,
    /// This connection's own DelayBox RTTs (client's router, server's router), each applied
    /// half in each direction there, instead of draws from the workload's `delaybox`; `None`
    /// from every model but `Replay` with RTT columns (the engine's workload thread fills it
    /// with its draws from the workload's boxes, `sim::prefetch`).
    pub box_rtt: Option<[SimDuration; 2]>,
}

/// One further exchange on a persistent connection (after the [`Request`]'s own first one).
/// The client sends its request `gap` after the last byte of the previous response arrived;
/// the server answers `server_delay` after the whole request arrived; after the last exchange
/// both sides close.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exchange {
    /// Client idle time after the previous response completed.
    pub gap: SimDuration,
    /// Request payload, bytes (≥ 1: the server recognises a request by its bytes).
    pub request_bytes: u64,
    /// Response payload, bytes (≥ 1).
    pub response_bytes: u64,
    /// Server think time before the response.
    pub server_delay: SimDuration,
}

/// HTTP version of a PackMime workload (MODEL.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HttpVersion {
    /// One request/response per connection (ns-2's default mode).
    #[default]
    Http10,
    /// ns-2 `set-http-1.1`: each connection persistent with probability 0.09 (§3.5–3.7).
    Http11,
}

/// How HTTP/1.0 connections arrive.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// Open loop: connections start as a Poisson process, `rate` per second.
    Poisson { rate: f64 },
    /// Closed loop: `users` users, each request → response → think (seconds) → request.
    Users { users: u32, think_s: SizeDist },
}

/// A long-lived flow.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkFlow {
    pub start: SimTime,
    pub client: u32,
    pub server: u32,
    /// Bytes to send; `None` = endless.
    pub bytes: Option<u64>,
}

/// A workload as a scenario describes it.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadConfig {
    /// HTTP/1.0: one request and one response per connection, then close.
    Http10 {
        arrival: Arrival,
        request_bytes: SizeDist,
        response_bytes: SizeDist,
        clients: u32,
        servers: u32,
    },
    /// Seed 003 §3.1/§4.7: `flows` sources, each: one object (bounded Pareto size) per
    /// connection from server to client, then a fixed off time, forever. The size is ns-2's
    /// `Pareto` with this shape and mean (scale = mean·(shape−1)/shape), clamped to
    /// [min_bytes, max_bytes]; see `workload/pareto_web.rs` and [`pareto_web_mean_bytes`].
    /// `sizes` = [`ParetoSizes::ParetoII`] draws ns-2's `ParetoII` instead.
    ParetoWeb {
        flows: u32,
        sizes: ParetoSizes,
        shape: f64,
        mean_bytes: f64,
        min_bytes: f64,
        max_bytes: f64,
        off_time: SimDuration,
        clients: u32,
        servers: u32,
    },
    /// Long-lived flows with start times.
    Bulk { flows: Vec<BulkFlow> },
    /// Mah's browsing users (seed 000 §3.3–3.4), see [`MahConfig`].
    Mah(MahConfig),
    /// PackMime-HTTP HTTP/1.0 (ns-2.35, reference/packmime/MODEL.md): open-loop connections,
    /// `rate` new connections per second, model inter-arrivals and sizes; see
    /// `workload/packmime.rs`.
    PackMime {
        rate: f64,
        clients: u32,
        servers: u32,
        /// HTTP/1.0 (default) or HTTP/1.1 persistent connections (§3.5–3.7).
        http: HttpVersion,
    },
    /// Constant-bit-rate datagrams (ns-2 CBR over UDP), one flow from host `server` to host
    /// `client`; see `workload/cbr.rs`.
    Cbr(DatagramFlow),
    /// Pareto ON/OFF datagrams (ns-2 `Application/Traffic/Pareto`): `flow.rate_bps` during ON
    /// periods of mean `on_mean`, OFF periods of mean `off_mean`, both Pareto of `shape`; see
    /// `workload/onoff.rs`.
    OnOff {
        flow: DatagramFlow,
        on_mean: SimDuration,
        off_mean: SimDuration,
        /// Pareto shape of ON and OFF times (> 1; ns-2 default 1.5).
        shape: f64,
    },
    /// HTTP/1.0 connections replayed from a trace (see `workload/replay.rs`): connection n
    /// uses client `n mod clients`, server `n mod servers`.
    Replay {
        conns: Vec<ReplayConn>,
        clients: u32,
        servers: u32,
    },
}

/// One unresponsive datagram flow (CBR, ON/OFF): fixed-size packets from host `server` to host
/// `client` (indices within the workload's hosts) between `start` and `stop`.
#[derive(Clone, Debug, PartialEq)]
pub struct DatagramFlow {
    /// Sending rate (CBR: always; ON/OFF: during ON periods), bit/s of wire bytes.
    pub rate_bps: u64,
    /// Whole packet on the wire, bytes (≥ 40: the engine carries it as 40 header bytes plus
    /// payload; ns-2 CBR default 210 B).
    pub packet_bytes: u32,
    pub start: SimTime,
    /// First instant at which no packet is sent any more; `None` = until the end of the run.
    pub stop: Option<SimTime>,
    pub client: u32,
    pub server: u32,
}

impl DatagramFlow {
    fn validate(&self) -> Result<(), String> {
        if self.rate_bps == 0 {
            return Err("rate must be greater than 0 bit/s".to_string());
        }
        if self.packet_bytes < 40 {
            return Err(format!(
                "packet_size must be at least 40 B (the whole packet on the wire), got {} B",
                self.packet_bytes
            ));
        }
        if let Some(stop) = self.stop {
            if stop <= self.start {
                return Err(format!(
                    "stop ({stop}) must be after start ({})",
                    self.start
                ));
            }
        }
        Ok(())
    }
}

fn at_least_one(name: &str, n: u32) -> Result<(), String> {
    if n == 0 {
        Err(format!("{name} must be ≥ 1, got 0"))
    } else {
        Ok(())
    }
}

fn finite_positive(name: &str, x: f64) -> Result<(), String> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be a finite number > 0, got {x}"))
    }
}

impl WorkloadConfig {
    /// Check every parameter; the reason starts with the field name (tested in
    /// `workload::tests::validation`). [`Workload::new`] calls this.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            WorkloadConfig::Http10 {
                arrival,
                request_bytes,
                response_bytes,
                clients,
                servers,
            } => {
                at_least_one("clients", *clients)?;
                at_least_one("servers", *servers)?;
                match arrival {
                    Arrival::Poisson { rate } => {
                        finite_positive("arrival.rate (connections/s)", *rate)?
                    }
                    Arrival::Users { users, think_s } => {
                        at_least_one("arrival.users", *users)?;
                        think_s
                            .validate()
                            .map_err(|e| format!("arrival.think_s: {e}"))?;
                    }
                }
                request_bytes
                    .validate()
                    .map_err(|e| format!("request_bytes: {e}"))?;
                response_bytes
                    .validate()
                    .map_err(|e| format!("response_bytes: {e}"))?;
            }
            WorkloadConfig::ParetoWeb {
                flows,
                shape,
                mean_bytes,
                min_bytes,
                max_bytes,
                clients,
                servers,
                ..
            } => {
                at_least_one("flows", *flows)?;
                at_least_one("clients", *clients)?;
                at_least_one("servers", *servers)?;
                if !(shape.is_finite() && *shape > 1.0) {
                    return Err(format!(
                        "shape must be > 1 (a Pareto with shape ≤ 1 has no mean), got {shape}"
                    ));
                }
                finite_positive("mean_bytes", *mean_bytes)?;
                finite_positive("min_bytes", *min_bytes)?;
                finite_positive("max_bytes", *max_bytes)?;
                if min_bytes >= max_bytes {
                    return Err(format!(
                        "min_bytes ({min_bytes}) must be below max_bytes ({max_bytes})"
                    ));
                }
            }
            WorkloadConfig::Mah(m) => m.validate()?,
            WorkloadConfig::PackMime {
                rate,
                clients,
                servers,
                ..
            } => {
                at_least_one("clients", *clients)?;
                at_least_one("servers", *servers)?;
                finite_positive("rate (connections/s)", *rate)?;
            }
            WorkloadConfig::Cbr(f) => f.validate()?,
            WorkloadConfig::Replay {
                conns,
                clients,
                servers,
            } => {
                at_least_one("clients", *clients)?;
                at_least_one("servers", *servers)?;
                if conns.is_empty() {
                    return Err("conns: at least one connection is required".to_string());
                }
                if let Some(i) = conns
                    .iter()
                    .position(|c| c.request_bytes == 0 || c.response_bytes == 0)
                {
                    return Err(format!(
                        "conns[{i}]: request and response must be at least 1 byte"
                    ));
                }
            }
            WorkloadConfig::OnOff {
                flow,
                on_mean,
                off_mean,
                shape,
            } => {
                flow.validate()?;
                if !(shape.is_finite() && *shape > 1.0) {
                    return Err(format!(
                        "shape must be > 1 (a Pareto with shape ≤ 1 has no mean), got {shape}"
                    ));
                }
                if on_mean.as_nanos() == 0 || off_mean.as_nanos() == 0 {
                    return Err("on_time and off_time must be greater than 0".to_string());
                }
            }
            WorkloadConfig::Bulk { flows } => {
                if flows.is_empty() {
                    return Err("flows: at least one flow is required".to_string());
                }
                if u32::try_from(flows.len()).is_err() {
                    return Err(format!(
                        "flows: at most {} flows, got {}",
                        u32::MAX,
                        flows.len()
                    ));
                }
                if let Some(i) = flows.iter().position(|f| f.bytes == Some(0)) {
                    return Err(format!(
                        "flows[{i}].bytes must be at least 1 (None = endless)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// True if the workload's requests (times and sizes) are a function of its configuration
    /// and its own random stream alone, never of the network: Poisson arrivals and PackMime
    /// (the module table's "open" models that draw sizes). The engine may then draw them ahead
    /// on another thread (`sim::prefetch`). CBR, ON/OFF and replay are open loop too but draw
    /// almost nothing, so they are not listed.
    pub fn draws_open_loop(&self) -> bool {
        matches!(
            self,
            WorkloadConfig::Http10 {
                arrival: Arrival::Poisson { .. },
                ..
            } | WorkloadConfig::PackMime { .. }
        )
    }

    /// Offered load of an open-loop (`Http10` + `Poisson`) workload in bit/s:
    /// rate × 8 × (E\[response\] + E\[request\]), from the distributions' analytic means before
    /// rounding to whole bytes. Payload only: TCP/IP headers, handshakes, ACKs and
    /// retransmissions are excluded. `None` for closed-loop and bulk workloads, whose load
    /// depends on the network.
    pub fn offered_load_bps(&self) -> Option<f64> {
        match self {
            WorkloadConfig::Http10 {
                arrival: Arrival::Poisson { rate },
                request_bytes,
                response_bytes,
                ..
            } => Some(rate * 8.0 * (response_bytes.mean() + request_bytes.mean())),
            _ => None,
        }
    }

    /// Analytic mean response (object) size in bytes before rounding: `Http10` → E\[response\],
    /// `ParetoWeb` → [`pareto_web_mean_bytes`]; `None` for `Bulk`.
    pub fn mean_response_bytes(&self) -> Option<f64> {
        match self {
            WorkloadConfig::Http10 { response_bytes, .. } => Some(response_bytes.mean()),
            WorkloadConfig::ParetoWeb {
                sizes,
                shape,
                mean_bytes,
                min_bytes,
                max_bytes,
                ..
            } => Some(pareto_web_mean_bytes(
                *sizes,
                *shape,
                *mean_bytes,
                *min_bytes,
                *max_bytes,
            )),
            WorkloadConfig::Bulk { .. } | WorkloadConfig::Cbr(_) | WorkloadConfig::OnOff { .. } => {
                None
            }
            WorkloadConfig::Mah(m) => Some(m.mean_reply_bytes()),
            // Heavy-tailed, rate-dependent mix (MODEL.md §8: ≈ 8.5–8.6 kB); not computed.
            WorkloadConfig::PackMime { .. } => None,
            WorkloadConfig::Replay { conns, .. } => Some(
                conns.iter().map(|c| c.response_bytes as f64).sum::<f64>() / conns.len() as f64,
            ),
        }
    }
}

/// Request size in whole bytes: round(x), 0 only if x < 0.5 (NaN → 0), at most `u64::MAX − 1`.
pub(crate) fn request_bytes(x: f64) -> u64 {
    (x.round() as u64).min(u64::MAX - 1)
}

/// Response size in whole bytes: max(1, round(x)), at most `u64::MAX − 1` (never "endless").
pub(crate) fn response_bytes(x: f64) -> u64 {
    request_bytes(x).max(1)
}

/// `t + d`, or `None` past the end of the clock (that source then stops).
pub(crate) fn later(t: SimTime, d: SimDuration) -> Option<SimTime> {
    t.checked_add(d)
}

#[derive(Clone, Debug)]
enum Gen {
    Poisson(poisson::Poisson),
    Users(users::Users),
    ParetoWeb(pareto_web::ParetoWeb),
    Bulk(bulk::Bulk),
    Mah(mah::Mah),
    PackMime(packmime::PackMime),
    Cbr(cbr::Cbr),
    OnOff(onoff::OnOff),
    Replay(replay::Replay),
}

/// A running workload (state machine).
///
/// Call order (time never decreases): [`start`](Self::start) once; then
/// [`on_timeout`](Self::on_timeout) whenever [`next_deadline`](Self::next_deadline) is due (an
/// early call emits nothing; a late one emits everything due, keeping the scheduled times of the
/// process); [`on_response_complete`](Self::on_response_complete) when a connection of this
/// workload completes or is abandoned. Every call appends the connections to open now to `out`
/// and may draw from `rng`, which must be this workload's own stream. Before `start`, every
/// call does nothing and `next_deadline` is `None`; a second `start` does nothing.
#[derive(Clone, Debug)]
pub struct Workload {
    cfg: WorkloadConfig,
    gen: Gen,
    started: bool,
}

impl Workload {
    /// Validate `cfg` ([`WorkloadConfig::validate`]) and build its state machine.
    pub fn new(cfg: WorkloadConfig) -> Result<Workload, String> {
        cfg.validate()?;
        let gen = match &cfg {
            WorkloadConfig::Http10 {
                arrival: Arrival::Poisson { rate },
                request_bytes,
                response_bytes,
                clients,
                servers,
            } => Gen::Poisson(poisson::Poisson::new(
                *rate,
                request_bytes.clone(),
                response_bytes.clone(),
                *clients,
                *servers,
            )),
            WorkloadConfig::Http10 {
                arrival: Arrival::Users { users, think_s },
                request_bytes,
                response_bytes,
                clients,
                servers,
            } => Gen::Users(users::Users::new(
                *users,
                think_s.clone(),
                request_bytes.clone(),
                response_bytes.clone(),
                *clients,
                *servers,
            )),
            WorkloadConfig::ParetoWeb {
                flows,
                sizes,
                shape,
                mean_bytes,
                min_bytes,
                max_bytes,
                off_time,
                clients,
                servers,
            } => Gen::ParetoWeb(pareto_web::ParetoWeb::new(
                *flows,
                *sizes,
                *shape,
                *mean_bytes,
                *min_bytes,
                *max_bytes,
                *off_time,
                *clients,
                *servers,
            )),
            WorkloadConfig::Bulk { flows } => Gen::Bulk(bulk::Bulk::new(flows)),
            WorkloadConfig::Mah(m) => Gen::Mah(mah::Mah::new(m.clone())),
            WorkloadConfig::PackMime {
                rate,
                clients,
                servers,
                http,
            } => Gen::PackMime(packmime::PackMime::new(*rate, *clients, *servers, *http)),
            WorkloadConfig::Cbr(f) => Gen::Cbr(cbr::Cbr::new(
                f.rate_bps,
                f.packet_bytes,
                f.start,
                f.stop,
                f.client,
                f.server,
            )),
            WorkloadConfig::OnOff {
                flow: f,
                on_mean,
                off_mean,
                shape,
            } => Gen::OnOff(onoff::OnOff::new(
                f.rate_bps,
                f.packet_bytes,
                *on_mean,
                *off_mean,
                *shape,
                f.start,
                f.stop,
                f.client,
                f.server,
            )),
            WorkloadConfig::Replay {
                conns,
                clients,
                servers,
            } => Gen::Replay(replay::Replay::new(conns, *clients, *servers)),
        };
        Ok(Workload {
            cfg,
            gen,
            started: false,
        })
    }

    /// The validated configuration.
    pub fn config(&self) -> &WorkloadConfig {
        &self.cfg
    }

    /// Begin at `now` (time 0 in a run): emit what is due at `now`, schedule the rest.
    pub fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        if std::mem::replace(&mut self.started, true) {
            return;
        }
        match &mut self.gen {
            Gen::Poisson(g) => g.start(now, rng, out),
            Gen::Users(g) => g.start(now, rng, out),
            Gen::ParetoWeb(g) => g.start(now, rng, out),
            Gen::Bulk(g) => g.emit_due(now, out),
            Gen::Mah(g) => g.start(now, rng, out),
            Gen::PackMime(g) => g.start(now, rng, out),
            Gen::Cbr(g) => g.emit_due(now, out),
            Gen::OnOff(g) => {
                g.start(rng);
                g.emit_due(now, rng, out)
            }
            Gen::Replay(g) => g.emit_due(now, out),
        }
    }

    /// The earliest time at which `on_timeout` has something to emit.
    pub fn next_deadline(&self) -> Option<SimTime> {
        if !self.started {
            return None;
        }
        match &self.gen {
            Gen::Poisson(g) => g.next_deadline(),
            Gen::Users(g) => g.next_deadline(),
            Gen::ParetoWeb(g) => g.next_deadline(),
            Gen::Bulk(g) => g.next_deadline(),
            Gen::Mah(g) => g.next_deadline(),
            Gen::PackMime(g) => g.next_deadline(),
            Gen::Cbr(g) => g.next_deadline(),
            Gen::OnOff(g) => g.next_deadline(),
            Gen::Replay(g) => g.next_deadline(),
        }
    }

    /// Emit every request due at or before `now`.
    pub fn on_timeout(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        if !self.started {
            return;
        }
        match &mut self.gen {
            Gen::Poisson(g) => g.emit_due(now, rng, out),
            Gen::Users(g) => g.emit_due(now, rng, out),
            Gen::ParetoWeb(g) => g.emit_due(now, rng, out),
            Gen::Bulk(g) => g.emit_due(now, out),
            Gen::Mah(g) => g.emit_due(now, rng, out),
            Gen::PackMime(g) => g.emit_due(now, rng, out),
            Gen::Cbr(g) => g.emit_due(now, out),
            Gen::OnOff(g) => g.emit_due(now, rng, out),
            Gen::Replay(g) => g.emit_due(now, out),
        }
    }

    /// A connection of `user` ended (completed or abandoned) at `now`. Closed-loop models
    /// schedule that user's next request (and emit it at once if it is already due); open-loop
    /// and bulk models ignore the call, as do closed-loop models for a user with no request
    /// outstanding (a duplicate or stale notification).
    pub fn on_response_complete(
        &mut self,
        now: SimTime,
        user: u32,
        rng: &mut Rng,
        out: &mut Vec<Request>,
    ) {
        if !self.started {
            return;
        }
        match &mut self.gen {
            Gen::Poisson(_)
            | Gen::Bulk(_)
            | Gen::PackMime(_)
            | Gen::Cbr(_)
            | Gen::OnOff(_)
            | Gen::Replay(_) => {}
            Gen::Users(g) => g.on_response_complete(now, user, rng, out),
            Gen::ParetoWeb(g) => g.on_response_complete(now, user, rng, out),
            Gen::Mah(g) => g.on_response_complete(now, user, rng, out),
        }
    }
}
