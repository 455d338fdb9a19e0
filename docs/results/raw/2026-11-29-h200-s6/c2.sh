#!/bin/bash
# Session 6, call 2 on one H200: a fresh full build (build-check, the folder call 3's tools/check reuses), then
#   57 --variant all at 4096^3, 8192^3, 6144^3 and 4095 x 4097 x 4096; ncu of 57's stage and ping-pong at 8192^3;
#   59 --variant all at four shapes; the 14-shape sweep of 59 (the stage, its three candidates, cuBLAS).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-check; R=/tmp/s6c2; rm -rf $R $B; mkdir -p $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s6c2.tgz -C /tmp s6c2; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-480} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version; } > $R/gpu.txt
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -80; exit 1; }
t "full build: $(grep -c '^\[' $R/build.log) steps"
C=chapters; P57=$B/$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent; P59=$B/$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
for a in "4096 4096 4096" "8192 8192 8192" "6144 6144 6144" "4095 4097 4096"; do
  read -r m n k <<< "$a"; f=$R/runs/57-${m}x${n}x${k}
  timeout 60 $P57 --variant all --budget-ms 200 --format csv --m $m --n $n --k $k > $f.csv 2> $f.err; t "57 $a rc=$?"
done
export TUT_PLAN_DIR=$R/plans
for a in "2048 2048 2048" "8192 8192 8192" "8192 8192 128" "256 256 65536" "4096 4096 4096" "6144 6144 6144"; do
  read -r m n k <<< "$a"; f=$R/runs/59-${m}x${n}x${k}
  timeout 60 $P59 --variant all --budget-ms 200 --format csv --m $m --n $n --k $k > $f.csv 2> $f.err; t "59 $a rc=$?"
done
for v in bf16-gemm-persistent ping-pong; do
  o=$R/ncu-8192-$v
  timeout 90 tools/ncu-compare --build $B --no-build --preset tensor --chapters 57 --variant $v --m 8192 --n 8192 --k 8192 \
    --out $o --csv $o/ncu-tensor.csv > $o.txt 2>&1; t "ncu $v rc=$?"; rm -f $o/*.ncu-rep
done
if [ $(left) -gt 120 ]; then
  TUT_PLAN_DIR=$R/plans-sweep SWEEP_CHAPTERS="59-bf16-gemm-by-shape" timeout $(( $(left) - 5 )) bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-59.csv \
    --variant bf16-gemm-by-shape,bf16-gemm-split-k,bf16-gemm-tma-mbarrier,ping-pong --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-59.csv)"
fi
t total
