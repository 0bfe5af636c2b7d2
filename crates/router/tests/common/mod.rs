//! Hand-built packets and small fixtures shared by the router's tests.
#![allow(dead_code)]

use aqm::{DisciplineParams, DropTailParams};
use router::ipv4::{header_checksum, PROTO_TCP, PROTO_UDP};
use router::PathSpec;
use units::{Rate, SimDuration};

pub const CLIENT: [u8; 4] = [10, 1, 0, 2];
pub const SERVER: [u8; 4] = [10, 2, 0, 2];
pub const SYN: u8 = 0x02;
pub const ACK: u8 = 0x10;
pub const ECT0: u8 = 0b10;
/// ECT(1), the L4S identifier (RFC 9331).
pub const ECT1: u8 = 0b01;

/// An IPv4/TCP packet of `total` bytes (20 + 20 + payload) with a valid header checksum.
pub fn tcp(
    src: [u8; 4],
    sp: u16,
    dst: [u8; 4],
    dp: u16,
    flags: u8,
    tos: u8,
    total: usize,
) -> Vec<u8> {
    assert!(total >= 40);
    let mut p = vec![0u8; total];
    p[0] = 0x45;
    p[1] = tos;
    p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    p[8] = 64;
    p[9] = PROTO_TCP;
    p[12..16].copy_from_slice(&src);
    p[16..20].copy_from_slice(&dst);
    p[20..22].copy_from_slice(&sp.to_be_bytes());
    p[22..24].copy_from_slice(&dp.to_be_bytes());
    p[32] = 5 << 4;
    p[33] = flags;
    let c = header_checksum(&p[..20]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p
}

/// A data segment server → client of `total` bytes.
pub fn data(total: usize, tos: u8) -> Vec<u8> {
    tcp(SERVER, 80, CLIENT, 40000, ACK, tos, total)
}

/// An IPv4/UDP packet of `total` bytes.
pub fn udp(total: usize) -> Vec<u8> {
    let mut p = tcp(SERVER, 9, CLIENT, 9, 0, 0, total);
    p[9] = PROTO_UDP;
    p[10] = 0;
    p[11] = 0;
    let c = header_checksum(&p[..20]);
    p[10..12].copy_from_slice(&c.to_be_bytes());
    p
}

/// A direction at `mbps` with `delay_ms` of propagation and queue `queue`.
pub fn path_spec(mbps: u64, delay_ms: u64, queue: DisciplineParams) -> PathSpec {
    PathSpec {
        name: "bottleneck_fwd".into(),
        rate: Rate::from_mbps(mbps),
        delay: SimDuration::from_millis(delay_ms),
        access_delay: SimDuration::ZERO,
        queue,
    }
}

/// Drop-tail of `limit` packets.
pub fn droptail(limit: u64) -> DisciplineParams {
    DisciplineParams::DropTail(DropTailParams {
        limit,
        ..DropTailParams::default()
    })
}
