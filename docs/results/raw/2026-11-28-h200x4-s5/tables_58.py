#!/usr/bin/env python3
"""Writes chapter 58's README blocks from this folder's call 3 (c3/: one NVIDIA H200 per job of a 4 x H200 machine,
CUDA 13.0, driver 580.159.04, 2026-11-28, the working tree of commit 2251e7d): its first table at 256 x 256 x 65536
and 4096^3 and its candidates at six shapes (each a --variant all run: the stage, split-k-never, chapters 57, 55 and
53's stages and cuBLAS in one process), the plan lines those runs printed, the ncu comparison of chapters 57 and 58
at 256 x 256 x 65536, and the 14-shape sweep (one process per shape: the stage, split-k-never, 57, 55, cuBLAS) with
its plot (chapters/58-bf16-gemm-split-k/sweep-h200.png, drawn where matplotlib is there, written only without
--check). The helpers (reading runs, ties, the peak, the writer) are tables_59.py's, pointed at this call.

  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_58.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_58.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_58.py --fill --check   # changes nothing; exit 1 on a difference

Every ratio is from one process; a tie is two rows whose ranges of repetitions (min_ms to max_ms) overlap."""
import csv
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
T59 = runpy.run_path(str(HERE / "tables_59.py"))
S2 = T59["S2"]
CHAPTER, STAGE = "58-bf16-gemm-split-k", "bf16-gemm-split-k"
CALL, COMMIT, BUDGET, SWEEP_BUDGET = "c3", "2251e7d", 200, 100
RAW_LINK = T59["RAW_LINK"]
PROVENANCE = T59["PROVENANCE"].replace(T59["COMMIT"], COMMIT)
FIRST_SHAPES = ("256x256x65536", "4096x4096x4096")
SHAPES = ("256x256x65536", "64x64x131072", "1024x1024x16384", "4096x4096x4096", "6144x6144x6144", "8192x8192x8192")
NCU_SHAPE = "256x256x65536"
SWEEP_VARIANTS = [(STAGE, "58 `bf16-gemm-split-k`"), ("split-k-never", "58 `split-k-never`"),
                  ("bf16-gemm-persistent", "57 `bf16-gemm-persistent`"), ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier`")]
SWEEP_PLOT = HERE.parents[3] / "chapters" / CHAPTER / "sweep-h200.png"
ms, tflops, tie, size, geo_mean = T59["ms"], T59["tflops"], T59["tie"], T59["size"], T59["geo_mean"]


def run_path(shape):
    return f"{CALL}/runs/58-{shape}.csv"


def rows_at(shape):
    return T59["read_run"](run_path(shape))


def plan(shape):
    """(band, ranges, the whole line) of the stage's plan line in the run's .err."""
    text = (HERE / run_path(shape)).with_suffix(".err").read_text()
    m = re.search(r"^# (plan: 58 bf16-gemm-split-k [^:]*: bands of (\d+), K in (\d+) ranges? \(.*\))$", text, re.M)
    assert m, f"{shape}: no plan line"
    return int(m.group(2)), int(m.group(3)), m.group(1)


def peak():
    return T59["peak_of"](run_path(FIRST_SHAPES[0]))


def versus(stage, other):
    return f"{ms(other) / ms(stage):.3f}x" + (" (a tie)" if tie(stage, other) else "")


def first_table():
    """The stage, split-k-never, chapters 57 and 55's stages and cuBLAS at FIRST_SHAPES, each shape from one
    process; the plan line at the first; then the ncu sentence."""
    top, sms, mhz = peak()
    runs = {s: rows_at(s) for s in FIRST_SHAPES}
    order = [(STAGE, f"**58 `{STAGE}`**"), ("split-k-never", "58 `split-k-never` (the same kernel, K never split)"),
             ("bf16-gemm-persistent", "57 `bf16-gemm-persistent` (the previous stage)"),
             ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier`"), ("cublas", "cuBLAS `cublasGemmEx`")]
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
    links = ", ".join(f"[{size(s)}]({RAW_LINK}{run_path(s)})" for s in FIRST_SHAPES)
    plans = f"`{plan(FIRST_SHAPES[0])[2]}`"
    out += ["", f"One run per shape of `{CHAPTER} --variant all --budget-ms {BUDGET} --m M --n N --k K` ({PROVENANCE}; "
                f"raw: {links}): the rows of a shape from one process, every output checked against cuBLAS. The "
                f"peak: {sms} SMs × {S2['BF16_FLOPS_PER_CLOCK_SM90']} BF16 FLOP/clock × {mhz} MHz = {top:.0f} TFLOP/s "
                f"(dense). A tie: the two rows' ranges of repetitions (min to max) overlap. The plan line: {plans}. "
                + bytes_bound(runs[FIRST_SHAPES[0]], FIRST_SHAPES[0])]
    return "\n".join(out) + "\n\n" + ncu_sentence()


def bytes_bound(rows, shape):
    """The byte bound at SHAPE: the bytes the program counts (A and B read once, C written once) at the GPU's
    theoretical DRAM peak (the run's banner; the tensor programs time no copy), and the share of it each reaches."""
    text = (HERE / run_path(shape)).with_suffix(".err").read_text()
    dram = float(re.search(r"= ([\d.]+) GB/s theoretical peak", text).group(1))
    st, cb = rows[STAGE], rows["cublas"]
    floor_us = float(st["bytes"]) / (dram * 1e9) * 1e6
    share = lambda r: 100 * float(r["gbps"]) / dram
    flop_us = float(st["flops"]) / (peak()[0] * 1e12) * 1e6
    which = "bytes" if floor_us > flop_us else "FLOPs"
    return (f"Bound at {size(shape)}: the {which} ({floor_us:.1f} µs for {float(st['bytes']) / 1e6:.1f} MB at "
            f"{dram:.0f} GB/s, theoretical; {flop_us:.1f} µs at the peak); the stage reaches {share(st):.1f}% of the "
            f"DRAM peak, cuBLAS {share(cb):.1f}%.")


def ncu_sentence():
    """Chapters 57 and 58 under ncu at NCU_SHAPE: each kernel's time, tensor pipe and DRAM throughput."""
    path = f"{CALL}/ncu-{NCU_SHAPE}/ncu-tensor.csv"
    with open(HERE / path) as f:
        rows = list(csv.DictReader(f))
    pick = lambda chapter, kernel: next(r for r in rows if r["chapter"] == chapter and r["kernel"].startswith(kernel))
    old = pick("57-bf16-gemm-persistent", "gemm_persistent_kernel")
    split, reduce = pick(CHAPTER, "gemm_split_k_kernel"), pick(CHAPTER, "reduce_splits_kernel")
    v = lambda r, c: float(r[c])
    return (f"**What `ncu` shows at {size(NCU_SHAPE)}** (`gpu__time_duration.sum`, "
            "`sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active`, "
            "`dram__throughput.avg.pct_of_peak_sustained_elapsed`): chapter 57's kernel takes "
            f"{v(old, 'time us'):.1f} µs with the tensor pipe busy {v(old, 'tensor pipe %'):.1f}% of the active cycles "
            f"(only the 2 SMs that have a tile are active) and DRAM at {v(old, 'DRAM %peak'):.1f}% of its peak; here the split kernel "
            f"takes {v(split, 'time us'):.1f} µs (tensor pipe {v(split, 'tensor pipe %'):.1f}%, DRAM "
            f"{v(split, 'DRAM %peak'):.1f}%: A and B streamed by all the SMs) and the reduction "
            f"{v(reduce, 'time us'):.1f} µs more (`tools/ncu-compare --preset tensor --chapters 57,58 --m 256 --n 256 "
            f"--k 65536`, {PROVENANCE}; raw: [ncu-tensor.csv]({RAW_LINK}{path})).")


def candidates_table():
    """Every variant of the program at SHAPES ("a tie" where its range overlaps the stage's), and the plan's
    band and K ranges per shape."""
    runs = {s: rows_at(s) for s in SHAPES}
    head = ["variant"] + [f"{size(s)}: TFLOP/s (vs cuBLAS)" for s in SHAPES]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(SHAPES)]
    for variant in runs[SHAPES[0]]:
        cells = []
        for s in SHAPES:
            r = runs[s][variant]
            tied = variant not in (STAGE, "cublas") and tie(runs[s][STAGE], r)
            cells.append(f"{tflops(r):.1f} ({float(r['speed_vs_ref']):.2f}x)" + (", a tie" if tied else ""))
        label = f"**`{variant}`** (the stage)" if variant == STAGE else f"`{variant}`"
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("| the stage's plan: band, K ranges | " + " | ".join(f"{plan(s)[0]}, {plan(s)[1]}" for s in SHAPES) + " |")
    out += ["", f"Six runs of `{CHAPTER} --variant all --budget-ms {BUDGET} --m M --n N --k K` ({PROVENANCE}; raw: "
                f"[{CALL}/runs/]({RAW_LINK}{CALL}/runs/)); each column from one process. \"A tie\": the row's range of "
                "repetitions overlaps the stage's in the same run. Where the plan does not split K (one range), the "
                "stage and `split-k-never` run the same kernel with the same arguments."]
    return "\n".join(out)


def sweep_rows():
    return T59["read_sweep"](f"{CALL}/sweep-58.csv")


def sweep_table():
    """The stage, split-k-never and chapters 57 and 55's stages over the 14 shapes, each against cuBLAS in the same
    process, and the geometric means; the plot."""
    rows = sweep_rows()
    head = ["M × N × K"] + [f"{l}: vs cuBLAS" for _, l in SWEEP_VARIANTS] + ["cuBLAS TFLOP/s"]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for shape, d in rows:
        cells = [f"{float(d[v]['speed_vs_ref']):.3f}x" for v, _ in SWEEP_VARIANTS]
        out.append(f"| {size(shape)} | " + " | ".join(cells) + f" | {tflops(d['cublas']):.1f} |")
    geo = {v: geo_mean([float(d[v]["speed_vs_ref"]) for _, d in rows]) for v, _ in SWEEP_VARIANTS}
    out.append(f"| **geometric mean, {len(rows)} shapes** | " + " | ".join(f"**{geo[v]:.3f}x**" for v, _ in SWEEP_VARIANTS)
               + " | – |")
    command = (f"SWEEP_CHAPTERS=\"{CHAPTER}\" chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh BUILD sweep-58.csv "
               f"--variant {','.join(v for v, _ in SWEEP_VARIANTS)} --budget-ms {SWEEP_BUDGET}")
    out += ["", f"One run of `{command}` ({PROVENANCE}; raw: [sweep-58.csv]({RAW_LINK}{CALL}/sweep-58.csv), plot: "
                f"[sweep-h200.png]({SWEEP_PLOT.name})): one process per shape, timing the four variants and cuBLAS, "
                "every output checked against cuBLAS. No tie marks: at this budget one slow cuBLAS repetition "
                "stretches its range too far to tell (chapter 57's sweep). Geometric means of the speed vs cuBLAS: "
                + ", ".join(f"{geo[v]:.3f}x for {l}" for v, l in SWEEP_VARIANTS) + "."]
    draw(rows, geo)
    return "\n".join(out)


def draw(rows, geo):
    # split-k-never runs chapter 57's kernel, so its line lies on 57's: drawn dashed on top, to stay visible.
    styles = ("-", "--", "-", "-")
    series = [(v, l, c, st) for (v, l), c, st in zip(SWEEP_VARIANTS, ("tab:red", "tab:gray", "tab:green", "tab:blue"),
                                                     styles)]
    series = series[:1] + series[2:] + series[1:2]
    T59["draw_speeds"](rows, series, geo, SWEEP_PLOT,
                       "BF16 GEMM: split K where the tiles cannot fill the GPU, vs cuBLAS, NVIDIA H200, 2026-11-28")


TABLES = [(f"{CHAPTER}-h200", first_table), ("58-candidates-h200", candidates_table), ("58-sweep-h200", sweep_table)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
