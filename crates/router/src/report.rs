//! What a router run reports: per-direction packet counters (with their conservation
//! identity), pacing accuracy, the monitors' rows and the summary totals of the forward
//! bottleneck, in the `metrics` types `aqmlab run` writes (queue.parquet, links.parquet,
//! summary.json through `store::RunWriter`).

use metrics::{LinkRow, QueueRow, SummaryTotals};

/// Packet and byte counters of one direction since the router started. Bytes are IP bytes
/// (header included), the simulator's wire bytes.
///
/// Identity (checked by [`PathCounters::check`]): `in = out + dropped + queued + in_flight`,
/// for packets and for bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathCounters {
    /// IPv4 packets offered to the queue.
    pub in_packets: u64,
    /// Bytes of those packets.
    pub in_bytes: u64,
    /// Packets that left the emulated path (handed to the far side).
    pub out_packets: u64,
    /// Bytes of those packets.
    pub out_bytes: u64,
    /// Packets dropped by the queue (any reason, at enqueue, by eviction or at dequeue).
    pub dropped_packets: u64,
    /// Bytes of those packets.
    pub dropped_bytes: u64,
    /// CE marks set (at enqueue or at dequeue).
    pub marked_packets: u64,
    /// Packets stored in the queue now.
    pub queued_packets: u64,
    /// Bytes stored in the queue now.
    pub queued_bytes: u64,
    /// Packets on the emulated wire now (being serialized, or in the propagation + DelayBox
    /// delay).
    pub in_flight_packets: u64,
    /// Bytes of those packets.
    pub in_flight_bytes: u64,
}

impl PathCounters {
    /// Check `in = out + dropped + queued + in_flight` for packets and bytes; `Err` says which.
    pub fn check(&self) -> Result<(), String> {
        let p =
            self.out_packets + self.dropped_packets + self.queued_packets + self.in_flight_packets;
        if self.in_packets != p {
            return Err(format!(
                "packets in {} != out {} + dropped {} + queued {} + in flight {}",
                self.in_packets,
                self.out_packets,
                self.dropped_packets,
                self.queued_packets,
                self.in_flight_packets
            ));
        }
        let b = self.out_bytes + self.dropped_bytes + self.queued_bytes + self.in_flight_bytes;
        if self.in_bytes != b {
            return Err(format!(
                "bytes in {} != out {} + dropped {} + queued {} + in flight {}",
                self.in_bytes,
                self.out_bytes,
                self.dropped_bytes,
                self.queued_bytes,
                self.in_flight_bytes
            ));
        }
        Ok(())
    }
}

/// How closely the real writes followed the emulated schedule, for one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pacing {
    /// Configured link rate, bit/s.
    pub configured_bps: u64,
    /// Rate achieved in real time over the link's busy periods, bit/s: bytes of every packet
    /// after the first of a busy period / real time between the first and the last packet's
    /// departure from the link (write time − its propagation and DelayBox delay). 0 if no busy
    /// period held two packets.
    pub achieved_bps: f64,
    /// `achieved_bps / configured_bps − 1`.
    pub rate_error: f64,
    /// Bytes and real seconds the achieved rate is measured over.
    pub busy_bytes: u64,
    /// Real seconds of those busy periods.
    pub busy_secs: f64,
    /// Lateness of the writes (real write time − scheduled departure), i.e. the error of the
    /// added delay, ns: median, 99th percentile, maximum (1 µs resolution up to 100 ms).
    pub delay_error_p50_ns: u64,
    /// 99th percentile of the lateness, ns.
    pub delay_error_p99_ns: u64,
    /// Largest lateness, ns.
    pub delay_error_max_ns: u64,
    /// Packets the lateness is measured over.
    pub samples: u64,
}

/// Everything a router run reports.
#[derive(Clone, Debug, Default)]
pub struct RouterReport {
    /// Forward (server side → client side) counters.
    pub fwd: PathCounters,
    /// Reverse (client side → server side) counters.
    pub rev: PathCounters,
    /// Pacing accuracy of the forward direction.
    pub fwd_pacing: Pacing,
    /// Pacing accuracy of the reverse direction.
    pub rev_pacing: Pacing,
    /// Queue discipline counters of each direction (`aqm::QueueStats`, identities hold).
    pub fwd_queue: aqm::QueueStats,
    /// Reverse direction's discipline counters.
    pub rev_queue: aqm::QueueStats,
    /// Queue-monitor rows of both directions (`bottleneck_fwd`, `bottleneck_rev`), in the order
    /// produced; feed them to `store::RunWriter::on_queue_row`.
    pub queue_rows: Vec<QueueRow>,
    /// Link-monitor rows of both directions; `store::RunWriter::on_link_row`.
    pub link_rows: Vec<LinkRow>,
    /// Forward bottleneck totals over the measured period (warm-up to the end), for
    /// `store::RunWriter::finish("bottleneck_fwd", &totals)`.
    pub totals: SummaryTotals,
    /// Name of the forward link (`bottleneck_fwd`).
    pub fwd_link: String,
    /// Router time when the run stopped, ns.
    pub end_ns: u64,
    /// Packets read that were not IPv4 (IPv6 neighbour discovery and the like): discarded,
    /// counted in no direction.
    pub not_ipv4: u64,
    /// TCP connections that got a DelayBox draw.
    pub delaybox_draws: u64,
    /// New connections whose SYN went to no workload's server port while some workload has
    /// DelayBoxes (`crate::delaybox::DelayBox::unknown_workload`: they got no workload box).
    pub delaybox_unknown_workload: u64,
    /// Those draws, in the order made (`crate::delaybox::Draw`): which connection (4-tuple)
    /// got which delay, for the testbed's `base_rtt_ns`.
    pub delaybox_log: Vec<crate::delaybox::Draw>,
    /// Whether the router thread ran at real-time priority (SCHED_FIFO).
    pub realtime: bool,
    /// Writes to a TUN that failed (the packet is counted out, and lost).
    pub write_errors: u64,
}
