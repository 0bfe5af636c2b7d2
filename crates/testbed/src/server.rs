//! The HTTP/1.0 server: one tokio runtime on a thread in a namespace (the server side's; also
//! the client side's when a workload is `direction = "reverse"`), listening on its workloads'
//! ports (80 + workload index, `router::ports`) of every host address there; each connection answered as its [`Ticket`](crate::http::Ticket) says
//! (see `http.rs` for the exchange).

use crate::http::{set_cork, tcp_info, Event, Tickets, CHUNK, TCP_FIN_WAIT2, ZEROS};
use crate::netns;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::mpsc;

/// Start the server thread in namespace `ns`, listening on each of `ports`; returns once it
/// listens (or why it cannot). It stops accepting and drops every connection once `stop` is
/// set.
pub fn spawn_server(
    ns: String,
    ports: Vec<u16>,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
) -> io::Result<std::thread::JoinHandle<()>> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<io::Result<()>>();
    let h = std::thread::Builder::new()
        .name("testbed-server".into())
        .spawn(move || {
            let setup = (|| {
                netns::enter(&ns)?;
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                let listeners = rt.block_on(async {
                    ports
                        .iter()
                        .map(|&p| {
                            let s = TcpSocket::new_v4()?;
                            s.set_reuseaddr(true)?;
                            s.bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, p)))
                                .map_err(|e| io::Error::new(e.kind(), format!("port {p}: {e}")))?;
                            s.listen(65535)
                        })
                        .collect::<io::Result<Vec<_>>>()
                })?;
                Ok::<_, io::Error>((rt, listeners))
            })();
            let (rt, listeners) = match setup {
                Ok(x) => {
                    let _ = ready_tx.send(Ok(()));
                    x
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let accepting: Vec<_> = listeners
                    .into_iter()
                    .map(|listener| {
                        let (tickets, events, stop) = (tickets.clone(), events.clone(), stop.clone());
                        tokio::spawn(async move {
                            loop {
                                tokio::select! {
                                    r = listener.accept() => {
                                        if let Ok((s, peer)) = r {
                                            tokio::spawn(serve_conn(
                                                s, peer, tickets.clone(), events.clone(), stop.clone(),
                                            ));
                                        }
                                    }
                                    _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                                }
                                if stop.load(Ordering::SeqCst) {
                                    break;
                                }
                            }
                        })
                    })
                    .collect();
                for a in accepting {
                    let _ = a.await;
                }
            });
        })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(h),
        Ok(Err(e)) => {
            let _ = h.join();
            Err(io::Error::new(e.kind(), format!("server: {e}")))
        }
        Err(_) => Err(io::Error::other("server thread ended before listening")),
    }
}

async fn serve_conn(
    mut s: TcpStream,
    peer: SocketAddr,
    tickets: Tickets,
    events: mpsc::UnboundedSender<Event>,
    stop: Arc<AtomicBool>,
) {
    let _ = s.set_nodelay(true);
    let fd = s.as_raw_fd();
    let at_accept = tcp_info(fd).unwrap_or_default();
    let SocketAddr::V4(peer) = peer else { return };
    let Some(t) = tickets.lock().expect("tickets").remove(&peer) else {
        return; // not a testbed connection
    };
    let mut buf = vec![0u8; 16 * 1024];
    let mut gave_up = false;
    // One exchange for HTTP/1.0; on a persistent HTTP/1.1 connection those of `t.more` follow,
    // each request recognised by its size (at least one byte), as the simulator's server.
    let exchanges = 1 + t.more.len();
    for k in 0..exchanges {
        let (request, response, delay) = match k {
            0 => (t.request_bytes, t.response_bytes, t.server_delay),
            _ => {
                let x = t.more[k - 1];
                let d = Duration::from_nanos(x.server_delay.as_nanos());
                (x.request_bytes.max(1), x.response_bytes, d)
            }
        };
        let last = k + 1 == exchanges;
        let mut left = request;
        while left > 0 {
            let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            match s.read(&mut buf[..want]).await {
                Ok(0) | Err(_) => {
                    gave_up = true;
                    break;
                }
                Ok(n) => left -= n as u64,
            }
        }
        if gave_up {
            break;
        }
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        // Corked while writing, as a web server sends a file (nginx `tcp_nopush`): full
        // segments leave at once, the last partial one waits for the FIN and carries it, as
        // the simulator's server does (otherwise TCP_NODELAY sends the tail at once and the
        // FIN follows alone: one more small packet per response at the bottleneck). A response
        // before the last is pushed by uncorking after it.
        set_cork(fd, true);
        let mut left = response;
        while left > 0 && !stop.load(Ordering::Relaxed) {
            let n = CHUNK.min(usize::try_from(left).unwrap_or(CHUNK));
            if s.write_all(&ZEROS[..n]).await.is_err() {
                gave_up = true;
                break;
            }
            if response != u64::MAX {
                left -= n as u64;
            }
        }
        if !gave_up && last && s.shutdown().await.is_err() {
            gave_up = true;
        }
        set_cork(fd, false);
        if gave_up {
            break;
        }
        if last {
            gave_up = !await_client_close(&mut s, fd, &mut buf).await;
        }
    }
    let end = tcp_info(fd).unwrap_or_default();
    let _ = events.send(Event::ServerDone {
        conn_id: t.conn_id,
        gave_up,
        synack_retx: at_accept.total_retrans,
        data_retx: end.total_retrans.saturating_sub(at_accept.total_retrans),
        timeouts: end.total_rto,
    });
}

/// How long the server waits for the client's FIN once its own FIN (so the whole response) was
/// acknowledged: Linux's default `tcp_fin_timeout`, the FIN_WAIT2 limit of an orphaned socket.
pub const FIN_WAIT2_LIMIT: Duration = Duration::from_secs(60);

/// How often a server waiting for the client's FIN looks at its socket's state.
const CLOSE_POLL: Duration = Duration::from_secs(5);

/// After the response and the server's FIN: wait for the client's close. True when it came, or
/// when the response was acknowledged (FIN_WAIT2) and the client's FIN did not follow within
/// [`FIN_WAIT2_LIMIT`]; false when the read failed: Linux gave up on the unacknowledged
/// response after `tcp_retries2` retransmission timeouts (the scenario's `max_retries`), or the
/// connection was reset. There is no other time limit: the kernel decides when an
/// unacknowledged response is given up, as the simulator's endpoint does after `max_retries`
/// (an earlier fixed 120 s limit closed such sockets, whose orphans Linux then drops without a
/// RST, leaving their clients waiting until the end of the run: issue 12's request deficit).
async fn await_client_close(s: &mut TcpStream, fd: RawFd, buf: &mut [u8]) -> bool {
    let mut acked_at: Option<Instant> = None;
    loop {
        match tokio::time::timeout(CLOSE_POLL, s.read(buf)).await {
            Ok(Ok(0)) => return true,
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return false,
            Err(_) => {
                if tcp_info(fd).is_some_and(|i| i.state == TCP_FIN_WAIT2)
                    && acked_at.get_or_insert_with(Instant::now).elapsed() >= FIN_WAIT2_LIMIT
                {
                    return true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpListener;

    /// A loopback connection: (server's accepted stream, client's stream).
    async fn pair() -> (TcpStream, TcpStream) {
        let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let c = TcpStream::connect(l.local_addr().unwrap()).await.unwrap();
        let (s, _) = l.accept().await.unwrap();
        (s, c)
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn the_clients_close_is_a_normal_end() {
        rt().block_on(async {
            let (mut s, mut c) = pair().await;
            c.shutdown().await.unwrap();
            let fd = s.as_raw_fd();
            let mut buf = [0u8; 64];
            assert!(await_client_close(&mut s, fd, &mut buf).await);
        });
    }

    #[test]
    fn a_reset_connection_is_a_give_up() {
        rt().block_on(async {
            let (mut s, c) = pair().await;
            // SO_LINGER 0: close sends a RST, as a peer whose kernel dropped the connection.
            let lg = libc::linger {
                l_onoff: 1,
                l_linger: 0,
            };
            // SAFETY: setsockopt reads one struct linger from a valid pointer.
            let rc = unsafe {
                libc::setsockopt(
                    c.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_LINGER,
                    (&lg as *const libc::linger).cast(),
                    std::mem::size_of::<libc::linger>() as libc::socklen_t,
                )
            };
            assert_eq!(rc, 0);
            drop(c);
            let fd = s.as_raw_fd();
            let mut buf = [0u8; 64];
            let t = Instant::now();
            assert!(!await_client_close(&mut s, fd, &mut buf).await);
            assert!(
                t.elapsed() < CLOSE_POLL,
                "noticed only after {:?}",
                t.elapsed()
            );
        });
    }
}
