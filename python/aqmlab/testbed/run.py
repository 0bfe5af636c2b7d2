"""`aqmlab testbed SCENARIO --out DIR [--variant NAME] [--duration D] [--warmup D] [--pcap]`:
run a dumbbell scenario with real Linux TCP in network namespaces (issue 12). The work is done
by the Rust binary `aqmlab-testbed` (crates/testbed, built by setup.sh into target/release/);
this module only finds it and execs it, so signals (Ctrl-C) reach it directly and its exit
status is the command's. Needs root (see docs/testbed.md)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

BINARY = "aqmlab-testbed"
# The repository root when running from a checkout (python/aqmlab/testbed/run.py → ../../).
_REPO = Path(__file__).resolve().parents[3]


def add_parser(sub) -> None:
    tb = sub.add_parser(
        "testbed",
        help="run a dumbbell scenario with real Linux TCP (network namespaces, needs root)",
        description="Run SCENARIO's variants (or only --variant) with real Linux TCP stacks in "
        "network namespaces, HTTP/1.0 and 1.1 over real sockets driven by the same workload generators, "
        "and aqmlab's queue code as the router; write DIR/<variant>/ like `aqmlab run` "
        '(summary.json marked "engine": "testbed-linux"). Needs root.',
    )
    tb.add_argument("scenario", metavar="SCENARIO", help="scenario file (TOML), a dumbbell")
    tb.add_argument(
        "--out", required=True, metavar="DIR", help="output directory (one subdirectory per variant)"
    )
    tb.add_argument("--variant", metavar="NAME", help="run only this variant")
    tb.add_argument(
        "--duration", metavar="D", help="measured time after the warm-up (default: [run] duration)"
    )
    tb.add_argument("--warmup", metavar="D", help="warm-up (default: [run] warmup)")
    tb.add_argument(
        "--pcap", action="store_true", help="the router writes a pcap of each bottleneck direction"
    )
    tb.add_argument(
        "--path", choices=("router", "veth"), default="router",
        help="router (default) or a plain veth pair without a bottleneck (development)",
    )  # fmt: skip
    tb.add_argument(
        "--closest-linux", action="store_true",
        help="run [tcp] keys Linux cannot express (e.g. the freebsd profile's Reno, 6 s initial "
        "RTO, 500 ms tick, BSD RTO rules) with the nearest Linux behaviour instead of refusing "
        "the scenario; each substitution is printed and recorded in run.json",
    )  # fmt: skip
    tb.add_argument("--quiet", action="store_true", help="no progress lines")


def find_binary() -> Path:
    """The testbed binary: $AQMLAB_TESTBED, else target/release/ of this checkout, else PATH.
    Raises FileNotFoundError saying how to build it."""
    env = os.environ.get("AQMLAB_TESTBED")
    candidates = [Path(env)] if env else []
    candidates.append(_REPO / "target" / "release" / BINARY)
    on_path = shutil.which(BINARY)
    if on_path:
        candidates.append(Path(on_path))
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    raise FileNotFoundError(
        f"{candidates[0]}: the testbed binary is missing; build it with ./setup.sh "
        f"(or cargo build --release -p testbed)"
    )


def argv(args) -> list[str]:
    """The binary's command line for the parsed `aqmlab testbed` arguments."""
    out = [args.scenario, "--out", args.out, "--path", args.path]
    for flag, value in (
        ("--variant", args.variant),
        ("--duration", args.duration),
        ("--warmup", args.warmup),
    ):
        if value is not None:
            out += [flag, value]
    if args.pcap:
        out.append("--pcap")
    if getattr(args, "closest_linux", False):
        out.append("--closest-linux")
    if args.quiet:
        out.append("--quiet")
    return out


def cmd_testbed(args) -> int:
    binary = find_binary()
    os.execv(binary, [str(binary), *argv(args)])
    return 0  # not reached
