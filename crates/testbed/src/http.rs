//! HTTP/1.0 over real sockets: the client (one tokio runtime on a thread in the client
//! namespace) opens the workload generators' connections in real time; the server (one runtime
//! on a thread in the server namespace, listening on port 80 of every server address) answers
//! each with the response the generator chose.
//!
//! Same connections as the simulator: the `traffic` crate's generators ([`traffic::workload::Workload`])
//! are driven with `SimTime` = real time since the run's epoch, each with its own stream
//! `workload:{i}` of the run seed (as `sim::world`), so the same scenario and seed give the same
//! arrival times, request and response sizes and server delays. A request is opened when its
//! time has come (never early; how late is measured: [`ClientReport::lateness_max_ns`]).
//!
//! Exchange: the client binds a socket to its host's address (port chosen by the kernel),
//! leaves a [`Ticket`] (response size, server delay) for that address and port, connects to
//! server host j's address port 80, writes `request_bytes` bytes, and reads to EOF. The server
//! takes the ticket of the peer it accepted, reads `request_bytes` bytes, waits the server
//! delay, writes `response_bytes` bytes and closes (FIN first, as an HTTP/1.0 server). The bytes
//! on the wire are exactly the simulator's payloads (no header text: its size would change the
//! request); the ticket is the in-process stand-in for the URL. Nagle is off on both ends
//! (TCP_NODELAY, seed 000 §3.4.3), as the simulator's endpoints; the server corks the
//! response (TCP_CORK) so that the FIN rides on its last segment, as in the simulator.
//!
//! Records ([`metrics::RequestRecord`], the simulator's columns): `start_ns` = just before
//! `connect()` (the first SYN), `end_ns` = the read that returned the last response byte,
//! both ns since the epoch; `completed` = the whole response arrived. From TCP_INFO (Linux ≥ 6.7
//! for the RTO count): `syn_retx` = the client's retransmissions when `connect` returned plus
//! the server's when `accept` returned (SYN-ACKs, also `server_syn_retx`); `data_retx` = every
//! later retransmission of both ends (`tcpi_total_retrans`; also `server_data_retx`);
//! `timeouts` = RTOs of both ends (`tcpi_total_rto`). Not measured (written 0): `fin_retx`,
//! `fast_retx`, `ecn_reductions`, `loss_events`, `loss_cwnd_bytes`, `server_fin_retx`.
//! `base_rtt_ns` = the configured propagation RTT plus the DelayBox RTT drawn for the connection
//! in opening order from stream `delaybox` (the simulator's and the router's draw when SYNs
//! reach the router in the order connections were opened).
//!
//! Validation: `tests/testbed_e2e.rs` (as root: records complete, sizes as the generator's,
//! response times ≥ the base RTT).

use crate::netns;
use metrics::{RequestKind, RequestRecord};
use sim::DelayBoxConfig;
use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;
use traffic::workload::{FlowKind, Request, Workload};
use units::{Rng, SimDuration, SimTime};

/// The servers' TCP port.
pub const SERVER_PORT: u16 = 80;

/// Bytes written per write call (response bodies are zeros).
const CHUNK: usize = 64 * 1024;
static ZEROS: [u8; CHUNK] = [0; CHUNK];

/// What the server must do for one connection, left by the client under its own address and
/// port before it connects.
#[derive(Clone, Copy, Debug)]
pub struct Ticket {
    /// Connection id (the record's `conn_id`).
    pub conn_id: u64,
    /// Request payload the server reads before answering, bytes.
    pub request_bytes: u64,
    /// Response payload, bytes; `u64::MAX` = endless (bulk).
    pub response_bytes: u64,
    /// Server think time after the whole request arrived.
    pub server_delay: Duration,
}

/// Tickets by client address and port, shared by the client and server threads.
pub type Tickets = Arc<Mutex<HashMap<SocketAddrV4, Ticket>>>;

/// What the connection tasks tell the client loop.
#[derive(Debug)]
pub enum Event {
    /// The client is about to send the SYN.
    Started { conn_id: u64, at: Instant },
    /// The client's side ended (EOF, error or refused connection).
    ClientDone {
        conn_id: u64,
        /// Time of the last response byte (or of the failure).
        end: Instant,
        /// Response bytes received.
        received: u64,
        /// Whether the response arrived whole and the server closed.
        completed: bool,
        /// Client retransmissions until `connect` returned (SYNs).
        syn_retx: u32,
        /// Later client retransmissions.
        data_retx: u32,
        /// Client RTO expiries.
        timeouts: u32,
    },
    /// The server's side ended (after the client's FIN, or on an error).
    ServerDone {
        conn_id: u64,
        /// Server retransmissions until `accept` returned (SYN-ACKs).
        synack_retx: u32,
        /// Later server retransmissions (response data, FIN).
        data_retx: u32,
        /// Server RTO expiries.
        timeouts: u32,
    },
}

/// The TCP_INFO counters the records use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// `tcpi_total_retrans`: segments retransmitted (SYNs included).
    pub total_retrans: u32,
    /// `tcpi_total_rto`: RTO expiries (Linux ≥ 6.7; 0 before).
    pub total_rto: u32,
    /// `tcpi_min_rtt`, µs.
    pub min_rtt_us: u32,
}

/// TCP_INFO of socket `fd` (offsets of `struct tcp_info` in linux/tcp.h), `None` if the call
/// fails.
pub fn tcp_info(fd: RawFd) -> Option<TcpInfo> {
    let mut buf = [0u8; 256];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf` and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return None;
    }
    let len = len as usize;
    let u32_at = |o: usize| {
        if o + 4 <= len {
            u32::from_ne_bytes(buf[o..o + 4].try_into().expect("4 bytes"))
        } else {
            0
        }
    };
    let u16_at = |o: usize| {
        if o + 2 <= len {
            u32::from(u16::from_ne_bytes(
                buf[o..o + 2].try_into().expect("2 bytes"),
            ))
        } else {
            0
        }
    };
    Some(TcpInfo {
        total_retrans: u32_at(100),
        total_rto: u16_at(240),
        min_rtt_us: u32_at(148),
    })
}

/// The congestion control of socket `fd` (TCP_CONGESTION), `None` if the call fails.
pub fn congestion_control(fd: RawFd) -> Option<String> {
    let mut buf = [0u8; 16];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `buf` and updates `len`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return None;
    }
    let b = &buf[..(len as usize).min(buf.len())];
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    Some(String::from_utf8_lossy(&b[..end]).into_owned())
}

/// The congestion control the first connection of the run used (a check that the route's
/// `congctl` took effect; run.json `engine.congestion_control`).
static FIRST_CC: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// TCP_CORK on socket `fd` (best effort: a failure leaves the socket as it was).
fn set_cork(fd: RawFd, on: bool) {
    let v: libc::c_int = on.into();
    // SAFETY: setsockopt reads one c_int from a valid pointer.
    unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CORK,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

fn ns_since(t0: Instant, t: Instant) -> u64 {
    t.saturating_duration_since(t0).as_nanos() as u64
}

/// Start the server thread in namespace `ns`; returns once it listens (or why it cannot).
/// It stops accepting and drops every connection once `stop` is set.
pub fn spawn_server(
    ns: String,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
) -> io::Result<std::thread::JoinHandle<()>> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<io::Result<()>>();
    let h = std::thread::Builder::new()
        .name("testbed-server".into())
        .spawn(move || {
            let setup = (|| {
                netns::enter(&ns)?;
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                let listener = rt.block_on(async {
                    let s = TcpSocket::new_v4()?;
                    s.set_reuseaddr(true)?;
                    s.bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, SERVER_PORT)))?;
                    s.listen(65535)
                })?;
                Ok::<_, io::Error>((rt, listener))
            })();
            let (rt, listener) = match setup {
                Ok(x) => {
                    let _ = ready_tx.send(Ok(()));
                    x
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                loop {
                    tokio::select! {
                        r = listener.accept() => {
                            if let Ok((s, peer)) = r {
                                tokio::spawn(serve_conn(
                                    s, peer, tickets.clone(), events.clone(), stop.clone(),
                                ));
                            }
                        }
                        _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                    }
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                }
            });
        })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(h),
        Ok(Err(e)) => {
            let _ = h.join();
            Err(io::Error::new(e.kind(), format!("server: {e}")))
        }
        Err(_) => Err(io::Error::other("server thread ended before listening")),
    }
}

async fn serve_conn(
    mut s: TcpStream,
    peer: SocketAddr,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
) {
    let _ = s.set_nodelay(true);
    let fd = s.as_raw_fd();
    let at_accept = tcp_info(fd).unwrap_or_default();
    let SocketAddr::V4(peer) = peer else { return };
    let Some(t) = tickets.lock().expect("tickets").remove(&peer) else {
        return; // not a testbed connection
    };
    let mut buf = vec![0u8; 16 * 1024];
    let mut left = t.request_bytes;
    let mut ok = true;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match s.read(&mut buf[..want]).await {
            Ok(0) | Err(_) => {
                ok = false;
                break;
            }
            Ok(n) => left -= n as u64,
        }
    }
    if ok {
        if !t.server_delay.is_zero() {
            tokio::time::sleep(t.server_delay).await;
        }
        // Corked while writing, as a web server sends a file (nginx `tcp_nopush`): full
        // segments leave at once, the last partial one waits for the FIN and carries it, as
        // the simulator's server does (otherwise TCP_NODELAY sends the tail at once and the
        // FIN follows alone: one more small packet per response at the bottleneck).
        set_cork(fd, true);
        let mut left = t.response_bytes;
        while left > 0 && !stop.load(Ordering::Relaxed) {
            let n = CHUNK.min(usize::try_from(left).unwrap_or(CHUNK));
            if s.write_all(&ZEROS[..n]).await.is_err() {
                break;
            }
            if t.response_bytes != u64::MAX {
                left -= n as u64;
            }
        }
        let _ = s.shutdown().await;
        set_cork(fd, false);
        // The client closes after the last byte: by then every byte was acknowledged.
        let _ = tokio::time::timeout(Duration::from_secs(120), async {
            while let Ok(n) = s.read(&mut buf).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
    }
    let end = tcp_info(fd).unwrap_or_default();
    let _ = events.send(Event::ServerDone {
        conn_id: t.conn_id,
        synack_retx: at_accept.total_retrans,
        data_retx: end.total_retrans.saturating_sub(at_accept.total_retrans),
        timeouts: end.total_rto,
    });
}

async fn client_conn(
    src: Ipv4Addr,
    dst: SocketAddrV4,
    t: Ticket,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
) {
    let conn_id = t.conn_id;
    let mut received = 0u64;
    let mut syn_retx = 0;
    let mut info = TcpInfo::default();
    let mut end = Instant::now();
    let mut completed = false;
    let mut local = None;
    let r: io::Result<()> = async {
        let sock = TcpSocket::new_v4()?;
        sock.bind(SocketAddr::from((src, 0)))?;
        let SocketAddr::V4(me) = sock.local_addr()? else {
            return Err(io::Error::other("not IPv4"));
        };
        local = Some(me);
        tickets.lock().expect("tickets").insert(me, t);
        let _ = events.send(Event::Started {
            conn_id,
            at: Instant::now(),
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
        loop {
            let n = s.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            received += n as u64;
            end = Instant::now();
        }
        completed = received == t.response_bytes;
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
    /// The dumbbell's DelayBox (for `base_rtt_ns`).
    pub delaybox: Option<DelayBoxConfig>,
    /// Time after the end given to connections to report their server side, before records
    /// are closed.
    pub grace: Duration,
    /// Set when the run's time is over (before the grace): stops the router, so that its
    /// measured period ends with the client's.
    pub at_end: Option<Arc<AtomicBool>>,
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
}

struct Open {
    record: RequestRecord,
    w: usize,
    user: u32,
    client_done: bool,
    server_done: bool,
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
    let mut box_rng = units::stream(plan.seed, "delaybox");
    let mut open: HashMap<u64, Open> = HashMap::new();
    let mut done: Vec<RequestRecord> = Vec::new();
    let mut rep = ClientReport::default();
    let mut measured_completions = 0u64;
    let sim_now = || SimTime::from_nanos(ns_since(t0, Instant::now()));

    let mut out: Vec<Request> = Vec::new();
    let launch = |w: usize,
                  reqs: &mut Vec<Request>,
                  open: &mut HashMap<u64, Open>,
                  rep: &mut ClientReport,
                  box_rng: &mut Rng| {
        for r in reqs.drain(..) {
            let conn_id = rep.connections;
            rep.connections += 1;
            let extra_rtt = match &plan.delaybox {
                None => 0,
                Some(DelayBoxConfig::Distribution { rtt_s }) => {
                    SimDuration::from_secs_f64(rtt_s.sample(box_rng)).as_nanos()
                }
                Some(DelayBoxConfig::Matrix { rtt }) => {
                    rtt[r.client as usize][r.server as usize].as_nanos()
                }
            };
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
                base_rtt_ns: plan.prop_rtt_ns + 2 * (extra_rtt / 2),
                completed: false,
                syn_retx: 0,
                fin_retx: 0,
                data_retx: 0,
                timeouts: 0,
                fast_retx: 0,
                ecn_reductions: 0,
                loss_events: 0,
                loss_cwnd_bytes: 0,
                server_syn_retx: 0,
                server_fin_retx: 0,
                server_data_retx: 0,
            };
            open.insert(
                conn_id,
                Open {
                    record,
                    w,
                    user: r.user,
                    client_done: false,
                    server_done: false,
                },
            );
            rep.peak_open = rep.peak_open.max(open.len() as u64);
            let ticket = Ticket {
                conn_id,
                request_bytes: r.request_bytes,
                response_bytes: r.response_bytes,
                server_delay: Duration::from_nanos(r.server_delay.as_nanos()),
            };
            let src = netns::host_addr(netns::Side::Client, r.client);
            let dst =
                SocketAddrV4::new(netns::host_addr(netns::Side::Server, r.server), SERVER_PORT);
            tokio::spawn(client_conn(
                src,
                dst,
                ticket,
                tickets.clone(),
                events_tx.clone(),
            ));
        }
    };

    for (w, wl) in workloads.iter_mut().enumerate() {
        wl.start(SimTime::ZERO, &mut rngs[w], &mut out);
        launch(w, &mut out, &mut open, &mut rep, &mut box_rng);
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
                launch(w, &mut out, &mut open, &mut rep, &mut box_rng);
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
            if let Some((w, user, rec)) = apply(e, t0, &mut open, &mut done) {
                if rec.completed
                    && rec.kind == RequestKind::Http
                    && rec.start_ns >= plan.warmup.as_nanos()
                {
                    measured_completions += 1;
                }
                workloads[w].on_response_complete(now, user, &mut rngs[w], &mut out);
                launch(w, &mut out, &mut open, &mut rep, &mut box_rng);
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
                let _ = apply(e, t0, &mut open, &mut done);
            }
            _ => break,
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
) -> Option<(usize, u32, RequestRecord)> {
    let mut notify = None;
    let id = match e {
        Event::Started { conn_id, at } => {
            if let Some(o) = open.get_mut(&conn_id) {
                o.record.start_ns = ns_since(t0, at);
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
            if !completed {
                // No server report is coming for a connection that never reached it.
                o.server_done |= r.end_ns == r.start_ns;
            }
            notify = Some((o.w, o.user, r.clone()));
            conn_id
        }
        Event::ServerDone {
            conn_id,
            synack_retx,
            data_retx,
            timeouts,
        } => {
            let o = open.get_mut(&conn_id)?;
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
