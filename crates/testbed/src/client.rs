//! The HTTP/1.0 client loop: one tokio runtime on a thread in the client namespace runs the
//! workload generators in real time and opens their connections (see `http.rs` for the
//! exchange and the record's columns). Workload w's connections go to port 80 + w
//! (`router::ports`); a `direction = "reverse"` workload's go from server-side hosts (sockets
//! made in the server namespace, `hop.rs`) to client-side hosts. `base_rtt_ns` is left at the configured propagation RTT
//! here; `run.rs` fills in the router's DelayBox draw per connection after the run
//! (`rtt_join.rs`, keyed on [`ClientReport::tuples`]).

use crate::hop::NetnsHop;
use crate::http::{
    congestion_control, ns_since, tcp_info, Event, TcpInfo, Ticket, Tickets, CHUNK, SERVER_PORT,
    ZEROS,
};
use crate::netns;
use metrics::{RequestKind, RequestRecord};
use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;
use tokio::sync::{mpsc, oneshot};
use traffic::workload::{Exchange, FlowKind, Request, Workload};
use units::{Rng, SimTime};

/// The congestion control the first connection of the run used (a check that the route's
/// `congctl` took effect; run.json `engine.congestion_control`).
static FIRST_CC: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// One connection's client side: connect, then for each exchange (one for HTTP/1.0; those of
/// `t.more` after the first on a persistent HTTP/1.1 connection) send the request and read its
/// response — the last one to EOF, an earlier one to its size, then report `ExchangeDone`,
/// wait the exchange's gap and report `ExchangeStarted` — and finally report `ClientDone`.
/// `cancel` ends the connection early (the server's side gave up; the record is then
/// incomplete, ending when the client loop learned it).
async fn client_conn(
    sock: io::Result<TcpSocket>,
    src: Ipv4Addr,
    dst: SocketAddrV4,
    t: Ticket,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    cancel: oneshot::Receiver<()>,
) {
    let conn_id = t.conn_id;
    let mut received = 0u64;
    let mut syn_retx = 0;
    let mut info = TcpInfo::default();
    let mut end = Instant::now();
    let mut completed = false;
    let mut local = None;
    // Completes on a real cancellation only (a dropped sender is not one), and is never
    // polled again after it completed (the connection ends then).
    let cancelled = async move {
        if cancel.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(cancelled);
    let r: io::Result<()> = async {
        let sock = sock?;
        sock.bind(SocketAddr::from((src, 0)))?;
        let SocketAddr::V4(me) = sock.local_addr()? else {
            return Err(io::Error::other("not IPv4"));
        };
        local = Some(me);
        tickets.lock().expect("tickets").insert(me, t.clone());
        let _ = events.send(Event::Started {
            conn_id,
            at: Instant::now(),
            local: me,
            server: dst,
        });
        let mut s = sock.connect(SocketAddr::V4(dst)).await?;
        let fd = s.as_raw_fd();
        syn_retx = tcp_info(fd).map_or(0, |i| i.total_retrans);
        if FIRST_CC.get().is_none() {
            if let Some(cc) = congestion_control(fd) {
                let _ = FIRST_CC.set(cc);
            }
        }
        s.set_nodelay(true)?;
        let mut buf = vec![0u8; CHUNK];
        let exchanges = 1 + t.more.len();
        'exchanges: for k in 0..exchanges {
            let last = k + 1 == exchanges;
            let (request, response) = match k {
                0 => (t.request_bytes, t.response_bytes),
                _ => {
                    // As the simulator (crates/sim/src/conn.rs): the gap after the previous
                    // response, then a request of at least one byte.
                    let x = t.more[k - 1];
                    let gap = Duration::from_nanos(x.gap.as_nanos());
                    tokio::select! {
                        _ = tokio::time::sleep(gap) => {}
                        _ = &mut cancelled => {
                            end = Instant::now();
                            break 'exchanges;
                        }
                    }
                    let _ = events.send(Event::ExchangeStarted {
                        conn_id,
                        at: Instant::now(),
                    });
                    (x.request_bytes.max(1), x.response_bytes)
                }
            };
            let mut left = request;
            while left > 0 {
                let n = CHUNK.min(usize::try_from(left).unwrap_or(CHUNK));
                s.write_all(&ZEROS[..n]).await?;
                left -= n as u64;
            }
            received = 0;
            end = Instant::now();
            loop {
                // An earlier exchange reads exactly its response; the last one reads to EOF.
                let want = if last {
                    buf.len()
                } else {
                    let rest = response.saturating_sub(received);
                    if rest == 0 {
                        break;
                    }
                    buf.len().min(usize::try_from(rest).unwrap_or(usize::MAX))
                };
                let n = tokio::select! {
                    n = s.read(&mut buf[..want]) => n?,
                    _ = &mut cancelled => {
                        end = Instant::now();
                        break 'exchanges;
                    }
                };
                if n == 0 {
                    break;
                }
                received += n as u64;
                end = Instant::now();
            }
            if last {
                completed = received == response;
            } else if received < response {
                break; // the server closed early: the record stays incomplete
            } else {
                let _ = events.send(Event::ExchangeDone { conn_id, end });
            }
        }
        info = tcp_info(fd).unwrap_or_default();
        Ok(())
    }
    .await;
    if r.is_err() {
        end = Instant::now();
        if let Some(me) = local {
            tickets.lock().expect("tickets").remove(&me);
        }
    }
    let _ = events.send(Event::ClientDone {
        conn_id,
        end,
        received,
        completed,
        syn_retx,
        data_retx: info.total_retrans.saturating_sub(syn_retx),
        timeouts: info.total_rto,
    });
}

/// Everything the client loop needs besides its generators.
#[derive(Clone, Debug)]
pub struct ClientPlan {
    /// Run seed (`[run] seed`).
    pub seed: u64,
    /// End of the run (warm-up + duration), since the epoch.
    pub end: SimTime,
    /// End of the warm-up (for `stop_after_responses`).
    pub warmup: SimTime,
    /// Stop once this many HTTP responses that started after the warm-up completed.
    pub stop_after_responses: Option<u64>,
    /// Configured propagation RTT of every connection (both access links each way and the
    /// bottleneck each way), ns.
    pub prop_rtt_ns: u64,
    /// Time after the end given to connections to report their server side, before records
    /// are closed.
    pub grace: Duration,
    /// Set when the run's time is over (before the grace): stops the router, so that its
    /// measured period ends with the client's.
    pub at_end: Option<Arc<AtomicBool>>,
    /// Open every connection from 127.0.0.1 to this address instead of from the client host's
    /// address to the server host's port 80: the client loop without namespaces or root
    /// (`tests/client_loop.rs`). `None` in a testbed run.
    pub server_override: Option<SocketAddrV4>,
    /// Per workload (index = the scenario's order): its clients are the server-side hosts and
    /// its servers the client-side hosts (`direction = "reverse"`). Missing = forward.
    pub reverse: Vec<bool>,
    /// The server namespace, where a reverse workload's sockets are made (`hop.rs`); needed
    /// when any workload is reverse (without it their connections fail at once).
    pub hop: Option<Arc<NetnsHop>>,
}

/// What the client loop produced.
#[derive(Debug, Default)]
pub struct ClientReport {
    /// Every connection's record, by id.
    pub records: Vec<RequestRecord>,
    /// Connections opened.
    pub connections: u64,
    /// Most connections open at once.
    pub peak_open: u64,
    /// How late requests were opened after their generator's deadline, ns: the largest, and
    /// the sum (mean = sum / deadlines).
    pub lateness_max_ns: u64,
    pub lateness_sum_ns: u64,
    pub deadlines: u64,
    /// When the loop stopped, ns since the epoch.
    pub end_ns: u64,
    /// Congestion control of the run's first connection (TCP_CONGESTION).
    pub congestion_control: Option<String>,
    /// Connections whose server side gave up (`Event::ServerDone::gave_up`) while the client
    /// still waited, so that the client loop ended the client's side (as the simulator ends a
    /// connection when either endpoint gives up).
    pub server_gave_up: u64,
    /// (client, server) socket addresses of each connection that got a local port, by
    /// `conn_id`: the key of the router's DelayBox draws (`rtt_join.rs`).
    pub tuples: HashMap<u64, (SocketAddrV4, SocketAddrV4)>,
}

struct Open {
    /// Record of the current (or last) exchange.
    record: RequestRecord,
    /// Further exchanges of a persistent connection (`Request::more`).
    more: Vec<Exchange>,
    /// `record` belongs to an exchange in progress (false in a gap between exchanges: if the
    /// connection ends there, the exchange that never started has no record, as in the
    /// simulator).
    record_open: bool,
    w: usize,
    user: u32,
    client_done: bool,
    server_done: bool,
    /// Ends the client's side early (the server's side gave up).
    cancel: Option<oneshot::Sender<()>>,
}

/// The client loop: runs the generators from the epoch `t0` to `plan.end` (or until `stop`),
/// opening their connections, and returns the records. Runs inside the client namespace's
/// runtime.
pub async fn client_main(
    plan: ClientPlan,
    mut workloads: Vec<Workload>,
    t0: Instant,
    tickets: Tickets,
    events_tx: mpsc::UnboundedSender<Event>,
    mut events: mpsc::UnboundedReceiver<Event>,
    stop: Arc<AtomicBool>,
) -> ClientReport {
    let n = workloads.len();
    let mut rngs: Vec<Rng> = (0..n)
        .map(|i| units::stream(plan.seed, &format!("workload:{i}")))
        .collect();
    let mut open: HashMap<u64, Open> = HashMap::new();
    let mut done: Vec<RequestRecord> = Vec::new();
    let mut rep = ClientReport::default();
    let mut measured_completions = 0u64;
    let sim_now = || SimTime::from_nanos(ns_since(t0, Instant::now()));

    let mut out: Vec<Request> = Vec::new();
    // Request (exchange) ids, as the simulator's: one per exchange, in the order they start.
    let mut next_id = 0u64;
    let launch = |w: usize,
                  reqs: &mut Vec<Request>,
                  open: &mut HashMap<u64, Open>,
                  rep: &mut ClientReport,
                  next_id: &mut u64| {
        for r in reqs.drain(..) {
            let conn_id = rep.connections;
            rep.connections += 1;
            let id = *next_id;
            *next_id += 1;
            let record = RequestRecord {
                id,
                conn_id,
                exchange: 0,
                workload: w as u32,
                kind: if r.kind == FlowKind::Bulk {
                    RequestKind::Bulk
                } else {
                    RequestKind::Http
                },
                page: r.page,
                client: r.client,
                server: r.server,
                start_ns: ns_since(t0, Instant::now()),
                end_ns: 0,
                request_bytes: r.request_bytes,
                response_bytes: r.response_bytes,
                server_delay_ns: r.server_delay.as_nanos(),
                // The DelayBox part is joined after the run (`rtt_join.rs`).
                base_rtt_ns: plan.prop_rtt_ns,
                completed: false,
                ..Default::default()
            };
            let (cancel_tx, cancel_rx) = oneshot::channel();
            open.insert(
                conn_id,
                Open {
                    record,
                    w,
                    user: r.user,
                    client_done: false,
                    server_done: false,
                    cancel: Some(cancel_tx),
                    more: r.more.clone(),
                    record_open: true,
                },
            );
            rep.peak_open = rep.peak_open.max(open.len() as u64);
            let ticket = Ticket {
                conn_id,
                request_bytes: r.request_bytes,
                response_bytes: r.response_bytes,
                server_delay: Duration::from_nanos(r.server_delay.as_nanos()),
                more: r.more,
            };
            // Workload w's servers listen on port 80 + w (router::ports), on the side opposite
            // its clients.
            let reverse = plan.reverse.get(w).copied().unwrap_or(false);
            let port = router::ports::server_port(w).unwrap_or(SERVER_PORT);
            let (src, dst) = match plan.server_override {
                Some(dst) => (Ipv4Addr::LOCALHOST, dst),
                None => {
                    use netns::Side::{Client, Server};
                    let (cs, ss) = if reverse {
                        (Server, Client)
                    } else {
                        (Client, Server)
                    };
                    (
                        netns::host_addr(cs, r.client),
                        SocketAddrV4::new(netns::host_addr(ss, r.server), port),
                    )
                }
            };
            let sock = match (&plan.hop, reverse && plan.server_override.is_none()) {
                (_, false) => TcpSocket::new_v4(),
                (Some(h), true) => h.socket_v4(),
                (None, true) => Err(io::Error::other(
                    "a reverse workload's connection without the server namespace",
                )),
            };
            tokio::spawn(client_conn(
                sock,
                src,
                dst,
                ticket,
                tickets.clone(),
                events_tx.clone(),
                cancel_rx,
            ));
        }
    };

    for (w, wl) in workloads.iter_mut().enumerate() {
        wl.start(SimTime::ZERO, &mut rngs[w], &mut out);
        launch(w, &mut out, &mut open, &mut rep, &mut next_id);
    }
    loop {
        let now = sim_now();
        if now >= plan.end || stop.load(Ordering::SeqCst) {
            break;
        }
        if plan
            .stop_after_responses
            .is_some_and(|k| measured_completions >= k)
        {
            break;
        }
        for (w, wl) in workloads.iter_mut().enumerate() {
            if let Some(d) = wl.next_deadline().filter(|&d| d <= now) {
                let late = now.as_nanos() - d.as_nanos();
                rep.lateness_max_ns = rep.lateness_max_ns.max(late);
                rep.lateness_sum_ns += late;
                rep.deadlines += 1;
                wl.on_timeout(now, &mut rngs[w], &mut out);
                launch(w, &mut out, &mut open, &mut rep, &mut next_id);
            }
        }
        let next = workloads
            .iter()
            .filter_map(|w| w.next_deadline())
            .min()
            .unwrap_or(plan.end)
            .min(plan.end);
        let wake = t0 + Duration::from_nanos(next.as_nanos());
        // Wake at least every 50 ms to notice `stop`.
        let wake = wake.min(Instant::now() + Duration::from_millis(50));
        let ev = tokio::select! {
            _ = tokio::time::sleep_until(tokio::time::Instant::from_std(wake)) => None,
            ev = events.recv() => ev,
        };
        let mut pending: Vec<Event> = ev.into_iter().collect();
        while let Ok(e) = events.try_recv() {
            pending.push(e);
        }
        for e in pending {
            if after_end(&e, t0, plan.end) {
                continue;
            }
            let now = sim_now();
            let measured = |rec: &RequestRecord| {
                rec.completed
                    && rec.kind == RequestKind::Http
                    && rec.start_ns >= plan.warmup.as_nanos()
            };
            match apply(e, t0, &mut open, &mut done, &mut rep, &mut next_id) {
                Some(Applied::Exchange(rec)) => measured_completions += u64::from(measured(&rec)),
                Some(Applied::Client(w, user, rec)) => {
                    measured_completions += u64::from(measured(&rec));
                    workloads[w].on_response_complete(now, user, &mut rngs[w], &mut out);
                    launch(w, &mut out, &mut open, &mut rep, &mut next_id);
                }
                None => {}
            }
        }
    }
    rep.end_ns = ns_since(t0, Instant::now());
    if let Some(f) = &plan.at_end {
        f.store(true, Ordering::SeqCst);
    }
    // Let the connections that already ended report their server side.
    let deadline = tokio::time::Instant::now() + plan.grace;
    while open.values().any(|o| o.client_done && !o.server_done) {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Some(e)) if after_end(&e, t0, plan.end) => {}
            Ok(Some(e)) => {
                let _ = apply(e, t0, &mut open, &mut done, &mut rep, &mut next_id);
            }
            _ => break,
        }
    }
    // Connections started too late for the loop to see it: their 4-tuple still joins them to
    // the router's draw (nothing else of a late event changes the records).
    while let Ok(e) = events.try_recv() {
        if let Event::Started {
            conn_id,
            local,
            server,
            ..
        } = e
        {
            if open.contains_key(&conn_id) {
                rep.tuples.insert(conn_id, (local, server));
            }
        }
    }
    for (_, o) in open.drain() {
        if !o.record_open {
            continue; // ended in a gap: the next exchange never started
        }
        let mut r = o.record;
        if !o.client_done {
            r.end_ns = rep.end_ns.max(r.start_ns);
            r.completed = false;
        }
        done.push(r);
    }
    done.sort_by_key(|r| r.id);
    rep.records = done;
    rep.congestion_control = FIRST_CC.get().cloned();
    rep
}

/// Whether `e` starts an exchange at or after the end of the run: the simulator stops at the
/// end, so such an exchange has no record (during the grace after the end, connections still
/// run and would otherwise start new exchanges).
fn after_end(e: &Event, t0: Instant, end: SimTime) -> bool {
    matches!(e, Event::ExchangeStarted { at, .. } if ns_since(t0, *at) >= end.as_nanos())
}

/// What an event did to the records.
enum Applied {
    /// A persistent connection's exchange (not its last) completed: its record.
    Exchange(RequestRecord),
    /// The client side ended (the generator's `on_response_complete`): workload, user and
    /// the record of its last exchange.
    Client(usize, u32, RequestRecord),
}

/// Apply one event to the open records; a record whose client and server sides have both
/// ended moves to `done` (as does each completed exchange before a connection's last).
/// `next_id` numbers the records of later exchanges.
fn apply(
    e: Event,
    t0: Instant,
    open: &mut HashMap<u64, Open>,
    done: &mut Vec<RequestRecord>,
    rep: &mut ClientReport,
    next_id: &mut u64,
) -> Option<Applied> {
    let mut notify = None;
    let id = match e {
        Event::ExchangeDone { conn_id, end } => {
            let o = open.get_mut(&conn_id)?;
            let r = &mut o.record;
            r.end_ns = ns_since(t0, end).max(r.start_ns);
            r.completed = true;
            o.record_open = false;
            done.push(r.clone());
            return Some(Applied::Exchange(r.clone()));
        }
        Event::ExchangeStarted { conn_id, at } => {
            let o = open.get_mut(&conn_id)?;
            let k = o.record.exchange as usize + 1;
            let x = *o.more.get(k - 1)?;
            let r = &mut o.record;
            r.id = *next_id;
            *next_id += 1;
            r.exchange = k as u32;
            r.start_ns = ns_since(t0, at);
            r.end_ns = r.start_ns;
            r.request_bytes = x.request_bytes.max(1);
            r.response_bytes = x.response_bytes;
            r.server_delay_ns = x.server_delay.as_nanos();
            r.completed = false;
            o.record_open = true;
            return None;
        }
        Event::Started {
            conn_id,
            at,
            local,
            server,
        } => {
            if let Some(o) = open.get_mut(&conn_id) {
                o.record.start_ns = ns_since(t0, at);
                rep.tuples.insert(conn_id, (local, server));
            }
            return None;
        }
        Event::ClientDone {
            conn_id,
            end,
            received: _,
            completed,
            syn_retx,
            data_retx,
            timeouts,
        } => {
            let o = open.get_mut(&conn_id)?;
            let r = &mut o.record;
            if o.record_open {
                r.end_ns = ns_since(t0, end).max(r.start_ns);
                r.completed = completed;
            }
            r.syn_retx += syn_retx;
            r.data_retx += data_retx;
            r.timeouts += timeouts;
            o.client_done = true;
            notify = Some(Applied::Client(o.w, o.user, r.clone()));
            conn_id
        }
        Event::ServerDone {
            conn_id,
            gave_up,
            synack_retx,
            data_retx,
            timeouts,
        } => {
            let o = open.get_mut(&conn_id)?;
            if gave_up && !o.client_done {
                // The simulator ends a connection when either side gives up; a Linux server
                // that gives up sends no RST, so tell the client's side here.
                if let Some(c) = o.cancel.take() {
                    let _ = c.send(());
                    rep.server_gave_up += 1;
                }
            }
            let r = &mut o.record;
            r.syn_retx += synack_retx;
            r.server_syn_retx = synack_retx;
            r.data_retx += data_retx;
            r.server_data_retx = data_retx;
            r.timeouts += timeouts;
            o.server_done = true;
            conn_id
        }
    };
    if open
        .get(&id)
        .is_some_and(|o| o.client_done && o.server_done)
    {
        if let Some(o) = open.remove(&id) {
            if o.record_open {
                done.push(o.record);
            }
        }
    }
    notify
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exchange_starting_at_or_after_the_end_gets_no_record() {
        let t0 = Instant::now();
        let end = SimTime::from_secs(10);
        let started = |s| Event::ExchangeStarted {
            conn_id: 1,
            at: t0 + Duration::from_millis(s),
        };
        assert!(!after_end(&started(9_999), t0, end));
        assert!(after_end(&started(10_000), t0, end));
        assert!(after_end(&started(10_300), t0, end));
        let done = Event::ExchangeDone {
            conn_id: 1,
            end: t0 + Duration::from_secs(11),
        };
        assert!(!after_end(&done, t0, end));
    }
}
