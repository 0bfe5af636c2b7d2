"""ns-2.35's PackMime random variables vs aqmlab's PackMime workload, many runs, no network.

usage (repository root, .venv active, `cargo build --release -p traffic --example packmime_dump`):
    python validation/ns2/packmime/gen_compare.py --dir DIR --runs 30 --n 181800 [--rate 101]

For runs 1..R: ns-2 `pm_sizes.tcl RATE RUN N` (PackMime's FlowArrive/FileSize variables on
substream RUN, exactly the draws PackMimeHTTP makes with `set-run RUN`) and aqmlab
`packmime_dump RATE SEED N 1.0` (workload 0 of a run with that seed); outputs cached in DIR.
N = 181,800 is 1800 s at 101 conn/s. Prints, per side, the distribution over runs of the
per-connection mean payload (request + response) and of the offered payload rate, pooled
quantiles and two-sample KS distances, and the model's exact expectations.
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess

import numpy as np
from scipy import stats

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
QS = [1, 10, 25, 50, 75, 90, 99, 99.9, 99.99]


def ns2(d: pathlib.Path, rate: float, run: int, n: int) -> np.ndarray:
    f = d / f"ns2_gen_r{run}_n{n}.txt"
    if not f.exists():
        subprocess.run(["ns", str(HERE / "pm_sizes.tcl"), str(rate), str(run), str(n), str(f)], check=True)
    return np.loadtxt(f)  # interarrival, req, rsp


def aq(d: pathlib.Path, rate: float, seed: int, n: int) -> np.ndarray:
    f = d / f"aq_gen_s{seed}_n{n}.txt"
    if not f.exists():
        exe = ROOT / "target" / "release" / "examples" / "packmime_dump"
        subprocess.run([str(exe), str(rate), str(seed), str(n), "1.0", str(f)], check=True)
    a = np.loadtxt(f)  # t, req, rsp, exchange
    return np.column_stack([np.diff(a[:, 0], append=np.nan), a[:, 1], a[:, 2]])


def summary(name: str, runs: list[np.ndarray], rate: float) -> dict:
    per_conn = np.array([r[:, 1].mean() + r[:, 2].mean() for r in runs])
    rsp = np.array([r[:, 2].mean() for r in runs])
    req = np.array([r[:, 1].mean() for r in runs])
    trunc = np.array([np.minimum(r[:, 2], 1e6).mean() for r in runs])
    mbps = per_conn * rate * 8 / 1e6
    print(f"{name}: {len(runs)} runs")
    print(f"  request mean/conn   : mean {req.mean():8.1f}  sd {req.std(ddof=1):6.1f}")
    print(
        f"  response mean/conn  : mean {rsp.mean():8.1f}  sd {rsp.std(ddof=1):6.1f}  median "
        f"{np.median(rsp):8.1f}  min {rsp.min():8.1f}  max {rsp.max():8.1f}"
    )
    print(f"  response min(x,1MB) : mean {trunc.mean():8.1f}  sd {trunc.std(ddof=1):6.1f}")
    print(
        f"  payload Mbit/s at {rate}: mean {mbps.mean():.3f}  median {np.median(mbps):.3f}  "
        f"5-95 % {np.percentile(mbps, 5):.3f}-{np.percentile(mbps, 95):.3f}"
    )
    return {"per_conn": per_conn, "rsp": rsp, "req": req, "trunc": trunc}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=pathlib.Path, required=True)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--n", type=int, default=181800)
    ap.add_argument("--rate", type=float, default=101.0)
    a = ap.parse_args()
    a.dir.mkdir(parents=True, exist_ok=True)
    ns = [ns2(a.dir, a.rate, r, a.n) for r in range(1, a.runs + 1)]
    aqs = [aq(a.dir, a.rate, s, a.n) for s in range(1, a.runs + 1)]
    sn = summary("ns-2.35 PackMime", ns, a.rate)
    sa = summary("aqmlab PackMime", aqs, a.rate)
    for k in ["rsp", "trunc", "req", "per_conn"]:
        mw = stats.mannwhitneyu(sn[k], sa[k])
        print(
            f"per-run {k}: Mann-Whitney p = {mw.pvalue:.3f}; ratio of means aqmlab/ns-2 = "
            f"{sa[k].mean() / sn[k].mean():.4f}"
        )
    for col, name in [(1, "request"), (2, "response"), (0, "inter-arrival")]:
        x = np.concatenate([r[:, col] for r in ns])
        y = np.concatenate([r[:, col] for r in aqs])
        x, y = x[~np.isnan(x)], y[~np.isnan(y)]
        ks = stats.ks_2samp(x, y)
        print(f"{name}: pooled quantiles {QS}")
        print("  ns-2  ", np.percentile(x, QS).round(4).tolist())
        print("  aqmlab", np.percentile(y, QS).round(4).tolist())
        print(
            f"  mean ns-2 {x.mean():.6g}  aqmlab {y.mean():.6g};  KS D = {ks.statistic:.5f} "
            f"(n = {len(x)}, {len(y)}; p = {ks.pvalue:.3g}, not meaningful for the "
            "FARIMA-driven variables: draws are dependent)"
        )


if __name__ == "__main__":
    main()
