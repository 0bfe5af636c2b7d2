"""Sweep expansion (the core's, through aqmlab.sweeps.run) and derived values (`_core.Expr`): counts,
values, seeds, run ids and the errors that stop a sweep before anything runs."""

from __future__ import annotations

import hashlib
import tomllib

import pytest

from aqmlab import _core
from aqmlab.sweeps.run import SweepError, expand, validate

parse_expr, ExprError = _core.Expr, ValueError
canonical_json, scenario_hash = _core.canonical_json, _core.run_id

BASE = """\
[run]
seed = 7
warmup = "1s"
duration = "4s"

[topology]
kind = "dumbbell"
clients = 2
servers = 2
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "red"
min_th = 5
max_th = 15
limit = 50

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 50.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "constant", value = "5KB" }
"""

VARIANTS = """
[[variant]]
name = "a"
tcp = { variant = "reno" }

[[variant]]
name = "b"
tcp = { variant = "newreno" }
"""


def sweep_file(tmp_path, sweep: str, variants: bool = False, base: str = BASE):
    p = tmp_path / "s.toml"
    p.write_text(base + (VARIANTS if variants else "") + "\n" + sweep)
    return p


def test_grid_is_the_product_first_key_slowest_times_replications_and_variants(tmp_path):
    p = sweep_file(
        tmp_path,
        '[sweep]\nreplications = 2\n[sweep.grid]\n"queue.min_th" = [5, 30, 60]\n'
        '"workload[0].rate" = [100.0, 200.0]\n',
        variants=True,
    )
    s = expand(p)
    assert len(s.runs) == 3 * 2 * 2 * 2  # points × replications × variants
    assert s.axes == ["queue.min_th", "workload[0].rate"]
    firsts = [(r.values["queue.min_th"], r.values["workload[0].rate"]) for r in s.runs[::4]]
    assert firsts == [(5, 100.0), (5, 200.0), (30, 100.0), (30, 200.0), (60, 100.0), (60, 200.0)]
    # Within a point: replication-major, then variant; seeds 7, 8 (the base seed and the next).
    assert [(r.replication, r.seed, r.name) for r in s.runs[:4]] == [
        (0, 7, "a"), (0, 7, "b"), (1, 8, "a"), (1, 8, "b"),
    ]  # fmt: skip
    r = s.runs[5]  # min_th 5, rate 200, replication 0, variant b
    assert r.doc["queue"]["min_th"] == 5 and r.doc["workload"][0]["rate"] == 200.0
    assert r.doc["run"]["seed"] == 7
    assert [v["name"] for v in r.doc["variant"]] == ["b"]  # only the variant this run runs
    assert "sweep" not in r.doc
    assert tomllib.loads(r.text) == r.doc  # the written scenario.toml is the resolved document
    assert s.load_axis == "workload[0].rate"  # a swept workload rate is the load axis


def test_zip_pairs_lists_and_combines_with_grid(tmp_path):
    p = sweep_file(
        tmp_path,
        '[sweep.grid]\n"queue.limit" = [50, 100]\n'
        '[sweep.zip]\n"queue.min_th" = [5, 10, 20]\n"queue.max_th" = [15, 30, 60]\n',
    )
    s = expand(p)
    assert len(s.runs) == 2 * 3
    got = [(r.doc["queue"]["limit"], r.doc["queue"]["min_th"], r.doc["queue"]["max_th"]) for r in s.runs]
    assert got == [(50, 5, 15), (50, 10, 30), (50, 20, 60), (100, 5, 15), (100, 10, 30), (100, 20, 60)]
    assert {r.seed for r in s.runs} == {7}  # one replication: the file's seed


def test_derived_values_and_sweep_variables(tmp_path):
    p = sweep_file(
        tmp_path,
        '[sweep.grid]\n"queue.min_th" = [5, 30, 60]\n"var.load" = [0.5, 0.9]\n'
        "[sweep.derive]\n"
        '"queue.max_th" = "3 * queue.min_th"\n'
        '"queue.limit" = "max(8 * queue.min_th, 120)"\n'
        '"workload[0].rate" = "250 * var.load"\n'
        '"run.duration" = "str(int(queue.max_th // 3)) + \'s\'"\n',
    )
    s = expand(p)
    assert len(s.runs) == 6
    q = [r.doc["queue"] for r in s.runs]
    got = [
        (q["max_th"], q["limit"], r.doc["workload"][0]["rate"], r.doc["run"]["duration"])
        for q, r in zip(q, s.runs, strict=True)
    ]
    assert got == [
        (15, 120, 125.0, "5s"), (15, 120, 225.0, "5s"),
        (90, 240, 125.0, "30s"), (90, 240, 225.0, "30s"),
        (180, 480, 125.0, "60s"), (180, 480, 225.0, "60s"),
    ]  # fmt: skip
    assert "var" not in s.runs[0].doc  # variables are not written into the scenario
    assert s.runs[1].values["var.load"] == 0.9
    assert s.load_axis == "var.load"


def test_expression_evaluator_arithmetic_and_refusals():
    look = {"queue.min_th": 30, "workload[0].rate": 200.0, "variant[red].queue.limit": 480}.__getitem__
    assert parse_expr("3 * queue.min_th").eval(look) == 90
    assert parse_expr("(queue.min_th + 2) ** 2 - 7 // 2 % 3").eval(look) == 32 * 32 - 0
    assert parse_expr("workload[0].rate / 8").eval(look) == 25.0
    assert parse_expr("variant[red].queue.limit - min(1, -abs(-4))").eval(look) == 484
    assert parse_expr("round(2.675, 1)").eval(look) == 2.7
    assert parse_expr("queue.min_th * 2").refs == ["queue.min_th"]
    for bad in ["__import__('os')", "(lambda: 1)()", "[1, 2]", "x if y else z", "queue.min_th.__class__()"]:
        with pytest.raises(ExprError):
            parse_expr(bad)
    with pytest.raises(ExprError, match="division by zero"):
        parse_expr("1 / (queue.min_th - 30)").eval(look)
    with pytest.raises(ExprError, match="exponent"):
        parse_expr("10 ** 1000").eval(look)
    with pytest.raises(ExprError, match="strings only join"):
        parse_expr("'a' * 3").eval(look)


def test_canonical_json_and_hash_by_hand():
    doc = {"run": {"seed": 1, "duration": "4s"}, "queue": {"min_th": 5, "kind": "red"}}
    text = '{"queue":{"kind":"red","min_th":5},"run":{"duration":"4s","seed":1}}'
    assert canonical_json(doc) == text
    assert scenario_hash(doc) == hashlib.sha256(text.encode()).hexdigest()[:16]


def test_hash_ignores_comments_and_key_order_but_not_values(tmp_path):
    a = expand(sweep_file(tmp_path, '[sweep.grid]\n"queue.min_th" = [5, 6]\n'))
    reordered = BASE.replace("min_th = 5\nmax_th = 15\n", "max_th = 15  # comment\nmin_th = 5\n")
    sweep = '# another comment\n[sweep.grid]\n"queue.min_th" = [5, 6]\n'
    b = expand(sweep_file(tmp_path, sweep, base=reordered))
    assert [r.id for r in a.runs] == [r.id for r in b.runs]
    assert a.runs[0].id != a.runs[1].id  # min_th 5 vs 6
    c = expand(sweep_file(tmp_path, '[sweep.grid]\n"queue.min_th" = [5.0]\n'))
    assert c.runs[0].id != a.runs[0].id  # 5.0 is another TOML value than 5
    d = expand(sweep_file(tmp_path, "[sweep]\nreplications = 2\n"))
    assert d.runs[0].id != d.runs[1].id  # seeds 7 and 8


@pytest.mark.parametrize(
    "sweep, key, reason",
    [
        ("[sweep]\nrepetitions = 3\n", "sweep.repetitions", "unknown key"),
        ("[sweep]\nreplications = 0\n", "sweep.replications", "must be an integer >= 1"),
        ('[sweep.zip]\n"queue.min_th" = [1, 2]\n"queue.max_th" = [3]\n', "sweep.zip", "one length"),
        ('[sweep.grid]\n"queue.min_th" = []\n', 'sweep.grid."queue.min_th"', "non-empty array"),
        ('[sweep.grid]\n"workload[3].rate" = [1.0]\n', 'sweep.grid."workload[3].rate"', "out of range"),
        ('[sweep.grid]\n"queue..min_th" = [1]\n', 'sweep.grid."queue..min_th"', "malformed"),
        ('[sweep.derive]\n"queue.max_th" = "3 * queue.min_thh"\n', 'sweep.derive."queue.max_th"', "no key"),
        ('[sweep.derive]\n"queue.max_th" = "open(1)"\n', 'sweep.derive."queue.max_th"', "unknown function"),
        (
            '[sweep]\nreplications = 2\n[sweep.grid]\n"run.seed" = [1, 2]\n',
            'sweep.grid."run.seed"',
            "replications",
        ),
        ('[sweep]\nvariants = ["c"]\n', "sweep.variants", "no variant named 'c'"),
        ('[sweep]\nload_axis = "queue.limit"\n', "sweep.load_axis", "not a key"),
    ],
)
def test_bad_sweeps_name_file_key_reason(tmp_path, sweep, key, reason):
    p = sweep_file(tmp_path, sweep, variants=True)
    with pytest.raises(SweepError) as e:
        expand(p)
    assert e.value.file == str(p) and e.value.key == key and reason in e.value.reason
    assert str(e.value).startswith(f"{p}: {key}: ")


@pytest.mark.engine
def test_core_rejects_a_resolved_point_and_the_error_names_the_point(tmp_path):
    # min_th = 20 with max_th = 15 is rejected by the scenario crate, for that point only.
    p = sweep_file(tmp_path, '[sweep.grid]\n"queue.min_th" = [5, 20]\n')
    s = expand(p)
    with pytest.raises(SweepError) as e:
        validate(s)
    assert e.value.file == str(p) and e.value.key == "queue.min_th"
    assert "sweep point: queue.min_th = 20, run.seed = 7" in e.value.reason
    ok = expand(sweep_file(tmp_path, '[sweep.grid]\n"queue.min_th" = [5, 10]\n'))
    validate(ok)
    assert [r.name for r in ok.runs] == ["s", "s"]  # no variants: named after the file


APPLIES_VARIANTS = """
[[variant]]
name = "dt"

[[variant]]
name = "red"
queue = { kind = "red", min_th = 5, max_th = 15, limit = 50 }
"""


def test_applies_lists_only_the_keys_that_reach_each_run(tmp_path):
    # The base queue is drop-tail; variant red replaces it (another kind), so the base's
    # queue.limit reaches dt only, red's own keys reach red only, and var.x reaches the runs
    # whose derived value reads it (red's max_th); workload[0].rate reaches both.
    base = BASE.replace('kind = "red"\nmin_th = 5\nmax_th = 15\nlimit = 50', 'kind = "droptail"\nlimit = 60')
    p = tmp_path / "s.toml"
    p.write_text(
        base + APPLIES_VARIANTS + "\n[sweep]\n[sweep.grid]\n"
        '"queue.limit" = [10, 60]\n"variant[red].queue.min_th" = [5, 30]\n"var.x" = [2, 3]\n'
        '"workload[0].rate" = [50.0]\n'
        '[sweep.derive]\n"variant[red].queue.max_th" = "var.x * variant[red].queue.min_th"\n'
    )
    sw = expand(p)
    assert len(sw.runs) == 2 * 2 * 2 * 2
    by = {}
    for r in sw.runs:
        by.setdefault(r.name, set()).add(r.applies)
    assert by["dt"] == {("queue.limit", "workload[0].rate")}
    assert by["red"] == {
        ("variant[red].queue.min_th", "var.x", "workload[0].rate", "variant[red].queue.max_th")
    }
    # dt's resolved scenario depends on queue.limit only: 2 distinct runs for its 8 points.
    assert len({r.id for r in sw.runs if r.name == "dt"}) == 2
    assert len({r.id for r in sw.runs if r.name == "red"}) == 4


def test_a_sweep_given_as_text_or_dict_expands_as_its_file(tmp_path):
    sweep = '[sweep]\nreplications = 2\n[sweep.grid]\n"queue.min_th" = [5, 6]\n'
    p = sweep_file(tmp_path, sweep)
    by_file = expand(p)
    by_text = expand(p.read_text())
    by_dict = expand(tomllib.loads(p.read_text()))
    ids = [r.id for r in by_file.runs]
    assert len(set(ids)) == 4
    assert [r.id for r in by_text.runs] == ids == [r.id for r in by_dict.runs]
    assert (by_text.scenario, by_dict.scenario) == ("<text>", "<dict>")
    with pytest.raises(SweepError, match=r"^<dict>: sweep.replications: must be an integer >= 1, got 0$"):
        expand({**tomllib.loads(p.read_text()), "sweep": {"replications": 0}})


def test_derived_values_follow_python_arithmetic_and_keep_the_ids_they_had():
    # Python: round(3012 * 0.9 / 98) == 28, 135.0 * 0.9 == 121.5, 7 / 2 == 3.5, -7 // 2 == -4,
    # round(0.125, 2) == 0.12 (an exact tie goes to even), str(2.5 * 2) == "5.0".
    look = {"var.load": 0.9}.__getitem__
    assert parse_expr("round(3012 * var.load / 98)").eval(look) == 28
    assert parse_expr("135.0 * var.load").eval(look) == 121.5
    assert [parse_expr(e).eval(look) for e in ("7 / 2", "-7 // 2", "-7 % 3", "round(0.125, 2)")] == [
        3.5, -4, 2, 0.12,
    ]  # fmt: skip
    assert parse_expr("str(2.5 * 2) + 'ms'").eval(look) == "5.0ms"
    assert type(parse_expr("round(2.5)").eval(look)) is int
    with pytest.raises(KeyError):  # an exception of the lookup other than ValueError goes through
        parse_expr("2 * var.nope").eval(look)
    # The id of {"a": 1e16, "b": 1.0} is that of Python's json.dumps: {"a":1e+16,"b":1.0}.
    doc = {"b": 1.0, "a": 1e16}
    assert canonical_json(doc) == '{"a":1e+16,"b":1.0}'
    assert scenario_hash(doc) == hashlib.sha256(b'{"a":1e+16,"b":1.0}').hexdigest()[:16]
