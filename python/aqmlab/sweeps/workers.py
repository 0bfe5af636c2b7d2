"""Local worker processes that die with the process that started them.

`aqmlab sweep` runs simulations in a `ProcessPoolExecutor` (`aqmlab calibrate` runs its points
in threads of the core). If the driver
is killed outright (SIGKILL, an OOM kill, a closed terminal's SIGHUP after the driver died),
nothing stops its workers: they finish the simulation in hand (minutes) and then wait for work
that never comes. `pool(n)` starts workers that

- on Linux ask the kernel for SIGKILL when their parent dies (`prctl(PR_SET_PDEATHSIG)`; this
  works while the worker is inside the Rust core, which holds the GIL), and
- everywhere else (or if prctl is unavailable) run a watchdog thread that exits the worker once
  the driver's pid is gone (between runs, since a simulation holds the GIL);

both check at once whether the driver already died before the worker was set up. Workers also
ignore Ctrl-C: it belongs to the driver, which stops the pool (a worker must not record it as a
failed run). A sweep's workers write each run directory under a scratch name renamed only when
complete (aqmlab.storage.run_dir), so killing them loses nothing but the run in progress, which the next
`aqmlab sweep` redoes (after removing the dead worker's `ID.tmp-PID`).

Validation: python/tests/test_workers.py (SIGKILL of a running `aqmlab sweep`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from aqmlab.storage.run_dir import pid_alive

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_INTERVAL_S = 1.0


def _set_pdeathsig() -> bool:
    """Linux: SIGKILL this process when its parent dies. False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(driver: int, parent: int) -> None:
    while True:
        time.sleep(WATCH_INTERVAL_S)
        if os.getppid() != parent or not pid_alive(driver):
            os._exit(1)


def worker_init(driver: int) -> None:
    """Pool initializer (see the module doc); `driver` is the pid of the process that owns the
    pool. The parent (`os.getppid()`) is the driver with the fork start method, or a fork
    server that exits with the driver; either way the worker goes when its parent goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    armed = _set_pdeathsig()
    if not pid_alive(driver) or os.getppid() != parent:  # died before prctl took effect
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch, args=(driver, parent), daemon=True, name="aqmlab-watchdog").start()


def pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool of `jobs` workers that die with this process (module doc)."""
    return ProcessPoolExecutor(max_workers=jobs, initializer=worker_init, initargs=(os.getpid(),))


def terminate(ex: ProcessPoolExecutor) -> None:
    """Kill the workers of `ex` now (after Ctrl-C or an error: the runs in progress are not
    wanted, and the workers ignore Ctrl-C themselves)."""
    for proc in list((getattr(ex, "_processes", None) or {}).values()):
        proc.terminate()


def map_all(fn, items: list, jobs: int) -> list:
    """`[fn(x) for x in items]` on `jobs` workers of `pool`; on any exception (Ctrl-C included)
    the workers are killed before it propagates."""
    ex = pool(jobs)
    try:
        return list(ex.map(fn, items))
    except BaseException:
        terminate(ex)
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
