"""Seed 001 twins: from the one definition (twins.toml beside this file) to an aqmlab scenario
and to the command line of the ns-2 script (seed001.tcl) for each configuration.

    python validation/ns2/twin/twins.py --list             the twins and what they are
    python validation/ns2/twin/twins.py --write            regenerate scenarios/ns2-twin/*.toml
    python validation/ns2/twin/twins.py --check            exit 1 if a checked-in file differs
    python validation/ns2/twin/twins.py --ns2 NAME [--seed N] [--out DIR] [--warmup T] [--duration T]
                                                           print the ns-2 options of a twin

How each queue of the definition maps to the two simulators (twins.toml says why):

- droptail, limit L: ns-2 `-queue droptail -limit L` (DropTail `limit_ L`, which holds L − 1
  waiting packets); aqmlab `kind = "droptail"`, `limit = L`, `ns2_off_by_one = true`.
- ared: ns-2 `-queue ared` (Queue/RED, `adaptive_ 1`, ns-2.35's defaults otherwise); aqmlab
  `kind = "ared"`, `profile = "ns2"`. `units = "bytes"`: ns-2 `bytes_`, `queue_in_bytes_ true`,
  aqmlab `byte_mode`, `queue_in_bytes = true`; "packets": all false. `target_delay`, `limit`,
  `mean_pktsize`: ns-2 `targetdelay_`, `limit_`, `mean_pktsize_`; aqmlab the same names.
  `ecn`: ns-2 `setbit_ true` and TCP `ecn_ 1`; aqmlab queue `ecn = true` and `[tcp] ecn = true`.

Bad input (an unknown key, a missing one, a value of the wrong kind) raises `TwinError` naming
the file and the key.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
DEFINITION = HERE / "twins.toml"
TCL = HERE / "seed001.tcl"
SCENARIO_DIR = ROOT / "scenarios" / "ns2-twin"

QUEUE_KINDS = ("droptail", "ared")
TCP_VARIANTS = ("reno", "sack")
_DUR = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(us|ms|s|min)\s*$")
_RATE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(kbps|Mbps|Gbps|bps)\s*$")
_DUR_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}
_RATE_UNIT = {"bps": 1, "kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9}


class TwinError(ValueError):
    """A bad definition or request; the message names the file and key."""


def seconds(text: str, where: str) -> float:
    """A duration string ("120s", "10ms", "1.5min") in seconds."""
    m = _DUR.match(text) if isinstance(text, str) else None
    if not m:
        raise TwinError(f'{where}: expected a duration such as "120s" or "10ms", got {text!r}')
    return float(m.group(1)) * _DUR_UNIT[m.group(2)]


def bits_per_s(text: str, where: str) -> int:
    """A rate string ("10Mbps") in bit/s."""
    m = _RATE.match(text) if isinstance(text, str) else None
    if not m:
        raise TwinError(f'{where}: expected a rate such as "10Mbps", got {text!r}')
    v = float(m.group(1)) * _RATE_UNIT[m.group(2)]
    if v <= 0 or v != int(v):
        raise TwinError(f"{where}: must be a positive whole number of bit/s, got {text!r}")
    return int(v)


def _num(s: float) -> str:
    """Shortest text of a number for a command line (120.0 → "120", 0.005 → "0.005")."""
    return f"{s:.12g}"


@dataclass(frozen=True)
class Queue:
    key: str
    label: str
    kind: str
    limit: int
    target_delay: str = ""
    units: str = ""
    mean_pktsize: int = 0
    ecn: bool = False


@dataclass(frozen=True)
class Twin:
    name: str
    queue: Queue
    load: int
    rate: float
    tcp: str


@dataclass(frozen=True)
class Definition:
    path: Path
    setup: dict
    tcp: dict
    seeds: tuple[int, ...]
    twins: dict[str, Twin]

    def twin(self, name: str) -> Twin:
        if name not in self.twins:
            have = ", ".join(self.twins)
            raise TwinError(f"{self.path.name}: no twin named {name!r} (the file has: {have})")
        return self.twins[name]


class _Table:
    """Key access with file/key error messages."""

    def __init__(self, d: dict, where: str):
        if not isinstance(d, dict):
            raise TwinError(f"{where}: expected a table")
        self.d, self.where = d, where

    def allow(self, keys: tuple[str, ...]) -> None:
        extra = sorted(set(self.d) - set(keys))
        if extra:
            raise TwinError(f"{self.where}.{extra[0]}: unknown key (allowed: {', '.join(keys)})")

    def get(self, key: str, typ: type | tuple[type, ...], default=None):
        if key not in self.d:
            if default is None:
                raise TwinError(f"{self.where}.{key}: missing")
            return default
        v = self.d[key]
        ok = isinstance(v, typ) and not (isinstance(v, bool) and typ in (int, float, (int, float)))
        if not ok:
            names = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
            raise TwinError(f"{self.where}.{key}: expected {names}, got {v!r}")
        return v


# Keys of a twin definition's [tcp] that act on the aqmlab side only: ns-2.35 Full-TCP's packet
# sequence, loss and ECN response and slow start (crates/tcp/src/config.rs; validation/ns2/README.md,
# "Paired twins"). ns-2 runs Full-TCP anyway; absent = aqmlab's defaults, and the scenario omits
# the key. Every twin (this one and those of validation/ns2/twinkit.py) reads them from here.
AQMLAB_TCP_RULES = {"ns2_fulltcp": (True, False), "ssthresh": ("rfc5681", "ns2"),
                    "backoff_reset": ("sample", "ack"), "slow_start": ("rfc5681", "ns2")}  # fmt: skip


def check_aqmlab_tcp_rules(tcp: dict, where: str, error: type[Exception] = ValueError) -> None:
    """Check the optional aqmlab-side TCP rules (AQMLAB_TCP_RULES) of a definition's [tcp];
    raises `error` naming `where.KEY`."""
    for k, allowed in AQMLAB_TCP_RULES.items():
        if k in tcp and (type(tcp[k]) is not type(allowed[0]) or tcp[k] not in allowed):
            shown = ", ".join(str(a).lower() if isinstance(a, bool) else a for a in allowed)
            raise error(f"{where}.{k}: expected one of {shown}, got {tcp[k]!r}")


def aqmlab_tcp_rule_lines(tcp: dict) -> list[str]:
    """The scenario lines for the aqmlab-side TCP rules a definition's [tcp] sets."""
    lines = ["ns2_fulltcp = true"] if tcp.get("ns2_fulltcp") else []
    return lines + [f'{k} = "{tcp[k]}"' for k in ("ssthresh", "backoff_reset", "slow_start") if k in tcp]


SETUP_KEYS = ("bottleneck_rate", "access_rate", "link_delay", "access_queue", "warmup", "duration", "seeds")
TCP_KEYS = ("mss", "initial_window", "window", "timestamps", "tick", "min_rto", "initial_rto", "max_rto",
            "delayed_ack", *AQMLAB_TCP_RULES)  # fmt: skip
QUEUE_KEYS = ("label", "kind", "limit", "target_delay", "units", "mean_pktsize", "ecn")


def _positive_int(t: _Table, key: str) -> int:
    v = t.get(key, int)
    if v < 1:
        raise TwinError(f"{t.where}.{key}: must be at least 1, got {v}")
    return v


def _queue(key: str, d: dict, file: str) -> Queue:
    t = _Table(d, f"{file}: queues.{key}")
    t.allow(QUEUE_KEYS)
    kind = t.get("kind", str)
    if kind not in QUEUE_KINDS:
        raise TwinError(f"{t.where}.kind: must be one of {', '.join(QUEUE_KINDS)}, got {kind!r}")
    label = t.get("label", str)
    limit = _positive_int(t, "limit")
    if kind == "droptail":
        extra = [k for k in ("target_delay", "units", "mean_pktsize", "ecn") if k in d]
        if extra:
            raise TwinError(f"{t.where}.{extra[0]}: not a droptail key")
        return Queue(key, label, kind, limit)
    target = t.get("target_delay", str)
    if seconds(target, f"{t.where}.target_delay") <= 0:
        raise TwinError(f"{t.where}.target_delay: must be positive")
    units = t.get("units", str)
    if units not in ("bytes", "packets"):
        raise TwinError(f'{t.where}.units: must be "bytes" or "packets", got {units!r}')
    return Queue(key, label, kind, limit, target, units, _positive_int(t, "mean_pktsize"),
                 t.get("ecn", bool))  # fmt: skip


def load_definition(path: str | Path = DEFINITION) -> Definition:
    """Read and check the definition file."""
    path = Path(path)
    file = path.name
    try:
        raw = tomllib.loads(path.read_text())
    except OSError as e:
        raise TwinError(f"{path}: cannot read the definition ({e.strerror})") from e
    except tomllib.TOMLDecodeError as e:
        raise TwinError(f"{file}: {e}") from e
    top = _Table(raw, file)
    top.allow(("setup", "tcp", "loads", "queues", "twin"))
    st = _Table(top.get("setup", dict), f"{file}: setup")
    st.allow(SETUP_KEYS)
    for k in ("bottleneck_rate", "access_rate"):
        bits_per_s(st.get(k, str), f"{st.where}.{k}")
    for k in ("link_delay", "warmup", "duration"):
        seconds(st.get(k, str), f"{st.where}.{k}")
    if seconds(st.d["duration"], "") <= 0:
        raise TwinError(f"{st.where}.duration: must be positive")
    _positive_int(st, "access_queue")
    seeds = st.get("seeds", list)
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1 for s in seeds):
        raise TwinError(f"{st.where}.seeds: expected a non-empty list of integers ≥ 1, got {seeds!r}")
    tc = _Table(top.get("tcp", dict), f"{file}: tcp")
    tc.allow(TCP_KEYS)
    for k in ("mss", "initial_window", "window"):
        _positive_int(tc, k)
    for k in ("tick", "min_rto", "initial_rto", "max_rto"):
        if seconds(tc.get(k, str), f"{tc.where}.{k}") <= 0:
            raise TwinError(f"{tc.where}.{k}: must be positive")
    for k in ("timestamps", "delayed_ack"):
        if tc.get(k, bool):
            raise TwinError(f"{tc.where}.{k}: only false is supported (seed 001 Table 2)")
    check_aqmlab_tcp_rules(tc.d, tc.where, TwinError)  # optional, aqmlab side only
    loads_t = _Table(top.get("loads", dict), f"{file}: loads")
    loads: dict[int, float] = {}
    for k in loads_t.d:
        if not k.isdigit():
            raise TwinError(f"{loads_t.where}.{k}: a load is a whole percentage, such as 80")
        rate = loads_t.get(k, (int, float))
        if rate <= 0:
            raise TwinError(f"{loads_t.where}.{k}: the rate must be positive, got {rate}")
        loads[int(k)] = float(rate)
    qt = _Table(top.get("queues", dict), f"{file}: queues")
    queues = {k: _queue(k, v, file) for k, v in qt.d.items()}
    twins: dict[str, Twin] = {}
    tw = top.get("twin", list)
    for i, d in enumerate(tw):
        t = _Table(d, f"{file}: twin[{i}]")
        t.allow(("queue", "load", "tcp"))
        qk = t.get("queue", str)
        if qk not in queues:
            raise TwinError(f"{t.where}.queue: no queue {qk!r} in [queues] (have: {', '.join(queues)})")
        load = t.get("load", int)
        if load not in loads:
            raise TwinError(f"{t.where}.load: no load {load} in [loads] (have: {', '.join(map(str, loads))})")
        tcp = t.get("tcp", str)
        if tcp not in TCP_VARIANTS:
            raise TwinError(f"{t.where}.tcp: must be one of {', '.join(TCP_VARIANTS)}, got {tcp!r}")
        name = f"seed001_{qk}_{load}" if tcp == "reno" else f"seed001_{tcp}_{qk}_{load}"
        if name in twins:
            raise TwinError(f"{t.where}: twin {name} is listed twice")
        twins[name] = Twin(name, queues[qk], load, loads[load], tcp)
    if not twins:
        raise TwinError(f"{file}: twin: no [[twin]] listed")
    return Definition(path, dict(st.d), dict(tc.d), tuple(seeds), twins)


def _timing(defn: Definition, seed: int | None, warmup: str | None, duration: str | None):
    seed = defn.seeds[0] if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        raise TwinError(f"seed: expected an integer ≥ 1, got {seed!r}")
    warmup = defn.setup["warmup"] if warmup is None else warmup
    duration = defn.setup["duration"] if duration is None else duration
    seconds(warmup, "warmup")
    if seconds(duration, "duration") <= 0:
        raise TwinError(f"duration: must be positive, got {duration!r}")
    return seed, warmup, duration


def describe(tw: Twin) -> str:
    return (
        f"{tw.queue.label}, {tw.tcp.capitalize() if tw.tcp == 'reno' else tw.tcp.upper()}, "
        f"{tw.load} % offered load ({tw.rate:g} new connections/s each way)"
    )


def aqmlab_scenario(defn: Definition, name: str, seed: int | None = None, warmup: str | None = None,
                    duration: str | None = None) -> str:  # fmt: skip
    """The aqmlab scenario of twin `name` (the checked-in file with the defaults; `seed`,
    `warmup`, `duration` override the definition's first seed and its timing)."""
    tw = defn.twin(name)
    seed, warmup, duration = _timing(defn, seed, warmup, duration)
    s, t, q = defn.setup, defn.tcp, tw.queue
    lines = [
        f"# Seed 001 twin {name} (seed {seed}):",
        f"# {describe(tw)}.",
        "# Generated from validation/ns2/twin/twins.toml by validation/ns2/twin/twins.py: edit the",
        "# definition and run `python validation/ns2/twin/twins.py --write`, not this file. The ns-2",
        "# twin of this file:",
        "#   ns validation/ns2/twin/seed001.tcl \\",
        f"#     $(python validation/ns2/twin/twins.py --ns2 {name} --out DIR)",
        '# validation/ns2/twin/compare.py runs and compares both (validation/ns2/README.md, "Seed 001',
        '# twins"). Network, TCP and workload as scenarios/weigle2006/dumbbell.toml, but with',
        "# PackMime DelayBoxes on both sides (client table at the client's router, server table at",
        "# the server's, as ns-2's pm-delaybox example) and ns-2.35's queue rules.",
        "",
        "[run]",
        f"seed = {seed}",
        f'warmup = "{warmup}"',
        f'duration = "{duration}"',
        "",
        "[topology]",
        'kind = "dumbbell"',
        "clients = 1",
        "servers = 1",
        f'access_rate = "{s["access_rate"]}"',
        f'access_delay = "{s["link_delay"]}"',
        f'bottleneck_rate = "{s["bottleneck_rate"]}"',
        f'bottleneck_delay = "{s["link_delay"]}"',
        "",
        "[topology.access_queue]",
        'kind = "droptail"',
        f"limit = {s['access_queue']}",
        "",
        "[queue]   # both directions ([reverse_queue] defaults to it)",
    ]
    if q.kind == "droptail":
        lines += [
            'kind = "droptail"',
            f"limit = {q.limit}",
            f"ns2_off_by_one = true   # holds limit − 1 waiting, as ns-2's DropTail with limit_ {q.limit}",
        ]
    else:
        in_bytes = "true" if q.units == "bytes" else "false"
        lines += [
            'kind = "ared"',
            "# profile: ns-2.35's RED rules (wait rule, backlog gate, use_mark_p_, ns-2 idle decay,",
            "# gentle, max_p adapted on arrivals, automatic bottom, no clamp); units stay explicit",
            'profile = "ns2"',
            f'target_delay = "{q.target_delay}"',
            f"limit = {q.limit}",
            f"byte_mode = {in_bytes}",
            f"queue_in_bytes = {in_bytes}",
            f'mean_pktsize = "{q.mean_pktsize}B"',
            f"ecn = {'true' if q.ecn else 'false'}",
        ]
    ecn = q.kind == "ared" and q.ecn
    lines += [
        "",
        "[tcp]",
        f'variant = "{tw.tcp}"',
        f"ecn = {'true' if ecn else 'false'}",
        f'mss = "{t["mss"]}B"',
        f"initial_window = {t['initial_window']}",
        f'receive_window = "{t["window"] * t["mss"]}B"   # {t["window"]} segments',
        f"timestamps = {'true' if t['timestamps'] else 'false'}",
        f'clock_granularity = "{t["tick"]}"',
        f'min_rto = "{t["min_rto"]}"',
        f'initial_rto = "{t["initial_rto"]}"',
        f'max_rto = "{t["max_rto"]}"',
        f"delayed_ack = {'true' if t['delayed_ack'] else 'false'}",
    ]
    lines += aqmlab_tcp_rule_lines(t)
    for reverse in (False, True):
        lines += [
            "",
            "[[workload]]" + ("   # the reverse cloud: its servers on the clients' side" if reverse else ""),
            'kind = "packmime"',
            f"rate = {tw.rate!r}",
        ]
        if reverse:
            lines.append('direction = "reverse"')
        lines.append('delaybox = { client = "packmime", server = "packmime" }')
    return "\n".join(lines) + "\n"


def ns2_args(defn: Definition, name: str, seed: int | None = None, out: str | None = None,
             warmup: str | None = None, duration: str | None = None) -> list[str]:  # fmt: skip
    """Arguments of seed001.tcl for twin `name` (after the script's path)."""
    tw = defn.twin(name)
    seed, warmup, duration = _timing(defn, seed, warmup, duration)
    s, t, q = defn.setup, defn.tcp, tw.queue
    args = [
        "-bottleneck", str(bits_per_s(s["bottleneck_rate"], "bottleneck_rate")),
        "-access", str(bits_per_s(s["access_rate"], "access_rate")),
        "-delay", _num(seconds(s["link_delay"], "link_delay")),
        "-access_limit", str(s["access_queue"] + 1),
        "-queue", q.kind,
        "-limit", str(q.limit),
    ]  # fmt: skip
    if q.kind == "ared":
        args += [
            "-targetdelay",
            _num(seconds(q.target_delay, "target_delay")),
            "-units",
            q.units,
            "-mean_pktsize",
            str(q.mean_pktsize),
        ]
    args += [
        "-tcp", tw.tcp,
        "-ecn", "1" if q.kind == "ared" and q.ecn else "0",
        "-mss", str(t["mss"]),
        "-iw", str(t["initial_window"]),
        "-window", str(t["window"]),
        "-tick", _num(seconds(t["tick"], "tick")),
        "-minrto", _num(seconds(t["min_rto"], "min_rto")),
        "-rto0", _num(seconds(t["initial_rto"], "initial_rto")),
        "-maxrto", _num(seconds(t["max_rto"], "max_rto")),
        "-rate", _num(tw.rate),
        "-seed", str(seed),
        "-warmup", _num(seconds(warmup, "warmup")),
        "-duration", _num(seconds(duration, "duration")),
    ]  # fmt: skip
    if out is not None:
        args += ["-out", str(out)]
    return args


def scenario_path(name: str) -> Path:
    return SCENARIO_DIR / f"{name}.toml"


def stale_scenarios(defn: Definition) -> list[str]:
    """Twins whose checked-in scenario is missing or differs from what the generator writes, and
    files in the scenario folder that no twin generates."""
    bad = [n for n in defn.twins if not scenario_path(n).is_file()
           or scenario_path(n).read_text() != aqmlab_scenario(defn, n)]  # fmt: skip
    extra = sorted(p.stem for p in SCENARIO_DIR.glob("*.toml") if p.stem not in defn.twins)
    return bad + extra


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Seed 001 twins: scenarios and ns-2 command lines.")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--list", action="store_true", help="list the twins")
    g.add_argument("--write", action="store_true", help="regenerate scenarios/ns2-twin/*.toml")
    g.add_argument("--check", action="store_true", help="exit 1 if a checked-in scenario is stale")
    g.add_argument("--ns2", metavar="NAME", help="print the ns-2 arguments of twin NAME")
    p.add_argument("--seed", type=int, help="with --ns2: the seed (default: the first of the definition)")
    p.add_argument("--out", help="with --ns2: the output directory argument")
    p.add_argument("--warmup", help="with --ns2: the warm-up (default: the definition's)")
    p.add_argument("--duration", help="with --ns2: the measured time (default: the definition's)")
    p.add_argument("--definition", default=str(DEFINITION), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    try:
        defn = load_definition(a.definition)
        if a.list:
            for n, tw in defn.twins.items():
                print(f"{n}: {describe(tw)}")
        elif a.write:
            SCENARIO_DIR.mkdir(parents=True, exist_ok=True)
            for n in defn.twins:
                scenario_path(n).write_text(aqmlab_scenario(defn, n))
            for n in stale_scenarios(defn):
                print(f"twins.py: {scenario_path(n)} is not generated by any twin", file=sys.stderr)
            print(f"wrote {len(defn.twins)} scenarios to {SCENARIO_DIR}")
        elif a.check:
            bad = stale_scenarios(defn)
            if bad:
                print(f"twins.py: stale or unknown: {', '.join(bad)} (run with --write)", file=sys.stderr)
                return 1
        else:
            print(" ".join(ns2_args(defn, a.ns2, a.seed, a.out, a.warmup, a.duration)))
    except TwinError as e:
        print(f"twins.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
