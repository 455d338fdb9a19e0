#!/bin/bash
# Call 3, on call 2's build (build-gpu, same tree): the results run (every chapter program with the previous
# chapter's stage in its own process), chapter 54 at 4096^3, the plan demo's copy rows, tools/exercise verify.
# Everything goes into one tarball ($OUT/c3.tgz): a call returns at most 8 files.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-gpu; R=/tmp/c3; rm -rf $R; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/c3.tgz -C /tmp c3; }
trap save EXIT
ninja -C $B > $R/ninja.log 2>&1; t "ninja rc=$?"
timeout 300 tools/results --build $B --no-build --no-sweeps --budget-ms ${BUDGET:-250} --commit ${COMMIT:-unknown} \
  --name nvidia-h200-2026-11-28 --out $R/results > $R/results.log 2>&1; t "results rc=$?"; grep -iE "error|fail" $R/results.log | head -10 | cut -c1-200
mkdir -p $R/len
timeout 60 $B/chapters/36-fft-one-block-large/36-fft-one-block-large --length 16384 --variant all --size 2^27 --budget-ms 200 > $R/len/c36-all-n16384.txt 2>&1; t "36 rc=$?"
timeout 60 $B/chapters/37-fft-thread-block-cluster/37-fft-thread-block-cluster --length 65536 --variant all --budget-ms 200 > $R/len/c37-all-n65536.txt 2>&1; t "37 rc=$?"
timeout 60 $B/chapters/38-fft-two-pass/38-fft-two-pass --length 1048576 --variant all --budget-ms 150 > $R/len/c38-all-n1048576.txt 2>&1; t "38 rc=$?"
for c in 54-bf16-gemm-wgmma 55-bf16-gemm-tma-mbarrier; do
  P=$B/chapters/$c/$c; [ -x $P ] || continue
  for a in "--m 4096 --n 4096 --k 4096" "--m 4095 --n 4097 --k 4096" "--m 8192 --n 8192 --k 8192"; do
    f=$R/$c-$(echo $a | awk '{print $2"x"$4"x"$6}'); timeout 60 $P --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "$c $a rc=$?"
  done
  cut -d, -f2,7,15,18 $R/$c-4096x4096x4096.csv | head -8
done
rem=$(( ${LIMIT:-560} - ($(date +%s) - s) )); t "exercise verify gets $((rem - 190)) s"
timeout $((rem - 190)) tools/exercise --build $B verify --require-gpu > $R/exercise-verify.txt 2>&1; t "verify rc=$?"; tail -12 $R/exercise-verify.txt
timeout 40 sh -c "sed -n '/== 7/,/== 9/p' chapters/18-scan-any-type-copy-bound/plan-demo.sh > /dev/null; TUT_PLAN_DIR=/tmp/pd $B/chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound -v cub --sms 16 --size 2^26 --budget-ms 200; $B/chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound -v cub --size 2^26 --budget-ms 200" > $R/plan-demo-copy.txt 2>&1; t "copy at 16 SMs rc=$?"; grep -E "cudaMemcpy|cub " $R/plan-demo-copy.txt | cut -c1-150
rem=$(( ${LIMIT:-560} - ($(date +%s) - s) ))
if [ $rem -gt 150 ]; then timeout $((rem - 20)) bash devrun/plant.sh $B $R; t "plants done"; cat $R/plants.txt; else t "no time for the plants"; fi
t total
