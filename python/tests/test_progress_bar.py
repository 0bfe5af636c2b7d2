"""The progress bar of `aqmlab run`, drawn by the core (crates/py/src/progress_bar.rs): under a
pseudo-terminal it reaches the run's end and leaves the cursor on a new line, also on Ctrl-C,
and a long set-up (a large topology) has its own line first;
a pipe (or TERM=dumb) gets no bar; the single-run path imports no tqdm."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from conftest import write_tiny_scenario

import aqmlab
from aqmlab import _core

pytestmark = pytest.mark.engine

# What the bar draws and a pipe must never get: carriage returns, escape sequences, blocks.
BAR_BYTES = re.compile(r"[\r\x1b█▉▊▋▌▍▎▏]|sim s")


def _default_sigint() -> None:
    """In the child before exec: SIGINT's default action, as in a user's terminal. A test run
    started in the background by a non-interactive shell (`cmd &`, `nohup`) inherits SIGINT
    ignored, and Python then installs no KeyboardInterrupt handler, so Ctrl-C would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_on_terminal(args: list[str], term: str = "xterm", interrupt_at: bytes | None = None, timeout=60):
    """`python -m aqmlab ARGS` with stderr on a pseudo-terminal (100 columns) and stdout on a
    pipe; with `interrupt_at`, SIGINT once the terminal has shown those bytes. Returns
    (returncode, terminal text with CRLF as LF, stdout, seconds from SIGINT to exit)."""
    master, slave = os.openpty()
    termios.tcsetwinsize(slave, (24, 100))
    env = {**os.environ, "TERM": term}
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    os.close(slave)
    got, sent_at, deadline = b"", None, time.monotonic() + timeout
    try:
        while True:
            if time.monotonic() > deadline:
                p.kill()
                pytest.fail(f"aqmlab did not finish in {timeout} s; terminal so far: {got[-400:]!r}")
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal's other end has closed it
                break
            if not chunk:
                break
            got += chunk
            if interrupt_at is not None and sent_at is None and interrupt_at in got:
                p.send_signal(signal.SIGINT)
                sent_at = time.monotonic()
        out = p.stdout.read().decode()
        rc = p.wait(timeout=timeout)
    finally:
        os.close(master)
        if p.poll() is None:
            p.kill()
        p.stdout.close()
    took = None if sent_at is None else time.monotonic() - sent_at
    return rc, got.decode(errors="replace").replace("\r\n", "\n"), out, took


def end_s(run_dir: Path) -> int:
    """The simulated end of a written run, whole seconds (from its run.json)."""
    return round(json.loads((run_dir / "run.json").read_text())["engine"]["end_ns"] / 1e9)


def test_bar_on_a_terminal_reaches_the_end_then_a_new_line(tmp_path):
    scen = write_tiny_scenario(tmp_path)
    out = tmp_path / "runs"
    rc, term, stdout, _ = run_on_terminal(["run", str(scen), "--variant", "dt30", "--out", str(out)])
    assert rc == 0, term
    n = end_s(out / "dt30")
    frames = [f for f in re.split(r"\r|\n", term) if "sim s" in f]
    assert frames, term
    assert all(f.replace("\x1b[2K", "").startswith("dt30: ") for f in frames), frames
    last = frames[-1].replace("\x1b[2K", "")
    hms = r"\d\d:\d\d:\d\d"
    assert re.fullmatch(rf"dt30: 100%\|█+\| {n}/{n} sim s \[{hms}<{hms}, [\d.]+ sim s/s\]", last), last
    # The bar's last frame is ended: the CLI's own line starts on a line of its own.
    assert re.search(rf"sim s/s\]\ndt30: {re.escape(str(out / 'dt30'))}  \(\d+\.\d s wall\)\n$", term), term
    assert "KB/s" in stdout and not BAR_BYTES.search(stdout)


def test_ctrl_c_aborts_promptly_and_ends_the_bar_line(tmp_path):
    scen = write_tiny_scenario(tmp_path)
    # 100,000 s: ≈ 30 s uninterrupted on the machines measured (20,000 s had become ≈ 6 s, near
    # the 5 s bound below, when the engine got faster).
    scen.write_text(scen.read_text().replace('duration = "20s"', 'duration = "100000s"'))
    out = tmp_path / "runs"
    rc, term, _, took = run_on_terminal(
        ["run", str(scen), "--variant", "dt30", "--out", str(out)], interrupt_at=b" sim s ["
    )
    assert rc == 130, term
    assert took is not None and took < 5, took  # the whole run takes far longer
    assert re.search(r"sim s/s\]\naqmlab: interrupted\n$", term), term[-300:]
    assert "Traceback" not in term
    assert not out.exists()  # a failed variant leaves nothing


@pytest.mark.parametrize("how", ["pipe", "dumb terminal"])
def test_no_bar_where_nobody_watches(tmp_path, how):
    scen = write_tiny_scenario(tmp_path)
    out = tmp_path / "runs"
    args = ["run", str(scen), "--variant", "dt30", "--out", str(out)]
    if how == "pipe":
        p = subprocess.run(
            [sys.executable, "-m", "aqmlab", *args], capture_output=True, text=True, timeout=120,
            env={**os.environ, "TERM": "xterm"},
        )  # fmt: skip
        rc, err = p.returncode, p.stderr
    else:
        rc, err, _, _ = run_on_terminal(args, term="dumb")
    assert rc == 0, err
    assert not BAR_BYTES.search(err), err
    assert re.fullmatch(rf"dt30: {re.escape(str(out / 'dt30'))}  \(\d+\.\d s wall\)\n", err), err


def test_run_path_imports_no_tqdm(tmp_path):
    scen = write_tiny_scenario(tmp_path)
    probe = (
        "import sys\n"
        "from aqmlab import cli\n"
        f"rc = cli.main(['run', {str(scen)!r}, '--variant', 'dt30', '--out', {str(tmp_path / 'runs')!r}])\n"
        "heavy = ('tqdm', 'pandas', 'pyarrow', 'numpy', 'multiprocessing', 'importlib.metadata')\n"
        "print('LOADED', rc, *[m for m in heavy if m in sys.modules])\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert p.stdout.splitlines()[-1] == "LOADED 0", p.stdout + p.stderr
    assert (tmp_path / "runs" / "dt30" / "summary.json").is_file()


def test_api_progress_true_draws_nothing_off_a_terminal(tmp_path, capfd):
    scen = write_tiny_scenario(tmp_path)
    r = aqmlab.run(scen, variant="dt30", progress=True)["dt30"]
    assert r.summary["measured_s"] == 20.0
    cap = capfd.readouterr()
    assert cap.err == "" and cap.out == ""


def test_core_rejects_a_progress_that_is_neither_bool_nor_callable(tmp_path):
    scen = write_tiny_scenario(tmp_path)
    expected = r"^progress: expected True, False, None or a callable\(sim_s, end_s\), got str$"
    with pytest.raises(TypeError, match=expected):
        _core.run_variant(str(scen), "dt30", str(tmp_path), "yes")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]  # nothing written


def test_a_long_set_up_shows_its_own_line_before_the_bar(tmp_path):
    # 5,000 clients + 40 servers + 2 routers = 5,042 nodes: 5,042² routes × 46.5 ns = 1.2 s of
    # set-up (crates/experiment/src/budget.rs), over the 1 s that gets a line (issue 30: a large
    # topology sat silent for 90 s); the bar replaces it once the run starts.
    scen = write_tiny_scenario(tmp_path)
    text = scen.read_text().replace("clients = 10", "clients = 5000").replace("servers = 10", "servers = 40")
    scen.write_text(text.replace('duration = "20s"', 'duration = "1s"'))
    out = tmp_path / "runs"
    rc, term, _, _ = run_on_terminal(["run", str(scen), "--variant", "dt30", "--out", str(out)])
    assert rc == 0, term
    # `dt30: ⠁ setting up …`: the variant, a spinner frame, what and the elapsed time.
    what = re.escape("setting up 5042 nodes (routes between every pair: at least 1.2 s) [")
    line = re.search(rf"dt30: \S {what}", term)
    assert line, term[:400]
    at = line.start()
    assert term.find("sim s") > at  # the bar comes after
    assert re.search(rf"sim s/s\]\ndt30: {re.escape(str(out / 'dt30'))}", term), term[-300:]
