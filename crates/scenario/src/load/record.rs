//! A stored calibration: the JSON file `<cache>/calibration/<hash>.json` (cache: the caller's,
//! else `$AQMLAB_CACHE`, else `.aqmlab-cache`), written under a temporary name and renamed, in
//! the layout Python wrote (`json.dumps(record, indent=2)`, keys in this order), so caches
//! written before stay readable and new ones read the same.

use super::parameter::Parameter;
use super::settings::Settings;
use super::text::{fixed, g};
use super::SCHEMA;
use crate::sweep::canonical::json_float;
use std::path::{Path, PathBuf};

/// One measured point: parameter value and offered loads, bit/s.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub forward_bps: f64,
    pub reverse_bps: f64,
    /// The measured direction's load (`both`: the mean of the two).
    pub load_bps: f64,
}

/// The two pilot runs that placed automatic points, and the line they gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Pilot {
    pub points: [(f64, f64); 2],
    pub slope: f64,
    pub intercept: f64,
}

/// A calibration: offered load (bit/s, `direction`) = slope·x + intercept over `points`.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// Content hash (`hash.rs`): the cache key.
    pub hash: String,
    /// The scenario file it was computed from.
    pub scenario: String,
    pub workload: i64,
    /// The workload's kind.
    pub kind: String,
    pub parameter: String,
    pub direction: String,
    /// The settings it was computed with (None: a record whose settings are not this
    /// version's; it is used only where settings do not matter).
    pub settings: Option<Settings>,
    pub points: Vec<Point>,
    pub slope: f64,
    pub intercept: f64,
    pub r2: f64,
    pub max_rel_residual: f64,
    /// When it was computed: UTC, ISO 8601 to the second (`2026-11-29T08:00:00+00:00`).
    pub date: String,
    pub pilot: Option<Pilot>,
}

impl Calibration {
    /// The parameter value whose offered load is `load_bps` (unrounded).
    pub fn x_for(&self, load_bps: f64) -> f64 {
        (load_bps - self.intercept) / self.slope
    }

    /// The record as Python's `json.dumps(d, indent=2) + "\n"` wrote it.
    pub fn to_json(&self) -> String {
        let s = |v: &str| Json::Str(v.into());
        let settings = match &self.settings {
            None => Json::Obj(vec![]),
            Some(st) => Json::Obj(vec![
                (
                    "points",
                    st.points.as_ref().map_or(Json::Null, |p| {
                        Json::Arr(p.iter().map(|x| Json::Num(*x)).collect())
                    }),
                ),
                ("warmup", st.warmup.as_deref().map_or(Json::Null, s)),
                ("duration", s(&st.duration)),
                ("rate", s(&st.rate)),
                ("direction", s(&st.direction)),
                ("link", st.link.as_deref().map_or(Json::Null, s)),
            ]),
        };
        let points = self
            .points
            .iter()
            .map(|p| {
                Json::Obj(vec![
                    ("x", Json::Num(p.x)),
                    ("forward_bps", Json::Num(p.forward_bps)),
                    ("reverse_bps", Json::Num(p.reverse_bps)),
                    ("load_bps", Json::Num(p.load_bps)),
                ])
            })
            .collect();
        // The pilot's x₀ of users and flows was written as an integer (x₁ as a float).
        let whole = Parameter::from_key(&self.parameter).is_some_and(Parameter::whole);
        let pilot_x = |i: usize, x: f64| match (i, whole) {
            (0, true) => Json::Int(x as i64),
            _ => Json::Num(x),
        };
        let pilot = self.pilot.as_ref().map_or(Json::Null, |p| {
            Json::Obj(vec![
                (
                    "points",
                    Json::Arr(
                        p.points
                            .iter()
                            .enumerate()
                            .map(|(i, (x, y))| Json::Arr(vec![pilot_x(i, *x), Json::Num(*y)]))
                            .collect(),
                    ),
                ),
                ("slope", Json::Num(p.slope)),
                ("intercept", Json::Num(p.intercept)),
            ])
        });
        let record = Json::Obj(vec![
            ("hash", s(&self.hash)),
            ("scenario", s(&self.scenario)),
            ("workload", Json::Int(self.workload)),
            ("kind", s(&self.kind)),
            ("parameter", s(&self.parameter)),
            ("direction", s(&self.direction)),
            ("settings", settings),
            ("points", Json::Arr(points)),
            ("slope", Json::Num(self.slope)),
            ("intercept", Json::Num(self.intercept)),
            ("r2", Json::Num(self.r2)),
            ("max_rel_residual", Json::Num(self.max_rel_residual)),
            ("date", s(&self.date)),
            ("pilot", pilot),
            ("schema", Json::Int(SCHEMA)),
        ]);
        let mut out = String::new();
        record.write(0, &mut out);
        out.push('\n');
        out
    }

    /// A record read back; None for anything but a whole record of this [`SCHEMA`] (the
    /// calibration is then computed again).
    pub fn from_json(text: &str) -> Option<Calibration> {
        use serde_json::Value as J;
        let d: J = serde_json::from_str(text).ok()?;
        let d = d.as_object()?;
        const KEYS: [&str; 15] = [
            "hash",
            "scenario",
            "workload",
            "kind",
            "parameter",
            "direction",
            "settings",
            "points",
            "slope",
            "intercept",
            "r2",
            "max_rel_residual",
            "date",
            "pilot",
            "schema",
        ];
        if d.get("schema")?.as_i64()? != SCHEMA || d.keys().any(|k| !KEYS.contains(&k.as_str())) {
            return None;
        }
        let num = |k: &str| d.get(k)?.as_f64();
        let text = |k: &str| Some(d.get(k)?.as_str()?.to_string());
        let points = d
            .get("points")?
            .as_array()?
            .iter()
            .map(|p| {
                let f = |k: &str| p.get(k)?.as_f64();
                Some(Point {
                    x: f("x")?,
                    forward_bps: f("forward_bps")?,
                    reverse_bps: f("reverse_bps")?,
                    load_bps: f("load_bps")?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let pilot = match d.get("pilot") {
            None | Some(J::Null) => None,
            Some(p) => {
                let xy = |i: usize| {
                    let pt = p.get("points")?.get(i)?;
                    Some((pt.get(0)?.as_f64()?, pt.get(1)?.as_f64()?))
                };
                Some(Pilot {
                    points: [xy(0)?, xy(1)?],
                    slope: p.get("slope")?.as_f64()?,
                    intercept: p.get("intercept")?.as_f64()?,
                })
            }
        };
        Some(Calibration {
            hash: text("hash")?,
            scenario: text("scenario")?,
            workload: d.get("workload")?.as_i64()?,
            kind: text("kind")?,
            parameter: text("parameter")?,
            direction: text("direction")?,
            settings: settings_of(d.get("settings")?),
            points,
            slope: num("slope")?,
            intercept: num("intercept")?,
            r2: num("r2")?,
            max_rel_residual: num("max_rel_residual")?,
            date: text("date")?,
            pilot,
        })
    }

    /// The points, the fit and its linearity, as `aqmlab calibrate` prints them.
    pub fn describe(&self) -> String {
        let p = Parameter::from_key(&self.parameter).unwrap_or(Parameter::Rate);
        let mut lines = vec![format!(
            "{:>14}  {:>9}  {:>9}  {:>9}  {:>8}",
            format!("x ({})", p.unit()),
            "fwd Mbps",
            "rev Mbps",
            "fit Mbps",
            "resid %"
        )];
        for pt in &self.points {
            let fit = self.slope * pt.x + self.intercept;
            let res = if pt.load_bps > 0.0 {
                100.0 * (pt.load_bps - fit) / pt.load_bps
            } else {
                f64::NAN
            };
            let signed = if res.is_nan() {
                "+nan".to_string()
            } else {
                format!("{}{}", if res >= 0.0 { "+" } else { "" }, fixed(res, 2))
            };
            lines.push(format!(
                "{:>14}  {:>9}  {:>9}  {:>9}  {:>8}",
                g(pt.x, 6),
                fixed(pt.forward_bps / 1e6, 4),
                fixed(pt.reverse_bps / 1e6, 4),
                fixed(fit / 1e6, 4),
                signed
            ));
        }
        lines.push(format!(
            "fit ({}): load = {} kbit/s per {} · x {} {} Mbit/s;  R² = {}, max |residual| = {} %",
            self.direction,
            g(self.slope / 1e3, 6),
            p.per(),
            if self.intercept >= 0.0 { '+' } else { '−' },
            g(self.intercept.abs() / 1e6, 4),
            fixed(self.r2, 5),
            fixed(100.0 * self.max_rel_residual, 2)
        ));
        lines.join("\n")
    }
}

/// Settings as stored; None unless every key of this version is there with its type.
fn settings_of(v: &serde_json::Value) -> Option<Settings> {
    let o = v.as_object()?;
    if o.len() != 6 {
        return None;
    }
    let opt_text = |k: &str| match o.get(k)? {
        serde_json::Value::Null => Some(None),
        s => Some(Some(s.as_str()?.to_string())),
    };
    let text = |k: &str| Some(o.get(k)?.as_str()?.to_string());
    let points = match o.get("points")? {
        serde_json::Value::Null => None,
        a => Some(
            a.as_array()?
                .iter()
                .map(serde_json::Value::as_f64)
                .collect::<Option<Vec<f64>>>()?,
        ),
    };
    Some(Settings {
        points,
        warmup: opt_text("warmup")?,
        duration: text("duration")?,
        rate: text("rate")?,
        direction: text("direction")?,
        link: opt_text("link")?,
    })
}

/// The calibration cache directory: `root`, else `$AQMLAB_CACHE`, else `.aqmlab-cache`, plus
/// `calibration`.
pub fn cache_dir(root: Option<&Path>) -> PathBuf {
    let root = match root {
        Some(r) => r.to_path_buf(),
        None => std::env::var_os("AQMLAB_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(".aqmlab-cache")),
    };
    root.join("calibration")
}

/// The stored calibration at `path`, if there is a whole one.
pub fn read(path: &Path) -> Option<Calibration> {
    Calibration::from_json(&std::fs::read_to_string(path).ok()?)
}

/// Store `c` at `path`: written under `NAME.tmp-PID`, then renamed (a reader never sees half a
/// record).
pub fn store(c: &Calibration, path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!("{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, c.to_json())?;
    std::fs::rename(&tmp, path)
}

/// Now, UTC, as Python's `datetime.now(UTC).isoformat(timespec="seconds")`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    iso_utc(secs)
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SS+00:00` (days to a civil date: H. Hinnant's
/// algorithm, "chrono-Compatible Low-Level Date Algorithms").
pub fn iso_utc(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}+00:00",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The JSON values of a record, written as Python's encoder writes them with `indent=2`.
enum Json {
    Null,
    Int(i64),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(&'static str, Json)>),
}

impl Json {
    fn write(&self, depth: usize, out: &mut String) {
        let pad = |d: usize| "  ".repeat(d);
        match self {
            Json::Null => out.push_str("null"),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Num(f) => out.push_str(&json_float(*f)),
            Json::Str(s) => out.push_str(&super::hash::ascii_json(
                &crate::sweep::canonical::value_json(&toml::Value::String(s.clone())),
            )),
            Json::Arr(a) if a.is_empty() => out.push_str("[]"),
            Json::Obj(o) if o.is_empty() => out.push_str("{}"),
            Json::Arr(a) => {
                out.push('[');
                for (i, v) in a.iter().enumerate() {
                    out.push_str(if i > 0 { ",\n" } else { "\n" });
                    out.push_str(&pad(depth + 1));
                    v.write(depth + 1, out);
                }
                out.push('\n');
                out.push_str(&pad(depth));
                out.push(']');
            }
            Json::Obj(o) => {
                out.push('{');
                for (i, (k, v)) in o.iter().enumerate() {
                    out.push_str(if i > 0 { ",\n" } else { "\n" });
                    out.push_str(&pad(depth + 1));
                    out.push_str(&format!("\"{k}\": "));
                    v.write(depth + 1, out);
                }
                out.push('\n');
                out.push_str(&pad(depth));
                out.push('}');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Calibration {
        Calibration {
            hash: "ab".into(),
            scenario: "s.toml".into(),
            workload: 0,
            kind: "http10".into(),
            parameter: "rate".into(),
            direction: "forward".into(),
            settings: Some(Settings {
                points: Some(vec![100.0, 200.0]),
                ..Settings::default()
            }),
            points: vec![
                Point {
                    x: 100.0,
                    forward_bps: 2.1e6,
                    reverse_bps: 1e6,
                    load_bps: 2.1e6,
                },
                Point {
                    x: 200.0,
                    forward_bps: 4.1e6,
                    reverse_bps: 2e6,
                    load_bps: 4.1e6,
                },
            ],
            slope: 20_000.0,
            intercept: 100_000.0,
            r2: 1.0,
            max_rel_residual: 0.0,
            date: "2026-11-29T00:00:00+00:00".into(),
            pilot: None,
        }
    }

    #[test]
    fn json_as_python_wrote_it_and_back() {
        let text = sample().to_json();
        // json.dumps({... "settings": {"points": [100.0, 200.0], "warmup": None, ...}},
        // indent=2) + "\n", as Python wrote a record.
        assert!(text.starts_with("{\n  \"hash\": \"ab\",\n  \"scenario\": \"s.toml\",\n"));
        assert!(text.contains(
            "  \"settings\": {\n    \"points\": [\n      100.0,\n      200.0\n    ],\n    \
             \"warmup\": null,\n    \"duration\": \"120s\",\n"
        ));
        assert!(text.contains("  \"slope\": 20000.0,\n  \"intercept\": 100000.0,\n"));
        assert!(text.ends_with("  \"pilot\": null,\n  \"schema\": 2\n}\n"));
        assert_eq!(Calibration::from_json(&text), Some(sample()));
        // Floats read back exactly (20719.026533333337 is one ulp from …334).
        let exact = Calibration {
            slope: 20_719.026_533_333_337,
            ..sample()
        };
        assert_eq!(Calibration::from_json(&exact.to_json()), Some(exact));
        // Another schema, or a key this version does not know: computed again.
        assert!(Calibration::from_json(&text.replace("\"schema\": 2", "\"schema\": 1")).is_none());
        assert!(Calibration::from_json(&text.replace("\"pilot\"", "\"pilots\"")).is_none());
        // Settings of another form (a hand-made record): kept, marked unknown.
        let odd = text.replace("\"settings\": {", "\"settings\": {\"extra\": 1,");
        assert_eq!(Calibration::from_json(&odd).unwrap().settings, None);
    }

    #[test]
    fn a_pilot_of_users_as_python_wrote_it() {
        // json.dumps({"points": [[100, 1.5], [200.0, 3.0]], ...}, indent=2)
        let c = Calibration {
            parameter: "users".into(),
            pilot: Some(Pilot {
                points: [(100.0, 1.5), (200.0, 3.0)],
                slope: 0.015,
                intercept: 0.0,
            }),
            ..sample()
        };
        let text = c.to_json();
        assert!(text.contains(
            "  \"pilot\": {\n    \"points\": [\n      [\n        100,\n        1.5\n      ],\n      \
             [\n        200.0,\n        3.0\n      ]\n    ],\n    \"slope\": 0.015,\n    \
             \"intercept\": 0.0\n  },\n"
        ), "{text}");
        assert_eq!(Calibration::from_json(&text), Some(c));
    }

    #[test]
    fn describe_as_the_command_prints_it() {
        let text = sample().describe();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "    x (conn/s)   fwd Mbps   rev Mbps   fit Mbps   resid %"
        );
        // fit at 100: 20,000·100 + 100,000 = 2.1 Mbit/s, residual 0.
        assert_eq!(
            lines[1],
            "           100     2.1000     1.0000     2.1000     +0.00"
        );
        assert_eq!(
            lines[3],
            "fit (forward): load = 20 kbit/s per conn/s · x + 0.1 Mbit/s;  R² = 1.00000, max |residual| = 0.00 %"
        );
    }

    #[test]
    fn dates_by_hand() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00+00:00");
        // 2000-03-01 is day 11,017 (30 years of 365 days + 7 leap days + 31 + 29).
        assert_eq!(
            iso_utc(11_017 * 86_400 + 3_661),
            "2000-03-01T01:01:01+00:00"
        );
        assert_eq!(iso_utc(951_782_400 - 1), "2000-02-28T23:59:59+00:00");
    }
}
