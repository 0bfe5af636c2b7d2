#!/usr/bin/env bash
# Set up aqmlab on a machine with Rust (cargo), Python 3.11 and gcc, then run the quickstart.
#
#   ./setup.sh            set up, then run scenarios/quickstart.toml into runs/quickstart/ and
#                         draw runs/quickstart/report.png
#   ./setup.sh --no-run   set up only (test.sh uses this)
#
# Steps (each is skipped or a no-op when already done, so running it again is safe):
#   1. .venv/ with python3.11 -m venv (override the interpreter with PYTHON=...)
#   2. the exact pins of requirements.txt (maturin, pandas, pyarrow, matplotlib, tqdm, pytest,
#      ruff and their dependencies), reinstalled only when requirements.txt changes
#   3. the Rust core built in release mode into the venv as aqmlab._core (maturin develop), and
#      the testbed binary target/release/aqmlab-testbed (`aqmlab testbed` execs it)
#   4. the quickstart run and its report (unless --no-run)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3.11}"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'setup.sh: error: %s\n' "$*" >&2; exit 1; }

run_quickstart=1
for arg in "$@"; do
    case "$arg" in
        --no-run) run_quickstart=0 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $arg (usage: ./setup.sh [--no-run])" ;;
    esac
done

cd "$ROOT"
command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs)"

# 1. Virtual environment.
if [[ ! -x "$VENV/bin/python" ]]; then
    command -v "$PYTHON" >/dev/null || die "$PYTHON not found: aqmlab needs Python 3.11"
    log "creating $VENV with $PYTHON"
    "$PYTHON" -m venv "$VENV"
fi
# shellcheck disable=SC1091
source "$VENV/bin/activate"

# 2. Pinned Python packages (a stamp of requirements.txt skips the step when nothing changed).
stamp="$VENV/.requirements.sha256"
want="$(sha256sum requirements.txt | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    log "installing the pinned Python packages (requirements.txt)"
    python -m pip install --disable-pip-version-check -q -r requirements.txt
    echo "$want" > "$stamp"
fi

# 3. The Rust core into the venv (cargo rebuilds only what changed).
log "building the Rust core in release mode (maturin develop --release)"
# (maturin lists every already-installed dependency; those lines are noise.)
maturin develop --release 2>&1 | sed '/Requirement already satisfied/d'
python -c "import aqmlab._core" || die "aqmlab._core does not import after the build"
# Byte-compile the package now, so no command compiles it at start-up (an environment with
# PYTHONDONTWRITEBYTECODE set would otherwise recompile it, ~25 ms, at every run).
python -m compileall -q python/aqmlab >/dev/null || die "python/aqmlab does not byte-compile"
log "building the testbed binary (cargo build --release -p testbed)"
cargo build --release --locked -q -p testbed --bin aqmlab-testbed \
    || die "the testbed binary (crates/testbed) does not build"

# 4. The quickstart.
if [[ "$run_quickstart" == 1 ]]; then
    log "running scenarios/quickstart.toml into runs/quickstart/"
    aqmlab run scenarios/quickstart.toml --out runs/quickstart
    log "drawing runs/quickstart/report.png"
    aqmlab report runs/quickstart --out runs/quickstart/report.png
    log "done: source .venv/bin/activate to use the aqmlab command"
fi
