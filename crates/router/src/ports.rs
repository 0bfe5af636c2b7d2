//! Which workload a testbed connection belongs to, decided from its SYN alone: workload `w`'s
//! servers listen on TCP port [`SERVER_PORT`] + `w` (80 for the first workload, 81 for the
//! second, …), on whichever side its servers are (a `direction = "reverse"` workload's servers
//! are the client-side hosts). The router reads the workload from the SYN's destination port
//! to draw that workload's DelayBoxes (`delaybox.rs`); the testbed's server listens on these
//! ports and its client connects to them (`crates/testbed/src/http.rs`).
//!
//! A scenario with one workload keeps port 80 throughout, as the simulator's pcaps
//! (`experiment::pcap_format::SERVER_PORT`); a multi-workload run differs from them in the port of
//! workloads 1, 2, … only.
//!
//! Validation: tests below.

/// TCP port of the first workload's servers (HTTP).
pub const SERVER_PORT: u16 = 80;

/// Most workloads a testbed run can tell apart (ports 80 … 80 + `MAX_WORKLOADS` − 1 are all
/// below 1024, where no kernel-chosen client port falls).
pub const MAX_WORKLOADS: usize = 900;

/// Server port of workload `w`; `None` beyond [`MAX_WORKLOADS`].
pub fn server_port(w: usize) -> Option<u16> {
    (w < MAX_WORKLOADS).then(|| SERVER_PORT + w as u16)
}

/// Workload whose servers listen on `port`, given `workloads` workloads in the run; `None`
/// for any other port.
pub fn workload_of_port(port: u16, workloads: usize) -> Option<usize> {
    let w = port.checked_sub(SERVER_PORT)? as usize;
    (w < workloads.min(MAX_WORKLOADS)).then_some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_and_workloads_are_inverse_and_bounded() {
        for w in 0..MAX_WORKLOADS {
            let p = server_port(w).unwrap();
            assert!(p < 1024);
            assert_eq!(workload_of_port(p, MAX_WORKLOADS), Some(w));
        }
        assert_eq!(server_port(MAX_WORKLOADS), None);
        assert_eq!(workload_of_port(80, 1), Some(0));
        assert_eq!(workload_of_port(81, 1), None);
        assert_eq!(workload_of_port(79, 5), None);
        assert_eq!(workload_of_port(40000, 5), None);
    }
}
