"""Random mutations of every shipped scenario (issue 15): 1,000 mutated files, each run as a user
would with `aqmlab run FILE --out DIR --quiet`, must end in a finished run or ONE clean error
line `aqmlab: error: FILE: KEY: reason` (exit status 2) — never a traceback, a Rust panic, an
abort or a hang.

The mutations are drawn by a seeded RNG (`SEED`), so the same 1,000 files every time: the
shipped scenarios (scenarios/*.toml, scenarios/*/*.toml) in turn, each mutated once by an
operator drawn from `OPERATORS`: delete a key or array element, change a value's type, give a
quantity a unit of another kind (or none, or a bogus one), make a number or quantity negative,
zero or extreme (1e30, 1e308, 2^63 − 1, 2^64, inf, nan, 1e400 in a unit string), add an unknown
key, swap two tables, and, on the text, delete or duplicate a line or cut the file short. Before
the mutation every scenario is shortened to `run.warmup = "0s"`, `run.duration = "200ms"` (a
mutation may still change those), and relative data-file paths are made absolute (the mutated
file is written to a temporary directory).

All cases run in one child process (`python test_mutations.py`), in-process through
`aqmlab.cli.main`, printing a JSON line before (so an abort or a hang names its case) and after
each case. An accepted mutation's runs are checked for sane summaries (utilization in [0, 1],
drops in [0, 100] %). The whole test takes about a minute on the project machine.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import random
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted([*ROOT.glob("scenarios/*.toml"), *ROOT.glob("scenarios/*/*.toml")])
N_CASES = 1000
SEED = 15
#: Seconds for all cases together (a hang fails the test naming the case that hung).
TIMEOUT_S = 400
UNIT_GROUPS = (("bps", "kbps", "Mbps", "Gbps"), ("ns", "us", "ms", "s", "min", "h"), ("B", "KB", "MB", "GB"))
QUANTITY = re.compile(r"^\s*([0-9.eE+-]+)\s*([A-Za-zµ]+)\s*$")
OTHER_VALUES = (42, -7, 3.5, "text", True, [], {}, [1, 2], {"x": 1}, "10Mbps", "5ms", "1500B")
BIG_INT = "<2^64>"
EXTREME_NUMBERS = (1e30, 1e308, 2**63 - 1, -(2**63), math.inf, -math.inf, math.nan, 1e-300, BIG_INT)
EXTREME_QUANTITIES = ("1e30", "1e400", "nan", "inf", "-inf", "1e-30", "99999999999999999999")


def _nodes(node, path=()):
    """(path, value) of every value under `node` (tables, arrays and leaves)."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        yield (*path, k), v
        if isinstance(v, (dict, list)):
            yield from _nodes(v, (*path, k))


def _parent(doc, path):
    node = doc
    for k in path[:-1]:
        node = node[k]
    return node


def _set(doc, path, value) -> None:
    _parent(doc, path)[path[-1]] = value


def _leaves(doc, pred):
    return [(p, v) for p, v in _nodes(doc) if pred(v)]


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _quantity(v) -> re.Match | None:
    return QUANTITY.match(v) if isinstance(v, str) else None


def op_delete(doc, rng):
    path, _ = rng.choice(list(_nodes(doc)))
    del _parent(doc, path)[path[-1]]
    return path


def op_change_type(doc, rng):
    path, v = rng.choice(list(_nodes(doc)))
    _set(doc, path, copy.deepcopy(rng.choice([o for o in OTHER_VALUES if type(o) is not type(v)])))
    return path


def op_wrong_unit(doc, rng):
    cands = _leaves(doc, _quantity)
    if not cands:
        return op_change_type(doc, rng)
    path, v = rng.choice(cands)
    num, unit = _quantity(v).groups()
    others = [u for g in UNIT_GROUPS if unit not in g for u in g] + ["", "furlongs", " Mbps", "mbps"]
    _set(doc, path, num + rng.choice(others))
    return path


def op_negative(doc, rng):
    cands = _leaves(doc, lambda v: _is_number(v) or _quantity(v))
    if not cands:
        return op_change_type(doc, rng)
    path, v = rng.choice(cands)
    _set(doc, path, -abs(v) - 1 if _is_number(v) else "-" + v.strip())
    return path


def op_zero(doc, rng):
    cands = _leaves(doc, lambda v: _is_number(v) or _quantity(v))
    if not cands:
        return op_change_type(doc, rng)
    path, v = rng.choice(cands)
    _set(doc, path, type(v)(0) if _is_number(v) else "0" + _quantity(v).group(2))
    return path


def op_extreme(doc, rng):
    cands = _leaves(doc, lambda v: _is_number(v) or _quantity(v))
    if not cands:
        return op_change_type(doc, rng)
    path, v = rng.choice(cands)
    if _is_number(v):
        _set(doc, path, rng.choice(EXTREME_NUMBERS))
    else:
        _set(doc, path, rng.choice(EXTREME_QUANTITIES) + _quantity(v).group(2))
    return path


def op_unknown_key(doc, rng):
    tables = [((), doc)] + _leaves(doc, lambda v: isinstance(v, dict))
    path, t = rng.choice(tables)
    t[rng.choice(["bogus_key", "Kind", "limit ", "min_th", "rate", "x"])] = rng.choice([1, "1s", {"a": 1}])
    return (*path, "<new key>")


def op_swap_tables(doc, rng):
    tables = _leaves(doc, lambda v: isinstance(v, dict))
    if len(tables) < 2:
        return op_change_type(doc, rng)
    (pa, va), (pb, vb) = rng.sample(tables, 2)
    if pa[: len(pb)] == pb or pb[: len(pa)] == pa:  # one inside the other: swap with a copy
        _set(doc, pa, copy.deepcopy(vb))
    else:
        _set(doc, pa, vb)
        _set(doc, pb, va)
    return pa


OPERATORS = {
    "delete": op_delete,
    "change_type": op_change_type,
    "wrong_unit": op_wrong_unit,
    "negative": op_negative,
    "zero": op_zero,
    "extreme": op_extreme,
    "unknown_key": op_unknown_key,
    "swap_tables": op_swap_tables,
    "text": None,  # on the TOML text, below
}


def mutate_text(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    how = rng.choice(["delete_line", "duplicate_line", "cut"])
    if how == "delete_line":
        del lines[i]
    elif how == "duplicate_line":
        lines.insert(i, lines[i])
    else:
        return text[: rng.randrange(len(text))]
    return "\n".join(lines) + "\n"


def _absolutize(node, base: Path) -> None:
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for k, v in items:
        if isinstance(v, (dict, list)):
            _absolutize(v, base)
        elif k in ("file", "matrix_file") and isinstance(v, str):
            node[k] = str((base / v).resolve())


def prepared(f: Path) -> dict:
    """The scenario `f`, shortened to 200 ms without warm-up, data paths made absolute."""
    doc = tomllib.loads(f.read_text(encoding="utf-8"))
    doc.setdefault("run", {}).update(warmup="0s", duration="200ms")
    _absolutize(doc, f.parent)
    return doc


def cases():
    """(case number, scenario, operator, mutated key path, TOML text) of every case."""
    from aqmlab.engine.document import dumps_toml

    rng = random.Random(SEED)
    docs = {f: prepared(f) for f in SCENARIOS}
    for i in range(N_CASES):
        f = SCENARIOS[i % len(SCENARIOS)]
        op = rng.choice(list(OPERATORS))
        doc = copy.deepcopy(docs[f])
        if op == "text":
            yield i, f, op, "(text)", mutate_text(dumps_toml(doc), rng)
            continue
        path = OPERATORS[op](doc, rng)
        # 2^64 is no TOML integer (the TOML writer cannot write it): put it into the text instead.
        text = dumps_toml(doc).replace(f'"{BIG_INT}"', "18446744073709551616")
        yield i, f, op, ".".join(map(str, path)), text


def child() -> None:
    """Run every case through `aqmlab run` in this process; JSON lines before and after."""
    from aqmlab import cli

    work = Path(tempfile.mkdtemp(prefix="aqmlab-mutations-"))
    try:
        for i, f, op, path, text in cases():
            print(json.dumps({"start": i, "file": str(f), "op": op, "path": path}), flush=True)
            case = work / f"case{i:04d}"
            case.mkdir()
            scenario = case / f.name
            scenario.write_text(text, encoding="utf-8")
            out, err = io.StringIO(), io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    rc = cli.main(["run", str(scenario), "--out", str(case / "out"), "--quiet"])
                res = {"outcome": "ok" if rc == 0 else "error", "rc": rc, "stderr": err.getvalue()}
                if rc == 0:
                    res["summaries"] = [
                        json.loads(p.read_text()) for p in sorted((case / "out").glob("*/summary.json"))
                    ]
            except BaseException as e:  # noqa: BLE001 (a PanicException is a BaseException)
                import traceback

                res = {"outcome": "crash", "msg": f"{type(e).__name__}: {e}", "tb": traceback.format_exc()}
            res["scenario"] = str(scenario)
            print(json.dumps(res), flush=True)
            shutil.rmtree(case)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def outcomes() -> list[dict]:
    try:
        p = subprocess.run(
            [sys.executable, __file__], capture_output=True, text=True, timeout=TIMEOUT_S, cwd=ROOT
        )
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        starts = [x for x in out.splitlines() if x.startswith('{"start"')]
        pytest.fail(f"mutations hung or took over {TIMEOUT_S} s; last case started: {starts[-1:]}")
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.startswith("{")]
    assert p.returncode == 0, f"child died ({p.returncode}) after {lines[-1:]}: {p.stderr[-2000:]}"
    starts = [x for x in lines if "start" in x]
    results = [x for x in lines if "outcome" in x]
    assert len(starts) == len(results) == N_CASES
    return [{**s, **r} for s, r in zip(starts, results, strict=True)]


def test_no_traceback_panic_abort_or_hang(outcomes):
    crashes = [(o["file"], o["op"], o["path"], o["msg"]) for o in outcomes if o["outcome"] == "crash"]
    assert crashes == []


def test_every_refusal_is_one_line_file_key_reason(outcomes):
    bad = []
    for o in outcomes:
        if o["outcome"] != "error":
            continue
        lines = o["stderr"].splitlines()
        prefix = f"aqmlab: error: {o['scenario']}: "
        ok = (
            o["rc"] == 2
            and len(lines) == 1
            and lines[0].startswith(prefix)
            and re.match(r"[^ :][^:]*: \S", lines[0][len(prefix) :]) is not None
            and "Traceback" not in o["stderr"]
            and "Errno" not in o["stderr"]
        )
        if not ok:
            bad.append((Path(o["file"]).name, o["op"], o["path"], o["stderr"][-300:]))
    assert bad == []


def test_accepted_mutations_give_sane_runs(outcomes):
    bad = []
    for o in outcomes:
        if o["outcome"] != "ok":
            continue
        if not o["summaries"]:
            bad.append((o["file"], o["op"], o["path"], "no run written"))
        for s in o["summaries"]:
            u, d = s.get("utilization"), s.get("drops_pct")
            if not (u is None or -1e-9 <= u <= 1 + 1e-9) or not (d is None or 0 <= d <= 100):
                bad.append((o["file"], o["op"], o["path"], u, d))
    assert bad == []


def test_the_mutations_cover_every_scenario_and_operator(outcomes):
    assert {o["file"] for o in outcomes} == {str(f) for f in SCENARIOS} and len(SCENARIOS) >= 20
    by_op: dict[str, int] = {}
    for o in outcomes:
        by_op[o["op"]] = by_op.get(o["op"], 0) + 1
    assert set(by_op) == set(OPERATORS) and min(by_op.values()) >= 50, by_op
    kinds = {o["outcome"] for o in outcomes}
    n_ok = sum(o["outcome"] == "ok" for o in outcomes)
    # Most mutations break the file; some (an optional key deleted, a harmless value) still run.
    assert kinds == {"ok", "error"} and 20 <= n_ok <= 600, n_ok


@pytest.mark.parametrize(
    "text, key, reason",
    [
        # Found by this test (cases 156, 200, …): the TOML parser's two-line message.
        ("[queue]\nkind = \"droptail\"\n[queue]\n", "line 3, column 1",
         "TOML syntax error: invalid table header: duplicate key `queue` in document root"),
        ("[run\n", "line 1, column 5", "TOML syntax error: invalid table header: expected `.`, `]`"),
        # A line break inside a value as written is shown as \n, not printed.
        ("<quickstart>", "run.warmup", '"1s\\nx": unknown time unit "s\\nx" (ns, us, ms, s, min, h)'),
    ],
)  # fmt: skip
def test_regression_syntax_errors_are_one_line(tmp_path, capsys, text, key, reason):
    from aqmlab import cli

    if text == "<quickstart>":
        quickstart = (ROOT / "scenarios" / "quickstart.toml").read_text()
        text = quickstart.replace('warmup = "60s"', 'warmup = "1s\\nx"')
    f = tmp_path / "bad.toml"
    f.write_text(text)
    assert cli.main(["run", str(f), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert capsys.readouterr().err == f"aqmlab: error: {f}: {key}: {reason}\n"


if __name__ == "__main__":
    child()
