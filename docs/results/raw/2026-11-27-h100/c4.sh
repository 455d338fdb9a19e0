#!/bin/bash
# Call 4 (2026-11-27): what call 3's limits cut. The three solution tests tools/check had not finished (05, 29,
# 31) and the four sanitizer jobs stopped at 111 s (memcheck of 27 and 29, racecheck of 29, synccheck of 24),
# from a fresh build (default options) of just those tests, the sanitizers in parallel with a longer limit.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=$PWD/build; R=$OUT/r; mkdir -p $R
s=$(date +%s)
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C=chapters
ninja -C $B $C/24-sgemm-vectorized-transposed/24-sgemm-vectorized-transposed-test $C/27-sgemm-tuned/27-sgemm-tuned-test \
  $C/29-sgemm-split-k/29-sgemm-split-k-test exercises/solution-05-add-base-64bit-test exercises/solution-29-split-k-reduce-test \
  exercises/solution-31-stockham-pass-test > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
timeout 120 meson test -C $B --no-rebuild --print-errorlogs solution-05-add-base-64bit solution-29-split-k-reduce solution-31-stockham-pass > $R/solutions.log 2>&1; echo "solutions rc=$?"; grep -E "^ *[0-9]+/3 |^Ok|^Fail" $R/solutions.log
printf "memcheck 27-sgemm-tuned\nmemcheck 29-sgemm-split-k\nracecheck 29-sgemm-split-k\nsynccheck 24-sgemm-vectorized-transposed\n" > /tmp/jobs.txt
left=$(( ${LIMIT:-470} - ($(date +%s) - s) - 5 )); echo "sanitizers get $left s"
export left R B
xargs -P 4 -L 1 bash -c 'ts=$(date +%s); timeout $left meson test -C $B --no-rebuild --setup $0 $1 --logbase san-$0-$1 > /dev/null 2>&1; rc=$?; echo "$0 $1 rc=$rc $(( $(date +%s) - ts ))s" >> $R/summary.txt' < /tmp/jobs.txt
sort $R/summary.txt
for f in $B/meson-logs/san-*.txt; do grep -v "^Inherited environment" $f | tail -c 6000 > $R/$(basename $f); done 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c4.tgz r && rm -rf r
