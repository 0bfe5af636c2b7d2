//! Long-lived flows.

use super::*;

#[test]
fn bulk_flows_open_at_their_start_times_in_index_order() {
    let flow = |s: u64, client, server, bytes| BulkFlow {
        start: SimTime::from_secs(s),
        client,
        server,
        bytes,
    };
    let cfg = WorkloadConfig::Bulk {
        flows: vec![
            flow(5, 0, 1, Some(1000)),
            flow(0, 1, 0, None),
            flow(5, 2, 2, None),
        ],
    };
    let mut w = Workload::new(cfg).unwrap();
    let mut r = rng("bulk");
    let before = r.clone();
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    let endless = Request {
        user: 1,
        client: 1,
        server: 0,
        request_bytes: 0,
        response_bytes: u64::MAX,
        kind: FlowKind::Bulk,
        page: 0,
        server_delay: units::SimDuration::ZERO,
        more: Vec::new(),
        box_rtt: None,
    };
    assert_eq!(out, vec![endless]);
    assert_eq!(w.next_deadline(), Some(secs(5)));
    out.clear();
    w.on_timeout(SimTime(secs(5).0 - 1), &mut r, &mut out);
    assert!(out.is_empty());
    w.on_response_complete(secs(5), 1, &mut r, &mut out); // ignored: bulk flows are not replaced
    assert!(out.is_empty());
    w.on_timeout(secs(5), &mut r, &mut out);
    assert_eq!(
        out.iter()
            .map(|q| (q.user, q.response_bytes))
            .collect::<Vec<_>>(),
        vec![(0, 1000), (2, u64::MAX)]
    );
    assert_eq!(w.next_deadline(), None);
    assert_eq!(r, before, "bulk draws nothing");
}
