"""Load calibration (issue 5): offered load against a workload's size parameter, and the
`load = …` workload key that it resolves.

**Calibration.** `calibrate(SCENARIO)` runs the scenario's base document (its `[[variant]]`s
dropped: they change queues, which do not matter on an unconstrained link) with
`topology.bottleneck_rate` set to the calibration rate (100 Mbps by default, as seed 000 §4.1.1
ran the lab network "unconstrained"), once per point x of one workload's size parameter:

| workload | parameter x |
|---|---|
| `http10`, `arrival = "poisson"` | `rate` (connections/s) |
| `http10`, `arrival = "users"` | `users` |
| `mah` | `users` |
| `packmime` | `rate` (new connections/s) |
| `pareto_web` | `flows` |

Offered load y is measured after the warm-up: forward-bottleneck wire bit/s from the run
summary (`kb_per_s` × 8000), and the reverse bottleneck from the `links` table (rows ending
after the warm-up; exact when the warm-up is a multiple of `monitor.link_interval`).

**Parking lot** (seed 002 §III-C: "with all links unconstrained"): the calibration rate is
given to every router-router link (`topology.link_rate`; access links keep their rates), the
measured link is `[calibration] link` / `--link` (default the topology's `bottleneck`, r1_r2),
forward = that link and reverse = the opposite link (r2_r1), both from the `links` table, and
C (what `load` is a fraction of) is the real `topology.link_rate`. `direction`
chooses y: `"forward"` (default), `"reverse"`, or `"both"` (the mean of the two directions, for
two-way traffic). The fit is ordinary least squares of y = slope·x + intercept, **with an
intercept**: a workload that is not calibrated (bulk flows, cross traffic) adds load that does
not scale with x, and the intercept carries it; for a lone workload the intercept should be near
0 and its size is one more sign of (non)linearity. Linearity is reported as R² and the largest
|y − ŷ| / y over the points.

Points: given (`--points`, or `[calibration] points`), or placed automatically: two pilot runs
at a small x₀ (`PILOT_X`) and 2·x₀ give a first line, u = (y₁ − y₀)/x₀ per unit and b = y₀ −
u·x₀ from the traffic that does not scale with x (cross traffic, other workloads; 0 for a lone
workload), and the points are x = (f·C − b)/u for f in `AUTO_FRACTIONS` (25 %…125 % of the
scenario's real bottleneck rate C) where that is positive, so the
fit brackets every load a scenario is likely to ask for. Runs are short (`--duration 120s` by
default, after the scenario's own warm-up: a short warm-up overstates Mah's browsers, who all
start with a page, about 3× at 30 s on the seed 000 lab) and run in parallel, one process per
point.

**Cache.** A calibration is stored as JSON in `<cache>/calibration/<hash>.json` (cache:
`--cache`, else `$AQMLAB_CACHE`, else `.aqmlab-cache` in the working directory), written under
a temporary name and renamed. The hash is SHA-256 over the scenario content that determines the
result: the base document without `[[variant]]`, `[calibration]`, `[sweep]`, `[tune]`, `run.duration`,
`run.stop_after_responses` and the calibrated parameter (or `load`), plus the workload index,
the direction and the bytes of every data file it reads (`matrix_file`, empirical `file`).
`aqmlab run` uses any stored calibration for that hash; `aqmlab calibrate` recomputes when
asked for other points, warm-up, duration or rate than the stored ones (or with `--force`).

**The `load` key.** A `[[workload]]` of a kind above may say `load = 0.98` instead of its
parameter: the scenario's total forward offered load as a fraction of its real
`topology.bottleneck_rate` C (a number > 0; > 1 is overload). `LoadResolver` resolves it,
for `aqmlab run`, `aqmlab.run()` (a path, TOML text or a dict), every run of a sweep (against
that run's own bottleneck rate) and a tune's base, to x = (load·C − intercept) / slope (users
and flows rounded to the nearest integer) from the calibration of the file's base scenario, and
says the value used. At most one workload may have `load`; `load` may not be given with the
parameter it replaces; only the base document's workloads may have it (a variant that sets its
own `topology.bottleneck_rate` gets the value for its own rate). The optional `[calibration]`
table holds the defaults of `aqmlab calibrate` for this scenario: `points` (array of numbers),
`warmup`, `duration` (duration strings), `rate` (rate string), `direction`.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from aqmlab import _core
from aqmlab.engine.document import PYTHON_TABLES, dumps_toml

#: Version of the cached JSON and of what the hash covers; bump to invalidate old caches
#: (2: the measured link joined the hash; per-workload DelayBoxes changed what runs measure).
SCHEMA = 2
#: Calibration bottleneck rate: seed 000 §4.1.1 ran its lab "unconstrained" at 100 Mbps.
DEFAULT_RATE = "100Mbps"
#: Calibration runs: the scenario's own warm-up (None; its author chose it to reach steady
#: state) and a short measured time (aqmlab choice: thousands of connections at ~1 Mbit/s).
DEFAULT_WARMUP = None
DEFAULT_DURATION = "120s"
#: Automatic points: offered loads of 25…125 % of the real bottleneck rate (aqmlab choice).
AUTO_FRACTIONS = (0.25, 0.5, 0.75, 1.0, 1.25)
#: Pilot run parameter per calibrated key (small: it only places the points).
PILOT_X = {"users": 100, "rate": 10.0, "flows": 10}
#: Above this utilization of the calibration link a point is not "unconstrained".
MAX_CALIBRATION_UTILIZATION = 0.5
DIRECTIONS = ("forward", "reverse", "both")
CALIBRATION_KEYS = ("points", "warmup", "duration", "rate", "direction", "link")
#: Topology kinds and the key of the rate calibration replaces.
RATE_KEY = {"dumbbell": "bottleneck_rate", "parking_lot": "link_rate"}
_INT_PARAMS = ("users", "flows")
_PER = {"rate": "conn/s", "users": "user", "flows": "flow"}

Log = Callable[[str], None]


def _err(file: str | os.PathLike, key: str, reason: str) -> _core.ScenarioError:
    return _core.ScenarioError(f"{os.fspath(file)}: {key}: {reason}")


def rate_bps(text: object, file: str | os.PathLike, key: str) -> float:
    """A rate string ("10Mbps", "1.5Gbps", "64kbps", "100bps"; decimal SI as
    crates/units/src/parse.rs) in bit/s; a clear error naming file and key otherwise."""
    mult = {"bps": 1.0, "kbps": 1e3, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
    if isinstance(text, str):
        s = text.strip()
        for unit in sorted(mult, key=len, reverse=True):
            if s.endswith(unit):
                try:
                    v = float(s[: -len(unit)]) * mult[unit]
                except ValueError:
                    break
                if math.isfinite(v) and v > 0:
                    return v
                break
    raise _err(file, key, f'expected a positive rate such as "10Mbps", got {text!r}')


# ----- the scenario's calibrated workload --------------------------------------------------------


def parameter_of(wl: dict) -> str | None:
    """The size parameter a workload table is calibrated over (table above), or None."""
    kind = wl.get("kind")
    if kind == "http10":
        return {"poisson": "rate", "users": "users"}.get(wl.get("arrival"))
    return {"mah": "users", "packmime": "rate", "pareto_web": "flows"}.get(kind)


@dataclass(frozen=True)
class Settings:
    """How a calibration is run: points (None = automatic), run lengths (duration strings),
    calibration bottleneck rate (rate string), measured direction."""

    points: tuple[float, ...] | None = None
    warmup: str | None = DEFAULT_WARMUP
    duration: str = DEFAULT_DURATION
    rate: str = DEFAULT_RATE
    direction: str = "forward"
    link: str | None = None
    """Parking lot: the measured router link (None: the topology's `bottleneck`)."""


@dataclass
class Scenario:
    """A scenario file read for calibration: `doc` (the parsed TOML, data paths made absolute),
    `workload` (index of the calibrated workload), `parameter`, `load` (the fraction asked for, or
    None), `bottleneck_bps` (the real forward bottleneck rate C), `settings` (its
    `[calibration]` table over the defaults), `kind` (topology kind), `default_link` (parking
    lot: its `bottleneck`)."""

    path: Path
    doc: dict
    workload: int
    parameter: str
    load: float | None
    bottleneck_bps: float
    settings: Settings
    data_digest: dict = field(default_factory=dict)
    kind: str = "dumbbell"
    default_link: str | None = None

    def links(self, s: Settings) -> tuple[str, str] | None:
        """Parking lot: (forward, reverse) measured link names; None on a dumbbell."""
        if self.kind != "parking_lot":
            return None
        fwd = s.link or self.default_link or "r1_r2"
        a, b = fwd.split("_")
        return fwd, f"{b}_{a}"


def _absolutize(node: object, base: Path, found: list[Path]) -> None:
    """Make relative data-file paths absolute (`matrix_file`, `file` of an empirical
    distribution), in place, collecting them."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, str) and (
                k == "matrix_file" or (k == "file" and node.get("dist") == "empirical")
            ):
                p = Path(v) if Path(v).is_absolute() else (base / v).resolve()
                node[k] = str(p)
                found.append(p)
            else:
                _absolutize(v, base, found)
    elif isinstance(node, list):
        for v in node:
            _absolutize(v, base, found)


def _settings(path: Path, table: object) -> Settings:
    if table is None:
        return Settings()
    if not isinstance(table, dict):
        raise _err(path, "calibration", "must be a table")
    for k in table:
        if k not in CALIBRATION_KEYS:
            raise _err(path, f"calibration.{k}", f"unknown key (known: {', '.join(CALIBRATION_KEYS)})")
    s = Settings()
    kw = {}
    if "points" in table:
        kw["points"] = check_points(table["points"], path, "calibration.points")
    for k in ("warmup", "duration", "rate", "direction", "link"):
        if k in table:
            if not isinstance(table[k], str):
                raise _err(path, f"calibration.{k}", f"must be a string, got {table[k]!r}")
            kw[k] = table[k]
    return Settings(**{**asdict(s), **kw})  # checked by read_scenario, which knows the topology


def check_points(points: object, file: str | os.PathLike, key: str) -> tuple[float, ...]:
    """Points: at least two distinct positive numbers."""
    if (
        not isinstance(points, list | tuple)
        or any(isinstance(p, bool) or not isinstance(p, int | float) for p in points)
        or any(not (math.isfinite(p) and p > 0) for p in points)
        or len(set(points)) < 2
    ):
        raise _err(file, key, f"must be at least two distinct positive numbers, got {points!r}")
    return tuple(sorted(set(float(p) for p in points)))


def check_settings(s: Settings, file: str | os.PathLike, kind: str = "dumbbell", routers: int = 8) -> None:
    """Direction is known, the calibration rate parses (durations are checked by the core) and
    a measured link names a router-router link of a parking lot of `routers` routers."""
    if s.direction not in DIRECTIONS:
        raise _err(
            file, "calibration.direction", f"must be one of {', '.join(DIRECTIONS)}, got {s.direction!r}"
        )
    rate_bps(s.rate, file, "calibration.rate")
    if s.link is not None:
        if kind != "parking_lot":
            raise _err(file, "calibration.link", "only a parking lot has named router links to measure")
        check_link(s.link, routers, file, "calibration.link")


def check_link(name: object, routers: int, file: str | os.PathLike, key: str) -> None:
    """`name` is a router-router link `r{a}_r{b}` with |a − b| = 1, both below `routers`."""
    m = re.fullmatch(r"r(\d+)_r(\d+)", name) if isinstance(name, str) else None
    if m is None or abs(int(m[1]) - int(m[2])) != 1 or max(int(m[1]), int(m[2])) >= routers:
        raise _err(
            file,
            key,
            f"must name a router-router link r{{i}}_r{{i±1}} of routers 0…{routers - 1}, got {name!r}",
        )


def read_scenario(path: str | os.PathLike, workload: int | None = None) -> Scenario:
    """Read `path` and find the calibrated workload: the one with `load`, else `workload`, else
    the only one of a calibratable kind. Raises ScenarioError ("FILE: KEY: reason") for a bad
    `load`, a non-dumbbell topology, or no/ambiguous workload."""
    from aqmlab.engine.document import read_document

    doc, base_dir = read_document(path)
    return scenario_of(doc, path, base_dir, workload)


def scenario_of(
    doc: dict, path: str | os.PathLike, base_dir: str | os.PathLike, workload: int | None = None
) -> Scenario:
    """`read_scenario` of an already parsed document `doc` (not modified), named `path` in
    errors, its relative data files resolved against `base_dir`."""
    path = Path(path)
    doc = copy.deepcopy(doc)
    topo = doc.get("topology")
    if not isinstance(topo, dict):
        raise _err(path, "topology", "missing table (calibration needs a dumbbell or parking-lot topology)")
    kind = topo.get("kind")
    if kind not in RATE_KEY:
        raise _err(
            path,
            "topology.kind",
            f'calibration needs kind = "dumbbell" or "parking_lot" (their bottleneck_rate or '
            f"link_rate is what is made unconstrained), got {kind!r}",
        )
    rate_key = RATE_KEY[kind]
    bottleneck = rate_bps(topo.get(rate_key), path, f"topology.{rate_key}")
    routers = topo.get("routers", 8) if kind == "parking_lot" else 0
    default_link = None
    if kind == "parking_lot":
        if isinstance(routers, bool) or not isinstance(routers, int):
            routers = 8  # the core reports a bad `routers`
        default_link = topo.get("bottleneck", "r1_r2")
        check_link(default_link, routers, path, "topology.bottleneck")
    wls = doc.get("workload")
    if not isinstance(wls, list) or not all(isinstance(w, dict) for w in wls) or not wls:
        raise _err(path, "workload", "at least one [[workload]] table is required")

    with_load = [i for i, w in enumerate(wls) if "load" in w]
    load = None
    for i in with_load:
        w, key = wls[i], f"workload[{i}].load"
        if len(with_load) > 1 and i != with_load[0]:
            raise _err(path, key, f"only one workload may have load (workload[{with_load[0]}] has it too)")
        param = parameter_of(w)
        if param is None:
            raise _err(
                path,
                key,
                f"not supported for kind = {w.get('kind')!r} (load resolves rate/users of http10, "
                "users of mah, rate of packmime, flows of pareto_web)",
            )
        if param in w:
            raise _err(path, key, f"conflicts with {param}: give one of load, {param}")
        v = w["load"]
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
            raise _err(
                path, key, f"must be a number greater than 0 (a fraction of bottleneck_rate), got {v!r}"
            )
        load = float(v)
    for vi, var in enumerate(doc.get("variant") or []):
        if not isinstance(var, dict):
            continue
        vw = var.get("workload")
        for j, w in enumerate(vw if isinstance(vw, list) else []):
            if isinstance(w, dict) and "load" in w:
                name = var.get("name", vi)
                raise _err(
                    path,
                    f"variant[{name}].workload[{j}].load",
                    "load is resolved only in the base [[workload]] tables; give the variant's "
                    "workload a rate/users or move load to the base",
                )

    if with_load:
        index = with_load[0]
        if workload is not None and workload != index:
            raise _err(path, f"workload[{workload}]", f"the scenario's load is on workload[{index}]")
    elif workload is not None:
        if not 0 <= workload < len(wls):
            raise _err(path, "workload", f"no workload[{workload}] (the file has {len(wls)})")
        index = workload
        if parameter_of(wls[index]) is None:
            raise _err(
                path, f"workload[{index}].kind", f"kind {wls[index].get('kind')!r} cannot be calibrated"
            )
    else:
        able = [i for i, w in enumerate(wls) if parameter_of(w) is not None]
        if len(able) != 1:
            raise _err(
                path,
                "workload",
                "no workload that can be calibrated"
                if not able
                else "several workloads can be calibrated "
                f"({', '.join(f'workload[{i}]' for i in able)}): choose one",
            )
        index = able[0]
    settings = _settings(path, doc.get("calibration"))
    check_settings(settings, path, kind, routers)
    found: list[Path] = []
    _absolutize(doc, Path(base_dir), found)
    digest = {}
    for p in found:
        try:
            digest[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
        except OSError:
            digest[str(p)] = None  # the core reports the missing file
    return Scenario(
        path, doc, index, parameter_of(wls[index]), load, bottleneck, settings, digest, kind, default_link
    )


def content_hash(sc: Scenario, direction: str, link: str | None = None) -> str:
    """SHA-256 (hex) of what determines a calibration (module doc, "Cache"); `link`: the
    parking lot's measured link (None: the default)."""
    doc = copy.deepcopy(sc.doc)
    doc.pop("variant", None)
    for k in PYTHON_TABLES:
        doc.pop(k, None)
    for k in ("duration", "stop_after_responses"):
        doc.get("run", {}).pop(k, None)
    wl = doc["workload"][sc.workload]
    wl.pop("load", None)
    wl.pop(sc.parameter, None)
    # Data paths are machine-specific: hash their contents instead (in file order).
    key_doc = json.loads(json.dumps(doc, default=str))
    digests = [sc.data_digest[p] for p in sc.data_digest]

    def strip(node):
        if isinstance(node, dict):
            return {
                k: ("<data>" if k in ("matrix_file", "file") and isinstance(v, str) else strip(v))
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    blob = {
        "schema": SCHEMA,
        "doc": strip(key_doc),
        "data": digests,
        "workload": sc.workload,
        "parameter": sc.parameter,
        "direction": direction,
        "link": sc.links(Settings(link=link)),
    }
    text = json.dumps(blob, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


# ----- one calibration run -----------------------------------------------------------------------


def _point_doc(sc: Scenario, s: Settings, x: float) -> dict:
    """The base document at parameter x, on the calibration link, with calibration run lengths."""
    doc = copy.deepcopy(sc.doc)
    doc.pop("variant", None)
    for k in PYTHON_TABLES:
        doc.pop(k, None)
    run = doc.setdefault("run", {})
    run.pop("stop_after_responses", None)
    if s.warmup is not None:
        run["warmup"] = s.warmup
    run["duration"] = s.duration
    doc["topology"][RATE_KEY[sc.kind]] = s.rate
    wl = doc["workload"][sc.workload]
    wl.pop("load", None)
    wl[sc.parameter] = _typed(sc.parameter, x)
    return doc


def _typed(parameter: str, x: float) -> int | float:
    return int(round(x)) if parameter in _INT_PARAMS else float(x)


def write_toml(doc: dict, directory: Path, name: str) -> Path:
    """Write `doc` as TOML to `directory/name` (temporary name, then renamed)."""
    p = directory / name
    tmp = directory / f".{name}.tmp-{os.getpid()}"
    tmp.write_text(dumps_toml(doc), encoding="utf-8")
    os.replace(tmp, p)
    return p


def link_bps(result, name: str) -> float:
    """Wire bit/s of link `name` after the warm-up of one RunResult: its `links` rows that end
    after the warm-up, over the time they cover (0 without rows)."""
    links = result.links
    rows = links[(links["link"] == name) & (links["t_ns"] > result.warmup_ns)]
    if not len(rows):
        return 0.0
    span_s = (int(rows["t_ns"].max()) - result.warmup_ns) / 1e9
    return float(rows["bytes"].sum()) * 8.0 / span_s if span_s > 0 else 0.0


def measure(result, links: tuple[str, str] | None = None) -> tuple[float, float]:
    """(forward, reverse) wire bit/s after the warm-up of one RunResult. Dumbbell (`links`
    None): forward from the summary's kb_per_s (1 KB = 1000 B), reverse from bottleneck_rev's
    `links` rows; parking lot: both from the `links` rows of the named (forward, reverse)
    links."""
    if links is not None:
        return link_bps(result, links[0]), link_bps(result, links[1])
    return float(result.summary["kb_per_s"]) * 8000.0, link_bps(result, "bottleneck_rev")


def _run_point(job: tuple[str, tuple[str, str] | None]) -> tuple[float, float]:
    """Run the single experiment of a calibration file `job[0]`; (forward, reverse) bit/s on
    the links `job[1]` (None: the dumbbell's). Top level so worker processes can call it."""
    from aqmlab.engine.run_variant import run_one, variants

    path, links = job
    return measure(run_one(path, variants(path)[0]), links)


def _load_of(fwd: float, rev: float, direction: str) -> float:
    return {"forward": fwd, "reverse": rev, "both": (fwd + rev) / 2.0}[direction]


def fit_line(x: list[float], y: list[float]) -> tuple[float, float, float, float]:
    """Least squares y = slope·x + intercept: (slope, intercept, R², max |y − ŷ| / y)."""
    n = len(x)
    if n < 2 or len(set(x)) < 2:
        raise ValueError("a fit needs at least two distinct points")
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    slope = sxy / sxx
    intercept = my - slope * mx
    ss_res = sum((b - (slope * a + intercept)) ** 2 for a, b in zip(x, y, strict=True))
    ss_tot = sum((b - my) ** 2 for b in y)
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    rel = [abs(b - (slope * a + intercept)) / b for a, b in zip(x, y, strict=True) if b > 0]
    return slope, intercept, r2, max(rel) if rel else float("nan")


@dataclass
class Calibration:
    """A stored calibration: offered load (bit/s, `direction`) = slope·x + intercept over the
    measured `points` ([{x, forward_bps, reverse_bps, load_bps}]), with R² and the largest
    relative residual; `hash` keys the cache, `date` is when it was computed (UTC, ISO 8601)."""

    hash: str
    scenario: str
    workload: int
    kind: str
    parameter: str
    direction: str
    settings: dict
    points: list[dict]
    slope: float
    intercept: float
    r2: float
    max_rel_residual: float
    date: str
    pilot: dict | None = None
    cached: bool = field(default=False, compare=False)

    def x_for(self, load_bps: float) -> float:
        """The parameter value whose offered load is `load_bps` bit/s (unrounded)."""
        return (load_bps - self.intercept) / self.slope

    def to_json(self) -> str:
        d = asdict(self)
        d.pop("cached")
        d["schema"] = SCHEMA
        return json.dumps(d, indent=2, sort_keys=False) + "\n"

    def describe(self) -> str:
        """Multi-line report: points, fit, linearity."""
        unit = {"rate": "conn/s", "users": "users", "flows": "flows"}[self.parameter]
        lines = [
            f"{'x (' + unit + ')':>14}  {'fwd Mbps':>9}  {'rev Mbps':>9}  {'fit Mbps':>9}  {'resid %':>8}"
        ]
        for p in self.points:
            fit = self.slope * p["x"] + self.intercept
            res = 100.0 * (p["load_bps"] - fit) / p["load_bps"] if p["load_bps"] > 0 else float("nan")
            lines.append(
                f"{p['x']:>14.6g}  {p['forward_bps'] / 1e6:>9.4f}  {p['reverse_bps'] / 1e6:>9.4f}  "
                f"{fit / 1e6:>9.4f}  {res:>+8.2f}"
            )
        lines.append(
            f"fit ({self.direction}): load = {self.slope / 1e3:.6g} kbit/s per {_PER[self.parameter]} · x "
            f"{'+' if self.intercept >= 0 else '−'} {abs(self.intercept) / 1e6:.4g} Mbit/s;  "
            f"R² = {self.r2:.5f}, max |residual| = {100 * self.max_rel_residual:.2f} %"
        )
        return "\n".join(lines)


def cache_dir(cache: str | os.PathLike | None = None) -> Path:
    """The calibration cache directory: `cache`, else $AQMLAB_CACHE, else .aqmlab-cache, plus
    `/calibration`."""
    root = cache if cache is not None else os.environ.get("AQMLAB_CACHE", ".aqmlab-cache")
    return Path(root) / "calibration"


def _check_cache_dir(d: Path) -> None:
    """The cache directory must be writable before the calibration runs (`DIR: reason`);
    scratch files of a killed earlier calibration are removed."""
    from aqmlab.storage.run_dir import OutDirError, check_out_dir, remove_stale_scratch

    try:
        check_out_dir(d)
    except OutDirError as e:
        raise OutDirError(f"{e} (the calibration cache: --cache DIR or $AQMLAB_CACHE)") from None
    remove_stale_scratch(d)


def _read_cached(p: Path) -> Calibration | None:
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
        if d.pop("schema", None) != SCHEMA:
            return None
        return Calibration(**d, cached=True)
    except (OSError, ValueError, TypeError):
        return None


def _store(c: Calibration, p: Path) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f"{p.name}.tmp-{os.getpid()}")
    tmp.write_text(c.to_json(), encoding="utf-8")
    os.replace(tmp, p)


def _run_points(sc: Scenario, s: Settings, xs: list[float], jobs: int | None) -> list[tuple[float, float]]:
    with tempfile.TemporaryDirectory(prefix="aqmlab-calib-") as td:
        links = sc.links(s)
        paths = [
            (str(write_toml(_point_doc(sc, s, x), Path(td), f"point{i}.toml")), links)
            for i, x in enumerate(xs)
        ]
        n = min(len(paths), jobs or os.cpu_count() or 1)
        try:
            if n <= 1:
                return [_run_point(p) for p in paths]
            from aqmlab.sweeps import workers  # (multiprocessing: only when calibrating)

            return workers.map_all(_run_point, paths, n)  # workers die with this process
        except (_core.ScenarioError, _core.SimError) as e:
            msg = re.sub(re.escape(td) + r"/point\d+\.toml", f"{sc.path} (calibration run)", str(e))
            raise type(e)(msg) from None


def _validate(sc: Scenario, s: Settings) -> None:
    """Let the core check the whole calibration document (and the scenario itself, at a
    placeholder parameter) before anything runs; errors name the scenario file."""
    x = PILOT_X[sc.parameter]
    with tempfile.TemporaryDirectory(prefix="aqmlab-calib-") as td:
        own = resolved_doc(sc, x)
        for doc, label in ((own, str(sc.path)), (_point_doc(sc, s, x), f"{sc.path} (calibration run)")):
            p = write_toml(doc, Path(td), sc.path.name)
            try:
                _core.scenario_variants(str(p))
            except _core.ScenarioError as e:
                raise _core.ScenarioError(str(e).replace(str(p), label)) from None


def calibrate(
    scenario: str | os.PathLike,
    *,
    workload: int | None = None,
    points: list[float] | None = None,
    warmup: str | None = None,
    duration: str | None = None,
    rate: str | None = None,
    direction: str | None = None,
    link: str | None = None,
    jobs: int | None = None,
    cache: str | os.PathLike | None = None,
    force: bool = False,
    log: Log | None = None,
) -> Calibration:
    """Calibrate `scenario` (module doc): use the cached fit for its content hash when its
    settings match the requested ones (arguments over the scenario's `[calibration]` table over
    the defaults), else run the points (in parallel over `jobs` processes, default one per CPU),
    fit, store and return it. Raises ScenarioError before any run for a bad file."""
    sc = read_scenario(scenario, workload)
    return _calibrate(
        sc, points, warmup, duration, rate, direction, jobs, cache, force, log, strict=True, link=link
    )


def _calibrate(
    sc, points, warmup, duration, rate, direction, jobs, cache, force, log, strict, link=None
) -> Calibration:
    say = log or (lambda _m: None)
    over = {"warmup": warmup, "duration": duration, "rate": rate, "direction": direction, "link": link}
    kw = {k: v for k, v in over.items() if v is not None}
    if points is not None:
        kw["points"] = check_points(list(points), sc.path, "--points")
    s = Settings(**{**asdict(sc.settings), **kw})
    routers = sc.doc["topology"].get("routers", 8) if sc.kind == "parking_lot" else 0
    check_settings(s, sc.path, sc.kind, routers if isinstance(routers, int) else 8)
    h = content_hash(sc, s.direction, s.link)
    path = cache_dir(cache) / f"{h}.json"
    if not force:
        c = _read_cached(path)
        if c is not None and (not strict or c.settings == _settings_json(s)):
            say(f"calibration: using {path}")
            return c
    _validate(sc, s)
    _check_cache_dir(path.parent)
    wl = sc.doc["workload"][sc.workload]
    pilot = None
    if s.points is None:
        x0 = PILOT_X[sc.parameter]
        x1 = _rounded(sc.parameter, 2 * x0)
        say(f"calibration: pilot runs at {sc.parameter} = {x0}, {x1:g} on {_where(sc, s)}")
        (f0, r0), (f1, r1) = _run_points(sc, s, [x0, x1], jobs)
        y0, y1 = _load_of(f0, r0, s.direction), _load_of(f1, r1, s.direction)
        if not y1 > 0:
            raise _err(
                sc.path,
                f"workload[{sc.workload}]",
                f"the pilot run at {sc.parameter} = {x1:g} offered no load",
            )
        u = (y1 - y0) / (x1 - x0)
        if not u > 0:  # noise swamped the difference: fall back to the load per unit of x₁
            u = y1 / x1
        b = y0 - u * x0
        pilot = {"points": [[x0, y0], [x1, y1]], "slope": u, "intercept": b}
        xs = sorted(
            {
                _rounded(sc.parameter, (f * sc.bottleneck_bps - b) / u)
                for f in AUTO_FRACTIONS
                if f * sc.bottleneck_bps > b
            }
        )
        if len(xs) < 2:
            xs = sorted({_rounded(sc.parameter, x) for x in (x0, 2 * x0, 4 * x0)})
    else:
        xs = sorted({_rounded(sc.parameter, x) for x in s.points})
    say(
        f"calibration: {len(xs)} runs of {s.warmup or 'the scenario warm-up'} + {s.duration} "
        f"on {_where(sc, s)}, "
        f"{sc.parameter} = {', '.join(f'{x:g}' for x in xs)}"
    )
    meas = _run_points(sc, s, xs, jobs)
    pts = [
        {"x": x, "forward_bps": f, "reverse_bps": r, "load_bps": _load_of(f, r, s.direction)}
        for x, (f, r) in zip(xs, meas, strict=True)
    ]
    slope, intercept, r2, maxrel = fit_line([p["x"] for p in pts], [p["load_bps"] for p in pts])
    if not slope > 0:
        raise _err(
            sc.path,
            f"workload[{sc.workload}].{sc.parameter}",
            f"offered load does not grow with {sc.parameter} (fitted slope {slope:g} bit/s per unit)",
        )
    c = Calibration(
        hash=h,
        scenario=str(sc.path),
        workload=sc.workload,
        kind=str(wl.get("kind")),
        parameter=sc.parameter,
        direction=s.direction,
        settings=_settings_json(s),
        points=pts,
        slope=slope,
        intercept=intercept,
        r2=r2,
        max_rel_residual=maxrel,
        date=datetime.now(UTC).isoformat(timespec="seconds"),
        pilot=pilot,
    )
    cal_bps = rate_bps(s.rate, sc.path, "calibration.rate")
    top = max(max(p["forward_bps"], p["reverse_bps"]) for p in pts) / cal_bps
    if top > MAX_CALIBRATION_UTILIZATION:
        say(
            f"calibration: warning: the top point uses {100 * top:.0f} % of the {s.rate} calibration "
            "link, so it is not unconstrained; use a faster --rate or fewer points"
        )
    _store(c, path)
    say(f"calibration: stored {path}")
    return c


def _where(sc: Scenario, s: Settings) -> str:
    """Where a calibration measures, in words."""
    links = sc.links(s)
    if links is None:
        return f"a {s.rate} bottleneck"
    return f"{s.rate} router links, measured on {links[0]} (reverse {links[1]})"


def _settings_json(s: Settings) -> dict:
    d = asdict(s)
    d["points"] = None if s.points is None else list(s.points)
    return d


def _rounded(parameter: str, x: float) -> float:
    if parameter in _INT_PARAMS:
        return float(max(1, round(x)))
    return float(f"{x:.4g}")


# ----- resolving `load` --------------------------------------------------------------------------


def resolved_doc(sc: Scenario, x: float, per_variant: dict[str, float] | None = None, doc=None) -> dict:
    """`doc` (default the scenario's own document) with `load` replaced by the parameter value
    x and the Python-only tables dropped; a variant with its own bottleneck_rate gets the base
    workloads with its own value (`per_variant`)."""
    doc = copy.deepcopy(sc.doc if doc is None else doc)
    for k in PYTHON_TABLES:
        doc.pop(k, None)
    wl = doc["workload"][sc.workload]
    wl.pop("load", None)
    wl[sc.parameter] = _typed(sc.parameter, x)
    for var in doc.get("variant") or []:
        name = var.get("name")
        if per_variant and name in per_variant and "workload" not in var:
            wls = copy.deepcopy(doc["workload"])
            wls[sc.workload][sc.parameter] = _typed(sc.parameter, per_variant[name])
            var["workload"] = wls
    return doc


def _variant_rates(sc: Scenario) -> dict[str, float]:
    out = {}
    for var in sc.doc.get("variant") or []:
        t = var.get("topology") if isinstance(var, dict) else None
        key = RATE_KEY[sc.kind]
        if isinstance(t, dict) and key in t and "workload" not in var:
            name = var.get("name")
            out[name] = rate_bps(t[key], sc.path, f"variant[{name}].topology.{key}")
    return out


def doc_has_load(doc: dict) -> bool:
    """Whether a base [[workload]] of the parsed scenario `doc` has a `load` key."""
    wls = doc.get("workload")
    return isinstance(wls, list) and any(isinstance(w, dict) and "load" in w for w in wls)


def _resolve_x(sc: Scenario, c: Calibration, capacity_bps: float, key: str) -> float:
    x = c.x_for(sc.load * capacity_bps)
    # Users and flows are whole; a rate keeps 6 significant digits, so the value printed is the
    # value run.
    x = float(round(x)) if sc.parameter in _INT_PARAMS else float(f"{x:.6g}")
    if not x > 0:
        raise _err(
            sc.path,
            key,
            f"load = {sc.load:g} of {capacity_bps / 1e6:g} Mbps resolves to "
            f"{sc.parameter} = {x:g} (the other workloads already offer "
            f"{c.intercept / 1e6:.3g} Mbit/s)",
        )
    return x


class LoadResolver:
    """Resolves `load = …` in the documents of one scenario file (module doc, "The `load`
    key"): `aqmlab run`, `aqmlab.run()`, every run of a sweep and every trial of a tune go
    through `resolve`, so one file gives one rate whatever the command. The calibration is that
    of the file's base document `base` (its `[sweep]`/`[tune]` ignored, as `aqmlab calibrate
    FILE` computes and caches it), looked up (or computed) once, when a document first asks;
    each document's `load` then resolves against its own bottleneck rate."""

    def __init__(
        self,
        base: dict,
        file: str | os.PathLike,
        base_dir: str | os.PathLike,
        cache: str | os.PathLike | None = None,
        jobs: int | None = None,
        log: Log | None = None,
    ):
        self.base, self.file, self.base_dir = base, os.fspath(file), base_dir
        self.cache, self.jobs, self.say = cache, jobs, log or (lambda _m: None)
        self._calibration: Calibration | None = None
        self._said: set[str] = set()

    def _calibrate(self, workload: int) -> Calibration:
        if self._calibration is None:
            index = None if doc_has_load(self.base) else workload
            sc = scenario_of(self.base, self.file, self.base_dir, index)
            self._calibration = _calibrate(
                sc, None, None, None, None, None, self.jobs, self.cache, False, self.say, strict=False
            )
        return self._calibration

    def _tell(self, line: str) -> None:
        if line not in self._said:  # a sweep's runs share their resolutions: each said once
            self._said.add(line)
            self.say(line)

    def resolve(self, doc: dict) -> dict:
        """`doc` with `load` replaced by the value it resolves to and the Python-only tables
        (`[calibration]`, `[tune]`, `[sweep]`) dropped (a copy); ScenarioError for a bad
        `load`."""
        if not doc_has_load(doc):
            return {k: v for k, v in doc.items() if k not in PYTHON_TABLES}
        calib = self.base.get("calibration")
        with_calibration = doc if calib is None else {**doc, "calibration": calib}
        sc = scenario_of(with_calibration, self.file, self.base_dir)
        c = self._calibrate(sc.workload)
        x = _resolve_x(sc, c, sc.bottleneck_bps, f"workload[{sc.workload}].load")
        unit = {"rate": "conn/s", "users": "users", "flows": "flows"}[sc.parameter]
        self._tell(
            f"{sc.path}: workload[{sc.workload}].load = {sc.load:g} of {sc.bottleneck_bps / 1e6:g} Mbps → "
            f"{sc.parameter} = {_typed(sc.parameter, x):g} {unit} (calibration {c.hash[:12]}: "
            f"{c.slope / 1e3:.5g} kbit/s per {_PER[sc.parameter]}, "
            f"intercept {c.intercept / 1e6:.3g} Mbit/s, R² = {c.r2:.4f})"
        )
        per_variant = {}
        for name, bps in _variant_rates(sc).items():
            key = f"variant[{name}].workload[{sc.workload}].load"
            per_variant[name] = _resolve_x(sc, c, bps, key)
            self._tell(
                f"{sc.path}: variant[{name}]: load = {sc.load:g} of {bps / 1e6:g} Mbps → "
                f"{sc.parameter} = {_typed(sc.parameter, per_variant[name]):g} {unit}"
            )
        return resolved_doc(sc, x, per_variant, doc)


# ----- the `aqmlab calibrate` command ------------------------------------------------------------


def add_parser(sub) -> None:
    """Add `aqmlab calibrate SCENARIO [--points X,Y,…] [--warmup T] [--duration T] [--rate R]
    [--direction D] [--workload I] [--jobs N] [--cache DIR] [--force]` to the CLI's subparsers."""
    c = sub.add_parser(
        "calibrate",
        help="fit offered load against a workload's users/rate on an unconstrained bottleneck",
        description="Run SCENARIO with its bottleneck at --rate (100 Mbps) at several values of its "
        "workload's users/rate/flows, fit offered load = slope·x + intercept, report linearity "
        "and cache the fit (keyed by the scenario content) for `load = …` in [[workload]].",
    )
    c.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML)")
    c.add_argument("--points", metavar="X,Y,…", help="parameter values (default: automatic, 25–125 %% of C)")
    c.add_argument("--warmup", metavar="T", help="warm-up of each run (default: the scenario's)")
    c.add_argument("--duration", metavar="T", help=f"measured time of each run (default {DEFAULT_DURATION})")
    c.add_argument("--rate", metavar="R", help=f"calibration bottleneck rate (default {DEFAULT_RATE})")
    c.add_argument("--direction", choices=DIRECTIONS, help="measured direction (default forward)")
    c.add_argument(
        "--link", metavar="rA_rB", help="parking lot: measured router link (default its bottleneck)"
    )
    c.add_argument("--workload", type=int, metavar="I", help="index of the calibrated [[workload]]")
    c.add_argument("--jobs", type=int, metavar="N", help="parallel runs (default: one per CPU)")
    c.add_argument("--cache", metavar="DIR", help="cache root (default $AQMLAB_CACHE or .aqmlab-cache)")
    c.add_argument("--force", action="store_true", help="recompute even if cached")


def cmd_calibrate(args) -> int:
    """The `calibrate` command: the points table, the fit and linearity on stdout."""
    import sys

    points = None
    if args.points is not None:
        try:
            points = [float(p) for p in args.points.split(",") if p.strip()]
        except ValueError:
            raise ValueError(f"--points: expected numbers separated by commas, got {args.points!r}") from None
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs: must be ≥ 1, got {args.jobs}")
    c = calibrate(
        args.scenario,
        workload=args.workload,
        points=points,
        warmup=args.warmup,
        duration=args.duration,
        rate=args.rate,
        direction=args.direction,
        link=args.link,
        jobs=args.jobs,
        cache=args.cache,
        force=args.force,
        log=lambda m: print(m, file=sys.stderr),
    )
    print(
        f"{c.scenario}: workload[{c.workload}] ({c.kind}), {c.parameter}; "
        f"calibration {c.hash[:12]} ({c.date})"
    )
    print(c.describe())
    return 0
