#!/usr/bin/env bash
# Size sweep for chapter 03: one table of GB/s (read + write) per variant, cudaMemcpy included, from
# L2-resident sizes to 4 GiB per buffer. Every run checks its output; the sweep stops at the first failure.
#
# usage: chapters/03-vectorized-loads/sweep.sh [BINARY] [options for the program...]
#   BINARY     default build/chapters/03-vectorized-loads/03-vectorized-loads
#   options    passed to every run, e.g. --offset 1, --flush-l2, --no-check, --variant int4,scalar
#   SIZES      sizes to run (default every power of two from 2^16 to 2^30), e.g. SIZES="2^20 2^28"
#   BUDGET_MS  timing budget per variant and size (default 250; the program's own default is 1000)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=build/chapters/03-vectorized-loads/03-vectorized-loads
if [[ $# -gt 0 && $1 != -* ]]; then bin=$1; shift; fi
sizes=${SIZES:-"2^16 2^17 2^18 2^19 2^20 2^21 2^22 2^23 2^24 2^25 2^26 2^27 2^28 2^29 2^30"}
exec tools/sweep "$bin" --over "size=${sizes// /,}" --metric gbps --budget-ms "${BUDGET_MS:-250}" -- "$@"
