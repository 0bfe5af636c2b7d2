"""`aqmlab tune --metrics STUDY` (aqmlab.tuning.metrics): a study's per-run metrics become columns the
objectives may name, and a trial's value is the number the study's own code computes from the
runs' directories (here seed 002's end-to-end HTTP median, paired DT-REM − REM-DT)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import aqmlab
from aqmlab.storage.run_dir import load_run
from aqmlab.studies import weigle_multi
from aqmlab.tuning.metrics import study_metrics
from aqmlab.tuning.search import TuneError, parse

ROOT = Path(__file__).resolve().parents[2]
TWO_CL = ROOT / "studies" / "weigle-multi" / "table1_2cl.toml"

TUNE = """
[tune]
paired = ["DT-REM", "REM-DT"]
objectives = ["min e2e_median_rt_ms"]
trials = 2
replications = 1
final_replications = 1
finalists = 1
batch = 2
[tune.params]
"tcp.min_rto" = { duration = ["200ms", "1s"] }
"""


def _file(tmp_path: Path, objective: str = "min e2e_median_rt_ms") -> Path:
    text = TWO_CL.read_text(encoding="utf-8").replace('duration = "820s"', 'duration = "30s"')
    text = text[: text.index("[sweep]")] + text[text.index("[[variant]]") :]
    f = tmp_path / "t.toml"
    f.write_text(text + TUNE.replace("min e2e_median_rt_ms", objective), encoding="utf-8")
    return f


def test_a_study_s_row_metrics_are_columns_only_with_metrics(tmp_path):
    cols, _ = study_metrics("weigle-multi")
    assert cols == weigle_multi.TABLE_METRICS  # none of seed 002's row metrics is a summary column
    f = _file(tmp_path)
    assert parse(str(f), columns=cols).objectives[0].column == "e2e_median_rt_ms"
    with pytest.raises(TuneError, match="'e2e_median_rt_ms': not a summary column"):
        parse(str(f))
    with pytest.raises(ValueError, match="no study 'nope' with per-run metrics .*weigle-multi"):
        study_metrics("nope")


@pytest.mark.engine
def test_a_trial_is_judged_by_the_study_s_own_metric_of_its_runs(tmp_path):
    out = tmp_path / "out"
    df = aqmlab.tune(_file(tmp_path), out, jobs=1, metrics="weigle-multi", report=False)
    assert (df["state"] == "COMPLETE").all()
    for _, r in df.iterrows():
        a, b = r["runs"].split(",")  # seed 1: DT-REM's run, then REM-DT's
        ma = weigle_multi.metrics_of_run(load_run(out / "runs" / a))["e2e_median_rt_ms"]
        mb = weigle_multi.metrics_of_run(load_run(out / "runs" / b))["e2e_median_rt_ms"]
        assert math.isfinite(ma - mb) and r["e2e_median_rt_ms"] == pytest.approx(ma - mb)
    final = df.attrs["final"]
    assert set(final["config"]) >= {"baseline DT-REM − REM-DT"}
    assert final["e2e_median_rt_ms"].notna().all()
