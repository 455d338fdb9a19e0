#!/usr/bin/env python3
"""Writes the README blocks that come from this folder's captures (one NVIDIA H200, 2026-11-28, third session):
chapters 54 and 55 with their stage changed to the 128 x 128 x 64 block (call 1, the working tree of commit
c2f95f5): their first tables at 4096^3, their candidates at three shapes, and their ncu metric.

  python3 docs/results/raw/2026-11-28-h200-s3/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200-s3/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-28-h200-s3/tables.py --fill --check   # changes nothing; exit 1 on a difference

The tables are the 2026-11-28-h200-s2 script's (first_table, candidates_table, ncu_sentence), pointed at this
folder: its functions read their paths from their module's globals, which this script sets."""
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
LADDER = S2["LADDER"]
CALL1 = ("c2f95f5", 200)  # commit, --budget-ms of call 1 (c1.sh)

# The s2 functions' globals (one dict: every function of that script shares it).
g = S2["first_table"].__globals__
g.update(
    HERE=HERE,
    RAW_LINK="../../docs/results/raw/2026-11-28-h200-s3/",
    CALLS={"c1": CALL1},
    CANDIDATES_CALL="c1",
    RUN_FILES={c: f"c1/{c}-4096x4096x4096.csv" for c, _ in LADDER[4:]},
    NCU_CSV="c1/ncu-tc/ncu-tensor.csv",
    NCU_CHAPTERS="53,54,55",
    PROVENANCE=f"NVIDIA H200, CUDA 13.0, 2026-11-28, the working tree of commit `{CALL1[0]}`",
)
# On sm_90 the tensor preset's pipe metric (sm__pipe_tensor_op_hmma_cycles_active) counts wgmma's cycles too: its
# full name in `ncu --query-metrics --chip gh100` (c1/ncu-metrics.txt) is ..._hmma_type_hmma_hgmma_qgmma_...
g["NCU_METRICS"].update({"issue %": "smsp__issue_active.avg.pct_of_peak_sustained_active",
                       "time us": "gpu__time_duration.sum"})
g["NCU_WHY"].update({
    4: ("tensor pipe %", "time us",
        "the tensor pipe is busy {a}% of the active cycles (chapter 53's {p}%: on sm_90 the metric counts wgmma too) "
        "while the kernel takes {b} µs against chapter 53's {pb}: the same multiplications in fewer busy cycles, so "
        "each cycle of a `wgmma` does more of them than one of `mma.sync`"),
    5: ("issue %", "tensor pipe %",
        "the warps issue an instruction in {a}% of the cycles against chapter 54's {p}% (one thread asks TMA for a "
        "slice where 256 computed addresses and issued `cp.async`), and the tensor pipe is busy {b}% of the active "
        "cycles against {pb}%"),
})

TABLES = [(f"{LADDER[i][0]}-h200", S2["screen"](i)) for i in (4, 5)] + [
    ("54-candidates-h200", lambda: S2["candidates_table"](4)), ("55-candidates-h200", lambda: S2["candidates_table"](5))]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
