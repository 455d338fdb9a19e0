#!/bin/bash
# helper h57, call 1: build 57 (+ a planted copy of its test), --variant all at 4096^3/6144^3/8192^3, the test,
# the plant, a few ncu metrics at 4096^3.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
cd "$(dirname "$0")/wt-57" || exit 1
R=/tmp/w57; rm -rf $R; mkdir -p $R; s=$(date +%s)
t() { echo "[$(( $(date +%s) - s )) s] $*" | tee -a $R/steps.log; }
left() { echo $(( ${LIMIT:-270} - ($(date +%s) - s) )); }
save() { tar czf $OUT/w57c1.tgz -C /tmp w57; }
trap save EXIT; trap "exit 143" TERM
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $R/gpu.txt
C=chapters/57-bf16-gemm-persistent; P=$C/57-bf16-gemm-persistent
rm -rf /tmp/wt57p && cp -a . /tmp/wt57p
sed -i 's/alpha \* f\[2\] + beta \* old\[i\]\[1\]\.x/alpha * f[2] + beta * old[i][0].x/' /tmp/wt57p/$C/c_epilogue.cuh
diff -u $C/c_epilogue.cuh /tmp/wt57p/$C/c_epilogue.cuh > $R/plant.diff
meson setup /tmp/b57 -Dgpu_archs=90 > $R/setup.log 2>&1 || { t "setup failed"; tail $R/setup.log; exit 1; }
(cd /tmp/wt57p && meson setup /tmp/b57p -Dgpu_archs=90 > $R/setup-p.log 2>&1)
ninja -C /tmp/b57p $P-test > $R/build-p.log 2>&1 &
ninja -C /tmp/b57 $P $P-test > $R/build.log 2>&1 || { t "build failed"; tail -30 $R/build.log; exit 1; }
t built
for n in 4096 6144 8192; do
  timeout 60 /tmp/b57/$P --variant all --budget-ms 200 --m $n --n $n --k $n --format csv > $R/57-$n.csv 2> $R/57-$n.err
  t "57 at $n rc=$?"
done
timeout $(( $(left) - 45 )) /tmp/b57/$P-test > $R/test.txt 2>&1; t "test rc=$? $(grep -E 'test cases:' $R/test.txt | tail -1)"
wait; t "plant built: $(tail -1 $R/build-p.log)"
timeout 40 /tmp/b57p/$P-test --test-case='*epilogue candidates*' > $R/plant.txt 2>&1; t "plant rc=$? $(grep -E 'test cases:' $R/plant.txt | tail -1)"
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
for v in bf16-gemm-persistent epilogue-prefetch cublas; do
  [ $(left) -gt 15 ] || break
  timeout $(( $(left) - 5 )) ncu --clock-control none --nvtx --nvtx-include "57-bf16-gemm-persistent/$v/timed/" --launch-count 1 --metrics $M --csv \
    /tmp/b57/$P --profile --variant $v --m 4096 --n 4096 --k 4096 > $R/ncu-$v.csv 2> $R/ncu-$v.err; t "ncu $v rc=$?"
done
t done
