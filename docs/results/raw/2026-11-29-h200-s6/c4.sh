#!/bin/bash
# Session 6, call 4 on one H200: chapters 57 (the ping-pong candidate) and 59 (three candidates) under the four
# compute-sanitizer tools, with call 2's build (build-check).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s6c4; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s6c4.tgz -C /tmp s6c4; }
trap save EXIT; trap "exit 143" TERM
for tool in memcheck synccheck racecheck initcheck; do
  timeout $(( 420 - ($(date +%s) - s) )) python3 tools/sanitize --build build-check --no-rebuild --tools $tool \
    --suite 57-bf16-gemm-persistent --suite 59-bf16-gemm-by-shape -j 2 > $R/sanitize-$tool.txt 2>&1
  echo "[$(( $(date +%s) - s )) s] sanitize $tool rc=$?"; tail -n 3 $R/sanitize-$tool.txt
  cp build-check/meson-logs/testlog-$tool.txt $R/ 2>/dev/null
done
