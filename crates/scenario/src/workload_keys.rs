//! The keys of the workload kinds this crate parses itself (`http10`, `bulk`, `replay`: their
//! tables hold distributions, flow arrays or files, which `declare` does not describe), declared
//! once: `workload.rs` accepts exactly these keys ([`allowed`]) and `aqmlab params KIND` prints
//! them ([`text`]). The other kinds are declared in `traffic::workload::params`.

/// One key of a workload table.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The key as written.
    pub key: &'static str,
    /// How its value is written.
    pub value: &'static str,
    /// "required", or the default as written ("" = unset).
    pub default: &'static str,
    /// Only with this `arrival` (http10), else always.
    pub arrival: Option<&'static str>,
    /// What it means.
    pub doc: &'static str,
}

/// A workload kind parsed by this crate.
#[derive(Debug)]
pub struct Kind {
    /// `kind = "…"`.
    pub kind: &'static str,
    /// One line: what it generates.
    pub title: &'static str,
    /// Its keys besides `kind` and the placement keys every workload takes.
    pub keys: &'static [Key],
    /// The keys of each element of an array of tables (`bulk`'s `flows`), with the array's key.
    pub elements: Option<(&'static str, &'static [Key])>,
}

const fn key(
    key: &'static str,
    value: &'static str,
    default: &'static str,
    doc: &'static str,
) -> Key {
    Key {
        key,
        value,
        default,
        arrival: None,
        doc,
    }
}

const SUBSET: [Key; 2] = [
    key(
        "clients",
        "integer ≥ 1",
        "",
        "How many of the client cloud's hosts take part (default all)",
    ),
    key(
        "servers",
        "integer ≥ 1",
        "",
        "How many of the server cloud's hosts take part (default all)",
    ),
];

/// `kind = "http10"`.
pub const HTTP10: Kind = Kind {
    kind: "http10",
    title: "HTTP/1.0 requests, one connection each (SYN, request, response, FIN): Poisson or users",
    keys: &[
        key(
            "arrival",
            "\"poisson\" / \"users\"",
            "required",
            "Open-loop Poisson connection arrivals, or closed-loop users with think times",
        ),
        Key {
            arrival: Some("poisson"),
            ..key(
                "rate",
                "number > 0",
                "required",
                "New connections per second (arrival = \"poisson\")",
            )
        },
        Key {
            arrival: Some("users"),
            ..key(
                "users",
                "integer ≥ 1",
                "required",
                "Users, each one request at a time (arrival = \"users\")",
            )
        },
        Key {
            arrival: Some("users"),
            ..key(
                "think",
                "duration distribution",
                "required",
                "Think time after each response (arrival = \"users\")",
            )
        },
        key(
            "request_size",
            "size distribution",
            "required",
            "Bytes of each request",
        ),
        key(
            "response_size",
            "size distribution",
            "required",
            "Bytes of each response",
        ),
        SUBSET[0],
        SUBSET[1],
    ],
    elements: None,
};

/// `kind = "bulk"`.
pub const BULK: Kind = Kind {
    kind: "bulk",
    title: "Bulk TCP transfers (FTP-like), each from a given time between two given hosts",
    keys: &[key(
        "flows",
        "array of tables",
        "required",
        "The transfers, at least one: { start, client, server, bytes }",
    )],
    elements: Some((
        "flows",
        &[
            key("start", "duration", "required", "When the flow opens"),
            key(
                "client",
                "integer ≥ 0",
                "required",
                "Client host index in its cloud (0-based)",
            ),
            key(
                "server",
                "integer ≥ 0",
                "required",
                "Server host index in its cloud (0-based)",
            ),
            key(
                "bytes",
                "size ≥ 1 B",
                "",
                "Bytes to send (omitted: endless)",
            ),
        ],
    )),
};

/// `kind = "replay"`.
pub const REPLAY: Kind = Kind {
    kind: "replay",
    title: "HTTP connections replayed from a CSV trace (as ns-2's Tmix): start_s, request_bytes, response_bytes, …",
    keys: &[
        key(
            "file",
            "path",
            "required",
            "The trace, relative to the scenario file (columns: docs/workloads.md, traffic workload/replay.rs)",
        ),
        Key {
            doc: "How many client hosts take part (connection n uses client n mod clients)",
            ..SUBSET[0]
        },
        Key {
            doc: "How many server hosts take part (connection n uses server n mod servers)",
            ..SUBSET[1]
        },
    ],
    elements: None,
};

/// The kinds parsed by this crate, in the order of the README.
pub const KINDS: [&Kind; 3] = [&HTTP10, &BULK, &REPLAY];

/// The kind named `kind`, if this crate parses it.
pub fn kind(kind: &str) -> Option<&'static Kind> {
    KINDS.into_iter().find(|k| k.kind == kind)
}

/// The keys a table of `k` may have (with `kind`): with `arrival`, only that arrival's keys.
pub fn allowed(k: &Kind, arrival: Option<&str>) -> Vec<&'static str> {
    let mut out = vec!["kind"];
    out.extend(
        k.keys
            .iter()
            .filter(|x| x.arrival.is_none() || x.arrival == arrival)
            .map(|x| x.key),
    );
    out
}

/// The keys of an element of `k`'s array of tables (`bulk`'s `flows`).
pub fn element_keys(k: &Kind) -> Vec<&'static str> {
    k.elements
        .map(|(_, keys)| keys.iter().map(|x| x.key).collect())
        .unwrap_or_default()
}

/// `aqmlab params KIND`: the title, then one aligned row per key (an array's element keys as
/// `flows[].start`), then the placement keys every workload takes.
pub fn text(k: &Kind) -> String {
    let header = ["key", "value", "default", "meaning"];
    let mut rows: Vec<[String; 4]> = Vec::new();
    let row = |name: String, x: &Key| [name, x.value.into(), x.default.into(), x.doc.into()];
    for x in k.keys {
        rows.push(row(x.key.into(), x));
        if let Some((array, keys)) = k.elements.filter(|(a, _)| *a == x.key) {
            rows.extend(keys.iter().map(|e| row(format!("{array}[].{}", e.key), e)));
        }
    }
    let mut width = header.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |r: &[String]| {
        let cells: Vec<String> = r
            .iter()
            .zip(width)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect();
        cells.join("  ").trim_end().to_string() + "\n"
    };
    let mut out = format!("{} — {}\n\n", k.kind, k.title);
    out += &line(&header.map(String::from));
    for r in &rows {
        out += &line(r);
    }
    out +=
        "\nAny workload also takes the placement keys direction, client_cloud, server_cloud and \
            delaybox (README, Workloads).\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http10_allows_each_arrivals_own_keys() {
        assert_eq!(
            allowed(&HTTP10, Some("poisson")),
            [
                "kind",
                "arrival",
                "rate",
                "request_size",
                "response_size",
                "clients",
                "servers"
            ]
        );
        assert_eq!(
            allowed(&HTTP10, Some("users")),
            [
                "kind",
                "arrival",
                "users",
                "think",
                "request_size",
                "response_size",
                "clients",
                "servers"
            ]
        );
        assert_eq!(
            allowed(&REPLAY, None),
            ["kind", "file", "clients", "servers"]
        );
        assert_eq!(allowed(&BULK, None), ["kind", "flows"]);
        assert_eq!(element_keys(&BULK), ["start", "client", "server", "bytes"]);
    }

    #[test]
    fn the_text_lists_every_key_and_the_element_keys() {
        let t = text(&BULK);
        assert!(t.starts_with("bulk — Bulk TCP transfers"), "{t}");
        let keys: Vec<&str> = t
            .lines()
            .skip(3)
            .take_while(|l| !l.is_empty())
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(
            keys,
            [
                "flows",
                "flows[].start",
                "flows[].client",
                "flows[].server",
                "flows[].bytes"
            ]
        );
    }
}
