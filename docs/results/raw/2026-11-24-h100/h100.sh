#!/bin/bash
# Call A on an H100: the README's test command as shipped on a fresh build directory, then the tour.
echo "commit $(cat devrun/commit.txt)"
CHECK_TIMEOUT=400 bash devrun/check.sh
S=$SECONDS
timeout 170 tools/tour > $OUT/tour.txt 2>&1; echo "tools/tour rc=$? wall $((SECONDS-S)) s"
tail -4 $OUT/tour.txt
