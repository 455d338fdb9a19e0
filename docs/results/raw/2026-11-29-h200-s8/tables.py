#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 57's epilogue candidates (the h57 helper's call 2), chapter 59's 14-shape sweep with its fourth candidate (c2;
its three squares are session 9's, timed in rounds), and the first screens of chapters 36-38 (the runs of session 7's call 3 at 36's and 37's
lengths, c2's run of 38 at 2^20, and c2's ncu of each stage).

  python3 docs/results/raw/2026-11-29-h200-s8/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s8/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s8/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import math
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s8/"
S7_LINK = "../../docs/results/raw/2026-11-29-h200-s7/"
S7 = HERE.parent / "2026-11-29-h200-s7"
COMMITS = {"c2": "415ca12", "h57-c2": "8f7a2b7", "s7-c3": "305cc3d"}
BF16_PEAK_TFLOPS = 132 * 4096 * 1980e6 / 1e12  # the dense peak the GEMM programs print (1071 TFLOP/s)


def provenance(call):
    return (f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit "
            f"`{COMMITS[call]}`")


def rows(path):
    """{variant: row} of one program's --format csv output."""
    with open(path) as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def ms(r):
    return float(r["median_ms"])


def speed(r):
    return float(r["speed_vs_ref"])


def tie(a, b):
    """Each median inside the other row's min-max range."""
    return (float(a["min_ms"]) <= ms(b) <= float(a["max_ms"])) and (float(b["min_ms"]) <= ms(a) <= float(b["max_ms"]))


def versus(a, b):
    if tie(a, b):
        return "a tie"
    return f"{ms(b) / ms(a):.2f}x faster" if ms(a) < ms(b) else f"{ms(a) / ms(b):.2f}x slower"


def plan_choice(err_path, prefix):
    m = re.search(r"^# plan: " + re.escape(prefix) + r"[^:]*: (\S+) \(", pathlib.Path(err_path).read_text(), re.M)
    assert m, f"no plan line {prefix} in {err_path}"
    return m.group(1)


def gemm_cell(r, stage=None):
    tf = float(r["gflops"]) / 1000
    mark = ", a tie with the stage" if stage is not None and r is not stage and tie(r, stage) else ""
    return f"{1000 * ms(r):.1f} ({100 * tf / BF16_PEAK_TFLOPS:.1f}%, {speed(r):.3f}x{mark})"


def epilogue_57():
    """57 --variant all at three squares (the h57 helper's call 2): the stage, the epilogue candidates, cuBLAS."""
    variants = [("bf16-gemm-persistent", "**57 `bf16-gemm-persistent`** (the stage: chapter 54's epilogue)"),
                ("epilogue-batched", "57 `epilogue-batched`"), ("epilogue-prefetch", "57 `epilogue-prefetch`"),
                ("ping-pong", "57 `ping-pong`"), ("ping-pong-epilogue-prefetch", "57 `ping-pong-epilogue-prefetch`"),
                ("cluster-multicast", "57 `cluster-multicast`"),
                ("cluster-epilogue-prefetch", "57 `cluster-epilogue-prefetch`"), ("cublas", "cuBLAS `cublasGemmEx`")]
    sizes = (4096, 6144, 8192)
    data = {n: rows(HERE / f"h57-c2/57-{n}.csv") for n in sizes}
    out = ["| NVIDIA H200 | " + " | ".join(f"{n}³: median µs (% of the BF16 peak, vs cuBLAS)" for n in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    for v, label in variants:
        out.append(f"| {label} | " + " | ".join(
            gemm_cell(data[n][v], None if v == "cublas" else data[n]["bf16-gemm-persistent"]) for n in sizes) + " |")
    faster = [n for n in sizes if not tie(data[n]["epilogue-prefetch"], data[n]["bf16-gemm-persistent"])
              and ms(data[n]["epilogue-prefetch"]) < ms(data[n]["bf16-gemm-persistent"])]
    vs_cublas = [n for n in sizes if tie(data[n]["epilogue-prefetch"], data[n]["cublas"])]
    out += ["", "One run per size of `57-bf16-gemm-persistent --variant all --budget-ms 300 --m N --n N --k N` "
                f"(alpha = 1.25, beta = -0.75: C is read; {provenance('h57-c2')}, a helper's worktree; raw: "
                f"[h57-c2/]({RAW_LINK}h57-c2/)): the rows of a size from one process, every output checked against "
                "cuBLAS; \"a tie\": the two rows' ranges of repetitions overlap. `epilogue-prefetch` is faster "
                "than the stage beyond the spread at " + ", ".join(f"{n}³" for n in faster) +
                "; against cuBLAS its ranges overlap at " + ", ".join(f"{n}³" for n in vs_cublas) +
                " (a tie by this rule, with medians of " +
                ", ".join(f"{speed(data[n]['epilogue-prefetch']):.3f}x" for n in sizes) + ")."]
    return "\n".join(out)


def raw_metrics(path):
    """{metric: value} of an `ncu --page raw --csv` export (its first kernel)."""
    with open(path) as f:
        rows_ = list(csv.reader(f))
    return {k: v for k, v in zip(rows_[0], rows_[2])}


def epilogue_cause_57():
    """Where the stage's cycles go against cuBLAS at 4096^3: session 7's ncu --set full of both (its call 1)."""
    num = lambda d, k: float(d[k].replace(",", ""))
    th = lambda x: f"{x:,.0f}".replace(",", " ")  # thousands apart by a space, as the READMEs write them
    st, cu = (raw_metrics(S7 / f"c1/57-{v}-4096.raw.csv") for v in ("stage", "cublas"))
    tp, act = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "sm__cycles_active.avg"
    ls, el, ld = ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", "gpc__cycles_elapsed.max",
                  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
    busy = lambda d: num(d, tp) / 100 * num(d, act)
    return (f"Where the stage's {th(num(st, el) - num(cu, el))} extra cycles against cuBLAS go at 4096³ (`ncu --set "
            f"full`, NVIDIA H200, CUDA 13.0, 2026-11-29, the working tree of commit `4915122`; raw: [the stage]"
            f"({S7_LINK}c1/57-stage-4096.details.txt), [cuBLAS]({S7_LINK}c1/57-cublas-4096.details.txt)): the "
            f"elapsed cycles (`{el}`) are {th(num(st, el))} against {th(num(cu, el))}, but both kernels keep the "
            f"tensor pipe busy for about the same number of cycles (`{tp}` × `{act}`: {num(st, tp):.1f}% of "
            f"{th(num(st, act))}, about {th(busy(st))}, against {num(cu, tp):.1f}% of {th(num(cu, act))}, about "
            f"{th(busy(cu))}), and both read C (the programs run beta = -0.75) with the same global loads (`{ld}`: "
            f"{th(num(st, ld))} sectors each). What differs is how long the warps wait on those loads: "
            f"{th(num(st, ls))} of the stage's {th(num(st, 'smsp__pcsamp_sample_count'))} PC samples are "
            f"`long scoreboard` (`{ls}`) against {th(num(cu, ls))} of cuBLAS's "
            f"{th(num(cu, 'smsp__pcsamp_sample_count'))}. The stage's L1 hit rate "
            f"(`l1tex__t_sector_hit_rate.pct`, {num(st, 'l1tex__t_sector_hit_rate.pct'):.1f}% against cuBLAS's "
            f"{num(cu, 'l1tex__t_sector_hit_rate.pct'):.0f}%) is its stores landing on the lines those loads "
            "brought in, not a second read.")


SQUARES = (4096, 6144, 8192)
T59 = runpy.run_path(str(HERE.parent / "2026-11-28-h200x4-s5" / "tables_59.py"))["first_table"].__globals__
SWEEP_PLOT_S8 = HERE.parents[3] / "chapters" / "59-bf16-gemm-by-shape" / "sweep-h200-s8.png"
CANDIDATES_59 = [("bf16-gemm-split-k", "58 `bf16-gemm-split-k` (the previous stage; a candidate)"),
                 ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier` (a candidate)"),
                 ("ping-pong", "57 `ping-pong` (a candidate)"),
                 ("epilogue-prefetch", "57 `epilogue-prefetch` (a candidate)")]


def ncu_metrics(path):
    """{metric name: value} of an `ncu --csv --metrics` capture of one launch (the h57 helper's call 1)."""
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    out = {}
    for r in csv.DictReader(lines):
        out[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return out


def screen_59_ncu():
    """ncu at 4096^3 (the h57 helper's call 1): the tensor pipe and the long-scoreboard stall, 57's stage against
    epilogue-prefetch (the kernel 59's plan picks there) and cuBLAS."""
    m = {v: ncu_metrics(HERE / f"h57-c1/ncu-{v}.csv") for v in ("bf16-gemm-persistent", "epilogue-prefetch", "cublas")}
    tp = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
    ls = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
    us = lambda v: m[v]["gpu__time_duration.sum"] / 1000
    return ("**The `ncu` metric that shows why** (4096³; `" + tp + "`, `" + ls + "`): the kernel the plan picks, "
            f"`epilogue-prefetch`, keeps the tensor pipe busy {m['epilogue-prefetch'][tp]:.1f}% of the active cycles "
            f"({us('epilogue-prefetch'):.1f} µs) against cuBLAS's {m['cublas'][tp]:.1f}% ({us('cublas'):.1f} µs) "
            f"and chapter 57's stage's {m['bf16-gemm-persistent'][tp]:.1f}% ({us('bf16-gemm-persistent'):.1f} µs), "
            f"whose warps wait {m['bf16-gemm-persistent'][ls]:.2f} cycles per issued instruction on global loads "
            f"(`long scoreboard`) against {m['epilogue-prefetch'][ls]:.2f}: the same kernel, with C's old values "
            "loaded in batches instead of one round trip per float2 ([chapter 57, \"The epilogue\"]"
            "(../57-bf16-gemm-persistent/README.md#the-epilogue-one-memory-round-trip-per-float2-candidates); "
            "`ncu --clock-control none --metrics ...`, NVIDIA H200, CUDA 13.0, 2026-11-29, the h57 helper's first "
            f"call; raw: [h57-c1/]({RAW_LINK}h57-c1/)).")


def sweep_59():
    """59's 14-shape sweep, the stage and cuBLAS only (c2)."""
    with open(HERE / "c2/sweep-59.csv") as f:
        reader = csv.reader(f)
        header = next(reader)
        # m, n, k in front, then the program's row (whose own "n" is the element count)
        data = [{**dict(zip(header[3:], r[3:])), **dict(zip(header[:3], r[:3]))} for r in reader]
    stage = [r for r in data if r["variant"] == "bf16-gemm-by-shape"]
    cublas = {(r["m"], r["k"]): r for r in data if r["variant"] == "cublas"}
    out = ["| M × N × K | 59 `bf16-gemm-by-shape`: TFLOP/s | cuBLAS TFLOP/s | vs cuBLAS | the plan's choice |",
           "|---|---:|---:|---:|---|"]
    plans = re.findall(r"plan: 59 bf16 gemm (.*?): (\S+) \(", (HERE / "c2/sweep.log").read_text())
    assert len(plans) == len(stage), (len(plans), len(stage))
    for r, (_, choice) in zip(stage, plans):
        shape = " × ".join(r[d] for d in ("m", "n", "k")) if len({r["m"], r["n"], r["k"]}) > 1 else f"{r['m']}³"
        c = cublas[(r["m"], r["k"])]
        out.append(f"| {shape} | {float(r['gflops']) / 1000:.1f} | {float(c['gflops']) / 1000:.1f} | "
                   f"{speed(r):.3f}x | `{choice}` |")
    sp = [speed(r) for r in stage]
    aligned = [speed(r) for r in stage if int(r["k"]) % 8 == 0]
    geo = lambda v: math.exp(sum(map(math.log, v)) / len(v))
    # The plot (drawn where matplotlib is there, not written with --check): session 5's drawing, one series.
    T59["draw_speeds"]([((int(r["m"]), int(r["n"]), int(r["k"])), {"bf16-gemm-by-shape": r}) for r in stage],
                       [("bf16-gemm-by-shape", "59 `bf16-gemm-by-shape` (four candidates)", "tab:purple", "-")],
                       {"bf16-gemm-by-shape": geo(sp)}, SWEEP_PLOT_S8,
                       "BF16 GEMM: the stage chosen per shape (epilogue-prefetch among its candidates) vs cuBLAS, "
                       "NVIDIA H200, 2026-11-29")
    out += [f"| **geometric mean, {len(sp)} shapes** | – | – | **{geo(sp):.3f}x** | – |", "",
            "One run of `SWEEP_CHAPTERS=59-bf16-gemm-by-shape chapters/53-bf16-gemm-cp-async-pipeline/sweep-shapes.sh "
            "BUILD sweep-59.csv --variant bf16-gemm-by-shape --budget-ms 100` with an empty plan folder "
            f"({provenance('c2')}; raw: [sweep-59.csv]({RAW_LINK}c2/sweep-59.csv), plan lines in "
            f"[sweep.log]({RAW_LINK}c2/sweep.log), plot: [{SWEEP_PLOT_S8.name}]({SWEEP_PLOT_S8.name})): one process per shape, the stage (its plan measured there among "
            f"four candidates) and cuBLAS, every output checked. Geometric mean {geo(sp):.3f}x over the {len(sp)} "
            f"shapes, {geo(aligned):.3f}x over the {len(aligned)} with K a multiple of 8 (the ragged one is the "
            "padded copy's, above)."]
    return "\n".join(out)


def ncu_fft(chapter):
    """The stage's kernels of one ncu-compare --preset fft run (c2): {kernel: row}."""
    with open(HERE / f"c2/ncu/ncu-fft{chapter}.csv") as f:
        return {r["kernel"]: r for r in csv.DictReader(f)}


def fft_screen_table(path, stage, prev, prev_label, n_label):
    r = rows(path)
    st, pv, cu, cp = r[stage], r[prev], r["cufft"], r["cudaMemcpy"]
    return [f"| {n_label}, 2^27 values, NVIDIA H200 | median µs | % of `cudaMemcpy` | speed vs cuFFT |",
            "|---|---:|---:|---:|",
            f"| **`{stage}`** (this stage) | **{1000 * ms(st):.1f}** | **{float(st['pct_memcpy']):.1f}** | "
            f"**{speed(st):.3f}x** |",
            f"| `{prev}` ({prev_label}) | {1000 * ms(pv):.1f} | {float(pv['pct_memcpy']):.1f} | {speed(pv):.3f}x |",
            f"| cuFFT `cufftExecC2C` | {1000 * ms(cu):.1f} | {float(cu['pct_memcpy']):.1f} | 1.000x |",
            f"| `cudaMemcpy` of the same bytes (the bound) | {1000 * ms(cp):.1f} | 100.0 | – |"], st, pv, cu


def screen_36():
    out = []
    for n in (8192, 16384):
        table, st, pv, cu = fft_screen_table(S7 / f"c3/runs/36-{n}.csv", "fft-one-block-large", "fft-tuned",
                                             "chapter 35's stage, the previous one: its four-step here", f"N = {n}")
        out += table + [""]
    k = ncu_fft(36)["fft_one_block_kernel"]
    out += [f"One process per N, every output checked (H200, CUDA 13.0, 2026-11-29, commit `{COMMITS['s7-c3']}`; raw: "
            f"[36-8192.csv]({S7_LINK}c3/runs/36-8192.csv), [36-16384.csv]({S7_LINK}c3/runs/36-16384.csv)). "
            f"**`ncu`** at N = 16384: DRAM at {float(k['DRAM %peak']):.1f}% of its peak "
            f"(`dram__throughput.avg.pct_of_peak_sustained_elapsed`), {float(k['occupancy %']):.1f}% of the warp "
            f"slots (`sm__warps_active.avg.pct_of_peak_sustained_active`: one 132 KiB block per SM), "
            f"{float(k['stall barrier']):.2f} barrier stalls per issue "
            "(`smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio`): while its warps wait at a barrier, "
            f"no other block keeps the memory busy (commit `{COMMITS['c2']}`; raw: [ncu-fft36.txt]({RAW_LINK}"
            "c2/ncu/ncu-fft36.txt))."]
    return "\n".join(out)


def screen_37():
    out = []
    for n in (32768, 65536):
        table, st, pv, cu = fft_screen_table(S7 / f"c3/runs/37-{n}.csv", "fft-thread-block-cluster",
                                             "fft-one-block-large",
                                             "chapter 36's stage, the previous one: chapter 35's four-step here",
                                             f"N = {n}")
        out += table + [""]
    k = ncu_fft(37)["fft_cluster_kernel"]
    k36 = ncu_fft(36)["fft_one_block_kernel"]
    out += [f"One process per N, every output checked (H200, CUDA 13.0, 2026-11-29, commit `{COMMITS['s7-c3']}`; raw: "
            f"[37-32768.csv]({S7_LINK}c3/runs/37-32768.csv), [37-65536.csv]({S7_LINK}c3/runs/37-65536.csv)). "
            f"**`ncu`** at N = 65536: DRAM at {float(k['DRAM %peak']):.1f}% of its peak "
            f"(`dram__throughput.avg.pct_of_peak_sustained_elapsed`), {float(k['occupancy %']):.1f}% of the warp "
            f"slots, {float(k['stall barrier']):.2f} barrier stalls per issue "
            "(`smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio`) against "
            f"{float(k36['stall barrier']):.2f} in chapter 36's kernel: with one block per SM, the cluster barriers "
            f"leave the memory idle (commit `{COMMITS['c2']}`; raw: [ncu-fft37.txt]({RAW_LINK}c2/ncu/ncu-fft37.txt))."]
    return "\n".join(out)


def screen_38():
    table, st, pv, cu = fft_screen_table(HERE / "c2/runs/38-1048576.csv", "fft-two-pass", "fft-thread-block-cluster",
                                         "chapter 37's stage, the previous one: chapter 35's four-step here",
                                         "N = 2^20")
    k = ncu_fft(38)
    p1, p2 = k["fft_columns_kernel"], k["fft_rows_kernel"]
    total = k["(total)"]
    out = table + ["", f"One process, every output checked (H200, CUDA 13.0, 2026-11-29, commit `{COMMITS['c2']}`; raw: "
                       f"[38-1048576.csv]({RAW_LINK}c2/runs/38-1048576.csv)). Two passes read and write the batch "
                       f"twice: the bound is 50% of the copy (cuFFT {float(cu['pct_memcpy']):.1f}%, the stage "
                       f"{float(st['pct_memcpy']):.1f}%). **`ncu`**: `dram__bytes_read.sum` "
                       f"{float(total['DRAM rd MB']):.1f} MB for a 134.2 MB batch; the DRAM "
                       "(`dram__throughput.avg.pct_of_peak_sustained_elapsed`) at "
                       f"{float(p1['DRAM %peak']):.1f}% of its peak in pass 1, with {float(p1['stall barrier']):.2f} "
                       f"barrier stalls per issue, and {float(p2['DRAM %peak']):.1f}% in pass 2 "
                       f"({float(p2['stall barrier']):.2f}): pass 1 is the one to work on (raw: "
                       f"[ncu-fft38.txt]({RAW_LINK}c2/ncu/ncu-fft38.txt))."]
    return "\n".join(out)


TILINGS_53 = [
    ("bf16-cp-async-pipeline", "128 × 256 × 32, 8 warps of 64 × 64, 4 stages, fragments one k16 step ahead (the patch's stage)"),
    ("bf16-cp-async-256x128x32-w64x64-s4", "256 × 128 × 32, 8 warps of 64 × 64, 4 stages, fragments ahead"),
    ("bf16-cp-async-128x256x32-w64x64-s3", "128 × 256 × 32, 8 warps of 64 × 64, 3 stages, fragments ahead"),
    ("bf16-cp-async-128x256x32-w64x64-s4-no-prefetch", "128 × 256 × 32, 8 warps of 64 × 64, 4 stages"),
    ("bf16-cp-async-128x128x32-w64x64-s4", "128 × 128 × 32, 4 warps of 64 × 64, 4 stages, fragments ahead"),
    ("bf16-cp-async-128x128x32-w64x32-s4", "128 × 128 × 32, 8 warps of 64 × 32, 4 stages (this chapter's tiling)"),
    ("bf16-cp-async-128x128x32-w64x32-s6", "128 × 128 × 32, 8 warps of 64 × 32, 6 stages"),
]


def tilings_53():
    """53 with the h53 patch applied (c2): seven tilings at 4096^3 and 8192^3, one process per size, and ncu."""
    data = {n: rows(HERE / f"c2/runs/53-{n}.csv") for n in (4096, 8192)}
    out = ["| tiling (block M × N × K, warps, stages) | 4096³: median µs (% of the BF16 peak, vs cuBLAS) | "
           "8192³: median µs (% of the BF16 peak, vs cuBLAS) |", "|---|---:|---:|"]
    base = {n: data[n]["bf16-cp-async-128x128x32-w64x32-s4"] for n in data}
    for v, label in TILINGS_53:
        cells = []
        for n in (4096, 8192):
            r = data[n][v]
            mark = ", a tie with this chapter's tiling" if r is not base[n] and tie(r, base[n]) else ""
            share = 100 * float(r["gflops"]) / 1000 / BF16_PEAK_TFLOPS
            cells.append(f"{1000 * ms(r):.1f} ({share:.1f}%, {speed(r):.3f}x{mark})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("| cuBLAS | " + " | ".join(
        f"{1000 * ms(data[n]['cublas']):.1f} ({100 * float(data[n]['cublas']['gflops']) / 1000 / BF16_PEAK_TFLOPS:.1f}%, "
        "1.000x)" for n in (4096, 8192)) + " |")
    with open(HERE / "c2/ncu/ncu-tensor.csv") as f:
        nc = {r["chapter"]: r for r in csv.DictReader(f)}["53-bf16-gemm-cp-async-pipeline"]
    out += ["", "One run per size of `53-bf16-gemm-cp-async-pipeline --variant all --budget-ms 150` with "
                f"[`h53-tilings.diff`]({RAW_LINK}h53-tilings.diff) applied ({provenance('c2')}; raw: "
                f"[53-4096.csv]({RAW_LINK}c2/runs/53-4096.csv), [53-8192.csv]({RAW_LINK}c2/runs/53-8192.csv)): "
                "every row of a size from one process, every output checked. In that patch every tiling copies "
                "aligned rows with one branch-free, zero-filling `cp.async` per chunk. Under `ncu` (4096³, the "
                f"patch's stage; raw: [ncu-tensor.txt]({RAW_LINK}c2/ncu/ncu-tensor.txt)) the tensor pipe is busy "
                f"{float(nc['tensor pipe %']):.1f}% of the active cycles and the issue slots "
                f"{float(nc['issue %']):.1f}%, at {float(nc['regs']):.0f} registers a thread (one block of 8 warps "
                "per SM: two warps per scheduler). The peak: 132 SMs × 4096 BF16 FLOP/clock × 1980 MHz = "
                f"{BF16_PEAK_TFLOPS:.0f} TFLOP/s, which only `wgmma` reaches; `mma.sync` alone reaches 59.1% of it "
                "(the bound above), so the best row here is about half of that bound."]
    return "\n".join(out)


def short_lengths_38():
    """Chapter 38's stage at N = 8 .. 1024 after chapter 35's staged candidates (c3), against session 7's run (its
    call 3, before them): the stage, cuFFT and the copy in one process per N, an empty plan folder each time."""
    out = ["| N | the stage µs | % of `cudaMemcpy` | vs cuFFT | what runs (plan) | before: vs cuFFT (plan) |",
           "|---:|---:|---:|---:|---|---|"]
    for e in range(3, 11):
        n = 1 << e
        now, before = HERE / f"c3/sweep38/38-{n}", S7 / f"c3/sweep38/38-{n}"
        r, b = rows(f"{now}.csv"), rows(f"{before}.csv")
        st, cu, bst, bcu = r["fft-two-pass"], r["cufft"], b["fft-two-pass"], b["cufft"]
        mark = lambda x, c: " (a tie)" if tie(x, c) else ""
        out.append(f"| {n} | {1000 * ms(st):.1f} | {float(st['pct_memcpy']):.1f} | **{speed(st):.3f}x{mark(st, cu)}** | "
                   f"`{plan_choice(f'{now}.err', '38 fft c2c')}` | {speed(bst):.3f}x{mark(bst, bcu)} "
                   f"(`{plan_choice(f'{before}.err', '38 fft c2c')}`) |")
    out += ["", "One run per N of `38-fft-two-pass --budget-ms 100 --length N` (the stage, cuFFT and `cudaMemcpy` in "
                "one process; 1 GiB batches; an empty plan folder, so each length's plan was measured in its run; "
                "NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit `d37a4bc`; raw: "
                f"[c3/sweep38/]({RAW_LINK}c3/sweep38/)); \"before\": the same command in session 7's call 3 "
                f"(commit `305cc3d`, [sweep38/]({S7_LINK}c3/sweep38/)). \"A tie\": each median inside the other's "
                "range. The staged shapes (`staged-*`) move a block's signals between global and shared memory as "
                "one contiguous run of 16-byte accesses, as a copy does."]
    return "\n".join(out)


TABLES = [("57-epilogue-cause-h200", epilogue_cause_57), ("57-epilogue-h200", epilogue_57), ("59-sweep-h200-s8", sweep_59),
          ("53-tilings-h200", tilings_53), ("36-h200-screen", screen_36), ("37-h200-screen", screen_37), ("38-h200-screen", screen_38),
          ("38-h200-short-lengths", short_lengths_38), ("tuning-fft-h200-short-lengths", short_lengths_38)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
