#!/bin/bash
# Session 4, last call on 4 x H200: tools/check as shipped from a fresh build directory (default options; the
# GPU tests spread over the four GPUs), then the tensor ladder's 14-shape sweep of chapters 55 and 57 on GPU 0
# with that build. One tarball out.
set -o pipefail
export PATH=/usr/local/cuda/bin:$PATH BUILD=build-check PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s4x4; rm -rf $R "$BUILD"; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s4x4.tgz -C /tmp s4x4; }
trap save EXIT
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version | sed 's/^/meson /'; } > $R/gpu.txt
timeout ${CHECK_S:-430} tools/check > $R/check.log 2>&1
rc=$?; echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp "$BUILD/meson-logs/testlog.txt" $R/testlog.txt 2>/dev/null
grep -E "spread|^tests:|FAIL|TIMEOUT" $R/check.log | head -20
left=$(( ${LIMIT:-560} - ($(date +%s) - s) ))
if [ $left -gt 90 ]; then
  CUDA_VISIBLE_DEVICES=0 SWEEP_CHAPTERS="55-bf16-gemm-tma-mbarrier 57-bf16-gemm-persistent" timeout $(( left - 15 )) \
    bash chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $BUILD $R/sweep-55-57.csv --budget-ms 100 > $R/sweep.log 2>&1
  echo "sweep rc=$? rows $(wc -l < $R/sweep-55-57.csv) $(( $(date +%s) - s )) s"
fi
exit $rc
