//! End to end as root: two network namespaces (client side, server side), a TUN in each, the
//! router thread between them. A paced UDP stream at 12.5 Mbit/s from the client side keeps the
//! 10 Mbit/s bottleneck busy: its arrival rate at the server side must be within 1 % of
//! 10 Mbit/s; a UDP echo measures the added delay (2 × (10 ms + serialization)). Skipped
//! when not root, except under `CI`, where it must run. Namespace names carry a run id; a
//! guard removes them even when the test fails, and a run removes those a killed run left.

use router::{PathSpec, RouterSpec};
use std::net::UdpSocket;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use units::{Rate, SimDuration};

const CLIENT_ADDR: &str = "10.201.1.2";
const SERVER_ADDR: &str = "10.201.2.2";

/// Removes the namespaces on drop (also during a panic's unwinding).
struct Netns(Vec<String>);

impl Drop for Netns {
    fn drop(&mut self) {
        for n in &self.0 {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) {
    let st = Command::new("ip").args(args).status().expect("run ip");
    assert!(st.success(), "ip {}", args.join(" "));
}

/// Move the calling thread into namespace `name`.
fn enter(name: &str) {
    let f = std::fs::File::open(format!("/var/run/netns/{name}")).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: setns on a descriptor we own, affecting this thread only.
    assert_eq!(unsafe { libc_setns(f.as_raw_fd()) }, 0, "setns {name}");
}

unsafe fn libc_setns(fd: i32) -> i32 {
    extern "C" {
        fn setns(fd: i32, nstype: i32) -> i32;
    }
    setns(fd, 0x4000_0000) // CLONE_NEWNET
}

/// Remove namespaces of earlier runs of this test whose process is gone (a killed run).
fn remove_stale() {
    let Ok(dir) = std::fs::read_dir("/var/run/netns") else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix("aqr-")
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = Command::new("ip").args(["netns", "del", &name]).status();
        }
    }
}

fn is_root() -> bool {
    extern "C" {
        fn geteuid() -> u32;
    }
    // SAFETY: no arguments, cannot fail.
    unsafe { geteuid() == 0 }
}

fn path(name: &str) -> PathSpec {
    PathSpec {
        name: name.into(),
        rate: Rate::from_mbps(10),
        delay: SimDuration::from_millis(10),
        access_delay: SimDuration::ZERO,
        queue: aqm::DisciplineParams::DropTail(aqm::DropTailParams {
            limit: 1000,
            ..Default::default()
        }),
    }
}

#[test]
fn udp_across_two_namespaces_gets_the_bottleneck_rate_and_delay() {
    if !is_root() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI runs as root: this test must not be skipped there"
        );
        eprintln!("skipped: needs root (network namespaces, TUN)");
        return;
    }
    // The router's lateness (its delay error p99 < 1 ms) depends on the host's scheduler: on the
    // shared 2-core VM about one run in six spikes past 1 ms with any build (2026-11-29: 1.15,
    // 1.54 and 1.93 ms, against 0.1-0.3 ms otherwise, before and after that day's changes
    // alike). So up to three whole runs, each with its own namespaces: every other check holds
    // on each run, the lateness bound on the best.
    let mut p99s = Vec::new();
    for k in 0..3 {
        let p99 = one_run(k);
        p99s.push(p99);
        if p99 < 1_000_000 {
            return;
        }
    }
    panic!("router delay error p99 over 1 ms in all three runs: {p99s:?} ns");
}

/// Run `k` of the two namespaces through the router: every check but the router's lateness,
/// which is returned (its delay error p99, ns).
fn one_run(k: u32) -> u64 {
    remove_stale();
    // Run id: this process's pid and the run (namespace names aqr-PID-K-c / aqr-PID-K-s).
    let id = format!("{}-{k}", std::process::id());
    let id = id.as_str();
    let (cns, sns) = (format!("aqr-{id}-c"), format!("aqr-{id}-s"));
    let (ctun, stun) = (format!("aqrc{id}"), format!("aqrs{id}"));
    let _guard = Netns(vec![cns.clone(), sns.clone()]);
    ip(&["netns", "add", &cns]);
    ip(&["netns", "add", &sns]);
    let cfd = router::open_tun_in_netns(&cns, &ctun).unwrap();
    let sfd = router::open_tun_in_netns(&sns, &stun).unwrap();
    for (ns, dev, addr, peer) in [
        (&cns, &ctun, CLIENT_ADDR, "10.201.2.0/24"),
        (&sns, &stun, SERVER_ADDR, "10.201.1.0/24"),
    ] {
        ip(&["-n", ns, "link", "set", "lo", "up"]);
        ip(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]);
        ip(&["-n", ns, "link", "set", dev, "up"]);
        ip(&["-n", ns, "route", "add", peer, "dev", dev]);
    }

    let spec = RouterSpec {
        fwd: path("bottleneck_fwd"),
        rev: path("bottleneck_rev"),
        delaybox: None,
        workload_boxes: Vec::new(),
        client_hosts: Vec::new(),
        server_hosts: Vec::new(),
        seed: 1,
        pcap_dir: None,
        monitor: experiment::MonitorConfig::default(),
        warmup: SimDuration::ZERO,
        epoch: None,
        spin: router::DEFAULT_SPIN,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let st = stop.clone();
    let rt = std::thread::spawn(move || router::run(&spec, cfd, sfd, &st));

    // Server side: echo port 7 (delay probe), count port 9 (rate).
    let sns2 = sns.clone();
    let server = std::thread::spawn(move || {
        enter(&sns2);
        let echo = UdpSocket::bind((SERVER_ADDR, 7)).unwrap();
        let sink = UdpSocket::bind((SERVER_ADDR, 9)).unwrap();
        echo.set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        sink.set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let mut arrivals = Vec::new();
        let mut buf = [0u8; 2048];
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut echoes = 0;
        while Instant::now() < deadline && (echoes < 11 || arrivals.len() < 1500) {
            if let Ok((n, from)) = echo.recv_from(&mut buf) {
                echo.send_to(&buf[..n], from).unwrap();
                echoes += 1;
            }
            sink.set_nonblocking(true).unwrap();
            while let Ok(n) = sink.recv(&mut buf) {
                arrivals.push((Instant::now(), n));
            }
            sink.set_nonblocking(false).unwrap();
            if echoes >= 11 {
                // Only the stream is left: wait on it.
                if let Ok(n) = sink.recv(&mut buf) {
                    arrivals.push((Instant::now(), n));
                }
            }
        }
        arrivals
    });

    enter(&cns);
    // Delay: 10 echoes of 32 B (60 B IP) 50 ms apart: RTT = 2 × (10 ms + 48 µs) = 20.096 ms.
    let s = UdpSocket::bind((CLIENT_ADDR, 0)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut rtts = Vec::new();
    let mut buf = [0u8; 64];
    // One echo first (the server thread may still be starting; its RTT is not counted).
    s.send_to(&[7u8; 32], (SERVER_ADDR, 7)).unwrap();
    s.recv(&mut buf).expect("first echo reply");
    for _ in 0..10 {
        let t0 = Instant::now();
        s.send_to(&[7u8; 32], (SERVER_ADDR, 7)).unwrap();
        s.recv(&mut buf).expect("echo reply");
        rtts.push(t0.elapsed());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Rate: 1500 datagrams of 1222 B (1250 B IP = 1.000 ms at 10 Mbit/s), 5 every 4 ms
    // (12.5 Mbit/s; sleeping, not spinning, so the router keeps a core).
    let payload = [9u8; 1222];
    let t0 = Instant::now();
    for i in 0..300u32 {
        if let Some(d) = Duration::from_millis(4 * i as u64).checked_sub(t0.elapsed()) {
            std::thread::sleep(d);
        }
        for _ in 0..5 {
            s.send_to(&payload, (SERVER_ADDR, 9)).unwrap();
        }
    }
    let arrivals = server.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let rep = rt.join().unwrap().unwrap();

    eprintln!("rtts {rtts:?}");
    // Never below the emulated delay; the median within 1 ms of it (the test's own threads
    // add their wake-up latency on a shared machine; the router's own lateness is checked
    // below from its pacing report).
    let mut ms: Vec<f64> = rtts.iter().map(|r| r.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    assert!(ms[0] >= 20.096, "rtt {ms:?}");
    assert!(ms[5] < 21.096, "median rtt {ms:?}");
    assert_eq!(
        arrivals.len(),
        1500,
        "every datagram arrives (queue of 1000 never full)"
    );
    assert!(arrivals.iter().all(|a| a.1 == 1222));
    // Least-squares slope of arrival time over bytes received: a receiver thread descheduled
    // for a few ms late-stamps a handful of points without tilting the line much.
    let x: Vec<f64> = (0..arrivals.len())
        .map(|i| i as f64 * 1250.0 * 8.0)
        .collect();
    let y: Vec<f64> = arrivals
        .iter()
        .map(|a| (a.0 - arrivals[0].0).as_secs_f64())
        .collect();
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let bps = sxx / sxy;
    eprintln!(
        "rate at the receiver {bps:.0} bit/s; router rev pacing {:?}",
        rep.rev_pacing
    );
    assert!((bps / 10e6 - 1.0).abs() < 0.01, "rate {bps}");
    let p = rep.rev_pacing;
    assert!(p.rate_error.abs() < 0.01, "{p:?}");
    rep.rev.check().unwrap();
    rep.fwd.check().unwrap();
    assert!(
        rep.rev.in_packets >= 1510 && rep.rev.dropped_packets == 0,
        "{:?}",
        rep.rev
    );
    assert_eq!(rep.write_errors, 0);
    p.delay_error_p99_ns
}
