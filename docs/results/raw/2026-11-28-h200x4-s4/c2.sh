#!/bin/bash
# Session 4, call 2 on 4 x H200: the sm_90 build of the tree (build-gpu), then four GPUs at once, one job each:
#   GPU 0: chapter 57 at four shapes, every variant; ncu of 56 and 57 (tensor preset)
#   GPU 1: the tuned stages' plans (first run measures, second reads the cache), then tools/results for 50-57
#   GPU 2: chapter 18's two planted bugs (fold from the first lane; PairedStatus accepting mismatched flags)
#   GPU 3: chapter 57's planted bug (accumulators zeroed for a block's first tile only)
# The plants build in build directories of their own (the source is restored as soon as each is compiled).
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=${BUILD:-build-gpu}; R=/tmp/s4x3; rm -rf $R; mkdir -p $R/plan $R/plants; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s4x3.tgz -C /tmp s4x3; }
trap save EXIT
left() { echo $(( ${LIMIT:-560} - ($(date +%s) - s) )); }
if [ ! -f $B/build.ninja ]; then
  meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
fi
ninja -C $B > $R/build.log 2>&1 || { grep -A20 FAILED $R/build.log | head -60; exit 1; }
t "build"
CH=$B/chapters
gpu0() {
  export CUDA_VISIBLE_DEVICES=0; local C=57-bf16-gemm-persistent
  for a in "--m 4096 --n 4096 --k 4096" "--m 8192 --n 8192 --k 8192" "--m 6144 --n 6144 --k 6144" "--m 4095 --n 4097 --k 4096"; do
    local f=$R/$C-$(echo $a | awk '{print $2"x"$4"x"$6}')
    timeout 120 $CH/$C/$C --variant all --budget-ms 200 --format csv $a > $f.csv 2> $f.err; t "57 $a rc=$?"
  done
  timeout 150 tools/ncu-compare --build $B --no-build --preset tensor --chapters 56,57 --m 4096 --n 4096 --k 4096 \
    --out $R/ncu-tc --csv $R/ncu-tc/ncu-tensor.csv > $R/ncu-tc.txt 2>&1; t "ncu rc=$?"; rm -f $R/ncu-tc/*.ncu-rep
}
gpu1() {
  export CUDA_VISIBLE_DEVICES=1 TUT_PLAN_DIR=$R/plans
  run() { local n=$1; shift; timeout 60 "$@" --budget-ms 200 > $R/plan/$n.txt 2>&1; echo "rc=$?" >> $R/plan/$n.txt; }
  run 17-a $CH/17-scan-lookback-landing-zone/17-scan-lookback-landing-zone --size 2^28
  run 17-b $CH/17-scan-lookback-landing-zone/17-scan-lookback-landing-zone --size 2^28
  run 18-a $CH/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound --size 2^28
  run 18-b $CH/18-scan-any-type-copy-bound/18-scan-any-type-copy-bound --size 2^28
  run 27-a $CH/27-sgemm-tuned/27-sgemm-tuned --size 4096; run 27-b $CH/27-sgemm-tuned/27-sgemm-tuned --size 4096
  run 28-4096 $CH/28-sgemm-tile-by-shape/28-sgemm-tile-by-shape --size 4096
  run 28-skinny $CH/28-sgemm-tile-by-shape/28-sgemm-tile-by-shape --m 64 --n 4096 --k 16384
  run 29-4096 $CH/29-sgemm-split-k/29-sgemm-split-k --size 4096
  run 29-skinny-all $CH/29-sgemm-split-k/29-sgemm-split-k --m 64 --n 4096 --k 16384 --variant all
  run 29-skinny-b $CH/29-sgemm-split-k/29-sgemm-split-k --m 64 --n 4096 --k 16384
  t "scan and sgemm plans done"
  for L in 2048 4096; do run 35-$L $CH/35-fft-tuned/35-fft-tuned --length $L; done
  for L in 8192 16384; do run 36-$L $CH/36-fft-one-block-large/36-fft-one-block-large --length $L; done
  for L in 32768 65536; do run 37-$L $CH/37-fft-thread-block-cluster/37-fft-thread-block-cluster --length $L; done
  for L in 65536 262144 1048576; do run 38-$L $CH/38-fft-two-pass/38-fft-two-pass --length $L; done
  run 38-1048576-b $CH/38-fft-two-pass/38-fft-two-pass --length 1048576
  t "fft plans done"; grep -H "plan" $R/plan/*.txt | cut -c1-240 > $R/plan-lines.txt
  unset TUT_PLAN_DIR
  if [ $(left) -gt 150 ]; then
    timeout $(( $(left) - 40 )) tools/results --build $B --no-build --no-sweeps --no-plots --budget-ms 200 --chapters 50-57 \
      --commit ${COMMIT:-unknown} --name nvidia-h200-2026-11-28-tensor --out $R/results > $R/results.log 2>&1; t "results rc=$?"
  fi
}
# plant NAME GPU FILE SED TEST-TARGET WHY: a build directory of its own, the planted source restored once compiled.
plant() {
  local name=$1 gpu=$2 file=$3 expr=$4 target=$5 why=$6 PB=build-plant-$2
  [ -f $PB/build.ninja ] || meson setup $PB -Dgpu_archs=90 > $R/plants/setup-$gpu.log 2>&1
  cp "$file" "$R/plants/orig-$name"; sed -i "$expr" "$file"; diff -u "$R/plants/orig-$name" "$file" > $R/plants/$name.diff
  [ -s $R/plants/$name.diff ] || echo "plant $name: the sed changed nothing" >> $R/plants/plants.txt
  ninja -C $PB $target > $R/plants/build-$name.log 2>&1; local brc=$?
  cp "$R/plants/orig-$name" "$file"; touch "$file"
  CUDA_VISIBLE_DEVICES=$gpu timeout 200 $PB/$target > $R/plants/$name.txt 2>&1; local rc=$?
  echo "plant $name ($why): build rc=$brc, test rc=$rc $( [ $rc -ne 0 ] && echo FAILS-as-wanted || echo PASSED-the-plant-went-unseen) $(grep -m1 -E 'test cases' $R/plants/$name.txt)" >> $R/plants/plants.txt
}
C18=chapters/18-scan-any-type-copy-bound; T18=$C18/18-scan-any-type-copy-bound-test
C57=chapters/57-bf16-gemm-persistent; T57=$C57/57-bf16-gemm-persistent-test
gpu2() {
  plant 18-fold-from-first 2 $C18/scan_copy_bound.cuh \
    's/const int start = restarts != 0 ? kWarpSize - 1 - __clz(static_cast<int>(restarts)) : first;/const int start = first;/' \
    $T18 "the ordered fold starts at the first lane, not the last inclusive prefix"
  plant 18-paired-mismatch 2 $C18/scan_copy_bound.cuh \
    's/return low == high ? low : static_cast<std::uint32_t>(kInvalid);/return low;/' \
    $T18 "PairedStatus takes the halves whatever the high word's flag"
}
gpu3() {
  plant 57-acc-first-tile 3 $C57/gemm_persistent.cuh \
    's/acc\[i\] = 0\.0f;/if (tile == static_cast<int>(blockIdx.x)) acc[i] = 0.0f;/' \
    $T57 "accumulators zeroed for a block's first tile only"
}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > $R/gpu.txt
gpu0 > $R/gpu0.log 2>&1 & gpu1 > $R/gpu1.log 2>&1 & gpu2 > $R/gpu2.log 2>&1 & gpu3 > $R/gpu3.log 2>&1 &
wait
cat $R/gpu0.log $R/gpu1.log; cat $R/plants/plants.txt; cut -d, -f2,7,15 $R/57-bf16-gemm-persistent-4096x4096x4096.csv 2>/dev/null | head -12
t total
