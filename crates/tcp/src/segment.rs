//! A TCP segment as the simulator carries it: header fields only, payload is a length.
//!
//! RFC 793 header fields that matter to a simulation (seq, ack, flags, window) plus the IP ECN
//! bits (RFC 3168) and two simulator extras: `cwnd_hint` (the sender's cwnd in segments, the
//! source hint PISA/PIMC read, seed 003) and `kind` (new or retransmitted, for counters and drop
//! rules). Sequence numbers are u64 byte offsets from ISS = 0, so they never wrap (ns-2 Full-TCP
//! uses int and breaks past 2^31; BSD wraps modulo 2^32).
//!
//! Options: SACK-permitted on SYN/SYN-ACK (`sack_ok`, RFC 2018 §2) and up to 3 SACK blocks
//! (RFC 2018 §3; 3 as seed 001 Table 2 and ns-2 `max_sack_blocks_`) kept inline in a fixed array
//! so a segment stays `Copy` and allocation-free. Headers are 40 bytes plus, when SACK blocks
//! are present, 2 + 8 per block (ns-2 FullTcp/Sack `sack_option_size_` 2, `sack_block_size_` 8,
//! no padding to 4 bytes; the SACK-permitted option is not counted, as in ns-2). No MSS
//! negotiation (both ends use `TcpConfig::mss`). The timestamps option (RFC 7323 §3, `ts`)
//! adds 12 bytes when present: 10 for the option and 2 NOPs that align it (RFC 7323 Appendix A,
//! as BSD and Linux send it; ns-2 counts `ts_option_size_` 10 without the padding).
//!
//! Validation: every harness run checks the `TcpStats` identities against the logged segments
//! (tests/util `check_counters`); tests/syn_sent.rs and tests/closing.rs assert exact fields;
//! `sack_option_adds_ten_bytes_per_block` and `timestamps_option_adds_twelve_bytes` below.

pub use units::Ecn;

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

/// Up to three SACK blocks `[start, end)` (sequence numbers), most important first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); 3],
    n: u8,
}

impl SackBlocks {
    /// Maximum blocks per segment (seed 001 Table 2; RFC 2018 §3 with timestamps).
    pub const MAX: usize = 3;
    /// Append a block; ignored when full.
    pub fn push(&mut self, start: u64, end: u64) {
        if (self.n as usize) < Self::MAX {
            self.blocks[self.n as usize] = (start, end);
            self.n += 1;
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.n as usize]
    }
    pub fn len(&self) -> usize {
        self.n as usize
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
    /// Option bytes on the wire: 2 + 8 per block, 0 without blocks (ns-2 FullTcp/Sack).
    pub fn wire_bytes(&self) -> u32 {
        if self.n == 0 {
            0
        } else {
            2 + 8 * self.n as u32
        }
    }
}

impl FromIterator<(u64, u64)> for SackBlocks {
    fn from_iter<I: IntoIterator<Item = (u64, u64)>>(it: I) -> Self {
        let mut b = SackBlocks::default();
        for (s, e) in it {
            b.push(s, e);
        }
        b
    }
}

/// The RFC 7323 timestamps option. Values are simulated times in nanoseconds (a real stack sends
/// its tick counter; the receiver of an echo quantises the sample to `clock_granularity`, which
/// is the same as a TSval clock ticking at that period with phase 0, see rtt.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timestamps {
    /// TSval: the sender's clock when the segment was sent, ns.
    pub val: u64,
    /// TSecr: the TS.Recent the sender holds (RFC 7323 §4.3), ns; meaningful only with ACK.
    pub ecr: u64,
}

impl Timestamps {
    /// Option bytes on the wire: kind, length, TSval, TSecr (10) + 2 NOPs (RFC 7323 App. A).
    pub const WIRE_BYTES: u32 = 12;
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
    /// ECN codepoint of the IP header (RFC 3168 §5): the sender sets Not-ECT, ECT(0) or ECT(1)
    /// ([`crate::TcpConfig::ect`]); a router that marks instead of dropping sets CE.
    pub ecn: Ecn,
    /// Sender's congestion window in segments on data segments; 0 on segments without data
    /// (the hint PISA/PIMC read, seed 003 §3.2).
    pub cwnd_hint: u32,
    pub kind: TxKind,
    /// SACK-permitted option (RFC 2018 §2), on SYN and SYN-ACK only.
    pub sack_ok: bool,
    /// SACK blocks (RFC 2018 §3), on ACKs of a SACK connection while data is out of order.
    pub sack: SackBlocks,
    /// Timestamps option (RFC 7323): on the SYN of an endpoint with `timestamps`, and on every
    /// segment once both ends agreed; `None` otherwise.
    pub ts: Option<Timestamps>,
}

impl Segment {
    /// Bytes on the wire: payload, 40 bytes of TCP/IP header, the SACK option, if any, and 12
    /// bytes of timestamps option, if any.
    pub fn wire_bytes(&self) -> u32 {
        let ts = if self.ts.is_some() {
            Timestamps::WIRE_BYTES
        } else {
            0
        };
        self.len + units::TCPIP_HEADER_BYTES + self.sack.wire_bytes() + ts
    }
    /// Sequence space consumed: payload + 1 for SYN + 1 for FIN.
    pub fn seq_len(&self) -> u64 {
        self.len as u64
            + self.flags.contains(Flags::SYN) as u64
            + self.flags.contains(Flags::FIN) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_adds_ten_bytes_per_block() {
        // 40-byte header; one block: 40 + 2 + 8 = 50; three: 40 + 2 + 24 = 66; a fourth is
        // ignored (at most 3, seed 001 Table 2).
        let mut s = Segment::default();
        assert_eq!(s.wire_bytes(), 40);
        s.sack.push(10, 20);
        assert_eq!(s.wire_bytes(), 50);
        s.sack.push(30, 40);
        s.sack.push(50, 60);
        s.sack.push(70, 80);
        assert_eq!(s.wire_bytes(), 66);
        assert_eq!(s.sack.as_slice(), &[(10, 20), (30, 40), (50, 60)]);
    }

    #[test]
    fn timestamps_option_adds_twelve_bytes() {
        // 1460 payload + 40 header + 12 (10-byte option, 2 NOPs) = 1512; with one SACK block
        // as well: 1512 + 10 = 1522 (3 blocks + timestamps = 26 + 12 = 38 ≤ 40 option bytes,
        // why RFC 2018 §3 allows 3 blocks with timestamps).
        let mut s = Segment {
            len: 1460,
            ts: Some(Timestamps { val: 5, ecr: 3 }),
            ..Segment::default()
        };
        assert_eq!(s.wire_bytes(), 1512);
        s.sack.push(10, 20);
        assert_eq!(s.wire_bytes(), 1522);
    }
}
