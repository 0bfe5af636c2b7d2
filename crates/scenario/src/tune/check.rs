//! Before a tune starts: the core builds every baseline and a sample trial of each value of each
//! choice (each searched key at the middle of its range, derived values computed), so a range
//! the model refuses is `FILE: KEY: reason (sample trial: …)` before anything runs; and the
//! size of the tune (runs, how they multiply, the key to blame) for the run-cost limits.
//!
//! Validation: `tests.rs`; python/tests/test_tune_spec.py.

use super::range::Kind;
use super::Spec;
use crate::error::{KeyError, ScenarioError};
use crate::sweep::canonical::py_repr;
use toml::Table;

/// How many runs a tune makes and how they multiply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// Search runs plus final runs.
    pub runs: u128,
    /// `40 trials × 2 replications + (3 finalists + 2 baselines) × 6 final replications`.
    pub text: String,
    /// `tune.trials` when the search has at least as many runs as the final, else
    /// `tune.final_replications`.
    pub key: &'static str,
}

fn describe(values: &Table) -> String {
    let parts: Vec<String> = values
        .iter()
        .map(|(k, v)| format!("{k} = {}", py_repr(v)))
        .collect();
    parts.join(", ")
}

impl Spec {
    /// The values of the sample trials [`Spec::validate`] checks: every searched key at the
    /// middle of its range (`Param::middle`), once for each value of each choice.
    pub fn sample_points(&self) -> Vec<Table> {
        let choices: Vec<usize> = (0..self.params.len())
            .filter(|i| self.params[*i].kind == Kind::Choice)
            .collect();
        let mut points = Vec::new();
        let mut point = |chosen: Option<(usize, &toml::Value)>| {
            let mut pick = |p: &super::Param| -> Result<toml::Value, ()> {
                Ok(match chosen {
                    Some((i, c)) if std::ptr::eq(p, &self.params[i]) => c.clone(),
                    _ => p.middle(),
                })
            };
            if let Ok(values) = self.sample(&mut pick) {
                points.push(values);
            }
        };
        if choices.is_empty() {
            point(None);
        }
        for i in choices {
            for c in &self.params[i].choices {
                point(Some((i, c)));
            }
        }
        points
    }

    /// Have the core build each baseline and each sample trial; the first it refuses is the
    /// error, its reason followed by what was built (`(baseline red)`, `(sample trial: …)`).
    pub fn validate(&self) -> Result<(), ScenarioError> {
        let name = crate::default_name(&self.file);
        let check = |doc: Table, what: &str| {
            crate::parse_root(doc, &name, &self.base_dir)
                .map(drop)
                .map_err(|e| {
                    KeyError::new(e.key, format!("{} ({what})", e.reason)).in_file(&self.file)
                })
        };
        for b in &self.baselines {
            let what = format!("baseline {}", b.as_deref().unwrap_or("scenario"));
            check(self.baseline(b.as_deref(), None), &what)?;
        }
        for values in self.sample_points() {
            let what = format!("sample trial: {}", describe(&values));
            let full = self.derived(&values).map_err(|e| {
                let key = format!("tune.derive.\"{}\"", e.path);
                KeyError::new(key, format!("{} ({what})", e.reason)).in_file(&self.file)
            })?;
            let doc = self.resolve(&full, None, None).map_err(|e| ScenarioError {
                reason: format!("{} ({what})", e.reason),
                ..e
            })?;
            check(doc, &what)?;
        }
        Ok(())
    }

    /// The runs of the tune: `trials` × `replications` + (`finalists` + baselines) ×
    /// `final_replications`, all × 2 when paired (both variants on every seed).
    pub fn size(&self) -> Size {
        let pair: u128 = if self.paired.is_some() { 2 } else { 1 };
        let n = |x: i64| x.max(0) as u128;
        let search = n(self.trials) * n(self.replications) * pair;
        let finals = n(self.finalists) + self.baselines.len() as u128;
        let fin = finals * n(self.final_replications) * pair;
        let text = format!(
            "{} trials × {} replications + ({} finalists + {} baselines) × {} final replications{}",
            self.trials,
            self.replications,
            self.finalists,
            self.baselines.len(),
            self.final_replications,
            if pair == 2 { " × 2 variants" } else { "" }
        );
        Size {
            runs: search + fin,
            text,
            key: if search >= fin {
                "tune.trials"
            } else {
                "tune.final_replications"
            },
        }
    }
}
