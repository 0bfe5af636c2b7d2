"""aqmlab: a laboratory for router queue management under web traffic.

`run()` runs a scenario file's variants through the Rust core and returns a `RunResult` per
variant (summary dict + pandas DataFrames); `write_run()` / `load_run()` store and read run
directories; the `aqmlab` command (aqmlab.cli) runs scenarios and draws reports.
`aqmlab.calibrate` fits offered load against a workload's users/rate (`calibrate.calibrate()`)
and resolves `load = …` in a scenario's [[workload]] (`calibrate.run()`).
`run_sweep()` runs the `[sweep]` of a scenario (aqmlab.sweep, aqmlab.sweepspec) and
`load_sweep()` reads its table back as a DataFrame. `params("red")` (or `params("tcp")`) lists a
model's keys with units, defaults, ranges, sources and default search ranges, as the core declares
them (aqmlab.model_params). `tune()` searches the `[tune]` parameters of a scenario with Optuna
and returns the trials (aqmlab.tune, aqmlab.tunespec); `load_tune()` reads them back.
"""

from aqmlab import calibrate
from aqmlab._core import ScenarioError, SimError
from aqmlab.api import RunResult, run, variants
from aqmlab.io import load_run, write_run
from aqmlab.model_params import params
from aqmlab.pages import page_times
from aqmlab.sweep import load_sweep, run_sweep
from aqmlab.tune import load_tune, tune

__all__ = [
    "RunResult", "ScenarioError", "SimError", "calibrate", "load_run", "page_times", "params", "run",
    "variants",
    "write_run", "load_sweep", "run_sweep", "load_tune", "tune",
]  # fmt: skip
