//! Packets in flight, stored in an arena and addressed by index, so events and queues carry a
//! `u32` instead of the packet (no per-packet heap allocation: freed slots are reused).

use aqm::PacketClass;
use tcp::Segment;

/// A packet on the simulated network.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub seg: Segment,
    /// Connection slot and its generation (a stale packet of a closed connection is discarded).
    pub conn: u32,
    pub gen: u32,
    /// True if travelling from client to server.
    pub to_server: bool,
    /// Destination node.
    pub dst: u32,
    pub class: Class,
}

/// Packet class stored compactly (mirrors `aqm::PacketClass`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Class {
    #[default]
    Http,
    Bulk,
    Control,
    /// Unresponsive datagrams (CBR, ON/OFF).
    Other,
}

/// `Packet::conn` of a datagram (no connection); its `gen` is then the workload index.
pub const DATAGRAM: u32 = u32::MAX;

impl Class {
    pub fn to_aqm(self) -> PacketClass {
        match self {
            Class::Http => PacketClass::Http,
            Class::Bulk => PacketClass::Bulk,
            Class::Control => PacketClass::Control,
            Class::Other => PacketClass::Other,
        }
    }
}

/// Slab of packets with a free list.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u64,
    created: u64,
}

impl PacketArena {
    /// Start bringing packet `i` into cache (a hint, see `cache_hint`); nothing if there is
    /// no such slot.
    #[inline]
    pub fn prefetch(&self, i: u32) {
        if let Some(p) = self.slots.get(i as usize) {
            crate::cache_hint::prefetch(p);
        }
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> u32 {
        self.live += 1;
        self.created += 1;
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = p;
            i
        } else {
            self.slots.push(p);
            (self.slots.len() - 1) as u32
        }
    }
    #[inline]
    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut Packet {
        &mut self.slots[i as usize]
    }
    #[inline]
    pub fn free(&mut self, i: u32) {
        self.live -= 1;
        self.free.push(i);
    }
    /// Packets allocated and not yet freed.
    pub fn live(&self) -> u64 {
        self.live
    }
    pub fn created(&self) -> u64 {
        self.created
    }
}
