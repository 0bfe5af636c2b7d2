#!/bin/sh
# Run the ns-2 side of the RED-family comparison (README.md here) and summarise each run:
# drops (early / forced = all − early), the time-average of the instantaneous queue and the
# mean of RED's traced average (one sample per change, i.e. per arrival) after the 20 s warm-up.
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
for mode in red gentle ared; do
  for n in ${FLOWS:-4 20}; do
    line=$(cd "$tmp" && ns "$here/red_side_by_side.tcl" "$mode" "$n" "$tmp/tr")
    means=$(awk -v w=20 -v stop=80 '
      $1 == "Q" { if ($2 > w) { t0 = (lt < w) ? w : lt; area += lq * ($2 - t0) } lt = $2; lq = $3 }
      $1 == "a" && $2 > w { s += $3; k++ }
      END { if (lt < w) lt = w; area += lq * (stop - lt);
            printf "mean_q=%.3f mean_ave=%.3f", area / (stop - w), s / k }' "$tmp/tr")
    echo "$line $means"
  done
done
rm -rf "$tmp"
