//! What a queue discipline sees of a packet, and what it decides.

pub use units::Ecn;
use units::SimTime;

/// Traffic class of a packet, for per-class drop counters (seed 002 Table I splits loss by class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketClass {
    /// Data of a web (HTTP) connection.
    Http = 0,
    /// Data of a long-lived bulk (FTP) flow.
    Bulk = 1,
    /// Pure ACKs, SYNs and FINs without data.
    Control = 2,
    /// Unresponsive traffic (CBR, ON/OFF).
    Other = 3,
}

impl PacketClass {
    pub const COUNT: usize = 4;
}

/// The part of a packet a queue discipline may read. `id` is the engine's handle to the full
/// packet; the discipline stores this struct and hands it back on dequeue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketMeta {
    /// Engine handle of the packet (opaque to the discipline).
    pub id: u32,
    /// Size on the wire in bytes, headers included.
    pub size_bytes: u32,
    /// ECN codepoint of the IP header (RFC 3168 §5). An RFC 3168 discipline may mark instead of
    /// dropping when it is not Not-ECT ([`Ecn::ecn_capable`]); DualPI2 classifies on it.
    pub ecn: Ecn,
    pub class: PacketClass,
    /// Sender's congestion window in segments carried by data packets; 0 on packets without data
    /// (read by PISA/PIMC, seed 003 §3.2-3.3).
    pub cwnd_hint: u32,
    /// Flow identifier (connection index), for flow-queueing disciplines.
    pub flow: u32,
    /// Set by the discipline when the packet is enqueued (sojourn time for CoDel/PIE).
    pub enqueued_at: SimTime,
}

/// Which queue of a coupled dual queue (RFC 9332 §2.1) a packet is in: L (L4S: ECT(1) and CE)
/// or C (Classic: every other packet).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Lane {
    L = 0,
    C = 1,
}

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DropReason {
    /// Probabilistic early drop by an AQM (RED "unforced" drop).
    Early = 0,
    /// Drop forced by the AQM's control law (e.g. RED with avg ≥ max_th).
    Forced = 1,
    /// The buffer was full.
    Overflow = 2,
    /// Dropped when leaving the queue (CoDel-style).
    DequeueTime = 3,
}

impl DropReason {
    pub const COUNT: usize = 4;
}

/// Decision of a discipline on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Stored; will come out of `dequeue`.
    Enqueued,
    /// Stored, and the engine must set CE on the packet (only ever for ECN-capable packets).
    EnqueuedMarked,
    /// Not stored; the engine discards the packet and counts the reason.
    Dropped(DropReason),
}
