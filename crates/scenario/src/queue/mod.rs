//! Queue tables (`[queue]`, `[reverse_queue]`, `topology.access_queue`) → `aqm::DisciplineParams`,
//! then validated by the discipline itself (`DisciplineParams::build` on the link it will feed),
//! with its `ParamError.key` mapped under the table's key path.
//!
//! One file per discipline family parses its own keys (`droptail.rs`, `red.rs`, …); this file
//! dispatches on `kind` and holds the helpers they share. To add a discipline: a file here with
//! `pub(super) fn parse(t: &Tbl) -> Res<DisciplineParams>`, its name in [`KINDS`] and one arm in
//! [`parse`].
//!
//! The checks in the family files give precise messages before `build` runs; `build` stays the
//! authority for everything else.
//!
//! `profile = "ns2"` (any `droptail`, `red` or `ared` table) sets every ns-2.35 rule option of
//! that discipline at once (see [`ns2_profile`]); keys given in the table still win.
//!
//! Validation: tests below and `tests/bad_files.rs` (`red_min_th_above_max_th_in_variant`,
//! `red_w_q_zero`).

mod ared;
mod blue;
mod codel;
mod droptail;
mod pi;
mod red;
mod rem;

use crate::error::{KeyError, Res};
use crate::value::{kind, Tbl};
use aqm::{DisciplineParams, LinkInfo};
use toml::Value;

/// Every `kind` a queue table may name.
pub(crate) const KINDS: &[&str] = &[
    "droptail", "red", "ared", "pi", "pisa", "pimc", "rem", "codel", "fq_codel", "pie", "blue",
    "avq",
];

/// Parse a queue table (without validating against a link; see [`check`]).
pub(crate) fn parse(t: &Tbl) -> Res<DisciplineParams> {
    match kind(t, "kind", KINDS)? {
        "droptail" => droptail::parse(t),
        "codel" => codel::parse_codel(t),
        "fq_codel" => codel::parse_fq_codel(t),
        "pie" => codel::parse_pie(t),
        "blue" => blue::parse_blue(t),
        "avq" => blue::parse_avq(t),
        k @ ("pi" | "pisa" | "pimc") => pi::parse(t, k),
        "rem" => rem::parse(t),
        "red" => red::parse(t),
        "ared" => ared::parse(t),
        other => unreachable!("kind {other} is in KINDS but has no parser"),
    }
}

/// `profile = "ns2"` in a queue table: the defaults of the rule options become ns-2.35's
/// (`red.rs`, `ared.rs`, `droptail.rs` list them); units and sizes are never part of a profile.
pub(super) fn ns2_profile(t: &Tbl) -> Res<bool> {
    if !t.has("profile") {
        return Ok(false);
    }
    kind(t, "profile", &["ns2"]).map(|_| true)
}

/// `w_q` as a number, a numeric string or a fraction string "a/b".
pub(super) fn parse_fraction(v: &Value, path: &str) -> Res<f64> {
    let x = match v {
        Value::String(s) => {
            let bad = || {
                KeyError::new(
                    path,
                    format!("{s:?} is not a number or a fraction such as \"1/512\""),
                )
            };
            match s.split_once('/') {
                Some((a, b)) => {
                    let a: f64 = a.trim().parse().map_err(|_| bad())?;
                    let b: f64 = b.trim().parse().map_err(|_| bad())?;
                    if b == 0.0 {
                        return Err(KeyError::new(path, format!("{s:?} divides by zero")));
                    }
                    a / b
                }
                None => s.trim().parse().map_err(|_| bad())?,
            }
        }
        _ => crate::value::as_num(v, path)?,
    };
    if !x.is_finite() {
        return Err(KeyError::new(path, "must be a finite number"));
    }
    Ok(x)
}

/// Validate `p` as the discipline of a link with `link`'s rate and delay; errors under `path`.
pub(crate) fn check(p: &DisciplineParams, link: LinkInfo, path: &str) -> Res<()> {
    p.build(link)
        .map(|_| ())
        .map_err(|e| KeyError::new(crate::error::join(path, &e.key), e.reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqm::LimitUnit;

    fn q(text: &str) -> Res<DisciplineParams> {
        let t: toml::Table = toml::from_str(text).unwrap();
        parse(&Tbl {
            path: "queue".into(),
            t: &t,
        })
    }

    #[test]
    fn droptail_packets_and_bytes() {
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = 120").unwrap() else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (120, LimitUnit::Packets));
        let DisciplineParams::DropTail(p) = q("kind = \"droptail\"\nlimit = \"180KB\"").unwrap()
        else {
            panic!()
        };
        assert_eq!((p.limit, p.unit), (180_000, LimitUnit::Bytes));
        let e = q("kind = \"droptail\"\nlimit = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.limit");
    }

    #[test]
    fn red_fraction_w_q_is_exact() {
        let DisciplineParams::Red(p) = q(
            "kind = \"red\"\nmin_th = 30\nmax_th = 90\nw_q = \"1/512\"\nmax_p = 0.1\nlimit = 480",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(p.w_q, 1.0 / 512.0);
        assert_eq!(
            (p.min_th, p.max_th, p.max_p, p.limit, p.mean_pktsize),
            (30.0, 90.0, 0.1, 480, 1500)
        );
    }

    #[test]
    fn red_errors() {
        let e = q("kind = \"red\"\nmin_th = 30\nmax_th = 30").unwrap_err();
        assert_eq!(e.key, "queue.min_th");
        let e = q("kind = \"red\"\nmin_th = 3\nmax_th = 30\nw_q = \"1/0\"").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.w_q", "\"1/0\" divides by zero")
        );
        let e = q("kind = \"red\"\nmax_p = 1.5").unwrap_err();
        assert_eq!(e.key, "queue.max_p");
        let e = q("kind = \"nosuchkind\"").unwrap_err();
        assert_eq!(e.key, "queue.kind");
        assert!(
            e.reason
                .starts_with("unknown kind \"nosuchkind\"; expected one of: droptail, red"),
            "{}",
            e.reason
        );
    }
}
