#!/usr/bin/env bash
# Run the ns-2 half of the PI/REM side-by-side (README.md, section "PI and REM") for seeds
# 1..3: PI, REM with mean_pktsize 1500 B, REM with ns-2's default 1000 B.
# Installs the Debian package ns2 if `ns` is missing.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v ns >/dev/null; then
    apt-get install -y ns2 >/dev/null
fi
for seed in 1 2 3; do
    ns pi_rem_side_by_side.tcl pi 20 60 180 "$seed"
    ns pi_rem_side_by_side.tcl rem 20 60 180 "$seed" 1500
    ns pi_rem_side_by_side.tcl rem 20 60 180 "$seed" 1000
done
