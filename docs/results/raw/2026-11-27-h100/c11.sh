#!/bin/bash
# Call 11 (2026-11-27, third session): tools/check as shipped (the build restructure of ec951b4/2e8877e, common/fft's
# checked_signals and chapter 37's load_column/gather_row have not yet run on a GPU), fresh build directory, default
# options and meson's default parallelism; then, in the time left, the 25-shape sweep from the same build
# (tools/measure-screens --only 29).
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
rm -rf $BUILD
s=$(date +%s)
timeout ${CHECK_S:-540} tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc in $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/check.log | grep -vE " OK " | head -20
grep -E "^tests:|^build|^Ok:|^Fail:" $R/check.log | tail -4
cp $BUILD/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
left=$(( 585 - ($(date +%s) - s) ))
if [ $left -gt 120 ]; then
  timeout $left tools/measure-screens $R/screens --build $BUILD --only 29 > $R/screens-29.log 2>&1; echo "screens 29 rc=$? in $(( $(date +%s) - s )) s"
  tail -3 $R/screens-29.log | cut -c1-160
else echo "no time for the shape sweep ($left s left)"; fi
cd $OUT && tar czf c11.tgz r && rm -rf r
