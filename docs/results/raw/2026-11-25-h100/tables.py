#!/usr/bin/env python3
"""Writes the markdown tables that chapters 18, 28, 29, 31, 32, 34, 36, 37, 38 and 40 cite from this folder's captures,
and the sweep tables of chapters 03, 04, 20-27 and 30-35 from docs/results/nvidia-h100-80gb-hbm3-sweeps-*.json
(no GPU needed):

  python3 docs/results/raw/2026-11-25-h100/tables.py          # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-25-h100/tables.py --fill   # and fills every README block they feed (BLOCKS:
                                                              # tools/fill-measured with one --extra per block)
  python3 docs/results/raw/2026-11-25-h100/tables.py --fill --check   # changes nothing; exit 1 if a table or a
                                                                      # block would (a host test runs this)

Every number comes from a CSV or program output: the screens of chapters 18, 28, 29 and 36-38 and chapter 40's
one-GPU runs from one `tools/measure-screens` run (SCREENS, ../2026-11-27-h100/screens-bbee8ca), chapter 40's
scaling from ../2026-11-27-h200x2/multigpu (two GPUs), ../2026-11-28-h200x4 (four GPUs, and the two forms
side by side in forms-x2) and ../2026-11-28-h200x4-s4/multigpu (four GPUs again: 2^36, the rank form at 2^32, the
weight 142; its rows are labelled with their run and never divided by the other run's), chapter 28's calibration
from the first run of chapters 27-29 (chapters/29-sgemm-split-k/results/h100-03ce2f5, with the constants of chapter
28's shape_model.hpp), the rest from this folder's captures (labelled with their commits where they stay as
history); the registers of chapters 18, 27, 29 and 35-37 from one sm_90 build's
../2026-11-28-build/resources-sm90.txt (tools/tutkit/resources.py); nothing is typed by hand."""
import csv
import importlib.util
import json
import math
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tables"


def provenance(what, raw, date="2026-11-25"):
    """The provenance line of a table: the H100 of this folder's runs and of ../2026-11-27-h100 (the same GPU,
    driver and CUDA), the run's DATE, WHAT ran, and the RAW link (relative to a chapter README)."""
    return (f"NVIDIA H100 80GB HBM3 (132 SMs), driver 580.159.04, CUDA 13.0, {date}; {what}, "
            f"[raw]({raw}).")


PROVENANCE = provenance("{what}", "{raw}")  # the runs of this folder (2026-11-25): .format(what=..., raw=...)

# The screens: one `tools/measure-screens` run (calls 11-13 of ../2026-11-27-h100, working tree of bbee8ca; chapter
# 40's part at d1ae04b, whose chapter and common code are bbee8ca's). Its file names are the tool's.
SCREENS = HERE.parent / "2026-11-27-h100" / "screens-bbee8ca"
SCREENS_RAW = "../../docs/results/raw/2026-11-27-h100/screens-bbee8ca/"
SCREENS_LABEL = "NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-11-27, working tree of commit `bbee8ca`"  # the same run, short


def screens_provenance(what, raw=""):
    """The provenance line of a table from the screens run: WHAT ran, RAW the file or folder under it."""
    return provenance(f"working tree of commit bbee8ca, `tools/measure-screens`: {what}", SCREENS_RAW + raw,
                      date="2026-11-27")


# The 25-shape SGEMM sweep of chapters 27-29 (shape_sweep.py) that the tables of chapters 28 and 29 and their
# templates cite. Two earlier sweeps stay as history in 29-sweep-change: c288e4a (2026-11-25, SHAPES_BEFORE) and
# 38ea8b3 (2026-11-27, SHAPES_FIX: the first after chapter 29's occupancy fix, 4fbf9f0).
# The FFT ladder's ncu captures (call 14 of ../2026-11-27-h100, working tree of 1e91d85: the code of bbee8ca).
NCU_FFT = HERE.parent / "2026-11-27-h100" / "ncu-fft-1e91d85"

SHAPES = SCREENS / "shapes"
SHAPES_RAW = SCREENS_RAW + "shapes/shapes.csv"
SHAPES_PROVENANCE = screens_provenance("`shape_sweep.py`", "shapes/shapes.csv")
SHAPES_BEFORE = HERE / "measure-c288e4a" / "shapes"
SHAPES_BEFORE_RAW = "../../docs/results/raw/2026-11-25-h100/measure-c288e4a/shapes/shapes.csv"
SHAPES_FIX = HERE.parent / "2026-11-27-h100" / "measure-38ea8b3" / "shapes"
SHAPES_FIX_RAW = "../../docs/results/raw/2026-11-27-h100/measure-38ea8b3/shapes/shapes.csv"


def rows_of(path):
    return [r for r in csv.DictReader(line for line in open(path) if not line.startswith("#"))]


def by_variant(path):
    return {r["variant"]: r for r in rows_of(path)}


def pct(x):
    return f"{float(x):.1f}"


def ratio(x):
    return f"{float(x):.3f}x" if x not in ("", None) and float(x) > 0 else "–"


def scan_variants():
    m = SCREENS / "ch18"
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
    # the README's prose on the steps (its first screen, "The steps toward the bound"): every step behind the stage
    # at both sizes, larger tiles (d) and streaming loads (b) the most, bulk copies (c) and streaming stores (a)
    # by less than 1%
    speed = {s: {v: float(tables[s]["scan-copy-bound"]["median_ms"]) / float(tables[s][v]["median_ms"])
                 for v in names} for s, _ in sizes}
    steps = ["copy-bound-stcs", "copy-bound-ldcs-stcs", "copy-bound-bulk", "copy-bound-t192-s16-r8"]
    for s, _ in sizes:
        claim(all(speed[s][v] < 1 for v in steps), f"every step ran behind the stage at {s}", 18)
        claim(sorted(steps, key=speed[s].get)[:2] == ["copy-bound-t192-s16-r8", "copy-bound-ldcs-stcs"],
              f"larger tiles and streaming loads trail the stage the most at {s}", 18)
        claim(all(speed[s][v] > 0.99 for v in ("copy-bound-bulk", "copy-bound-stcs")),
              f"bulk copies and streaming stores trail the stage by less than 1% at {s}", 18)
    out.append("")
    out.append(screens_provenance("chapter 18's `measure.sh`, `--budget-ms 400`", "ch18/"))
    return "\n".join(out)


def vs_cub_row(label, stage_pct, cub_pct, speed):
    """One row of a stage-against-CUB table: shares of cudaMemcpy, the ratio, and the most any scan can gain over
    CUB (100 / CUB's share: the copy is the bound)."""
    return f"| {label} | {stage_pct} | {cub_pct} | {speed} | {100.0 / float(cub_pct):.2f}x |"


def scan_types():
    m = SCREENS / "ch18"
    out = ["| type, operator (2^28) | stage % of `cudaMemcpy` | CUB % of `cudaMemcpy` | stage vs CUB | bound on the ratio (100 / CUB's %) |",
           "|---|---:|---:|---:|---:|"]
    vs = {}
    for t in ["int32", "uint32", "int64", "float", "double"]:
        for op in ["sum", "max"]:
            f = m / f"types-{t}-{op}-2p28.csv"
            v = by_variant(f)
            stage, cub = v["scan-copy-bound"], v["cub"]
            out.append(vs_cub_row(f"{t} {op}", pct(stage["pct_memcpy"]), pct(cub["pct_memcpy"]),
                                  ratio(stage["speed_vs_ref"])))
            vs[(t, op)] = float(stage["speed_vs_ref"])
    trail = [k for k in vs if k[0] in ("int64", "double") or k == ("float", "sum")]
    claim(all(vs[k] > 1 for k in vs if k not in trail), "the other 4-byte types and operators run ahead of CUB", 18)
    claim(all(vs[k] < 1 for k in trail), "the 8-byte types and the float sum trail CUB", 18)
    claim(min(vs, key=vs.get) == ("double", "sum"), "the double sum trails CUB the most", 18)
    out.append("")
    out.append(screens_provenance("chapter 18's `measure.sh`, `--budget-ms 400`", "ch18/"))
    return "\n".join(out)


def gemm_shapes():
    rows = rows_of(SHAPES / "shapes.csv")
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
    out.append(SHAPES_PROVENANCE)
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
    d = SHAPES
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
    out.append(SHAPES_PROVENANCE)
    return "\n".join(out)


def gemm28_screen():
    return gemm_screen(28, 27, [(1024, 1024, 1024), (3072, 3072, 3072), (4096, 4096, 4096), (8192, 8192, 8192),
                                (128, 4096, 4096), (256, 256, 65536)])


def gemm29_screen():
    return gemm_screen(29, 28, [(128, 4096, 4096), (4096, 128, 4096), (1024, 1024, 16384), (256, 256, 65536),
                                (1024, 1024, 1024), (4096, 4096, 4096), (1, 4096, 4096)])


def short_plan(choice):
    """'64x128 split 6' or '64x128, no split' from a plan line the programs print."""
    m = re.match(r"(\d+x\d+) tiles, (?:split (\d+)|no split)", choice)
    if not m:
        raise SystemExit(f"tables.py: not a split-K plan: {choice!r}")
    return f"{m.group(1)} split {m.group(2)}" if m.group(2) else f"{m.group(1)}, no split"


def predicted_us(choice):
    m = re.search(r"predicted ([\d.]+) us", choice)
    if not m:
        raise SystemExit(f"tables.py: no prediction in {choice!r}")
    return float(m.group(1))


def measured_us(r, who):
    """The median time (µs) of chapter WHO (27, 28, 29) or 'cublas' (chapter 29's cuBLAS run) from its GFLOP/s."""
    column = "cublas_gflops_29" if who == "cublas" else f"gflops_{who}"
    return 2e-3 * int(r["m"]) * int(r["n"]) * int(r["k"]) / float(r[column])


def gemm_sweep_change():
    """What chapter 29's occupancy fix (4fbf9f0: a split plan counts the partial-sum kernel's blocks per SM, not the
    tile kernel's) changed between the two sweeps: each shape whose plan changed, the stage's own time beside
    cuBLAS's (timed in the same process; the ratio moves with either) and chapter 28's time (its plan the same in
    both runs) as a control, and where the geometric mean of the ratio moved, split into the stage's GFLOP/s and
    cuBLAS's."""
    before = {(r["m"], r["n"], r["k"]): r for r in rows_of(SHAPES_BEFORE / "shapes.csv")}
    after = rows_of(SHAPES_FIX / "shapes.csv")
    assert len(after) == len(before) and all((r["m"], r["n"], r["k"]) in before for r in after)
    out = ["| M × N × K | 29's plan, c288e4a → 38ea8b3 | 29 predicted µs | 29 measured µs | cuBLAS µs (29's process) | "
           "29 / cuBLAS | 28 measured µs (plan unchanged) |", "|---|---|---:|---:|---:|---:|---:|"]
    same, small = [], []
    changed = 0.0
    n_changed = 0

    def step(r, b, column):
        return math.log(float(r[column]) / float(b[column]))

    for r in after:
        b = before[(r["m"], r["n"], r["k"])]
        assert short_plan(b["choice_28"]) == short_plan(r["choice_28"])
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        if short_plan(b["choice_29"]) == short_plan(r["choice_29"]):
            same.append((r, b))
            if m == n == k and m * n * k < 2**30:
                small.append((r, b))
            continue
        changed += step(r, b, "ratio_29")
        n_changed += 1
        out.append(f"| {m} × {n} × {k} | {short_plan(b['choice_29'])} → {short_plan(r['choice_29'])} | "
                   f"{predicted_us(b['choice_29']):.1f} → {predicted_us(r['choice_29']):.1f} | "
                   f"{measured_us(b, 29):.1f} → **{measured_us(r, 29):.1f}** | "
                   f"{measured_us(b, 'cublas'):.1f} → {measured_us(r, 'cublas'):.1f} | "
                   f"{float(b['ratio_29']):.3f} → {float(r['ratio_29']):.3f} | "
                   f"{measured_us(b, 28):.1f} → {measured_us(r, 28):.1f} |")

    def geo(rows, column):  # geometric mean over ROWS of column's factor, later run / earlier
        return math.exp(sum(step(r, b, column) for r, b in rows) / len(rows))

    g0 = math.exp(sum(math.log(float(x["ratio_29"])) for x in before.values()) / len(before))
    g1 = math.exp(sum(math.log(float(x["ratio_29"])) for x in after) / len(after))
    def share(rows):  # the factor ROWS' ratios moved the geometric mean over all the shapes by
        return math.exp(sum(step(r, b, "ratio_29") for r, b in rows) / len(after))

    times = [measured_us(r, 29) for r, _ in small]
    out.append("")
    out.append(f"Geometric mean of 29 / cuBLAS over the {len(after)} shapes: {g0:.3f} at c288e4a, {g1:.3f} at 38ea8b3 "
               f"(×{g1 / g0:.3f}). The {n_changed} shapes whose plan changed moved it by ×{math.exp(changed / len(after)):.3f} "
               f"together, the {len(same)} whose plan did not by ×{share(same):.3f}. Over those {len(same)} the "
               f"stage's own GFLOP/s moved by ×{geo(same, 'gflops_29'):.3f} (geometric mean of the factors) and "
               f"cuBLAS's, timed in the same process, by ×{geo(same, 'cublas_gflops_29'):.3f}; at the {len(small)} "
               f"squares below 2^30 multiply-adds ({', '.join(r['m'] + '³' for r, _ in small)}: calls of "
               f"{min(times):.0f} to {max(times):.0f} µs), which moved the mean by ×{share(small):.3f}, the stage by "
               f"×{geo(small, 'gflops_29'):.3f} and cuBLAS by ×{geo(small, 'cublas_gflops_29'):.3f}.")
    out.append("")
    out.append(PROVENANCE.format(what="working tree of commit c288e4a, `shape_sweep.py`", raw=SHAPES_BEFORE_RAW))
    out.append(provenance("working tree of commit 38ea8b3, `shape_sweep.py`", SHAPES_FIX_RAW, date="2026-11-27"))
    return "\n".join(out)


def gemm_candidates():
    """Chapter 29's --variant all at the sweep's candidate shapes: the stage, every fixed split of both tiles, and
    stream-K (and its hybrid) on both tiles, each against cuBLAS in the same process."""
    rows = [r for r in rows_of(SHAPES / "candidates.csv") if r["chapter"] == "29"]
    shapes = []
    for r in rows:
        if (r["m"], r["n"], r["k"]) not in shapes:
            shapes.append((r["m"], r["n"], r["k"]))
    assert all(r["check"] == "ok" for r in rows)
    out = ["| M × N × K | stage's plan | stage | `splitk-64x128-s2` | `splitk-64x128-s4` | `splitk-64x128-s8` | "
           "best 128 × 256 split | `stream-k` / `dp-stream-k` | `stream-k-64x128` / `dp-stream-k-64x128` |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    ahead = []
    for shape in shapes:
        v = {r["variant"]: r for r in rows if (r["m"], r["n"], r["k"]) == shape}
        x = {name: float(r["ratio_to_cublas"]) for name, r in v.items()}
        big = max((name for name in x if name.startswith("splitk-128x256-")), key=x.get)
        stage = x["sgemm-split-k"]
        out.append(f"| {shape[0]} × {shape[1]} × {shape[2]} | {short_plan(v['sgemm-split-k']['plan'])} | "
                   f"**{stage:.3f}** | {x['splitk-64x128-s2']:.3f} | {x['splitk-64x128-s4']:.3f} | "
                   f"{x['splitk-64x128-s8']:.3f} | {x[big]:.3f} (s{big.rsplit('-s', 1)[1]}) | "
                   f"{x['stream-k']:.3f} / {x['dp-stream-k']:.3f} | "
                   f"{x['stream-k-64x128']:.3f} / {x['dp-stream-k-64x128']:.3f} |")
        if max(x["stream-k-64x128"], x["dp-stream-k-64x128"]) > stage:
            ahead.append(f"{shape[0]} × {shape[1]} × {shape[2]}")
    out.append("")
    out.append(f"Ratios to cuBLAS in the same process; every check `ok`. Stream-K on the 64 × 128 tile (either "
               f"variant) ahead of the stage at {len(ahead)} of these {len(shapes)} shapes"
               + (": " + ", ".join(ahead) if ahead else "") + ".")
    out.append(screens_provenance("`shape_sweep.py` (chapter 29 `--variant all` at these shapes)",
                                  "shapes/candidates.csv"))
    return "\n".join(out)


# Chapter 28's calibration: the first GPU run of chapters 27-29 (commit 03ce2f5, 2026-11-25), kept in chapter 29's
# results/ beside the code it measured; the model's constants in shape_model.hpp were fitted from its candidates.csv.
ROOT = HERE.parents[3]
CALIBRATION = ROOT / "chapters" / "29-sgemm-split-k" / "results" / "h100-03ce2f5"
CALIBRATION_RAW = "../29-sgemm-split-k/results/h100-03ce2f5/candidates.csv"  # from chapter 28's README
SHAPE_MODEL = ROOT / "chapters" / "28-sgemm-tile-by-shape" / "shape_model.hpp"
# The five tile candidates of that commit (its chapters/28-sgemm-tile-by-shape/sgemm_tile_by_shape.cuh): block_m,
# block_n, slice depth block_k, pipeline stages, threads per block. The code's dimensions, not measurements; the
# blocks per SM come from the run (the occupancy calculator, printed in each plan).
CALIBRATION_TILES = {"128x256": (128, 256, 16, 3, 256), "64x128": (64, 128, 16, 3, 128),
                     "128x128": (128, 128, 16, 3, 256), "96x128": (96, 128, 24, 3, 192),
                     "192x128": (192, 128, 24, 3, 192)}
CALIBRATION_KEPT = ["128x256", "64x128"]  # the candidates the code has since; the others were dropped


def run_banner(raw_dir, glob):
    """The GPU, its SM count, FP32 peak (GFLOP/s), DRAM peak (GB/s) and CUDA runtime the programs printed in their
    banner, the same in every output under RAW_DIR that matches GLOB."""
    found = set()
    for f in sorted(raw_dir.glob(glob)):
        text = f.read_text()
        gpu = re.search(r"^GPU 0: (.*?) \(compute capability [\d.]+, (\d+) SMs", text, re.M)
        fp32 = re.search(r"^FP32 peak: .* = ([\d.]+) GFLOP/s$", text, re.M)
        dram = re.search(r" = ([\d.]+) GB/s theoretical peak$", text, re.M)
        cuda = re.search(r"^driver [\d.]+, runtime ([\d.]+)$", text, re.M)
        if not (gpu and fp32 and dram and cuda):
            raise SystemExit(f"tables.py: no full banner in {f}")
        found.add((gpu.group(1), int(gpu.group(2)), float(fp32.group(1)), float(dram.group(1)), cuda.group(1)))
    if len(found) != 1:
        raise SystemExit(f"tables.py: {len(found)} different banners under {raw_dir}/{glob}")
    return found.pop()


def shape_model_constants():
    """The model's constants as chapter 28's shape_model.hpp holds them: {'128x256': (full, single), ...} and the
    named doubles (kLaunchSeconds, kReductionDramShare, ...)."""
    text = SHAPE_MODEL.read_text()
    eff = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in
           re.finditer(r"constexpr TileEfficiency kEfficiency(\d+x\d+)\{([\d.]+), ([\d.]+)\};", text)}
    doubles = {m.group(1): float(m.group(2)) for m in re.finditer(r"constexpr double (\w+) = ([\d.e+-]+);", text)}
    if sorted(eff) != sorted(CALIBRATION_KEPT) or not {"kLaunchSeconds", "kReductionDramShare"} <= set(doubles):
        raise SystemExit(f"tables.py: {SHAPE_MODEL} no longer holds the constants the calibration table reads")
    return eff, doubles


def gemm28_calibration():
    """Chapter 28's "Calibration": for each tile candidate of the first H100 run (03ce2f5) at each of its 5 shapes,
    the efficiency its measured time implies under the README's model (time at efficiency 1 / measured time);
    the constants shape_model.hpp holds beside them, checked to be the means it was fitted as; how well they predict
    the 25 measured times of the kept tiles; and the two lessons of the dropped tiles, from the same numbers."""
    gpu, sms, peak, dram, cuda = run_banner(CALIBRATION / "raw", "2[89]-*-all.txt")
    sm_macs = peak * 1e9 / 2 / sms  # multiply-adds per second of one SM at the FP32 peak
    rows = [r for r in rows_of(CALIBRATION / "candidates.csv") if r["check"] == "ok"]
    assert len(rows) == len(rows_of(CALIBRATION / "candidates.csv"))
    shapes = []
    for r in rows:
        if (int(r["m"]), int(r["n"]), int(r["k"])) not in shapes:
            shapes.append((int(r["m"]), int(r["n"]), int(r["k"])))
    v = {(int(r["m"]), int(r["n"]), int(r["k"]), r["chapter"], r["variant"]): r for r in rows}
    fit = {}  # blocks per SM of each tile kernel, as the run's occupancy calculator gave them (its plan lines)
    for (m, n, k, ch, name), r in v.items():
        if ch == "28" and name.startswith("tile-"):
            b = int(re.search(r"\((\d+) blocks?/SM\)", r["plan"]).group(1))
            assert fit.setdefault(name[5:], b) == b
    assert sorted(fit) == sorted(CALIBRATION_TILES)

    def busiest(tile, m, n, k, splits=1):
        """Blocks on the busiest SM and the multiply-adds it runs, as the model counts them (shape_model.hpp's
        predict(), the README's model table): q = ceil(blocks / SMs), each block BM x BN x (K' + S x BK), K' the
        whole slices of one split, ceil(K / BK) x BK (K itself where BK divides it: every kept tile here)."""
        bm, bn, bk, stages, _ = CALIBRATION_TILES[tile]
        q = -(-(-(-m // bm)) * (-(-n // bn)) * splits // sms)
        return q, q * bm * bn * (-(-k // bk) * bk + stages * bk)

    eff = {}  # (tile, shape) -> (q, efficiency)
    for tile in CALIBRATION_TILES:
        for m, n, k in shapes:
            q, macs = busiest(tile, m, n, k)
            eff[tile, (m, n, k)] = q, macs / sm_macs / (float(v[m, n, k, "28", f"tile-{tile}"]["median_ms"]) * 1e-3)
    constants, doubles = shape_model_constants()

    def label(s):
        return f"{s[0]}³" if s[0] == s[1] == s[2] else f"{s[0]} × {s[1]} × {s[2]}"

    def shown_const(x):  # as the header writes it (0.55, 0.727)
        return repr(x)

    # the fit: a full SM's rate is the mean where the busiest SM holds as many blocks at a time as fit, one block's
    # where it holds one (128 x 256 fits one per SM: both are the mean over the 5 shapes); the header holds them rounded
    for tile in CALIBRATION_KEPT:
        for which, keep in (("full", lambda q: min(q, fit[tile]) == fit[tile]),
                            ("single", lambda q: min(q, fit[tile]) == 1)):
            xs = [e for (t, _), (q, e) in eff.items() if t == tile and keep(q)]
            held = constants[tile][which == "single"]
            digits = len(shown_const(held).split(".")[1])
            claim(xs and round(sum(xs) / len(xs), digits) == held,
                  f"shape_model.hpp's {tile} efficiency.{which} ({held}) is the mean of its {len(xs)} measured ones",
                  28)
    fastest = {s: min(CALIBRATION_TILES, key=lambda t: float(v[s + ("28", f"tile-{t}")]["median_ms"])) for s in shapes}
    claim(set(fastest.values()) <= set(CALIBRATION_KEPT), "the dropped tiles are never the fastest", 28)

    out = ["| candidate | blocks/SM (H100) | " + " | ".join(label(s) for s in shapes) + " | fitted |",
           "|---|---:|" + "---:|" * len(shapes) + "---|"]
    for tile in CALIBRATION_KEPT + [t for t in CALIBRATION_TILES if t not in CALIBRATION_KEPT]:
        if tile in CALIBRATION_KEPT:
            full, single = constants[tile]
            fitted = (f"`e` {shown_const(full)}" if full == single else
                      f"`e_full` {shown_const(full)}, `e_single` {shown_const(single)}")
        else:
            fitted = "never fastest"
        cells = [f"{e:.3f} (q {q})" for q, e in (eff[tile, s] for s in shapes)]
        dropped = "" if tile in CALIBRATION_KEPT else " (dropped)"
        out.append(f"| `tile-{tile}`{dropped} | {fit[tile]} | " + " | ".join(cells) + f" | {fitted} |")
    out.append("")
    out.append(f"Cells: the efficiency (share of the FP32 peak) and q, the blocks on the busiest SM. `fitted`: the "
               f"constants of `shape_model.hpp`; for a kept tile, the mean of its efficiencies where r = min(q, b) "
               f"is b, the blocks per SM (`e_full`), and where r is 1 (`e_single`), rounded.")
    out.append(f"{gpu} ({sms} SMs), CUDA {cuda}, 2026-11-25; commit 03ce2f5, `shape_sweep.py` (chapter 28's and 29's "
               f"`--variant all` at these {len(shapes)} shapes), [raw]({CALIBRATION_RAW}).")

    # how well the constants predict the 25 measured times of the kept tiles: no split (chapter 28) and every fixed
    # split of 128 x 256 (chapter 29), with the reduction as shape_model.hpp's predict() adds it (beta != 0)
    errors = []
    for (m, n, k, ch, name), r in v.items():
        split = re.fullmatch(r"splitk-(\d+x\d+)-s(\d+)", name)
        tile, splits = (name[5:], 1) if ch == "28" and name.startswith("tile-") else \
            (split.group(1), int(split.group(2))) if split else (None, 0)
        if tile not in CALIBRATION_KEPT:
            continue
        bk = CALIBRATION_TILES[tile][2]
        slices = -(-k // bk)
        per = -(-slices // splits)
        q, macs = busiest(tile, m, n, per * bk if splits > 1 else k, -(-slices // per))
        b = int(re.search(r"\((\d+) blocks?/SM\)", r["plan"]).group(1))
        full, single = constants[tile]
        resident = min(q, b)
        rate = full if fit[tile] <= 1 or resident >= fit[tile] else \
            single + (resident - 1) / (fit[tile] - 1) * (full - single)
        seconds = macs / (rate * sm_macs)
        if splits > 1:
            seconds += ((splits + 2) * m * n * 4 / (doubles["kReductionDramShare"] * dram * 1e9)
                        + doubles["kLaunchSeconds"])
        errors.append((abs(seconds / (float(r["median_ms"]) * 1e-3) - 1), splits))
    worst = max(e for e, _ in errors)
    out.append("")
    out.append(f"With these constants the model predicts all {len(errors)} measured times of the two kept tiles (no "
               f"split and {', '.join(str(s) for s in sorted({s for _, s in errors if s > 1}))} splits) within "
               f"{math.ceil(100 * worst)}% (`test_shape_model.cpp`, \"the fit\"). Two lessons of the dropped ones:")

    # the lessons, each number from the table above; each 3/4 tile is paired with the 128-wide tile of the same
    # thread tile (192 x 128 with 128 x 256: 16 x 8 outputs per thread; 96 x 128 with 128 x 128: 8 x 8; 03ce2f5's
    # sgemm_tile_by_shape.cuh)
    def waves(tile, s):  # blocks / (SMs x blocks per SM): the first model's unit
        bm, bn = CALIBRATION_TILES[tile][:2]
        return -(-s[0] // bm) * -(-s[1] // bn) / (sms * fit[tile])

    def t(tile, s):
        return float(v[s + ("28", f"tile-{tile}")]["median_ms"])

    cube = (3072, 3072, 3072)
    pairs = [("192x128", "128x256"), ("96x128", "128x128")]
    claim(all(round(waves(a, cube), 2) == round(waves(pairs[0][0], cube), 2) for a, _ in pairs) and
          all(round(waves(b, cube), 2) == round(waves(pairs[0][1], cube), 2) for _, b in pairs),
          "3072³ falls into the same waves for both 3/4 tiles, and for both 128-wide ones", 28)
    full_gpu = [s for s in shapes if all(eff[tile, s][0] > 1 for tile in CALIBRATION_TILES)]  # every SM busy
    claim(all(eff[a, s][1] < eff[b, s][1] for a, b in pairs for s in shapes), "the 3/4 tiles are the slower", 28)
    chose = v[cube + ("28", "sgemm-tile-by-shape")]
    claim(chose["plan"].startswith("192x128 tiles"), "the first model picked 192 x 128 at 3072³", 28)
    both = " and ".join(label(s) for s in full_gpu)

    def at_full(tile):
        return " and ".join(f"{eff[tile, s][1]:.3f}" for s in full_gpu)

    out.append("")
    out.append(f"- **A 3/4-size wave does not help if the tile is slower.** 192 × 128 and 96 × 128 "
               f"({CALIBRATION_TILES['192x128'][4]} threads, {CALIBRATION_TILES['192x128'][2]}-deep slices) were added "
               f"to make 3072³ fall into {waves('192x128', cube):.2f} waves instead of {waves('128x256', cube):.2f}. "
               f"The first model assumed they ran as fast as the 128-wide tiles with the same thread tile; measured "
               f"on a full GPU ({both}), 192 × 128 reaches {at_full('192x128')} of peak against 128 × 256's "
               f"{at_full('128x256')}, and 96 × 128 {at_full('96x128')} against 128 × 128's "
               f"{at_full('128x128')}. The model picked 192 × 128 at 3072³ and ran at "
               f"{float(chose['ratio_to_cublas']):.3f}× cuBLAS.")
    # 64 x 128 against 128 x 256: the same accumulators per SM; the same rate on a full GPU
    small, big, mid = "64x128", "128x256", "128x128"
    acc = {x: CALIBRATION_TILES[x][0] * CALIBRATION_TILES[x][1] * fit[x] for x in (small, big)}
    claim(acc[small] == acc[big], "64 x 128 holds as many accumulators per SM as 128 x 256", 28)
    last = full_gpu[-1]
    claim(abs(eff[small, last][1] - eff[big, last][1]) < 0.005, f"64 x 128 runs as fast as 128 x 256 at {label(last)}",
          28)
    between = [s for s in shapes if min(t(small, s), t(big, s)) < t(mid, s) < max(t(small, s), t(big, s))]
    behind = [s for s in shapes if t(mid, s) > max(t(small, s), t(big, s))]
    claim(len(between) + len(behind) == len(shapes), "128 x 128 is never the fastest of the three", 28)
    area = {x: CALIBRATION_TILES[x][0] * CALIBRATION_TILES[x][1] for x in (small, big)}
    quarter = area[small] / area[big]
    out.append(f"- **Small blocks quantise finer.** 64 × 128 at {fit[small]} blocks per SM holds as many accumulators "
               f"per SM as 128 × 256 ({acc[big]}), so on a full GPU it runs as fast ({eff[small, last][1]:.3f} vs "
               f"{eff[big, last][1]:.3f} at {label(last)}), and where blocks are few each block is "
               f"{'a quarter' if quarter == 0.25 else f'{quarter:g}'} of the work. 128 × 128 at {fit[mid]} per SM "
               f"takes a time between the two at {len(between)} of the {len(shapes)} shapes"
               + (f", behind both at {', '.join(label(s) for s in behind)} ("
                  + ", ".join(f"{eff[mid, s][1]:.3f} of peak" for s in behind) + ")" if behind else "")
               + ", and never wins.")
    return "\n".join(out)


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
    d = SCREENS
    parts = []
    for n in (8192, 16384):
        parts.append(f"N = {n}, 1 GiB batch:\n\n" + program_table(d / f"c36-all-n{n}.txt", None))
    parts.append(screens_provenance("`--variant all --size 2^27 --budget-ms 200` (`c36-all-n8192.txt`, "
                                    "`c36-all-n16384.txt`)"))
    return "\n\n".join(parts)


def fft37():
    d = SCREENS
    parts = []
    for n in (32768, 65536):
        parts.append(f"N = {n}, 1 GiB batch:\n\n" + program_table(d / f"c37-all-n{n}.txt", None))
    text = open(d / "c37-all-n32768.txt").read()
    residency = text[text.index("Clusters resident"):].strip()
    parts.append("The program's residency table (the same in both runs):\n\n```\n" + residency + "\n```")
    parts.append(screens_provenance("`--variant all --budget-ms 200` (`c37-all-n32768.txt`, `c37-all-n65536.txt`)"))
    return "\n\n".join(parts)


def ncu_fft():
    """The FFT ladder under tools/ncu-compare (timed run only): one row per chapter, chapter 31's ten passes summed."""
    rows = rows_of(NCU_FFT / "ncu-fft.csv")
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
    out.append(provenance("working tree of commit 1e91d85, `tools/ncu-compare --preset fft --chapters 30-37` "
                          "(2^24 elements, N = 1024, `--clock-control none`; every launch of the timed run, summed per "
                          "chapter)", "../../docs/results/raw/2026-11-27-h100/ncu-fft-1e91d85/ncu-fft.txt",
                          date="2026-11-27"))
    return "\n".join(out)


def fft_screen(name, lengths, keep, what):
    """A README's first table: the stage, the previous stage, cuFFT and the copy from the --variant all runs."""
    parts = [f"N = {n}, 1 GiB batch:\n\n" + program_table(SCREENS / name.format(n=n), keep) for n in lengths]
    files = " and ".join(f"`{name.format(n=n)}`" for n in lengths)
    parts.append(screens_provenance(f"{what} in {files}"))
    return "\n\n".join(parts)


def fft36_screen():
    return fft_screen("c36-all-n{n}.txt", (8192, 16384),
                      {"cudaMemcpy", "fft-one-block-large", "fft-tuned", "cufft"},
                      "`--variant all --size 2^27 --budget-ms 200` (the stage, chapter 35's and the references)")


def fft37_screen():
    return fft_screen("c37-all-n{n}.txt", (32768, 65536),
                      {"cudaMemcpy", "fft-thread-block-cluster", "fft-one-block-large", "cufft"},
                      "`--variant all --budget-ms 200` (the stage, chapter 36's and the references)")


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
    d = SCREENS
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
    out.append(screens_provenance("chapter 38 `--variant all --budget-ms 150` at each length (`c38-all-n<N>.txt`)"))
    return "\n".join(out)


SWEEP_SHAPES = [(256, 256, 256), (512, 512, 512), (768, 768, 768), (1000, 1000, 1000), (1024, 1024, 1024),
                (1536, 1536, 1536), (2048, 2048, 2048), (2500, 2500, 2500), (3072, 3072, 3072), (4096, 4096, 4096),
                (5000, 5000, 5000), (6144, 6144, 6144), (8192, 8192, 8192), (4096, 4096, 256), (8192, 8192, 1024),
                (128, 4096, 4096), (4096, 128, 4096), (1024, 1024, 16384), (256, 256, 65536), (1000, 3000, 700),
                (64, 8192, 8192), (2048, 512, 8192), (3000, 1000, 2000), (1, 4096, 4096), (4096, 4096, 1)]


def gemm_stream_k():
    """Split-K (the stage) against stream-K and its hybrid over the 25 shapes: the sweep's chapter 29 process at
    each shape times the three and cuBLAS."""
    rows = rows_of(SHAPES / "shapes.csv")
    assert [(int(r["m"]), int(r["n"]), int(r["k"])) for r in rows] == SWEEP_SHAPES
    columns = {"sgemm-split-k": "29", "stream-k": "stream_k", "dp-stream-k": "dp_stream_k"}
    out = ["| M × N × K | 29 split-K stage / cuBLAS | stream-K / cuBLAS | data-parallel + stream-K / cuBLAS | "
           "tiles (128 × 256) | waves on 132 SMs |", "|---|---:|---:|---:|---:|---:|"]
    logs = {v: [] for v in columns}
    wins = []
    for r in rows:
        m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
        ratios = {v: float(r[f"ratio_{c}"]) for v, c in columns.items()}
        assert all(r[f"check_{c}"] == "ok" for c in columns.values())
        for v in columns:
            logs[v].append(math.log(ratios[v]))
        tiles = -(-m // 128) * -(-n // 256)
        lead = max(ratios["stream-k"], ratios["dp-stream-k"]) / ratios["sgemm-split-k"] - 1
        if lead > 0:
            wins.append((f"{m} × {n} × {k}", short_plan(r["choice_29"]), lead, tiles / 132))
        out.append(f"| {m} × {n} × {k} | {ratios['sgemm-split-k']:.3f} | {ratios['stream-k']:.3f} | "
                   f"{ratios['dp-stream-k']:.3f} | {tiles} | {tiles / 132:.2f} |")
    geo = {v: math.exp(sum(l) / len(l)) for v, l in logs.items()}
    out.append(f"| geometric mean | **{geo['sgemm-split-k']:.3f}** | **{geo['stream-k']:.3f}** | "
               f"**{geo['dp-stream-k']:.3f}** | | |")
    out.append("")
    # The README's prose after this table: every shape where stream-K leads has more than one wave of 128 x 256
    # tiles, and the leads are within 3% but the largest, at 2500^3.
    if not all(waves > 1 for *_, waves in wins):
        raise SystemExit("tables.py: chapter 29's text no longer holds: stream-K leads only past one wave")
    leads = sorted(wins, key=lambda w: w[2])
    if leads and (leads[-1][0] != "2500 × 2500 × 2500" or any(w[2] >= 0.03 for w in leads[:-1])):
        raise SystemExit("tables.py: chapter 29's text no longer holds: stream-K's leads within 3% but at 2500³")
    out.append(f"Stream-K or its hybrid ahead of the split-K stage at {len(wins)} of {len(SWEEP_SHAPES)} shapes"
               + (", each past one wave of 128 × 256 tiles (beside each, the stage's plan and the faster stream-K "
                  "variant's lead): " + ", ".join(f"{s} ({plan}; +{100 * lead:.1f}%)" for s, plan, lead, _ in wins) if wins else "")
               + ". Every check `ok` (against cuBLAS above 2^30 multiply-adds, the CPU below).")
    out.append(SHAPES_PROVENANCE)
    return "\n".join(out)


def scan18_targets():
    """Chapter 18's stage against CUB and the copy for the int32, int64 and float sums at 2^28 and
    2^30, from measure.sh's runs."""
    m = SCREENS / "ch18"
    out = ["| type, operator, n | stage % of `cudaMemcpy` | CUB % of `cudaMemcpy` | stage vs CUB | bound on the ratio "
           "(100 / CUB's %) |", "|---|---:|---:|---:|---:|"]
    for t in ("int32", "int64", "float"):
        for size in ("2^28", "2^30"):
            v = by_variant(m / f"types-{t}-sum-{size.replace('^', 'p')}.csv")
            stage, cub = v["scan-copy-bound"], v["cub"]
            assert stage["check"] == cub["check"] == "ok"
            out.append(vs_cub_row(f"{t} sum, {size}", pct(stage["pct_memcpy"]), pct(cub["pct_memcpy"]),
                                  ratio(stage["speed_vs_ref"])))
            bound = 100.0 / float(cub["pct_memcpy"])
            if t != "int32":  # the first screen: the float and int64 sums trail CUB; the float sum sits further
                # below the copy than CUB; CUB's int64 sum is close to the copy
                claim(float(stage["speed_vs_ref"]) < 1.0, f"the {t} sum trails CUB at {size}", 18)
                claim(t != "float" or float(stage["pct_memcpy"]) < float(cub["pct_memcpy"]),
                      f"the float sum sits further below the copy than CUB at {size}", 18)
                claim(t != "int64" or bound < 1.15, f"CUB's int64 sum is close to the copy at {size}", 18)
    out.append("")
    out.append(screens_provenance("chapter 18's `measure.sh`, `--budget-ms 400`", "ch18/"))
    return "\n".join(out)


def scan18_timeline_numbers():
    """Chapter 18's per-tile timeline of the int32 sum at 2^28 (the screens run): the phase means, the span, the tail,
    the tiles in flight, and the same run's table rows (the timeline variant, CUB, the copy)."""
    path = SCREENS / "ch18" / "timeline-int32-sum-2p28.txt"
    text = path.read_text()

    def num(pattern):
        m = re.search(pattern, text)
        if not m:
            raise SystemExit(f"{path.name}: no match for {pattern!r}")
        return float(m.group(1))

    t = {"phases": [(name, num(rf"{re.escape(name)} ([\d.]+) ns")) for name in
                    ("land", "pass 1", "look-back wait", "pass 2 + stores")],
         "tile": num(r"tile time ([\d.]+) ns"), "tiles": int(num(r"(\d+) tiles of")),
         "span": num(r"span \(first claim to last store\) ([\d.]+) us"),
         "tail": num(r"tail \(last claim to last store\) ([\d.]+) us"),
         "in_flight": num(r"tiles in flight on average ([\d.]+)"),
         "look_share": num(r"look-back share of tile time ([\d.]+)%"),
         "tail_share": num(r"tail share of span ([\d.]+)%"),
         "sms": int(num(r"(\d+) SMs")), "rows": program_rows(path)}
    # the program's own summary must agree with its means (it prints both)
    assert abs(100 * dict(t["phases"])["look-back wait"] / t["tile"] - t["look_share"]) < 0.05
    t["gap"] = 100 * (1 - float(t["rows"]["cudaMemcpy"]["median ms"])
                      / float(t["rows"]["copy-bound-timeline"]["median ms"]))
    return t


TIMELINE_PROVENANCE = screens_provenance(
    "chapter 18's `measure.sh`, `--type int32 --op sum --size 2^28 --variant copy-bound-timeline --reps 3`",
    "ch18/timeline-int32-sum-2p28.txt")


def scan18_timeline():
    """The timeline as a table, and what it says about the model's three terms."""
    t = scan18_timeline_numbers()
    r = t["rows"]
    share = {name: 100 * ns / t["tile"] for name, ns in t["phases"]}
    out = ["| phase of a tile (mean over its 17,477 tiles) | ns | share of the tile's time |".replace(
               "17,477", f"{t['tiles']:,}"), "|---|---:|---:|"]
    for name, ns in t["phases"]:
        out.append(f"| {name}{' (loads in flight)' if name == 'land' else ''} | {ns:.1f} | {share[name]:.1f}% |")
    out.append(f"| the tile, claim to last store | {t['tile']:.1f} | 100% |")
    out.append("")
    slots = 6 * t["sms"]
    landing = t["in_flight"] * share["land"] / 100
    out.append(f"Span (first claim to last store) {t['span']:.1f} µs; tail (last claim to last store) {t['tail']:.1f} µs, "
               f"**{t['tail_share']:.1f}% of the span**; tiles in flight on average {t['in_flight']:.1f} of the "
               f"{slots} slots (6 blocks × {t['sms']} SMs). The same run's table: the timeline variant at "
               f"{r['copy-bound-timeline']['% memcpy']}% of `cudaMemcpy` and {r['copy-bound-timeline']['speed vs cub']} "
               f"CUB (CUB at {r['cub']['% memcpy']}%): the copy took {t['gap']:.1f}% less time than the scan. The "
               f"timeline variant is the stage plus its stamps and one extra barrier per tile.")
    out.append("")
    out.append(f"What it says, term by term. **The tail** ({t['tail_share']:.1f}% of the span) is lost directly: "
               f"about {100 * t['tail_share'] / t['gap']:.0f}% of the gap to the copy. **The look-back wait** is "
               f"the largest phase, {share['look-back wait']:.1f}% of a tile's life, against {share['land']:.1f}% "
               f"with loads in flight; but other blocks keep loading while one waits: on average "
               f"{landing:.0f} of the {t['in_flight']:.0f} tiles in flight are landing loads, up to "
               f"{landing * 60 / 1024:.1f} MiB (60 KiB a tile) outstanding over the GPU, about "
               f"{landing * 60 / t['sms']:.0f} KiB per SM on average: the 360 KiB per SM of chapter 17 is the "
               f"landing zone's capacity (6 tiles of 60 KiB), reached only while all six blocks land at once. "
               f"Terms 1 and 2 are upper bounds (they cost "
               f"bandwidth only when those bytes fall below what DRAM needs), and the steps that cut them "
               f"(bulk copies, larger tiles with fewer look-backs per byte) did not beat the run-to-run spread, so "
               f"the wait mostly overlaps other blocks' loads. The rest of the gap, "
               f"{t['gap'] - t['tail_share']:.1f} points beyond the tail, is what terms 1 and 2 cost together at "
               f"most; the timeline's means do not split it further.")
    out.append("")
    out.append(TIMELINE_PROVENANCE)
    return "\n".join(out)


def scan18_timeline_screen():
    """Chapter 18's first screen: where the time went, in two sentences from the timeline."""
    t = scan18_timeline_numbers()
    return (f"**Where the time went** (the per-tile timeline, `--variant copy-bound-timeline`, int32 sum at 2^28: "
            f"\"Where the time goes\" below): a tile spends **{t['look_share']:.1f}%** of its life waiting in the "
            f"look-back, yet other blocks keep loading meanwhile ({t['in_flight']:.0f} tiles in flight on average); "
            f"the end of the grid, where fewer tiles are left than slots, costs **{t['tail_share']:.1f}%** of the "
            f"span. " + TIMELINE_PROVENANCE)


def multi_gpu_stage_choice():
    """Chapter 40 on one GPU: each shard scanned with chapter 17's stage (the default) and with chapter 18's."""
    d = SCREENS
    out = ["| n (`int32`, 1 GPU) | `cudaMemcpy` ms | `scan-multi-gpu` (chapter 17's stage) ms | % of `cudaMemcpy` | "
           "`scan-multi-gpu-copy-bound` (chapter 18's) ms | % of `cudaMemcpy` | 18's vs 17's |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    ratios, inside = [], True
    for size in ("2^28", "2^30"):
        r = program_rows(d / f"c40-{size.replace('^', 'p')}.txt")
        a, b = r["scan-multi-gpu"], r["scan-multi-gpu-copy-bound"]
        assert a["check"] == b["check"] == "ok"
        ratios.append(float(b["speed vs scan-multi-gpu"].rstrip("x")))
        inside &= float(a["min ms"]) <= float(b["median ms"]) <= float(a["max ms"])
        out.append(f"| {size} | {r['cudaMemcpy']['median ms']} | {a['median ms']} | {a['% memcpy']} | "
                   f"{b['median ms']} | {b['% memcpy']} | {b['speed vs scan-multi-gpu']} |")
    out.append("")
    # the README's "no faster" (its idea paragraph and "Options"): slower, or inside chapter 17's spread
    claim(inside or max(ratios) <= 1.0, "chapter 18's stage is no faster on one GPU")
    if inside:
        verdict = (f"chapter 18's stage runs at {min(ratios):.3f}x to {max(ratios):.3f}x chapter 17's speed, its "
                   f"median inside the min-to-max spread of chapter 17's repetitions at both sizes: no faster beyond "
                   f"the spread.")
    else:
        verdict = ("chapter 18's stage is not faster here" if max(ratios) <= 1.0
                   else "chapter 18's stage is faster at " + ", ".join(f"{x:.3f}x" for x in ratios if x > 1.0))
        verdict += (f" ({min(ratios):.3f}x to {max(ratios):.3f}x chapter 17's speed; 18's median outside the "
                    f"min-to-max spread of chapter 17's repetitions).")
    out.append(f"Both rows of one program run per size, every check `ok`: {verdict}")
    out.append(screens_provenance("`--size 2^28` and `--size 2^30`, `--gpus 1 --variant all --budget-ms 300`",
                                  "c40-2p30.txt"))
    return "\n".join(out)


# ---- Chapter 40 on 2 x H200 of one host (../2026-11-27-h200x2/multigpu/, commit 266c73c) ---------------------
H200X2 = HERE.parent / "2026-11-27-h200x2"
MULTI = H200X2 / "multigpu"
MULTI_LINK = "../../docs/results/raw/2026-11-27-h200x2/multigpu/"


def claim(holds, sentence, chapter=40):
    """A README sentence that interprets the numbers; stop rather than write it when the numbers say otherwise."""
    if not holds:
        raise SystemExit(f"tables.py: chapter {chapter}'s text no longer holds: {sentence}")


def pow2(expr):
    """'2^30' or '3*2^33' as an integer."""
    m = re.fullmatch(r"(?:(\d+)\*)?2\^(\d+)", expr)
    return int(m.group(1) or 1) * 2 ** int(m.group(2)) if m else int(expr)


def shown(expr):
    return expr.replace("*", "·")


def multi_run(name, folder=None):
    """One chapter-40 output (in FOLDER, default MULTI): the variant table (program_rows), the parts table (a dict
    per GPU count; a cell 'A / last B' of an uneven split becomes (A, B)), the timeline's lines and their numbers
    per GPU (every timeline's; "timelines": {GPU count: (lines, numbers)} each apart), the banner."""
    folder = folder or MULTI
    text = (folder / name).read_text()
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith("GPUs ") and "reduce us" in l), None)
    if at is None:
        raise SystemExit(f"tables.py: no parts table in {folder / name}")
    header = re.split(r"\s{2,}", lines[at].strip())
    parts = []
    for line in lines[at + 2:]:
        if not line.strip() or line.startswith("("):
            break
        cells = re.sub(r"(\S+) / last (\S+)", r"\1/last/\2", line).split()
        cells = cells[:len(header) - 1] + [" ".join(cells[len(header) - 1:])]  # check: 'does not fit'
        row = {h: (tuple(c.split("/last/")) if "/last/" in c else c) for h, c in zip(header, cells)}
        parts.append(row)
    timeline = [l.strip() for l in lines if re.match(r"^\s+GPU \d+:", l)]
    timelines, count = {}, None
    for l in lines:
        m = re.match(r"^timeline of one run on (\d+) GPUs", l)
        if m:
            count = int(m.group(1))
            timelines[count] = ([], [])
        elif count and re.match(r"^\s+GPU \d+:", l):
            timelines[count][0].append(l.strip())
            timelines[count][1].append(times_of(l))
    return {"variants": program_rows(folder / name), "parts": {int(r["GPUs"]): r for r in parts},
            "timeline": timeline, "timelines": timelines,
            "times": [times_of(l) for l in timeline],
            "gpu": re.search(r"^GPU 0: (.+?) \(", text, re.M).group(1),
            "cuda": re.search(r"^driver [\d.]+, runtime ([\d.]+)$", text, re.M).group(1),
            "nccl": re.search(r"NCCL ([\d.]+);", text).group(1),
            "nvls": re.search(r"NCCL_NVLS_ENABLE=(\d)", text).group(1)}


def times_of(line):
    """The numbers of one timeline line ('GPU 0:  501.8  518.6 ...'), µs."""
    return [float(x) for x in re.findall(r"[\d.]+", line.split(":", 1)[1].split("(")[0])]


def num(cell):
    """A parts cell as a number: the first GPU's where a split is uneven; None for '-'."""
    cell = cell[0] if isinstance(cell, tuple) else cell
    return None if cell == "-" else float(cell.rstrip("x"))


def multi_machine():
    """Date, commit, --budget-ms (the raw folder's README), link, driver and memory (gpu.txt), topology."""
    readme = (H200X2 / "README.md").read_text()
    gpus = [l.split(", ") for l in (MULTI / "gpu.txt").read_text().splitlines() if l.strip()]
    return {"date": re.search(r"^# .*?(\d{4}-\d{2}-\d{2})", readme).group(1),
            "commit": re.search(r"Code: commit ([0-9a-f]+)", readme).group(1),
            "budget": re.search(r"`multigpu/`.*?--budget-ms (\d+)", readme).group(1),
            "driver": gpus[0][2], "memory": gpus[0][3], "count": len(gpus),
            "link": re.search(r"^GPU0\s+X\s+(\S+)", (MULTI / "topo.txt").read_text(), re.M).group(1)}


STRONG = ("strong-2p30.txt", "strong-2p32-cap150.txt")  # c1.sh: the 2^32 run with a 150 s cap
EVEN = ("weak-2p28.txt",) + STRONG + ("big-3x2p33.txt",)  # every even split on two GPUs, by shard size


def multi_r():
    """r (the reduce's time per element over the scan's, one shard on GPU 0) of every even two-GPU run:
    [(shard, r)], smallest shard first, and the two-GPU bound P / (1 + r) of the largest shard (n large)."""
    rs = []
    for f in EVEN:
        two = multi_run(f)["parts"][2]
        rs.append((two["shard"], num(two["reduce us"]) / num(two["scan us"])))
    rs.sort(key=lambda x: pow2(x[0]))
    claim(all(r < 0.5 for _, r in rs), "a reduce reads faster than a scan copies: r is below 1/2")
    return rs, 2 / (1 + rs[-1][1])


def r_span(rs):
    lo, hi = min(r for _, r in rs), max(r for _, r in rs)
    where = f"one shard of {shown(rs[0][0])} to {shown(rs[-1][0])} elements on GPU 0"
    if f"{lo:.2f}" == f"{hi:.2f}":
        return f"r = {lo:.2f} at every shard size measured ({where})"
    return f"r = {lo:.2f} to {hi:.2f} ({where})"


def multi_idea():
    """Chapter 40's idea paragraph, its measured end: r and the bound it gives on two GPUs."""
    m, (rs, bound) = multi_machine(), multi_r()
    return (f"On two H200s (commit `{m['commit']}`, below) a reduce reads faster than a scan copies: this program's "
            f"parts give {r_span(rs)}, so the bound on two GPUs is {bound:.2f}x as n grows, above the 4/3 of equal "
            f"bandwidth.")


def multi_bound_r():
    """The sentence of "The bound" that puts the measured r into the formula."""
    m, (rs, bound) = multi_machine(), multi_r()
    return (f"A reduce reads faster than a scan copies: on {m['count']} × {multi_run(STRONG[0])['gpu']} (commit "
            f"`{m['commit']}`) this program's own parts give {r_span(rs)}, below 1/2, so the bound is above 2P/3: "
            f"{bound:.2f}x on two GPUs for the largest shard (the measured rows below). More than two GPUs have not "
            f"been measured on that machine: four were measured on another (\"Four GPUs\" below), eight were not lent.")


def multi_scaling():
    """Chapter 40's first table: 1 and 2 GPUs at 2^30 and 2^32, and 3*2^33 on two GPUs only."""
    m = multi_machine()
    run = multi_run(STRONG[0])
    out = [f"{m['count']} × {run['gpu']} of one host (NVLink {m['link']}), CUDA {run['cuda']}, NCCL {run['nccl']}, "
           f"{m['date']}, commit `{m['commit']}`; each row one run of this program, the one-GPU row, the copy and the "
           f"bound measured in the same run (raw: [multigpu/]({MULTI_LINK})):", "",
           "| n `int32` | 1 GPU (chapter 17's scan) | 2 GPUs | speed-up | bound (this run's parts) | share of the bound "
           "| `cudaMemcpy`, 1 GPU | 2 GPUs, % of 2 copies |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for f in STRONG:
        r = multi_run(f)
        v, two = r["variants"], r["parts"][2]
        one, both = v["scan-multi-gpu-1gpu"], v["scan-multi-gpu"]
        assert one["check"] == both["check"] == two["check"] == "ok"
        out.append(f"| {two['n']} | {1000 * float(one['median ms']):.0f} µs | {1000 * float(both['median ms']):.0f} µs | "
                   f"**{num(both['speed vs scan-multi-gpu-1gpu']):.2f}x** | {two['bound vs 1 GPU']} | "
                   f"{two['% of bound']}% | {1000 * float(v['cudaMemcpy']['median ms']):.0f} µs | {both['% memcpy']} |")
    big = multi_run("big-3x2p33.txt")
    b, two = big["variants"]["scan-multi-gpu"], big["parts"][2]
    assert big["parts"][1]["check"] == "does not fit" and two["check"] == "ok"
    gib = pow2(two["n"]) * 4 / 2 ** 30
    out.append(f"| {shown(two['n'])} ({gib:.0f} GiB in + {gib:.0f} GiB out) | does not fit | "
               f"{float(b['median ms']):.1f} ms, {float(b['GB/s']):.0f} GB/s | – | – | {two['% of bound']}% | – | – |")
    return "\n".join(out)


def multi_bound_text():
    """The first screen's sentences under the table: the bound against 4/3 and n large, where the time goes."""
    rs, asym = multi_r()
    runs = [multi_run(f) for f in STRONG]
    speed = [num(r["variants"]["scan-multi-gpu"]["speed vs scan-multi-gpu-1gpu"]) for r in runs]
    # the bound as the program computes it: one GPU's time over the two-GPU bound (its column rounds to 2 digits)
    bound = [num(r["parts"][1]["whole us"]) / num(r["parts"][2]["bound us"]) for r in runs]
    claim(all(b < asym for b in bound), "at these sizes the bound is not yet that of large n")
    claim(all(b > 4 / 3 and s > 4 / 3 for b, s in zip(bound, speed)), "both pass 4/3")
    claim(all(s <= b for b, s in zip(bound, speed)), "without passing their bound")
    two = runs[0]["parts"][2]
    claim(num(two["reduce us"]) > 10 * num(two["exchange us"]), "the reduce, not the collective, is the cost")
    m = multi_machine()
    return (f"The bound column is reduce + exchange + scan of one shard, each timed alone on GPU 0 in the same run "
            f"({m['count']} × {runs[0]['gpu']}, CUDA {runs[0]['cuda']}, {m['date']}, commit `{m['commit']}`): "
            f"at these sizes it is {bound[0]:.2f}x and {bound[1]:.2f}x, not yet the {asym:.2f}x of large n, and above "
            f"the 4/3 of equal bandwidth, which is why both speed-ups ({speed[0]:.2f}x, {speed[1]:.2f}x) pass 4/3 "
            f"without passing their bound. No vendor library scans across GPUs (CUB on one GPU: chapter 17). Two "
            f"GPUs are not 2 times faster because GPU 0 first reduces its shard ({num(two['reduce us']):.0f} µs of "
            f"{num(two['whole us']):.0f} at {two['n']}) while GPU 1 waits; the collective costs "
            f"{num(two['exchange us']):.0f} µs.")


def uneven_runs():
    """{W: run} of the --last-weight runs at 2^30, W = 100 being the even split (strong-2p30.txt)."""
    runs = {100: multi_run(STRONG[0])}
    for f in sorted(MULTI.glob("uneven-w*-2p30.txt")):
        runs[int(re.search(r"-w(\d+)-", f.name).group(1))] = multi_run(f.name)
    return dict(sorted(runs.items()))


def multi_parts():
    """Chapter 40's "The bound" measurements: the strong and weak scaling, 3*2^33, the collective, the
    timeline, r, and four and eight GPUs on paper."""
    m = multi_machine()
    strong = [multi_run(f) for f in STRONG]
    weak, big = multi_run("weak-2p28.txt"), multi_run("big-3x2p33.txt")
    out = [f"Measured on {m['count']} × {strong[0]['gpu']} of one host ({m['memory']} each, NVLink {m['link']} between "
           f"them, `nvidia-smi topo -m`), driver {m['driver']}, CUDA {strong[0]['cuda']}, NCCL {strong[0]['nccl']} "
           f"(the system package), `NCCL_NVLS_ENABLE={strong[0]['nvls']}`, {m['date']}, commit `{m['commit']}`; "
           f"`--budget-ms {m['budget']}`. Raw: [strong-2p30.txt]({MULTI_LINK}strong-2p30.txt), "
           f"[strong-2p32-cap150.txt]({MULTI_LINK}strong-2p32-cap150.txt), [weak-2p28.txt]({MULTI_LINK}weak-2p28.txt), "
           f"[big-3x2p33.txt]({MULTI_LINK}big-3x2p33.txt).", "",
           "**Strong scaling** (the same n on 1 and 2 GPUs):", "",
           "| GPUs | n | shard | reduce µs | exchange µs | scan µs | bound µs | whole µs | % of bound | GB/s per GPU | "
           "GB/s total | vs 1 GPU | bound vs 1 GPU |", "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    cols = ["GPUs", "n", "shard", "reduce us", "exchange us", "scan us", "bound us", "whole us", "% of bound",
            "GB/s/GPU", "GB/s total", "vs 1 GPU", "bound vs 1 GPU"]
    for run in strong:
        for p in (1, 2):
            assert run["parts"][p]["check"] == "ok"
            out.append("| " + " | ".join(run["parts"][p][c].replace("-", "–") for c in cols) + " |")
    out.append("")
    w1, w2 = weak["parts"][1], weak["parts"][2]
    t1, tb = num(w1["whole us"]), num(w2["bound us"])
    cost, extra = num(w2["whole us"]) / t1, num(w2["reduce us"]) / num(w2["scan us"])
    claim(cost > 1, "doubling the data and the GPUs costs more time")
    out.append(f"**Weak scaling** ({w1['shard']} per GPU): one GPU {w1['whole us']} µs; two GPUs (n = {w2['n']}) "
               f"{w2['whole us']} µs against a bound of {w2['bound us']} µs (reduce {w2['reduce us']}, exchange "
               f"{w2['exchange us']}, scan {w2['scan us']}), {w2['% of bound']}% of it: T1/T2 = {num(w2['T1/T']):.2f}, the "
               f"bound's {t1 / tb:.2f}. Doubling the data and the GPUs costs {cost:.2f} times the time, because the "
               f"reduce adds {100 * extra:.0f}% of a scan's time to GPU 0's share.")
    out.append("")
    b2 = big["parts"][2]
    assert big["parts"][1]["check"] == "does not fit"
    out.append(f"**Past one GPU's memory**: {shown(b2['n'])} elements on two GPUs, {b2['whole us']} µs against a bound "
               f"of {b2['bound us']} µs (reduce {b2['reduce us']}, exchange {b2['exchange us']}, scan {b2['scan us']}): "
               f"{b2['% of bound']}%, {float(b2['GB/s total']):.0f} GB/s in total. One GPU does not hold it (the row "
               f"says so).")
    out.append("")
    every = [multi_run(f)["parts"][2] for f in EVEN] + [r["parts"][2] for w, r in uneven_runs().items() if w != 100]
    ex = [num(p["exchange us"]) for p in every]
    share = [100 * num(r["parts"][2]["exchange us"]) / num(r["parts"][2]["whole us"]) for r in strong]
    out.append(f"**The collective alone** (`ncclAllGather` of one word per GPU and the copy of the totals to the host, "
               f"timed on the host): {min(ex):.1f} to {max(ex):.1f} µs in every two-GPU run, {share[0]:.1f}% of the "
               f"whole at {strong[0]['parts'][2]['n']} and {share[1]:.1f}% at {strong[1]['parts'][2]['n']}. It is "
               f"latency, not bandwidth: {4 * 2} bytes over NVLink.")
    out.append("")
    s0 = strong[0]
    t = s0["times"]
    out.append(f"**The timeline** of one run at {s0['parts'][2]['n']} (µs from each GPU's start: reduce done | totals "
               f"on the host | scan launched | scan done):")
    out += ["", "```"] + s0["timeline"] + ["```", ""]
    claim(t[1][2] > t[0][0], "GPU 1 launches its scan only after GPU 0's reduce")
    rs = [(r["parts"][2], num(r["parts"][2]["reduce us"]) / num(r["parts"][2]["scan us"])) for r in strong]
    largest, asym = multi_r()[0][-1][0], multi_r()[1]
    pct_b = [num(r["parts"][2]["% of bound"]) for r in strong]
    sp = [num(r["parts"][2]["vs 1 GPU"]) for r in strong]
    out.append(f"GPU 1 has nothing to do from {t[1][0]:.0f} µs to {t[1][2]:.0f} µs but wait for GPU 0's total: the idle "
               f"time the bound counts. The measured ratio of reduce to scan time per element, *r*, is "
               + " and ".join(f"{p['reduce us']} / {p['scan us']} = {r:.2f} at {p['shard']} per shard" for p, r in rs)
               + f", so the bound *P / (1 + r)* is {asym:.2f}x on two GPUs as n grows (r of the largest shard, "
               f"{shown(multi_r()[0][-1][0])}), and the measured {sp[0]:.2f}x at {strong[0]['parts'][2]['n']} and "
               f"{sp[1]:.2f}x at {strong[1]['parts'][2]['n']} are {pct_b[0]:.0f}% and {pct_b[1]:.0f}% of the bound the "
               f"program computes with the exchange.")
    out.append("")
    p = strong[1]["parts"]
    one, red, scan, exch = num(p[1]["whole us"]), num(p[2]["reduce us"]), num(p[2]["scan us"]), num(p[2]["exchange us"])
    paper = []
    for g in (4, 8):
        s, rd = scan * 2 / g, red * 2 / g
        paper.append(f"{g} GPUs would take {s:.0f} + {rd:.0f} + {exch:.1f} = {s + rd + exch:.0f} µs, "
                     f"**{one / (s + rd + exch):.1f}x** one GPU's {one:.0f} µs")
    out.append(f"**Four and eight GPUs, on paper** from the same parts (scan and reduce times scaled linearly from the "
               f"{p[2]['shard']} shard, exchange taken as the measured {exch:.1f} µs, which is optimistic: an "
               f"all-gather's latency grows with P): at n = {p[2]['n']}, " + "; ".join(paper) + ".")
    four = multi4_run(STRONG4[1])["parts"][4]
    claim(four["n"] == p[2]["n"], "the four-GPU run has the paper's n")
    again = multi4s_run(STRONG4[1])["parts"][4]
    big = multi4s_run("largest4-2p36.txt")["parts"]
    claim(big[1]["check"] == big[2]["check"] == "does not fit" and big[4]["check"] == "ok",
          "the largest four-GPU size does not fit on one or two GPUs")
    out[-1] += (f" Four GPUs were measured later, on another machine (\"Four GPUs\" below): {four['vs 1 GPU']} at "
                f"{four['n']}, {four['% of bound']}% of that run's own bound ({again['vs 1 GPU']} and "
                f"{again['% of bound']}% in a second run), and {big[4]['n']}, which one or two H200s cannot hold, at "
                f"{big[4]['% of bound']}% of its bound. Eight GPUs were not lent: the eight-GPU figure is a "
                f"prediction, not a measurement.")
    return "\n".join(out)


def multi_uneven():
    """Chapter 40's --last-weight runs at 2^30 against the even split: the table, the verdict, one timeline."""
    runs = uneven_runs()
    m = multi_machine()
    out = [f"Two GPUs at 2^30, same machine and commit as above ({m['count']} × {runs[100]['gpu']}, CUDA "
           f"{runs[100]['cuda']}, {m['date']}, commit `{m['commit']}`; raw: `uneven-w*-2p30.txt` in [multigpu/]({MULTI_LINK}); "
           f"W = 100 is the even split, the strong-scaling row above):", "",
           "| `--last-weight` | shards (other / last) | bound vs 1 GPU | measured vs 1 GPU | % of bound |",
           "|---:|---|---:|---:|---:|"]
    speed = {w: num(r["parts"][2]["vs 1 GPU"]) for w, r in runs.items()}
    best = max(speed, key=speed.get)
    for w, r in runs.items():
        p = r["parts"][2]
        assert p["check"] == "ok"
        other, last = p["shard"] if isinstance(p["shard"], tuple) else (p["shard"], p["shard"])
        cell = f"**{p['vs 1 GPU']}**" if w == best else p["vs 1 GPU"]
        out.append(f"| {w} | {other} / {last} | {p['bound vs 1 GPU']} | {cell} | {p['% of bound']} |")
    out.append("")
    uneven = {w: r for w, r in runs.items() if w != 100}
    slower = all(num(r["parts"][2]["whole us"]) > num(runs[100]["parts"][2]["whole us"]) for r in uneven.values())
    claim(slower, "every uneven split is slower than the even one")
    share = [num(r["parts"][2]["% of bound"]) for r in uneven.values()]
    claim(max(share) < num(runs[100]["parts"][2]["% of bound"]), "further from its bound than the even split")
    r_even = num(runs[100]["parts"][2]["reduce us"]) / num(runs[100]["parts"][2]["scan us"])
    w = min(uneven, key=lambda w: abs(w - 100 * (1 + r_even)))  # the weight nearest the balance 100 (1 + r)
    u, e = uneven[w], runs[100]
    t, te = u["times"], e["times"]
    other, last = (int(x) for x in u["parts"][2]["shard"])
    gap, gap_even = t[1][2] - t[0][0], te[1][2] - te[0][0]
    claim(gap > 2 * gap_even, "with unequal shards the exchange costs more than alone")
    out.append(f"**The prediction fails**: every uneven split is slower than the even one, at {min(share):.1f}–"
               f"{max(share):.1f}% of its own bound. The timelines say where the time goes. At W = {w} (the weight "
               f"nearest 100·(1 + r) = {100 * (1 + r_even):.0f}):")
    out += ["", "```"] + u["timeline"] + ["```", ""]
    out.append(f"GPU 0's reduce ends at {t[0][0]:.0f} µs, but its total reaches the host only at {t[0][1]:.0f} µs, and "
               f"GPU 1's at {t[1][1]:.0f} µs: {gap:.0f} µs from the end of the reduce to the last scan's launch, "
               f"against {gap_even:.0f} µs in the even split ({te[0][0]:.0f} → {te[1][2]:.0f} µs) and the "
               f"{num(u['parts'][2]['exchange us']):.0f} µs the exchange takes alone. The last GPU then scans "
               f"{last / other:.2f} times as much and finishes {t[1][3] - t[0][3]:.0f} µs after GPU 0. The bound "
               f"assumes the exchange costs what it costs alone; with unequal shards it does not, and the program's "
               f"parts do not show why (a guess to test with `nsys`: the all-gather on GPU 1 and the host's ordered "
               f"waits for each GPU's totals no longer overlap as they do when both GPUs reach the collective "
               f"together). So the stage keeps the even split.")
    return "\n".join(out)


# ---- Chapter 40 on 4 x H200 of one host (../2026-11-28-h200x4/, commit d7b050b): another machine than the two-GPU
# runs above (2 x H200, 2026-11-27), so its rows are never mixed into their tables -------------------------------
H200X4 = HERE.parent / "2026-11-28-h200x4"
MULTI4 = H200X4 / "multigpu"
FORMS4 = H200X4 / "forms-x2"
MULTI4_LINK = "../../docs/results/raw/2026-11-28-h200x4/multigpu/"
FORMS4_LINK = "../../docs/results/raw/2026-11-28-h200x4/forms-x2/"
STRONG4 = ("strong4-2p30.txt", "strong4-2p32.txt")


# The second four-GPU run (../2026-11-28-h200x4-s4/multigpu, session 4, commit 1c49e1a, whose chapter 40 is
# d7b050b's): the largest power of two that fits on four GPUs (2^36), the rank form at 2^32, the weight 142, and the
# strong runs again as those rows' same-run comparison. A lent machine of the same kind, not known to be the same
# host: its rows are labelled with their run, and no number of one run is divided by one of the other.
H200X4S4 = HERE.parent / "2026-11-28-h200x4-s4"
MULTI4S = H200X4S4 / "multigpu"
MULTI4S_LINK = "../../docs/results/raw/2026-11-28-h200x4-s4/multigpu/"


def multi4_run(name):
    return multi_run(name, MULTI4)


def multi4s_run(name):
    return multi_run(name, MULTI4S)


def multi4_machine(root=H200X4):
    """Date, commit, --budget-ms (the raw folder's README and commit.txt), driver and memory (gpu.txt), topology, of
    the four-GPU run in ROOT (H200X4, or H200X4S4: its README names commit.txt's commit and says that chapter 40 is
    unchanged since H200X4's)."""
    readme = (root / "README.md").read_text()
    raw = root / "multigpu"
    gpus = [l.split(", ") for l in (raw / "gpu.txt").read_text().splitlines() if l.strip()]
    commit = (raw / "commit.txt").read_text().split()[0]
    if root == H200X4:
        claim(re.search(rf"Code: the working tree of commit {commit}\b", readme), "the raw README names commit.txt's commit")
    else:
        first = multi4_machine()["commit"]
        claim(re.search(rf"Code: commit {commit} \(chapter 40\s+unchanged since {first}\b", readme),
              "the second four-GPU run's README names commit.txt's commit and chapter 40 as the first run's")
    links = set(re.findall(r"^GPU\d\s+(.*?)\s+\d+-\d+\s", (raw / "topo.txt").read_text(), re.M))
    links = {c for row in links for c in row.split() if c != "X"}
    claim(len(links) == 1, "one link type between every pair of GPUs")
    session = re.search(r"^# .*?\d{4}-\d{2}-\d{2}, (session \d+)", readme, re.M)
    return {"date": re.search(r"^# .*?(\d{4}-\d{2}-\d{2})", readme).group(1), "commit": commit,
            "session": session.group(1) if session else None,
            "budget": re.search(r"`multigpu/`.*?--budget-ms (\d+)", readme).group(1),
            "driver": gpus[0][2], "memory": gpus[0][3], "count": len(gpus), "link": links.pop(),
            "folder": root.name, "link_to": f"../../docs/results/raw/{root.name}/multigpu/"}


def multi4_runs():
    """The two four-GPU runs, checked to be the same kind of machine and software (one head line serves both):
    (first, second) machines."""
    a, b = multi4_machine(), multi4_machine(H200X4S4)
    ra, rb = multi4_run(STRONG4[0]), multi4s_run(STRONG4[0])
    claim(all(a[k] == b[k] for k in ("driver", "memory", "count", "link", "budget", "date"))
          and all(ra[k] == rb[k] for k in ("gpu", "cuda", "nccl", "nvls")),
          "both four-GPU runs: the same GPUs, link, driver, CUDA, NCCL and --budget-ms")
    return a, b


def run_label(m):
    """A four-GPU run as a table cell: its commit (the caption says which date and folder)."""
    return f"`{m['commit']}`"


def run_said(m):
    """A four-GPU run in a caption: its commit, date (and session), raw folder."""
    when = m["date"] + (f", {m['session']}" if m["session"] else "")
    return f"run `{m['commit']}` ({when}, [{m['folder']}/multigpu/]({m['link_to']}))"


def ranks_run(name, folder=MULTI4):
    """The rank form's output: its variant row, its parts row (header 'row'), the number of ranks."""
    text = (folder / name).read_text()
    lines = text.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("row ") and "reduce us" in l)
    header = re.split(r"\s{2,}", lines[at].strip())
    cells = lines[at + 2].split()
    claim(len(cells) == len(header), f"{name}: one parts row")
    # the variant table ends at its notes (no blank line before the parts: program_rows would read on)
    top = next(i for i, l in enumerate(lines) if l.startswith("variant "))
    vhead = re.split(r"\s{2,}", lines[top].strip())
    vrow = lines[top + 2].split()
    claim(vrow[0] == "scan-multi-gpu-ranks" and len(vrow) == len(vhead), f"{name}: the rank form's variant row")
    variant = dict(zip(vhead, vrow))
    return {"parts": dict(zip(header, cells)), "variant": variant,
            "ranks": int(re.search(r"^ranks: (\d+) processes", text, re.M).group(1))}


def multi4_head(m, run):
    """The four-GPU machine and software (both runs': multi4_runs checks that they agree), without date or commit."""
    return (f"{m['count']} × {run['gpu']} of one host ({m['memory']} each, NVLink {m['link']} between every pair, "
            f"`nvidia-smi topo -m`), driver {m['driver']}, CUDA {run['cuda']}, NCCL {run['nccl']}, "
            f"`NCCL_NVLS_ENABLE={run['nvls']}`, `--budget-ms {m['budget']}`")


def gib(elements):
    """int32 elements in GiB."""
    return elements * 4 / 2 ** 30


def forms_pair(one_run, rk):
    """The one-process four-GPU row of ONE_RUN (a strong output) against the rank form's output RK of the same run and
    n: the variant and parts rows of each, the ratio of the medians (rank / one process, both of one run), and
    whether the min–max spreads overlap."""
    one, one_parts = one_run["variants"]["scan-multi-gpu"], one_run["parts"][4]
    rv, rp = rk["variant"], rk["parts"]
    assert rv["check"] == one["check"] == one_parts["check"] == "ok" and rk["ranks"] == 4
    claim(rp["n"] == one_parts["n"] == one["n"] == rv["n"], "the two forms at the same n")
    overlap = float(one["min ms"]) <= float(rv["max ms"]) and float(rv["min ms"]) <= float(one["max ms"])
    return {"one": one, "one_parts": one_parts, "rv": rv, "rp": rp, "overlap": overlap,
            "ratio": float(rv["median ms"]) / float(one["median ms"])}


def multi4_form_pairs():
    """The two forms on four GPUs, each pair from one run: 2^30 in the first run (ranks4-2p30 after strong4-2p30),
    2^32 in the second (ranks4-2p32 after strong4-2p32): [(machine, one-process file, rank file, forms_pair)]."""
    a, b = multi4_runs()
    return [(a, STRONG4[0], "ranks4-2p30.txt", forms_pair(multi4_run(STRONG4[0]), ranks_run("ranks4-2p30.txt"))),
            (b, STRONG4[1], "ranks4-2p32.txt",
             forms_pair(multi4s_run(STRONG4[1]), ranks_run("ranks4-2p32.txt", MULTI4S)))]


def form_verdict(x):
    """'a tie' where the two forms' min–max spreads overlap, else which form is faster beyond the spread."""
    if x["overlap"]:
        return "a tie"
    return "the rank form is faster" if x["ratio"] < 1 else "the one-process form is faster"


def multi4_scaling():
    """Chapter 40 on four GPUs: strong scaling at 2^30 and 2^32 (1, 2, 4 GPUs) and its repeat, the largest size that
    fits, the two forms on four GPUs, weak scaling; each row labelled with its run (multi4_runs)."""
    m, s4 = multi4_runs()
    strong = [multi4_run(f) for f in STRONG4]
    again = [multi4s_run(f) for f in STRONG4]
    old = multi_machine()
    out = [f"Measured on {multi4_head(m, strong[0])}, in two runs on lent machines of this kind, not known to be the "
           f"same host: {run_said(m)} and {run_said(s4)}, whose chapter 40 is unchanged since `{m['commit']}`. A different "
           f"machine from the two-GPU tables above ({old['count']} × H200, {old['date']}, commit `{old['commit']}`). "
           f"Each row below names its run and its program output; every ratio (a speed-up, a share of the bound, one "
           f"form over the other) is taken within one run, never across the two.", "",
           f"**Strong scaling** (run `{m['commit']}`; the same n on 1, 2 and 4 GPUs; one program run per n, its parts "
           f"measured in that run):", "",
           "| raw | GPUs | n | shard | reduce µs | exchange µs | scan µs | bound µs | whole µs | % of bound | "
           "GB/s total | vs 1 GPU | bound vs 1 GPU |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    cols = ["GPUs", "n", "shard", "reduce us", "exchange us", "scan us", "bound us", "whole us", "% of bound",
            "GB/s total", "vs 1 GPU", "bound vs 1 GPU"]
    for f, run in zip(STRONG4, strong):
        for p in (1, 2, 4):
            row = run["parts"][p]
            assert row["check"] == "ok"
            out.append(f"| [{f[:-4]}]({MULTI4_LINK}{f}) | " +
                       " | ".join((f"**{row[c]}**" if p == 4 and c == "vs 1 GPU" else row[c]).replace("-", "–")
                                  for c in cols) + " |")
    out.append("")
    # the 1- and 2-GPU rows against the other machine's (2026-11-27): the same program, the same sizes
    two = [multi_run(f) for f in STRONG]
    diff = max(abs(num(a["parts"][p]["whole us"]) / num(b["parts"][p]["whole us"]) - 1)
               for a, b in zip(strong, two) for p in (1, 2))
    claim(all(a["parts"][1]["n"] == b["parts"][1]["n"] for a, b in zip(strong, two)), "the same sizes on both machines")
    out.append(f"Its one- and two-GPU rows repeat the {old['date']} machine's (the table above) within "
               f"{100 * diff:.1f}% of the whole time. Each GPU count is within 10% of its bound "
               f"({min(num(r['parts'][p]['% of bound']) for r in strong for p in (2, 4)):.1f}% at the least).")
    claim(all(num(r["parts"][p]["% of bound"]) >= 90 for r in strong for p in (2, 4)), "within 10% of its bound")
    # the same two sizes again in the second run: each speed-up and share from its own output
    four, four_again = [r["parts"][4] for r in strong], [r["parts"][4] for r in again]
    for r in again:
        assert all(r["parts"][p]["check"] == "ok" for p in (1, 2, 4))
    claim(all(a["n"] == b["n"] for a, b in zip(four, four_again)), "the second run repeats the same sizes")
    claim(all(num(p["% of bound"]) >= 90 for p in four_again), "the repeat is within 10% of its bound")
    out[-1] += (f" Run `{s4['commit']}` ran both sizes again ("
               + ", ".join(f"[{f[:-4]}]({MULTI4S_LINK}{f})" for f in STRONG4) + "): on four GPUs "
               + " and ".join(f"**{p['vs 1 GPU']}** at {p['n']}" for p in four_again) + ", "
               + " and ".join(f"{p['% of bound']}%" for p in four_again) + " of its own bound (the table's run: "
               + " and ".join(p["vs 1 GPU"] for p in four) + ", " + " and ".join(f"{p['% of bound']}%" for p in four)
               + ").")
    out.append("")
    # the largest power of two that fits on four GPUs (the second run): no one- or two-GPU time exists
    big = multi4s_run("largest4-2p36.txt")
    bp = big["parts"]
    n = pow2(bp[4]["n"])
    mem = float(m["memory"].split()[0]) / 1024  # GiB per GPU (gpu.txt: MiB)
    assert bp[4]["check"] == "ok" and bp[4]["n"] == bp[1]["n"]
    claim(bp[1]["check"] == bp[2]["check"] == "does not fit", "one and two GPUs do not hold the largest size")
    claim(2 * gib(n) / 4 < mem < 2 * gib(n) / 2, "four GPUs hold the in + out of the largest size, two do not")
    claim(pow2(bp[4]["shard"]) == n // 4, "the largest size is split evenly")
    claim(2 * gib(2 * n) / 4 > mem, "the next power of two does not fit on four GPUs")
    s32 = four_again[1]
    claim(num(bp[4]["% of bound"]) > num(s32["% of bound"]), "the largest size is closer to its bound than 2^32")
    above = num(bp[4]["whole us"]) - num(bp[4]["bound us"])
    above32 = num(s32["whole us"]) - num(s32["bound us"])
    claim(above > above32, "more time above the bound at 2^36 than at 2^32, a smaller share")
    out += [f"**The largest size that fits** (run `{s4['commit']}`, [largest4-2p36]({MULTI4S_LINK}largest4-2p36.txt)): "
            f"{bp[4]['n']} `int32`, {gib(n):.0f} GiB in + {gib(n):.0f} GiB out, the largest power of two four H200s "
            f"hold ({bp[4]['shard']} per GPU: {2 * gib(n) / 4:.0f} GiB in + out on each, of {mem:.1f} GiB). One GPU "
            f"would need {2 * gib(n):.0f} GiB and each of two {2 * gib(n) / 2:.0f} GiB, so the program's one- and "
            f"two-GPU rows say \"does not fit\", and at this size there is no one-GPU time to compare with:", "",
            "| raw | GPUs | n | shard | reduce µs | exchange µs | scan µs | bound µs | whole µs | % of bound | "
            "GB/s total | check |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for p in (1, 2, 4):
        out.append(f"| [largest4-2p36]({MULTI4S_LINK}largest4-2p36.txt) | " +
                   " | ".join((f"**{bp[p][c]}**" if p == 4 and c == "% of bound" else bp[p][c]).replace("-", "–")
                              for c in ("GPUs", "n", "shard", "reduce us", "exchange us", "scan us", "bound us",
                                        "whole us", "% of bound", "GB/s total", "check")) + " |")
    out.append("")
    out.append(f"Four GPUs scan it in {num(bp[4]['whole us']) / 1000:.2f} ms, **{bp[4]['% of bound']}%** of the bound "
               f"of the same run's parts, {float(bp[4]['GB/s total']):.0f} GB/s in total "
               f"({float(bp[4]['GB/s/GPU']):.0f} per GPU); the time above the bound, {above:.0f} µs, is "
               f"{100 * above / num(bp[4]['whole us']):.1f}% of the whole (at {s32['n']} in the same run: "
               f"{above32:.0f} µs, {100 * above32 / num(s32['whole us']):.1f}% of the whole, {s32['% of bound']}% of "
               f"the bound).")
    out.append("")
    # the rank form on four GPUs: each size's pair from one run (the rank form run in the same call, after)
    pairs = multi4_form_pairs()
    out += [f"**One process per GPU on four GPUs** (`--ranks 4`; each size's two rows from one run, the rank form "
            f"run in the same call after the one-process run: " +
            ", ".join(f"{x['rp']['n']} in run `{mm['commit']}`" for mm, _, _, x in pairs) + "):", "",
            "| run | n | form | raw | median ms (min–max) | reduce µs | exchange µs | scan µs | bound µs | whole µs "
            "| % of bound |", "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for mm, f1, fr, x in pairs:
        one, op, rv, rp = x["one"], x["one_parts"], x["rv"], x["rp"]
        out += [f"| {run_label(mm)} | {op['n']} | one process, 4 GPUs | [{f1[:-4]}]({mm['link_to']}{f1}) | "
                f"{one['median ms']} ({one['min ms']}–{one['max ms']}) | {op['reduce us']} | {op['exchange us']} | "
                f"{op['scan us']} | {op['bound us']} | {op['whole us']} | {op['% of bound']} |",
                f"| {run_label(mm)} | {rp['n']} | one process per GPU, 4 ranks | [{fr[:-4]}]({mm['link_to']}{fr}) | "
                f"{rv['median ms']} ({rv['min ms']}–{rv['max ms']}) | {rp['reduce us']} | {rp['exchange us']} | "
                f"{rp['scan us']} | {rp['bound us']} | {rp['whole us']} | {rp['% of bound']} |"]
    out.append("")
    said = []
    for mm, _, _, x in pairs:
        one, rv = x["one"], x["rv"]
        s = f"At {x['rp']['n']} (run `{mm['commit']}`) the rank form takes {x['ratio']:.3f}x the one-process time (medians)"
        if x["overlap"]:
            if float(rv["median ms"]) < float(one["min ms"]):
                s += ", below the one-process run's fastest repetition"
            s += (f", but the min–max spreads overlap (the rank form's slowest repetition took {rv['max ms']} ms): "
                  f"{form_verdict(x)}")
        else:
            lo, hi = (rv, one) if x["ratio"] < 1 else (one, rv)
            s += (f", and the min–max spreads do not overlap (the {'rank' if lo is rv else 'one-process'} form's "
                  f"slowest repetition, {lo['max ms']} ms, is below the other's fastest, {hi['min ms']} ms): not a "
                  f"tie, {form_verdict(x)} in that run")
        said.append(s)
    out.append(". ".join(said) + ". A difference inside the measured spread is counted as none; each pair is two "
               "runs one after the other, not interleaved, so a verdict is that pair's, not a rule.")
    # the 2^32 pair: where the one-process form's extra time is (each form's time above its own bound)
    mm, _, _, x = pairs[1]
    claim(not x["overlap"] and x["ratio"] < 1, "at 2^32 the rank form's spread lies below the one-process form's")
    out.append("")
    op, rp = x["one_parts"], x["rp"]
    gap_one, gap_rank = num(op["whole us"]) - num(op["bound us"]), num(rp["whole us"]) - num(rp["bound us"])
    claim(gap_rank < gap_one / 4, "at 2^32 the rank form ends much nearer its bound than the one-process form")
    claim(abs(num(rp["reduce us"]) / num(op["reduce us"]) - 1) < 0.02 and
          abs(num(rp["scan us"]) / num(op["scan us"]) - 1) < 0.02, "the two forms' reduce and scan agree at 2^32")
    out.append(f"At {rp['n']} the two forms' reduce and scan, each timed alone, agree within 2%; what differs is the "
               f"time above each form's own bound, {gap_one:.0f} µs in the one process against {gap_rank:.0f} µs in "
               f"the rank form. In the rank form each process launches its own GPU's scan; the one process launches "
               f"the four scans in GPU order (\"Where that time goes\" below), and the two forms time a repetition "
               f"differently (the rank form from a barrier: \"The timing\" under \"One process per GPU\"). Which of "
               f"these is the difference the parts do not say; `nsys` would. The exchange column is "
               f"timed differently in each form (the one-process host waits for all four GPUs' totals, rank 0 for "
               f"its own): " + ", ".join(f"{x['one_parts']['exchange us']} and {x['rp']['exchange us']} µs at "
                                          f"{x['rp']['n']}" for _, _, _, x in pairs) + ".")
    out.append("")
    weak = multi4_run("weak4-2p28.txt")
    w = weak["parts"]
    out += [f"**Weak scaling** (run `{m['commit']}`, {w[1]['shard']} per GPU, "
            f"[weak4-2p28]({MULTI4_LINK}weak4-2p28.txt)):", "",
            "| GPUs | n | reduce µs | exchange µs | scan µs | bound µs | whole µs | % of bound | T1/T |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in (1, 2, 4):
        assert w[p]["check"] == "ok" and w[p]["shard"] == w[1]["shard"]
        out.append("| " + " | ".join(w[p][c].replace("-", "–") for c in
                                     ("GPUs", "n", "reduce us", "exchange us", "scan us", "bound us", "whole us",
                                      "% of bound", "T1/T")) + " |")
    out.append("")
    grow = num(w[4]["whole us"]) - num(w[2]["whole us"])
    grow_b = num(w[4]["bound us"]) - num(w[2]["bound us"])
    claim(abs(grow) < 0.05 * num(w[2]["whole us"]), "from two to four GPUs the weak-scaling time grows little")
    out.append(f"From two to four GPUs (twice the data and the GPUs) the time grows by {grow:.1f} µs "
               f"({100 * grow / num(w[2]['whole us']):.1f}%) and the bound by {grow_b:.1f} µs: the split's price, "
               f"the reduce of one shard, is paid once, whatever P; the exchange grows from {w[2]['exchange us']} to "
               f"{w[4]['exchange us']} µs.")
    return "\n".join(out)


def paper_four():
    """The four-GPU figure "The bound" puts on paper from the two-GPU parts of 2026-11-27 (n = 2^32)."""
    p = multi_run(STRONG[1])["parts"]
    one, red, scan, exch = num(p[1]["whole us"]), num(p[2]["reduce us"]), num(p[2]["scan us"]), num(p[2]["exchange us"])
    return one / (scan * 2 / 4 + red * 2 / 4 + exch), exch, p[2]["n"]


def multi4_bound():
    """The four-GPU speed-ups against the paper figure and this run's bound; where the rest of the time goes."""
    m = multi4_machine()
    strong = [multi4_run(f) for f in STRONG4]
    paper, paper_exch, paper_n = paper_four()
    four = [r["parts"][4] for r in strong]
    sp = [num(p["vs 1 GPU"]) for p in four]
    bd = [num(p["bound vs 1 GPU"]) for p in four]
    gap = [num(p["whole us"]) - num(p["bound us"]) for p in four]
    r4 = num(four[1]["reduce us"]) / num(four[1]["scan us"])
    ex2 = [num(r["parts"][2]["exchange us"]) for r in strong]
    ex4 = [num(p["exchange us"]) for p in four]
    claim(all(s < b for s, b in zip(sp, bd)), "four GPUs stay below their bound")
    claim(bd[1] < paper and min(ex4) > max(ex2), "at the paper's n the bound is below the paper figure; the exchange grows")
    claim(four[1]["n"] == paper_n, "the paper figure is for the same n")
    out = [f"**Against the bound.** \"The bound\" above put four GPUs on paper at {paper:.1f}x for n = {paper_n} "
           f"(two-GPU parts of {multi_machine()['date']}, the exchange taken as {paper_exch:.1f} µs). Measured "
           f"(run `{m['commit']}`, {m['count']} × H200, {m['date']}): **{sp[0]:.2f}x** at {four[0]['n']} and **{sp[1]:.2f}x** at "
           f"{four[1]['n']}, against {bd[0]:.2f}x and {bd[1]:.2f}x for the bound of the same run's parts, "
           f"{four[0]['% of bound']}% and {four[1]['% of bound']}% of it. At {four[1]['n']} that bound is below the "
           f"paper's {paper:.1f}x partly because the exchange is {min(ex4):.1f}–{max(ex4):.1f} µs on four GPUs against "
           f"{min(ex2):.1f}–{max(ex2):.1f} µs on two in the same runs (the paper warned: an all-gather's latency "
           f"grows with P); with this run's r = {four[1]['reduce us']} / {four[1]['scan us']} = "
           f"{r4:.2f}, *P / (1 + r)* is {4 / (1 + r4):.2f}x on four GPUs as n grows. The time above the bound is "
           f"{gap[0]:.1f} µs at {four[0]['n']} and {gap[1]:.1f} µs at {four[1]['n']}: about the same time, which "
           f"weighs less on the longer scan.", ""]
    claim(abs(gap[1] - gap[0]) < 0.5 * min(gap), "the time above the bound is about the same at both sizes")
    again = [multi4s_run(f)["parts"][4] for f in STRONG4]
    gap2 = [num(p["whole us"]) - num(p["bound us"]) for p in again]
    claim(abs(gap2[1] - gap2[0]) > 0.5 * min(gap2), "in the second run the time above the bound is not the same")
    out[-2] += (f" In run `{multi4_machine(H200X4S4)['commit']}` the same two sizes came to {gap2[0]:.1f} and "
                f"{gap2[1]:.1f} µs above their bound, so that sameness is one run's, not a rule.")
    lines, t = strong[0]["timelines"][4]
    scans = [x[3] - x[2] for x in t]
    scan_alone = num(four[0]["scan us"])
    red_alone = num(four[0]["reduce us"])
    launch = [x[2] for x in t]
    claim(all(abs(s / scan_alone - 1) < 0.03 for s in scans), "each scan takes about what a scan takes alone")
    claim(launch == sorted(launch), "the scans are launched in GPU order")
    claim(len(t) == 4, "four GPUs, three of them reduce")
    out.append(f"**Where that time goes**: the timeline of one run on four GPUs at {four[0]['n']} (run "
               f"`{m['commit']}`; µs from each "
               f"GPU's start: reduce done | totals on the host | scan launched | scan done):")
    out += ["", "```"] + lines + ["```", ""]
    out.append(f"Each GPU's scan takes what one scan takes alone ({min(scans):.0f}–{max(scans):.0f} µs from launch to "
               f"end, against {scan_alone:.1f} µs), so the time above the bound lies before the scans: the three "
               f"reduces end at {min(x[0] for x in t[:-1]):.0f}–{max(x[0] for x in t[:-1]):.0f} µs "
               f"({red_alone:.1f} µs alone), and the host launches the four scans in GPU order (step 4 of \"How it "
               f"works\": each once its carry is known), {launch[0]:.0f} to {launch[-1]:.0f} µs, "
               f"{(launch[-1] - launch[0]) / (len(launch) - 1):.0f} µs apart; the last GPU, which started its scan "
               f"last, ends {t[-1][3] - t[0][3]:.0f} µs after GPU 0. This one run took {t[-1][3]:.0f} µs (the median "
               f"is {four[0]['whole us']} µs). The program's parts do not split that time between the host's "
               f"launches and the GPUs' waits; `nsys` would.")
    out.append("")
    out.append("**Eight GPUs were not lent**: no eight-GPU run exists here, and the eight-GPU figure in \"The bound\" "
               "is a prediction from two-GPU parts, not a measurement.")
    return "\n".join(out)


def multi4_uneven():
    """--last-weight on four GPUs at 2^30, each weight against the even split of its own run: W = 110, 120, 130 in the
    first run (against its strong4-2p30), W = 142 (the balancing weight) in the second (against its strong4-2p30)."""
    m, s4 = multi4_runs()
    groups = []  # (machine, folder, link, {W: run}), W = 100 being that run's even split
    for mm, folder, link, read in ((m, MULTI4, MULTI4_LINK, multi4_run), (s4, MULTI4S, MULTI4S_LINK, multi4s_run)):
        runs = {100: read(STRONG4[0])}
        for f in sorted(folder.glob("uneven4-w*-2p30.txt")):
            runs[int(re.search(r"-w(\d+)-", f.name).group(1))] = read(f.name)
        groups.append((mm, folder, link, dict(sorted(runs.items()))))
    out = [f"**The uneven split on four GPUs** (2^30; each weight's row from the run in its first column, against the "
           f"even split of that same run, W = 100, its strong-scaling output: W = "
           + ", ".join(str(w) for w in groups[0][3] if w != 100) + f" in run `{m['commit']}` (`uneven4-w*-2p30.txt` "
           f"in [multigpu/]({MULTI4_LINK})), W = " + ", ".join(str(w) for w in groups[1][3] if w != 100) +
           f" in run `{s4['commit']}` ([multigpu/]({MULTI4S_LINK}))):", "",
           "| run | `--last-weight` | raw | shards (other / last) | bound vs 1 GPU | measured vs 1 GPU | % of bound |",
           "|---|---:|---|---|---:|---:|---:|"]
    verdicts = []
    for mm, folder, link, runs in groups:
        speed = {w: num(r["parts"][4]["vs 1 GPU"]) for w, r in runs.items()}
        uneven = [w for w in runs if w != 100]
        best = max(uneven, key=lambda w: speed[w])
        for w, r in runs.items():
            p = r["parts"][4]
            assert p["check"] == "ok" and p["n"] == "2^30"
            other, last = p["shard"] if isinstance(p["shard"], tuple) else (p["shard"], p["shard"])
            f = STRONG4[0] if w == 100 else f"uneven4-w{w}-2p30.txt"
            cell = f"**{p['vs 1 GPU']}**" if w in (100, best) else p["vs 1 GPU"]
            out.append(f"| {run_label(mm)} | {w} | [{f[:-4]}]({link}{f}) | {other} / {last} | {p['bound vs 1 GPU']} | "
                       f"{cell} | {p['% of bound']} |")
        claim(all(speed[w] < speed[100] for w in uneven),
              f"every uneven split is slower than the even one of its run ({mm['commit']})")
        verdicts.append((mm, runs, speed, best))
    out.append("")
    share = [num(r["parts"][4]["% of bound"]) for _, runs, _, _ in verdicts for w, r in runs.items() if w != 100]
    (m1, runs1, speed1, best1), (m2, runs2, speed2, _) = verdicts
    even_t = runs1[100]["timelines"][4][1]
    best_t = runs1[best1]["timelines"][4][1]
    claim(min(x[1] for x in best_t) > max(x[1] for x in even_t), "the totals reach the host later")
    r4 = num(runs1[100]["parts"][4]["reduce us"]) / num(runs1[100]["parts"][4]["scan us"])
    bal = round(100 * (1 + r4))
    claim(bal in runs2 and bal not in runs1, "the balancing weight was run in the second run, not the first")
    bt, et = runs2[bal]["timelines"][4][1], runs2[100]["timelines"][4][1]
    claim(min(x[1] for x in bt) > max(x[1] for x in et), "at the balancing weight the totals reach the host later")
    pb = runs2[bal]["parts"][4]
    claim(num(pb["% of bound"]) == min(share), "the balancing weight is the furthest from its bound")
    claim(num(pb["bound vs 1 GPU"]) > max(num(r["parts"][4]["bound vs 1 GPU"]) for _, runs, _, _ in verdicts
                                          for r in runs.values() if r is not runs2[bal]),
          "the balancing weight has the highest bound of the table")
    out.append(f"As on two GPUs, every uneven split is slower than the even split of its own run, at "
               f"{min(share):.1f}–{max(share):.1f}% of its own bound. In run `{m1['commit']}` the best, W = {best1}, "
               f"gives {speed1[best1]:.2f}x against that run's even split's {speed1[100]:.2f}x; in its timeline the "
               f"totals reach the host at {min(x[1] for x in best_t):.0f}–{max(x[1] for x in best_t):.0f} µs against "
               f"{min(x[1] for x in even_t):.0f}–{max(x[1] for x in even_t):.0f} µs in the even split's. The balancing "
               f"weight 100·(1 + r) = {bal} (r = {runs1[100]['parts'][4]['reduce us']} / "
               f"{runs1[100]['parts'][4]['scan us']} = {r4:.2f}, the four-GPU parts of that run's even split) was run in run "
               f"`{m2['commit']}`: its bound is the highest of the table, {pb['bound vs 1 GPU']}, and it gives "
               f"**{speed2[bal]:.2f}x**, {pb['% of bound']}% of that bound, against {speed2[100]:.2f}x for the same run's "
               f"even split; its totals reach the host at {min(x[1] for x in bt):.0f}–{max(x[1] for x in bt):.0f} µs "
               f"against {min(x[1] for x in et):.0f}–{max(x[1] for x in et):.0f} µs. On four GPUs, too, the stage "
               f"keeps the even split.")
    return "\n".join(out)


def multi4_forms():
    """The two forms side by side on two GPUs (forms-x2, measure_forms.py): the verdict under the screen block
    40-scan-multi-gpu-ranks, from forms.csv, checked against forms.md's own ratio and overlap columns."""
    rows = {(r["form"], r["size"]): r for r in csv.DictReader(open(FORMS4 / "forms.csv"))}
    md = {}
    for line in (FORMS4 / "forms.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if re.fullmatch(r"2\^\d+", cells[0]):
            md[cells[0]] = (cells[3], cells[4])
    sizes = sorted(md, key=pow2)
    ratio, parts = [], []
    for size in sizes:
        a, b = rows[("one-process", size)], rows[("ranks", size)]
        assert a["check"] == b["check"] == "ok"
        x = float(b["median_ms"]) / float(a["median_ms"])
        overlap = float(a["min_ms"]) <= float(b["max_ms"]) and float(b["min_ms"]) <= float(a["max_ms"])
        claim(md[size] == (f"{x:.3f}", "yes" if overlap else "no"), f"forms.md's ratio and overlap at {size}")
        claim(overlap, f"the two forms' spreads overlap at {size}")
        ratio.append(x)
        parts += [abs(float(b[k]) / float(a[k]) - 1) for k in ("reduce_us", "scan_us")]
    ex = [(rows[("one-process", s)]["exchange_us"], rows[("ranks", s)]["exchange_us"]) for s in sizes]
    claim(all(float(b) < float(a) for a, b in ex), "the rank form's exchange is the shorter")
    four = multi4_form_pairs()
    claim(any(x["overlap"] for _, _, _, x in four), "on four GPUs the forms tie at some size")
    return (f"One process per GPU takes {' and '.join(f'{x:.3f}x' for x in ratio)} the one-process form's time at "
            f"{' and '.join(sizes)} ([forms.md]({FORMS4_LINK}forms.md)), and the min–max spreads overlap at both "
            f"sizes: the two forms' times are within each other's spread, a tie. The reduce and the scan of one "
            f"shard, timed alone in each form, differ by at most {100 * max(parts):.1f}% between them. The "
            f"exchange, as each form times it, is the rank form's shorter (" +
            ", ".join(f"{b} against {a} µs at {s}" for (a, b), s in zip(ex, sizes)) +
            "): the one-process host waits for both GPUs' totals, rank 0 for its own. On four GPUs (\"Four GPUs\" "
            "above, one pair of runs per size) the forms tie at " +
            " and ".join(f"{x['rp']['n']} (run `{mm['commit']}`, {x['ratio']:.3f}x)" for mm, _, _, x in four
                         if x["overlap"]) +
            ("; at " + " and ".join(f"{x['rp']['n']} (run `{mm['commit']}`) {form_verdict(x)} beyond the spread, "
                                     f"{x['ratio']:.3f}x" for mm, _, _, x in four if not x["overlap"])
             if any(not x["overlap"] for _, _, _, x in four) else "") + ".")


# Which path chapter 38's stage runs at each length (fft_two_pass.cuh, its opening comment), on a GPU with clusters.
def fft38_path(n):
    if n <= 4096:
        return "chapter 35's one-pass"
    if n <= 16384:
        return "chapter 36's one block"
    if n <= 65536:
        return "chapter 37's cluster"
    return "two passes"


def fft38_sweep():
    """Chapter 38's stage and cuFFT at every N = 8 .. 2^20 from one sweep (sweep.sh), 1 GiB per length."""
    rows = rows_of(SCREENS / "sweep38" / "sweep.csv")
    by = {}
    for r in rows:
        assert r["check"] in ("ok", "-"), r
        by.setdefault(int(r["length"]), {})[r["variant"]] = r
    out = ["| N | path the stage runs | stage GB/s | stage % of `cudaMemcpy` | cuFFT % of `cudaMemcpy` | stage / cuFFT |",
           "|---:|---|---:|---:|---:|---:|"]
    for n in sorted(by):
        st, cu = by[n]["fft-two-pass"], by[n]["cufft"]
        out.append(f"| {n} | {fft38_path(n)} | {float(st['gbps']):.0f} | {float(st['pct_memcpy']):.1f} | "
                   f"{float(cu['pct_memcpy']):.1f} | {float(st['speed_vs_ref']):.3f}x |")
    out.append("")
    two = [n for n in by if fft38_path(n) == "two passes"]
    behind = [n for n in sorted(by) if float(by[n]["fft-two-pass"]["speed_vs_ref"]) < 0.98]
    # README 38, "Every length in one sweep", names these lengths and the earlier chapter behind each.
    if behind != [32, 16384, 65536]:
        raise SystemExit(f"tables.py: 38-sweep: the lengths behind cuFFT by more than 2% are now {behind}; "
                         f"README 38's \"Every length in one sweep\" names 32, 16384 and 65536")
    out.append(f"The two-pass lengths ({min(two)} … {max(two)}): the stage at "
               f"{min(float(by[n]['fft-two-pass']['pct_memcpy']) for n in two):.1f}–"
               f"{max(float(by[n]['fft-two-pass']['pct_memcpy']) for n in two):.1f}% of `cudaMemcpy` (the bound: 50%), "
               f"{min(float(by[n]['fft-two-pass']['speed_vs_ref']) for n in two):.3f}–"
               f"{max(float(by[n]['fft-two-pass']['speed_vs_ref']) for n in two):.3f}x cuFFT, where cuFFT runs at "
               f"{min(float(by[n]['cufft']['pct_memcpy']) for n in two):.1f}–"
               f"{max(float(by[n]['cufft']['pct_memcpy']) for n in two):.1f}% of the copy: no two-pass stage can "
               f"be more than {max(50 / float(by[n]['cufft']['pct_memcpy']) for n in two):.2f}x cuFFT. Below "
               f"131072 the stage is the earlier chapters' paths, with their results. Behind cuFFT by more "
               f"than 2%: " + (", ".join(f"N = {n}" for n in behind) or "no length") + ".")
    out.append("1 GiB of `float2` per length, out of place, `--variant fft-two-pass` beside cuFFT and the copy; "
               "every check `ok`.")
    out.append(screens_provenance("`chapters/38-fft-two-pass/sweep.sh`", "sweep38/sweep.csv"))
    return "\n".join(out)


def fft38_screen_text():
    """Chapter 38's first-screen sentences, from the same runs as 38-screen."""
    d = SCREENS
    lengths = (131072, 262144, 524288, 1048576)
    runs = {n: program_rows(d / f"c38-all-n{n}.txt") for n in lengths}

    def col(variant, field):
        return [float(runs[n][variant][field].rstrip("x")) for n in lengths]

    def span(xs, f):
        return f"{min(xs):{f}}–{max(xs):{f}}"

    stage, four_step = col("fft-two-pass", "speed vs cufft"), col("fft-thread-block-cluster", "speed vs cufft")
    pct, cufft = col("fft-two-pass", "% memcpy"), col("cufft", "% memcpy")
    behind = [n for n, x in zip(lengths, stage) if x < 1.0]
    behind_text = "" if not behind else " (behind it at N = " + ", ".join(map(str, behind)) + ")"
    return (f"**What the measurement says (H100, the runs of the table below): the stage runs at "
            f"{span(stage, '.2f')}× cuFFT from 2^17 to 2^20{behind_text}**, at {span(pct, '.1f')}% of `cudaMemcpy`: "
            f"{span([2 * x for x in pct], '.0f')}% of the two-pass bound of 50%, where chapter 37's stage (chapter "
            f"35's four-step at these lengths) runs at {span(four_step, '.2f')}× cuFFT. The margin is small by "
            f"construction: cuFFT itself sits at {span(cufft, '.1f')}% of copy here, so no two-pass design can beat "
            f"it by more than {max(50 / x for x in cufft):.2f}×.")


# Kernel resources of one sm_90 build (tools/tutkit/resources.py): registers come from the build, never typed.
RESOURCES = HERE.parent / "2026-11-28-build" / "resources-sm90.txt"
RESOURCES_LINK = "../../docs/results/raw/2026-11-28-build/resources-sm90.txt"


def resources():
    """(rows, provenance sentence) of RESOURCES, through tools/tutkit/resources.py's reader."""
    spec = importlib.util.spec_from_file_location("tutkit_resources", HERE.parents[3] / "tools/tutkit/resources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    head = module.header(RESOURCES)
    commit = re.search(r"commit (\w+)", head[1]).group(1)
    date = re.search(r"(\d{4}-\d\d-\d\d)", head[1]).group(1)
    return module, module.load(RESOURCES), (
        f"Registers: ptxas through `cuobjdump --dump-resource-usage`, nvcc 13.0, sm_90, commit `{commit}`, {date} "
        f"([resources-sm90.txt]({RESOURCES_LINK}), `tools/tutkit/resources.py`)")


def blocks_by_registers(regs, threads):
    """Blocks per SM the 64 K registers allow: each warp takes regs x 32 in units of 256."""
    per_warp = -(-regs * 32 // 256) * 256
    return 65536 // (per_warp * (threads // 32))


def fft36_occupancy():
    """Chapter 36's occupancy table (shared memory from the plan, registers from the build) and what it says."""
    module, rows, prov = resources()
    chapter = "36-fft-one-block-large"
    shapes = [(16384, "E = 32 (stage)", 32, 1, "Shape<32, 1, 0>"), (16384, "E = 16", 16, 1, "Shape<16, 1, 2>"),
              (8192, "E = 32 (stage)", 32, 1, "Shape<32, 1, 0>"), (8192, "E = 32, 2 signals", 32, 2, "Shape<32, 2, 0>"),
              (8192, "E = 16", 16, 1, "Shape<16, 1, 2>"), (8192, "E = 16, 2 signals", 16, 2, "Shape<16, 2, 0>")]
    out = ["| N, shape | shared memory per block | blocks per SM by shared memory | registers per thread | "
           "threads per block | blocks per SM by registers | blocks per SM |", "|---|---:|---:|---:|---:|---:|---:|"]
    blocks = {}
    for n, label, e, signals, shape in shapes:
        shared_kib = signals * (n + n // e) * 8 // 1024  # the padded buffer: one pad slot every E values
        by_shared = (228 * 1024) // ((shared_kib + 1) * 1024)  # 1 KiB reserved per block
        threads = signals * n // e
        regs = module.registers(rows, chapter, f"fft_one_block_kernel<{n}, fft_one_block_large::{shape}, false>")
        by_regs = blocks_by_registers(regs, threads)
        blocks[(n, label)] = (by_shared, regs, threads, by_regs, min(by_shared, by_regs, 2048 // threads))
        out.append(f"| {n}, {label} | {shared_kib} KiB | {by_shared} | {regs} | {threads} | {by_regs} | "
                   f"{blocks[(n, label)][4]} |")
    s8, s16 = blocks[(8192, "E = 32 (stage)")], blocks[(16384, "E = 32 (stage)")]
    half_room = 65536 // (2 * s16[2])
    out.append("")
    out.append(f"{prov}. At N = 8192 the stage's blocks are limited by registers, not shared memory: shared memory "
               f"would let {s8[0]} blocks in, but {s8[2]} threads × {s8[1]} registers let {s8[3]}, so an SM holds "
               f"**{s8[4]} blocks** at 8192. At 16384, {s16[2]} threads × {s16[1]} registers fill the register file "
               f"on their own ({s16[3]} block by registers, {s16[0]} by shared memory).")
    return "\n".join(out)


def fft36_half_buffer():
    """Chapter 36's half-buffer idea, with what the registers of the build allow."""
    module, rows, _ = resources()
    regs = module.registers(rows, "36-fft-one-block-large",
                            "fft_one_block_kernel<16384, fft_one_block_large::Shape<32, 1, 0>, false>")
    threads, half_kib = 16384 // 32, (16384 + 16384 // 32) * 8 // 1024 // 2
    by_shared = (228 * 1024) // ((half_kib + 1) * 1024)
    return (f"* **The half-buffer trick** (chapter 33's on-demand variant): exchange through a buffer of N/2 values "
            f"in two rounds, halving the shared memory per signal to {half_kib} KiB, which shared memory would let "
            f"{by_shared} blocks share. That alone adds no block: at {regs} registers the stage's {threads} threads "
            f"take the whole register file ({blocks_by_registers(regs, threads)} block per SM), so a second block "
            f"also needs the registers capped at {65536 // (2 * threads)} per thread (ptxas spilled at that cap in "
            f"chapter 37's 512-thread shape) or fewer threads with more values each. It costs two more barriers per "
            f"exchange.")


def gemm29_registers():
    """Chapter 29's partial-sum kernel against the tile kernel: registers from the build and the blocks they allow
    (threads from the tile: (BM / WM) x (BN / WN) warps)."""
    module, rows, prov = resources()
    tiles = {"64 × 128": ("TileConfig<64, 128, 16, 32, 64, 4, 3, 1, 3, true, true>", 4 * 32),
             "128 × 256": ("TileConfig<128, 256, 16, 64, 64, 4, 3, 1, 1, true, true>", 8 * 32)}
    got = {}
    for name, (cfg, threads) in tiles.items():
        split = module.registers(rows, "29-sgemm-split-k", f"sgemm_split_k_kernel<sgemm_tuned::{cfg}, true>")
        tile = module.registers(rows, "29-sgemm-split-k", f"sgemm_tuned_kernel<sgemm_tuned::{cfg}, true>")
        got[name] = (split, tile, blocks_by_registers(split, threads), blocks_by_registers(tile, threads))
    small, large = got["64 × 128"], got["128 × 256"]
    either = (f"holds {large[2]} either way" if large[2] == large[3] else
              f"holds {large[2]} against {large[3]}")
    return (f"A split plan runs a kernel of its own, the partial-sum kernel, with its own registers: for 64 × 128 it "
            f"needs {small[0]} where the tile kernel needs {small[1]}, so by registers it holds {small[2]} blocks per "
            f"SM, not {small[3]} (128 × 256 {either}; {prov[0].lower() + prov[1:]}).")


def fft37_occupancy():
    """Chapter 37's occupancy table: shared memory and threads per block are the plan's (compile-time, computed in
    the README's formula), registers come from the build, and the blocks they allow are computed here."""
    module, rows, prov = resources()
    # (row label, [(N, Shape<C, E, min blocks, split>, threads)], shared memory text, blocks by shared memory text)
    shapes = [("32768, C = 8, E = 16 (stage)", [(32768, "8, 16, 3, false", 256)], "34.3 KiB", "6"),
              ("65536, C = 8, E = 16 (stage)", [(65536, "8, 16, 0, false", 512)], "68.3 KiB", "3"),
              ("32768, C = 4, E = 16 (`c4`)", [(32768, "4, 16, 2, false", 512)], "68.5 KiB", "3"),
              ("32768, C = 8, E = 32 (`c8-e32`)", [(32768, "8, 32, 0, false", 128)], "33.3 KiB", "6"),
              ("32768 / 65536, `c8-split`", [(32768, "8, 16, 0, true", 256), (65536, "8, 16, 0, true", 512)],
               "68.5 / 136.5 KiB", "3 / 1")]
    out = ["| N, shape | shared memory per block | blocks per SM by shared memory | threads per block | registers (cap) "
           "| blocks per SM by registers |", "|---|---:|---:|---:|---:|---:|"]
    for label, kernels, shared, by_shared in shapes:
        regs, blocks, threads = [], [], []
        for n, shape, t in kernels:
            r = module.registers(rows, "37-fft-thread-block-cluster", f"fft_cluster_kernel<{n}, fft_cluster::Shape<{shape}> >")
            minimum = int(shape.split(", ")[2])
            regs.append(f"{r}" + (f" (cap for {minimum} blocks)" if minimum > 1 else ""))
            blocks.append(str(blocks_by_registers(r, t)))
            threads.append(str(t))
        same = len(set(regs)) == 1
        out.append(f"| {label} | {shared} | {by_shared} | {' / '.join(threads)} | "
                   f"{regs[0] if same else ' / '.join(regs)} | {' / '.join(blocks)} |")
    out.append("")
    out.append(f"({prov}; the caps are `__maxnreg__` from the shape's blocks per SM, as in chapter 36.)")
    return "\n".join(out)


def fft35_registers():
    """Chapter 35's candidates table: the registers column from the build (over N = 32 ... 4096, the kernel each
    variant launches at each length), the other columns the shapes' compile-time facts; and the N = 8, 16 and
    four-step kernels' registers."""
    module, rows, prov = resources()
    chapter = "35-fft-tuned"
    lengths = [32, 64, 128, 256, 512, 1024, 2048, 4096]

    def regs(shape, table, n):
        return module.registers(rows, chapter, f"fft_block_kernel<{n}, fft_tuned::Shape<{shape}>, {table}>(")

    def span(values):
        return f"{min(values)}–{max(values)}" if min(values) != max(values) else str(min(values))

    stage = {n: regs("0, 256, 0" if n <= 1024 else "16, 256, 0", "false", n) for n in lengths}
    table = [("`fft-tuned` (stage)", "chapter 34's up to N = 1024 (8 … 32); 16 at N = 2048, 4096", "up to 256 threads",
              "`sincospif`", f"{span(list(stage.values()))} ({stage[1024]} at N = 1024, {stage[4096]} at N = 4096)",
              "18–34 KB")]
    for name, e, block, twiddles, shape, kind, shared in [
            ("`e16-t256` (the first stage)", "16 (16 × 2 at N = 32)", "256 threads", "table", "16, 256, 0", "true",
             "34 KB"),
            ("`e16-t128`", "16", "128 threads (256 at N = 4096)", "table", "16, 128, 0", "true", "17 KB (34 KB at 4096)"),
            ("`e32-t256`", "32 (16 at N = 32)", "128 threads (the 4096/N cap; 256 at N = 32)", "table", "32, 256, 0",
             "true", "33 KB"),
            ("`e8-t256`", "8", "256 threads (512 at N = 4096)", "table", "8, 256, 0", "true", "18 KB (36 KB at 4096)"),
            ("`two-pass-t128`", "chapter 34's (8 … 64)", "up to 128 threads", "table", "0, 128, 0", "true", "9–33 KB"),
            ("`twiddle-table`", "chapter 34's (8 … 64)", "up to 256 threads", "table", "0, 256, 0", "true", "18–34 KB"),
            ("`e16-t256-3blocks`", "16", "256 threads, `__launch_bounds__(256, 3)`", "table", "16, 256, 3", "true",
             "34 KB"),
            ("`e16-t256-sincospif`", "16", "256 threads", "`sincospif`", "16, 256, 0", "false", "34 KB")]:
        table.append((name, e, block, twiddles, span([regs(shape, kind, n) for n in lengths]), shared))
    out = ["| variant | E | block | twiddles | registers, N = 32 … 4096 | shared memory per block |",
           "|---|---|---|---|---:|---:|"]
    out += [f"| {' | '.join(row)} |" for row in table]
    small = {(n, v): module.registers(rows, chapter, f"fft_per_thread_kernel<{n}, {v}>") for n in (8, 16)
             for v in ("true", "false")}
    four = [r["reg"] for r in rows if r["chapter"] == chapter and r["arch"] == "sm_90"
            and re.search(r"fft_(rows|columns)_kernel<fft_tuned::FourStepFft", r["kernel"])]
    stack = [r for r in rows if r["chapter"] == chapter and r["arch"] == "sm_90" and (r["stack"] or r["local"])]
    out.append("")
    out.append(f"N = 8 and 16 (all variants): 256 threads, {small[(8, 'true')]} / {small[(16, 'true')]} registers, "
               f"18 / 34 KB (the 8-byte fallback: {small[(8, 'false')]} / {small[(16, 'false')]}). Four-step kernels: "
               f"{span(four)} registers, up to 35 KB. "
               + ("No kernel has a stack frame or local memory" if not stack else
                  f"{len(stack)} kernels use a stack frame or local memory")
               + f" (`-warn-spills` is on; `__launch_bounds__(256, 4)` was dropped because it spilled 8 bytes at "
               f"N = 1024). {prov}.")
    return "\n".join(out)


def scan18_registers():
    """Chapter 18's registers and stack frames, every scan_tiles_kernel instantiation of the program's build."""
    module, rows, prov = resources()
    kernels = [r for r in rows if r["chapter"] == "18-scan-any-type-copy-bound" and r["arch"] == "sm_90"
               and "scan_copy_bound::scan_tiles_kernel<" in r["kernel"]]
    shape = re.compile(r"Tuning<([\w ]+), scan_copy_bound::(\w+), 192, (\d+), 8, (\d+), \(scan_copy_bound::Staging\)(\d), "
                       r"\(scan_copy_bound::LoadHint\)(\d), \(scan_copy_bound::StoreHint\)(\d), (true|false)>, "
                       r"(true|false)>")
    # The scan type: signed sums run on the unsigned twin (int32 and uint32 sums both as unsigned int).
    names = {"int": "int32", "unsigned int": "32-bit", "long": "int64", "unsigned long": "64-bit", "float": "float",
             "double": "double"}
    stage_regs, large_regs, frames = set(), set(), []
    for r in kernels:
        m = shape.search(r["kernel"])
        if not m:
            raise SystemExit(f"tables.py: unexpected chapter 18 kernel {r['kernel']}")
        t, op, staged, blocks, staging, load, store, timeline, carry = m.groups()
        (large_regs if staged == "16" else stage_regs).add(r["reg"])
        if r["stack"]:
            variant = ("t192-s16-r8" if staged == "16" else "timeline" if timeline == "true" else "bulk" if staging == "1"
                       else "ldcs-stcs" if load == "1" else "stcs" if store == "1" else "stage")
            frames.append(f"{names.get(t, t)} {op.lower()} {variant}{' with a carry' if carry == 'true' else ''} "
                          f"{r['stack']} bytes")

    def listed(values):
        v = sorted(values)
        return " or ".join(map(str, v)) if len(v) <= 2 else f"{v[0]}–{v[-1]}"

    text = (f"The kernels run at {listed(stage_regs)} registers per thread (6 blocks of 192 threads per SM; "
            f"{listed(large_regs)} for the larger-tile step). ")
    text += (f"{len(frames)} of the {len(kernels)} instantiations have a stack frame: {'; '.join(sorted(frames))}"
             if frames else f"None of the {len(kernels)} instantiations has a stack frame")
    return text + f" ({prov[0].lower() + prov[1:]})."


def gemm27_candidates_resources():
    """Chapter 27's candidates: registers from the build (the float4 path), warps per SM computed from them and
    the shared memory; shared memory per block and the SASS main loop's FFMA share are the candidates' facts,
    counted once (`cuobjdump -sass`) and kept here."""
    module, rows, prov = resources()
    # (variant, TileConfig arguments as in main.cu, threads, shared KiB per block, FFMA share of the main loop)
    candidates = [
        ("`tuned-128x128x8-w32x64-t8x8-s2`", "128, 128, 8, 32, 64, 4, 2, 1, 2", 256, 16.3, "85.9%"),
        ("`tuned-128x128x8-w32x64-t8x8-s3`", "128, 128, 8, 32, 64, 4, 3, 1, 2", 256, 24.4, "85.3%"),
        ("`tuned-128x128x16-w32x64-t8x8-s3` (the stage's fallback on sm_75)", "128, 128, 16, 32, 64, 4, 3, 1, 2", 256,
         48.8, "88.9%"),
        ("`tuned-128x128x16-w32x64-t8x8-s3-g8`", "128, 128, 16, 32, 64, 4, 3, 8, 2", 256, 48.8, "88.9%"),
        ("`tuned-128x128x16-w64x32-t8x8-s3`", "128, 128, 16, 64, 32, 8, 3, 1, 2", 256, 48.8, "88.9%"),
        ("`tuned-128x128x16-w32x64-t8x8-s4`", "128, 128, 16, 32, 64, 4, 4, 1, 1", 256, 65.0, "87.1%"),
        ("`tuned-128x128x32-w32x64-t8x8-s3`", "128, 128, 32, 32, 64, 4, 3, 1, 2", 256, 97.5, "91.0%"),
        ("`tuned-128x128x8-w64x64-t16x8-s3`", "128, 128, 8, 64, 64, 4, 3, 1, 2", 128, 24.4, "90.1%"),
        ("`tuned-128x128x16-w64x64-t16x8-s3`", "128, 128, 16, 64, 64, 4, 3, 1, 2", 128, 48.8, "91.9%"),
        ("`tuned-128x256x8-w64x64-t16x8-s3`", "128, 256, 8, 64, 64, 4, 3, 1, 1", 256, 36.4, "90.8%"),
        ("`tuned-256x128x8-w64x64-t16x8-s3`", "256, 128, 8, 64, 64, 4, 3, 1, 1", 256, 36.4, "89.9%"),
        ("**`tuned-128x256x16-w64x64-t16x8-s3` (= `sgemm-tuned`)**", "128, 256, 16, 64, 64, 4, 3, 1, 1", 256, 72.8,
         "92.5%"),
        ("`tuned-128x256x16-w64x64-t16x8-s3-g8`", "128, 256, 16, 64, 64, 4, 3, 8, 1", 256, 72.8, "92.5%")]
    out = ["| variant | threads | regs | smem KiB | warps / SM | FFMA in loop |", "|---|---:|---:|---:|---:|---:|"]
    for name, cfg, threads, smem, ffma in candidates:
        regs = module.registers(rows, "27-sgemm-tuned",
                                f"sgemm_tuned_kernel<sgemm_tuned::TileConfig<{cfg}, true, true>, true>")
        blocks = min(blocks_by_registers(regs, threads), int(228 // (smem + 1)), 2048 // threads)
        out.append(f"| {name} | {threads} | {regs} | {smem} | {blocks * threads // 32} | {ffma} |")
    out.append("")
    frames = [r for r in rows if r["chapter"] == "27-sgemm-tuned" and r["arch"] == "sm_90" and (r["stack"] or r["local"])]
    out.append(f"{prov}; " + ("no kernel of the chapter has a stack frame or local memory" if not frames else
                              f"{len(frames)} kernels of the chapter have a stack frame or local memory")
               + ". Warps per SM: the blocks that both the registers (64 K) and the shared memory (228 KiB, 1 KiB "
               "reserved per block) let in. The FFMA shares were counted from an earlier build's SASS and are not "
               "regenerated with the registers.")
    return "\n".join(out)


def fft36_screen_text():
    """Chapter 36's share of the bound and its ratio to cuFFT at N = 8192 and 16384, from the runs of 36-screen."""
    d = SCREENS
    lengths = (8192, 16384)
    r = {n: program_rows(d / f"c36-all-n{n}.txt") for n in lengths}

    def x(n, v, f):
        return float(r[n][v][f].rstrip("x"))

    verdict = (f"**Against cuFFT:** {x(8192, 'fft-one-block-large', 'speed vs cufft'):.3f}x at N = 8192, "
               f"{x(16384, 'fft-one-block-large', 'speed vs cufft'):.3f}x at 16384.")
    n8, n16 = lengths
    return (f"**Share of the bound** (a copy of the batch; {SCREENS_LABEL}, the runs of the table above): {x(n8, 'fft-one-block-large', '% memcpy'):.1f}% at "
            f"N = {n8}, {x(n16, 'fft-one-block-large', '% memcpy'):.1f}% at {n16} (chapter 35's four-step "
            f"{x(n8, 'fft-tuned', '% memcpy'):.1f}% and {x(n16, 'fft-tuned', '% memcpy'):.1f}%; cuFFT "
            f"{x(n8, 'cufft', '% memcpy'):.1f}% and {x(n16, 'cufft', '% memcpy'):.1f}%). {verdict} At {n16} cuFFT "
            f"itself runs at {x(n16, 'cufft', '% memcpy'):.1f}% of the copy, so even a stage at the copy bound could "
            f"be at most {100 / x(n16, 'cufft', '% memcpy'):.2f}x cuFFT there.")


def fft37_screen_text():
    """Chapter 37's first-screen sentences, from the runs of 37-screen and the exchange without the
    FFT (the chapter's lab, ../2026-11-27-h100/lab37-7e9ec24)."""
    d = SCREENS
    r = {n: program_rows(d / f"c37-all-n{n}.txt") for n in (32768, 65536)}

    def x(n, v, f):
        return float(r[n][v][f].rstrip("x"))

    st = {n: x(n, "fft-thread-block-cluster", "speed vs cufft") for n in r}
    words = {n: ("beats" if st[n] > 1.0 else "trails") for n in r}
    # The lab (../2026-11-27-h100/lab37-7e9ec24): the stage's exchange without the FFT, the stage in the same run.
    spec = importlib.util.spec_from_file_location("tables_h100_1127", HERE.parent / "2026-11-27-h100" / "tables.py")
    h100_1127 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(h100_1127)
    lab, _ = h100_1127.lab37_runs()  # {N: {variant: row}}, the lab's reader
    lab_pct = {n: float(lab[n]["exchange-c8"]["pct_memcpy"]) for n in lab}
    lab_x = {n: float(lab[n]["fft-thread-block-cluster"]["median_ms"]) / float(lab[n]["exchange-c8"]["median_ms"])
             for n in lab}
    if not all(float(lab[n]["fft-thread-block-cluster"]["median_ms"]) - float(lab[n]["exchange-c8"]["median_ms"])
               > float(lab[n]["exchange-c8"]["median_ms"]) - float(lab[n]["cudaMemcpy"]["median_ms"]) for n in lab):
        raise SystemExit("tables.py: 37-screen-text: the butterflies no longer add more time than the exchange")
    # The exchange alone is this design's bound; the stage's share of it comes from the lab run alone (cuFFT was
    # not timed there, so no ratio to cuFFT at the bound is given: it would mix two processes).
    reach = (f"The stage reaches {100 / lab_x[32768]:.0f}% and {100 / lab_x[65536]:.0f}% of that bound (both timed in "
             f"the lab's run).")
    return (f"**What the measurement says (H100, the tables below):** at N = 32768 the cluster stage {words[32768]} cuFFT, {st[32768]:.2f}× "
            f"({x(32768, 'fft-thread-block-cluster', '% memcpy'):.0f}% of `cudaMemcpy`), and "
            f"{float(r[32768]['fft-one-block-large']['median ms']) / float(r[32768]['fft-thread-block-cluster']['median ms']):.1f}× "
            f"as fast as chapter 36's stage (chapter 35's four-step); at 65536 it {words[65536]} cuFFT, "
            f"{st[65536]:.2f}× ({x(65536, 'fft-thread-block-cluster', '% memcpy'):.0f}% of copy). The same exchange with "
            f"the butterflies removed (the lab, \"The bound\"; another run, 2026-11-27) reaches "
            f"{lab_pct[32768]:.0f}% and {lab_pct[65536]:.0f}% of copy (this design's bound), and the stage takes {lab_x[32768]:.2f}× and "
            f"{lab_x[65536]:.2f}× its exchange's time in that run: the FFT work inside the blocks adds more time than "
            f"the exchange adds over a copy. " + reach)


def fft37_residency_text():
    """Chapter 37's residency sentence, from the program's residency table in the runs of 37-screen."""
    d = SCREENS
    r = {n: program_rows(d / f"c37-all-n{n}.txt") for n in (32768, 65536)}
    resident = {}
    text = (d / "c37-all-n32768.txt").read_text()
    for line in text[text.index("Clusters resident"):].splitlines():
        f = line.split()
        if len(f) == 7 and f[1].isdigit():
            resident[(f[0], int(f[1]))] = (int(f[5]), float(f[6]))
    c65, per_sm = resident[("fft-thread-block-cluster", 65536)]
    c8e32 = float(r[32768]["c8-e32"]["speed vs cufft"].rstrip("x"))
    st32 = float(r[32768]["fft-thread-block-cluster"]["speed vs cufft"].rstrip("x"))
    if not (per_sm < 1.0 and resident[("c8-e32", 32768)][0] > resident[("fft-thread-block-cluster", 32768)][0]
            and c8e32 < st32):
        raise SystemExit("tables.py: 37-residency-text: no longer under one block per SM at 65536, or `c8-e32` no "
                         "longer has more clusters resident and runs slower at 32768")
    return (f"At 65536 only {c65} clusters of 8 blocks are resident at once "
            f"({per_sm:.2f} blocks per SM, the residency table under \"Measured\"), so no SM has a second block to "
            f"keep the memory busy while its cluster waits at a barrier; yet more clusters resident at 32768 "
            f"(`c8-e32`, {resident[('c8-e32', 32768)][0]} against the stage's "
            f"{resident[('fft-thread-block-cluster', 32768)][0]}) did not run faster ({c8e32:.2f}× cuFFT).")


# ---- The ladders' sweeps and chapters 03/04's sweeps: the sweeps JSON files beside the H100 results file ----
RESULTS = HERE.parent.parent  # docs/results
SWEEP_FILES = {"sgemm": "nvidia-h100-80gb-hbm3-sweeps-sgemm", "fft": "nvidia-h100-80gb-hbm3-sweeps-fft"}


def sweep_doc(kind):
    return json.loads((RESULTS / f"{SWEEP_FILES[kind]}.json").read_text())


def shown_options(command):
    """The options of a tools/results command line that chose what ran (--chapters, --budget-ms)."""
    words = command.split()
    return " ".join(f"{w} {words[i + 1]}" for i, w in enumerate(words[:-1]) if w in ("--chapters", "--budget-ms"))


def sweep_provenance(kind, what):
    m = sweep_doc(kind)["meta"]
    base = SWEEP_FILES[kind]
    plot = {"sgemm": "sgemm", "fft": "fft"}.get(what, what)
    return (f"{m['gpu']}, CUDA {m['cuda_runtime']}, {m['date'][:10]}, commit `{m['commit']}`: "
            f"`tools/results {shown_options(m['command'])}`, "
            f"[results](../../docs/results/{base}.md), raw JSON [{base}.json](../../docs/results/{base}.json); "
            f"plot: [{base}-{plot}.png](../../docs/results/{base}-{plot}.png)")


def ladder_runs(kind, chapter):
    runs = [r for r in sweep_doc(kind)["ladder_sweeps"][kind]["runs"] if r["chapter"] == chapter]
    if not runs:
        raise SystemExit(f"tables.py: no {kind} sweep runs of {chapter}")
    return runs


def stage_and_refs(run):
    rows = run["data"]["results"]
    stage = [r for r in rows if not r["reference"]]
    if len(stage) != 1:
        raise SystemExit(f"tables.py: {run['command']}: {len(stage)} non-reference rows")
    return stage[0], {r["variant"]: r for r in rows if r["reference"]}


def sgemm_sweep(chapter):
    runs = ladder_runs("sgemm", chapter)
    name = stage_and_refs(runs[0])[0]["variant"]
    out = [f"**GFLOP/s against size** (M = N = K; {sweep_provenance('sgemm', 'sgemm')}; each size one default run "
           f"of the program, cuBLAS measured by the same program at each size.)", "",
           f"| M = N = K | `{name}` GFLOP/s | % FP32 peak | cuBLAS GFLOP/s | vs cuBLAS | check |",
           "|---:|---:|---:|---:|---:|---|"]
    for run in runs:
        st, refs = stage_and_refs(run)
        cb = refs["cublas"]
        out.append(f"| {run['params']['size']} | {st['gflops']:.1f} | {st['pct_peak_fp32']:.1f} | {cb['gflops']:.1f} | "
                   f"{cb['median_ms'] / st['median_ms']:.2f}x | {st['check']} |")
    return "\n".join(out)


def fft_sweep(chapter):
    runs = ladder_runs("fft", chapter)
    name = stage_and_refs(runs[0])[0]["variant"]
    out = [f"**GB/s against N** ({sweep_provenance('fft', 'fft')}; each N one default run of the program on a 1 GiB "
           f"batch (`--size 2^27` `float2`); GB/s counts one read and one write of the batch; cuFFT and `cudaMemcpy` "
           f"measured by the same program at each N.)", "",
           f"| N | `{name}` GB/s | % of `cudaMemcpy` | cuFFT GB/s | `cudaMemcpy` GB/s | vs cuFFT | check |",
           "|---:|---:|---:|---:|---:|---:|---|"]
    for run in runs:
        st, refs = stage_and_refs(run)
        cf, cp = refs["cufft"], refs["cudaMemcpy"]
        out.append(f"| {run['params']['length']} | {st['gbps']:.1f} | {st['pct_memcpy']:.1f} | {cf['gbps']:.1f} | "
                   f"{cp['gbps']:.1f} | {cf['median_ms'] / st['median_ms']:.3g}x | {st['check']} |")
    return "\n".join(out)


def side_sweep(name, metric, unit, title, scale=1.0, digits=1):
    sweep = sweep_doc("sgemm")["sweeps"][name]
    key = sweep["option"].lstrip("-")
    variants = [r["variant"] for r in sweep["runs"][0]["data"]["results"]]
    plot = {"vector_loads": "vector-loads", "atomics": "atomics"}[name]
    out = [f"**{title}** ({sweep_provenance('sgemm', plot)}; one run of the program per `{sweep['option']}` "
           f"value; cells: {unit}.)", "",
           f"| {key} | " + " | ".join(f"`{v}`" for v in variants) + " |",
           "|---:|" + "---:|" * len(variants)]
    for run in sweep["runs"]:
        cells = {r["variant"]: r[metric] * scale for r in run["data"]["results"]}
        n = run["data"]["results"][0]["n"]
        label = run["params"][key] + ("%" if key == "selectivity" else f" ({n:,} elements)" if key == "size" else "")
        out.append(f"| {label} | " + " | ".join(f"{cells[v]:.{digits}f}" for v in variants) + " |")
    return "\n".join(out)


def vector_loads_sweep():
    return side_sweep("vector_loads", "gbps", "GB/s (bytes read + written / median time)", "Bandwidth against size")


def atomics_sweep():
    n = sweep_doc("sgemm")["sweeps"]["atomics"]["runs"][0]["data"]["results"][0]["n"]
    return side_sweep("atomics", "median_ms", f"median time in µs at n = {n:,}", "Time against selectivity",
                      scale=1000.0, digits=1)


SWEEP_BLOCKS = ([("03-sweep", vector_loads_sweep), ("04-sweep", atomics_sweep)] +
                [(f"{c[:2]}-sweep", (lambda c=c: sgemm_sweep(c))) for c in
                 ["20-sgemm-naive", "21-sgemm-shared-tiling", "22-sgemm-register-blocking", "23-sgemm-2d-register-tile",
                  "24-sgemm-vectorized-transposed", "25-sgemm-warp-tiling", "26-sgemm-double-buffering", "27-sgemm-tuned"]] +
                [(f"{c}-sweep", (lambda c=c: fft_sweep(c))) for c in
                 ["30-fft-dft", "31-fft-stockham-global", "32-fft-shared-memory", "33-fft-registers-exchange",
                  "34-fft-high-radix", "35-fft-tuned"]])


# README block name -> the file in tables/ that fills it (tools/fill-measured --extra NAME=FILE).
BLOCKS = {
    "18-h100-targets": "18-targets", "18-h100-types": "18-types", "18-h100-variants": "18-variants",
    "18-h100-timeline": "18-timeline", "18-h100-timeline-screen": "18-timeline-screen",
    "28-h100-screen": "28-screen", "29-h100-screen": "29-screen", "29-h100-shapes": "29-shapes",
    "29-h100-stream-k": "29-stream-k", "29-h100-sweep-change": "29-sweep-change",
    "29-h100-candidates": "29-candidates", "28-h100-calibration": "28-calibration", "ncu-fft-h100": "ncu-fft",
    "36-h100-screen": "36-screen",
    "36-h100-candidates": "36-candidates", "36-h100-screen-text": "36-screen-text",
    "36-occupancy": "36-occupancy", "36-half-buffer": "36-half-buffer",
    # Generated from the build's resources file (RESOURCES), not from a run:
    "18-registers": "18-registers", "27-resources": "27-resources", "29-registers": "29-registers",
    "35-registers": "35-registers", "37-occupancy": "37-occupancy",
    "37-h100-screen": "37-screen",
    "37-h100-screen-text": "37-screen-text", "37-h100-residency-text": "37-residency-text", "37-h100-candidates": "37-candidates", "38-h100-by-length": "38-screen",
    "38-h100-sweep": "38-sweep", "38-h100-screen-text": "38-screen-text", "40-h100-stage-choice": "40-stage-choice",
    "40-h200x2-idea": "40-h200x2-idea", "40-h200x2-scaling": "40-h200x2-scaling",
    "40-h200x2-bound-text": "40-h200x2-bound-text", "40-h200x2-bound-r": "40-h200x2-bound-r",
    "40-h200x2-parts": "40-h200x2-parts", "40-h200x2-uneven": "40-h200x2-uneven",
    "40-h200x4-scaling": "40-h200x4-scaling", "40-h200x4-bound": "40-h200x4-bound",
    "40-h200x4-uneven": "40-h200x4-uneven", "40-h200x4-forms": "40-h200x4-forms",
    **{name: name for name, _ in SWEEP_BLOCKS},
}


TABLES = [("18-variants", scan_variants), ("18-types", scan_types), ("29-shapes", gemm_shapes),
          ("29-sweep-change", gemm_sweep_change), ("29-candidates", gemm_candidates),
          ("36-candidates", fft36), ("37-candidates", fft37), ("ncu-fft", ncu_fft),
          ("28-screen", gemm28_screen), ("28-calibration", gemm28_calibration), ("29-screen", gemm29_screen),
          ("36-screen", fft36_screen), ("37-screen", fft37_screen),
          ("38-screen", fft38_screen), ("29-stream-k", gemm_stream_k), ("18-targets", scan18_targets),
          ("18-timeline", scan18_timeline), ("18-timeline-screen", scan18_timeline_screen),
          ("36-screen-text", fft36_screen_text), ("36-occupancy", fft36_occupancy),
          ("36-half-buffer", fft36_half_buffer), ("37-screen-text", fft37_screen_text), ("37-residency-text", fft37_residency_text),
          ("18-registers", scan18_registers), ("27-resources", gemm27_candidates_resources),
          ("29-registers", gemm29_registers), ("35-registers", fft35_registers), ("37-occupancy", fft37_occupancy),
          ("38-sweep", fft38_sweep), ("38-screen-text", fft38_screen_text),
          ("40-stage-choice", multi_gpu_stage_choice), ("40-h200x2-idea", multi_idea),
          ("40-h200x2-scaling", multi_scaling), ("40-h200x2-bound-text", multi_bound_text),
          ("40-h200x2-bound-r", multi_bound_r), ("40-h200x2-parts", multi_parts),
          ("40-h200x2-uneven", multi_uneven), ("40-h200x4-scaling", multi4_scaling),
          ("40-h200x4-bound", multi4_bound), ("40-h200x4-uneven", multi4_uneven),
          ("40-h200x4-forms", multi4_forms)] + SWEEP_BLOCKS


def write_tables(tables, blocks, out, argv):
    """Write each (name, make) of TABLES to OUT/name.md (with --check: only compare, exit 1 on a difference); with
    --fill, fill each README block of BLOCKS ({block: table name}) through tools/fill-measured (a table script in
    another raw folder calls this too)."""
    script = pathlib.Path(sys.argv[0]).name
    check = "--check" in argv
    stale = []
    out.mkdir(exist_ok=True)
    for name, make in tables:
        text = make() + "\n"
        path = out / f"{name}.md"
        if check:  # change nothing: a committed table that differs from what the captures give is an error
            if not path.is_file() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"{script}: {len(stale)} committed table(s) differ from what the captures give (run {script} "
              f"--fill): {', '.join(stale)}", file=sys.stderr)
        sys.exit(1)
    missing = sorted(set(blocks.values()) - {p.stem for p in out.glob("*.md")})
    if missing:
        raise SystemExit(f"{script}: BLOCKS names tables not written: {', '.join(missing)}")
    if "--fill" in argv:
        root = HERE.parents[3]
        cmd = [sys.executable, str(root / "tools" / "fill-measured"), str(root / "docs/results/nvidia-h100-80gb-hbm3.md")]
        cmd += [f"--extra={block}={out / (f + '.md')}" for block, f in blocks.items()]
        if check:
            cmd.append("--check")
        sys.exit(subprocess.run(cmd).returncode)


def main():
    write_tables(TABLES, BLOCKS, OUT, sys.argv[1:])

if __name__ == "__main__":
    main()
