"""Shared pieces of the ns-2 twins in pisa_twin/ and quickstart_twin/: reading the definitions'
units, writing generated files, running aqmlab on a twin scenario with another seed and timing,
and the comparison table (the statistics are the seed 001 twins' own, twin/compare.py:
nearest-rank quantiles and the two-sample Kolmogorov–Smirnov distance).

A comparison is a list of `Measure`s per simulator (one per seed). Every number is over the
measured window [warm-up, warm-up + duration]; `rt_ms` holds the response times of the
responses whose connection opened in the window and finished before its end.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from aqmlab.engine.document import dumps_toml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _seed001_compare():
    """validation/ns2/twin/compare.py (the seed 001 twins), loaded under its own module name so
    that no other `compare` module on sys.path can stand in for it."""
    name = "ns2_seed001_twin_compare"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, HERE / "twin" / "compare.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


ks_distance = _seed001_compare().ks_distance
quantile = _seed001_compare().quantile

QUANTILES = (0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99)

_DUR = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)\s*(us|ms|s|min)\s*$")
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(bps|kbps|Mbps|Gbps)\s*$")
_DUR_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_RATE_UNIT = {"bps": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9}


class TwinError(ValueError):
    """A bad definition or request; the message names the file and key."""


class RunError(RuntimeError):
    """A simulator failed or printed something unexpected."""


def seconds(text, where: str) -> float:
    """A duration string ("500s", "45ms", "0.5s", "10min") in seconds."""
    m = _DUR.match(text) if isinstance(text, str) else None
    if not m:
        raise TwinError(f'{where}: expected a duration such as "45ms" or "500s", got {text!r}')
    return float(m.group(1)) * _DUR_UNIT[m.group(2)]


def bits_per_s(text, where: str) -> int:
    """A rate string ("10Mbps") in whole bit/s."""
    m = _RATE.match(text) if isinstance(text, str) else None
    if not m:
        raise TwinError(f'{where}: expected a rate such as "10Mbps", got {text!r}')
    v = float(m.group(1)) * _RATE_UNIT[m.group(2)]
    if v <= 0 or v != int(v):
        raise TwinError(f"{where}: must be a positive whole number of bit/s, got {text!r}")
    return int(v)


def num(x: float) -> str:
    """Shortest faithful text of a number (170.0 → "170", 1.822e-05 → "1.822e-05")."""
    return f"{x:.12g}"


def load_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TwinError(f"{path.name}: {e}") from e


def need(d: dict, key: str, typ, where: str):
    """d[key], checked to be of type `typ` (bools are not numbers)."""
    if key not in d:
        raise TwinError(f"{where}.{key}: missing")
    v = d[key]
    types = typ if isinstance(typ, tuple) else (typ,)
    if isinstance(v, bool) and bool not in types:
        raise TwinError(f"{where}.{key}: expected {types[0].__name__}, got {v!r}")
    if not isinstance(v, types):
        raise TwinError(f"{where}.{key}: expected {types[0].__name__}, got {v!r}")
    return v


def only(d: dict, keys: tuple[str, ...], where: str) -> None:
    extra = sorted(set(d) - set(keys))
    if extra:
        raise TwinError(f"{where}.{extra[0]}: unknown key (allowed: {', '.join(keys)})")


# The aqmlab-side TCP rules of a definition's [tcp]: declared once, in the seed 001 twins'
# twins.py (which compare.py imports as `tw`).
AQMLAB_TCP_RULES = _seed001_compare().tw.AQMLAB_TCP_RULES
aqmlab_tcp_rule_lines = _seed001_compare().tw.aqmlab_tcp_rule_lines


def check_aqmlab_tcp_rules(tcp: dict, where: str) -> None:
    """twins.check_aqmlab_tcp_rules, raising this module's TwinError."""
    _seed001_compare().tw.check_aqmlab_tcp_rules(tcp, where, TwinError)


def write_or_check(files: dict[Path, str], check: bool) -> list[Path]:
    """Write the generated files, or (check) return those whose checked-in text differs."""
    stale = []
    for path, text in files.items():
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
        else:
            path.write_text(text)
    return stale


# --- running --------------------------------------------------------------------------------


@dataclass
class Measure:
    """What one simulator measured in one run (measured window only). `values` holds the
    scalar rows of the table (keys of the twin's ROWS)."""

    sim: str
    seed: int
    rt_ms: np.ndarray = field(repr=False)
    values: dict
    wall_s: float


def run_ns2(cmd: list[str], what: str) -> tuple[str, float]:
    """Run an ns-2 command; (stdout, wall seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RunError(f"{what}: cannot run {cmd[0]}: {e}") from e
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RunError(f"{what}: ns-2 failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}{p.stdout}")
    return p.stdout, wall


def run_ns2_kept(cmd: list[str], what: str, out: Path, reuse: bool = False) -> tuple[str, float]:
    """Run an ns-2 command whose files go to the directory `out`; keep its stdout in
    `out`.out and the command with its wall time in `out`.cmd.json. With `reuse`, a run kept
    there by the same command is read again instead (its stdout and recorded wall time)."""
    import json
    import shutil

    stdout_file = out.parent / f"{out.name}.out"
    cmd_file = out.parent / f"{out.name}.cmd.json"
    if reuse and out.is_dir() and stdout_file.exists() and cmd_file.exists():
        try:
            kept = json.loads(cmd_file.read_text())
        except (OSError, ValueError):
            kept = {}
        if kept.get("cmd") == cmd and isinstance(kept.get("wall_s"), (int, float)):
            return stdout_file.read_text(), float(kept["wall_s"])
    if out.exists():
        shutil.rmtree(out)
    cmd_file.unlink(missing_ok=True)
    stdout, wall = run_ns2(cmd, what)
    stdout_file.write_text(stdout)
    cmd_file.write_text(json.dumps({"cmd": cmd, "wall_s": wall}) + "\n")
    return stdout, wall


def key_values(stdout: str, tag: str) -> list[dict[str, str]]:
    """The key=value pairs of every stdout line that starts with `tag`."""
    out = []
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == tag:
            out.append(dict(p.split("=", 1) for p in parts[1:]))
    return out


def run_aqmlab(scenario: Path, variant: str, seed: int, warmup: str, duration: str):
    """Run one variant of a twin scenario with [run] seed/warmup/duration replaced; returns the
    aqmlab RunResult (its wall_s is the engine's)."""
    import aqmlab

    doc = tomllib.loads(scenario.read_text())
    doc["run"].update(seed=seed, warmup=warmup, duration=duration)
    with tempfile.TemporaryDirectory(prefix="aqmlab-twin-") as d:
        path = Path(d) / scenario.name
        path.write_text(dumps_toml(doc))
        return aqmlab.run(path, variant=variant)[variant]


def aqmlab_link(run, link: str) -> dict[str, float]:
    """Counters of one monitored link over the measured window (aqmlab run)."""
    w = run.warmup_ns
    q = run.queue[(run.queue["t_ns"] > w) & (run.queue["link"] == link)]
    ln = run.links[(run.links["t_ns"] > w) & (run.links["link"] == link)]
    if q.empty:
        raise RunError(f"aqmlab run has no queue rows for {link}")
    early = float(q["early_drops"].sum())
    drops = early + float(q["forced_drops"].sum() + q["overflow_drops"].sum())
    dep = float(q["forwarded"].sum())
    return {
        "arrivals": dep + drops, "departures": dep, "drops": drops, "early_drops": early,
        "bytes": float(ln["bytes"].sum()), "packets": float(ln["packets"].sum()),
        "mean_q": float(q["mean_qlen"].mean()),
    }  # fmt: skip


# --- comparison -----------------------------------------------------------------------------


def summarize(ms: list[Measure], keys: list[str]) -> dict:
    """Per-simulator numbers over its seeds: each key's per-seed values and mean/min/max, the
    pooled and per-seed response-time quantiles, and the seed-to-seed KS distances."""
    pooled = np.concatenate([m.rt_ms for m in ms])
    s: dict = {}
    for k in keys + ["wall_s"]:
        vals = [float(m.wall_s if k == "wall_s" else m.values[k]) for m in ms]
        s[k] = {"mean": float(np.mean(vals)), "min": float(np.min(vals)), "max": float(np.max(vals)),
                "per_seed": vals}  # fmt: skip
    s["responses"] = {"mean": float(np.mean([len(m.rt_ms) for m in ms])),
                      "min": float(min(len(m.rt_ms) for m in ms)),
                      "max": float(max(len(m.rt_ms) for m in ms)),
                      "per_seed": [float(len(m.rt_ms)) for m in ms]}  # fmt: skip
    for q in QUANTILES:
        s[f"p{round(q * 100)}_ms"] = {"pooled": quantile(pooled, q),
                                      "per_seed": [quantile(m.rt_ms, q) for m in ms]}  # fmt: skip
    s["mean_rt_ms"] = {"pooled": float(np.mean(pooled)) if len(pooled) else math.nan,
                       "per_seed": [float(np.mean(m.rt_ms)) for m in ms]}  # fmt: skip
    s["ks_seed_to_seed"] = [ks_distance(ms[i].rt_ms, ms[j].rt_ms)
                            for i, j in itertools.combinations(range(len(ms)), 2)]  # fmt: skip
    return s


def compare(ns2: list[Measure], aq: list[Measure], keys: list[str]) -> dict:
    """Both simulators side by side, with the cross-simulator KS distances."""
    return {
        "seeds": [m.seed for m in ns2],
        "ns-2": summarize(ns2, keys),
        "aqmlab": summarize(aq, keys),
        "ks_per_seed": [ks_distance(a.rt_ms, b.rt_ms) for a, b in zip(ns2, aq, strict=True)],
        "ks_pooled": ks_distance(
            np.concatenate([m.rt_ms for m in ns2]), np.concatenate([m.rt_ms for m in aq])
        ),  # fmt: skip
    }


def _fmt(v, digits: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:,.{digits}f}"


def _cell(x: dict, digits: int) -> str:
    if "pooled" in x:
        return _fmt(x["pooled"], digits)
    if all(math.isnan(v) for v in x["per_seed"]):
        return "—"
    if len(x["per_seed"]) == 1 or x["min"] == x["max"]:
        return _fmt(x["mean"], digits)
    return f"{_fmt(x['mean'], digits)} [{_fmt(x['min'], digits)}–{_fmt(x['max'], digits)}]"


def table(res: dict, rows: list[tuple[str, str, int]], title: str) -> str:
    """A Markdown table: one row per (label, key, digits), then the KS rows. Cells with several
    seeds are "mean [min–max]"; quantiles are of the seeds pooled."""
    n2, aq = res["ns-2"], res["aqmlab"]
    out = [title, "", "| | ns-2.35 | aqmlab |", "|---|---|---|"]
    for label, key, digits in rows:
        out.append(f"| {label} | {_cell(n2[key], digits)} | {_cell(aq[key], digits)} |")

    def ks_list(v):
        return " / ".join(_fmt(x, 3) for x in v)

    out.append(f"| KS ns-2 vs aqmlab, per seed | {ks_list(res['ks_per_seed'])} | |")
    out.append(f"| KS ns-2 vs aqmlab, seeds pooled | {_fmt(res['ks_pooled'], 3)} | |")
    if n2["ks_seed_to_seed"]:
        out.append(f"| KS seed to seed (each simulator) | {ks_list(n2['ks_seed_to_seed'])} | "
                   f"{ks_list(aq['ks_seed_to_seed'])} |")  # fmt: skip
    return "\n".join(out)


RT_ROWS = [
    ("responses", "responses", 0),
    *((f"p{round(q * 100)} response time (ms)", f"p{round(q * 100)}_ms", 0) for q in QUANTILES),
    ("mean response time (ms)", "mean_rt_ms", 0),
]


def core_built() -> str:
    """When the aqmlab core in use (aqmlab._core) was built, UTC."""
    try:
        from aqmlab import _core

        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(Path(_core.__file__).stat().st_mtime))
    except (ImportError, OSError):
        return "unknown"


def git_state(root: Path = ROOT) -> str:
    """The checked-out commit, whether crates/ had changes, and when the core was built."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "crates"],
                               capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + uncommitted changes in crates/" if dirty else "") + f"; core built {core_built()}"


# --- the command line every twin.py shares ---------------------------------------------------


def cli(description: str, queue: tuple[str, str] | None = None):
    """The argument parser of a twin.py: one of --write/--check/--ns2/--compare, and the run
    options; `queue` = (default, help) adds --queue."""
    import argparse

    p = argparse.ArgumentParser(description=description)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="regenerate the scenario and parameter files")
    g.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale")
    g.add_argument("--ns2", action="store_true", help="print the ns-2 command line")
    g.add_argument("--compare", action="store_true", help="run both simulators and compare")
    if queue is not None:
        p.add_argument("--queue", default=queue[0], help=queue[1])
    p.add_argument("--seed", type=int, default=1, help="--ns2: the seed (default 1)")
    p.add_argument("--seeds", help="--compare: comma-separated seeds (default: the definition's)")
    p.add_argument("--warmup", help="warm-up (default: the definition's)")
    p.add_argument("--duration", help="measured time (default: the definition's)")
    p.add_argument("--out", default="ns2-out", help="--ns2: output directory for the command")
    p.add_argument("--keep", metavar="DIR", help="--compare: keep ns-2's files in DIR")
    p.add_argument(
        "--reuse",
        action="store_true",
        help="--compare with --keep: read DIR's ns-2 runs of the same command again",
    )
    p.add_argument("--json", metavar="FILE", help="--compare: also write every number as JSON")
    p.add_argument("--ns", default="ns", help="the ns-2 binary (default: ns)")
    return p


def write_or_check_cli(files: dict[Path, str], check: bool) -> int:
    """--write / --check: regenerate `files` or list the stale ones; the exit status."""
    stale = write_or_check(files, check)
    for f in stale:
        print(f"{f.relative_to(ROOT)}: differs from definition.toml (run twin.py --write)", file=sys.stderr)
    return 1 if stale else 0


def seeds_and_ns(a, default_seeds) -> list[int]:
    """--seeds (or the definition's) as integers, after checking that the ns-2 binary exists."""
    import shutil

    try:
        seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else list(default_seeds)
    except ValueError:
        raise TwinError(f"--seeds: expected integers such as 1,2,3, got {a.seeds!r}") from None
    if getattr(a, "reuse", False) and not a.keep:
        raise TwinError("--reuse: needs --keep DIR (the directory whose ns-2 runs to read again)")
    if shutil.which(a.ns) is None:
        raise RunError(f"{a.ns}: not found (Debian: apt-get install ns2)")
    return seeds


def run_section(raw: dict, f: str) -> tuple[str, str, tuple[int, ...]]:
    """The `[run]` table every twin definition has: (warmup, duration, seeds), checked."""
    run = need(raw, "run", dict, f)
    only(run, ("warmup", "duration", "seeds"), f"{f}: run")
    warmup, duration = need(run, "warmup", str, f"{f}: run"), need(run, "duration", str, f"{f}: run")
    seconds(warmup, f"{f}: run.warmup")
    if seconds(duration, f"{f}: run.duration") <= 0:
        raise TwinError(f"{f}: run.duration: must be positive")
    seeds = need(run, "seeds", list, f"{f}: run")
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in seeds):
        raise TwinError(f"{f}: run.seeds: expected a non-empty list of integers ≥ 1, got {seeds!r}")
    return warmup, duration, tuple(seeds)


@dataclass(frozen=True)
class Definition:
    """A twin definition as read: the whole document and its checked `[run]` table."""

    raw: dict
    warmup: str
    duration: str
    seeds: tuple[int, ...]
