//! Closed-loop browsing users.

use super::*;
use crate::distribution::{unit, SizeDist};

fn cfg(users: u32, think: f64) -> WorkloadConfig {
    WorkloadConfig::Http10 {
        arrival: Arrival::Users {
            users,
            think_s: SizeDist::Constant { value: think },
        },
        request_bytes: SizeDist::Constant { value: 300.0 },
        response_bytes: SizeDist::Constant { value: 5000.0 },
        clients: 3,
        servers: 2,
    }
}

/// The start offsets the model must draw: E[think]·v per user, u ascending (module doc).
fn offsets(r: &Rng, users: u32, mean_think: f64) -> Vec<SimTime> {
    let mut r = r.clone();
    (0..users)
        .map(|_| SimTime::ZERO + SimDuration::from_secs_f64(mean_think * unit(&mut r)))
        .collect()
}

#[test]
fn users_constant_think_instant_response_exact_times() {
    let mut r = rng("users");
    let off = offsets(&r, 5, 2.0);
    let mut w = Workload::new(cfg(5, 2.0)).unwrap();
    let log = drive(&mut w, &mut r, secs(100), |_| Some(SimDuration::ZERO));
    for u in 0..5u32 {
        let t = times_of(&log, u);
        assert!(off[u as usize] < secs(2), "offset in [0, E[think])");
        // offset_u + k·2 s for every k with the time ≤ 100 s (50 of them unless the offset is 0).
        let want: Vec<SimTime> = (0..)
            .map(|k| off[u as usize] + SimDuration::from_secs(2 * k))
            .take_while(|&t| t <= secs(100))
            .collect();
        assert!(want.len() >= 50);
        assert_eq!(t, want, "user {u}");
    }
    for (_, r) in &log {
        assert_eq!(r.client, r.user % 3);
        assert!(r.server < 2);
        assert_eq!(
            (r.request_bytes, r.response_bytes, r.kind),
            (300, 5000, FlowKind::Http)
        );
    }
}

#[test]
fn users_next_request_is_completion_plus_think() {
    // Responses take 0.3 s: user u requests at offset_u + k·2.3 s.
    let mut r = rng("users-rt");
    let off = offsets(&r, 4, 2.0);
    let mut w = Workload::new(cfg(4, 2.0)).unwrap();
    let log = drive(&mut w, &mut r, secs(60), |_| {
        Some(SimDuration::from_millis(300))
    });
    for u in 0..4u32 {
        let t = times_of(&log, u);
        let want: Vec<SimTime> = (0..)
            .map(|k| off[u as usize] + SimDuration::from_millis(2300 * k))
            .take_while(|&t| t <= secs(60))
            .collect();
        assert_eq!(t, want, "user {u}");
    }
}

#[test]
fn users_zero_think_start_together_and_reissue_at_once() {
    let mut w = Workload::new(cfg(3, 0.0)).unwrap();
    let mut r = rng("zero");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    assert_eq!(
        out.iter().map(|r| r.user).collect::<Vec<_>>(),
        vec![0, 1, 2],
        "ties in user order"
    );
    assert_eq!(w.next_deadline(), None, "everyone has a connection open");
    out.clear();
    w.on_response_complete(secs(1), 1, &mut r, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].user, 1);
}

#[test]
fn users_stale_completion_is_ignored() {
    let mut w = Workload::new(cfg(2, 2.0)).unwrap();
    let mut r = rng("stale");
    let mut out = Vec::new();
    w.start(SimTime::ZERO, &mut r, &mut out);
    let (d, before) = (w.next_deadline(), r.clone());
    // No request outstanding yet, and user 7 does not exist: no output, no draw.
    w.on_response_complete(secs(1), 0, &mut r, &mut out);
    w.on_response_complete(secs(1), 7, &mut r, &mut out);
    assert!(out.is_empty());
    assert_eq!((w.next_deadline(), &r), (d, &before));
}
