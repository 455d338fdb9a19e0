#!/usr/bin/env python3
"""Writes chapter 53's "what holds it" block from the h53 helper's call on one NVIDIA H200 (CUDA 13.0, driver
580.159.04, 2026-11-29; script h53-c1.sh, outputs in c1/): 53-loop-ablation at 4096^3 and 8192^3 (the stage's loop
with one ingredient out at a time), the mma.sync bound and 53 --variant all in the same call, ncu's metrics of every
ablation row, and ncu's per-instruction stall sampling (source page, SASS) of the stage and of the hoisted-copies row.
The shared-memory wavefronts per mma.sync come from session 6's full-set capture of the same kernel.

  python3 docs/results/raw/2026-11-29-h200-s9/h53/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s9/h53/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s9/h53/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import io
import pathlib
import re
import runpy
import sys
from collections import defaultdict

HERE = pathlib.Path(__file__).resolve().parent
RAW = HERE.parents[1]
S2 = runpy.run_path(str(RAW / "2026-11-28-h200-s2" / "tables.py"))
C1 = HERE / "c1"
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s9/h53/"
S6_FULL = RAW / "2026-11-29-h200-s6" / "c1" / "ncu" / "53-full-raw.csv"
S6_LINK = "../../docs/results/raw/2026-11-29-h200-s6/c1/ncu/53-full-raw.csv"
COMMIT = "f1608d3"
PROVENANCE = f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit `{COMMIT}`"
ROWS = [  # (config, what the loop keeps)
    ("stage", "the stage itself (`gemm_multistage::gemm`)"),
    ("full", "the program's copy of the loop: copies, wait + barrier, `ldmatrix`, `mma.sync`"),
    ("copies-no-sync", "copies, `ldmatrix`, `mma.sync`; no wait, no barrier"),
    ("hoisted-copies", "the stage with each thread's copy addresses computed once (4 `cp.async` and a few adds a slice)"),
    ("no-ldmatrix", "copies, wait + barrier, `mma.sync` on fragments loaded once"),
    ("no-copies", "wait + barrier, `ldmatrix`, `mma.sync`; the 4 stages copied once and re-read"),
    ("no-copies-no-sync", "`ldmatrix` and `mma.sync` only"),
    ("mma-only", "the warp's 16 `mma.sync` a k16 step, fragments in registers"),
]


def ablation(n):
    """{config: row} of 53-loop-ablation's CSV (after its title line)."""
    text = (C1 / "runs" / f"ablation-{n}.csv").read_text()
    return {r["config"]: r for r in csv.DictReader(io.StringIO(text[text.index("config,"):]))}


def bound():
    text = (C1 / "runs" / "53-mma-sync-peak.txt").read_text()
    m = re.search(r"^mma\.sync peak: ([\d.]+) TFLOP/s \(([^)]*)\)", text, re.M)
    assert m, "no peak line"
    return float(m.group(1)), m.group(2)


def chapter_run():
    with open(C1 / "runs" / "53-4096.csv") as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def clocks(phase, next_phase):
    """(min MHz, max MHz, max W) of the SM clock log between two stamps of phases.txt (same day, HH:MM:SS.mmm)."""
    stamps = dict(reversed(l.split(" ", 1)) for l in (C1 / "phases.txt").read_text().splitlines())
    lo, hi = stamps[phase], stamps[next_phase]
    mhz, watts = [], []
    for line in (C1 / "clocks.csv").read_text().splitlines():
        m = re.match(r"\d{4}/\d\d/\d\d (\d\d:\d\d:\d\d\.\d{3}), (\d+) MHz, ([\d.]+) W", line)
        if m and lo <= m.group(1) <= hi and int(m.group(2)) > 1000:  # above idle: a kernel running
            mhz.append(int(m.group(2)))
            watts.append(float(m.group(3)))
    return min(mhz), max(mhz), max(watts)


def power_limit():
    return float(re.search(r"([\d.]+) W$", (C1 / "gpu.txt").read_text().splitlines()[0]).group(1))


def ncu_rows():
    """{config: {metric: value}} of the one-launch-per-row capture, launches in the program's order."""
    lines = (C1 / "ncu" / "rows-metrics.csv").read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    rows = [r for r in csv.reader(lines[start:]) if r]
    head, data = rows[0], rows[2:]
    order = ["stage", "full", "no-copies", "no-copies-no-sync", "no-ldmatrix", "mma-only", "copies-no-sync",
             "hoisted-copies"]  # 53-loop-ablation's configs()
    assert len(data) == len(order) and "gemm_multistage_kernel" in data[0][head.index("Kernel Name")]
    out = {}
    for name, r in zip(order, data):
        out[name] = {h: float(v.replace(",", "")) for h, v in zip(head, r) if "__" in h and re.fullmatch(r"[\d.,]+", v)}
    return out


def s6_metric(name):
    with open(S6_FULL) as f:
        rows = list(csv.reader(f))
    return float(rows[2][rows[0].index(name)].replace(",", ""))


def tensor_cycles(m):
    """Cycles per scheduler the tensor pipe is busy."""
    return m["smsp__cycles_active.avg"] * m["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"] / 100


def other_issue(m):
    """Instructions per scheduler other than mma.sync (each takes one issue cycle)."""
    return (m["smsp__inst_executed.sum"] - m["sm__inst_executed_pipe_tensor_op_hmma.sum"]) / 528  # 132 SMs x 4


def ablation_table():
    peak, peak_cfg = bound()
    cub = chapter_run()["cublas"]
    cub_us = 1000 * float(cub["median_ms"])
    a4, a8 = ablation(4096), ablation(8192)
    nc = ncu_rows()
    out = ["| row | what the loop keeps | 4096³: median µs, TFLOP/s | % of the `mma.sync` bound | vs cuBLAS | 8192³: TFLOP/s "
           "| ncu 4096³: cycles per scheduler (k) | tensor pipe busy | other instructions per `mma.sync` | result |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, what in ROWS:
        r, r8, m = a4[name], a8[name], nc[name]
        tf = float(r["tflops"])
        per_mma = (m["smsp__inst_executed.sum"] - m["sm__inst_executed_pipe_tensor_op_hmma.sum"]) / \
            m["sm__inst_executed_pipe_tensor_op_hmma.sum"]
        check = "checked" if r["check"].startswith("ok") else ("**FAILED**" if "FAILED" in r["check"] else "wrong by design")
        label = f"**`{name}`**" if name == "stage" else f"`{name}`"
        out.append(f"| {label} | {what} | {float(r['median_us']):.1f}, {tf:.1f} | {100 * tf / peak:.1f}% | "
                   f"{cub_us / float(r['median_us']):.3f}x | {float(r8['tflops']):.1f} | "
                   f"{m['smsp__cycles_active.avg'] / 1000:.0f} | "
                   f"{m['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active']:.1f}% | "
                   f"{per_mma:.2f} | {check} |")
    return out, peak, peak_cfg, cub_us, a4, nc


def regions(path):
    """Stall samples of one kernel's source page, by where in the main loop the warp waits."""
    rows = list(csv.reader(open(path)))
    head, data = rows[1], rows[2:]
    ix = {c: i for i, c in enumerate(head)}
    reasons = [c for c in head if c.startswith("stall_") and "Not Issued" not in c]
    src = [r[ix["Source"]].strip() for r in data]
    dep = next(i for i, s in enumerate(src) if s.startswith("DEPBAR.LE SB0, 0x2"))
    end = next(i for i, s in enumerate(src) if i > dep and re.match(r"@!P0\s+BRA", s))
    bar = next(i for i, s in enumerate(src) if i > dep and s.startswith("BAR.SYNC"))
    commit = max(i for i, s in enumerate(src) if bar < i < end and s.startswith("LDGDEPBAR"))
    agg = defaultdict(lambda: defaultdict(int))
    total = 0
    for i, r in enumerate(data):
        n = int(r[ix["Warp Stall Sampling (All Samples)"]])
        total += n
        op = src[i]
        if i < dep - 1 or i > end:
            reg = "outside"
        elif i <= bar + 3:
            reg = "barrier"
        elif "HMMA" in op:
            reg = "hmma"
        elif "LDSM" in op:
            reg = "ldsm"
        elif i <= commit + 1:
            reg = "copies"
        else:
            reg = "ldsm-addr"
        agg[reg]["all"] += n
        for c in reasons:
            agg[reg][c[len("stall_"):]] += int(r[ix[c]])
    return agg, total


REGION_LABELS = [("copies", "the copy code, from the barrier to the commit (`cp.async`, its address and edge code)"),
                 ("hmma", "the 32 `mma.sync` (`HMMA`)"),
                 ("barrier", "the wait and the barrier"),
                 ("ldsm", "the 12 `ldmatrix` (`LDSM`)"),
                 ("ldsm-addr", "the `ldmatrix` addresses and the loop"),
                 ("outside", "outside the loop (prologue, epilogue)")]
REASON_WORDS = {"wait": "fixed issue interval", "long_sb": "long scoreboard", "short_sb": "short scoreboard",
                "math": "tensor pipe busy", "barrier": "barrier", "selected": "issuing", "not_selected": "another warp issued",
                "branch_resolving": "branch", "mio": "MIO queue full", "dispatch": "dispatch", "no_inst": "no instruction"}


def stall_table():
    st, st_total = regions(C1 / "ncu" / "src-stage-sass.csv")
    ho, ho_total = regions(C1 / "ncu" / "src-hoisted-copies-sass.csv")
    out = ["| where the warps wait (main loop) | `stage`: share of the samples, top reasons | `hoisted-copies`: share, top reasons |",
           "|---|---|---|"]

    def cell(agg, total, reg):
        d = agg[reg]
        top = sorted(((v, k) for k, v in d.items() if k != "all"), reverse=True)[:3]
        return (f"{100 * d['all'] / total:.1f}%: " +
                ", ".join(f"{REASON_WORDS.get(k, k)} {100 * v / total:.1f}%" for v, k in top if v))
    for reg, label in REGION_LABELS:
        out.append(f"| {label} | {cell(st, st_total, reg)} | {cell(ho, ho_total, reg)} |")
    return out, st, st_total, ho, ho_total


def limiter():
    table, peak, peak_cfg, cub_us, a4, nc = ablation_table()
    stalls, st, st_total, ho, ho_total = stall_table()
    st_cyc = {k: nc[k]["smsp__cycles_active.avg"] for k in nc}
    tensor = tensor_cycles(nc["mma-only"])
    extra = st_cyc["full"] - tensor
    part = {"copies": st_cyc["full"] - st_cyc["no-copies"], "sync": st_cyc["no-copies"] - st_cyc["no-copies-no-sync"],
            "ldsm": st_cyc["no-copies-no-sync"] - st_cyc["mma-only"]}
    # Tensor-busy cycles plus the other instructions' issue cycles, as a share of all cycles, per row.
    share = {k: 100 * (tensor_cycles(m) + other_issue(m)) / m["smsp__cycles_active.avg"] for k, m in nc.items()}
    additive = [k for k, _ in ROWS if k != "hoisted-copies"]
    lo, hi = min(share[k] for k in additive), max(share[k] for k in additive)
    hmma = nc["stage"]["sm__inst_executed_pipe_tensor_op_hmma.sum"]
    inst_cut = 100 * (1 - nc["hoisted-copies"]["smsp__inst_executed.sum"] / nc["full"]["smsp__inst_executed.sum"])
    cyc_cut = 100 * (1 - st_cyc["hoisted-copies"] / st_cyc["full"])
    # Shared-memory data path (session 6's full set of the same kernel): wavefronts per mma.sync, the pipe's peak.
    wf_sm = s6_metric("SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts.avg")
    wf_pct = s6_metric("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")
    wf_peak = wf_sm / (wf_pct / 100) / s6_metric("sm__cycles_elapsed.avg")  # wavefronts per cycle per SM
    wf_per_mma = wf_sm * 132 / s6_metric("smsp__inst_executed_op_ldsm.sum") / (16 / 6)
    ldsm_wf = s6_metric("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") / s6_metric("smsp__inst_executed_op_ldsm.sum")
    mma_per_cycle_sm = 4 * hmma / 528 / tensor  # mma.sync per cycle per SM with the tensor pipes busy
    smem_need = wf_per_mma * mma_per_cycle_sm / wf_peak
    smem_ceiling = peak / smem_need
    hstall = lambda agg, total, reason: 100 * agg["hmma"][reason] / total
    stage_tf = float(a4["stage"]["tflops"])
    clk = clocks("ablation-4096", "peak")
    cub_tf = float(chapter_run()["cublas"]["gflops"]) / 1000
    lines = [
        f"[`53-loop-ablation`](loop_ablation.cu) times the stage and then its loop with one ingredient taken out at a "
        f"time: the same tile, warps, stages, swizzle, `copy_tile`, `ldmatrix_x4` and `mma_bf16_16816`, switched by "
        f"template parameters; the rows that keep a right result are checked on 512 sampled entries against an FP64 "
        f"CPU dot product, the others are wrong by design. One run at 4096³ and one at 8192³ (`--budget-ms 300`), "
        f"and `ncu --clock-control none` on one launch of each row at 4096³ ({PROVENANCE}; raw: "
        f"[ablation-4096.csv]({RAW_LINK}c1/runs/ablation-4096.csv), [ablation-8192.csv]({RAW_LINK}c1/runs/ablation-8192.csv), "
        f"[rows-metrics.csv]({RAW_LINK}c1/ncu/rows-metrics.csv); script: [h53-c1.sh]({RAW_LINK}h53-c1.sh)). "
        f"The bound is the same call's `53-mma-sync-peak`, {peak:.1f} TFLOP/s ({peak_cfg}); cuBLAS is the same call's "
        f"`53-bf16-gemm-cp-async-pipeline --variant all` run, {cub_us:.1f} µs (another process; in that run the stage "
        f"took {1000 * float(chapter_run()['bf16-cp-async-pipeline']['median_ms']):.1f} µs, "
        f"{float(chapter_run()['bf16-cp-async-pipeline']['speed_vs_ref']):.3f}x). \"Other instructions\" are all the "
        f"warp instructions issued that are not `mma.sync`, per `mma.sync`. The timings ran at the clocks the GPU "
        f"chose, {clk[0]}-{clk[1]} MHz with the power up to {clk[2]:.0f} W of its {power_limit():.0f} W limit "
        f"([clocks.csv]({RAW_LINK}c1/clocks.csv)); the ncu columns count cycles.",
        "",
        *table,
        "",
        f"Where the cycles go (ncu cycles per scheduler): with nothing but `mma.sync` the tensor pipe is busy "
        f"{nc['mma-only']['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active']:.1f}% of "
        f"{st_cyc['mma-only'] / 1000:.0f}k cycles, {tensor / 1000:.0f}k cycles of tensor work that every row shares. "
        f"The loop takes {extra / 1000:.0f}k cycles more: the copies {part['copies'] / 1000:.0f}k "
        f"({100 * part['copies'] / extra:.0f}%, `full` against `no-copies`), `ldmatrix` {part['ldsm'] / 1000:.0f}k "
        f"({100 * part['ldsm'] / extra:.0f}%), the wait and the barrier {part['sync'] / 1000:.0f}k "
        f"({100 * part['sync'] / extra:.0f}%). In every row but one, the cycles in which the tensor pipe is busy plus "
        f"the cycles spent issuing the other instructions add up to {lo:.0f}-{hi:.0f}% of all the cycles: the two "
        f"almost never overlap, so each of the {(nc['stage']['smsp__inst_executed.sum'] - hmma) / hmma:.1f} other "
        f"instructions per `mma.sync` adds about a cycle to the tensor pipe's time instead of hiding behind it. (This "
        f"run does not tell whether a scheduler cannot issue while its tensor pipe works on an `mma.sync`, or whether "
        f"its 4 warps fall into step, all in their copy code, then all at their `mma.sync`s; warps of `mma-only` next "
        f"to warps of integer work on one scheduler would.)",
        "",
        f"The exception is `hoisted-copies` ({share['hoisted-copies']:.0f}%): computing the copy addresses once removes "
        f"{inst_cut:.0f}% of the instructions but only {cyc_cut:.0f}% of the cycles, because the time moves to shared "
        f"memory. Per-instruction stall sampling of the two kernels (`ncu --section WarpStateStats --section "
        f"SourceCounters`, source page with SASS; raw: [src-stage-sass.csv]({RAW_LINK}c1/ncu/src-stage-sass.csv), "
        f"[src-hoisted-copies-sass.csv]({RAW_LINK}c1/ncu/src-hoisted-copies-sass.csv)) shows where the warps wait:",
        "",
        *stalls,
        "",
        f"(A sample is counted on the instruction the warp waits to issue. \"Fixed issue interval\" is ncu's `stall "
        f"wait`, the fixed number of cycles ptxas writes into each instruction for its warp to wait before the next "
        f"one. \"Long scoreboard\" in the copy code is an instruction that reuses a register a `cp.async` "
        f"has not read yet. \"Short scoreboard\" on an `HMMA` is the wait for an `ldmatrix` result.) In the stage "
        f"the copy code holds {100 * st['copies']['all'] / st_total:.0f}% of the samples, mostly integer instructions "
        f"waiting out their issue interval; in `hoisted-copies` the `mma.sync`s wait for `ldmatrix` results "
        f"{hstall(ho, ho_total, 'short_sb'):.1f}% of the time (stage: {hstall(st, st_total, 'short_sb'):.1f}%) and "
        f"`ldmatrix` waits for a full MIO queue: the 4 `cp.async` of a slice now leave at once and their shared-memory "
        f"writes go through the same pipe as the `ldmatrix` reads. That pipe is the second limit: each `ldmatrix.x4` "
        f"is {ldsm_wf:.0f} shared-memory wavefronts, and with the `cp.async` writes the stage moves {wf_per_mma:.2f} "
        f"wavefronts per `mma.sync` through a pipe that takes {wf_peak:.2f} a cycle per SM (session 6's full capture "
        f"of the same kernel; raw: [53-full-raw.csv]({S6_LINK})). Keeping the tensor pipes busy would need "
        f"{100 * smem_need:.0f}% of it, so this tiling cannot pass {smem_ceiling:.0f} TFLOP/s "
        f"({100 * smem_ceiling / peak:.0f}% of the bound, {smem_ceiling / cub_tf:.2f}x cuBLAS) "
        f"even with every other instruction hidden.",
        "",
        f"**What holds the stage at half its bound:** the tensor pipe works only "
        f"{nc['stage']['sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active']:.0f}% of the cycles "
        f"because, on each scheduler, everything else the loop does between its `mma.sync`s takes its own cycles: "
        f"{(nc['stage']['smsp__inst_executed.sum'] - hmma) / hmma:.1f} instructions per `mma.sync` (the copies' "
        f"address and edge code above all, then the `ldmatrix` addresses, the barrier), issued one at a time by warps "
        f"that wait a fixed interval after each, and {wf_per_mma:.2f} shared-memory wavefronts per `mma.sync`. With "
        f"4 warps per scheduler (registers and shared memory allow no more) the two do not overlap. Taking the copies out of the loop "
        f"gives {float(a4['no-copies']['tflops']):.1f} TFLOP/s, taking out the barrier too "
        f"{float(a4['no-copies-no-sync']['tflops']):.1f}, and `mma.sync` alone {float(a4['mma-only']['tflops']):.1f}; "
        f"the stage's {stage_tf:.1f} TFLOP/s are {100 * stage_tf / peak:.0f}% of the bound and "
        f"{cub_us / float(a4['stage']['median_us']):.2f}x cuBLAS. Computing the copy addresses once (the cheap fix, `hoisted-copies`) gives only "
        f"{100 * (float(a4['hoisted-copies']['tflops']) / stage_tf - 1):.0f}%, because the shared-memory pipe then "
        f"takes over. Going faster needs both fewer instructions and fewer shared-memory wavefronts per `mma.sync` "
        f"while keeping 4 warps per scheduler; the 64 × 64 warp tiles tried above cut both, but with their registers "
        f"only one block fits an SM, half the warps per scheduler, and they went no faster (this run did not measure why). `wgmma` (chapter 54) removes "
        f"both costs: it reads its operands from shared memory without `ldmatrix` and is one instruction per 64-wide "
        f"tile.",
    ]
    return "\n".join(lines)


TABLES = [("53-limiter-h200", limiter)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
