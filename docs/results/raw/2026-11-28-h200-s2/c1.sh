#!/bin/bash
# Call 1 (2026-11-28, session 2, one H200): the first GPU run of last session's chapter-18 changes (max identity
# -inf / NaN, plan cache, --sms), chapter 18's ncu capture at today's code, and the tensor ladder's measurements.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
B=/tmp/b1; R=$OUT/c1; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
C18=chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
TC="50-bf16-gemm-fp32-lanes 51-bf16-gemm-wmma 52-bf16-gemm-mma-ldmatrix 53-bf16-gemm-cp-async-pipeline"
T="$C18 $C18-test chapters/17-scan-lookback-landing-zone/17-scan-lookback-landing-zone chapters/03-vectorized-loads/03-vectorized-loads common/test_plan_cache common/test_harness"
for c in $TC; do T="$T chapters/$c/$c"; done
ninja -C $B $T > $R/build.log 2>&1 || { tail -40 $R/build.log; exit 1; }
t "build done"
# 1. chapter 18's new and changed test cases, then its whole test (the -inf fix, the planned stage)
(cd $B && meson test --no-rebuild plan-cache harness > $R/host-tests.txt 2>&1); t "host tests rc=$? $(grep -c ' OK ' $R/host-tests.txt) OK"
timeout 240 $B/$C18-test > $R/t18.txt 2>&1; t "18 test rc=$?"; tail -4 $R/t18.txt
python3 common/test_cli.py $B/$C18 > $R/cli18.txt 2>&1; t "18 cli rc=$?"
# 2. the plan demo (full GPU, cache, --sms 92, corrupt cache, --replan, --sms 16 copy)
timeout 200 sh chapters/18-scan-any-type-copy-bound/plan-demo.sh $B > $R/plan-demo.txt 2>&1; t "plan demo rc=$?"
grep -E "^plan|plan:|^==|error|exit [1-9]" $R/plan-demo.txt | head -40 | cut -c1-200
# 3. chapter 18 at 2^28 and 2^30 (int32 sum), float sum, int64 sum: the stage against CUB and cudaMemcpy
export TUT_PLAN_DIR=$R/plans
for a in "--size 2^28" "--size 2^30" "--size 2^28 --type float" "--size 2^28 --type int64"; do
  timeout 60 $B/$C18 $a --budget-ms 300 --format csv > "$R/c18${a//[ ^-]/_}.csv" 2>&1; t "18 $a rc=$?"; tail -3 "$R/c18${a//[ ^-]/_}.csv" | cut -c1-170
done
# 4. chapter 18's ncu capture at today's code (17 beside it), 2^24 int32
timeout 150 tools/ncu-compare --build $B --no-build --preset all --chapters 17,18 --size 2^24 --out $R/ncu18 --csv $R/ncu18/ncu-scan.csv > $R/ncu18.txt 2>&1; t "ncu 17,18 rc=$?"; tail -6 $R/ncu18.txt | cut -c1-200
unset TUT_PLAN_DIR
# 5. the tensor ladder: each program at 4096^3 (stage, previous stage, cuBLAS) with --variant all, then the sweep
for c in $TC; do
  timeout 60 $B/chapters/$c/$c --variant all --budget-ms 300 --format csv > $R/$c-4096.csv 2>$R/$c-4096.err; t "$c rc=$?"; head -8 $R/$c-4096.csv | cut -c1-170
done
rem=$(( 560 - ($(date +%s) - s) )); t "sweep gets $((rem - 90)) s"
timeout $((rem - 90)) bash chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-tc.csv --budget-ms 100 > $R/sweep.log 2>&1; t "sweep rc=$? rows $(wc -l < $R/sweep-tc.csv)"
timeout 80 tools/ncu-compare --build $B --no-build --preset tensor --chapters 50-53 --m 4096 --n 4096 --k 4096 --out $R/ncu-tc --csv $R/ncu-tc/ncu-tensor.csv > $R/ncu-tc.txt 2>&1; t "ncu tensor rc=$?"; tail -8 $R/ncu-tc.txt | cut -c1-220
rm -f $R/ncu18/*.ncu-rep $R/ncu-tc/*.ncu-rep
t "total"
