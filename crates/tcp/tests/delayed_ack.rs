//! Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2), receiver side, by hand-scripted arrivals.
//!
//! The rule implemented (input.rs `process_data`): with `delayed_ack = Some(D)` an in-order
//! arrival is acknowledged at once when at least 2·MSS payload bytes are unacknowledged
//! ("every second full-sized segment", counted in bytes), otherwise the delayed-ACK timer is
//! armed at arrival + D if it is not already armed (it is never pushed later by a second
//! arrival). Out-of-order data, data that fills all or part of a gap, duplicates and a FIN are
//! acknowledged at once (RFC 5681 §4.2 "SHOULD be generated immediately"). Any segment we send
//! carries the ACK and cancels the timer.
//!
//! The lone client of `client_established` (handshake done at 100 ms, RCV.NXT = 1) receives
//! server segments of MSS 1460: segment i is [1 + (i−1)·1460, 1 + i·1460).
//! Default delay is off (`None`, seed 001 Table 2); the delays used here are 200 ms (the
//! customary value, below RFC 1122's 500 ms bound) and 100 ms.

mod util;

use tcp::{AppEvent, TcpConfig};
use util::*;

fn with_delay(d_ms: u64) -> tcp::Endpoint {
    client_established(TcpConfig {
        delayed_ack: Some(dms(d_ms)),
        ..TcpConfig::default()
    })
}

/// Start of segment i (1-based).
fn s(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

fn data(i: u64) -> tcp::Segment {
    seg(s(i), 1, MSS as u32, ACK)
}

fn acks(c: &mut tcp::Endpoint, t: u64) -> Vec<(u64, u64, u32, tcp::Flags)> {
    drain(c, ms(t)).iter().map(sal).collect()
}

#[test]
fn delayed_ack_every_second_full_segment_then_the_timer_for_the_odd_one() {
    // 200: seg 1 → 1460 B unacknowledged < 2920: no ACK, timer at 400.
    // 210: seg 2 → 2920 B: ACK 2921 now, timer off.
    // 220: seg 3 → timer at 420 (not 400: armed afresh after the ACK); 419 nothing; 420 ACK 4381.
    let mut c = with_delay(200);
    c.on_segment(ms(200), &data(1));
    assert!(acks(&mut c, 200).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(400)));
    c.on_segment(ms(210), &data(2));
    assert_eq!(acks(&mut c, 210), vec![(1, s(3), 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
    c.on_segment(ms(220), &data(3));
    assert!(acks(&mut c, 220).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(420)));
    c.on_timeout(ms(419));
    assert!(acks(&mut c, 419).is_empty());
    c.on_timeout(ms(420));
    assert_eq!(acks(&mut c, 420), vec![(1, s(4), 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn delayed_ack_delay_is_the_configured_one() {
    // 100 ms delay: a lone segment at 250 ms is acknowledged at exactly 350 ms.
    let mut c = with_delay(100);
    c.on_segment(ms(250), &data(1));
    assert!(acks(&mut c, 250).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(350)));
    c.on_timeout(ms(350));
    assert_eq!(acks(&mut c, 350), vec![(1, s(2), 0, ACK)]);
}

#[test]
fn delayed_ack_is_counted_in_bytes_not_segments() {
    // 500 B + 1460 B = 1960 B < 2·1460: still waiting (timer from the first, 400 ms); a third
    // segment makes 3420 B ≥ 2920: ACK 3421 at once.
    let mut c = with_delay(200);
    c.on_segment(ms(200), &seg(1, 1, 500, ACK));
    c.on_segment(ms(205), &seg(501, 1, 1460, ACK));
    assert!(acks(&mut c, 205).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(400)));
    c.on_segment(ms(210), &seg(1961, 1, 1460, ACK));
    assert_eq!(acks(&mut c, 210), vec![(1, 3421, 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn delayed_ack_out_of_order_arrival_acks_at_once_and_cancels_the_timer() {
    // 200: seg 1 waits (timer 400). 205: seg 3 arrives out of order → immediate duplicate-style
    // ACK of 1461 (which also covers seg 1); the timer is cancelled. 210: seg 2 fills the hole
    // → immediate ACK 4381 (it delivers segments 2 and 3), and no timer.
    let mut c = with_delay(200);
    c.on_segment(ms(200), &data(1));
    assert!(acks(&mut c, 200).is_empty());
    c.on_segment(ms(205), &data(3));
    assert_eq!(acks(&mut c, 205), vec![(1, s(2), 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
    c.on_segment(ms(210), &data(2));
    assert_eq!(acks(&mut c, 210), vec![(1, s(4), 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
    assert_eq!(events(&mut c), vec![AppEvent::Data { total: 3 * MSS }]);
}

#[test]
fn delayed_ack_filling_part_of_a_gap_acks_at_once() {
    // Segments 1 (in order, waits), then 3 and 5 out of order (two immediate ACKs of 1461).
    // Seg 2 fills the first gap only: RCV.NXT = S(4), gap 4 remains → ACK 4381 at once (RFC
    // 5681 §4.2: "fills in all or part of a gap"), although only 1460 B became in order. Seg 4
    // fills the rest → ACK S(6) at once.
    let mut c = with_delay(200);
    c.on_segment(ms(200), &data(1));
    assert!(acks(&mut c, 200).is_empty());
    c.on_segment(ms(201), &data(3));
    assert_eq!(acks(&mut c, 201), vec![(1, s(2), 0, ACK)]);
    c.on_segment(ms(202), &data(5));
    assert_eq!(acks(&mut c, 202), vec![(1, s(2), 0, ACK)]);
    c.on_segment(ms(203), &data(2));
    assert_eq!(acks(&mut c, 203), vec![(1, s(4), 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
    c.on_segment(ms(204), &data(4));
    assert_eq!(acks(&mut c, 204), vec![(1, s(6), 0, ACK)]);
    // Back in order: the next single segment is delayed again (timer at 405 + 200 = 605).
    c.on_segment(ms(405), &data(6));
    assert!(acks(&mut c, 405).is_empty());
    assert_eq!(c.next_deadline(), Some(ms(605)));
}

#[test]
fn delayed_ack_fin_is_acknowledged_at_once() {
    // One segment carrying the FIN: RCV.NXT steps over it (1 + 1460 + 1) and the ACK leaves at
    // once, without waiting for the timer.
    let mut c = with_delay(200);
    c.on_segment(ms(200), &seg(1, 1, 1460, FIN_ACK));
    assert_eq!(acks(&mut c, 200), vec![(1, 1462, 0, ACK)]);
    assert_eq!(c.next_deadline(), None);
}

#[test]
fn delayed_ack_rides_on_data_we_send() {
    // The client has 100 B to send when seg 1 arrives at 200 ms: the request segment carries
    // ACK 1461 and the pending delayed ACK is cancelled (no separate pure ACK, no timer armed
    // for it; the retransmission timer for the request is the only deadline: 200 + 1 s).
    let mut c = with_delay(200);
    c.on_segment(ms(200), &data(1));
    c.send(100);
    assert_eq!(acks(&mut c, 200), vec![(1, s(2), 100, ACK)]);
    assert_eq!(c.next_deadline(), Some(ms(1200)));
}
