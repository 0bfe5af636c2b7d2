"""Paired whole-process timing of aqmlab against ns-2.35, in one invocation (issue 14): the
figures of the README's benchmark table and of bench/HISTORY.md come from this script, never from
times taken at different hours (a shared machine's load moves both tools' times, ns-2's more than
aqmlab's).

    python bench/paired.py quickstart [--rounds 5] [--json OUT]
    python bench/paired.py seed001 [--rounds 5] [--json OUT]
    python bench/paired.py custom --cmd NAME=COMMAND [--cmd NAME=COMMAND ...] [--rounds 5]

Presets (run from the repository, after `./setup.sh`; ns-2 is Debian's `ns2` package):

- `quickstart`: `aqmlab run scenarios/quickstart.toml --variant droptail --out DIR --quiet` (what
  a user types), the engine alone (`target/release/aqmlab-bench --no-records
  scenarios/quickstart.toml:droptail`, built first) and ns-2.35 on the same workload
  (`bench/ns2/run.sh 660 1 delack 60`: 60 s warm-up + 600 s, as the scenario).
- `seed001`: the seed-001 PackMime twin, `aqmlab run scenarios/ns2-twin/seed001_dt_80.toml`, the
  engine alone on it, and ns-2.35 running `validation/ns2/twin/seed001.tcl` with the options
  `validation/ns2/twin/twins.py --ns2 seed001_dt_80` prints (120 s warm-up + 300 s).

The last command is the reference. One warm-up round is run and not counted; then each round
runs every command once, in order (A B C, A B C, …), so that all of them see the same hours of
the machine's load. For each command: wall time, CPU time (user + system, its waited-for
children included) and peak resident memory (the kernel's maximum RSS, from `wait4`), as
minimum, median and maximum over the rounds. For each other command: its ratio to the
reference in each round and the median of those ratios (the figure to quote, with the range),
for wall and CPU time. The header gives the UTC date, the machine (CPU model, cores), the load
average before and after and the git commit. A command that fails (non-zero exit) stops the
run with its name, exit status and the end of its standard error; nothing is written to
`--json` then.

Peak memory has a floor: a child's maximum RSS, as Linux counts it, is at least its parent's
peak at the fork (the forked copy's high-water mark survives `exec`), so a command whose peak is
below this script's own (printed, ≈ 15–20 MiB) shows the floor; the output says so. The script
imports nothing large.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class BenchError(Exception):
    """A command that cannot run or failed; the message says which and why."""


@dataclass
class Sample:
    """One run of one command: wall and CPU time in s, peak resident memory in MiB."""

    wall_s: float
    cpu_s: float
    peak_mib: float


@dataclass
class Command:
    """A command under test: its name in the output and its argument vector."""

    name: str
    argv: list[str]
    samples: list[Sample] = field(default_factory=list)


def run_once(cmd: Command, cwd: Path) -> Sample:
    """Run `cmd` to its end, its standard output discarded; raises `BenchError` if it fails."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        try:
            p = subprocess.Popen(cmd.argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        except OSError as e:
            raise BenchError(f"{cmd.name}: cannot start {cmd.argv[0]!r}: {e.strerror}") from None
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen quiet
        if p.returncode != 0:
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-5:]
            raise BenchError(
                f"{cmd.name}: exit status {p.returncode}: {shlex.join(cmd.argv)}\n" + "\n".join(tail)
            )
    # ru_maxrss is in KiB on Linux.
    return Sample(wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024)


def run_rounds(cmds: list[Command], rounds: int, cwd: Path, log=print) -> None:
    """One uncounted warm-up round, then `rounds` rounds of every command in order."""
    for r in range(rounds + 1):
        for c in cmds:
            s = run_once(c, cwd)
            if r > 0:
                c.samples.append(s)
            what = "warm-up" if r == 0 else f"round {r}/{rounds}"
            line = f"{s.wall_s:8.3f} s wall {s.cpu_s:7.3f} s CPU {s.peak_mib:6.1f} MiB"
            log(f"  {what:>12}  {c.name:<12} {line}")


def spread(xs: list[float]) -> tuple[float, float, float]:
    """(minimum, median, maximum)."""
    return min(xs), statistics.median(xs), max(xs)


def ratios(a: Command, ref: Command, attr: str) -> list[float]:
    """`a`'s `attr` over the reference's, round by round (the pairs of one round)."""
    return [getattr(x, attr) / getattr(y, attr) for x, y in zip(a.samples, ref.samples, strict=True)]


def summary(cmds: list[Command]) -> dict:
    """Every command's spreads and every non-reference command's ratios to the last one."""
    ref = cmds[-1]
    out: dict = {"reference": ref.name, "commands": {}}
    for c in cmds:
        entry: dict = {
            "argv": c.argv,
            "samples": [s.__dict__ for s in c.samples],
            "wall_s": spread([s.wall_s for s in c.samples]),
            "cpu_s": spread([s.cpu_s for s in c.samples]),
            "peak_mib": spread([s.peak_mib for s in c.samples]),
        }
        if c is not ref:
            entry["wall_ratio"] = spread(ratios(c, ref, "wall_s"))
            entry["cpu_ratio"] = spread(ratios(c, ref, "cpu_s"))
        out["commands"][c.name] = entry
    return out


def floor_mib() -> float:
    """This process's peak resident memory in MiB: the least peak a child can show."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def machine() -> str:
    """CPU model and the cores this process may use."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {len(os.sched_getaffinity(0))} cores"


def commit() -> str:
    r = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "-uno"], capture_output=True, text=True
    )
    changed = " (with uncommitted changes)" if dirty.stdout.strip() else ""
    return (r.stdout.strip() or "unknown") + changed


def report(s: dict, header: list[str]) -> str:
    """The printed table."""
    lines = [*header, ""]
    lines.append(
        f"{'command':<12} {'wall s min / median / max':>28} {'CPU s median':>13} {'peak MiB median':>16}"
    )
    for name, e in s["commands"].items():
        w, cpu, peak = e["wall_s"], e["cpu_s"][1], e["peak_mib"][1]
        lines.append(f"{name:<12} {w[0]:>8.3f} / {w[1]:>7.3f} / {w[2]:>7.3f} {cpu:>13.3f} {peak:>16.1f}")
    for name, e in s["commands"].items():
        if e["peak_mib"][1] <= 1.05 * s["floor_mib"]:
            floor = s["floor_mib"]
            lines.append(f"  note: {name}'s peak is at this script's own ({floor:.1f} MiB): at most that")
    lines.append("")
    ref = s["reference"]
    lines.append(f"time / {ref}'s time (median of the per-round ratios; range; its inverse):")
    for name, e in s["commands"].items():
        if "wall_ratio" not in e:
            continue
        w, c = e["wall_ratio"], e["cpu_ratio"]
        lines.append(
            f"  {name:<12} wall {w[1]:.4f} (rounds {w[0]:.4f}-{w[2]:.4f}; {ref} {1 / w[1]:.2f}x),"
            f" CPU {c[1]:.4f} ({ref} {1 / c[1]:.2f}x)"
        )
    return "\n".join(lines)


def aqmlab_cli() -> str:
    """The `aqmlab` command of this Python environment."""
    exe = Path(sys.executable).parent / "aqmlab"
    if not exe.exists():
        raise BenchError(
            f"no aqmlab command beside {sys.executable}: run ./setup.sh and use .venv/bin/python"
        )
    return str(exe)


def need_ns() -> str:
    ns = shutil.which("ns")
    if ns is None:
        raise BenchError("ns-2 is not installed (the `ns` command): apt-get install ns2")
    return ns


def engine_binary() -> str:
    """Build `aqmlab-bench` (release) and return its path."""
    r = subprocess.run(
        ["cargo", "build", "--release", "--locked", "-q", "-p", "bench", "--bin", "aqmlab-bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise BenchError("cargo build -p bench failed:\n" + r.stderr.strip())
    return str(ROOT / "target" / "release" / "aqmlab-bench")


def preset(name: str, scratch: Path) -> list[Command]:
    """The commands of preset `name` (see the module doc), the reference last."""
    if name == "quickstart":
        need_ns()
        scen = "scenarios/quickstart.toml"
        return [
            Command(
                "aqmlab run",
                [
                    aqmlab_cli(),
                    "run",
                    scen,
                    "--variant",
                    "droptail",
                    "--out",
                    str(scratch / "run"),
                    "--quiet",
                ],
            ),
            Command("engine", [engine_binary(), "--no-records", f"{ROOT / scen}:droptail"]),
            Command("ns-2.35", ["bash", "bench/ns2/run.sh", "660", "1", "delack", "60"]),
        ]
    if name == "seed001":
        ns = need_ns()
        scen = "scenarios/ns2-twin/seed001_dt_80.toml"
        out = scratch / "ns2"
        out.mkdir()
        r = subprocess.run(
            [sys.executable, "validation/ns2/twin/twins.py", "--ns2", "seed001_dt_80", "--out", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise BenchError("twins.py --ns2 seed001_dt_80 failed:\n" + r.stderr.strip())
        return [
            Command("aqmlab run", [aqmlab_cli(), "run", scen, "--out", str(scratch / "run"), "--quiet"]),
            Command("engine", [engine_binary(), "--no-records", str(ROOT / scen)]),
            Command("ns-2.35", [ns, "validation/ns2/twin/seed001.tcl", *shlex.split(r.stdout)]),
        ]
    raise BenchError(f"unknown preset {name!r} (quickstart, seed001, custom)")


def parse_cmd(text: str) -> Command:
    name, sep, cmd = text.partition("=")
    if not sep or not name.strip() or not cmd.strip():
        raise BenchError(f"--cmd {text!r}: expected NAME=COMMAND")
    return Command(name.strip(), shlex.split(cmd))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("preset", choices=["quickstart", "seed001", "custom"])
    ap.add_argument("--rounds", type=int, default=5, help="counted rounds (default 5)")
    ap.add_argument(
        "--cmd", action="append", default=[], help="custom: NAME=COMMAND, the last is the reference"
    )
    ap.add_argument("--json", type=Path, help="also write every sample and the summary here")
    args = ap.parse_args(argv)
    try:
        if args.rounds < 1:
            raise BenchError(f"--rounds: must be at least 1, not {args.rounds}")
        if args.preset == "custom" and len(args.cmd) < 2:
            raise BenchError("custom: give at least two --cmd NAME=COMMAND (the last is the reference)")
        if args.preset != "custom" and args.cmd:
            raise BenchError(f"--cmd is for the custom preset, not {args.preset}")
        with tempfile.TemporaryDirectory(prefix="aqmlab-paired-") as td:
            cmds = (
                [parse_cmd(c) for c in args.cmd] if args.preset == "custom" else preset(args.preset, Path(td))
            )
            names = [c.name for c in cmds]
            if len(set(names)) != len(names):
                raise BenchError(f"command names must differ: {names}")
            started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
            load0 = os.getloadavg()[0]
            print(f"paired run {args.preset}: {args.rounds} rounds after one warm-up round", flush=True)
            run_rounds(cmds, args.rounds, ROOT, log=lambda s: print(s, flush=True))
            load1 = os.getloadavg()[0]
        s = summary(cmds)
        s.update(
            preset=args.preset,
            rounds=args.rounds,
            started=started,
            machine=machine(),
            load_before=load0,
            load_after=load1,
            commit=commit(),
            floor_mib=floor_mib(),
        )
        header = [
            f"started {started}; {s['machine']}; load average {load0:.2f} before, {load1:.2f} after",
            f"aqmlab commit {s['commit']}; peak memory floor (this script's peak) {s['floor_mib']:.1f} MiB",
        ]
        print("\n" + report(s, header))
        if args.json:
            args.json.write_text(json.dumps(s, indent=1) + "\n")
    except BenchError as e:
        print(f"paired.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
