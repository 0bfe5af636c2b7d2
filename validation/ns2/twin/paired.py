"""Paired twins: aqmlab replays the very connections an ns-2 run drew (compare.py --paired).

Two PackMime generators with different random streams draw different workloads, and with
response sizes of tail index ≈ 1.23 one 300-s window of one seed differs from another by ±15 %
in offered load: an unpaired twin cannot tell an engine difference of a few percent from the
draw. Here ns-2 runs first with `seed001.tcl -log_inputs 1`, which logs every connection's
inputs; this module turns them into one trace per generator (the columns of aqmlab's `replay`
workload, crates/traffic/src/workload/replay.rs) and the twin's aqmlab scenario into one that
replays them. Both simulators then carry the same connections, each with the same start time
(ns-2's, to the nanosecond), request and response sizes, server delay and DelayBox RTTs, so
every remaining difference is the engines' (TCP, queue, DelayBox rules), and the two can be
compared connection by connection.

Where each input comes from (seed001.tcl's header has the files):
- start: `starts.dat` (fid, the time PackMime opened the connection); generator d = fid mod 2,
  connection n = fid div 2.
- request and response bytes: line n of `req_{fwd,rev}.dat` (PackMime's samples file, one
  line per connection in opening order; its start column must agree with `starts.dat`).
- server delay: PackMime debug level 2, "server NAME (n)> waiting D s before responding"
  (µs resolution), NAME → generator from `apps.dat`. ns-2 draws it when the whole request has
  arrived; a connection whose request never arrived gets 0 (it cannot finish on either side).
- DelayBox RTTs: `delay_L.dat`, `delay_R.dat`, each box's first flow entry for the fid
  ("src dst fid delay_ms", the one-way hold, µs resolution); the client box of generator 0 is
  at L (the router of its clients' host C) and its server box at R; generator 1 the other way
  round. RTT = 2 × the hold. A connection whose SYN never reached a box gets 0 there.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.engine.document import dumps_toml

DIRS = ("fwd", "rev")
# Generator d's (client box, server box) delay files.
BOXES = {0: ("delay_L.dat", "delay_R.dat"), 1: ("delay_R.dat", "delay_L.dat")}
WAITING = re.compile(r"^server (\S+) \((\d+)\)> waiting (\S+) s before responding")
COLUMNS = ["start_s", "request_bytes", "response_bytes", "server_delay_s", "client_rtt_s",
           "server_rtt_s"]  # fmt: skip


class PairedError(RuntimeError):
    pass


def _box_delays(path: Path) -> dict[int, float]:
    """fid → one-way hold in seconds, the first entry of each fid."""
    out: dict[int, float] = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 4:
                out.setdefault(int(p[2]), float(p[3]) / 1000.0)
    return out


def _server_delays(stderr_path: Path, apps_path: Path) -> dict[tuple[int, int], float]:
    """(generator, n) → server delay in seconds, from the debug log."""
    owner = {}
    with open(apps_path) as f:
        for line in f:
            p = line.split()
            if len(p) == 3 and p[0] == "server-app":
                owner[p[1]] = int(p[2])
    out: dict[tuple[int, int], float] = {}
    with open(stderr_path, errors="replace") as f:
        for line in f:
            if not line.startswith("server "):
                continue
            m = WAITING.match(line)
            if m:
                if m.group(1) not in owner:
                    raise PairedError(f"{stderr_path}: server application {m.group(1)} not in {apps_path}")
                out[(owner[m.group(1)], int(m.group(2)))] = float(m.group(3))
    return out


def ns2_traces(out: Path, stderr_path: Path) -> tuple[dict[int, pd.DataFrame], dict]:
    """Per generator, the trace of every connection ns-2 opened (columns COLUMNS, plus n), and
    counts of the inputs that had to be filled in (see the module doc)."""
    for f in ("starts.dat", "apps.dat", "delay_L.dat", "delay_R.dat"):
        if not (out / f).exists():
            raise PairedError(f"{out / f}: missing (was seed001.tcl run with -log_inputs 1?)")
    starts = np.loadtxt(out / "starts.dat", ndmin=2)
    sdelay = _server_delays(stderr_path, out / "apps.dat")
    boxes = {f: _box_delays(out / f) for f in ("delay_L.dat", "delay_R.dat")}
    traces, filled = {}, {"server_delay": 0, "client_rtt": 0, "server_rtt": 0}
    for d, name in enumerate(DIRS):
        fid = starts[:, 0].astype(np.int64)
        mine = starts[fid % 2 == d]
        mine = mine[np.argsort(mine[:, 0])]
        n = (mine[:, 0].astype(np.int64) - d) // 2
        if not np.array_equal(n, np.arange(len(n))):
            raise PairedError(f"{out}/starts.dat: generator {d}'s connections are not numbered 0, 1, 2, …")
        req = np.loadtxt(out / f"req_{name}.dat", usecols=(0, 1, 2), ndmin=2)
        k = min(len(req), len(n))
        if k < len(n) - 1:
            raise PairedError(f"{out}/req_{name}.dat has {len(req)} lines for {len(n)} connections")
        if np.max(np.abs(req[:k, 0] - mine[:k, 1])) > 1e-6:
            raise PairedError(f"{out}: req_{name}.dat and starts.dat disagree on start times")
        cbox, sbox = (boxes[f] for f in BOXES[d])
        rows = []
        for i in range(k):
            f = 2 * i + d
            sd = sdelay.get((d, i))
            cr, sr = cbox.get(f), sbox.get(f)
            filled["server_delay"] += sd is None
            filled["client_rtt"] += cr is None
            filled["server_rtt"] += sr is None
            rows.append((i, mine[i, 1], int(req[i, 1]), int(req[i, 2]), sd or 0.0,
                         2 * (cr or 0.0), 2 * (sr or 0.0)))  # fmt: skip
        df = pd.DataFrame(rows, columns=["n", *COLUMNS])
        # ns-2 sends a 0-byte request or response as 1 byte (packmime_HTTP.cc).
        df["request_bytes"] = df["request_bytes"].clip(lower=1)
        df["response_bytes"] = df["response_bytes"].clip(lower=1)
        traces[d] = df
    return traces, filled


def write_trace(df: pd.DataFrame, path: Path) -> None:
    """The trace as aqmlab's replay CSV (times to the nanosecond)."""
    with open(path, "w") as f:
        f.write("# connections of one ns-2 PackMime generator (validation/ns2/twin/paired.py)\n")
        f.write(",".join(COLUMNS) + "\n")
        for r in df.itertuples(index=False):
            f.write(f"{r.start_s:.9f},{r.request_bytes},{r.response_bytes},{r.server_delay_s:.9f},"
                    f"{r.client_rtt_s:.9f},{r.server_rtt_s:.9f}\n")  # fmt: skip


def replay_scenario(text: str, traces: list[Path]) -> str:
    """The twin's aqmlab scenario with each PackMime workload replaced, in order, by a replay of
    one trace (same placement; the trace's RTT columns replace its DelayBoxes)."""
    doc = tomllib.loads(text)
    wls = doc.get("workload", [])
    if len(wls) != len(traces) or any(w.get("kind") != "packmime" for w in wls):
        raise PairedError(f"expected {len(traces)} packmime workloads in the twin's scenario")
    new = []
    for w, p in zip(wls, traces, strict=True):
        new.append({"kind": "replay", "file": str(p)})
        if "direction" in w:
            new[-1]["direction"] = w["direction"]
    doc["workload"] = new
    head = "# Paired twin: the ns-2 run's own connections (validation/ns2/twin/paired.py)\n"
    return head + dumps_toml(doc)


def per_connection(traces: dict[int, pd.DataFrame], ns2_out: Path, requests: pd.DataFrame,
                   warmup_s: float) -> dict:  # fmt: skip
    """Connection-by-connection response times: ns-2 (PackMime's outfile, matched to its
    connection by generator, start time and sizes) against aqmlab (the replay's records,
    connection k of workload d = connection n = k). Connections started at or after the
    warm-up and complete in both."""
    diffs, only = [], {"ns-2": 0, "aqmlab": 0}
    for d, name in enumerate(DIRS):
        t = traces[d]
        rt = np.loadtxt(ns2_out / f"rt_{name}.dat", usecols=(0, 1, 2, 3), ndmin=2)
        start = rt[:, 0] - rt[:, 3] / 1000.0
        # Nearest trace start (the outfile has µs end times and ms response times to 3 places).
        idx = np.clip(np.searchsorted(t["start_s"].to_numpy(), start), 1, len(t) - 1)
        left = t["start_s"].to_numpy()[idx - 1]
        right = t["start_s"].to_numpy()[idx]
        idx = np.where(np.abs(start - left) <= np.abs(start - right), idx - 1, idx)
        ok = (np.abs(t["start_s"].to_numpy()[idx] - start) < 5e-6) & \
             (t["response_bytes"].to_numpy()[idx] == rt[:, 2])  # fmt: skip
        ns2 = pd.Series(rt[ok, 3], index=idx[ok])
        ns2 = ns2[~ns2.index.duplicated()]
        a = requests[(requests["workload"] == d)].sort_values("conn_id")
        a = a.reset_index(drop=True)
        done = a[a["completed"].astype(bool)]
        aq = pd.Series((done["end_ns"] - done["start_ns"]).to_numpy() / 1e6, index=done.index)
        after = set(np.nonzero(t["start_s"].to_numpy() >= warmup_s)[0])
        ns2 = ns2[[i in after for i in ns2.index]]
        aq = aq[[i in after for i in aq.index]]
        both = ns2.index.intersection(aq.index)
        diffs.append(aq[both].to_numpy() - ns2[both].to_numpy())
        only["ns-2"] += len(ns2.index.difference(aq.index))
        only["aqmlab"] += len(aq.index.difference(ns2.index))
    dd = np.concatenate(diffs)
    ad = np.abs(dd)
    return {
        "matched": int(len(dd)),
        "only_ns2": only["ns-2"],
        "only_aqmlab": only["aqmlab"],
        "pct_within_1ms": float(100 * np.mean(ad <= 1.0)) if len(dd) else float("nan"),
        "pct_within_10ms": float(100 * np.mean(ad <= 10.0)) if len(dd) else float("nan"),
        "median_abs_diff_ms": float(np.median(ad)) if len(dd) else float("nan"),
        "p90_abs_diff_ms": float(np.quantile(ad, 0.9)) if len(dd) else float("nan"),
        "mean_diff_ms": float(np.mean(dd)) if len(dd) else float("nan"),
        "pct_aqmlab_faster_by_10ms": float(100 * np.mean(dd < -10.0)) if len(dd) else float("nan"),
        "pct_aqmlab_slower_by_10ms": float(100 * np.mean(dd > 10.0)) if len(dd) else float("nan"),
    }
