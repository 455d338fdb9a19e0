#!/bin/bash
# Session 3, final call 3 (one H200, a fresh machine): chapter 56 at three shapes, every variant; chapter 35's
# GPU test after its plan-file check was fixed; then, time allowing, the planted bug in 56 (its test must fail)
# and ncu of 56. One tarball out.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=/tmp/b3; R=/tmp/f3; rm -rf $R; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/f3.tgz -C /tmp f3; }
trap save EXIT
left() { echo $(( ${LIMIT:-225} - ($(date +%s) - s) )); }
C=56-bf16-gemm-warp-specialized; P=chapters/$C/$C; T35=chapters/35-fft-tuned/35-fft-tuned-test
meson setup $B > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
ninja -C $B $P $T35 > $R/build.log 2>&1; t "build rc=$?"
for a in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 4095 --n 4097 --k 4096"; do
  f=$R/$C-$(echo $a | awk '{print $2"x"$4"x"$6}'); timeout 60 $B/$P --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "56 $a rc=$?"
done
cut -d, -f2,7,15 $R/$C-4096x4096x4096.csv
timeout 60 $B/$T35 > $R/t35.txt 2>&1; echo "rc=$?" >> $R/t35.txt; t "35 test $(tail -1 $R/t35.txt) $(grep -m1 'test cases' $R/t35.txt)"
if [ $(left) -gt 100 ]; then
  F=chapters/$C/gemm_warp_specialized.cuh; cp $F $F.orig
  sed -i 's/const int consumer = warpgroup - 1;/const int consumer = warpgroup;/' $F; diff -u $F.orig $F > $R/plant-56.diff
  timeout $(( $(left) - 25 )) ninja -C $B $P-test > $R/plant-build.log 2>&1; t "plant build rc=$?"
  timeout 30 $B/$P-test > $R/plant-56.txt 2>&1; echo "rc=$?" >> $R/plant-56.txt; t "56 planted: $(tail -1 $R/plant-56.txt) $(grep -m1 'test cases' $R/plant-56.txt)"
  mv $F.orig $F
fi
if [ $(left) -gt 40 ]; then
  timeout $(( $(left) - 10 )) tools/ncu-compare --build $B --no-build --preset tensor --chapters 56 --m 4096 --n 4096 --k 4096 \
    --out $R/ncu-tc --csv $R/ncu-tc/ncu-tensor.csv > $R/ncu-tc.txt 2>&1; t "ncu rc=$?"; rm -f $R/ncu-tc/*.ncu-rep
fi
t total
