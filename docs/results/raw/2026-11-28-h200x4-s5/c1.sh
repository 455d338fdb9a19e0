#!/bin/bash
# Session 5, call 1 on 4 x H200: an sm_90 build of chapters 53-58, then four GPUs at once, one job each:
#   GPU 0: chapter 58's GPU test, then 57's (the Watchdog moved to common/hopper/hopper_testing.cuh)
#   GPU 1: the 14-shape sweep of chapter 58 (the stage, split-k-never, 57, 55, cuBLAS in one process per shape)
#   GPU 2: 58 --variant all at 4096^3, 8192^3, 6144^3, 256x256x65536; 53-56's programs as shipped; ncu 57 vs 58
#   GPU 3: chapter 58's planted bugs, in a build directory of its own
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}; R=/tmp/s5c1; rm -rf $R; mkdir -p $R/plants $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s5c1.tgz -C /tmp s5c1; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; git log -1 --format=%h 2>/dev/null; } > $R/gpu.txt
[ -f $B/build.ninja ] || meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C=chapters
T58=$C/58-bf16-gemm-split-k/58-bf16-gemm-split-k-test; T57=$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent-test
targets="$T58 $T57 $C/58-bf16-gemm-split-k/58-bf16-gemm-split-k $C/58-bf16-gemm-split-k/58-bf16-gemm-split-k-schedule-test"
for ch in 53-bf16-gemm-cp-async-pipeline 54-bf16-gemm-wgmma 55-bf16-gemm-tma-mbarrier 56-bf16-gemm-warp-specialized 57-bf16-gemm-persistent; do
  targets="$targets $C/$ch/$ch"; done
ninja -C $B $targets > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t "build"
$B/$C/58-bf16-gemm-split-k/58-bf16-gemm-split-k-schedule-test > $R/schedule-test.txt 2>&1; t "schedule test rc=$?"
gpu0() {
  export CUDA_VISIBLE_DEVICES=0
  timeout 300 $B/$T58 > $R/test58.txt 2>&1; t "58 test rc=$?"
  timeout 200 $B/$T57 > $R/test57.txt 2>&1; t "57 test rc=$?"
}
gpu1() {
  export CUDA_VISIBLE_DEVICES=1
  SWEEP_CHAPTERS="58-bf16-gemm-split-k" timeout 330 bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-58.csv \
    --variant bf16-gemm-split-k,split-k-never,bf16-gemm-persistent,bf16-gemm-tma-mbarrier --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-58.csv)"
}
gpu2() {
  export CUDA_VISIBLE_DEVICES=2; local P=$B/$C/58-bf16-gemm-split-k/58-bf16-gemm-split-k
  for a in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 6144 --n 6144 --k 6144" "--m 256 --n 256 --k 65536"; do
    local f=$R/runs/58-$(echo $a | awk '{print $2"x"$4"x"$6}')
    timeout 100 $P --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "58 $a rc=$?"
  done
  timeout 30 $P --m 64 --n 64 --k 131072 > $R/runs/58-plain-64x64x131072.txt 2>&1; t "58 plain rc=$?"
  for ch in 53-bf16-gemm-cp-async-pipeline 54-bf16-gemm-wgmma 55-bf16-gemm-tma-mbarrier 56-bf16-gemm-warp-specialized 57-bf16-gemm-persistent; do
    timeout 60 $B/$C/$ch/$ch --budget-ms 50 > $R/runs/$ch.txt 2>&1; t "$ch rc=$?"
  done
  timeout 150 tools/ncu-compare --build $B --no-build --preset tensor --chapters 57,58 --m 256 --n 256 --k 65536 \
    --out $R/ncu-k --csv $R/ncu-k/ncu-tensor.csv > $R/ncu-k.txt 2>&1; t "ncu K-heavy rc=$?"; rm -f $R/ncu-k/*.ncu-rep
}
plant() {
  local name=$1 file=$2 expr=$3 target=$4 why=$5 PB=build-plant
  [ -f $PB/build.ninja ] || meson setup $PB -Dgpu_archs=90 > $R/plants/setup.log 2>&1
  cp "$file" "$R/plants/orig-$name"; sed -i "$expr" "$file"; diff -u "$R/plants/orig-$name" "$file" > $R/plants/$name.diff
  [ -s $R/plants/$name.diff ] || echo "plant $name: the sed changed nothing" >> $R/plants/plants.txt
  ninja -C $PB $target > $R/plants/build-$name.log 2>&1; local brc=$?
  cp "$R/plants/orig-$name" "$file"; touch "$file"
  CUDA_VISIBLE_DEVICES=3 timeout 150 $PB/$target > $R/plants/$name.txt 2>&1; local rc=$?
  echo "plant $name ($why): build rc=$brc, test rc=$rc $( [ $rc -ne 0 ] && echo FAILS-as-wanted || echo PASSED-the-plant-went-unseen) $(grep -m1 -E 'test cases' $R/plants/$name.txt)" >> $R/plants/plants.txt
}
gpu3() {
  local D=$C/58-bf16-gemm-split-k
  plant 58-reduce-drops-last-split $D/gemm_split_k.cuh 's/(m) \* n, plan.splits, partials,/(m) * n, plan.splits - 1, partials,/' \
    $T58 "the reduction adds all but the last split"
  plant 58-last-range-short $D/split_k_schedule.hpp 's/range_start(split), range_start(split + 1)};/range_start(split), range_start(split + 1) - (split + 1 == plan.splits)};/' \
    $T58 "the last K range of each tile stops one slice early"
  plant 58-one-workspace-slice $D/gemm_split_k.cuh 's/workspace + static_cast<std::size_t>(u.split) \* m \* n/workspace/' \
    $T58 "every split stores into the workspace's first slice"
}
gpu0 > $R/gpu0.log 2>&1 & gpu1 > $R/gpu1.log 2>&1 & gpu2 > $R/gpu2.log 2>&1 & gpu3 > $R/gpu3.log 2>&1 &
wait
cat $R/gpu*.log; cat $R/plants/plants.txt; tail -3 $R/test58.txt $R/test57.txt
grep -E "FAILED|ERROR|error" $R/test58.txt | head -10
t total
