#!/bin/bash
# Session 8, call 2 on one H200: the merged helpers' work and the first screens.
#   Build 53, 57, 59, 36-38 (and exercise 53's solution); the GPU tests of 53, 57, 59, exercise 53's solution;
#   57's epilogue case under memcheck; 53 --variant all at 4096^3 and 8192^3; 59 --variant all at 4096^3, 6144^3,
#   8192^3 (empty plan folder); 38 --variant all at 2^20; ncu: 52/53 tensor preset at 4096^3; as time allows
#   (LIMIT, default 540 s), FFT preset for 36 (16384), 37 (65536), 38 (2^20) and 59's 14-shape sweep (the stage
#   and cuBLAS).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s8c2; R=/tmp/s8c2; rm -rf $R $B; mkdir -p $R/runs $R/tests $R/ncu; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s8c2.tgz -C /tmp s8c2; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-540} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; meson --version; git log -1 --format=%H; } > $R/gpu.txt
C=chapters
P53=$C/53-bf16-gemm-cp-async-pipeline/53-bf16-gemm-cp-async-pipeline
P57=$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent
P59=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
P36=$C/36-fft-one-block-large/36-fft-one-block-large; P37=$C/37-fft-thread-block-cluster/37-fft-thread-block-cluster
P38=$C/38-fft-two-pass/38-fft-two-pass; S53=exercises/solution-53-cp-async-wait-depth-test
P52=$C/52-bf16-gemm-mma-ldmatrix/52-bf16-gemm-mma-ldmatrix
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P53 $P53-test $P57 $P57-test $P59 $P59-test $P36 $P37 $P38 $S53 $P52 > $R/build.log 2>&1 ||
  { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for p in $P53-test $P57-test $P59-test $S53; do
  timeout 200 $B/$p > $R/tests/$(basename $p).txt 2>&1; t "$(basename $p) rc=$? $(grep -E 'test cases:' $R/tests/$(basename $p).txt)"
done
for a in "4096 4096 4096" "8192 8192 8192"; do
  read -r m n k <<< "$a"; f=$R/runs/53-$m
  timeout 90 $B/$P53 --variant all --budget-ms 150 --format csv --m $m --n $n --k $k > $f.csv 2> $f.err; t "53 $a rc=$?"
done
for a in "4096 4096 4096" "6144 6144 6144" "8192 8192 8192"; do
  read -r m n k <<< "$a"; f=$R/runs/59-$m
  timeout 90 $B/$P59 --variant all --budget-ms 150 --format csv --m $m --n $n --k $k > $f.csv 2> $f.err; t "59 $a rc=$?"
done
timeout 60 $B/$P38 --variant all --budget-ms 100 --length 1048576 --format csv > $R/runs/38-1048576.csv 2> $R/runs/38-1048576.err; t "38 rc=$?"
TUT_SANITIZER=memcheck timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 --print-limit 20 $B/$P57-test --test-case='*epilogue*' > $R/tests/57-epilogue-memcheck.txt 2>&1
t "57 epilogue memcheck rc=$? $(grep -E 'ERROR SUMMARY|test cases:' $R/tests/57-epilogue-memcheck.txt | tr '\n' ' ')"
o=$R/ncu/tc; timeout 120 python3 tools/ncu-compare --build $B --no-build --preset tensor --chapters 52,53 --m 4096 --n 4096 --k 4096 \
  --out $o --csv $R/ncu/ncu-tensor.csv > $R/ncu/ncu-tensor.txt 2>&1; t "ncu tensor rc=$?"; rm -rf $o
for a in "36 16384" "37 65536" "38 1048576"; do
  [ $(left) -gt 40 ] || break
  read -r ch n <<< "$a"; o=$R/ncu/fft$ch
  timeout 90 python3 tools/ncu-compare --build $B --no-build --preset fft --chapters $ch --length $n --out $o \
    --csv $R/ncu/ncu-fft$ch.csv > $R/ncu/ncu-fft$ch.txt 2>&1; t "ncu fft $ch rc=$?"; rm -rf $o
done
if [ $(left) -gt 100 ]; then
  TUT_PLAN_DIR=$R/plans-sweep SWEEP_CHAPTERS="59-bf16-gemm-by-shape" timeout $(( $(left) - 5 )) bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-59.csv \
    --variant bf16-gemm-by-shape --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-59.csv)"
fi
t total
