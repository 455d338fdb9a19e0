#!/usr/bin/env bash
# The stage and cuFFT at every N = 8 .. 2^20, 1 GiB of input per length, one CSV per length into DIR: chapter
# 36's sweep.sh run on this chapter's program (same options, same files). Plot: chapter 36's plot.py.
#
#   chapters/37-fft-thread-block-cluster/sweep.sh DIR [PROGRAM] [-- extra program options]
#   chapters/37-fft-thread-block-cluster/sweep.sh results/37 "" -- --variant fft-thread-block-cluster,fft-one-block-large
#   python3 chapters/36-fft-one-block-large/plot.py results/37 results/37/fft-thread-block-cluster.png
set -euo pipefail
here=$(dirname "$0")
if [[ $# -lt 1 || "$1" == -* ]]; then
  echo "usage: $0 DIR [PROGRAM] [-- extra program options]" >&2
  exit 2
fi
dir=$1
program=${2:-}
[[ -n "$program" ]] || program=build/chapters/37-fft-thread-block-cluster/37-fft-thread-block-cluster
shift $(( $# >= 2 ? 2 : 1 ))
exec "$here/../36-fft-one-block-large/sweep.sh" "$dir" "$program" "$@"
