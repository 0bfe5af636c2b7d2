//! Linux's RTO estimator (`rto = "linux"`): `tcp_rtt_estimator`, `tcp_set_rto` and
//! `tcp_bound_rto` of Linux 6.x (`net/ipv4/tcp_input.c`, `include/net/tcp.h`), in Linux's own
//! integer microseconds and scalings.
//!
//! State (Linux's names): `srtt_us` is SRTT × 8; `mdev_us` the smoothed |error| with gain 1/4,
//! kept so that it equals 4 × the mean deviation (RFC 6298's 4·RTTVAR); `mdev_max_us` the
//! largest `mdev_us` of the current round, reset to `tcp_rto_min` (here `min_rto`) when a round
//! ends; `rttvar_us` the RTO's variance term, which follows `mdev_max_us` up at once and down by
//! a quarter of the difference once per round; `rtt_seq` SND.NXT at the start of the round (a
//! round ends on a sample whose ACK took SND.UNA past it).
//!
//! First sample m: SRTT = m, mdev = 2m, rttvar = mdev_max = max(2m, rto_min). Later samples:
//! err = m − SRTT, SRTT += err/8; if err < 0 the mdev step |err| − mdev/4 is divided by 8 when
//! positive (Linux's Eifel-like damping: a falling RTT does not inflate the RTO), else mdev +=
//! err − mdev/4. RTO = SRTT + rttvar, so never below SRTT + rto_min (a constant 100 ms RTT
//! gives 300 ms, where RFC 6298's max(200 ms, SRTT + 4·RTTVAR) tends to 200 ms), rounded up to
//! whole ticks of `clock_granularity` (Linux's `usecs_to_jiffies`; the linux profile's 1 ms is
//! HZ = 1000) and capped at `max_rto` (`tcp_bound_rto`).
//!
//! Validation: unit tests below (`constant_rtt_gives_srtt_plus_rto_min`,
//! `scripted_samples_by_hand`), hand-computed from the rules above.

/// Linux's RTT state, microseconds, Linux's scalings (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinuxRtt {
    /// SRTT × 8, µs (`srtt_us`); 0 before the first sample.
    srtt8: u64,
    /// Smoothed deviation, 4 × the mean deviation, µs (`mdev_us`).
    mdev: u64,
    /// Largest `mdev` this round, at least rto_min, µs (`mdev_max_us`).
    mdev_max: u64,
    /// The RTO's variance term, at least rto_min, µs (`rttvar_us`).
    rttvar: u64,
    /// SND.NXT when the current round started (`rtt_seq`).
    rtt_seq: u64,
}

impl LinuxRtt {
    /// One RTT sample `m_us` (µs) from an ACK that left SND.UNA at `snd_una`, with SND.NXT
    /// (highest sequence sent) `snd_nxt`; `rto_min_us` is `tcp_rto_min`.
    pub fn on_sample(&mut self, m_us: u64, rto_min_us: u64, snd_una: u64, snd_nxt: u64) {
        let m = m_us as i64;
        if self.srtt8 == 0 {
            self.srtt8 = (m_us << 3).max(1);
            self.mdev = m_us << 1;
            self.rttvar = self.mdev.max(rto_min_us);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
            return;
        }
        let mut err = m - (self.srtt8 >> 3) as i64;
        let srtt8 = self.srtt8 as i64 + err;
        let quarter = (self.mdev >> 2) as i64;
        if err < 0 {
            err = -err - quarter;
            if err > 0 {
                err >>= 3;
            }
        } else {
            err -= quarter;
        }
        self.mdev = (self.mdev as i64 + err).max(0) as u64;
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if snd_una > self.rtt_seq {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max = rto_min_us;
        }
        self.srtt8 = srtt8.max(1) as u64;
    }

    /// Whether a sample has been taken.
    pub fn has_sample(&self) -> bool {
        self.srtt8 != 0
    }

    /// SRTT, µs (`srtt_us >> 3`).
    pub fn srtt_us(&self) -> u64 {
        self.srtt8 >> 3
    }

    /// The RTO's variance term `rttvar_us`, µs (RFC 6298's 4·RTTVAR).
    pub fn rttvar_us(&self) -> u64 {
        self.rttvar
    }

    /// `__tcp_set_rto`: SRTT + rttvar, µs, before the tick rounding and the cap.
    pub fn rto_us(&self) -> u64 {
        self.srtt_us() + self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTO_MIN: u64 = 200_000;

    #[test]
    fn constant_rtt_gives_srtt_plus_rto_min() {
        // 100 ms every time: SRTT 100 ms, mdev 200 ms then decaying by 3/4 per sample, rttvar
        // max(200, 200) = 200 ms and never lower (mdev_max restarts at rto_min each round):
        // RTO 300 ms after 1 sample and after 50 samples over 50 rounds.
        let mut r = LinuxRtt::default();
        r.on_sample(100_000, RTO_MIN, 1, 11);
        assert_eq!(
            (r.srtt_us(), r.rttvar_us(), r.rto_us()),
            (100_000, 200_000, 300_000)
        );
        for i in 1..50u64 {
            r.on_sample(100_000, RTO_MIN, 1 + 10 * i + 1, 11 + 10 * i);
        }
        assert_eq!(
            (r.srtt_us(), r.rttvar_us(), r.rto_us()),
            (100_000, 200_000, 300_000)
        );
        // 1 ms RTT: rttvar is rto_min, RTO 201 ms (RFC 6298 with min_rto 200 ms: 200 ms).
        let mut r = LinuxRtt::default();
        for i in 0..20u64 {
            r.on_sample(1_000, RTO_MIN, 2 + 10 * i, 11 + 10 * i);
        }
        assert_eq!(r.rto_us(), 201_000);
    }

    #[test]
    fn scripted_samples_by_hand() {
        // (sample ms, SND.UNA, SND.NXT) → SRTT·8, mdev, mdev_max, rttvar (µs):
        let mut r = LinuxRtt::default();
        // 1. 100 ms: SRTT 100 ms, mdev 200 ms, rttvar = mdev_max = 200 ms, rtt_seq 11; RTO 300.
        r.on_sample(100_000, RTO_MIN, 1, 11);
        assert_eq!(
            (r.srtt8, r.mdev, r.mdev_max, r.rttvar),
            (800_000, 200_000, 200_000, 200_000)
        );
        // 2. 500 ms, SND.UNA 5 ≤ 11 (same round): err 400 ms, SRTT 150 ms; mdev += 400 − 50 →
        //    550 ms, above mdev_max and rttvar: both 550 ms. RTO 150 + 550 = 700 ms.
        r.on_sample(500_000, RTO_MIN, 5, 21);
        assert_eq!(
            (r.srtt8, r.mdev, r.mdev_max, r.rttvar),
            (1_200_000, 550_000, 550_000, 550_000)
        );
        assert_eq!(r.rto_us(), 700_000);
        // 3. 100 ms, SND.UNA 12 > 11 (round ends): err −50 ms, SRTT·8 1 150 000 (143.75 ms);
        //    |err| − mdev/4 = 50 − 137.5 < 0, so mdev 462.5 ms; rttvar stays (mdev_max = rttvar),
        //    mdev_max back to 200 ms, rtt_seq 31. RTO 143.75 + 550 = 693.75 ms.
        r.on_sample(100_000, RTO_MIN, 12, 31);
        assert_eq!(
            (r.srtt8, r.mdev, r.mdev_max, r.rttvar),
            (1_150_000, 462_500, 200_000, 550_000)
        );
        assert_eq!(r.rto_us(), 693_750);
        // 4. 100 ms, SND.UNA 32 > 31 (round ends): err −43.75 ms, SRTT·8 1 106 250; mdev
        //    462.5 − 71.875 = 390.625 ms > mdev_max → 390.625; round end: rttvar −=
        //    (550 − 390.625)/4 truncated = 39.843 ms → 510.157 ms. RTO 138.281 + 510.157.
        r.on_sample(100_000, RTO_MIN, 32, 41);
        assert_eq!(
            (r.srtt8, r.mdev, r.mdev_max, r.rttvar),
            (1_106_250, 390_625, 200_000, 510_157)
        );
        assert_eq!(r.rto_us(), 648_438);
        // 5. 10 ms, SND.UNA 35 ≤ 41: err −128.281 ms; |err| − mdev/4 = 128.281 − 97.656 =
        //    30.625 ms > 0, damped to 30.625/8 = 3.828 ms: mdev 394.453 ms (mdev_max too);
        //    rttvar stays 510.157. RTO 122.246 + 510.157 = 632.403 ms.
        r.on_sample(10_000, RTO_MIN, 35, 51);
        assert_eq!(
            (r.srtt8, r.mdev, r.mdev_max, r.rttvar),
            (977_969, 394_453, 394_453, 510_157)
        );
        assert_eq!(r.rto_us(), 632_403);
    }
}
