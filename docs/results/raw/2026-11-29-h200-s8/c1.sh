#!/bin/bash
# Session 8, call 1 on one H200: tools/check as shipped from a fresh build directory (default options), the
# whole tree's tests, logs back in one tar.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s8c1; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s8c1.tgz -C /tmp s8c1; }
trap save EXIT; trap "exit 143" TERM
export BUILD=build-s8c1; rm -rf $BUILD
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version; git log -1 --format=%H 2>/dev/null; } > $R/gpu.txt
tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp $BUILD/meson-logs/testlog.json $R/ 2>/dev/null
tail -25 $R/check.log
grep -E '"result": "(FAIL|TIMEOUT|ERROR)"' $BUILD/meson-logs/testlog.json | python3 -c '
import json,sys
for l in sys.stdin:
    r=json.loads(l); print("FAILED:", r["name"]); print("\n".join((r.get("stdout") or "").splitlines()[-30:]))' 2>/dev/null | tail -60
