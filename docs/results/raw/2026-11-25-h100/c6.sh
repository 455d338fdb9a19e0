#!/bin/bash
# Call 6 (session 3, final): tools/check as shipped at HEAD (fresh build dir, default options and parallelism);
# then, from the same build, compute-sanitizer over the tests changed since the f043cbe sanitizer run (38 after its
# initcheck fix; 33-36 after the shared four-step code moved to common/fft), 16 jobs at a time; cuBLAS profiled at
# 4096^3 beside chapter 27 (what the moonshot's miss is made of); chapter 17 at 2^30.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
rm -rf $BUILD
s=$(date +%s)
timeout ${CHECK_S:-440} tools/check > $R/check.log 2>&1; rc=$?
echo "tools/check rc=$rc in $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/check.log | grep -vE " OK " | head -20
grep -E "^tests:|^build" $R/check.log | tail -3
grep -E "warning" $R/check.log | grep -v "^\[" | sort | uniq -c | head -8
cp $BUILD/meson-logs/testlog.txt $R/testlog.txt 2>/dev/null
python3 - > $R/check-failures.txt <<'PY'
import json,os
p=os.environ['BUILD']+'/meson-logs/testlog.json'
if os.path.exists(p):
    for line in open(p):
        t=json.loads(line)
        if t['result'] not in ('OK',):
            print('==',t['name'],t['result'],round(t['duration']),'s'); print(((t.get('stdout') or '')+(t.get('stderr') or ''))[-4000:])
PY
head -c 2500 $R/check-failures.txt
{
 for t in ${SAN_TESTS:-38-fft-two-pass 33-fft-registers-exchange 34-fft-high-radix 35-fft-tuned 36-fft-one-block-large}; do
  for tool in initcheck racecheck memcheck synccheck; do echo "$tool $t"; done
 done
} > $R/jobs.txt
left=$(( ${LIMIT:-560} - ($(date +%s) - s) - 5 )); echo "sanitizers get $left s"
export left R
[ $left -gt 20 ] && xargs -P 16 -L 1 bash -c 'ts=$(date +%s); timeout $left meson test -C $BUILD --no-rebuild --setup $0 $1 --logbase san-$0-$1 > /dev/null 2>&1; rc=$?; echo "$0 $1 rc=$rc $(( $(date +%s) - ts ))s" >> $R/summary.txt' < $R/jobs.txt
sort $R/summary.txt
for f in $BUILD/meson-logs/san-*.txt; do grep -v "^Inherited environment" $f > $R/$(basename $f); done 2>/dev/null
rem=$(( ${LIMIT:-560} - ($(date +%s) - s) ))
[ $rem -gt 30 ] && { timeout 25 $BUILD/chapters/17-scan-lookback-landing-zone/17-scan-lookback-landing-zone --size 2^30 --budget-ms 300 --format csv > $R/c17-2p30.csv 2>&1; echo "17 2^30 rc=$?"; cat $R/c17-2p30.csv | cut -c1-150; }
rem=$(( ${LIMIT:-560} - ($(date +%s) - s) )); echo "ncu gets $rem s"
[ $rem -gt 40 ] && { timeout $rem tools/ncu-compare --no-build --chapters 27 --preset sgemm --variant cublas --out $R/ncu27 --csv $R/ncu-cublas-4096.csv > $R/ncu-cublas-4096.txt 2>&1; echo "ncu cublas rc=$?"; tail -8 $R/ncu-cublas-4096.txt; rm -f $R/ncu27/*.ncu-rep; }
rem=$(( ${LIMIT:-560} - ($(date +%s) - s) )); echo "ncu fft gets $rem s"
[ $rem -gt 40 ] && { timeout $rem tools/ncu-compare --no-build --chapters 33,35 --preset fft --length 16384 --out $R/ncu3335 --csv $R/ncu-fft-16384.csv > $R/ncu-fft-16384.txt 2>&1; echo "ncu fft16384 rc=$?"; tail -8 $R/ncu-fft-16384.txt; rm -f $R/ncu3335/*.ncu-rep; }
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c6.tgz r && rm -rf r
