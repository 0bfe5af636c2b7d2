//! What a run returns.

use metrics::{LinkRow, QueueRow, RequestRecord, Summary};

/// Engine counters (not part of the deterministic results: only `events` is deterministic).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Events processed.
    pub events: u64,
    /// Packets created (sent by any endpoint).
    pub packets_created: u64,
    /// Packets delivered to an endpoint.
    pub packets_delivered: u64,
    /// Packets dropped by any queue.
    pub packets_dropped: u64,
    /// Packets still in queues, on wires or in events at the end.
    pub packets_in_flight: u64,
    /// Connections opened.
    pub connections: u64,
    /// Most connections open at once.
    pub peak_open_connections: u64,
    /// Simulated time at the end, ns.
    pub end_ns: u64,
}

/// Counters of one datagram (CBR, ON/OFF) workload; zero for connection workloads. Bytes are
/// wire bytes (the datagram's whole size); "measured" counts only deliveries at or after the
/// warm-up, so goodput = `delivered_bytes_measured · 8 / duration` bit/s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagramStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub delivered_bytes_measured: u64,
}

/// Everything one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: Summary,
    pub requests: Vec<RequestRecord>,
    pub queue: Vec<QueueRow>,
    pub links: Vec<LinkRow>,
    pub engine: EngineStats,
    /// The forward bottleneck's queue discipline as it was at the end of the run (its final
    /// state, e.g. Adaptive RED's max_p and average, for tests and reports).
    pub bottleneck_queue: aqm::Discipline,
    /// Per workload (index as in `Experiment::workloads`): datagram counters.
    pub datagrams: Vec<DatagramStats>,
    /// Per link, in the topology's link order: (name, queue counters at the end of the run,
    /// wire bytes sent over the whole run).
    pub link_stats: Vec<(String, aqm::QueueStats, u64)>,
}

/// A run that could not be built (the scenario was valid TOML but describes something the
/// engine cannot run). `key` is the scenario key path at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub key: String,
    pub reason: String,
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)
    }
}
impl std::error::Error for SimError {}

/// What [`run_with`](crate::run_with) returns: the observer with whatever it kept, and the
/// run-wide totals the summary takes besides the records.
#[derive(Clone, Debug)]
pub struct RunEnd<O> {
    /// The observer handed to the run, after every record.
    pub obs: O,
    /// Forward-bottleneck bytes, rate and drops over the measured period, and its length.
    pub totals: metrics::SummaryTotals,
    /// End of the warm-up, ns.
    pub warmup_ns: u64,
    /// Name of the forward bottleneck link (its queue rows feed the summary's queue columns).
    pub fwd_link: String,
    /// Engine counters (as in [`RunOutput`]).
    pub engine: EngineStats,
    /// The forward bottleneck's queue discipline at the end (as in [`RunOutput`]).
    pub bottleneck_queue: aqm::Discipline,
    /// Per workload: datagram counters (as in [`RunOutput`]).
    pub datagrams: Vec<DatagramStats>,
    /// Per link: name, queue counters, wire bytes (as in [`RunOutput`]).
    pub link_stats: Vec<(String, aqm::QueueStats, u64)>,
}
