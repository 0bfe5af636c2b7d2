//! pcap writer.
