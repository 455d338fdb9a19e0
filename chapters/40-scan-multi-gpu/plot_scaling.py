#!/usr/bin/env python3
"""Draws chapter 40's scaling figure from the program's own parts tables (the raw text outputs).

    python3 chapters/40-scan-multi-gpu/plot_scaling.py [RAW_DIR] [OUT_PNG]

RAW_DIR defaults to docs/results/raw/2026-11-27-h200x2/multigpu (two H200s, 2026-11-27); OUT_PNG to
scaling-h200x2.png next to this script. Needs matplotlib. Each bar pair is one program run: the measured speed-up
of the two-GPU row over the one-GPU row (strong scaling), or T1/T2 at a fixed n per GPU (weak), next to the bound
the program computed from the same run's parts (reduce + exchange + scan of one shard).
"""
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[1] / "docs/results/raw/2026-11-27-h200x2/multigpu"
OUT = Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "scaling-h200x2.png"

# (label, file, kind): strong rows compare with the bound's "bound vs 1 GPU"; weak rows with T1 / bound.
RUNS = [("strong, n = 2^30", "strong-2p30.txt", "strong"),
        ("strong, n = 2^32", "strong-2p32-cap150.txt", "strong"),
        ("weak, 2^28 per GPU", "weak-2p28.txt", "weak"),
        ("2^30, last shard 130%", "uneven-w130-2p30.txt", "strong"),
        ("2^30, last shard 142%", "uneven-w142-2p30.txt", "strong"),
        ("2^30, last shard 150%", "uneven-w150-2p30.txt", "strong")]


def parts_rows(path):
    """{GPU count: {column: text}} from the parts table (header line starting 'GPUs')."""
    lines = path.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("GPUs "))
    header = re.split(r"\s{2,}", lines[start].strip())
    rows = {}
    for line in lines[start + 2:]:
        if not re.match(r"^\d+\s", line):
            break
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == len(header):
            rows[int(cells[0])] = dict(zip(header, cells))
    return rows


def number(text):
    return float(text.rstrip("x"))


def main():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, measured, bound = [], [], []
    for label, name, kind in RUNS:
        rows = parts_rows(RAW / name)
        one, two = rows[1], rows[2]
        if kind == "strong":
            measured.append(number(two["vs 1 GPU"]))
            bound.append(number(two["bound vs 1 GPU"]))
        else:  # weak: T1 / T2 and T1 / bound2, with T1 the one-GPU time at the same n per GPU
            t1 = number(one["whole us"])
            measured.append(t1 / number(two["whole us"]))
            bound.append(t1 / number(two["bound us"]))
        labels.append(label)
        print(f"{label:24s} measured {measured[-1]:.2f}x  bound {bound[-1]:.2f}x  ({100 * measured[-1] / bound[-1]:.1f}%)")

    fig, ax = plt.subplots(figsize=(9, 4.2))
    x = range(len(labels))
    ax.bar([i - 0.2 for i in x], bound, width=0.4, label="bound (from the run's own parts)", color="#bbbbbb")
    ax.bar([i + 0.2 for i in x], measured, width=0.4, label="measured, 2 GPUs", color="#1f77b4")
    for i, (m, b) in enumerate(zip(measured, bound)):
        ax.text(i + 0.2, m + 0.02, f"{m:.2f}", ha="center", fontsize=8)
        ax.text(i - 0.2, b + 0.02, f"{b:.2f}", ha="center", fontsize=8, color="#555555")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(4 / 3, color="#d62728", linewidth=0.8, linestyle="--", label="2P/3 = 1.33 (equal reduce and scan rates)")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("speed-up over one GPU (weak: T1 / T2)")
    ax.set_ylim(0, 1.9)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("Chapter 40: inclusive int32 scan on two GPUs against its bound\n"
                 "2 x NVIDIA H200 (one host), CUDA 13.0, NCCL 2.28.3, 2026-11-27, commit 266c73c", fontsize=9)
    fig.tight_layout()
    fig.savefig(OUT, dpi=120)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
