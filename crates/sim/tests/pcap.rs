//! `[monitor] pcap` end to end: the bottleneck pcaps of one HTTP connection on a dumbbell read
//! back with `pcap-file` and checked against hand-computed times, lengths, flags, sequence
//! numbers and checksums; two runs give the same bytes; bad names and a missing run directory
//! are refused with the key.

mod common;
use common::*;
use pcap_file::pcap::{PcapPacket, PcapReader};
use pcap_file::DataLink;
use std::fs::File;
use std::path::{Path, PathBuf};
use traffic::{Arrival, SizeDist, WorkloadConfig};
use units::SimTime;

const ACCESS: (u64, u64) = (100_000_000, 1_000_000);
const BOTTLENECK: (u64, u64) = (10_000_000, 10_000_000);

/// One user, one client and one server, each connection a 100 B request and a 1000 B response,
/// no think time; pcap of both bottleneck directions; 50 ms run (the first connection only).
fn one_connection(ecn: bool) -> sim::Experiment {
    let w = WorkloadConfig::Http10 {
        arrival: Arrival::Users {
            users: 1,
            think_s: SizeDist::Constant { value: 0.0 },
        },
        request_bytes: SizeDist::Constant { value: 100.0 },
        response_bytes: SizeDist::Constant { value: 1000.0 },
        clients: 1,
        servers: 1,
    };
    let mut exp = experiment(dumbbell(1, 10, droptail(100), None), vec![w], 0, 1, 1);
    exp.duration = units::SimDuration::from_millis(50);
    exp.tcp.ecn = ecn;
    exp.monitor.pcap = vec!["bottleneck".into()];
    exp
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sim-pcap-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run `exp` into `dir`; returns each link's (name, wire bytes sent).
fn run_in(exp: &sim::Experiment, dir: &Path) -> Vec<(String, u64)> {
    let end = sim::run_in(
        exp,
        &mut |_: SimTime, _: SimTime| {},
        metrics::Recorder::default(),
        dir,
    )
    .expect("run");
    end.link_stats.into_iter().map(|(n, _, b)| (n, b)).collect()
}

fn read(path: &Path) -> Vec<PcapPacket<'static>> {
    let mut r = PcapReader::new(File::open(path).unwrap()).unwrap();
    assert_eq!(r.header().datalink, DataLink::RAW);
    assert_eq!(r.header().snaplen, 65535);
    let mut out = Vec::new();
    while let Some(p) = r.next_packet() {
        out.push(p.unwrap().into_owned());
    }
    out
}

fn be16(b: &[u8], i: usize) -> u16 {
    u16::from_be_bytes([b[i], b[i + 1]])
}
fn be32(b: &[u8], i: usize) -> u32 {
    u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

/// One's-complement sum of 16-bit words, folded (0xffff for a block with a valid checksum).
fn ones_sum(b: &[u8]) -> u16 {
    let mut s: u32 = b
        .chunks(2)
        .map(|w| u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32)
        .sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// The IPv4 and TCP checksums of a headers-only record are valid (TCP over a zero payload).
fn checksums_valid(d: &[u8]) -> bool {
    let total = be16(d, 2);
    let mut pseudo = d[12..20].to_vec();
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&(total - 20).to_be_bytes());
    pseudo.extend_from_slice(&d[20..]);
    ones_sum(&d[..20]) == 0xffff && ones_sum(&pseudo) == 0xffff
}

/// (time ns, total length, TCP flags, seq, ack, src port, dst port) of a record.
fn fields(p: &PcapPacket) -> (u64, u16, u8, u32, u32, u16, u16) {
    let d = &p.data;
    (
        p.timestamp.as_nanos() as u64,
        be16(d, 2),
        d[33],
        be32(d, 24),
        be32(d, 28),
        be16(d, 20),
        be16(d, 22),
    )
}

/// Serialization of `bytes` at `bps`, ns, rounded up (as `Rate::serialization`).
fn ser(bytes: u64, bps: u64) -> u64 {
    (bytes * 8 * 1_000_000_000).div_ceil(bps)
}

#[test]
fn the_first_connection_by_hand() {
    let dir = tmpdir("hand");
    run_in(&one_connection(false), &dir);
    let rev = read(&dir.join("bottleneck_rev.pcap"));
    let fwd = read(&dir.join("bottleneck_fwd.pcap"));

    // SYN (40 B) at t = 0: client0_up (3.2 µs + 1 ms), then bottleneck_rev (32 µs + 10 ms); the
    // record's time is when it leaves bottleneck_rev: 11.0352 ms.
    let hop = |b: u64, (bps, d): (u64, u64)| ser(b, bps) + d;
    let syn_t = hop(40, ACCESS) + hop(40, BOTTLENECK);
    assert_eq!(syn_t, 11_035_200);
    // SYN-ACK: server0_down to the server, back up server0_up, then bottleneck_fwd.
    let synack_t = syn_t + 2 * hop(40, ACCESS) + hop(40, BOTTLENECK);
    assert_eq!(synack_t, 23_073_600);
    // The request (100 B + 40) carries the handshake ACK: client0_down, client0_up, rev.
    let req_t = synack_t + hop(40, ACCESS) + hop(140, ACCESS) + hop(140, BOTTLENECK);
    assert_eq!(req_t, 35_200_000);
    // The response (1000 B + 40) carries the ACK of the request: server0_down, server0_up, fwd.
    let resp_t = req_t + hop(140, ACCESS) + hop(1040, ACCESS) + hop(1040, BOTTLENECK);
    assert_eq!(resp_t, 48_126_400);

    // Client 10.1.0.10 port 1024 (connection 0), server 10.2.0.10 port 80; window 65535.
    assert_eq!(fields(&rev[0]), (syn_t, 40, 0x02, 0, 0, 1024, 80));
    assert_eq!(fields(&rev[1]), (req_t, 140, 0x10, 1, 1, 1024, 80));
    assert_eq!(fields(&fwd[0]), (synack_t, 40, 0x12, 0, 1, 80, 1024));
    // HTTP/1.0: the server closes after the response, so it carries FIN + ACK.
    assert_eq!(fields(&fwd[1]), (resp_t, 1040, 0x11, 1, 101, 80, 1024));
    for p in [&rev[0], &rev[1], &fwd[0], &fwd[1]] {
        let d = &p.data;
        // Headers only, 20 + 20 bytes; orig_len = the wire size.
        assert_eq!((d.len(), p.orig_len), (40, be16(d, 2) as u32));
        assert_eq!((d[0], d[1], d[8], d[9]), (0x45, 0, 64, 6)); // IPv4, no ECN, TTL 64, TCP
        assert_eq!(be16(d, 34), 65535); // window
        assert!(checksums_valid(d));
    }
    assert_eq!(&rev[0].data[12..20], &[10, 1, 0, 10, 10, 2, 0, 10]);
    assert_eq!(&fwd[0].data[12..20], &[10, 2, 0, 10, 10, 1, 0, 10]);
    // Hand check of one checksum: the SYN's IPv4 header
    // 4500 0028 0000 4000 4006 ____ 0a01 000a 0a02 000a sums to 0xd945, so 0x26ba.
    assert_eq!(be16(&rev[0].data, 10), 0x26ba);
    // Records in time order in each file.
    for f in [&rev, &fwd] {
        assert!(f.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ecn_codepoints_and_flags() {
    // RFC 3168: the SYN offers ECN with ECE+CWR (not ECT), the SYN-ACK answers with ECE; data
    // segments carry ECT(0) (TOS 0x02), pure ACKs not.
    let dir = tmpdir("ecn");
    run_in(&one_connection(true), &dir);
    let rev = read(&dir.join("bottleneck_rev.pcap"));
    let fwd = read(&dir.join("bottleneck_fwd.pcap"));
    assert_eq!((rev[0].data[1], rev[0].data[33]), (0x00, 0xc2));
    assert_eq!((fwd[0].data[1], fwd[0].data[33]), (0x00, 0x52));
    assert_eq!((rev[1].data[1], be16(&rev[1].data, 2)), (0x02, 140));
    assert_eq!((fwd[1].data[1], be16(&fwd[1].data, 2)), (0x02, 1040));
    assert!(checksums_valid(&rev[1].data) && checksums_valid(&fwd[1].data));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_scenario_same_bytes() {
    // A congested web run with a DelayBox (records wait for their turn) and timestamps + SACK
    // options: two runs, identical files; per file the records in time order with valid
    // checksums, and every byte the link sent except what was still on the wire at the end
    // (at most 2 Mbps × (10 ms + 50 ms of DelayBox) + a packet ≈ 16.5 KB).
    let exp = || {
        let mut e = experiment(
            dumbbell(
                3,
                2,
                droptail(20),
                Some(sim::DelayBoxConfig::Distribution {
                    rtt_s: SizeDist::Uniform { min: 0.0, max: 0.1 },
                }),
            ),
            vec![web(20.0, 3)],
            0,
            3,
            7,
        );
        e.tcp.variant = tcp::Variant::Sack;
        e.tcp.timestamps = true;
        e.monitor.pcap = vec!["bottleneck".into(), "client0".into()];
        e
    };
    let (a, b) = (tmpdir("det-a"), tmpdir("det-b"));
    let sent = run_in(&exp(), &a);
    run_in(&exp(), &b);
    let mut n = 0;
    for name in [
        "bottleneck_fwd",
        "bottleneck_rev",
        "client0_up",
        "client0_down",
    ] {
        let (fa, fb) = (
            a.join(format!("{name}.pcap")),
            b.join(format!("{name}.pcap")),
        );
        let bytes = std::fs::read(&fa).unwrap();
        assert_eq!(bytes, std::fs::read(&fb).unwrap(), "{name}");
        let recs = read(&fa);
        assert!(
            recs.windows(2).all(|w| w[0].timestamp <= w[1].timestamp),
            "{name}"
        );
        assert!(recs.iter().all(|p| checksums_valid(&p.data)), "{name}");
        // A segment with SACK blocks (option kind 5 after NOP NOP TS NOP NOP) is 2 bytes longer
        // in the pcap than the simulator counts it.
        let sack = |p: &PcapPacket| p.data.len() > 56 && p.data[54] == 5;
        let in_pcap: u64 = recs
            .iter()
            .map(|p| p.orig_len as u64 - 2 * sack(p) as u64)
            .sum();
        let on_link = sent.iter().find(|(l, _)| l == name).unwrap().1;
        assert!(
            in_pcap <= on_link && on_link - in_pcap < 16_500,
            "{name}: {in_pcap} of {on_link}"
        );
        n += recs.len();
    }
    assert!(n > 500, "{n} records");
    // SACK blocks appeared.
    let rev = read(&a.join("bottleneck_rev.pcap"));
    assert!(rev.iter().any(|p| p.data.len() > 56 && p.data[54] == 5));
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::remove_dir_all(&b).unwrap();
}

#[test]
fn bad_names_and_no_directory_are_refused() {
    let mut exp = one_connection(false);
    exp.monitor.pcap = vec!["bottleneck".into(), "client7".into()];
    let e = sim::pcap::check(&exp).unwrap_err();
    assert_eq!(e.key, "monitor.pcap[1]");
    assert!(
        e.reason.starts_with("no link named \"client7\""),
        "{}",
        e.reason
    );
    exp.monitor.pcap = vec!["bottleneck".into()];
    assert!(sim::pcap::check(&exp).is_ok());
    let e = sim::run(&exp, &mut |_, _| {}).unwrap_err();
    assert_eq!(e.key, "monitor.pcap");
    assert!(e.reason.contains("run directory"), "{}", e.reason);
}
