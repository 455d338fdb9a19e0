#!/bin/bash
# Call 3 (session 3): compute-sanitizer over the tests no clean sanitizer run has covered to completion, one
# (tool, test) pair per job, 16 jobs at a time, the slowest first; each job's log under $OUT.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
s=$(date +%s)
if [ ! -f $BUILD/build.ninja ]; then echo "cold: building"; meson setup $BUILD > $R/setup.log 2>&1 && ninja -C $BUILD > $R/build.log 2>&1 || tail -20 $R/build.log; echo "build $(( $(date +%s) - s )) s"; fi
SOL="solution-05-add-base-64bit solution-08-kogge-stone-smem solution-12-ptx-predicated-scan solution-18-packed-status-word solution-22-sgemm-register-inner-product solution-29-split-k-reduce"
{
 for t in 38-fft-two-pass 37-fft-thread-block-cluster 18-scan-any-type-copy-bound 29-sgemm-split-k; do echo "racecheck $t"; done
 for t in 38-fft-two-pass 37-fft-thread-block-cluster 18-scan-any-type-copy-bound 29-sgemm-split-k; do echo "initcheck $t"; done
 for t in 38-fft-two-pass 37-fft-thread-block-cluster 18-scan-any-type-copy-bound; do echo "synccheck $t"; done
 for t in 38-fft-two-pass 18-scan-any-type-copy-bound; do echo "memcheck $t"; done
 for t in $SOL ncu-fixture; do echo "racecheck $t"; echo "initcheck $t"; echo "synccheck $t"; done
} > $R/jobs.txt
left=$(( ${LIMIT:-575} - ($(date +%s) - s) - 10 ))
export left R
xargs -P 16 -L 1 bash -c 'ts=$(date +%s); timeout $left meson test -C $BUILD --no-rebuild --setup $0 $1 --logbase san-$0-$1 > $R/san-$0-$1.log 2>&1; rc=$?; echo "$0 $1 rc=$rc $(( $(date +%s) - ts ))s" >> $R/summary.txt' < $R/jobs.txt
sort $R/summary.txt
for f in $BUILD/meson-logs/san-*.txt; do cp $f $R/ 2>/dev/null; done
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c3.tgz r && rm -rf r
