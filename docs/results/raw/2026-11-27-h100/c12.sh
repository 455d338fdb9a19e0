#!/bin/bash
# Call 12 (2026-11-27, third session): tools/measure-screens for chapters 18, 36, 37 and 38 (call 11's build directory
# where the machine kept it, else a fresh sm_90 build of the programs), and the 25-shape sweep if call 11 had no
# time for it (PARTS).
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
s=$(date +%s)
BUILD=$PWD/build
if [ ! -f $BUILD/build.ninja ]; then
  BUILD=/tmp/bm; meson setup $BUILD -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
  echo "fresh sm_90 build directory"
fi
timeout 585 tools/measure-screens $R/screens --build $BUILD --only ${PARTS:-18,36,37,38} > $R/screens.log 2>&1
echo "screens rc=$? in $(( $(date +%s) - s )) s"; cat $R/screens/commands.txt | cut -c1-150
cd $OUT && tar czf c12.tgz r && rm -rf r
