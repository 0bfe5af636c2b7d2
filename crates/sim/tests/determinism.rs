//! Same experiment and seed ⇒ identical outputs; a different seed ⇒ different outputs.
//! Congested runs of drop-tail and RED also check conservation and the table identities.

mod common;
use common::*;
use sim::DelayBoxConfig;
use traffic::SizeDist;

fn congested(queue: aqm::DisciplineParams, seed: u64) -> sim::Experiment {
    let db = dumbbell(
        10,
        10,
        queue,
        Some(DelayBoxConfig::Distribution {
            rtt_s: SizeDist::Uniform {
                min: 0.0,
                max: 0.15,
            },
        }),
    );
    experiment(db, vec![web(240.0, 10)], 5, 25, seed)
}

#[test]
fn same_seed_same_results_different_seed_different() {
    let a = run(&congested(droptail(120), 7));
    let b = run(&congested(droptail(120), 7));
    let c = run(&congested(droptail(120), 8));
    assert_eq!(a.requests, b.requests);
    assert_eq!(a.queue, b.queue);
    assert_eq!(a.links, b.links);
    assert_eq!(a.summary, b.summary);
    assert_eq!(a.engine, b.engine);
    assert_ne!(a.requests, c.requests);
    assert_conservation(&a);
}

#[test]
fn congested_droptail_and_red_keep_their_identities() {
    for q in [droptail(120), red_quickstart()] {
        let out = run(&congested(q.clone(), 1));
        let s = &out.summary;
        assert!(
            s.utilization > 0.8 && s.utilization <= 1.0,
            "{q:?}: utilization {}",
            s.utilization
        );
        assert!(s.drops > 0, "{q:?}: 96% offered load must drop");
        assert!((s.aqm_drops_pct + s.overflow_drops_pct - 100.0).abs() < 1e-9);
        assert_eq!(s.drops_aqm + s.drops_overflow, s.drops);
        // Queue rows: forwarded + drops per interval add up to the link's totals.
        let rows: Vec<_> = out
            .queue
            .iter()
            .filter(|r| r.link == "bottleneck_fwd")
            .collect();
        assert_eq!(rows.len(), 300); // 30 s / 100 ms
        let drops: u64 = rows
            .iter()
            .map(|r| r.early_drops + r.forced_drops + r.overflow_drops + r.dequeue_drops)
            .sum();
        assert!(drops >= s.drops);
        match q {
            aqm::DisciplineParams::DropTail(_) => {
                assert_eq!((s.aqm_drops_pct, s.unforced_pct), (0.0, None));
                assert!(s.max_qlen <= 120);
            }
            _ => {
                let (unforced, forced) = (s.unforced_pct.unwrap(), s.forced_pct.unwrap());
                assert!(unforced > 0.0, "RED drops early");
                assert!((unforced + forced - 100.0).abs() < 1e-9);
            }
        }
        assert_conservation(&out);
    }
}
