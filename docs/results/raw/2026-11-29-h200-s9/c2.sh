#!/bin/bash
# Session 9, call 2 on one H200: the tuned memory-bound and SGEMM stages as they stand (issue 38), with the runner's
# --rounds where a ratio is the claim. Build 18, 27, 28, 29; chapter 18's stage against CUB and cudaMemcpy in 15
# alternating rounds: int32 sum at 2^28 and 2^30, float sum and int64 sum at 2^28; then chapter 29's 25-shape
# SGEMM sweep (shape_sweep.py: 27, 28, 29 and cuBLAS, one process per program and shape).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s9c2; R=/tmp/s9c2; rm -rf $R $B; mkdir -p $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s9c2.tgz -C /tmp s9c2; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-400} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader; meson --version; } > $R/gpu.txt
C=chapters
P18=$C/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P18 $C/27-sgemm-tuned/27-sgemm-tuned $C/28-sgemm-tile-by-shape/28-sgemm-tile-by-shape \
  $C/29-sgemm-split-k/29-sgemm-split-k > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for a in "int32 sum 2^28" "int32 sum 2^30" "float sum 2^28" "int64 sum 2^28"; do
  read -r ty op n <<< "$a"; f=$R/runs/18-$ty-$op-${n/^/p}
  timeout 90 $B/$P18 --type $ty --op $op --size $n --rounds 15 --budget-ms 3000 --format csv > $f.csv 2> $f.err
  t "18 $a rc=$? $(grep -E '^# plan' $f.err | head -1 | cut -c1-120)"
done
timeout 20 $B/$P18 --size 2^28 --rounds 9 --budget-ms 900 > $R/runs/18-int32-sum-2p28-table.txt 2>&1; t "18 table rc=$?"
timeout $(( $(left) - 5 )) python3 $C/29-sgemm-split-k/shape_sweep.py $R/sweep --build $B --budget-ms 80 > $R/sweep.log 2>&1
t "sweep rc=$? $(tail -1 $R/sweep.log)"
t total
