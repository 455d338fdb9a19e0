#!/bin/bash
# Call 1 (2026-11-27): the H100 ncu captures behind the first screens of chapters 01-04 (the same commands as
# the H200 captures of 2026-11-21; 02's rule-4 metric for the first time), then `tools/exercise verify
# --require-gpu` over all 24 exercises as shipped and their solutions (with each solution's sanitizers).
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $R/gpu.txt 2>&1
meson setup $BUILD > $R/setup.log 2>&1 || { tail -30 $R/setup.log; exit 1; }
B=$BUILD/chapters
ninja -C $BUILD chapters/01-warp-divergence/01-warp-divergence chapters/01-warp-divergence/01-warp-divergence-G \
  chapters/02-gpu-principles/02-gpu-principles-bandwidth chapters/03-vectorized-loads/03-vectorized-loads \
  chapters/04-warp-aggregated-atomics/04-warp-aggregated-atomics > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
N="ncu --clock-control none --csv"
M01=smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets_threads_divergent.sum,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__sass_inst_executed_op_branch.sum,gpu__time_duration.sum
timeout 60 $N --metrics $M01 $B/01-warp-divergence/01-warp-divergence --size 2^22 --profile > $R/ncu-01-warp-divergence.csv 2>&1; echo "01 rc=$?"
timeout 60 $N --metrics $M01 $B/01-warp-divergence/01-warp-divergence-G --size 2^22 --profile > $R/ncu-01-warp-divergence-G.csv 2>&1; echo "01-G rc=$?"
M02=smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for v in copy32-block128 copy128-block128; do
  timeout 60 $N --nvtx --nvtx-include "02-gpu-principles-bandwidth/$v/timed/" --metrics $M02 $B/02-gpu-principles/02-gpu-principles-bandwidth --profile --variant $v > $R/ncu-02-$v.csv 2>&1; echo "02 $v rc=$?"
done
M03=dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_op_global_ld.sum
for o in 0 1; do timeout 60 $N --metrics $M03 $B/03-vectorized-loads/03-vectorized-loads --size 2^26 --profile --offset $o > $R/ncu-03-offset$o.csv 2>&1; echo "03 offset $o rc=$?"; done
M04=smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum,smsp__sass_inst_executed_op_shared_atom.sum,lts__t_requests_op_atom.sum,lts__d_atomic_input_cycles_active.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum
timeout 90 $N --metrics $M04 $B/04-warp-aggregated-atomics/04-warp-aggregated-atomics --size 2^24 --profile > $R/ncu-04.csv 2>&1; echo "04 rc=$?"
echo "ncu done at $(( $(date +%s) - s )) s"
left=$(( ${LIMIT:-560} - ($(date +%s) - s) )); echo "verify gets $left s"
PYTHONUNBUFFERED=1 timeout $left python3 tools/exercise --build $BUILD verify --require-gpu > $R/exercise-verify.txt 2>&1; echo "verify rc=$? at $(( $(date +%s) - s )) s"
tail -40 $R/exercise-verify.txt
cd $OUT && tar czf c1.tgz r && rm -rf r
