#!/usr/bin/env bash
# Selectivity sweep for chapter 04: one table of median times (ms) per variant, cudaMemcpy of the
# input's bytes included. Times, not GB/s, are compared across rows: the bytes written grow with the
# selectivity. Every run checks its output; the sweep stops at the first failure.
#
# usage: chapters/04-warp-aggregated-atomics/sweep.sh [BINARY] [options for the program...]
#   BINARY         default build/chapters/04-warp-aggregated-atomics/04-warp-aggregated-atomics
#   options        passed to every run, e.g. --size 2^24, --no-check, --variant global-atomic,cub
#   SELECTIVITIES  percentages to run (default "0 1 50 99 100")
#   BUDGET_MS      timing budget per variant and selectivity (default 500; the program's default is 1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/chapters/04-warp-aggregated-atomics/04-warp-aggregated-atomics
if [[ $# -gt 0 && $1 != -* ]]; then bin=$1; shift; fi
sel=${SELECTIVITIES:-"0 1 50 99 100"}
exec tools/sweep "$bin" --over "selectivity=${sel// /,}" --metric median_ms --budget-ms "${BUDGET_MS:-500}" -- "$@"
