#!/bin/bash
# Session 7, call 1 on one H200: profiles to choose the session's work.
#   FFT: chapter 35's stage at N = 2048 and 4096 (1 GiB batch) and cuFFT there, ncu --set full; 35 --variant all.
#   GEMM: chapter 57's ping-pong and cuBLAS at 4096^3 and 6144^3, ncu --set full (cuBLAS's kernel name gives its tile).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s7c1; R=/tmp/s7c1; rm -rf $R $B; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s7c1.tgz -C /tmp s7c1; }
trap save EXIT; trap "exit 143" TERM
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader > $R/gpu.txt
C=chapters
P35=$C/35-fft-tuned/35-fft-tuned; P57=$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P35 $P57 > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
prof() { # name program variant args...
  local name=$1 prog=$2 v=$3; shift 3
  timeout 150 ncu --clock-control none --set full --nvtx --nvtx-include "$(basename $prog)/$v/timed/" --launch-count 2 \
    -o $R/$name --force-overwrite $B/$prog --profile --variant $v "$@" > $R/$name.log 2>&1
  t "ncu $name rc=$?"
  ncu --import $R/$name.ncu-rep --page details > $R/$name.details.txt 2>&1
  ncu --import $R/$name.ncu-rep --page raw --csv > $R/$name.raw.csv 2>&1
  rm -f $R/$name.ncu-rep
}
for n in 2048 4096; do
  timeout 60 $B/$P35 --variant all --budget-ms 150 --length $n --format csv > $R/35-all-$n.csv 2> $R/35-all-$n.err; t "35 all $n rc=$?"
done
prof 35-stage-2048 $P35 fft-tuned --length 2048 --size 2^27
prof 35-cufft-2048 $P35 cufft --length 2048 --size 2^27
prof 35-stage-4096 $P35 fft-tuned --length 4096 --size 2^27
prof 35-table-2048 $P35 twiddle-table --length 2048 --size 2^27
for n in 4096 6144; do
  prof 57-pp-$n $P57 ping-pong --m $n --n $n --k $n
  prof 57-cublas-$n $P57 cublas --m $n --n $n --k $n
done
prof 57-stage-4096 $P57 bf16-gemm-persistent --m 4096 --n 4096 --k 4096
t done
