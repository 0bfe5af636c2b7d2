"""aqmlab: a laboratory for router queue management under web traffic.

`run()` runs a scenario file's variants through the Rust core and returns a `RunResult` per
variant (summary dict + pandas DataFrames); `write_run()` / `load_run()` store and read run
directories; the `aqmlab` command (aqmlab.cli) runs scenarios and draws reports.
"""

from aqmlab._core import ScenarioError, SimError
from aqmlab.api import RunResult, run, variants
from aqmlab.io import load_run, write_run
from aqmlab.pages import page_times

__all__ = ["RunResult", "ScenarioError", "SimError", "load_run", "page_times", "run", "variants", "write_run"]
