//! The progress bar of `aqmlab run` in simulated seconds, drawn by the core (`indicatif`) when
//! Python passes `progress=True`, so a single run imports no Python progress library (tqdm
//! took ≈ 50 ms to import, ~6 % of a quickstart run). It shows what the tqdm bar showed:
//!
//! `droptail:  45%|█████████▌           | 297/660 sim s [00:00:01<00:00:01, 612.3 sim s/s]`
//!
//! (variant, percentage, bar, simulated seconds done / to do, elapsed, ETA, simulated seconds
//! per wall-clock second). It is drawn on stderr only when stderr is a terminal and `TERM` is
//! set and not `dumb` (indicatif's default, as cargo and pip do), at most 20 times a second;
//! otherwise it is hidden and costs a few atomic operations per simulated second. The bar is
//! created at the first progress call (when the end is known) and left in its last state with
//! the cursor on a new line when dropped: at the end of a run, on an error, or on Ctrl-C.
//!
//! A run whose set-up (the route table of a large topology, `sim::budget::estimate`) takes a
//! second or more shows a set-up line first (`SimBar::setting_up`: spinner, what, elapsed),
//! replaced by the bar at the first simulated second.
//!
//! Positions are counted in simulated milliseconds, so that runs shorter than a second still
//! move (the text shows whole seconds, as tqdm's did).
//!
//! Validation: python/tests/test_progress_bar.py (under a pseudo-terminal the bar reaches
//! `N/N sim s`; a 5,042-node set-up has its line first; a pipe gets no bar; `aqmlab run`
//! imports no tqdm).

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::fmt::Write;
use std::io::Write as _;
use units::SimTime;

/// The bar's layout: tqdm's `{desc}: {percentage}%|{bar}| {n}/{total} sim s [{elapsed}<{remaining},
/// {rate}]` in indicatif's template language; `sim`, `end` and `rate` are the keys below.
const TEMPLATE: &str =
    "{prefix}: {percent:>3}%|{wide_bar}| {sim}/{end} sim s [{elapsed_precise}<{eta_precise}, {rate}]";

/// Eighth-block characters, full to empty, as tqdm draws a bar in a UTF-8 terminal.
const BAR_CHARS: &str = "█▉▊▋▌▍▎▏ ";

/// Simulated milliseconds per bar position.
const MS_PER_S: f64 = 1000.0;

/// A `SimTime` as a bar position (whole simulated milliseconds).
fn position(t: SimTime) -> u64 {
    t.as_nanos() / 1_000_000
}

/// Simulated seconds done, whole.
fn sim_key(state: &ProgressState, w: &mut dyn Write) {
    let _ = write!(w, "{:.0}", state.pos() as f64 / MS_PER_S);
}

/// Simulated seconds of the whole run, whole.
fn end_key(state: &ProgressState, w: &mut dyn Write) {
    let _ = write!(w, "{:.0}", state.len().unwrap_or(0) as f64 / MS_PER_S);
}

/// Simulated seconds per wall-clock second (indicatif's smoothed rate).
fn rate_key(state: &ProgressState, w: &mut dyn Write) {
    let _ = write!(w, "{:.1} sim s/s", state.per_sec() / MS_PER_S);
}

/// The set-up line's layout: the variant, a spinner, what is being set up and the elapsed time.
const SETUP_TEMPLATE: &str = "{prefix}: {spinner} {msg} [{elapsed_precise}]";

/// A progress bar in simulated time for one variant (see the module doc).
pub(crate) struct SimBar {
    name: String,
    bar: Option<ProgressBar>,
    /// The set-up line shown before the first `update` (`setting_up`), if any.
    setup: Option<ProgressBar>,
}

impl SimBar {
    /// A bar for the variant `name`, drawn from the first `update` on.
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            bar: None,
            setup: None,
        }
    }

    /// Show `message` with a spinner and the elapsed time (redrawn every 200 ms by indicatif's
    /// ticker thread) until the first `update`: the set-up of a large topology takes a minute
    /// or more before the first event (issue 30: 90 s without a word).
    pub(crate) fn setting_up(&mut self, message: String) {
        let style = ProgressStyle::with_template(SETUP_TEMPLATE).expect("the template is valid");
        let line = ProgressBar::new_spinner()
            .with_style(style)
            .with_prefix(self.name.clone())
            .with_message(message);
        line.enable_steady_tick(std::time::Duration::from_millis(200));
        self.setup = Some(line);
    }

    /// The run is at `now` of `end` (the end may move earlier: a run stopped after a number of
    /// responses reports its stop time as the end).
    pub(crate) fn update(&mut self, now: SimTime, end: SimTime) {
        if let Some(line) = self.setup.take() {
            line.finish_and_clear();
        }
        let len = position(end);
        let bar = self.bar.get_or_insert_with(|| {
            let style = ProgressStyle::with_template(TEMPLATE)
                .expect("the bar template is valid")
                .progress_chars(BAR_CHARS)
                .with_key("sim", sim_key)
                .with_key("end", end_key)
                .with_key("rate", rate_key);
            ProgressBar::new(len)
                .with_style(style)
                .with_prefix(self.name.clone())
        });
        if bar.length() != Some(len) {
            bar.set_length(len);
        }
        bar.set_position(position(now).min(len));
    }
}

impl Drop for SimBar {
    /// Leave the bar in its last state (not moved to 100 %) and the cursor on the next line
    /// (indicatif leaves it after the bar, where the next output would continue the line).
    fn drop(&mut self) {
        if let Some(line) = self.setup.take() {
            line.abandon();
            if !line.is_hidden() {
                let _ = std::io::stderr().write_all(b"\n");
            }
        }
        if let Some(bar) = self.bar.take() {
            bar.abandon();
            if !bar.is_hidden() {
                let _ = std::io::stderr().write_all(b"\n");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_parses() {
        assert!(ProgressStyle::with_template(TEMPLATE).is_ok());
    }

    #[test]
    fn keys_show_whole_simulated_seconds_and_the_rate() {
        let bar = ProgressBar::hidden();
        bar.set_length(660_000);
        bar.set_position(21_600);
        let mut s = String::new();
        bar.update(|state| {
            sim_key(state, &mut s);
            s.push('/');
            end_key(state, &mut s);
        });
        assert_eq!(s, "22/660");
    }

    #[test]
    fn sub_second_runs_move() {
        assert_eq!(position(SimTime::from_nanos(1_999_999)), 1);
        assert_eq!(position(SimTime::from_nanos(660_000_000_000)), 660_000);
    }
}
