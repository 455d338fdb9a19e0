#!/bin/bash
# Session 5, call 3 on 4 x H200: tools/check as shipped from a fresh build directory (the GPU tests spread over the
# four GPUs), then with that build four jobs at once, one per GPU:
#   GPU 0: chapter 58 --variant all at six shapes (the stage, split-k-never, 57, 55, 53 and cuBLAS in one process)
#   GPU 1: the 14-shape sweep of chapter 58 (the stage, split-k-never, 57, 55 and cuBLAS in one process per shape)
#   GPU 2: ncu of 57 and 58 at 256 x 256 x 65536, 64 x 64 x 131072 and 4096^3; then 58 and 29's tests under synccheck
#   GPU 3: 58 and 29's tests under memcheck, racecheck and initcheck
export PATH=/usr/local/cuda/bin:$PATH BUILD=build-check PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s5c3; rm -rf $R "$BUILD"; mkdir -p $R/runs; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s5c3.tgz -C /tmp s5c3; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-560} - ($(date +%s) - s) )); }
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader; meson --version | sed 's/^/meson /'; } > $R/gpu.txt
timeout ${CHECK_S:-330} tools/check > $R/check.log 2>&1
rc=$?; echo "tools/check rc=$rc wall=$(( $(date +%s) - s )) s" | tee -a $R/check.log
cp "$BUILD/meson-logs/testlog.txt" $R/testlog.txt 2>/dev/null
grep -E "spread|^tests:|FAIL|TIMEOUT" $R/check.log | head -20
B=$BUILD; C=chapters; P=$B/$C/58-bf16-gemm-split-k/58-bf16-gemm-split-k
gpu0() {
  export CUDA_VISIBLE_DEVICES=0
  for a in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 6144 --n 6144 --k 6144" "--m 256 --n 256 --k 65536" "--m 64 --n 64 --k 131072" "--m 1024 --n 1024 --k 16384"; do
    local f=$R/runs/58-$(echo $a | awk '{print $2"x"$4"x"$6}')
    timeout 100 $P --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "58 $a rc=$?"
  done
  timeout 30 $P --m 256 --n 256 --k 65536 > $R/runs/58-plain-256x256x65536.txt 2>&1; t "58 plain rc=$?"
}
gpu1() {
  export CUDA_VISIBLE_DEVICES=1
  SWEEP_CHAPTERS="58-bf16-gemm-split-k" timeout 200 bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-58.csv \
    --variant bf16-gemm-split-k,split-k-never,bf16-gemm-persistent,bf16-gemm-tma-mbarrier --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-58.csv)"
}
san() {  # san TOOL...: 58 and 29's GPU tests under each tool in turn
  for tool in "$@"; do
    timeout $(( $(left) - 10 )) python3 tools/sanitize --build $B --no-rebuild --tools $tool --suite 58-bf16-gemm-split-k \
      --suite 29-sgemm-split-k -j 4 > $R/sanitize-$tool.txt 2>&1; t "sanitize $tool rc=$?"
  done
}
gpu2() {
  export CUDA_VISIBLE_DEVICES=2
  for shape in "256 256 65536" "64 64 131072" "4096 4096 4096"; do
    read -r m n k <<< "$shape"; local o=$R/ncu-${m}x${n}x${k}
    timeout 100 tools/ncu-compare --build $B --no-build --preset tensor --chapters 57,58 --m $m --n $n --k $k \
      --out $o --csv $o/ncu-tensor.csv > $o.txt 2>&1; t "ncu $shape rc=$?"; rm -f $o/*.ncu-rep
  done
  san synccheck
}
gpu3() { export CUDA_VISIBLE_DEVICES=3; san memcheck racecheck initcheck; }
if [ $(left) -gt 120 ]; then
  gpu0 > $R/gpu0.log 2>&1 & gpu1 > $R/gpu1.log 2>&1 & gpu2 > $R/gpu2.log 2>&1 & gpu3 > $R/gpu3.log 2>&1 &
  wait
fi
cat $R/gpu*.log; for f in $R/sanitize-*.txt; do echo "== $f"; tail -n 3 $f; done
t total
exit $rc
