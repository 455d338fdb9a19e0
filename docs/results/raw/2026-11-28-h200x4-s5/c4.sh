#!/bin/bash
# Session 5, call 4: why chapter 29's GPU test fails under compute-sanitizer (call 3): its output under memcheck and
# synccheck, and the same test at the commit before the reduction's groups (git stash of nothing: the tree as is).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s5c4; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s5c4.tgz -C /tmp s5c4; }
trap save EXIT; trap "exit 143" TERM
B=build-san
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B chapters/29-sgemm-split-k/29-sgemm-split-k-test > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"
T=$B/chapters/29-sgemm-split-k/29-sgemm-split-k-test
CUDA_VISIBLE_DEVICES=0 TUT_SANITIZER=memcheck timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 --print-limit 20 --leak-check full $T > $R/memcheck.txt 2>&1 &
CUDA_VISIBLE_DEVICES=1 TUT_SANITIZER=synccheck timeout 200 compute-sanitizer --tool synccheck --error-exitcode 1 --print-limit 20 $T > $R/synccheck.txt 2>&1 &
CUDA_VISIBLE_DEVICES=2 TUT_SANITIZER=memcheck timeout 200 $T > $R/plain-with-env.txt 2>&1 &
wait
for f in $R/*.txt; do echo "== $f"; grep -E "ERROR|error|Invalid|FAILED|test cases|========= [A-Z]" $f | head -12; done
echo "total $(( $(date +%s) - s )) s"
