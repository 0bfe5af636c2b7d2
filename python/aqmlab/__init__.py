"""aqmlab: a laboratory for router queue management under web traffic.

`run()` runs a scenario file's variants through the Rust core and returns a `RunResult` per
variant (summary dict + pandas DataFrames); `write_run()` / `load_run()` store and read run
directories; the `aqmlab` command (aqmlab.cli) runs scenarios and draws reports.
`run()` takes a scenario file, its TOML text or the document as a dict, and resolves
`load = …` in a [[workload]] from the calibration that `aqmlab.engine.calibrate` fits and caches
(`calibrate.calibrate()`).
`run_sweep()` runs the `[sweep]` of a scenario (aqmlab.sweeps.run; expanded by the core) and
`load_sweep()` reads its table back as a DataFrame. `params("red")` (or `params("tcp")`) lists a
model's keys with units, defaults, ranges, sources and default search ranges, as the core declares
them (aqmlab.engine.model_params). `tune()` searches the `[tune]` parameters of a scenario with
Optuna and returns the trials (aqmlab.tuning.search; the table is checked by the core);
`load_tune()` reads them back.
"""

from __future__ import annotations

import importlib

from aqmlab._core import ScenarioError, SimError

# Everything else is imported when first used (PEP 562), so that `aqmlab run` and
# `import aqmlab` do not load pandas, pyarrow, scipy or matplotlib before they are needed.
_LAZY = {
    "calibrate": ("aqmlab.engine.calibrate", None),
    "RunResult": ("aqmlab.storage.record", "RunResult"),
    "run": ("aqmlab.engine.api", "run"),
    "variants": ("aqmlab.engine.api", "variants"),
    "load_run": ("aqmlab.storage.run_dir", "load_run"),
    "write_run": ("aqmlab.storage.run_dir", "write_run"),
    "page_times": ("aqmlab.reports.pages", "page_times"),
    "params": ("aqmlab.engine.model_params", "params"),
    "load_sweep": ("aqmlab.sweeps.run", "load_sweep"),
    "run_sweep": ("aqmlab.sweeps.run", "run_sweep"),
    "tune": ("aqmlab.tuning.search", "tune"),
    "load_tune": ("aqmlab.tuning.store", "load_tune"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    return value if attr is None else getattr(value, attr)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "RunResult", "ScenarioError", "SimError", "calibrate", "load_run", "page_times", "params", "run",
    "variants",
    "write_run", "load_sweep", "run_sweep", "load_tune", "tune",
]  # fmt: skip
