#!/bin/bash
# Session 5, call 6 on 4 x H200: tools/check as shipped from a fresh build directory, its GPU tests spread over GPUs
# 0-2; meanwhile, on GPU 3 with a build of its own, chapters 28 and 59's GPU tests under the four sanitizers (their
# test fixes after call 5).
export PATH=/usr/local/cuda/bin:$PATH BUILD=build-check PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s5c6; rm -rf $R "$BUILD" build-san; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s5c6.tgz -C /tmp s5c6; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,uuid --format=csv,noheader; meson --version | sed 's/^/meson /'; git log -1 --format=%h; } > $R/gpu.txt
export TUT_SPREAD_GPUS=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -3 | paste -sd, -)
san() {
  export CUDA_VISIBLE_DEVICES=3; unset TUT_SPREAD_GPUS
  meson setup build-san -Dgpu_archs=90 > $R/san-setup.log 2>&1 &&
    ninja -C build-san chapters/28-sgemm-tile-by-shape/28-sgemm-tile-by-shape-test chapters/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape-test > $R/san-build.log 2>&1
  t "sanitizer build rc=$?"
  for tool in memcheck synccheck initcheck racecheck; do
    timeout $(( 540 - ($(date +%s) - s) )) python3 tools/sanitize --build build-san --no-rebuild --tools $tool \
      --suite 28-sgemm-tile-by-shape --suite 59-bf16-gemm-by-shape -j 2 > $R/sanitize-$tool.txt 2>&1
    t "sanitize $tool rc=$?"; cp build-san/meson-logs/testlog-$tool.txt $R/ 2>/dev/null
  done
}
san > $R/san.log 2>&1 &
timeout ${CHECK_S:-420} tools/check > $R/check.log 2>&1
rc=$?; echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp "$BUILD/meson-logs/testlog.txt" $R/testlog.txt 2>/dev/null
grep -E "spread|^tests:|FAIL|TIMEOUT" $R/check.log | head -20
wait
cat $R/san.log; for f in $R/sanitize-*.txt; do tail -n 1 $f; done
t total
exit $rc
