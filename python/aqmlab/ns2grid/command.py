"""One resolved sweep point → the command line of the seed 001 ns-2 script
(validation/ns2/twin/seed001.tcl), or a refusal that says which setting ns-2.35 cannot express.

The point is the scenario document of one `aqmlab.sweeps.run.SweepRun` (its `[[variant]]` merged
into the base as the core merges it). Every key of it is either mapped to an ns-2 option or
named in the refusal: nothing is dropped silently. The mapping is the twins' (validation/ns2/
twin/twins.py says why each holds), extended to the study's settings:

- network: the PackMime dumbbell (one client and one server host, `-access`, `-bottleneck`, one
  `-delay` for every link, the access queues' limit + 1 as ns-2's DropTail holds limit_ − 1).
- RTTs: `[topology.delaybox] rtt = {dist = "empirical", file}` (one draw of the whole RTT per
  connection) → `-rtt_file`, an ns-2 Empirical CDF of half the RTT in ms (ns-2's DelayBox
  applies its delay in both directions); PackMime's client/server tables on the workloads
  (`delaybox = {client = "packmime", server = "packmime"}`) → the script's default boxes.
- queues (both directions alike): `droptail` (limit, `ns2_off_by_one`); `ared` and `red` with
  `profile = "ns2"` (ns-2.35's rules; without the profile aqmlab's rules are not ns-2's), their
  units, mean packet, thresholds, w_q, max_p, gentle, bottom, and the forced-drop / ECN rules,
  which ns-2.35 ties together in one switch: `use_mark_p_ false` = forced drop from the
  average and every early selection of an ECT packet marked (`forced_drop_on_avg = true`,
  `ecn_rule = "always"`); `use_mark_p_ true` = no forced drop from the average, a mark only
  while p_b ≤ `mark_p_` (`forced_drop_on_avg = false`, `ecn_mark_p`). Without ECN only the
  forced drop matters. Any other combination (ns-2.1b9's `ecn_rule = "gentle_drop"` with the
  forced drop, for instance) is refused, unless the grid runs with `nearest` (`--ns2-nearest`):
  then ns-2.1b9's pair runs as ns-2.35's `use_mark_p_ false`, which marks ECT packets in the
  gentle region where ns-2.1b9 drops them, and the point carries that note (`NEAREST_GENTLE_DROP`).
- TCP: Full-TCP Reno or SACK, MSS, initial window, window = receive window / MSS (whole
  segments), tick, minimum, initial and maximum RTO, ECN; no delayed ACK, no timestamps. The
  aqmlab-side rules that imitate Full-TCP (`ns2_fulltcp`, `ssthresh`, `backoff_reset`,
  `slow_start`) need no ns-2 option: ns-2 runs Full-TCP whatever they say.
- workload: two PackMime clouds, one each way, at one rate (`-rate`).
- run: seed (`-seed`: ns-2's substream), warm-up, measured time; `stop_after_responses` is
  checked after the run (aqmlab.ns2grid.parse): ns-2 cannot stop at a count of responses, so a
  run that reached the count is a failed run, never a result.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from aqmlab import _core

REPO_ROOT = Path(__file__).resolve().parents[3]
TCL = REPO_ROOT / "validation" / "ns2" / "twin" / "seed001.tcl"

_SIZE = re.compile(r"^\s*([0-9]+)\s*B\s*$")
_FRACTION = re.compile(r"^\s*([0-9.]+)\s*/\s*([0-9.]+)\s*$")
#: aqmlab's maximum RTO when a scenario gives none (crates/tcp/src/config.rs), seconds.
DEFAULT_MAX_RTO_S = 60.0
#: aqmlab's dumbbell access queue when a scenario gives none (crates/scenario/src/topology.rs).
DEFAULT_ACCESS_LIMIT = 1000
#: Full-TCP rules aqmlab imitates on its own side only (validation/ns2/twin/twins.py).
AQMLAB_SIDE_TCP = ("ns2_fulltcp", "ssthresh", "backoff_reset", "slow_start")


class Refused(ValueError):
    """A sweep point ns-2.35's script cannot express; the message is `KEY: reason`."""


def _twins():
    """validation/ns2/twin/twins.py (duration and rate parsing of the twins)."""
    name = "ns2_seed001_twins"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, TCL.parent / "twins.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def effective(doc: dict) -> dict:
    """The scenario one run of a sweep runs: `doc` with its single `[[variant]]` merged in by
    the core's rule (`_core.variant_documents`)."""
    variants = doc.get("variant") or []
    if len(variants) > 1:
        raise Refused(f"variant: {len(variants)} variants in one run (expected at most one)")
    if not variants:
        return {k: v for k, v in doc.items() if k != "variant"}
    return _core.variant_documents(doc, "run")[0][1]


def _secs(v, key: str) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        raise Refused(f'{key}: expected a duration such as "10ms", got {v!r}')
    try:
        return _twins().seconds(v, key)
    except ValueError as e:
        raise Refused(str(e)) from None


def _bps(v, key: str) -> int:
    try:
        return _twins().bits_per_s(v, key)
    except ValueError as e:
        raise Refused(str(e)) from None


def _bytes(v, key: str) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return v
    m = _SIZE.match(v) if isinstance(v, str) else None
    if not m or int(m.group(1)) <= 0:
        raise Refused(f'{key}: expected a size in bytes such as "1420B", got {v!r}')
    return int(m.group(1))


def _number(v, key: str) -> float:
    """A number, or a fraction written "1/512"."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    m = _FRACTION.match(v) if isinstance(v, str) else None
    if not m or float(m.group(2)) == 0:
        raise Refused(f'{key}: expected a number or a fraction such as "1/512", got {v!r}')
    return float(m.group(1)) / float(m.group(2))


def num(x: float) -> str:
    """Shortest faithful text of a number for the command line (120.0 → "120")."""
    return f"{x:.12g}"


def _only(table: dict, allowed: tuple[str, ...], where: str, why: str) -> None:
    for k in table:
        if k not in allowed:
            raise Refused(f"{where}.{k} = {table[k]!r}: {why}")


def _given(tcp: dict, key: str):
    if key not in tcp:
        raise Refused(f"tcp.{key}: not given (seed001.tcl needs it explicitly)")
    return tcp[key]


def _bool(table: dict, key: str, default: bool, where: str) -> bool:
    v = table.get(key, default)
    if not isinstance(v, bool):
        raise Refused(f"{where}.{key}: expected true or false, got {v!r}")
    return v


# --- queues ---------------------------------------------------------------------------------

_DT_KEYS = ("kind", "limit", "ns2_off_by_one", "profile")
_RED_COMMON = ("kind", "profile", "limit", "mean_pktsize", "byte_mode", "queue_in_bytes",
               "forced_drop_on_avg", "bottom", "ecn", "ecn_rule", "ecn_mark_p")  # fmt: skip
_ARED_KEYS = (*_RED_COMMON, "target_delay")
_RED_KEYS = (*_RED_COMMON, "min_th", "max_th", "w_q", "max_p", "gentle")
_NO_COUNTERPART = "no counterpart in seed001.tcl (its RED is ns-2.35's Queue/RED with its defaults)"


def queue_args(q: dict, where: str, ecn_tcp: bool) -> list[str]:
    """seed001.tcl's queue options for one aqmlab queue table (`where` names it in refusals)."""
    if not isinstance(q, dict):
        raise Refused(f"{where}: expected a table")
    kind = q.get("kind")
    if kind == "droptail":
        _only(q, _DT_KEYS, where, "no counterpart in seed001.tcl's DropTail")
        profile = q.get("profile")
        if profile not in (None, "ns2"):
            raise Refused(f"{where}.profile = {profile!r}: only the ns2 profile has an ns-2 counterpart")
        limit = q.get("limit")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise Refused(f"{where}.limit: expected a whole number of packets ≥ 1, got {limit!r}")
        # ns-2's DropTail holds limit_ − 1 waiting packets; aqmlab holds limit unless off_by_one.
        off_by_one = _bool(q, "ns2_off_by_one", profile == "ns2", where)
        return ["-queue", "droptail", "-limit", str(limit if off_by_one else limit + 1)]
    if kind not in ("ared", "red"):
        raise Refused(f"{where}.kind = {kind!r}: seed001.tcl runs droptail, ared or red only")
    _only(q, _ARED_KEYS if kind == "ared" else _RED_KEYS, where, _NO_COUNTERPART)
    if q.get("profile") != "ns2":
        raise Refused(
            f'{where}.profile: {kind} without profile = "ns2" runs aqmlab\'s own RED rules, '
            "which ns-2.35 does not have"
        )
    limit = q.get("limit")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise Refused(f"{where}.limit: expected a whole number ≥ 1, got {limit!r}")
    if "mean_pktsize" not in q:
        raise Refused(f"{where}.mean_pktsize: not given (seed001.tcl needs it explicitly)")
    mean_pkt = _bytes(q["mean_pktsize"], f"{where}.mean_pktsize")
    byte_mode = _bool(q, "byte_mode", False, where)
    in_bytes = _bool(q, "queue_in_bytes", False, where)
    if byte_mode != in_bytes:
        raise Refused(
            f"{where}.byte_mode = {str(byte_mode).lower()} with queue_in_bytes = "
            f"{str(in_bytes).lower()}: seed001.tcl sets ns-2's bytes_ and queue_in_bytes_ together"
        )
    args = ["-queue", kind, "-limit", str(limit)]
    if kind == "ared":
        if "target_delay" not in q:
            raise Refused(f"{where}.target_delay: not given")
        args += ["-targetdelay", num(_secs(q["target_delay"], f"{where}.target_delay"))]
    args += ["-units", "bytes" if byte_mode else "packets", "-mean_pktsize", str(mean_pkt)]
    if kind == "red":
        for k in ("min_th", "max_th", "w_q", "max_p"):
            if k not in q:
                raise Refused(f"{where}.{k}: not given (seed001.tcl's red needs it explicitly)")
        max_p = _number(q["max_p"], f"{where}.max_p")
        if not 0 < max_p <= 1:
            raise Refused(f"{where}.max_p: must be in (0, 1], got {q['max_p']!r}")
        args += [
            "-thresh", num(_number(q["min_th"], f"{where}.min_th")),
            "-maxthresh", num(_number(q["max_th"], f"{where}.max_th")),
            "-q_weight", num(_number(q["w_q"], f"{where}.w_q")),
            "-max_p", num(max_p),
            "-gentle", "1" if _bool(q, "gentle", True, where) else "0",  # the ns2 profile: gentle
        ]  # fmt: skip
    forced = _bool(q, "forced_drop_on_avg", False, where)  # the ns2 profile: none
    ecn = _bool(q, "ecn", False, where)
    if ecn != ecn_tcp:
        raise Refused(
            f"{where}.ecn = {str(ecn).lower()} with tcp.ecn = {str(ecn_tcp).lower()}: seed001.tcl "
            "switches ECN in the queues and the TCPs together"
        )
    mark_p = None
    if ecn:
        if "ecn_mark_p" in q:
            rule = f"mark_p({num(_number(q['ecn_mark_p'], f'{where}.ecn_mark_p'))})"
        else:  # the ns2 profile's default with ECN: ns-2.35's mark_p_ 0.1
            rule = q.get("ecn_rule", "mark_p(0.1)")
        if forced and rule == "always":
            pass
        elif not forced and rule.startswith("mark_p("):
            mark_p = rule[len("mark_p(") : -1]
        else:
            raise Refused(
                f"{where}.ecn_rule = {rule!r} with forced_drop_on_avg = {str(forced).lower()}: "
                "ns-2.35's Queue/RED has one switch for both (use_mark_p_ false: forced drop "
                'from the average and every early selection marked, i.e. ecn_rule = "always"; '
                "true: no forced drop, a mark while p_b ≤ mark_p_), so this pair has no ns-2.35 "
                "setting"
            )
    elif "ecn_rule" in q or "ecn_mark_p" in q:
        pass  # no ECN: the rule never acts
    args += ["-use_mark_p", "0" if forced else "1"]
    if mark_p is not None:
        args += ["-mark_p", mark_p]
    if "bottom" in q:
        b = _number(q["bottom"], f"{where}.bottom")
        if not 0 < b < 1:
            raise Refused(f"{where}.bottom: must be in (0, 1), got {q['bottom']!r}")
        args += ["-bottom", num(b)]
    return args


# --- the whole point ------------------------------------------------------------------------

_TOP_KEYS = ("run", "topology", "queue", "reverse_queue", "tcp", "workload")
_RUN_KEYS = ("seed", "warmup", "duration", "stop_after_responses")
_TOPO_KEYS = ("kind", "clients", "servers", "access_rate", "access_delay", "bottleneck_rate",
              "bottleneck_delay", "access_queue", "delaybox")  # fmt: skip
_TCP_KEYS = ("variant", "ecn", "mss", "initial_window", "receive_window", "timestamps",
             "clock_granularity", "min_rto", "initial_rto", "max_rto", "delayed_ack",
             *AQMLAB_SIDE_TCP)  # fmt: skip
_WL_KEYS = ("kind", "rate", "direction", "delaybox")
_PACKMIME_BOXES = {"client": "packmime", "server": "packmime"}


@dataclass(frozen=True)
class Ns2Point:
    """The ns-2 run of one sweep point: the script's options (without `-out`), the RTT CDF file
    it reads (name → text, written beside the runs), and the run's timing for the parser."""

    args: tuple[str, ...]
    files: tuple[tuple[str, str], ...]
    warmup_s: float
    measured_s: float
    bottleneck_bps: int
    stop_after_responses: int | None
    #: The ns-2 script and the files it sources (their text is part of the run's key); `args`
    #: may hold OUT where the script takes its output directory, else `-out DIR` is appended.
    script: Path = TCL
    sources: tuple[Path, ...] = ()
    #: Which parser reads the run's output: "seed001" (aqmlab.ns2grid.parse) or "pisa"
    #: (aqmlab.ns2grid.pisa).
    output: str = "seed001"
    #: Per-point facts the parser needs (e.g. pisa's base RTT per web flow), as (name, value).
    facts: tuple = ()
    #: Settings run at ns-2.35's nearest counterpart instead of refused (`ns2_point(nearest=True)`),
    #: each a sentence saying what differs; empty for an exact mapping. Not part of `key()`: the
    #: ns-2 run is the one its options say.
    nearest: tuple[str, ...] = ()

    def key(self) -> str:
        """A name for the run: the hash of its options, its input files and the script's text
        (same point and script, same run; a changed script runs every point again)."""
        if self.script == TCL and not self.sources:  # seed001's keys as published before
            what = repr((self.args, self.files, script_digest()))
        else:
            digests = tuple(script_digest(f) for f in (self.script, *self.sources))
            what = repr((self.args, self.files, digests))
        return hashlib.sha256(what.encode("utf-8")).hexdigest()[:16]


#: The placeholder in Ns2Point.args for the run's output directory.
OUT = "{out}"


@functools.cache
def script_digest(path: Path = TCL) -> str:
    """SHA-256 of an ns-2 script (default seed001.tcl) as it is now."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def rtt_cdf_text(csv_text: str, where: str) -> str:
    """An aqmlab empirical RTT CSV (`value,cdf` in s; a header and `#` comments allowed) as
    ns-2's RandomVariable/Empirical file: "value_ms 0 cdf" per line, value = half the RTT (the
    DelayBox applies it in both directions)."""
    out = []
    for line in csv_text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        parts = [p.strip() for p in s.split(",")]
        try:
            v, c = float(parts[0]), float(parts[1])
        except (ValueError, IndexError):
            if not out:
                continue  # the header
            raise Refused(f"{where}: not a `value,cdf` line: {line!r}") from None
        if not (math.isfinite(v) and 0 <= c <= 1):
            raise Refused(f"{where}: bad point {line!r}")
        out.append(f"{num(v * 1000 / 2)} 0 {num(c)}")
    if not out:
        raise Refused(f"{where}: no points")
    return "\n".join(out) + "\n"


#: What differs when ns-2.1b9's ECN rule runs as ns-2.35's nearest setting (`nearest=True`).
NEAREST_GENTLE_DROP = (
    'queue.ecn_rule = "gentle_drop" (ns-2.1b9: ECT packets dropped in the gentle region) run as '
    "ns-2.35's use_mark_p_ false (marked there too; early marks and forced drops alike otherwise)"
)


def ns2_point(doc: dict, base_dir: str | Path, nearest: bool = False) -> Ns2Point:
    """The ns-2 run of the resolved sweep-point document `doc` (data files relative to
    `base_dir`); raises Refused naming the first key ns-2.35's script cannot express. With
    `nearest`, ns-2.1b9's ECN rule (`ecn_rule = "gentle_drop"` with the forced drop) runs as
    ns-2.35's nearest setting, noted in `Ns2Point.nearest`, instead of being refused."""
    d = effective(doc)
    _only(d, _TOP_KEYS, "scenario", "no counterpart in seed001.tcl")
    run = d.get("run", {})
    _only(run, _RUN_KEYS, "run", "no counterpart in seed001.tcl")
    seed = run.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 1:
        raise Refused(f"run.seed = {seed!r}: ns-2's substreams start at 1")
    warmup = _secs(run.get("warmup", "0s"), "run.warmup")
    measured = _secs(run.get("duration"), "run.duration")
    if warmup != math.floor(warmup):
        raise Refused(f"run.warmup = {run['warmup']!r}: PackMime's warm-up is whole seconds")
    stop = run.get("stop_after_responses")

    topo = d.get("topology", {})
    _only(topo, _TOPO_KEYS, "topology", "no counterpart in seed001.tcl's dumbbell")
    if topo.get("kind") != "dumbbell" or topo.get("clients", 1) != 1 or topo.get("servers", 1) != 1:
        raise Refused("topology: seed001.tcl runs a dumbbell with one client and one server host")
    delay = _secs(topo.get("access_delay", "0s"), "topology.access_delay")
    if _secs(topo.get("bottleneck_delay", "0s"), "topology.bottleneck_delay") != delay:
        raise Refused("topology.bottleneck_delay: seed001.tcl gives every link one delay (-delay)")
    bottleneck = _bps(topo.get("bottleneck_rate"), "topology.bottleneck_rate")
    access = _bps(topo.get("access_rate"), "topology.access_rate")
    aq = topo.get("access_queue", {"kind": "droptail", "limit": DEFAULT_ACCESS_LIMIT})
    if not isinstance(aq, dict) or aq.get("kind") != "droptail" or set(aq) - {"kind", "limit"}:
        raise Refused(f"topology.access_queue = {aq!r}: seed001.tcl's access queues are plain DropTail")
    access_limit = aq.get("limit", DEFAULT_ACCESS_LIMIT) + 1  # ns-2 holds limit_ − 1

    q = d.get("queue")
    if q is None:
        raise Refused("queue: none given")
    if "reverse_queue" in d and d["reverse_queue"] != q:
        raise Refused("reverse_queue: seed001.tcl runs the same queue in both directions")
    tcp = d.get("tcp", {})
    _only(tcp, _TCP_KEYS, "tcp", "no counterpart in seed001.tcl's Full-TCP")
    variant = tcp.get("variant", "reno")
    if variant not in ("reno", "sack"):
        raise Refused(f"tcp.variant = {variant!r}: ns-2's PackMime runs Full-TCP Reno or SACK here")
    ecn = _bool(tcp, "ecn", False, "tcp")
    notes: tuple[str, ...] = ()
    if (nearest and ecn and isinstance(q, dict) and q.get("ecn_rule") == "gentle_drop"
            and q.get("forced_drop_on_avg") is True):  # fmt: skip
        q, notes = {**q, "ecn_rule": "always"}, (NEAREST_GENTLE_DROP,)
    qargs = queue_args(q, "queue", ecn)
    for k in ("timestamps", "delayed_ack"):
        if _bool(tcp, k, k == "delayed_ack", "tcp"):
            raise Refused(f"tcp.{k} = true: seed001.tcl runs Full-TCP without it")
    mss = _bytes(tcp.get("mss"), "tcp.mss")
    rwnd = _bytes(tcp.get("receive_window"), "tcp.receive_window")
    if rwnd % mss:
        raise Refused(f"tcp.receive_window: {rwnd} B is not a whole number of {mss}-byte segments")
    iw = tcp.get("initial_window")
    if not isinstance(iw, int) or isinstance(iw, bool) or iw < 1:
        raise Refused(f"tcp.initial_window: expected segments ≥ 1, got {iw!r}")

    wls = d.get("workload", [])
    if not isinstance(wls, list) or len(wls) != 2:
        raise Refused("workload: seed001.tcl runs two PackMime clouds, one each way")
    dirs, rates, boxes = [], [], []
    for i, w in enumerate(wls):
        _only(w, _WL_KEYS, f"workload[{i}]", "no counterpart in seed001.tcl's PackMime")
        if w.get("kind") != "packmime":
            raise Refused(f"workload[{i}].kind = {w.get('kind')!r}: seed001.tcl runs PackMime")
        dirs.append(w.get("direction", "forward"))
        r = w.get("rate")
        if not isinstance(r, (int, float)) or isinstance(r, bool) or r <= 0:
            raise Refused(f"workload[{i}].rate: expected connections/s > 0, got {r!r}")
        rates.append(float(r))
        boxes.append(w.get("delaybox"))
    if sorted(dirs) != ["forward", "reverse"]:
        raise Refused(f"workload: directions {dirs}; seed001.tcl runs one cloud each way")
    if rates[0] != rates[1]:
        raise Refused(f"workload: rates {rates[0]:g} and {rates[1]:g}; seed001.tcl runs both at one -rate")

    files: list[tuple[str, str]] = []
    rtt_args: list[str] = []
    box = topo.get("delaybox")
    if box is not None:
        if any(b is not None for b in boxes):
            raise Refused("workload.delaybox: with topology.delaybox as well")
        rtt = box.get("rtt") if isinstance(box, dict) else None
        if set(box) != {"rtt"} or not isinstance(rtt, dict) or rtt.get("dist") != "empirical" \
                or set(rtt) != {"dist", "file"}:  # fmt: skip
            raise Refused(
                f"topology.delaybox = {box!r}: seed001.tcl draws a connection's RTT from an "
                'empirical file only (rtt = { dist = "empirical", file = ... })'
            )
        path = Path(base_dir) / rtt["file"]
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise Refused(f"topology.delaybox.rtt.file: cannot read {path}: {e.strerror}") from None
        name = f"rtt_{hashlib.sha256(text.encode()).hexdigest()[:12]}.cdf"
        files.append((name, rtt_cdf_text(text, f"{path}")))
        rtt_args = ["-rtt_file", name]
    elif boxes == [_PACKMIME_BOXES, _PACKMIME_BOXES]:
        pass  # the script's default: PackMime's client and server tables
    else:
        raise Refused("delaybox: none, or not PackMime's client and server tables on both clouds")

    args = [
        "-bottleneck", str(bottleneck), "-access", str(access), "-delay", num(delay),
        "-access_limit", str(access_limit), *qargs,
        "-tcp", variant, "-ecn", "1" if ecn else "0", "-mss", str(mss), "-iw", str(iw),
        "-window", str(rwnd // mss),
        "-tick", num(_secs(_given(tcp, "clock_granularity"), "tcp.clock_granularity")),
        "-minrto", num(_secs(_given(tcp, "min_rto"), "tcp.min_rto")),
        "-rto0", num(_secs(_given(tcp, "initial_rto"), "tcp.initial_rto")),
        "-maxrto", num(_secs(tcp.get("max_rto", f"{DEFAULT_MAX_RTO_S:g}s"), "tcp.max_rto")),
        "-rate", num(rates[0]), "-seed", str(seed), "-warmup", num(warmup),
        "-duration", num(measured), *rtt_args,
    ]  # fmt: skip
    if stop is not None and (not isinstance(stop, int) or isinstance(stop, bool) or stop < 1):
        raise Refused(f"run.stop_after_responses: expected a count ≥ 1, got {stop!r}")
    return Ns2Point(tuple(args), tuple(files), warmup, measured, bottleneck, stop, nearest=notes)
