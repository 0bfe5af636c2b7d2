"""Report pieces without the engine: the response-time CDF, the table format, run discovery and
the `aqmlab report` command on hand-made run directories."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import synthetic_requests, synthetic_result, synthetic_summary

from aqmlab import cli, write_run
from aqmlab.reports.run_report import find_run_dirs, fmt_value, response_time_cdf, summary_table


def test_cdf_exact_values():
    x, y = response_time_cdf(synthetic_requests(), warmup_ns=1_000_000_000)
    assert x.tolist() == [0.5, 1.0, 1.0, 2.0]
    assert y.tolist() == [0.25, 0.5, 0.75, 1.0]


def test_cdf_warmup_boundary_is_inclusive_like_the_summary():
    # The request starting at 0.5 s counts once the warm-up is 0.5 s (start_ns >= warmup_ns).
    x, y = response_time_cdf(synthetic_requests(), warmup_ns=500_000_000)
    assert x.tolist() == [0.1, 0.5, 1.0, 1.0, 2.0]
    assert y.tolist() == [0.2, 0.4, 0.6, 0.8, 1.0]


def test_cdf_of_no_responses_is_empty():
    x, y = response_time_cdf(synthetic_requests(), warmup_ns=10**12)
    assert len(x) == 0 and len(y) == 0


def test_fmt_value_three_significant_digits_as_in_seed_000():
    # Seed 000 Table 4.2/4.4 cells: 1187, 0.0, 229, 97.7, 1.74, 0.19, 0.40, 11.2, 9.56.
    assert [fmt_value(v) for v in [1187.4, 0.0, 229.2, 97.66, 1.744, 0.19, 0.4, 11.23, 9.561]] == [
        "1187", "0", "229", "97.7", "1.74", "0.19", "0.40", "11.2", "9.56",
    ]  # fmt: skip
    assert fmt_value(math.nan) == "-"
    assert fmt_value(None) == "-"
    assert fmt_value(120) == "120"


def test_summary_table_layout():
    t = summary_table(
        [
            (
                "droptail",
                synthetic_summary(kb_per_s=1187.0, drops_pct=0.0, unforced_pct=math.nan, forced_pct=math.nan),
            ),
            ("red", synthetic_summary(median_rt_ms=math.nan, aqm_drops_pct=100.0)),
        ]
    )
    expected = (
        "run       KB/s  % drops  % AQM  % unforced  % forced  mean qlen  % done  median rt (ms)   ≤1s"
        "  1-2s  2-3s   >3s  p90 (ms)  p99 (ms)\n"
        "--------  ----  -------  -----  ----------  --------  ---------  ------  --------------  ----"
        "  ----  ----  ----  --------  --------\n"
        "droptail  1187        0      0           -         -       12.2     100             402  62.7"
        "  12.8  9.56  14.9      3512     12000\n"
        "red       1142     11.2    100        43.4      56.6       12.2     100               -  62.7"
        "  12.8  9.56  14.9      3512     12000"
    )
    assert t == expected


def test_summary_table_notes_unsettled_and_unfinished_runs():
    s = synthetic_summary(
        pct_completed=80.0, responses_started=1000, responses_completed=800, p99_rt_ms=math.inf,
        steady_state=False, in_progress_first_tenth=30, in_progress_last_tenth=2000,
        forced_drops_first_tenth=5, forced_drops_last_tenth=900,
    )  # fmt: skip
    lines = summary_table([("ok", synthetic_summary()), ("red", s)]).splitlines()
    assert lines[3].split()[7] == "80.0" and lines[3].split()[-1] == "∞"
    assert lines[4].startswith("! red: not in steady state: responses in progress 30 → 2,000")
    assert "forced drops 5 → 900" in lines[4]
    assert lines[5].startswith("! red: 200 of 1,000 responses (20.0 %) did not finish")
    assert lines[6].startswith("∞: the quantile falls on responses that had not finished")
    assert len(lines) == 7  # nothing noted for the settled, complete run


def test_find_run_dirs_accepts_run_dirs_and_parents_and_skips_scratch(tmp_path):
    write_run(synthetic_result("b"), tmp_path / "study" / "b")
    write_run(synthetic_result("a"), tmp_path / "study" / "a")
    (tmp_path / "study" / "a.tmp-123").mkdir()
    (tmp_path / "study" / "a.tmp-123" / "summary.json").write_text("{}")
    (tmp_path / "study" / "notes").mkdir()
    single = write_run(synthetic_result("c"), tmp_path / "c")
    found = find_run_dirs([tmp_path / "study", single])
    assert found == [tmp_path / "study" / "a", tmp_path / "study" / "b", single]
    with pytest.raises(FileNotFoundError):
        find_run_dirs([tmp_path / "study" / "notes"])


def test_report_command_on_hand_made_runs(tmp_path, capsys):
    write_run(synthetic_result("droptail", median_rt_ms=229.0), tmp_path / "runs" / "droptail")
    write_run(synthetic_result("red"), tmp_path / "runs" / "red")
    png = tmp_path / "report.png"
    assert cli.main(["report", str(tmp_path / "runs"), "--out", str(png), "--xmax", "3"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("run ")
    assert lines[2].startswith("droptail ") and " 229 " in lines[2]
    assert lines[3].startswith("red ") and " 402 " in lines[3]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000


def test_report_same_names_in_two_parents_get_distinct_labels(tmp_path, capsys):
    write_run(synthetic_result("red"), tmp_path / "s1" / "red")
    write_run(synthetic_result("red"), tmp_path / "s2" / "red")
    assert (
        cli.main(["report", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "r.png")])
        == 0
    )
    out = capsys.readouterr().out
    assert "s1/red" in out and "s2/red" in out


def test_plot_thinning_keeps_the_curve():
    from aqmlab.reports.run_report import _thin

    x = np.arange(100_000, dtype=float)
    y = (np.arange(100_000) + 1) / 100_000
    tx, ty = _thin(x, y, 1000)
    assert len(tx) == 1000 and tx[0] == 0 and tx[-1] == 99_999 and ty[-1] == 1.0


def test_steady_cell_counts_unsettled_replications():
    from aqmlab.reports.summary_table import steady_cell

    assert steady_cell([True, True]) == "yes"
    assert steady_cell([True, False, None]) == "no (1/2)"
    assert steady_cell([1.0, 0.0, 0.0]) == "no (2/3)"  # a sweep table's column
    assert steady_cell([None, math.nan]) == "-"
