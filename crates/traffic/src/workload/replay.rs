//! Connection-trace replay (`WorkloadConfig::Replay`): HTTP connections read from a file
//! instead of drawn from a model, in the spirit of ns-2's Tmix connection vectors (Weigle et al.
//! 2006, "Tmix": replay measured connections). Each row is one connection: its start time, its
//! request and response sizes, the server's think time and, optionally, the base RTT that the
//! DelayBox at its client's router and at its server's router add to it (each applied half in
//! each direction, as a workload `delaybox` does). The ns-2 twins use it to run aqmlab on the
//! very connections an ns-2 run drew (validation/ns2/twin/compare.py `--paired`), so the two
//! engines can be compared connection by connection.
//!
//! File format: CSV with a header line; `#` starts a comment line; blank lines are skipped.
//!
//! | column           | unit    | required | rule                                   |
//! |------------------|---------|----------|----------------------------------------|
//! | `start_s`        | s       | yes      | finite, 0 ≤ x ≤ [`MAX_TIME_S`]         |
//! | `request_bytes`  | bytes   | yes      | integer, 1 ≤ x ≤ 1e12 (`MAX_SIZE_BYTES`) |
//! | `response_bytes` | bytes   | yes      | integer, 1 ≤ x ≤ 1e12 (`MAX_SIZE_BYTES`) |
//! | `server_delay_s` | s       | no (0)   | finite, 0 ≤ x ≤ [`MAX_TIME_S`]         |
//! | `client_rtt_s`   | s       | no       | finite, 0 ≤ x ≤ [`MAX_TIME_S`]; with `server_rtt_s` |
//! | `server_rtt_s`   | s       | no       | as `client_rtt_s`; both or neither     |
//! | `conn`           | —       | no       | integer ≥ 0: rows of one persistent connection |
//! | `gap_s`          | s       | no (0)   | finite, 0 ≤ x ≤ [`MAX_TIME_S`]; continuation rows only |
//!
//! Persistent connections (HTTP/1.1, not pipelined), with the `conn` column: the first row of a
//! `conn` value (in file order) opens the connection and gives its `start_s`, first exchange and
//! DelayBox RTTs; each later row with the same value is the next exchange on it, sent `gap_s`
//! after the previous response's last byte arrived ([`Exchange`]); it leaves `start_s` and the
//! RTT columns empty (they belong to the connection) and a first row leaves `gap_s` empty. Without
//! the column every row is its own HTTP/1.0 connection.
//!
//! Generator: connections open at their `start_s` (nearest nanosecond) in (start, row) order;
//! connection n (0-based, in that order) uses client `n mod clients` and server `n mod
//! servers` (PackMime's rotation); `user` 0, kind `Http`, its exchanges in file order. No
//! randomness: the workload's stream is never drawn from.
//!
//! Validation: `workload::tests::replay` (parse rules and their messages, order, rotation,
//! times).

use super::{Exchange, FlowKind, Request};
use units::limits::MAX_SIZE_BYTES;
use units::{SimDuration, SimTime};

/// Largest time a trace may give (start, server delay, RTT), seconds: 10⁸ s (about 3.2 years)
/// keeps every sum of times far inside the u64-nanosecond clock (584 years).
pub const MAX_TIME_S: f64 = 1e8;

/// One connection of a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayConn {
    /// When the client opens the connection (sends its SYN).
    pub start: SimTime,
    /// Request payload, bytes (≥ 1).
    pub request_bytes: u64,
    /// Response payload, bytes (≥ 1).
    pub response_bytes: u64,
    /// Server think time between the whole request having arrived and the response.
    pub server_delay: SimDuration,
    /// Base RTT added by the DelayBox at the client's router and at the server's router
    /// (each applied half in each direction); `None` = none from the trace.
    pub box_rtt: Option<[SimDuration; 2]>,
    /// Further exchanges on the same persistent connection, in order (rows with the same
    /// `conn` after its first); empty = HTTP/1.0.
    pub more: Vec<Exchange>,
}

const COLUMNS: [&str; 8] = [
    "start_s",
    "request_bytes",
    "response_bytes",
    "server_delay_s",
    "client_rtt_s",
    "server_rtt_s",
    "conn",
    "gap_s",
];

/// Parse a trace (the whole file as text). Errors name the line (1-based, as an editor shows
/// it) and the column.
pub fn parse_replay_csv(text: &str) -> Result<Vec<ReplayConn>, String> {
    let mut rdr = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header = rdr
        .headers()
        .map_err(|e| format!("cannot read the header line: {e}"))?
        .clone();
    let mut col = [None; 8];
    for (i, h) in header.iter().enumerate() {
        let Some(k) = COLUMNS.iter().position(|c| *c == h) else {
            return Err(format!(
                "unknown column {h:?} in the header (known: {})",
                COLUMNS.join(", ")
            ));
        };
        if col[k].replace(i).is_some() {
            return Err(format!("column {h:?} appears twice in the header"));
        }
    }
    for k in 0..3 {
        if col[k].is_none() {
            return Err(format!(
                "missing column {:?} (the header needs start_s, request_bytes, response_bytes)",
                COLUMNS[k]
            ));
        }
    }
    if col[7].is_some() && col[6].is_none() {
        return Err(
            "gap_s needs the conn column (it spaces the exchanges of one connection)".into(),
        );
    }
    if col[4].is_some() != col[5].is_some() {
        return Err("client_rtt_s and server_rtt_s go together: give both or neither".into());
    }
    let mut out: Vec<ReplayConn> = Vec::new();
    // conn id → its connection's index in `out`.
    let mut open: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| format!("{e}"))?;
        let line = rec.position().map_or(0, |p| p.line());
        let get = |k: usize| -> Option<&str> { col[k].and_then(|i| rec.get(i)) };
        let time = |k: usize| -> Result<f64, String> {
            let s = get(k).unwrap_or("");
            let x: f64 = s
                .parse()
                .map_err(|_| format!("line {line}: {}: expected seconds, got {s:?}", COLUMNS[k]))?;
            if !(x.is_finite() && (0.0..=MAX_TIME_S).contains(&x)) {
                return Err(format!(
                    "line {line}: {}: must be between 0 and {MAX_TIME_S:e} s, got {s}",
                    COLUMNS[k]
                ));
            }
            Ok(x)
        };
        let bytes = |k: usize| -> Result<u64, String> {
            let s = get(k).unwrap_or("");
            match s.parse::<u64>() {
                Ok(n) if n > MAX_SIZE_BYTES => Err(format!(
                    "line {line}: {}: too large: at most 1e12 B, got {s:?}",
                    COLUMNS[k]
                )),
                Ok(n) if n >= 1 => Ok(n),
                _ => Err(format!(
                    "line {line}: {}: expected a whole number of bytes ≥ 1, got {s:?}",
                    COLUMNS[k]
                )),
            }
        };
        let empty = |k: usize| get(k).is_none_or(str::is_empty);
        if let Some(id) = col[6].map(|_| get(6).unwrap_or("")) {
            let id: u64 = id.parse().map_err(|_| {
                format!("line {line}: conn: expected a connection number ≥ 0, got {id:?}")
            })?;
            if let Some(&i) = open.get(&id) {
                for k in [0, 4, 5] {
                    if col[k].is_some() && !empty(k) {
                        return Err(format!(
                            "line {line}: {}: a later exchange of connection {id} leaves it \
                             empty (it belongs to the connection's first row)",
                            COLUMNS[k]
                        ));
                    }
                }
                let gap = match col[7] {
                    Some(_) if !empty(7) => SimDuration::from_secs_f64(time(7)?),
                    _ => SimDuration::ZERO,
                };
                let server_delay = match col[3] {
                    Some(_) => SimDuration::from_secs_f64(time(3)?),
                    None => SimDuration::ZERO,
                };
                out[i].more.push(Exchange {
                    gap,
                    request_bytes: bytes(1)?,
                    response_bytes: bytes(2)?,
                    server_delay,
                });
                continue;
            }
            if col[7].is_some() && !empty(7) {
                return Err(format!(
                    "line {line}: gap_s: the first row of connection {id} opens it at start_s \
                     and leaves gap_s empty"
                ));
            }
            open.insert(id, out.len());
        }
        let start = SimTime::ZERO + SimDuration::from_secs_f64(time(0)?);
        let request_bytes = bytes(1)?;
        let response_bytes = bytes(2)?;
        let server_delay = match col[3] {
            Some(_) => SimDuration::from_secs_f64(time(3)?),
            None => SimDuration::ZERO,
        };
        let box_rtt = match col[4] {
            Some(_) => Some([
                SimDuration::from_secs_f64(time(4)?),
                SimDuration::from_secs_f64(time(5)?),
            ]),
            None => None,
        };
        out.push(ReplayConn {
            start,
            request_bytes,
            response_bytes,
            server_delay,
            box_rtt,
            more: Vec::new(),
        });
    }
    if out.is_empty() {
        return Err("no connections: the file has a header but no rows".into());
    }
    Ok(out)
}

/// The replay generator: the trace in (start, row) order and the next connection to open.
#[derive(Clone, Debug)]
pub(super) struct Replay {
    conns: Vec<ReplayConn>,
    next: usize,
    clients: u32,
    servers: u32,
}

impl Replay {
    /// `clients`, `servers` ≥ 1 are checked by `WorkloadConfig::validate`.
    pub(super) fn new(conns: &[ReplayConn], clients: u32, servers: u32) -> Self {
        let mut conns = conns.to_vec();
        // Stable: rows with equal start times keep the file's order.
        conns.sort_by_key(|c| c.start);
        Replay {
            conns,
            next: 0,
            clients,
            servers,
        }
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.conns.get(self.next).map(|c| c.start)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, out: &mut Vec<Request>) {
        while let Some(c) = self.conns.get(self.next) {
            if c.start > now {
                break;
            }
            let n = self.next as u64;
            out.push(Request {
                user: 0,
                client: (n % self.clients as u64) as u32,
                server: (n % self.servers as u64) as u32,
                request_bytes: c.request_bytes,
                response_bytes: c.response_bytes,
                kind: FlowKind::Http,
                page: 0,
                server_delay: c.server_delay,
                more: c.more.clone(),
                box_rtt: c.box_rtt,
            });
            self.next += 1;
        }
    }
}
