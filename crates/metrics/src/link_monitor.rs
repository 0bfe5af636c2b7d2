//! Link throughput monitor: wire bytes and packets per interval (seed 000 §4.1.3, 1 s).

use crate::observer::Observer;
use crate::records::LinkRow;

/// Byte counter for one link.
#[derive(Clone, Debug)]
pub struct LinkMonitor {
    link: String,
    bytes: u64,
    packets: u64,
}

impl LinkMonitor {
    pub fn new(link: &str) -> Self {
        LinkMonitor {
            link: link.to_string(),
            bytes: 0,
            packets: 0,
        }
    }
    /// A packet of `bytes` started transmission.
    #[inline]
    pub fn on_transmit(&mut self, bytes: u32) {
        self.bytes += bytes as u64;
        self.packets += 1;
    }
    /// Emit the row for the interval ending at `t_ns` and reset.
    pub fn close_interval(&mut self, t_ns: u64, obs: &mut impl Observer) {
        obs.on_link_row(LinkRow {
            link: self.link.clone(),
            t_ns,
            bytes: self.bytes,
            packets: self.packets,
        });
        self.bytes = 0;
        self.packets = 0;
    }
}
