#!/bin/bash
# Planted bugs in the tensor ladder's kernels (on the device's copy only): each must make its chapter's GPU test
# fail. Usage: devrun/plant.sh BUILD OUTDIR. The files are restored at the end.
B=$1; R=$2; mkdir -p $R
plants=(
  "50-bf16-gemm-fp32-lanes|chapters/50-bf16-gemm-fp32-lanes/gemm_fp32_lanes.cuh|s/for (int k0 = 0; k0 < k; k0 += kBlockK)/for (int k0 = 0; k0 + kBlockK <= k; k0 += kBlockK)/|the K tail dropped"
  "51-bf16-gemm-wmma|chapters/51-bf16-gemm-wmma/gemm_wmma.cuh|s/for (int k0 = 0; k0 < k; k0 += kBlockK)/for (int k0 = 0; k0 + kBlockK <= k; k0 += kBlockK)/|the K tail dropped"
  "52-bf16-gemm-mma-ldmatrix|chapters/52-bf16-gemm-mma-ldmatrix/gemm_mma_sync.cuh|s/for (int k0 = 0; k0 < k; k0 += kBlockK)/for (int k0 = 0; k0 + kBlockK <= k; k0 += kBlockK)/|the K tail dropped"
  "53-bf16-gemm-cp-async-pipeline|chapters/53-bf16-gemm-cp-async-pipeline/gemm_multistage.cuh|s/a_stages + Pipeline::stage_of(s) \* kATileElements/a_stages + Pipeline::stage_of(s + 1) * kATileElements/|A read from the stage of slice s + 1"
  "54-bf16-gemm-wgmma|chapters/54-bf16-gemm-wgmma/gemm_wgmma.cuh|s/const int slices = (k + Tile::kBlockK - 1) \/ Tile::kBlockK;/const int slices = k \/ Tile::kBlockK;/|the K tail dropped"
  "55-bf16-gemm-tma-mbarrier|chapters/55-bf16-gemm-tma-mbarrier/gemm_tma.cuh|s/\&map_b, s \* T::kBlockK, n0/\&map_b, 0, n0/|B's K coordinate fixed at slice 0"
)
[ -n "${EXTRA_PLANT:-}" ] && plants+=("$EXTRA_PLANT")
targets=
for p in "${plants[@]}"; do
  IFS='|' read -r ch file expr why <<< "$p"
  cp "$file" "$file.orig"; sed -i "$expr" "$file"
  diff -u "$file.orig" "$file" > "$R/plant-$ch.diff"
  [ -s "$R/plant-$ch.diff" ] || echo "plant $ch: the sed changed nothing" | tee -a $R/plants.txt
  targets="$targets chapters/$ch/$ch-test"
done
ninja -C $B $targets > $R/plant-build.log 2>&1; echo "plant build rc=$?" | tee -a $R/plants.txt
for p in "${plants[@]}"; do
  IFS='|' read -r ch file expr why <<< "$p"
  timeout 90 $B/chapters/$ch/$ch-test > $R/plant-$ch.txt 2>&1; rc=$?
  echo "plant $ch ($why): test rc=$rc $( [ $rc -ne 0 ] && echo FAILS-as-wanted || echo PASSED-the-plant-went-unseen) $(grep -m1 -E 'test cases' $R/plant-$ch.txt)" | tee -a $R/plants.txt
  mv "$file.orig" "$file"
done
ninja -C $B $targets > /dev/null 2>&1
