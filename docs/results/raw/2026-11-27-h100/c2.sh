#!/bin/bash
# Call 2 (2026-11-27): measurements for issue-26's off switches and chapter 29's occupancy fix, sm_90 build of the
# SGEMM chapters only: chapter 24 --variant all (the stage, scalar global accesses, A untransposed) with ncu of each;
# chapter 27's stage against its two off switches (one barrier, copy plan) and cuBLAS at 4096^3 and 8192^3, with
# ncu at 4096^3; the 25-shape sweep of chapters 27-29 (shape_sweep.py) at the new model.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/bm; R=$OUT/r; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C=chapters
ninja -C $B $C/24-sgemm-vectorized-transposed/24-sgemm-vectorized-transposed $C/27-sgemm-tuned/27-sgemm-tuned \
  $C/28-sgemm-tile-by-shape/28-sgemm-tile-by-shape $C/29-sgemm-split-k/29-sgemm-split-k > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
P24=$B/$C/24-sgemm-vectorized-transposed/24-sgemm-vectorized-transposed
P27=$B/$C/27-sgemm-tuned/27-sgemm-tuned
timeout 60 $P24 --variant all --budget-ms 300 --format csv > $R/c24-all.csv 2>$R/c24-all.err; echo "24 rc=$?"; cut -d, -f1-4,12-16 $R/c24-all.csv | head -8
V27=sgemm-tuned,${V27_OFF:-tuned-two-barriers,tuned-no-copy-plan},cublas
for n in 4096 8192; do timeout 90 $P27 --size $n --variant $V27 --budget-ms 300 --format csv > $R/c27-off-$n.csv 2>$R/c27-off-$n.err; echo "27 n=$n rc=$?"; cut -d, -f1-4,12-16 $R/c27-off-$n.csv | head -6; done
echo "timings done at $(( $(date +%s) - s )) s"
timeout ${SWEEP_S:-320} python3 chapters/29-sgemm-split-k/shape_sweep.py $R/shapes --build $B > $R/shapes.log 2>&1; echo "sweep rc=$? at $(( $(date +%s) - s )) s"; tail -4 $R/shapes.log | cut -c1-160
X=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for v in sgemm-vectorized-transposed vectorized-transposed-scalar-global vectorized-untransposed-a; do
  rem=$(( ${LIMIT:-570} - ($(date +%s) - s) )); [ $rem -lt 25 ] && { echo "no time for ncu 24 $v"; break; }
  timeout $rem python3 tools/ncu-compare --no-build --build $B --chapters 24 --preset sgemm --metrics $X --variant $v --out /tmp/ncu24 --csv $R/ncu24-$v.csv > $R/ncu24-$v.txt 2>&1; echo "ncu 24 $v rc=$?"
done
for v in sgemm-tuned ${V27_OFF//,/ }; do
  rem=$(( ${LIMIT:-570} - ($(date +%s) - s) )); [ $rem -lt 30 ] && { echo "no time for ncu 27 $v"; break; }
  timeout $rem python3 tools/ncu-compare --no-build --build $B --chapters 27 --preset sgemm --metrics $X --variant $v --out /tmp/ncu27 --csv $R/ncu27-$v.csv > $R/ncu27-$v.txt 2>&1; echo "ncu 27 $v rc=$?"
done
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c2.tgz r && rm -rf r
