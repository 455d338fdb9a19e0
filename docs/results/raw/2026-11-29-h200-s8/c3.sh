#!/bin/bash
# Session 8, call 3 on one H200: chapter 35's new short-length candidates (staged 16-byte runs, per-thread to 64)
# merged: the GPU tests of 35-38 (35's plan reaches 36-38's short lengths), 35's new cases under memcheck and
# racecheck, and chapter 38's stage at N = 2^3 .. 2^10 (the lengths whose plan changed), an empty plan folder.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s8c3; R=/tmp/s8c3; rm -rf $R $B; mkdir -p $R/tests $R/sweep38; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s8c3.tgz -C /tmp s8c3; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-250} - ($(date +%s) - s) )); }
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > $R/gpu.txt
C=chapters; P35=$C/35-fft-tuned/35-fft-tuned; P36=$C/36-fft-one-block-large/36-fft-one-block-large
P37=$C/37-fft-thread-block-cluster/37-fft-thread-block-cluster; P38=$C/38-fft-two-pass/38-fft-two-pass
TESTS="$P35-test $P35-launch-checks $P36-test $P37-test $P38-test $P38-launch-checks"
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P38 $TESTS > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for tb in $TESTS; do (timeout 170 $B/$tb > $R/tests/$(basename $tb).txt 2>&1; echo "rc=$?" >> $R/tests/$(basename $tb).txt) & done; wait
for tb in $TESTS; do n=$(basename $tb); t "$n $(tail -1 $R/tests/$n.txt) $(grep -E 'test cases:' $R/tests/$n.txt | tail -1)"; done
for tool in memcheck racecheck; do
  TUT_SANITIZER=$tool timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 --print-limit 20 $B/$P35-test \
    --test-case='*16-byte candidates*,*N = 8 and 16*' > $R/tests/35-$tool.txt 2>&1
  t "35 16-byte cases under $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases:' $R/tests/35-$tool.txt | tr '\n' ' ')"
done
export TUT_PLAN_DIR=$R/plans-sweep
for e in $(seq 3 10); do
  [ $(left) -gt 10 ] || break
  n=$((1 << e)); timeout 30 $B/$P38 --format csv --budget-ms 100 --length $n > $R/sweep38/38-$n.csv 2> $R/sweep38/38-$n.err
done; t "38 at 2^3..2^10"
t total
