#!/usr/bin/env python3
"""SGEMM at every shape: chapters 27, 28 and 29 against cuBLAS over a fixed list of shapes, written as CSV.

  chapters/29-sgemm-split-k/shape_sweep.py OUTDIR [--build build] [--budget-ms 100] [--quick]

For each shape it runs the three chapter programs once (each times its stage and cuBLAS in the same
process, so each ratio is against its own cuBLAS run) and writes one row to OUTDIR/shapes.csv:
  m, n, k, the stage's GFLOP/s and cuBLAS's for chapters 29 and 28, their ratios, chapter 27's ratio,
  and the tile/split that chapters 28 and 29 chose (the line each program prints after its table);
  then, from the same chapter 29 process (the same cuBLAS run as the split-K stage), stream-K and its
  data-parallel hybrid: median ms, GFLOP/s, ratio to cuBLAS, check and schedule of each.
Then --variant all of chapters 28 and 29 at a few shapes, every candidate's GFLOP/s and ratio, to
OUTDIR/candidates.csv: the table that checks (or corrects) the model's choices. The programs' own
output goes to OUTDIR/raw/. About 4 minutes on an H200 at the default budget; --quick: 4 shapes.
Plot: chapters/29-sgemm-split-k/plot_shapes.py OUTDIR/shapes.csv.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

SHAPES = [  # (m, n, k): squares 256..8192 with non-powers of two, then the skinny, deep and flat ones
    (256, 256, 256), (512, 512, 512), (768, 768, 768), (1000, 1000, 1000), (1024, 1024, 1024),
    (1536, 1536, 1536), (2048, 2048, 2048), (2500, 2500, 2500), (3072, 3072, 3072), (4096, 4096, 4096),
    (5000, 5000, 5000), (6144, 6144, 6144), (8192, 8192, 8192),
    (4096, 4096, 256), (8192, 8192, 1024), (128, 4096, 4096), (4096, 128, 4096), (1024, 1024, 16384),
    (256, 256, 65536), (1000, 3000, 700), (64, 8192, 8192), (2048, 512, 8192), (3000, 1000, 2000),
    (1, 4096, 4096), (4096, 4096, 1),
]
QUICK = [(1024, 1024, 1024), (3072, 3072, 3072), (128, 4096, 4096), (4096, 4096, 4096)]
# The calibration's shapes (chapter 28's README), and two whose plans split the 64x128 tile (not yet measured).
CANDIDATE_SHAPES = [(1024, 1024, 1024), (3072, 3072, 3072), (4096, 4096, 4096), (128, 4096, 4096),
                    (1024, 1024, 16384), (4096, 128, 4096), (1536, 1536, 1536)]
PROGRAMS = {27: "27-sgemm-tuned", 28: "28-sgemm-tile-by-shape", 29: "29-sgemm-split-k"}
STAGES = {27: "sgemm-tuned", 28: "sgemm-tile-by-shape", 29: "sgemm-split-k"}
# On-demand variants of chapter 29 measured beside its stage at every shape, in the same process.
STREAM_K = ["stream-k", "dp-stream-k"]


def run(args, chapter, shape, extra, rawdir, tag_suffix=None):
    """Runs one chapter program in table mode; returns {variant: (median_ms, gflops, check)} and the
    explanation lines ("<variant> at M x N x K: ...")."""
    m, n, k = shape
    prog = os.path.join(args.build, "chapters", PROGRAMS[chapter], PROGRAMS[chapter])
    cmd = [prog, "--m", str(m), "--n", str(n), "--k", str(k), "--budget-ms", str(args.budget_ms)] + extra
    proc = subprocess.run(cmd, capture_output=True, text=True)
    suffix = tag_suffix if tag_suffix is not None else ("-all" if extra else "")
    tag = "%d-%dx%dx%d%s" % (chapter, m, n, k, suffix)
    with open(os.path.join(rawdir, tag + ".txt"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        print("shape_sweep: %s failed (exit %d): %s" % (tag, proc.returncode, proc.stderr.strip()[-300:]),
              file=sys.stderr)
    rows, explain = {}, {}
    in_table, tables = False, 0
    for line in proc.stdout.splitlines():
        if line.startswith("variant "):  # the first table is the timings; the second, the errors
            tables += 1
            in_table = tables == 1
            continue
        if in_table and line.startswith("---"):
            continue
        if in_table and not line.strip():
            in_table = False
            continue
        if in_table:
            # variant [*] n median min max reps GB/s %peak %memcpy GFLOP/s [%FP32] [speed] check...
            tok = line.split()
            if len(tok) > 1 and tok[1] == "*":
                del tok[1]
            try:
                rows[tok[0]] = (float(tok[2]), float(tok[9]), tok[-1])
            except (IndexError, ValueError):
                pass
        elif " at %d x %d x %d: " % (m, n, k) in line:
            variant, text = line.split(" at ", 1)
            explain[variant] = text.split(": ", 1)[1]
    return rows, explain


def ratio(rows, variant):
    if variant in rows and "cublas" in rows and rows["cublas"][1] > 0:
        return rows[variant][1] / rows["cublas"][1]
    return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--build", default="build")
    ap.add_argument("--budget-ms", type=int, default=100)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rawdir = os.path.join(args.outdir, "raw")
    os.makedirs(rawdir, exist_ok=True)
    for c in PROGRAMS:
        prog = os.path.join(args.build, "chapters", PROGRAMS[c], PROGRAMS[c])
        if not os.access(prog, os.X_OK):
            print("shape_sweep: error: %s is not built (ninja -C %s)" % (prog, args.build), file=sys.stderr)
            return 2
    start = time.time()
    shapes = QUICK if args.quick else SHAPES
    with open(os.path.join(args.outdir, "shapes.csv"), "w", newline="") as f:
        w = csv.writer(f)
        sk_head = []
        for v in STREAM_K:
            col = v.replace("-", "_")
            sk_head += ["ms_" + col, "gflops_" + col, "ratio_" + col, "check_" + col, "plan_" + col]
        w.writerow(["m", "n", "k", "gflops_29", "cublas_gflops_29", "ratio_29", "gflops_28", "cublas_gflops_28",
                    "ratio_28", "ratio_27", "check_29", "check_28", "check_27", "choice_29", "choice_28",
                    "ms_29"] + sk_head)
        for shape in shapes:
            # Chapter 29 runs its stage and the stream-K variants in one process: one cuBLAS run for all.
            res = {c: run(args, c, shape, ["--variant", ",".join([STAGES[29]] + STREAM_K)] if c == 29 else [],
                          rawdir, "") for c in PROGRAMS}
            r29, e29 = res[29]
            r28, e28 = res[28]
            r27, _ = res[27]
            get = lambda rows, v, i: rows[v][i] if v in rows else ""
            row = [*shape, get(r29, STAGES[29], 1), get(r29, "cublas", 1), "%.4f" % ratio(r29, STAGES[29]),
                   get(r28, STAGES[28], 1), get(r28, "cublas", 1), "%.4f" % ratio(r28, STAGES[28]),
                   "%.4f" % ratio(r27, STAGES[27]), get(r29, STAGES[29], 2), get(r28, STAGES[28], 2),
                   get(r27, STAGES[27], 2), e29.get(STAGES[29], ""), e28.get(STAGES[28], ""),
                   get(r29, STAGES[29], 0)]
            for v in STREAM_K:
                row += [get(r29, v, 0), get(r29, v, 1), "%.4f" % ratio(r29, v), get(r29, v, 2), e29.get(v, "")]
            w.writerow(row)
            f.flush()
            print("%5d x %5d x %5d  29: %s  28: %s  27: %s  stream-k: %s  dp-stream-k: %s  (%s)"
                  % (*shape, row[5], row[8], row[9], "%.4f" % ratio(r29, STREAM_K[0]), "%.4f" % ratio(r29, STREAM_K[1]),
                     row[13]), flush=True)
    with open(os.path.join(args.outdir, "candidates.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["chapter", "m", "n", "k", "variant", "median_ms", "gflops", "ratio_to_cublas", "check", "plan"])
        for shape in (QUICK[:2] if args.quick else CANDIDATE_SHAPES):
            for c in (28, 29):
                rows, explain = run(args, c, shape, ["--variant", "all"], rawdir)
                for v, (ms, gf, chk) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
                    w.writerow([c, *shape, v, ms, gf, "%.4f" % ratio(rows, v), chk, explain.get(v, "")])
                f.flush()
    print("shape_sweep: %.0f s; CSV in %s" % (time.time() - start, args.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
