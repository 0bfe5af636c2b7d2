//! Sockets of the other side's hosts from the client thread: a `direction = "reverse"`
//! workload's clients are server-side hosts, so its connections must start in the server
//! namespace, while the client loop (one thread, one current-thread runtime) lives in the
//! client namespace. A socket belongs to the namespace its creating thread was in when it was
//! made and keeps it wherever it is used; so the client thread steps into the other namespace
//! for the `socket()` call alone and back ([`NetnsHop::socket_v4`]), with nothing else running
//! on it in between (the runtime is single-threaded and the step is synchronous).
//!
//! Validation: `tests/netns_root.rs` (as root: a socket made through the hop binds to an
//! address only the other namespace has, and the thread is home again afterwards).

use crate::netns::NETNS_DIR;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use tokio::net::TcpSocket;

/// Open handles of two namespaces: the thread's own and the other side's.
#[derive(Debug)]
pub struct NetnsHop {
    home: File,
    other: File,
    other_name: String,
}

fn open_ns(name: &str) -> io::Result<File> {
    let path = Path::new(NETNS_DIR).join(name);
    File::open(&path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

fn setns(f: &File, name: &str) -> io::Result<()> {
    // SAFETY: setns on a valid open namespace file descriptor; affects the calling thread only.
    let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("setns into {name}: {e}")));
    }
    Ok(())
}

impl NetnsHop {
    /// Handles of namespace `home` (the calling thread's: it must already be in it) and
    /// `other`, both names under /run/netns.
    pub fn open(home: &str, other: &str) -> io::Result<NetnsHop> {
        Ok(NetnsHop {
            home: open_ns(home)?,
            other: open_ns(other)?,
            other_name: other.to_string(),
        })
    }

    /// A new IPv4 TCP socket of the other namespace. The thread is back home when this
    /// returns Ok. If it cannot get back (setns on an open namespace handle failing: not seen),
    /// the thread's later sockets would be the other side's, so the run is stopped
    /// ([`netns::STOP`](crate::netns::STOP), as Ctrl-C) and the error says why.
    pub fn socket_v4(&self) -> io::Result<TcpSocket> {
        setns(&self.other, &self.other_name)?;
        let s = TcpSocket::new_v4();
        setns(&self.home, "the client's own namespace").map_err(|e| {
            crate::netns::STOP.store(true, std::sync::atomic::Ordering::SeqCst);
            io::Error::other(format!(
                "{e} (after a socket of {}); stopping the run",
                self.other_name
            ))
        })?;
        s
    }
}
