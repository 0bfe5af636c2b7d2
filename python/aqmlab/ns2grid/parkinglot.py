"""Seed 002 (weigle-multi) sweep points as runs of the seed 002 twin's ns-2 script
(validation/ns2/parkinglot_twin/parkinglot.tcl), and that script's output as the study's columns.

A point becomes a parameter file the script reads instead of the twin's parkinglot_params.tcl
(the same keys; the twin's definition.toml says what each is) and the queue argument `mix`:

- routers, link rate and delay; every router link drop-tail at the `[queue]` limit L (ns-2's
  DropTail limit_ L + 1: it holds limit_ − 1), access links at aqmlab's default 1000 (1001);
  clouds = router, hosts, access rate and delay; `bottleneck` = the link the `link` lines measure.
- `topology.link_queue`: each direction named gets its queue (`P(link_queues)`): `pi` (a, b,
  w_hz, q_ref, limit, mean_pktsize, byte_mode → bytes_ + queue_in_bytes_, ecn → setbit_: ECT
  marked, the rest dropped, as aqmlab) and `rem` with `ecn = "ns2_markpkts"` (ns-2's only ECN
  rule for REM; the ns2-rem-markpkts reading). ns-2 sets PI's and REM's parameters per class,
  so every PI (every REM) link of a point must have the same ones. Refused: `ared` (the script
  has no RED, and the study's ARED+ECN is ns-2.1b9's rule — forced drop from the average with
  marks below max_th — which ns-2.35's Queue/RED cannot set either: aqmlab.ns2grid.command) and
  REM with `ecn = true` (RFC 3168 drops of non-ECT packets: ns-2's REM has no such mode).
- TCP: Full-TCP NewReno, ECN, mss, IW, window = receive window / mss (whole segments), RTO
  floor/initial/ceiling, tick, dupACK threshold; the Full-TCP imitation keys need nothing.
- workloads: `packmime` HTTP/1.1 with PackMime's client/server DelayBox tables at its rate;
  `bulk` flows (client i, server i of the clouds) all started at the warm-up, never ending, with
  PackMime DelayBox tables at one rate. Workload 0 is the measured end-to-end class (rt.dat).

Columns (`parkinglot_metrics`, aqmlab.studies.weigle_multi's names and definitions):
ll_goodput_kbps from the r7→r8 bytes and packets (`goodput_from_links`), ll_loss_pct = 100 ·
retransmitted / (delivered + retransmitted) data segments of workload 2 (ns-2: its senders' bytes
sent again / mss: every long-lived segment is full-size), and the e2e_* response-time columns of
workload 0's exchanges written at or after the warm-up (PackMime's outfile: request written to
response complete). http_loss_pct is NaN: PackMime's agents are not counted per segment.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from aqmlab.ns2grid import parse
from aqmlab.ns2grid.command import (
    AQMLAB_SIDE_TCP,
    DEFAULT_ACCESS_LIMIT,
    OUT,
    REPO_ROOT,
    Ns2Point,
    Refused,
    _bool,
    _bps,
    _number,
    _only,
    _secs,
    effective,
    num,
)
from aqmlab.ns2grid.pisa import TCP_DEFAULTS, size_bytes

SCRIPT = REPO_ROOT / "validation" / "ns2" / "parkinglot_twin" / "parkinglot.tcl"
#: aqmlab's TCP defaults the script needs besides pisa's (crates/tcp/src/config.rs: mss 1460).
MSS_DEFAULT = "1460B"
#: aqmlab's PI and REM defaults (crates/aqm; the twin's definition.toml writes them out).
PI_DEFAULTS = {"a": 1.822e-5, "b": 1.816e-5, "w_hz": 170.0}
REM_DEFAULTS = {"gamma": 0.001, "phi": 1.001, "input_weight": 1.0, "update_period": "2ms"}
_LINK = re.compile(r"^r([0-9]+)_r([0-9]+)$")
ARED_REFUSAL = (
    "parkinglot.tcl has no RED queue, and the study's ARED+ECN rule (forced drop from the "
    "average, marks below max_th: ns-2.1b9's) has no ns-2.35 Queue/RED setting either "
    "(aqmlab.ns2grid.command: use_mark_p_ ties the two together)"
)
REM_ECN_REFUSAL = (
    "ecn = true is RFC 3168 REM (non-ECT packets chosen are dropped, seed 002 §IV-B); ns-2.35's "
    'Queue/REM has one ECN rule, markpkts_ (the reading "ns2-rem-markpkts" runs it)'
)


def _tcl_list(items) -> str:
    return "{" + " ".join(items) + "}"


def _pi(q: dict, where: str) -> dict[str, str]:
    _only(q, ("kind", "a", "b", "w_hz", "q_ref", "limit", "mean_pktsize", "byte_mode", "ecn"), where,
          "no counterpart in parkinglot.tcl's Queue/PI")  # fmt: skip
    t = {**PI_DEFAULTS, **q}
    byte_mode = "true" if _bool(q, "byte_mode", False, where) else "false"
    for k in ("q_ref", "limit", "mean_pktsize"):
        if k not in q:
            raise Refused(f"{where}.{k}: not given")
    return {
        "pi_a": num(_number(t["a"], f"{where}.a")), "pi_b": num(_number(t["b"], f"{where}.b")),
        "pi_w": num(_number(t["w_hz"], f"{where}.w_hz")),
        "pi_qref": num(_number(q["q_ref"], f"{where}.q_ref")), "pi_limit": str(int(q["limit"])),
        "pi_mean_pktsize": str(size_bytes(q["mean_pktsize"], f"{where}.mean_pktsize")),
        "pi_bytes": byte_mode, "pi_queue_in_bytes": byte_mode,
        "pi_setbit": "true" if _bool(q, "ecn", False, where) else "false",
    }  # fmt: skip


def _rem(q: dict, where: str) -> dict[str, str]:
    _only(q, ("kind", "gamma", "phi", "input_weight", "update_period", "b_star", "limit",
              "mean_pktsize", "byte_mode", "ecn"), where,
          "no counterpart in parkinglot.tcl's Queue/REM")  # fmt: skip
    ecn = q.get("ecn", False)
    if ecn is True:
        raise Refused(f"{where}.ecn = true: {REM_ECN_REFUSAL}")
    if ecn not in (False, "ns2_markpkts"):
        raise Refused(f"{where}.ecn = {ecn!r}: ns-2.35's Queue/REM has markpkts_ only")
    for k in ("b_star", "limit", "mean_pktsize"):
        if k not in q:
            raise Refused(f"{where}.{k}: not given")
    t = {**REM_DEFAULTS, **q}
    return {
        "rem_gamma": num(_number(t["gamma"], f"{where}.gamma")),
        "rem_phi": num(_number(t["phi"], f"{where}.phi")),
        "rem_inw": num(_number(t["input_weight"], f"{where}.input_weight")),
        "rem_pupdtime": num(_secs(t["update_period"], f"{where}.update_period")),
        "rem_pbo": num(_number(q["b_star"], f"{where}.b_star")), "rem_limit": str(int(q["limit"])),
        "rem_mean_pktsize": str(size_bytes(q["mean_pktsize"], f"{where}.mean_pktsize")),
        "rem_qib": "true" if _bool(q, "byte_mode", False, where) else "false",
        "rem_markpkts": "true" if ecn else "false",
    }  # fmt: skip


# The script sets these per class whether or not a link uses them: the twin's values.
_UNUSED_PI = {"pi_a": "1.822e-05", "pi_b": "1.816e-05", "pi_w": "170", "pi_qref": "20", "pi_limit": "200",
              "pi_mean_pktsize": "615", "pi_bytes": "true", "pi_queue_in_bytes": "true",
              "pi_setbit": "true"}  # fmt: skip
_UNUSED_REM = {"rem_gamma": "0.001", "rem_phi": "1.001", "rem_inw": "1", "rem_pupdtime": "0.002",
               "rem_pbo": "20", "rem_limit": "200", "rem_mean_pktsize": "615", "rem_qib": "true",
               "rem_markpkts": "true"}  # fmt: skip


def _link_queues(topo: dict, routers: int) -> tuple[list[str], dict[str, str]]:
    """P(link_queues) entries and the PI/REM class parameters of `topology.link_queue`."""
    lq = topo.get("link_queue", {})
    if not isinstance(lq, dict):
        raise Refused("topology.link_queue: expected a table")
    entries, params = [], {}
    for name, q in lq.items():
        where = f"topology.link_queue.{name}"
        m = _LINK.match(name)
        if not m or abs(int(m.group(1)) - int(m.group(2))) != 1 or max(map(int, m.groups())) >= routers:
            raise Refused(f"{where}: not a router link of the parking lot")
        kind = q.get("kind") if isinstance(q, dict) else None
        if kind == "ared":
            raise Refused(f"{where}.kind = 'ared': {ARED_REFUSAL}")
        if kind == "droptail":
            raise Refused(f"{where}: a drop-tail link queue other than [queue]: parkinglot.tcl "
                          "gives every drop-tail router link one limit")  # fmt: skip
        if kind not in ("pi", "rem"):
            raise Refused(f"{where}.kind = {kind!r}: parkinglot.tcl runs DropTail, PI or REM")
        p = _pi(q, where) if kind == "pi" else _rem(q, where)
        for k, v in p.items():
            if params.setdefault(k, v) != v:
                var, cls = k[len(kind) + 1 :], kind.upper()
                raise Refused(f"{where}: its {cls} parameters differ from another link's; ns-2 sets "
                              f"{var}_ for the whole Queue/{cls} class")  # fmt: skip
        entries.append(_tcl_list([name, kind]))
    return entries, params


def _tcp(tcp: dict) -> dict[str, str]:
    _only(tcp, ("variant", "ecn", "mss", "initial_window", "receive_window", "min_rto", "initial_rto",
                "max_rto", "clock_granularity", "dupack_threshold", "delayed_ack", "timestamps",
                "limited_transmit", *AQMLAB_SIDE_TCP), "tcp",
          "no counterpart in parkinglot.tcl's Full-TCP")  # fmt: skip
    if tcp.get("variant", "newreno") != "newreno":
        raise Refused(f"tcp.variant = {tcp['variant']!r}: parkinglot.tcl runs Full-TCP NewReno")
    for k in ("timestamps", "limited_transmit"):
        if _bool(tcp, k, False, "tcp"):
            raise Refused(f"tcp.{k} = true: parkinglot.tcl runs Full-TCP without it")
    if tcp.get("delayed_ack", False) is not False:
        raise Refused(f"tcp.delayed_ack = {tcp['delayed_ack']!r}: parkinglot.tcl ACKs every segment")
    t = {**TCP_DEFAULTS, "mss": MSS_DEFAULT, **tcp}
    mss = size_bytes(t["mss"], "tcp.mss")
    rwnd = size_bytes(t["receive_window"], "tcp.receive_window")
    if rwnd % mss:
        raise Refused(f"tcp.receive_window: {rwnd} B is not a whole number of {mss}-byte segments")
    iw = t["initial_window"]
    if not isinstance(iw, int) or isinstance(iw, bool) or iw < 1:
        raise Refused(f"tcp.initial_window: expected segments ≥ 1, got {iw!r}")
    return {
        "mss": str(mss), "iw": str(iw), "window": str(rwnd // mss),
        "min_rto": num(_secs(t["min_rto"], "tcp.min_rto")),
        "initial_rto": num(_secs(t["initial_rto"], "tcp.initial_rto")),
        "max_rto": num(_secs(t["max_rto"], "tcp.max_rto")),
        "tick": num(_secs(t["clock_granularity"], "tcp.clock_granularity")),
        "dupack_threshold": str(int(t["dupack_threshold"])),
        "ecn": "1" if _bool(tcp, "ecn", False, "tcp") else "0",
    }  # fmt: skip


def _workloads(wls, clouds: dict, warmup: float) -> tuple[list[str], list[str]]:
    """P(http) and P(bulk) entries, in the scenario's workload order."""
    if not isinstance(wls, list) or not wls:
        raise Refused("workload: none given")
    http, bulk = [], []
    for i, w in enumerate(wls):
        where = f"workload[{i}]"
        if not isinstance(w, dict):
            raise Refused(f"{where}: expected a table")
        for side in ("client_cloud", "server_cloud"):
            if w.get(side) not in clouds:
                raise Refused(f"{where}.{side} = {w.get(side)!r}: not a cloud of the topology")
        box = w.get("delaybox")
        if w.get("kind") == "packmime":
            _only(w, ("kind", "http", "rate", "server_cloud", "client_cloud", "delaybox"), where,
                  "no counterpart in parkinglot.tcl's PackMimeHTTP")  # fmt: skip
            if w.get("http") != "1.1":
                raise Refused(f"{where}.http = {w.get('http')!r}: parkinglot.tcl runs PackMime HTTP/1.1")
            if box != {"client": "packmime", "server": "packmime"}:
                raise Refused(f"{where}.delaybox = {box!r}: parkinglot.tcl adds PackMime's client and "
                              "server tables at the workload's rate")  # fmt: skip
            rate = _number(w.get("rate"), f"{where}.rate")
            http.append(_tcl_list([str(i), w["client_cloud"], w["server_cloud"], num(rate)]))
        elif w.get("kind") == "bulk":
            _only(w, ("kind", "server_cloud", "client_cloud", "flows", "delaybox"), where,
                  "no counterpart in parkinglot.tcl's long-lived flows")  # fmt: skip
            rates = {s: b.get("rate") for s, b in (box or {}).items() if isinstance(b, dict)
                     and b.get("dist") == "packmime" and set(b) == {"dist", "rate"}}  # fmt: skip
            one_rate = set(rates) == {"client", "server"} and len(set(rates.values())) == 1
            if not isinstance(box, dict) or not one_rate:
                raise Refused(f"{where}.delaybox = {box!r}: parkinglot.tcl adds PackMime's tables at "
                              "one rate to long-lived flows")  # fmt: skip
            pairs = []
            for j, f in enumerate(w.get("flows") or []):
                fw = f"{where}.flows[{j}]"
                if not isinstance(f, dict) or set(f) != {"start", "client", "server", "bytes"}:
                    raise Refused(f"{fw}: expected start, client, server and bytes")
                if _secs(f["start"], f"{fw}.start") != warmup:
                    raise Refused(f"{fw}.start = {f['start']!r}: parkinglot.tcl starts long-lived "
                                  "flows at the warm-up")  # fmt: skip
                if size_bytes(f["bytes"], f"{fw}.bytes") < 10**9:
                    raise Refused(f"{fw}.bytes = {f['bytes']!r}: parkinglot.tcl's long-lived flows never end")
                for side, cloud in (("client", "client_cloud"), ("server", "server_cloud")):
                    h = f[side]
                    if not isinstance(h, int) or not 0 <= h < clouds[w[cloud]][1]:
                        raise Refused(f"{fw}.{side} = {h!r}: not a host of {w[cloud]}")
                pairs.append(_tcl_list([str(f["client"]), str(f["server"])]))
            if not pairs:
                raise Refused(f"{where}.flows: none given")
            bulk.append(_tcl_list([str(i), w["client_cloud"], w["server_cloud"],
                                   num(_number(rates["client"], f"{where}.delaybox.client.rate")),
                                   _tcl_list(pairs)]))  # fmt: skip
        else:
            raise Refused(f"{where}.kind = {w.get('kind')!r}: parkinglot.tcl runs packmime and bulk")
    if not wls[0].get("kind") == "packmime":
        raise Refused("workload[0]: parkinglot.tcl measures workload 0, which must be PackMime HTTP")
    return http, bulk


def parkinglot_point(doc: dict, base_dir: str | Path) -> Ns2Point:
    """The parkinglot.tcl run of the resolved weigle-multi sweep-point document `doc`; raises
    Refused naming the first key the script cannot express."""
    d = effective(doc)
    _only(d, ("run", "topology", "queue", "tcp", "workload"), "scenario", "no counterpart in parkinglot.tcl")
    run = d.get("run", {})
    _only(run, ("seed", "warmup", "duration"), "run", "no counterpart in parkinglot.tcl")
    seed = run.get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 1:
        raise Refused(f"run.seed = {seed!r}: ns-2's substreams start at 1")
    warmup = _secs(run.get("warmup", "0s"), "run.warmup")
    if warmup != math.floor(warmup):
        raise Refused(f"run.warmup = {run['warmup']!r}: PackMime's warm-up is whole seconds")
    measured = _secs(run.get("duration"), "run.duration")

    topo = d.get("topology", {})
    _only(topo, ("kind", "routers", "link_rate", "link_delay", "bottleneck", "clouds", "link_queue"),
          "topology", "no counterpart in parkinglot.tcl's parking lot")  # fmt: skip
    routers = topo.get("routers")
    if topo.get("kind") != "parking_lot" or not isinstance(routers, int) or routers < 2:
        raise Refused("topology: parkinglot.tcl runs a parking lot of 2 or more routers")
    q = d.get("queue")
    if not isinstance(q, dict) or q.get("kind") != "droptail" or set(q) != {"kind", "limit"}:
        raise Refused(f"queue = {q!r}: parkinglot.tcl's router links are plain drop-tail")
    bottleneck = topo.get("bottleneck", "r0_r1")
    if not isinstance(bottleneck, str) or not _LINK.match(bottleneck):
        raise Refused(f"topology.bottleneck = {bottleneck!r}: not a router link")
    clouds = {}
    for name, c in (topo.get("clouds") or {}).items():
        where = f"topology.clouds.{name}"
        _only(c, ("router", "hosts", "access_rate", "access_delay"), where,
              "no counterpart in parkinglot.tcl's clouds (access queues: aqmlab's default)")  # fmt: skip
        clouds[name] = (int(c["router"]), int(c["hosts"]), _bps(c.get("access_rate"), f"{where}.access_rate"),
                        _secs(c.get("access_delay", "0s"), f"{where}.access_delay"))  # fmt: skip
    entries, qparams = _link_queues(topo, routers)
    http, bulk = _workloads(d.get("workload"), clouds, warmup)
    link_bps = _bps(topo.get("link_rate"), "topology.link_rate")
    params = {
        "routers": str(routers), "link_bps": str(link_bps),
        "link_delay": num(_secs(topo.get("link_delay", "0s"), "topology.link_delay")),
        "congested": bottleneck, "router_limit": str(int(q["limit"]) + 1),  # ns-2 holds limit_ − 1
        "access_limit": str(DEFAULT_ACCESS_LIMIT + 1),
        "clouds": _tcl_list(_tcl_list([n, str(r), str(h), str(b), num(dl)])
                            for n, (r, h, b, dl) in clouds.items()),
        **_tcp(d.get("tcp", {})),
        "http": _tcl_list(http), "bulk": _tcl_list(bulk),
        **_UNUSED_PI, **_UNUSED_REM, **qparams,
        "link_queues": _tcl_list(entries),
    }  # fmt: skip
    text = "# Parameters of parkinglot.tcl for one aqmlab sweep point (aqmlab.ns2grid.parkinglot).\n"
    text += "".join(f"set P({k}) {v}\n" for k, v in params.items())
    name = f"parkinglot_{hashlib.sha256(text.encode()).hexdigest()[:12]}.tcl"
    args = ("mix", str(seed), num(warmup), num(measured), OUT, name)
    facts = (("mss", int(params["mss"])),)
    return Ns2Point(args, ((name, text),), warmup, measured, link_bps, None, script=SCRIPT,
                    output="parkinglot", facts=facts)  # fmt: skip


def parkinglot_metrics(run_dir: Path, stdout: str, point: Ns2Point) -> dict[str, float]:
    """The study's row columns (aqmlab.studies.weigle_multi names) from one parkinglot.tcl run."""
    from aqmlab.studies.weigle_multi import LL_LINK, LONG_LIVED, goodput_from_links

    where = f"{run_dir}/stdout.txt"
    ll, retx_b = None, None
    for line in stdout.splitlines():
        tag, *rest = line.split() or [""]
        try:
            kv = {k: float(v) for k, v in (p.split("=", 1) for p in rest)} if tag in ("ll", "bulk") else {}
        except ValueError:
            raise parse.ParseError(f"{where}: bad {tag} line {line!r}") from None
        if tag == "ll":
            ll = kv
        elif tag == "bulk" and kv.get("wl") == LONG_LIVED:
            retx_b = kv["retx_bytes"]
    if ll is None or retx_b is None:
        raise parse.ParseError(f"{where}: no ll line or no bulk line of workload {LONG_LIVED}")
    w_ns = round(point.warmup_s * 1e9)
    links = pd.DataFrame({"link": [LL_LINK], "t_ns": [w_ns + 1], "bytes": [ll["bytes"]],
                          "packets": [ll["packets"]]})  # fmt: skip
    n, goodput = goodput_from_links(links, w_ns, point.measured_s)
    retx = retx_b / dict(point.facts)["mss"]  # long-lived segments are all full-size
    rt = parse._columns(run_dir / "rt.dat", 4)  # end_s, request B, response B, rt ms
    start = rt[:, 0] - rt[:, 3] / 1000.0
    rt_ms = rt[start >= point.warmup_s - 1e-6, 3]
    nan = math.nan
    return {
        "measured_s": point.measured_s,
        "ll_goodput_kbps": goodput,
        "ll_loss_pct": 100 * retx / (n + retx) if n + retx > 0 else nan,
        "http_loss_pct": nan,
        "e2e_median_rt_ms": float(np.median(rt_ms)) if len(rt_ms) else nan,
        "e2e_mean_rt_ms": float(rt_ms.mean()) if len(rt_ms) else nan,
        "e2e_pct_le_1s": 100 * float((rt_ms <= 1000).mean()) if len(rt_ms) else nan,
        "e2e_pct_le_2s": 100 * float((rt_ms <= 2000).mean()) if len(rt_ms) else nan,
        "e2e_responses": float(len(rt_ms)),
    }
