//! Pacing accuracy of the router at a given rate, as root: two network namespaces with a TUN
//! each, the router between them (drop-tail, 10 ms one way), a UDP stream of 1250 B IP packets
//! at 1.25 × the rate for `SECS` seconds keeping the link busy. Prints the router's pacing
//! report and the rate measured at the receiver (least-squares slope of arrival times), one
//! JSON line per rate.
//!
//! `cargo run --release -p router --example pacing -- 10 100` (rates in Mbit/s; default both).

use router::{PathSpec, RouterSpec};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use units::{Rate, SimDuration};

const SECS: u64 = 3;
const CLIENT_ADDR: &str = "10.202.1.2";
const SERVER_ADDR: &str = "10.202.2.2";
const IP_BYTES: u64 = 1250;

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

fn enter(name: &str) {
    let f = std::fs::File::open(format!("/var/run/netns/{name}")).unwrap();
    // SAFETY: setns on a descriptor we own, this thread only.
    assert_eq!(unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) }, 0);
}

fn measure(mbps: u64) {
    let id = format!("{:x}{mbps}", std::process::id());
    let (cns, sns) = (format!("aqp-{id}-c"), format!("aqp-{id}-s"));
    let (ctun, stun) = (format!("aqpc{id}"), format!("aqps{id}"));
    let _guard = Netns(vec![cns.clone(), sns.clone()]);
    ip(&["netns", "add", &cns]);
    ip(&["netns", "add", &sns]);
    let cfd = router::open_tun_in_netns(&cns, &ctun).unwrap();
    let sfd = router::open_tun_in_netns(&sns, &stun).unwrap();
    for (ns, dev, addr, peer) in [
        (&cns, &ctun, CLIENT_ADDR, "10.202.2.0/24"),
        (&sns, &stun, SERVER_ADDR, "10.202.1.0/24"),
    ] {
        ip(&["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]);
        ip(&["-n", ns, "link", "set", dev, "up"]);
        ip(&["-n", ns, "route", "add", peer, "dev", dev]);
    }
    let path = |name: &str| PathSpec {
        name: name.into(),
        rate: Rate::from_mbps(mbps),
        delay: SimDuration::from_millis(10),
        access_delay: SimDuration::ZERO,
        queue: aqm::DisciplineParams::DropTail(aqm::DropTailParams {
            limit: 1_000_000,
            ..Default::default()
        }),
    };
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
    // Packets per second at the link rate, and sent in bursts every 4 ms at 1.25 × that.
    let pps = mbps * 1_000_000 / (IP_BYTES * 8);
    let burst = (pps * 5 / 4 * 4 / 1000) as usize;
    let total = (pps * SECS) as usize;
    let sns2 = sns.clone();
    let server = std::thread::spawn(move || {
        enter(&sns2);
        let sink = UdpSocket::bind((SERVER_ADDR, 9)).unwrap();
        sink.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let mut buf = [0u8; 2048];
        let mut arrivals = Vec::with_capacity(total);
        while arrivals.len() < total {
            match sink.recv(&mut buf) {
                Ok(_) => arrivals.push(Instant::now()),
                Err(_) => break,
            }
        }
        arrivals
    });
    enter(&cns);
    let s = UdpSocket::bind((CLIENT_ADDR, 0)).unwrap();
    let payload = vec![9u8; (IP_BYTES - 28) as usize];
    let t0 = Instant::now();
    let mut sent = 0;
    let mut i = 0u64;
    while sent < total {
        if let Some(d) = Duration::from_millis(4 * i).checked_sub(t0.elapsed()) {
            std::thread::sleep(d);
        }
        for _ in 0..burst.min(total - sent) {
            s.send_to(&payload, (SERVER_ADDR, 9)).unwrap();
            sent += 1;
        }
        i += 1;
    }
    let arrivals = server.join().unwrap();
    stop.store(true, Ordering::Relaxed);
    let rep = rt.join().unwrap().unwrap();
    let x: Vec<f64> = (0..arrivals.len())
        .map(|i| i as f64 * IP_BYTES as f64 * 8.0)
        .collect();
    let y: Vec<f64> = arrivals
        .iter()
        .map(|a| (*a - arrivals[0]).as_secs_f64())
        .collect();
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let p = rep.rev_pacing;
    println!(
        "{{\"rate_mbps\": {mbps}, \"packets_sent\": {total}, \"packets_received\": {}, \
         \"router_dropped\": {}, \"receiver_bps\": {:.0}, \"router_achieved_bps\": {:.0}, \
         \"router_rate_error\": {:.2e}, \"delay_error_p50_us\": {:.0}, \
         \"delay_error_p99_us\": {:.0}, \"delay_error_max_us\": {:.0}, \"realtime\": {}}}",
        arrivals.len(),
        rep.rev.dropped_packets,
        sxx / sxy,
        p.achieved_bps,
        p.rate_error,
        p.delay_error_p50_ns as f64 / 1e3,
        p.delay_error_p99_ns as f64 / 1e3,
        p.delay_error_max_ns as f64 / 1e3,
        rep.realtime
    );
}

fn main() {
    let rates: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("rate in Mbit/s"))
        .collect();
    let rates = if rates.is_empty() {
        vec![10, 100]
    } else {
        rates
    };
    for r in rates {
        // Each measurement in its own thread: the thread enters a namespace.
        std::thread::spawn(move || measure(r)).join().unwrap();
    }
}
