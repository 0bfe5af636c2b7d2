"""Out-of-range quantities (issue 15): in every shipped scenario (scenarios/*.toml,
scenarios/*/*.toml), each rate, duration and size set to 1e30 (and each host, user or flow count
to 4e9), one at a time, is either accepted or refused with ONE clean line naming the file, the
key and the value as written — never a panic, a traceback, an abort or a hang. What is accepted
runs one simulated second without harm.

The mutations are found by walking the TOML: a string "<number><unit>" with a rate, time or
size unit becomes "1e30<unit>"; a plain number under a key `rate` becomes 1e30; an integer
under `users`, `flows`, `clients`, `servers`, `hosts`, `routers` becomes 4000000000. Each
mutated file is validated by the core (`_core.scenario_text_variants`: the whole scenario
loader, budget included, nothing runs) in one child process with a timeout, so a panic, an
abort or a hang fails the test instead of killing or stalling pytest.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted([*ROOT.glob("scenarios/*.toml"), *ROOT.glob("scenarios/*/*.toml")])
UNITS = {
    "bps", "kbps", "Kbps", "Mbps", "Gbps",
    "ns", "us", "µs", "ms", "s", "min", "h",
    "B", "KB", "kB", "MB", "GB", "KiB", "MiB",
}  # fmt: skip
QUANTITY = re.compile(r"^\s*[0-9.eE+-]+\s*([A-Za-zµ]+)\s*$")
COUNT_KEYS = {"users", "flows", "clients", "servers", "hosts", "routers"}
HUGE_COUNT = 4_000_000_000


def _path(parent: str, key) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def mutations(node, parent: str = ""):
    """(key path, replacement value, value as written) for every quantity under `node`."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        p = _path(parent, k)
        if isinstance(v, (dict, list)):
            yield from mutations(v, p)
        elif isinstance(v, str):
            m = QUANTITY.match(v)
            if m and m.group(1) in UNITS:
                yield p, f"1e30{m.group(1)}", f"1e30{m.group(1)}"
        elif isinstance(v, bool):
            continue
        elif k == "rate" and isinstance(v, (int, float)):
            yield p, 1e30, "1e30"
        elif k in COUNT_KEYS and isinstance(v, int):
            yield p, HUGE_COUNT, str(HUGE_COUNT)


def set_at(doc, path: str, value) -> None:
    parts = [int(x) if x.isdigit() else x for x in re.findall(r"[^.\[\]]+", path)]
    node = doc
    for k in parts[:-1]:
        node = node[k]
    node[parts[-1]] = value


def reported_key(doc: dict, path: str) -> str:
    """The key the loader reports for `path`: `variant[i].rest` → `variant[<name>].rest`."""
    m = re.match(r"variant\[(\d+)\]\.(.*)", path)
    return f"variant[{doc['variant'][int(m.group(1))]['name']}].{m.group(2)}" if m else path


def cases():
    for f in SCENARIOS:
        doc = tomllib.loads(f.read_text())
        for path, value, written in mutations(doc):
            yield f, path, value, written


def child() -> None:
    """Validate every case; one JSON line per case, printed before (so a hang or an abort
    names its case) and after."""
    import tempfile

    import pyarrow.parquet as pq

    from aqmlab import _core
    from aqmlab.engine.document import dumps_toml

    for f, path, value, _ in cases():
        doc = tomllib.loads(f.read_text())
        set_at(doc, path, value)
        print(json.dumps({"start": f"{f}:{path}"}), flush=True)
        try:
            names = _core.scenario_text_variants(dumps_toml(doc), str(f), str(f.parent))
            out = {"outcome": "ok", "msg": ",".join(names), "max_rtt_ns": 0, "requests": 0}
            # Accepted: run each variant for one simulated second.
            doc["run"].update(warmup="0s", duration="1s")
            short = dumps_toml(doc)
            for name in names:
                with tempfile.TemporaryDirectory() as td:
                    _core.run_scenario_text(short, str(f), str(f.parent), name, td)
                    rtts = pq.read_table(Path(td) / "requests.parquet", columns=["base_rtt_ns"])
                    rtts = rtts.column(0).to_pylist()
                out["requests"] += len(rtts)
                out["max_rtt_ns"] = max([out["max_rtt_ns"], *rtts])
        except _core.ScenarioError as e:
            out = {"outcome": "error", "msg": str(e), "key": e.key}
        except BaseException as e:  # noqa: BLE001 (a PanicException is a BaseException)
            out = {"outcome": "crash", "msg": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)


@pytest.fixture(scope="module")
def outcomes() -> list[tuple[Path, str, str, dict]]:
    try:
        p = subprocess.run([sys.executable, __file__], capture_output=True, text=True, timeout=60, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        lines = out.splitlines()
        pytest.fail(f"validation hung; last case started: {lines[-1] if lines else '?'}")
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    results = [x for x in lines if "outcome" in x]
    assert p.returncode == 0, f"child died ({p.returncode}) after {lines[-1:]}: {p.stderr[-2000:]}"
    expected = list(cases())
    assert len(results) == len(expected)
    return [(f, path, written, r) for (f, path, _, written), r in zip(expected, results, strict=True)]


def test_every_shipped_scenario_has_quantities_to_mutate(outcomes):
    files = {f for f, *_ in outcomes}
    # A file written over a base (`extends`) may add no quantity of its own: its base's are mutated.
    bare = {f for f in SCENARIOS if not any(True for _ in mutations(tomllib.loads(f.read_text())))}
    assert all("extends" in tomllib.loads(f.read_text()) for f in bare)
    assert files == set(SCENARIOS) - bare and len(files) >= 20
    # Rates, times and sizes of the quickstart alone: access/bottleneck rate and delay, run
    # warmup and duration, queue limit, the RED/sizes/think quantities.
    quick = [p for f, p, *_ in outcomes if f.name == "quickstart.toml"]
    assert {"run.warmup", "run.duration", "topology.bottleneck_rate", "topology.access_delay"} <= set(quick)


def test_no_panic_traceback_abort_or_hang(outcomes):
    crashes = [(f"{f}:{p}", r["msg"]) for f, p, _, r in outcomes if r["outcome"] == "crash"]
    assert crashes == []


def test_every_refusal_is_one_line_naming_file_key_and_value(outcomes):
    bad = []
    for f, path, written, r in outcomes:
        if r["outcome"] != "error":
            continue
        doc = tomllib.loads(f.read_text())
        key = reported_key(doc, path)
        msg = r["msg"]
        one_line = "\n" not in msg and msg.startswith(f"{f}: {key}: ")
        # A unit string is quoted as written; a bare rate or count is refused by the run-size
        # budget (with its estimate) or by a count's own range.
        shows_value = f'"{written}"' in msg if written.startswith("1e30") and written != "1e30" else (
            "too large a run" in msg or "too many hosts" in msg or "no route" in msg
            or "must be at most" in msg
        )  # fmt: skip
        if not (one_line and shows_value):
            bad.append((f"{f.name}:{path}", msg))
    assert bad == []


def test_accepted_values_are_harmless_and_run(outcomes):
    """The only 1e30 accepted is a DelayBox `{ dist = "packmime", rate = R }`: R only sets the
    PackMime RTT model's noise share (traffic::packmime::Xmit), which saturates at 1; the RTTs
    stay the model's (at most a few seconds), and one simulated second of every variant runs."""
    accepted = [(f, p, r) for f, p, _, r in outcomes if r["outcome"] == "ok"]
    assert len(accepted) == 12
    for f, path, r in accepted:
        assert re.search(r"\.delaybox\.(client|server)\.rate$", path), (f.name, path)
        assert r["requests"] > 0
        assert 0 < r["max_rtt_ns"] < 30 * 10**9, (f.name, path, r["max_rtt_ns"])


def test_a_size_beyond_int64_is_one_clean_error_not_a_traceback_or_minus_one():
    from aqmlab.storage.tables import columns_to_arrow

    with pytest.raises(ValueError) as e:
        columns_to_arrow("requests", {"id": [0, 1], "response_bytes": [1460, 2**64 - 2]})
    assert str(e.value) == (
        "requests.response_bytes: the value 18446744073709551614 does not fit a signed 64-bit "
        "column (at most 9223372036854775807); a sampled size or time was beyond any meaningful "
        "range, check the scenario's distributions"
    )
    # The endless-bulk marker −1 and ordinary values still convert.
    t = columns_to_arrow("requests", {"response_bytes": [-1, 2**63 - 1]})
    assert t.column("response_bytes").to_pylist() == [-1, 2**63 - 1]


@pytest.mark.parametrize(
    "key, value, reason",
    [
        (
            "response_size",
            {"dist": "lognormal", "mu": 8, "sigma": 1000},
            "response_size.sigma: too large: one draw in a million would exceed 1000000000000 B "
            "(e^(mu + 4.75 sigma) with mu = 8), so sigma ≤ 4.13; got 1000",
        ),
        (
            "rate",
            1e30,
            # 6.6e33 events / 8e6 per s = 8.25e26 s = 2.6e19 years.
            "rate: too large a run: 1e30 connections/s over 660 s (warmup + duration) is about "
            "6.6e32 connections, at least 6.6e33 events, about 2.6e19 years at 8e6 events/s; "
            "aqmlab refuses runs above 1e11 events (3.5 h)",
        ),
    ],
)
def test_cli_refuses_what_used_to_hang_or_mislead_in_one_line(tmp_path, key, value, reason):
    from aqmlab.engine.document import dumps_toml

    doc = tomllib.loads((ROOT / "scenarios" / "quickstart.toml").read_text())
    doc["workload"][0][key] = value
    f = tmp_path / "big.toml"
    f.write_text(dumps_toml(doc))
    p = subprocess.run(
        [sys.executable, "-m", "aqmlab", "run", str(f), "--out", str(tmp_path / "out"), "--quiet"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (p.returncode, p.stderr.splitlines()) == (2, [f"aqmlab: error: {f}: workload[0].{reason}"])
    assert not (tmp_path / "out").exists()


if __name__ == "__main__":
    child()
