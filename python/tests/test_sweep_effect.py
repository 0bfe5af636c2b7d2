"""Sweep keys that change no run (issue 15): a key every run's variant hides (overridden, or in a
table the variant replaces with another kind), a `variant[NAME]` key of a variant not run, a
sweep variable nothing reads, and replications a variant pins to one seed are rejected by
`expand` naming the key, the variant and the path that would work. Keys that reach at least one
run are accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from aqmlab import _core
from aqmlab.sweeps.run import SweepError, expand, validate

shadowed_by = _core.shadowed_by

QUICKSTART = Path(__file__).resolve().parents[2] / "scenarios" / "quickstart.toml"

# The README's sweep example as it was (base keys, which the red variant's queue replaces) and
# corrected (the same keys inside the red variant).
README_SWEEP = """
[sweep]
replications = 5
variants = ["red"]
[sweep.grid]
"queue.min_th" = [5, 30, 60]
[sweep.zip]
"queue.w_q" = ["1/512", "1/128"]
"queue.max_p" = [0.1, 0.05]
[sweep.derive]
"queue.max_th" = "3 * queue.min_th"
"queue.limit"  = "max(8 * queue.min_th, 120)"
"""
CORRECTED_SWEEP = README_SWEEP.replace('"queue.', '"variant[red].queue.').replace(
    "* queue.min_th", "* variant[red].queue.min_th"
)


def quickstart_with(tmp_path: Path, sweep: str) -> Path:
    p = tmp_path / "qs.toml"
    p.write_text(QUICKSTART.read_text(encoding="utf-8") + sweep, encoding="utf-8")
    return p


def test_readme_example_on_quickstart_is_rejected_with_the_working_path(tmp_path):
    p = quickstart_with(tmp_path, README_SWEEP)
    with pytest.raises(SweepError) as e:
        expand(p)
    assert e.value.file == str(p) and e.value.key == 'sweep.grid."queue.min_th"'
    msg = str(e.value)
    assert '"variant[red].queue.min_th"' in msg  # the path that works
    assert "variant red" in msg and 'kind = "red"' in msg and 'kind = "droptail"' in msg
    # The other dead keys are listed too, so one edit fixes them all.
    assert "also without effect: queue.w_q, queue.max_p, queue.max_th, queue.limit" in msg


def test_corrected_readme_example_changes_every_red_run(tmp_path):
    s = expand(quickstart_with(tmp_path, CORRECTED_SWEEP))
    validate(s)  # the core accepts every resolved point
    assert len(s.runs) == 3 * 2 * 5 and len({r.id for r in s.runs}) == 30
    red = [r.doc["variant"][0]["queue"] for r in s.runs if r.replication == 0]
    got = [(q["min_th"], q["max_th"], q["limit"], q["w_q"], q["max_p"]) for q in red]
    assert got == [
        (5, 15, 120, "1/512", 0.1), (5, 15, 120, "1/128", 0.05),
        (30, 90, 240, "1/512", 0.1), (30, 90, 240, "1/128", 0.05),
        (60, 180, 480, "1/512", 0.1), (60, 180, 480, "1/128", 0.05),
    ]  # fmt: skip
    assert all(r.doc["queue"] == {"kind": "droptail", "limit": 120} for r in s.runs)  # base untouched


def test_core_reads_the_variant_path_but_replaces_the_base_one(tmp_path):
    # min_th 100 > max_th 90 is impossible: in the red variant the core rejects it; in the base
    # queue the red variant replaces, the core never sees it (why the check is needed).
    bad = '\n[sweep]\nvariants = ["red"]\n[sweep.grid]\n"variant[red].queue.min_th" = [100]\n'
    with pytest.raises(SweepError) as e:
        validate(expand(quickstart_with(tmp_path, bad)))
    assert e.value.key == "variant[red].queue.min_th" and "max_th" in e.value.reason
    text = QUICKSTART.read_text(encoding="utf-8").replace("limit = 120\n", "limit = 120\nmin_th = 100\n", 1)
    red_only = text.split("[[variant]]")[0] + (
        '[[variant]]\nname = "red"\nqueue = { kind = "red", min_th = 30, max_th = 90 }\n'
    )
    assert _core.scenario_text_variants(red_only, "qs.toml", str(QUICKSTART.parent)) == ["red"]


BASE = """\
[run]
seed = 1
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

[topology.delaybox]
rtt = { dist = "uniform", min = "0ms", max = "100ms" }

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

[[variant]]
name = "dt"
queue = { kind = "droptail", limit = 60 }

[[variant]]
name = "red2"
queue = { max_p = 0.05 }

[[variant]]
name = "lim"
queue = { limit = 80 }
topology = { delaybox = { matrix = [["10ms", "20ms"], ["30ms", "40ms"]] } }

[[variant.workload]]
kind = "http10"
arrival = "poisson"
rate = 20.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "constant", value = "5KB" }
"""


def sweep_of(tmp_path: Path, sweep: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(BASE + "\n" + sweep, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "sweep, key, words",
    [
        # Another kind replaces the base table.
        ('[sweep]\nvariants = ["dt"]\n[sweep.grid]\n"queue.min_th" = [5, 6]\n',
         'sweep.grid."queue.min_th"', ["variant dt sets [queue]", '"variant[dt].queue.min_th"']),
        # The variant sets the key itself.
        ('[sweep]\nvariants = ["lim"]\n[sweep.grid]\n"queue.limit" = [40, 50]\n',
         'sweep.grid."queue.limit"', ["variant lim sets queue.limit itself", '"variant[lim].queue.limit"']),
        # An array on the path is replaced whole.
        ('[sweep]\nvariants = ["lim"]\n[sweep.zip]\n"workload[0].rate" = [40.0, 60.0]\n',
         'sweep.zip."workload[0].rate"', ["replaces the whole array workload"]),
        # matrix in the variant drops the base's rtt.
        ('[sweep]\nvariants = ["lim"]\n[sweep.grid]\n'
         '"topology.delaybox.rtt" = [{ dist = "constant", value = "5ms" }]\n',
         'sweep.grid."topology.delaybox.rtt"', ["sets topology.delaybox.matrix, which drops the base's rtt"]),
        # Hidden by every selected variant, each for its own reason: both named, both paths given.
        ('[sweep]\nvariants = ["dt", "lim"]\n[sweep.grid]\n"queue.limit" = [40, 50]\n',
         'sweep.grid."queue.limit"',
         ["variant dt", "variant lim", '"variant[dt].queue.limit" and "variant[lim].queue.limit"']),
        # A variant's own key, but that variant is not run.
        ('[sweep]\nvariants = ["dt"]\n[sweep.grid]\n"variant[red2].queue.max_p" = [0.1, 0.2]\n',
         'sweep.grid."variant[red2].queue.max_p"', ["variant red2 is not run", "sweep.variants"]),
        # A derived value the variant hides, though its input is fine elsewhere.
        ('[sweep]\nvariants = ["dt"]\n[sweep.derive]\n"queue.max_th" = "3 * queue.min_th"\n',
         'sweep.derive."queue.max_th"', ['"variant[dt].queue.max_th"']),
        # A sweep variable no derived value reads.
        ('[sweep.grid]\n"var.load" = [0.5, 0.9]\n"queue.min_th" = [5, 6]\n',
         'sweep.grid."var.load"', ["no derived value that takes effect reads it"]),
        # Replications when every variant pins the seed.
        ('[sweep]\nreplications = 3\nvariants = ["dt"]\n[sweep.grid]\n"variant[dt].run.seed" = [4]\n',
         "sweep.replications", ["variant dt sets run.seed itself", "same seed"]),
    ],
)  # fmt: skip
def test_keys_without_effect_are_rejected(tmp_path, sweep, key, words):
    p = sweep_of(tmp_path, sweep)
    with pytest.raises(SweepError) as e:
        expand(p)
    assert e.value.file == str(p) and e.value.key == key, str(e.value)
    for w in words:
        assert w in e.value.reason, (w, str(e.value))


@pytest.mark.parametrize(
    "sweep",
    [
        # Reaches the variant that merges (same kind) although dt replaces it.
        '[sweep.grid]\n"queue.min_th" = [5, 6]\n',
        # Only one of the selected variants sees it: still a real axis.
        '[sweep]\nvariants = ["dt", "red2"]\n[sweep.grid]\n"queue.min_th" = [5, 6]\n',
        # A hidden base key read by a derived value that takes effect is an input, not dead.
        '[sweep]\nvariants = ["dt"]\n[sweep.grid]\n"queue.min_th" = [5, 6]\n'
        '[sweep.derive]\n"variant[dt].queue.limit" = "10 * queue.min_th"\n',
        # Swept kind: min_th reaches the points where dt's queue is red too (then it merges).
        '[sweep]\nvariants = ["dt"]\n[sweep.grid]\n"variant[dt].queue.kind" = ["droptail", "red"]\n'
        '"queue.min_th" = [5, 6]\n',
    ],
)
def test_keys_that_reach_a_run_are_accepted(tmp_path, sweep):
    s = expand(sweep_of(tmp_path, sweep))
    # Runs whose values that apply differ are distinct runs; a run the key does not reach (the
    # variant hides it) is one run whatever its value (the hidden value is not written).
    applied = {(r.name, tuple((p, r.values[p]) for p in r.applies)) for r in s.runs}
    assert len({r.id for r in s.runs}) == len(applied)
    assert any("queue.min_th" in r.applies for r in s.runs)


def test_shadowed_by_follows_the_core_merge_rule():
    base = {"queue": {"kind": "red", "min_th": 5}, "topology": {"delaybox": {"rtt": 1}}}
    assert shadowed_by(base, {"name": "v", "queue": {"max_p": 0.1}}, "queue.min_th") is None
    assert shadowed_by(base, {"name": "v", "queue": {"kind": "red"}}, "queue.min_th") is None
    assert "replaces" in shadowed_by(base, {"name": "v", "queue": {"kind": "pie"}}, "queue.min_th")
    assert "itself" in shadowed_by(base, {"name": "v", "queue": {"min_th": 7}}, "queue.min_th")
    assert "as a whole" in shadowed_by(base, {"name": "v", "queue": 3}, "queue.min_th")
    assert shadowed_by(base, {"name": "v", "topology": {"delaybox": {"rtt": 2}}}, "topology.kind") is None
    assert "drops" in shadowed_by(base, {"name": "v", "topology": {"delaybox": {"matrix_file": "m.csv"}}},
                                  "topology.delaybox.rtt")  # fmt: skip
