#!/usr/bin/env bash
# Print ns-2.35's packet sequence for the persistent-connection cases of
# crates/tcp/tests/ns2_fulltcp_persistent.rs, in the format of its fixture
# crates/tcp/tests/data/ns2_fulltcp_persistent.txt ("case RSP1 RSP2 T3_MS T4_MS", then one row per
# packet as it leaves its sender: time ms, C or S, seq, ack, payload bytes).
# usage: validation/ns2/tcp_fulltcp_persistent.sh [NS]   (default: ns)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ns="${1:-ns}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for case in "1000 5000 130 170" "2921 1461 500 550" "4381 300 260 330"; do
    read -r r1 r2 t3 t4 <<<"$case"
    echo "case $r1 $r2 $t3 $t4"
    "$ns" "$here/tcp_fulltcp_persistent.tcl" "$r1" "$r2" "$(awk -v t="$t3" 'BEGIN{print t/1000}')" \
        "$(awk -v t="$t4" 'BEGIN{print t/1000}')" "$tmp/out.tr" >/dev/null
    # trace fields with show_tcphdr_: 2 time, 3 from-node, 6 size, 11 seq, 13 ack
    awk '$1 == "-" { printf "%d %s %d %d %d\n", $2 * 1000 + 0.5, ($3 == 0) ? "C" : "S", $11, ($13 < 0) ? 0 : $13, $6 - 40 }' "$tmp/out.tr"
done
