#!/bin/bash
# Call 15 (2026-11-27, third session): after 71f7596 (gather_row's cluster as a template parameter, for CI's sm_75
# pass): sm_90 build and GPU tests of chapters 37 (and its lab) and 38, the only code that includes the changed header.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/bt; R=$OUT/r; mkdir -p $R
s=$(date +%s)
meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C37=chapters/37-fft-thread-block-cluster; C38=chapters/38-fft-two-pass
ninja -C $B $C37/37-fft-thread-block-cluster-test $C37/lab/37-fft-cluster-exchange-lab-test $C38/38-fft-two-pass-test > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
timeout 200 meson test -C $B --no-rebuild --print-errorlogs 37-fft-thread-block-cluster 37-fft-cluster-exchange-lab 38-fft-two-pass > $R/tests.log 2>&1
echo "tests rc=$? in $(( $(date +%s) - s )) s"; grep -E "^ *[0-9]+/[0-9]+ |^(Ok|Fail|Skipped):" $R/tests.log
cp $B/meson-logs/testlog.txt $R/testlog.txt
cd $OUT && tar czf c15.tgz r && rm -rf r
