//! Placeholder; the engine loop is being written.
use crate::config::Experiment;
use crate::output::{RunOutput, SimError};
use units::SimTime;

/// Run `exp` to completion. `progress(now, end)` is called about every simulated second.
pub fn run(_exp: &Experiment, _progress: &mut dyn FnMut(SimTime, SimTime)) -> Result<RunOutput, SimError> {
    unimplemented!()
}
