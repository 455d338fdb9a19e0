#!/bin/sh
# The stage's plan per GPU and the plan cache at work (docs/tuning-per-gpu.md), on one GPU in about a minute:
# the full GPU and a 92-SM green context (an H100 asking each SM for what an H200 does), the plan line of each,
# a second run reading the cache, a corrupt plan file ignored with one line, --replan, and cudaMemcpy at 16 SMs
# (is the copy restricted too?). Usage: chapters/18-scan-any-type-copy-bound/plan-demo.sh [BUILD_DIR]
set -u
build=${1:-build-gpu}
prog=$build/chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
[ -x "$prog" ] || { echo "plan-demo: no $prog; build it first" >&2; exit 2; }
TUT_PLAN_DIR=$(mktemp -d /tmp/tut-plan-demo-XXXXXX)
export TUT_PLAN_DIR
run() { echo "\$ $prog $*"; "$prog" --budget-ms 200 "$@"; echo "exit $?"; echo; }
echo "== 1. full GPU, empty cache: the plan is measured and cached"
run -v scan-copy-bound
echo "== 2. again: the plan is read from the cache"
run -v scan-copy-bound
echo "== 3. 92 SMs (green context): its own plan file"
run -v scan-copy-bound --sms 92
echo "== 4. a corrupt plan file: ignored with one line, measured again"
for f in "$TUT_PLAN_DIR"/*--132sm.plan "$TUT_PLAN_DIR"/*sm.plan; do [ -f "$f" ] && head -c 20 "$f" > "$f.cut" && mv "$f.cut" "$f" && break; done
run -v scan-copy-bound
echo "== 5. --replan: measured again, overwritten"
run -v scan-copy-bound --replan
echo "== 6. a small problem: the model decides (one wave of tiles)"
run -v scan-copy-bound --size 2^16
echo "== 7. cudaMemcpy and CUB at 16 SMs against the full GPU (the copy row must fall if the copy is restricted)"
run -v cub --sms 16 --size 2^26
run -v cub --size 2^26
echo "== 8. chapter 03's copies and cudaMemcpy: the full GPU against 92 SMs"
copy=$build/chapters/03-vectorized-loads/03-vectorized-loads
if [ -x "$copy" ]; then
  for sms in "" "--sms 92"; do echo "\$ $copy --budget-ms 200 $sms"; "$copy" --budget-ms 200 $sms; echo "exit $?"; echo; done
fi
echo "== 9. bad --sms: one line, exit 2"
run --sms 100000
echo "== the plan files"
ls -l "$TUT_PLAN_DIR"; cat "$TUT_PLAN_DIR"/*.plan
rm -rf "$TUT_PLAN_DIR"
