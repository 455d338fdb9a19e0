#!/usr/bin/env python3
"""Writes the H200 history that chapters 22, 33 and 35 keep from this folder's first SGEMM and FFT runs (the
call2-* captures: NVIDIA H200, 2026-11-23; see README.md): chapter 22's claims (call2-sgemm-a-all-22-*.txt, with the
ncu profile of the current code from ../2026-11-23-h200x2/ncu/ncu-sgemm.csv and ../2026-11-23-h200-f18eb3b/ncu/),
chapter 33's variants (call2-fft-b-all-33-n*.txt, with the
fixed half exchange in ../2026-11-23-h200x2/fft35/all-33-n2048.txt and the register count of the H100 capture
../2026-11-27-h100/ncu-fft-1e91d85/ncu-fft.csv), and the paragraph of chapter 35 on how its stage was chosen
(call2-fft-b-all-35-n*.txt and call2-fft-b-run-35.txt, with the second run of every candidate,
../2026-11-23-h200x2/fft35/all-35-n*.csv). No GPU needed:

  python3 docs/results/raw/2026-11-23-h200/tables.py                 # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-23-h200/tables.py --fill          # and fills the README block
  python3 docs/results/raw/2026-11-23-h200/tables.py --fill --check  # changes nothing; exit 1 if a table or
                                                                     # the block would

Every number comes from a capture; nothing is typed by hand. The writing and filling are
../2026-11-21-h200/tables_early.py's, loaded from its path."""
import csv
import importlib.util
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("f18eb3b_tables", HERE.parent / "2026-11-23-h200-f18eb3b" / "tables.py")
f18 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f18)
early = f18.early

# The candidates' names at the time of the first run -> today's (this folder's README.md).
TODAY = {"fft-tuned": "e16-t256", "sincospif-twiddles": "e16-t256-sincospif", "two-pass-t256": "twiddle-table"}
PLAN, SINCOSPIF = "twiddle-table", "e16-t256-sincospif"  # the two-pass plan and the sincospif shape, today's names
SECOND = HERE.parent / "2026-11-23-h200x2" / "fft35"


def first_run(name):
    """({today's variant: speed vs cuFFT}, size) of one call2 run: its table's rows, cudaMemcpy and cuFFT left out."""
    out, size = {}, None
    for line in early.program_output(HERE / name).splitlines():
        f = line.split()
        m = re.match(r"^(\S+)(?: \*)?\s+(2\^\d+)\s", line)
        if m and f[-1] in ("ok", "-") and "*" not in f[:2]:
            out[TODAY.get(f[0], f[0])] = float(f[-2].rstrip("x"))
            size = m.group(2)
    if not out:
        raise SystemExit(f"tables.py: no result rows in {name}")
    return out, size


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}x"


def how_chosen():
    runs = {n: first_run(f"call2-fft-b-all-35-n{n}.txt") for n in (16, 64, 256)}
    sizes = {s for _, s in runs.values()}
    s16, s64, s256 = (runs[n][0] for n in (16, 64, 256))
    s1024, _ = first_run("call2-fft-b-run-35.txt")
    spread16 = 100 * (max(s16.values()) / min(s16.values()) - 1)
    table_twiddles = [v for v in s256 if v != SINCOSPIF and v != "e8-t256"]
    second = {n: f18.variants(SECOND / f"all-35-n{n}.csv") for n in (2048, 4096)}
    lost = " and ".join(f"{float(second[n]['fft-tuned']['speed_vs_ref']):.2f}x" for n in second)
    won = span([float(second[n][SINCOSPIF]["speed_vs_ref"]) for n in second])
    return (f"**How the stage was chosen.** The first stage was `e16-t256`. One run of `--variant all` on the H200\n"
            f"(2026-11-23, CUDA 13.0, `--size {' / '.join(sorted(sizes))}`; raw outputs `call2-fft-b-all-35-n*.txt` "
            f"in [docs/results/raw/2026-11-23-h200](../../docs/results/raw/2026-11-23-h200/), where today's names "
            f"are explained) measured, as speed against cuFFT in the\nsame process: at N = 16 every candidate within "
            f"{spread16:.0f}% ({span(s16.values())}; N = 8/16 do not use the block shape); at N = 64\n"
            f"`e16-t256` {s64['e16-t256']:.2f}x, `e8-t256` {s64['e8-t256']:.2f}x and the two-pass plan "
            f"(`{PLAN}` today) {s64[PLAN]:.2f}x; at N = 256 the\ntable-twiddle candidates "
            f"{span([s256[v] for v in table_twiddles])} (`e8-t256` {s256['e8-t256']:.2f}x) but `{SINCOSPIF}` "
            f"{s256[SINCOSPIF]:.2f}x; at N = 1024 `e16-t256` {s1024['e16-t256']:.2f}x (`call2-fft-b-run-35.txt`). "
            f"The stage\ncombines the two winners: the two-pass plan and `sincospif` twiddles. A second `--variant "
            f"all` at N = 16 …\n4096 (1 GiB batches, commit `7926d81`, table below) showed that plan losing at "
            f"N = 2048 and 4096 ({lost}\ncuFFT), where two passes need 32 and 64 values per thread, to `{SINCOSPIF}` "
            f"({won}): since commit\n`f18eb3b` the stage takes that shape at those two lengths (\"The stage by "
            f"length\" above). The candidates stay\nrunnable with `--variant`.")


RAW_LINK = "../../docs/results/raw/2026-11-23-h200/"
RUN = "NVIDIA H200, CUDA 13.0, 2026-11-23, `--variant all`"
TOUR = HERE / "results-8dd30d0.md"  # the tour of commit 8dd30d0 (README.md)


# The tour's row reader lives in the next folder's script (chapter 35's candidates read the same tour).
_x2_spec = importlib.util.spec_from_file_location("h200x2_tables", HERE.parent / "2026-11-23-h200x2" / "tables_early.py")
_x2 = importlib.util.module_from_spec(_x2_spec)
_x2_spec.loader.exec_module(_x2)
assert _x2.TOUR.resolve() == TOUR.resolve(), "both scripts read the tour of commit 8dd30d0"
tour_row = _x2.tour_row  # {column: cell} of CHAPTER's VARIANT in a table of the tour's tools/results markdown


def text_rows(name):
    """[(variant, {column: text})] of a chapter program's text table in NAME, in the order printed."""
    return list(f18.early.h100_tables().program_rows(HERE / name).items())


def gemm_table(rows, fmt):
    """A variant table (median ms, GFLOP/s, % FP32 peak, vs cuBLAS) from ROWS [(label, median ms, GFLOP/s, %, x)]."""
    out = ["| variant | median ms | GFLOP/s | % FP32 peak | vs cuBLAS |", "|---|---:|---:|---:|---:|"]
    out += [f"| {label} | " + " | ".join(fmt(c) for c in cells) + " |" for label, *cells in rows]
    return "\n".join(out)


# The three claim variants of chapter 22 (the README's "The article's three claims"), in their order.
CLAIMS22 = ["csub-16x64", "b-scalar-loads", "asub-16x16"]
STAGE22 = "sgemm-register-blocking"
NCU22 = [(HERE.parent / "2026-11-23-h200x2" / "ncu" / "ncu-sgemm.csv", STAGE22)] + [
    (HERE.parent / "2026-11-23-h200-f18eb3b" / "ncu" / f"ncu-22-{v}.csv", v) for v in CLAIMS22]
NCU_LINK = "../../docs/results/raw/"
# Compile-time fact of the run before commit 9b41b01 (ptxas -v of that code), not in the captures.
REGS_BEFORE_9B41B01 = "152–196"


def claims22():
    """Chapter 22's claim variants: the first GPU run (timings at 4096 and 8192) and the ncu profile of today's code."""
    sizes = {n: text_rows(f"call2-sgemm-a-all-22-{n}.txt") for n in (4096, 8192)}
    tour = tour_row("22-sgemm-register-blocking", STAGE22)
    out = [f"{RUN} (the first GPU run of this chapter, before commit 9b41b01 unrolled the K loop by 8; the stage later "
           f"measured {tour['vs cuBLAS']} in the tour). Raw: [call2-sgemm-a-all-22-4096.txt]({RAW_LINK}"
           f"call2-sgemm-a-all-22-4096.txt), [8192]({RAW_LINK}call2-sgemm-a-all-22-8192.txt).", ""]
    for n, rows in sizes.items():
        out += [f"At {n}:", "", gemm_table(
            [(f"`{v}`" + (" (reference)" if v == "cublas" else ""), r["median ms"], r["GFLOP/s"], r["% FP32 peak"],
              r["speed vs cublas"]) for v, r in rows], str), ""]
    t = {v: float(r["median ms"]) for v, r in sizes[4096]}
    cost = [100 * (1 - t[STAGE22] / t[v]) for v in CLAIMS22]
    out += [f"That run measured the variants as they were before commit 9b41b01 (the K loop fully unrolled, "
            f"{REGS_BEFORE_9B41B01}\nregisters): there, undoing any one claim cost {min(cost):.0f}–{max(cost):.0f}% "
            f"of the speed.", ""]
    ncu = {}
    for path, v in NCU22:
        rows = [r for r in csv.DictReader(open(path)) if r["chapter"] == "22-sgemm-register-blocking" and r["variant"] == v]
        if len(rows) != 1:
            raise SystemExit(f"tables.py: {path.name}: {len(rows)} rows of chapter 22's {v}")
        ncu[v] = {k: (float(x) if k not in ("chapter", "variant", "kernel", "kernel_full_name") else x)
                  for k, x in rows[0].items()}
    st = ncu[STAGE22]
    ratio = {v: ncu[v]["time us"] / st["time us"] for v in ncu}
    inst = {v: ncu[v]["instructions"] / st["instructions"] for v in ncu}
    out += [f"**The current code, profiled** (NVIDIA H200, CUDA 13.0, 2026-11-23, `tools/ncu-compare --preset sgemm "
            f"--size\n4096`, `--clock-control none`, one timed launch each; the stage at commit `7926d81`, the three "
            f"variants at\n`f18eb3b`, the same kernel code; raw: [ncu-sgemm.txt]({NCU_LINK}2026-11-23-h200x2/ncu/"
            f"ncu-sgemm.txt),\n"
            + ",\n".join(f"[ncu-22-{v}.txt]({NCU_LINK}2026-11-23-h200-f18eb3b/ncu/ncu-22-{v}.txt)" for v in CLAIMS22)
            + "):", "",
            "| variant | kernel µs | x the stage's time | instructions | FMA pipe % | issue % | regs | sectors/req | "
            "L2 %peak | bank conflicts | stall barrier | stall long sb |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for v, label in [(STAGE22, "stage")] + [(v, f"claim {i + 1}") for i, v in enumerate(CLAIMS22)]:
        m = ncu[v]
        out.append(f"| `{v}` ({label}) | {m['time us']:.1f} | {ratio[v]:.2f} | {m['instructions']:,.0f} | "
                   f"{m['FMA pipe %']:.1f} | {m['issue %']:.1f} | {m['regs']:.0f} | {m['sectors/req']:.2f} | "
                   f"{m['L2 %peak']:.1f} | {m['bank confl']:,.0f} | {m['stall barrier']:.2f} | "
                   f"{m['stall long sb']:.2f} |")
    c1, c2, c3 = (ncu[v] for v in CLAIMS22)
    k1, k2, k3 = CLAIMS22
    worst = max(CLAIMS22, key=lambda v: ratio[v])
    assert worst == k3 and all(ratio[v] > 1 for v in CLAIMS22)  # "Claim 3 ... matters most", "all three still hold"
    assert c3["stall long sb"] > st["stall long sb"] and c3["stall barrier"] > st["stall barrier"]  # "rises"
    assert c3["FMA pipe %"] < st["FMA pipe %"] and c1["L2 %peak"] < st["L2 %peak"]  # "falls", "L2 ... is lower"
    g = lambda m: f"{m['instructions'] / 1e9:.2f} G"
    out += ["", f"All three claims still hold on the H200, by less than before: undoing one costs "
            f"{100 * (min(ratio[v] for v in CLAIMS22) - 1):.0f}–{100 * (max(ratio[v] for v in CLAIMS22) - 1):.0f}% "
            f"of the kernel's time.",
            f"- **Claim 3 (Asub 16 × 32, fewer barriers) matters most**, {ratio[k3]:.2f}x: with half the K values per "
            f"tile, each tile's\n  loads are exposed at twice as many barriers: `stall long sb` (waiting on global "
            f"loads) rises from {st['stall long sb']:.2f} to\n  {c3['stall long sb']:.2f} and `stall barrier` from "
            f"{st['stall barrier']:.2f} to {c3['stall barrier']:.2f}, and the FMA pipe falls from "
            f"{st['FMA pipe %']:.1f}% to {c3['FMA pipe %']:.1f}% active.",
            f"- **Claim 1 (Csub 16 × 256)**, {ratio[k1]:.2f}x: the narrow tile re-reads A and pays more address and "
            f"load instructions\n  per FMA: {100 * (inst[k1] - 1):.0f}% more instructions ({g(c1)} against {g(st)}) "
            f"on an issue-bound kernel. L2 throughput is lower, not\n  higher: the cost today is instructions, not "
            f"traffic.",
            f"- **Claim 2 (`float2` loads of B)**, {ratio[k2]:.2f}x: the scalar loads halve the sectors per request "
            f"({c2['sectors/req']:.2f} against {st['sectors/req']:.2f})\n  and add {100 * (inst[k2] - 1):.0f}% "
            f"instructions ({g(c2)}); the bytes moved are the same."]
    return "\n".join(out)


# Chapter 33 at N = 2048: compile-time facts (ptxas -v, nvcc 13.0, sm_90: registers per thread of the plain and the
# half exchange's kernel) and the H200's per-SM limits (CUDA's occupancy rules), kept as constants; the limits in
# the block are computed from them.
N33, THREADS33, VALUES33 = 2048, 128, 16  # BlockShape<2048>: one signal of 16 values per thread
REGS33 = {"plain": 56, "half": 63}
SM_SMEM_KB, SM_RESERVED_KB, SM_REGS, SM_THREADS, SM_WARPS = 228, 1, 65536, 2048, 64
NCU_H100_FFT = HERE.parent / "2026-11-27-h100" / "ncu-fft-1e91d85" / "ncu-fft.csv"  # the first screen's ncu capture


def fft33():
    """Chapter 33's variants: the first GPU run (N = 16 and 2048), the half exchange with the fixed code at N = 2048
    (../2026-11-23-h200x2/fft35/all-33-n2048.txt), and what limits the blocks per SM."""
    first = {n: dict(text_rows(f"call2-fft-b-all-33-n{n}.txt")) for n in (16, 2048)}
    fixed = dict(f18.early.h100_tables().program_rows(HERE.parent / "2026-11-23-h200x2" / "fft35" / "all-33-n2048.txt"))
    sp = lambda r: r["speed vs cufft"]
    cell = lambda r, of="": f"{sp(r)} ({r['% memcpy']}%{of})"
    st16, pre16, half16 = (first[16][v] for v in ("fft-registers-exchange", "prearranged", "half-exchange"))
    st, half = first[2048]["fft-registers-exchange"], first[2048]["half-exchange"]
    assert half["check"].startswith("MISMATCH") and fixed["half-exchange"]["check"] == "ok"  # "wrong results then"
    assert pre16["check"] == "known"  # "known defect: ..."  # N = 16: it expects the article's pre-arranged layout
    worth = float(st16["median ms"]) / float(pre16["median ms"])
    out = [f"{RUN} at 2^27 elements, from the first GPU run of this chapter, before commit 2a94bb2 put several "
           f"signals in each block for N ≥ 32 and before b0ca1cb fixed the half exchange (raw: [N = 16]({RAW_LINK}"
           f"call2-fft-b-all-33-n16.txt), [N = 2048]({RAW_LINK}call2-fft-b-all-33-n2048.txt)), as speed against cuFFT "
           "in the same process:", "",
           "| N | `fft-registers-exchange` (stage) | `prearranged` (the article's layout) | `half-exchange` |",
           "|---|---:|---:|---:|",
           f"| 16 | {cell(st16, ' of memcpy')} | {cell(pre16)}, reading the input as pre-arranged (timed on natural data, so it transforms permuted signals) | {sp(half16)} (N = 16 does not "
           "use it) |",
           f"| 2048 | {cell(st)} | {cell(first[2048]['prearranged'])} | wrong results then (the bug fixed in b0ca1cb); "
           f"{sp(fixed['half-exchange'])} after the fix (below) |", "",
           f"At N = 16 the article's pre-arranged layout is worth {worth:.2f}x over the transpose through shared "
           "memory: the price of reading natural data coalesced.", "",
           "The half-exchange trick against the plain exchange at N = 2048, with the fixed code (NVIDIA H200, CUDA 13.0,"
           "\n2026-11-23, commit `7926d81`, 1 GiB batch, `--variant all --length 2048 --budget-ms 150`; raw:\n"
           "[all-33-n2048.txt](../../docs/results/raw/2026-11-23-h200x2/fft35/all-33-n2048.txt)):", "",
           "| N = 2048 | median µs | GB/s | % of `cudaMemcpy` | vs cuFFT |", "|---|---:|---:|---:|---:|"]
    for v, label in (("fft-registers-exchange", "`fft-registers-exchange` (stage, plain exchange)"),
                     ("half-exchange", "`half-exchange`"),
                     ("prearranged", "`prearranged` (at N = 2048 the stage's code: it differs only at N = 8 and 16)"),
                     ("cufft", "cuFFT"), ("cudaMemcpy", "`cudaMemcpy`")):
        r = fixed[v]
        speed = f"**{sp(r)}**" if v == "half-exchange" else ("–" if v == "cudaMemcpy" else sp(r))
        out.append(f"| {label} | {1000 * float(r['median ms']):.1f} | {r['GB/s']} | {r['% memcpy']} | {speed} |")
    plain, halved = (float(sp(fixed[v]).rstrip("x")) for v in ("fft-registers-exchange", "half-exchange"))
    buf = {"plain": N33 * 8, "half": N33 // 2 * 8}  # float2: 8 bytes
    smem = SM_SMEM_KB * 1024
    by_smem = {k: smem // (b + SM_RESERVED_KB * 1024) for k, b in buf.items()}
    by_threads = SM_THREADS // THREADS33
    by_regs = {k: SM_REGS // (r * THREADS33) for k, r in REGS33.items()}
    blocks = {k: min(by_smem[k], by_threads, by_regs[k]) for k in buf}
    assert all(blocks[k] == by_regs[k] < by_smem[k] for k in buf) and blocks["half"] < blocks["plain"]
    warps = {k: blocks[k] * THREADS33 // 32 for k in buf}
    ncu = [r for r in csv.DictReader(open(NCU_H100_FFT)) if r["chapter"] == "33-fft-registers-exchange"]
    assert len(ncu) == 1
    regs1024 = int(ncu[0]["regs"])
    blocks1024 = SM_REGS // (regs1024 * THREADS33)
    warps1024 = blocks1024 * THREADS33 // 32
    kib = lambda b: f"{b // 1024} KiB"
    out += ["", f"**The trick costs {100 * (1 - halved / plain):.0f}% of the speed today** ({halved:.3f}x cuFFT against "
            f"{plain:.3f}x). Why, from the occupancy. At N = {N33}\na block is {THREADS33} threads, one signal of "
            f"{VALUES33} values per thread (`BlockShape<{N33}>`), and `fft_block_kernel`'s\nexchange buffer is `buf[N]` "
            f"= {N33} `float2` = {kib(buf['plain'])} for the plain exchange, `buf[N / 2]` = {kib(buf['half'])} for the "
            "half.\nOn the article's GT200 (16 KB of shared memory per SM, 8 KB for the real parts of 2048 values, see "
            "above) the\nfull buffer left room for one block per SM and the half for two, so the halving bought the "
            "second block that\nhides the first one's barriers. On the H200 (228 KB of shared memory per SM, up to 227 "
            "KB per block, 64 K\nregisters and 2048 threads per SM), per SM:", "",
            "| what limits the blocks per SM | plain exchange | half exchange |", "|---|---:|---:|",
            f"| shared memory: {SM_SMEM_KB} KB = {smem:,} bytes, each block its buffer + {SM_RESERVED_KB} KB the "
            f"runtime reserves | {smem:,} / {buf['plain'] + 1024:,} → {by_smem['plain']} | {smem:,} / "
            f"{buf['half'] + 1024:,} → {by_smem['half']} |",
            f"| threads: {SM_THREADS} | {SM_THREADS} / {THREADS33} → {by_threads} | {SM_THREADS} / {THREADS33} → "
            f"{by_threads} |",
            f"| registers: {SM_REGS:,}, at the `ptxas -v` counts for N = {N33} ({REGS33['plain']} and {REGS33['half']} "
            f"per thread: \"What to expect\" above, the table below) | {SM_REGS:,} / ({REGS33['plain']} × {THREADS33}) "
            f"→ {by_regs['plain']} | {SM_REGS:,} / ({REGS33['half']} × {THREADS33}) → {by_regs['half']} |",
            f"| resident blocks (the smallest) | **{blocks['plain']}** ({warps['plain']} of {SM_WARPS} warps) | "
            f"**{blocks['half']}** ({warps['half']} of {SM_WARPS} warps) |", "",
            f"The plain exchange already fits {by_smem['plain']} blocks by shared memory, and the registers, not shared "
            "memory, limit both\nkernels: halving the buffer cannot add the block the GT200 needed. It even loses one, "
            "since a thread of the\nhalf exchange holds its inputs (`next`) and its outputs at once. What the trick does "
            "add is its second round:\nfour barriers per exchange instead of two (eight per signal at N = 2048 instead "
            "of four), with half of the\nthreads idle while the other half writes. The same register limit shows in "
            "`ncu` for the plain kernel at\nN = 1024 (the first screen, H100): "
            f"{regs1024} registers per thread, so {SM_REGS:,} / ({regs1024} × {THREADS33}) → {blocks1024} blocks, "
            f"{warps1024} of {SM_WARPS} warps\n({100 * warps1024 / SM_WARPS:.1f}%), close to the achieved occupancy "
            "measured there.", "",
            "Not yet measured: `ncu` of both kernels at N = 2048 (`launch__occupancy_limit_registers`,\n"
            "`launch__occupancy_limit_shared_mem`, achieved occupancy, barrier stalls); the limits above are computed "
            "from\nthe `ptxas` counts."]
    return "\n".join(out)


TABLES = [("22-h200-claims", claims22), ("33-h200-variants", fft33),
          ("35-h200-how-chosen", how_chosen)]
BLOCKS = {"22-claims": "22-h200-claims", "33-fft-variants": "33-h200-variants",
          "35-h200-how-chosen": "35-h200-how-chosen"}

if __name__ == "__main__":
    early.main(TABLES, BLOCKS, HERE)
