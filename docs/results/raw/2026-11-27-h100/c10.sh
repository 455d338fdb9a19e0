#!/bin/bash
# Call 10 (2026-11-27, second session): planted bugs in chapter 37's lab kernel, each built into the lab's GPU test,
# which must fail: (a) the stores shifted by one element (the last signal overruns the output into its guard),
# (b) the last value of every thread never stored (a dropped tail). The plants are made with sed on the device's
# copy of the tree only.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../../../.."
B=/tmp/b10; R=$OUT/r; mkdir -p $R
s=$(date +%s)
K=chapters/37-fft-thread-block-cluster/lab/cluster_exchange.cuh
T=chapters/37-fft-thread-block-cluster/lab/37-fft-cluster-exchange-lab-test
cp $K /tmp/kernel.orig
meson setup $B -Dgpu_archs=90 > $R/setup.log 2>&1 || { tail -20 $R/setup.log; exit 1; }
plant() {  # name, sed expression
  cp /tmp/kernel.orig $K; sed -i "$2" $K; diff /tmp/kernel.orig $K > $R/plant-$1.diff && { echo "plant $1: sed changed nothing"; return; }
  ninja -C $B $T > $R/build-$1.log 2>&1 || { echo "plant $1: build failed"; tail -5 $R/build-$1.log; return; }
  timeout 120 $B/$T > $R/test-$1.log 2>&1; rc=$?
  echo "plant $1: test rc=$rc (must be non-zero) at $(( $(date +%s) - s )) s"; grep -m3 -E "ERROR|guard|mismatch" $R/test-$1.log | cut -c1-200
  grep -E "test cases|assertions" $R/test-$1.log | tail -2
}
plant overrun 's/dst\[k1 + P::N1 \* fft_tuned::input_element<RowPlan>(t, i)\] = v\[i\]/dst[k1 + P::N1 * fft_tuned::input_element<RowPlan>(t, i) + 1] = v[i]/'
plant dropped-tail 's/for (int i = 0; i < E; ++i) dst\[k1/for (int i = 0; i < E - 1; ++i) dst[k1/'
cp /tmp/kernel.orig $K
echo "total $(( $(date +%s) - s )) s"
cd $OUT && tar czf c10.tgz r && rm -rf r
