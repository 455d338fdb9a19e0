#!/bin/bash
# Session 7, call 4 on one H200: the sanitizers on this session's new device code (chapter 59's pad_rows_kernel,
# chapter 35's twiddles per butterfly), and exercises 37 and 38 (their files changed with block_fft's enum).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s7c4; R=/tmp/s7c4; rm -rf $R $B; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s7c4.tgz -C /tmp s7c4; }
trap save EXIT; trap "exit 143" TERM
C=chapters; T59=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape-test; T35=$C/35-fft-tuned/35-fft-tuned-test
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $T59 $T35 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for tool in memcheck initcheck; do
  TUT_SANITIZER=$tool timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 --print-limit 20 $B/$T59 --test-case='*padded*' > $R/59-$tool.txt 2>&1
  t "59 padded under $tool rc=$? $(grep -E 'ERROR SUMMARY|test cases:' $R/59-$tool.txt | tr '\n' ' ')"
done
for tool in memcheck racecheck; do
  TUT_SANITIZER=$tool timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 --print-limit 20 $B/$T35 > $R/35-$tool.txt 2>&1
  t "35 under $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test cases:' $R/35-$tool.txt | tr '\n' ' ')"
done
timeout 200 python3 tools/exercise --build $B verify --ids 37-cluster-gather,38-four-step-twiddle --require-gpu > $R/exercise-verify.txt 2>&1
t "exercise verify rc=$? $(tail -1 $R/exercise-verify.txt)"
t done
