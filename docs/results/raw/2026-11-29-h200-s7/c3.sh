#!/bin/bash
# Session 7, call 3 on one H200, after twiddles per butterfly in the four-step too and 35's plan candidates up to 1024:
#   build (fresh); the GPU tests of chapters 33-38 and 59; 35 --variant all at 256, 1024, 2048, 4096;
#   36 at 8192, 16384; 37 at 32768, 65536; chapter 38's stage (the FFT ladder's last) at every length 2^3 .. 2^22;
#   57 --variant all at 4096^3, 6144^3, 8192^3; ncu --set full of 35's stage at N = 2048;
#   planted bugs (twiddle_inputs, pad_rows_kernel); the 14-shape sweep of 59.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s7c3; R=/tmp/s7c3; rm -rf $R $B; mkdir -p $R/runs $R/tests $R/sweep38 $R/plants; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
left() { echo $(( 575 - ($(date +%s) - s) )); }
save() { tar czf $OUT/s7c3.tgz -C /tmp s7c3; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; meson --version | sed 's/^/meson /'; } > $R/gpu.txt
C=chapters
P35=$C/35-fft-tuned/35-fft-tuned; P36=$C/36-fft-one-block-large/36-fft-one-block-large
P37=$C/37-fft-thread-block-cluster/37-fft-thread-block-cluster; P38=$C/38-fft-two-pass/38-fft-two-pass
P57=$C/57-bf16-gemm-persistent/57-bf16-gemm-persistent; P59=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
TESTS="$C/33-fft-registers-exchange/33-fft-registers-exchange-test $C/34-fft-high-radix/34-fft-high-radix-test $P35-test $P35-launch-checks $P36-test $P37-test $P38-test $P38-launch-checks $P59-test"
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P35 $P36 $P37 $P38 $P57 $P59 $TESTS > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
export TUT_PLAN_DIR=$R/plans
for tb in $TESTS; do n=$(basename $tb); timeout 200 $B/$tb > $R/tests/$n.txt 2>&1; t "$n rc=$? $(grep -E 'test cases:' $R/tests/$n.txt | tail -1)"; done
run() { local name=$1 prog=$2; shift 2; timeout 90 $B/$prog --format csv "$@" > $R/runs/$name.csv 2> $R/runs/$name.err; t "$name rc=$?"; }
for n in 256 1024 2048 4096; do run 35-$n $P35 --variant all --budget-ms 150 --length $n; done
for n in 8192 16384; do run 36-$n $P36 --variant all --budget-ms 150 --length $n; done
for n in 32768 65536; do run 37-$n $P37 --variant all --budget-ms 150 --length $n; done
for e in $(seq 3 22); do n=$((1 << e)); timeout 60 $B/$P38 --format csv --budget-ms 100 --length $n > $R/sweep38/38-$n.csv 2> $R/sweep38/38-$n.err; done; t "38 at 2^3..2^22"
for n in 4096 6144 8192; do run 57-$n $P57 --variant all --budget-ms 150 --m $n --n $n --k $n; done
timeout 120 ncu --clock-control none --set full --nvtx --nvtx-include "35-fft-tuned/fft-tuned/timed/" --launch-count 1 \
  -o $R/ncu-35-stage-2048 --force-overwrite $B/$P35 --profile --variant fft-tuned --length 2048 --size 2^27 > $R/ncu-35.log 2>&1
ncu --import $R/ncu-35-stage-2048.ncu-rep --page details > $R/ncu-35-stage-2048.details.txt 2>&1
ncu --import $R/ncu-35-stage-2048.ncu-rep --page raw --csv > $R/ncu-35-stage-2048.raw.csv 2>&1; rm -f $R/*.ncu-rep; t "ncu 35"
plant() {  # plant NAME FILE SED TARGET RUN...
  local name=$1 file=$2 expr=$3 target=$4; shift 4
  cp $file $R/orig; sed -i "$expr" $file; diff -u $R/orig $file > $R/plants/$name.diff
  if [ ! -s $R/plants/$name.diff ]; then echo "$name: the sed changed nothing"; cp $R/orig $file; return; fi
  ninja -C $B $target > $R/plants/$name-build.log 2>&1 || { echo "$name: build failed"; tail $R/plants/$name-build.log; }
  timeout 120 "$@" > $R/plants/$name.txt 2>&1; local rc=$?
  cp $R/orig $file
  t "$name: rc=$rc ($(grep -E 'test cases:' $R/plants/$name.txt | tail -1))"
}
plant twiddle-dropped-factor common/fft/complex.cuh 's/^    v\[h\] = cmul(v\[h\], w\[h\]);/    (void)w[h];/' $P35-test $B/$P35-test
plant pad-overrun $C/59-bf16-gemm-by-shape/gemm_by_shape.cuh 's/chunks = rows \* chunks_per_row;/chunks = rows * chunks_per_row + 1;/' $P59-test $B/$P59-test --test-case='*padded*'
if [ $(left) -gt 100 ]; then
  TUT_PLAN_DIR=$R/plans-sweep SWEEP_CHAPTERS="59-bf16-gemm-by-shape" timeout $(( $(left) - 5 )) bash $C/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh $B $R/sweep-59.csv \
    --variant bf16-gemm-by-shape,bf16-gemm-split-k,bf16-gemm-tma-mbarrier,ping-pong --budget-ms 100 > $R/sweep.log 2>&1
  t "sweep rc=$? rows $(wc -l < $R/sweep-59.csv)"
fi
t done
