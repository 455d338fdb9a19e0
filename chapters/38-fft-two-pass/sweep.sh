#!/usr/bin/env bash
# The stage and cuFFT at every N = 8 .. 2^20, 1 GiB of input per length, in one run: chapter 36's sweep.sh on
# this chapter's program (one CSV per length in DIR, the files chapter 36's plot.py reads), then all of them in
# one CSV, DIR/sweep.csv, whose first column is the signal length (the program's n column is the batch's element
# count). Plot: chapter 36's plot.py.
#
#   chapters/38-fft-two-pass/sweep.sh DIR [PROGRAM] [-- extra program options]
#   chapters/38-fft-two-pass/sweep.sh results/38 "" -- --variant fft-two-pass,fft-thread-block-cluster
#   python3 chapters/36-fft-one-block-large/plot.py results/38 results/38/fft-two-pass.png
set -euo pipefail
[[ $# -ge 1 && "$1" != -* ]] || { echo "usage: $0 DIR [PROGRAM] [-- extra program options]" >&2; exit 2; }
dir=$1
# Chapter 36's script checks the program and writes one CSV per length.
"$(dirname "$0")/../36-fft-one-block-large/sweep.sh" "$dir" "${2:-build/chapters/38-fft-two-pass/38-fft-two-pass}" \
  "${@:3}"
{
  header=
  for log2n in $(seq 3 20); do
    n=$((1 << log2n))
    [[ -n "$header" ]] || { header=$(head -n 1 "$dir/n$n.csv"); echo "length,$header"; }
    tail -n +2 "$dir/n$n.csv" | sed "s/^/$n,/"
  done
} > "$dir/sweep.csv"
echo "all lengths: $dir/sweep.csv" >&2
