#!/bin/bash
# Call 1 (2 x H200 of one host, 2026-11-27): chapter 40 on one and two GPUs, the runs behind its README's H200 tables,
# at today's code (the runs of 2026-11-23 were at 7926d81). sm_90 build of chapter 40 and its test; NVLink
# multicast off (NCCL_NVLS_ENABLE=0). File names as in ../2026-11-23-h200x2/multigpu/; the largest runs go
# last, each only if the call's time allows.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/../../../.."
R=$OUT/r/multigpu; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > $R/gpu.txt
nvidia-smi topo -m > $R/topo.txt 2>&1
git rev-parse HEAD > $R/commit.txt 2>/dev/null
B=/tmp/b40; C=chapters/40-scan-multi-gpu
meson setup $B -Dgpu_archs=90 > $OUT/r/setup.log 2>&1 || { tail -20 $OUT/r/setup.log; exit 1; }
ninja -C $B $C/40-scan-multi-gpu $C/40-scan-multi-gpu-test > $OUT/r/build.log 2>&1 || { tail -30 $OUT/r/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"; cat $R/gpu.txt
P=$B/$C/40-scan-multi-gpu
run() { local name=$1 cap=$2; shift 2; local t0=$(date +%s) left=$(( ${LIMIT:-560} - ($(date +%s) - s) ))
  [ $left -lt $cap ] && { echo "$name: skipped, $left s left"; return; }
  timeout $cap $P "$@" > $R/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - t0 )) s"
  grep -E "^scan-multi-gpu |^cudaMemcpy" $R/$name.txt | cut -c1-140; }
t0=$(date +%s); timeout 120 $B/$C/40-scan-multi-gpu-test > $R/tests-40.txt 2>&1; echo "test rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $R/tests-40.txt
run p1-2p28 40 --size 2^28 --gpus 1 --budget-ms 300
run p1-2p30 40 --size 2^30 --gpus 1 --budget-ms 300
run strong-2p30 50 --size 2^30 --budget-ms 300
run weak-2p28 40 --size 2^28 --weak 1 --budget-ms 300
for w in 130 142 150; do run uneven-w$w-2p30 50 --size 2^30 --last-weight $w --budget-ms 300; done
run json-2p30 50 --size 2^30 --budget-ms 300 --format json
run strong-2p32-cap150 150 --size 2^32 --budget-ms 300
run big-3x2p33 200 --size '3*2^33' --budget-ms 300
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf x2.tgz r && rm -rf r
