#!/bin/bash
# Session 4, call 4 on 4 x H200: the tensor-core ladder's GPU tests (chapters 50-57) under each compute-sanitizer
# tool, one tool per GPU at once (tools/sanitize --tools T --suite CH...), on a fresh sm_90 build of those tests.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s4x5; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s4x5.tgz -C /tmp s4x5; }
trap save EXIT
B=build-san
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
CHS="50-bf16-gemm-fp32-lanes 51-bf16-gemm-wmma 52-bf16-gemm-mma-ldmatrix 53-bf16-gemm-cp-async-pipeline 54-bf16-gemm-wgmma 55-bf16-gemm-tma-mbarrier 56-bf16-gemm-warp-specialized 57-bf16-gemm-persistent"
targets=; suites=
for c in $CHS; do targets="$targets chapters/$c/$c-test"; suites="$suites --suite $c"; done
ninja -C $B $targets > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - s )) s"; grep -i "sanitizer" $R/setup.log | head -3
i=0
for tool in racecheck synccheck memcheck initcheck; do
  CUDA_VISIBLE_DEVICES=$i timeout $(( ${LIMIT:-560} - ($(date +%s) - s) )) python3 tools/sanitize --build $B --no-rebuild \
    --tools $tool $suites -j 8 > $R/sanitize-$tool.txt 2>&1 &
  i=$((i + 1))
done
wait
for tool in racecheck synccheck memcheck initcheck; do echo "== $tool"; tail -3 $R/sanitize-$tool.txt; done
cp $B/meson-logs/testlog-*.txt $R/ 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
