#!/usr/bin/env bash
# Run the ns-2 side of the aqmlab quickstart (drop-tail) benchmark.
#
# Usage: bench/ns2/run.sh [sim_seconds=60] [seed=1] [ack_mode=delack] [warmup_seconds=0]
# (statistics cover connections arriving after the warm-up; sim_seconds is the
# whole simulated time and is what the speed figure divides by)
# Installs ns-2 (Debian package "ns2", binary "ns") if it is missing, runs
# quickstart_droptail.tcl and reports simulated seconds per wall-clock second
# and, when GNU time is present, the peak resident set size.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sim_seconds="${1:-60}"
seed="${2:-1}"
ack_mode="${3:-delack}"
warmup="${4:-0}"

if ! command -v ns >/dev/null 2>&1; then
    echo "ns not found; installing the Debian package ns2" >&2
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y ns2
fi

out="$(mktemp)"
timelog="$(mktemp)"
trap 'rm -f "$out" "$timelog"' EXIT

start_ns=$(date +%s%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$timelog" ns "$here/quickstart_droptail.tcl" "$sim_seconds" "$seed" "$ack_mode" "$warmup" >"$out"
else
    ns "$here/quickstart_droptail.tcl" "$sim_seconds" "$seed" "$ack_mode" "$warmup" >"$out"
fi
end_ns=$(date +%s%N)
cat "$out"

# wall time of the whole process (startup + topology + run), from this script
proc_wall=$(awk -v a="$start_ns" -v b="$end_ns" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
# wall time of "$ns run" only, as measured inside Tcl
run_wall=$(sed -n 's/^ns2 .*wall_seconds=\([0-9.]*\).*/\1/p' "$out")
rss_kb=""
if [ -s "$timelog" ]; then
    rss_kb=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$timelog")
fi

awk -v s="$sim_seconds" -v rw="$run_wall" -v pw="$proc_wall" -v rss="$rss_kb" 'BEGIN {
    printf "ns2_speed sim_seconds=%s run_wall_s=%s sim_s_per_wall_s=%.3f process_wall_s=%s sim_s_per_process_wall_s=%.3f", \
        s, rw, (rw > 0 ? s / rw : 0), pw, (pw > 0 ? s / pw : 0)
    if (rss != "") printf " peak_rss_kb=%s peak_rss_MiB=%.1f", rss, rss / 1024
    printf "\n"
}'
