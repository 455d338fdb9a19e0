#!/bin/bash
# Session 9, call 5 on one H200: 53-loop-ablation after leaving its racing row out under a sanitizer: its test
# (--check) plain and under racecheck and memcheck, from a fresh build of that target.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s9c5; R=/tmp/s9c5; rm -rf $R $B; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s9c5.tgz -C /tmp s9c5; }
trap save EXIT; trap "exit 143" TERM
P=chapters/53-bf16-gemm-cp-async-pipeline/53-loop-ablation
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
timeout 60 $B/$P --check > $R/check.txt 2>&1; t "plain rc=$?"
for tool in racecheck memcheck; do
  TUT_SANITIZER=$tool timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 --print-limit 20 $B/$P --check > $R/$tool.txt 2>&1
  t "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool.txt | tr '\n' ' ')"
done
t total
