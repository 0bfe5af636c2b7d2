"""`aqmlab report SWEEP_DIR`: report.html (tables + embedded PNGs) and report.md, on a sweep run
with the fake engine of test_sweep_run (hand-made runs with known summaries)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from test_sweep_run import SWEEP, FakeCore

from aqmlab import _core, cli
from aqmlab.sweeps.report import NO_RESPONSES_NOTE
from aqmlab.sweeps.run import run_sweep

LOAD_SWEEP = SWEEP.replace("replications = 2", 'replications = 3\nload_axis = "workload[0].rate"').replace(
    '"queue.limit" = [10, 30, 60]', '"queue.limit" = [10, 60]\n"workload[0].rate" = [100.0, 200.0]'
)


def _fake_sweep(tmp_path, monkeypatch, text: str, fail_limit=None):
    """Run sweep `text` with the fake engine into tmp_path/out; the output directory."""
    monkeypatch.setattr(_core, "run_scenario_text", FakeCore(fail_limit=fail_limit))
    p = tmp_path / "sweep.toml"
    p.write_text(text)
    out = tmp_path / "out"
    run_sweep(p, out, jobs=1, progress=False)
    return out


@pytest.fixture
def sweep_dir(tmp_path, monkeypatch):
    return _fake_sweep(tmp_path, monkeypatch, LOAD_SWEEP)


def test_html_and_markdown_reports(sweep_dir, capsys):
    assert cli.main(["report", str(sweep_dir)]) == 0
    assert capsys.readouterr().out == f"report: {sweep_dir / 'report.html'}  {sweep_dir / 'report.md'}\n"
    page = (sweep_dir / "report.html").read_text()
    # The summary table: seed 000's headers, one row per configuration (2 limits × 2 rates), and
    # CIs over the 3 replications. kb_per_s = 1000 + limit + seed, seeds 1, 2, 3: for limit 10
    # the mean is 1012, s = 1, half = 4.302653 / sqrt(3) = 2.484 → "1012 ± 2.48".
    for h in ["configuration", "KB/s", "% drops", "median rt (ms)", "≤1s", "&gt;3s", "p99 (ms)"]:
        assert f"<th>{h}</th>" in page
    rows = re.findall(r"<tr><td>(queue\.limit=[^<]*)</td><td>(\d+)</td><td>([^<]*)</td>", page)
    assert rows == [
        ("queue.limit=10, workload[0].rate=100", "3", "1012 ± 2.48"),
        ("queue.limit=10, workload[0].rate=200", "3", "1012 ± 2.48"),
        ("queue.limit=60, workload[0].rate=100", "3", "1062 ± 2.48"),
        ("queue.limit=60, workload[0].rate=200", "3", "1062 ± 2.48"),
    ]
    # Every run has the same response times, so the CDFs never cross.
    assert "<h2>CDF crossover points (s)</h2>" in page and page.count("<td>none</td><td>0</td>") == 6
    # The table says what a listed crossing means (bands separate on both sides).
    assert "<th>crossings where the 95 % bands separate (s)</th>" in page
    assert "only where the replications&#x27; bands separate on both sides" in page
    # Figures: CDF, CCDF, queue, response time by size, utilization and loss vs load; embedded.
    imgs = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,([A-Za-z0-9+/=]+)">', page)
    assert [a for a, _ in imgs] == [
        "Response-time CDF", "Response-time CCDF", "Queue length over time",
        "Response time by response size", "Utilization vs load", "Loss vs load",
    ]  # fmt: skip
    for _, b64 in imgs:
        png = base64.b64decode(b64)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    md = (sweep_dir / "report.md").read_text()
    # The title names the scenario without this machine's path (the file is outside the repo).
    assert md.startswith("# Sweep report: sweep.toml\n") and str(sweep_dir.parent) not in md
    assert "<h1>Sweep report: sweep.toml</h1>" in page and str(sweep_dir.parent) not in page
    assert "| queue.limit=60, workload[0].rate=200 | 3 | 1062 ± 2.48 |" in md
    links = re.findall(r"!\[[^\]]*\]\((report/fig\d\.png)\)", md)
    assert len(links) == 6 and all((sweep_dir / link).is_file() for link in links)


def test_report_lists_failed_runs(tmp_path, monkeypatch):
    out = _fake_sweep(tmp_path, monkeypatch, LOAD_SWEEP, fail_limit=10)
    assert cli.main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "<h2>Runs not finished</h2>" in page
    assert page.count("SimError: queue.limit: fake failure for limit 10") == 6
    assert "queue.limit=10" not in page.split("<h2>Runs not finished</h2>")[0]


SPLIT_SWEEP = SWEEP.replace("replications = 2", 'replications = 1\nload_axis = "var.load"').replace(
    '"queue.limit" = [10, 30, 60]',
    '"queue.limit" = [10, 60]\n"var.load" = [0.5, 0.6, 0.7, 0.8, 0.9]\n\n'
    '[sweep.derive]\n"workload[0].rate" = "100 * var.load"',
)


def test_many_configurations_split_figures_by_load_and_drop_derived_axes(tmp_path, monkeypatch):
    # 2 limits × 5 loads = 10 configurations > MAX_FIG_GROUPS (8): the CDF figures come once
    # per load, each with the 2 limits; the derived rate appears in no label, and the
    # lines against load are one per limit (not one per (limit, rate) point).
    from aqmlab.sweeps.report import groups, label_axes
    from aqmlab.sweeps.run import load_sweep

    out = _fake_sweep(tmp_path, monkeypatch, SPLIT_SWEEP)
    df = load_sweep(out)
    assert label_axes(df) == ["queue.limit", "var.load"]
    labels = [g.label for g in groups(df, out)]
    assert labels[:2] == ["queue.limit=10, var.load=0.50", "queue.limit=10, var.load=0.60"]
    assert cli.main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "workload[0].rate=" not in page
    imgs = re.findall(r'<img alt="([^"]+)" src=', page)
    per_load = ["Response-time CDF", "Response-time CCDF"]
    loads = ("0.50", "0.60", "0.70", "0.80", "0.90")
    want = [f"{f} at var.load = {v}" for v in loads for f in per_load]
    # Queue and size figures at the highest load only.
    want += ["Queue length over time at var.load = 0.90", "Response time by response size at var.load = 0.90"]
    assert imgs == [*want, "Utilization vs load", "Loss vs load"]
    # Each load's crossover table pairs the two limits only.
    assert page.count("<h2>CDF crossover points (s) at var.load") == 5
    row = "<td>queue.limit=10</td><td>queue.limit=60</td><td>no bands (one replication)</td>"
    assert page.count(row) == 5


QUICKSTART_LIKE = SWEEP.replace(
    '[sweep]\nreplications = 2\n\n[sweep.grid]\n"queue.limit" = [10, 30, 60]\n',
    '[[variant]]\nname = "droptail"\nqueue = { kind = "droptail", limit = 120 }\n\n'
    '[[variant]]\nname = "red"\n'
    'queue = { kind = "red", min_th = 30, max_th = 90, w_q = "1/512", max_p = 0.1, limit = 480 }\n\n'
    '[sweep]\nreplications = 2\n\n[sweep.grid]\n"variant[red].queue.min_th" = [10, 30]\n',
)


def test_a_variant_no_axis_touches_is_listed_once_without_the_axes(tmp_path, monkeypatch):
    # The example: a sweep of red's min_th over the quickstart's two variants. drop-tail
    # is one resolved scenario per seed whatever min_th is: one row per replication in the
    # table, with the axis empty, and one configuration in the report, labelled without it.
    from aqmlab.sweeps.run import load_sweep

    assert QUICKSTART_LIKE != SWEEP
    out = _fake_sweep(tmp_path, monkeypatch, QUICKSTART_LIKE)
    df = load_sweep(out)
    assert len(df) == 6 and df["run"].is_unique
    dt = df[df["variant"] == "droptail"]
    assert dt["replication"].tolist() == [0, 1] and dt["variant[red].queue.min_th"].isna().all()
    red = df[df["variant"] == "red"]
    assert str(df["variant[red].queue.min_th"].dtype) == "Int64"
    assert red["variant[red].queue.min_th"].tolist() == [10, 10, 30, 30]
    assert cli.main(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    labels = re.findall(r"<tr><td>([^<]*)</td><td>(\d+)</td>", page.split("<h2>Response-time CDF")[0])
    assert labels == [
        ("droptail", "2"),
        ("red, variant[red].queue.min_th=10", "2"),
        ("red, variant[red].queue.min_th=30", "2"),
    ]
    assert "droptail, variant[red]" not in page
    assert "2 configurations" not in page and "6 runs (6 finished), 3 configurations" in page
    # The crossover table pairs the three configurations once each.
    cross = page.split("<h2>CDF crossover points")[1].split("</table>")[0]
    assert cross.count("<tr><td>") == 3


def test_scenario_paths_are_shown_relative_to_the_repository():
    from aqmlab.sweeps.report import _shown_path

    root = Path(__file__).resolve().parents[2]
    inside = root / "studies" / "weigle2006" / "load.toml"
    assert _shown_path(str(inside), "x") == "studies/weigle2006/load.toml"
    assert _shown_path("/somewhere/else/sw.toml", "x") == "sw.toml"
    assert _shown_path(None, "out") == "out"


BULK_SWEEP = """
[run]
warmup = "1s"
duration = "2s"

[topology]
kind = "dumbbell"
clients = 1
servers = 1
access_rate = "10Mbps"
access_delay = "1ms"
bottleneck_rate = "2Mbps"
bottleneck_delay = "10ms"

[queue]
kind = "droptail"
limit = 20

[[workload]]
kind = "bulk"
flows = [{ start = "0s", client = 0, server = 0, bytes = "10MB" }]

[sweep]
replications = 2
"""


@pytest.mark.engine
def test_long_flows_alone_report_without_response_time_figures(tmp_path):
    # A long flow times no HTTP response: the report says so and keeps the queue figure (the
    # response-time CDFs would have nothing to draw; their log axes used to raise).
    p = tmp_path / "bulk.toml"
    p.write_text(BULK_SWEEP)
    out = tmp_path / "out"
    run_sweep(p, out, jobs=1, progress=False)
    assert cli.main(["report", str(out)]) == 0
    md = (out / "report.md").read_text()
    assert NO_RESPONSES_NOTE in md
    assert "Response-time CDF" not in md and "Response time by response size" not in md
    assert "## Queue length over time" in md
