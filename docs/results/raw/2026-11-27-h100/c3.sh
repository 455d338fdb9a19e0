#!/bin/bash
# Call 3 (2026-11-27): tools/check as shipped (fresh build dir, default options and parallelism); exercise 18 as
# shipped must now fail (tools/exercise verify --ids 18); ncu of chapter 27's two off switches at 4096^3 (the
# stage's capture is in call 2); then compute-sanitizer over the tests of the changed chapters 24, 27, 29 and
# exercise 18's solution, all four tools, in parallel, with what time is left.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
rm -rf $BUILD
s=$(date +%s)
timeout ${CHECK_S:-440} tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc in $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/check.log | grep -vE " OK " | head -20
grep -E "^tests:|^build" $R/check.log | tail -3
cp $BUILD/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
python3 - > $R/check-failures.txt <<'PY'
import json,os
p=os.environ['BUILD']+'/meson-logs/testlog.json'
if os.path.exists(p):
    for line in open(p):
        t=json.loads(line)
        if t['result'] not in ('OK',):
            print('==',t['name'],t['result'],round(t['duration']),'s'); print(((t.get('stdout') or '')+(t.get('stderr') or ''))[-3000:])
PY
head -c 2000 $R/check-failures.txt
PYTHONUNBUFFERED=1 timeout 60 python3 tools/exercise --build $BUILD verify --ids 18 --require-gpu > $R/exercise-verify-18.txt 2>&1; echo "verify 18 rc=$?"; tail -6 $R/exercise-verify-18.txt
X=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for v in tuned-two-barriers tuned-no-copy-plan; do
  rem=$(( ${LIMIT:-565} - ($(date +%s) - s) )); [ $rem -lt 30 ] && { echo "no time for ncu 27 $v"; break; }
  timeout $rem python3 tools/ncu-compare --no-build --build $BUILD --chapters 27 --preset sgemm --metrics $X --variant $v --out /tmp/ncu27 --csv $R/ncu27-$v.csv > $R/ncu27-$v.txt 2>&1; echo "ncu 27 $v rc=$?"
done
for t in 24-sgemm-vectorized-transposed 27-sgemm-tuned 29-sgemm-split-k solution-18-packed-status-word; do
  for tool in memcheck racecheck synccheck initcheck; do echo "$tool $t"; done
done > $R/jobs.txt
left=$(( ${LIMIT:-565} - ($(date +%s) - s) - 5 )); echo "sanitizers get $left s"
export left R
[ $left -gt 20 ] && xargs -P 16 -L 1 bash -c 'ts=$(date +%s); timeout $left meson test -C $BUILD --no-rebuild --setup $0 $1 --logbase san-$0-$1 > /dev/null 2>&1; rc=$?; echo "$0 $1 rc=$rc $(( $(date +%s) - ts ))s" >> $R/summary.txt' < $R/jobs.txt
sort $R/summary.txt
for f in $BUILD/meson-logs/san-*.txt; do grep -v "^Inherited environment" $f | tail -c 6000 > $R/$(basename $f); done 2>/dev/null
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c3.tgz r && rm -rf r
