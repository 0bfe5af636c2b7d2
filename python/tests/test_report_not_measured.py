"""Request columns an engine did not measure (issue 12: the testbed's `fin_retx`, `fast_retx`,
`ecn_reductions`, `loss_events`, `loss_cwnd_bytes`, `server_fin_retx`) read as missing values,
never 0: in the tables read back, the summary, `aqmlab report`, and the study metrics that add
them up. The run directories are made by hand (as the testbed writes them: nulls in
requests.parquet, `fin_retx` null in summary.json, run.json `engine.not_measured`); the real
testbed's files are checked by test_testbed.py (as root)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import summary_json, synthetic_result

from aqmlab import cli, write_run
from aqmlab.reports.run_report import not_measured_notes, open_runs
from aqmlab.storage.run_dir import TESTBED_NOT_MEASURED, load_run, not_measured_of, read_table
from aqmlab.storage.tables import missing_columns

MISSING = list(TESTBED_NOT_MEASURED)


def _requests(missing: bool) -> pd.DataFrame:
    """Eight HTTP exchanges after the 1 s warm-up, on 4 connections, each connection with one
    retransmission of every kind (so a sum treating missing as 0 would differ from NaN and from
    the real count); the columns not measured NaN when `missing`."""
    n = 8
    s = 1_000_000_000
    df = pd.DataFrame(
        {
            "id": range(n), "conn_id": [i // 2 for i in range(n)], "exchange": [i % 2 for i in range(n)],
            "workload": [0] * n, "kind": ["http"] * n, "page": range(n), "client": [0] * n,
            "server": [0] * n, "start_ns": [s + i for i in range(n)],
            "end_ns": [2 * s + i for i in range(n)], "request_bytes": [300] * n,
            "response_bytes": [5000] * n, "server_delay_ns": [0] * n, "base_rtt_ns": [10**8] * n,
            "completed": [True] * n,
        }
    )  # fmt: skip
    for c in ("syn_retx", "fin_retx", "data_retx", "timeouts", "fast_retx", "ecn_reductions",
              "loss_events", "loss_cwnd_bytes", "server_syn_retx", "server_fin_retx",
              "server_data_retx"):  # fmt: skip
        df[c] = [1 if i % 2 == 0 else 0 for i in range(n)]
    if missing:
        for c in MISSING:
            df[c] = math.nan
    return df


def _testbed_run(d, missing: bool = True, legacy: bool = False):
    """A testbed-like run directory at `d`: `missing` = the columns not measured are nulls and
    summary fin_retx null (as written now); `legacy` = run.json without `not_measured` and the
    columns 0 (testbed runs written before it)."""
    summary = dict(synthetic_result().summary, fin_retx=math.nan if missing else 0, data_retx=4)
    engine = {"kind": "testbed-linux", "end_ns": 3_000_000_000}
    if not legacy:
        engine["not_measured"] = MISSING
    res = replace(
        synthetic_result(name="tb"), requests=_requests(missing), summary=summary,
        summary_json=summary_json(summary), engine=engine,
    )  # fmt: skip
    return write_run(res, d)


def test_columns_not_measured_are_nulls_in_the_file_and_nan_when_read(tmp_path):
    d = _testbed_run(tmp_path / "tb")
    t = pq.read_table(d / "requests.parquet")
    for c in MISSING:
        assert t[c].null_count == 8, c
    assert t["data_retx"].null_count == 0
    req = read_table(d, "requests")
    assert req[MISSING].isna().all().all()
    assert req["data_retx"].tolist() == [1, 0] * 4 and req["data_retx"].dtype == "int64"
    assert missing_columns(req, ["syn_retx", "fin_retx", "data_retx", "fast_retx"]) == [
        "fin_retx", "fast_retx",
    ]  # fmt: skip
    run = load_run(d)
    assert math.isnan(run.summary["fin_retx"]) and run.summary["data_retx"] == 4
    assert json.loads((d / "summary.json").read_text())["fin_retx"] is None
    assert not_measured_of(json.loads((d / "run.json").read_text())) == MISSING
    # Written again from the loaded run: still nulls, not 0.
    again = write_run(replace(run, requests=run.requests.copy()), tmp_path / "again")
    assert pq.read_table(again / "requests.parquet")["fast_retx"].null_count == 8


def test_report_names_the_columns_not_measured_and_shows_no_zero(tmp_path, capsys):
    _testbed_run(tmp_path / "runs" / "tb")
    write_run(synthetic_result(name="sim"), tmp_path / "runs" / "sim")
    png = tmp_path / "r.png"
    assert cli.main(["report", str(tmp_path / "runs"), "--out", str(png)]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: tb: not measured (missing, not 0): fin_retx, fast_retx, ecn_reductions, "
        "loss_events, loss_cwnd_bytes, server_fin_retx; summary fin_retx: n/a"
    ]
    assert png.is_file()


def test_report_treats_an_older_testbed_run_as_not_measured(tmp_path):
    # Written before run.json listed them: the columns and summary fin_retx hold 0.
    _testbed_run(tmp_path / "tb", missing=False, legacy=True)
    (run,) = open_runs([tmp_path / "tb"])
    assert run.not_measured == MISSING
    assert math.isnan(run.summary["fin_retx"])
    assert run.summary["data_retx"] == 4
    assert not_measured_notes([run])[0].endswith("summary fin_retx: n/a")


def test_a_simulator_run_has_no_note_and_keeps_its_zeros(tmp_path):
    write_run(synthetic_result(name="sim"), tmp_path / "sim")
    (run,) = open_runs([tmp_path / "sim"])
    assert run.not_measured == [] and not_measured_notes([run]) == []
    assert run.summary["fin_retx"] == 0


def test_bad_not_measured_in_run_json_is_a_clear_error():
    with pytest.raises(ValueError, match=r"run.json: engine.not_measured: not a list of column names"):
        not_measured_of({"engine": {"not_measured": "fin_retx"}})


def test_study_metrics_are_nan_not_zero_when_a_counter_is_missing():
    from aqmlab.studies import christiansen, pisa, weigle2006, weigle_multi

    full, part = _requests(missing=False), _requests(missing=True)
    # Measured: every connection retransmitted (its first exchange carries the counts).
    assert weigle2006.pct_flows_with_drops(full, 1_000_000_000) == 100.0
    assert math.isnan(weigle2006.pct_flows_with_drops(part, 1_000_000_000))

    summary = dict(synthetic_result().summary, measured_s=2.0, drops=10)
    m = pisa.class_metrics(full.assign(workload=pisa.HTTP_WORKLOAD), summary, 1_000_000_000)
    assert m["http_drops_per_s"] == 12 / 2.0  # 4 × (syn + fin + data) over 2 s
    m = pisa.class_metrics(part.assign(workload=pisa.HTTP_WORKLOAD), summary, 1_000_000_000)
    assert math.isnan(m["http_drops_per_s"]) and m["drops_per_s"] == 5.0

    e2e = weigle_multi.e2e_metrics(full.assign(workload=weigle_multi.E2E_HTTP), 1_000_000_000)
    assert e2e["http_loss_pct"] > 0
    e2e = weigle_multi.e2e_metrics(part.assign(workload=weigle_multi.E2E_HTTP), 1_000_000_000)
    assert math.isnan(e2e["http_loss_pct"]) and e2e["e2e_responses"] == 8.0

    classes = christiansen.retx_classes(full, 1_000_000_000)
    assert classes["sfd_pct"] == 50.0 and classes["nr_pct"] == 50.0
    classes = christiansen.retx_classes(part, 1_000_000_000)
    assert all(math.isnan(v) for v in classes.values()), classes
