#!/bin/bash
# Session 9, call 3 on one H200: tools/check as shipped from a fresh build directory (default options), the whole
# tree's tests (call 4 reuses its build directory while the machine is warm).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s9c3; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s9c3.tgz -C /tmp s9c3; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-580} - ($(date +%s) - s) )); }
export BUILD=build-s9c3; rm -rf $BUILD
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version; } > $R/gpu.txt
tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp $BUILD/meson-logs/testlog.json $R/ 2>/dev/null
tail -8 $R/check.log
grep -E '"result": "(FAIL|TIMEOUT|ERROR)"' $BUILD/meson-logs/testlog.json | python3 -c '
import json,sys
for l in sys.stdin:
    r=json.loads(l); print("FAILED:", r["name"]); print("\n".join((r.get("stdout") or "").splitlines()[-30:]))' 2>/dev/null | tail -60
echo "[$(( $(date +%s) - s )) s] total"
