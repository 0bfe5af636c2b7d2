#!/bin/bash
# Paired timing of the SACK cases (issue 32 item 6): two builds of `aqmlab-bench`, every variant
# of bench/sack/droptail.toml and bench/sack/pie.toml, alternating in each round
# (bench/paired.py custom: one warm-up round, medians, whole processes, load average printed).
#
#   bench/sack/paired.sh BEFORE_BIN AFTER_BIN [ROUNDS_DROPTAIL=5] [ROUNDS_PIE=3] [OUTDIR=bench/results]
#
# BEFORE_BIN / AFTER_BIN: `target/release/aqmlab-bench` of each build, copied aside (the binary
# reads the scenarios from the checkout it was built in). The reference of the printed ratios
# is the after build's NewReno; every sample is in OUTDIR/<UTC>-paired-sack-<case>.json.
# PYTHON: the interpreter (default .venv/bin/python of the checkout).
set -euo pipefail
before=$1 after=$2 r_dt=${3:-5} r_pie=${4:-3} out=${5:-bench/results}
py=${PYTHON:-.venv/bin/python}
stamp=$(date -u +%Y-%m-%dT%H%MZ)
for case in droptail pie; do
  rounds=$r_dt
  [ "$case" = pie ] && rounds=$r_pie
  args=()
  for side in before after; do
    bin=$before
    [ "$side" = after ] && bin=$after
    for v in cubic sack cubic_sack linux newreno; do
      [ "$side/$v" = after/newreno ] && continue
      args+=(--cmd "${side}_$v=$bin --no-records bench/sack/$case.toml:$v")
    done
  done
  args+=(--cmd "after_newreno=$after --no-records bench/sack/$case.toml:newreno")
  "$py" bench/paired.py custom --rounds "$rounds" --json "$out/$stamp-paired-sack-$case.json" \
    "${args[@]}" | tee "$out/$stamp-paired-sack-$case.txt"
done
