"""Seed 003 (pisa) sweep points as runs of the seed 003 twin's ns-2 script
(validation/ns2/pisa_twin/standard.tcl), and that script's output as the study's columns.

Mapping (`pisa_point`; every key of the resolved point is mapped or named in the refusal):

- network: the dumbbell's H client and H server hosts (`-hosts`), client/server access rates
  and one access delay, bottleneck rate and delay; DropTail queues hold limit_ − 1 waiting
  packets in ns-2, so aqmlab's limit L (without `profile = "ns2"`) is ns-2's L + 1 (access,
  reverse and drop-tail forward queues alike).
- `[topology.delaybox] matrix_file`: the extra RTT (ms) per client × server; every column of a
  row equal (a per-client extra RTT) → `-client_delays`, half of it added to the client's
  access link each way. The CBR host's row must be 0: its datagrams bypass aqmlab's DelayBox
  but not an ns-2 link.
- forward queue: `pi` (a, b, w_hz, q_ref, limit; packet mode, drops) → Queue/PI; `droptail`.
  PISA and PIMC are seed 003's own queues and are not in ns-2.35: refused.
- TCP: NewReno (ns-2 Full-TCP NewReno), mss, initial window, window = receive window / mss
  whole segments (aqmlab sends only whole segments that fit), RTO floor/initial/ceiling, tick;
  no ECN, no delayed ACK, no timestamps, no Limited Transmit. aqmlab's Full-TCP imitation keys
  need nothing: ns-2 runs Full-TCP whatever they say (the study's points run aqmlab's RFC rules;
  validation/ns2/README.md "Seed 003 twin" measures the difference).
- workloads, in the study's order: `bulk` flows from t = 0 on hosts first … first + n − 1
  (`-ftp_flows`, `-ftp_first_host`; more than the script's 2e9 bytes is "never ends" on both
  sides), `pareto_web` with flow f on client f and server f (`-web_*`), a reverse `cbr`
  (`-cbr_*`).

Columns (`pisa_metrics`, the names and definitions of aqmlab.studies.pisa): drops, drops_per_s,
mean_qlen, utilization (forward bottleneck), responses_completed / pct_completed (web objects
opened at or after the warm-up that completed), util_http / util_ftp (from the completed
objects, aqmlab.studies.pisa's rule), objects_rtt<R> / pct_rtt<R> (aqmlab.studies.pisa.
group_objects on the objects with their flow's base RTT), ftp_drops_per_s = FTP bytes
retransmitted / mss per second (every FTP segment is full-size: exactly aqmlab's retransmitted
data segments). http_drops_per_s is NaN: the script counts web bytes retransmitted, not the
data, SYN and FIN segments aqmlab counts.
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
    DEFAULT_MAX_RTO_S,
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

SCRIPT = REPO_ROOT / "validation" / "ns2" / "pisa_twin" / "standard.tcl"
PARAMS = SCRIPT.with_name("standard_params.tcl")
#: Bytes an FTP flow carries in standard.tcl (ns-2's 32-bit sequence numbers; the script checks
#: that no flow can finish within a run, so a larger aqmlab flow is "never ends" on both sides).
NS2_FTP_BYTES = 2_000_000_000
#: aqmlab's `pareto_web` defaults (crates/scenario/src/workload.rs; seed 003 §4.7).
WEB_DEFAULTS = {"shape": 1.2, "mean": "10KB", "min": "1KB", "max": "2MB", "off_time": "0.5s"}
#: aqmlab's TCP defaults the script needs (crates/tcp/src/config.rs).
TCP_DEFAULTS = {"receive_window": "65535B", "min_rto": "1s", "initial_rto": "3s",
                "max_rto": f"{DEFAULT_MAX_RTO_S:g}s", "clock_granularity": "10ms",
                "dupack_threshold": 3, "initial_window": 2}  # fmt: skip
NOT_IN_NS2 = ("is seed 003's own queue (Kim 2004 §3); ns-2.35 has Queue/PI but no PISA or PIMC, "
              "so this row has no ns-2.35 run")  # fmt: skip

_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(B|KB|kB|MB|GB)\s*$")
_UNIT = {"B": 1, "KB": 10**3, "kB": 10**3, "MB": 10**6, "GB": 10**9}


def size_bytes(v, key: str) -> int:
    """An aqmlab size ("1000B", "10KB", "10GB": decimal units, crates/units) in bytes."""
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return v
    m = _SIZE.match(v) if isinstance(v, str) else None
    if not m:
        raise Refused(f'{key}: expected a size such as "1000B" or "10KB", got {v!r}')
    return round(float(m.group(1)) * _UNIT[m.group(2)])


def _count(v, key: str, least: int = 1) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < least:
        raise Refused(f"{key}: expected a whole number ≥ {least}, got {v!r}")
    return v


def _droptail_limit(q, where: str) -> int:
    """ns-2's DropTail limit_ for an aqmlab droptail table (limit L waiting: L + 1)."""
    if not isinstance(q, dict) or q.get("kind") != "droptail":
        raise Refused(f"{where} = {q!r}: standard.tcl runs drop-tail here")
    keys = ("kind", "limit", "profile", "ns2_off_by_one")
    _only(q, keys, where, "no counterpart in standard.tcl's DropTail")
    profile = q.get("profile")
    if profile not in (None, "ns2"):
        raise Refused(f"{where}.profile = {profile!r}: only the ns2 profile has an ns-2 counterpart")
    limit = _count(q.get("limit"), f"{where}.limit")
    return limit if _bool(q, "ns2_off_by_one", profile == "ns2", where) else limit + 1


def _forward_queue(q, where: str) -> tuple[str, list[str]]:
    if not isinstance(q, dict):
        raise Refused(f"{where}: expected a table")
    kind = q.get("kind")
    if kind in ("pisa", "pimc"):
        raise Refused(f"{where}.kind = {kind!r}: {kind.upper()} {NOT_IN_NS2}")
    if kind == "droptail":
        return "droptail", ["-droptail_limit", str(_droptail_limit(q, where))]
    if kind != "pi":
        raise Refused(f"{where}.kind = {kind!r}: standard.tcl runs pi or droptail on the forward link")
    _only(q, ("kind", "a", "b", "w_hz", "q_ref", "limit"), where,
          "no counterpart in standard.tcl's Queue/PI (packet mode, drops, no ECN)")  # fmt: skip
    for k in ("a", "b", "q_ref", "limit"):
        if k not in q:
            raise Refused(f"{where}.{k}: not given")
    return "pi", [
        "-pi_a", num(_number(q["a"], f"{where}.a")), "-pi_b", num(_number(q["b"], f"{where}.b")),
        "-pi_w", num(_number(q.get("w_hz", 170), f"{where}.w_hz")),  # aqmlab's default 170 Hz
        "-pi_qref", num(_number(q["q_ref"], f"{where}.q_ref")),
        # Queue/PI drops when qlen ≥ limit_: it holds limit_ waiting, as aqmlab's limit
        "-pi_limit", str(_count(q["limit"], f"{where}.limit")),
    ]  # fmt: skip


def _tcp(tcp: dict) -> list[str]:
    _only(tcp, ("variant", "mss", "initial_window", "receive_window", "min_rto", "initial_rto",
                "max_rto", "clock_granularity", "dupack_threshold", "delayed_ack", "timestamps",
                "limited_transmit", "ecn", *AQMLAB_SIDE_TCP), "tcp",
          "no counterpart in standard.tcl's Full-TCP")  # fmt: skip
    if tcp.get("variant", "newreno") != "newreno":
        raise Refused(f"tcp.variant = {tcp['variant']!r}: standard.tcl runs Full-TCP NewReno")
    for k in ("ecn", "timestamps", "limited_transmit"):
        if _bool(tcp, k, False, "tcp"):
            raise Refused(f"tcp.{k} = true: standard.tcl runs Full-TCP without it")
    if tcp.get("delayed_ack", False) is not False:
        raise Refused(f"tcp.delayed_ack = {tcp['delayed_ack']!r}: standard.tcl ACKs every segment")
    t = {**TCP_DEFAULTS, **tcp}
    if "mss" not in tcp:
        raise Refused("tcp.mss: not given (standard.tcl needs it explicitly)")
    mss = size_bytes(t["mss"], "tcp.mss")
    rwnd = size_bytes(t["receive_window"], "tcp.receive_window")
    if rwnd < mss:
        raise Refused(f"tcp.receive_window: {rwnd} B is less than one {mss}-byte segment")
    return [
        "-mss", str(mss), "-iw", str(_count(t["initial_window"], "tcp.initial_window")),
        "-window", str(rwnd // mss),  # aqmlab sends only whole segments that fit the window
        "-min_rto", num(_secs(t["min_rto"], "tcp.min_rto")),
        "-initial_rto", num(_secs(t["initial_rto"], "tcp.initial_rto")),
        "-max_rto", num(_secs(t["max_rto"], "tcp.max_rto")),
        "-tick", num(_secs(t["clock_granularity"], "tcp.clock_granularity")),
        "-dupack_threshold", str(_count(t["dupack_threshold"], "tcp.dupack_threshold")),
    ]  # fmt: skip


def _workloads(wls, hosts: int) -> tuple[list[str], int]:
    """The three workloads' options and the CBR host."""
    if not isinstance(wls, list) or [w.get("kind") if isinstance(w, dict) else None for w in wls] \
            != ["bulk", "pareto_web", "cbr"]:  # fmt: skip
        raise Refused("workload: standard.tcl runs bulk (FTP), pareto_web and cbr, in that order")
    ftp, web, cbr = wls
    _only(ftp, ("kind", "flows"), "workload[0]", "no counterpart in standard.tcl's FTP flows")
    flows = ftp.get("flows")
    if not isinstance(flows, list) or not flows:
        raise Refused("workload[0].flows: expected a list of flows")
    first = flows[0].get("client") if isinstance(flows[0], dict) else None
    ftp_bytes = None
    for i, f in enumerate(flows):
        w = f"workload[0].flows[{i}]"
        if not isinstance(f, dict) or set(f) != {"start", "client", "server", "bytes"}:
            raise Refused(f"{w}: standard.tcl's FTP flows have start, client, server and bytes only")
        if _secs(f["start"], f"{w}.start") != 0:
            raise Refused(f"{w}.start = {f['start']!r}: standard.tcl opens every FTP flow at t = 0")
        if not isinstance(first, int) or f["client"] != first + i or f["server"] != first + i:
            raise Refused(f"{w}: standard.tcl runs FTP flow i between client and server host first + i")
        b = size_bytes(f["bytes"], f"{w}.bytes")
        if ftp_bytes is not None and b != ftp_bytes:
            raise Refused(f"{w}.bytes: standard.tcl gives every FTP flow one size")
        ftp_bytes = b
    _only(web, ("kind", "flows", "clients", "servers", *WEB_DEFAULTS), "workload[1]",
          "no counterpart in standard.tcl's web flows")  # fmt: skip
    n_web = _count(web.get("flows"), "workload[1].flows")
    for k in ("clients", "servers"):
        if web.get(k, n_web) != n_web:
            raise Refused(f"workload[1].{k}: standard.tcl runs web flow f on client f and server f")
    wb = {**WEB_DEFAULTS, **web}
    shape = _number(wb["shape"], "workload[1].shape")
    _only(cbr, ("kind", "direction", "rate", "packet_size", "client", "server"), "workload[2]",
          "no counterpart in standard.tcl's CBR")  # fmt: skip
    if cbr.get("direction") != "reverse" or cbr.get("client") != cbr.get("server"):
        raise Refused("workload[2]: standard.tcl runs the CBR from client host h to server host h (reverse)")
    cbr_host = _count(cbr.get("client"), "workload[2].client", 0)
    used = [*range(n_web), *range(first, first + len(flows)), cbr_host]
    if len(set(used)) != len(used) or max(used) >= hosts:
        raise Refused(f"workload: the flows' hosts overlap or exceed the {hosts} hosts")
    return [
        "-ftp_flows", str(len(flows)), "-ftp_first_host", str(first),
        "-ftp_bytes", str(min(ftp_bytes, NS2_FTP_BYTES)),
        "-web_flows", str(n_web), "-web_shape", num(shape),
        "-web_mean", str(size_bytes(wb["mean"], "workload[1].mean")),
        "-web_min", str(size_bytes(wb["min"], "workload[1].min")),
        "-web_max", str(size_bytes(wb["max"], "workload[1].max")),
        "-web_off", num(_secs(wb["off_time"], "workload[1].off_time")),
        "-cbr_host", str(cbr_host), "-cbr_bps", str(_bps(cbr.get("rate"), "workload[2].rate")),
        "-cbr_size", str(size_bytes(cbr.get("packet_size"), "workload[2].packet_size")),
    ], cbr_host  # fmt: skip


def client_extra_rtt_ms(path: Path, hosts: int) -> list[float]:
    """The per-client extra RTT (ms) of a DelayBox matrix file (clients rows × servers columns,
    ms, `#` comments); refused unless every column of a row is equal."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise Refused(f"topology.delaybox.matrix_file: cannot read {path}: {e.strerror}") from None
    rows = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    out = []
    for i, ln in enumerate(rows):
        try:
            vals = [float(v) for v in ln.split(",")]
        except ValueError:
            raise Refused(f"{path}: row {i}: not numbers") from None
        if len(vals) != hosts or min(vals) != max(vals) or vals[0] < 0:
            raise Refused(
                f"topology.delaybox.matrix_file: {path.name} row {i} is not {hosts} equal delays ≥ 0: "
                "standard.tcl adds one extra delay per client host"
            )
        out.append(vals[0])
    if len(out) != hosts:
        raise Refused(f"topology.delaybox.matrix_file: {path.name} has {len(out)} rows for {hosts} clients")
    return out


def pisa_point(doc: dict, base_dir: str | Path) -> Ns2Point:
    """The standard.tcl run of the resolved pisa sweep-point document `doc` (data files relative
    to `base_dir`); raises Refused naming the first key the script cannot express."""
    d = effective(doc)
    _only(d, ("run", "topology", "queue", "reverse_queue", "tcp", "workload"), "scenario",
          "no counterpart in standard.tcl")  # fmt: skip
    run = d.get("run", {})
    _only(run, ("seed", "warmup", "duration"), "run", "no counterpart in standard.tcl")
    seed = _count(run.get("seed", 1), "run.seed")
    warmup = _secs(run.get("warmup", "0s"), "run.warmup")
    measured = _secs(run.get("duration"), "run.duration")

    topo = d.get("topology", {})
    _only(topo, ("kind", "clients", "servers", "access_rate", "server_access_rate", "access_delay",
                 "bottleneck_rate", "bottleneck_delay", "access_queue", "delaybox"), "topology",
          "no counterpart in standard.tcl's dumbbell")  # fmt: skip
    hosts = _count(topo.get("clients"), "topology.clients")
    if topo.get("kind") != "dumbbell" or topo.get("servers") != hosts:
        raise Refused("topology: standard.tcl runs a dumbbell with as many server as client hosts")
    client_bps = _bps(topo.get("access_rate"), "topology.access_rate")
    server_bps = _bps(topo.get("server_access_rate", topo.get("access_rate")), "topology.server_access_rate")
    access_delay = _secs(topo.get("access_delay", "0s"), "topology.access_delay")
    bottleneck = _bps(topo.get("bottleneck_rate"), "topology.bottleneck_rate")
    aq = topo.get("access_queue", {"kind": "droptail", "limit": DEFAULT_ACCESS_LIMIT})
    args = [
        str(seed), num(measured), "", OUT, num(warmup), "-hosts", str(hosts),
        "-client_access_bps", str(client_bps), "-server_access_bps", str(server_bps),
        "-access_delay", num(access_delay), "-bottleneck_bps", str(bottleneck),
        "-bottleneck_delay", num(_secs(topo.get("bottleneck_delay", "0s"), "topology.bottleneck_delay")),
        "-access_limit", str(_droptail_limit(aq, "topology.access_queue")),
    ]  # fmt: skip
    kind, qargs = _forward_queue(d.get("queue"), "queue")
    args[2] = kind
    args += qargs
    args += ["-reverse_limit", str(_droptail_limit(d.get("reverse_queue"), "reverse_queue"))]
    args += _tcp(d.get("tcp", {}))
    wl_args, cbr_host = _workloads(d.get("workload"), hosts)
    args += wl_args

    extra = [0.0] * hosts
    files: list[tuple[str, str]] = []
    box = topo.get("delaybox")
    if box is not None:
        if not isinstance(box, dict) or set(box) != {"matrix_file"}:
            raise Refused(f"topology.delaybox = {box!r}: standard.tcl takes a per-client matrix_file only")
        extra = client_extra_rtt_ms(Path(base_dir) / box["matrix_file"], hosts)
        if extra[cbr_host] != 0:
            raise Refused(
                f"topology.delaybox.matrix_file: the CBR host {cbr_host} has an extra RTT; aqmlab's "
                "datagrams bypass the DelayBox, ns-2's access link would delay them"
            )
        text = "".join(f"{num(x / 2000.0)}\n" for x in extra)  # half the extra RTT each way, s
        name = f"client_delays_{hashlib.sha256(text.encode()).hexdigest()[:12]}.txt"
        files.append((name, text))
        args += ["-client_delays", name]
    # a web flow's base RTT: both access links, the bottleneck, both ways, plus its extra
    bottleneck_delay = _secs(topo.get("bottleneck_delay", "0s"), "topology.bottleneck_delay")
    base_ms = 2 * 1000 * (2 * access_delay + bottleneck_delay)
    web_rtt = tuple(round(base_ms + x, 6) for x in extra)
    facts = (("web_base_rtt_ms", web_rtt), ("mss", int(args[args.index("-mss") + 1])))
    return Ns2Point(tuple(args), tuple(files), warmup, measured, bottleneck, None,
                    script=SCRIPT, sources=(PARAMS,), output="pisa", facts=facts)  # fmt: skip


def pisa_metrics(run_dir: Path, stdout: str, point: Ns2Point) -> dict[str, float]:
    """The study's per-run columns (aqmlab.studies.pisa names) from one standard.tcl run."""
    from aqmlab.studies.pisa import HEADER_B, HTTP_WORKLOAD, MSS_B, group_objects

    facts = dict(point.facts)
    secs = point.measured_s
    fwd = parse.links(stdout, f"{run_dir}/stdout.txt")["fwd"]
    kv = {}
    for line in stdout.splitlines():
        tag, *rest = line.split()
        if tag in ("http", "ftp") and rest:
            try:
                kv[tag] = {k: float(v) for k, v in (p.split("=", 1) for p in rest)}
            except ValueError:
                raise parse.ParseError(f"{run_dir}/stdout.txt: bad {tag} line {line!r}") from None
    if set(kv) != {"http", "ftp"}:
        raise parse.ParseError(f"{run_dir}/stdout.txt: no http and ftp lines")
    objs = parse._columns(run_dir / "objects.dat", 4)  # flow start_s end_s bytes
    rtt = np.asarray(facts["web_base_rtt_ms"], dtype=np.float64)
    flows = objs[:, 0].astype(np.int64)
    requests = pd.DataFrame({
        "workload": HTTP_WORKLOAD, "kind": "http", "completed": True,
        "start_ns": np.round(objs[:, 1] * 1e9).astype(np.int64),
        "base_rtt_ns": rtt[flows] * 1e6,
    })  # fmt: skip
    wire = float((np.ceil(objs[:, 3] / MSS_B) * (MSS_B + HEADER_B)).sum())
    util = fwd["bytes"] * 8.0 / secs / point.bottleneck_bps
    util_http = wire * 8.0 / (point.bottleneck_bps * secs)
    started, done = kv["http"]["started"], kv["http"]["completed"]
    return {
        "measured_s": secs,
        "drops": fwd["drops"],
        "drops_per_s": fwd["drops"] / secs,
        "mean_qlen": fwd["mean_q"],
        "utilization": util,
        "util_http": util_http,
        "util_ftp": util - util_http,
        "ftp_drops_per_s": kv["ftp"]["retx_bytes"] / facts["mss"] / secs,
        "http_drops_per_s": math.nan,
        "responses_started": started,
        "responses_completed": done,
        "pct_completed": 100.0 * done / started if started else math.nan,
        **group_objects(requests, round(point.warmup_s * 1e9)),
    }
