#!/bin/bash
# Call 1 (session 3): tools/check as shipped (fresh build dir, default options and parallelism) into build/ (kept
# on a warm machine for the next calls); then chapter 40 --variant all at 2^28 and 2^30 and chapter 18's timeline.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
rm -rf $BUILD
s=$(date +%s)
timeout ${CHECK_S:-490} tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc in $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/check.log | grep -vE " OK " | head -20
grep -E "^tests:|^build|Ok:|Fail:|Skipped:" $R/check.log | tail -5
grep -E "warning" $R/check.log | grep -v "^\[" | sort | uniq -c | head -8
cp $BUILD/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
python3 - > $R/check-failures.txt <<'PY'
import json,os
p=os.environ['BUILD']+'/meson-logs/testlog.json'
if os.path.exists(p):
    for line in open(p):
        t=json.loads(line)
        if t['result'] not in ('OK',):
            print('==',t['name'],t['result'],round(t['duration']),'s'); print(((t.get('stdout') or '')+(t.get('stderr') or ''))[-5000:])
PY
head -c 2500 $R/check-failures.txt
C=$BUILD/chapters
P40=$C/40-scan-multi-gpu/40-scan-multi-gpu
for sz in 2^28 2^30; do timeout 45 $P40 --size $sz --variant all --budget-ms 300 > $R/c40-$sz.txt 2>&1; echo "40 $sz rc=$?"; grep -E "^\| |^(scan|cudaMemcpy)" $R/c40-$sz.txt | cut -c1-160 | head -12; done
timeout 40 $C/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound --type int32 --op sum --size 2^28 --variant copy-bound-timeline --reps 3 > $R/timeline-int32-sum-2p28.txt 2>&1; echo "18 timeline rc=$?"; tail -25 $R/timeline-int32-sum-2p28.txt
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c1.tgz r && rm -rf r
