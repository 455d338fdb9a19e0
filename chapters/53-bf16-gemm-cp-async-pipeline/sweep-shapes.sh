#!/usr/bin/env bash
# The tensor-core ladder (chapters 50-53) over 14 shapes, one CSV: squares 512-8192, an odd 1000^3, a ragged
# 4095 x 4097 x 4093 (K not a multiple of 8: element copies), skinny M or N, a wide panel and K-heavy problems.
# Every program checks its rows (cuBLAS in the same process; the CPU reference up to M N K = 2^30) and
# measures its stage, the previous stage and cuBLAS; the CSV is the programs' --format csv rows with m, n, k
# in front.
#
#   chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh BUILD_DIR OUT.csv [program options, e.g. --budget-ms 100]
#   SWEEP_CHAPTERS="55-bf16-gemm-tma-mbarrier 57-bf16-gemm-persistent" chapters/53-.../sweep-shapes.sh ...
#                                                       other chapters of the ladder (sm_90a ones on an sm_90 GPU)
#
# Exit status: 0, or the first failing program's status (the CSV holds the rows before it).
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR OUT.csv [program options]" >&2
  exit 2
fi
build=$1
out=$2
shift 2
read -r -a chapters <<< "${SWEEP_CHAPTERS:-50-bf16-gemm-fp32-lanes 51-bf16-gemm-wmma 52-bf16-gemm-mma-ldmatrix 53-bf16-gemm-cp-async-pipeline}"
shapes=(
  "512 512 512" "1024 1024 1024" "2048 2048 2048" "4096 4096 4096" "8192 8192 8192"  # squares
  "1000 1000 1000" "4095 4097 4093"                                                   # odd, ragged
  "16 8192 4096" "8192 16 4096" "128 8192 8192"                                       # skinny M, skinny N, a panel
  "256 256 65536" "1024 1024 16384" "64 64 131072"                                    # K-heavy
  "8192 8192 128"                                                                     # K-light (output-bound)
)
for ch in "${chapters[@]}"; do
  [[ -x "$build/chapters/$ch/$ch" ]] || { echo "$0: $build/chapters/$ch/$ch is not built" >&2; exit 2; }
done
header_written=0
: > "$out"
for shape in "${shapes[@]}"; do
  read -r m n k <<< "$shape"
  for ch in "${chapters[@]}"; do
    csv=$("$build/chapters/$ch/$ch" --m "$m" --n "$n" --k "$k" --format csv "$@")
    if [[ $header_written == 0 ]]; then
      echo "m,n,k,$(head -n 1 <<< "$csv")" >> "$out"
      header_written=1
    fi
    tail -n +2 <<< "$csv" | sed "s/^/$m,$n,$k,/" >> "$out"
  done
  echo "$m x $n x $k done" >&2
done
