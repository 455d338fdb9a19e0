#!/bin/bash
# Session 4, call 1 on 4 x H200: the sm_90 build of the tree (kept for call 2 on the warm machine), then chapter
# 40's runs that issue 42 still lacks: the largest size that fits on four GPUs, the rank form at 2^32, the
# uneven split at the theoretical weight 142; the strong rows again for one same-commit table. One tarball out.
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s4x1; rm -rf $R; mkdir -p $R/multigpu; s=$(date +%s)
save() { tar czf $OUT/s4x1.tgz -C /tmp s4x1; }
trap save EXIT
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > $R/multigpu/gpu.txt
nvidia-smi topo -m > $R/multigpu/topo.txt 2>&1
echo "${COMMIT:-unknown}" > $R/multigpu/commit.txt
B=build-gpu; C=chapters/40-scan-multi-gpu
meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
echo "build $(( $(date +%s) - s )) s"; cat $R/multigpu/gpu.txt
P=$B/$C/40-scan-multi-gpu
run() { local name=$1 cap=$2; shift 2; local t0=$(date +%s) left=$(( ${LIMIT:-580} - ($(date +%s) - s) ))
  [ $left -lt $cap ] && { echo "$name: skipped, $left s left"; return 1; }
  timeout $cap "$@" > $R/multigpu/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 )) s"
  grep -E "^scan-multi-gpu|does not fit|^[0-9] +[0-9*^]+ " $R/multigpu/$name.txt | head -8 | cut -c1-170; return $rc; }
run strong4-2p30 60 $P --size 2^30 --budget-ms 300
run strong4-2p32 120 $P --size 2^32 --budget-ms 300
run uneven4-w142-2p30 50 $P --size 2^30 --last-weight 142 --budget-ms 300
run ranks4-2p32 150 $P --size 2^32 --ranks 4 --budget-ms 300
# The largest: 2^36 int32 is 2^34 per GPU, 128 GiB in + out, against ~132 GiB usable (95% of free, 1 GiB kept);
# if the program says it does not fit, 15*2^32 (120 GiB per GPU).
run largest4-2p36 200 $P --size 2^36 --budget-ms 300
grep -qE "^4 +2\^36 .* ok" $R/multigpu/largest4-2p36.txt || run largest4-15x2p32 200 $P --size '15*2^32' --budget-ms 300
echo "total $(( $(date +%s) - s )) s"
