#!/bin/bash
# Call 9 (2026-11-27, second session): tools/check as shipped after chapter 37's lab (a new GPU test), from a fresh build directory with
# default options and meson's default parallelism, with a limit long enough for all 94 tests.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
rm -rf $BUILD
s=$(date +%s)
timeout ${CHECK_S:-570} tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc in $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/check.log | grep -vE " OK " | head -20
grep -E "^tests:|^build|^Ok:|^Fail:" $R/check.log | tail -4
cp $BUILD/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
cd $OUT && tar czf c9.tgz r && rm -rf r
