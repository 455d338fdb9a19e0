#!/usr/bin/env python3
"""Ratio to cuBLAS per shape, chapters 27, 28 and 29 (and 29's stream-K where measured), from shape_sweep.py's shapes.csv.

  chapters/29-sgemm-split-k/plot_shapes.py OUTDIR/shapes.csv [-o shapes.png]
"""
import argparse
import csv
import math
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--output", default=None, help="image file (default: next to the CSV, shapes.png)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_shapes: error: matplotlib is not installed (python3 -m pip install matplotlib)", file=sys.stderr)
        return 2
    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print("plot_shapes: error: %s has no rows" % args.csv, file=sys.stderr)
        return 2
    labels = ["%sx%sx%s" % (r["m"], r["n"], r["k"]) for r in rows]
    series = [("27 sgemm-tuned", "ratio_27"), ("28 tile by shape", "ratio_28"), ("29 split-K", "ratio_29")]
    # Stream-K columns where the sweep measured them (CSVs before it have none).
    series += [(name, key) for name, key in (("29 stream-K", "ratio_stream_k"), ("29 dp + stream-K", "ratio_dp_stream_k"))
               if key in rows[0]]
    fig, ax = plt.subplots(figsize=(max(8, 0.15 * len(series) * len(rows)), 4.5))
    width = 0.8 / len(series)
    for i, (name, key) in enumerate(series):
        values = [float(r[key]) if r[key] not in ("", "nan") else float("nan") for r in rows]
        ax.bar([x + (i - (len(series) - 1) / 2) * width for x in range(len(rows))], values, width, label=name)
        finite = [v for v in values if v > 0 and not math.isnan(v)]
        if finite:
            geo = math.exp(sum(math.log(v) for v in finite) / len(finite))
            print("%-18s geomean %.3f over %d shapes, min %.3f" % (name, geo, len(finite), min(finite)))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("GFLOP/s / cuBLAS GFLOP/s (same program)")
    ax.set_title("SGEMM (FP32 FFMA) at every shape, against cublasSgemm")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = args.output
    if out is None:
        out = os.path.join(os.path.dirname(args.csv), "shapes.png")
    fig.savefig(out, dpi=120)
    print("plot_shapes: wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
