#!/bin/bash
# Session 6, call 3 on one H200: tools/check as shipped, reusing call 2's fresh build (build-check): the build step
# finds nothing to do, then every test runs on the one GPU.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s6c3; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s6c3.tgz -C /tmp s6c3; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version; } > $R/gpu.txt
BUILD=build-check timeout ${CHECK_S:-570} tools/check > $R/check.log 2>&1
rc=$?; echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp build-check/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
grep -E "^tests:|FAIL|TIMEOUT|built|tested" $R/check.log | head -30
exit $rc
