//! Row types of the per-run tables (one struct per table, one field per column).

/// What a connection carried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequestKind {
    #[default]
    Http,
    Bulk,
}

impl RequestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Http => "http",
            RequestKind::Bulk => "bulk",
        }
    }
}

/// One request/response exchange, written when it ends or at the end of the run. Response time
/// = `end_ns − start_ns`: for the first (HTTP/1.0: only) exchange of a connection from the
/// client's first SYN to the last byte of the response (seed 000 §3.4.1, "connect() to EOF");
/// for a later exchange of a persistent (HTTP/1.1) connection from the instant the client wrote
/// that request to the last byte of its response (as ns-2 PackMime records it, MODEL.md §1).
/// `Default` is an HTTP record with every field zero: a new record sets what it knows and
/// takes the rest (the retransmission and loss counters) from it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestRecord {
    /// Request sequence number in the run (0, 1, 2, … in order of issue: a connection's first
    /// request when it opens, a later one when the client writes it). Equals `conn_id` when
    /// every connection carries one request.
    pub id: u64,
    /// Connection sequence number in the run (0, 1, 2, … in order of opening); the exchanges
    /// of one persistent connection share it.
    pub conn_id: u64,
    /// Index of this exchange within its connection (0 = the first).
    pub exchange: u32,
    /// Index of the workload that opened it.
    pub workload: u32,
    pub kind: RequestKind,
    /// Page (document) of a browsing-user workload, unique within its workload (Mah: user in
    /// the high 32 bits, the user's page number from 1 in the low 32); 0 = not part of a page.
    /// A page's response time is max(end_ns) − min(start_ns) over its requests.
    pub page: u64,
    /// Client and server host indices.
    pub client: u32,
    pub server: u32,
    /// Time of the first SYN, ns.
    pub start_ns: u64,
    /// Time the last response byte reached the client, ns; for incomplete records the time the
    /// record was closed (abort or end of run).
    pub end_ns: u64,
    pub request_bytes: u64,
    pub response_bytes: u64,
    /// Server think time between the whole request having arrived and the response being
    /// written, ns (PackMime §3.4; 0 for other workloads). Included in the response time.
    pub server_delay_ns: u64,
    /// Base (propagation-only) round-trip time of the connection, ns.
    pub base_rtt_ns: u64,
    /// True if the whole response arrived.
    pub completed: bool,
    /// Retransmitted SYNs and SYN-ACKs (both ends).
    pub syn_retx: u32,
    /// Retransmitted FINs (both ends).
    pub fin_retx: u32,
    /// Retransmitted data segments (both ends).
    pub data_retx: u32,
    /// Retransmission timeouts (both ends).
    pub timeouts: u32,
    /// Fast retransmits (both ends).
    pub fast_retx: u32,
    /// Window reductions in response to ECN-Echo (both ends; RFC 3168, at most one per window).
    pub ecn_reductions: u32,
    /// Loss events (both ends): fast retransmits and retransmission timeouts of data
    /// (`tcp::TcpStats::loss_events`).
    pub loss_events: u32,
    /// Sum over those loss events of the sender's cwnd just before the reduction, bytes; the mean
    /// cwnd at a loss in segments is `loss_cwnd_bytes / loss_events / mss`.
    pub loss_cwnd_bytes: u64,
    /// Retransmitted SYN-ACKs of the server end only (seed 000 §6.1 counts what the servers
    /// sent).
    pub server_syn_retx: u32,
    /// Retransmitted FINs of the server end only.
    pub server_fin_retx: u32,
    /// Retransmitted data segments of the server end only (response data).
    pub server_data_retx: u32,
}

/// One queue-monitor interval (seed 000 §4.1.3: every 100 ms).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueRow {
    /// Monitored link name, e.g. `bottleneck_fwd`.
    pub link: String,
    /// End of the interval, ns.
    pub t_ns: u64,
    /// Packets handed to the link in the interval.
    pub forwarded: u64,
    pub early_drops: u64,
    /// Drops by the AQM's forced rule (RED family: average queue at or above `max_th`).
    pub forced_drops: u64,
    /// Drops because the buffer was full.
    pub overflow_drops: u64,
    /// Drops the AQM made when the packet reached the head of the queue (CoDel, FQ-CoDel).
    pub dequeue_drops: u64,
    pub marks: u64,
    /// Minimum and maximum queue length (packets) seen in the interval.
    pub min_qlen: u32,
    pub max_qlen: u32,
    /// Mean and variance of the queue length sampled every 3 ms (packets, packets²).
    pub mean_qlen: f64,
    pub var_qlen: f64,
}

/// Bytes a link put on the wire in one interval (seed 000 §4.1.3: typically 1 s).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    pub link: String,
    /// End of the interval, ns.
    pub t_ns: u64,
    /// Wire bytes (headers included) whose transmission started in the interval.
    pub bytes: u64,
    pub packets: u64,
}
