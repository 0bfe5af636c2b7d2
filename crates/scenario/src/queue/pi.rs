//! `kind = "pi"`, `"pisa"`, `"pimc"` (aqm `pi.rs`, `pisa.rs`, `pimc.rs`).
//!
//! PI keys: `a`, `b` (numbers, 1/packet), `w_hz` (number, sampling frequency in Hz), `q_ref`
//! (number, packets), `limit` (integer packets), `mean_pktsize` (size string, e.g. "500B"),
//! `byte_mode` (bool: sets both `queue_in_bytes` and `byte_prob`, seed 002's "byte mode"), or
//! `queue_in_bytes` / `byte_prob` separately (not together with `byte_mode`), `ecn` (bool).
//! PISA adds `alpha`, `weight` (numbers) and `hintless` ("protect" or "pi"); PIMC adds
//! `min_cwnd` (integer segments). Defaults: `aqm::PiParams::default()` (q_ref 20, limit 200),
//! and for PISA/PIMC `PisaParams::default()` / `PimcParams::default()` (q_ref 200, limit 800,
//! seed 003).

use crate::error::{KeyError, Res};
use crate::value::{size_u32, Tbl};
use aqm::{DisciplineParams, HintlessPolicy, ParamError, PiParams, PimcParams, PisaParams};
use toml::Value;

const PI_KEYS: &[&str] = &[
    "kind",
    "a",
    "b",
    "w_hz",
    "q_ref",
    "limit",
    "mean_pktsize",
    "byte_mode",
    "queue_in_bytes",
    "byte_prob",
    "ecn",
];

/// Parse a `pi`, `pisa` or `pimc` table.
pub(super) fn parse(t: &Tbl, kind: &str) -> Res<DisciplineParams> {
    let mut keys = PI_KEYS.to_vec();
    match kind {
        "pisa" => keys.extend(["alpha", "weight", "hintless"]),
        "pimc" => keys.push("min_cwnd"),
        _ => {}
    }
    t.allow(&keys)?;
    let under = |e: ParamError| t.err(&e.key, e.reason);
    match kind {
        "pisa" => {
            let mut p = PisaParams::default();
            parse_pi(t, &mut p.pi)?;
            if let Some(x) = t.num("alpha")? {
                p.alpha = x;
            }
            if let Some(x) = t.num("weight")? {
                p.weight = x;
            }
            if let Some(v) = t.get("hintless") {
                p.hintless = match crate::value::as_str(v, &t.key("hintless"))? {
                    "protect" => HintlessPolicy::Protect,
                    "pi" => HintlessPolicy::Pi,
                    other => {
                        return Err(t.err(
                            "hintless",
                            format!("unknown policy {other:?}; expected one of: protect, pi"),
                        ))
                    }
                };
            }
            p.validate().map_err(under)?;
            Ok(DisciplineParams::Pisa(p))
        }
        "pimc" => {
            let mut p = PimcParams::default();
            parse_pi(t, &mut p.pi)?;
            if let Some(x) = t.u32("min_cwnd", 0)? {
                p.min_cwnd = x;
            }
            p.pi.validate().map_err(under)?;
            Ok(DisciplineParams::Pimc(p))
        }
        _ => {
            let mut p = PiParams::default();
            parse_pi(t, &mut p)?;
            p.validate().map_err(under)?;
            Ok(DisciplineParams::Pi(p))
        }
    }
}

/// The PI controller keys, over the defaults already in `p`.
fn parse_pi(t: &Tbl, p: &mut PiParams) -> Res<()> {
    for (k, field) in [
        ("a", &mut p.a),
        ("b", &mut p.b),
        ("w_hz", &mut p.w_hz),
        ("q_ref", &mut p.q_ref),
    ] {
        if let Some(x) = t.num(k)? {
            *field = x;
        }
    }
    if let Some(v) = t.get("limit") {
        p.limit = packets(v, &t.key("limit"))?;
    }
    if let Some(b) = t.size("mean_pktsize")? {
        p.mean_pktsize = size_u32(b, &t.key("mean_pktsize"), 1)?;
    }
    if let Some(b) = t.bool("byte_mode")? {
        for k in ["queue_in_bytes", "byte_prob"] {
            if t.has(k) {
                return Err(t.err(
                    k,
                    "give either byte_mode or queue_in_bytes/byte_prob, not both",
                ));
            }
        }
        p.queue_in_bytes = b;
        p.byte_prob = b;
    }
    if let Some(b) = t.bool("queue_in_bytes")? {
        p.queue_in_bytes = b;
    }
    if let Some(b) = t.bool("byte_prob")? {
        p.byte_prob = b;
    }
    if let Some(b) = t.bool("ecn")? {
        p.ecn = b;
    }
    Ok(())
}

/// A buffer limit in packets: a positive integer (a size string is refused with the reason).
pub(super) fn packets(v: &Value, path: &str) -> Res<u64> {
    if let Value::String(_) = v {
        return Err(KeyError::new(
            path,
            format!(
                "the limit is in packets (bytes = limit·mean_pktsize in byte mode): expected an integer, found {}",
                crate::value::describe(v)
            ),
        ));
    }
    Ok(crate::value::as_int(v, path, 1, i64::MAX)? as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Res<DisciplineParams> {
        let t: toml::Table = toml::from_str(text).unwrap();
        crate::queue::parse(&Tbl {
            path: "queue".into(),
            t: &t,
        })
    }

    #[test]
    fn seed_002_pi_and_seed_003_pisa_pimc() {
        let DisciplineParams::Pi(p) =
            q("kind = \"pi\"\nq_ref = 20\nlimit = 200\nbyte_mode = true\necn = true").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.q_ref, p.limit, p.queue_in_bytes, p.byte_prob, p.ecn),
            (20.0, 200, true, true, true)
        );
        assert_eq!(
            (p.a, p.b, p.w_hz, p.mean_pktsize),
            (1.822e-5, 1.816e-5, 170.0, 500)
        );
        let DisciplineParams::Pisa(p) = q("kind = \"pisa\"\nhintless = \"pi\"").unwrap() else {
            panic!()
        };
        assert_eq!(
            (p.pi.q_ref, p.pi.limit, p.alpha, p.weight, p.hintless),
            (200.0, 800, 3.0, 0.02, HintlessPolicy::Pi)
        );
        let DisciplineParams::Pimc(p) =
            q("kind = \"pimc\"\nmin_cwnd = 4\nmean_pktsize = \"1000B\"").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (p.min_cwnd, p.pi.mean_pktsize, p.pi.q_ref),
            (4, 1000, 200.0)
        );
    }

    #[test]
    fn rem_keys() {
        let DisciplineParams::Rem(p) = q(
            "kind = \"rem\"\nupdate_period = \"5ms\"\nalpha = 0.2\nb_star = 30\necn = \"ns2_markpkts\"",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(p.update_period, units::SimDuration::from_millis(5));
        assert_eq!(
            (p.alpha, p.b_star, p.ecn),
            (0.2, 30.0, aqm::RemEcn::Ns2MarkPkts)
        );
        let e = q("kind = \"rem\"\necn = \"yes\"").unwrap_err();
        assert_eq!(e.key, "queue.ecn");
    }

    #[test]
    fn errors_name_the_key() {
        let e = q("kind = \"pi\"\nw_hz = 0").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.w_hz", "must be in (0, 1e9] Hz, got 0")
        );
        let e = q("kind = \"pi\"\nbyte_mode = true\nbyte_prob = false").unwrap_err();
        assert_eq!(e.key, "queue.byte_prob");
        let e = q("kind = \"pi\"\nlimit = \"100KB\"").unwrap_err();
        assert_eq!(e.key, "queue.limit");
        let e = q("kind = \"pi\"\nmin_cwnd = 7").unwrap_err();
        assert_eq!(
            (e.key.as_str(), &e.reason[..11]),
            ("queue.min_cwnd", "unknown key")
        );
        let e = q("kind = \"pisa\"\nhintless = \"drop\"").unwrap_err();
        assert_eq!(e.key, "queue.hintless");
        let e = q("kind = \"pisa\"\nweight = 0").unwrap_err();
        assert_eq!(e.key, "queue.weight");
        let e = q("kind = \"rem\"\nphi = 0.9").unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("queue.phi", "must be a finite number > 1, got 0.9")
        );
        let e = q("kind = \"rem\"\nupdate_period = \"0ms\"").unwrap_err();
        assert_eq!(e.key, "queue.update_period");
    }
}
