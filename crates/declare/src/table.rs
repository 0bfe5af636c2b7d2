//! The parameter tables, rendered from the declarations: markdown for the pages of `docs/`
//! (between `<!-- generated: … -->` markers, kept current by each model crate's
//! `tests/params_declared.rs`), and plain text for `aqmlab params`.

use crate::check::bound;
use crate::model::Declared;
use crate::param::{ParamInfo, Range, Syntax};
use crate::value::Value;

/// A value as it is written in a scenario file (`"5ms"`, `"1500B"`, `0.002`, `"paper"`).
pub fn value_text(v: Value, syntax: Syntax) -> String {
    match v {
        Value::Num(x) => number(x),
        Value::Int(i) if syntax == Syntax::Size => format!("\"{i}B\""),
        Value::Int(i) if syntax == Syntax::Rate => format!("\"{i}bps\""),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Duration(d) => format!("\"{}\"", duration_text(d.as_nanos())),
        Value::Choice(s) => format!("\"{s}\""),
        Value::Limit(n, true) => format!("\"{n}B\""),
        Value::Limit(n, false) => n.to_string(),
        Value::Unset if matches!(syntax, Syntax::DurationOrOff(_)) => "false".into(),
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

/// Nanoseconds in the largest unit that divides them exactly ("500ms", "3s", "250us").
pub fn duration_text(ns: u64) -> String {
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
        Syntax::Duration | Syntax::Delay => "duration".into(),
        Syntax::Rate => "rate".into(),
        Syntax::DurationOrOff(_) => "false or duration".into(),
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
        Range::PositiveAtMost(d) => format!("(0, {}]", duration_text(d.as_nanos())),
        Range::Cross(t) => t.into(),
    }
}

/// One row's cells: key, value, unit, default, range, meaning, source.
pub fn cells(p: &ParamInfo) -> [String; 7] {
    [
        p.key.to_string(),
        syntax_text(p.syntax),
        p.unit.to_string(),
        if p.required {
            "required".into()
        } else {
            value_text(p.default, p.syntax)
        },
        range_text(p.range),
        p.doc.to_string(),
        p.source.to_string(),
    ]
}

const HEADER: [&str; 7] = [
    "key", "value", "unit", "default", "range", "meaning", "source",
];

/// The markdown table of one model's keys and its profiles.
pub fn markdown<O>(m: &dyn Declared<O>) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let params = m.params();
    let mut out = format!("| {} |\n|{}\n", HEADER.join(" | "), "---|".repeat(7));
    for p in &params {
        let c = cells(p);
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
                let syntax = m.syntax(s.key).unwrap_or(Syntax::Number);
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

/// An aligned plain-text table of a model's keys, with its title and profiles.
pub fn text<O>(m: &dyn Declared<O>) -> String {
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
    out
}

/// Replace the body of every `<!-- generated: WHAT -->` … `<!-- end generated -->` block of
/// `doc` for which `body(WHAT)` gives text; other blocks are left as they are.
pub fn regenerate(doc: &str, body: &dyn Fn(&str) -> Option<String>) -> String {
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
        out += &rest[..close];
        match body(what) {
            Some(b) => out += &format!("\n{b}"),
            None => out += &rest[close..end],
        }
        out += END;
        rest = &rest[end + END.len()..];
    }
    out + rest
}

/// The generated blocks of the document at `path` as `body` renders them now: with the
/// environment variable `AQMLAB_WRITE_DOCS` set, the document is rewritten; otherwise it must
/// already be current (a panic names `how`, the command that rewrites it). For the docs tests
/// of each model crate (`tests/params_declared.rs`).
pub fn check_current(
    path: &std::path::Path,
    body: &dyn Fn(&str) -> Option<String>,
    how: &str,
) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let want = regenerate(&text, body);
    if std::env::var_os("AQMLAB_WRITE_DOCS").is_some() {
        std::fs::write(path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    } else {
        assert!(
            want == text,
            "{} is not current: run AQMLAB_WRITE_DOCS=1 {how}",
            path.display()
        );
    }
    want
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regenerate_replaces_only_the_blocks_it_knows() {
        let doc = "a\n<!-- generated: x -->\nold\n<!-- end generated -->\nb\n\
                   <!-- generated: y -->\nkeep\n<!-- end generated -->\n";
        let got = regenerate(doc, &|w| (w == "x").then(|| "new\n".to_string()));
        assert_eq!(
            got,
            "a\n<!-- generated: x -->\nnew\n<!-- end generated -->\nb\n\
             <!-- generated: y -->\nkeep\n<!-- end generated -->\n"
        );
    }

    #[test]
    fn values_are_written_as_in_a_scenario_file() {
        use units::SimDuration;
        let d = Value::Duration(SimDuration::from_millis(200));
        assert_eq!(value_text(d, Syntax::Duration), "\"200ms\"");
        assert_eq!(value_text(Value::Unset, Syntax::DurationOrOff("")), "false");
        assert_eq!(value_text(Value::Int(1460), Syntax::Size), "\"1460B\"");
        assert_eq!(value_text(Value::Num(1.822e-5), Syntax::Number), "1.822e-5");
    }
}
