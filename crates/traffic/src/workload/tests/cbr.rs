//! CBR datagram source: exact send times and packet counts, computed by hand.

use super::*;

fn cbr(rate_bps: u64, packet_bytes: u32, start_ms: u64, stop_ms: Option<u64>) -> Workload {
    Workload::new(WorkloadConfig::Cbr(DatagramFlow {
        rate_bps,
        packet_bytes,
        start: SimTime::from_millis(start_ms),
        stop: stop_ms.map(SimTime::from_millis),
        client: 1,
        server: 2,
    }))
    .unwrap()
}

#[test]
fn cbr_sends_every_size_over_rate_from_start_until_stop() {
    // 1000 B at 1 Mbps: one packet every 8 ms. From 100 ms, stop at 180 ms: packets at
    // 100, 108, …, 172 ms = 10 packets (180 ms itself is excluded).
    let mut w = cbr(1_000_000, 1000, 100, Some(180));
    let log = drive(&mut w, &mut rng("cbr"), secs(10), |_| None);
    let times: Vec<u64> = log.iter().map(|(t, _)| t.as_nanos()).collect();
    let want: Vec<u64> = (0..10).map(|k| 100_000_000 + k * 8_000_000).collect();
    assert_eq!(times, want);
    let expect = Request {
        user: 0,
        client: 1,
        server: 2,
        request_bytes: 0,
        response_bytes: 1000,
        kind: FlowKind::Datagram,
        page: 0,
        server_delay: SimDuration::ZERO,
        more: Vec::new(),
        box_rtt: None,
    };
    assert!(log.iter().all(|(_, r)| *r == expect));
    assert_eq!(w.next_deadline(), None);
}

#[test]
fn cbr_spacing_does_not_accumulate_rounding() {
    // 210 B (ns-2 default) at 3 Mbps: 560 µs exactly; 1500 B at 7 Mbps: 1714285.71… ns, so
    // packet k leaves at ⌊k · 12e9 / 7e6⌋ ns; in 1 s: k = 0..=583 (583 · 1714285.7 = 999.43 ms,
    // 584 · 1714285.7 = 1001.14 ms) = 584 packets, the last at 999428571 ns.
    let mut w = cbr(7_000_000, 1500, 0, Some(1000));
    let log = drive(&mut w, &mut rng("cbr"), secs(10), |_| None);
    assert_eq!(log.len(), 584);
    assert_eq!(log[583].0.as_nanos(), 999_428_571);
    assert_eq!(log[7].0.as_nanos(), 12_000_000); // 7 · 12e9/7e6 = 12 ms exactly
    let mut w = cbr(3_000_000, 210, 0, Some(1000));
    let log = drive(&mut w, &mut rng("cbr"), secs(10), |_| None);
    // 1 s / 560 µs = 1785.7 → packets k = 0..=1785.
    assert_eq!(log.len(), 1786);
}

#[test]
fn cbr_without_stop_runs_to_the_end_and_rejects_bad_input() {
    let mut w = cbr(8_000, 1000, 0, None); // one packet per second
    let log = drive(&mut w, &mut rng("cbr"), secs(100), |_| None);
    assert_eq!(log.len(), 101); // 0, 1, …, 100 s
    let bad = |f: DatagramFlow| Workload::new(WorkloadConfig::Cbr(f)).unwrap_err();
    let ok = DatagramFlow {
        rate_bps: 1,
        packet_bytes: 40,
        start: SimTime::ZERO,
        stop: None,
        client: 0,
        server: 0,
    };
    assert!(bad(DatagramFlow {
        rate_bps: 0,
        ..ok.clone()
    })
    .starts_with("rate"));
    assert!(bad(DatagramFlow {
        packet_bytes: 39,
        ..ok.clone()
    })
    .starts_with("packet_size"));
    assert!(bad(DatagramFlow {
        stop: Some(SimTime::ZERO),
        ..ok
    })
    .starts_with("stop"));
}
