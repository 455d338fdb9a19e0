#!/bin/bash
# Call 5 (session 3): the sweeps tools/results could not fit in call 2: chapters 03 and 04 with their size and
# selectivity sweeps plus the SGEMM ladder sweep (20-29), then the FFT ladder sweep (30-38), each its own results
# file so that one finishing does not depend on the other.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
s=$(date +%s)
meson setup $BUILD > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
T=$(for c in chapters/03-* chapters/04-* chapters/2[0-9]-* chapters/3[0-8]-*; do b=$(basename $c); echo $c/$b; done)
ninja -C $BUILD $T > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
timeout ${A_S:-230} tools/results --build $BUILD --no-build --chapters 03,04,20-29 --budget-ms 150 --timeout 60 --commit ${COMMIT:-unknown} --name nvidia-h100-80gb-hbm3-sweeps-sgemm --out $R/results > $R/results-sgemm.log 2>&1; echo "sgemm rc=$? at $(( $(date +%s) - s )) s"; tail -3 $R/results-sgemm.log
rem=$(( ${LIMIT:-580} - ($(date +%s) - s) )); echo "fft gets $rem s"
timeout $rem tools/results --build $BUILD --no-build --chapters 30-38 --budget-ms 150 --timeout 60 --commit ${COMMIT:-unknown} --name nvidia-h100-80gb-hbm3-sweeps-fft --out $R/results > $R/results-fft.log 2>&1; echo "fft rc=$? at $(( $(date +%s) - s )) s"; tail -3 $R/results-fft.log
cd $OUT && tar czf c5.tgz r && rm -rf r
