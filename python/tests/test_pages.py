"""Page response times rebuilt from request records (aqmlab.reports.pages)."""

import pandas as pd
import pytest

from aqmlab.reports.pages import page_times


def _requests(rows):
    cols = ["id", "workload", "page", "start_ns", "end_ns", "response_bytes", "completed"]
    return pd.DataFrame(rows, columns=cols)


def test_page_time_is_first_start_to_last_end():
    # Page 7 of workload 0: three files, the primary 0–50 ms, then two in parallel 50–120 and
    # 51–90 ms → 120 ms. Page 8: one file 200–230 ms. Requests without a page are ignored.
    req = _requests(
        [
            (0, 0, 7, 0, 50_000_000, 1000, True),
            (1, 0, 7, 50_000_000, 120_000_000, 2000, True),
            (2, 0, 7, 51_000_000, 90_000_000, 500, True),
            (3, 0, 8, 200_000_000, 230_000_000, 100, True),
            (4, 0, 0, 10, 20, 5, True),
        ]
    )
    p = page_times(req)
    assert list(p["page"]) == [7, 8]
    assert list(p["files"]) == [3, 1]
    assert list(p["page_rt_ms"]) == [120.0, 30.0]
    assert list(p["response_bytes"]) == [3500, 100]
    assert p["completed"].all()


def test_incomplete_request_makes_the_page_incomplete_and_warmup_filters_by_first_start():
    req = _requests(
        [
            (0, 0, 1, 5, 100, 10, True),
            (1, 0, 1, 100, 300, 10, False),
            (2, 1, 1, 1_000, 2_000, 10, True),
        ]
    )
    p = page_times(req)
    # Same page number in two workloads: two pages.
    assert len(p) == 2
    assert list(p["completed"]) == [False, True]
    p = page_times(req, warmup_ns=6)
    assert list(p["workload"]) == [1]


def test_no_pages_gives_an_empty_frame_with_the_columns():
    p = page_times(_requests([(0, 0, 0, 0, 1, 1, True)]))
    assert p.empty and "page_rt_ms" in p.columns


@pytest.mark.engine
def test_the_readme_example_runs_a_workload_with_pages(tmp_path):
    """The README's `page_times` example (issue 30: it used the quickstart, whose http10
    workload has no pages, and returned an empty table), shortened to 20 s + 40 s."""
    import re
    from pathlib import Path

    import aqmlab

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    m = re.search(r'^lab = aqmlab\.run\("([^"]+)", variant="([^"]+)"\)\["\2"\]$', readme, flags=re.M)
    assert m, "the README's lab = aqmlab.run(...) line"
    assert "pages = aqmlab.page_times(lab.requests, lab.warmup_ns)" in readme
    text = (root / m[1]).read_text(encoding="utf-8")
    short = text.replace('warmup = "20min"', 'warmup = "20s"').replace(
        'duration = "70min"', 'duration = "40s"'
    )
    assert short != text
    copy = tmp_path / Path(m[1]).name
    copy.write_text(short, encoding="utf-8")
    lab = aqmlab.run(copy, variant=m[2])[m[2]]
    pages = aqmlab.page_times(lab.requests, lab.warmup_ns)
    # Mah's users (3012 of them) each start pages; every page is at least one request.
    assert len(pages) > 1000
    assert (pages["files"] >= 1).all() and (pages["start_ns"] >= lab.warmup_ns).all()
    done = pages[pages["completed"]]
    assert len(done) > 0 and (done["page_rt_ms"] > 0).all()
