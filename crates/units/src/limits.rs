//! The largest quantities aqmlab accepts, checked where strings become values (`parse.rs`) and
//! by the scenario loader (delays, run length), so that no value the user types can overflow
//! the u64-nanosecond clock (584 years) or a byte counter, and none is silently saturated.
//!
//! The bounds are aqmlab choices, far beyond any physical network of the studies (seed 000–003:
//! at most 1 Gbps links, delays under 1 s, runs of hours) yet small enough that any sum of a few
//! times stays inside the clock: a run ends by [`MAX_RUN`] (1e9 s = 1e18 ns), a delay or RTT is
//! at most [`MAX_DELAY`], any other duration at most [`MAX_DURATION`]; 1e18 + 1e18 + … with up
//! to 18 terms fits u64 (1.8e19).
//!
//! Validation: tests in `parse.rs` (each bound, message with the value as written).

use crate::time::SimDuration;

/// Largest rate, bits per second: 10 Tbps (ten times the fastest Ethernet of 2024, 800 Gbps).
/// A 40-byte packet then still takes 32 ns, so datagram sources never emit 0-ns intervals.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// Largest duration of any kind: 1e9 s (about 31.7 years of simulated time).
pub const MAX_DURATION: SimDuration = SimDuration(1_000_000_000 * 1_000_000_000);

/// Largest propagation delay or RTT (link delays, DelayBox RTTs): 1e6 s (about 11.6 days).
pub const MAX_DELAY: SimDuration = SimDuration(1_000_000 * 1_000_000_000);

/// Longest run, warm-up plus measured duration: 1e9 s (about 31.7 years).
pub const MAX_RUN: SimDuration = MAX_DURATION;

/// Largest size, bytes: 1 TB (1e12 B). Sums of such sizes over millions of requests still fit
/// the signed 64-bit columns of the output tables (9.2e18).
pub const MAX_SIZE_BYTES: u64 = 1_000_000_000_000;
