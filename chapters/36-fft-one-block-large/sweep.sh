#!/usr/bin/env bash
# The stage and cuFFT at every N = 8 .. 2^20, 1 GiB of input per length (2^27 float2, out of place), one CSV per
# length (the program's --format csv: the stage, cuFFT and cudaMemcpy rows of one process) into DIR.
# About 2-3 minutes on an H200 (most of it the seeded input and the CPU reference of each run).
#
#   chapters/36-fft-one-block-large/sweep.sh DIR [PROGRAM] [-- extra program options]
#   chapters/36-fft-one-block-large/sweep.sh results/36 build/chapters/36-fft-one-block-large/36-fft-one-block-large
#   chapters/36-fft-one-block-large/sweep.sh results/36 "" -- --variant fft-one-block-large,fft-tuned
#
# Then: python3 chapters/36-fft-one-block-large/plot.py DIR [OUT.png]
set -euo pipefail
if [[ $# -lt 1 || "$1" == -* ]]; then
  echo "usage: $0 DIR [PROGRAM] [-- extra program options]" >&2
  exit 2
fi
dir=$1
program=${2:-build/chapters/36-fft-one-block-large/36-fft-one-block-large}
[[ -n "$program" ]] || program=build/chapters/36-fft-one-block-large/36-fft-one-block-large
shift $(( $# >= 2 ? 2 : 1 ))
[[ "${1:-}" == "--" ]] && shift
if [[ ! -x "$program" ]]; then
  echo "$0: $program not found or not executable (build it first: ninja -C build ${program#build/})" >&2
  exit 2
fi
mkdir -p "$dir"
for log2n in $(seq 3 20); do
  n=$((1 << log2n))
  # Each run checks its output against the CPU double FFT; a failed check stops the sweep (set -e).
  "$program" --length "$n" --size 2^27 --budget-ms 150 --format csv "$@" > "$dir/n$n.csv"
  echo "N = $n: $dir/n$n.csv" >&2
done
