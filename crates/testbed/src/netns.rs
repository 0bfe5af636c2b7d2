//! The network namespaces of one testbed run: their names, creation, per-thread entry, sysctls
//! and removal (at exit, on Ctrl-C/SIGTERM through the caller's stop flag, and at the next
//! start for a run that was killed).
//!
//! Layout (chosen, see `docs/testbed.md`): one namespace per side, `aqmlab-<pid>-<tag>-c` for the
//! client hosts and `aqmlab-<pid>-<tag>-s` for the server hosts, every host one IPv4 address of
//! its side ([`host_addr`]). One namespace per host would need a TUN device (or a bridge) per
//! host and the router to read as many descriptors; one per side keeps the router at two, and a
//! host is still told apart by its source address (the client binds each connection to its
//! host's address). What the hosts of one side then share is their TCP stack's global state
//! (sysctls, which are the same for all hosts anyway) and their memory limits.
//!
//! Safety: nothing here changes the host namespace. Namespaces are made with `ip netns add`
//! (a file under /run/netns); links are created directly inside the run's namespaces (`ip -n`);
//! sysctls are written only from a thread that has entered a run namespace and checked that it
//! is no longer in the namespace the process started in ([`apply_sysctls`]).
//!
//! Stale runs: the name carries the pid of the process that made it; [`remove_stale`] deletes
//! every `aqmlab-<pid>-…` namespace whose process no longer runs (`kill -9`, a crash).
//!
//! Validation: unit tests below (names, parsing); `tests/netns_root.rs` (as root: namespaces
//! made, configured and removed, the host's sysctls and routes unchanged, stale namespaces of
//! dead pids removed and live ones kept); python/tests/test_testbed.py (a run killed with
//! SIGKILL: its namespaces removed by the next start).

use std::io;
use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Prefix of every namespace aqmlab makes.
pub const PREFIX: &str = "aqmlab-";

/// Where `ip netns` keeps its namespaces.
pub const NETNS_DIR: &str = "/run/netns";

/// Which side of the dumbbell a namespace holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Client hosts (requests leave from here; responses arrive here).
    Client,
    /// Server hosts.
    Server,
}

impl Side {
    fn suffix(self) -> &'static str {
        match self {
            Side::Client => "c",
            Side::Server => "s",
        }
    }
}

/// IPv4 address of host `index` on `side`: clients 10.1.0.0/16, servers 10.2.0.0/16, host k at
/// offset k + 10 (so .0 and the first few addresses are never used). At most 65 000 hosts.
pub fn host_addr(side: Side, index: u32) -> Ipv4Addr {
    let net: u32 = match side {
        Side::Client => 0x0a01_0000,
        Side::Server => 0x0a02_0000,
    };
    Ipv4Addr::from(net + 10 + index)
}

/// The /16 of a side, as `ip route` writes it.
pub fn side_subnet(side: Side) -> &'static str {
    match side {
        Side::Client => "10.1.0.0/16",
        Side::Server => "10.2.0.0/16",
    }
}

/// Most hosts per side [`host_addr`] can number.
pub const MAX_HOSTS_PER_SIDE: u32 = 65_000;

/// A run id: `<pid>-<tag>`, the tag a few hex digits of the start time (two runs of one
/// process differ by it).
pub fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() ^ (d.as_secs() as u32))
        .unwrap_or(0);
    format!("{}-{:06x}", std::process::id(), nanos & 0xff_ffff)
}

/// Namespace name of `side` for run `run_id`.
pub fn ns_name(run_id: &str, side: Side) -> String {
    format!("{PREFIX}{run_id}-{}", side.suffix())
}

/// The pid in an aqmlab namespace name (`aqmlab-<pid>-…`), if it is one.
pub fn owner_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok()
}

fn pid_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Refuse to go on without the privileges the testbed needs: CAP_NET_ADMIN (namespaces, links,
/// routes, sysctls) and CAP_SYS_ADMIN (`setns`, the /run/netns mounts). Returns the reason.
pub fn check_privileges() -> Result<(), String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("cannot read /proc/self/status: {e}"))?;
    let cap_eff = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        .unwrap_or(0);
    const CAP_NET_ADMIN: u64 = 1 << 12;
    const CAP_SYS_ADMIN: u64 = 1 << 21;
    let mut missing = Vec::new();
    if cap_eff & CAP_NET_ADMIN == 0 {
        missing.push("CAP_NET_ADMIN");
    }
    if cap_eff & CAP_SYS_ADMIN == 0 {
        missing.push("CAP_SYS_ADMIN");
    }
    if !missing.is_empty() {
        return Err(format!(
            "the testbed needs root (it creates network namespaces, TUN devices and routes); \
             this process lacks {}: run it as root, e.g. with sudo",
            missing.join(" and ")
        ));
    }
    match Command::new("ip").arg("-V").output() {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err("the testbed needs the `ip` command (iproute2) on PATH".into()),
    }
}

/// Run `ip ARGS`; an error carries the command and ip's own message.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip").args(args).output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Run `ip -n NS -batch -` with `lines` (one ip command each, without the leading `ip`).
pub fn ip_batch(ns: &str, lines: &[String]) -> io::Result<()> {
    use std::io::Write;
    let mut child = Command::new("ip")
        .args(["-n", ns, "-batch", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    {
        let mut stdin = child.stdin.take().expect("piped stdin");
        for l in lines {
            writeln!(stdin, "{l}")?;
        }
    }
    let out = child.wait_with_output()?;
    if out.status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "ip -n {ns} -batch: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

/// Inode of the network namespace the process started in (read once, from the main thread's
/// view, before any thread enters a run namespace: [`host_netns_inode`] is called by
/// [`Namespaces::create`]).
fn host_netns() -> &'static io::Result<u64> {
    static HOST: OnceLock<io::Result<u64>> = OnceLock::new();
    HOST.get_or_init(|| std::fs::metadata("/proc/self/ns/net").map(|m| m.ino()))
}

/// Inode of the network namespace the process started in.
pub fn host_netns_inode() -> io::Result<u64> {
    match host_netns() {
        Ok(i) => Ok(*i),
        Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
    }
}

fn thread_netns_inode() -> io::Result<u64> {
    std::fs::metadata("/proc/thread-self/ns/net").map(|m| m.ino())
}

/// Move the calling thread (only it: `setns` is per thread) into namespace `ns`; sockets it
/// creates afterwards belong there. Checks that the thread is then in `ns` and not in the
/// host's namespace.
pub fn enter(ns: &str) -> io::Result<()> {
    let host = host_netns_inode()?;
    let path = Path::new(NETNS_DIR).join(ns);
    let f = std::fs::File::open(&path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    let want = f.metadata()?.ino();
    // SAFETY: setns on a valid open namespace file descriptor; affects the calling thread only.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("setns into {ns}: {e}")));
    }
    let now = thread_netns_inode()?;
    if now != want || now == host {
        return Err(io::Error::other(format!(
            "setns into {ns}: the thread is not in it afterwards (refusing to go on)"
        )));
    }
    Ok(())
}

/// Write `sysctls` (`net.ipv4.tcp_sack` style keys) inside namespace `ns`, from a thread of its
/// own that enters `ns` first and refuses to write if it is still in the host's namespace.
pub fn apply_sysctls(ns: &str, sysctls: &[(String, String)]) -> io::Result<()> {
    let ns = ns.to_string();
    let sysctls = sysctls.to_vec();
    host_netns_inode()?;
    std::thread::spawn(move || -> io::Result<()> {
        enter(&ns)?;
        if thread_netns_inode()? == host_netns_inode()? {
            return Err(io::Error::other(
                "still in the host namespace: no sysctl written",
            ));
        }
        for (k, v) in &sysctls {
            let path = format!("/proc/sys/{}", k.replace('.', "/"));
            std::fs::write(&path, v)
                .map_err(|e| io::Error::new(e.kind(), format!("sysctl {k} = {v} in {ns}: {e}")))?;
        }
        Ok(())
    })
    .join()
    .map_err(|_| io::Error::other("the sysctl thread panicked"))?
}

/// Read one sysctl inside `ns` (tests and the run's record of what was set).
pub fn read_sysctl(ns: &str, key: &str) -> io::Result<String> {
    let ns = ns.to_string();
    let key = key.to_string();
    host_netns_inode()?;
    std::thread::spawn(move || -> io::Result<String> {
        enter(&ns)?;
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        Ok(std::fs::read_to_string(path)?.trim().to_string())
    })
    .join()
    .map_err(|_| io::Error::other("the sysctl thread panicked"))?
}

/// Every namespace name under /run/netns.
pub fn list() -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(NETNS_DIR) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// Delete every aqmlab namespace whose owning process no longer runs; returns their names.
pub fn remove_stale() -> Vec<String> {
    let mut removed = Vec::new();
    for name in list() {
        let stale = owner_pid(&name).is_some_and(|pid| !pid_alive(pid));
        if stale && ip(&["netns", "del", &name]).is_ok() {
            removed.push(name);
        }
    }
    removed
}

/// The two namespaces of a run; deleted on [`Namespaces::teardown`] or drop.
#[derive(Debug)]
pub struct Namespaces {
    /// Client-side namespace name.
    pub client: String,
    /// Server-side namespace name.
    pub server: String,
    live: bool,
}

impl Namespaces {
    /// Create both namespaces of `run_id` with their loopback up. On failure, whatever was
    /// made is removed again.
    pub fn create(run_id: &str) -> io::Result<Namespaces> {
        host_netns_inode()?;
        let mut ns = Namespaces {
            client: ns_name(run_id, Side::Client),
            server: ns_name(run_id, Side::Server),
            live: true,
        };
        for name in [ns.client.clone(), ns.server.clone()] {
            if let Err(e) = ip(&["netns", "add", &name])
                .and_then(|()| ip(&["-n", &name, "link", "set", "lo", "up"]))
            {
                ns.teardown();
                return Err(e);
            }
        }
        Ok(ns)
    }

    /// The namespace of `side`.
    pub fn of(&self, side: Side) -> &str {
        match side {
            Side::Client => &self.client,
            Side::Server => &self.server,
        }
    }

    /// Delete both namespaces (and with them every link, route and address in them); safe to
    /// call twice.
    pub fn teardown(&mut self) {
        if !std::mem::replace(&mut self.live, false) {
            return;
        }
        for name in [&self.client, &self.server] {
            if Path::new(NETNS_DIR).join(name).exists() {
                let _ = ip(&["netns", "del", name]);
            }
        }
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        self.teardown();
    }
}

/// Stop flag set by SIGINT and SIGTERM once [`install_signal_handlers`] ran.
pub static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_signal(_sig: libc::c_int) {
    // Async-signal-safe: one atomic store.
    STOP.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Make SIGINT (Ctrl-C) and SIGTERM set [`STOP`] instead of killing the process, so the run
/// stops, writes what it has and removes its namespaces.
pub fn install_signal_handlers() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: installing a handler that only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_pid() {
        assert_eq!(ns_name("123-abcdef", Side::Client), "aqmlab-123-abcdef-c");
        assert_eq!(ns_name("123-abcdef", Side::Server), "aqmlab-123-abcdef-s");
        assert_eq!(owner_pid("aqmlab-123-abcdef-c"), Some(123));
        assert_eq!(owner_pid("aqmlab-x-c"), None);
        assert_eq!(owner_pid("other-123-c"), None);
        let id = new_run_id();
        assert_eq!(
            owner_pid(&ns_name(&id, Side::Client)),
            Some(std::process::id())
        );
    }

    #[test]
    fn addresses() {
        assert_eq!(host_addr(Side::Client, 0), Ipv4Addr::new(10, 1, 0, 10));
        assert_eq!(host_addr(Side::Server, 19), Ipv4Addr::new(10, 2, 0, 29));
        assert_eq!(host_addr(Side::Client, 300), Ipv4Addr::new(10, 1, 1, 54));
        assert_eq!(
            host_addr(Side::Client, MAX_HOSTS_PER_SIDE - 1),
            Ipv4Addr::new(10, 1, 253, 241)
        );
    }
}
