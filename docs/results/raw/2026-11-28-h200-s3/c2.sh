#!/bin/bash
# Session 3, call 2 (one H200): chapter 18 with the shorter ordered fold: its GPU test, then the float, int32 and
# int64 sums at 2^28 and float at 2^30 (stage, CUB, cudaMemcpy in one process each). One tarball out.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=/tmp/b2; R=/tmp/s3c2; rm -rf $R; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s3c2.tgz -C /tmp s3c2; }
trap save EXIT
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C18=chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
ninja -C $B $C18 $C18-test > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }; t "build"
export TUT_PLAN_DIR=$R/plans
for a in "--size 2^28 --type float" "--size 2^30 --type float" "--size 2^28" "--size 2^28 --type int64" "--size 2^28 --type double"; do
  f="$R/c18${a//[ ^-]/_}"; timeout 60 $B/$C18 $a --budget-ms 300 --format csv > $f.csv 2> $f.err; t "18 $a rc=$?"; cut -d, -f2,7,8,9,14,15 $f.csv | head -6
done
timeout 200 $B/$C18-test > $R/t18.txt 2>&1; t "18 test rc=$? $(grep -m1 'test cases' $R/t18.txt)"
t total
