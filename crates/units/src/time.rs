//! Simulated time: integer nanoseconds, never floating point (STYLE.md §6).
//!
//! Adding to a time or a duration saturates at `MAX` by design: an event at `SimTime::MAX` is
//! later than the end of any run (runs end by `limits::MAX_RUN`, 1e9 s, far inside the 584-year
//! clock), so it simply never happens; nothing panics and nothing wraps around. Subtracting a
//! later time still panics: time going backwards is an engine bug, not an input.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimTime {
    /// The start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// Later than any event of any run.
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    /// Nanoseconds since the start.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start, as f64 (for reporting only; never for the clock).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time elapsed since `earlier`; zero if `earlier` is later (saturating).
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    /// Checked addition: `None` on overflow.
    pub fn checked_add(self, d: SimDuration) -> Option<SimTime> {
        self.0.checked_add(d.0).map(SimTime)
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1_000_000_000)
    }
    /// From seconds as f64, rounded to the nearest nanosecond; negative or NaN become zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            SimDuration(0)
        } else if s >= u64::MAX as f64 * 1e-9 {
            SimDuration(u64::MAX)
        } else {
            SimDuration((s * 1e9).round() as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Multiply by an integer, saturating at `MAX`.
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    /// Saturates at `SimTime::MAX` (never reached by a run: see the module doc).
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        *self = *self + d;
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Panics if `rhs` is later: time never goes backwards.
    fn sub(self, rhs: SimTime) -> SimDuration {
        SimDuration(self.0.checked_sub(rhs.0).expect("SimTime went backwards"))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    /// Saturates at `SimDuration::MAX`.
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.checked_sub(d.0).expect("negative SimDuration"))
    }
}

impl fmt::Display for SimTime {
    /// Seconds with nanosecond precision, e.g. `1.500000000s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{:09}s",
            self.0 / 1_000_000_000,
            self.0 % 1_000_000_000
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_agree() {
        assert_eq!(SimTime::from_millis(1500), SimTime::from_micros(1_500_000));
        assert_eq!(
            SimDuration::from_secs_f64(0.079),
            SimDuration::from_millis(79)
        );
        assert_eq!(format!("{}", SimTime::from_millis(1500)), "1.500000000s");
    }

    #[test]
    fn addition_saturates_instead_of_wrapping() {
        let near_end = SimTime(u64::MAX - 5);
        assert_eq!(near_end + SimDuration(3), SimTime(u64::MAX - 2));
        assert_eq!(near_end + SimDuration(6), SimTime::MAX);
        assert_eq!(near_end + SimDuration::MAX, SimTime::MAX);
        let mut t = SimTime::from_secs(1);
        t += SimDuration::MAX;
        assert_eq!(t, SimTime::MAX);
        assert_eq!(SimDuration::MAX + SimDuration(1), SimDuration::MAX);
        assert_eq!(
            SimDuration::from_secs(1) + SimDuration::from_millis(5),
            SimDuration::from_millis(1005)
        );
    }

    #[test]
    #[should_panic(expected = "backwards")]
    fn subtraction_backwards_panics() {
        let _ = SimTime::from_secs(1) - SimTime::from_secs(2);
    }
}
