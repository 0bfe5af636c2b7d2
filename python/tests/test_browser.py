"""The HTML reports in a real browser (issue 15): headless Chromium (the Debian package
`chromium`; ./test.sh installs it in CI) loads a sweep report and a reproduction report and
must log no console message, decode every figure, and render every table with its rows. A
screenshot of the sweep report is kept as a test artifact: runs/test-artifacts/sweep-report.png.

Both reports come from the fake engines of test_sweep_report and test_reproduce (real reports
of hand-made runs). The checks are made by a script appended to a copy of each report (the page
itself has no script); console messages are read from Chromium's log of the unmodified page.
A control page with a console error and a broken image must fail both checks. Skipped without
Chromium, except in CI.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_reproduce import TOY, fake, toy_dir  # noqa: F401 (fixtures)
from test_sweep_report import LOAD_SWEEP, _fake_sweep

from aqmlab.studies.reproduce import reproduce

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "runs" / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="needs chromium (Debian package chromium)"
)

CHECK = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  const res = {
    images: imgs.length,
    decoded: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
    tables: [...document.querySelectorAll("table")].map(t => t.querySelectorAll("tbody tr").length),
    headers: [...document.querySelectorAll("h2")].map(h => h.textContent),
  };
  const p = document.createElement("pre");
  p.textContent = "AQMLAB-CHECK " + JSON.stringify(res);
  document.body.appendChild(p);
});
</script>"""


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess:
    assert CHROMIUM is not None, "chromium is not installed (apt-get install chromium)"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def inspect(page: Path, tmp_path: Path) -> tuple[dict, list[str]]:
    """What the browser saw of `page`: the checks' result and the console messages."""
    checked = page.with_name(page.stem + ".check.html")
    text = page.read_text(encoding="utf-8")
    checked.write_text(text.replace("</body>", CHECK + "</body>"), encoding="utf-8")
    p = chromium("--virtual-time-budget=10000", "--dump-dom", checked.as_uri(), profile=tmp_path / "prof1")
    m = re.search(r"AQMLAB-CHECK (\{.*?\})</pre>", p.stdout)
    assert m, f"no result from the page: {p.stdout[-500:]} {p.stderr[-1500:]}"
    log = chromium(
        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", "--dump-dom", page.as_uri(),
        profile=tmp_path / "prof2",
    )  # fmt: skip
    console = [line for line in log.stderr.splitlines() if ":CONSOLE" in line]
    return json.loads(m.group(1)), console


def test_a_broken_page_fails_the_checks(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html><body><script>console.error("boom")</script>'
        '<img alt="x" src="data:image/png;base64,AAAA"><table><tbody></tbody></table></body></html>'
    )
    res, console = inspect(bad, tmp_path)
    assert (res["images"], res["decoded"], res["tables"]) == (1, 0, [0])
    assert len(console) == 1 and '"boom"' in console[0]


def test_sweep_report_in_a_browser(tmp_path, monkeypatch):
    from aqmlab.sweeps.report import write_sweep_report

    out = _fake_sweep(tmp_path, monkeypatch, LOAD_SWEEP)
    html_path, _ = write_sweep_report(out)
    res, console = inspect(html_path, tmp_path)
    assert console == []
    assert res["images"] == 6 and res["decoded"] == 6
    # Summary (2 limits × 2 rates) and the crossover pairs of those 4 configurations.
    assert res["tables"] == [4, 6]
    assert res["headers"][:3] == ["Summary (seed 000's columns; mean ± 95 % CI over replications)",
                                  "Response-time CDF", "Response-time CCDF"]  # fmt: skip
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "sweep-report.png"
    shot.unlink(missing_ok=True)
    size = "--window-size=1100,2400"
    chromium(size, f"--screenshot={shot}", html_path.as_uri(), profile=tmp_path / "prof3")
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1100, 2400)
        colours = im.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50  # text, tables and figures, not a blank page


def test_reproduction_report_in_a_browser(tmp_path, toy_dir, fake):  # noqa: F811 (fixtures)
    out = tmp_path / "out"
    _, htm, _ = reproduce(TOY, out, jobs=1, studies_dir=toy_dir, command="aqmlab x", progress=False)
    res, console = inspect(htm, tmp_path)
    assert console == []
    assert res["images"] >= 2 and res["decoded"] == res["images"]
    assert len(res["tables"]) >= 2 and all(n > 0 for n in res["tables"])
