#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 53's bound (c1: `53-mma-sync-peak`, mma.sync from registers alone, at a clean export of commit 11696e4 plus
the program) and what limits the stage under it (c1: ncu's full set on chapter 53's kernel at 4096^3).

  python3 docs/results/raw/2026-11-29-h200-s6/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s6/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s6/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s6/"
PROVENANCE = "NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, a clean export of commit `11696e4` plus the program"
S2_RUN = HERE.parent / "2026-11-28-h200-s2" / "c1" / "53-bf16-gemm-cp-async-pipeline-4096.csv"
S2_LINK = "../../docs/results/raw/2026-11-28-h200-s2/c1/53-bf16-gemm-cp-async-pipeline-4096.csv"


def mma_sync_peak():
    """(TFLOP/s, its share of the dense peak, the dense peak, the configuration) from the program's last line."""
    text = (HERE / "c1" / "runs" / "53-mma-sync-peak.txt").read_text()
    m = re.search(r"^mma\.sync peak: ([\d.]+) TFLOP/s \(([^)]*)\), ([\d.]+)% of the dense BF16 tensor peak ([\d.]+) "
                  r"TFLOP/s$", text, re.M)
    assert m, "no peak line"
    return float(m.group(1)), float(m.group(3)), float(m.group(4)), m.group(2)


def ncu_metrics():
    """{metric: value} of the one kernel in the full-set capture (ncu --page raw --csv)."""
    with open(HERE / "c1" / "ncu" / "53-full-raw.csv") as f:
        rows = list(csv.reader(f))
    return {k: v for k, v in zip(rows[0], rows[2])}


def number(text):
    return float(text.replace(",", ""))


def stage_tflops():
    """The stage's and cuBLAS's TFLOP/s in the first table's run (commit 1c6e409, the same kernel)."""
    with open(S2_RUN) as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    return float(rows["bf16-cp-async-pipeline"]["gflops"]) / 1000, float(rows["cublas"]["gflops"]) / 1000


def bound_53():
    """The first screen's line: the bound and the stage's share of it."""
    peak, share, dense, _ = mma_sync_peak()
    stage, _ = stage_tflops()
    return (f"**The bound:** `mma.sync` from registers alone gives {peak:.1f} TFLOP/s on this GPU, {share:.1f}% of "
            f"the dense BF16 peak (which only `wgmma` reaches); the stage reaches {100 * stage / peak:.1f}% of it "
            f"([what holds it back](#what-holds-it-under-its-bound)).")


def profile_53():
    """The deep dive: how the bound was measured, and ncu's profile of the stage under it."""
    peak, share, dense, config = mma_sync_peak()
    stage, cublas = stage_tflops()
    d = ncu_metrics()
    stall = lambda name: number(d[f"smsp__average_warps_issue_stalled_{name}_per_issue_active.ratio"])
    warps = number(d["smsp__warps_active.avg.per_cycle_active"])
    eligible = number(d["smsp__warps_eligible.avg.per_cycle_active"])
    pipe = number(d["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"])
    return (
        f"[`53-mma-sync-peak`](mma_sync_peak.cu) times `mma.sync.m16n8k16` on register fragments that never change, "
        f"in independent accumulator chains on every SM, with nothing to load; it checks every accumulator's sum. "
        f"Its best configuration ({config}) gives {peak:.1f} TFLOP/s, {share:.1f}% of the dense BF16 peak of "
        f"{dense:.1f} ({PROVENANCE}; raw: [53-mma-sync-peak.txt]({RAW_LINK}c1/runs/53-mma-sync-peak.txt)). The "
        f"stage's {stage:.1f} TFLOP/s in the first table are {100 * stage / peak:.1f}% of it, and cuBLAS's "
        f"{cublas:.1f} (`wgmma`) {100 * cublas / peak:.1f}% (two runs, not one process: [the table's]({S2_LINK}) "
        f"and the bound's).\n\n"
        f"`ncu --set full` on the stage's kernel at 4096³ (same provenance; raw: "
        f"[53-full-details.csv]({RAW_LINK}c1/ncu/53-full-details.csv)): the tensor pipe is busy {pipe:.1f}% of the "
        f"active cycles. Each scheduler has {warps:.2f} warps (2 blocks of 8 warps per SM: registers and shared "
        f"memory allow no third), of which {eligible:.2f} is eligible on average. Per issued instruction the warps "
        f"wait {stall('wait'):.2f} cycles on fixed-latency dependencies (`stall wait`: an `mma.sync` waiting for "
        f"the one before it on the same accumulators), {stall('long_scoreboard'):.2f} on global memory "
        f"(`long scoreboard`), {stall('barrier'):.2f} at the block barrier and {stall('math_pipe_throttle'):.2f} "
        f"on a busy tensor pipe. There are too few independent `mma.sync`s per scheduler to cover their latency: "
        f"the next steps would be more accumulators per warp (a larger warp tile) or more warps per SM (fewer "
        f"registers each).")


TABLES = [("53-mma-sync-peak-h200", bound_53), ("53-under-the-bound-h200", profile_53)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
