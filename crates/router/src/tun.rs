//! Open a TUN device inside a named network namespace (iproute2's `ip netns` convention: the
//! namespace is bound at `/var/run/netns/NAME`).
//!
//! The calling thread enters the namespace with setns(2) (only that thread moves), opens
//! `/dev/net/tun`, attaches it to the interface with TUNSETIFF (IFF_TUN | IFF_NO_PI: each read
//! is one IP packet, no 4-byte packet-information prefix; see the kernel's
//! Documentation/networking/tuntap.rst) — so the interface is created in that namespace — and
//! returns to its own namespace. The descriptor stays valid in any namespace. Addresses and
//! `ip link set up` are the caller's (`ip -n NAME …`).
//!
//! Validation: `tests/netns.rs` (root only: two namespaces, a TUN in each, traffic across).

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Longest interface name Linux accepts (IFNAMSIZ − 1).
pub const MAX_IFNAME: usize = 15;

/// `struct ifreq` as TUNSETIFF reads it: the name and the flags (the rest of the 40-byte union
/// unused).
#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// Open (creating it if needed) the TUN device `ifname` (IFF_TUN | IFF_NO_PI, non-blocking,
/// close-on-exec) inside the network namespace `/var/run/netns/{netns}`; the calling thread is
/// back in its own namespace when this returns. Needs CAP_SYS_ADMIN and CAP_NET_ADMIN.
pub fn open_tun_in_netns(netns: &str, ifname: &str) -> io::Result<OwnedFd> {
    if netns.is_empty() || netns.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad network namespace name {netns:?}"),
        ));
    }
    let target = File::open(format!("/var/run/netns/{netns}")).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("network namespace {netns}: /var/run/netns/{netns}: {e}"),
        )
    })?;
    let own = File::open("/proc/thread-self/ns/net")?;
    setns(&target)?;
    let tun = open_tun(ifname);
    if let Err(e) = setns(&own) {
        // Staying in the wrong namespace would misroute whatever this thread does next.
        panic!("cannot return to the original network namespace: {e}");
    }
    tun
}

fn setns(ns: &File) -> io::Result<()> {
    // SAFETY: plain syscall on a descriptor we own.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Open `/dev/net/tun` and attach it to `ifname` in the current namespace.
pub fn open_tun(ifname: &str) -> io::Result<OwnedFd> {
    if ifname.is_empty() || ifname.len() > MAX_IFNAME || ifname.contains(['/', ' ', '\0']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad interface name {ifname:?} (1 to {MAX_IFNAME} bytes)"),
        ));
    }
    let path = CString::new("/dev/net/tun").expect("no NUL");
    // SAFETY: valid C string; the returned descriptor is owned below.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("/dev/net/tun: {e}")));
    }
    // SAFETY: `fd` is a fresh descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = IfReq {
        name: [0; 16],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _pad: [0; 22],
    };
    req.name[..ifname.len()].copy_from_slice(ifname.as_bytes());
    // SAFETY: TUNSETIFF reads (and writes back the name into) a struct ifreq we own.
    if unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut IfReq) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("TUNSETIFF {ifname}: {e}")));
    }
    Ok(fd)
}
