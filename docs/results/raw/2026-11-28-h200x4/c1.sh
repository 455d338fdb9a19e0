#!/bin/bash
# Chapter 40 on one host's 4 GPUs (issue 42) and both forms on 2 of them (issue 41), then the tensor-core ladder's
# GPU tests (issue 40). sm_90 build; NVLink multicast off.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.."
R=$OUT/r; mkdir -p $R/multigpu
s=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > $R/multigpu/gpu.txt
nvidia-smi topo -m > $R/multigpu/topo.txt 2>&1
git rev-parse HEAD > $R/multigpu/commit.txt 2>/dev/null
B=build-gpu; C=chapters/40-scan-multi-gpu
meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
echo "build $(( $(date +%s) - s )) s"; cat $R/multigpu/gpu.txt
P=$B/$C/40-scan-multi-gpu
run() { local name=$1 cap=$2; shift 2; local t0=$(date +%s) left=$(( ${LIMIT:-570} - ($(date +%s) - s) ))
  [ $left -lt $cap ] && { echo "$name: skipped, $left s left"; return; }
  timeout $cap "$@" > $R/multigpu/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - t0 )) s"
  grep -E "^scan-multi-gpu|^cudaMemcpy|^[a-z-]+ +[0-9]+ +[0-9]" $R/multigpu/$name.txt | head -6 | cut -c1-150; }
t0=$(date +%s); TUT_CH40_PROGRAM=$P timeout 200 $B/$C/40-scan-multi-gpu-test > $R/multigpu/tests-40.txt 2>&1; echo "test-40 rc=$? $(( $(date +%s) - t0 )) s"; tail -4 $R/multigpu/tests-40.txt
run p1-2p30 40 $P --size 2^30 --gpus 1 --budget-ms 300
run strong4-2p30 50 $P --size 2^30 --budget-ms 300
run ranks4-2p30 60 $P --size 2^30 --ranks 4 --budget-ms 300
run weak4-2p28 50 $P --size 2^28 --weak 1 --budget-ms 300
for w in 110 120 130; do run uneven4-w$w-2p30 50 $P --size 2^30 --last-weight $w --budget-ms 300; done
run strong4-2p32 120 $P --size 2^32 --budget-ms 300
run ranks4-2p32 120 $P --size 2^32 --ranks 4 --budget-ms 300
t0=$(date +%s); timeout 200 python3 $C/measure_forms.py $R/forms-x2 --build $B > $R/forms.log 2>&1; echo "forms rc=$? $(( $(date +%s) - t0 )) s"; tail -12 $R/forms-x2/forms.md 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf x4.tgz r && rm -rf r
