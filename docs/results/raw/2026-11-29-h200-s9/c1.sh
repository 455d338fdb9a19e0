#!/bin/bash
# Session 9, call 1 on one H200: the runner's --rounds and chapter 59 against cuBLAS in alternating rounds.
#   Build (fresh) the runner-rounds test, the harness's host test, 57 and 59 with their tests; run those tests (57's
#   covers the cluster kernel since its K-slice loop became tut::hopper::wgmma_slice_bf16); chapter 35's test built
#   here (sm_90) from two planted trees (the last pair of a block dropped in load_staged, then in store_staged);
#   59 at 4096^3, 6144^3, 8192^3 with every sm_90a candidate in 15 rounds (empty plan folder: the plan searches in
#   rounds too); ncu of 59's stage and cuBLAS at 6144^3 and 8192^3.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s9c1; R=/tmp/s9c1; rm -rf $R $B; mkdir -p $R/runs $R/tests $R/ncu; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s9c1.tgz -C /tmp s9c1; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-560} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader; meson --version; } > $R/gpu.txt
C=chapters
P57=$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent
P59=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
meson setup $B > $R/setup.log 2>&1 && ninja -C $B common/test_runner_rounds common/test_harness $P57 $P57-test $P59 $P59-test > $R/build.log 2>&1 ||
  { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for p in common/test_runner_rounds common/test_harness; do
  timeout 120 $B/$p > $R/tests/$(basename $p).txt 2>&1; t "$(basename $p) rc=$? $(grep -E 'test cases:' $R/tests/$(basename $p).txt)"
done
for w in load store; do
  timeout 120 devrun/p35-$w/35-fft-tuned-test --test-case='35: every tuning candidate*' > $R/tests/plant35-$w.txt 2>&1
  t "35 planted in ${w}_staged (must fail): rc=$? $(grep -E 'test cases:' $R/tests/plant35-$w.txt)"
done
V=default,bf16-gemm-split-k,bf16-gemm-tma-mbarrier,ping-pong,epilogue-prefetch
for n in 4096 6144 8192; do
  f=$R/runs/59-$n
  timeout 120 $B/$P59 --variant $V --rounds 15 --budget-ms 3000 --format csv --m $n --n $n --k $n > $f.csv 2> $f.err
  t "59 $n rc=$? $(grep -E '^# plan' $f.err | head -1)"
done
timeout 30 $B/$P59 --rounds 9 --budget-ms 900 --m 4096 --n 4096 --k 4096 > $R/runs/59-4096-table.txt 2>&1; t "59 table rc=$?"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,launch__grid_size,launch__registers_per_thread
for n in 6144 8192; do
  for v in bf16-gemm-by-shape cublas; do
    [ $(left) -gt 200 ] || break
    timeout 60 ncu --clock-control none --nvtx --nvtx-include "59-bf16-gemm-by-shape/$v/timed/" --launch-count 1 --metrics $M --csv \
      $B/$P59 --profile --variant $v --m $n --n $n --k $n > $R/ncu/ncu-$v-$n.csv 2> $R/ncu/ncu-$v-$n.err; t "ncu $v $n rc=$?"
  done
done
for p in $P57-test $P59-test; do
  [ $(left) -gt 20 ] || break
  timeout $(( $(left) - 10 )) $B/$p > $R/tests/$(basename $p).txt 2>&1; t "$(basename $p) rc=$? $(grep -E 'test cases:' $R/tests/$(basename $p).txt)"
done
t total
