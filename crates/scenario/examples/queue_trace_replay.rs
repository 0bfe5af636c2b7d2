//! Replay one queue's arrivals from an ns-2 trace into aqmlab's discipline (open loop), to tell
//! a queue difference from a traffic difference: if aqmlab's discipline, fed ns-2's own
//! arrival sequence (times and sizes) in front of a link of the same rate, drops what ns-2's
//! queue dropped, the queues agree and any difference in a closed-loop twin comes from the
//! traffic (TCP); if not, from the queue. validation/ns2/README.md, "Paired twins", uses it.
//!
//! Run:
//!   cargo run --release -p scenario --example queue_trace_replay -- SCENARIO TRACE \
//!       [--from SECONDS] [--seeds N]
//!
//! SCENARIO: an aqmlab scenario with a dumbbell (its forward queue and bottleneck rate are
//! used). TRACE: `$ns trace-queue` output of that queue (lines `+|-|r|d time from to type size
//! flags fid src dst seq id`); only `+` (arrivals) and `d` (ns-2's drops) are read. A packet's
//! class is Control for 40-byte packets, Http otherwise; ECT from the trace's `N` flag (ns-2's
//! ECN-capable bit, second character of the flags). Arrivals and drops are counted from
//! `--from` (default 0) on; `--seeds` runs the discipline with N random streams.

use aqm::{DisciplineParams, LinkInfo, PacketClass, PacketMeta, QueueDisc, Verdict};
use sim::Topology;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use units::{SimDuration, SimTime};

struct Arrival {
    t: SimTime,
    size: u32,
    ect: bool,
    flow: u32,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: queue_trace_replay SCENARIO TRACE [--from SECONDS] [--seeds N]");
        std::process::exit(2);
    }
    let mut from = 0.0;
    let mut seeds = 1u64;
    let mut i = 2;
    while i + 1 < args.len() {
        match args[i].as_str() {
            "--from" => from = args[i + 1].parse().expect("--from: seconds"),
            "--seeds" => seeds = args[i + 1].parse().expect("--seeds: a count"),
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    let exps = scenario::load(std::path::Path::new(&args[0])).unwrap_or_else(|e| panic!("{e}"));
    let exp = &exps[0].experiment;
    let Topology::Dumbbell(db) = &exp.topology else {
        panic!("the scenario's topology must be a dumbbell")
    };
    let link = LinkInfo {
        rate: db.bottleneck_rate,
        delay: db.bottleneck_delay,
    };
    let params: &DisciplineParams = &db.forward_queue;

    let file = std::fs::File::open(&args[1]).expect("trace file");
    let mut arrivals = Vec::new();
    let (mut ns2_arrivals, mut ns2_drops, mut ns2_drops_ctl) = (0u64, 0u64, 0u64);
    let mut flows: HashMap<u32, u32> = HashMap::new();
    for line in BufReader::new(file).lines() {
        let line = line.expect("read");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 8 {
            continue;
        }
        let t: f64 = f[1].parse().expect("time");
        let size: u32 = f[5].parse().expect("size");
        match f[0] {
            "+" => {
                let n = flows.len() as u32;
                let fid: u32 = f[7].parse().unwrap_or(0);
                let flow = *flows.entry(fid).or_insert(n);
                arrivals.push(Arrival {
                    t: SimTime::ZERO + SimDuration::from_secs_f64(t),
                    size,
                    ect: f[6].as_bytes().get(1) == Some(&b'N'),
                    flow,
                });
                if t >= from {
                    ns2_arrivals += 1;
                }
            }
            "d" if t >= from => {
                ns2_drops += 1;
                ns2_drops_ctl += (size == 40) as u64;
            }
            _ => {}
        }
    }
    println!(
        "ns-2:   arrivals {ns2_arrivals}  drops {ns2_drops} ({:.3} %)  of them 40-byte {ns2_drops_ctl}",
        100.0 * ns2_drops as f64 / ns2_arrivals as f64
    );
    let from_t = SimTime::ZERO + SimDuration::from_secs_f64(from);
    for seed in 1..=seeds {
        let mut q = params.build(link).unwrap_or_else(|e| panic!("{e}"));
        let mut rng = units::stream(seed, "queue_trace_replay");
        let mut busy_until = SimTime::ZERO;
        let mut dropped = Vec::new();
        let (mut n, mut drops, mut drops_ctl, mut marks) = (0u64, 0u64, 0u64, 0u64);
        let mut qsum = 0.0;
        // Start the next transmission at `at` if the link is free and a packet waits.
        let send = |q: &mut aqm::Discipline, at: SimTime, busy: &mut SimTime, d: &mut Vec<_>| {
            if let Some(p) = q.dequeue(at, d) {
                *busy = at + link.rate.serialization(p.size_bytes as u64);
                true
            } else {
                false
            }
        };
        for (k, a) in arrivals.iter().enumerate() {
            // Transmissions that end before this arrival start the next ones.
            while busy_until <= a.t && q.len_packets() > 0 {
                let at = busy_until;
                if !send(&mut q, at, &mut busy_until, &mut dropped) {
                    break;
                }
            }
            if let Some(d) = q.next_deadline() {
                if d <= a.t {
                    q.on_timeout(a.t);
                }
            }
            let meta = PacketMeta {
                id: k as u32,
                size_bytes: a.size,
                ecn: aqm::Ecn::rfc3168(a.ect),
                class: if a.size == 40 {
                    PacketClass::Control
                } else {
                    PacketClass::Http
                },
                cwnd_hint: 0,
                flow: a.flow,
                enqueued_at: a.t,
            };
            let v = q.enqueue(a.t, meta, &mut rng);
            if a.t >= from_t {
                n += 1;
                qsum += q.len_packets() as f64;
                match v {
                    Verdict::Dropped(_) => {
                        drops += 1;
                        drops_ctl += (a.size == 40) as u64;
                    }
                    Verdict::EnqueuedMarked => marks += 1,
                    Verdict::Enqueued => {}
                }
            }
            if busy_until <= a.t {
                send(&mut q, a.t, &mut busy_until, &mut dropped);
            }
        }
        println!(
            "aqmlab: arrivals {n}  drops {drops} ({:.3} %)  of them 40-byte {drops_ctl}  marks {marks}  mean queue at arrivals {:.2}  (stream {seed})",
            100.0 * drops as f64 / n as f64,
            qsum / n as f64
        );
    }
}
