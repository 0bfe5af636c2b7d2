//! `[monitor] pcap`: one pcap file per listed link direction, `{link}.pcap` in the run directory,
//! with IPv4/TCP (or IPv4/UDP) headers synthesized from the simulator's packets, so a simulator
//! run reads in tcpdump/Wireshark as the testbed router's pcaps do (`crates/router/src/pcap.rs`,
//! whose conventions this follows).
//!
//! File: pcap 2.4, LINKTYPE_RAW (101: each record starts at the IPv4 header), nanosecond
//! timestamps, header snaplen 65535 (as the router), little-endian byte order (the same bytes on
//! every machine), written with the `pcap-file` crate through a 64 KB buffer.
//!
//! Which packets and when: every packet the link *sends* (after the queue: dropped packets never
//! appear, as on the router, whose pcap is written when a packet leaves its emulated path), with
//! its CE mark if the queue gave it one. Timestamp = simulated time (from the run's start) at
//! which the packet leaves the link at its far end: end of serialization + the link's
//! propagation delay + the DelayBox delay its connection gets at the far node, if any — the time
//! of its arrival event there. The router stamps the same instant of its emulated path (end of
//! serialization + delay + access delays + DelayBox), so on a dumbbell the router's stamps are
//! later by `2 × access_delay` (it emulates both access links' propagation after the queue), and
//! on `bottleneck_rev` also by the connection's one-way DelayBox delay (the simulator's DelayBox
//! sits at router C, before that queue). Records are in timestamp order (ties in sending
//! order); packets still on the wire when the run ends are not written (nor by the router).
//!
//! Headers (payload not stored: each record holds the headers only, `orig_len` the whole packet):
//! - IPv4: version 4, IHL 5, DSCP 0, ECN `10` (ECT(0)) on an ECN-capable segment, `11` (CE)
//!   once marked, else `00`; total length = the simulator's wire size (`Segment::wire_bytes`;
//!   +2 with SACK blocks, below), identification 0, DF, TTL 64, header checksum (RFC 791).
//! - Addresses: host k of the topology's host group g (in the order the topology lists its
//!   groups: dumbbell `clients`, `servers`; parking lot: the clouds in file order) is
//!   `10.(g+1).0.0 + 10 + k` — the testbed's scheme (`testbed::netns::host_addr`: client host i
//!   10.1.0.(10+i), server host j 10.2.0.(10+j)).
//! - TCP: server port 80 (the testbed's server), client port 1024 + (`conn_id` mod 64512)
//!   (`conn_id` as in requests.parquet; the testbed's client port is the kernel's choice, so
//!   match connections by addresses and order, not port). Sequence and acknowledgment numbers
//!   are the simulator's (initial sequence number 0) mod 2^32; acknowledgment 0 without ACK.
//!   Flags SYN, ACK, FIN, ECE, CWR as the segment carries them (the simulator sends no PSH or
//!   RST). Window = the advertised window in bytes, at most 65535 (no window scaling).
//!   Options as Linux lays them out: timestamps as NOP, NOP, TS (12 bytes, as the simulator
//!   counts them; TSval/TSecr = the simulator's values in whole milliseconds, Linux's tick); on
//!   a SYN with SACK-permitted and timestamps, SACK-permitted, TS (12); n SACK blocks as NOP,
//!   NOP, SACK (4 + 8n). A segment with SACK blocks is therefore 2 bytes longer in the pcap
//!   (IPv4 total length and `orig_len`) than the simulator counts it: ns-2 counts the option
//!   unpadded, 2 + 8n, and a TCP header is a multiple of 4 bytes. Not written: MSS and window
//!   scale (the simulator has neither), SACK-permitted without timestamps (the simulator counts
//!   no bytes for it). Checksum over the pseudo-header and the header with an all-zero payload
//!   (what the testbed's programs send).
//! - Datagrams (CBR, ON/OFF): UDP from the workload's server host to its client host, both
//!   ports 9000 + workload index, length = wire size − 20, checksum over a zero payload.
//! - A total length above 65535 (an MSS near 64 KB) is written as 65535 (IPv4's field and the
//!   header snaplen), the record's `orig_len` likewise.
//!
//! Names: an entry of `[monitor] pcap` is a link's name, one direction, or a two-way name giving
//! both directions (`experiment::pcap_links`); checked when the scenario is read ([`check`]).
//! The file header, addresses and ports are shared with the router (`experiment::pcap_format`).
//!
//! Cost: nothing unless asked — the engine's transmit path tests one `Option` (`World::pcap`).
//!
//! Validation: `crates/sim/tests/pcap.rs` (a hand-computed dumbbell run read back with
//! `pcap-file`: times, lengths, flags, sequence numbers, checksums; two runs, same bytes; name
//! errors), `crates/scenario/tests/bad_files.rs` (an unknown link), python/tests/test_pcap.py.

use crate::config::Experiment;
use crate::network::Network;
use crate::output::SimError;
use crate::packet::{Packet, DATAGRAM};
use pcap_file::pcap::{PcapPacket, PcapWriter};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tcp::{Flags, Segment};
use traffic::WorkloadConfig;
use units::SimTime;

pub use experiment::pcap_format::{
    client_port, file_header, host_addr, DATAGRAM_PORT, FIRST_CLIENT_PORT, SERVER_PORT, SNAPLEN,
};
pub use experiment::pcap_links::resolve;

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
/// Longest header record: IPv4 20 + TCP 60.
const MAX_HEADERS: usize = 80;

/// Check `exp.monitor.pcap` against `exp`'s topology before anything runs
/// (`experiment::pcap_links::check`), its refusal as an engine error.
pub fn check(exp: &Experiment) -> Result<(), SimError> {
    experiment::pcap_links::check(exp).map_err(|e| SimError {
        key: e.key,
        reason: e.reason,
    })
}

/// IPv4 address (as u32) of every node; 0 for a node in no host group (a router).
fn addresses(nodes: u32, groups: &[(String, Vec<u32>)]) -> Result<Vec<u32>, SimError> {
    let mut addr = vec![0u32; nodes as usize];
    for (g, (name, hosts)) in groups.iter().enumerate() {
        for (k, &n) in hosts.iter().enumerate() {
            let a = host_addr(g, k).ok_or_else(|| SimError {
                key: "monitor.pcap".into(),
                reason: format!(
                    "host {k} of group {name:?} has no address: pcap addresses 10.G.x.y cover \
                     254 host groups of 65526 hosts"
                ),
            })?;
            if addr[n as usize] == 0 {
                addr[n as usize] = u32::from(a);
            }
        }
    }
    Ok(addr)
}

/// Per workload: the node datagrams of workload w leave from (its flow's server host), or
/// `u32::MAX` for a connection workload. `hosts` = (client nodes, server nodes) per workload.
pub(crate) fn datagram_sources(
    workloads: &[WorkloadConfig],
    hosts: &[(Vec<u32>, Vec<u32>)],
) -> Vec<u32> {
    workloads
        .iter()
        .zip(hosts)
        .map(|(w, h)| match w {
            WorkloadConfig::Cbr(f) | WorkloadConfig::OnOff { flow: f, .. } => {
                h.1[f.server as usize]
            }
            _ => u32::MAX,
        })
        .collect()
}

/// One header record waiting for its turn (ordered by time, then sending order).
struct Rec {
    ts: u64,
    seq: u64,
    orig_len: u32,
    len: u8,
    hdr: [u8; MAX_HEADERS],
}

impl PartialEq for Rec {
    fn eq(&self, o: &Self) -> bool {
        (self.ts, self.seq) == (o.ts, o.seq)
    }
}
impl Eq for Rec {}
impl PartialOrd for Rec {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Rec {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.ts, self.seq).cmp(&(o.ts, o.seq))
    }
}

/// The pcap of one link direction.
struct LinkFile {
    path: PathBuf,
    w: Option<PcapWriter<BufWriter<File>>>,
    /// The link's propagation delay, ns: a packet sent at t leaves at t + delay or later.
    delay: u64,
    /// Records not yet written: a later packet may leave earlier (a DelayBox delay).
    pending: BinaryHeap<Reverse<Rec>>,
}

/// What a connection slot held, for packets still in the network after it closed.
#[derive(Clone, Copy, Default)]
struct ConnInfo {
    gen: u32,
    known: bool,
    conn_id: u64,
    client: u32,
    server: u32,
}

/// The pcap writers of a run (`World::pcap`).
pub struct Tap {
    /// Per link: index into `files`, or `u32::MAX`.
    by_link: Vec<u32>,
    files: Vec<LinkFile>,
    /// IPv4 address of each node.
    addr: Vec<u32>,
    /// Per workload: datagram source node (`datagram_sources`).
    dgram_src: Vec<u32>,
    /// Per connection slot: the last connection seen in it.
    conns: Vec<ConnInfo>,
    seq: u64,
    /// First write error (reported by `finish`).
    err: Option<String>,
}

impl Tap {
    /// Create `{link}.pcap` in `dir` for every link `entries` select in `net`; `groups` are the
    /// topology's host groups, `dgram_src` from [`datagram_sources`].
    pub(crate) fn create(
        dir: &Path,
        entries: &[String],
        net: &Network,
        groups: &[(String, Vec<u32>)],
        dgram_src: Vec<u32>,
    ) -> Result<Tap, SimError> {
        let names: Vec<&str> = net.links.iter().map(|l| l.name.as_str()).collect();
        let links = resolve(entries, &names).map_err(|(i, reason)| SimError {
            key: format!("monitor.pcap[{i}]"),
            reason,
        })?;
        let mut by_link = vec![u32::MAX; net.links.len()];
        let mut files = Vec::new();
        for l in links {
            let path = dir.join(format!("{}.pcap", names[l]));
            let err = |e: String| SimError {
                key: "monitor.pcap".into(),
                reason: format!("{}: {e}", path.display()),
            };
            let f = File::create(&path).map_err(|e| err(e.to_string()))?;
            let w = PcapWriter::with_header(BufWriter::with_capacity(1 << 16, f), file_header())
                .map_err(|e| err(e.to_string()))?;
            by_link[l] = files.len() as u32;
            files.push(LinkFile {
                path,
                w: Some(w),
                delay: net.links[l].delay.as_nanos(),
                pending: BinaryHeap::new(),
            });
        }
        Ok(Tap {
            by_link,
            files,
            addr: addresses(net.nodes, groups)?,
            dgram_src,
            conns: Vec::new(),
            seq: 0,
            err: None,
        })
    }

    /// Link `l` starts sending packet `p` at `now`; it leaves the link at `leaves`. `slots` are
    /// the world's connection slots (for the connection's hosts and id).
    #[inline]
    pub(crate) fn on_transmit(
        &mut self,
        l: u32,
        now: SimTime,
        leaves: SimTime,
        p: &Packet,
        slots: &[crate::conn::Slot],
    ) {
        let f = self.by_link[l as usize];
        if f != u32::MAX {
            self.record(f as usize, now, leaves, p, slots);
        }
    }

    #[inline(never)]
    fn record(
        &mut self,
        f: usize,
        now: SimTime,
        leaves: SimTime,
        p: &Packet,
        slots: &[crate::conn::Slot],
    ) {
        // Everything pending that leaves no later than any packet sent from now on can go.
        let horizon = now.as_nanos().saturating_add(self.files[f].delay);
        self.flush(f, horizon);
        let mut rec = Rec {
            ts: leaves.as_nanos(),
            seq: self.seq,
            orig_len: 0,
            len: 0,
            hdr: [0; MAX_HEADERS],
        };
        self.seq += 1;
        if p.conn == DATAGRAM {
            let w = p.gen as usize;
            let src = self.addr_of(self.dgram_src.get(w).copied().unwrap_or(u32::MAX));
            let port = DATAGRAM_PORT.wrapping_add(w as u16);
            let (len, orig) = udp_headers(&mut rec.hdr, src, self.addr_of(p.dst), port, &p.seg);
            (rec.len, rec.orig_len) = (len, orig);
        } else {
            let ci = p.conn as usize;
            if self.conns.len() <= ci {
                self.conns.resize(ci + 1, ConnInfo::default());
            }
            let slot = &slots[ci];
            match slot.conn.as_deref() {
                Some(c) if slot.gen == p.gen => {
                    self.conns[ci] = ConnInfo {
                        gen: p.gen,
                        known: true,
                        conn_id: c.record.conn_id,
                        client: c.client_node,
                        server: c.server_node,
                    }
                }
                // Closed: use what was seen of it; a connection never seen on a pcap link
                // before it closed (not expected) gets 0.0.0.0 and port 0 for its other end.
                _ if self.conns[ci].known && self.conns[ci].gen == p.gen => {}
                _ => {
                    self.conns[ci] = ConnInfo {
                        gen: p.gen,
                        known: false,
                        conn_id: 0,
                        client: if p.to_server { u32::MAX } else { p.dst },
                        server: if p.to_server { p.dst } else { u32::MAX },
                    }
                }
            }
            let c = self.conns[ci];
            let (client, server) = (self.addr_of(c.client), self.addr_of(c.server));
            let cport = if c.known { client_port(c.conn_id) } else { 0 };
            let (src, dst, sport, dport) = if p.to_server {
                (client, server, cport, SERVER_PORT)
            } else {
                (server, client, SERVER_PORT, cport)
            };
            let (len, orig) = tcp_headers(&mut rec.hdr, src, dst, sport, dport, &p.seg);
            (rec.len, rec.orig_len) = (len, orig);
        }
        self.files[f].pending.push(Reverse(rec));
    }

    fn addr_of(&self, node: u32) -> [u8; 4] {
        self.addr
            .get(node as usize)
            .copied()
            .unwrap_or(0)
            .to_be_bytes()
    }

    /// Write the pending records of file `f` that leave at or before `until` (ns).
    fn flush(&mut self, f: usize, until: u64) {
        let file = &mut self.files[f];
        while file.pending.peek().is_some_and(|r| r.0.ts <= until) {
            let Reverse(r) = file.pending.pop().expect("peeked");
            let Some(w) = file.w.as_mut() else { continue };
            let pkt = PcapPacket::new(
                Duration::from_nanos(r.ts),
                r.orig_len,
                &r.hdr[..r.len as usize],
            );
            if let Err(e) = w.write_packet(&pkt) {
                self.err
                    .get_or_insert_with(|| format!("{}: {e}", file.path.display()));
                file.w = None;
            }
        }
    }

    /// End of the run at `end`: write what left by then, flush and close every file; returns
    /// their paths. A write error is a `SimError` naming the file (key `monitor.pcap`).
    pub(crate) fn finish(mut self, end: SimTime) -> Result<Vec<PathBuf>, SimError> {
        for f in 0..self.files.len() {
            self.flush(f, end.as_nanos());
            let file = &mut self.files[f];
            if let Some(w) = file.w.take() {
                if let Err(e) = w.into_writer().flush() {
                    self.err
                        .get_or_insert_with(|| format!("{}: {e}", file.path.display()));
                }
            }
        }
        match self.err {
            Some(reason) => Err(SimError {
                key: "monitor.pcap".into(),
                reason,
            }),
            None => Ok(self.files.into_iter().map(|f| f.path).collect()),
        }
    }
}

/// Internet checksum (RFC 1071) of `sum` (a running 32-bit sum of 16-bit words) folded.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Sum of `b`'s 16-bit big-endian words (`b` of even length).
fn words(b: &[u8]) -> u32 {
    b.chunks_exact(2)
        .map(|w| u16::from_be_bytes([w[0], w[1]]) as u32)
        .sum()
}

/// The IPv4 header at `h[..20]`: total length `total`, protocol `proto`, ECN bits of `seg`.
fn ipv4_header(h: &mut [u8], total: u16, proto: u8, src: [u8; 4], dst: [u8; 4], seg: &Segment) {
    let ecn = seg.ecn as u8;
    h[0] = 0x45;
    h[1] = ecn;
    h[2..4].copy_from_slice(&total.to_be_bytes());
    h[4..6].copy_from_slice(&[0, 0]);
    h[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    h[8] = 64;
    h[9] = proto;
    h[10..12].copy_from_slice(&[0, 0]);
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let c = fold(words(&h[..20]));
    h[10..12].copy_from_slice(&c.to_be_bytes());
}

/// Pseudo-header sum (RFC 9293 §3.1, RFC 768) for an L4 length `len`.
fn pseudo(src: [u8; 4], dst: [u8; 4], proto: u8, len: u16) -> u32 {
    words(&src) + words(&dst) + proto as u32 + len as u32
}

/// IPv4 + TCP headers of `seg` into `h`; returns (bytes written, IPv4 total length).
fn tcp_headers(
    h: &mut [u8; MAX_HEADERS],
    src: [u8; 4],
    dst: [u8; 4],
    sport: u16,
    dport: u16,
    seg: &Segment,
) -> (u8, u32) {
    let mut opt = [0u8; 40];
    let mut n = 0usize;
    let mut put = |b: &[u8], n: &mut usize| {
        opt[*n..*n + b.len()].copy_from_slice(b);
        *n += b.len();
    };
    let syn = seg.flags.contains(Flags::SYN);
    if let Some(ts) = seg.ts {
        match syn && seg.sack_ok {
            true => put(&[4, 2], &mut n),  // SACK-permitted
            false => put(&[1, 1], &mut n), // NOP, NOP
        }
        put(&[8, 10], &mut n);
        put(&((ts.val / 1_000_000) as u32).to_be_bytes(), &mut n);
        put(&((ts.ecr / 1_000_000) as u32).to_be_bytes(), &mut n);
    }
    if !seg.sack.is_empty() {
        put(&[1, 1, 5, 2 + 8 * seg.sack.len() as u8], &mut n);
        for &(s, e) in seg.sack.as_slice() {
            put(&(s as u32).to_be_bytes(), &mut n);
            put(&(e as u32).to_be_bytes(), &mut n);
        }
    }
    debug_assert_eq!(n % 4, 0);
    let thl = 20 + n;
    let total = (20 + thl as u32 + seg.len).min(SNAPLEN);
    ipv4_header(&mut h[..20], total as u16, PROTO_TCP, src, dst, seg);
    let t = &mut h[20..20 + thl];
    t[0..2].copy_from_slice(&sport.to_be_bytes());
    t[2..4].copy_from_slice(&dport.to_be_bytes());
    t[4..8].copy_from_slice(&(seg.seq as u32).to_be_bytes());
    let ack = seg.flags.contains(Flags::ACK);
    t[8..12].copy_from_slice(&(if ack { seg.ack as u32 } else { 0 }).to_be_bytes());
    t[12] = ((thl / 4) as u8) << 4;
    let f = seg.flags;
    t[13] = [
        (Flags::FIN, 0x01),
        (Flags::SYN, 0x02),
        (Flags::ACK, 0x10),
        (Flags::ECE, 0x40),
        (Flags::CWR, 0x80),
    ]
    .iter()
    .filter(|(fl, _)| f.contains(*fl))
    .fold(0, |a, (_, b)| a | b);
    t[14..16].copy_from_slice(&(seg.wnd.min(65535) as u16).to_be_bytes());
    t[16..20].copy_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    t[20..].copy_from_slice(&opt[..n]);
    let l4_len = (total - 20) as u16;
    let c = fold(pseudo(src, dst, PROTO_TCP, l4_len) + words(t));
    t[16..18].copy_from_slice(&c.to_be_bytes());
    ((20 + thl) as u8, total)
}

/// IPv4 + UDP headers of datagram `seg` (wire size `seg.wire_bytes()`) into `h`; returns
/// (bytes written, IPv4 total length).
fn udp_headers(
    h: &mut [u8; MAX_HEADERS],
    src: [u8; 4],
    dst: [u8; 4],
    port: u16,
    seg: &Segment,
) -> (u8, u32) {
    let total = seg.wire_bytes().min(SNAPLEN);
    ipv4_header(&mut h[..20], total as u16, PROTO_UDP, src, dst, seg);
    let l4_len = (total - 20) as u16;
    let u = &mut h[20..28];
    u[0..2].copy_from_slice(&port.to_be_bytes());
    u[2..4].copy_from_slice(&port.to_be_bytes());
    u[4..6].copy_from_slice(&l4_len.to_be_bytes());
    u[6..8].copy_from_slice(&[0, 0]);
    let c = match fold(pseudo(src, dst, PROTO_UDP, l4_len) + words(u)) {
        0 => 0xffff, // RFC 768: a computed zero is sent as all ones
        c => c,
    };
    u[6..8].copy_from_slice(&c.to_be_bytes());
    (28, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcp::{Ecn, SackBlocks, Timestamps};

    /// RFC 1071 check: the one's-complement sum of a header with its checksum is 0xffff.
    fn sums_to_ones(b: &[u8]) -> bool {
        let mut s = words(b);
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        s == 0xffff
    }

    #[test]
    fn a_syn_with_sack_permitted_and_timestamps() {
        // A Linux-profile SYN: 40 + 12 = 52 bytes as the simulator counts.
        let seg = Segment {
            flags: Flags::SYN,
            wnd: 65535,
            sack_ok: true,
            ts: Some(Timestamps {
                val: 2_500_000,
                ecr: 0,
            }),
            ..Segment::default()
        };
        assert_eq!(seg.wire_bytes(), 52);
        let mut h = [0u8; MAX_HEADERS];
        let (n, total) = tcp_headers(&mut h, [10, 1, 0, 10], [10, 2, 0, 10], 1024, 80, &seg);
        assert_eq!((n, total), (52, 52));
        assert_eq!(&h[..4], &[0x45, 0, 0, 52]);
        assert!(sums_to_ones(&h[..20]));
        // data offset 8 words; flags SYN; options SACK-permitted, TS 2 ms / 0.
        assert_eq!(h[32], 8 << 4);
        assert_eq!(h[33], 0x02);
        assert_eq!(&h[40..52], &[4, 2, 8, 10, 0, 0, 0, 2, 0, 0, 0, 0]);
        // TCP checksum with the pseudo-header (length 32): sums to all ones.
        let mut p = Vec::from(&h[12..20]);
        p.extend_from_slice(&[0, 6, 0, 32]);
        p.extend_from_slice(&h[20..52]);
        assert!(sums_to_ones(&p));
    }

    #[test]
    fn the_ip_ecn_field_carries_the_codepoint() {
        // RFC 3168 §5: the TOS byte's two low bits; the header checksum stays valid.
        for (ecn, bits) in [
            (Ecn::NotEct, 0),
            (Ecn::Ect1, 1),
            (Ecn::Ect0, 2),
            (Ecn::Ce, 3),
        ] {
            let seg = Segment {
                flags: Flags::ACK,
                len: 100,
                ecn,
                ..Segment::default()
            };
            let mut h = [0u8; MAX_HEADERS];
            tcp_headers(&mut h, [10, 1, 0, 10], [10, 2, 0, 10], 1024, 80, &seg);
            assert_eq!(h[1], bits, "{ecn:?}");
            assert!(sums_to_ones(&h[..20]));
        }
    }

    #[test]
    fn sack_blocks_with_and_without_timestamps() {
        let sack: SackBlocks = [(2921, 4381)].into_iter().collect();
        let mut seg = Segment {
            flags: Flags::ACK | Flags::ECE,
            ack: 1461,
            sack,
            ts: Some(Timestamps {
                val: 7_900_000,
                ecr: 3_000_000,
            }),
            ..Segment::default()
        };
        // The simulator counts 40 + 12 + 10 = 62; written as Linux does, NOP NOP TS NOP NOP
        // SACK: 40 + 12 + 12 = 64.
        assert_eq!(seg.wire_bytes(), 62);
        let mut h = [0u8; MAX_HEADERS];
        assert_eq!(
            tcp_headers(&mut h, [0; 4], [0; 4], 80, 1024, &seg),
            (64, 64)
        );
        assert_eq!((h[32], h[33]), (11 << 4, 0x50)); // 44-byte TCP header; ACK + ECE
        assert_eq!(&h[40..52], &[1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 3]);
        assert_eq!(&h[52..56], &[1, 1, 5, 10]);
        assert_eq!(&h[56..64], &[0, 0, 0x0b, 0x69, 0, 0, 0x11, 0x1d]);
        // Without timestamps: NOP, NOP, SACK = 52, again 2 more than the simulator's 50.
        seg.ts = None;
        assert_eq!(seg.wire_bytes(), 50);
        assert_eq!(
            tcp_headers(&mut h, [0; 4], [0; 4], 80, 1024, &seg),
            (52, 52)
        );
        assert_eq!(&h[40..44], &[1, 1, 5, 10]);
    }

    #[test]
    fn a_datagram_has_udp_headers_and_its_wire_size() {
        let seg = Segment {
            len: 210 - 40,
            ..Segment::default()
        };
        let mut h = [0u8; MAX_HEADERS];
        let (n, total) = udp_headers(&mut h, [10, 2, 0, 10], [10, 1, 0, 10], 9001, &seg);
        assert_eq!((n, total), (28, 210));
        assert_eq!(h[9], 17);
        assert_eq!(&h[20..26], &[0x23, 0x29, 0x23, 0x29, 0, 190]);
        assert!(sums_to_ones(&h[..20]));
        let mut p = Vec::from(&h[12..20]);
        p.extend_from_slice(&[0, 17, 0, 190]);
        p.extend_from_slice(&h[20..28]);
        assert!(sums_to_ones(&p));
    }
}
