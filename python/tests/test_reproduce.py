"""`aqmlab reproduce` (aqmlab.studies.reproduce) on a toy study defined here: quick overrides, row
matching, mean/CI against hand values, the paper join, verdicts, the report files, resume, the
CLI; one engine test runs the toy study for real (20 s simulated per run)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import replace

import pandas as pd
import pytest
from conftest import fake_core_run, synthetic_result

from aqmlab import _core, cli
from aqmlab.studies import Study, Table, Verdict
from aqmlab.studies.compare import Outcome, get, gt, lt
from aqmlab.studies.paper_tables import join_paper, read_paper, table_results
from aqmlab.studies.reproduce import evaluate, reproduce
from aqmlab.studies.sweep_files import ReproduceError, apply_overrides

TOY_SWEEP = """\
[run]
seed = 1
warmup = "2s"
duration = "20s"

[topology]
kind = "dumbbell"
clients = 4
servers = 4
access_rate = "100Mbps"
access_delay = "1ms"
bottleneck_rate = "10Mbps"
bottleneck_delay = "10ms"

[topology.delaybox]
rtt = { dist = "uniform", min = "0ms", max = "100ms" }

[queue]
kind = "droptail"
limit = 60

[[workload]]
kind = "http10"
arrival = "poisson"
rate = 250.0
request_size = { dist = "constant", value = "300B" }
response_size = { dist = "bounded_pareto", shape = 1.2, min = "1KB", max = "2MB" }

[sweep]
replications = 2

[sweep.grid]
"queue.limit" = [5, 10, 60]
"""

# Paper rows: limit 10 and 60 (5 is run but not in the paper: it is left out by row_label),
# plus a row the sweep never produces.
TOY_PAPER = """\
table,row,metric,value
T1,qlen=10,kb_per_s,1000
T1,qlen=10,drops_pct,2.5
T1,qlen=60,kb_per_s,1100
T1,qlen=999,kb_per_s,1
"""


def _row(r: pd.Series) -> str | None:
    q = int(r["queue.limit"])
    return None if q == 5 else f"qlen={q}"


def _more_at_60(results):
    return gt(
        get(results, "T1", "qlen=60", "kb_per_s"), get(results, "T1", "qlen=10", "kb_per_s"), "kb/s 60 vs 10"
    )


def _missing(results):
    return gt(get(results, "T1", "qlen=7", "kb_per_s"), 0.0)


TOY = Study(
    name="toy",
    paper="a toy paper",
    tables=(Table("T1", "toy table", "sw.toml", ("kb_per_s", "drops_pct"), _row),),
    verdicts=(
        Verdict("toy-longer", "a longer queue carries more", '§1: "longer queues carry more"', _more_at_60),
        Verdict("toy-missing", "a row that does not exist", '§2: "qlen 7"', _missing),
    ),
    quick_overrides={"run.duration": "7s", "sweep.replications": 1, "sweep.grid.queue.limit": [10, 60]},
)


class FakeCore:
    """Stands in for `_core.run_scenario_text` (jobs=1): records (limit, seed, duration) and
    returns a run with kb_per_s = 1000 + limit + seed and drops_pct = limit / 10."""

    def __init__(self):
        self.calls = []

    def __call__(self, text, label, base_dir, variant, dir, progress=None):
        doc = tomllib.loads(text)
        limit, seed = doc["queue"]["limit"], doc["run"]["seed"]
        self.calls.append((limit, seed, doc["run"]["duration"]))
        r = synthetic_result(variant, kb_per_s=1000.0 + limit + seed, drops_pct=limit / 10)
        return fake_core_run(replace(r, seed=seed), dir)


@pytest.fixture
def toy_dir(tmp_path):
    d = tmp_path / "studies" / "toy"
    d.mkdir(parents=True)
    (d / "sw.toml").write_text(TOY_SWEEP)
    (d / "paper.csv").write_text(TOY_PAPER)
    return tmp_path / "studies"


@pytest.fixture
def fake(monkeypatch):
    f = FakeCore()
    monkeypatch.setattr(_core, "run_scenario_text", f)
    return f


def test_overrides_set_keys_and_replace_only_existing_sweep_lists():
    doc = tomllib.loads(TOY_SWEEP)
    over = {
        "run.duration": "7s",
        "sweep.replications": 1,
        "sweep.grid.queue.limit": [10],
        "sweep.grid.var.load": [90],  # not in this file's grid: skipped, not added
        "sweep.zip.var.load": [90],  # no zip at all: skipped
    }
    out = apply_overrides(doc, over, "sw.toml")
    assert out["run"]["duration"] == "7s" and out["sweep"]["replications"] == 1
    assert out["sweep"]["grid"] == {"queue.limit": [10]}
    assert "zip" not in out["sweep"]
    assert doc["sweep"]["grid"]["queue.limit"] == [5, 10, 60]  # the input is not modified
    with pytest.raises(ReproduceError, match=r"sw\.toml: quick_overrides\['workload\[3\]\.rate'\]"):
        apply_overrides(doc, {"workload[3].rate": 1.0}, "sw.toml")


def test_table_results_mean_and_ci_by_hand():
    # Row qlen=10 from three replications 2, 4, 9: mean 5, s = √13 = 3.6056, t(0.975, 2) =
    # 4.302653 → half width 4.302653 · 3.6056 / √3 = 8.9566. A failed run and a row the table
    # leaves out (limit 5) do not count; qlen=60 has one run: no interval.
    df = pd.DataFrame(
        {
            "queue.limit": [10, 10, 10, 10, 5, 60],
            "status": ["ok", "ok", "ok", "failed", "ok", "ok"],
            "kb_per_s": [2.0, 4.0, 9.0, math.nan, 100.0, 7.0],
            "drops_pct": [1.0, 1.0, 1.0, math.nan, 0.0, 3.0],
        }
    )
    t = table_results(df, TOY.tables[0]).set_index("row")
    assert list(t.index) == ["qlen=10", "qlen=60"]
    assert t.loc["qlen=10", "n"] == 3
    assert t.loc["qlen=10", "kb_per_s"] == pytest.approx(5.0)
    assert t.loc["qlen=10", "kb_per_s_ci"] == pytest.approx(8.9566, abs=1e-3)
    assert t.loc["qlen=10", "drops_pct_ci"] == pytest.approx(0.0)
    assert t.loc["qlen=60", "kb_per_s"] == 7.0 and math.isnan(t.loc["qlen=60", "kb_per_s_ci"])
    # With seeds, each row keeps its runs' values by seed for paired verdicts.
    t = table_results(df.assign(seed=[3, 1, 2, 4, 1, 1]), TOY.tables[0]).set_index("row")
    assert t.loc["qlen=10", "kb_per_s_by_seed"] == ((1, 4.0), (2, 9.0), (3, 2.0))
    # Two runs of one row with one seed (a row pooling settings): not pairable.
    t = table_results(df.assign(seed=[1, 1, 2, 4, 1, 1]), TOY.tables[0]).set_index("row")
    assert t.loc["qlen=10", "kb_per_s_by_seed"] is None


def test_paper_join_order_and_differences(tmp_path):
    p = tmp_path / "paper.csv"
    p.write_text(TOY_PAPER)
    paper = read_paper(p)
    cols = ["row", "n", "kb_per_s", "kb_per_s_ci", "drops_pct", "drops_pct_ci"]
    res = pd.DataFrame(
        [["qlen=60", 2, 1120.0, 3.0, 6.0, 0.0],
         ["qlen=10", 2, 990.0, 1.0, 1.0, 0.0],
         ["extra", 1, 5.0, math.nan, 0.0, math.nan]],
        columns=cols,
    )  # fmt: skip
    j = join_paper(paper, TOY.tables[0], res)
    # The paper's order first (10, 60, 999), then the row only aqmlab has.
    assert [d["row"] for d in j] == ["qlen=10", "qlen=60", "qlen=999", "extra"]
    assert j[0]["metrics"]["kb_per_s"] == {"paper": 1000.0, "mean": 990.0, "ci": 1.0, "diff": -10.0}
    assert j[0]["metrics"]["drops_pct"]["diff"] == pytest.approx(-1.5)
    assert j[1]["metrics"]["kb_per_s"]["diff"] == 20.0
    assert math.isnan(j[1]["metrics"]["drops_pct"]["paper"])  # the paper has no drops for 60
    assert j[2]["n"] == 0 and math.isnan(j[2]["metrics"]["kb_per_s"]["mean"])
    assert math.isnan(j[3]["metrics"]["kb_per_s"]["paper"])


def test_bad_paper_csv_names_file_and_line(tmp_path):
    p = tmp_path / "paper.csv"
    p.write_text("table,row,value\n")
    with pytest.raises(ReproduceError, match=r"paper\.csv: line 1: header"):
        read_paper(p)
    p.write_text("table,row,metric,value\nT1,a,kb_per_s,12\nT1,b,kb_per_s,twelve\n")
    with pytest.raises(ReproduceError, match=r"paper\.csv: line 3: value: not a number: 'twelve'"):
        read_paper(p)


def test_verdicts_hold_fail_or_are_not_evaluated():
    res = {"T1": pd.DataFrame({"row": ["qlen=10", "qlen=60"], "kb_per_s": [1011.0, 1062.0]})}
    v = evaluate(TOY, res)
    assert (v[0].id, v[0].outcome) == ("toy-longer", Outcome.HOLDS)
    assert v[0].evidence == "kb/s 60 vs 10: 1062 > 1011 (no interval: decided on the means)"
    assert (
        v[1].outcome == Outcome.NOT_EVALUATED and v[1].evidence == "KeyError: \"table T1: no row 'qlen=7'\""
    )
    res["T1"]["kb_per_s"] = [1011.0, 900.0]
    assert evaluate(TOY, res)[0].outcome == Outcome.FAILS


def test_full_run_report_resume(tmp_path, toy_dir, fake):
    out = tmp_path / "out"
    md, htm, verdicts = reproduce(TOY, out, jobs=1, studies_dir=toy_dir, command="aqmlab x", progress=False)
    # 3 limits × 2 replications, seeds 1 and 2, at the file's 20 s.
    assert sorted(fake.calls) == [(q, s, "20s") for q in (5, 10, 60) for s in (1, 2)]
    assert [v.aqmlab.outcome for v in verdicts] == [Outcome.HOLDS, Outcome.NOT_EVALUATED]
    text = md.read_text()
    # qlen=10: kb 1011, 1012 → mean 1011.5, half width t(0.975, 1) · 0.7071 / √2 = 6.353;
    # paper 1000 → difference +11.5. drops 1.0 (paper 2.5) → −1.5. Cells: 3 significant digits
    # (aqmlab.reports.run_report.fmt_value).
    assert "| qlen=10 | paper | 1000 | 2.50 |" in text
    assert "| aqmlab (n=2) | 1012 ± 6.35 | 1.00 ± 0 |" in text
    assert "| difference | +11.5 | -1.50 |" in text
    assert "| qlen=999 | paper | 1.00 | – |" in text and "qlen=5 " not in text
    assert "Command (from the repository root): `aqmlab x`" in text
    # The verdict table: 1061.5 ± 6.35 vs 1011.5 ± 6.35 do not overlap → holds; seed by seed the
    # difference is 50, 50 (paired: 50 ± 0); the paper's own 1100 > 1000 holds; ns-2.35 not run;
    # a holding verdict has no cause.
    assert "| claim | aqmlab | ns-2.35 | paper | cause | evidence |" in text
    assert (
        "| a longer queue carries more [toy-longer] | holds | not run | holds |  | "
        "kb/s 60 vs 10: 1062 ± 6.35 > 1012 ± 6.35 [paired over 2 seeds: 50.0] |" in text
    )
    assert "| a row that does not exist [toy-missing] | not evaluated | not run | no numbers |  |" in text
    assert '- `toy-longer`: quote: §1: "longer queues carry more"' in text
    assert (
        '<td title="§1: &quot;longer queues carry more&quot;">a longer queue carries more [toy-longer]</td>'
        in (htm.read_text())
    )
    assert "1012 ± 6.35" in htm.read_text() and "data:image/png;base64," in htm.read_text()
    figs = sorted(p.name for p in (out / "figures").iterdir())
    assert figs and all(f.startswith("sw-fig") for f in figs)
    assert not list(out.rglob("*.tmp-*"))  # everything renamed into place
    # Resume: the second call runs nothing and writes the same tables.
    reproduce(TOY, out, jobs=1, studies_dir=toy_dir, command="aqmlab x", progress=False)
    assert len(fake.calls) == 6
    assert md.read_text() == text


def test_quick_mode_applies_overrides(tmp_path, toy_dir, fake):
    out = tmp_path / "q"
    md, _, _ = reproduce(TOY, out, quick=True, jobs=1, studies_dir=toy_dir, progress=False)
    assert sorted(fake.calls) == [(10, 1, "7s"), (60, 1, "7s")]
    resolved = tomllib.loads((out / "scenarios" / "sw.toml").read_text())
    assert resolved["sweep"]["grid"] == {"queue.limit": [10, 60]} and resolved["run"]["duration"] == "7s"
    text = md.read_text()
    assert "| aqmlab (n=1) | 1011 | 1.00 |" in text  # one replication: no interval
    assert "kb/s 60 vs 10: 1061 > 1011 (n=1, no interval: decided on the means)" in text
    assert "Command (from the repository root): `aqmlab reproduce toy --quick`" in text


def test_cli_unknown_study(capsys):
    assert cli.main(["reproduce", "no-such-study"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aqmlab: error: unknown study 'no-such-study' (known: christiansen, ")


@pytest.mark.engine
def test_toy_study_for_real(tmp_path, toy_dir):
    # Real 20-s runs at ≈ 90 % load (250 conn/s × ≈ 4.7 KB): a 5-packet buffer must drop a larger
    # share than a 60-packet one (closed-loop behaviour, not a tuned number), and the report
    # must carry each run's own summary through unchanged.
    study = Study(
        "toy", "toy", TOY.tables,
        verdicts=(Verdict("toy-drops", "60 packets drop less than 10", "toy", lambda r: _fewer_drops(r)),),
        quick_overrides={"sweep.replications": 1},
    )  # fmt: skip
    out = tmp_path / "real"
    md, _, verdicts = reproduce(study, out, quick=True, jobs=1, studies_dir=toy_dir, progress=False)
    assert verdicts[0].aqmlab.outcome == Outcome.HOLDS, verdicts[0].aqmlab.evidence
    from aqmlab import load_sweep

    df = load_sweep(out / "sweeps" / "sw")
    kb = float(df[df["queue.limit"] == 60]["kb_per_s"].iloc[0])
    from aqmlab.reports.run_report import fmt_value

    assert f"| aqmlab (n=1) | {fmt_value(kb)} |" in md.read_text()


def _fewer_drops(results):
    return lt(get(results, "T1", "qlen=60", "drops_pct"), get(results, "T1", "qlen=10", "drops_pct"))


def test_quick_copy_resolves_data_files_next_to_the_original(tmp_path):
    # A sweep whose DelayBox RTTs come from a CSV beside it: the quick-mode copy runs from
    # another directory, so its [sweep] data_dir must point back; and data_dir must not change
    # the run ids (it is not part of the resolved scenario).
    from aqmlab.studies.sweep_files import resolved_sweep_file
    from aqmlab.sweeps.run import expand, validate

    src_dir = tmp_path / "study"
    src_dir.mkdir()
    (src_dir / "rtt.csv").write_text("value,cdf\n0.01,0\n0.05,1\n")
    text = TOY_SWEEP.replace(
        'rtt = { dist = "uniform", min = "0ms", max = "100ms" }',
        'rtt = { dist = "empirical", file = "rtt.csv" }',
    )
    (src_dir / "sw.toml").write_text(text)
    copy = resolved_sweep_file(src_dir / "sw.toml", {"run.duration": "7s"}, tmp_path / "out")
    assert tomllib.loads(copy.read_text())["sweep"]["data_dir"] == str(src_dir.resolve())
    sweep = expand(copy)
    assert sweep.base_dir == str(src_dir.resolve())
    validate(sweep)  # the core reads rtt.csv: raises if it does not resolve
    original = expand(src_dir / "sw.toml")
    # Same scenarios but the duration: ids differ only through run.duration.
    same = resolved_sweep_file(src_dir / "sw.toml", {}, tmp_path / "out2")
    assert [r.id for r in expand(same).runs] == [r.id for r in original.runs]


def test_reading_sets_queue_options_in_matching_tables_only():
    from aqmlab.studies import Reading
    from aqmlab.studies.sweep_files import apply_reading

    doc = tomllib.loads(
        TOY_SWEEP
        + '\n[[variant]]\nname = "dt"\n\n[[variant]]\nname = "ared"\n'
        + 'queue = { kind = "ared", limit = 370, byte_mode = false }\n'
        + 'reverse_queue = { kind = "red", min_th = 5, max_th = 15 }\n'
    )
    r = Reading("bytes", "ns-2.35 units", {"byte_mode": True, "mean_pktsize": "500B", "limit": None})
    out = apply_reading(doc, r, "sw.toml")
    assert out["queue"] == {"kind": "droptail", "limit": 60}  # not red/ared: unchanged
    ared, red = out["variant"][1]["queue"], out["variant"][1]["reverse_queue"]
    assert ared == {"kind": "ared", "byte_mode": True, "mean_pktsize": "500B"}  # limit removed
    assert red["byte_mode"] is True and red["min_th"] == 5
    assert doc["variant"][1]["queue"]["byte_mode"] is False  # the input is not modified
    with pytest.raises(ReproduceError, match=r"sw\.toml: reading 'bytes': no queue table of kind red, ared"):
        apply_reading(tomllib.loads(TOY_SWEEP), r, "sw.toml")


def test_reading_reaches_per_link_queue_tables():
    from aqmlab.studies import Reading
    from aqmlab.studies.sweep_files import apply_reading

    # weigle-multi's variants set their AQMs per router link (topology.link_queue.<link>)
    doc = tomllib.loads(
        TOY_SWEEP
        + '\n[[variant]]\nname = "REM-DT"\n[variant.topology.link_queue]\n'
        + 'r1_r2 = { kind = "rem", b_star = 20, ecn = true }\n'
        + 'r3_r4 = { kind = "droptail", limit = 200 }\n'
    )
    r = Reading("markpkts", "ns-2 REM", {"ecn": "ns2_markpkts"}, kinds=("rem",))
    links = apply_reading(doc, r, "sw.toml")["variant"][0]["topology"]["link_queue"]
    assert links["r1_r2"] == {"kind": "rem", "b_star": 20, "ecn": "ns2_markpkts"}
    assert links["r3_r4"] == {"kind": "droptail", "limit": 200}
    assert doc["variant"][0]["topology"]["link_queue"]["r1_r2"]["ecn"] is True


def test_reading_runs_into_its_own_directory(tmp_path, toy_dir, fake):
    import dataclasses

    from aqmlab.studies import Reading
    from aqmlab.studies.sweep_files import default_out

    study = dataclasses.replace(
        TOY, readings=(Reading("long", "a longer buffer", {"limit": 99}, kinds=("droptail",)),)
    )
    assert default_out("toy", True, tmp_path, "long") == tmp_path / "runs" / "reproduce" / "toy-long-quick"
    md, _, _ = reproduce(study, tmp_path / "r", jobs=1, studies_dir=toy_dir, progress=False, reading="long")
    # The grid still sets queue.limit per run; the reading set the base table's limit first.
    resolved = tomllib.loads((tmp_path / "r" / "scenarios" / "sw.toml").read_text())
    assert resolved["queue"]["limit"] == 99
    assert "Reading 'long': a longer buffer Set in every droptail queue: limit = 99." in md.read_text()
    with pytest.raises(ReproduceError, match="unknown reading 'short'; expected one of: as-stated, long"):
        reproduce(study, tmp_path / "s", jobs=1, studies_dir=toy_dir, progress=False, reading="short")


def test_reading_with_sweep_overrides_changes_the_derived_rate(tmp_path, toy_dir, fake):

    from aqmlab.studies import Reading
    from aqmlab.sweeps.run import expand

    # A load reading (weigle2006 `model-load`): another calibration of the rate, no queue option.
    sweep = TOY_SWEEP + '"var.load" = [0.5, 1.0]\n\n[sweep.derive]\n"workload[0].rate" = "100.0 * var.load"\n'
    (toy_dir / "toy" / "sw.toml").write_text(sweep)
    rd = Reading("cal", "another calibration", overrides={"sweep.derive.workload[0].rate": "80.0 * var.load"})
    study = replace(TOY, readings=(rd,), verdicts=())
    md, _, _ = reproduce(study, tmp_path / "r", jobs=1, studies_dir=toy_dir, progress=False, reading="cal")
    runs = expand(tmp_path / "r" / "scenarios" / "sw.toml").runs
    assert sorted(r.doc["workload"][0]["rate"] for r in runs) == [40.0] * 6 + [80.0] * 6
    assert (
        "Reading 'cal': another calibration In every sweep file: "
        "sweep.derive.workload[0].rate = '80.0 * var.load'." in md.read_text()
    )


def test_recorded_command_can_be_rerun_from_the_repository_root(tmp_path):
    # issue 15: the published reports recorded `--out /work/notes/…` of the machine they ran on.
    from aqmlab.studies.reproduce import rerunnable_argv

    root = tmp_path / "repo"
    argv = ["reproduce", "pisa", "--jobs", "1", "--out", "/work/notes/pisa-full", "--publish"]
    assert rerunnable_argv(argv, cwd=root, root=root) == ["reproduce", "pisa", "--jobs", "1", "--publish"]
    # Inside the repository: relative to its root, whether typed absolute, relative to a
    # subdirectory, or with `=`; a Dask address (that machine's cluster) is left out.
    for cwd, out in [(root, str(root / "runs/x")), (root / "docs", "../runs/x"), (root, "runs/./x")]:
        assert rerunnable_argv(["reproduce", "pisa", "--out", out], cwd=cwd, root=root) == [
            "reproduce", "pisa", "--out", "runs/x",
        ]  # fmt: skip
    argv = ["reproduce", "pisa", "--out=/tmp/y", "--dask", "tcp://h:8786", "--quick"]
    assert rerunnable_argv(argv, root, root) == ["reproduce", "pisa", "--quick"]


def test_cli_records_the_rerunnable_command(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    from aqmlab.studies import reproduce as rp

    seen = {}

    def fake(study, out, **kw):
        seen["command"] = kw["command"]
        md = Path(tmp_path / "report.md")
        return md, md.with_suffix(".html"), []

    monkeypatch.setattr(rp, "reproduce", fake)
    monkeypatch.chdir(rp.REPO_ROOT / "docs")
    argv = ["reproduce", "pisa", "--quick", "--out", str(tmp_path / "out"), "--jobs", "2"]
    assert cli.main(argv) == 0
    assert seen["command"] == "aqmlab reproduce pisa --quick --jobs 2"
    argv = ["reproduce", "pisa", "--quick", "--out", "../runs/reproduce/p q"]
    assert cli.main(argv) == 0
    assert seen["command"] == "aqmlab reproduce pisa --quick --out 'runs/reproduce/p q'"


def test_published_reports_record_rerunnable_commands():
    from aqmlab.studies.sweep_files import REPO_ROOT

    reports = sorted((REPO_ROOT / "docs" / "reproductions").glob("*/report.md"))
    assert len(reports) >= 5
    for r in reports:
        (line,) = [x for x in r.read_text().splitlines() if x.startswith("Command")]
        cmd = "aqmlab tune-study " if r.parent.name.startswith("tuning") else "aqmlab reproduce "
        assert line.startswith(f"Command (from the repository root): `{cmd}"), (r, line)
        assert "/work/" not in line and "/tmp/" not in line and " --out /" not in line, (r, line)


def test_a_study_without_paper_numbers_or_ns2_counterpart_says_so(tmp_path, toy_dir, fake):
    # modern's header once offered `--ns2` and "the paper's value": a study with neither must say
    # which it lacks, and `--ns2` must stop before anything runs with the study's reason.
    (toy_dir / "toy" / "paper.csv").write_text("table,row,metric,value\n")
    study = replace(TOY, ns2_refused="ns-2.35 has no toy queue")
    md, _, _ = reproduce(study, tmp_path / "o", quick=True, jobs=1, studies_dir=toy_dir, progress=False)
    text = md.read_text()
    assert "ns-2.35 column: not applicable: ns-2.35 has no toy queue" in text
    assert "per row, aqmlab's mean ± 95 % CI" in text and "the paper's value" not in text
    assert "--ns2" not in text


def test_the_published_modern_and_christiansen_studies_refuse_ns2_with_a_reason(tmp_path, capsys):
    for name, words in (("modern", "no BBR, TCP Prague, DualPI2"), ("christiansen", "ALTQ's RED")):
        out = tmp_path / name
        assert cli.main(["reproduce", name, "--ns2", "--quick", "--jobs", "0", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"aqmlab: error: {name}: --ns2: ") and words in err
        assert not out.exists()  # refused before anything ran or was written


def test_add_run_columns_reads_ok_runs_only(tmp_path):
    from aqmlab.studies import add_run_columns

    sweep = pd.DataFrame({"run": ["a", "b", "c"], "status": ["ok", "failed", "ok"]})
    seen = []

    def of_run(d):
        seen.append(d)
        return {"x": {"a": 1.5, "c": 4.0}[d.name], "y": 2}

    got = add_run_columns(sweep, tmp_path, of_run)
    assert seen == [tmp_path / "runs" / "a", tmp_path / "runs" / "c"]  # the failed run is not read
    assert got["x"].tolist()[::2] == [1.5, 4.0] and math.isnan(got["x"][1])
    assert got["y"].tolist()[::2] == [2, 2] and math.isnan(got["y"][1])
    assert list(sweep.columns) == ["run", "status"]  # the caller's table is left as it was
    # named columns: only those, NaN where a run gives none; a table that has them all is returned as is
    got = add_run_columns(sweep, tmp_path, lambda d: {"x": 1.0}, ("x", "z"))
    assert got["x"].tolist()[::2] == [1.0, 1.0] and got["z"].isna().all()
    assert add_run_columns(got, tmp_path, of_run, ("x", "z")) is got


def test_publish_copies_the_figures_and_the_named_files(tmp_path):
    from aqmlab.studies.reproduce import publish
    from aqmlab.tuning.study import publish as publish_tuning

    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "a.png").write_bytes(b"png")
    (out / "report.md").write_text("# r\n")
    (out / "results.csv").write_text("x\n1\n")
    (out / "comparisons.csv").write_text("y\n2\n")
    (out / "study.json").write_text("{}\n")
    got = publish(out, "s", root=tmp_path)
    dest = tmp_path / "docs" / "reproductions" / "s"
    assert got == dest / "report.md" and got.read_text() == "# r\n"
    assert sorted(p.name for p in dest.rglob("*") if p.is_file()) == ["a.png", "report.md"]
    got = publish_tuning(out, quick=True, root=tmp_path)
    dest = tmp_path / "docs" / "reproductions" / "tuning-quick"
    assert got == dest / "report.md" and (dest / "results.csv").read_text() == "x\n1\n"
    names = sorted(p.name for p in dest.rglob("*") if p.is_file())
    assert names == ["a.png", "comparisons.csv", "report.md", "results.csv"]  # not study.json


def test_a_study_gives_its_run_metrics_and_run_checks_to_tables_without_their_own():
    def mine(sweep, d):
        return sweep

    def its_own(sweep, d):
        return sweep

    label = lambda r: None  # noqa: E731
    plain = Table("1", "t", "a.toml", ("x",), label)
    own = Table("2", "t", "a.toml", ("x",), label, run_metrics=its_own, run_checks=("c",))
    st = Study("s", "p", (plain, own), run_metrics=mine, run_checks=("ok54",))
    assert [(t.run_metrics, t.run_checks) for t in st.tables] == [(mine, ("ok54",)), (its_own, ("c",))]
    assert Study("s", "p", (plain,)).tables == (plain,)  # no default: the tables as given
