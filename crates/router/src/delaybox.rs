//! The dumbbell's DelayBox (`sim::DelayBoxConfig`) for real TCP: each connection gets an extra
//! round-trip time, drawn when its first SYN passes the router and applied half in each
//! direction (integer nanoseconds, `rtt / 2`, as `crates/sim/src/world.rs` `open`).
//!
//! - `Distribution { rtt_s }`: draws from stream `delaybox` of the run seed with
//!   `SizeDist::sample`, one draw per new connection in the order their SYNs arrive — the
//!   simulator draws from the same stream in the order connections open.
//! - `Matrix { rtt }`: `rtt[i][j]` with i the SYN sender's and j the SYN receiver's host index,
//!   found from `RouterSpec::client_hosts` / `server_hosts` by address (a sender in either list;
//!   unknown addresses get no delay and are counted).
//!
//! Connections are keyed on the unordered pair of (address, port) endpoints, so both directions
//! share one entry. A SYN without ACK on a key already seen carrying a non-SYN packet starts a
//! new connection (port reuse) and draws again; a retransmitted SYN keeps its draw. An RST
//! ends the entry; entries idle for `IDLE` are swept. Non-TCP packets get no delay (the
//! simulator's datagrams get none either).
//!
//! Every draw is logged ([`DelayBox::log`], [`Draw`]: time, the SYN's source and destination,
//! the one-way delay applied), so that the testbed can give each request record the delay its
//! connection really got, joined on the 4-tuple after the run (`crates/testbed/src/rtt_join.rs`)
//! rather than assumed from the order connections were opened.
//!
//! Validation: tests below (shared by both directions, SYN retransmission, port reuse,
//! the draw sequence equals `SizeDist::sample` on stream `delaybox`, matrix lookup, the log).

use crate::ipv4::Headers;
use sim::DelayBoxConfig;
use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddrV4};
use traffic::SizeDist;
use units::{Rng, SimDuration, SimTime};

/// Entries with no packet for this long are forgotten (4 × Linux's 60 s TIME_WAIT).
pub const IDLE: SimDuration = SimDuration::from_secs(240);

type Endpoint = (Ipv4Addr, u16);

struct Entry {
    one_way: SimDuration,
    /// A packet without SYN was seen (the handshake is over).
    established: bool,
    last_seen: SimTime,
}

enum Mode {
    Dist(SizeDist, Rng),
    Matrix {
        rtt: Vec<Vec<SimDuration>>,
        clients: Vec<Ipv4Addr>,
        servers: Vec<Ipv4Addr>,
    },
}

/// One DelayBox draw: a new connection's first SYN seen by the router.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// Router time of the SYN, ns since the epoch.
    pub at_ns: u64,
    /// The SYN's source (the connecting host's address and port).
    pub src: SocketAddrV4,
    /// The SYN's destination.
    pub dst: SocketAddrV4,
    /// One-way extra delay applied to every packet of the connection, both directions, ns
    /// (the drawn RTT / 2, integer division): the connection's extra RTT is twice this.
    pub one_way_ns: u64,
}

/// Per-connection delay table.
pub struct DelayBox {
    mode: Mode,
    conns: HashMap<(Endpoint, Endpoint), Entry>,
    next_sweep: SimTime,
    /// Connections that got a draw.
    pub draws: u64,
    /// Matrix lookups whose address was in neither host list.
    pub unknown_hosts: u64,
    /// Every draw, in the order made (one per entry of `draws`).
    pub log: Vec<Draw>,
}

impl DelayBox {
    /// The box for `cfg`; a matrix needs the host addresses (`clients[i]`, `servers[j]`) to
    /// cover its rows and columns.
    pub fn new(
        cfg: &DelayBoxConfig,
        seed: u64,
        clients: &[Ipv4Addr],
        servers: &[Ipv4Addr],
    ) -> Result<DelayBox, String> {
        let mode = match cfg {
            DelayBoxConfig::Distribution { rtt_s } => {
                Mode::Dist(rtt_s.clone(), units::stream(seed, "delaybox"))
            }
            DelayBoxConfig::Matrix { rtt } => {
                let cols = rtt.first().map_or(0, Vec::len);
                if clients.len() < rtt.len() || servers.len() < cols {
                    return Err(format!(
                        "topology.delaybox: a {}×{cols} matrix needs the addresses of {} client \
                         and {cols} server hosts (RouterSpec::client_hosts / server_hosts); got \
                         {} and {}",
                        rtt.len(),
                        rtt.len(),
                        clients.len(),
                        servers.len()
                    ));
                }
                Mode::Matrix {
                    rtt: rtt.clone(),
                    clients: clients.to_vec(),
                    servers: servers.to_vec(),
                }
            }
        };
        Ok(DelayBox {
            mode,
            conns: HashMap::new(),
            next_sweep: SimTime::ZERO + IDLE,
            draws: 0,
            unknown_hosts: 0,
            log: Vec::new(),
        })
    }

    /// One-way extra delay of the packet with headers `h` seen at `now`; zero for non-TCP
    /// packets and for TCP packets of a connection whose SYN was not seen.
    pub fn delay(&mut self, now: SimTime, h: &Headers) -> SimDuration {
        let Some(t) = h.tcp else {
            return SimDuration::ZERO;
        };
        if now >= self.next_sweep {
            self.conns
                .retain(|_, e| now.saturating_since(e.last_seen) < IDLE);
            self.next_sweep = now + IDLE;
        }
        let a = (h.src, h.src_port);
        let b = (h.dst, h.dst_port);
        let key = if a <= b { (a, b) } else { (b, a) };
        let new_conn = t.syn && !t.ack;
        if new_conn && self.conns.get(&key).is_none_or(|e| e.established) {
            let rtt = self.draw(h.src, h.dst);
            self.draws += 1;
            let one_way = SimDuration::from_nanos(rtt.as_nanos() / 2);
            self.log.push(Draw {
                at_ns: now.as_nanos(),
                src: SocketAddrV4::new(h.src, h.src_port),
                dst: SocketAddrV4::new(h.dst, h.dst_port),
                one_way_ns: one_way.as_nanos(),
            });
            self.conns.insert(
                key,
                Entry {
                    one_way,
                    established: false,
                    last_seen: now,
                },
            );
        }
        let Some(e) = self.conns.get_mut(&key) else {
            return SimDuration::ZERO;
        };
        e.last_seen = now;
        e.established |= !t.syn;
        let d = e.one_way;
        if t.rst {
            self.conns.remove(&key);
        }
        d
    }

    /// Connections in the table.
    pub fn len(&self) -> usize {
        self.conns.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// Extra RTT of a new connection from `from` (SYN sender) to `to`.
    fn draw(&mut self, from: Ipv4Addr, to: Ipv4Addr) -> SimDuration {
        match &mut self.mode {
            Mode::Dist(d, rng) => SimDuration::from_secs_f64(d.sample(rng)),
            Mode::Matrix {
                rtt,
                clients,
                servers,
            } => {
                let index = |a: Ipv4Addr| {
                    clients
                        .iter()
                        .position(|&c| c == a)
                        .or_else(|| servers.iter().position(|&s| s == a))
                };
                match (index(from), index(to)) {
                    (Some(i), Some(j)) => rtt
                        .get(i)
                        .and_then(|r| r.get(j))
                        .copied()
                        .unwrap_or(SimDuration::ZERO),
                    _ => {
                        self.unknown_hosts += 1;
                        SimDuration::ZERO
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipv4::{Ecn, TcpInfo, PROTO_TCP};

    fn seg(src: [u8; 4], sp: u16, dst: [u8; 4], dp: u16, syn: bool, ack: bool) -> Headers {
        Headers {
            total_len: 40,
            header_len: 20,
            protocol: PROTO_TCP,
            src: src.into(),
            dst: dst.into(),
            ecn: Ecn::NotEct,
            src_port: sp,
            dst_port: dp,
            tcp: Some(TcpInfo {
                syn,
                ack,
                fin: false,
                rst: false,
                payload: 0,
            }),
        }
    }

    const C: [u8; 4] = [10, 1, 0, 2];
    const S: [u8; 4] = [10, 2, 0, 2];

    fn uniform_box(seed: u64) -> DelayBox {
        let cfg = DelayBoxConfig::Distribution {
            rtt_s: SizeDist::Uniform {
                min: 0.0,
                max: 0.150,
            },
        };
        DelayBox::new(&cfg, seed, &[], &[]).unwrap()
    }

    #[test]
    fn draws_follow_the_simulators_stream_and_halve_the_rtt() {
        let mut b = uniform_box(1);
        // The simulator: SimDuration::from_secs_f64(rtt_s.sample(stream(seed, "delaybox"))) / 2.
        let mut rng = units::stream(1, "delaybox");
        let d = SizeDist::Uniform {
            min: 0.0,
            max: 0.150,
        };
        for port in 1000..1010 {
            let want = SimDuration::from_secs_f64(d.sample(&mut rng)).as_nanos() / 2;
            let got = b.delay(SimTime::ZERO, &seg(C, port, S, 80, true, false));
            assert_eq!(got.as_nanos(), want);
            assert!(want <= 75_000_000);
        }
        assert_eq!(b.draws, 10);
    }

    #[test]
    fn both_directions_share_the_draw_and_a_retransmitted_syn_keeps_it() {
        let mut b = uniform_box(3);
        let t = SimTime::from_millis(5);
        let d = b.delay(t, &seg(C, 40000, S, 80, true, false));
        assert!(d > SimDuration::ZERO);
        assert_eq!(b.delay(t, &seg(C, 40000, S, 80, true, false)), d); // SYN again
        assert_eq!(b.delay(t, &seg(S, 80, C, 40000, true, true)), d); // SYN-ACK
        assert_eq!(b.delay(t, &seg(C, 40000, S, 80, false, true)), d); // ACK
        assert_eq!(b.delay(t, &seg(S, 80, C, 40000, false, true)), d); // data back
        assert_eq!(b.draws, 1);
        // Another connection draws its own value.
        let d2 = b.delay(t, &seg(C, 40001, S, 80, true, false));
        assert_ne!(d2, d);
        // The same 4-tuple reused after the first connection was established: a new draw.
        let d3 = b.delay(t, &seg(C, 40000, S, 80, true, false));
        assert_eq!(b.draws, 3);
        assert_ne!(d3, d);
        // The log: one entry per draw, the SYN's direction, the delay applied.
        let c = |p| SocketAddrV4::new(C.into(), p);
        let s = SocketAddrV4::new(S.into(), 80);
        let logged: Vec<(SocketAddrV4, SocketAddrV4, u64)> =
            b.log.iter().map(|l| (l.src, l.dst, l.one_way_ns)).collect();
        assert_eq!(
            logged,
            [
                (c(40000), s, d.as_nanos()),
                (c(40001), s, d2.as_nanos()),
                (c(40000), s, d3.as_nanos())
            ]
        );
        assert!(b.log.iter().all(|l| l.at_ns == t.as_nanos()));
        // A packet of a connection never seen gets nothing; so does non-TCP.
        assert_eq!(
            b.delay(t, &seg(C, 5, S, 80, false, true)),
            SimDuration::ZERO
        );
        let mut udp = seg(C, 5, S, 80, false, false);
        udp.tcp = None;
        assert_eq!(b.delay(t, &udp), SimDuration::ZERO);
    }

    #[test]
    fn idle_entries_are_swept_and_rst_ends_one() {
        let mut b = uniform_box(3);
        b.delay(SimTime::ZERO, &seg(C, 1, S, 80, true, false));
        b.delay(SimTime::ZERO, &seg(C, 2, S, 80, true, false));
        let mut rst = seg(S, 80, C, 2, false, true);
        rst.tcp.as_mut().unwrap().rst = true;
        b.delay(SimTime::from_secs(1), &rst);
        assert_eq!(b.len(), 1);
        b.delay(SimTime::from_secs(241), &seg(C, 3, S, 80, true, false));
        assert_eq!(b.len(), 1); // port 1 swept (idle 241 s), port 3 new
    }

    #[test]
    fn matrix_rows_are_the_syn_senders_host_index() {
        let ms = SimDuration::from_millis;
        let cfg = DelayBoxConfig::Matrix {
            rtt: vec![vec![ms(10), ms(20)], vec![ms(30), ms(40)]],
        };
        let clients = [Ipv4Addr::new(10, 1, 0, 2), Ipv4Addr::new(10, 1, 0, 3)];
        let servers = [Ipv4Addr::new(10, 2, 0, 2), Ipv4Addr::new(10, 2, 0, 3)];
        let mut b = DelayBox::new(&cfg, 1, &clients, &servers).unwrap();
        let t = SimTime::ZERO;
        // client 1 → server 0: rtt[1][0] = 30 ms, 15 ms each way.
        assert_eq!(
            b.delay(t, &seg([10, 1, 0, 3], 9, [10, 2, 0, 2], 80, true, false)),
            ms(15)
        );
        assert_eq!(
            b.delay(t, &seg([10, 1, 0, 2], 9, [10, 2, 0, 3], 80, true, false)),
            ms(10)
        );
        assert!(DelayBox::new(&cfg, 1, &clients[..1], &servers).is_err());
    }
}
