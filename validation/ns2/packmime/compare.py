"""ns-2.35 PackMimeHTTP vs aqmlab's PackMime on an uncongested link (README.md here).

usage (from the repository root, with .venv active):
    python validation/ns2/packmime/compare.py --ns2 DIR --http 1.0 --seeds 1 2 3 [--run-aqmlab]
        [--ns2-fulltcp]

DIR holds the ns-2 outputs of `pm_offered.tcl` named h10_r<seed>.{req,link} (HTTP/1.0) or
h11_r<seed>.{req,link} (HTTP/1.1); with --run-aqmlab the aqmlab twin `pm_offered.toml` is run
for the same seeds (HTTP and seed substituted) into DIR/aq<10|11>_s<seed>/, else those runs are
read back. Everything is counted over [WARMUP, WARMUP + DURATION) = [10 s, 1810 s): requests
issued in it, wire bytes whose transmission started in it.
"""

from __future__ import annotations

import argparse
import pathlib
import re

import numpy as np
import pandas as pd
from scipy import stats

HERE = pathlib.Path(__file__).resolve().parent
WARMUP, DURATION = 10.0, 1800.0
QS = [1, 10, 25, 50, 75, 90, 99, 99.9]


def ns2_seed(d: pathlib.Path, tag: str, seed: int) -> dict:
    """Per-exchange sizes (client issue times) and link bytes of one ns-2 run."""
    req = pd.read_csv(
        d / f"{tag}_r{seed}.req", sep=r"\s+", header=None, usecols=[0, 1, 2], names=["t", "req", "rsp"]
    )
    link = pd.read_csv(d / f"{tag}_r{seed}.link", sep=r"\s+").iloc[0]
    win = req[(req.t >= WARMUP) & (req.t < WARMUP + DURATION)]
    out = {}
    err = d / f"{tag}_r{seed}.err"
    if err.exists():
        # "SNAP start N" / "SNAP end N": PackMime's connection counter at the window's ends
        n = dict(re.findall(r"SNAP (\w+) (\d+)", err.read_text()))
        out["conns"] = int(n["end"]) - int(n["start"])
    elif tag == "h11":
        raise SystemExit(f"{err} missing: HTTP/1.1 needs the connection counts")
    # completed exchanges (.rsp: completion time, sizes, response time in ms); the issue time is
    # completion - response time
    rsp = pd.read_csv(
        d / f"{tag}_r{seed}.rsp",
        sep=r"\s+",
        header=None,
        usecols=[0, 1, 2, 3],
        names=["t", "req", "rsp", "rt"],
    )
    rsp = rsp[(rsp.t - rsp.rt / 1e3 >= WARMUP) & (rsp.t - rsp.rt / 1e3 < WARMUP + DURATION)]
    small = (rsp.req <= link.segsize) & (rsp.rsp <= link.segsize)
    return out | {
        "segsize": float(link.segsize),
        "rt_small_ms": rsp.rt[small].to_numpy(),
        "t": win.t.to_numpy(),
        "req": win.req.to_numpy(float),
        "rsp": win.rsp.to_numpy(float),
        "fwd_bytes": float(link.sc_bytes),
        "rev_bytes": float(link.cs_bytes),
        "fwd_pkts": float(link.sc_pkts),
        "rev_pkts": float(link.cs_pkts),
    }


def aqmlab_seed(d: pathlib.Path, tag: str, seed: int, http: str, run: bool, fulltcp: bool = False) -> dict:
    """One aqmlab run of pm_offered.toml (HTTP and seed substituted; with `fulltcp`,
    `[tcp] ns2_fulltcp = true` and `slow_start = "ns2"`, Full-TCP's packet sequence, to compare
    with `pm_offered.tcl … twin`) in DIR/aq<10|11>[f]_s<seed>/."""
    name = f"aq{tag[1:]}{'f' if fulltcp else ''}_s{seed}"
    out = d / name
    if run:
        import aqmlab

        text = (HERE / "pm_offered.toml").read_text()
        text = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text)
        text = text.replace("rate = 101.0", f'rate = 101.0\nhttp = "{http}"')
        if fulltcp:
            rules = 'delayed_ack = false\nns2_fulltcp = true\nslow_start = "ns2"'
            text = text.replace("delayed_ack = false", rules)
        scen = d / f"{name}.toml"
        scen.write_text(text)
        aqmlab.run(scen, out=out)
    import aqmlab

    (sub,) = [p for p in out.iterdir() if p.is_dir()]
    r = aqmlab.load_run(sub)
    q = r.requests
    t = q.start_ns.to_numpy() / 1e9
    m = (t >= WARMUP) & (t < WARMUP + DURATION)
    lk = r.links
    lw = lk[(lk.t_ns > WARMUP * 1e9) & (lk.t_ns <= (WARMUP + DURATION) * 1e9)]
    fwd = lw[lw.link == "bottleneck_fwd"]
    rev = lw[lw.link == "bottleneck_rev"]
    first = q.exchange.to_numpy() == 0
    seg = 1460.0  # pm_offered.toml's mss
    small = (
        m
        & (q.request_bytes.to_numpy() <= seg)
        & (q.response_bytes.to_numpy() <= seg)
        & q.completed.to_numpy()
    )
    return {
        "segsize": seg,
        "rt_small_ms": ((q.end_ns - q.start_ns).to_numpy() / 1e6)[small],
        "t": t[m],
        "req": q.request_bytes.to_numpy(float)[m],
        "rsp": q.response_bytes.to_numpy(float)[m],
        "conns": int((m & first).sum()),
        "fwd_bytes": float(fwd.bytes.sum()),
        "rev_bytes": float(rev.bytes.sum()),
        "fwd_pkts": float(fwd.packets.sum()),
        "rev_pkts": float(rev.packets.sum()),
    }


def row(side: str, seed: int, s: dict) -> dict:
    n_ex = len(s["req"])
    conns = s.get("conns", n_ex)
    return {
        "side": side,
        "seed": seed,
        "conn_per_s": conns / DURATION,
        "exch_per_conn": n_ex / conns,
        "req_mean": s["req"].mean(),
        "rsp_mean": s["rsp"].mean(),
        "rsp_mean_le1MB": np.minimum(s["rsp"], 1e6).mean(),
        "rsp_le275_pct": 100 * (s["rsp"] <= 275).mean(),
        "rsp_max": s["rsp"].max(),
        "payload_B_per_conn": (s["req"].sum() + s["rsp"].sum()) / conns,
        "fwd_Mbps": 8 * s["fwd_bytes"] / DURATION / 1e6,
        "rev_Mbps": 8 * s["rev_bytes"] / DURATION / 1e6,
        "fwd_wire_B_per_conn": s["fwd_bytes"] / conns,
        "rev_wire_B_per_conn": s["rev_bytes"] / conns,
        "fwd_pkts_per_conn": s["fwd_pkts"] / conns,
        "rev_pkts_per_conn": s["rev_pkts"] / conns,
        # packets that carry no payload, less one per response data segment (the ACKs that
        # scale with the response): handshake, request ACK, FINs and their ACKs
        "ctl_pkts_per_conn": (s["fwd_pkts"] + s["rev_pkts"]) / conns
        - (2 * np.ceil(s["rsp"] / s["segsize"]).sum() + np.ceil(s["req"] / s["segsize"]).sum()) / conns,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ns2", type=pathlib.Path, required=True)
    ap.add_argument("--http", default="1.0", choices=["1.0", "1.1"])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--aq-seeds", type=int, nargs="+")
    ap.add_argument("--run-aqmlab", action="store_true")
    ap.add_argument("--ns2-fulltcp", action="store_true",
                    help="aqmlab with Full-TCP's packet sequence (ns2_fulltcp, slow_start ns2)")  # fmt: skip
    a = ap.parse_args()
    tag = "h10" if a.http == "1.0" else "h11"
    ns = {s: ns2_seed(a.ns2, tag, s) for s in a.seeds}
    aq = {s: aqmlab_seed(a.ns2, tag, s, a.http, a.run_aqmlab, a.ns2_fulltcp) for s in (a.aq_seeds or a.seeds)}
    rows = [row("ns-2", s, v) for s, v in ns.items()] + [row("aqmlab", s, v) for s, v in aq.items()]
    df = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    print(df.round(3).to_string(index=False))
    print("\nmean over seeds (± sample sd):")
    g = df.groupby("side")
    print(
        pd.concat({"mean": g.mean(numeric_only=True), "sd": g.std(numeric_only=True)}, axis=1)
        .drop(columns=[("mean", "seed"), ("sd", "seed")])
        .loc[["ns-2", "aqmlab"]]
        .T.round(3)
        .to_string()
    )
    for key in ["req", "rsp"]:
        x = np.concatenate([v[key] for v in ns.values()])
        y = np.concatenate([v[key] for v in aq.values()])
        ks = stats.ks_2samp(x, y)
        print(f"\n{key}: quantiles {QS}")
        print("  ns-2  ", np.percentile(x, QS).round(0).tolist())
        print("  aqmlab", np.percentile(y, QS).round(0).tolist())
        print(f"  KS D = {ks.statistic:.4f} (p = {ks.pvalue:.3g}; n = {len(x)}, {len(y)})")
    x = np.concatenate([v["rt_small_ms"] for v in ns.values()])
    y = np.concatenate([v["rt_small_ms"] for v in aq.values()])
    print(
        "\nresponse time (ms) of exchanges with request and response of one segment each (≈ 4 ms"
        " of network + the server delay, MODEL.md §3.4):"
    )
    rq = [10, 25, 50, 75, 90]
    print(f"  quantiles {rq}: ns-2 {np.percentile(x, rq).round(2).tolist()}")
    print(f"  quantiles {rq}: aqmlab {np.percentile(y, rq).round(2).tolist()}")
    print(
        f"  share ≥ 100 ms (server delay atom at 0.1 s, P = 0.1096): ns-2 {(x >= 100).mean():.4f}, "
        f"aqmlab {(y >= 100).mean():.4f}; n = {len(x)}, {len(y)}"
    )
    ia_x = np.concatenate([np.diff(v["t"]) for v in ns.values()])
    ia_y = np.concatenate([np.diff(np.unique(v["t"])) for v in aq.values()])
    if a.http == "1.0":
        ks = stats.ks_2samp(ia_x, ia_y)
        print(
            f"\ninter-arrival (s): mean ns-2 {ia_x.mean():.6f}, aqmlab {ia_y.mean():.6f}; "
            f"quantiles ns-2 {np.percentile(ia_x, [10, 50, 90]).round(5).tolist()}, "
            f"aqmlab {np.percentile(ia_y, [10, 50, 90]).round(5).tolist()}; KS D = "
            f"{ks.statistic:.4f} (p = {ks.pvalue:.3g})"
        )


if __name__ == "__main__":
    main()
