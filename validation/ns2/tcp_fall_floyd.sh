#!/bin/sh
# Run tcp_fall_floyd.tcl for every variant and k = 1 … 4 and print, per case, what
# crates/tcp/tests/fall_floyd.rs asserts for aqmlab: the data retransmissions as (ms, segment),
# when the window is repaired (the ACK of segment 30 reaches the sender) and cwnd/ssthresh
# (segments) just after it. ns-2 times are shifted by +50 ms: Full-TCP sends its first data with
# the handshake ACK at 100 ms, aqmlab's server answers a request and starts at 150 ms.
# DROP_BASE 16: the sender's packets are SYN (0), handshake ACK (1), then segment i is packet
# i + 1, so segment 15 is packet 16 (checked below: the dropped packets' sequence numbers).
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
for v in ${VARIANTS:-tahoe reno newreno sack}; do
  for k in 1 2 3 4; do
    (cd "$tmp" && ns "$here/tcp_fall_floyd.tcl" "$v" "$k" 16 link.tr cwnd.tr 2>/dev/null)
    awk -v v="$v" -v k="$k" -v cw="$tmp/cwnd.tr" '
      $6 != 1500 { next }
      { seg = ($11 - 1) / 1460 + 1; t = int(($2 + 0.05) * 1000 + 0.5) }
      $1 == "+" && sent[seg]++ { rtx = rtx sprintf(" (%d,%d)", t, seg) }
      $1 == "d" { dropped = dropped " " seg }
      $1 == "r" && seg <= 30 && !got[seg]++ { n++; if (n == 30) rep = $2 + 0.05 }
      END {
        while ((getline line < cw) > 0) {
          split(line, f, " ");
          # The trace prints times to 10 us: the first cwnd_ record at or after the repair
          # instant is the one that ACK produced (if it changed cwnd), else the last before.
          if (f[6] == "cwnd_") {
            if (f[1] + 0 <= rep - 5e-6 || !after) c = f[7];
            if (f[1] + 0 >= rep - 5e-6) after = 1
          } else if (f[1] + 0 <= rep + 5e-6) s = f[7]
        }
        printf "%-7s k=%d dropped:%s rtx:%s repaired=%d ms cwnd=%g ssthresh=%g\n",
               v, k, dropped, rtx, int((rep + 0.05) * 1000 + 0.5), c, s
      }' "$tmp/link.tr"
  done
done
rm -rf "$tmp"
