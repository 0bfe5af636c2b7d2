//! `base_rtt_ns` from the delay the router really applied (issue 12): after the run, each
//! request record is joined to the router's DelayBox draw for its connection by 4-tuple
//! (client address and port — the client reads its socket's local address before connecting —
//! and server address and port), instead of replaying the draw sequence in the order the
//! connections were opened, which gives a record another connection's draw whenever SYNs reach
//! the router in another order (concurrent connects, a retransmitted SYN overtaken).
//!
//! Join: per 4-tuple, the records of connections' first exchanges in order of `start_ns` (taken just before `connect`, on the
//! router's clock: both count from the run's epoch) and the draws in order of time; a record
//! gets the first unclaimed draw of its 4-tuple made at or after its `start_ns` and before the
//! next record on the same 4-tuple started (a port reused by a later connection). The records
//! of a persistent connection's later exchanges (`exchange` > 0, same `conn_id`) get their
//! connection's draw. Then `base_rtt_ns` = configured propagation RTT + 2 × the draw's one-way
//! delay.
//!
//! A record with no draw (its SYN never reached the router: a connect that failed, or a
//! connection opened too late to be sent before the end) keeps `base_rtt_ns` = the configured
//! propagation RTT + 0 (the Parquet writer has no per-record null) and is counted in
//! [`JoinStats::unjoined`]; it never gets another connection's draw.
//!
//! Validation: tests below (swapped SYNs, port reuse, a record without a draw, counts) and
//! `python/tests/test_testbed.py` (root: every completed record against delaybox.csv).

use metrics::RequestRecord;
use router::delaybox::Draw;
use std::collections::HashMap;
use std::net::SocketAddrV4;

/// What the join found (run.json `engine.delaybox_join`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinStats {
    /// Router draws (one per connection whose SYN reached the router).
    pub draws: u64,
    /// Records that got their connection's draw.
    pub joined: u64,
    /// Records without a draw (`base_rtt_ns` = propagation RTT + 0).
    pub unjoined: u64,
    /// Draws no record claimed (a connection the client did not open: should be 0).
    pub draws_unclaimed: u64,
    /// Joined draws whose connection was opened before the connection of an earlier draw:
    /// SYNs that reached the router out of opening order (each one a record that the old
    /// replay in opening order would have given a wrong base RTT, or whose draw it would have
    /// given to another).
    pub syn_out_of_order: u64,
}

/// Fill `base_rtt_ns` of every record from the router's `draws` (in the order made).
/// `tuples` maps a record's `conn_id` to its (client, server) socket addresses; `claimed`
/// receives, per draw, the `conn_id` of the record that got it (`None`: unclaimed).
pub fn join(
    records: &mut [RequestRecord],
    tuples: &HashMap<u64, (SocketAddrV4, SocketAddrV4)>,
    draws: &[Draw],
    prop_rtt_ns: u64,
) -> (JoinStats, Vec<Option<u64>>) {
    let mut by_tuple: HashMap<(SocketAddrV4, SocketAddrV4), Vec<usize>> = HashMap::new();
    for (i, d) in draws.iter().enumerate() {
        by_tuple.entry((d.src, d.dst)).or_default().push(i);
    }
    let mut recs: HashMap<(SocketAddrV4, SocketAddrV4), Vec<usize>> = HashMap::new();
    // A connection's first exchange takes the draw; its later exchanges (HTTP/1.1) share it.
    for (i, r) in records.iter().enumerate() {
        if r.exchange > 0 {
            continue;
        }
        if let Some(&t) = tuples.get(&r.conn_id) {
            recs.entry(t).or_default().push(i);
        }
    }
    let mut claimed: Vec<Option<u64>> = vec![None; draws.len()];
    let mut got: Vec<Option<usize>> = vec![None; records.len()];
    for (t, mut rs) in recs {
        rs.sort_by_key(|&i| (records[i].start_ns, records[i].id));
        let Some(ds) = by_tuple.get(&t) else {
            continue;
        };
        let mut next = 0;
        for (k, &ri) in rs.iter().enumerate() {
            let from = records[ri].start_ns;
            let until = rs.get(k + 1).map_or(u64::MAX, |&n| records[n].start_ns);
            while next < ds.len() && draws[ds[next]].at_ns < from {
                next += 1;
            }
            if next < ds.len() && draws[ds[next]].at_ns < until {
                got[ri] = Some(ds[next]);
                claimed[ds[next]] = Some(records[ri].conn_id);
                next += 1;
            }
        }
    }
    let first: HashMap<u64, usize> = got
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.map(|d| (records[i].conn_id, d)))
        .collect();
    for (i, r) in records.iter().enumerate() {
        if r.exchange > 0 {
            got[i] = first.get(&r.conn_id).copied();
        }
    }
    let mut st = JoinStats {
        draws: draws.len() as u64,
        ..JoinStats::default()
    };
    for (r, g) in records.iter_mut().zip(&got) {
        match g {
            Some(d) => {
                r.base_rtt_ns = prop_rtt_ns + 2 * draws[*d].one_way_ns;
                st.joined += 1;
            }
            None => {
                r.base_rtt_ns = prop_rtt_ns;
                st.unjoined += 1;
            }
        }
    }
    let mut latest: Option<u64> = None;
    for c in &claimed {
        match c {
            None => st.draws_unclaimed += 1,
            Some(id) => {
                if latest.is_some_and(|l| *id < l) {
                    st.syn_out_of_order += 1;
                }
                latest = Some(latest.map_or(*id, |l| l.max(*id)));
            }
        }
    }
    (st, claimed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn client(port: u16) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::new(10, 1, 0, 10), port)
    }
    fn server(host: u8) -> SocketAddrV4 {
        SocketAddrV4::new(Ipv4Addr::new(10, 2, 0, host), 80)
    }
    fn rec(id: u64, start_ns: u64) -> RequestRecord {
        RequestRecord {
            id,
            conn_id: id,
            start_ns,
            base_rtt_ns: 999, // overwritten by the join either way
            ..Default::default()
        }
    }
    fn draw(at_ns: u64, port: u16, host: u8, one_way_ns: u64) -> Draw {
        Draw {
            at_ns,
            src: client(port),
            dst: server(host),
            one_way_ns,
            workload: None,
            topology_ns: one_way_ns,
            client_box_ns: 0,
            server_box_ns: 0,
        }
    }

    #[test]
    fn later_exchanges_share_their_connections_draw() {
        // Connection 0: three exchanges on one 4-tuple (records 0, 1, 2); connection 1 reuses
        // the port afterwards and draws anew.
        let ex = |id, conn, k, start| RequestRecord {
            conn_id: conn,
            exchange: k,
            ..rec(id, start)
        };
        let mut records = vec![
            ex(0, 0, 0, 100),
            ex(1, 0, 1, 500),
            ex(2, 0, 2, 900),
            ex(3, 1, 0, 2000),
        ];
        let tuples: HashMap<_, _> = [
            (0, (client(7000), server(1))),
            (1, (client(7000), server(1))),
        ]
        .into();
        let draws = [draw(150, 7000, 1, 10), draw(2050, 7000, 1, 30)];
        let (st, claimed) = join(&mut records, &tuples, &draws, 1_000);
        let base: Vec<u64> = records.iter().map(|r| r.base_rtt_ns).collect();
        assert_eq!(base, [1_020, 1_020, 1_020, 1_060]);
        assert_eq!((st.joined, st.unjoined), (4, 0));
        assert_eq!(claimed, [Some(0), Some(1)]);
    }

    #[test]
    fn workload_boxes_are_in_the_base_rtt() {
        // A PackMime connection: no dumbbell box, client box 3 ms and server box 20 ms one
        // way (the router's log sums them into one_way_ns): base RTT = prop + 2 × 23 ms.
        let mut records = vec![rec(0, 100)];
        let tuples: HashMap<_, _> = [(0, (client(5000), server(1)))].into();
        let d = Draw {
            workload: Some(1),
            topology_ns: 0,
            client_box_ns: 3_000_000,
            server_box_ns: 20_000_000,
            ..draw(150, 5000, 1, 23_000_000)
        };
        let (st, claimed) = join(&mut records, &tuples, &[d], 1_000);
        assert_eq!(records[0].base_rtt_ns, 1_000 + 46_000_000);
        assert_eq!((st.joined, claimed), (1, vec![Some(0)]));
    }

    #[test]
    fn swapped_syns_each_get_their_own_draw() {
        // Connections 0, 1, 2 opened in that order; the SYNs of 1 and 2 reach the router
        // swapped, so the router's 2nd draw (7 ms) is connection 2's and its 3rd (40 ms) is 1's.
        let mut records = vec![rec(0, 100), rec(1, 200), rec(2, 210)];
        let tuples: HashMap<_, _> = [
            (0, (client(40000), server(10))),
            (1, (client(40001), server(11))),
            (2, (client(40002), server(10))),
        ]
        .into();
        let draws = [
            draw(150, 40000, 10, 20_000_000),
            draw(260, 40002, 10, 7_000_000),
            draw(270, 40001, 11, 40_000_000),
        ];
        let (st, claimed) = join(&mut records, &tuples, &draws, 24_000_000);
        let base: Vec<u64> = records.iter().map(|r| r.base_rtt_ns).collect();
        assert_eq!(base, [64_000_000, 104_000_000, 38_000_000]);
        assert_eq!(claimed, [Some(0), Some(2), Some(1)]);
        assert_eq!(
            st,
            JoinStats {
                draws: 3,
                joined: 3,
                unjoined: 0,
                draws_unclaimed: 0,
                syn_out_of_order: 1,
            }
        );
    }

    #[test]
    fn a_reused_port_gets_the_draw_after_its_start_and_a_missing_draw_gives_propagation_only() {
        // Connection 0 and connection 2 share a 4-tuple (port reused); connection 1 never
        // reached the router; a draw at 50 ns predates every record of its tuple and is left.
        let mut records = vec![rec(0, 100), rec(1, 150), rec(2, 1000)];
        let tuples: HashMap<_, _> = [
            (0, (client(40000), server(10))),
            (1, (client(40001), server(10))),
            (2, (client(40000), server(10))),
        ]
        .into();
        let draws = [
            draw(50, 40000, 10, 1),
            draw(120, 40000, 10, 5_000_000),
            draw(1010, 40000, 10, 9_000_000),
        ];
        let (st, claimed) = join(&mut records, &tuples, &draws, 24_000_000);
        let base: Vec<u64> = records.iter().map(|r| r.base_rtt_ns).collect();
        assert_eq!(base, [34_000_000, 24_000_000, 42_000_000]);
        assert_eq!(claimed, [None, Some(0), Some(2)]);
        assert_eq!((st.joined, st.unjoined, st.draws_unclaimed), (2, 1, 1));
        assert_eq!(st.syn_out_of_order, 0);
        // A record whose connection got no draw before the next one on its tuple started does
        // not take the later connection's draw.
        let mut records = vec![rec(0, 100), rec(1, 1000)];
        let tuples: HashMap<_, _> = [
            (0, (client(40000), server(10))),
            (1, (client(40000), server(10))),
        ]
        .into();
        let (st, claimed) = join(&mut records, &tuples, &draws[2..], 0);
        assert_eq!(claimed, [Some(1)]);
        assert_eq!(
            (records[0].base_rtt_ns, records[1].base_rtt_ns),
            (0, 18_000_000)
        );
        assert_eq!((st.joined, st.unjoined), (1, 1));
    }
}
