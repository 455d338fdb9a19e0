#!/usr/bin/env bash
# Chapter 18's measurements, one CSV per run in OUTDIR (the README's tables are filled from them):
#   variants-int32-sum-2p28.csv, variants-int32-sum-2p30.csv  every variant, CUB and cudaMemcpy, int32 sum
#   types-<type>-<op>-2p28.csv                                 the stage, CUB and cudaMemcpy, every type/operator
#   types-<type>-sum-2p30.csv                                  the same at 2^30 for the targets' int32, float, int64
#   timeline-int32-sum-2p28.txt                                where the stage's time goes (per-tile stamps)
#   types-2p28.png                                             % of cudaMemcpy per type/operator, stage and CUB
#                                                              (plot_types.py; where python3 has matplotlib)
# Usage: chapters/18-scan-any-type-copy-bound/measure.sh OUTDIR [BUILD_DIR]   (about 3 minutes on an H200)
set -euo pipefail
if [[ $# -lt 1 ]]; then echo "usage: $0 OUTDIR [BUILD_DIR]" >&2; exit 2; fi
out=$1
build=${2:-build}
prog=$build/chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
[[ -x $prog ]] || { echo "$0: $prog not built (ninja -C $build $prog)" >&2; exit 2; }
mkdir -p "$out"
budget=(--budget-ms 400)
for size in 2^28 2^30; do
  "$prog" --type int32 --op sum --size "$size" --variant all --format csv "${budget[@]}" \
    > "$out/variants-int32-sum-${size/^/p}.csv"
done
for type in int32 uint32 int64 float double; do
  for op in sum max; do
    "$prog" --type "$type" --op "$op" --size 2^28 --format csv "${budget[@]}" > "$out/types-$type-$op-2p28.csv"
  done
done
for type in int32 int64 float; do
  "$prog" --type "$type" --op sum --size 2^30 --format csv "${budget[@]}" > "$out/types-$type-sum-2p30.csv"
done
"$prog" --type int32 --op sum --size 2^28 --variant copy-bound-timeline --reps 3 > "$out/timeline-int32-sum-2p28.txt"
here=$(dirname "$0")
if python3 -c "import matplotlib" 2>/dev/null; then
  python3 "$here/plot_types.py" "$out"
else
  echo "$0: no plot (python3 has no matplotlib: python3 -m pip install matplotlib; then $here/plot_types.py $out)"
fi
echo "wrote $(ls "$out" | wc -l) files to $out"
