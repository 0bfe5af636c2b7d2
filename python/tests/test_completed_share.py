"""Issue 30 item 1-2 on real runs: the quickstart's RED with min_th = 10, max_th = 30 never
settles (open responses and forced drops climb through the window), and its headline figures
count the responses that never finished; the quickstart itself settles; CoDel's drops read as
the AQM's. The figures are recomputed here from the run's own request table."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import aqmlab
from aqmlab.reports.summary_table import summary_table

pytestmark = pytest.mark.engine

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"


def _scenario(tmp_path: Path, red_queue: str, duration: str) -> Path:
    text = QUICKSTART.read_text(encoding="utf-8")
    text = text.replace('duration = "10min"', f'duration = "{duration}"')
    text = text.replace(
        'queue = { kind = "red", min_th = 30, max_th = 90, w_q = "1/512", max_p = 0.1, limit = 480 }',
        f"queue = {red_queue}",
    )
    assert f"queue = {red_queue}" in text
    p = tmp_path / "s.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _measured(run) -> tuple[np.ndarray, int]:
    """Response times (ms) of the measured completed HTTP responses, and how many started."""
    q = run.requests
    q = q[(q["kind"] == "http") & (q["start_ns"] >= run.warmup_ns)]
    done = q[q["completed"].astype(bool)]
    return (done["end_ns"] - done["start_ns"]).to_numpy() / 1e6, len(q)


@pytest.fixture(scope="module")
def unsettled(tmp_path_factory):
    d = tmp_path_factory.mktemp("unsettled")
    red = '{ kind = "red", min_th = 10, max_th = 30, w_q = "1/512", max_p = 0.1, limit = 480 }'
    return aqmlab.run(_scenario(d, red, "8min"), variant="red")["red"]


def test_small_thresholds_never_settle_and_are_flagged(unsettled):
    s = unsettled.summary
    assert s["steady_state"] is False
    assert s["in_progress_last_tenth"] > 10 * s["in_progress_first_tenth"]
    assert s["forced_drops_last_tenth"] > 2 * s["forced_drops_first_tenth"]
    table = summary_table([("red", s)])
    assert "! red: not in steady state" in table
    assert "did not finish" in table


def test_headline_shares_count_unfinished_responses(unsettled):
    s = unsettled.summary
    rt, started = _measured(unsettled)
    assert s["responses_started"] == started and s["responses_completed"] == len(rt)
    assert s["pct_completed"] == pytest.approx(100 * len(rt) / started)
    assert s["pct_completed"] < 90  # about a fifth never finish
    within = int((rt <= 1000).sum())
    assert s["pct_le_1s"] == pytest.approx(100 * within / started)
    assert s["pct_le_1s_of_completed"] == pytest.approx(100 * within / len(rt))
    assert s["pct_le_1s"] < s["pct_le_1s_of_completed"] - 10
    shares = ("pct_le_1s", "pct_1_2s", "pct_2_3s", "pct_gt_3s")
    assert sum(s[k] for k in shares) == pytest.approx(100)
    # Nearest rank over all started responses, the unfinished ones slowest: the p90 falls on one.
    rank = math.ceil(0.5 * started)
    assert s["median_rt_ms"] == pytest.approx(np.sort(rt)[rank - 1])
    assert s["p90_rt_ms"] == math.inf
    assert s["p90_rt_ms_of_completed"] == pytest.approx(np.sort(rt)[math.ceil(0.9 * len(rt)) - 1])


def test_quickstart_settles_and_codel_drops_are_the_aqms(tmp_path):
    codel = '{ kind = "codel", target = "5ms", interval = "100ms", limit = 1000 }'
    runs = aqmlab.run(_scenario(tmp_path, codel, "3min"))
    dt, cd = runs["droptail"].summary, runs["red"].summary
    for s in (dt, cd):
        assert s["steady_state"] is True
        assert s["pct_completed"] > 99
    assert dt["drops"] > 0 and dt["overflow_drops_pct"] == 100 and dt["drops_aqm"] == 0
    assert cd["drops"] > 0 and cd["aqm_drops_pct"] == 100 and cd["drops_overflow"] == 0
    # seed 000's split is the RED family's: undefined for drop-tail and CoDel
    assert math.isnan(dt["forced_pct"]) and math.isnan(cd["unforced_pct"])
    q = runs["red"].queue
    q = q[q["link"] == "bottleneck_fwd"]
    assert int(q["dequeue_drops"].sum()) >= cd["drops"] and int(q["forced_drops"].sum()) == 0
