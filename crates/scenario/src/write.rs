//! The one TOML writer: a scenario document as text that the reader parses back to the same
//! document (Python writes every scenario file it makes through this, `_core.toml_text`).

/// TOML text of `doc`: plain keys first, then sub-tables as `[a.b]` headers and arrays of
/// tables as `[[a]]`, each table's keys in the document's order. Errors name what TOML cannot
/// hold (none for a document the reader made).
pub fn document_text(doc: &toml::Table) -> Result<String, String> {
    toml::to_string(doc).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> (toml::Table, String) {
        let doc: toml::Table = text.parse().unwrap();
        let out = document_text(&doc).unwrap();
        let back: toml::Table = out.parse().unwrap();
        assert_eq!(back, doc, "round trip of\n{text}\ngave\n{out}");
        (doc, out)
    }

    #[test]
    fn tables_come_after_plain_keys_in_document_order() {
        let mut doc = toml::Table::new();
        doc.insert("run".into(), toml::Value::Table(toml::Table::new()));
        doc["run"]
            .as_table_mut()
            .unwrap()
            .insert("seed".into(), 7.into());
        doc.insert("name".into(), "q".into());
        let out = document_text(&doc).unwrap();
        assert_eq!(out, "name = \"q\"\n\n[run]\nseed = 7\n");
    }

    #[test]
    fn arrays_of_tables_and_nested_tables_keep_their_shape() {
        let (_, out) = round_trip(
            "[[workload]]\nkind = \"packmime\"\nrate = 101.5\n[[workload]]\nkind = \"ftp\"\n\
             [variant.red.queue]\nkind = \"red\"\nmin_th = 5\n",
        );
        assert_eq!(out.matches("[[workload]]").count(), 2);
        assert!(
            out.contains("[variant.red.queue]\nkind = \"red\"\nmin_th = 5\n"),
            "{out}"
        );
    }

    #[test]
    fn floats_keep_their_value_and_type() {
        let (doc, out) = round_trip("a = 1e-5\nb = 0.1\nc = 3.0\nd = 1e300\ne = -0.0\nf = inf\n");
        assert!(doc["c"].is_float());
        assert!(out.contains("c = 3.0\n"), "{out}");
    }

    #[test]
    fn keys_and_strings_that_need_quoting_are_quoted() {
        round_trip(
            "\"queue.min_th\" = \"a \\\"b\\\"\\n\"\n[tune.params]\n\"variant[red].x\" = 1\n",
        );
    }
}
