//! The `[calibration]` table: how `aqmlab calibrate` runs a scenario's calibration (its
//! defaults there; the command line overrides them). Keys: `points` (at least two distinct
//! positive numbers), `warmup`, `duration` (duration strings, checked by the scenario parser
//! on the calibration run's document), `rate` (the calibration link rate), `direction`
//! (`forward`, `reverse` or `both`), `link` (parking lot: the measured router link).

use super::rate::rate_bps;
use crate::error::{KeyError, Res};
use crate::sweep::canonical::py_repr;
use toml::Value;

/// Calibration link rate: seed 000 §4.1.1 ran its lab "unconstrained" at 100 Mbps.
pub const DEFAULT_RATE: &str = "100Mbps";
/// Measured time of a calibration run after the warm-up (aqmlab choice: thousands of
/// connections at ~1 Mbit/s).
pub const DEFAULT_DURATION: &str = "120s";
/// Measured directions.
pub const DIRECTIONS: [&str; 3] = ["forward", "reverse", "both"];
/// Keys of `[calibration]`.
pub const KEYS: [&str; 6] = ["points", "warmup", "duration", "rate", "direction", "link"];

/// How a calibration runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Parameter values, sorted and distinct; None: placed automatically.
    pub points: Option<Vec<f64>>,
    /// Warm-up of each run (None: the scenario's own).
    pub warmup: Option<String>,
    /// Measured time of each run.
    pub duration: String,
    /// Calibration link rate (a rate string).
    pub rate: String,
    /// `forward`, `reverse` or `both` (the mean of the two).
    pub direction: String,
    /// Parking lot: the measured router link (None: the topology's `bottleneck`).
    pub link: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            points: None,
            warmup: None,
            duration: DEFAULT_DURATION.into(),
            rate: DEFAULT_RATE.into(),
            direction: "forward".into(),
            link: None,
        }
    }
}

/// What a caller (`aqmlab calibrate`'s options) sets over a scenario's `[calibration]`; None
/// leaves the file's value.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub points: Option<Vec<f64>>,
    pub warmup: Option<String>,
    pub duration: Option<String>,
    pub rate: Option<String>,
    pub direction: Option<String>,
    pub link: Option<String>,
}

impl Settings {
    /// The settings of a `[calibration]` table (None: the defaults), each key's type checked;
    /// the values are checked against the topology by [`Settings::check`].
    pub(crate) fn from_table(table: Option<&Value>) -> Res<Settings> {
        let mut s = Settings::default();
        let Some(table) = table else {
            return Ok(s);
        };
        let t = table
            .as_table()
            .ok_or_else(|| KeyError::new("calibration", "must be a table"))?;
        for k in t.keys() {
            if !KEYS.contains(&k.as_str()) {
                return Err(KeyError::new(
                    format!("calibration.{k}"),
                    format!("unknown key (known: {})", KEYS.join(", ")),
                ));
            }
        }
        if let Some(p) = t.get("points") {
            s.points = Some(check_points(p, "calibration.points")?);
        }
        for k in ["warmup", "duration", "rate", "direction", "link"] {
            let Some(v) = t.get(k) else { continue };
            let text = v.as_str().ok_or_else(|| {
                KeyError::new(
                    format!("calibration.{k}"),
                    format!("must be a string, got {}", py_repr(v)),
                )
            })?;
            let text = text.to_string();
            match k {
                "warmup" => s.warmup = Some(text),
                "duration" => s.duration = text,
                "rate" => s.rate = text,
                "direction" => s.direction = text,
                _ => s.link = Some(text),
            }
        }
        Ok(s)
    }

    /// These settings with `o` over them; `--points` checked as `calibration.points` is.
    pub(crate) fn over(&self, o: &Overrides) -> Res<Settings> {
        let mut s = self.clone();
        if let Some(p) = &o.points {
            let v = Value::Array(p.iter().map(|x| Value::Float(*x)).collect());
            s.points = Some(check_points(&v, "--points")?);
        }
        if let Some(w) = &o.warmup {
            s.warmup = Some(w.clone());
        }
        for (to, from) in [
            (&mut s.duration, &o.duration),
            (&mut s.rate, &o.rate),
            (&mut s.direction, &o.direction),
        ] {
            if let Some(v) = from {
                *to = v.clone();
            }
        }
        if let Some(l) = &o.link {
            s.link = Some(l.clone());
        }
        Ok(s)
    }

    /// The direction is known, the rate parses and a measured link names a router-router link
    /// of a parking lot of `routers` routers (`parking_lot`: whether the topology is one).
    pub(crate) fn check(&self, parking_lot: bool, routers: i64) -> Res<()> {
        if !DIRECTIONS.contains(&self.direction.as_str()) {
            return Err(KeyError::new(
                "calibration.direction",
                format!(
                    "must be one of {}, got {}",
                    DIRECTIONS.join(", "),
                    py_repr(&Value::String(self.direction.clone()))
                ),
            ));
        }
        self.rate_bps()?;
        if let Some(link) = &self.link {
            if !parking_lot {
                return Err(KeyError::new(
                    "calibration.link",
                    "only a parking lot has named router links to measure",
                ));
            }
            check_link(&Value::String(link.clone()), routers, "calibration.link")?;
        }
        Ok(())
    }

    /// The calibration link rate, bit/s.
    pub(crate) fn rate_bps(&self) -> Res<f64> {
        rate_bps(Some(&Value::String(self.rate.clone())), "calibration.rate")
    }
}

/// Points: at least two distinct positive numbers, returned sorted and distinct.
pub(crate) fn check_points(v: &Value, key: &str) -> Res<Vec<f64>> {
    let bad = || {
        KeyError::new(
            key,
            format!(
                "must be at least two distinct positive numbers, got {}",
                py_repr(v)
            ),
        )
    };
    let items = v.as_array().ok_or_else(bad)?;
    let mut xs = Vec::with_capacity(items.len());
    for item in items {
        let x = match item {
            Value::Integer(i) => *i as f64,
            Value::Float(f) => *f,
            _ => return Err(bad()),
        };
        if !(x.is_finite() && x > 0.0) {
            return Err(bad());
        }
        xs.push(x);
    }
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() < 2 {
        return Err(bad());
    }
    Ok(xs)
}

/// `name` is a router-router link `r{a}_r{b}` with |a − b| = 1, both below `routers`.
pub fn check_link(name: &Value, routers: i64, key: &str) -> Res<()> {
    let ends = name.as_str().and_then(|s| {
        let (a, b) = s.strip_prefix('r')?.split_once("_r")?;
        let num = |t: &str| {
            (!t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()))
                .then(|| t.parse::<i64>().ok())
                .flatten()
        };
        Some((num(a)?, num(b)?))
    });
    match ends {
        Some((a, b)) if (a - b).abs() == 1 && a.max(b) < routers => Ok(()),
        _ => Err(KeyError::new(
            key,
            format!(
                "must name a router-router link r{{i}}_r{{i±1}} of routers 0…{}, got {}",
                routers - 1,
                py_repr(name)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Value {
        Value::Table(toml::from_str(text).unwrap())
    }

    #[test]
    fn table_over_defaults_and_overrides() {
        let s = Settings::from_table(Some(&table(
            "points = [300, 100, 200.0, 100]\nwarmup = \"2s\"\n",
        )))
        .unwrap();
        assert_eq!(s.points, Some(vec![100.0, 200.0, 300.0]));
        assert_eq!(s.warmup.as_deref(), Some("2s"));
        assert_eq!((s.duration.as_str(), s.rate.as_str()), ("120s", "100Mbps"));
        let o = Overrides {
            duration: Some("60s".into()),
            ..Overrides::default()
        };
        assert_eq!(s.over(&o).unwrap().duration, "60s");
        assert_eq!(Settings::from_table(None).unwrap(), Settings::default());
    }

    #[test]
    fn mistakes_are_named() {
        let e = Settings::from_table(Some(&table("pionts = [1, 2]"))).unwrap_err();
        assert_eq!(e.key, "calibration.pionts");
        assert!(e.reason.starts_with("unknown key (known: points, warmup"));
        let e = Settings::from_table(Some(&table("points = [5, 5]"))).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "calibration.points",
                "must be at least two distinct positive numbers, got [5, 5]"
            )
        );
        let e = Settings::from_table(Some(&table("rate = 100"))).unwrap_err();
        assert_eq!(e.reason, "must be a string, got 100");
        let e = Settings::from_table(Some(&Value::Integer(1))).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            ("calibration", "must be a table")
        );
        let s = Settings {
            direction: "up".into(),
            ..Settings::default()
        };
        assert_eq!(
            s.check(false, 0).unwrap_err().reason,
            "must be one of forward, reverse, both, got 'up'"
        );
        let s = Settings {
            link: Some("r1_r2".into()),
            ..Settings::default()
        };
        assert!(s
            .check(false, 0)
            .unwrap_err()
            .reason
            .starts_with("only a parking lot"));
        assert!(s.check(true, 3).is_ok());
        let e = check_link(&Value::String("r2_r3".into()), 3, "k").unwrap_err();
        assert_eq!(
            e.reason,
            "must name a router-router link r{i}_r{i±1} of routers 0…2, got 'r2_r3'"
        );
        assert!(check_link(&Value::String("r1_r3".into()), 8, "k").is_err());
        assert!(check_link(&Value::String("r10_r9".into()), 11, "k").is_ok());
    }
}
