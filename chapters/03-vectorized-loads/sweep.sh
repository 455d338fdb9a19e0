#!/usr/bin/env bash
# Size sweep for chapter 03: runs the chapter program once per size with --format csv and prints one
# table of GB/s (read + write) per variant, cudaMemcpy included, from L2-resident sizes to 4 GiB per
# buffer. Every run checks its output; the script stops at the first failure.
#
# usage: chapters/03-vectorized-loads/sweep.sh [BINARY] [options for the program...]
#   BINARY     default build/chapters/03-vectorized-loads/03-vectorized-loads
#   options    passed to every run, e.g. --offset 1, --flush-l2, --no-check, --variant int4,scalar
#   SIZES      sizes to run (default every power of two from 2^16 to 2^30), e.g. SIZES="2^20 2^28"
#   BUDGET_MS  timing budget per variant and size (default 250; the program's own default is 1000)
set -euo pipefail

bin=build/chapters/03-vectorized-loads/03-vectorized-loads
if [[ $# -gt 0 && $1 != -* ]]; then
  bin=$1
  shift
fi
if [[ ! -x $bin ]]; then
  echo "sweep.sh: $bin not found or not executable (build first, or pass the binary as first argument)" >&2
  exit 2
fi
sizes=${SIZES:-"2^16 2^17 2^18 2^19 2^20 2^21 2^22 2^23 2^24 2^25 2^26 2^27 2^28 2^29 2^30"}

rows=$(mktemp)
err=$(mktemp)
trap 'rm -f "$rows" "$rows.one" "$err"' EXIT
first=1
for size in $sizes; do
  status=0
  "$bin" --size "$size" --format csv --budget-ms "${BUDGET_MS:-250}" "$@" >"$rows.one" 2>"$err" || status=$?
  if [[ $first == 1 ]]; then
    grep '^#' "$err" || true  # the device banner, once
    first=0
  fi
  if [[ $status != 0 ]]; then
    echo "sweep.sh: --size $size failed (exit $status):" >&2
    grep -v '^#' "$err" >&2 || true
    cat "$rows.one" >&2
    exit "$status"
  fi
  tail -n +2 "$rows.one" | sed "s/^/$size,/" >>"$rows"  # label each row with the size as given
done

# Columns of the csv, shifted by one for the label: 3 variant, 5 n, 6 bytes, 12 gbps.
awk -F, '
  {
    label = $1; variant = $3
    if (!(label in seen)) { seen[label] = 1; order[++nsizes] = label; n[label] = $5; bytes[label] = $6 }
    if (!(variant in vseen)) { vseen[variant] = 1; vorder[++nvariants] = variant }
    gbps[label, variant] = sprintf("%.1f", $12)
  }
  END {
    printf "%-8s %12s %10s", "size", "n", "MiB moved"
    for (v = 1; v <= nvariants; ++v) printf " %14s", vorder[v]
    printf "\n"
    for (s = 1; s <= nsizes; ++s) {
      label = order[s]
      printf "%-8s %12d %10.1f", label, n[label], bytes[label] / 1048576
      for (v = 1; v <= nvariants; ++v) {
        cell = ((label, vorder[v]) in gbps) ? gbps[label, vorder[v]] : "-"
        printf " %14s", cell
      }
      printf "\n"
    }
    print "GB/s = (bytes read + bytes written) / median time of each variant; cudaMemcpy copies the same bytes."
  }' "$rows"
