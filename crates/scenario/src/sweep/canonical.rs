//! Run ids and Python-compatible text of values. A run's id is the first 16 hex digits of the
//! SHA-256 of its resolved document as canonical JSON, byte for byte what Python's
//! `json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` gives (the ids of
//! finished sweeps and published reproductions were made that way): keys sorted by code point,
//! no whitespace, floats as Python's `repr` (`1e+16`, `0.1`, `100.0`, `1e-05`). Error messages
//! quote values as Python's `repr` does (`'red'`, `0.5`, `True`), as they always have.
//!
//! Validation: tests below (ids pinned from the Python implementation, float forms by hand).

use sha2::{Digest, Sha256};
use toml::{Table, Value};

/// Hex digits of a run id.
pub const ID_HEX: usize = 16;

/// The run id of document `doc`: SHA-256 of [`canonical_json`], first [`ID_HEX`] hex digits.
pub fn run_id(doc: &Table) -> String {
    let digest = Sha256::digest(canonical_json(doc).as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    hex[..ID_HEX].to_string()
}

/// `doc` as canonical JSON (sorted keys, no whitespace, UTF-8; a date-time as its TOML text).
pub fn canonical_json(doc: &Table) -> String {
    let mut out = String::new();
    write_table(doc, &mut out);
    out
}

/// One value as canonical JSON.
pub fn value_json(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

fn write_table(t: &Table, out: &mut String) {
    let mut keys: Vec<&String> = t.keys().collect();
    keys.sort();
    out.push('{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_str(k, out);
        out.push(':');
        write_value(&t[k], out);
    }
    out.push('}');
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => write_json_str(s, out),
        Value::Integer(i) => out.push_str(&i.to_string()),
        Value::Float(f) => out.push_str(&json_float(*f)),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Datetime(d) => write_json_str(&d.to_string(), out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(x, out);
            }
            out.push(']');
        }
        Value::Table(t) => write_table(t, out),
    }
}

/// A JSON string as Python's encoder writes it without `ensure_ascii`: `"` `\` and control
/// characters escaped, everything else as is.
fn write_json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as Python's JSON encoder writes it: `repr`, and `NaN` / `Infinity` / `-Infinity`.
pub(crate) fn json_float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        py_float(f)
    }
}

/// Python's `repr(f)`: the shortest digits that round-trip (as Rust's), written in fixed
/// notation when the decimal exponent lies in [-4, 16) (with `.0` for a whole number), else as
/// `d.ddde±XX` with at least two exponent digits.
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{:e}", f.abs()); // shortest round-trip digits: "1.2345e-7"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            let (int, frac) = if digits.len() > int_len {
                (digits[..int_len].to_string(), digits[int_len..].to_string())
            } else {
                (format!("{digits:0<int_len$}"), "0".to_string())
            };
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((-exp - 1) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{esign}{:02}", exp.abs())
    }
}

/// Python's `repr` of a string: single quotes unless the text holds one and no double quote.
pub fn py_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of a value as the core hands it to Python (a date-time is its text).
pub fn py_repr(v: &Value) -> String {
    match v {
        Value::String(s) => py_str(s),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => py_float(*f),
        Value::Boolean(b) => if *b { "True" } else { "False" }.into(),
        Value::Datetime(d) => py_str(&d.to_string()),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(py_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Table(t) => {
            let items: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{}: {}", py_str(k), py_repr(v)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_repr() {
        let cases = [
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (100.0, "100.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (-2.5, "-2.5"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (123456.789, "123456.789"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.0 / 3.0, "0.6666666666666666"),
            (1234567890123456.7, "1234567890123456.8"),
            (12345678901234567.0, "1.2345678901234568e+16"),
        ];
        for (f, want) in cases {
            assert_eq!(py_float(f), want, "{f:e}");
        }
        assert_eq!(json_float(f64::INFINITY), "Infinity");
        assert_eq!(json_float(f64::NAN), "NaN");
    }

    #[test]
    fn canonical_json_sorts_keys_and_escapes_like_python() {
        // json.dumps({"run": {"seed": 1, "duration": "4s"}, "queue": {"min_th": 5, "kind":
        // "red"}}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        let doc: Table = toml::from_str(
            "[run]\nseed = 1\nduration = \"4s\"\n[queue]\nmin_th = 5\nkind = \"red\"\n",
        )
        .unwrap();
        let text = r#"{"queue":{"kind":"red","min_th":5},"run":{"duration":"4s","seed":1}}"#;
        assert_eq!(canonical_json(&doc), text);
        let odd: Table =
            toml::from_str("a = \"é\\\"\\\\\\n\\u0001\"\nb = [1.0, 1e16, true]\n\"Z\" = 0.5\n")
                .unwrap();
        assert_eq!(
            canonical_json(&odd),
            "{\"Z\":0.5,\"a\":\"é\\\"\\\\\\n\\u0001\",\"b\":[1.0,1e+16,true]}"
        );
    }

    #[test]
    fn run_ids_pinned_from_python() {
        // hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:16] in Python.
        let doc: Table = toml::from_str(
            "[run]\nseed = 1\nduration = \"4s\"\n[queue]\nmin_th = 5\nkind = \"red\"\n",
        )
        .unwrap();
        assert_eq!(run_id(&doc), "f36acf66a1e54866");
        let doc: Table = toml::from_str(
            "[workload]\nrate = 1e16\nload = 0.9\nusers = 31\n[[variant]]\nname = \"r\"\nx = 1.0\n",
        )
        .unwrap();
        assert_eq!(run_id(&doc), "39d356c01120a610");
    }

    #[test]
    fn repr_like_python() {
        assert_eq!(py_str("red"), "'red'");
        assert_eq!(py_str("it's"), "\"it's\"");
        assert_eq!(py_str("a'\"b"), "'a\\'\"b'");
        let v: Table = toml::from_str("x = [1, 0.5, \"s\", true]\n").unwrap();
        assert_eq!(py_repr(&v["x"]), "[1, 0.5, 's', True]");
    }
}
