//! `[monitor] pcap` entries → the links they select. An entry is a link's name, one direction
//! (`bottleneck_fwd`, `client0_up`, `r1_r2`: the names of queue.parquet's `link` column), or a
//! two-way name giving both directions: `X` for `X_fwd` + `X_rev` or `X_up` + `X_down`
//! (`bottleneck`, `client0`, `server3`, a parking-lot host `left2`). Checked when the scenario
//! is read ([`check`]), against the names the topology description gives
//! ([`crate::topology_names`]), and resolved again by the engine's pcap writer (`sim::pcap`).
//!
//! Validation: tests below, `crates/sim/tests/pcap.rs` (name errors) and
//! `crates/scenario/tests/bad_files.rs` (an unknown link, a link listed twice).

use crate::config::Experiment;
use crate::pcap_format::host_addr;
use crate::topology_names::{host_groups, link_names};

/// A refused `[monitor] pcap`: the key (`monitor.pcap[i]` or `monitor.pcap`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapError {
    pub key: String,
    pub reason: String,
}

/// The links (indices into `names`) an entry list selects, in list order (a two-way name gives
/// its forward/up link first); `Err((entry index, reason))` for an unknown name or a link listed
/// twice.
pub fn resolve(entries: &[String], names: &[&str]) -> Result<Vec<usize>, (usize, String)> {
    let find = |n: &str| names.iter().position(|x| *x == n);
    let mut out: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let links = match find(e) {
            Some(l) => vec![l],
            None => [("_fwd", "_rev"), ("_up", "_down")]
                .iter()
                .find_map(|(a, b)| Some(vec![find(&format!("{e}{a}"))?, find(&format!("{e}{b}"))?]))
                .ok_or_else(|| (i, unknown(e, names)))?,
        };
        for l in links {
            if out.contains(&l) {
                return Err((i, format!("link {} is listed twice", names[l])));
            }
            out.push(l);
        }
    }
    Ok(out)
}

/// "no link named …" with the two-way names the topology has (the first 12).
fn unknown(e: &str, names: &[&str]) -> String {
    let mut two_way: Vec<&str> = names
        .iter()
        .filter_map(|n| n.strip_suffix("_fwd").or_else(|| n.strip_suffix("_up")))
        .collect();
    let more = two_way.len().saturating_sub(12);
    two_way.truncate(12);
    let mut list = two_way.join(", ");
    if more > 0 {
        list.push_str(&format!(", … ({more} more)"));
    }
    format!(
        "no link named {e:?}: expected a link name, one direction (as queue.parquet's `link` \
         column: {}, …) or a two-way name for both directions ({list})",
        names
            .iter()
            .rev()
            .take(2)
            .rev()
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Check `exp.monitor.pcap` against `exp`'s topology before anything runs: every entry names a
/// link (or a two-way pair), none twice, and every host has an address
/// ([`crate::pcap_format::host_addr`]). Errors name the entry, `monitor.pcap[i]`.
pub fn check(exp: &Experiment) -> Result<(), PcapError> {
    if exp.monitor.pcap.is_empty() {
        return Ok(());
    }
    let names = link_names(&exp.topology);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    resolve(&exp.monitor.pcap, &names).map_err(|(i, reason)| PcapError {
        key: format!("monitor.pcap[{i}]"),
        reason,
    })?;
    for (g, (name, hosts)) in host_groups(&exp.topology).iter().enumerate() {
        if let Some(k) = (0..*hosts as usize).find(|&k| host_addr(g, k).is_none()) {
            return Err(PcapError {
                key: "monitor.pcap".into(),
                reason: format!(
                    "host {k} of group {name:?} has no address: pcap addresses 10.G.x.y cover \
                     254 host groups of 65526 hosts"
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<&'static str> {
        vec![
            "client0_up",
            "client0_down",
            "server0_up",
            "server0_down",
            "bottleneck_fwd",
            "bottleneck_rev",
        ]
    }

    #[test]
    fn names_resolve_one_way_and_two_way() {
        let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(resolve(&e(&["bottleneck"]), &names()), Ok(vec![4, 5]));
        assert_eq!(
            resolve(&e(&["bottleneck_rev", "client0"]), &names()),
            Ok(vec![5, 0, 1])
        );
        let (i, why) = resolve(&e(&["bottleneck", "bottleneck_fwd"]), &names()).unwrap_err();
        assert_eq!(
            (i, why.as_str()),
            (1, "link bottleneck_fwd is listed twice")
        );
        let (i, why) = resolve(&e(&["server0", "bottlenek"]), &names()).unwrap_err();
        assert_eq!(i, 1);
        assert!(why.starts_with("no link named \"bottlenek\""), "{why}");
        assert!(why.ends_with("(client0, server0, bottleneck)"), "{why}");
    }
}
