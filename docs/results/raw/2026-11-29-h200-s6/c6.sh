#!/bin/bash
# Session 6, call 6 on one H200: planted bugs in this session's new kernels, each built into its test and run:
#   pingpong-dropped-half: the ping-pong epilogue stores only the first m64 half of each tile (a dropped tail);
#   pingpong-overrun:      the ping-pong epilogue believes C has M + 16 rows (writes past C's end);
#   peak-dropped-iteration: 53-mma-sync-peak runs one iteration fewer than it counts.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
B=build-plant; R=/tmp/s6c6; rm -rf $R $B; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*"; }
save() { tar czf $OUT/s6c6.tgz -C /tmp s6c6; }
trap save EXIT; trap "exit 143" TERM
meson setup $B > $R/setup.log 2>&1 || exit 1
PP=chapters/57-bf16-gemm-persistent/gemm_pingpong.cuh; PK=chapters/53-bf16-gemm-cp-async-pipeline/mma_sync_peak.cu
T57=chapters/57-bf16-gemm-persistent/57-bf16-gemm-persistent-test; T53=chapters/53-bf16-gemm-cp-async-pipeline/53-mma-sync-peak
plant() {  # plant NAME FILE SED TARGET RUN...
  local name=$1 file=$2 expr=$3 target=$4; shift 4
  cp $file $R/orig; sed -i "$expr" $file; diff -u $R/orig $file > $R/$name.diff
  if [ ! -s $R/$name.diff ]; then echo "$name: the sed changed nothing"; cp $R/orig $file; return; fi
  ninja -C $B $target > $R/$name-build.log 2>&1 || { echo "$name: build failed"; tail $R/$name-build.log; }
  timeout 300 "$@" > $R/$name.txt 2>&1; local rc=$?
  cp $R/orig $file
  t "$name: rc=$rc ($(grep -E 'test cases:|expected|summed' $R/$name.txt | tail -1))"
}
plant pingpong-dropped-half $PP 's/for (int h = 0; h < T::kHalves; ++h) {/for (int h = 0; h < T::kHalves - 1; ++h) {/' $T57 $B/$T57 --test-case='*ping-pong*,*slice counts*,*more tiles than blocks*'
plant pingpong-overrun $PP 's/store_tile<T>(acc, C, m, n, t,/store_tile<T>(acc, C, m + 16, n, t,/' $T57 $B/$T57 --test-case='*ping-pong*,*slice counts*,*more tiles than blocks*'
plant peak-dropped-iteration $PK 's/for (int i = 0; i < iterations; ++i) {/for (int i = 1; i < iterations; ++i) {/' $T53 $B/$T53 --check
ninja -C $B $T57 $T53 > $R/clean-build.log 2>&1
timeout 200 $B/$T57 > $R/clean-57.txt 2>&1; t "clean 57 rc=$? ($(grep 'test cases:' $R/clean-57.txt))"
timeout 60 $B/$T53 --check > $R/clean-53.txt 2>&1; t "clean 53 --check rc=$?"
