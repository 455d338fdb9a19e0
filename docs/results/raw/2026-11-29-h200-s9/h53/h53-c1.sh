#!/bin/bash
# Session 9, helper h53, call 1 on one H200: what holds chapter 53's stage under its mma.sync bound.
#   Build 53's program, 53-mma-sync-peak and 53-loop-ablation; the ablation at 4096^3 (the stage, then its loop with
#   one ingredient out at a time, the rows with a result checked); the bound; 53 --variant all at 4096^3; ncu:
#   per-instruction stall sampling (source page, SASS) of the stage and of the hoisted-copies row, and a few metrics
#   of every ablation row; as time allows (LIMIT, default 280 s), the ablation at 8192^3 and 53's test of it.
#   SM clocks and power are logged every 100 ms throughout (clocks.csv).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../../../../.."
B=build-h53; R=/tmp/h53c1; rm -rf $R $B; mkdir -p $R/runs $R/ncu; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { [ -n "$CLK" ] && kill $CLK 2>/dev/null; tar czf $OUT/h53c1.tgz -C /tmp h53c1; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-280} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv,noheader; meson --version | sed 's/^/meson /';
  ncu --version | tail -1; cat COMMIT 2>/dev/null; } > $R/gpu.txt
C=chapters/53-bf16-gemm-cp-async-pipeline
meson setup $B > $R/setup.log 2>&1 || { tail $R/setup.log; exit 1; }
ninja -C $B $C/53-loop-ablation $C/53-mma-sync-peak $C/53-bf16-gemm-cp-async-pipeline > $R/build.log 2>&1 ||
  { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t built
P=$B/$C
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 > $R/clocks.csv 2>&1 & CLK=$!
stamp() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> $R/phases.txt; }
stamp ablation-4096; timeout 60 $P/53-loop-ablation --budget-ms 300 > $R/runs/ablation-4096.csv 2> $R/runs/ablation-4096.err
t "ablation 4096 rc=$?"; cat $R/runs/ablation-4096.csv
stamp peak; timeout 40 $P/53-mma-sync-peak --budget-ms 200 > $R/runs/53-mma-sync-peak.txt 2>&1; t "peak rc=$?"
stamp 53-all; timeout 60 $P/53-bf16-gemm-cp-async-pipeline --variant all --budget-ms 200 --format csv --m 4096 --n 4096 --k 4096 \
  > $R/runs/53-4096.csv 2> $R/runs/53-4096.err; t "53 all rc=$?"; cut -d, -f1-8 $R/runs/53-4096.csv
stamp ncu; kill $CLK 2>/dev/null; CLK=
# Per-instruction stall sampling: the stage (gemm_multistage_kernel) and the hoisted-copies row.
for a in "stage gemm_multistage_kernel" "hoisted-copies ablation_kernel"; do
  read -r cfg kern <<< "$a"; o=$R/ncu/src-$cfg
  timeout 60 ncu --clock-control none -k regex:$kern -c 1 --import-source no --section WarpStateStats \
    --section SourceCounters --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis \
    -o $o --force-overwrite $P/53-loop-ablation --only $cfg --once > $o.log 2>&1; t "ncu source $cfg rc=$?"
  ncu -i $o.ncu-rep --page source --csv --print-source sass > $o-sass.csv 2> $o-sass.err ||
    ncu -i $o.ncu-rep --page source --csv > $o-sass.csv 2>> $o-sass.err
  ncu -i $o.ncu-rep --page raw --csv > $o-raw.csv 2>/dev/null
  t "  source page $(wc -l < $o-sass.csv) lines"
done
# A few metrics of every row (one launch each, --once).
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__cycles_active.avg,smsp__inst_executed.sum
M=$M,sm__inst_executed_pipe_tensor_op_hmma.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__warps_eligible.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active
M=$M,smsp__inst_executed_op_ldsm.sum,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed_op_branch.sum
for r in wait long_scoreboard barrier math_pipe_throttle short_scoreboard dispatch_stall not_selected branch_resolving mio_throttle selected; do
  M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
timeout 90 ncu --clock-control none -k regex:"ablation_kernel|gemm_multistage_kernel" --metrics $M --csv --page raw \
  $P/53-loop-ablation --once > $R/ncu/rows-metrics.csv 2> $R/ncu/rows-metrics.err; t "ncu rows rc=$? $(wc -l < $R/ncu/rows-metrics.csv) lines"
if [ $(left) -gt 45 ]; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 >> $R/clocks.csv 2>&1 & CLK=$!
  stamp ablation-8192; timeout $(( $(left) - 15 )) $P/53-loop-ablation --budget-ms 300 --m 8192 --n 8192 --k 8192 \
    > $R/runs/ablation-8192.csv 2> $R/runs/ablation-8192.err; t "ablation 8192 rc=$?"; cat $R/runs/ablation-8192.csv
fi
[ $(left) -gt 15 ] && { timeout 10 $P/53-loop-ablation --check > $R/runs/ablation-check.txt 2>&1; t "ablation --check rc=$?"; }
ls -la $R/ncu
t total
