//! Per-queue sojourns of a coupled dual queue (DualPI2's L and C, RFC 9332) at a monitored
//! link: each packet the discipline hands over for the wire counts its time since its enqueue
//! in the queue it left (`metrics::sojourn`). The engine calls [`record_departure`] after each
//! such dequeue; the run keeps only what follows the warm-up.

use aqm::{Lane, PacketMeta, QueueDisc};
use metrics::LaneSojourns;
use units::SimTime;

/// Count `pkt`, just returned at `now` by `disc`'s `dequeue`, in the histogram of the queue
/// `disc` says it left (nothing for a discipline without lanes).
#[inline]
pub fn record_departure(
    lanes: &mut LaneSojourns,
    disc: &impl QueueDisc,
    pkt: &PacketMeta,
    now: SimTime,
) {
    let sojourn_ns = now.as_nanos().saturating_sub(pkt.enqueued_at.as_nanos());
    match disc.dequeued_lane() {
        Some(Lane::L) => lanes.l.add(sojourn_ns),
        Some(Lane::C) => lanes.c.add(sojourn_ns),
        None => {}
    }
}
