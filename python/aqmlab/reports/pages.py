"""Page (document) response times of browsing-user workloads (Mah, seed 000 §3.4).

Every request of a page carries the page's id in the `page` column of the requests table
(0 = not part of a page). A page's response time runs from the first request's first SYN to the
last byte of its last reply: max(end_ns) − min(start_ns) over its requests. A page counts as
complete only if every one of its requests completed, and as measured only if its first request
started at or after the warm-up (the rule the run summary applies to single requests).
"""

from __future__ import annotations

import pandas as pd


def page_times(requests: pd.DataFrame, warmup_ns: int = 0) -> pd.DataFrame:
    """One row per page: `workload`, `page`, `files` (requests), `start_ns`, `end_ns`,
    `response_bytes` (sum), `completed` (all requests completed), `page_rt_ms`.
    Only pages whose first request started at or after `warmup_ns` (nanoseconds)."""
    cols = ["workload", "page", "files", "start_ns", "end_ns", "response_bytes", "completed", "page_rt_ms"]
    paged = requests[requests["page"] != 0]
    if paged.empty:
        return pd.DataFrame({c: pd.Series(dtype="int64") for c in cols}).astype(
            {"completed": "bool", "page_rt_ms": "float64"}
        )
    g = paged.groupby(["workload", "page"], sort=True)
    out = g.agg(
        files=("id", "size"),
        start_ns=("start_ns", "min"),
        end_ns=("end_ns", "max"),
        response_bytes=("response_bytes", "sum"),
        completed=("completed", "all"),
    ).reset_index()
    out = out[out["start_ns"] >= warmup_ns].reset_index(drop=True)
    out["page_rt_ms"] = (out["end_ns"] - out["start_ns"]) / 1e6
    return out[cols]
