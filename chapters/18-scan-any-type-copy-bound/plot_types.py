#!/usr/bin/env python3
"""Share of cudaMemcpy per type and operator, the stage and CUB, from measure.sh's types-<type>-<op>-2p28.csv.

  chapters/18-scan-any-type-copy-bound/plot_types.py OUTDIR [-o OUTDIR/types-2p28.png]
"""
import argparse
import csv
import os
import sys

TYPES = ["int32", "uint32", "int64", "float", "double"]
OPS = ["sum", "max"]
SERIES = [("the stage (scan-copy-bound)", "scan-copy-bound"), ("CUB", "cub")]


def read_pct_memcpy(path):
    """{variant: pct_memcpy} of one CSV written by the chapter's --format csv."""
    with open(path, newline="") as f:
        return {r["variant"]: float(r["pct_memcpy"]) for r in csv.DictReader(f) if r.get("pct_memcpy")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir", help="measure.sh's output folder")
    ap.add_argument("-o", "--output", default=None, help="image file (default: OUTDIR/types-2p28.png)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_types: error: matplotlib is not installed (python3 -m pip install matplotlib)", file=sys.stderr)
        return 2
    labels, values = [], {key: [] for _, key in SERIES}
    for t in TYPES:
        for op in OPS:
            path = os.path.join(args.outdir, "types-%s-%s-2p28.csv" % (t, op))
            if not os.path.isfile(path):
                continue
            pct = read_pct_memcpy(path)
            labels.append("%s\n%s" % (t, op))
            for _, key in SERIES:
                values[key].append(pct.get(key, float("nan")))
    if not labels:
        print("plot_types: error: no types-<type>-<op>-2p28.csv in %s" % args.outdir, file=sys.stderr)
        return 2
    fig, ax = plt.subplots(figsize=(max(7, 0.8 * len(labels)), 4.2))
    width = 0.4
    for i, (name, key) in enumerate(SERIES):
        xs = [x + (i - 0.5) * width for x in range(len(labels))]
        bars = ax.bar(xs, values[key], width, label=name)
        ax.bar_label(bars, fmt="%.0f", fontsize=7)
    ax.axhline(100, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    ax.set_ylabel("% of cudaMemcpy (same bytes)")
    ax.set_title("Chapter 18: inclusive scan of 2^28 values, share of the copy bound")
    ax.legend(loc="lower right")
    fig.tight_layout()
    out = args.output or os.path.join(args.outdir, "types-2p28.png")
    fig.savefig(out, dpi=120)
    print("wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
