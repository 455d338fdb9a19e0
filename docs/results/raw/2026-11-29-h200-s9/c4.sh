#!/bin/bash
# Session 9, call 4 on one H200, right after call 3 (its build directory build-s9c3 still there): the tensor ladder's
# GPU tests (50-59) under the four compute-sanitizer tools (tools/sanitize); then chapter 18's per-tile timeline on
# the H200 (int32 sum, 2^28), where its time goes.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
R=/tmp/s9c4; rm -rf $R; mkdir -p $R; s=$(date +%s)
save() { tar czf $OUT/s9c4.tgz -C /tmp s9c4; }
trap save EXIT; trap "exit 143" TERM
left() { echo $(( ${LIMIT:-300} - ($(date +%s) - s) )); }
BUILD=build-s9c3
[ -d $BUILD ] || { echo "no $BUILD: the machine was not kept warm"; exit 3; }
S=""; for c in chapters/5[0-9]-*/; do S="$S --suite $(basename $c)"; done
for tool in memcheck racecheck synccheck initcheck; do
  [ $(left) -gt 40 ] || { echo "sanitize $tool: no time left"; break; }
  timeout $(( $(left) - 30 )) python3 tools/sanitize --build $BUILD --no-rebuild --tools $tool $S -j 4 > $R/sanitize-$tool.txt 2>&1
  echo "[$(( $(date +%s) - s )) s] sanitize $tool rc=$? $(tail -n 1 $R/sanitize-$tool.txt)"
  cp $BUILD/meson-logs/testlog-$tool.txt $R/ 2>/dev/null
done
P18=$BUILD/chapters/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound
TUT_PLAN_DIR=$R/plans timeout 25 $P18 --size 2^28 --variant copy-bound-timeline --reps 3 > $R/18-timeline-int32-sum-2p28.txt 2>&1
echo "[$(( $(date +%s) - s )) s] 18 timeline rc=$?"
echo "[$(( $(date +%s) - s )) s] total"
