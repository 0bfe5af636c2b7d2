//! The `[[workload]]` keys of the kinds whose tables are plain keys (`mah`, `packmime`,
//! `pareto_web`, `cbr`, `onoff`), declared once ([`models`]): key, syntax, unit, range, doc,
//! source and field, with each kind's defaults in its params struct's `Default`. The scenario
//! parser reads these declarations (kind dispatch only); `aqmlab params mah` prints them. The
//! kinds whose tables hold distributions, flow arrays or files (`http10`, `bulk`, `replay`) are
//! parsed structurally by the scenario crate.
//!
//! A declared table gives a [`Placeable`]: the parameters before the workload is placed on
//! hosts. [`Placeable::place`] checks the host counts and indices against the clouds it runs
//! between and gives the [`WorkloadConfig`].
//!
//! Validation: `crates/scenario/tests/bad_files.rs` (one test per rejected mistake),
//! `crates/scenario/tests/workload_keys_declared.rs` (every declared key parses, only declared
//! keys are accepted) and the defaults test below.

use super::{
    DatagramFlow, HttpVersion, MahConfig, ParetoSizes, PrimaryReplies, ServerChoice, WorkloadConfig,
};
use declare::{
    check_ranges, choices, field, Choice, Declared, KeyRule, Model, Param, ParamError, Range,
    Syntax,
};
use units::{SimDuration, SimTime};

/// A workload's parameters as declared, before it is placed on the topology's hosts.
pub trait Placeable: std::fmt::Debug {
    /// The workload between `clients` client hosts and `servers` server hosts (the clouds the
    /// table's placement names); errors name the key (`clients`, `server`, …).
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError>;
}

/// What a declared workload table gives.
pub type Pending = Box<dyn Placeable>;

/// Every declared workload kind.
pub fn models() -> &'static [&'static dyn Declared<Pending>] {
    static MODELS: &[&dyn Declared<Pending>] = &[&MAH, &PACKMIME, &PARETO_WEB, &CBR, &ONOFF];
    MODELS
}

/// The declaration of workload `kind`, if it is a declared kind.
pub fn model(kind: &str) -> Option<&'static dyn Declared<Pending>> {
    models().iter().copied().find(|m| m.kind() == kind)
}

fn err(key: &str, reason: String) -> ParamError {
    ParamError {
        key: key.into(),
        reason,
    }
}

/// `clients`/`servers` of a workload: how many of the cloud's hosts take part (default all).
fn subset(want: [Option<u32>; 2], have: [u32; 2]) -> Result<[u32; 2], ParamError> {
    let mut out = have;
    for (i, k) in ["clients", "servers"].into_iter().enumerate() {
        if let Some(n) = want[i] {
            if n > have[i] {
                return Err(err(
                    k,
                    format!(
                        "no route: {n} {k} requested but the topology has {}",
                        have[i]
                    ),
                ));
            }
            out[i] = n;
        }
    }
    Ok(out)
}

const COUNT: Syntax = Syntax::Integer(u32::MAX as u64);

/// The optional `clients`, `servers` keys of a params struct with those `Option<u32>` fields.
macro_rules! host_subset_keys {
    () => {
        [
            Param {
                key: "clients",
                syntax: COUNT,
                unit: "hosts",
                range: Range::AtLeast(1.0),
                doc: "How many of the client cloud's hosts take part (default all)",
                source: "aqmlab",
                access: field!(clients),
            },
            Param {
                key: "servers",
                syntax: COUNT,
                unit: "hosts",
                range: Range::AtLeast(1.0),
                doc: "How many of the server cloud's hosts take part (default all)",
                source: "aqmlab",
                access: field!(servers),
            },
        ]
    };
}

// ---- mah ---------------------------------------------------------------------------------

/// How a Mah user picks the server of its next pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerChoiceKind {
    Uniform,
    Zipf,
}
choices!(ServerChoiceKind { Uniform => "uniform", Zipf => "zipf" });
choices!(PrimaryReplies {
    FirstOfPage => "first_of_page",
    FirstTwoOfPage => "first_two_of_page",
    FirstTwoOfRun => "first_two_of_run",
});

/// `kind = "mah"`: Mah's browsing users (seed 000 §3.3, Mah-97 tables built in).
#[derive(Clone, Debug, PartialEq)]
pub struct MahParams {
    pub users: u32,
    pub clients: Option<u32>,
    pub servers: Option<u32>,
    pub server_choice: ServerChoiceKind,
    pub zipf_exponent: f64,
    pub max_parallel: u32,
    pub think_cap: SimDuration,
    pub primary_replies: PrimaryReplies,
    pub think_on_server_change: bool,
}

impl Default for MahParams {
    /// Mah's model with seed 000's concurrency and think-time clip ([`MahConfig::new`]).
    fn default() -> Self {
        let m = MahConfig::new(0, 1, 1);
        MahParams {
            users: 0,
            clients: None,
            servers: None,
            server_choice: ServerChoiceKind::Uniform,
            zipf_exponent: 1.0,
            max_parallel: m.max_parallel,
            think_cap: SimDuration::from_secs_f64(m.think_cap_s),
            primary_replies: m.primary_replies,
            think_on_server_change: m.think_on_server_change,
        }
    }
}

impl Placeable for MahParams {
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError> {
        let [c, s] = subset([self.clients, self.servers], [clients, servers])?;
        let mut m = MahConfig::new(self.users, c, s);
        m.server_choice = match self.server_choice {
            ServerChoiceKind::Uniform => ServerChoice::Uniform,
            ServerChoiceKind::Zipf => ServerChoice::Zipf {
                exponent: self.zipf_exponent,
            },
        };
        m.max_parallel = self.max_parallel;
        m.think_cap_s = self.think_cap.as_secs_f64();
        m.primary_replies = self.primary_replies;
        m.think_on_server_change = self.think_on_server_change;
        Ok(WorkloadConfig::Mah(m))
    }
}

const MAH: Model<MahParams, Pending> = Model {
    kind: "mah",
    title: "Mah's browsing users (seed 000 §3.3; Mah-97 tables built in)",
    params: &[&MAH_KEYS, &host_subset_keys!()],
    rules: &[
        KeyRule::Required { key: "users" },
        KeyRule::NeedsChoice {
            key: "zipf_exponent",
            other: "server_choice",
            value: "zipf",
            reason: "only meaningful with server_choice = \"zipf\"",
        },
    ],
    profiles: &[],
    validate: |p| check_ranges(MAH.params, p),
    wrap: |p| Box::new(p),
};

const MAH_KEYS: [Param<MahParams>; 7] = [
    Param {
        key: "users",
        syntax: COUNT,
        unit: "users",
        range: Range::AtLeast(1.0),
        doc: "Browsing users (required; or `load` with a calibration)",
        source: "seed 000 §4.2",
        access: field!(users),
    },
    Param {
        key: "server_choice",
        syntax: Syntax::Choice {
            noun: "server_choice",
            options: ServerChoiceKind::OPTIONS,
        },
        unit: "",
        range: Range::Any,
        doc: "Server of the next pages: uniform, or Zipf by server rank",
        source: "seed 000 (uniform); Mah 1997 (Zipf)",
        access: field!(server_choice),
    },
    Param {
        key: "zipf_exponent",
        syntax: Syntax::Number,
        unit: "",
        range: Range::AtLeast(0.0),
        doc: "Zipf exponent (server i with probability ∝ 1/i^exponent)",
        source: "GloMoSim: 1",
        access: field!(zipf_exponent),
    },
    Param {
        key: "max_parallel",
        syntax: COUNT,
        unit: "connections",
        range: Range::AtLeast(1.0),
        doc: "Concurrent connections per user for a page's secondary files",
        source: "seed 000 §3.4",
        access: field!(max_parallel),
    },
    Param {
        key: "think_cap",
        syntax: Syntax::Duration,
        unit: "",
        range: Range::Positive,
        doc: "Think times are clipped at this",
        source: "seed 000 §3.4.4",
        access: field!(think_cap),
    },
    Param {
        key: "primary_replies",
        syntax: Syntax::Choice {
            noun: "primary_replies",
            options: PrimaryReplies::OPTIONS,
        },
        unit: "",
        range: Range::Any,
        doc: "Which replies come from the primary table: Mah's first of each page, or a thesis reading",
        source: "Mah 1997; seed 000 §3.4.4",
        access: field!(primary_replies),
    },
    Param {
        key: "think_on_server_change",
        syntax: Syntax::Bool,
        unit: "",
        range: Range::Any,
        doc: "Think before the first page on a newly chosen server (false: the thesis's rule)",
        source: "Mah/GloMoSim: true; seed 000 §3.4.4: false",
        access: field!(think_on_server_change),
    },
];

// ---- packmime ----------------------------------------------------------------------------

choices!(HttpVersion { Http10 => "1.0", Http11 => "1.1" });

/// `kind = "packmime"`: PackMime-HTTP as in ns-2.35 (docs/reference/packmime/MODEL.md).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PackMimeParams {
    pub rate: f64,
    pub http: HttpVersion,
    pub clients: Option<u32>,
    pub servers: Option<u32>,
}

impl Placeable for PackMimeParams {
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError> {
        let [clients, servers] = subset([self.clients, self.servers], [clients, servers])?;
        Ok(WorkloadConfig::PackMime {
            rate: self.rate,
            clients,
            servers,
            http: self.http,
        })
    }
}

const PACKMIME: Model<PackMimeParams, Pending> = Model {
    kind: "packmime",
    title: "PackMime-HTTP 1.0/1.1 as in ns-2.35 (model tables built in)",
    params: &[&PACKMIME_KEYS, &host_subset_keys!()],
    rules: &[KeyRule::Required { key: "rate" }],
    profiles: &[],
    validate: |p| check_ranges(PACKMIME.params, p),
    wrap: |p| Box::new(p),
};

const PACKMIME_KEYS: [Param<PackMimeParams>; 2] = [
    Param {
        key: "rate",
        syntax: Syntax::Number,
        unit: "connections/s",
        // At least 0.001: the model's inter-arrival Weibull shape falls with log2(rate), and
        // below about 1e-6 conn/s Γ(1 + 1/shape) overflows, the scale becomes 0 and every
        // connection starts at t = 0 (a mutated rate of 1e-300 ran without end).
        range: Range::AtLeast(0.001),
        doc: "New connections per second (required; or `load` with a calibration)",
        source: "ns-2.35 PackMimeHTTP rate_",
        access: field!(rate),
    },
    Param {
        key: "http",
        syntax: Syntax::Choice {
            noun: "http",
            options: HttpVersion::OPTIONS,
        },
        unit: "",
        range: Range::Any,
        doc: "HTTP/1.0 (a connection per exchange) or 1.1 (persistent connections, MODEL.md §3.5–3.7)",
        source: "ns-2.35 default 1.0",
        access: field!(http),
    },
];

// ---- pareto_web --------------------------------------------------------------------------

/// `kind = "pareto_web"`: seed 003's simple web model (`workload/pareto_web.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParetoWebParams {
    pub flows: u32,
    pub sizes: ParetoSizes,
    pub shape: f64,
    pub mean: u32,
    pub min: u32,
    pub max: u32,
    pub off_time: SimDuration,
    pub clients: Option<u32>,
    pub servers: Option<u32>,
}

impl Default for ParetoWebParams {
    /// Seed 003 §4.7 (p. 548–550): shape 1.2, mean 10 KB, min 1 KB, max 2 MB, off 0.5 s.
    fn default() -> Self {
        ParetoWebParams {
            flows: 0,
            sizes: ParetoSizes::Pareto,
            shape: 1.2,
            mean: 10_000,
            min: 1_000,
            max: 2_000_000,
            off_time: SimDuration::from_millis(500),
            clients: None,
            servers: None,
        }
    }
}

impl ParetoWebParams {
    /// The declared ranges, then min < max and min < mean < max.
    fn validate(&self) -> Result<(), ParamError> {
        check_ranges(PARETO_WEB.params, self)?;
        let (min, mean, max) = (self.min, self.mean, self.max);
        if min >= max {
            return Err(err(
                "min",
                format!("must be less than max ({min} B ≥ {max} B)"),
            ));
        }
        if !(mean > min && mean < max) {
            return Err(err(
                "mean",
                format!("must lie strictly between min and max ({min} B … {max} B), got {mean} B"),
            ));
        }
        Ok(())
    }
}

impl Placeable for ParetoWebParams {
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError> {
        let [clients, servers] = subset([self.clients, self.servers], [clients, servers])?;
        Ok(WorkloadConfig::ParetoWeb {
            flows: self.flows,
            sizes: self.sizes,
            shape: self.shape,
            mean_bytes: self.mean as f64,
            min_bytes: self.min as f64,
            max_bytes: self.max as f64,
            off_time: self.off_time,
            clients,
            servers,
        })
    }
}

const PARETO_WEB: Model<ParetoWebParams, Pending> = Model {
    kind: "pareto_web",
    title: "Seed 003's Pareto web model: one object per connection, then a fixed off time",
    params: &[&PARETO_KEYS, &host_subset_keys!()],
    rules: &[KeyRule::Required { key: "flows" }],
    profiles: &[],
    validate: ParetoWebParams::validate,
    wrap: |p| Box::new(p),
};

choices!(ParetoSizes { Pareto => "pareto", ParetoII => "pareto_ii" });

const PARETO_KEYS: [Param<ParetoWebParams>; 7] = [
    Param {
        key: "flows",
        syntax: COUNT,
        unit: "flows",
        range: Range::AtLeast(1.0),
        doc: "Sources, each one connection at a time (required)",
        source: "seed 003 §4.7",
        access: field!(flows),
    },
    Param {
        key: "shape",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(0.0),
        doc: "Pareto shape of the object size (ns-2 RandomVariable/Pareto)",
        source: "seed 003 §4.7",
        access: field!(shape),
    },
    Param {
        key: "mean",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::Cross("in (min, max)"),
        doc: "Mean of the untruncated Pareto (sets its scale)",
        source: "seed 003 §4.7",
        access: field!(mean),
    },
    Param {
        key: "min",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::AtLeast(1.0),
        doc: "Sizes below are raised to it (< max)",
        source: "seed 003 §4.7",
        access: field!(min),
    },
    Param {
        key: "max",
        syntax: Syntax::Size,
        unit: "bytes",
        range: Range::Any,
        doc: "Sizes above are cut to it",
        source: "seed 003 §4.7",
        access: field!(max),
    },
    Param {
        key: "off_time",
        syntax: Syntax::Duration,
        unit: "",
        range: Range::Any,
        doc: "Fixed wait after a transfer ends before the next connection",
        source: "seed 003 §3.1, §4.7",
        access: field!(off_time),
    },
    Param {
        key: "sizes",
        syntax: Syntax::Choice {
            noun: "sizes",
            options: ParetoSizes::OPTIONS,
        },
        unit: "",
        range: Range::Any,
        doc: "Size law before the clamp: ns-2 Pareto (k·U^(−1/shape), from k = mean·(shape−1)/shape) or ParetoII (Lomax, mean·(shape−1)·(U^(−1/shape) − 1), from 0)",
        source: "ns-2 tools/ranvar.cc, rng.h; seed 003 §3.1 names Pareto II (issue 34)",
        access: field!(sizes),
    },
];

// ---- cbr and onoff -----------------------------------------------------------------------

/// One datagram flow's keys (`cbr`; the `flow` of `onoff`).
#[derive(Clone, Debug, PartialEq)]
pub struct DatagramParams {
    pub rate: u64,
    pub packet_size: u32,
    pub start: SimDuration,
    pub stop: Option<SimDuration>,
    pub client: u32,
    pub server: u32,
}

impl Default for DatagramParams {
    /// ns-2 `Application/Traffic/CBR` and `/Pareto`: packetSize_ 210 B; from time 0 to the end,
    /// between host 0 and host 0.
    fn default() -> Self {
        DatagramParams {
            rate: 0,
            packet_size: 210,
            start: SimDuration::ZERO,
            stop: None,
            client: 0,
            server: 0,
        }
    }
}

impl DatagramParams {
    /// stop after start.
    fn check_stop(&self) -> Result<(), ParamError> {
        match self.stop {
            Some(s) if s <= self.start => Err(err(
                "stop",
                format!(
                    "must be after start ({}), got {}",
                    SimTime(self.start.0),
                    SimTime(s.0)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The flow between the hosts `client` and `server` of clouds of `clients` and `servers`.
    fn flow(&self, clients: u32, servers: u32) -> Result<DatagramFlow, ParamError> {
        for (k, i, have) in [
            ("client", self.client, clients),
            ("server", self.server, servers),
        ] {
            if i >= have {
                return Err(err(
                    k,
                    format!(
                        "no route: {k} {i} does not exist; the cloud has {have} hosts (indices 0..={})",
                        have - 1
                    ),
                ));
            }
        }
        Ok(DatagramFlow {
            rate_bps: self.rate,
            packet_bytes: self.packet_size,
            start: SimTime(self.start.0),
            stop: self.stop.map(|d| SimTime(d.0)),
            client: self.client,
            server: self.server,
        })
    }
}

/// The datagram keys of a params struct whose datagram fields are at `$($f).*` (`flow.` or
/// nothing).
macro_rules! datagram_keys {
    ($($f:ident).*) => {
        [
            Param {
                key: "rate",
                syntax: Syntax::Rate,
                unit: "bit/s",
                range: Range::AtLeast(1.0),
                doc: "Sending rate of wire bytes (onoff: during ON periods; required)",
                source: "ns-2 rate_",
                access: field!($($f.)* rate),
            },
            Param {
                key: "packet_size",
                syntax: Syntax::Size,
                unit: "bytes",
                range: Range::AtLeast(40.0),
                doc: "Whole packet on the wire (40 header bytes + payload)",
                source: "ns-2 packetSize_ 210",
                access: field!($($f.)* packet_size),
            },
            Param {
                key: "start",
                syntax: Syntax::Duration,
                unit: "",
                range: Range::Any,
                doc: "First packet",
                source: "aqmlab",
                access: field!($($f.)* start),
            },
            Param {
                key: "stop",
                syntax: Syntax::Duration,
                unit: "",
                range: Range::Cross("> start"),
                doc: "No packet from this time on (default: the end of the run)",
                source: "aqmlab",
                access: field!($($f.)* stop),
            },
            Param {
                key: "client",
                syntax: COUNT,
                unit: "",
                range: Range::Any,
                doc: "Receiving host: index in the client cloud",
                source: "aqmlab",
                access: field!($($f.)* client),
            },
            Param {
                key: "server",
                syntax: COUNT,
                unit: "",
                range: Range::Any,
                doc: "Sending host: index in the server cloud",
                source: "aqmlab",
                access: field!($($f.)* server),
            },
        ]
    };
}

impl Placeable for DatagramParams {
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError> {
        Ok(WorkloadConfig::Cbr(self.flow(clients, servers)?))
    }
}

const CBR: Model<DatagramParams, Pending> = Model {
    kind: "cbr",
    title: "Constant-bit-rate datagrams (ns-2 CBR over UDP; unresponsive)",
    params: &[&datagram_keys!()],
    rules: &[KeyRule::Required { key: "rate" }],
    profiles: &[],
    validate: |p| {
        check_ranges(CBR.params, p)?;
        p.check_stop()
    },
    wrap: |p| Box::new(p),
};

/// `kind = "onoff"`: Pareto ON/OFF datagrams (ns-2 `Application/Traffic/Pareto`).
#[derive(Clone, Debug, PartialEq)]
pub struct OnOffParams {
    pub flow: DatagramParams,
    pub on_time: SimDuration,
    pub off_time: SimDuration,
    pub shape: f64,
}

impl Default for OnOffParams {
    /// ns-2 `Application/Traffic/Pareto` shape_ 1.5; ON and OFF means are required.
    fn default() -> Self {
        OnOffParams {
            flow: DatagramParams::default(),
            on_time: SimDuration::ZERO,
            off_time: SimDuration::ZERO,
            shape: 1.5,
        }
    }
}

impl Placeable for OnOffParams {
    fn place(self: Box<Self>, clients: u32, servers: u32) -> Result<WorkloadConfig, ParamError> {
        Ok(WorkloadConfig::OnOff {
            flow: self.flow.flow(clients, servers)?,
            on_mean: self.on_time,
            off_mean: self.off_time,
            shape: self.shape,
        })
    }
}

const ONOFF: Model<OnOffParams, Pending> = Model {
    kind: "onoff",
    title: "Pareto ON/OFF datagrams (ns-2 Application/Traffic/Pareto)",
    params: &[&datagram_keys!(flow), &ONOFF_KEYS],
    rules: &[
        KeyRule::Required { key: "rate" },
        KeyRule::Required { key: "on_time" },
        KeyRule::Required { key: "off_time" },
    ],
    profiles: &[],
    validate: |p| {
        check_ranges(ONOFF.params, p)?;
        p.flow.check_stop()
    },
    wrap: |p| Box::new(p),
};

const ONOFF_KEYS: [Param<OnOffParams>; 3] = [
    Param {
        key: "on_time",
        syntax: Syntax::Duration,
        unit: "",
        range: Range::Positive,
        doc: "Mean ON period (required)",
        source: "ns-2 burst_time_",
        access: field!(on_time),
    },
    Param {
        key: "off_time",
        syntax: Syntax::Duration,
        unit: "",
        range: Range::Positive,
        doc: "Mean OFF period (required)",
        source: "ns-2 idle_time_",
        access: field!(off_time),
    },
    Param {
        key: "shape",
        syntax: Syntax::Number,
        unit: "",
        range: Range::Above(1.0),
        doc: "Pareto shape of ON and OFF periods (> 1: a Pareto with shape ≤ 1 has no mean)",
        source: "ns-2 shape_ 1.5",
        access: field!(shape),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_sources_values_and_required_keys_are_required() {
        let d = MahParams::default();
        assert_eq!(
            (d.max_parallel, d.think_cap),
            (2, SimDuration::from_secs(600))
        );
        assert!(d.think_on_server_change);
        assert_eq!(d.primary_replies, PrimaryReplies::FirstOfPage);
        for m in models() {
            let e = m.assemble(&[], None).unwrap_err();
            assert_eq!(e.reason, "missing required key", "{}", m.kind());
        }
        let e = CBR.assemble(&[("rate", declare::Value::Int(1000))], None);
        let w = e.unwrap().place(2, 2).unwrap();
        let WorkloadConfig::Cbr(f) = w else { panic!() };
        assert_eq!((f.packet_bytes, f.rate_bps, f.stop), (210, 1000, None));
    }

    #[test]
    fn placement_checks_hosts() {
        let p = PACKMIME
            .assemble(
                &[
                    ("rate", declare::Value::Num(10.0)),
                    ("clients", declare::Value::Int(3)),
                ],
                None,
            )
            .unwrap();
        let e = p.place(2, 5).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.reason.as_str()),
            (
                "clients",
                "no route: 3 clients requested but the topology has 2"
            )
        );
    }
}
