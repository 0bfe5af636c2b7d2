//! Mah's HTTP/1.0 browsing users (Mah, INFOCOM 1997; seed 000 §3.3–3.4;
//! reference/mah/MAH-MODEL.md §1.2 and §4).
//!
//! Each of `users` users loops forever:
//! 1. choose a server (uniform, or Zipf: rank i with probability ∝ 1/i^s) and draw C, the number of
//!    consecutive pages (documents) to fetch from it;
//! 2. for each page draw F, the files of the page; open the primary connection (primary request
//!    and reply tables); when its reply has arrived, fetch the F − 1 secondary files (secondary
//!    tables) over at most `max_parallel` concurrent connections;
//! 3. when the last reply of the page has arrived, think for min(T, `think_cap`) seconds, then
//!    fetch the next page; after the C-th page go back to 1.
//!
//! Two implementation choices of seed 000 §3.4.4 are named options (Mah's model by default):
//! - `primary_replies`: which replies come from the primary table. Mah: the first of each page
//!   (`FirstOfPage`). The thesis says "the first two reply sizes of a run are drawn from the
//!   primary distribution"; read with "run" = a page (`FirstTwoOfPage`, MAH-MODEL.md §1.2) or
//!   with "run" = the run of consecutive pages on one server (`FirstTwoOfRun`: the first reply
//!   of every page, and also the second reply of the run, MAH-MODEL.md §6.4);
//! - `think_on_server_change = false`: no think time before the first page on a newly chosen
//!   server (the thesis); `true` thinks before every page (Mah/GloMoSim).
//!
//! Sampling (MAH-MODEL.md §4): counts (F, C) exactly from the table steps (the smallest value
//! whose cdf exceeds u — never interpolated and truncated, which would cut E[F] from 2.92 to
//! 2.39); sizes and think times by linear interpolation between table points; sizes rounded to
//! whole bytes, a 0-byte reply sent as 1 byte.
//!
//! Start: user u begins its first page at `E[min(T, cap)]·v_u` seconds (one uniform v per user,
//! users in order), so users do not start in lock-step. User u always browses from client host
//! `u % clients`.
//!
//! Pages: every connection carries `page = (u << 32) | k` for user u's k-th page (k from 1), so a
//! page's response time (first request to last reply) can be rebuilt from the request records.
//!
//! Draw order: at `start`, the users' start offsets. At the start of a page: if the user needs
//! a server, the server (uniform: `gen_range`; Zipf: one uniform) then C; then F; then the
//! primary request and reply sizes. At each secondary: its request size, then reply size. After
//! a page: one think sample (unless the thesis rule skips it).
//!
//! Validation: `workload::tests::mah` — table means against MAH-MODEL.md §4 (E[F] = 2.915,
//! E[C] = 4.087, primary reply 15,247 B, secondary 6,826 B, clipped think 98.5 s), concurrency
//! never above `max_parallel`, secondaries only after the primary, requests per minute against
//! MAH-MODEL.md §5 (2.35/min thesis rules, 1.77/min Mah's think placement) with instant
//! responses.

use super::{later, request_bytes, response_bytes, FlowKind, Request};
use crate::distribution::{empirical::inverse_cdf, unit, EmpiricalCdf};
use rand::Rng as _;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use units::{Rng, SimDuration, SimTime};

/// The seven empirical tables of Mah's model.
#[derive(Clone, Debug, PartialEq)]
pub struct MahTables {
    /// Request bytes of the first file of a page.
    pub primary_request: EmpiricalCdf,
    /// Request bytes of the other files.
    pub secondary_request: EmpiricalCdf,
    /// Reply bytes of the first file of a page.
    pub primary_reply: EmpiricalCdf,
    /// Reply bytes of the other files.
    pub secondary_reply: EmpiricalCdf,
    /// Files per page (document), a count ≥ 1.
    pub files_per_page: EmpiricalCdf,
    /// Consecutive pages from one server, a count ≥ 1.
    pub pages_per_server: EmpiricalCdf,
    /// Think time between pages, seconds.
    pub think_s: EmpiricalCdf,
}

fn table(name: &str, text: &str) -> EmpiricalCdf {
    // The embedded tables are checked by `workload::tests::mah::embedded_tables_parse`.
    EmpiricalCdf::from_csv_str(text).unwrap_or_else(|e| panic!("embedded table {name}: {e}"))
}

impl MahTables {
    /// Mah's INFOCOM '97 tables as shipped with GloMoSim 2.0 (reference/mah/mah97_*.csv,
    /// MAH-MODEL.md §2), embedded in the binary.
    pub fn mah97() -> MahTables {
        macro_rules! t {
            ($f:literal) => {
                table($f, include_str!(concat!("../../data/mah/", $f)))
            };
        }
        MahTables {
            primary_request: t!("mah97_primary_request_bytes.csv"),
            secondary_request: t!("mah97_secondary_request_bytes.csv"),
            primary_reply: t!("mah97_primary_reply_bytes.csv"),
            secondary_reply: t!("mah97_secondary_reply_bytes.csv"),
            files_per_page: t!("mah97_files_per_document.csv"),
            pages_per_server: t!("mah97_consecutive_documents_per_server.csv"),
            think_s: t!("mah97_think_time_seconds.csv"),
        }
    }
}

/// How a user picks its next server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ServerChoice {
    /// Uniform over the servers (seed 000).
    Uniform,
    /// Server of rank i (1-based, server i − 1) with probability ∝ 1/i^exponent (Mah; GloMoSim
    /// uses exponent 1).
    Zipf { exponent: f64 },
}

/// Which replies are drawn from the primary reply table (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrimaryReplies {
    /// Mah: the first reply of each page.
    FirstOfPage,
    /// Thesis, "run" read as a page: the first two replies of each page.
    FirstTwoOfPage,
    /// Thesis, "run" read as the pages fetched from one server: the first reply of each page
    /// and the second reply of the run.
    FirstTwoOfRun,
}

/// Parameters of the Mah browsing-user workload.
#[derive(Clone, Debug, PartialEq)]
pub struct MahConfig {
    /// Number of browsing users, ≥ 1.
    pub users: u32,
    /// Client hosts used (user u on host u % clients), ≥ 1.
    pub clients: u32,
    /// Server hosts to choose from, ≥ 1.
    pub servers: u32,
    pub tables: MahTables,
    pub server_choice: ServerChoice,
    /// Concurrent connections per user for secondary files, ≥ 1 (seed 000: 2).
    pub max_parallel: u32,
    /// Think times are clipped at this many seconds (seed 000: 600 s).
    pub think_cap_s: f64,
    /// Which replies come from the primary table.
    pub primary_replies: PrimaryReplies,
    /// Think before the first page on a newly chosen server (Mah: true; thesis: false).
    pub think_on_server_change: bool,
}

impl MahConfig {
    /// Mah's model with seed 000's concurrency and clip: uniform servers, 2 parallel connections,
    /// think clipped at 600 s, neither thesis rule.
    pub fn new(users: u32, clients: u32, servers: u32) -> MahConfig {
        MahConfig {
            users,
            clients,
            servers,
            tables: MahTables::mah97(),
            server_choice: ServerChoice::Uniform,
            max_parallel: 2,    // seed 000 §3.4: up to 2 connections per browser
            think_cap_s: 600.0, // seed 000 §3.4.4: think time capped at 10 minutes
            primary_replies: PrimaryReplies::FirstOfPage, // Mah: the first file of a page
            think_on_server_change: true, // Mah/GloMoSim: think before every page
        }
    }

    /// Check every parameter; the reason starts with the field name.
    pub fn validate(&self) -> Result<(), String> {
        for (name, n) in [
            ("users", self.users),
            ("clients", self.clients),
            ("servers", self.servers),
            ("max_parallel", self.max_parallel),
        ] {
            if n == 0 {
                return Err(format!("{name} must be ≥ 1, got 0"));
            }
        }
        if !(self.think_cap_s.is_finite() && self.think_cap_s > 0.0) {
            return Err(format!(
                "think_cap must be > 0 seconds, got {}",
                self.think_cap_s
            ));
        }
        if let ServerChoice::Zipf { exponent } = self.server_choice {
            if !(exponent.is_finite() && exponent >= 0.0) {
                return Err(format!(
                    "zipf_exponent must be a finite number ≥ 0, got {exponent}"
                ));
            }
        }
        let t = &self.tables;
        for (name, c) in [
            ("primary_request", &t.primary_request),
            ("secondary_request", &t.secondary_request),
            ("primary_reply", &t.primary_reply),
            ("secondary_reply", &t.secondary_reply),
            ("files_per_page", &t.files_per_page),
            ("pages_per_server", &t.pages_per_server),
            ("think", &t.think_s),
        ] {
            c.validate().map_err(|e| format!("tables.{name}: {e}"))?;
        }
        for (name, c) in [
            ("files_per_page", &t.files_per_page),
            ("pages_per_server", &t.pages_per_server),
        ] {
            if c.points.first().is_some_and(|&(v, _)| v < 1.0) {
                return Err(format!("tables.{name}: counts must be ≥ 1"));
            }
        }
        Ok(())
    }

    /// Mean reply bytes per request (payload, before rounding): E[primaries per page] from the
    /// primary table, the rest from the secondary table. Primaries per page: 1 (Mah);
    /// E[min(F, 2)] = 2 − P(F = 1) (first two of a page); 1 + P(F ≥ 2)/E[C] (first two of a
    /// run: one extra primary per run, when its first page has a second file).
    pub fn mean_reply_bytes(&self) -> f64 {
        let t = &self.tables;
        let f = step_mean(&t.files_per_page.points);
        let p1 = t
            .files_per_page
            .points
            .first()
            .map_or(0.0, |&(v, c)| if v <= 1.0 { c } else { 0.0 });
        let primaries = match self.primary_replies {
            PrimaryReplies::FirstOfPage => 1.0,
            PrimaryReplies::FirstTwoOfPage => 2.0 - p1,
            PrimaryReplies::FirstTwoOfRun => {
                1.0 + (1.0 - p1) / step_mean(&t.pages_per_server.points)
            }
        };
        (primaries * t.primary_reply.mean() + (f - primaries) * t.secondary_reply.mean()) / f
    }

    /// Mean think time per page in seconds, E[min(T, cap)], exact for the interpolated table.
    pub fn mean_clipped_think_s(&self) -> f64 {
        clipped_mean(&self.tables.think_s.points, self.think_cap_s)
    }
}

/// E[min(X, cap)] for the piecewise-linear CDF `points`.
fn clipped_mean(points: &[(f64, f64)], cap: f64) -> f64 {
    let Some(&(v0, c0)) = points.first() else {
        return 0.0;
    };
    let mut m = c0 * v0.min(cap);
    for w in points.windows(2) {
        let ((va, ca), (vb, cb)) = (w[0], w[1]);
        let mass = cb - ca;
        if mass <= 0.0 {
            continue;
        }
        if vb <= cap {
            m += mass * 0.5 * (va + vb);
        } else if va >= cap {
            m += mass * cap;
        } else {
            // Uniform on [va, vb]: the part below cap has its midpoint; the rest sits at cap.
            let f = (cap - va) / (vb - va);
            m += mass * (f * 0.5 * (va + cap) + (1.0 - f) * cap);
        }
    }
    let &(vn, cn) = points.last().expect("non-empty");
    m + (1.0 - cn).max(0.0) * vn.min(cap)
}

/// Mean of a count table sampled by steps: Σ vᵢ·(cᵢ − cᵢ₋₁).
pub(crate) fn step_mean(points: &[(f64, f64)]) -> f64 {
    let mut prev = 0.0;
    points
        .iter()
        .map(|&(v, c)| {
            let m = v * (c - prev);
            prev = c;
            m
        })
        .sum()
}

/// A count drawn exactly from a count table: the smallest value whose cdf exceeds u.
pub(crate) fn step_sample(points: &[(f64, f64)], u: f64) -> f64 {
    let i = points
        .partition_point(|&(_, c)| c <= u)
        .min(points.len() - 1);
    points[i].0
}

#[derive(Clone, Debug, Default)]
struct User {
    server: u32,
    /// Pages still to fetch from `server` (including the current one).
    pages_left: u32,
    /// Page counter (the current page's number).
    page: u32,
    /// Files issued since the current server was chosen.
    run_issued: u32,
    files: u32,
    issued: u32,
    in_flight: u32,
    /// A page is in progress (between its start and its last reply).
    active: bool,
}

#[derive(Clone, Debug)]
pub(super) struct Mah {
    cfg: MahConfig,
    users: Vec<User>,
    /// Users waiting to start their next page, earliest (then lowest user) first.
    pending: BinaryHeap<Reverse<(SimTime, u32)>>,
    /// Zipf cumulative weights (normalised), if Zipf.
    zipf_cdf: Vec<f64>,
}

impl Mah {
    pub(super) fn new(cfg: MahConfig) -> Self {
        let zipf_cdf = match cfg.server_choice {
            ServerChoice::Uniform => Vec::new(),
            ServerChoice::Zipf { exponent } => {
                let w: Vec<f64> = (1..=cfg.servers)
                    .map(|i| 1.0 / units::math::powf(i as f64, exponent))
                    .collect();
                let total: f64 = w.iter().sum();
                let mut acc = 0.0;
                w.iter()
                    .map(|x| {
                        acc += x / total;
                        acc
                    })
                    .collect()
            }
        };
        Mah {
            users: vec![User::default(); cfg.users as usize],
            pending: BinaryHeap::with_capacity(cfg.users as usize),
            zipf_cdf,
            cfg,
        }
    }

    pub(super) fn start(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        let mean_think = self.cfg.mean_clipped_think_s();
        for u in 0..self.cfg.users {
            let offset = SimDuration::from_secs_f64(mean_think * unit(rng));
            if let Some(t) = later(now, offset) {
                self.pending.push(Reverse((t, u)));
            }
        }
        self.emit_due(now, rng, out);
    }

    pub(super) fn next_deadline(&self) -> Option<SimTime> {
        self.pending.peek().map(|Reverse((t, _))| *t)
    }

    pub(super) fn emit_due(&mut self, now: SimTime, rng: &mut Rng, out: &mut Vec<Request>) {
        while let Some(&Reverse((t, u))) = self.pending.peek() {
            if t > now {
                break;
            }
            self.pending.pop();
            self.begin_page(u, rng, out);
        }
    }

    fn choose_server(&self, rng: &mut Rng) -> u32 {
        match self.cfg.server_choice {
            ServerChoice::Uniform => rng.gen_range(0..self.cfg.servers),
            ServerChoice::Zipf { .. } => {
                let u = unit(rng);
                let i = self.zipf_cdf.partition_point(|&c| c <= u);
                (i as u32).min(self.cfg.servers - 1)
            }
        }
    }

    fn begin_page(&mut self, u: u32, rng: &mut Rng, out: &mut Vec<Request>) {
        if self.users[u as usize].pages_left == 0 {
            let server = self.choose_server(rng);
            let c = step_sample(&self.cfg.tables.pages_per_server.points, unit(rng));
            let user = &mut self.users[u as usize];
            user.server = server;
            user.pages_left = (c as u32).max(1);
            user.run_issued = 0;
        }
        let f = step_sample(&self.cfg.tables.files_per_page.points, unit(rng));
        let user = &mut self.users[u as usize];
        user.page += 1;
        user.files = (f as u32).max(1);
        user.issued = 0;
        user.in_flight = 0;
        user.active = true;
        self.issue(u, rng, out);
    }

    /// Open the user's next file of the current page.
    fn issue(&mut self, u: u32, rng: &mut Rng, out: &mut Vec<Request>) {
        let t = &self.cfg.tables;
        let user = &self.users[u as usize];
        let k = user.issued;
        let req_table = if k == 0 {
            &t.primary_request
        } else {
            &t.secondary_request
        };
        let primary_reply = k == 0
            || match self.cfg.primary_replies {
                PrimaryReplies::FirstOfPage => false,
                PrimaryReplies::FirstTwoOfPage => k == 1,
                PrimaryReplies::FirstTwoOfRun => user.run_issued == 1,
            };
        let reply_table = if primary_reply {
            &t.primary_reply
        } else {
            &t.secondary_reply
        };
        let request = request_bytes(inverse_cdf(&req_table.points, unit(rng)));
        let response = response_bytes(inverse_cdf(&reply_table.points, unit(rng)));
        let page = ((u as u64) << 32) | user.page as u64;
        out.push(Request {
            user: u,
            client: u % self.cfg.clients,
            server: user.server,
            request_bytes: request,
            response_bytes: response,
            kind: FlowKind::Http,
            page,
            server_delay: SimDuration::ZERO,
            more: Vec::new(),
            box_rtt: None,
        });
        let user = &mut self.users[u as usize];
        user.issued += 1;
        user.run_issued += 1;
        user.in_flight += 1;
    }

    pub(super) fn on_response_complete(
        &mut self,
        now: SimTime,
        u: u32,
        rng: &mut Rng,
        out: &mut Vec<Request>,
    ) {
        let max_parallel = self.cfg.max_parallel;
        let Some(user) = self.users.get_mut(u as usize) else {
            return;
        };
        if !user.active || user.in_flight == 0 {
            return; // stale or duplicate notification
        }
        // The primary runs alone, so its completion is the first and releases the secondaries.
        user.in_flight -= 1;
        while self.users[u as usize].issued < self.users[u as usize].files
            && self.users[u as usize].in_flight < max_parallel
        {
            self.issue(u, rng, out);
        }
        let user = &mut self.users[u as usize];
        if user.in_flight > 0 || user.issued < user.files {
            return;
        }
        // Page complete.
        user.active = false;
        user.pages_left -= 1;
        let changing_server = user.pages_left == 0;
        if changing_server && !self.cfg.think_on_server_change {
            self.begin_page(u, rng, out);
            return;
        }
        let think =
            inverse_cdf(&self.cfg.tables.think_s.points, unit(rng)).min(self.cfg.think_cap_s);
        if let Some(t) = later(now, SimDuration::from_secs_f64(think)) {
            self.pending.push(Reverse((t, u)));
        }
        self.emit_due(now, rng, out);
    }
}
