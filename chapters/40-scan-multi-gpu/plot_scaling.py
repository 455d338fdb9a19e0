#!/usr/bin/env python3
"""Draws chapter 40's scaling figure from the program's own parts tables (the raw text outputs).

    python3 chapters/40-scan-multi-gpu/plot_scaling.py [--two DIR] [--four DIR] [--out PNG]

Two panels, one per machine, never mixed: --two (default docs/results/raw/2026-11-27-h200x2/multigpu, two H200s,
2026-11-27) and --four (default docs/results/raw/2026-11-28-h200x4/multigpu, four H200s of another host,
2026-11-28); --out defaults to scaling-h200.png next to this script. Needs matplotlib. Each bar is one GPU count
of one program run: the measured speed-up of that row over the run's one-GPU row (strong scaling), or T1/TP at a
fixed n per GPU (weak), next to the bound the program computed from the same run's parts (reduce + exchange + scan
of one shard). The title of each panel (machine, date, commit) is read from the raw folder's README.md and
commit.txt, the CUDA and NCCL versions from the program output.
"""
import argparse
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE.parents[1] / "docs/results/raw"

# (label, file, kind): strong rows compare with the bound's "bound vs 1 GPU"; weak rows with T1 / bound.
TWO = [("strong, n = 2^30", "strong-2p30.txt", "strong"),
       ("strong, n = 2^32", "strong-2p32-cap150.txt", "strong"),
       ("weak, 2^28 per GPU", "weak-2p28.txt", "weak"),
       ("2^30, last shard 130%", "uneven-w130-2p30.txt", "strong"),
       ("2^30, last shard 142%", "uneven-w142-2p30.txt", "strong"),
       ("2^30, last shard 150%", "uneven-w150-2p30.txt", "strong")]
FOUR = [("strong, n = 2^30", "strong4-2p30.txt", "strong"),
        ("strong, n = 2^32", "strong4-2p32.txt", "strong"),
        ("weak, 2^28 per GPU", "weak4-2p28.txt", "weak"),
        ("2^30, last shard 110%", "uneven4-w110-2p30.txt", "strong")]


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


def speedups(raw, runs):
    """[(label, {P: (measured, bound)})] for every GPU count above one in each run."""
    out = []
    for label, name, kind in runs:
        rows = parts_rows(raw / name)
        t1 = number(rows[1]["whole us"])
        per = {}
        for p, row in sorted(rows.items()):
            if p == 1:
                continue
            if kind == "strong":
                per[p] = (number(row["vs 1 GPU"]), number(row["bound vs 1 GPU"]))
            else:  # weak: T1 / TP and T1 / boundP, with T1 the one-GPU time at the same n per GPU
                per[p] = (t1 / number(row["whole us"]), t1 / number(row["bound us"]))
        out.append((label, per))
        print(f"{raw.parent.name} {label:24s} " + "  ".join(
            f"{p} GPUs: measured {m:.2f}x bound {b:.2f}x ({100 * m / b:.1f}%)" for p, (m, b) in per.items()))
    return out


def machine(raw):
    """'4 x NVIDIA H200, CUDA 13.0, NCCL 2.28.3, 2026-11-28, commit d7b050b' from the folder's files."""
    readme = (raw.parent / "README.md").read_text()
    date = re.search(r"^# .*?(\d{4}-\d{2}-\d{2})", readme, re.M).group(1)
    commit = (raw / "commit.txt").read_text().split()[0]
    gpus = [l for l in (raw / "gpu.txt").read_text().splitlines() if l.strip()]
    text = next(raw.glob("strong*2p30.txt")).read_text()
    gpu = re.search(r"^GPU 0: (.+?) \(", text, re.M).group(1)
    cuda = re.search(r"^driver [\d.]+, runtime ([\d.]+)$", text, re.M).group(1)
    nccl = re.search(r"NCCL ([\d.]+);", text).group(1)
    return f"{len(gpus)} x {gpu} (one host), CUDA {cuda}, NCCL {nccl}, {date}, commit {commit}"


def panel(ax, data, title):
    counts = sorted({p for _, per in data for p in per})
    colors = {2: ("#c6dbef", "#1f77b4"), 4: ("#fdd0a2", "#e6550d"), 8: ("#d9d9d9", "#636363")}
    width = 0.8 / (2 * len(counts))
    for i, (_, per) in enumerate(data):
        for j, p in enumerate(counts):
            if p not in per:
                continue
            m, b = per[p]
            x0 = i - 0.4 + 2 * j * width + width / 2
            ax.bar(x0, b, width=width, color=colors[p][0], edgecolor=colors[p][1], linewidth=0.6,
                   label=f"bound, {p} GPUs" if i == 0 else None)
            ax.bar(x0 + width, m, width=width, color=colors[p][1], label=f"measured, {p} GPUs" if i == 0 else None)
            ax.text(x0, b + 0.03, f"{b:.2f}", ha="center", fontsize=6.5, color="#555555")
            ax.text(x0 + width, m + 0.03, f"{m:.2f}", ha="center", fontsize=6.5)
    for p in counts:
        ax.axhline(2 * p / 3, color=colors[p][1], linewidth=0.8, linestyle="--",
                   label=f"2P/3 = {2 * p / 3:.2f}, P = {p}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(data)))
    ax.set_xticklabels([label for label, _ in data], rotation=15, ha="right", fontsize=7.5)
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=6.5, loc="upper left", ncol=2 if len(counts) > 1 else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--two", type=Path, default=RAW / "2026-11-27-h200x2/multigpu")
    ap.add_argument("--four", type=Path, default=RAW / "2026-11-28-h200x4/multigpu")
    ap.add_argument("--out", type=Path, default=HERE / "scaling-h200.png")
    a = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    two, four = speedups(a.two, TWO), speedups(a.four, FOUR)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [6, 5]})
    panel(left, two, machine(a.two))
    panel(right, four, machine(a.four))
    left.set_ylabel("speed-up over one GPU (weak: T1 / TP)")
    left.set_ylim(0, 2.0)
    right.set_ylim(0, 3.9)
    fig.suptitle("Chapter 40: inclusive int32 scan on 2 and 4 GPUs against its bound (from each run's own "
                 "parts; 2P/3: equal reduce and scan rates)\ntwo machines, each panel one host's runs; eight GPUs: not "
                 "lent, not measured", fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
