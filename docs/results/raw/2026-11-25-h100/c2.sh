#!/bin/bash
# Call 2 (session 3): tools/results over every chapter from build/ (built by call 1 if the machine stayed warm,
# else built here), then chapter 38's sweep N = 8 .. 2^20 with what time is left.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/.."
export BUILD=$PWD/build; R=$OUT/r; mkdir -p $R
s=$(date +%s)
if [ ! -f $BUILD/build.ninja ]; then echo "cold: building"; meson setup $BUILD > $R/setup.log 2>&1 && ninja -C $BUILD > $R/build.log 2>&1 || { tail -20 $R/build.log; }; echo "build $(( $(date +%s) - s )) s"; fi
timeout ${RES_S:-330} tools/results --build $BUILD --no-build --budget-ms 300 --commit ${COMMIT:-unknown} --out $R/results > $R/results.log 2>&1; echo "results rc=$? in $(( $(date +%s) - s )) s"
tail -15 $R/results.log
rem=$(( ${LIMIT:-575} - ($(date +%s) - s) )); echo "sweep gets $rem s"
[ $rem -gt 30 ] && { timeout $rem chapters/38-fft-two-pass/sweep.sh $R/sweep38 $BUILD/chapters/38-fft-two-pass/38-fft-two-pass > $R/sweep38.log 2>&1; echo "38 sweep rc=$?"; tail -3 $R/sweep38.log; ls $R/sweep38 | tr '\n' ' '; }
python3 chapters/36-fft-one-block-large/plot.py $R/sweep38 $R/sweep38/fft-two-pass-h100.png > /dev/null 2>&1 && echo plotted
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c2.tgz r && rm -rf r
