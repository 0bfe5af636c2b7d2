//! The topology tables' plain keys, declared once: `[topology]` of a dumbbell ([`DUMBBELL`]) and
//! of a parking lot ([`PARKING_LOT`]), and each `[topology.clouds.NAME]` ([`CLOUD`]) — key,
//! syntax, unit, range, doc, source and field. The scenario crate reads these and builds the
//! queues (`access_queue`, `[queue]`, `[reverse_queue]`, `link_queue`), the DelayBox and the
//! parking lot's `bottleneck` name around them; `aqmlab params dumbbell` prints them.
//!
//! Validation: `crates/scenario/tests/bad_files.rs` (`missing_bottleneck_rate`, `rate_*`,
//! `parking_lot_*`) and the docs test `crates/sim/tests/params_declared.rs`.

use declare::{check_ranges, field, KeyRule, Model, Param, Range, Syntax};
use units::SimDuration;

const COUNT: Syntax = Syntax::Integer(u32::MAX as u64);

/// A dumbbell's plain keys (`[topology] kind = "dumbbell"`); rates in bit/s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DumbbellParams {
    pub clients: u32,
    pub servers: u32,
    pub access_rate: u64,
    pub server_access_rate: Option<u64>,
    pub access_delay: SimDuration,
    pub bottleneck_rate: u64,
    pub bottleneck_delay: SimDuration,
}

/// The dumbbell's `[topology]` keys.
pub const DUMBBELL: Model<DumbbellParams, DumbbellParams> = Model {
    kind: "dumbbell",
    title: "Client hosts — router — bottleneck — router — server hosts (`[topology]`)",
    params: &[&DUMBBELL_KEYS],
    rules: &[
        KeyRule::Required { key: "clients" },
        KeyRule::Required { key: "servers" },
        KeyRule::Required { key: "access_rate" },
        KeyRule::Required {
            key: "access_delay",
        },
        KeyRule::Required {
            key: "bottleneck_rate",
        },
        KeyRule::Required {
            key: "bottleneck_delay",
        },
    ],
    profiles: &[],
    validate: |p| check_ranges(DUMBBELL.params, p),
    wrap: |p| p,
};

const DUMBBELL_KEYS: [Param<DumbbellParams>; 7] = [
    Param {
        key: "clients",
        syntax: COUNT,
        unit: "hosts",
        range: Range::AtLeast(1.0),
        doc: "Client hosts, each on its own access link",
        source: "the scenario",
        access: field!(clients),
    },
    Param {
        key: "servers",
        syntax: COUNT,
        unit: "hosts",
        range: Range::AtLeast(1.0),
        doc: "Server hosts, each on its own access link",
        source: "the scenario",
        access: field!(servers),
    },
    Param {
        key: "access_rate",
        syntax: Syntax::Rate,
        unit: "bit/s",
        range: Range::Any,
        doc: "Rate of every host's access link, both directions",
        source: "the scenario",
        access: field!(access_rate),
    },
    Param {
        key: "server_access_rate",
        syntax: Syntax::Rate,
        unit: "bit/s",
        range: Range::Any,
        doc: "The server hosts' access links, if different (default access_rate)",
        source: "seed 003 §4.7 (35 / 30 Mbps)",
        access: field!(server_access_rate),
    },
    Param {
        key: "access_delay",
        syntax: Syntax::Delay,
        unit: "",
        range: Range::Any,
        doc: "One-way propagation delay of every access link",
        source: "the scenario",
        access: field!(access_delay),
    },
    Param {
        key: "bottleneck_rate",
        syntax: Syntax::Rate,
        unit: "bit/s",
        range: Range::Any,
        doc: "Rate of the router-router link, each direction",
        source: "the scenario",
        access: field!(bottleneck_rate),
    },
    Param {
        key: "bottleneck_delay",
        syntax: Syntax::Delay,
        unit: "",
        range: Range::Any,
        doc: "One-way propagation delay of the router-router link",
        source: "the scenario",
        access: field!(bottleneck_delay),
    },
];

/// A parking lot's plain keys (`[topology] kind = "parking_lot"`); rate in bit/s.
#[derive(Clone, Debug, PartialEq)]
pub struct ParkingLotParams {
    pub routers: u32,
    pub link_rate: u64,
    pub link_delay: SimDuration,
}

impl Default for ParkingLotParams {
    /// Seed 002 §III-A: 8 routers; the link's rate and delay are required.
    fn default() -> Self {
        ParkingLotParams {
            routers: 8,
            link_rate: 0,
            link_delay: SimDuration::ZERO,
        }
    }
}

/// The parking lot's `[topology]` keys.
pub const PARKING_LOT: Model<ParkingLotParams, ParkingLotParams> = Model {
    kind: "parking_lot",
    title: "A chain of routers with host clouds (seed 002 §III-A; `[topology]`)",
    params: &[&PARKING_LOT_KEYS],
    rules: &[
        KeyRule::Required { key: "link_rate" },
        KeyRule::Required { key: "link_delay" },
    ],
    profiles: &[],
    validate: |p| check_ranges(PARKING_LOT.params, p),
    wrap: |p| p,
};

const PARKING_LOT_KEYS: [Param<ParkingLotParams>; 3] = [
    Param {
        key: "routers",
        syntax: COUNT,
        unit: "routers",
        range: Range::AtLeast(2.0),
        doc: "Routers in the chain",
        source: "seed 002 §III-A",
        access: field!(routers),
    },
    Param {
        key: "link_rate",
        syntax: Syntax::Rate,
        unit: "bit/s",
        range: Range::Any,
        doc: "Rate of every router-router link, both directions",
        source: "seed 002: 10 Mbps",
        access: field!(link_rate),
    },
    Param {
        key: "link_delay",
        syntax: Syntax::Delay,
        unit: "",
        range: Range::Any,
        doc: "One-way propagation delay of every router-router link",
        source: "seed 002: 1 ms",
        access: field!(link_delay),
    },
];

/// One host cloud of a parking lot (`[topology.clouds.NAME]`); rate in bit/s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CloudParams {
    pub router: u32,
    pub hosts: u32,
    pub access_rate: u64,
    pub access_delay: SimDuration,
}

/// A cloud table's keys.
pub const CLOUD: Model<CloudParams, CloudParams> = Model {
    kind: "cloud",
    title: "A group of hosts on one router of a parking lot (`[topology.clouds.NAME]`)",
    params: &[&CLOUD_KEYS],
    rules: &[
        KeyRule::Required { key: "router" },
        KeyRule::Required { key: "hosts" },
        KeyRule::Required { key: "access_rate" },
        KeyRule::Required {
            key: "access_delay",
        },
    ],
    profiles: &[],
    validate: |p| check_ranges(CLOUD.params, p),
    wrap: |p| p,
};

const CLOUD_KEYS: [Param<CloudParams>; 4] = [
    Param {
        key: "router",
        syntax: COUNT,
        unit: "",
        range: Range::Cross("< routers"),
        doc: "Index of the router the hosts attach to (0-based)",
        source: "the scenario",
        access: field!(router),
    },
    Param {
        key: "hosts",
        syntax: COUNT,
        unit: "hosts",
        range: Range::AtLeast(1.0),
        doc: "Hosts, each on its own access link",
        source: "the scenario",
        access: field!(hosts),
    },
    Param {
        key: "access_rate",
        syntax: Syntax::Rate,
        unit: "bit/s",
        range: Range::Any,
        doc: "Access link rate, both directions",
        source: "the scenario",
        access: field!(access_rate),
    },
    Param {
        key: "access_delay",
        syntax: Syntax::Delay,
        unit: "",
        range: Range::Any,
        doc: "Access link one-way propagation delay",
        source: "the scenario",
        access: field!(access_delay),
    },
];
