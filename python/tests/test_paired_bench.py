"""bench/paired.py, the paired aqmlab/ns-2 timing (issue 14): the order of the runs, what is
measured per command, the ratios, and the refusals. Small stand-in commands, not the presets."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load():
    spec = importlib.util.spec_from_file_location("paired", ROOT / "bench" / "paired.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["paired"] = mod  # dataclasses look their module up by name
    spec.loader.exec_module(mod)
    return mod


paired = _load()
PY = sys.executable


def test_rounds_alternate_after_one_uncounted_warm_up(tmp_path):
    log = tmp_path / "order"
    cmds = [paired.Command(n, [PY, "-c", f"open({str(log)!r}, 'a').write('{n}')"]) for n in ("a", "b", "c")]
    paired.run_rounds(cmds, 3, tmp_path, log=lambda s: None)
    assert log.read_text() == "abc" * 4  # the warm-up round, then three rounds
    assert [len(c.samples) for c in cmds] == [3, 3, 3]


def test_each_command_gets_its_own_wall_cpu_and_peak_memory(tmp_path):
    sleep = paired.Command("sleep", [PY, "-c", "import time; time.sleep(0.4)"])
    spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass"
    burn = paired.Command("burn", [PY, "-c", spin])
    big = paired.Command("big", [PY, "-c", "b = bytearray(200 * 2**20); b[::4096] = b'x' * len(b[::4096])"])
    s_sleep = paired.run_once(sleep, tmp_path)
    s_burn = paired.run_once(burn, tmp_path)
    s_big = paired.run_once(big, tmp_path)
    assert s_sleep.wall_s >= 0.4 and s_sleep.cpu_s < 0.2
    assert s_burn.cpu_s >= 0.4 and s_burn.wall_s >= 0.4
    # The 200 MiB buffer, touched page by page, is in that child's peak and in no other's: the
    # others show the floor, this process's own peak (see the module doc).
    floor = paired.floor_mib()
    assert s_big.peak_mib >= 200
    assert s_sleep.peak_mib <= floor + 10 and s_burn.peak_mib <= floor + 10


def test_ratios_are_per_round_then_the_median():
    a = paired.Command("a", [])
    ref = paired.Command("ref", [])
    # Round by round: 1/10, 2/10, 3/40 -> ratios 0.1, 0.2, 0.075 -> median 0.1 (not 6/60).
    for wa, wr in [(1.0, 10.0), (2.0, 10.0), (3.0, 40.0)]:
        a.samples.append(paired.Sample(wa, wa / 2, 10.0))
        ref.samples.append(paired.Sample(wr, wr, 20.0))
    s = paired.summary([a, ref])
    assert s["reference"] == "ref"
    assert s["commands"]["a"]["wall_ratio"] == (0.075, 0.1, 0.2)
    assert s["commands"]["a"]["cpu_ratio"] == (0.0375, 0.05, 0.1)
    assert s["commands"]["a"]["wall_s"] == (1.0, 2.0, 3.0)
    assert "wall_ratio" not in s["commands"]["ref"]
    s["floor_mib"] = 15.0
    text = paired.report(s, ["header"])
    assert "note: a's peak is at this script's own (15.0 MiB): at most that" in text
    assert "note: ref's" not in text
    assert "a            wall 0.1000 (rounds 0.0750-0.2000; ref 10.00x), CPU 0.0500 (ref 20.00x)" in text


def _custom(out, *cmds: str) -> int:
    """`paired.py custom` over `cmds` (NAME=COMMAND), two rounds, JSON into `out`."""
    argv = ["custom", "--rounds", "2", "--json", str(out)]
    for c in cmds:
        argv += ["--cmd", c]
    return paired.main(argv)


def test_custom_run_prints_the_ratio_and_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = _custom(out, f"fast={PY} -c pass", f"slow={PY} -c 'import time; time.sleep(0.3)'")
    assert rc == 0
    s = json.loads(out.read_text())
    assert s["reference"] == "slow" and s["rounds"] == 2
    assert len(s["commands"]["fast"]["samples"]) == 2
    assert s["commands"]["fast"]["wall_ratio"][1] < 1.0
    assert "time / slow's time" in capsys.readouterr().out


def test_a_failing_command_stops_the_run_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = _custom(out, f"ok={PY} -c pass", f"bad={PY} -c 'import sys; sys.exit(\"boom here\")'")
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert "bad: exit status 1" in err and "boom here" in err


@pytest.mark.parametrize(
    "argv, says",
    [
        (["custom", "--cmd", "a=true"], "at least two --cmd"),
        (["custom", "--cmd", "a=true", "--cmd", "noequals"], "expected NAME=COMMAND"),
        (["custom", "--cmd", "a=true", "--cmd", "a=true"], "names must differ"),
        (["custom", "--rounds", "0", "--cmd", "a=true", "--cmd", "b=true"], "at least 1"),
        (["quickstart", "--cmd", "a=true"], "--cmd is for the custom preset"),
        (["custom", "--cmd", "a=true", "--cmd", "b=/no/such/binary"], "b: cannot start"),
    ],
)
def test_refusals_name_the_problem(argv, says, capsys):
    assert paired.main(argv) == 2
    assert says in capsys.readouterr().err


def test_presets_need_ns2(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert paired.main(["seed001"]) == 2
    assert "ns-2 is not installed" in capsys.readouterr().err
