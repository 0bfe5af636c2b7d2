//! The simulator's pcaps (`sim::pcap`, with `experiment::pcap_format`'s conventions) address hosts and servers as the testbed does, so one
//! connection has the same addresses and server port in a simulator pcap and in the router's:
//! dumbbell host group 0 (clients) = `netns::host_addr(Side::Client, i)`, group 1 (servers) =
//! `Side::Server`, server port = `http::SERVER_PORT`, client ports inside the testbed's
//! `ip_local_port_range` (1024–65535). No root needed.

use testbed::http::SERVER_PORT;
use testbed::netns::{host_addr, Side, MAX_HOSTS_PER_SIDE};

#[test]
fn simulator_pcap_addresses_are_the_testbeds() {
    for i in (0..MAX_HOSTS_PER_SIDE)
        .step_by(97)
        .chain([MAX_HOSTS_PER_SIDE - 1])
    {
        assert_eq!(
            experiment::pcap_format::host_addr(0, i as usize),
            Some(host_addr(Side::Client, i))
        );
        assert_eq!(
            experiment::pcap_format::host_addr(1, i as usize),
            Some(host_addr(Side::Server, i))
        );
    }
    assert_eq!(experiment::pcap_format::SERVER_PORT, SERVER_PORT);
    assert_eq!(experiment::pcap_format::client_port(0), 1024);
    assert_eq!(
        experiment::pcap_format::client_port(u64::MAX),
        1024 + (u64::MAX % 64512) as u16
    );
    assert!((0..200_000u64).all(|c| experiment::pcap_format::client_port(c) >= 1024));
}
