//! Queue disciplines (AQM) for aqmlab: one discipline per file behind the [`QueueDisc`] trait,
//! dispatched through the [`Discipline`] enum (no `Box<dyn>` on the hot path).
//!
//! Every discipline is pure: time (`now`) and randomness (`rng`) come in as arguments, so the
//! same code runs in the simulator and in the testbed router.
//!
//! Each discipline's file holds only its algorithm: a decision on each arrival ([`Admit`],
//! `admit.rs`: store, mark or drop, with the ECN eligibility every discipline shares) that the
//! shared buffer carries out and counts ([`FifoQueue`], `fifo.rs`: packets, the byte/packet
//! backlog, the counters of [`QueueStats`]).
//!
//! Counter identities every test checks (STYLE.md §10), see [`QueueStats::check_identities`]:
//! `arrivals = enqueued + early_drops + forced_drops + overflow_drops` and
//! `queued_now = enqueued − dequeued − dequeue_drops`.

pub mod admit;
pub mod ared;
pub mod avq;
pub mod blue;
pub mod codel;
pub mod discipline;
pub mod droptail;
pub mod dualpi2;
pub mod fifo;
pub mod fq_codel;
pub mod packet;
pub mod params;
pub mod params_table;
pub mod pi;
pub mod pie;
pub mod pimc;
pub mod pisa;
pub mod red;
pub mod rem;
pub mod stats;

pub use admit::Admit;
pub use ared::{AdaptOn, Ared, AredParams};
pub use avq::{Avq, AvqParams};
pub use blue::{Blue, BlueParams};
pub use codel::{Codel, CodelParams};
pub use declare::field;
pub use discipline::{
    model, models, Discipline, DisciplineParams, LinkInfo, ParamError, QueueDisc,
};
pub use droptail::{DropTail, DropTailParams, LimitUnit};
pub use dualpi2::{DualPi2, DualPi2Params};
pub use fifo::{Fifo, FifoQueue};
pub use fq_codel::{flow_bucket, FqCodel, FqCodelParams};
pub use packet::{DropReason, Ecn, Lane, PacketClass, PacketMeta, Verdict};
pub use params::{Declared, ParamInfo, Profile, QueueModel, Range, Search, Syntax, Value};
pub use pi::{Pi, PiCore, PiParams};
pub use pie::{Pie, PieParams};
pub use pimc::{Pimc, PimcParams};
pub use pisa::{HintlessPolicy, Pisa, PisaParams};
pub use red::{CountRule, EcnRule, IdleDecay, Red, RedParams};
pub use rem::{Rem, RemEcn, RemParams};
pub use stats::QueueStats;
