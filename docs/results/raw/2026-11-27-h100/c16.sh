#!/bin/bash
# Call 16 (2026-11-27, third session): chapter 16 --variant all at 2^28 (tools/measure-screens --only 16: every tile
# shape the chapter measured on the H200, now on the H100 of its first screen), fresh sm_90 build of its program,
# into the screens run's folder.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
R=$OUT/r; mkdir -p $R
s=$(date +%s)
B=/tmp/bm; meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
timeout 120 tools/measure-screens $R/screens --build $B --only 16 > $R/screens.log 2>&1
echo "screens rc=$? in $(( $(date +%s) - s )) s"; cat $R/screens/commands.txt | cut -c1-150; cut -d, -f2,7,14,15,17 $R/screens/c16-all-2p28.csv
cd $OUT && tar czf c16.tgz r && rm -rf r
