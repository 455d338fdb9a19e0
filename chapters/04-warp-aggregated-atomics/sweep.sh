#!/usr/bin/env bash
# Selectivity sweep for chapter 04: runs the chapter program once per selectivity with --format csv
# and prints one table of median times (ms) per variant, cudaMemcpy of the input's bytes included.
# The time, not GB/s, is compared across rows: the bytes written grow with the selectivity.
# Every run checks its output; the script stops at the first failure.
#
# usage: chapters/04-warp-aggregated-atomics/sweep.sh [BINARY] [options for the program...]
#   BINARY         default build/chapters/04-warp-aggregated-atomics/04-warp-aggregated-atomics
#   options        passed to every run, e.g. --size 2^24, --no-check, --variant global-atomic,cub
#   SELECTIVITIES  percentages to run (default "0 1 50 99 100")
#   BUDGET_MS      timing budget per variant and selectivity (default 500; the program's default is 1000)
set -euo pipefail

bin=build/chapters/04-warp-aggregated-atomics/04-warp-aggregated-atomics
if [[ $# -gt 0 && $1 != -* ]]; then
  bin=$1
  shift
fi
if [[ ! -x $bin ]]; then
  echo "sweep.sh: $bin not found or not executable (build first, or pass the binary as first argument)" >&2
  exit 2
fi
selectivities=${SELECTIVITIES:-"0 1 50 99 100"}

rows=$(mktemp)
err=$(mktemp)
trap 'rm -f "$rows" "$rows.one" "$err"' EXIT
first=1
for pct in $selectivities; do
  status=0
  "$bin" --selectivity "$pct" --format csv --budget-ms "${BUDGET_MS:-500}" "$@" >"$rows.one" 2>"$err" || status=$?
  if [[ $first == 1 ]]; then
    grep '^#' "$err" || true  # the device banner, once
    first=0
  fi
  if [[ $status != 0 ]]; then
    echo "sweep.sh: --selectivity $pct failed (exit $status):" >&2
    grep -v '^#' "$err" >&2 || true
    cat "$rows.one" >&2
    exit "$status"
  fi
  tail -n +2 "$rows.one" | sed "s/^/$pct,/" >>"$rows"  # label each row with its selectivity
done

# Columns of the csv, shifted by one for the label: 3 variant, 5 n, 8 median_ms.
awk -F, '
  {
    label = $1; variant = $3
    if (!(label in seen)) { seen[label] = 1; order[++nrows] = label; n = $5 }
    if (!(variant in vseen)) { vseen[variant] = 1; vorder[++nvariants] = variant }
    ms[label, variant] = sprintf("%.4f", $8)
  }
  END {
    printf "median ms at n = %d\n", n
    printf "%-12s", "selectivity"
    for (v = 1; v <= nvariants; ++v) printf " %23s", vorder[v]
    printf "\n"
    for (r = 1; r <= nrows; ++r) {
      label = order[r]
      printf "%-12s", label "%"
      for (v = 1; v <= nvariants; ++v) {
        cell = ((label, vorder[v]) in ms) ? ms[label, vorder[v]] : "-"
        printf " %23s", cell
      }
      printf "\n"
    }
    print "cudaMemcpy reads and writes n * 4 bytes: as much as a filter moves at 100% selectivity."
  }' "$rows"
