"""Seed 003 twin (Kim 2004 §4.7, the standard experiment): one definition (definition.toml),
two simulators.

    python validation/ns2/pisa_twin/twin.py --write      regenerate standard.toml and
                                                         standard_params.tcl from the definition
    python validation/ns2/pisa_twin/twin.py --check      exit 1 if a checked-in file differs
    python validation/ns2/pisa_twin/twin.py --ns2 [--seed N] [--duration S] [--queue Q] [--out DIR]
                                                         print the ns-2 command line
    python validation/ns2/pisa_twin/twin.py --compare [--queue pi] [--seeds 1,2,3]
        [--duration 500s] [--warmup 0s] [--keep DIR] [--json FILE]
                                                         run both simulators, print the table

The comparison (validation/ns2/README.md, "Seed 003 twin: PI standard experiment") runs, for
every seed, ns-2 (standard.tcl) and then aqmlab (standard.toml, variant = the queue, with the
seed and timing replaced), one after the other, and reports per simulator:
- mean queue fwd: packets waiting at the forward (B → A) bottleneck, sampled every 3 ms
  (aqmlab: the mean of its 100 ms means of those samples);
- drops fwd: drops / arrivals (%), and drops per second; early = PI's probabilistic drops;
- utilization fwd: bytes sent onto the forward bottleneck (headers included) / capacity; the
  packets sent per second and their mean size (the queue is counted in packets);
- FTP goodput: payload bytes of the 10 FTP flows delivered in order, Mb/s. ns-2: the bytes the
  FTP senders have had ACKed (`ack_`), exact. aqmlab records no per-flow byte count for an
  unfinished flow, so both sides also give the *estimate* `ftp_goodput_est`: forward payload
  (wire bytes − 40 B per packet: every forward packet is TCP with a 40-byte header) − payload
  of the web objects completed in the window − bytes the servers retransmitted (web and FTP;
  ns-2: Full-TCP's ndatabytes_ minus the new bytes, exact; aqmlab: retransmitted segments ×
  mss). It leaves in the partial objects in flight at the end and the FTP data sent but not
  yet ACKed, and counts a retransmission dropped at the bottleneck as sent; ns-2's exact value
  shows its error;
- retransmitted kB/s and timeouts (both ends, SYN timeouts included) per class: the TCP
  behaviour behind the drop rates;
- HTTP responses: objects whose connection opened in the window and completed; response time
  from the client's SYN to the last byte at the client; nearest-rank quantiles p10 … p99 of the
  seeds pooled; the KS distance between the simulators' response-time distributions per seed
  and pooled, next to each simulator's own seed-to-seed distances.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import twinkit as tk  # noqa: E402

DEFINITION = HERE / "definition.toml"
SCENARIO = HERE / "standard.toml"
PARAMS = HERE / "standard_params.tcl"
TCL = HERE / "standard.tcl"
QUEUES = ("pi", "droptail")
HEADER_B = 40


Definition = tk.Definition


def load_definition(path: Path = DEFINITION) -> Definition:
    """Read and check definition.toml (every key the generators use must be there)."""
    f = path.name
    raw = tk.load_toml(path)
    tk.only(raw, ("run", "topology", "queues", "reverse_queue", "tcp", "web", "ftp", "cbr"), f)
    warmup, duration, seeds = tk.run_section(raw, f)
    topo = tk.need(raw, "topology", dict, f)
    w = f"{f}: topology"
    tk.only(topo, ("hosts", "client_access_rate", "server_access_rate", "access_delay",
                   "bottleneck_rate", "bottleneck_delay", "access_limit"), w)  # fmt: skip
    for k in ("client_access_rate", "server_access_rate", "bottleneck_rate"):
        tk.bits_per_s(tk.need(topo, k, str, w), f"{w}.{k}")
    for k in ("access_delay", "bottleneck_delay"):
        tk.seconds(tk.need(topo, k, str, w), f"{w}.{k}")
    for k in ("hosts", "access_limit"):
        if tk.need(topo, k, int, w) < 1:
            raise tk.TwinError(f"{w}.{k}: must be at least 1")
    queues = tk.need(raw, "queues", dict, f)
    tk.only(queues, QUEUES, f"{f}: queues")
    pi = tk.need(queues, "pi", dict, f"{f}: queues")
    w = f"{f}: queues.pi"
    tk.only(pi, ("kind", "a", "b", "w_hz", "q_ref", "limit"), w)
    if tk.need(pi, "kind", str, w) != "pi":
        raise tk.TwinError(f'{w}.kind: must be "pi"')
    for k in ("a", "b", "w_hz", "q_ref"):
        tk.need(pi, k, (float, int), w)
    tk.need(pi, "limit", int, w)
    for key, d in (("queues.droptail", tk.need(queues, "droptail", dict, f"{f}: queues")),
                   ("reverse_queue", tk.need(raw, "reverse_queue", dict, f))):  # fmt: skip
        w = f"{f}: {key}"
        tk.only(d, ("kind", "limit"), w)
        if tk.need(d, "kind", str, w) != "droptail":
            raise tk.TwinError(f'{w}.kind: must be "droptail"')
        if tk.need(d, "limit", int, w) < 2:
            raise tk.TwinError(f"{w}.limit: must be at least 2 (ns-2 holds limit − 1)")
    tcp = tk.need(raw, "tcp", dict, f)
    w = f"{f}: tcp"
    tk.only(tcp, ("mss", "initial_window", "receive_window", "min_rto", "initial_rto", "max_rto",
                  "tick", "dupack_threshold", *tk.AQMLAB_TCP_RULES), w)  # fmt: skip
    tk.check_aqmlab_tcp_rules(tcp, w)
    for k in ("mss", "initial_window", "receive_window", "dupack_threshold"):
        if tk.need(tcp, k, int, w) < 1:
            raise tk.TwinError(f"{w}.{k}: must be at least 1")
    if tcp["receive_window"] < tcp["mss"]:
        raise tk.TwinError(f"{w}.receive_window: must be at least one mss")
    for k in ("min_rto", "initial_rto", "max_rto", "tick"):
        tk.seconds(tk.need(tcp, k, str, w), f"{w}.{k}")
    web = tk.need(raw, "web", dict, f)
    w = f"{f}: web"
    tk.only(web, ("flows", "shape", "mean", "min", "max", "off_time"), w)
    tk.need(web, "flows", int, w)
    for k in ("shape", "mean", "min", "max"):
        tk.need(web, k, (float, int), w)
    tk.seconds(tk.need(web, "off_time", str, w), f"{w}.off_time")
    ftp = tk.need(raw, "ftp", dict, f)
    w = f"{f}: ftp"
    tk.only(ftp, ("flows", "first_host", "bytes"), w)
    for k in ("flows", "first_host", "bytes"):
        tk.need(ftp, k, int, w)
    if ftp["bytes"] >= 2**31:
        raise tk.TwinError(f"{w}.bytes: must fit ns-2's 32-bit sequence numbers (< 2^31)")
    cbr = tk.need(raw, "cbr", dict, f)
    w = f"{f}: cbr"
    tk.only(cbr, ("host", "rate", "packet_size"), w)
    tk.need(cbr, "host", int, w)
    tk.bits_per_s(tk.need(cbr, "rate", str, w), f"{w}.rate")
    tk.need(cbr, "packet_size", int, w)
    hosts = topo["hosts"]
    if web["flows"] > hosts or ftp["first_host"] + ftp["flows"] > hosts or cbr["host"] >= hosts:
        raise tk.TwinError(f"{f}: web, ftp and cbr hosts must lie within topology.hosts = {hosts}")
    return Definition(raw, warmup, duration, seeds)


# --- generated files ------------------------------------------------------------------------

GENERATED = "Generated by validation/ns2/pisa_twin/twin.py from definition.toml; do not edit."


def scenario_text(d: Definition) -> str:
    """The aqmlab scenario (standard.toml): variants "pi" and "droptail"."""
    r = d.raw
    t, q, tcp, web, ftp, cbr = r["topology"], r["queues"], r["tcp"], r["web"], r["ftp"], r["cbr"]
    pi, dt, rev = q["pi"], q["droptail"], r["reverse_queue"]
    first = ftp["first_host"]
    flows = ",\n".join(
        f'  {{ start = "0s", client = {h}, server = {h}, bytes = "{ftp["bytes"]}B" }}'
        for h in range(first, first + ftp["flows"])
    )
    rules = "".join(f"\n{line}" for line in tk.aqmlab_tcp_rule_lines(tcp))
    return f"""# Seed 003 twin: the standard experiment (Kim 2004 §4.7) as ns-2.35 can run it; the ns-2 half
# is validation/ns2/pisa_twin/standard.tcl.
# {GENERATED}
# What differs from scenarios/pisa/standard.toml: drop-tail buffers as ns-2 limit_ values with
# profile = "ns2" (hold limit − 1: the preset's 800 and 1000 waiting packets); FTP flows carry
# {ftp["bytes"]} bytes (never finish in a run, as the preset's 10 GB); every TCP default written out;
# ns-2.35 Full-TCP's packet sequence and loss response on the aqmlab side (the last [tcp] keys).
# Comparison: validation/ns2/README.md, "Seed 003 twin: PI standard experiment".

[run]
seed = {d.seeds[0]}
warmup = "{d.warmup}"
duration = "{d.duration}"

[topology]
kind = "dumbbell"
clients = {t["hosts"]}
servers = {t["hosts"]}
access_rate = "{t["client_access_rate"]}"
server_access_rate = "{t["server_access_rate"]}"
access_delay = "{t["access_delay"]}"
bottleneck_rate = "{t["bottleneck_rate"]}"
bottleneck_delay = "{t["bottleneck_delay"]}"
access_queue = {{ kind = "droptail", limit = {t["access_limit"]}, profile = "ns2" }}

[queue]
kind = "pi"
a = {tk.num(pi["a"])}
b = {tk.num(pi["b"])}
w_hz = {tk.num(pi["w_hz"])}
q_ref = {tk.num(pi["q_ref"])}
limit = {pi["limit"]}

[reverse_queue]
kind = "droptail"
limit = {rev["limit"]}
profile = "ns2"

[tcp]
variant = "newreno"
mss = "{tcp["mss"]}B"
initial_window = {tcp["initial_window"]}
receive_window = "{tcp["receive_window"]}B"
min_rto = "{tcp["min_rto"]}"
initial_rto = "{tcp["initial_rto"]}"
max_rto = "{tcp["max_rto"]}"
clock_granularity = "{tcp["tick"]}"
delayed_ack = false
dupack_threshold = {tcp["dupack_threshold"]}
limited_transmit = false
timestamps = false{rules}

[[workload]]
kind = "bulk"
flows = [
{flows}
]

[[workload]]
kind = "pareto_web"
flows = {web["flows"]}
clients = {web["flows"]}
servers = {web["flows"]}
shape = {tk.num(web["shape"])}
mean = "{web["mean"]}B"
min = "{web["min"]}B"
max = "{web["max"]}B"
off_time = "{web["off_time"]}"

[[workload]]
kind = "cbr"
direction = "reverse"
rate = "{cbr["rate"]}"
packet_size = "{cbr["packet_size"]}B"
client = {cbr["host"]}
server = {cbr["host"]}

[[variant]]
name = "pi"

[[variant]]
name = "droptail"
queue = {{ kind = "droptail", limit = {dt["limit"]}, profile = "ns2" }}
"""


def params_text(d: Definition) -> str:
    """standard_params.tcl: the definition in ns-2 units (bit/s, seconds, segments)."""
    r = d.raw
    t, q, tcp, web, ftp, cbr = r["topology"], r["queues"], r["tcp"], r["web"], r["ftp"], r["cbr"]
    p = {
        "warmup": tk.seconds(d.warmup, "warmup"),
        "hosts": t["hosts"],
        "client_access_bps": tk.bits_per_s(t["client_access_rate"], ""),
        "server_access_bps": tk.bits_per_s(t["server_access_rate"], ""),
        "access_delay": tk.seconds(t["access_delay"], ""),
        "bottleneck_bps": tk.bits_per_s(t["bottleneck_rate"], ""),
        "bottleneck_delay": tk.seconds(t["bottleneck_delay"], ""),
        "access_limit": t["access_limit"],
        "pi_a": q["pi"]["a"], "pi_b": q["pi"]["b"], "pi_w": q["pi"]["w_hz"],
        "pi_qref": q["pi"]["q_ref"], "pi_limit": q["pi"]["limit"],
        "droptail_limit": q["droptail"]["limit"],
        "reverse_limit": r["reverse_queue"]["limit"],
        "mss": tcp["mss"],
        "iw": tcp["initial_window"],
        # ns-2 window_ counts segments; aqmlab sends only whole segments within the window
        "window": tcp["receive_window"] // tcp["mss"],
        "min_rto": tk.seconds(tcp["min_rto"], ""),
        "initial_rto": tk.seconds(tcp["initial_rto"], ""),
        "max_rto": tk.seconds(tcp["max_rto"], ""),
        "tick": tk.seconds(tcp["tick"], ""),
        "dupack_threshold": tcp["dupack_threshold"],
        "web_flows": web["flows"], "web_shape": web["shape"], "web_mean": web["mean"],
        "web_min": web["min"], "web_max": web["max"],
        "web_off": tk.seconds(web["off_time"], ""),
        "ftp_flows": ftp["flows"], "ftp_first_host": ftp["first_host"], "ftp_bytes": ftp["bytes"],
        "cbr_host": cbr["host"], "cbr_bps": tk.bits_per_s(cbr["rate"], ""),
        "cbr_size": cbr["packet_size"],
    }  # fmt: skip
    lines = ["# Parameters of standard.tcl.", f"# {GENERATED}"]
    lines += [f"set P({k}) {tk.num(v) if isinstance(v, float) else v}" for k, v in p.items()]
    return "\n".join(lines) + "\n"


def generated(d: Definition) -> dict[Path, str]:
    return {SCENARIO: scenario_text(d), PARAMS: params_text(d)}


def ns2_command(seed: int, duration_s: float, queue: str, out: Path, warmup_s: float | None = None,
                ns: str = "ns") -> list[str]:  # fmt: skip
    if queue not in QUEUES:
        raise tk.TwinError(f"queue: must be one of {', '.join(QUEUES)}, got {queue!r}")
    cmd = [ns, str(TCL), str(seed), tk.num(duration_s), queue, str(out)]
    if warmup_s is not None:
        cmd.append(tk.num(warmup_s))
    return cmd


# --- measuring ------------------------------------------------------------------------------

ROWS = [
    ("mean queue fwd (packets)", "mean_q_fwd", 1),
    ("drops fwd (% of arrivals)", "drop_pct_fwd", 3),
    ("drops fwd per s", "drops_per_s", 2),
    ("early drops fwd (% of drops)", "early_share_pct", 1),
    ("utilization fwd", "utilization_fwd", 4),
    ("packets fwd per s", "pkts_per_s_fwd", 1),
    ("mean packet size fwd (B)", "pkt_size_fwd", 1),
    ("FTP goodput (Mb/s)", "ftp_goodput_mbps", 3),
    ("FTP goodput, estimate (Mb/s)", "ftp_goodput_est_mbps", 3),
    ("web objects started", "http_started", 0),
    ("FTP retransmitted (kB/s)", "ftp_retx_kBps", 2),
    ("web retransmitted (kB/s)", "web_retx_kBps", 2),
    ("FTP timeouts", "ftp_timeouts", 0),
    ("web timeouts", "web_timeouts", 0),
    ("mean queue rev (packets)", "mean_q_rev", 2),
    ("drops rev", "drops_rev", 0),
    ("PI drop probability, mean (ns-2 only)", "p_mean", 5),
    ("PI at p = 0 (% of samples; ns-2 only)", "p_zero_pct", 2),
]
KEYS = [k for _, k, _ in ROWS]


def _values(fwd: dict, rev: dict, measured_s: float, rate_bps: int, ftp: dict, web: dict,
            completed_bytes: float, pi: dict | None = None) -> dict:  # fmt: skip
    """The table's scalar rows. ftp/web: retx_bytes, timeouts (and ftp: delivered_bytes, NaN if
    unknown); completed_bytes: payload of the web objects completed in the window; pi: ns-2's
    PI line (p_mean, p_zero_share), if any."""
    payload = fwd["bytes"] - HEADER_B * fwd["packets"]
    est = payload - completed_bytes - ftp["retx_bytes"] - web["retx_bytes"]
    return {
        "mean_q_fwd": fwd["mean_q"],
        "drop_pct_fwd": 100.0 * fwd["drops"] / fwd["arrivals"] if fwd["arrivals"] else math.nan,
        "drops_per_s": fwd["drops"] / measured_s,
        "early_share_pct": 100.0 * fwd["early_drops"] / fwd["drops"] if fwd["drops"] else math.nan,
        "utilization_fwd": 8.0 * fwd["bytes"] / (rate_bps * measured_s),
        "pkts_per_s_fwd": fwd["packets"] / measured_s,
        "pkt_size_fwd": fwd["bytes"] / fwd["packets"] if fwd["packets"] else math.nan,
        "ftp_goodput_mbps": 8.0 * ftp["delivered_bytes"] / measured_s / 1e6,
        "ftp_goodput_est_mbps": 8.0 * est / measured_s / 1e6,
        "http_started": web["started"],
        "ftp_retx_kBps": ftp["retx_bytes"] / measured_s / 1e3,
        "web_retx_kBps": web["retx_bytes"] / measured_s / 1e3,
        "ftp_timeouts": ftp["timeouts"],
        "web_timeouts": web["timeouts"],
        "mean_q_rev": rev["mean_q"],
        "drops_rev": rev["drops"],
        "p_mean": pi["p_mean"] if pi else math.nan,
        "p_zero_pct": 100.0 * pi["p_zero_share"] if pi else math.nan,
    }


def measure_ns2(stdout: str, out: Path, seed: int, measured_s: float, rate_bps: int,
                wall_s: float) -> tk.Measure:  # fmt: skip
    links = {kv["dir"]: {k: float(v) for k, v in kv.items() if k != "dir"}
             for kv in tk.key_values(stdout, "link")}  # fmt: skip
    http = tk.key_values(stdout, "http")
    ftp = tk.key_values(stdout, "ftp")
    if set(links) != {"fwd", "rev"} or len(http) != 1 or len(ftp) != 1:
        raise tk.RunError(f"ns-2 printed no statistics; its output was:\n{stdout}")
    web = {k: float(v) for k, v in http[0].items()}
    ftp = {k: float(v) for k, v in ftp[0].items()}
    obj = np.loadtxt(out / "objects.dat", comments="#", ndmin=2).reshape(-1, 4)
    rt_ms = (obj[:, 2] - obj[:, 1]) * 1000.0
    for d in links.values():
        d["packets"] = d["departures"]
    pi = tk.key_values(stdout, "pi")
    pi = {k: float(v) for k, v in pi[0].items()} if pi else None
    vals = _values(links["fwd"], links["rev"], measured_s, rate_bps, ftp, web, float(obj[:, 3].sum()), pi)
    return tk.Measure("ns-2", seed, rt_ms, vals, wall_s)


def measure_aqmlab(run, seed: int, rate_bps: int, mss: int) -> tk.Measure:
    """aqmlab's retransmitted bytes are the servers' retransmitted segments × mss (the request
    table counts segments; only a web object's last segment is shorter)."""
    w = run.warmup_ns
    measured_s = float(run.summary["measured_s"])
    req = run.requests[run.requests["start_ns"] >= w]
    web_rows = req[(req["kind"] == "http") & (req["workload"] == 1)]
    ftp_rows = req[(req["kind"] == "bulk") & (req["workload"] == 0)]
    done = web_rows[web_rows["completed"].astype(bool)]
    rt_ms = (done["end_ns"] - done["start_ns"]).to_numpy(dtype=np.float64) / 1e6

    def cls(rows) -> dict:
        return {"retx_bytes": mss * float(rows["server_data_retx"].sum()),
                "timeouts": float(rows["timeouts"].sum()), "started": float(len(rows)),
                "delivered_bytes": math.nan}  # fmt: skip

    vals = _values(tk.aqmlab_link(run, "bottleneck_fwd"), tk.aqmlab_link(run, "bottleneck_rev"),
                   measured_s, rate_bps, cls(ftp_rows), cls(web_rows),
                   float(done["response_bytes"].sum()))  # fmt: skip
    return tk.Measure("aqmlab", seed, rt_ms, vals, float(run.wall_s or math.nan))


def compare(queue: str, seeds: list[int], warmup: str, duration: str, work: Path,
            log=print, ns: str = "ns", reuse: bool = False) -> dict:  # fmt: skip
    """Run the twin for every seed in both simulators (ns-2 first, one at a time; `reuse`: ns-2
    runs kept in `work` by the same command are read again)."""
    d = load_definition()
    rate = tk.bits_per_s(d.raw["topology"]["bottleneck_rate"], "bottleneck_rate")
    mss = d.raw["tcp"]["mss"]
    warm_s, dur_s = tk.seconds(warmup, "--warmup"), tk.seconds(duration, "--duration")
    runs: dict[str, list[tk.Measure]] = {"ns-2": [], "aqmlab": []}
    for seed in seeds:
        out = work / f"ns2_{queue}_s{seed}"
        log(f"{queue} seed {seed}: ns-2 …")
        stdout, wall = tk.run_ns2_kept(ns2_command(seed, dur_s, queue, out, warm_s, ns),
                                       f"seed {seed}", out, reuse)  # fmt: skip
        runs["ns-2"].append(measure_ns2(stdout, out, seed, dur_s, rate, wall))
        log(f"{queue} seed {seed}: aqmlab …")
        run = tk.run_aqmlab(SCENARIO, queue, seed, warmup, duration)
        runs["aqmlab"].append(measure_aqmlab(run, seed, rate, mss))
    res = tk.compare(runs["ns-2"], runs["aqmlab"], KEYS)
    res.update(queue=queue, warmup=warmup, duration=duration)
    return res


def table(res: dict) -> str:
    seeds = ", ".join(map(str, res["seeds"]))
    title = (f"**{res['queue']}** — seeds {seeds}; warm-up {res['warmup']}, measured "
             f"{res['duration']}")  # fmt: skip
    rows = ROWS[:10] + tk.RT_ROWS + ROWS[10:] + [("wall time per run (s)", "wall_s", 1)]
    return tk.table(res, rows, title)


def main(argv: list[str] | None = None) -> int:
    p = tk.cli("Seed 003 twin: ns-2.35 against aqmlab.", queue=("pi", "pi (default) or droptail"))
    a = p.parse_args(argv)
    try:
        d = load_definition()
        if a.write or a.check:
            return tk.write_or_check_cli(generated(d), a.check)
        warmup = a.warmup or d.warmup
        duration = a.duration or d.duration
        if a.ns2:
            cmd = ns2_command(a.seed, tk.seconds(duration, "--duration"), a.queue, Path(a.out),
                              tk.seconds(warmup, "--warmup"), a.ns)  # fmt: skip
            print(" ".join(cmd))
            return 0
        if a.queue not in QUEUES:
            raise tk.TwinError(f"--queue: must be one of {', '.join(QUEUES)}")
        seeds = tk.seeds_and_ns(a, d.seeds)
    except (tk.TwinError, tk.RunError) as e:
        print(f"twin.py: error: {e}", file=sys.stderr)
        return 2
    work = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="pisa-twin-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"aqmlab commit {tk.git_state()}; ns-2: {shutil.which(a.ns)}", file=sys.stderr)
        res = compare(
            a.queue,
            seeds,
            warmup,
            duration,
            work,
            log=lambda m: print(m, file=sys.stderr),
            ns=a.ns,
            reuse=a.reuse,
        )
        print(table(res), flush=True)
    except tk.RunError as e:
        print(f"twin.py: error: {e}", file=sys.stderr)
        return 1
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if a.json:
        Path(a.json).write_text(json.dumps({"aqmlab_commit": tk.git_state(), **res}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
