#!/bin/bash
# Session 6, call 5 on one H200: chapter 57's program alone, then ncu (tensor preset) of its stage and of ping-pong
# at 4096^3 and 6144^3, where ping-pong ties with the stage (at 8192^3 it is 1.10x: call 2).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-c5; R=/tmp/s6c5; rm -rf $R $B; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s6c5.tgz -C /tmp s6c5; }
trap save EXIT; trap "exit 143" TERM
meson setup $B > $R/setup.log 2>&1 && ninja -C $B chapters/57-bf16-gemm-persistent/57-bf16-gemm-persistent > $R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
t built
for n in 4096 6144; do
  for v in bf16-gemm-persistent ping-pong; do
    o=$R/ncu-$n-$v
    timeout 120 tools/ncu-compare --build $B --no-build --preset tensor --chapters 57 --variant $v --m $n --n $n --k $n \
      --out $o --csv $o/ncu-tensor.csv > $o.txt 2>&1; t "ncu $n $v rc=$?"; rm -f $o/*.ncu-rep
  done
done
for f in $R/ncu-*/ncu-tensor.csv; do echo "== $f"; cut -d, -f1-2,6,7,8,10,12,18 $f; done
