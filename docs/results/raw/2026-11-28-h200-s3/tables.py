#!/usr/bin/env python3
"""Writes the README blocks that come from this folder's captures (one NVIDIA H200, 2026-11-28, third session):
chapters 54 and 55 with their stage changed to the 128 x 128 x 64 block (call 1, the working tree of commit
c2f95f5): their first tables at 4096^3, their candidates at three shapes, and their ncu metric; chapter 18's
sums before and after its two look-back changes (calls 2 and 3, and session 2's call 1 for "before").

  python3 docs/results/raw/2026-11-28-h200-s3/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200-s3/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-28-h200-s3/tables.py --fill --check   # changes nothing; exit 1 on a difference

The tables are the 2026-11-28-h200-s2 script's (first_table, candidates_table, ncu_sentence), pointed at this
folder: its functions read their paths from their module's globals, which this script sets."""
import csv
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
H100 = runpy.run_path(str(HERE.parent / "2026-11-25-h100" / "tables.py"))  # its CSV reader
LADDER = S2["LADDER"]
CALL1 = ("c2f95f5", 200)  # commit, --budget-ms of call 1 (c1.sh)
CALL5 = ("3483b2a", 200)  # call 5 (c5.sh): chapter 56
LADDER.append(("56-bf16-gemm-warp-specialized", "bf16-gemm-warp-specialized"))

# The s2 functions' globals (one dict: every function of that script shares it).
g = S2["first_table"].__globals__
g.update(
    HERE=HERE,
    RAW_LINK="../../docs/results/raw/2026-11-28-h200-s3/",
    CALLS={"c1": CALL1, "c5": CALL5},
    CANDIDATES_CALL="c1",
    RUN_FILES={c: f"{'c5' if c.startswith('56') else 'c1'}/{c}-4096x4096x4096.csv" for c, _ in LADDER[4:]},
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
    6: ("tensor pipe %", "stall long sb",
        "the tensor pipe is busy {a}% of the active cycles, against {p}% in chapter 55's kernel (its two blocks per SM, "
        "profiled in call 1 of this session), and the `long scoreboard` stall per issued instruction is {b} against "
        "{pb}"),
})

# Chapter 18 on the H200 after its two look-back changes: (label, the run's CSV here, its commit, the change that
# moved the row). The same rows before both changes come from session 2's call 1 (before_18).
SUMS_18 = [
    ("int32 sum, 2^28", "c2/c18__size_2_28.csv", "9d051af", "neither (4-byte, regroupable)"),
    ("float sum, 2^28", "c3/c18__size_2_28___type_float.csv", "9057c86", "the fold"),
    ("float sum, 2^30", "c2/c18__size_2_30___type_float.csv", "9d051af", "the fold"),
    ("int64 sum, 2^28", "c3/c18__size_2_28___type_int64.csv", "9057c86", "the paired status"),
    ("int64 sum, 2^30", "c3/c18__size_2_30___type_int64.csv", "9057c86", "the paired status"),
    ("double sum, 2^28", "c3/c18__size_2_28___type_double.csv", "9057c86", "the fold and the paired status"),
    ("double max, 2^28", "c3/c18__size_2_28___type_double___op_max.csv", "9057c86", "the paired status"),
]


def rows_18(path):
    """{variant: row} of one run's CSV (the H100 script's reader: '#' banner lines skipped)."""
    return H100["by_variant"](HERE / path)


def before_18():
    """{"int32 sum, 2^28": (stage % of copy, vs CUB)} of the same GPU before both changes: session 2's call 1
    (commit 1c6e409), whose output printed each run's CSV rows."""
    text = (HERE.parent / "2026-11-28-h200-s2" / "c1" / "call1-output.txt").read_text()
    out = {}
    for args, block in re.findall(r"^\[\d+ s\] 18 (--size [^\n]*?) rc=0\n((?:18-scan[^\n]*\n)+)", text, re.M):
        st = next(c for c in (line.split(",") for line in block.splitlines()) if c[1] == "scan-copy-bound")
        typ = re.search(r"--type (\S+)", args)
        size = re.search(r"--size (\S+)", args).group(1)
        out[f"{typ.group(1) if typ else 'int32'} sum, {size}"] = (float(st[13]), float(st[14]))
    return out


def sums_18():
    before = before_18()
    out = ["| chapter 18 on the H200 | stage % of `cudaMemcpy` | CUB % of `cudaMemcpy` | stage vs CUB | before: % of "
           "`cudaMemcpy`, vs CUB | what changed it |", "|---|---:|---:|---:|---:|---|"]
    for label, path, commit, change in SUMS_18:
        r = rows_18(path)
        st, cub = r["scan-copy-bound"], r["cub"]
        assert st["check"] == cub["check"] == "ok", path
        was = f"{before[label][0]:.1f}, {before[label][1]:.3f}x" if label in before else "–"
        tie = float(st["min_ms"]) <= float(cub["max_ms"]) and float(cub["min_ms"]) <= float(st["max_ms"])
        out.append(f"| {label} | {float(st['pct_memcpy']):.1f} | {float(cub['pct_memcpy']):.1f} | "
                   f"{float(st['speed_vs_ref']):.3f}x{' (a tie)' if tie else ''} | {was} | {change} |")
    out += ["", "Each row from one process: `18-scan-any-type-copy-bound --type T --op OP --size N --budget-ms 300` "
                "(NVIDIA H200, CUDA 13.0, 2026-11-28; the int32 and 2^30 float rows on the working tree of commit "
                "`9d051af`, the others of `9057c86`; raw: [c2/](../../docs/results/raw/2026-11-28-h200-s3/c2/), "
                "[c3/](../../docs/results/raw/2026-11-28-h200-s3/c3/)). \"Before\": the same GPU and command before "
                "both changes (commit `1c6e409`, [call1-output.txt](../../docs/results/raw/2026-11-28-h200-s2/c1/"
                "call1-output.txt)); \"–\": not run then. A tie: the ranges of the two rows' repetitions overlap."]
    return "\n".join(out)


def with_call(call, ncu_csv, ncu_chapters, make):
    """make() with the s2 functions reading call `call`'s files (the candidates, the ncu capture)."""
    def run():
        g.update(CANDIDATES_CALL=call, NCU_CSV=ncu_csv, NCU_CHAPTERS=ncu_chapters,
                 PROVENANCE=f"NVIDIA H200, CUDA 13.0, 2026-11-28, the working tree of commit `{g['CALLS'][call][0]}`")
        return make()
    return run


def ncu_rows_both_calls():
    """The ncu rows of calls 1 (chapters 53-55) and 5 (56), so that 56's sentence can name chapter 55's row."""
    rows = {}
    for path in ("c1/ncu-tc/ncu-tensor.csv", "c5/ncu-tc/ncu-tensor.csv"):
        with open(HERE / path) as f:
            rows.update({r["chapter"]: r for r in csv.DictReader(f)})
    return rows


g["ncu_rows"] = ncu_rows_both_calls
C1 = ("c1", "c1/ncu-tc/ncu-tensor.csv", "53,54,55")
C5 = ("c5", "c5/ncu-tc/ncu-tensor.csv", "56")
TABLES = [(f"{LADDER[i][0]}-h200", with_call(*C1, S2["screen"](i))) for i in (4, 5)] + [
    ("54-candidates-h200", with_call(*C1, lambda: S2["candidates_table"](4))),
    ("55-candidates-h200", with_call(*C1, lambda: S2["candidates_table"](5))),
    ("56-bf16-gemm-warp-specialized-h200", with_call(*C5, S2["screen"](6))),
    ("56-candidates-h200", with_call(*C5, lambda: S2["candidates_table"](6))),
    ("18-h200-sums", sums_18)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
