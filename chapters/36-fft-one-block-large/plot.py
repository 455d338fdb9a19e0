#!/usr/bin/env python3
"""GB/s and speed against cuFFT over N from the CSVs of sweep.sh (one file per length, the program's --format csv).

  python3 chapters/36-fft-one-block-large/plot.py DIR [OUT.png]

Top: GB/s (one read and one write of the batch / median time) of every variant in the files, cuFFT and
cudaMemcpy (the bound). Bottom: every non-reference variant's speed against cuFFT (cuFFT's time / its time).
Needs matplotlib (pip install matplotlib).
"""
import csv
import pathlib
import sys


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    directory = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) == 3 else str(pathlib.Path(directory) / "fft-one-block-large.png")
    lengths = {}  # file's N from its name: the csv's n column is the batch's element count, not the length
    for path in pathlib.Path(directory).glob("n*.csv"):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                lengths.setdefault(int(path.stem[1:]), []).append(row)
    if not lengths:
        print(f"plot.py: no n*.csv files in {directory} (run sweep.sh first)", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series, ratio = {}, {}
    chapters = sorted({row["chapter"].split("-")[0] for rows in lengths.values() for row in rows})
    for n in sorted(lengths):
        for row in lengths[n]:
            series.setdefault(row["variant"], []).append((n, float(row["gbps"])))
            if row["reference"] == "0" and row["variant"] != "cudaMemcpy" and row["speed_vs_ref"] not in ("", "0"):
                ratio.setdefault(row["variant"], []).append((n, float(row["speed_vs_ref"])))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for name, points in series.items():
        xs, ys = zip(*points)
        style = "--" if name in ("cudaMemcpy", "cufft") else "-o"
        top.plot(xs, ys, style, label=name, markersize=3)
    top.set_ylabel("GB/s (read + write)")
    top.set_title("Batched C2C FFT, 1 GiB per length: chapter " + ", ".join(chapters))
    top.legend()
    top.grid(True, alpha=0.3)
    for name, points in ratio.items():
        xs, ys = zip(*points)
        bottom.plot(xs, ys, "-o", label=name, markersize=3)
    bottom.axhline(1.0, color="gray", linewidth=0.8)
    bottom.set_ylabel("speed vs cuFFT")
    bottom.set_xlabel("N (signal length)")
    bottom.set_xscale("log", base=2)
    bottom.legend()
    bottom.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
