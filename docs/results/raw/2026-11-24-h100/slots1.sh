#!/bin/bash
# Call C: the simulated 8 GB GPU + 16 GiB host again: tools/check with its four slots (the new skip lines and
# hint), then TUT_GPU_TEST_SLOTS=1 tools/check --suite gpu (the cases kept out by the margin run alone).
echo "commit $(cat devrun/commit.txt)"
B=/tmp/bsmall
S=$SECONDS; BUILD=$B timeout 200 tools/check --suite host > $OUT/build-and-host.txt 2>&1
echo "build + host tests rc=$? wall $((SECONDS-S)) s"; tail -1 $OUT/build-and-host.txt
nvcc -O2 -arch=native -o /tmp/memhog devrun/memhog.cu || exit 1
rm -f /tmp/memhog.ready
/tmp/memhog --device-free 7 --host-avail 14 --ready /tmp/memhog.ready > $OUT/memhog-8gb.txt 2>&1 &
H=$!
for i in $(seq 120); do [ -f /tmp/memhog.ready ] && break; sleep 1; done
cat $OUT/memhog-8gb.txt
for run in slots4 slots1; do
  if [ $run = slots1 ]; then export TUT_GPU_TEST_SLOTS=1; ARGS="--suite gpu"; T=330; else ARGS=; T=200; fi
  S=$SECONDS; BUILD=$B timeout $T tools/check $ARGS > $OUT/check-8gb-$run.txt 2>&1
  echo "[$run] tools/check $ARGS rc=$? wall $((SECONDS-S)) s"
  kill -0 $H 2>/dev/null && echo "[$run] memhog still alive" || echo "[$run] memhog DIED"
  grep -c "skipped: needs" $OUT/check-8gb-$run.txt
  grep -E "skipped for lack|TUT_GPU_TEST_SLOTS=1|^build|^tests:" $OUT/check-8gb-$run.txt
  grep -E "kept for" $OUT/check-8gb-$run.txt | head -3
  grep -E "FAIL|TIMEOUT|Killed|out of memory" $OUT/check-8gb-$run.txt | head
  cp $B/meson-logs/testlog.txt $OUT/testlog-8gb-$run.txt
done
kill $H; wait $H 2>/dev/null
