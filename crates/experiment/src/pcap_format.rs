//! The conventions every aqmlab pcap shares, the simulator's (`sim::pcap`) and the testbed
//! router's (`router::pcap`): the file header, and how hosts and ports are numbered so that one
//! connection has the same addresses in both (the testbed's scheme, `testbed::netns::host_addr`:
//! client host i 10.1.0.(10+i), server host j 10.2.0.(10+j); server port `testbed::http::
//! SERVER_PORT`).
//!
//! Validation: tests below and `crates/testbed/tests/pcap_addresses.rs` (the testbed's own
//! addresses and ports equal these).

use pcap_file::pcap::PcapHeader;
use pcap_file::{DataLink, Endianness, TsResolution};
use std::net::Ipv4Addr;

/// Header snaplen of the file, bytes; also the largest `orig_len`.
pub const SNAPLEN: u32 = 65535;

/// The file header of every aqmlab pcap, the simulator's and the testbed router's
/// (`crates/router/src/pcap.rs`): LINKTYPE_RAW (each record an IPv4 packet), nanosecond
/// timestamps, snaplen [`SNAPLEN`], little-endian whatever the machine (the same bytes
/// everywhere).
pub fn file_header() -> PcapHeader {
    PcapHeader {
        version_major: 2,
        version_minor: 4,
        ts_correction: 0,
        ts_accuracy: 0,
        snaplen: SNAPLEN,
        datalink: DataLink::RAW,
        ts_resolution: TsResolution::NanoSecond,
        endianness: Endianness::Little,
    }
}
/// TCP port of every server (the testbed's `http::SERVER_PORT`).
pub const SERVER_PORT: u16 = 80;
/// First client port: connection `conn_id` uses `FIRST_CLIENT_PORT + conn_id mod 64512`.
pub const FIRST_CLIENT_PORT: u16 = 1024;
/// UDP ports of datagram workload w: `DATAGRAM_PORT + w` at both ends.
pub const DATAGRAM_PORT: u16 = 9000;

/// IPv4 address of host `index` of host group `group` (0-based, the topology's group order):
/// `10.(group+1).0.0 + 10 + index`. `None` past 254 groups or 65 525 hosts in a group.
pub fn host_addr(group: usize, index: usize) -> Option<Ipv4Addr> {
    if group >= 254 || index > 65_525 {
        return None;
    }
    Some(Ipv4Addr::from(
        0x0a00_0000 + ((group as u32 + 1) << 16) + 10 + index as u32,
    ))
}

/// Client TCP port of connection `conn_id` (requests.parquet `conn_id`).
pub fn client_port(conn_id: u64) -> u16 {
    FIRST_CLIENT_PORT + (conn_id % (65536 - FIRST_CLIENT_PORT as u64)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_ports_follow_the_testbed() {
        assert_eq!(host_addr(0, 0), Some(Ipv4Addr::new(10, 1, 0, 10)));
        assert_eq!(host_addr(1, 19), Some(Ipv4Addr::new(10, 2, 0, 29)));
        assert_eq!(host_addr(0, 300), Some(Ipv4Addr::new(10, 1, 1, 54)));
        assert_eq!(host_addr(0, 65_526), None);
        assert_eq!(client_port(0), 1024);
        assert_eq!(client_port(64_511), 65_535);
        assert_eq!(client_port(64_512), 1024);
    }
}
