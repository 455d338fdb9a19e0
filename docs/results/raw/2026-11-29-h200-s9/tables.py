#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 59 at the three squares of its target, every row timed in 15 alternating rounds (`--rounds 15`, c1), and
ncu of 59's kernel and cuBLAS's at 6144^3 and 8192^3 (c1); chapter 18's sums in rounds and chapter 29's 25-shape
SGEMM sweep (c2).

  python3 docs/results/raw/2026-11-29-h200-s9/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s9/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s9/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import math
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
S8 = runpy.run_path(str(HERE.parent / "2026-11-29-h200-s8" / "tables.py"))
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s9/"
DOCS_LINK = "results/raw/2026-11-29-h200-s9/"  # the same folder, from a page in docs/
COMMITS = {"c1": "aba11c2", "c2": "91e5b75", "c3": "2cd6fb5"}
BF16_PEAK_TFLOPS = 132 * 4096 * 1980e6 / 1e12  # the dense peak the GEMM programs print (1071 TFLOP/s)
SQUARES = (4096, 6144, 8192)
CANDIDATES_59 = [("bf16-gemm-split-k", "58 `bf16-gemm-split-k` (the previous stage; a candidate)"),
                 ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier` (a candidate)"),
                 ("ping-pong", "57 `ping-pong` (a candidate)"),
                 ("epilogue-prefetch", "57 `epilogue-prefetch` (a candidate)")]
rows = S8["rows"]  # {variant: row} of one program's --format csv output
ROUNDS_VARIANTS = "default,bf16-gemm-split-k,bf16-gemm-tma-mbarrier,ping-pong,epilogue-prefetch"


def provenance(call):
    return (f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit "
            f"`{COMMITS[call]}`")


def paired(r):
    """The ratio to the reference over the rounds: (median, lowest round, highest round)."""
    assert int(r["rounds"]) > 0, f"{r['variant']} was not timed in rounds"
    return float(r["speed_vs_ref"]), float(r["speed_min"]), float(r["speed_max"])


def verdict(r):
    """Faster, slower or a tie against the reference, by the range of the rounds' ratios."""
    _, low, high = paired(r)
    return "faster" if low > 1 else "slower" if high < 1 else "a tie"


def gemm_cell(r):
    med, low, high = paired(r)
    tf = float(r["gflops"]) / 1000
    ratio = "1.000x" if r["variant"] == r["ref_name"] else f"{med:.3f}x [{low:.3f}, {high:.3f}]"
    return f"{1000 * float(r['median_ms']):.1f} ({100 * tf / BF16_PEAK_TFLOPS:.1f}%), {ratio}"


def plan_choice(n):
    text = (HERE / f"c1/runs/59-{n}.err").read_text()
    m = re.search(r"^# plan: 59 bf16 gemm [^:]*: (\S+) \(", text, re.M)
    assert m, f"no plan line in c1/runs/59-{n}.err"
    return m.group(1)


def screen_59():
    """59 at the three squares, every row in 15 alternating rounds (c1), an empty plan folder."""
    data = {n: rows(HERE / f"c1/runs/59-{n}.csv") for n in SQUARES}
    stage = {n: data[n]["bf16-gemm-by-shape"] for n in SQUARES}
    out = ["| NVIDIA H200 | " + " | ".join(f"{n}³: median µs (% of the BF16 peak), vs cuBLAS [lowest, highest round]"
                                          for n in SQUARES) + " |",
           "|---|" + "---:|" * len(SQUARES),
           "| **59 `bf16-gemm-by-shape`** | " + " | ".join(f"**{gemm_cell(stage[n])}**" for n in SQUARES) + " |"]
    for v, label in CANDIDATES_59 + [("cublas", "cuBLAS `cublasGemmEx`")]:
        out.append(f"| {label} | " + " | ".join(gemm_cell(data[n][v]) for n in SQUARES) + " |")
    out.append("| the plan's choice | " + " | ".join(f"`{plan_choice(n)}`" for n in SQUARES) + " |")
    words = {"faster": "wins every round", "slower": "loses every round", "a tie": "ties"}
    said = [f"{words[verdict(stage[n])]} at {n}³" for n in SQUARES]
    say = ", ".join(said[:-1]) + " and " + said[-1]
    out += ["", f"One run per shape of `59-bf16-gemm-by-shape --variant {ROUNDS_VARIANTS} --rounds 15 --budget-ms 3000 "
                f"--m N --n N --k N` with an empty plan folder ({provenance('c1')}; raw: " +
                ", ".join(f"[{n}³]({RAW_LINK}c1/runs/59-{n}.csv)" for n in SQUARES) +
                "): the rows of a shape from one process, every output checked against cuBLAS. The rows took turns in "
                "15 rounds, so both sides of a ratio ran at the same clocks (under its power limit this H200's clock "
                "wanders more than the kernels differ): the ratio is the median of the rounds' ratios, in brackets "
                "their lowest and highest. Against cuBLAS the stage " + say +
                f". The peak: 132 SMs × 4096 BF16 FLOP/clock × 1980 MHz = {BF16_PEAK_TFLOPS:.0f} TFLOP/s; "
                "[why 6144³ loses](#6144-cublass-192--192-tiles).",
            "", S8["screen_59_ncu"]()]
    return "\n".join(out)


NCU = {"time": "gpu__time_duration.sum", "clock": "sm__cycles_elapsed.avg.per_second",
       "tensor": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
       "l2": "lts__t_bytes.sum", "dram": "dram__bytes_read.sum",
       "barrier": "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
       "long_sb": "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"}


def ncu_capture(v, n):
    """({metric: value}, kernel name) of one launch (c1/ncu)."""
    lines = [l for l in open(HERE / f"c1/ncu/ncu-{v}-{n}.csv") if l.startswith('"')]
    out, kernel = {}, ""
    for r in csv.DictReader(lines):
        out[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        kernel = r["Kernel Name"]
    return out, kernel


def kernel_label(name):
    m = re.match(r"(?:void )?(\w+)(<[^(]*>)?", name)
    return f"`{m.group(1)}{m.group(2) or ''}`"


def why_6144():
    """ncu of 59's kernel and cuBLAS's at 6144^3 and 8192^3 (c1): tile shape, L2 traffic, tensor pipe."""
    out = ["| ncu, one launch | kernel | µs | SM GHz | tensor pipe busy | L2 traffic GB | DRAM read GB | "
           "`barrier` stall | `long scoreboard` stall |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    m = {}
    for n in (6144, 8192):
        for v, who in (("bf16-gemm-by-shape", "59's stage"), ("cublas", "cuBLAS")):
            x, kernel = ncu_capture(v, n)
            m[(v, n)] = x
            out.append(f"| {n}³, {who} | {kernel_label(kernel)} | {x[NCU['time']] / 1000:.1f} | "
                       f"{x[NCU['clock']] / 1e9:.2f} | {x[NCU['tensor']]:.1f}% | {x[NCU['l2']] / 1e9:.2f} | "
                       f"{x[NCU['dram']] / 1e9:.2f} | {x[NCU['barrier']]:.2f} | {x[NCU['long_sb']]:.2f} |")
    ours, theirs = m[("bf16-gemm-by-shape", 6144)], m[("cublas", 6144)]
    out += ["", "`ncu --clock-control none --metrics ...` on one launch of each, inside the programs' `timed` range "
                f"({provenance('c1')}; raw: [c1/ncu/]({RAW_LINK}c1/ncu/)). Per the names, cuBLAS picks a tile "
                "of 192 × 192 in 2 × 1 clusters at 6144³ and one of 320 × 128 in 1 × 2 clusters at 8192³; this "
                "ladder's kernels have tiles of 128 rows (two consumer warpgroups of 64) by 128 or 256 columns. At "
                f"6144³, at the same clock, cuBLAS's kernel keeps the tensor pipe busy {theirs[NCU['tensor']]:.1f}% of "
                f"the active cycles against {ours[NCU['tensor']]:.1f}%, moves {theirs[NCU['l2']] / 1e9:.2f} GB through "
                f"the L2 against {ours[NCU['l2']] / 1e9:.2f}, and its warps wait less at barriers "
                f"({theirs[NCU['barrier']]:.2f} cycles per issued instruction against {ours[NCU['barrier']]:.2f}). "
                "The L2 traffic alone is not it: chapter 57's `cluster-epilogue-prefetch`, the same 128 × 256 kernel "
                "in clusters of two that share B by TMA multicast, reads a third less from the L2 and was no faster "
                "at 6144³ ([57's \"Clusters of two\"](../57-bf16-gemm-persistent/README.md#clusters-of-two-b-read-once-for-two-tiles-a-candidate)). What is left is the "
                "tile: a 192 × 192 tile does 12.5% more multiply-adds per byte loaded than 128 × 256 and needs "
                "`wgmma` with N = 96 or 192 over three 64-row blocks, which this ladder does not have. At 8192³ the "
                "two kernels keep the pipe about as busy, and the rounds call it a tie."]
    return "\n".join(out)


FP32_PEAK_GFLOPS = 132 * 128 * 2 * 1980e6 / 1e9  # the FP32 peak the SGEMM programs print (66908 GFLOP/s)
SCANS_18 = [("int32", "sum", "2p28", "2^28"), ("int32", "sum", "2p30", "2^30"), ("float", "sum", "2p28", "2^28"),
            ("int64", "sum", "2p28", "2^28")]


def h200_today():
    """Chapter 18's sums in 15 rounds and chapter 29's 25-shape sweep on the H200 (c2)."""
    out = ["| stage | size | H200 today: share of the bound | vs the library |", "|---|---|---:|---:|"]
    for ty, op, tag, size in SCANS_18:
        r = rows(HERE / f"c2/runs/18-{ty}-{op}-{tag}.csv")
        stage = r["scan-copy-bound"]
        med, low, high = paired(stage)
        out.append(f"| 18 `scan-copy-bound` | {ty} {op}, {size} | {float(stage['pct_memcpy']):.1f}% of copy | "
                   f"{med:.3f}x CUB [{low:.3f}, {high:.3f}] |")
    with open(HERE / "c2/sweep/shapes.csv") as f:
        sweep = list(csv.DictReader(f))
    at = {(int(r["m"]), int(r["n"]), int(r["k"])): r for r in sweep}
    for n in (4096, 8192):
        r = at[(n, n, n)]
        out.append(f"| 29 `sgemm-split-k` | {n}³ | {100 * float(r['gflops_29']) / FP32_PEAK_GFLOPS:.1f}% of FP32 peak | "
                   f"{float(r['ratio_29']):.3f}x cuBLAS |")
    geo = math.exp(sum(math.log(float(r["ratio_29"])) for r in sweep) / len(sweep))
    big = [r for r in sweep if int(r["m"]) * int(r["n"]) * int(r["k"]) >= 2 ** 30]
    low = min(big, key=lambda r: float(r["ratio_29"]))
    out.append(f"| 29 `sgemm-split-k` | the sweep's {len(sweep)} shapes | | geometric mean {geo:.3f}x cuBLAS |")
    out.append(f"| 29 `sgemm-split-k` | the lowest of the {len(big)} shapes of 2^30 multiply-adds or more | | "
               f"{float(low['ratio_29']):.3f}x cuBLAS ({low['m']} × {low['n']} × {low['k']}) |")
    out += ["", f"Chapter 18: one process per row, `--rounds 15 --budget-ms 3000`, an empty plan folder ({provenance('c2')}; "
                f"raw: [c2/runs/]({DOCS_LINK}c2/runs/)): the stage, CUB and a `cudaMemcpy` of the "
                "same bytes took turns, so each ratio is paired by round; in brackets the lowest and highest round. "
                "Chapter 29: `shape_sweep.py --budget-ms 80` (one process per program and shape, each against its own "
                f"cuBLAS run; raw: [c2/sweep/shapes.csv]({DOCS_LINK}c2/sweep/shapes.csv)). "
                "No H100 was lent for these: the H100 column of the table above is the last it has."]
    return "\n".join(out)


def timeline_18():
    """Chapter 18's per-tile timeline on the H200 (c4): the H100 block's table, the same run's copy and CUB."""
    text = (HERE / "c4/18-timeline-int32-sum-2p28.txt").read_text()
    h100 = (HERE.parent / "2026-11-27-h100/screens-bbee8ca/ch18/timeline-int32-sum-2p28.txt").read_text()
    num = r"([\d.]+)"
    h100_tile = float(re.search(r"tile time " + num + " ns", h100).group(1))
    # Little's law for the H200, as docs/tuning-per-gpu.md writes it: datasheet bandwidth x chapter 02's latency.
    need_mib = 4.8e12 * 564e-9 / 2 ** 20
    m = re.search(r"mean per tile: land " + num + r" ns, pass 1 " + num + r" ns, look-back wait " + num +
                  r" ns, pass 2 \+ stores " + num + r" ns; tile time " + num + " ns", text)
    land, pass1, wait, pass2, tile = (float(x) for x in m.groups())
    span, tail, in_flight = (float(x) for x in re.search(
        r"span \(first claim to last store\) " + num + r" us; tail \(last claim to last store\) " + num +
        r" us; tiles in flight on average " + num, text).groups())
    tiles, tile_kib = (int(x) for x in re.search(r"(\d+) tiles of (\d+) KiB", text).groups())
    table = {r.split()[0]: r.split() for r in text.splitlines() if r.split()[:1] and r.split()[0] in
             ("cudaMemcpy", "copy-bound-timeline", "cub")}
    copy_ms, scan_ms = float(table["cudaMemcpy"][3]), float(table["copy-bound-timeline"][2])
    pct_copy, vs_cub = float(table["copy-bound-timeline"][8]), table["copy-bound-timeline"][9]
    landing = land / tile * in_flight
    out = [f"| phase of a tile (mean over its {tiles:,} tiles) | ns | share of the tile's time |", "|---|---:|---:|"]
    for label, v in (("land (loads in flight)", land), ("pass 1", pass1), ("look-back wait", wait),
                     ("pass 2 + stores", pass2)):
        out.append(f"| {label} | {v:.1f} | {100 * v / tile:.1f}% |")
    out.append(f"| the tile, claim to last store | {tile:.1f} | 100% |")
    out += ["", f"Span {span:.1f} µs; tail {tail:.1f} µs, **{100 * tail / span:.1f}% of the span**; tiles in flight on "
                f"average {in_flight:.1f}. The same run's table: the timeline variant at {pct_copy:.1f}% of `cudaMemcpy` "
                f"and {vs_cub} CUB; the copy took {100 * (1 - copy_ms / scan_ms):.1f}% less time than the scan. The "
                f"phases keep the H100's proportions, on a tile life {100 * (1 - tile / h100_tile):.0f}% shorter. Little's "
                f"law does not explain the H200's larger gap: on average {landing:.0f} tiles are landing, about "
                f"{landing * tile_kib / 1024:.1f} MiB of loads outstanding, {landing * tile_kib / 1024 / need_mib:.1f} "
                f"times the {need_mib:.1f} MiB the H200 needs in flight ([docs/tuning-per-gpu.md](../../docs/"
                "tuning-per-gpu.md#why-constants-tuned-on-one-card-dont-carry): 4.8 TB/s × 564 ns). What the rest of "
                "the gap is, these means do not say.",
            "", f"`18-scan-any-type-copy-bound --type int32 --op sum --size 2^28 --variant copy-bound-timeline --reps 3` "
                f"({provenance('c3')}, call 4 on call 3's build; raw: "
                f"[18-timeline-int32-sum-2p28.txt]({RAW_LINK}c4/18-timeline-int32-sum-2p28.txt))."]
    return "\n".join(out)


TABLES = [("59-h200-squares", screen_59), ("59-6144-why-h200", why_6144), ("tuning-h200-s9", h200_today),
          ("18-h200-timeline", timeline_18)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
