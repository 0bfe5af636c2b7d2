#!/usr/bin/env bash
# Run every test of aqmlab: sets up .venv like ./setup.sh (without the quickstart run), then
#   cargo test (workspace, except the PyO3 crate, which links only inside Python),
#   cargo clippy -D warnings, ruff check, pytest (including the end-to-end `engine` tests).
# Every step runs even if an earlier one failed; the exit status is non-zero if any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

"$ROOT/setup.sh" --no-run
# shellcheck disable=SC1091
source "$ROOT/.venv/bin/activate"

failed=()
step() {
    printf '==> %s\n' "$*" >&2
    if ! "$@"; then
        failed+=("$*")
    fi
}

step cargo test --workspace --exclude aqmlab-py --no-fail-fast
step cargo clippy --workspace --all-targets -- -D warnings
step ruff check python
step pytest -q python/tests

if ((${#failed[@]})); then
    printf 'test.sh: FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "test.sh: all steps passed" >&2
