//! The parameter tables, rendered from the declarations ([`crate::params`]): markdown for
//! `docs/queue-disciplines.md` and the README (between `<!-- generated: … -->` markers, kept
//! current by `crates/aqm/tests/params_declared.rs`), and plain text for `aqmlab params KIND`.

use crate::discipline::{model, models};
use crate::params::{bound, Declared, ParamInfo, Range, Syntax, Value};

/// A value as it is written in a scenario file (`"5ms"`, `"1500B"`, `0.002`, `"paper"`).
pub fn value_text(v: Value, syntax: Syntax) -> String {
    match v {
        Value::Num(x) => number(x),
        Value::Int(i) if syntax == Syntax::Size => format!("\"{i}B\""),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Duration(d) => format!("\"{}\"", duration(d.as_nanos())),
        Value::Choice(s) => format!("\"{s}\""),
        Value::Limit(n, true) => format!("\"{n}B\""),
        Value::Limit(n, false) => n.to_string(),
        Value::Unset => "unset".into(),
    }
}

/// A number as short as it reads: 1.822e-5, 0.002, 170.
fn number(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-4 {
        format!("{x:e}")
    } else {
        bound(x)
    }
}

/// Nanoseconds in the largest unit that divides them exactly.
fn duration(ns: u64) -> String {
    for (unit, per) in [("s", 1_000_000_000), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= per && ns.is_multiple_of(per) {
            return format!("{}{unit}", ns / per);
        }
    }
    format!("{ns}ns")
}

/// How a value is written, in words.
pub fn syntax_text(s: Syntax) -> String {
    let quoted = |o: &[&str]| {
        o.iter()
            .map(|x| format!("\"{x}\""))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    match s {
        Syntax::Number => "number".into(),
        Syntax::Fraction => "number or \"a/b\"".into(),
        Syntax::Integer(_) | Syntax::PacketLimit(_) => "integer".into(),
        Syntax::PacketsOrBytes => "integer or size".into(),
        Syntax::Size => "size".into(),
        Syntax::Duration => "duration".into(),
        Syntax::Bool => "bool".into(),
        Syntax::Choice { options, .. } => quoted(options),
        Syntax::BoolOr(options) => format!("bool / {}", quoted(options)),
    }
}

/// The valid values, in words ("" when the syntax says it all).
pub fn range_text(r: Range) -> String {
    match r {
        Range::Any => String::new(),
        Range::AtLeast(x) => format!("≥ {}", bound(x)),
        Range::Above(x) => format!("> {}", bound(x)),
        Range::OpenClosed(a, b) => format!("({}, {}]", bound(a), bound(b)),
        Range::Closed(a, b) => format!("[{}, {}]", bound(a), bound(b)),
        Range::Open(a, b) => format!("({}, {})", bound(a), bound(b)),
        Range::Positive => "> 0".into(),
        Range::Cross(t) => t.into(),
    }
}

/// One row's cells: key, value, unit, default, range, meaning, source.
fn cells(p: &ParamInfo) -> [String; 7] {
    [
        p.key.to_string(),
        syntax_text(p.syntax),
        p.unit.to_string(),
        value_text(p.default, p.syntax),
        range_text(p.range),
        p.doc.to_string(),
        p.source.to_string(),
    ]
}

const HEADER: [&str; 7] = [
    "key", "value", "unit", "default", "range", "meaning", "source",
];

/// The markdown table of one discipline's keys and its profiles.
pub fn markdown(m: &dyn Declared) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = format!("| {} |\n|{}\n", HEADER.join(" | "), "---|".repeat(7));
    for p in m.params() {
        let c = cells(&p);
        out += &format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            c[0],
            esc(&c[1]),
            c[2],
            esc(&c[3]),
            esc(&c[4]),
            esc(&c[5]),
            esc(&c[6])
        );
    }
    for prof in m.profiles() {
        let sets: Vec<String> = prof
            .sets
            .iter()
            .map(|s| {
                let syntax = m
                    .params()
                    .iter()
                    .find(|p| p.key == s.key)
                    .map_or(Syntax::Number, |p| p.syntax);
                let mut t = format!("`{} = {}`", s.key, value_text(s.value, syntax));
                if let Some(w) = s.when {
                    t += &format!(" with `{w}`");
                }
                if !s.unless.is_empty() {
                    t += &format!(" unless `{}` is given", s.unless.join("`, `"));
                }
                t
            })
            .collect();
        out += &format!(
            "\n`profile = \"{}\"`: {}; keys given in the table win: {}.\n",
            prof.name,
            prof.doc,
            sets.join(", ")
        );
    }
    out
}

/// The README's overview: each kind, what it is, its keys.
pub fn readme_markdown() -> String {
    let mut out = "| kind | discipline | keys |\n|---|---|---|\n".to_string();
    for m in models() {
        let keys: Vec<String> = m.params().iter().map(|p| format!("`{}`", p.key)).collect();
        let mut keys = keys.join(", ");
        for prof in m.profiles() {
            keys += &format!("; `profile = \"{}\"`", prof.name);
        }
        out += &format!("| `{}` | {} | {} |\n", m.kind(), m.title(), keys);
    }
    out
}

/// An aligned plain-text table of `kind`'s keys (for `aqmlab params KIND`), or `None`.
pub fn text(kind: &str) -> Option<String> {
    let m = model(kind)?;
    let rows: Vec<[String; 7]> = m.params().iter().map(cells).collect();
    let mut width = HEADER.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |r: &[String]| {
        let mut s = String::new();
        for (i, c) in r.iter().enumerate() {
            let pad = width[i] - c.chars().count();
            s += c;
            if i + 1 < r.len() {
                s += &" ".repeat(pad + 2);
            }
        }
        s.trim_end().to_string() + "\n"
    };
    let mut out = format!("{} — {}\n\n", m.kind(), m.title());
    out += &line(&HEADER.map(String::from));
    for r in &rows {
        out += &line(r);
    }
    for prof in m.profiles() {
        out += &format!("\nprofile = \"{}\": {}\n", prof.name, prof.doc);
    }
    Some(out)
}

/// Replace the body of every `<!-- generated: params KIND -->` … `<!-- end generated -->`
/// block of `doc` with KIND's current table, and of `<!-- generated: queue kinds -->` with the
/// README overview. Unknown kinds are left as they are.
pub fn regenerate(doc: &str) -> String {
    const END: &str = "<!-- end generated -->";
    let mut out = String::new();
    let mut rest = doc;
    while let Some(i) = rest.find("<!-- generated: ") {
        let Some(close) = rest[i..].find("-->").map(|c| i + c + 3) else {
            break;
        };
        let Some(end) = rest[close..].find(END).map(|e| close + e) else {
            break;
        };
        let what = rest[i + "<!-- generated: ".len()..close - 3].trim();
        let body = match what.strip_prefix("params ") {
            Some(kind) => model(kind).map(markdown),
            None if what == "queue kinds" => Some(readme_markdown()),
            None => None,
        };
        out += &rest[..close];
        match body {
            Some(b) => out += &format!("\n{b}"),
            None => out += &rest[close..end],
        }
        out += END;
        rest = &rest[end + END.len()..];
    }
    out + rest
}
