#!/bin/bash
# Call A: the README's test command as shipped (default options, meson's default parallelism), timed, on a
# fresh build directory; then the per-test and per-case durations. Logs in $OUT/check.tgz.
L=/tmp/logs-check; rm -rf $L; mkdir -p $L
B=/tmp/bcheck
echo "commit $(cat devrun/commit.txt)"; nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader | tee $L/gpus.txt
nproc; free -g | head -2
S=$SECONDS
BUILD=$B timeout ${CHECK_TIMEOUT:-545} tools/check > $L/check.txt 2>&1
echo "tools/check rc=$? wall $((SECONDS-S)) s"
grep -E "^(build|tests|note:|Ok:|Fail:|Skipped:|Timeout:)|took|tests:" $L/check.txt | tail -15
grep -E "FAIL|TIMEOUT" $L/check.txt | head -20
cp $B/meson-logs/testlog.txt $B/meson-logs/testlog.json $L/ 2>/dev/null
python3 - $B/meson-logs/testlog.json > $L/durations.txt <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for t in sorted(rows, key=lambda t: -t["duration"]):
    print(f'{t["duration"]:8.1f} s  {t["result"]:8s} {t["name"]}')
print(f'sum {sum(t["duration"] for t in rows):.1f} s over {len(rows)} tests')
PY
head -25 $L/durations.txt; tail -1 $L/durations.txt
tar czf $OUT/check.tgz -C /tmp logs-check
