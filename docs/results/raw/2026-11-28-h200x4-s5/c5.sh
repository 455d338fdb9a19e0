#!/bin/bash
# Session 5, call 5 on 4 x H200: an sm_90 build of chapter 59 (and 58, 55, 27-29's tests), then four GPUs at once:
#   GPU 0: chapter 59's GPU test; 59 --variant all at five shapes (fresh plan folder; one shape twice, to show the
#          cached plan); ncu of 58 and 59 at 8192 x 8192 x 128 and 2048^3
#   GPU 1: the 14-shape sweep of chapter 59 (the stage, 58's and 55's stages, cuBLAS in one process per shape)
#   GPU 2: 27, 28, 29 and 59's GPU tests under memcheck, then synccheck
#   GPU 3: the same under racecheck, then initcheck
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}; R=/tmp/s5c5; rm -rf $R; mkdir -p $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s5c5.tgz -C /tmp s5c5; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-560} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; } > $R/gpu.txt
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C=chapters; P=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
targets="$P $P-test $C/58-bf16-gemm-split-k/58-bf16-gemm-split-k"
for ch in 27-sgemm-tuned 28-sgemm-tile-by-shape 29-sgemm-split-k; do targets="$targets $C/$ch/$ch-test"; done
ninja -C $B $targets > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t "build"
gpu0() {
  export CUDA_VISIBLE_DEVICES=0 TUT_PLAN_DIR=$R/plans
  timeout 240 $B/$P-test > $R/test59.txt 2>&1; t "59 test rc=$?"
  for a in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 2048 --n 2048 --k 2048" "--m 8192 --n 8192 --k 128" "--m 256 --n 256 --k 65536"; do
    local f=$R/runs/59-$(echo $a | awk '{print $2"x"$4"x"$6}')
    timeout 100 $B/$P --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "59 $a rc=$?"
  done
  timeout 60 $B/$P --m 2048 --n 2048 --k 2048 > $R/runs/59-plain-2048-cached.txt 2>&1; t "59 plain (cached) rc=$?"
  for shape in "8192 8192 128" "2048 2048 2048"; do
    read -r m n k <<< "$shape"; local o=$R/ncu-${m}x${n}x${k}
    timeout 100 tools/ncu-compare --build $B --no-build --preset tensor --chapters 58,59 --m $m --n $n --k $k \
      --out $o --csv $o/ncu-tensor.csv > $o.txt 2>&1; t "ncu $shape rc=$?"; rm -f $o/*.ncu-rep
  done
}
gpu1() {
  export CUDA_VISIBLE_DEVICES=1 TUT_PLAN_DIR=$R/plans-sweep
  SWEEP_CHAPTERS="59-bf16-gemm-by-shape" timeout 240 bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-59.csv \
    --variant bf16-gemm-by-shape,bf16-gemm-split-k,bf16-gemm-tma-mbarrier --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-59.csv)"
}
san() {
  for tool in "$@"; do
    timeout $(( $(left) - 10 )) python3 tools/sanitize --build $B --no-rebuild --tools $tool --suite 27-sgemm-tuned \
      --suite 28-sgemm-tile-by-shape --suite 29-sgemm-split-k --suite 59-bf16-gemm-by-shape -j 4 > $R/sanitize-$tool.txt 2>&1
    t "sanitize $tool rc=$?"; cp $B/meson-logs/testlog-$tool.txt $R/ 2>/dev/null
  done
}
gpu2() { export CUDA_VISIBLE_DEVICES=2; san memcheck synccheck; }
gpu3() { export CUDA_VISIBLE_DEVICES=3; san racecheck initcheck; }
gpu0 > $R/gpu0.log 2>&1 & gpu1 > $R/gpu1.log 2>&1 & gpu2 > $R/gpu2.log 2>&1 & gpu3 > $R/gpu3.log 2>&1 &
wait
cat $R/gpu*.log; for f in $R/sanitize-*.txt; do echo "== $f"; tail -n 2 $f; done; tail -n 3 $R/test59.txt
grep -E "ERROR|FATAL" $R/test59.txt | head; grep -h "plan: 59" $R/runs/*.err $R/runs/*.txt | cut -c1-220
t total
