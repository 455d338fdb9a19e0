#!/usr/bin/env python3
"""Writes the markdown tables that chapters 18, 28, 29, 36 and 37 cite from this folder's captures (no GPU needed):

  python3 docs/results/raw/2026-11-25-h100/tables.py        # writes tables/*.md beside this file
  tools/fill-measured docs/results/nvidia-h200.md --extra 18-h100-variants=docs/results/raw/2026-11-25-h100/tables/18-variants.md ...

Every number comes from a CSV or program output in this folder; nothing is typed by hand."""
import csv
import math
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tables"
PROVENANCE = ("NVIDIA H100 80GB HBM3 (132 SMs), driver 580.159.04, CUDA 13.0, 2026-11-25; {what}, "
              "[raw]({raw}).")


def rows_of(path):
    return [r for r in csv.DictReader(line for line in open(path) if not line.startswith("#"))]


def by_variant(path):
    return {r["variant"]: r for r in rows_of(path)}


def pct(x):
    return f"{float(x):.1f}"


def ratio(x):
    return f"{float(x):.3f}x" if x not in ("", None) and float(x) > 0 else "–"


def scan_variants():
    m = HERE / "measure-c288e4a" / "ch18"
    sizes = [("2^28", "variants-int32-sum-2p28.csv"), ("2^30", "variants-int32-sum-2p30.csv")]
    tables = {s: by_variant(m / f) for s, f in sizes}
    names = [r["variant"] for r in rows_of(m / sizes[0][1]) if r["variant"] != "cudaMemcpy"]
    out = ["| int32 sum | " + " | ".join(f"% of `cudaMemcpy` at {s} | vs CUB at {s}" for s, _ in sizes) + " |",
           "|---|" + "---:|---:|" * len(sizes)]
    for v in names:
        cells = []
        for s, _ in sizes:
            r = tables[s][v]
            cells += [pct(r["pct_memcpy"]), ratio(r["speed_vs_ref"]) if v != "cub" else "1.000x"]
        out.append(f"| `{v}` | " + " | ".join(cells) + " |")
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit c288e4a, `measure.sh`, `--budget-ms 400`",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-c288e4a/ch18/"))
    return "\n".join(out)


def vs_cub_row(label, stage_pct, cub_pct, speed):
    """One row of a stage-against-CUB table: shares of cudaMemcpy, the ratio, and the most any scan can gain over
    CUB (100 / CUB's share: the copy is the bound)."""
    return f"| {label} | {stage_pct} | {cub_pct} | {speed} | {100.0 / float(cub_pct):.2f}x |"


def scan_types():
    m = HERE / "measure-c288e4a" / "ch18"
    out = ["| type, operator (2^28) | stage % of `cudaMemcpy` | CUB % of `cudaMemcpy` | stage vs CUB | bound on the ratio (100 / CUB's %) |",
           "|---|---:|---:|---:|---:|"]
    for t in ["int32", "uint32", "int64", "float", "double"]:
        for op in ["sum", "max"]:
            f = m / f"types-{t}-{op}-2p28.csv"
            if not f.exists():
                continue
            v = by_variant(f)
            stage, cub = v["scan-copy-bound"], v["cub"]
            out.append(vs_cub_row(f"{t} {op}", pct(stage["pct_memcpy"]), pct(cub["pct_memcpy"]),
                                  ratio(stage["speed_vs_ref"])))
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit c288e4a, `measure.sh` (the int64 run at 2^30 and the "
                                 "timeline did not finish inside the call's time limit)",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-c288e4a/ch18/"))
    return "\n".join(out)


def gemm_shapes():
    rows = rows_of(HERE / "measure-c288e4a" / "shapes" / "shapes.csv")
    out = ["| M × N × K | 29 (stage) / cuBLAS | 28 / cuBLAS | 27 / cuBLAS | 29's plan |", "|---|---:|---:|---:|---|"]
    logs = []
    big = []
    for r in rows:
        plan = r["choice_29"].split(":")[0]
        out.append(f"| {r['m']} × {r['n']} × {r['k']} | {float(r['ratio_29']):.3f} | {float(r['ratio_28']):.3f} | "
                   f"{float(r['ratio_27']):.3f} | {plan} |")
        logs.append(math.log(float(r["ratio_29"])))
        if int(r["m"]) * int(r["n"]) * int(r["k"]) >= 2**30:
            big.append(float(r["ratio_29"]))
    geo = math.exp(sum(logs) / len(logs))
    out.append("")
    out.append(f"Geometric mean of 29 / cuBLAS over the {len(rows)} shapes: **{geo:.3f}**; lowest at ≥ 2^30 "
               f"multiply-adds: **{min(big):.3f}**; lowest overall: {min(float(r['ratio_29']) for r in rows):.3f}.")
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit c288e4a, `shape_sweep.py`",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-c288e4a/shapes/shapes.csv"))
    return "\n".join(out)


def fp32_peak(raw_dir):
    """The FP32 peak (GFLOP/s) the chapter programs printed in their banner, from one raw output."""
    for f in sorted(raw_dir.glob("*.txt")):
        m = re.search(r"^FP32 peak: .* = ([\d.]+) GFLOP/s$", f.read_text(), re.M)
        if m:
            return float(m.group(1))
    raise SystemExit(f"no 'FP32 peak:' banner line under {raw_dir}")


def gemm_screen(stage, prev, shapes):
    """A README's first table: stage STAGE (28 or 29) at a few SHAPES beside the previous stage and cuBLAS,
    as shares of the FP32 peak, from the same sweep as 29-shapes."""
    d = HERE / "measure-c288e4a" / "shapes"
    rows = {(int(r["m"]), int(r["n"]), int(r["k"])): r for r in rows_of(d / "shapes.csv")}
    peak = fp32_peak(d / "raw")
    out = [f"| M × N × K | {stage} (stage) GFLOP/s | % FP32 peak | {stage} / cuBLAS | {prev} / cuBLAS | "
           f"cuBLAS % FP32 peak | {stage}'s plan |", "|---|---:|---:|---:|---:|---:|---|"]
    for shape in shapes:
        r = rows[shape]
        gf, cub = float(r[f"gflops_{stage}"]), float(r[f"cublas_gflops_{stage}"])
        out.append(f"| {shape[0]} × {shape[1]} × {shape[2]} | {gf:.0f} | {100 * gf / peak:.1f} | "
                   f"{float(r[f'ratio_{stage}']):.3f} | {float(r[f'ratio_{prev}']):.3f} | {100 * cub / peak:.1f} | "
                   f"{r[f'choice_{stage}'].split(':')[0]} |")
    out.append("")
    out.append(f"FP32 peak {peak:.0f} GFLOP/s (the programs' banner: SMs × 128 lanes × 2 flop × clock); "
               f"cuBLAS timed by chapter {stage}'s program in the same process, chapter {prev}'s ratio by its own.")
    out.append(PROVENANCE.format(what="working tree of commit c288e4a, `shape_sweep.py`",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-c288e4a/shapes/shapes.csv"))
    return "\n".join(out)


def gemm28_screen():
    return gemm_screen(28, 27, [(1024, 1024, 1024), (3072, 3072, 3072), (4096, 4096, 4096), (8192, 8192, 8192),
                                (128, 4096, 4096), (256, 256, 65536)])


def gemm29_screen():
    return gemm_screen(29, 28, [(128, 4096, 4096), (4096, 128, 4096), (1024, 1024, 16384), (256, 256, 65536),
                                (1024, 1024, 1024), (4096, 4096, 4096), (1, 4096, 4096)])


def program_table(path, keep):
    """The variant rows of a program's table output, as markdown."""
    out = ["| variant | median ms | GB/s | % of `cudaMemcpy` | vs cuFFT | check |", "|---|---:|---:|---:|---:|---|"]
    for line in open(path):
        f = line.split()
        g = f[2:] if len(f) > 1 and f[1] == "*" else f[1:]
        # a result row: name, '*' for a reference, then n as 2^k
        if len(g) >= 12 and g[0].startswith("2^") and (keep is None or f[0] in keep):
            out.append(f"| `{f[0]}`{' (reference)' if f[1] == '*' else ''} | {g[1]} | {g[5]} | {g[7]} | {g[10]} | {g[11]} |")
    return "\n".join(out)


def fft36():
    d = HERE / "fft36-b40c559"
    parts = []
    for n in (8192, 16384):
        parts.append(f"N = {n}, 1 GiB batch:\n\n" + program_table(d / f"c36-all-n{n}.txt", None))
    parts.append(PROVENANCE.format(what="commit b40c559, `--variant all --size 2^27 --budget-ms 200`",
                                   raw="../../docs/results/raw/2026-11-25-h100/fft36-b40c559/"))
    return "\n\n".join(parts)


def fft37():
    d = HERE / "measure-c288e4a"
    parts = []
    for n in (32768, 65536):
        parts.append(f"N = {n}, 1 GiB batch:\n\n" + program_table(d / f"c37-all-n{n}.txt", None))
    text = open(d / "c37-all-n32768.txt").read()
    residency = text[text.index("Clusters resident"):].strip()
    parts.append("The program's residency table (the same in both runs):\n\n```\n" + residency + "\n```")
    parts.append(PROVENANCE.format(what="working tree of commit c288e4a, `--variant all --budget-ms 200`",
                                   raw="../../docs/results/raw/2026-11-25-h100/measure-c288e4a/"))
    return "\n\n".join(parts)


def ncu_fft():
    """The FFT ladder under tools/ncu-compare (timed run only): one row per chapter, chapter 31's ten passes summed."""
    rows = rows_of(HERE / "ncu-bf8018c" / "ncu-fft.csv")
    out = ["| chapter | kernel (launches) | time µs | DRAM % of peak | DRAM read MB | DRAM written MB | bank conflicts "
           "(ld + st) | stall barrier | occupancy % | registers | instructions |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    chapters = []
    for r in rows:
        if r["chapter"] not in chapters and r["chapter"] < "36":
            chapters.append(r["chapter"])
    for c in chapters:
        launches = [r for r in rows if r["chapter"] == c and r["kernel"] != "(total)"]
        total = next((r for r in rows if r["chapter"] == c and r["kernel"] == "(total)"), launches[0])
        name = f"`{launches[0]['kernel']}` ({len(launches)})"
        out.append(f"| {c[:2]} | {name} | {float(total['time us']):.1f} | {float(total['DRAM %peak']):.1f} | "
                   f"{float(total['DRAM rd MB']):.1f} | {float(total['DRAM wr MB']):.1f} | "
                   f"{int(float(total['bank confl'])):,} | {float(total['stall barrier']):.2f} | "
                   f"{float(total['occupancy %']):.1f} | {total['regs']} | {int(float(total['instructions'])):,} |")
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit bf8018c, `tools/ncu-compare --preset fft --chapters 30-37` "
                                 "(2^24 elements, N = 1024, `--clock-control none`; every launch of the timed run, "
                                 "summed per chapter)",
                                 raw="../../docs/results/raw/2026-11-25-h100/ncu-bf8018c/ncu-fft.txt"))
    return "\n".join(out)


def fft_screen(folder, name, lengths, keep, what):
    """A README's first table: the stage, the previous stage, cuFFT and the copy from the --variant all runs."""
    d = HERE / folder
    parts = [f"N = {n}, 1 GiB batch:\n\n" + program_table(d / name.format(n=n), keep) for n in lengths]
    parts.append(PROVENANCE.format(what=what, raw=f"../../docs/results/raw/2026-11-25-h100/{folder}/"))
    return "\n\n".join(parts)


def fft36_screen():
    return fft_screen("fft36-b40c559", "c36-all-n{n}.txt", (8192, 16384),
                      {"cudaMemcpy", "fft-one-block-large", "fft-tuned", "cufft"},
                      "commit b40c559, `--variant all --size 2^27 --budget-ms 200` (the stage, chapter 35's and the references)")


def fft37_screen():
    return fft_screen("measure-c288e4a", "c37-all-n{n}.txt", (32768, 65536),
                      {"cudaMemcpy", "fft-thread-block-cluster", "fft-one-block-large", "cufft"},
                      "working tree of commit c288e4a, `--variant all --budget-ms 200` (the stage, chapter 36's and the references)")


def program_rows(path):
    """{variant: {column: text}} from a chapter program's first table (its header names the columns; a
    reference's name is followed by '*')."""
    rows, header = {}, None
    for line in open(path):
        if header is None:
            if line.startswith("variant "):
                header = re.split(r"\s{2,}", line.strip())
            continue
        if not line.strip() or line.startswith("(") or line.startswith("-"):
            if rows and not line.strip():
                break
            continue
        f = line.split()
        name, rest = f[0], f[2:] if len(f) > 1 and f[1] == "*" else f[1:]
        rows[name] = dict(zip(header[1:], rest))
    return rows


def fft38_screen():
    """Chapter 38 by length: the stage, chapter 37's stage (chapter 35's four-step at these lengths), the
    width candidates and cuFFT, from the --variant all runs of one call."""
    d = HERE / "measure-9fe5849"
    out = ["| N | 38 (stage) GB/s | % of `cudaMemcpy` | 38 vs cuFFT | 37 (four-step) vs cuFFT | `w8` vs cuFFT | "
           "`w16` vs cuFFT | cuFFT % of `cudaMemcpy` |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in (131072, 262144, 524288, 1048576):
        r = program_rows(d / f"c38-all-n{n}.txt")
        w16 = r["w16"]["speed vs cufft"] if "w16" in r else "–"
        out.append(f"| {n} | {float(r['fft-two-pass']['GB/s']):.0f} | {r['fft-two-pass']['% memcpy']} | "
                   f"{r['fft-two-pass']['speed vs cufft']} | {r['fft-thread-block-cluster']['speed vs cufft']} | "
                   f"{r['w8']['speed vs cufft']} | {w16} | {r['cufft']['% memcpy']} |")
    out.append("")
    out.append("1 GiB of `float2` per length (2^27 values), out of place, `--variant all --budget-ms 150`; every "
               "check `ok`. The bound of two passes is half a copy: 50% of `cudaMemcpy`.")
    out.append(PROVENANCE.format(what="working tree of commit 9fe5849",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-9fe5849/"))
    return "\n".join(out)


SWEEP_SHAPES = [(256, 256, 256), (512, 512, 512), (768, 768, 768), (1000, 1000, 1000), (1024, 1024, 1024),
                (1536, 1536, 1536), (2048, 2048, 2048), (2500, 2500, 2500), (3072, 3072, 3072), (4096, 4096, 4096),
                (5000, 5000, 5000), (6144, 6144, 6144), (8192, 8192, 8192), (4096, 4096, 256), (8192, 8192, 1024),
                (128, 4096, 4096), (4096, 128, 4096), (1024, 1024, 16384), (256, 256, 65536), (1000, 3000, 700),
                (64, 8192, 8192), (2048, 512, 8192), (3000, 1000, 2000), (1, 4096, 4096), (4096, 4096, 1)]


def gemm_stream_k():
    """Split-K (the stage) against stream-K and its hybrid over the 25 shapes, each program run timing the three
    and cuBLAS in one process."""
    d = HERE / "measure-9fe5849" / "sk"
    names = ["sgemm-split-k", "stream-k", "dp-stream-k"]
    out = ["| M × N × K | 29 split-K stage / cuBLAS | stream-K / cuBLAS | data-parallel + stream-K / cuBLAS | "
           "tiles (128 × 256) | waves on 132 SMs |", "|---|---:|---:|---:|---:|---:|"]
    logs = {v: [] for v in names}
    wins = []
    for m, n, k in SWEEP_SHAPES:
        r = program_rows(d / f"{m}-{n}-{k}.txt")
        ratios = {v: float(r[v]["speed vs cublas"].rstrip("x")) for v in names}
        assert all(r[v]["check"] == "ok" for v in names)
        for v in names:
            logs[v].append(math.log(ratios[v]))
        tiles = -(-m // 128) * -(-n // 256)
        if max(ratios["stream-k"], ratios["dp-stream-k"]) > ratios["sgemm-split-k"]:
            wins.append(f"{m} × {n} × {k}")
        out.append(f"| {m} × {n} × {k} | {ratios['sgemm-split-k']:.3f} | {ratios['stream-k']:.3f} | "
                   f"{ratios['dp-stream-k']:.3f} | {tiles} | {tiles / 132:.2f} |")
    geo = {v: math.exp(sum(l) / len(l)) for v, l in logs.items()}
    out.append(f"| geometric mean | **{geo['sgemm-split-k']:.3f}** | **{geo['stream-k']:.3f}** | "
               f"**{geo['dp-stream-k']:.3f}** | | |")
    out.append("")
    out.append(f"Stream-K or its hybrid ahead of the split-K stage at {len(wins)} of {len(SWEEP_SHAPES)} shapes: "
               + ", ".join(wins) + ". Every check `ok` (against cuBLAS above 2^30 multiply-adds, the CPU below).")
    out.append(PROVENANCE.format(what="working tree of commit 9fe5849, chapter 29 `--variant "
                                 "sgemm-split-k,stream-k,dp-stream-k --budget-ms 40` per shape",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-9fe5849/sk/"))
    return "\n".join(out)


def scan18_after_spills():
    """Chapter 18's stage against CUB and the copy after the stack-frame fix (9fe5849)."""
    d = HERE / "measure-9fe5849"
    out = ["| type, operator, n | stage % of `cudaMemcpy` | CUB % of `cudaMemcpy` | stage vs CUB | bound on the ratio "
           "(100 / CUB's %) |", "|---|---:|---:|---:|---:|"]
    for label, f in [("int32 sum, 2^28", "c18-int32-2p28.txt"), ("int32 sum, 2^30", "c18-int32-2p30.txt"),
                     ("float sum, 2^28", "c18-float.txt"), ("int64 sum, 2^28", "c18-int64.txt"),
                     ("double sum, 2^28", "c18-double.txt")]:
        r = program_rows(d / f)
        st, cub = r["scan-copy-bound"], r["cub"]
        out.append(vs_cub_row(label, st["% memcpy"], cub["% memcpy"], st["speed vs cub"]))
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit 9fe5849 (after the stack-frame fix), "
                                 "`--variant scan-copy-bound,cub --budget-ms 300`",
                                 raw="../../docs/results/raw/2026-11-25-h100/measure-9fe5849/"))
    return "\n".join(out)


def main():
    OUT.mkdir(exist_ok=True)
    for name, make in [("18-variants", scan_variants), ("18-types", scan_types), ("29-shapes", gemm_shapes),
                       ("36-candidates", fft36), ("37-candidates", fft37), ("ncu-fft", ncu_fft),
                       ("28-screen", gemm28_screen), ("29-screen", gemm29_screen),
                       ("36-screen", fft36_screen), ("37-screen", fft37_screen),
                       ("38-screen", fft38_screen), ("29-stream-k", gemm_stream_k), ("18-after-spills", scan18_after_spills)]:
        (OUT / f"{name}.md").write_text(make() + "\n")
        print(f"wrote {OUT / (name + '.md')}")


if __name__ == "__main__":
    main()
