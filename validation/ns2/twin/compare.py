"""Run seed 001 twins in ns-2.35 and in aqmlab and compare them (validation/ns2/README.md, section
"Seed 001 twins").

    .venv/bin/python validation/ns2/twin/compare.py [TWIN ...] [--seeds 1,2,3]
        [--warmup 120s] [--duration 300s] [--keep DIR] [--json FILE] [--definition FILE]

TWIN: names from twins.toml (`twins.py --list`; default: seed001_dt_80 seed001_dt_105); seeds
default to the definition's (1, 2, 3). For every twin and seed the ns-2 script
(seed001.tcl, options from twins.py) runs first, then `aqmlab run` on the twin's scenario with
the seed (and timing) replaced, one after the other. The printed table gives, per twin:

- responses: HTTP responses completed of the connections (both directions) whose client sent
  its first SYN at or after the warm-up; response time = from that first SYN to the arrival of
  the last response byte at the client. aqmlab: requests.parquet (`end_ns − start_ns`, rows with
  `completed` and `start_ns ≥ warm-up`). ns-2: PackMime's outfile, whose time runs from the
  client application's write (which makes Full-TCP send its SYN in the same instant) to the
  client application receiving the last byte; the start (end − response time) must be ≥ the
  warm-up. Responses still unfinished at the end count on neither side.
- p10 … p99 (nearest rank, seeds pooled), % of responses < 1 s (≤ 1 s, as the summary).
- loss fwd/rev: drops / (departures + drops) at the bottleneck queue of each direction over the
  measured window (forward = server → client of workload 0 = ns-2's R → L).
- utilization fwd/rev: bytes sent onto the bottleneck (IP packets with headers) / capacity.
- mean queue fwd/rev: packets waiting (not the one on the wire), sampled every 3 ms (aqmlab: the
  mean of its 100 ms means of those samples); mean packet: bytes / packets sent on the link.
- ECN marks fwd/rev: packets marked CE (ns-2: departures with CE and ECT).
- % conns with retx: connections started after the warm-up (finished or not) with at least one
  retransmission by either end (aqmlab: SYN, FIN or data retransmissions; ns-2: Full-TCP's
  nrexmitpack_ of the client or server agent) — the study's stand-in for "flows with drops".
- offered fwd/rev: response bytes of the connections started after the warm-up, Mb/s.
- KS: the two-sample Kolmogorov–Smirnov distance sup|F_ns2 − F_aqmlab| between the response-time
  distributions, per seed and with the seeds pooled, next to each simulator's own seed-to-seed
  distance (every pair of seeds; its noise floor).
Values with several seeds are "mean [min–max]".
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paired as pr  # noqa: E402
import twins as tw  # noqa: E402

DEFAULT_TWINS = ("seed001_dt_80", "seed001_dt_105")
DIRS = ("fwd", "rev")


class CompareError(RuntimeError):
    pass


@dataclass
class Measure:
    """What one simulator measured in one run (measured window only)."""

    sim: str
    seed: int
    rt_ms: np.ndarray = field(repr=False)
    started: int
    conns_with_retx: int
    departures: dict
    drops: dict
    early_drops: dict
    bytes: dict
    marks: dict
    mean_q: dict
    offered_bytes: dict
    measured_s: float
    wall_s: float

    def loss_pct(self, d: str) -> float:
        n = self.departures[d] + self.drops[d]
        return 100.0 * self.drops[d] / n if n else math.nan

    def utilization(self, d: str, rate_bps: int) -> float:
        return 8.0 * self.bytes[d] / (rate_bps * self.measured_s)

    def offered_mbps(self, d: str) -> float:
        return 8.0 * self.offered_bytes[d] / self.measured_s / 1e6


# --- statistics -----------------------------------------------------------------------------


def quantile(x: np.ndarray, q: float) -> float:
    """Nearest-rank q-quantile (rank ⌈q·n⌉, as aqmlab's summary); NaN if empty."""
    if len(x) == 0:
        return math.nan
    s = np.sort(x)
    return float(s[min(max(math.ceil(q * len(s)), 1), len(s)) - 1])


def ks_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov–Smirnov statistic sup_x |F_a(x) − F_b(x)| (NaN if one is empty)."""
    if len(a) == 0 or len(b) == 0:
        return math.nan
    a, b = np.sort(a), np.sort(b)
    x = np.concatenate([a, b])
    fa = np.searchsorted(a, x, side="right") / len(a)
    fb = np.searchsorted(b, x, side="right") / len(b)
    return float(np.max(np.abs(fa - fb)))


# --- ns-2 -----------------------------------------------------------------------------------


def _read_columns(path: Path, ncols: int) -> np.ndarray:
    """Whitespace columns of a numeric file (comments '#'), the first `ncols` as floats."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split()
            rows.append([float(v) for v in parts[:ncols]])
    return np.array(rows, dtype=np.float64).reshape(-1, ncols)


def parse_ns2(out: Path, stdout: str, seed: int, warmup_s: float, measured_s: float,
              wall_s: float) -> Measure:  # fmt: skip
    links: dict[str, dict[str, float]] = {}
    for line in stdout.splitlines():
        if line.startswith("link "):
            kv = dict(p.split("=", 1) for p in line.split()[1:])
            d = kv.pop("dir")
            links[d] = {k: float(v) for k, v in kv.items()}
    if set(links) != set(DIRS):
        raise CompareError(f"ns-2 printed no link statistics; its output was:\n{stdout}")
    rts = []
    offered = {}
    for d in DIRS:
        a = _read_columns(out / f"rt_{d}.dat", 4)  # end_s, req, rsp, rt_ms
        start = a[:, 0] - a[:, 3] / 1000.0
        rts.append(a[start >= warmup_s - 5e-7, 3])  # the file prints µs; tolerance below that
        r = _read_columns(out / f"req_{d}.dat", 3)  # start_s, req, rsp
        offered[d] = float(r[r[:, 0] >= warmup_s, 2].sum())
    c = _read_columns(out / "conns.dat", 8)  # fid dir start closed crx srx cto sto
    c = c[c[:, 2] >= warmup_s]
    return Measure(
        sim="ns-2", seed=seed, rt_ms=np.concatenate(rts), started=len(c),
        conns_with_retx=int(((c[:, 4] + c[:, 5]) > 0).sum()),
        departures={d: links[d]["departures"] for d in DIRS},
        drops={d: links[d]["drops"] for d in DIRS},
        early_drops={d: links[d]["early_drops"] for d in DIRS},
        bytes={d: links[d]["bytes"] for d in DIRS},
        marks={d: links[d]["marks"] for d in DIRS},
        mean_q={d: links[d]["mean_q"] for d in DIRS},
        offered_bytes=offered, measured_s=measured_s, wall_s=wall_s,
    )  # fmt: skip


def run_ns2(defn: tw.Definition, name: str, seed: int, work: Path, warmup: str, duration: str,
            ns: str = "ns", log_inputs: bool = False, reuse: bool = False) -> Measure:  # fmt: skip
    """Run the ns-2 half; with `log_inputs`, also log every connection's inputs (stderr kept in
    stderr.txt beside the other files) for a paired run. With `reuse`, a finished run of the
    same command already in `work` (its cmd.txt equal, stdout.txt complete) is read, not rerun."""
    out = work / "ns2" / f"{name}_s{seed}"
    cmd = [ns, str(tw.TCL), *tw.ns2_args(defn, name, seed, str(out), warmup, duration)]
    if log_inputs:
        cmd += ["-log_inputs", "1"]
    done = out / "stdout.txt"
    if reuse and (out / "cmd.txt").exists() and (out / "cmd.txt").read_text() == " ".join(cmd) \
            and done.exists() and "run sim_s=" in done.read_text():  # fmt: skip
        text = done.read_text()
        wall = float(text.rsplit("wall_s=", 1)[1].split()[0])
        w, d = tw.seconds(warmup, "warmup"), tw.seconds(duration, "duration")
        return parse_ns2(out, text, seed, w, d, wall)
    if out.exists():
        shutil.rmtree(out)
    t0 = time.monotonic()
    if log_inputs:
        out.mkdir(parents=True)
        with open(out / "stderr.txt", "w") as err:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        p.stderr = "" if p.returncode == 0 else (out / "stderr.txt").read_text()[-4000:]
    else:
        p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise CompareError(f"ns-2 failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}{p.stdout}")
    (out / "stdout.txt").write_text(p.stdout)
    (out / "cmd.txt").write_text(" ".join(cmd))
    return parse_ns2(out, p.stdout, seed, tw.seconds(warmup, "warmup"), tw.seconds(duration, "duration"),
                     wall)  # fmt: skip


# --- aqmlab ---------------------------------------------------------------------------------


def measure_aqmlab(run, seed: int, wall_s: float) -> Measure:
    """A Measure from an aqmlab run (RunResult or loaded run directory)."""
    w = run.warmup_ns
    measured_s = float(run.summary["measured_s"])
    req = run.requests[(run.requests["kind"] == "http") & (run.requests["start_ns"] >= w)]
    done = req[req["completed"].astype(bool)]
    rt = (done["end_ns"] - done["start_ns"]).to_numpy(dtype=np.float64) / 1e6
    retx = (req["syn_retx"] + req["fin_retx"] + req["data_retx"]).groupby(req["conn_id"]).max()
    first = req.groupby("conn_id").first()
    offered = {d: float(first.loc[first["workload"] == i, "response_bytes"].sum())
               for i, d in enumerate(DIRS)}  # fmt: skip
    q = run.queue[run.queue["t_ns"] > w]
    ln = run.links[run.links["t_ns"] > w]
    names = {"fwd": "bottleneck_fwd", "rev": "bottleneck_rev"}
    dep, drops, early, byts, marks, meanq = {}, {}, {}, {}, {}, {}
    for d, link in names.items():
        qd = q[q["link"] == link]
        if qd.empty:
            raise CompareError(f"aqmlab run has no queue rows for {link}")
        dep[d] = float(qd["forwarded"].sum())
        early[d] = float(qd["early_drops"].sum())
        drops[d] = early[d] + float(qd["forced_drops"].sum() + qd["overflow_drops"].sum())
        marks[d] = float(qd["marks"].sum())
        meanq[d] = float(qd["mean_qlen"].mean())
        byts[d] = float(ln.loc[ln["link"] == link, "bytes"].sum())
    return Measure(
        sim="aqmlab", seed=seed, rt_ms=rt, started=int(req["conn_id"].nunique()),
        conns_with_retx=int((retx > 0).sum()), departures=dep, drops=drops, early_drops=early,
        bytes=byts, marks=marks, mean_q=meanq, offered_bytes=offered, measured_s=measured_s,
        wall_s=wall_s,
    )  # fmt: skip


def run_aqmlab(defn: tw.Definition, name: str, seed: int, work: Path, warmup: str,
               duration: str, paired_with: Path | None = None) -> tuple[Measure, Path]:  # fmt: skip
    """Run the aqmlab half; with `paired_with` (the ns-2 run's directory, run with
    -log_inputs 1), replaying that run's connections (paired.py). Returns the measure and the
    run directory."""
    from aqmlab.storage.run_dir import load_run

    d = work / "aqmlab"
    d.mkdir(parents=True, exist_ok=True)
    stem = f"{name}_s{seed}"
    scen = d / f"{stem}.toml"
    text = tw.aqmlab_scenario(defn, name, seed, warmup, duration)
    if paired_with is not None:
        traces, _ = pr.ns2_traces(paired_with, paired_with / "stderr.txt")
        files = []
        for i, dn in enumerate(DIRS):
            f = d / f"{stem}_{dn}.csv"
            pr.write_trace(traces[i], f)
            files.append(f)
        text = pr.replay_scenario(text, files)
    scen.write_text(text)
    cmd = [sys.executable, "-m", "aqmlab", "run", str(scen), "--out", str(d / "runs"), "--quiet"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise CompareError(f"aqmlab failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}{p.stdout}")
    return measure_aqmlab(load_run(d / "runs" / stem), seed, wall), d / "runs" / stem


# --- comparison -----------------------------------------------------------------------------

QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99)


def _mean_range(vals: list[float]) -> dict:
    return {"mean": float(np.mean(vals)), "min": float(np.min(vals)), "max": float(np.max(vals)),
            "per_seed": [float(v) for v in vals]}  # fmt: skip


def summarize(ms: list[Measure], rate_bps: int) -> dict:
    """Per-simulator numbers over its seeds (see the module doc)."""
    pooled = np.concatenate([m.rt_ms for m in ms])
    s: dict = {
        "responses": _mean_range([len(m.rt_ms) for m in ms]),
        "pct_lt_1s": _mean_range([100.0 * float(np.mean(m.rt_ms <= 1000.0)) for m in ms]),
        "pct_conns_with_retx": _mean_range([100.0 * m.conns_with_retx / m.started for m in ms]),
        "wall_s": _mean_range([m.wall_s for m in ms]),
    }
    for q in QUANTILES:
        s[f"p{round(q * 100)}_ms"] = {"pooled": quantile(pooled, q),
                                      "per_seed": [quantile(m.rt_ms, q) for m in ms]}  # fmt: skip
    for d in DIRS:
        s[f"loss_pct_{d}"] = _mean_range([m.loss_pct(d) for m in ms])
        s[f"utilization_{d}"] = _mean_range([m.utilization(d, rate_bps) for m in ms])
        s[f"mean_q_{d}"] = _mean_range([m.mean_q[d] for m in ms])
        s[f"mean_pkt_bytes_{d}"] = _mean_range([m.bytes[d] / m.departures[d] for m in ms])
        s[f"marks_{d}"] = _mean_range([m.marks[d] for m in ms])
        s[f"early_drops_{d}"] = _mean_range([m.early_drops[d] for m in ms])
        s[f"offered_mbps_{d}"] = _mean_range([m.offered_mbps(d) for m in ms])
    pairs = list(itertools.combinations(range(len(ms)), 2))
    s["ks_seed_to_seed"] = [ks_distance(ms[i].rt_ms, ms[j].rt_ms) for i, j in pairs]
    return s


def compare_twin(defn: tw.Definition, name: str, seeds: list[int], work: Path, warmup: str,
                 duration: str, log=print, ns: str = "ns", paired: bool = False,
                 reuse: bool = False) -> dict:  # fmt: skip
    """Run twin `name` for every seed in both simulators (ns-2 first, one at a time) and return
    the comparison as a dict (numbers of the printed table, per seed where it applies). With
    `paired`, aqmlab replays each ns-2 run's own connections (paired.py) and the dict also has
    the connection-by-connection comparison ("paired", one entry per seed)."""
    twin = defn.twin(name)
    rate_bps = tw.bits_per_s(defn.setup["bottleneck_rate"], "bottleneck_rate")
    runs: dict[str, list[Measure]] = {"ns-2": [], "aqmlab": []}
    per_conn = []
    for seed in seeds:
        log(f"{name} seed {seed}: ns-2 …")
        runs["ns-2"].append(run_ns2(defn, name, seed, work, warmup, duration, ns, log_inputs=paired,
                                    reuse=reuse))  # fmt: skip
        log(f"{name} seed {seed}: aqmlab{' (paired)' if paired else ''} …")
        ns2_dir = work / "ns2" / f"{name}_s{seed}"
        m, run_dir = run_aqmlab(defn, name, seed, work, warmup, duration,
                                paired_with=ns2_dir if paired else None)  # fmt: skip
        runs["aqmlab"].append(m)
        if paired:
            from aqmlab.storage.run_dir import load_run

            traces, filled = pr.ns2_traces(ns2_dir, ns2_dir / "stderr.txt")
            pc = pr.per_connection(traces, ns2_dir, load_run(run_dir).requests, tw.seconds(warmup, "warmup"))
            pc["filled_in"] = filled
            per_conn.append(pc)
    a, b = runs["ns-2"], runs["aqmlab"]
    extra = {"paired": per_conn} if paired else {}
    return {
        **extra,
        "twin": name,
        "description": tw.describe(twin),
        "seeds": list(seeds),
        "warmup": warmup,
        "duration": duration,
        "ns-2": summarize(a, rate_bps),
        "aqmlab": summarize(b, rate_bps),
        "ks_per_seed": [ks_distance(x.rt_ms, y.rt_ms) for x, y in zip(a, b, strict=True)],
        "ks_pooled": ks_distance(np.concatenate([m.rt_ms for m in a]), np.concatenate([m.rt_ms for m in b])),
    }


def _fmt(v: float, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:,.{digits}f}"


def _cell(x: dict, digits: int) -> str:
    if "pooled" in x:
        return _fmt(x["pooled"], digits)
    if len(x["per_seed"]) == 1 or x["min"] == x["max"]:
        return _fmt(x["mean"], digits)
    return f"{_fmt(x['mean'], digits)} [{_fmt(x['min'], digits)}–{_fmt(x['max'], digits)}]"


ROWS = (
    ("responses", "responses", 0),
    *((f"p{round(q * 100)} response time (ms)", f"p{round(q * 100)}_ms", 0) for q in QUANTILES),
    ("% responses ≤ 1 s", "pct_lt_1s", 1),
    ("loss fwd (%)", "loss_pct_fwd", 2),
    ("loss rev (%)", "loss_pct_rev", 2),
    ("utilization fwd", "utilization_fwd", 3),
    ("utilization rev", "utilization_rev", 3),
    ("mean queue fwd (packets)", "mean_q_fwd", 1),
    ("mean queue rev (packets)", "mean_q_rev", 1),
    ("mean packet fwd (bytes)", "mean_pkt_bytes_fwd", 0),
    ("mean packet rev (bytes)", "mean_pkt_bytes_rev", 0),
    ("early drops fwd", "early_drops_fwd", 0),
    ("ECN marks fwd", "marks_fwd", 0),
    ("ECN marks rev", "marks_rev", 0),
    ("% conns with retx", "pct_conns_with_retx", 1),
    ("offered fwd (Mb/s)", "offered_mbps_fwd", 2),
    ("offered rev (Mb/s)", "offered_mbps_rev", 2),
    ("wall time (s)", "wall_s", 1),
)


PAIRED_ROWS = (
    ("paired: connections complete in both, per seed", "matched", 0),
    ("paired: % of them within 1 ms of each other", "pct_within_1ms", 1),
    ("paired: % within 10 ms", "pct_within_10ms", 1),
    ("paired: median abs(aqmlab − ns-2) (ms)", "median_abs_diff_ms", 1),
    ("paired: mean aqmlab − ns-2 (ms)", "mean_diff_ms", 1),
    ("paired: % aqmlab faster / slower by > 10 ms", "pct_aqmlab_faster_by_10ms", 1),
    ("", "pct_aqmlab_slower_by_10ms", 1),
    ("paired: complete in ns-2 only / aqmlab only", "only_ns2", 0),
    ("", "only_aqmlab", 0),
)


def table(res: dict) -> str:
    """A Markdown table of one twin's comparison."""
    n2, aq = res["ns-2"], res["aqmlab"]
    seeds = ", ".join(map(str, res["seeds"]))
    out = [
        f"**{res['twin']}** — {res['description']}; seeds {seeds}; warm-up {res['warmup']}, "
        f"measured {res['duration']}",
        "",
        "| | ns-2.35 | aqmlab |",
        "|---|---|---|",
    ]
    for label, key, digits in ROWS:
        out.append(f"| {label} | {_cell(n2[key], digits)} | {_cell(aq[key], digits)} |")

    def ks_list(v):
        return " / ".join(_fmt(x, 3) for x in v)

    out.append(f"| KS ns-2 vs aqmlab, per seed | {ks_list(res['ks_per_seed'])} | |")
    out.append(f"| KS ns-2 vs aqmlab, seeds pooled | {_fmt(res['ks_pooled'], 3)} | |")
    for label, key, digits in PAIRED_ROWS if "paired" in res else ():
        out.append(f"| {label} | {' / '.join(_fmt(pc[key], digits) for pc in res['paired'])} | |")
    if n2["ks_seed_to_seed"]:
        out.append(f"| KS seed to seed (noise floor) | {ks_list(n2['ks_seed_to_seed'])} | "
                   f"{ks_list(aq['ks_seed_to_seed'])} |")  # fmt: skip
    return "\n".join(out)


def git_state(root: Path = tw.ROOT) -> str:
    """The commit checked out, whether crates/ had changes, and when the aqmlab core that runs
    was built (the installed extension's modification time, UTC)."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "crates"],
                               capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        head, dirty = "unknown", ""
    state = head + (" + uncommitted changes in crates/" if dirty else "")
    try:
        from aqmlab import _core

        built = time.strftime("%Y-%m-%d %H:%M", time.gmtime(Path(_core.__file__).stat().st_mtime))
        state += f"; aqmlab core built {built} UTC"
    except (ImportError, OSError):
        pass
    return state


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Seed 001 twins: ns-2.35 against aqmlab.")
    p.add_argument("twins", nargs="*", metavar="TWIN",
                   help=f"twin names (default: {' '.join(DEFAULT_TWINS)})")  # fmt: skip
    p.add_argument("--seeds", help="comma-separated seeds (default: the definition's)")
    p.add_argument("--warmup", help="warm-up (default: the definition's, 120s)")
    p.add_argument("--duration", help="measured time (default: the definition's, 300s)")
    p.add_argument("--keep", metavar="DIR",
                   help="keep every run's files in DIR (default: a temporary directory)")  # fmt: skip
    p.add_argument("--json", metavar="FILE", help="also write every number as JSON")
    p.add_argument("--ns", default="ns", help="the ns-2 binary (default: ns)")
    p.add_argument("--paired", action="store_true",
                   help="aqmlab replays each ns-2 run's own connections (paired.py): the same "
                        "workload on both sides, compared connection by connection")  # fmt: skip
    p.add_argument("--reuse", action="store_true",
                   help="with --keep DIR: read the ns-2 runs already in DIR made by the same "
                        "command instead of running them again")  # fmt: skip
    p.add_argument("--definition", default=str(tw.DEFINITION),
                   help="the twin definition (default: twins.toml beside this script)")  # fmt: skip
    a = p.parse_args(argv)
    try:
        defn = tw.load_definition(a.definition)
        names = a.twins or list(DEFAULT_TWINS)
        for n in names:
            defn.twin(n)
        if a.seeds:
            try:
                seeds = [int(s) for s in a.seeds.split(",")]
            except ValueError:
                raise tw.TwinError(f"--seeds: expected integers such as 1,2,3, got {a.seeds!r}") from None
        else:
            seeds = list(defn.seeds)
        warmup = a.warmup or defn.setup["warmup"]
        duration = a.duration or defn.setup["duration"]
        tw.ns2_args(defn, names[0], seeds[0], None, warmup, duration)  # checks seeds and timing
        if not all(s >= 1 for s in seeds):
            raise tw.TwinError(f"--seeds: every seed must be ≥ 1, got {a.seeds}")
        if shutil.which(a.ns) is None:
            raise CompareError(f"{a.ns}: not found (Debian: apt-get install ns2)")
    except (tw.TwinError, CompareError) as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="aqmlab-twin-"))
    results = []
    try:
        print(f"aqmlab commit {git_state()}; ns-2: {shutil.which(a.ns)}", file=sys.stderr)
        for n in names:
            res = compare_twin(defn, n, seeds, work, warmup, duration,
                               log=lambda m: print(m, file=sys.stderr), ns=a.ns,
                               paired=a.paired, reuse=a.reuse)  # fmt: skip
            results.append(res)
            print(table(res) + "\n", flush=True)
    except (CompareError, pr.PairedError) as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.json:
        doc = {"aqmlab_commit": git_state(), "results": results}
        Path(a.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
