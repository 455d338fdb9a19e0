#!/bin/bash
# Call B: tools/check while another process holds all but a small GPU's worth of device memory and all but a
# small host's worth of host memory. Two machines simulated: 8 GB GPU + 16 GiB host, 16 GB GPU + 32 GiB host.
echo "commit $(cat devrun/commit.txt)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; nproc; free -g | head -2
B=/tmp/bsmall
S=$SECONDS; BUILD=$B timeout 200 tools/check --suite host > $OUT/build-and-host.txt 2>&1
echo "build + host tests rc=$? wall $((SECONDS-S)) s"; tail -1 $OUT/build-and-host.txt
nvcc -O2 -arch=native -o /tmp/memhog devrun/memhog.cu || exit 1
for cfg in "7 14 8gb" "14.5 29 16gb"; do
  set -- $cfg
  rm -f /tmp/memhog.ready
  /tmp/memhog --device-free $1 --host-avail $2 --ready /tmp/memhog.ready > $OUT/memhog-$3.txt 2>&1 &
  H=$!
  for i in $(seq 120); do [ -f /tmp/memhog.ready ] && break; sleep 1; done
  cat $OUT/memhog-$3.txt; nvidia-smi --query-gpu=memory.used,memory.free --format=csv,noheader; free -g | sed -n 2p
  rm -rf $B/meson-logs/testlog.json
  S=$SECONDS; BUILD=$B timeout 230 tools/check > $OUT/check-$3.txt 2>&1
  echo "[$3] tools/check rc=$? wall $((SECONDS-S)) s"
  kill -0 $H 2>/dev/null && echo "[$3] memhog still alive" || echo "[$3] memhog DIED"
  grep -E "skipped for lack|^  .*skipped: needs|^build|^tests:" $OUT/check-$3.txt
  grep -E "FAIL|TIMEOUT|Killed|out of memory" $OUT/check-$3.txt | head
  cp $B/meson-logs/testlog.txt $OUT/testlog-$3.txt
  kill $H; wait $H 2>/dev/null
  dmesg 2>/dev/null | grep -i "killed process" | tail -3
done
# The tour on this H100 with the build above, if time is left in the call.
if [ $SECONDS -lt 400 ]; then
  S=$SECONDS; BUILD=$B timeout 175 tools/tour > $OUT/tour-h100.txt 2>&1; echo "tools/tour rc=$? wall $((SECONDS-S)) s"
  grep "so far" $OUT/tour-h100.txt | tail -1; tail -3 $OUT/tour-h100.txt
fi
