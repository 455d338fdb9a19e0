#!/usr/bin/env python3
"""Writes chapter 59's README blocks from this folder's call 5 (c5/: one NVIDIA H200 per job of a 4 x H200 machine,
CUDA 13.0, driver 580.159.04, 2026-11-28, the working tree of commit b6f21e5): its first table from the --variant all
runs at four shapes (the stage, chapter 58's and chapter 55's stages, cuBLAS in one process each), the plan lines
those runs printed, the ncu comparison of chapters 58 and 59 at 8192 x 8192 x 128, and the 14-shape sweep (one
process per shape: the stage, both candidates and cuBLAS), with its plot
(chapters/59-bf16-gemm-by-shape/sweep-h200.png, drawn where matplotlib is there and written only without --check).

  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_59.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_59.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-28-h200x4-s5/tables_59.py --fill --check   # changes nothing; exit 1 on a difference

Every ratio is from one process; a tie is two rows whose ranges of repetitions (min_ms to max_ms) overlap."""
import csv
import math
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
CHAPTER, STAGE = "59-bf16-gemm-by-shape", "bf16-gemm-by-shape"
CANDIDATES = [("58", "bf16-gemm-split-k"), ("55", "bf16-gemm-tma-mbarrier")]
CALL, COMMIT, BUDGET, SWEEP_BUDGET = "c5", "b6f21e5", 200, 100
RAW_LINK = "../../docs/results/raw/2026-11-28-h200x4-s5/"
PROVENANCE = f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-28, the working tree of commit `{COMMIT}`"
FIRST_SHAPES = ("2048x2048x2048", "8192x8192x8192", "8192x8192x128", "256x256x65536")
NCU_SHAPE = "8192x8192x128"
SWEEP_PLOT = HERE.parents[3] / "chapters" / CHAPTER / "sweep-h200.png"
# What a later call's script (2026-11-29-h200-s6/tables.py) sets in this module's globals before calling its tables:
# the kernels the plan lines name, the shape class they were keyed by, the order note and the plot's title.
KERNEL_NAMES = {"bf16-gemm-split-k": "58's", "bf16-gemm-tma-mbarrier": "55's"}
CLASS_NOTE = " (1000³ reads 512³'s)"
PLOT_TITLE = "BF16 GEMM: the stage chosen per shape and its two candidates vs cuBLAS, NVIDIA H200, 2026-11-28"


def shape_class(shape):
    """The plan key's class of SHAPE, as chapter 59 had it at this call: the octave of each dimension."""
    octave = lambda v: f"2^{max(v, 1).bit_length() - 1}"
    return f"M {octave(shape[0])} N {octave(shape[1])} K {octave(shape[2])}"


def candidates_word():
    return "both candidates" if len(CANDIDATES) == 2 else "every candidate"


def run_path(shape):
    return f"{CALL}/runs/59-{shape}.csv"


def read_run(path):
    """{variant: row} of a --variant all run's CSV at PATH (one process); every row checked against cuBLAS."""
    with open(HERE / path) as f:
        rows = {r["variant"]: r for r in csv.DictReader(f)}
    assert all(r["check"] == "ok" for r in rows.values()), f"{path}: a row failed the check"
    return rows


def rows_at(shape):
    return read_run(run_path(shape))


def plan_choice(shape):
    """(kernel, why) of the stage's plan line in the run's .err."""
    text = (HERE / run_path(shape)).with_suffix(".err").read_text()
    m = re.search(r"plan: 59 bf16 gemm [^:]*: (\S+) \((.*)\)$", text, re.M)
    assert m, f"{shape}: no plan line"
    return m.group(1), m.group(2)


def ms(row, key="median_ms"):
    return float(row[key])


def tflops(row):
    return float(row["gflops"]) / 1000


def tie(a, b):
    return ms(a, "min_ms") <= ms(b, "max_ms") and ms(b, "min_ms") <= ms(a, "max_ms")


def size(shape):
    m, n, k = (shape.split("x") if isinstance(shape, str) else map(str, shape))
    return f"{m}³" if m == n == k else f"{m} × {n} × {k}"


def peak_of(path):
    """(TFLOP/s, SMs, MHz) of the BF16 tensor peak from the banner beside the run's CSV at PATH."""
    text = (HERE / path).with_suffix(".err").read_text()
    sms = int(re.search(r"(\d+) SMs", text).group(1))
    mhz = int(re.search(r"clocks: SM (\d+) MHz", text).group(1))
    return sms * S2["BF16_FLOPS_PER_CLOCK_SM90"] * mhz * 1e6 / 1e12, sms, mhz


def peak():
    return peak_of(run_path(FIRST_SHAPES[0]))


def first_table():
    """The stage, its two candidates and cuBLAS at FIRST_SHAPES, each shape's column from one process, with the
    kernel the plan chose; then the ncu sentence."""
    top, sms, mhz = peak()
    runs = {s: rows_at(s) for s in FIRST_SHAPES}
    head = ["NVIDIA H200"] + [f"{size(s)}: TFLOP/s (% of the BF16 peak, vs cuBLAS)" for s in FIRST_SHAPES]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(FIRST_SHAPES)]
    order = [(STAGE, f"**59 `{STAGE}`**")] + [(v, f"{c} `{v}`" + (" (the previous stage)" if c == "58" else ""))
                                              for c, v in CANDIDATES] + [("cublas", "cuBLAS `cublasGemmEx`")]
    for variant, label in order:
        cells = []
        for s in FIRST_SHAPES:
            r, st = runs[s][variant], runs[s][STAGE]
            cell = f"{tflops(r):.1f} ({100 * tflops(r) / top:.1f}%, {float(r['speed_vs_ref']):.3f}x)"
            if variant not in (STAGE, "cublas") and tie(st, r):
                cell += ", a tie with the stage"
            cells.append(f"**{cell}**" if variant == STAGE else cell)
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("| the plan's choice | " + " | ".join(f"`{plan_choice(s)[0]}`" for s in FIRST_SHAPES) + " |")
    links = ", ".join(f"[{size(s)}]({RAW_LINK}{run_path(s)})" for s in FIRST_SHAPES)
    out += ["", f"One run per shape of `{CHAPTER} --variant all --budget-ms {BUDGET} --m M --n N --k K` with an empty "
                f"plan folder ({PROVENANCE}; raw: {links}): the rows of a shape from one process, every output checked "
                f"against cuBLAS; \"a tie\": the row's range of repetitions overlaps the stage's. The peak: {sms} SMs × "
                f"{S2['BF16_FLOPS_PER_CLOCK_SM90']} BF16 FLOP/clock × {mhz} MHz = {top:.0f} TFLOP/s (dense). The plan "
                f"line at {size(FIRST_SHAPES[2])}: `{plan_choice(FIRST_SHAPES[2])[0]} ({plan_choice(FIRST_SHAPES[2])[1].split(';')[0]})`."]
    return "\n".join(out) + "\n\n" + ncu_sentence()


def ncu_sentence():
    """Chapters 58 and 59 under ncu at NCU_SHAPE: the kernel each ran, its time and how busy the tensor pipe is."""
    path = f"{CALL}/ncu-{NCU_SHAPE}/ncu-tensor.csv"
    with open(HERE / path) as f:
        rows = {r["chapter"]: r for r in csv.DictReader(f)}
    a, b = rows["58-bf16-gemm-split-k"], rows[CHAPTER]
    return (f"**What `ncu` shows at {size(NCU_SHAPE)}** (`gpu__time_duration.sum`, "
            "`sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active`, "
            "`sm__warps_active.avg.pct_of_peak_sustained_active`): the stage runs chapter 55's "
            f"`{b['kernel']}` for {float(b['time us']):.1f} µs with the tensor pipe busy {float(b['tensor pipe %']):.1f}% "
            f"of the active cycles and {float(b['occupancy %']):.1f}% of the warp slots occupied, where chapter 58's "
            f"`{a['kernel']}` takes {float(a['time us']):.1f} µs at {float(a['tensor pipe %']):.1f}% and "
            f"{float(a['occupancy %']):.1f}%: with two slices of K per tile the time is the epilogue's, and two blocks "
            f"per SM overlap one's epilogue with the other's `wgmma`s (`tools/ncu-compare --preset tensor --chapters "
            f"58,59 --m 8192 --n 8192 --k 128`, {PROVENANCE}; raw: [ncu-tensor.csv]({RAW_LINK}{path})).")


def read_sweep(path):
    """[((m, n, k), {variant: row})] of a sweep's CSV at PATH in its order; the shape is read by position (the header
    names two columns n), the rest by name."""
    with open(HERE / path) as f:
        reader = csv.reader(f)
        head = next(reader)
        assert head[:3] == ["m", "n", "k"], head[:3]
        shapes = {}
        for cells in reader:
            row = dict(zip(head[3:], cells[3:]))
            assert row["check"] == "ok", f"{cells[:3]} {row['variant']}: check {row['check']}"
            shapes.setdefault(tuple(int(c) for c in cells[:3]), {})[row["variant"]] = row
    return list(shapes.items())


def sweep_rows():
    return read_sweep(f"{CALL}/sweep-59.csv")


def geo_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def sweep_table():
    """The stage and its two candidates over the 14 shapes, each against cuBLAS in the same process, with the kernel
    the stage ran (the faster by its own plan) and the geometric means."""
    rows = sweep_rows()
    variants = [STAGE] + [v for _, v in CANDIDATES]
    labels = [f"59 `{STAGE}`"] + [f"{c} `{v}`" for c, v in CANDIDATES]
    head = ["M × N × K"] + [f"{l}: vs cuBLAS" for l in labels] + ["the stage ran", "cuBLAS TFLOP/s"]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(variants) + "---|---:|"]
    for shape, d in rows:
        cells = [f"{float(d[v]['speed_vs_ref']):.3f}x" for v in variants]
        out.append(f"| {size(shape)} | " + " | ".join(cells) + f" | {chosen_in_sweep(shape)} | {tflops(d['cublas']):.1f} |")
    geo = {v: geo_mean([float(d[v]["speed_vs_ref"]) for _, d in rows]) for v in variants}
    out.append(f"| **geometric mean, {len(rows)} shapes** | " + " | ".join(f"**{geo[v]:.3f}x**" for v in variants) +
               " | – | – |")
    best_of_two = geo_mean([max(float(d[v]["speed_vs_ref"]) for v in variants[1:]) for _, d in rows])
    command = (f"SWEEP_CHAPTERS=\"{CHAPTER}\" chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh BUILD "
               f"sweep-59.csv --variant {','.join(variants)} --budget-ms {SWEEP_BUDGET}")
    out += ["", f"One run of `{command}` with an empty plan folder ({PROVENANCE}; raw: [sweep-59.csv]({RAW_LINK}{CALL}/"
                f"sweep-59.csv), the plan lines in [sweep.log]({RAW_LINK}{CALL}/sweep.log), plot: "
                f"[sweep-h200.png]({SWEEP_PLOT.name})): one process per shape, timing the stage, {candidates_word()} and "
                "cuBLAS, every output checked against cuBLAS; the shapes run in the order of the table, so a shape "
                f"whose class an earlier shape planned reads that plan{CLASS_NOTE}. \"The stage ran\": the "
                "kernel its plan line names. No tie marks: at this budget one slow cuBLAS repetition stretches its "
                "range too far to tell (chapter 57's sweep). Geometric means of the speed vs cuBLAS: "
                + ", ".join(f"{geo[v]:.3f}x for {l}" for v, l in zip(variants, labels)) +
                f"; the better of the {'two' if len(CANDIDATES) == 2 else len(CANDIDATES)} candidates at every shape "
                f"would give {best_of_two:.3f}x."]
    draw_sweep(rows, variants, labels, geo)
    return "\n".join(out)


def chosen_in_sweep(shape):
    """The kernel the stage's plan line names for SHAPE in the sweep's log ('58's' or '55's')."""
    text = (HERE / CALL / "sweep.log").read_text()
    lines = [l for l in text.splitlines() if "plan: 59 bf16 gemm" in l]
    classes = [re.search(r"plan: 59 bf16 gemm (M \S+ N \S+ K \S+): (\S+)", l).groups() for l in lines]
    kernels = {k for c, k in classes if c == shape_class(shape)}
    assert len(kernels) == 1, f"{shape}: plan lines {kernels}"
    return KERNEL_NAMES[kernels.pop()]


def draw_speeds(rows, series, geo, path, title):
    """A plot at PATH of each (variant, label, color, line style) of SERIES: its speed vs cuBLAS per shape (log), its
    geometric mean dotted. Not drawn without matplotlib; not written with --check."""
    if "--check" in sys.argv:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    names = [f"{m}×{n}×{k}" for (m, n, k), _ in rows]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for v, label, color, style in series:
        ax.plot(names, [float(d[v]["speed_vs_ref"]) for _, d in rows], marker="o", color=color, linestyle=style,
                label=label.replace("`", ""))
        ax.axhline(geo[v], color=color, linestyle=":", linewidth=1, label=f"geometric mean {geo[v]:.2f}x")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="cuBLAS (same process)")
    ax.set_yscale("log")
    ax.set_yticks([0.02, 0.05, 0.1, 0.2, 0.5, 1.0])
    ax.set_yticklabels(["0.02x", "0.05x", "0.1x", "0.2x", "0.5x", "1x"])
    ax.set_ylabel("speed vs cuBLAS (log)")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=45)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"wrote {path}")


def draw_sweep(rows, variants, labels, geo):
    colors, styles = ("tab:purple", "tab:red", "tab:blue", "tab:green"), ("-", "--", "--", "--")
    series = [(v, l, c, st) for v, l, c, st in zip(variants, labels, colors, styles)]
    draw_speeds(rows, series, geo, SWEEP_PLOT, PLOT_TITLE)


TABLES = [(f"{CHAPTER}-h200", first_table), ("59-sweep-h200", sweep_table)]
# The README's blocks are 2026-11-29-h200-s6/tables.py's now (a later sweep, three candidates); these tables stay
# as the record of call 5. Without --check this still redraws the plot: run the later script after it.
BLOCKS = {}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
