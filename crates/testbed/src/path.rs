//! The path between the two namespaces and the hosts' addresses and routes on it.
//!
//! - [`PathKind::Router`]: a TUN device in each namespace (`aqm0`), opened by the `router`
//!   crate (`router::open_tun_in_netns`), which holds both descriptors and forwards between them
//!   through the emulated bottleneck. TUN devices have no offloads: the kernel's software GSO
//!   segments before the device, so the router reads packets of at most the MTU (checked on
//!   the router's pcaps by python/tests/test_testbed.py). Loopback carries nothing of a run:
//!   every connection goes from a client address to a server address in the other namespace.
//! - [`PathKind::Veth`]: a plain veth pair (`aqm0` in each namespace), no bottleneck: the
//!   fallback for developing without the router, and a reference for the hosts' own limits.
//!
//! Each side: every host's address as a /32 on the device, the device's MTU from
//! `tcp_settings`, and one route to the other side's /16 with the `[tcp]` route options
//! (`initcwnd`, `rto_min`, `quickack`, `window`). Every command runs with `ip -n` in a run
//! namespace: nothing in the host namespace changes.

use crate::netns::{self, Side};
use crate::tcp_settings::LinuxTcp;
use std::io;

/// Interface name of the path's device in each namespace.
pub const IFNAME: &str = "aqm0";

/// What connects the two namespaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// TUN devices and the router's emulated bottleneck.
    Router,
    /// A veth pair (no bottleneck).
    Veth,
}

impl PathKind {
    /// Name in run.json and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            PathKind::Router => "router",
            PathKind::Veth => "veth",
        }
    }
}

/// Create the veth pair, one end in each namespace (made there directly).
pub fn create_veth(client_ns: &str, server_ns: &str) -> io::Result<()> {
    netns::ip(&[
        "link", "add", IFNAME, "netns", client_ns, "type", "veth", "peer", "name", IFNAME, "netns",
        server_ns,
    ])
}

/// The `ip -batch` lines that configure `side` with `hosts` hosts on device [`IFNAME`].
pub fn side_commands(side: Side, hosts: u32, tcp: &LinuxTcp) -> Vec<String> {
    let other = match side {
        Side::Client => Side::Server,
        Side::Server => Side::Client,
    };
    let mut lines = vec![format!("link set {IFNAME} mtu {} up", tcp.mtu)];
    for h in 0..hosts {
        lines.push(format!(
            "addr add {}/32 dev {IFNAME}",
            netns::host_addr(side, h)
        ));
    }
    lines.push(format!(
        "route add {} dev {IFNAME} src {} {}",
        netns::side_subnet(other),
        netns::host_addr(side, 0),
        tcp.route_opts.join(" ")
    ));
    lines
}

/// Configure both sides (the devices must exist).
pub fn configure(
    ns: &netns::Namespaces,
    clients: u32,
    servers: u32,
    tcp: &LinuxTcp,
) -> io::Result<()> {
    netns::ip_batch(&ns.client, &side_commands(Side::Client, clients, tcp))?;
    netns::ip_batch(&ns.server, &side_commands(Side::Server, servers, tcp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_of_a_side() {
        let tcp = LinuxTcp {
            sysctls: vec![],
            route_opts: vec!["initcwnd 2".into(), "quickack 1".into()],
            mtu: 1500,
            notes: vec![],
            substitutions: vec![],
        };
        assert_eq!(
            side_commands(Side::Client, 2, &tcp),
            [
                "link set aqm0 mtu 1500 up",
                "addr add 10.1.0.10/32 dev aqm0",
                "addr add 10.1.0.11/32 dev aqm0",
                "route add 10.2.0.0/16 dev aqm0 src 10.1.0.10 initcwnd 2 quickack 1",
            ]
        );
    }
}
