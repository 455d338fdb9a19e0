#!/bin/bash
# Call 6 (2026-11-27, second session): the fresh results run issue 26 asks for, at the commit in $COMMIT, default
# build options (sm_90 on the H100): chapter 27 --variant all at 4096^3 and 8192^3 (its candidates table), every
# chapter program (tools/results --no-sweeps --budget-ms 300: the chapters' first tables), then chapters 03, 04
# and 20-29 with their size, selectivity and SGEMM ladder sweeps (--budget-ms 150). The FFT sweep is call 7.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/b6; R=$OUT/r; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
T="$(for c in chapters/[0-9]*; do b=$(basename $c); [ $b = 02-gpu-principles ] || echo chapters/$b/$b; done) $(for e in fma latency barrier bandwidth mimd exchange; do echo chapters/02-gpu-principles/02-gpu-principles-$e; done)"
ninja -C $B $T > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
P27=$B/chapters/27-sgemm-tuned/27-sgemm-tuned
for n in 4096 8192; do timeout 100 $P27 --size $n --variant all --budget-ms 300 --format csv > $R/c27-all-$n.csv 2>$R/c27-all-$n.err; echo "27 all n=$n rc=$? at $(( $(date +%s) - s )) s"; done
timeout ${RES_S:-240} tools/results --build $B --no-build --no-sweeps --budget-ms 300 --commit ${COMMIT:-unknown} --out $R/results > $R/results.log 2>&1; echo "results rc=$? at $(( $(date +%s) - s )) s"; tail -4 $R/results.log | cut -c1-200
rem=$(( ${LIMIT:-585} - ($(date +%s) - s) )); echo "sgemm sweep gets $rem s"
timeout $rem tools/results --build $B --no-build --chapters 03,04,20-29 --budget-ms 150 --timeout 60 --commit ${COMMIT:-unknown} --name nvidia-h100-80gb-hbm3-sweeps-sgemm --out $R/results > $R/results-sgemm.log 2>&1; echo "sgemm rc=$? at $(( $(date +%s) - s )) s"; tail -3 $R/results-sgemm.log | cut -c1-200
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c6.tgz r && rm -rf r
