//! Mah's browsing users: tables, sampling and the generative loop, against the numbers worked
//! out in reference/mah/MAH-MODEL.md (§4 table means, §5 request rates and bytes per request).

use super::*;
use crate::distribution::EmpiricalCdf;
use crate::workload::mah::{step_mean, step_sample};
use rand::Rng as _;
use std::collections::HashMap;

fn thesis() -> MahConfig {
    MahConfig {
        primary_replies: PrimaryReplies::FirstTwoOfPage,
        think_on_server_change: false,
        ..MahConfig::new(400, 7, 7)
    }
}

#[test]
fn embedded_tables_have_the_reference_means() {
    let t = MahTables::mah97();
    // MAH-MODEL.md §4: E[F] = 2.915, E[C] = 4.087 (step sampling), interpolated means of the
    // primary and secondary replies 15,247 B and 6,826 B, requests 395 B and 334 B.
    assert!((step_mean(&t.files_per_page.points) - 2.9154).abs() < 1e-3);
    assert!((step_mean(&t.pages_per_server.points) - 4.087).abs() < 1e-3);
    assert!(
        (t.primary_reply.mean() - 15_246.75).abs() < 1.0,
        "{}",
        t.primary_reply.mean()
    );
    assert!((t.secondary_reply.mean() - 6_826.28).abs() < 1.0);
    assert!((t.primary_request.mean() - 394.97).abs() < 0.5);
    assert!((t.secondary_request.mean() - 334.21).abs() < 0.5);
    // Think time clipped at 600 s: 98.5 s.
    let m = thesis().mean_clipped_think_s();
    assert!((m - 98.5).abs() < 0.5, "clipped think mean {m}");
}

#[test]
fn counts_are_sampled_exactly_from_the_steps() {
    let t = MahTables::mah97();
    let pts = &t.files_per_page.points;
    // u just below / at the first cdf (0.486376811594): F = 1, then 2.
    assert_eq!(step_sample(pts, 0.0), 1.0);
    assert_eq!(step_sample(pts, 0.4863), 1.0);
    assert_eq!(step_sample(pts, 0.486376811594), 2.0);
    let mut r = rng("mah-steps");
    let n = 400_000;
    let mean_f: f64 = (0..n)
        .map(|_| step_sample(pts, r.gen::<f64>()))
        .sum::<f64>()
        / n as f64;
    assert!((mean_f - 2.9154).abs() < 0.03, "E[F] sampled {mean_f}");
    let mean_c: f64 = (0..n)
        .map(|_| step_sample(&t.pages_per_server.points, r.gen::<f64>()))
        .sum::<f64>()
        / n as f64;
    assert!((mean_c - 4.087).abs() < 0.05, "E[C] sampled {mean_c}");
}

#[test]
fn mean_reply_per_request_matches_the_worked_example() {
    // MAH-MODEL.md §5.2 step 3: thesis rules give 11,198 B per request; Mah's definition (one
    // primary per page): (15,247 + 1.9154 × 6,826)/2.9154 = 9,715 B.
    let w = WorkloadConfig::Mah(thesis());
    let m = w.mean_response_bytes().unwrap();
    assert!((m - 11_198.0).abs() < 15.0, "{m}");
    let w = WorkloadConfig::Mah(MahConfig::new(1, 1, 1));
    let m = w.mean_response_bytes().unwrap();
    let want = (15_246.75 + (2.9154 - 1.0) * 6_826.28) / 2.9154;
    assert!((m - want).abs() < 5.0, "{m} vs {want}");
    // First two of a run: 1 + P(F ≥ 2)/E[C] = 1 + 0.5136/4.087 = 1.1257 primaries per page.
    let run = MahConfig {
        primary_replies: PrimaryReplies::FirstTwoOfRun,
        ..thesis()
    };
    let m = WorkloadConfig::Mah(run).mean_response_bytes().unwrap();
    let want = (1.1257 * 15_246.75 + (2.9154 - 1.1257) * 6_826.28) / 2.9154;
    assert!((m - want).abs() < 10.0, "{m} vs {want}");
}

/// Per page: the primary opens alone; secondaries only once it has completed; never more than
/// `max_parallel` open at once; every file of the page from the same server and client.
#[test]
fn pages_open_primary_first_then_at_most_two_at_a_time() {
    let mut r = rng("mah-pages");
    let mut w = Workload::new(WorkloadConfig::Mah(thesis())).unwrap();
    let d = SimDuration::from_millis(700);
    let log = drive(&mut w, &mut r, secs(4 * 3600), |_| Some(d));
    let mut pages: HashMap<u64, Vec<(SimTime, &Request)>> = HashMap::new();
    for (t, q) in &log {
        assert_ne!(q.page, 0);
        assert_eq!(q.client, q.user % 7);
        assert_eq!((q.page >> 32) as u32, q.user);
        pages.entry(q.page).or_default().push((*t, q));
    }
    assert!(pages.len() > 5_000, "{} pages", pages.len());
    let mut multi = 0;
    for files in pages.values() {
        let (t0, first) = files[0];
        for &(t, q) in &files[1..] {
            assert!(t >= t0 + d, "secondary before the primary completed");
            assert_eq!((q.server, q.client), (first.server, first.client));
        }
        // With every connection taking 0.7 s and 2 in parallel, secondaries k = 1, 2 open at
        // t0 + 0.7 s, k = 3, 4 at t0 + 1.4 s, …
        for (k, &(t, _)) in files.iter().enumerate().skip(1) {
            let wave = (k as u64).div_ceil(2);
            assert_eq!(t, t0 + SimDuration::from_millis(700 * wave), "file {k}");
        }
        multi += (files.len() > 2) as u32;
    }
    assert!(multi > 1_000);
}

/// Requests per minute per user with instant responses: E[F]·60 / (think per page), where the
/// think per page is E[min(T, 600)] always (Mah) or E[min(T, 600)]·(E[C] − 1)/E[C] (thesis: no
/// think before a page on a new server) — MAH-MODEL.md §5.2 steps 4–6 and §5.3 M1 give 2.34
/// (with a 0.46 s page fetch; 2.35 without) and 1.77.
#[test]
fn request_rate_per_user_matches_the_model_arithmetic() {
    for (cfg, want) in [(thesis(), 2.351), (MahConfig::new(400, 7, 7), 1.776)] {
        let mut r = rng("mah-rate");
        let mut w = Workload::new(WorkloadConfig::Mah(cfg)).unwrap();
        let log = drive(&mut w, &mut r, secs(6 * 3600), |_| Some(SimDuration::ZERO));
        // Steady state after the first hour (start offsets and the 600 s clip).
        let n = log.iter().filter(|(t, _)| *t >= secs(3600)).count() as f64;
        let per_min = n / 400.0 / 300.0;
        assert!(
            (per_min - want).abs() / want < 0.04,
            "{per_min} requests/min, want {want}"
        );
    }
}

/// The share of replies drawn from the primary table, measured by marking the tables apart:
/// primary replies are all 1 B, secondary 2 B.
#[test]
fn primary_reply_rules_pick_the_right_files() {
    let mut t = MahTables::mah97();
    t.primary_reply = EmpiricalCdf {
        points: vec![(1.0, 1.0)],
    };
    t.secondary_reply = EmpiricalCdf {
        points: vec![(2.0, 1.0)],
    };
    for (rule, per_page) in [
        (PrimaryReplies::FirstOfPage, 1.0),
        (PrimaryReplies::FirstTwoOfPage, 2.0 - 0.486_377),
        (
            PrimaryReplies::FirstTwoOfRun,
            1.0 + (1.0 - 0.486_377) / 4.087,
        ),
    ] {
        let cfg = MahConfig {
            tables: t.clone(),
            primary_replies: rule,
            ..thesis()
        };
        let mut r = rng("mah-primary");
        let mut w = Workload::new(WorkloadConfig::Mah(cfg)).unwrap();
        let log = drive(&mut w, &mut r, secs(4 * 3600), |_| Some(SimDuration::ZERO));
        let mut pages: HashMap<u64, (u32, Vec<u64>)> = HashMap::new();
        for (_, q) in &log {
            let e = pages.entry(q.page).or_default();
            e.1.push(q.response_bytes);
            e.0 += (q.response_bytes == 1) as u32;
        }
        let primaries: u32 = pages.values().map(|p| p.0).sum();
        let got = primaries as f64 / pages.len() as f64;
        assert!(
            (got - per_page).abs() < 0.03,
            "{rule:?}: {got} primaries per page, want {per_page}"
        );
        for (_, files) in pages.values() {
            assert_eq!(files[0], 1, "the first file of every page is primary");
        }
    }
}

#[test]
fn zipf_prefers_low_ranks() {
    let cfg = MahConfig {
        server_choice: ServerChoice::Zipf { exponent: 1.0 },
        ..MahConfig::new(300, 7, 7)
    };
    let mut r = rng("mah-zipf");
    let mut w = Workload::new(WorkloadConfig::Mah(cfg)).unwrap();
    let log = drive(&mut w, &mut r, secs(4 * 3600), |_| Some(SimDuration::ZERO));
    // Count server choices: one per run of pages, i.e. per (user, server change). Primaries of
    // the first page after a change are hard to isolate; use page counts per server instead —
    // each run has E[C] pages whatever the server, so page shares follow the Zipf weights
    // 1/i / H_7 (H_7 = 2.5929): 0.386, 0.193, …, 0.0551.
    let mut pages = [0u64; 7];
    let mut seen = std::collections::HashSet::new();
    for (_, q) in &log {
        if seen.insert(q.page) {
            pages[q.server as usize] += 1;
        }
    }
    let total: u64 = pages.iter().sum();
    for (i, &c) in pages.iter().enumerate() {
        let want = 1.0 / (i as f64 + 1.0) / 2.592_857;
        let got = c as f64 / total as f64;
        assert!((got - want).abs() < 0.02, "server {i}: {got} vs {want}");
    }
}

#[test]
fn bad_parameters_are_named() {
    let bad = |c: MahConfig| WorkloadConfig::Mah(c).validate().unwrap_err();
    assert!(bad(MahConfig {
        max_parallel: 0,
        ..thesis()
    })
    .starts_with("max_parallel"));
    assert!(bad(MahConfig {
        think_cap_s: 0.0,
        ..thesis()
    })
    .starts_with("think_cap"));
    assert!(bad(MahConfig {
        users: 0,
        ..thesis()
    })
    .starts_with("users"));
}
