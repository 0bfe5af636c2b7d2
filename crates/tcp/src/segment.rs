//! A TCP segment as the simulator carries it: header fields only, payload is a length.
//!
//! RFC 793 header fields that matter to a simulation (seq, ack, flags, window) plus the IP ECN
//! bits (RFC 3168) and two simulator extras: `cwnd_hint` (the sender's cwnd in segments, the
//! source hint PISA/PIMC read, seed 003) and `kind` (new or retransmitted, for counters and drop
//! rules). Sequence numbers are u64 byte offsets from ISS = 0, so they never wrap (ns-2 Full-TCP
//! uses int and breaks past 2^31; BSD wraps modulo 2^32). No options: no MSS negotiation (both
//! ends use `TcpConfig::mss`), no timestamps, no SACK blocks yet; headers are 40 bytes.
//!
//! Validation: every harness run checks the `TcpStats` identities against the logged segments
//! (tests/util `check_counters`); tests/syn_sent.rs and tests/closing.rs assert exact fields.

/// TCP header flags (subset used by aqmlab).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags(pub u8);

impl Flags {
    pub const SYN: Flags = Flags(0x01);
    pub const ACK: Flags = Flags(0x02);
    pub const FIN: Flags = Flags(0x04);
    /// ECN-Echo (RFC 3168).
    pub const ECE: Flags = Flags(0x08);
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: Flags = Flags(0x10);

    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.union(rhs)
    }
}

/// Whether a segment carries something sent before (for retransmission counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TxKind {
    #[default]
    New,
    Retransmit,
}

/// One TCP segment. Sequence numbers are 64-bit byte offsets from the endpoint's initial
/// sequence number 0, so they never wrap in a simulation; SYN and FIN each occupy one number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first byte (or of the SYN/FIN).
    pub seq: u64,
    /// Cumulative acknowledgment: next byte expected (valid when `flags` has ACK).
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    pub flags: Flags,
    /// Receiver window advertised, bytes.
    pub wnd: u32,
    /// ECN-capable transport codepoint in the IP header (RFC 3168).
    pub ect: bool,
    /// Congestion Experienced, set by a router that marks instead of dropping.
    pub ce: bool,
    /// Sender's congestion window in segments on data segments; 0 on segments without data
    /// (the hint PISA/PIMC read, seed 003 §3.2).
    pub cwnd_hint: u32,
    pub kind: TxKind,
}

impl Segment {
    /// Bytes on the wire: payload plus 40 bytes of TCP/IP header.
    pub fn wire_bytes(&self) -> u32 {
        self.len + units::TCPIP_HEADER_BYTES
    }
    /// Sequence space consumed: payload + 1 for SYN + 1 for FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64
            + self.flags.contains(Flags::SYN) as u64
            + self.flags.contains(Flags::FIN) as u64
    }
}
