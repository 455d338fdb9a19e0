#!/bin/bash
# Call 7 (2026-11-27, second session): the rest of the fresh results run, chapters 30-38 with the FFT ladder sweep
# (tools/results --budget-ms 150, as call 6 ran the SGEMM one), at the commit in $COMMIT, default build options.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/b7; R=$OUT/r; mkdir -p $R
s=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/gpu.txt
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
T=$(for c in chapters/3[0-8]-*; do b=$(basename $c); echo chapters/$b/$b; done)
ninja -C $B $T > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "build $(( $(date +%s) - s )) s"
rem=$(( ${LIMIT:-585} - ($(date +%s) - s) )); echo "fft sweep gets $rem s"
timeout $rem tools/results --build $B --no-build --chapters 30-38 --budget-ms 150 --timeout 60 --commit ${COMMIT:-unknown} --name nvidia-h100-80gb-hbm3-sweeps-fft --out $R/results > $R/results-fft.log 2>&1; echo "fft rc=$? at $(( $(date +%s) - s )) s"; tail -3 $R/results-fft.log | cut -c1-200
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c7.tgz r && rm -rf r
