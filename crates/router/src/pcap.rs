//! pcap of one bottleneck direction with the `pcap-file` crate, in the simulator's format
//! (`experiment::pcap_format::file_header`: LINKTYPE_RAW, each record an IPv4 packet), nanosecond timestamps =
//! router time (from the router's epoch) at which the
//! packet leaves the emulated path, i.e. is handed to the far side, with its CE mark if it got
//! one. Read with `tcpdump -r` or Wireshark.
//!
//! Validation: test below (a written file read back with the same crate).

use pcap_file::pcap::{PcapPacket, PcapWriter};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Duration;
use units::SimTime;

/// Longest packet recorded whole, bytes (the simulator's).
pub use experiment::pcap_format::SNAPLEN;

/// A pcap file being written.
pub struct PcapSink {
    w: PcapWriter<BufWriter<File>>,
}

fn to_io(e: pcap_file::PcapError) -> io::Error {
    io::Error::other(e.to_string())
}

impl PcapSink {
    /// Create (truncate) the file at `path` and write its header.
    pub fn create(path: &Path) -> io::Result<PcapSink> {
        let f = File::create(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let w = PcapWriter::with_header(BufWriter::new(f), experiment::pcap_format::file_header())
            .map_err(to_io)?;
        Ok(PcapSink { w })
    }

    /// Record `pkt` (an IPv4 packet) at router time `t`.
    pub fn write(&mut self, t: SimTime, pkt: &[u8]) -> io::Result<()> {
        let len = pkt.len().min(SNAPLEN as usize);
        let p = PcapPacket::new(
            Duration::from_nanos(t.as_nanos()),
            pkt.len() as u32,
            &pkt[..len],
        );
        self.w.write_packet(&p).map(|_| ()).map_err(to_io)
    }

    /// Flush and close the file.
    pub fn finish(self) -> io::Result<()> {
        let mut bw = self.w.into_writer();
        bw.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pcap_file::pcap::PcapReader;

    #[test]
    fn records_read_back_with_raw_linktype_and_nanosecond_times() {
        let dir = std::env::temp_dir().join(format!("router-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bottleneck_fwd.pcap");
        let mut s = PcapSink::create(&path).unwrap();
        let a = vec![0x45u8; 40];
        let b = vec![0x45u8; 1500];
        s.write(SimTime::from_nanos(1_200_000), &a).unwrap();
        s.write(SimTime::from_nanos(3_000_000_123), &b).unwrap();
        s.finish().unwrap();
        let mut r = PcapReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(r.header().datalink, pcap_file::DataLink::RAW);
        // Little-endian on every machine, as the simulator's files.
        assert_eq!(r.header().endianness, pcap_file::Endianness::Little);
        let p1 = r.next_packet().unwrap().unwrap();
        assert_eq!(p1.timestamp, Duration::from_nanos(1_200_000));
        assert_eq!((p1.orig_len, p1.data.len()), (40, 40));
        let p2 = r.next_packet().unwrap().unwrap();
        assert_eq!(p2.timestamp, Duration::new(3, 123));
        assert_eq!(&p2.data[..], &b[..]);
        assert!(r.next_packet().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
