//! One direction with a fake clock: exact departure times, delays, drops, marks, conservation.

mod common;

use aqm::{CodelParams, DisciplineParams, DropReason, DualPi2Params};
use common::*;
use router::ipv4::{self, header_checksum};
use router::path::{Departure, Offered, Path};
use units::{SimDuration, SimTime};

fn ms(x: u64) -> SimTime {
    SimTime::from_millis(x)
}
fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

fn check(p: &Path) {
    p.counters().check().unwrap();
    let q = p.queue_stats();
    q.check_identities(p.counters().queued_packets).unwrap();
}

/// Poll until `until`, stepping to each wake-up; every departure with its poll time.
fn drain(p: &mut Path, until: SimTime) -> Vec<(SimTime, Departure)> {
    let mut out = Vec::new();
    while let Some(t) = p.next_wakeup().filter(|&t| t <= until) {
        while let Some(d) = p.poll(t) {
            out.push((t, d));
        }
        check(p);
    }
    out
}

#[test]
fn three_full_packets_at_10mbps_leave_1_2ms_apart_after_the_propagation_delay() {
    let mut p = Path::new(&path_spec(10, 10, droptail(100)), 1).unwrap();
    for _ in 0..3 {
        let b = data(1500, 0);
        let h = ipv4::parse(&b).unwrap();
        assert_eq!(
            p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO),
            Offered::Queued
        );
        check(&p);
    }
    // 1500 B × 8 / 10 Mbit/s = 1.2 ms per packet; + 10 ms propagation.
    assert_eq!(p.next_wakeup(), Some(us(1200)));
    assert_eq!(p.poll(us(11_199)), None);
    let deps = drain(&mut p, ms(1000));
    let times: Vec<_> = deps
        .iter()
        .map(|(t, d)| (t.as_nanos(), d.release.as_nanos(), d.tx_end.as_nanos()))
        .collect();
    assert_eq!(
        times,
        vec![
            (11_200_000, 11_200_000, 1_200_000),
            (12_400_000, 12_400_000, 2_400_000),
            (13_600_000, 13_600_000, 3_600_000)
        ]
    );
    // One busy period.
    assert!(deps.iter().all(|(_, d)| d.period == 1));
    let c = p.counters();
    assert_eq!((c.in_packets, c.out_packets, c.out_bytes), (3, 3, 4500));
    assert_eq!(p.next_wakeup(), None);
}

#[test]
fn a_late_poll_does_not_slow_the_link() {
    // The caller looks only at 50 ms: the departures are still scheduled 1.2 ms apart.
    let mut p = Path::new(&path_spec(10, 10, droptail(100)), 1).unwrap();
    for _ in 0..3 {
        let b = data(1500, 0);
        let h = ipv4::parse(&b).unwrap();
        p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO);
    }
    let r: Vec<u64> = std::iter::from_fn(|| p.poll(ms(50)))
        .map(|d| d.release.as_nanos())
        .collect();
    assert_eq!(r, vec![11_200_000, 12_400_000, 13_600_000]);
    check(&p);
}

#[test]
fn access_and_delaybox_delays_add_after_serialization() {
    let mut spec = path_spec(10, 10, droptail(100));
    spec.access_delay = SimDuration::from_millis(2);
    let mut p = Path::new(&spec, 1).unwrap();
    let b = data(1000, 0); // 0.8 ms at 10 Mbps
    let h = ipv4::parse(&b).unwrap();
    p.offer(ms(5), b, &h, SimDuration::from_millis(7));
    let b = data(40, 0); // 32 µs, no box
    let h = ipv4::parse(&b).unwrap();
    p.offer(ms(5), b, &h, SimDuration::ZERO);
    let deps = drain(&mut p, ms(100));
    // 5 + 0.8 + 10 + 2 + 7 = 24.8 ms; the ACK: 5.8 + 0.032 + 12 = 17.832 ms, so it leaves first.
    let r: Vec<u64> = deps.iter().map(|(_, d)| d.release.as_nanos()).collect();
    assert_eq!(r, vec![17_832_000, 24_800_000]);
}

#[test]
fn droptail_overflow_drops_what_does_not_fit_behind_the_packet_on_the_wire() {
    let mut p = Path::new(&path_spec(10, 10, droptail(2)), 1).unwrap();
    let mut verdicts = Vec::new();
    for _ in 0..5 {
        let b = data(1500, 0);
        let h = ipv4::parse(&b).unwrap();
        verdicts.push(p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO));
        check(&p);
    }
    // Packet 0 goes straight onto the idle link; 1 and 2 fill the 2-packet buffer.
    use Offered::*;
    assert_eq!(
        verdicts,
        vec![
            Queued,
            Queued,
            Queued,
            Dropped(DropReason::Overflow),
            Dropped(DropReason::Overflow)
        ]
    );
    let c = p.counters();
    assert_eq!(
        (c.in_packets, c.dropped_packets, c.dropped_bytes),
        (5, 2, 3000)
    );
    assert_eq!((c.queued_packets, c.in_flight_packets), (2, 1));
    assert_eq!(drain(&mut p, ms(100)).len(), 3);
    let c = p.counters();
    assert_eq!(
        (c.out_packets, c.queued_packets, c.in_flight_packets),
        (3, 0, 0)
    );
    assert_eq!(p.queue_stats().overflow_drops, 2);
}

#[test]
fn codel_marks_at_dequeue_set_ce_with_a_valid_checksum() {
    // 200 ECT(0) packets of 1500 B at t = 0 on 10 Mbps: packet k leaves the queue at 1.2k ms
    // with sojourn 1.2k ms. Sojourn ≥ 5 ms first at k = 5 (6.0 ms): first_above_time = 106 ms.
    // First dequeue at or after 106 ms: k = 89 (106.8 ms) → mark, count 1, drop_next =
    // 106.8 + 100 = 206.8 ms. Next dequeue at or after 206.8 ms: k = 173 (207.6 ms) → mark,
    // count 2, drop_next = 206.8 + 70.71 = 277.5 ms, after the last packet (k = 199, 238.8
    // ms; from k = 198 the backlog is ≤ one MTU). So exactly packets 89 and 173 carry CE.
    let q = DisciplineParams::Codel(CodelParams {
        ecn: true,
        ..CodelParams::default()
    });
    let mut p = Path::new(&path_spec(10, 10, q), 1).unwrap();
    for i in 0..200u16 {
        let mut b = data(1500, ECT0);
        b[4..6].copy_from_slice(&i.to_be_bytes()); // IP id = index
        b[10] = 0;
        b[11] = 0;
        let c = header_checksum(&b[..20]);
        b[10..12].copy_from_slice(&c.to_be_bytes());
        let h = ipv4::parse(&b).unwrap();
        p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO);
    }
    let deps = drain(&mut p, SimTime::from_secs(1));
    assert_eq!(deps.len(), 200);
    let mut marked = Vec::new();
    for (_, d) in &deps {
        assert_eq!(header_checksum(&d.buf[..20]), 0, "checksum");
        let id = u16::from_be_bytes([d.buf[4], d.buf[5]]);
        if d.buf[1] & 0b11 == 0b11 {
            marked.push(id);
        } else {
            assert_eq!(d.buf[1] & 0b11, ECT0);
        }
    }
    assert_eq!(marked, vec![89, 173]);
    assert_eq!(p.counters().marked_packets, 2);
    assert_eq!(p.queue_stats().marks, 2);
    assert_eq!(p.counters().dropped_packets, 0);
    check(&p);
}

#[test]
fn red_marks_at_enqueue_set_ce_and_match_the_discipline_run_alone() {
    // RED with w_q = 1 (avg = instantaneous queue), thresholds 2..6, max_p 0.5, ECN: the marks
    // are random, so the reference is the same discipline with the same stream
    // ("link:bottleneck_fwd" of seed 9) fed the same arrivals, as the simulator would.
    let params = aqm::RedParams {
        min_th: 2.0,
        max_th: 6.0,
        w_q: 1.0,
        max_p: 0.5,
        limit: 100,
        ecn: true,
        ..aqm::RedParams::default()
    };
    let q = DisciplineParams::Red(params);
    let spec = path_spec(10, 10, q.clone());
    let mut p = Path::new(&spec, 9).unwrap();
    let mut reference = q
        .build(aqm::LinkInfo {
            rate: spec.rate,
            delay: spec.delay,
        })
        .unwrap();
    let mut rng = units::stream(9, "link:bottleneck_fwd");
    use aqm::QueueDisc;
    let mut want = Vec::new();
    let mut drops = Vec::new();
    // 40 packets 0.6 ms apart (twice the link's rate): the queue grows by one every 1.2 ms.
    for i in 0..40u32 {
        let t = SimTime::from_micros(600 * i as u64);
        let b = data(1500, ECT0);
        let h = ipv4::parse(&b).unwrap();
        let got = p.offer(t, b, &h, SimDuration::ZERO);
        let meta = aqm::PacketMeta {
            id: i,
            size_bytes: 1500,
            ecn: aqm::Ecn::Ect0,
            class: aqm::PacketClass::Http,
            cwnd_hint: 0,
            flow: h.flow_id(),
            enqueued_at: t,
        };
        // Link: packet 0 starts at 0 and the queue never empties after, so the k-th dequeue
        // (k ≥ 1) happens at 1.2k ms; run those due by t before the arrival, as the path does.
        loop {
            let k = reference.stats().dequeued;
            let at = SimTime::from_micros(1200 * k);
            if k == 0 || at > t || reference.len_packets() == 0 {
                break;
            }
            reference.dequeue(at, &mut drops);
        }
        let v = reference.enqueue(t, meta, &mut rng);
        if i == 0 {
            reference.dequeue(t, &mut drops);
        }
        want.push(match v {
            aqm::Verdict::Enqueued => Offered::Queued,
            aqm::Verdict::EnqueuedMarked => Offered::Marked,
            aqm::Verdict::Dropped(r) => Offered::Dropped(r),
        });
        assert_eq!(got, want[i as usize], "packet {i}");
        check(&p);
    }
    let marks = want.iter().filter(|v| **v == Offered::Marked).count() as u64;
    assert!(marks > 0, "the script must exercise marking");
    assert_eq!(p.counters().marked_packets, marks);
    let deps = drain(&mut p, SimTime::from_secs(1));
    let ce = deps.iter().filter(|(_, d)| d.buf[1] & 0b11 == 0b11).count() as u64;
    assert_eq!(ce, marks);
    assert!(deps.iter().all(|(_, d)| header_checksum(&d.buf[..20]) == 0));
    check(&p);
}

#[test]
fn conservation_holds_through_a_mixed_script() {
    let mut p = Path::new(&path_spec(10, 5, droptail(3)), 1).unwrap();
    let mut t = SimTime::ZERO;
    for i in 0..300u64 {
        t += SimDuration::from_micros(137 * (i % 11));
        let b = if i % 3 == 0 {
            data(40, 0)
        } else {
            data(40 + (i as usize * 97) % 1460, 0)
        };
        let h = ipv4::parse(&b).unwrap();
        p.offer(t, b, &h, SimDuration::from_micros(i % 5 * 300));
        check(&p);
        while p.poll(t).is_some() {
            check(&p);
        }
    }
    drain(&mut p, t + SimDuration::from_secs(1));
    let c = p.counters();
    assert_eq!(c.in_packets, 300);
    assert_eq!(c.out_packets + c.dropped_packets, 300);
    assert_eq!((c.queued_packets, c.in_flight_packets), (0, 0));
    assert!(c.dropped_packets > 0);
}

#[test]
fn non_tcp_packets_are_forwarded_too() {
    let mut p = Path::new(&path_spec(100, 1, droptail(10)), 1).unwrap();
    let b = udp(1250); // 100 µs at 100 Mbps
    let h = ipv4::parse(&b).unwrap();
    p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO);
    let d = drain(&mut p, ms(10));
    assert_eq!(d[0].1.release, us(1100));
}

#[test]
fn a_dual_queue_counts_each_departure_in_the_queue_it_left() {
    // Three ECT(1) (L) then three Not-ECT (C) packets of 1500 B at t = 0 on 10 Mbps: the first
    // goes straight onto the idle link (sojourn 0), the rest leave 1.2 ms apart, L first (the
    // time-shifted FIFO gives L priority while C's head waited less than L's + 40 ms).
    // L: 0, 1.2, 2.4 ms (mean 1.2); C: 3.6, 4.8, 6.0 ms (mean 4.8, max 6.0).
    let q = DisciplineParams::DualPi2(DualPi2Params::default());
    let mut p = Path::new(&path_spec(10, 10, q), 1).unwrap();
    for tos in [ECT1, ECT1, ECT1, 0, 0, 0] {
        let b = data(1500, tos);
        let h = ipv4::parse(&b).unwrap();
        p.offer(SimTime::ZERO, b, &h, SimDuration::ZERO);
    }
    assert_eq!(drain(&mut p, SimTime::from_secs(1)).len(), 6);
    let s = p.lanes().expect("a dual queue has lanes").summary();
    assert_eq!((s.l_departures, s.c_departures), (3, 3));
    assert!((s.l_sojourn_mean_ms - 1.2).abs() < 1e-9, "{s:?}");
    assert!((s.c_sojourn_mean_ms - 4.8).abs() < 1e-9, "{s:?}");
    assert_eq!((s.l_sojourn_max_ms, s.c_sojourn_max_ms), (2.4, 6.0));
    assert_eq!((s.l_sojourn_p50_ms, s.c_sojourn_p50_ms), (1.2, 4.8));
    // Other queues keep none.
    assert!(Path::new(&path_spec(10, 10, droptail(100)), 1)
        .unwrap()
        .lanes()
        .is_none());
}
