#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 59 with K padded to a multiple of 8 (c2: --variant all at 4095 x 4097 x 4093, and c3's 14-shape sweep with
its plot); the FFT stages with twiddles per butterfly (c1: ncu of chapter 35's stage and cuFFT at N = 2048 before;
c3: chapters 35-37 --variant all, chapter 38's stage at every length 2^3 .. 2^22, ncu of 35 after); chapter 57's
cluster-multicast candidate (c3: --variant all at three squares).

  python3 docs/results/raw/2026-11-29-h200-s7/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s7/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s7/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import math
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s7/"
COMMITS = {"c1": "4915122", "c2": "12384de", "c3": "305cc3d"}
BF16_PEAK_TFLOPS = 132 * 4096 * 1980e6 / 1e12  # the dense peak the GEMM programs print (1071 TFLOP/s)


def provenance(call):
    return (f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit "
            f"`{COMMITS[call]}`")


def rows(path):
    """{variant: row} of one program's --format csv output."""
    with open(HERE / path) as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def ms(r):
    return float(r["median_ms"])


def tie(a, b):
    """Each median inside the other row's min-max range."""
    return (float(a["min_ms"]) <= ms(b) <= float(a["max_ms"])) and (float(b["min_ms"]) <= ms(a) <= float(b["max_ms"]))


def plan_line(path, prefix):
    text = (HERE / path).read_text()
    m = re.search(r"^# plan: " + re.escape(prefix) + r".*$", text, re.M)
    assert m, f"no plan line {prefix} in {path}"
    return m.group(0)[len("# plan: "):]


def padded_k_59():
    """Chapter 59 at 4095 x 4097 x 4093: the stage on padded copies, its candidates on A and B as given."""
    path = "c2/runs/59-4095x4097x4093.csv"
    r = rows(path)
    line = plan_line(path.replace(".csv", ".err"), "59 bf16 gemm")
    chosen = re.search(r": (\S+) \(measured", line).group(1)
    names = [("bf16-gemm-by-shape", f"**59 `bf16-gemm-by-shape`** (A and B padded to K = 4096, then `{chosen}`)"),
             ("bf16-gemm-split-k", "58 `bf16-gemm-split-k` (the previous stage; chapter 54's kernel here)"),
             ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier` (chapter 54's kernel here)"),
             ("ping-pong", "57 `ping-pong` (chapter 54's kernel here)"),
             ("bf16-gemm-cp-async-pipeline", "53 `bf16-gemm-cp-async-pipeline` (`cp.async`, `mma.sync`)"),
             ("cublas", "cuBLAS `cublasGemmEx`")]
    out = ["| 4095 × 4097 × 4093, NVIDIA H200 | median µs | TFLOP/s | % of the BF16 peak | vs cuBLAS |",
           "|---|---:|---:|---:|---:|"]
    for v, label in names:
        d = r[v]
        tf = float(d["gflops"]) / 1000
        cells = [f"{1000 * ms(d):.1f}", f"{tf:.1f}", f"{100 * tf / BF16_PEAK_TFLOPS:.1f}", f"{float(d['speed_vs_ref']):.3f}x"]
        if v == "bf16-gemm-by-shape":
            cells = [f"**{c}**" for c in cells]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"One run of `59-bf16-gemm-by-shape --variant all --budget-ms 200 --m 4095 --n 4097 --k 4093` with an "
                f"empty plan folder ({provenance('c2')}; raw: [59-4095x4097x4093.csv]({RAW_LINK}{path})): every row "
                f"from one process, every output checked against cuBLAS. The candidates' rows run them as their "
                f"chapters do, on A and B as given. The plan line: `{line.split(': ', 1)[1].split('; cached')[0]})`: "
                f"each candidate timed with the copy."]
    return "\n".join(out)


def fft_row(path, variant):
    return rows(path)[variant]


def speed(r):
    return float(r["speed_vs_ref"])


def versus(a, b):
    """How row a compares with row b: 'N.NNx faster', 'N.NNx slower' or 'a tie'."""
    if tie(a, b):
        return "a tie"
    return f"{ms(b) / ms(a):.2f}x faster" if ms(a) < ms(b) else f"{ms(a) / ms(b):.2f}x slower"


def twiddles_35():
    """Chapter 35 by length (c3): the stage (twiddles per butterfly), the same shapes with a sincospif per twiddle
    (the stage before), cuFFT and the copy, each length one process."""
    out = ["| N | 35 `fft-tuned` µs | % of `cudaMemcpy` | vs cuFFT | its plan | a sincospif per twiddle: µs | vs cuFFT | "
           "the stage's speed vs it | cuFFT µs |",
           "|---:|---:|---:|---:|---|---:|---:|---|---:|"]
    for n in (256, 1024, 2048, 4096):
        path = f"c3/runs/35-{n}.csv"
        r = rows(path)
        st, cu = r["fft-tuned"], r["cufft"]
        choice = re.search(r": (\S+) \(", plan_line(path.replace(".csv", ".err"), "35 fft c2c")).group(1)
        old_name = "two-pass-t256-sincospif" if n <= 1024 else "e16-t256-sincospif"  # the stage before
        before = r[old_name]
        out.append(f"| {n} | **{1000 * ms(st):.1f}** | **{float(st['pct_memcpy']):.1f}** | **{speed(st):.3f}x** | "
                   f"`{choice}` | {1000 * ms(before):.1f} (`{old_name}`) | {speed(before):.3f}x | "
                   f"{versus(st, before)} | {1000 * ms(cu):.1f} |")
    out += ["", f"One run per N of `35-fft-tuned --variant all --budget-ms 150 --length N` (1 GiB batches, 2^27 "
                f"values; {provenance('c3')}; raw: [runs/35-N.csv]({RAW_LINK}c3/runs/)): the rows of an N from one "
                "process, every output checked. \"Its plan\": the candidate the stage's plan measured fastest (the "
                "plan lines in the runs' .err files); \"a sincospif per twiddle\": the stage before this change, "
                "its shape at that N with one `sincospif` per factor. A tie: each median inside the other row's "
                "min-max range."]
    return "\n".join(out)


def screen_35():
    """Chapter 35's first screen at N = 2048 (c3): the stage, chapter 34's stage, cuFFT and the copy from one process,
    and the ncu metric of today's change (issue slots, before and after, c1 and c3)."""
    path = "c3/runs/35-2048.csv"
    r = rows(path)
    st, prev, cu, cp = r["fft-tuned"], r["fft-high-radix"], r["cufft"], r["cudaMemcpy"]
    out = ["| N = 2048, 2^27 values, NVIDIA H200 | median µs | % of `cudaMemcpy` | speed vs cuFFT |",
           "|---|---:|---:|---:|",
           f"| **35 `fft-tuned`** (padded exchanges, shape by plan, twiddles per butterfly) | **{1000 * ms(st):.1f}** | "
           f"**{float(st['pct_memcpy']):.1f}** | **{speed(st):.3f}x** |",
           f"| 34 `fft-high-radix` (the previous stage) | {1000 * ms(prev):.1f} | {float(prev['pct_memcpy']):.1f} | "
           f"{speed(prev):.3f}x |",
           f"| cuFFT `cufftExecC2C` | {1000 * ms(cu):.1f} | {float(cu['pct_memcpy']):.1f} | 1.000x |",
           f"| `cudaMemcpy` of the same bytes (the bound) | {1000 * ms(cp):.1f} | 100.0 | – |"]
    b = ncu_values("c1/35-stage-2048.raw.csv")
    a = ncu_values("c3/ncu-35-stage-2048.raw.csv")
    out += ["", f"One process, every output checked ({provenance('c3')}; raw: [35-2048.csv]({RAW_LINK}{path})). "
                f"Against chapter 34's: {versus(st, prev)}. **The `ncu` metric** (`ncu --set full`, "
                f"[before]({RAW_LINK}c1/35-stage-2048.details.txt), [after]({RAW_LINK}c3/ncu-35-stage-2048.details.txt)):"
                f" issue slots busy (`sm__issue_active.avg.pct_of_peak_sustained_elapsed`) {b['issue']:.1f}% with a "
                f"`sincospif` per twiddle, {a['issue']:.1f}% per butterfly, while the DRAM "
                f"(`gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed`) rises from {b['dram']:.1f}% to "
                f"{a['dram']:.1f}%."]
    return "\n".join(out)


def ncu_values(path):
    with open(HERE / path) as f:
        rows_ = list(csv.reader(f))
    d = dict(zip(rows_[0], rows_[2]))
    num = lambda k: float(d[k].replace(",", ""))
    return {"inst": num("smsp__inst_executed.sum"), "issue": num("sm__issue_active.avg.pct_of_peak_sustained_elapsed"),
            "regs": num("launch__registers_per_thread"), "occ": num("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "dram": num("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"), "us": num("gpu__time_duration.sum")}  # in µs


def ncu_35():
    """ncu --set full at N = 2048 (2^27 values): the stage before (c1) and after (c3), and cuFFT (c1)."""
    b = ncu_values("c1/35-stage-2048.raw.csv")
    a = ncu_values("c3/ncu-35-stage-2048.raw.csv")
    c = ncu_values("c1/35-cufft-2048.raw.csv")
    return (f"**What `ncu` shows at N = 2048** (`--set full`, 2^27 values; raw: before "
            f"[35-stage-2048.details.txt]({RAW_LINK}c1/35-stage-2048.details.txt), after "
            f"[ncu-35-stage-2048.details.txt]({RAW_LINK}c3/ncu-35-stage-2048.details.txt), cuFFT "
            f"[35-cufft-2048.details.txt]({RAW_LINK}c1/35-cufft-2048.details.txt); NVIDIA H200, CUDA 13.0, "
            f"2026-11-29): with a `sincospif` per twiddle the kernel executed {b['inst'] / 1e6:.0f} M warp "
            f"instructions (`smsp__inst_executed.sum`) and kept the issue slots {b['issue']:.1f}% busy "
            f"(`sm__issue_active.avg.pct_of_peak_sustained_elapsed`): at {b['regs']:.0f} registers, "
            f"{b['occ']:.1f}% of the warp slots occupied, the DRAM ran at {b['dram']:.1f}% of its peak "
            f"(`gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed`, {b['us']:.1f} µs). Per butterfly it executes "
            f"{a['inst'] / 1e6:.0f} M, the issue slots are {a['issue']:.1f}% busy, {a['regs']:.0f} registers let "
            f"{a['occ']:.1f}% of the warp slots fill, and the DRAM runs at {a['dram']:.1f}% ({a['us']:.1f} µs). "
            f"cuFFT's kernel: {c['inst'] / 1e6:.0f} M instructions, {c['issue']:.1f}% of the issue slots, "
            f"{c['regs']:.0f} registers, {c['dram']:.1f}% of the DRAM peak ({c['us']:.1f} µs).")


def sincospif_variant(chapter, n):
    return {36: "e32-sincospif", 37: "c8-sincospif"}[chapter]


def twiddles_36_37(chapter, stage):
    """The stage against its own shape with a sincospif per twiddle, cuFFT and the copy (c3)."""
    out = [f"| N | {chapter} `{stage}` µs | % of `cudaMemcpy` | vs cuFFT | `{sincospif_variant(chapter, 0)}` µs | "
           "vs cuFFT | the stage's speed vs it | cuFFT µs |", "|---:|---:|---:|---:|---:|---:|---|---:|"]
    lengths = (8192, 16384) if chapter == 36 else (32768, 65536)
    for n in lengths:
        r = rows(f"c3/runs/{chapter}-{n}.csv")
        st, old, cu = r[stage], r[sincospif_variant(chapter, n)], r["cufft"]
        out.append(f"| {n} | **{1000 * ms(st):.1f}** | **{float(st['pct_memcpy']):.1f}** | **{speed(st):.3f}x** | "
                   f"{1000 * ms(old):.1f} | {speed(old):.3f}x | {versus(st, old)} | {1000 * ms(cu):.1f} |")
    program = {36: "36-fft-one-block-large", 37: "37-fft-thread-block-cluster"}[chapter]
    out += ["", f"One run per N of `{program} --variant all --budget-ms 150 --length N` (1 GiB batches; "
                f"{provenance('c3')}; raw: [runs/]({RAW_LINK}c3/runs/)): the rows of an N from one process, every "
                f"output checked; `{sincospif_variant(chapter, 0)}` is the stage's shape with one `sincospif` per "
                "twiddle, as the stage computed them before chapter 35's twiddles per butterfly."]
    return "\n".join(out)


def fft_by_length():
    """Chapter 38's stage, the last of the FFT ladder, at every length 2^3 .. 2^22 against cuFFT (c3)."""
    out = ["| N | the stage µs | % of `cudaMemcpy` | vs cuFFT | cuFFT % of `cudaMemcpy` | what runs (plan) |",
           "|---:|---:|---:|---:|---:|---|"]
    speeds, below, ties = [], [], []
    for e in range(3, 23):
        n = 1 << e
        path = f"c3/sweep38/38-{n}.csv"
        r = rows(path)
        st, cu, cp = r["fft-two-pass"], r["cufft"], r["cudaMemcpy"]
        choice = re.search(r": (\S+) \(", plan_line(path.replace(".csv", ".err"), "38 fft c2c")).group(1)
        mark = " (a tie)" if tie(st, cu) else ""
        speeds.append(speed(st))
        if mark:
            ties.append(n)
        elif speed(st) < 1:
            below.append((n, speed(st)))
        out.append(f"| 2^{e} | {1000 * ms(st):.1f} | {float(st['pct_memcpy']):.1f} | {speed(st):.3f}x{mark} | "
                   f"{100 * ms(cp) / ms(cu):.1f} | `{choice}` |")
    geo = math.exp(sum(map(math.log, speeds)) / len(speeds))
    out += ["", f"One run per N of `38-fft-two-pass --budget-ms 100 --length N` (the stage, cuFFT and `cudaMemcpy` in "
                f"one process; 1 GiB batches; an empty plan folder, so each length's plan was measured in its run; "
                f"{provenance('c3')}; raw: [sweep38/]({RAW_LINK}c3/sweep38/)). Geometric mean over the 20 lengths: "
                f"**{geo:.3f}x cuFFT**; ties (each median inside the other's range) at "
                + ", ".join(str(n) for n in ties) + "; below cuFFT beyond the spread at "
                + ", ".join(f"{n} ({s:.3f}x)" for n, s in below) + "."]
    return "\n".join(out)


def cluster_57():
    """57 --variant all at three squares (c3): the stage, ping-pong, cluster-multicast, cuBLAS."""
    variants = [("bf16-gemm-persistent", "**57 `bf16-gemm-persistent`** (the stage)"), ("ping-pong", "57 `ping-pong`"),
                ("cluster-multicast", "57 `cluster-multicast`"), ("cublas", "cuBLAS `cublasGemmEx`")]
    sizes = (4096, 6144, 8192)
    out = ["| NVIDIA H200 | " + " | ".join(f"{n}³: median µs (% of the BF16 peak, vs cuBLAS)" for n in sizes) + " |",
           "|---|" + "---:|" * len(sizes)]
    data = {n: rows(f"c3/runs/57-{n}.csv") for n in sizes}
    for v, label in variants:
        cells = []
        for n in sizes:
            r = data[n][v]
            mark = ", a tie with the stage" if v in ("ping-pong", "cluster-multicast") and tie(r, data[n]["bf16-gemm-persistent"]) else ""
            share = 100 * float(r["gflops"]) / 1000 / BF16_PEAK_TFLOPS
            cells.append(f"{1000 * ms(r):.1f} ({share:.1f}% of peak, {speed(r):.3f}x{mark})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"One run per size of `57-bf16-gemm-persistent --variant all --budget-ms 150 --m N --n N --k N` "
                f"({provenance('c3')}; raw: [57-4096.csv]({RAW_LINK}c3/runs/57-4096.csv), "
                f"[57-6144.csv]({RAW_LINK}c3/runs/57-6144.csv), [57-8192.csv]({RAW_LINK}c3/runs/57-8192.csv)): "
                "the rows of a size from one process, every output checked against cuBLAS. A tie: the two rows' "
                f"ranges of repetitions overlap. The peak: 132 SMs × 4096 BF16 FLOP/clock × 1980 MHz = "
                f"{BF16_PEAK_TFLOPS:.0f} TFLOP/s (dense)."]
    return "\n".join(out)


T59 = runpy.run_path(str(HERE.parent / "2026-11-28-h200x4-s5" / "tables_59.py"))["first_table"].__globals__


def chosen_in_sweep(shape):
    """tables_59's reader of the sweep log's plan lines, where a class may end in ' K padded'."""
    text = (HERE / "c3" / "sweep.log").read_text()
    classes = re.findall(r"plan: 59 bf16 gemm (M \S+ N \S+ K \S+(?: K padded)?): (\S+)", text)
    kernels = {k for c, k in classes if c == T59["shape_class"](shape)}
    assert len(kernels) == 1, f"{shape}: plan lines {kernels}"
    return T59["KERNEL_NAMES"][kernels.pop()]


def chapter_59_sweep():
    """Chapter 59's sweep table script pointed at c3 (three candidates, half-octave classes, K padded)."""
    T59.update(HERE=HERE, CALL="c3", COMMIT=COMMITS["c3"], RAW_LINK=RAW_LINK, PROVENANCE=provenance("c3"),
               CANDIDATES=[("58", "bf16-gemm-split-k"), ("55", "bf16-gemm-tma-mbarrier"), ("57", "ping-pong")],
               KERNEL_NAMES={"bf16-gemm-split-k": "58's", "bf16-gemm-tma-mbarrier": "55's",
                             "ping-pong": "57's ping-pong"},
               CLASS_NOTE=" (one half octave per dimension)",
               PLOT_TITLE="BF16 GEMM: the stage chosen per shape (K padded where ragged) and its three candidates "
                          "vs cuBLAS, NVIDIA H200, 2026-11-29",
               shape_class=lambda shape: "M {} N {} K {}".format(*map(half_octave, shape)) +
               (" K padded" if shape[2] % 8 else ""), chosen_in_sweep=chosen_in_sweep)
    S6 = T59["read_sweep"]  # the reader is the same; the earlier sweep is s6's call 2
    table = T59["sweep_table"]()
    after = T59["sweep_rows"]()
    before = dict(S6("../2026-11-29-h200-s6/c2/sweep-59.csv"))
    stage = "bf16-gemm-by-shape"
    sp = lambda d: float(d[stage]["speed_vs_ref"])
    ragged = [(shape, d) for shape, d in after if shape[2] % 8]
    rest = [d for shape, d in after if not shape[2] % 8]
    geo = lambda ds: math.exp(sum(math.log(sp(d)) for d in ds) / len(ds))
    text = (f"Against the sweep of call 2 of the session before (the same shapes and candidates, without the padded "
            f"copy; [sweep-59.csv](../../docs/results/raw/2026-11-29-h200-s6/c2/sweep-59.csv)) the stage's geometric "
            f"mean goes from {geo(before.values()):.3f}x to {geo([d for _, d in after]):.3f}x. The ragged shape "
            + ", ".join(f"{T59['size'](sh)} ({sp(before[sh]):.3f}x, now {sp(d):.3f}x)" for sh, d in ragged) +
            f" carries that: over the other {len(rest)} shapes the stage's geometric mean is {geo(rest):.3f}x here "
            f"and {geo([before[sh] for sh, _ in after if not sh[2] % 8]):.3f}x there. (The candidates' columns run "
            "them as their chapters do, on A and B as given: at the ragged shape the stage is ahead of all three "
            "by the padded copy.)")
    return table + "\n\n" + text


def half_octave(v):
    """common/gemm/gemm_plan.cuh's half_octave: 2^a, or 2^a.5 from 2^a sqrt 2 up."""
    a = max(v, 1).bit_length() - 1
    return f"2^{a}" + (".5" if v * v >= 2 ** (2 * a + 1) else "")


TABLES = [("35-fft-tuned-screen", screen_35), ("59-h200-padded-k", padded_k_59), ("35-h200-twiddles", twiddles_35), ("35-h200-twiddles-ncu", ncu_35),
          ("36-h200-twiddles", lambda: twiddles_36_37(36, "fft-one-block-large")),
          ("37-h200-twiddles", lambda: twiddles_36_37(37, "fft-thread-block-cluster")),
          ("38-h200-every-length", fft_by_length), ("tuning-fft-h200-every-length", fft_by_length),
          ("57-cluster-multicast-h200", cluster_57), ("59-sweep-h200", chapter_59_sweep)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
