//! Leaf crate of aqmlab: every room may use it, it uses nothing of ours.
//!
//! - [`SimTime`] / [`SimDuration`]: simulated time as u64 nanoseconds (STYLE.md §6).
//! - [`Rate`]: link rates in bits per second; [`Bytes`] helpers for sizes.
//! - [`limits`]: the largest rate, duration, delay, run and size aqmlab accepts.
//! - [`parse`]: the one place where strings like `"10Mbps"`, `"79ms"`, `"1.5KB"` become values.
//! - [`Ecn`]: the IP header's ECN codepoints (RFC 3168 §5).
//! - [`rng`]: deterministic random streams derived from (seed, stream name).
//! - [`math`]: portable exp/ln/powf (bit-identical on every platform).

pub mod ecn;
pub mod limits;
pub mod math;
pub mod parse;
pub mod rate;
pub mod rng;
pub mod time;

pub use ecn::Ecn;
pub use parse::{parse_duration, parse_rate, parse_size, UnitError};
pub use rate::Rate;
pub use rng::{stream, Rng};
pub use time::{SimDuration, SimTime};

/// Bytes of TCP/IP header added to every packet on the wire (20 IP + 20 TCP, no options),
/// as ns-2's `tcpip_base_hdr_size_` (reference/aqm-defaults.md §6.1).
pub const TCPIP_HEADER_BYTES: u32 = 40;
