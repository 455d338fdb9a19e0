#!/bin/bash
# Session 7, call 2 on one H200: twiddles per butterfly (chapter 35's stage, and so 36-38's) and chapter 59's padded K.
#   build (fresh), SASS counts of chapter 35's block kernels, the GPU tests of chapters 33-38 and 59, then
#   35 --variant all at 256, 1024, 2048, 4096; 36 at 8192, 16384; 37 at 32768, 65536; 38 at 2^17, 2^18, 2^20;
#   59 --variant all at 4095 x 4097 x 4093 (empty plan folder).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-s7c2; R=/tmp/s7c2; rm -rf $R $B; mkdir -p $R/runs $R/tests; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s7c2.tgz -C /tmp s7c2; }
trap save EXIT; trap "exit 143" TERM
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; meson --version | sed 's/^/meson /'; } > $R/gpu.txt
C=chapters
P35=$C/35-fft-tuned/35-fft-tuned; P36=$C/36-fft-one-block-large/36-fft-one-block-large
P37=$C/37-fft-thread-block-cluster/37-fft-thread-block-cluster; P38=$C/38-fft-two-pass/38-fft-two-pass
P59=$C/59-bf16-gemm-by-shape/59-bf16-gemm-by-shape
TESTS="$C/33-fft-registers-exchange/33-fft-registers-exchange-test $C/34-fft-high-radix/34-fft-high-radix-test $P35-test $P35-launch-checks $P36-test $P37-test $P38-test $P38-launch-checks $P59-test"
meson setup $B > $R/setup.log 2>&1 && ninja -C $B $P35 $P36 $P37 $P38 $P59 $TESTS > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
t built
cuobjdump -sass $B/$C/35-fft-tuned/lib35-fft-tuned-units.a.p/main.cu.o 2>/dev/null | awk '/Function : /{n=$3} /^        \/\*[0-9a-f]+\*\//{c[n]++} END{for (k in c) print c[k], k}' | grep fft_block_kernel | sort -k2 > $R/sass-35.txt
export TUT_PLAN_DIR=$R/plans
for tb in $TESTS; do n=$(basename $tb); timeout 240 $B/$tb > $R/tests/$n.txt 2>&1; t "$n rc=$? $(grep -E 'test cases:' $R/tests/$n.txt | tail -1)"; done
run() { local name=$1 prog=$2; shift 2; timeout 90 $B/$prog --format csv "$@" > $R/runs/$name.csv 2> $R/runs/$name.err; t "$name rc=$?"; }
for n in 2048 4096 1024 256; do run 35-$n $P35 --variant all --budget-ms 150 --length $n; done
for n in 8192 16384; do run 36-$n $P36 --variant all --budget-ms 150 --length $n; done
for n in 32768 65536; do run 37-$n $P37 --variant all --budget-ms 150 --length $n; done
for n in 131072 262144 1048576; do run 38-$n $P38 --budget-ms 150 --length $n; done
run 59-4095x4097x4093 $P59 --variant all --budget-ms 200 --m 4095 --n 4097 --k 4093
grep -h "^# plan" $R/runs/*.err $R/runs/*.csv 2>/dev/null | sort -u > $R/plan-lines.txt
t done
