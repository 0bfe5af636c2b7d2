"""Tuned parameter values as a reader sees them: searched durations are written into scenarios
in whole microseconds ("2500us", the core's `TuneParam.value`) and shown in milliseconds
(axes labelled "(ms)", cells "2.5 ms"); numbers with 4 significant digits (w_q = 0.002 must not
print as 0.00); choices as written."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pandas as pd


def duration_ms(v) -> float | None:
    """A searched duration ("2500us", whole µs) in ms (2.5); None for anything else."""
    if isinstance(v, str) and v.endswith("us") and v[:-2].isdigit():
        return int(v[:-2]) / 1000
    return None


def fmt_param(v) -> str:
    """A parameter value for tables and console lines: durations in ms, numbers to 4
    significant digits, "" for a missing value."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    ms = duration_ms(v)
    if ms is not None:
        return f"{ms:.4g} ms"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def numeric_column(x: pd.Series) -> pd.Series | None:
    """A parameter column as numbers: as is when numeric, searched durations in milliseconds;
    None for anything else (a choice)."""
    import numpy as np
    import pandas as pd

    if pd.api.types.is_numeric_dtype(x):
        return x
    v = x.dropna()
    if len(v) and all(duration_ms(a) is not None for a in v):
        return x.map(
            lambda a: np.nan if a is None or (isinstance(a, float) and math.isnan(a)) else duration_ms(a)
        )
    return None


def axis_label(name: str, x: pd.Series) -> str:
    """The axis label of parameter `name`: with " (ms)" when its values are durations."""
    import pandas as pd

    numeric = numeric_column(x)
    return f"{name} (ms)" if numeric is not None and not pd.api.types.is_numeric_dtype(x) else name
