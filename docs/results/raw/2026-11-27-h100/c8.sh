#!/bin/bash
# Call 8 (2026-11-27, second session): chapter 37's lab, the stage's cluster exchange without the FFT (the design's
# ceiling), at the commit in $COMMIT, default build options: the lab program at N = 32768 and 65536 (1 GiB batch:
# every exchange configuration, the stage, cudaMemcpy), ncu of the exchange and the stage at both lengths
# (2^24 elements, the chapter's first-screen capture's size), the lab's and the chapter's GPU tests, and the four
# compute-sanitizer tools over the lab's test.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/b8; R=$OUT/r; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
C=chapters/37-fft-thread-block-cluster
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B $C/lab/37-fft-cluster-exchange-lab $C/lab/37-fft-cluster-exchange-lab-test $C/37-fft-thread-block-cluster \
  $C/37-fft-thread-block-cluster-test > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
LAB=$B/$C/lab/37-fft-cluster-exchange-lab
for L in 32768 65536; do
  timeout 120 $LAB --length $L --budget-ms 300 --format csv > $R/lab-$L.csv 2> $R/lab-$L.err; echo "lab N=$L rc=$? at $(( $(date +%s) - s )) s"
  grep -v "^#" $R/lab-$L.csv | cut -d, -f2,7,11,14,15,17 | head -8
  timeout 60 $LAB --length $L --budget-ms 50 > $R/lab-$L.txt 2>&1; echo "lab text N=$L rc=$?"
done
for L in 32768 65536; do for v in exchange-c8 fft-thread-block-cluster; do
  timeout 100 python3 tools/ncu-compare --no-build --build $B --program $LAB --variant $v --length $L --preset fft \
    --out /tmp/ncu8 --csv $R/ncu-$v-$L.csv > $R/ncu-$v-$L.txt 2>&1; echo "ncu $v N=$L rc=$? at $(( $(date +%s) - s )) s"
done; done
timeout 200 meson test -C $B --suite 37-fft-cluster-exchange-lab --suite 37-fft-thread-block-cluster > $R/tests.log 2>&1; echo "tests rc=$? at $(( $(date +%s) - s )) s"
grep -E "^ *[0-9]+/[0-9]+ " $R/tests.log
rem=$(( ${LIMIT:-580} - ($(date +%s) - s) )); echo "sanitizers get $rem s"
T=$B/$C/lab/37-fft-cluster-exchange-lab-test
for tool in memcheck racecheck synccheck initcheck; do
  ( TUT_SANITIZER=1 timeout $rem compute-sanitizer --tool $tool --error-exitcode 1 $T > $R/san-$tool.txt 2>&1; echo "$tool rc=$?" > $R/san-$tool.rc ) &
done; wait
cat $R/san-*.rc; for t in memcheck racecheck synccheck initcheck; do tail -c 300 $R/san-$t.txt | tail -2; done
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c8.tgz r && rm -rf r
