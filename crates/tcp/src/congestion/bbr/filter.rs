//! Windowed maximum over a sliding window of "time" (BBR: packet-timed round trips), kept in
//! three samples as Kathleen Nichols' algorithm does (Linux `lib/win_minmax.c`, used by
//! `tcp_bbr.c` for the bottleneck-bandwidth filter): the best, second-best and third-best
//! values of successive sub-windows, so the estimate ages out in bounded time and memory.
//!
//! Validation: unit tests below (`max_by_hand`, `a_new_max_replaces_everything`).

/// One (time, value) sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// Running maximum of `v` over the last `window` units of `t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaxFilter {
    s: [Sample; 3],
}

impl MaxFilter {
    /// The current windowed maximum (0 before any sample).
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forget everything; the maximum becomes `v` at time `t`.
    pub fn reset(&mut self, t: u64, v: u64) {
        self.s = [Sample { t, v }; 3];
    }

    /// Add the measurement `v` taken at time `t` (non-decreasing) and return the maximum over
    /// the window `window`.
    pub fn update(&mut self, window: u64, t: u64, v: u64) -> u64 {
        let new = Sample { t, v };
        if v >= self.s[0].v || t - self.s[2].t > window {
            // A new best, or nothing left in the window: start over.
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].v {
            self.s[1] = new;
            self.s[2] = new;
        } else if v >= self.s[2].v {
            self.s[2] = new;
        }
        self.age(window, new)
    }

    /// Move the samples along as the best one ages out of the window, and refresh the second
    /// and third when a quarter and a half of the window have passed without new ones.
    fn age(&mut self, window: u64, new: Sample) -> u64 {
        let dt = new.t - self.s[0].t;
        if dt > window {
            self.s = [self.s[1], self.s[2], new];
            if new.t - self.s[0].t > window {
                self.s = [self.s[1], self.s[2], new];
            }
        } else if self.s[1].t == self.s[0].t && dt > window / 4 {
            self.s[1] = new;
            self.s[2] = new;
        } else if self.s[2].t == self.s[1].t && dt > window / 2 {
            self.s[2] = new;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_by_hand() {
        // Window 10 rounds. 100 at round 0 stays the maximum through round 10 and expires at
        // round 11, when the best later sample (70 at round 3, kept as the quarter-window
        // second-best) takes over; by round 20 only 40 (round 11) and 10 are left in (10, 20].
        let mut f = MaxFilter::default();
        assert_eq!(f.update(10, 0, 100), 100);
        assert_eq!(f.update(10, 1, 50), 100);
        assert_eq!(f.update(10, 3, 70), 100); // dt 3 > 10/4: second and third := 70
        assert_eq!(f.update(10, 6, 60), 100); // dt 6 > 10/2: third := 60
        assert_eq!(f.update(10, 10, 20), 100);
        assert_eq!(f.update(10, 11, 40), 70);
        assert_eq!(f.update(10, 20, 10), 40);
    }

    #[test]
    fn a_new_max_replaces_everything() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 100);
        f.update(10, 3, 70);
        assert_eq!(f.update(10, 4, 120), 120);
        // Nothing older survives: 120 ages out after round 14, then the next samples alone.
        assert_eq!(f.update(10, 14, 5), 120);
        assert_eq!(f.update(10, 15, 7), 7);
    }
}
