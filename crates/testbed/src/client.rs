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
use traffic::workload::{FlowKind, Request, Workload};
use units::{Rng, SimTime};

/// The congestion control the first connection of the run used (a check that the route's
/// `congctl` took effect; run.json `engine.congestion_control`).
static FIRST_CC: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// One connection's client side: connect, send the request, read the response to EOF, then
/// report `ClientDone`. `cancel` ends the read early (the server's side gave up; the record is
/// then incomplete, ending when the client loop learned it).
async fn client_conn(
    sock: io::Result<TcpSocket>,
    src: Ipv4Addr,
    dst: SocketAddrV4,
    t: Ticket,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    mut cancel: oneshot::Receiver<()>,
) {
    let conn_id = t.conn_id;
    let mut received = 0u64;
    let mut syn_retx = 0;
    let mut info = TcpInfo::default();
    let mut end = Instant::now();
    let mut completed = false;
    let mut local = None;
    let r: io::Result<()> = async {
        let sock = sock?;
        sock.bind(SocketAddr::from((src, 0)))?;
        let SocketAddr::V4(me) = sock.local_addr()? else {
            return Err(io::Error::other("not IPv4"));
        };
        local = Some(me);
        tickets.lock().expect("tickets").insert(me, t);
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
        let mut left = t.request_bytes;
        while left > 0 {
            let n = CHUNK.min(usize::try_from(left).unwrap_or(CHUNK));
            s.write_all(&ZEROS[..n]).await?;
            left -= n as u64;
        }
        let mut buf = vec![0u8; CHUNK];
        end = Instant::now();
        let mut cancelled = false;
        loop {
            let n = tokio::select! {
                n = s.read(&mut buf) => n?,
                // A dropped sender (the loop is over) is not a cancellation.
                Ok(()) = &mut cancel => {
                    cancelled = true;
                    end = Instant::now();
                    break;
                }
            };
            if n == 0 {
                break;
            }
            received += n as u64;
            end = Instant::now();
        }
        completed = !cancelled && received == t.response_bytes;
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
    record: RequestRecord,
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
    let launch = |w: usize,
                  reqs: &mut Vec<Request>,
                  open: &mut HashMap<u64, Open>,
                  rep: &mut ClientReport| {
        for r in reqs.drain(..) {
            let conn_id = rep.connections;
            rep.connections += 1;
            let record = RequestRecord {
                id: conn_id,
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
                },
            );
            rep.peak_open = rep.peak_open.max(open.len() as u64);
            let ticket = Ticket {
                conn_id,
                request_bytes: r.request_bytes,
                response_bytes: r.response_bytes,
                server_delay: Duration::from_nanos(r.server_delay.as_nanos()),
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
        launch(w, &mut out, &mut open, &mut rep);
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
                launch(w, &mut out, &mut open, &mut rep);
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
            let now = sim_now();
            if let Some((w, user, rec)) = apply(e, t0, &mut open, &mut done, &mut rep) {
                if rec.completed
                    && rec.kind == RequestKind::Http
                    && rec.start_ns >= plan.warmup.as_nanos()
                {
                    measured_completions += 1;
                }
                workloads[w].on_response_complete(now, user, &mut rngs[w], &mut out);
                launch(w, &mut out, &mut open, &mut rep);
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
            Ok(Some(e)) => {
                let _ = apply(e, t0, &mut open, &mut done, &mut rep);
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

/// Apply one event to the open records; a record whose client and server sides have both
/// ended moves to `done`. Returns (workload, user, record) when the client side ended (the
/// generator's `on_response_complete`).
fn apply(
    e: Event,
    t0: Instant,
    open: &mut HashMap<u64, Open>,
    done: &mut Vec<RequestRecord>,
    rep: &mut ClientReport,
) -> Option<(usize, u32, RequestRecord)> {
    let mut notify = None;
    let id = match e {
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
            r.end_ns = ns_since(t0, end).max(r.start_ns);
            r.completed = completed;
            r.syn_retx += syn_retx;
            r.data_retx += data_retx;
            r.timeouts += timeouts;
            o.client_done = true;
            notify = Some((o.w, o.user, r.clone()));
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
            done.push(o.record);
        }
    }
    notify
}
