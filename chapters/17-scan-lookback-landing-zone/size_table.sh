#!/usr/bin/env bash
# Chapter 17 (or any scan chapter's program): the scan from 2^16 to 2^30 elements, as one Markdown table.
# Runs the binary once per size (--size 2^16, 2^18, ..., 2^30, --format csv); every run also measures CUB
# and cudaMemcpy, so each row's ratios come from the same process.
#
#   chapters/17-scan-lookback-landing-zone/size_table.sh [options passed to the binary]
#   BIN=build/chapters/16-scan-decoupled-lookback-tuned/16-scan-decoupled-lookback-tuned chapters/17-scan-lookback-landing-zone/size_table.sh
#
# Without --variant it times the program's stage (the variant named like the program without its number:
# scan-lookback-landing-zone for chapter 17); with --variant A,B it times those instead (one row per variant
# and size).
set -euo pipefail

bin=${BIN:-./build/chapters/17-scan-lookback-landing-zone/17-scan-lookback-landing-zone}
if [[ ! -x $bin ]]; then
  echo "size_table.sh: error: $bin is not an executable (build with 'ninja -C build', or set BIN=...)" >&2
  exit 2
fi
args=("$@")
chosen=0
for a in "$@"; do [[ $a == -v || $a == --variant ]] && chosen=1; done
stage=$(basename "$bin")
stage=${stage#*-}  # 17-scan-lookback-landing-zone -> scan-lookback-landing-zone
((chosen)) || args+=(--variant "$stage")

log=$(mktemp)
trap 'rm -f "$log"' EXIT

first=1
for e in 16 18 20 22 24 26 28 30; do
  if ! csv=$("$bin" --size "2^$e" --format csv "${args[@]}" 2>"$log"); then
    echo "size_table.sh: error: the run at --size 2^$e failed:" >&2
    cat "$log" >&2
    exit 1
  fi
  if ((first)); then
    sed -n 's/^# //p' "$log"  # the device banner, once
    echo
    echo "| size | variant | time (ms) | GB/s | speed vs CUB | % of memcpy | CUB time (ms) | CUB % of memcpy |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|"
    first=0
  fi
  # CSV columns: chapter,variant,reference,n,bytes,flops,median_ms,min_ms,max_ms,reps,gbps,gflops,
  # pct_peak_dram,pct_memcpy,speed_vs_ref,ref_name,check (check is last and may hold quoted commas).
  awk -F, -v size="2^$e" '
    NR == 1 { next }
    $2 == "cub" { cub_ms = $7; cub_pct = $14; next }
    $2 == "cudaMemcpy" || $3 == 1 { next }
    { rows[++count] = $0 }
    END {
      for (i = 1; i <= count; ++i) {
        split(rows[i], f, ",")
        check = (rows[i] ~ /,ok$/) ? "" : " (CHECK FAILED)"
        printf "| %s | %s%s | %.4f | %.1f | %.3f | %.1f | %.4f | %.1f |\n", size, f[2], check, f[7], f[11], \
               f[15], f[14], cub_ms, cub_pct
      }
    }' <<<"$csv"
done
