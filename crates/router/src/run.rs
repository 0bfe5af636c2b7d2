//! The blocking IO loop around the sans-IO [`Router`]: read every packet waiting on either TUN
//! (non-blocking), offer it at the monotonic clock's `now`, write every packet due, then sleep
//! in ppoll(2) on both descriptors until the router's next wake-up, minus `RouterSpec::spin`,
//! which is busy-waited for pacing accuracy (the thread's timer slack is set to 1 ns so the
//! sleep itself is precise to the scheduler's wake-up latency). The loop checks `stop` at
//! least every 20 ms. The thread asks for SCHED_FIFO priority ([`REALTIME_PRIORITY`]) so other
//! work on the machine does not delay departures (`RouterReport::realtime` says if it got it).
//!
//! Pacing accuracy ([`PacingMeter`]): each write's lateness (real write time − the departure
//! the core scheduled) is the error of the delay the router adds; the achieved rate is measured
//! over the link's busy periods with each packet's real link exit = its scheduled end of
//! serialization + its lateness.
//!
//! Validation: `tests/netns.rs` (root: rate within 1 % and delay through two namespaces),
//! `examples/pacing.rs` (figures in the README).

use crate::path::Departure;
use crate::pcap::PcapSink;
use crate::report::{Pacing, RouterReport};
use crate::router::{Direction, Router};
use crate::spec::RouterSpec;
use std::collections::HashMap;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use units::{SimDuration, SimTime};

/// Longest sleep between two checks of `stop`.
const MAX_SLEEP: SimDuration = SimDuration::from_millis(20);
/// Packets read from one descriptor per loop turn before writes get their turn.
const READ_BURST: usize = 64;
/// Lateness histogram: 1 µs buckets up to this many µs (beyond: the last bucket).
const HIST_US: usize = 100_000;

/// Pacing measurement of one direction.
pub struct PacingMeter {
    configured_bps: u64,
    hist: Vec<u64>,
    samples: u64,
    max_ns: u64,
    /// Open busy periods: period → (first tx_end, its lateness, last tx_end, its lateness,
    /// bytes of every packet, bytes of the first).
    open: HashMap<u64, PeriodSpan>,
    busy_bytes: u64,
    busy_ns: i128,
}

#[derive(Clone, Copy)]
struct PeriodSpan {
    first: (SimTime, i64, u64),
    last: (SimTime, i64),
    bytes: u64,
}

impl PacingMeter {
    /// A meter for a link of `configured_bps`.
    pub fn new(configured_bps: u64) -> PacingMeter {
        PacingMeter {
            configured_bps,
            hist: vec![0; HIST_US + 1],
            samples: 0,
            max_ns: 0,
            open: HashMap::new(),
            busy_bytes: 0,
            busy_ns: 0,
        }
    }

    /// The departure `d` was written at real router time `written`.
    pub fn record(&mut self, d: &Departure, written: SimTime) {
        let late = written.as_nanos() as i64 - d.release.as_nanos() as i64;
        let l = late.max(0) as u64;
        self.samples += 1;
        self.max_ns = self.max_ns.max(l);
        self.hist[((l / 1000) as usize).min(HIST_US)] += 1;
        let n = d.buf.len() as u64;
        let e = self.open.entry(d.period).or_insert(PeriodSpan {
            first: (d.tx_end, late, n),
            last: (d.tx_end, late),
            bytes: 0,
        });
        e.bytes += n;
        if d.tx_end < e.first.0 {
            e.first = (d.tx_end, late, n);
        }
        if d.tx_end >= e.last.0 {
            e.last = (d.tx_end, late);
        }
        if self.open.len() > 4096 {
            // Periods whose last serialization ended 10 s ago are complete (no scenario delay
            // is that long; one that is only splits its period in two).
            let cutoff = written.as_nanos().saturating_sub(10_000_000_000);
            let done: Vec<u64> = self
                .open
                .iter()
                .filter(|(_, s)| s.last.0.as_nanos() < cutoff)
                .map(|(&k, _)| k)
                .collect();
            for k in done {
                let s = self.open.remove(&k).expect("listed");
                self.close(s);
            }
        }
    }

    fn close(&mut self, s: PeriodSpan) {
        if s.last.0 > s.first.0 {
            self.busy_bytes += s.bytes - s.first.2;
            let real = (s.last.0.as_nanos() as i128 + s.last.1 as i128)
                - (s.first.0.as_nanos() as i128 + s.first.1 as i128);
            self.busy_ns += real;
        }
    }

    fn quantile(&self, q: f64) -> u64 {
        if self.samples == 0 {
            return 0;
        }
        let rank = ((q * self.samples as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.hist.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return i as u64 * 1000;
            }
        }
        self.max_ns
    }

    /// The figures measured so far.
    pub fn finish(mut self) -> Pacing {
        for s in std::mem::take(&mut self.open).into_values() {
            self.close(s);
        }
        let busy_secs = self.busy_ns as f64 * 1e-9;
        let achieved = if busy_secs > 0.0 {
            self.busy_bytes as f64 * 8.0 / busy_secs
        } else {
            0.0
        };
        Pacing {
            configured_bps: self.configured_bps,
            achieved_bps: achieved,
            rate_error: if achieved > 0.0 {
                achieved / self.configured_bps as f64 - 1.0
            } else {
                0.0
            },
            busy_bytes: self.busy_bytes,
            busy_secs,
            delay_error_p50_ns: self.quantile(0.5),
            delay_error_p99_ns: self.quantile(0.99),
            delay_error_max_ns: self.max_ns,
            samples: self.samples,
        }
    }
}

fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock => return Ok(None),
            io::ErrorKind::Interrupted => continue,
            _ => return Err(e),
        }
    }
}

fn write_packet(fd: RawFd, buf: &[u8]) -> io::Result<()> {
    loop {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Real-time priority of the router thread (SCHED_FIFO, below the kernel's threaded IRQs at
/// 50): on a shared machine a normal thread is preempted for milliseconds, which shows as
/// late departures. The kernel's RT throttling (95 % of each second by default) keeps a
/// runaway loop from locking the core. Returns whether it took effect (needs
/// CAP_SYS_NICE; without it the loop runs at normal priority).
fn set_realtime() -> bool {
    let p = libc::sched_param {
        sched_priority: REALTIME_PRIORITY,
    };
    // SAFETY: pid 0 = the calling thread; `p` is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}

/// SCHED_FIFO priority of the router thread (1–99).
pub const REALTIME_PRIORITY: i32 = 20;

/// Sleep until either descriptor is readable or `d` passed.
fn wait_readable(fds: [RawFd; 2], d: SimDuration) -> io::Result<()> {
    let mut p = fds.map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = libc::timespec {
        tv_sec: (d.as_nanos() / 1_000_000_000) as libc::time_t,
        tv_nsec: (d.as_nanos() % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: two valid pollfd entries and a valid timespec; no signal mask change.
    let r = unsafe { libc::ppoll(p.as_mut_ptr(), 2, &ts, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}

/// Forward between the client-side TUN and the server-side TUN through the emulated bottleneck
/// until `stop` is set; returns the counters, pacing accuracy and monitor rows. Packets read
/// from `server_tun` take the forward path and are written to `client_tun`, and vice versa.
/// Errors: invalid spec (`InvalidInput`), a failed read or poll, a pcap file that cannot be
/// written. A failed write to a TUN is counted (`write_errors`), not fatal.
pub fn run(
    spec: &RouterSpec,
    client_tun: OwnedFd,
    server_tun: OwnedFd,
    stop: &AtomicBool,
) -> io::Result<RouterReport> {
    let mut router =
        Router::new(spec).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let (cfd, sfd) = (client_tun.as_raw_fd(), server_tun.as_raw_fd());
    set_nonblocking(cfd)?;
    set_nonblocking(sfd)?;
    // SAFETY: prctl on the calling thread; 1 ns timer slack makes ppoll wake on time.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let realtime = set_realtime();
    let mut pcaps = match &spec.pcap_dir {
        Some(dir) => Some([
            PcapSink::create(&dir.join(format!("{}.pcap", spec.fwd.name)))?,
            PcapSink::create(&dir.join(format!("{}.pcap", spec.rev.name)))?,
        ]),
        None => None,
    };
    let epoch = spec.epoch.unwrap_or_else(Instant::now);
    let clock = || SimTime::from_nanos(epoch.elapsed().as_nanos() as u64);
    let mut meters = [
        PacingMeter::new(spec.fwd.rate.bps),
        PacingMeter::new(spec.rev.rate.bps),
    ];
    let mut write_errors = 0u64;
    let mut buf = vec![0u8; 65536];
    // (read from, direction, written to, index of meter and pcap)
    let sides = [
        (sfd, Direction::Fwd, cfd, 0usize),
        (cfd, Direction::Rev, sfd, 1usize),
    ];
    while !stop.load(Ordering::Relaxed) {
        for &(from, dir, _, _) in &sides {
            for _ in 0..READ_BURST {
                match read_packet(from, &mut buf)? {
                    Some(n) => {
                        router.offer(clock(), dir, buf[..n].to_vec());
                    }
                    None => break,
                }
            }
        }
        let now = clock();
        for &(_, dir, to, i) in &sides {
            while let Some(d) = router.poll(now, dir) {
                if write_packet(to, &d.buf).is_err() {
                    write_errors += 1;
                }
                meters[i].record(&d, clock());
                if let Some(p) = pcaps.as_mut() {
                    p[i].write(d.release, &d.buf)?;
                }
            }
        }
        let now = clock();
        let wake = router.next_wakeup();
        if wake <= now {
            continue;
        }
        let wait = (wake - now).min(MAX_SLEEP);
        if wait > spec.spin {
            wait_readable([cfd, sfd], wait - spec.spin)?;
        } else {
            std::hint::spin_loop();
        }
    }
    let end = clock();
    let mut report = router.finish(end);
    let [f, r] = meters;
    report.fwd_pacing = f.finish();
    report.rev_pacing = r.finish();
    report.write_errors = write_errors;
    report.realtime = realtime;
    if let Some([a, b]) = pcaps {
        a.finish()?;
        b.finish()?;
    }
    Ok(report)
}
