//! Link rates and serialization time.

use crate::time::SimDuration;

/// A transmission rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate {
    pub bps: u64,
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Self {
        Rate { bps }
    }
    pub const fn from_mbps(mbps: u64) -> Self {
        Rate {
            bps: mbps * 1_000_000,
        }
    }
    /// Time to put `bytes` on the wire at this rate, rounded up to the next nanosecond
    /// (so a busy link never runs faster than its rate). Zero rate means infinite time.
    pub fn serialization(self, bytes: u64) -> SimDuration {
        if self.bps == 0 {
            return SimDuration::MAX;
        }
        // Up to 2.3 GB the product fits in 64 bits, whose division is far cheaper.
        if let Some(bits) = bytes.checked_mul(8_000_000_000) {
            return SimDuration(bits.div_ceil(self.bps));
        }
        let bits = bytes as u128 * 8 * 1_000_000_000;
        let ns = bits.div_ceil(self.bps as u128);
        SimDuration(ns.min(u64::MAX as u128) as u64)
    }
    /// Bytes carried in `d` at this rate (floor).
    pub fn bytes_in(self, d: SimDuration) -> u64 {
        ((self.bps as u128 * d.0 as u128) / 8_000_000_000u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_full_segment_at_10mbps() {
        // 1500 bytes * 8 / 10e6 = 1.2 ms exactly.
        assert_eq!(
            Rate::from_mbps(10).serialization(1500),
            SimDuration::from_micros(1200)
        );
        // 40 bytes at 3 bps rounds up: 320/3 s = 106.666..s -> ceil ns.
        assert_eq!(Rate::from_bps(3).serialization(40).0, 106_666_666_667);
        // Beyond the 64-bit product: 3 GB at 1 Gbps = 24 s exactly.
        assert_eq!(
            Rate::from_mbps(1000).serialization(3_000_000_000),
            SimDuration::from_secs(24)
        );
    }

    #[test]
    fn bytes_in_one_second() {
        assert_eq!(
            Rate::from_mbps(10).bytes_in(SimDuration::from_secs(1)),
            1_250_000
        );
    }
}
