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
    peak, share, dense, config = mma_sync_peak()
    stage, cublas = stage_tflops()
    d = ncu_metrics()
    stall = lambda name: number(d[f"smsp__average_warps_issue_stalled_{name}_per_issue_active.ratio"])
    warps = number(d["smsp__warps_active.avg.per_cycle_active"])
    eligible = number(d["smsp__warps_eligible.avg.per_cycle_active"])
    pipe = number(d["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"])
    return (
        f"**The bound of this stage's instruction.** `mma.sync` is not the H200's fastest tensor instruction: from "
        f"registers alone, with nothing to load, it gives **{peak:.1f} TFLOP/s**, {share:.1f}% of the dense BF16 peak "
        f"({dense:.1f}, which only `wgmma` reaches; [`53-mma-sync-peak`](mma_sync_peak.cu), {config}; "
        f"{PROVENANCE}; raw: [53-mma-sync-peak.txt]({RAW_LINK}c1/runs/53-mma-sync-peak.txt)). The stage's "
        f"{stage:.1f} TFLOP/s in the table above are {100 * stage / peak:.1f}% of that bound, and cuBLAS's "
        f"{cublas:.1f} (`wgmma`) {100 * cublas / peak:.1f}% of it (two runs, not one process: "
        f"[the table's]({S2_LINK}) and the bound's). What holds the stage "
        f"back, from `ncu --set full` on its kernel at 4096³ (same provenance; raw: "
        f"[53-full-details.csv]({RAW_LINK}c1/ncu/53-full-details.csv)): the tensor pipe is busy {pipe:.1f}% of "
        f"the active cycles; each scheduler has {warps:.2f} warps (2 blocks of 8 warps per SM: registers and shared "
        f"memory allow no third) of which {eligible:.2f} is eligible on average, and per issued instruction the "
        f"warps wait {stall('wait'):.2f} cycles on fixed-latency dependencies (`stall wait`: an `mma.sync` "
        f"waiting for the one before it on the same accumulators), "
        f"{stall('long_scoreboard'):.2f} on global memory (`long scoreboard`), {stall('barrier'):.2f} at the "
        f"block barrier and {stall('math_pipe_throttle'):.2f} on a busy tensor pipe. Too few independent "
        f"`mma.sync`s per scheduler to cover their latency: the next steps would be more accumulators per warp "
        f"(a larger warp tile) or more warps per SM (fewer registers each).")


TABLES = [("53-mma-sync-peak-h200", bound_53)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
