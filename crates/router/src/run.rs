//! The blocking IO loop.
use crate::report::RouterReport;
use crate::spec::RouterSpec;
use std::os::fd::OwnedFd;
use std::sync::atomic::AtomicBool;

/// Forward between the client-side TUN and the server-side TUN through the emulated bottleneck
/// until `stop` is set; returns the counters, pacing accuracy and monitor rows.
pub fn run(
    spec: &RouterSpec,
    client_tun: OwnedFd,
    server_tun: OwnedFd,
    stop: &AtomicBool,
) -> std::io::Result<RouterReport> {
    let _ = (spec, client_tun, server_tun, stop);
    todo!()
}
