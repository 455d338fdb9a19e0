#!/bin/bash
# Session 3, call 3 (one H200): chapter 18 with PairedStatus for 8-byte values: its GPU test, then the 8-byte
# sums and maxima and the float sum at 2^28 (stage, CUB, cudaMemcpy in one process each). One tarball out.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=/tmp/b3; R=/tmp/s3c3; rm -rf $R; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s3c3.tgz -C /tmp s3c3; }
trap save EXIT
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C18=chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
ninja -C $B $C18 $C18-test > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }; t "build"
export TUT_PLAN_DIR=$R/plans
for a in "--size 2^28 --type int64" "--size 2^28 --type double" "--size 2^30 --type int64" "--size 2^28 --type double --op max" "--size 2^28 --type float"; do
  f="$R/c18${a//[ ^-]/_}"; timeout 60 $B/$C18 $a --budget-ms 300 --format csv > $f.csv 2> $f.err; t "18 $a rc=$?"; cut -d, -f2,7,8,9,14,15 $f.csv | head -6
done
timeout 200 $B/$C18-test > $R/t18.txt 2>&1; t "18 test rc=$? $(grep -m1 'test cases' $R/t18.txt)"
t total
