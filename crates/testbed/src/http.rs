//! HTTP/1.0 (and PackMime's HTTP/1.1) over real sockets: the client (one tokio runtime on a
//! thread in the client namespace) opens the workload generators' connections in real time; the
//! server (one runtime on a thread in each namespace with servers, listening on the workloads'
//! ports of every host address there) answers
//! each with the response the generator chose.
//!
//! Same connections as the simulator: the `traffic` crate's generators ([`traffic::workload::Workload`])
//! are driven with `SimTime` = real time since the run's epoch, each with its own stream
//! `workload:{i}` of the run seed (as `sim::world`), so the same scenario and seed give the same
//! arrival times, request and response sizes and server delays. A request is opened when its
//! time has come (never early; how late is measured: [`ClientReport::lateness_max_ns`](crate::client::ClientReport::lateness_max_ns)).
//!
//! Exchange: the client binds a socket to its host's address (port chosen by the kernel),
//! leaves a [`Ticket`] (response size, server delay) for that address and port, connects to
//! server host j's address port 80 + the workload's index (`router::ports`: the router tells
//! workloads apart by it; a reverse workload's client hosts are the server side's, its
//! server hosts the client side's, and a server listens in both namespaces then), writes `request_bytes` bytes, and reads to EOF. The server
//! takes the ticket of the peer it accepted, reads `request_bytes` bytes, waits the server
//! delay, writes `response_bytes` bytes and closes (FIN first, as an HTTP/1.0 server). The bytes
//! on the wire are exactly the simulator's payloads (no header text: its size would change the
//! request); the ticket is the in-process stand-in for the URL. Nagle is off on both ends
//! (TCP_NODELAY, seed 000 §3.4.3), as the simulator's endpoints; the server corks the
//! response (TCP_CORK) so that the FIN rides on its last segment, as in the simulator.
//!
//! HTTP/1.1 persistent connections (PackMime `http = "1.1"`: [`Ticket::more`], the
//! generator's `Request::more`), played as the simulator plays them (`crates/sim/src/conn.rs`):
//! after the whole response of exchange k the client waits exchange k + 1's gap, then writes its
//! request (at least 1 byte; not pipelined); the server recognises each request by its size,
//! waits that exchange's server delay and writes its response (uncorked after it, so its tail
//! leaves at once); only after the last response does the server close, and the client reads
//! that one to EOF. One record per exchange, as the simulator's: exchange 0 from the first SYN,
//! a later one from the instant its request is written, to its last response byte; `id`
//! counts exchanges in the order they start, `conn_id` connections. Difference: the
//! connection's retransmission counters (TCP_INFO, read at the end) all go to the record of
//! its last exchange (the simulator splits them per exchange); a connection that ends in a gap
//! has no record for the exchange that never started, as in the simulator.
//!
//! Giving up: the server keeps its socket until the client's FIN arrives, or until Linux gives
//! up on the unacknowledged response (`tcp_retries2`, the scenario's `max_retries`; the read
//! fails), or — once the response is acknowledged — for at most `server::FIN_WAIT2_LIMIT`. A
//! server side that ends without the client's close reports `ServerDone { gave_up: true }`, and
//! the client loop then ends the client's side (record incomplete, ending then) and tells the
//! generator, as the simulator ends both sides when one endpoint gives up. Linux sends no RST
//! when it gives up, so without this a client with nothing left to send would read until the
//! end of the run and its browser would never fetch another page (issue 12: 1094 of 3012 Mah
//! browsers were stuck so at the end of a 13-minute run; `tests/client_loop.rs`).
//!
//! Records ([`metrics::RequestRecord`], the simulator's columns): `start_ns` = just before
//! `connect()` (the first SYN), `end_ns` = the read that returned the last response byte,
//! both ns since the epoch; `completed` = the whole response arrived. From TCP_INFO (Linux ≥ 6.7
//! for the RTO count): `syn_retx` = the client's retransmissions when `connect` returned plus
//! the server's when `accept` returned (SYN-ACKs, also `server_syn_retx`); `data_retx` = every
//! later retransmission of both ends (`tcpi_total_retrans`; also `server_data_retx`);
//! `timeouts` = RTOs of both ends (`tcpi_total_rto`). Not measured ([`NOT_MEASURED`]: written
//! as nulls in requests.parquet, listed in run.json `engine.not_measured`, and summary.json's
//! `fin_retx` is null): `fin_retx`, `fast_retx`, `ecn_reductions`, `loss_events`,
//! `loss_cwnd_bytes`, `server_fin_retx`. Linux keeps no per-socket count of them: TCP_INFO
//! has no fast-retransmit, congestion-window-reduction or loss-event counter (the kernel's
//! `TCPFastRetrans`, `TCPLossProbes`… are namespace-wide totals in /proc/net/netstat), and a
//! retransmitted FIN is one of `tcpi_total_retrans`'s segments, not counted apart. The
//! records' fields stay 0; the run writer replaces them by nulls.
//! `base_rtt_ns` = the configured propagation RTT plus the DelayBox RTT the router really
//! applied to the connection (2 × its one-way delay), filled after the run by joining the
//! router's draw log (`router::delaybox::Draw`, in the run directory as delaybox.csv) to the
//! record on the 4-tuple (`rtt_join.rs`; the client reports its socket's local address in
//! [`Event::Started`]). The router draws from stream `delaybox` in the order SYNs reach it, the
//! simulator in the order connections open: when SYNs arrive in another order (run.json
//! `engine.delaybox_join.syn_out_of_order`) a connection's draw differs from its simulated
//! twin's, but the record holds the one it got. A record whose SYN never reached the router
//! gets the propagation RTT alone (counted in `delaybox_join.unjoined`); on the veth path
//! (no router, no DelayBox) every record gets the configured propagation RTT.
//!
//! This file: what the client and server share (tickets, events, socket options); the server
//! is `server.rs`, the client loop `client.rs`.
//!
//! Validation: `python/tests/test_testbed.py` (as root: records complete, sizes and start times
//! as the simulator's, response times ≥ 2 × the base RTT).

use std::collections::HashMap;
use std::net::SocketAddrV4;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use traffic::workload::Exchange;

/// The request columns the testbed cannot measure (module doc), in the table's column order:
/// `requests.parquet` holds nulls there (`store::RunWriter::declare_not_measured`).
pub const NOT_MEASURED: [&str; 6] = [
    "fin_retx",
    "fast_retx",
    "ecn_reductions",
    "loss_events",
    "loss_cwnd_bytes",
    "server_fin_retx",
];

/// The first workload's servers' TCP port (workload w's: 80 + w, `router::ports`).
pub const SERVER_PORT: u16 = router::ports::SERVER_PORT;

/// Bytes written per write call (response bodies are zeros).
pub(crate) const CHUNK: usize = 64 * 1024;
pub(crate) static ZEROS: [u8; CHUNK] = [0; CHUNK];

/// What the server must do for one connection, left by the client under its own address and
/// port before it connects.
#[derive(Clone, Debug)]
pub struct Ticket {
    /// Connection id (the record's `conn_id`).
    pub conn_id: u64,
    /// Request payload the server reads before answering, bytes.
    pub request_bytes: u64,
    /// Response payload, bytes; `u64::MAX` = endless (bulk).
    pub response_bytes: u64,
    /// Server think time after the whole request arrived.
    pub server_delay: Duration,
    /// Further exchanges of an HTTP/1.1 persistent connection, in order (`Request::more`;
    /// empty = HTTP/1.0: one exchange, then close).
    pub more: Vec<Exchange>,
}

/// Tickets by client address and port, shared by the client and server threads.
pub type Tickets = Arc<Mutex<HashMap<SocketAddrV4, Ticket>>>;

/// What the connection tasks tell the client loop.
#[derive(Debug)]
pub enum Event {
    /// The client is about to send the SYN.
    Started {
        conn_id: u64,
        at: Instant,
        /// The client socket's address and port (bound before connecting).
        local: SocketAddrV4,
        /// The server's address and port.
        server: SocketAddrV4,
    },
    /// A persistent connection's client has the whole response of an exchange that is not
    /// its last (its record ends here, completed).
    ExchangeDone {
        conn_id: u64,
        /// Time of the exchange's last response byte.
        end: Instant,
    },
    /// A persistent connection's client is about to write the request of its next exchange
    /// (after the gap): a new record starts here.
    ExchangeStarted { conn_id: u64, at: Instant },
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
        /// The server's side ended without the client's close: the request never arrived
        /// whole, or a read or write failed (Linux gave up after `tcp_retries2` retransmission
        /// timeouts, or the connection was reset). The client loop then ends the client's side
        /// too, as the simulator ends a connection when either endpoint gives up
        /// (`crates/sim/src/conn.rs`, `aborted`): a Linux endpoint that gives up sends no RST,
        /// so a client with nothing left to send would otherwise wait for the rest of the run.
        gave_up: bool,
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
    /// `tcpi_state` (linux/tcp_states.h: 1 ESTABLISHED, 4 FIN_WAIT1, 5 FIN_WAIT2, …).
    pub state: u8,
}

/// `tcpi_state` of a socket whose FIN was sent and acknowledged (linux/tcp_states.h).
pub const TCP_FIN_WAIT2: u8 = 5;

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
        state: if len > 0 { buf[0] } else { 0 },
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

/// TCP_CORK on socket `fd` (best effort: a failure leaves the socket as it was).
pub(crate) fn set_cork(fd: RawFd, on: bool) {
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

pub(crate) fn ns_since(t0: Instant, t: Instant) -> u64 {
    t.saturating_duration_since(t0).as_nanos() as u64
}
