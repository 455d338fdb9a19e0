#!/bin/bash
# Call 13 (2026-11-27, third session): chapter 40 on one GPU, --variant all at 2^28 and 2^30 (tools/measure-screens
# --only 40), fresh sm_90 build of its program; the other parts of the screens ran in calls 11 and 12.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
s=$(date +%s)
B=/tmp/bm; meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
timeout 400 tools/measure-screens $R/screens --build $B --only 40 > $R/screens.log 2>&1
echo "screens rc=$? in $(( $(date +%s) - s )) s"; cat $R/screens/commands.txt | cut -c1-150
grep -E "^(scan|cudaMemcpy)" $R/screens/c40-*.txt | cut -c1-150
cd $OUT && tar czf c13.tgz r && rm -rf r
