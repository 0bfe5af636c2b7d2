"""Run directories on disk: write one atomically, read one back.

A run directory holds `summary.json` (the summary exactly as the Rust core serialized it, plus a
newline), `requests.parquet`, `queue.parquet`, `links.parquet` and `run.json` (name, scenario,
seed, warm-up, engine counters). Every file is deterministic: the same run gives byte-identical
files (Parquet: zstd, no pandas metadata; pyarrow writes no timestamp).

Atomicity: everything is written into `<dir>.tmp-<pid>` beside the target, `summary.json` last,
then renamed to `<dir>`; an existing run directory is moved aside to `<dir>.old-<pid>` only after
the new one is complete and removed after the rename. Durability: every file is flushed to the
disk (`fsync`) before the rename, and the parent directory after it, so a run directory under its
final name survives a power cut with every file whole (the core flushes the Parquet tables it
writes itself, `crates/store/src/table_file.rs`). A failure removes the temporary
directory. Readers (`is_run_dir`) ignore `*.tmp-*` / `*.old-*` names. A process killed
mid-write (SIGKILL) cannot clean up: `remove_stale_scratch` removes the scratch names of
processes that no longer run (called when `aqmlab run` and `aqmlab sweep` start).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# `json`, `shutil` and `aqmlab.storage.record` (with `dataclasses` and `inspect`: 10 ms) are imported
# where used: `aqmlab run` needs this module's checks before the engine runs and its writing
# only after, and imports those meanwhile, while the engine runs (aqmlab.cli.cmd_run).

TYPE_CHECKING = False  # as in aqmlab.storage.record: typing's, without importing typing

if TYPE_CHECKING:
    import pyarrow as pa

    from aqmlab.storage.record import RunResult

# The per-run tables, in this order (the keys of aqmlab.storage.tables.TYPES; named here so that
# writing a run needs neither pandas nor pyarrow).
TABLES = ("requests", "queue", "links")

SUMMARY = "summary.json"
RUN_INFO = "run.json"
_SCRATCH = re.compile(r"\.(tmp|old)-\d+$")


class OutDirError(OSError):
    """An output directory that cannot be used; the message is `DIR: reason` (no errno, no
    filename attribute: the CLI prints it as it is)."""


def os_reason(e: OSError) -> str:
    """The reason of an OSError in words, without `[Errno N]` ("read-only file system")."""
    text = e.strerror or str(e)
    return text[:1].lower() + text[1:]


def check_out_dir(dir: str | os.PathLike) -> Path:
    """Check, before anything long runs, that the output directory `dir` can be created (or
    exists as a directory) and written in: raises OutDirError `DIR: reason` for a path that is a
    file, lies under a file, or is on a read-only or not writable file system. Creates nothing
    (a probe file in the nearest existing directory is removed at once)."""
    p = Path(dir)
    if os.path.lexists(p) and not p.exists():
        raise OutDirError(f"{p}: is a broken symbolic link")
    if p.exists() and not p.is_dir():
        raise OutDirError(f"{p}: exists and is not a directory")
    base = p
    while not base.exists():  # the nearest existing ancestor ('.' or '/' at the latest)
        base = base.parent
    if not base.is_dir():
        raise OutDirError(f"{p}: cannot create the directory: {base} is a file, not a directory")
    try:
        _probe(base)
    except OSError as e:
        what = "cannot write in the directory" if base == p else "cannot create the directory"
        where = "" if base == p else f" (in {base})"
        raise OutDirError(f"{p}: {what}: {os_reason(e)}{where}") from None
    return p


def _probe(base: Path) -> None:
    """Create and remove a file in the directory `base` (an OSError if it cannot be written),
    as `tempfile.mkstemp` would, without importing tempfile (start-up time)."""
    for n in range(100):
        probe = base / f".aqmlab-probe-{os.getpid()}-{n}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        os.close(fd)
        os.unlink(probe)
        return
    raise FileExistsError(f"{base}: no free probe file name")


def parquet_name(table: str) -> str:
    return f"{table}.parquet"


def write_parquet(t: pa.Table, path: Path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(t, path, compression="zstd", compression_level=3)
    _fsync_path(path)


def _fsync_path(path: Path) -> None:
    """Flush the file or directory `path` to the disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    """Write `data` to the file `path` and flush it to the disk."""
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def run_info(result: RunResult) -> dict:
    return {
        "name": result.name,
        "scenario": result.scenario,
        "seed": result.seed,
        "warmup_ns": result.warmup_ns,
        "engine": result.engine,
    }


def _write_tables(result: RunResult, d: Path) -> None:
    """The Parquet files of `result` into `d`: a table read from a file (a run of the core, or
    one read back) is copied byte for byte; a DataFrame given to the result is encoded."""
    for table in TABLES:
        frame = result.given_frame(table)
        if frame is None and table in result.files:
            src = result.files[table]
            _write_synced(d / parquet_name(table), src if isinstance(src, bytes) else Path(src).read_bytes())
        else:
            from aqmlab.storage.tables import frame_to_arrow

            write_parquet(frame_to_arrow(table, getattr(result, table)), d / parquet_name(table))


def _write_info(result: RunResult, d: Path) -> None:
    import json

    _write_synced(d / RUN_INFO, (json.dumps(run_info(result), indent=2) + "\n").encode("utf-8"))
    # Last: a directory with summary.json is a complete run.
    _write_synced(d / SUMMARY, (result.summary_json + "\n").encode("utf-8"))


_SCRATCH_NAME = re.compile(r"^(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>\d+)$")


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (one of another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_scratch(dir: str | os.PathLike) -> list[Path]:
    """Clean up after writers killed mid-write in `dir`: every `NAME.tmp-PID` / `NAME.old-PID`
    entry (file or directory) whose PID no longer runs is removed, except an `.old-PID`
    directory whose NAME is missing (killed between `write_run`'s two renames: it is the only
    complete copy), which is renamed back to NAME. Entries of running processes (another
    `aqmlab` writing into the same directory) are left alone. Returns the paths handled."""
    d = Path(dir)
    done: list[Path] = []
    try:
        entries = list(d.iterdir())
    except OSError:
        return done
    for p in sorted(entries):
        m = _SCRATCH_NAME.match(p.name)
        if not m or pid_alive(int(m["pid"])):
            continue
        final = p.with_name(m["name"])
        try:
            if m["kind"] == "old" and p.is_dir() and not final.exists() and is_run_dir_contents(p):
                os.rename(p, final)
            elif p.is_dir() and not p.is_symlink():
                import shutil

                shutil.rmtree(p)
            else:
                p.unlink()
        except OSError:
            continue  # not ours to fix (permissions): readers ignore scratch names anyway
        done.append(p)
    return done


def is_run_dir_contents(path: Path) -> bool:
    """`path` holds a complete run (summary.json), whatever its name."""
    return path.is_dir() and (path / SUMMARY).is_file()


def is_run_dir(path: Path) -> bool:
    """A complete run directory (not a scratch directory of an unfinished write)."""
    return path.is_dir() and not _SCRATCH.search(path.name) and (path / SUMMARY).is_file()


def check_run_target(dir: str | os.PathLike) -> Path:
    """`dir` may receive a run: it is missing, a run directory (replaced) or an empty
    directory; anything else raises FileExistsError `DIR: reason` (we never replace what is
    not ours)."""
    final = Path(dir)
    if final.exists() and not (is_run_dir(final) or (final.is_dir() and not any(final.iterdir()))):
        raise FileExistsError(f"{final}: exists and is not a run directory; not replacing it")
    return final


def scratch_dir(final: Path) -> Path:
    """A new, empty scratch directory `<final>.tmp-<pid>` beside the run directory `final`
    (its parent created if missing), to be completed by `commit_run_dir`."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
    if os.path.lexists(tmp):  # left by an earlier process of the same pid
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    return tmp


def commit_run_dir(result: RunResult, tmp: Path, final: Path) -> None:
    """Complete the scratch directory `tmp` (which holds the Parquet tables) with run.json and
    summary.json, then rename it to `final`, replacing a run directory there (see the module
    doc). On failure `tmp` is left for the caller to remove."""
    _write_info(result, tmp)
    if final.exists():
        import shutil

        old = final.with_name(f"{final.name}.old-{os.getpid()}")
        shutil.rmtree(old, ignore_errors=True)
        os.rename(final, old)
        try:
            os.rename(tmp, final)
        except BaseException:
            os.rename(old, final)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, final)
    _fsync_path(final.parent)  # the rename itself


def write_run(result: RunResult, dir: str | os.PathLike) -> Path:
    """Write `result` to the run directory `dir` atomically (see the module doc). An existing
    `dir` is replaced if it is a run directory or empty; anything else there is an error."""
    import shutil

    final = check_run_target(dir)
    tmp = scratch_dir(final)
    try:
        _write_tables(result, tmp)
        commit_run_dir(result, tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def read_summary(d: Path) -> dict:
    from aqmlab.storage.record import parse_summary

    return parse_summary((Path(d) / SUMMARY).read_text(encoding="utf-8"))


def read_info(d: Path) -> dict:
    import json

    p = Path(d) / RUN_INFO
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else {}


#: The request columns the testbed cannot measure (crates/testbed/src/http.rs `NOT_MEASURED`),
#: for testbed runs written before run.json listed them (their tables hold 0 there).
TESTBED_NOT_MEASURED = (
    "fin_retx", "fast_retx", "ecn_reductions", "loss_events", "loss_cwnd_bytes", "server_fin_retx",
)  # fmt: skip


def not_measured_of(info: dict) -> list[str]:
    """The request columns the run's engine did not measure (run.json `engine.not_measured`,
    written by the testbed; nulls in requests.parquet), [] if none; for a testbed run written
    before that key existed, `TESTBED_NOT_MEASURED`."""
    engine = info.get("engine", {})
    if "not_measured" not in engine and engine.get("kind") == "testbed-linux":
        return list(TESTBED_NOT_MEASURED)
    cols = engine.get("not_measured") or []
    if not isinstance(cols, list) or not all(isinstance(c, str) for c in cols):
        raise ValueError(f"run.json: engine.not_measured: not a list of column names: {cols!r}")
    return cols


def warmup_ns_of(info: dict, summary: dict) -> int:
    """The run's warm-up, ns: as recorded, else end of run − measured time."""
    if info.get("warmup_ns") is not None:
        return int(info["warmup_ns"])
    end_ns = int(info.get("engine", {}).get("end_ns", 0))
    return max(0, end_ns - round(float(summary["measured_s"]) * 1e9))


def read_table(d: Path, table: str, columns: list[str] | None = None):
    import pyarrow.parquet as pq

    from aqmlab.storage.tables import arrow_to_frame

    return arrow_to_frame(pq.read_table(Path(d) / parquet_name(table), columns=columns))


def load_run(dir: str | os.PathLike) -> RunResult:
    """Read a run directory written by `write_run` back into a `RunResult`. Its tables are
    read from the directory's Parquet files when first used (keep the directory until then);
    `write_run` of the result copies those files unchanged."""
    from aqmlab.storage.record import RunResult, parse_summary

    d = Path(dir)
    if not is_run_dir(d):
        raise FileNotFoundError(f"{d}: not a run directory (no {SUMMARY})")
    text = (d / SUMMARY).read_text(encoding="utf-8")
    summary_json = text[:-1] if text.endswith("\n") else text
    summary = parse_summary(summary_json)
    info = read_info(d)
    return RunResult(
        name=info.get("name", d.name),
        summary=summary,
        engine=info.get("engine", {}),
        summary_json=summary_json,
        warmup_ns=warmup_ns_of(info, summary),
        seed=info.get("seed"),
        scenario=info.get("scenario"),
        wall_s=None,
        files={t: d / parquet_name(t) for t in TABLES},
    )
