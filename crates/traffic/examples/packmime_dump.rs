//! Dump the first N connections aqmlab's PackMime workload opens, without a network: one line
//! per exchange `t_s req_bytes rsp_bytes exchange` (exchange 0 = the connection's first), for
//! comparison with ns-2.35's own draws (validation/ns2/packmime/README.md, `pm_sizes.tcl`).
//!
//! usage: cargo run --release -p traffic --example packmime_dump -- RATE SEED N HTTP OUT
//! (HTTP = 1.0 or 1.1). The workload's stream is the one the engine gives workload 0 of a run
//! with this seed (`units::stream(seed, "workload:0")`).

use std::io::Write;
use traffic::{HttpVersion, Workload, WorkloadConfig};
use units::SimTime;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    assert!(a.len() == 5, "usage: RATE SEED N HTTP OUT");
    let rate: f64 = a[0].parse().expect("rate");
    let seed: u64 = a[1].parse().expect("seed");
    let n: usize = a[2].parse().expect("N");
    let http = match a[3].as_str() {
        "1.0" => HttpVersion::Http10,
        "1.1" => HttpVersion::Http11,
        h => panic!("http {h}"),
    };
    let mut w = Workload::new(WorkloadConfig::PackMime {
        rate,
        clients: 1,
        servers: 1,
        http,
    })
    .expect("config");
    let mut rng = units::stream(seed, "workload:0");
    let mut out = Vec::new();
    let mut left = n;
    let mut f = std::io::BufWriter::new(std::fs::File::create(&a[4]).expect("out"));
    let mut now = SimTime::ZERO;
    w.start(now, &mut rng, &mut out);
    loop {
        for r in out.drain(..) {
            if left == 0 {
                return;
            }
            left -= 1;
            let t = (now - SimTime::ZERO).as_secs_f64();
            writeln!(f, "{t:.9} {} {} 0", r.request_bytes, r.response_bytes).expect("write");
            for (i, x) in r.more.iter().enumerate() {
                writeln!(
                    f,
                    "{t:.9} {} {} {}",
                    x.request_bytes,
                    x.response_bytes,
                    i + 1
                )
                .expect("write");
            }
        }
        match w.next_deadline() {
            Some(t) => {
                now = t;
                w.on_timeout(now, &mut rng, &mut out);
            }
            _ => break,
        }
    }
}
