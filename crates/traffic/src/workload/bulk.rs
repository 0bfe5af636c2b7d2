//! Long-lived flows (FTP) with given start times (`WorkloadConfig::Bulk`): flow i is opened at
//! its `start`, from `server` to `client`, `bytes` long or endless (`response_bytes =
//! u64::MAX`), `request_bytes` 0, kind `Bulk`, `user` = i. Completion is ignored: a bulk flow
//! is not replaced when it ends. Flows with equal start times open in index order. No
//! randomness.
//!
//! Validation: `workload::tests::bulk`.

use super::{BulkFlow, FlowKind, Request};
use units::SimTime;

#[derive(Clone, Debug)]
pub(super) struct Bulk {
    /// (start, index, request), sorted by (start, index).
    pending: Vec<(SimTime, u32, Request)>,
    /// Index into `pending` of the next flow to open.
    next: usize,
}

impl Bulk {
    /// `flows.len()` ≤ u32::MAX is checked by `WorkloadConfig::validate`.
    pub(super) fn new(flows: &[BulkFlow]) -> Self {
        let mut pending: Vec<(SimTime, u32, Request)> = flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let r = Request {
                    user: i as u32,
                    client: f.client,
                    server: f.server,
                    request_bytes: 0,
                    response_bytes: f.bytes.unwrap_or(u64::MAX),
                    kind: FlowKind::Bulk,
                    page: 0,
                    server_delay: units::SimDuration::ZERO,
                    more: Vec::new(),
                    box_rtt: None,
                };
                (f.start, i as u32, r)
            })
            .collect();
        pending.sort_by_key(|&(t, i, _)| (t, i));
        Bulk { pending, next: 0 }
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.pending.get(self.next).map(|p| p.0)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, out: &mut Vec<Request>) {
        while let Some((t, _, r)) = self.pending.get(self.next) {
            if *t > now {
                break;
            }
            out.push(r.clone());
            self.next += 1;
        }
    }
}
