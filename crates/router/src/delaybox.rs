//! The DelayBoxes of a testbed run for real TCP: each connection gets an extra round-trip
//! time, drawn when its first SYN passes the router and applied half in each direction.
//!
//! Two kinds of box, as in the simulator (`crates/sim/src/world.rs` `open`), which add up:
//!
//! - The dumbbell's box (`experiment::DelayBoxConfig`, scenario `[topology.delaybox]`), one-way delay
//!   = the drawn RTT / 2 (integer nanoseconds):
//!   - `Distribution { rtt_s }`: draws from stream `delaybox` of the run seed with
//!     `SizeDist::sample`, one draw per new connection in the order their SYNs arrive — the
//!     simulator draws from the same stream in the order connections open.
//!   - `Matrix { rtt }`: `rtt[i][j]` with i the SYN sender's and j the SYN receiver's host
//!     index, found from `RouterSpec::client_hosts` / `server_hosts` by address (a sender in
//!     either list; unknown addresses get no delay and are counted).
//! - The connection's workload's client and server boxes (`experiment::WorkloadDelayBox`, a
//!   workload's `delaybox = { client = …, server = … }`): drawn with the simulator's own
//!   sampler (`experiment::DelayBoxes`: PackMime's `PackMimeHTTPXmit` tables and FARIMA driver, or a
//!   distribution; streams `delaybox:{w}:client` / `delaybox:{w}:server`), one draw per box per
//!   new connection of workload w, in the order that workload's SYNs arrive. The workload is
//!   the SYN's destination port (`ports.rs`: workload w's servers listen on 80 + w); a SYN to
//!   any other port gets no workload box and is counted ([`DelayBox::unknown_workload`]).
//!
//! Where the delay is held: the simulator holds the client box at the client's first-hop router
//! and the server box at the server's, so on each direction one of them comes before the
//! bottleneck queue and one after; the router adds every box after the queue (with the
//! serialization and propagation, `path.rs`). A connection's RTT is the simulator's; the
//! queue sees each connection's packets shifted by a constant, not reordered.
//!
//! Connections are keyed on the unordered pair of (address, port) endpoints, so both directions
//! share one entry. A SYN without ACK on a key already seen carrying a non-SYN packet starts a
//! new connection (port reuse) and draws again; a retransmitted SYN keeps its draw. An RST
//! ends the entry; entries idle for `IDLE` are swept. Non-TCP packets get no delay (the
//! simulator's datagrams get none either).
//!
//! Every draw is logged ([`DelayBox::log`], [`Draw`]: time, the SYN's source and destination,
//! the workload, each box's one-way delay and their sum), so that the testbed can give each
//! request record the delay its connection really got, joined on the 4-tuple after the run
//! (`crates/testbed/src/rtt_join.rs`) rather than assumed from the order connections were
//! opened.
//!
//! Validation: tests below (shared by both directions, SYN retransmission, port reuse,
//! the draw sequence equals `SizeDist::sample` on stream `delaybox`, matrix lookup, the log,
//! per-workload boxes: the simulator's sequence per workload, keyed per connection, PackMime's
//! summary statistics).

use crate::ipv4::Headers;
use crate::ports;
use experiment::{DelayBoxConfig, DelayBoxes, WorkloadDelayBox};
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
    /// One-way extra delay applied to every packet of the connection, both directions, ns:
    /// the sum of the three boxes below (the connection's extra RTT is twice this).
    pub one_way_ns: u64,
    /// Workload of the connection (from the SYN's destination port, `ports.rs`); `None` when
    /// the port is no workload's.
    pub workload: Option<u32>,
    /// The dumbbell box's share of `one_way_ns` (its drawn RTT / 2, integer division), ns.
    pub topology_ns: u64,
    /// The workload's client box's one-way delay, ns (0 without one).
    pub client_box_ns: u64,
    /// The workload's server box's one-way delay, ns (0 without one).
    pub server_box_ns: u64,
}

/// Per-connection delay table.
pub struct DelayBox {
    /// The dumbbell's box, if any.
    mode: Option<Mode>,
    /// The workloads' boxes and the number of workloads.
    boxes: Option<(DelayBoxes, usize)>,
    conns: HashMap<(Endpoint, Endpoint), Entry>,
    next_sweep: SimTime,
    /// Connections that got a draw.
    pub draws: u64,
    /// Matrix lookups whose address was in neither host list.
    pub unknown_hosts: u64,
    /// New connections whose SYN went to a port of no workload (no workload box drawn; only
    /// counted when some workload has a box).
    pub unknown_workload: u64,
    /// Every draw, in the order made (one per entry of `draws`).
    pub log: Vec<Draw>,
}

impl DelayBox {
    /// Whether a run with the dumbbell box `topology` and the workloads' boxes `workloads`
    /// delays anything (a router without boxes keeps no connection table).
    pub fn any(topology: Option<&DelayBoxConfig>, workloads: &[WorkloadDelayBox]) -> bool {
        topology.is_some()
            || workloads
                .iter()
                .any(|b| b.client.is_some() || b.server.is_some())
    }

    /// The boxes of a run: the dumbbell's `topology` box (a matrix needs the host addresses,
    /// `clients[i]` and `servers[j]`, to cover its rows and columns) and `workloads[w]` for
    /// the connections of workload w (index = the scenario's workload order).
    pub fn new(
        topology: Option<&DelayBoxConfig>,
        workloads: &[WorkloadDelayBox],
        seed: u64,
        clients: &[Ipv4Addr],
        servers: &[Ipv4Addr],
    ) -> Result<DelayBox, String> {
        let mode = match topology {
            None => None,
            Some(cfg) => Some(Self::topology_mode(cfg, seed, clients, servers)?),
        };
        let boxes = workloads
            .iter()
            .any(|b| b.client.is_some() || b.server.is_some())
            .then(|| {
                (
                    DelayBoxes::new(workloads, workloads.len(), seed),
                    workloads.len(),
                )
            });
        Ok(DelayBox {
            mode,
            boxes,
            conns: HashMap::new(),
            next_sweep: SimTime::ZERO + IDLE,
            draws: 0,
            unknown_hosts: 0,
            unknown_workload: 0,
            log: Vec::new(),
        })
    }

    fn topology_mode(
        cfg: &DelayBoxConfig,
        seed: u64,
        clients: &[Ipv4Addr],
        servers: &[Ipv4Addr],
    ) -> Result<Mode, String> {
        Ok(match cfg {
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
            let topology_ns = self.draw(h.src, h.dst).as_nanos() / 2;
            let mut workload = None;
            let [mut client_box_ns, mut server_box_ns] = [0, 0];
            if let Some((b, n)) = &mut self.boxes {
                match ports::workload_of_port(h.dst_port, *n) {
                    Some(w) => {
                        let [c, s] = b.draw(w);
                        workload = Some(w as u32);
                        (client_box_ns, server_box_ns) = (c.as_nanos(), s.as_nanos());
                    }
                    None => self.unknown_workload += 1,
                }
            }
            self.draws += 1;
            // Saturating, as the simulator's sum (a heavy-tailed draw may be huge).
            let one_way = SimDuration::from_nanos(
                topology_ns
                    .saturating_add(client_box_ns)
                    .saturating_add(server_box_ns),
            );
            self.log.push(Draw {
                at_ns: now.as_nanos(),
                src: SocketAddrV4::new(h.src, h.src_port),
                dst: SocketAddrV4::new(h.dst, h.dst_port),
                one_way_ns: one_way.as_nanos(),
                workload,
                topology_ns,
                client_box_ns,
                server_box_ns,
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

    /// Extra RTT of the dumbbell's box for a new connection from `from` (SYN sender) to `to`
    /// (zero without that box).
    fn draw(&mut self, from: Ipv4Addr, to: Ipv4Addr) -> SimDuration {
        match &mut self.mode {
            None => SimDuration::ZERO,
            Some(Mode::Dist(d, rng)) => SimDuration::from_secs_f64(d.sample(rng)),
            Some(Mode::Matrix {
                rtt,
                clients,
                servers,
            }) => {
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
        DelayBox::new(Some(&cfg), &[], seed, &[], &[]).unwrap()
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
        let mut b = DelayBox::new(Some(&cfg), &[], 1, &clients, &servers).unwrap();
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
        assert!(DelayBox::new(Some(&cfg), &[], 1, &clients[..1], &servers).is_err());
    }
    fn packmime_boxes(rate: f64) -> WorkloadDelayBox {
        WorkloadDelayBox::packmime(rate)
    }

    #[test]
    fn workload_boxes_are_the_simulators_draws_per_workload_plus_the_dumbbells() {
        // Two PackMime workloads (seed 001's twin: the forward cloud on port 80, the reverse
        // cloud on port 81) and a constant 20 ms dumbbell box.
        let wl = [packmime_boxes(101.0), packmime_boxes(101.0)];
        let topo = DelayBoxConfig::Distribution {
            rtt_s: SizeDist::Constant { value: 0.020 },
        };
        let mut b = DelayBox::new(Some(&topo), &wl, 1, &[], &[]).unwrap();
        let mut sim_boxes = DelayBoxes::new(&wl, 2, 1);
        let t = SimTime::from_millis(1);
        // SYNs of workload 0 (client side → server side) and of workload 1 (its clients are
        // server-side hosts), interleaved unevenly.
        let order = [0usize, 1, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0];
        for (k, &w) in order.iter().enumerate() {
            let port = 30000 + k as u16;
            let syn = if w == 0 {
                seg(C, port, S, 80, true, false)
            } else {
                seg(S, port, C, 81, true, false)
            };
            let [c, s] = sim_boxes.draw(w);
            let want = 10_000_000 + c.as_nanos() + s.as_nanos();
            assert_eq!(b.delay(t, &syn).as_nanos(), want, "SYN {k}");
            let l = b.log.last().unwrap();
            assert_eq!(l.workload, Some(w as u32));
            assert_eq!(
                (
                    l.topology_ns,
                    l.client_box_ns,
                    l.server_box_ns,
                    l.one_way_ns
                ),
                (10_000_000, c.as_nanos(), s.as_nanos(), want)
            );
            assert!(c > SimDuration::ZERO && s > SimDuration::ZERO);
        }
        assert_eq!((b.draws, b.unknown_workload), (12, 0));
    }

    #[test]
    fn workload_boxes_are_keyed_per_connection_and_unknown_ports_get_none() {
        let wl = [packmime_boxes(50.0)];
        let mut b = DelayBox::new(None, &wl, 9, &[], &[]).unwrap();
        let t = SimTime::ZERO;
        let d = b.delay(t, &seg(C, 40000, S, 80, true, false));
        assert!(d > SimDuration::ZERO);
        // The whole connection, both directions, and a retransmitted SYN: the same delay.
        assert_eq!(b.delay(t, &seg(C, 40000, S, 80, true, false)), d);
        assert_eq!(b.delay(t, &seg(S, 80, C, 40000, true, true)), d);
        assert_eq!(b.delay(t, &seg(C, 40000, S, 80, false, true)), d);
        assert_eq!(b.delay(t, &seg(S, 80, C, 40000, false, true)), d);
        // Concurrent connections each draw their own (PackMime draws are continuous: two
        // equal draws in a row would mean one was reused).
        let d2 = b.delay(t, &seg(C, 40001, S, 80, true, false));
        assert_ne!(d2, d);
        assert_eq!(b.delay(t, &seg(S, 80, C, 40000, false, true)), d);
        assert_eq!(b.delay(t, &seg(S, 80, C, 40001, false, true)), d2);
        // Port 81 is no workload's in a one-workload run: no box, counted.
        assert_eq!(
            b.delay(t, &seg(C, 40002, S, 81, true, false)),
            SimDuration::ZERO
        );
        assert_eq!((b.draws, b.unknown_workload), (3, 1));
        assert_eq!(b.log[2].workload, None);
        assert_eq!(
            b.log.iter().map(|l| l.one_way_ns).collect::<Vec<_>>(),
            [d.as_nanos(), d2.as_nanos(), 0]
        );
        // Without any box there is nothing to build.
        assert!(!DelayBox::any(None, &[WorkloadDelayBox::default()]));
        assert!(DelayBox::any(None, &wl));
    }

    #[test]
    fn packmime_boxes_give_seed_002s_base_rtt_distribution() {
        // Seed 002 §III-B (PackMime MODEL.md §3.8): client + server boxes add a minimum
        // ≈ 1 ms, a median ≈ 65 ms and a mean ≈ 106 ms of RTT (MODEL.md's computed means:
        // 26.75 + 80.97 = 107.7 ms), drawn per connection as SYNs arrive.
        let wl = [packmime_boxes(101.0)];
        let mut b = DelayBox::new(None, &wl, 5, &[], &[]).unwrap();
        let n = 100_000u32;
        let mut rtt_ms: Vec<f64> = (0..n)
            .map(|k| {
                let (hi, lo) = ((k >> 8) as u8, k as u8);
                let syn = seg(
                    [10, 1, hi, lo],
                    1024 + (k % 60000) as u16,
                    S,
                    80,
                    true,
                    false,
                );
                2.0 * b.delay(SimTime::ZERO, &syn).as_secs_f64() * 1000.0
            })
            .collect();
        assert_eq!(b.draws, u64::from(n));
        rtt_ms.sort_by(f64::total_cmp);
        let (min, median) = (rtt_ms[0], rtt_ms[n as usize / 2]);
        let mean = rtt_ms.iter().sum::<f64>() / f64::from(n);
        assert!((1.0..1.2).contains(&min), "min {min}");
        assert!((60.0..70.0).contains(&median), "median {median}");
        assert!((95.0..120.0).contains(&mean), "mean {mean}");
    }
}
