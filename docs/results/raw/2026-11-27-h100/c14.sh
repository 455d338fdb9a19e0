#!/bin/bash
# Call 14 (2026-11-27, third session): the FFT ladder's ncu captures at today's code (the ones the READMEs cite were
# taken at bf8018c and 9fe5849, before the FFT building blocks moved to common/fft in 1b7075e): tools/ncu-compare
# over 30-37 (preset fft, 2^24 elements, each program's default length), 36 at N = 16384, 37 at 65536, 38 at 2^20,
# the commands of ../2026-11-25-h100/ncu-bf8018c/ncu-call.sh and measure-9fe5849/measure-call.sh. sm_90 build of
# the FFT programs only. Output: ncu-fft-<commit>/ with those calls' file names.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/bn; R=$OUT/r; mkdir -p $R
s=$(date +%s)
meson setup $B -Dgpu_archs=90 -Dptx=false > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
T=""; for c in 30-fft-dft 31-fft-stockham-global 32-fft-shared-memory 33-fft-registers-exchange 34-fft-high-radix 35-fft-tuned 36-fft-one-block-large 37-fft-thread-block-cluster 38-fft-two-pass; do T="$T chapters/$c/$c"; done
ninja -C $B $T > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
run_ncu() { local name=$1 cap=$2; shift 2; local t0=$(date +%s) left=$(( ${LIMIT:-450} - ($(date +%s) - s) ))
  [ $left -lt $cap ] && { echo "ncu $name: skipped, $left s left"; return; }
  timeout $cap tools/ncu-compare --build $B --no-build --timeout 60 --out $R/ncu-$name --csv $R/ncu-$name.csv "$@" > $R/ncu-$name.txt 2>&1
  echo "ncu $name rc=$? $(( $(date +%s) - t0 )) s"; grep "(total" $R/ncu-$name.txt | cut -c1-150; rm -f $R/ncu-$name/*.ncu-rep; }
run_ncu fft 150 --chapters 30-37 --preset fft
run_ncu fft36 40 --chapters 36 --preset fft --length 16384
run_ncu fft37 40 --chapters 37 --preset fft --length 65536
run_ncu fft38 50 --chapters 38 --preset fft --length 1048576
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c14.tgz r && rm -rf r
