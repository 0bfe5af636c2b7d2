#!/usr/bin/env bash
# Run every test of aqmlab: sets up .venv like ./setup.sh (without the quickstart run), then
#   cargo test (workspace, except the PyO3 crate, which links only inside Python),
#   cargo fmt --check, cargo clippy -D warnings, ruff check and ruff format --check (python,
#   validation, bench), pytest (including the end-to-end `engine` tests, the
#   ns-2 twin test, which needs ns-2.35: in CI, as root, the Debian package ns2 is installed, the
#   browser test of the HTML reports, which needs the Debian package chromium, installed the same
#   way, and the `slow` install test with the lowest dependency versions, which needs PyPI).
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

# The ns-2 twin tests (python/tests/test_ns2_*twin.py) compare against ns-2.35 (Debian package
# ns2, binary `ns`): skipped on a machine without it, but in CI (CI set) they fail without it,
# so install it there (as root, or through passwordless sudo) when it is missing.
if ! command -v ns >/dev/null 2>&1 && [[ -n "${CI:-}" ]]; then
    printf '==> installing the Debian package ns2 (ns-2.35) for the ns-2 twin tests\n' >&2
    export DEBIAN_FRONTEND=noninteractive
    as_root=()
    [[ "$(id -u)" == 0 ]] || as_root=(sudo -n -E)
    "${as_root[@]}" apt-get install -y -q ns2 >/dev/null \
        || { "${as_root[@]}" apt-get update -q >/dev/null && "${as_root[@]}" apt-get install -y -q ns2 >/dev/null; } \
        || printf 'test.sh: could not install ns2; the ns-2 twin tests will fail\n' >&2
fi

# The browser test of the HTML reports (python/tests/test_browser.py) needs headless Chromium
# (Debian package chromium): skipped without it, but in CI it fails, so install it there too.
if ! command -v chromium >/dev/null 2>&1 && [[ -n "${CI:-}" ]]; then
    printf '==> installing the Debian package chromium for the browser test of the reports\n' >&2
    export DEBIAN_FRONTEND=noninteractive
    as_root=()
    [[ "$(id -u)" == 0 ]] || as_root=(sudo -n -E)
    "${as_root[@]}" apt-get install -y -q chromium >/dev/null \
        || { "${as_root[@]}" apt-get update -q >/dev/null && "${as_root[@]}" apt-get install -y -q chromium >/dev/null; } \
        || printf 'test.sh: could not install chromium; the browser test will fail\n' >&2
fi

step cargo test --workspace --exclude aqmlab-py --no-fail-fast
# rustfmt and clippy come with rustup's default profile; a minimal one lacks them.
if command -v rustup >/dev/null; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
step cargo fmt --all --check
step cargo clippy --workspace --all-targets -- -D warnings
step ruff check python validation bench
step ruff format --check python validation bench
step pytest -q python/tests

if ((${#failed[@]})); then
    printf 'test.sh: FAILED: %s\n' "${failed[@]}" >&2
    exit 1
fi
echo "test.sh: all steps passed" >&2
