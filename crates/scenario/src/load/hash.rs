//! The cache key of a calibration: SHA-256 (hex) over what determines its result, byte for byte
//! the JSON Python hashed (`json.dumps(blob, sort_keys=True, separators=(",", ":"),
//! ensure_ascii=True)`), so calibrations already in caches stay valid. The blob holds `schema`,
//! the document without `[[variant]]`, `[calibration]`, `[sweep]`, `[tune]`, `run.duration`,
//! `run.stop_after_responses` and the calibrated parameter (or `load`), data file names replaced
//! by `"<data>"` and their contents by `data` (SHA-256 each, in document order), the workload
//! index, the parameter, the measured direction and the parking lot's measured links.

use super::calibrated::Calibrated;
use super::SCHEMA;
use crate::sweep::canonical::{canonical_json, value_json};
use sha2::{Digest, Sha256};
use toml::{Table, Value};

/// Tables the scenario parser does not read: they describe runs of the scenario, not one run.
pub const LANGUAGE_TABLES: [&str; 3] = ["calibration", "tune", "sweep"];

/// The content hash of calibrating `sc` measuring `direction` (and, on a parking lot, `link`;
/// None: its `bottleneck`).
pub fn content_hash(sc: &Calibrated, direction: &str, link: Option<&str>) -> String {
    let mut doc = sc.doc.clone();
    doc.remove("variant");
    for k in LANGUAGE_TABLES {
        doc.remove(k);
    }
    if let Some(Value::Table(run)) = doc.get_mut("run") {
        run.remove("duration");
        run.remove("stop_after_responses");
    }
    if let Some(Value::Table(w)) = doc
        .get_mut("workload")
        .and_then(Value::as_array_mut)
        .and_then(|a| a.get_mut(sc.workload))
    {
        w.remove("load");
        w.remove(sc.parameter.key());
    }
    strip_data_names(&mut doc);
    let data_json: Vec<String> = sc
        .data
        .iter()
        .map(|d| d.as_ref().map_or("null".into(), |h| format!("\"{h}\"")))
        .collect();
    let link_json = match sc.links(link) {
        None => "null".to_string(),
        Some((f, r)) => value_json(&Value::Array(vec![Value::String(f), Value::String(r)])),
    };
    let blob = format!(
        "{{\"data\":[{}],\"direction\":{},\"doc\":{},\"link\":{},\"parameter\":{},\"schema\":{},\"workload\":{}}}",
        data_json.join(","),
        value_json(&Value::String(direction.into())),
        canonical_json(&doc),
        link_json,
        value_json(&Value::String(sc.parameter.key().into())),
        SCHEMA,
        sc.workload,
    );
    let digest = Sha256::digest(ascii_json(&blob).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Data file names are machine-specific: `matrix_file` and `file` strings become `"<data>"`.
fn strip_data_names(t: &mut Table) {
    for (k, v) in t.iter_mut() {
        match v {
            Value::String(s) if k == "matrix_file" || k == "file" => *s = "<data>".into(),
            other => strip_value(other),
        }
    }
}

fn strip_value(v: &mut Value) {
    match v {
        Value::Table(t) => strip_data_names(t),
        Value::Array(a) => a.iter_mut().for_each(strip_value),
        _ => {}
    }
}

/// JSON text with every character outside printable ASCII escaped as `\uXXXX` (UTF-16, as
/// Python's `ensure_ascii`); the input's own escapes (quotes, controls) are already ASCII.
pub fn ascii_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if (' '..='~').contains(&c) {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_escapes_as_python() {
        // json.dumps("é😀\x7f", ensure_ascii=True) == '"\\u00e9\\ud83d\\ude00\\u007f"'
        assert_eq!(
            ascii_json("\"é😀\u{7f}\""),
            "\"\\u00e9\\ud83d\\ude00\\u007f\""
        );
        assert_eq!(ascii_json("{\"a\":\"b\\n\"}"), "{\"a\":\"b\\n\"}");
    }
}
