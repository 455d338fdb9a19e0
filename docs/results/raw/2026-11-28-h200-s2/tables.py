#!/usr/bin/env python3
"""Writes the tables and README blocks that come from this folder's captures (one NVIDIA H200, 2026-11-28, second
session; c1.sh ran on the working tree of commit 1c6e409, its sweep and ncu captures re-run on the same build):
the tensor-core ladder's first tables (chapters 50-53 at 4096^3, every row from one process), its shape sweep
with a plot, and its ncu metric; chapter 18's planned stage on the H200 (docs/tuning-per-gpu.md).

  python3 docs/results/raw/2026-11-28-h200-s2/tables.py                  # writes tables/*.md (and the plot)
  python3 docs/results/raw/2026-11-28-h200-s2/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-28-h200-s2/tables.py --fill --check   # changes nothing; exit 1 on a difference

Every number comes from a file in this folder; the BF16 tensor peak is the one the programs print
(common/gemm_tc/tc_workload.cu: SMs x 4096 BF16 FLOP/clock on sm_90 x the SM clock, both read from the .err
header of each run)."""
import csv
import math
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
RAW_LINK = "../../docs/results/raw/2026-11-28-h200-s2/"
COMMIT = "1c6e409"
PROVENANCE = f"NVIDIA H200, CUDA 13.0, 2026-11-28, the working tree of commit `{COMMIT}`"
# The calls' commits and --budget-ms (README.md of this folder): call 1's runs, call 3's (chapters 54-55).
CALLS = {"c1": ("1c6e409", 300), "c3": ("56610da", 200)}
# The call whose --variant all runs at three shapes feed candidates_table, and the chapters of the ncu capture
# (the 2026-11-28-h200-s3 script points these, and the paths above, at its own folder).
CANDIDATES_CALL = "c3"
NCU_CHAPTERS = "50-53"


def provenance(call):
    return f"NVIDIA H200, CUDA 13.0, 2026-11-28, the working tree of commit `{CALLS[call][0]}`"
BF16_FLOPS_PER_CLOCK_SM90 = 4096  # common/gemm_tc/tc_workload.cu, bf16_tensor_flops_per_clock_per_sm
LADDER = [("50-bf16-gemm-fp32-lanes", "bf16-fp32-lanes"), ("51-bf16-gemm-wmma", "bf16-wmma"),
          ("52-bf16-gemm-mma-ldmatrix", "bf16-mma-ldmatrix"),
          ("53-bf16-gemm-cp-async-pipeline", "bf16-cp-async-pipeline"),
          ("54-bf16-gemm-wgmma", "bf16-gemm-wgmma"), ("55-bf16-gemm-tma-mbarrier", "bf16-gemm-tma-mbarrier")]
# Each chapter's 4096^3 --variant all run: call 1 for 50-53, call 3 for 54-55 (its .err beside it).
RUN_FILES = {c: f"c1/{c}-4096.csv" for c, _ in LADDER[:4]}
RUN_FILES.update({c: f"c3/{c}-4096x4096x4096.csv" for c, _ in LADDER[4:]})
STAGE = dict(LADDER)
NCU_CSV = "c1/ncu-tc/ncu-tensor.csv"


def write_tables(*args):
    """The shared writer and fill of the 2026-11-25 H100 table script (write_tables there)."""
    runpy.run_path(str(HERE.parent / "2026-11-25-h100" / "tables.py"))["write_tables"](*args)


def tensor_peak_tflops(chapter):
    """The BF16 tensor peak of the GPU a chapter's run names in its .err header."""
    text = (HERE / RUN_FILES[chapter]).with_suffix(".err").read_text()
    sms = int(re.search(r"(\d+) SMs", text).group(1))
    mhz = int(re.search(r"clocks: SM (\d+) MHz", text).group(1))
    return sms * BF16_FLOPS_PER_CLOCK_SM90 * mhz * 1e6 / 1e12, sms, mhz


def run_rows(chapter):
    """{variant: row} of a chapter's --variant all run at 4096^3."""
    with open(HERE / RUN_FILES[chapter]) as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def ncu_rows():
    with open(HERE / NCU_CSV) as f:
        return {r["chapter"]: r for r in csv.DictReader(f)}


def tflops(row):
    return float(row["gflops"]) / 1000


def previous_variant(rows, index):
    """The previous chapter's stage as chapter LADDER[index]'s program names it: its own stage name (51-53), or the
    folder's name without the number, which tools/results asks for (54-55)."""
    prev_chapter, prev = LADDER[index - 1]
    return prev if prev in rows else prev_chapter.split("-", 1)[1]


def first_table(index):
    """Chapter LADDER[index]'s first table: its stage, the previous chapter's stage and cuBLAS from one process."""
    chapter, stage = LADDER[index]
    rows = run_rows(chapter)
    peak, sms, mhz = tensor_peak_tflops(chapter)
    order = [(f"**{chapter[:2]} `{stage}`**", rows[stage], True)]
    if index:
        prev_chapter, prev = LADDER[index - 1]
        prev = previous_variant(rows, index)
        order.append((f"{prev_chapter[:2]} `{prev}` (the previous stage)", rows[prev], False))
    order.append(("cuBLAS `cublasGemmEx` (`CUBLAS_COMPUTE_32F`)", rows["cublas"], False))
    out = ["| M = N = K = 4096, NVIDIA H200 | median µs | TFLOP/s | % of the BF16 tensor peak | speed vs cuBLAS |",
           "|---|---:|---:|---:|---:|"]
    for label, r, bold in order:
        cells = [f"{float(r['median_ms']) * 1000:.1f}", f"{tflops(r):.1f}", f"{100 * tflops(r) / peak:.1f}",
                 f"{float(r['speed_vs_ref']):.3f}x"]
        if bold:
            cells = [f"**{c}**" for c in cells]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    stage_ms = float(rows[stage]["median_ms"])
    call = RUN_FILES[chapter].split("/")[0]
    out += ["", f"One run of `{chapter} --variant all --budget-ms {CALLS[call][1]}` ({provenance(call)}; raw: "
                f"[{pathlib.Path(RUN_FILES[chapter]).name}]({RAW_LINK}{RUN_FILES[chapter]})): every row from the same "
                f"process, every output checked against cuBLAS (the tests check against the CPU reference). The tensor "
                f"peak is {sms} SMs × "
                f"{BF16_FLOPS_PER_CLOCK_SM90} BF16 FLOP/clock × {mhz} MHz = {peak:.0f} TFLOP/s; cuBLAS reaches "
                f"{100 * tflops(rows['cublas']) / peak:.0f}% of it at this size."]
    if index:
        prev_ms = float(rows[previous_variant(rows, index)]["median_ms"])
        lo = lambda r: float(r["min_ms"])
        hi = lambda r: float(r["max_ms"])
        a, b = rows[stage], rows[previous_variant(rows, index)]
        if lo(a) <= hi(b) and lo(b) <= hi(a):
            out.append(f"The stage and chapter {LADDER[index - 1][0][:2]}'s are a tie (their ranges of repetitions "
                       f"overlap).")
        else:
            word = "faster" if stage_ms < prev_ms else "slower"
            out.append(f"The stage is {max(prev_ms, stage_ms) / min(prev_ms, stage_ms):.2f}x {word} than chapter "
                       f"{LADDER[index - 1][0][:2]}'s.")
    return "\n".join(out)


NCU_WHY = {
    0: ("FMA pipe %", "tensor pipe %",
        "the FP32 lanes do the work: the FMA pipe is busy {a}% of the active cycles and the tensor pipe {b}%"),
    1: ("tensor pipe %", "stall long sb",
        "the tensor pipe now does the multiplications ({a}% of the active cycles, chapter 50's {p}%), and warps "
        "wait on global loads: {b} cycles of `long scoreboard` stall per issued instruction"),
    2: ("bank confl", "tensor pipe %",
        "the swizzled tiles read by `ldmatrix` cut the shared-memory bank conflicts from chapter 51's {p:,.0f} to "
        "{a:,.0f}; the tensor pipe is busy {b}% of the active cycles"),
    3: ("tensor pipe %", "stall long sb",
        "the tensor pipe is busy {a}% of the active cycles against chapter 52's {p}%, and the `long scoreboard` "
        "stall per issued instruction falls from chapter 52's {pb} to {b}: the copies are in flight while the "
        "tensor cores work"),
}
NCU_METRICS = {"FMA pipe %": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
               "tensor pipe %": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
               "stall long sb": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
               "bank confl": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}


def ncu_sentence(index):
    chapter, _ = LADDER[index]
    rows = ncu_rows()
    col_a, col_b, text = NCU_WHY[index]
    num = lambda v: float(v) if "." in v else int(v)
    here = rows[chapter]
    prev = rows[LADDER[index - 1][0]] if index else here
    values = dict(a=num(here[col_a]), b=num(here[col_b]), p=num(prev[col_a]), pb=num(prev[col_b]))
    metrics = ", ".join(f"`{NCU_METRICS[c]}`" for c in (col_a, col_b))
    return (f"**The `ncu` metric that shows why** ({metrics}): " + text.format(**values) +
            f" (`tools/ncu-compare --preset tensor --chapters {NCU_CHAPTERS} --m 4096 --n 4096 --k 4096`, {PROVENANCE}; raw: "
            f"[ncu-tensor.csv]({RAW_LINK}{NCU_CSV})).")


def screen(index):
    return lambda: first_table(index) + "\n\n" + ncu_sentence(index)


SHAPES_C3 = ("4096x4096x4096", "8192x8192x8192", "4095x4097x4096")


def candidates_table(index):
    """Chapter 54's or 55's stage and its tile-shape candidates at three shapes, each against cuBLAS in the same
    process (call 3's --variant all runs)."""
    chapter, stage = LADDER[index]
    runs = {shape: run_rows_at(chapter, shape) for shape in SHAPES_C3}
    peak = tensor_peak_tflops(chapter)[0]
    head = ["variant"] + [f"{s.replace('x', ' × ')}: TFLOP/s (vs cuBLAS)" for s in SHAPES_C3]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(SHAPES_C3)]
    for variant in runs[SHAPES_C3[0]]:
        cells = []
        for shape in SHAPES_C3:
            r = runs[shape][variant]
            cells.append(f"{tflops(r):.1f} ({float(r['speed_vs_ref']):.2f}x)")
        label = f"**`{variant}`** (the stage)" if variant == stage else f"`{variant}`"
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    # The stage's own candidates: not cuBLAS, not another chapter's stage (the previous stage, the fallback).
    others = {s for c, s in LADDER if s != stage} | {c.split("-", 1)[1] for c, s in LADDER if s != stage}
    best = max((v for v in runs[SHAPES_C3[0]] if v != "cublas" and v not in others),
               key=lambda v: tflops(runs[SHAPES_C3[0]][v]))
    st, b = runs[SHAPES_C3[0]][stage], runs[SHAPES_C3[0]][best]
    verdict = ("the stage is the fastest at 4096³" if best == stage else
               f"`{best}` is {float(st['median_ms']) / float(b['median_ms']):.2f}x faster than the stage at 4096³ "
               f"({100 * tflops(b) / peak:.1f}% of the tensor peak): the stage's tile was chosen before any GPU run, "
               "and this run says to choose again")
    out += ["", f"Three runs of `{chapter} --variant all --budget-ms 200 --m M --n N --k K` ({provenance(CANDIDATES_CALL)}; raw: "
                f"[{CANDIDATES_CALL}/]({RAW_LINK}{CANDIDATES_CALL}/)); each ratio from one process. Here {verdict}. At 4095 × 4097 × 4096 "
                f"cuBLAS takes {float(runs[SHAPES_C3[2]]['cublas']['median_ms']) * 1000:.0f} µs ("
                f"{float(runs[SHAPES_C3[0]]['cublas']['median_ms']) * 1000:.0f} µs at 4096³; the rows of C, 4097 floats, "
                "are not 16-byte aligned there; which kernel cuBLAS picks was not profiled)."]
    return "\n".join(out)


def run_rows_at(chapter, shape):
    with open(HERE / CANDIDATES_CALL / f"{chapter}-{shape}.csv") as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def sweep_rows():
    """[(m, n, k, {(chapter, variant): row})] of the shape sweep, in its order (the CSV's first m, n, k columns are
    the shape; the programs' own n column is the size label)."""
    with open(HERE / "c1" / "sweep-tc.csv") as f:
        reader = csv.reader(f)
        head = next(reader)
        shapes = {}
        for cells in reader:
            m, n, k = (int(c) for c in cells[:3])
            row = dict(zip(head[3:], cells[3:]))
            shapes.setdefault((m, n, k), {})[(row["chapter"], row["variant"])] = row
    return [(m, n, k, d) for (m, n, k), d in shapes.items()]


def sweep_table():
    """Chapter 53's stage against cuBLAS over the 14 shapes (both from chapter 53's program), and the geo-mean."""
    out = ["| M × N × K | 53 stage TFLOP/s | cuBLAS TFLOP/s | stage / cuBLAS |", "|---|---:|---:|---:|"]
    ratios = []
    for m, n, k, d in sweep_rows():
        st, cb = d[LADDER[3]], d[(LADDER[3][0], "cublas")]
        r = float(cb["median_ms"]) / float(st["median_ms"])
        ratios.append(r)
        out.append(f"| {m} × {n} × {k} | {tflops(st):.1f} | {tflops(cb):.1f} | {r:.3f}x |")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    out += ["", f"Geometric mean over the {len(ratios)} shapes: {geo:.3f}x cuBLAS. One run of "
                f"`chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh BUILD sweep-tc.csv --budget-ms 100` "
                f"({PROVENANCE}; raw: [sweep-tc.csv]({RAW_LINK}c1/sweep-tc.csv), plot: "
                f"[sweep-tc.png]({RAW_LINK}sweep-tc.png)): each ratio from one process, every output checked."]
    draw_sweep()
    return "\n".join(out)


def draw_sweep():
    """sweep-tc.png: TFLOP/s of each chapter's stage and of cuBLAS per shape (skipped without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    shapes = sweep_rows()
    labels = [f"{m}×{n}×{k}" for m, n, k, _ in shapes]
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for chapter, stage in LADDER[:4]:  # the chapters the sweep script ran
        ax.plot(labels, [tflops(d[(chapter, stage)]) for *_, d in shapes], marker="o", label=f"{chapter[:2]} {stage}")
    ax.plot(labels, [tflops(d[(LADDER[3][0], "cublas")]) for *_, d in shapes], marker="s", color="black",
            linestyle="--", label="cuBLAS (chapter 53's process)")
    ax.set_yscale("log")
    ax.set_ylabel("TFLOP/s (log)")
    ax.set_title("BF16 GEMM, FP32 accumulate, NVIDIA H200, 2026-11-28")
    ax.tick_params(axis="x", rotation=45)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = HERE / "sweep-tc.png"
    if "--check" not in sys.argv:
        fig.savefig(path, dpi=90)
    plt.close(fig)


H100_CH18 = "../2026-11-27-h100/screens-bbee8ca/ch18"  # chapter 18's measure.sh on an H100, commit bbee8ca


def tuning_18():
    """Chapter 18's planned stage on the H200 (int32, float and int64 sums against CUB and cudaMemcpy), beside the
    same rows of the H100 run of 2026-11-27 (chapter 18's measure.sh, before the plan existed)."""
    text = (HERE / "c1" / "call1-output.txt").read_text()
    runs = re.findall(r"^\[\d+ s\] 18 (--size [^\n]*?) rc=0\n((?:18-scan[^\n]*\n)+)", text, re.M)
    out = ["| chapter 18 | H200: % of `cudaMemcpy` | H200: vs CUB | H100: % of `cudaMemcpy` | H100: vs CUB |",
           "|---|---:|---:|---:|---:|"]
    for args, block in runs:
        rows = {c[1]: c for c in (line.split(",") for line in block.splitlines())}
        st = rows["scan-copy-bound"]
        size = re.search(r"--size (\S+)", args).group(1)
        typ = re.search(r"--type (\S+)", args)
        typ = typ.group(1) if typ else "int32"
        with open(HERE / H100_CH18 / f"types-{typ}-sum-{size.replace('^', 'p')}.csv") as f:
            h100 = {r["variant"]: r for r in csv.DictReader(f)}["scan-copy-bound"]
        out.append(f"| {typ} sum, {size} | {float(st[13]):.1f} | {float(st[14]):.3f}x | "
                   f"{float(h100['pct_memcpy']):.1f} | {float(h100['speed_vs_ref']):.3f}x |")
    plans = re.findall(r"^plan: 18 int32 sum 2\^28: (\S+) \(measured: 2 candidates (\S+) ([\d.]+) ms, (\S+) ([\d.]+) "
                       r"ms; cached in \S+--(\d+sm)\.plan\)", text, re.M)
    full = next(p for p in plans if p[5] == "132sm")
    part = next(p for p in plans if p[5] == "92sm")
    out += ["", f"H200: one call ({PROVENANCE}; raw: [call1-output.txt]({RAW_LINK}c1/call1-output.txt)). H100: chapter "
                f"18's `measure.sh` of 2026-11-27 (commit `bbee8ca`, before the plan; raw: "
                f"[ch18/](../../docs/results/raw/2026-11-27-h100/screens-bbee8ca/ch18/)). Each ratio from one process. The plan at 2^28 on the H200: "
                f"`{full[0]}` on all 132 SMs ({full[1]} {full[2]} ms against {full[3]} {full[4]} ms) and again on a "
                f"92-SM green context ({part[2]} against {part[4]} ms)."]
    return "\n".join(out)


LENGTH_RUNS = {"36": ("c36-all-n16384.txt", "fft-one-block-large", "fft-tuned", "--length 16384 --size 2^27"),
               "37": ("c37-all-n65536.txt", "fft-thread-block-cluster", "fft-one-block-large", "--length 65536"),
               "38": ("c38-all-n1048576.txt", "fft-two-pass", "fft-thread-block-cluster", "--length 1048576")}


def length_run(num):
    """Chapter NUM's stage at its own length on the H200 (call 4, --variant all): the stage, the previous stage,
    cuFFT and the copy from one process."""
    sys.path.insert(0, str(HERE.parents[3] / "tools"))
    from tutkit.chapter_map import parse_program_table
    name, stage, prev, args = LENGTH_RUNS[num]
    _, length, rows = parse_program_table((HERE / "c3" / "len" / name).read_text())
    out = [f"| N = {length}, NVIDIA H200 | median ms | % of `cudaMemcpy` | speed vs cuFFT |", "|---|---:|---:|---:|"]
    for variant, label in ((stage, f"**{num} `{stage}`**"), (prev, f"{int(num) - 1} `{prev}` (the previous stage)"),
                           ("cufft", "cuFFT"), ("cudaMemcpy", "`cudaMemcpy` of the same bytes")):
        r = rows[variant]
        out.append(f"| {label} | {r['median ms']} | {r['% memcpy']} | {r.get('speed vs cufft', '-').replace('-', '–')} |")
    vs = float(rows[stage]["speed vs cufft"].rstrip("x"))
    word = "faster than" if vs > 1 else "slower than"
    out += ["", f"One run of `{num}-{stage} {args} --variant all` ({provenance('c3')}; raw: "
                f"[{name}]({RAW_LINK}c3/len/{name})), every row from one process. On this GPU the stage is "
                f"{vs:.3f}x cuFFT's speed ({word} cuFFT); the tables above are the H100's."]
    return "\n".join(out)


BOTH_GPUS = [  # (chapter, stage variant, the bound's column: pct_memcpy or pct_peak_fp32, what the row is)
    ("17-scan-lookback-landing-zone", "scan-lookback-landing-zone", "pct_memcpy", "int32 sum, 2^28"),
    ("18-scan-any-type-copy-bound", "scan-copy-bound", "pct_memcpy", "int32 sum, 2^28"),
    ("27-sgemm-tuned", "sgemm-tuned", "pct_peak_fp32", "4096³"),
    ("28-sgemm-tile-by-shape", "sgemm-tile-by-shape", "pct_peak_fp32", "4096³"),
    ("29-sgemm-split-k", "sgemm-split-k", "pct_peak_fp32", "4096³"),
    ("35-fft-tuned", "fft-tuned", "pct_memcpy", "N = 1024"),
]
RESULTS = {"H100": "../../nvidia-h100-80gb-hbm3.json", "H200": "../../nvidia-h200-2026-11-28.json"}
H100_LENGTHS = "../2026-11-27-h100/screens-bbee8ca"


def both_gpus():
    """The tuned stages on both GPUs from the two results runs (H100: b794ba4, 2026-11-27; H200: 56610da, today),
    and 36-38 at their own lengths (H100: screens-bbee8ca; H200: call 4): share of the bound and speed against the
    vendor library, each ratio from one process."""
    import json
    sys.path.insert(0, str(HERE.parents[3] / "tools"))
    from tutkit.chapter_map import parse_program_table
    docs = {gpu: json.loads((HERE / path).read_text()) for gpu, path in RESULTS.items()}

    def row_of(doc, chapter, variant):
        prog = next(p for p in doc["programs"] if p["chapter"] == chapter)
        return next(r for r in prog["data"]["results"] if r["variant"] == variant)
    out = ["| stage | size | H100: share of the bound | H100: vs library | H200: share of the bound | "
           "H200: vs library |", "|---|---|---:|---:|---:|---:|"]
    for chapter, variant, bound, size in BOTH_GPUS:
        cells = []
        for gpu in RESULTS:
            r = row_of(docs[gpu], chapter, variant)
            what = "of copy" if bound == "pct_memcpy" else "of FP32 peak"
            cells += [f"{r[bound]:.1f}% {what}", f"{r['speed_vs_ref']:.3f}x"]
        out.append(f"| {chapter[:2]} `{variant}` | {size} | " + " | ".join(cells) + " |")
    for num, (name, stage, _, _) in LENGTH_RUNS.items():
        cells = []
        for path in (HERE / H100_LENGTHS / name, HERE / "c3" / "len" / name):
            _, length, rows = parse_program_table(path.read_text())
            r = rows[stage]
            cells += [f"{r['% memcpy']}% of copy", r["speed vs cufft"]]
        out.append(f"| {num} `{stage}` | N = {length} | " + " | ".join(cells) + " |")
    out += ["", "H100: the results run of 2026-11-27 (commit `b794ba4`, [nvidia-h100-80gb-hbm3.md]"
                "(../results/nvidia-h100-80gb-hbm3.md)) and chapters 36-38's runs at their lengths (`bbee8ca`, "
                "[screens-bbee8ca/](../results/raw/2026-11-27-h100/screens-bbee8ca/)). H200: the results run of "
                f"2026-11-28 ([nvidia-h200-2026-11-28.md](../results/nvidia-h200-2026-11-28.md)) and the runs at their "
                f"lengths ({provenance('c3')}, [c3/len/](../results/raw/2026-11-28-h200-s2/c3/len/)). The library is CUB, cuBLAS or cuFFT, timed in "
                "the stage's own process; the share of the bound is against a `cudaMemcpy` of the same bytes, or the "
                "FP32 peak."]
    return "\n".join(out)


# Chapters 54 and 55's tables moved to the 2026-11-28-h200-s3 folder (their stage changed after this session).
TABLES = [(f"{c}-h200", screen(i)) for i, (c, _) in enumerate(LADDER[:4])] + [
    ("53-sweep-h200", sweep_table), ("18-plan-h200", tuning_18)] + [
    (f"{num}-h200-length", (lambda n: lambda: length_run(n))(num)) for num in LENGTH_RUNS] + [
    ("tuned-both-gpus", both_gpus)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    write_tables(TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
