#!/usr/bin/env python3
"""Writes chapter 57's README blocks from this folder's call 2 (c2/: one NVIDIA H200 of a 4 x H200 machine, CUDA
13.0, driver 580.159.04, 2026-11-28, the working tree of commit 9ca3a43): its first table at 4096^3 and 8192^3,
its candidates at four shapes (each a --variant all run: the stage, its candidates, chapters 56, 55 and 53's stages
and cuBLAS in one process), and the ncu comparison of chapters 56 and 57 at 4096^3; from call 3 (c3/, GPU 0, the
working tree of commit 750660b) the ladder's 14-shape sweep of chapters 55 and 57's stages, each against cuBLAS in
its own process, and its plot (chapters/57-bf16-gemm-persistent/sweep-h200.png, drawn where matplotlib is there and
written only without --check).

  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables.py --fill --check   # changes nothing; exit 1 on a difference

Modelled on the 2026-11-28-h200-s3 script: the ladder, the tensor peak (SMs x 4096 BF16 FLOP/clock x the SM clock,
read from each run's .err banner) and the writer are the 2026-11-28-h200-s2 script's, pointed at this folder
through its globals. Every ratio is from one CSV (one process); a tie is two rows whose ranges of repetitions
(min_ms to max_ms) overlap, the rule of chapters 54-56's tables and of the chapter map."""
import csv
import math
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


SWEEP_CSV = "c3/sweep-55-57.csv"  # call 3 (c3.sh): chapter 53's sweep-shapes.sh with SWEEP_CHAPTERS="55-... 57-..."
SWEEP_COMMIT, SWEEP_BUDGET = "750660b", 100
SWEEP_PLOT = HERE.parents[3] / "chapters" / CHAPTER / "sweep-h200.png"
SWEEP_PROVENANCE = PROVENANCE.replace(COMMIT, SWEEP_COMMIT)


def sweep_rows():
    """[((m, n, k), {chapter: (stage row, cuBLAS row)})] in the CSV's order. The header names two columns n (the
    shape's, third, and the program's own size label), so the shape is read by position and the rest by name."""
    with open(HERE / SWEEP_CSV) as f:
        reader = csv.reader(f)
        head = next(reader)
        assert head[:3] == ["m", "n", "k"], head[:3]
        shapes = {}
        for cells in reader:
            shape = tuple(int(c) for c in cells[:3])
            row = dict(zip(head[3:], cells[3:]))
            assert row["check"] == "ok", f"{shape} {row['chapter']} {row['variant']}: check {row['check']}"
            pair = shapes.setdefault(shape, {}).setdefault(row["chapter"], [None, None])
            slot = 1 if row["reference"] == "1" else 0
            assert pair[slot] is None, f"{shape} {row['chapter']}: two rows for one place"
            pair[slot] = row
    out = [(shape, {c: tuple(p) for c, p in d.items()}) for shape, d in shapes.items()]
    assert all(None not in p for _, d in out for p in d.values()), "a stage without its cuBLAS row, or the reverse"
    return out


def sweep_stages(rows):
    """[(chapter, stage variant)] of the programs the sweep ran, in its order."""
    return [(c, st["variant"]) for c, (st, _) in rows[0][1].items()]


def speed(pair):
    """The stage's speed against cuBLAS in the same process (cuBLAS's median / the stage's)."""
    stage, cublas = pair
    return ms(cublas) / ms(stage)


def geo_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def sweep_size(shape):
    return size("x".join(map(str, shape)))


def sweep_table():
    """Chapters 55 and 57's stages over the ladder's 14 shapes, each against cuBLAS in its own process, and the
    geometric mean of each stage's speed vs cuBLAS as the last row; the plot beside chapter 57's README."""
    rows = sweep_rows()
    stages = sweep_stages(rows)
    head = ["M × N × K"]
    for chapter, stage in stages:
        head += [f"{chapter[:2]} `{stage}`: TFLOP/s", "vs cuBLAS"]
    head.append("cuBLAS TFLOP/s (" + " / ".join(f"{c[:2]}'s process" for c, _ in stages) + ")")
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for shape, d in rows:
        cells = []
        for chapter, _ in stages:
            st, cb = d[chapter]
            cells += [f"{tflops(st):.1f}", f"{speed(d[chapter]):.3f}x"]
        cells.append(" / ".join(f"{tflops(d[c][1]):.1f}" for c, _ in stages))
        out.append(f"| {sweep_size(shape)} | " + " | ".join(cells) + " |")
    geo = {c: geo_mean([speed(d[c]) for _, d in rows]) for c, _ in stages}
    cells = []
    for chapter, _ in stages:
        cells += ["–", f"**{geo[chapter]:.3f}x**"]
    out.append(f"| **geometric mean, {len(rows)} shapes** | " + " | ".join(cells) + " | – |")

    def ranked(chapter):
        return sorted(rows, key=lambda r: speed(r[1][chapter]))

    def at(chapter, picks):
        return " and ".join(f"{sweep_size(s)} ({speed(d[chapter]):.3f}x)" for s, d in picks)
    ends = "; ".join(f"chapter {c[:2]}'s stage is closest to cuBLAS at {at(c, ranked(c)[:-3:-1])} and furthest "
                     f"from it at {at(c, ranked(c)[:2])}" for c, _ in stages)
    first, last = stages[0][0], stages[-1][0]
    ahead = [sweep_size(s) for s, d in rows if speed(d[last]) > speed(d[first])]
    command = (f"SWEEP_CHAPTERS=\"{' '.join(c for c, _ in stages)}\" chapters/53-bf16-gemm-cp-async-pipeline/"
               f"sweep-shapes.sh BUILD sweep-55-57.csv --budget-ms {SWEEP_BUDGET}")
    out += ["", f"One run of `{command}` ({SWEEP_PROVENANCE}; raw: [sweep-55-57.csv]({RAW_LINK}{SWEEP_CSV}), plot: "
                f"[sweep-h200.png]({SWEEP_PLOT.name})): one process per program and shape, each timing its stage "
                "and cuBLAS, every output checked against cuBLAS; each ratio is from one process, and no time of "
                f"one process is divided by one of another. No cell is called a tie: at `--budget-ms {SWEEP_BUDGET}` one slow "
                f"repetition of cuBLAS stretches its min–max range over speeds as far apart as 0.47x, so the range "
                f"cannot tell a tie here; read the ratios as one run's. Geometric mean of the speed vs cuBLAS over the {len(rows)} shapes: "
                + ", ".join(f"{geo[c]:.3f}x for chapter {c[:2]}'s stage" for c, _ in stages) + f". Of the "
                f"{len(rows)} shapes, chapter {last[:2]}'s stage is nearer cuBLAS than chapter {first[:2]}'s at "
                + (" and ".join(ahead) if ahead else "none") + f"; {ends}."]
    draw_sweep(rows, stages, geo)
    return "\n".join(out)


def draw_sweep(rows, stages, geo):
    """sweep-h200.png beside chapter 57's README: each stage's speed vs cuBLAS (its own process) per shape, its
    geometric mean dashed. Not drawn without matplotlib; not written with --check (the PNG is not compared)."""
    if "--check" in sys.argv:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    labels = [f"{m}×{n}×{k}" for (m, n, k), _ in rows]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for (chapter, stage), color in zip(stages, ("tab:blue", "tab:red", "tab:green", "tab:orange")):
        ax.plot(labels, [speed(d[chapter]) for _, d in rows], marker="o", color=color,
                label=f"{chapter[:2]} {stage}")
        ax.axhline(geo[chapter], color=color, linestyle=":", linewidth=1,
                   label=f"{chapter[:2]}: geometric mean {geo[chapter]:.2f}x")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="cuBLAS (same process)")
    ax.set_yscale("log")
    ax.set_yticks([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0])
    ax.set_yticklabels(["0.01x", "0.02x", "0.05x", "0.1x", "0.2x", "0.5x", "1x"])
    ax.set_ylabel("speed vs cuBLAS (log)")
    ax.set_title("BF16 GEMM, FP32 accumulate: each stage vs cuBLAS in its own process, NVIDIA H200, 2026-11-28")
    ax.tick_params(axis="x", rotation=45)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(SWEEP_PLOT, dpi=90)
    plt.close(fig)
    print(f"wrote {SWEEP_PLOT}")


TABLES = [(f"{CHAPTER}-h200", screen), ("57-candidates-h200", candidates_table), ("57-sweep-h200", sweep_table)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
