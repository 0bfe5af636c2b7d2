//! `workload/replay.rs`: the trace format's rules and messages (line and column named), the
//! generator's order (start time, then row), host rotation, exact times, and that a trace
//! without RTT or server-delay columns gives none.

use super::*;
use rand::RngCore;

const HEADER: &str =
    "start_s,request_bytes,response_bytes,server_delay_s,client_rtt_s,server_rtt_s";

fn err(text: &str) -> String {
    parse_replay_csv(text).expect_err("must be rejected")
}

#[test]
fn rows_become_connections_in_start_order_with_rotation() {
    // Rows 2 and 3 share a start time and keep their file order; row 1 starts last.
    let text = format!(
        "# a comment\n{HEADER}\n 2.5 , 300, 4000, 0.0125, 0.064, 0.002\n\n\
         1.000000001,100,1,0,0,0\n1.000000001,200,2,0.1,0.01,0.02\n"
    );
    let conns = parse_replay_csv(&text).unwrap();
    assert_eq!(conns.len(), 3);
    assert_eq!(conns[0].start, SimTime::from_nanos(2_500_000_000));
    assert_eq!(conns[0].server_delay, SimDuration::from_micros(12_500));
    assert_eq!(
        conns[0].box_rtt,
        Some([SimDuration::from_millis(64), SimDuration::from_millis(2)])
    );
    let mut w = Workload::new(WorkloadConfig::Replay {
        conns,
        clients: 2,
        servers: 3,
    })
    .unwrap();
    let mut r = rng("replay");
    let log = drive(&mut w, &mut r, secs(10), |_| {
        Some(SimDuration::from_millis(1))
    });
    let got: Vec<(u64, u64, u32, u32)> = log
        .iter()
        .map(|(t, q)| (t.as_nanos(), q.request_bytes, q.client, q.server))
        .collect();
    assert_eq!(
        got,
        vec![
            (1_000_000_001, 100, 0, 0),
            (1_000_000_001, 200, 1, 1),
            (2_500_000_000, 300, 0, 2),
        ]
    );
    assert!(log
        .iter()
        .all(|(_, q)| q.kind == FlowKind::Http && q.more.is_empty()));
    // The workload's own stream is never drawn from.
    assert_eq!(r.clone().next_u64(), rng("replay").next_u64());
}

#[test]
fn optional_columns_default_to_none() {
    let conns = parse_replay_csv("response_bytes,start_s,request_bytes\n10,0,20\n").unwrap();
    assert_eq!(conns[0].server_delay, SimDuration::ZERO);
    assert_eq!(conns[0].box_rtt, None);
    assert_eq!((conns[0].request_bytes, conns[0].response_bytes), (20, 10));
}

#[test]
fn bad_traces_name_the_line_and_the_column() {
    let row = |r: &str| format!("{HEADER}\n0,1,1,0,0,0\n{r}\n");
    for (text, want) in [
        (
            row("1,0,5,0,0,0"),
            "line 3: request_bytes: expected a whole number of bytes ≥ 1, got \"0\"",
        ),
        (
            row("1,1,1000000000001,0,0,0"),
            "line 3: response_bytes: too large: at most 1e12 B, got \"1000000000001\"",
        ),
        (
            row("1,1,18446744073709551615,0,0,0"),
            "line 3: response_bytes: too large: at most 1e12 B",
        ),
        (
            row("1,2.5,5,0,0,0"),
            "line 3: request_bytes: expected a whole number",
        ),
        (
            row("-1,1,5,0,0,0"),
            "line 3: start_s: must be between 0 and 1e8 s, got -1",
        ),
        (
            row("1e30,1,5,0,0,0"),
            "line 3: start_s: must be between 0 and 1e8 s",
        ),
        (
            row("NaN,1,5,0,0,0"),
            "line 3: start_s: must be between 0 and 1e8 s",
        ),
        (
            row("1,1,5,0,abc,0"),
            "line 3: client_rtt_s: expected seconds, got \"abc\"",
        ),
        (row("1,1,5,0,0"), "found record with 5 fields"),
        (
            "start_s,request_bytes\n1,1\n".into(),
            "missing column \"response_bytes\"",
        ),
        (
            "start_s,request_bytes,response_bytes,rtt\n".into(),
            "unknown column \"rtt\"",
        ),
        (
            "start_s,start_s,request_bytes,response_bytes\n".into(),
            "column \"start_s\" appears twice",
        ),
        (
            "start_s,request_bytes,response_bytes,client_rtt_s\n1,1,1,0\n".into(),
            "give both or neither",
        ),
        (
            "start_s,request_bytes,response_bytes\n# only a comment\n".into(),
            "no connections",
        ),
    ] {
        let e = err(&text);
        assert!(e.contains(want), "{e:?} lacks {want:?}");
    }
}

#[test]
fn an_empty_trace_or_no_hosts_is_rejected_by_validation() {
    let conns = parse_replay_csv("start_s,request_bytes,response_bytes\n0,1,1\n").unwrap();
    let cfg = |conns, clients| WorkloadConfig::Replay {
        conns,
        clients,
        servers: 1,
    };
    assert!(cfg(conns.clone(), 1).validate().is_ok());
    assert_eq!(
        cfg(conns, 0).validate().unwrap_err(),
        "clients must be ≥ 1, got 0"
    );
    assert_eq!(
        cfg(Vec::new(), 1).validate().unwrap_err(),
        "conns: at least one connection is required"
    );
}

#[test]
fn rows_of_one_conn_are_the_exchanges_of_a_persistent_connection() {
    // Connection 7: opened at 1 s with RTTs, then two more exchanges 0.5 s and 0 s after the
    // previous response; connection 3 (HTTP/1.0-like, one row) opens at 2 s. Rows of the two
    // connections interleave in the file; each keeps its own order.
    let text = "start_s,request_bytes,response_bytes,server_delay_s,client_rtt_s,server_rtt_s,conn,gap_s\n\
                1,100,1000,0.01,0.02,0.04,7,\n\
                2,200,2000,0,0,0,3,\n\
                ,110,1100,0.02,,,7,0.5\n\
                ,120,1200,0,,,7,\n";
    let conns = parse_replay_csv(text).unwrap();
    assert_eq!(conns.len(), 2);
    assert_eq!(conns[0].start, SimTime::from_nanos(1_000_000_000));
    assert_eq!(
        conns[0].box_rtt,
        Some([SimDuration::from_millis(20), SimDuration::from_millis(40)])
    );
    assert_eq!(
        conns[0].more,
        vec![
            Exchange {
                gap: SimDuration::from_millis(500),
                request_bytes: 110,
                response_bytes: 1100,
                server_delay: SimDuration::from_millis(20),
            },
            Exchange {
                gap: SimDuration::ZERO,
                request_bytes: 120,
                response_bytes: 1200,
                server_delay: SimDuration::ZERO,
            },
        ]
    );
    assert!(conns[1].more.is_empty());
    // The generator hands the exchanges on with the connection.
    let mut w = Workload::new(WorkloadConfig::Replay {
        conns,
        clients: 1,
        servers: 1,
    })
    .unwrap();
    let mut r = rng("replay");
    let log = drive(&mut w, &mut r, secs(10), |_| {
        Some(SimDuration::from_millis(1))
    });
    let got: Vec<(u64, usize)> = log
        .iter()
        .map(|(_, q)| (q.request_bytes, q.more.len()))
        .collect();
    assert_eq!(got, vec![(100, 2), (200, 0)]);
}

#[test]
fn persistent_rows_are_checked() {
    let h = "start_s,request_bytes,response_bytes,client_rtt_s,server_rtt_s,conn,gap_s";
    let e = err(&format!("{h}\n1,1,1,0,0,x,\n"));
    assert_eq!(
        e,
        "line 2: conn: expected a connection number ≥ 0, got \"x\""
    );
    let e = err(&format!("{h}\n1,1,1,0,0,4,\n2,1,1,,,4,0\n"));
    assert!(
        e.starts_with("line 3: start_s: a later exchange of connection 4 leaves it empty"),
        "{e}"
    );
    let e = err(&format!("{h}\n1,1,1,0,0,4,\n,1,1,0.1,,4,0\n"));
    assert!(
        e.starts_with("line 3: client_rtt_s: a later exchange"),
        "{e}"
    );
    let e = err(&format!("{h}\n1,1,1,0,0,4,0.5\n"));
    assert!(
        e.starts_with("line 2: gap_s: the first row of connection 4 opens it"),
        "{e}"
    );
    let e = err(&format!("{h}\n1,1,1,0,0,4,\n,1,1,,,4,-1\n"));
    assert!(e.starts_with("line 3: gap_s: must be between 0"), "{e}");
    let e = err("start_s,request_bytes,response_bytes,gap_s\n1,1,1,0\n");
    assert_eq!(
        e,
        "gap_s needs the conn column (it spaces the exchanges of one connection)"
    );
}
