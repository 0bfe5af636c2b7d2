"""The cost of many runs (sweeps and tunes), from the engine's per-run estimate
(`crates/experiment/src/budget.rs`, through `_core.scenario_text_estimates`): a sweep or tune larger
than the limits below is refused before anything runs (before a sweep is even expanded) with its
size, its estimate and the limit, as `FILE: KEY: reason`; one estimated above `ANNOUNCE_S` gets a
line saying so before it starts (issue 30: a sweep of `replications = 1e8` or a 1000 × 1000 grid
started without a word).

Every per-run figure is the engine's lower bound, so the totals are "at least"; the wall time is
for one core (runs go in parallel on `--jobs` processes).

Validation: python/tests/test_run_cost.py."""

from __future__ import annotations

import math

from aqmlab import _core

#: Most runs in one sweep or tune: 100,000. Expanding a sweep takes about 1-3 ms of Python per
#: run before the first one starts (10,000 runs: 10-30 s), and each run is a directory of six
#: files.
MAX_RUNS = 100_000
#: Most estimated events of one sweep or tune: 1e13, a hundred runs at a single run's own bound
#: (1e11): about 14 days on one core at 8 M events/s, two on eight.
MAX_EVENTS = 1e13
#: Shortest estimated wall time, seconds (one core), that is announced before a sweep, tune or
#: run starts: below a minute a run is over before the line would be read.
ANNOUNCE_S = 60.0


def count_text(x: float) -> str:
    """A count for a message: plain below a million, else scientific (`2e8`, `1.23e7`)."""
    if x < 1e6:
        return f"{round(x)}"
    m, e = f"{x:.2e}".split("e")
    return f"{m.rstrip('0').rstrip('.')}e{int(e)}"


def events_per_s() -> float:
    """The engine's events per wall-clock second of the estimates."""
    return float(_core.budget_constants()["events_per_s"])


def cost_text(events: float, setup_s: float = 0.0) -> str:
    """`at least N events, about T on one core` for `events` and `setup_s` of set-up."""
    wall = _core.duration_text(setup_s + events / events_per_s())
    return f"at least {count_text(events)} events, about {wall} on one core"


def base_estimates(text: str, file: str, base_dir: str, names: list[str] | None = None) -> list[dict] | None:
    """The engine's estimates of the runs of scenario `text` (only the variants `names`, if
    given), or None when the text is not a complete scenario by itself (a sweep may set required
    keys): then only the run count is checked before expanding."""
    try:
        ests = _core.scenario_text_estimates(text, file, base_dir)
    except _core.ScenarioError:
        return None
    if names:
        ests = [e for e in ests if e["name"] in names] or ests
    return ests


def refuse_if_too_large(
    error: type[ValueError], file: str, key: str, what: str, size: str, runs: int, per_run: list[dict] | None
) -> str | None:
    """Raise `error(file, key, reason)` when `runs` runs (`size` says how they multiply; `what`
    is "sweep" or "tune") exceed `MAX_RUNS`, or their estimate (`runs` × the mean of `per_run`,
    the estimates of one run of each variant) exceeds `MAX_EVENTS`; else the line announcing
    them (`announcement`; None without an estimate)."""
    events = setup = None
    if per_run:
        events = runs * sum(e["events"] for e in per_run) / len(per_run)
        setup = runs * sum(e["setup_s"] for e in per_run) / len(per_run)
    if runs <= MAX_RUNS and (events is None or events <= MAX_EVENTS):
        return None if events is None else announcement(what, runs, events, setup)
    est = f", {cost_text(events, setup)}" if events is not None else ""
    n = f"{size} = {count_text(runs)} runs" if size else f"{count_text(runs)} runs"
    raise error(
        file,
        key,
        f"too large a {what}: {n}{est}; aqmlab refuses a {what} of more than {count_text(MAX_RUNS)} "
        f"runs or {count_text(MAX_EVENTS)} events",
    )


def check_runs(
    error: type[ValueError], file: str, key: str, what: str, runs: list[tuple[float, float]]
) -> str | None:
    """Refuse (as `refuse_if_too_large`) the `what` whose runs are estimated at `runs` (events,
    set-up seconds of each distinct run); else its announcement line (`announcement`) or None."""
    if not runs:
        return None
    events = sum(e for e, _ in runs)
    setup = sum(s for _, s in runs)
    mean = [{"events": events / len(runs), "setup_s": setup / len(runs)}]
    refuse_if_too_large(error, file, key, what, "", len(runs), mean)
    return announcement(what, len(runs), events, setup)


def announcement(what: str, runs: int, events: float, setup_s: float) -> str | None:
    """The line announcing a `what` of `runs` runs estimated at `events` and `setup_s`, or None
    when it is estimated below `ANNOUNCE_S`."""
    seconds = setup_s + events / events_per_s()
    if not seconds >= ANNOUNCE_S or math.isnan(seconds):
        return None
    return f"{what}: {count_text(runs)} runs, {cost_text(events, setup_s)}"
