#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 53's bound (c1: `53-mma-sync-peak`, mma.sync from registers alone, at a clean export of commit 11696e4 plus
the program) and what limits the stage under it (c1: ncu's full set on chapter 53's kernel at 4096^3); chapter 57's
ping-pong candidate (c2: 57 --variant all at four shapes, ncu of the stage and ping-pong at 8192^3); chapter 59 with
half-octave shape classes and three candidates (c2: --variant all at six shapes, the 14-shape sweep and its plot).
The readers and the plot are chapter 59's table script's (2026-11-28-h200x4-s5/tables_59.py), given this folder's
files by absolute path.

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
    return (f"**The bound:** `mma.sync` from registers alone gives {peak:.1f} TFLOP/s on the NVIDIA H200 (CUDA 13.0, "
            f"2026-11-29), {share:.1f}% of the dense BF16 peak (which only `wgmma` reaches); the stage reaches "
            f"{100 * stage / peak:.1f}% of it ([what holds it back](#what-holds-it-under-its-bound)).")


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
        f"wait {stall('wait'):.2f} cycles out the fixed interval ptxas sets after each instruction (`stall wait`), "
        f"{stall('long_scoreboard'):.2f} on `long scoreboard` (in this loop: an instruction reusing a register that "
        f"a `cp.async` has not read yet, per the sampling below), {stall('barrier'):.2f} at the block barrier and "
        f"{stall('math_pipe_throttle'):.2f} on a busy tensor pipe. Where in the loop these cycles go, and what holds "
        f"the stage, is measured [below](#what-holds-it-measured).")


T59 = runpy.run_path(str(HERE.parent / "2026-11-28-h200x4-s5" / "tables_59.py"))
read_run, ms, tflops, tie, size, geo_mean = (T59[k] for k in ("read_run", "ms", "tflops", "tie", "size", "geo_mean"))
C2_COMMIT = "2a77ad0"
C2_PROVENANCE = f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit `{C2_COMMIT}`"
PINGPONG_SHAPES = ("4096x4096x4096", "6144x6144x6144", "8192x8192x8192", "4095x4097x4096")
PINGPONG_ROWS = [("bf16-gemm-persistent", "**57 `bf16-gemm-persistent`** (the stage: both consumers on one 128 × 256 tile)"),
                 ("ping-pong", "`ping-pong` (each consumer a 128 × 128 tile, in turns)"),
                 ("persistent-128x128-6-stages", "`persistent-128x128-6-stages` (the same tile and stages, no turns)"),
                 ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier` (two blocks per SM)"),
                 ("cublas", "cuBLAS `cublasGemmEx`")]


def c2(path):
    return HERE / "c2" / path


def pingpong_57():
    """Chapter 57's section on the ping-pong candidate: a table from the four --variant all runs (each column one
    process) and the ncu sentence at 8192^3."""
    runs = {s: read_run(c2(f"runs/57-{s}.csv")) for s in PINGPONG_SHAPES}
    top = T59["peak_of"](c2(f"runs/57-{PINGPONG_SHAPES[0]}.csv"))[0]
    head = ["NVIDIA H200"] + [f"{size(s)}: TFLOP/s (% of the BF16 peak, vs cuBLAS)" for s in PINGPONG_SHAPES]
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * len(PINGPONG_SHAPES)]
    for variant, label in PINGPONG_ROWS:
        cells = []
        for s in PINGPONG_SHAPES:
            r, st = runs[s][variant], runs[s]["bf16-gemm-persistent"]
            cell = f"{tflops(r):.1f} ({100 * tflops(r) / top:.1f}%, {float(r['speed_vs_ref']):.3f}x)"
            if variant not in ("bf16-gemm-persistent", "cublas") and tie(st, r):
                cell += ", a tie with the stage"
            cells.append(cell)
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    links = ", ".join(f"[{size(s)}]({RAW_LINK}c2/runs/57-{s}.csv)" for s in PINGPONG_SHAPES)
    out += ["", f"One run per shape of `57-bf16-gemm-persistent --variant all --budget-ms 200 --m M --n N --k K` "
                f"({C2_PROVENANCE}; raw: {links}): the rows of a shape from one process, every output checked against "
                "cuBLAS; \"a tie\": the row's range of repetitions overlaps the stage's. The peak, as in the first table: "
                f"{top:.0f} TFLOP/s (dense BF16)."]
    rows = {}
    for v in ("bf16-gemm-persistent", "ping-pong"):
        with open(c2(f"ncu-8192-{v}/ncu-tensor.csv")) as f:
            rows[v] = next(csv.DictReader(f))
    a, b = rows["bf16-gemm-persistent"], rows["ping-pong"]
    out += ["", f"**What `ncu` shows at 8192³** (`gpu__time_duration.sum`, "
                "`sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active`): ping-pong's "
                f"`{b['kernel']}` takes {float(b['time us']):.1f} µs with the tensor pipe busy "
                f"{float(b['tensor pipe %']):.1f}% of the active cycles, the stage's `{a['kernel']}` "
                f"{float(a['time us']):.1f} µs at {float(a['tensor pipe %']):.1f}% (`tools/ncu-compare --preset tensor "
                f"--chapters 57 --variant NAME --m 8192 --n 8192 --k 8192`, {C2_PROVENANCE}; raw: "
                f"[stage]({RAW_LINK}c2/ncu-8192-bf16-gemm-persistent/ncu-tensor.csv), "
                f"[ping-pong]({RAW_LINK}c2/ncu-8192-ping-pong/ncu-tensor.csv))."]
    ncu = lambda n, v: next(csv.DictReader(open(HERE / "c5" / f"ncu-{n}-{v}" / "ncu-tensor.csv")))
    cells = []
    for n in (4096, 6144):
        a, b = ncu(n, "bf16-gemm-persistent"), ncu(n, "ping-pong")
        cells.append(f"at {n}³ ping-pong's warps wait {float(b['stall barrier']):.2f} cycles per instruction at "
                     f"barriers against the stage's {float(a['stall barrier']):.2f}, its L2 runs at "
                     f"{float(b['L2 %peak']):.1f}% of its peak against the stage's "
                     f"{float(a['L2 %peak']):.1f}%, its warps stall {float(b['stall long sb']):.1f} cycles per "
                     f"instruction on memory (`long scoreboard`) against {float(a['stall long sb']):.1f}, and its "
                     f"tensor pipe is busy {float(b['tensor pipe %']):.1f}% against {float(a['tensor pipe %']):.1f}%")
    out += ["", "Where it only ties, its warps wait less at barriers and more on memory, and its L2 carries more: "
                "the smaller tile reads a third more bytes per multiply "
                "(`smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio`, "
                "`lts__throughput.avg.pct_of_peak_sustained_elapsed`, "
                "`smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio`): " + "; ".join(cells) +
                f" (the same command at those sizes, NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the "
                f"working tree of commit `2da86a2`, the same kernels; raw: [c5/]({RAW_LINK}c5/))."]
    return "\n".join(out)


def half_octave(v):
    """common/gemm/gemm_plan.cuh's half_octave: 2^a, or 2^a.5 from 2^a sqrt 2 up."""
    a = max(v, 1).bit_length() - 1
    return f"2^{a}" + (".5" if v * v >= 2 ** (2 * a + 1) else "")


def chapter_59():
    """Chapter 59's table script run on call 2: its globals point at this folder's c2/, with three candidates and
    half-octave classes; the ncu sentence stays call 5's (chapters 58 and 59 at 8192 x 8192 x 128, 2026-11-28)."""
    # runpy hands back a copy of the script's globals: its functions read the originals, which are updated here.
    t = runpy.run_path(str(HERE.parent / "2026-11-28-h200x4-s5" / "tables_59.py"))["first_table"].__globals__
    t.update(HERE=HERE, CALL="c2", COMMIT=C2_COMMIT, RAW_LINK=RAW_LINK, PROVENANCE=C2_PROVENANCE,
             CANDIDATES=[("58", "bf16-gemm-split-k"), ("55", "bf16-gemm-tma-mbarrier"), ("57", "ping-pong")],
             KERNEL_NAMES={"bf16-gemm-split-k": "58's", "bf16-gemm-tma-mbarrier": "55's", "ping-pong": "57's ping-pong"},
             CLASS_NOTE=" (one half octave per dimension: 1000³ and 512³ are two classes)",
             PLOT_TITLE="BF16 GEMM: the stage chosen per shape and its three candidates vs cuBLAS, NVIDIA H200, "
                        "2026-11-29",
             shape_class=lambda shape: "M {} N {} K {}".format(*map(half_octave, shape)),
             ncu_sentence=T59["ncu_sentence"])
    return t


T59_C2 = chapter_59()


def sweep_59():
    """Call 2's sweep table, then how it compares with call 5's (2026-11-28: two candidates, octave classes)."""
    before = dict(T59["sweep_rows"]())
    after = T59_C2["sweep_rows"]()
    stage = "bf16-gemm-by-shape"
    speed = lambda d: float(d[stage]["speed_vs_ref"])
    same = [(shape, speed(before[shape]), speed(d)) for shape, d in after
            if T59["chosen_in_sweep"](shape) == T59_C2["chosen_in_sweep"](shape)]
    moved = max(same, key=lambda x: abs(x[2] / x[1] - 1))
    changed = [(shape, speed(before[shape]), speed(d), T59["chosen_in_sweep"](shape), T59_C2["chosen_in_sweep"](shape))
               for shape, d in after if T59["chosen_in_sweep"](shape) != T59_C2["chosen_in_sweep"](shape)]
    geo = lambda rows: geo_mean([speed(d) for d in rows])
    text = (f"Against the sweep of 2026-11-28 (two candidates, octave classes; "
            f"[sweep-59.csv](../../docs/results/raw/2026-11-28-h200x4-s5/c5/sweep-59.csv)) the stage's geometric mean "
            f"is {geo(before.values()):.3f}x there and {geo([d for _, d in after]):.3f}x here. At {len(same)} of the "
            f"{len(after)} shapes both sweeps ran the same kernel, and there the stage's speed vs cuBLAS moved by up to "
            f"{100 * abs(moved[2] / moved[1] - 1):.0f}% ({size(moved[0])}: {moved[1]:.3f}x, then {moved[2]:.3f}x): "
            "one sweep at this budget does not tell such shapes apart. The shapes whose kernel changed: "
            + "; ".join(f"{size(sh)} {a:.3f}x ({k0}) then {b:.3f}x ({k1})" for sh, a, b, k0, k1 in changed) + ".")
    return T59_C2["sweep_table"]() + "\n\n" + text


TABLES = [("53-mma-sync-peak-h200", bound_53), ("53-under-the-bound-h200", profile_53),
          ("57-ping-pong-h200", pingpong_57), ("59-bf16-gemm-by-shape-h200", T59_C2["first_table"]),
          ("59-sweep-h200", sweep_59)]
# The sweep's README block is 2026-11-29-h200-s7/tables.py's now (the padded K); this table stays as the record of
# call 2. Without --check this still redraws the plot: run the later script after it.
BLOCKS = {name: name for name, _ in TABLES if name != "59-sweep-h200"}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
