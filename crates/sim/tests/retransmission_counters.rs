//! The requests table's retransmission counters: both ends summed (`syn_retx`, `fin_retx`,
//! `data_retx`) and the server end alone (`server_*`, seed 000 §6.1 counts what the servers
//! sent). Only the forward (server → client) bottleneck is congested, so losses fall on the
//! servers' SYN-ACKs, response data and FINs and on the clients' ACKs.

mod common;
use common::*;

#[test]
fn server_counters_are_the_server_ends_share() {
    // 10 Mbps, 20-packet drop-tail buffer, 250 conn/s of the quickstart's sizes: ~95 % load.
    let exp = experiment(
        dumbbell(20, 10, droptail(20), None),
        vec![web(250.0, 20)],
        5,
        60,
        4,
    );
    let out = run(&exp);
    assert_conservation(&out);
    assert!(out.summary.drops > 1000, "{}", out.summary.drops);
    let sum = |f: fn(&metrics::RequestRecord) -> u32| -> u64 {
        out.requests.iter().map(|r| f(r) as u64).sum()
    };
    for r in &out.requests {
        assert!(r.server_syn_retx <= r.syn_retx, "{r:?}");
        assert!(r.server_fin_retx <= r.fin_retx, "{r:?}");
        assert!(r.server_data_retx <= r.data_retx, "{r:?}");
    }
    let (data, srv_data) = (sum(|r| r.data_retx), sum(|r| r.server_data_retx));
    let (syn, srv_syn) = (sum(|r| r.syn_retx), sum(|r| r.server_syn_retx));
    // Responses (1 KB … 2 MB) are nearly all the data; a client retransmits its 300 B request
    // only when the response's first segment (which ACKs it) is lost and the client's timer
    // runs out before the server's retransmission arrives (here ≈ 15 % of all data
    // retransmissions: seed 4 gives 5263 of 6220 at the server end).
    assert!(
        srv_data > 0 && srv_data as f64 >= 0.75 * data as f64,
        "{srv_data} of {data}"
    );
    // A lost SYN-ACK makes both ends retransmit (the client's SYN timer runs too); a lost SYN
    // cannot happen (the reverse link is idle), so the server's share is about half.
    assert!(srv_syn > 0 && srv_syn < syn, "{srv_syn} of {syn}");
}
