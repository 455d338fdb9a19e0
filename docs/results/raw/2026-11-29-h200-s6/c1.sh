#!/bin/bash
# Session 6, call 1 on one H200, from a clean export of 11696e4 plus chapter 53's new mma.sync peak program:
#   the mma.sync bound (53-mma-sync-peak); chapter 59 --variant all at 4096^3, 6144^3, 8192^3 and under --sms 92 at
#   4096^3; ncu of chapter 53 (full set) and 52/53 tensor preset at 4096^3; chapter 29's stage at 4096^3, 8192^3.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/src"
R=/tmp/s6c1; rm -rf $R b; mkdir -p $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s6c1.tgz -C /tmp s6c1; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; meson --version | sed 's/^/meson /'; git -C .. log -1 --format=%h 2>/dev/null; } > $R/gpu.txt
meson setup b > $R/setup.log 2>&1 || { tail $R/setup.log; exit 1; }
C=chapters
ninja -C b $C/53-bf16-gemm-cp-async-pipeline/53-mma-sync-peak $C/53-bf16-gemm-cp-async-pipeline/53-bf16-gemm-cp-async-pipeline \
  $C/52-bf16-gemm-mma-ldmatrix/52-bf16-gemm-mma-ldmatrix $C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape \
  $C/29-sgemm-split-k/29-sgemm-split-k > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
P53=b/$C/53-bf16-gemm-cp-async-pipeline
timeout 60 $P53/53-mma-sync-peak --budget-ms 300 > $R/runs/53-mma-sync-peak.txt 2>&1; t "peak rc=$?"; cat $R/runs/53-mma-sync-peak.txt
timeout 30 $P53/53-mma-sync-peak --check > $R/runs/53-mma-sync-peak-check.txt 2>&1; t "peak --check rc=$?"
P59=b/$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
export TUT_PLAN_DIR=$R/plans
for n in 6144 4096 8192; do
  timeout 120 $P59 --variant all --budget-ms 200 --format csv --m $n --n $n --k $n > $R/runs/59-${n}.csv 2> $R/runs/59-${n}.err; t "59 $n rc=$?"
done
timeout 120 $P59 --variant all --budget-ms 200 --format csv --sms 92 --m 4096 --n 4096 --k 4096 > $R/runs/59-4096-sms92.csv 2> $R/runs/59-4096-sms92.err; t "59 sms92 rc=$?"
P29=b/$C/29-sgemm-split-k/29-sgemm-split-k
for n in 4096 8192; do
  timeout 60 $P29 --budget-ms 300 --format csv --m $n --n $n --k $n > $R/runs/29-${n}.csv 2> $R/runs/29-${n}.err; t "29 $n rc=$?"
done
mkdir -p $R/ncu
timeout 120 ncu --clock-control none --nvtx --nvtx-include "53-bf16-gemm-cp-async-pipeline/bf16-cp-async-pipeline/timed/" \
  --launch-count 1 --set full -o $R/ncu/53-full --force-overwrite $P53/53-bf16-gemm-cp-async-pipeline --profile \
  --variant bf16-cp-async-pipeline --m 4096 --n 4096 --k 4096 > $R/ncu/53-full.log 2>&1; t "ncu full rc=$?"
ncu --import $R/ncu/53-full.ncu-rep --page details --csv > $R/ncu/53-full-details.csv 2>/dev/null
ncu --import $R/ncu/53-full.ncu-rep --page raw --csv > $R/ncu/53-full-raw.csv 2>/dev/null
ls -la $R/ncu
t total
