#!/bin/bash
# Session 3, final call 1: tools/check as shipped at HEAD, from a fresh build directory (build-gpu), default
# options; logs to $OUT (3 files).
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH BUILD=build-gpu
cd "$(dirname "$0")/.."
rm -rf "$BUILD"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; meson --version | sed 's/^/meson /'; } | tee "$OUT/gpu.txt"
start=$(date +%s)
timeout ${CHECK_S:-575} tools/check 2>&1 | tee "$OUT/check.log"
rc=${PIPESTATUS[0]}
echo "tools/check rc=$rc wall=$(( $(date +%s) - start )) s" | tee -a "$OUT/check.log"
cp "$BUILD/meson-logs/testlog.txt" "$OUT/testlog.txt" 2>/dev/null
grep -E "^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR|SKIP)" "$OUT/check.log" | head -20
exit $rc
