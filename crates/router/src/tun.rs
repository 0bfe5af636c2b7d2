//! Open a TUN device inside a named network namespace.
use std::os::fd::OwnedFd;

/// Open (creating it if needed) the TUN device `ifname` (IFF_TUN | IFF_NO_PI, non-blocking)
/// inside the network namespace `/var/run/netns/{netns}`; the calling thread returns to its
/// own namespace before this returns. Needs CAP_SYS_ADMIN and CAP_NET_ADMIN.
pub fn open_tun_in_netns(netns: &str, ifname: &str) -> std::io::Result<OwnedFd> {
    let _ = (netns, ifname);
    todo!()
}
