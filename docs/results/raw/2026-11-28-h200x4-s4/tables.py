#!/usr/bin/env python3
"""Writes chapter 57's README blocks from this folder's call 2 (c2/: one NVIDIA H200 of a 4 x H200 machine, CUDA
13.0, driver 580.159.04, 2026-11-28, the working tree of commit 9ca3a43): its first table at 4096^3 and 8192^3,
its candidates at four shapes (each a --variant all run: the stage, its candidates, chapters 56, 55 and 53's stages
and cuBLAS in one process), and the ncu comparison of chapters 56 and 57 at 4096^3.

  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py --fill --check   # changes nothing; exit 1 on a difference

Modelled on the 2026-11-28-h200-s3 script: the ladder, the tensor peak (SMs x 4096 BF16 FLOP/clock x the SM clock,
read from each run's .err banner) and the writer are the 2026-11-28-h200-s2 script's, pointed at this folder
through its globals. Every ratio is from one CSV (one process); a tie is two rows whose ranges of repetitions
(min_ms to max_ms) overlap, the rule of chapters 54-56's tables and of the chapter map."""
import csv
import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
LADDER = S2["LADDER"]
LADDER += [("56-bf16-gemm-warp-specialized", "bf16-gemm-warp-specialized"),
           ("57-bf16-gemm-persistent", "bf16-gemm-persistent")]
CHAPTER, STAGE = LADDER[7]
PREV_CHAPTER, PREV = LADDER[6]
C55_CHAPTER, C55 = LADDER[5]
COMMIT, BUDGET = "9ca3a43", 200  # call 2 (c2.sh): the working tree of this commit, --budget-ms
RAW_LINK = "../../docs/results/raw/2026-11-28-h200x4-s4/"
PROVENANCE = f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-28, the working tree of commit `{COMMIT}`"
SHAPES = ("4096x4096x4096", "8192x8192x8192", "6144x6144x6144", "4095x4097x4096")
FIRST_SHAPES = SHAPES[:2]  # the first table's sizes: the ladder's 4096^3, and 8192^3 where the bands differ
ROW_BY_ROW = "persistent-row-by-row"  # the stage's kernel taking its tiles in chapter 56's order
NCU_CSV = "c2/ncu-tc/ncu-tensor.csv"
NCU_METRICS = {"tensor pipe %": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
               "time us": "gpu__time_duration.sum",
               "L2 %peak": "lts__throughput.avg.pct_of_peak_sustained_elapsed"}

# The s2 functions read their paths from their module's globals: tensor_peak_tflops reads RUN_FILES' .err banner.
g = S2["first_table"].__globals__
g.update(HERE=HERE, RAW_LINK=RAW_LINK, RUN_FILES={CHAPTER: f"c2/{CHAPTER}-{SHAPES[0]}.csv"})
tflops = S2["tflops"]


def csv_path(shape):
    return f"c2/{CHAPTER}-{shape}.csv"


def rows_at(shape):
    """{variant: row} of the --variant all run at SHAPE (one process); every row checked against cuBLAS."""
    with open(HERE / csv_path(shape)) as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    bad = [v for v, r in rows.items() if r["check"] != "ok"]
    assert not bad, f"{shape}: {', '.join(bad)} failed the check"
    return rows


def peak():
    """(TFLOP/s, SMs, MHz) of the BF16 tensor peak; every run's banner must name the same GPU and clock."""
    banners = {(HERE / csv_path(s)).with_suffix(".err").read_text() for s in SHAPES}
    assert len(banners) == 1, "the runs' banners differ"
    return S2["tensor_peak_tflops"](CHAPTER)


def ms(row, key="median_ms"):
    return float(row[key])


def tie(a, b):
    """Two rows whose ranges of repetitions overlap: a difference inside the measured spread."""
    return ms(a, "min_ms") <= ms(b, "max_ms") and ms(b, "min_ms") <= ms(a, "max_ms")


def versus(stage, other):
    """The stage's speed against OTHER (OTHER's time / the stage's), '(a tie)' when their ranges overlap."""
    return f"{ms(other) / ms(stage):.3f}x" + (" (a tie)" if tie(stage, other) else "")


def size(shape):
    m, n, k = shape.split("x")
    return f"{m}³" if m == n == k else f"{m} × {n} × {k}"


def first_table():
    """The stage, the same kernel row by row, chapter 56's (the previous) and 55's stages, and cuBLAS at 4096^3 and
    8192^3: each size's columns from one process."""
    top, sms, mhz = peak()
    runs = {s: rows_at(s) for s in FIRST_SHAPES}
    order = [(STAGE, f"**57 `{STAGE}`** (bands of 16 tile-rows)"),
             (ROW_BY_ROW, f"57 `{ROW_BY_ROW}` (the same kernel, chapter 56's tile order)"),
             (PREV, f"56 `{PREV}` (the previous stage)"),
             (C55, f"55 `{C55}`"),
             ("cublas", "cuBLAS `cublasGemmEx` (`CUBLAS_COMPUTE_32F`)")]
    head = ["NVIDIA H200"]
    for s in FIRST_SHAPES:
        head += [f"{size(s)}: median µs", "% of the BF16 peak", "vs cuBLAS", "the stage's speed vs this row"]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for variant, label in order:
        cells = []
        for s in FIRST_SHAPES:
            r, st = runs[s][variant], runs[s][STAGE]
            cells += [f"{ms(r) * 1000:.1f}", f"{100 * tflops(r) / top:.1f}", f"{float(r['speed_vs_ref']):.3f}x",
                      "–" if variant == STAGE else versus(st, r)]
        if variant == STAGE:
            cells = [c if c == "–" else f"**{c}**" for c in cells]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    links = ", ".join(f"[{size(s)}]({RAW_LINK}{csv_path(s)})" for s in FIRST_SHAPES)
    out += ["", f"One run per size of `{CHAPTER} --variant all --budget-ms {BUDGET} --m M --n N --k K` ({PROVENANCE}; "
                f"raw: {links}): the rows of a size from one process, every output checked against cuBLAS. The peak: "
                f"{sms} SMs × {S2['BF16_FLOPS_PER_CLOCK_SM90']} BF16 FLOP/clock × {mhz} MHz = {top:.0f} TFLOP/s "
                "(dense). Above 1x the stage is faster; a tie: the two rows' ranges of repetitions (min to max) "
                "overlap."]
    return "\n".join(out)


def ncu_sentence():
    """Chapters 56 and 57 under ncu at 4096^3: how busy the tensor pipe is, the kernel's time, the L2's load."""
    with open(HERE / NCU_CSV) as f:
        rows = {r["chapter"]: r for r in csv.DictReader(f)}
    here, prev = rows[CHAPTER], rows[PREV_CHAPTER]
    v = lambda r, col: float(r[col])
    metrics = ", ".join(f"`{NCU_METRICS[c]}`" for c in ("tensor pipe %", "time us", "L2 %peak"))
    return (f"**What `ncu` shows at 4096³** ({metrics}): the tensor pipe is busy {v(here, 'tensor pipe %'):.1f}% of "
            f"the active cycles against chapter 56's {v(prev, 'tensor pipe %'):.1f}%, the kernel takes "
            f"{v(here, 'time us'):.1f} µs against {v(prev, 'time us'):.1f}, and the L2 runs at "
            f"{v(here, 'L2 %peak'):.1f}% of its peak against {v(prev, 'L2 %peak'):.1f}% "
            f"(`tools/ncu-compare --preset tensor --chapters 56,57 --m 4096 --n 4096 --k 4096`, {PROVENANCE}; raw: "
            f"[ncu-tensor.csv]({RAW_LINK}{NCU_CSV})).")


def screen():
    return first_table() + "\n\n" + ncu_sentence()


def candidates_table():
    """The stage, its candidates, chapters 56, 55 and 53's stages and cuBLAS at the four shapes; a cell says "a tie"
    where the row's range of repetitions overlaps the stage's in that run."""
    runs = {s: rows_at(s) for s in SHAPES}
    head = ["variant"] + [f"{size(s)}: TFLOP/s (vs cuBLAS)" for s in SHAPES]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(SHAPES)]
    for variant in runs[SHAPES[0]]:
        cells = []
        for s in SHAPES:
            r = runs[s][variant]
            tied = variant != STAGE and tie(runs[s][STAGE], r)
            cells.append(f"{tflops(r):.1f} ({float(r['speed_vs_ref']):.2f}x)" + (", a tie" if tied else ""))
        label = f"**`{variant}`** (the stage)" if variant == STAGE else f"`{variant}`"
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    odd, square = runs[SHAPES[3]]["cublas"], runs[SHAPES[0]]["cublas"]
    # The persistent grid alone: the same kernel in chapter 56's tile order against chapter 56's stage.
    alone = ", ".join(f"{versus(runs[s][ROW_BY_ROW], runs[s][PREV])} at {size(s)}" for s in SHAPES)
    out += ["", f"Four runs of `{CHAPTER} --variant all --budget-ms {BUDGET} --m M --n N --k K` ({PROVENANCE}; raw: "
                f"[c2/]({RAW_LINK}c2/)); each ratio from one process. \"A tie\": the row's range of repetitions "
                "overlaps the stage's in the same run; the other rows differ from the stage beyond the spread. "
                f"`{ROW_BY_ROW}`'s speed against chapter 56's stage (the persistent grid alone): {alone}. At "
                f"4095 × 4097 × 4096 cuBLAS takes {ms(odd) * 1000:.0f} µs ({ms(square) * 1000:.0f} µs at 4096³; the "
                "rows of C, 4097 floats, are not 16-byte aligned there; which kernel cuBLAS picks was not profiled)."]
    return "\n".join(out)


TABLES = [(f"{CHAPTER}-h200", screen), ("57-candidates-h200", candidates_table)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
