#!/usr/bin/env python3
"""Writes chapter 35's table of tuning candidates from this folder's captures (fft35/all-35-n*.csv: NVIDIA H200,
2026-11-23, commit 7926d81, `--variant all` at N = 16 ... 4096), with the sentences around it. No GPU needed:

  python3 docs/results/raw/2026-11-23-h200x2/tables_early.py                 # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-23-h200x2/tables_early.py --fill          # and fills the README block
  python3 docs/results/raw/2026-11-23-h200x2/tables_early.py --fill --check  # changes nothing; exit 1 if a
                                                                             # table or the block would

Every number comes from a capture (and the first sentence's from ../2026-11-23-h200/results-8dd30d0.md); nothing
is typed by hand. The writing and filling are ../2026-11-21-h200/tables_early.py's, loaded from its path."""
import importlib.util
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("f18eb3b_tables", HERE.parent / "2026-11-23-h200-f18eb3b" / "tables.py")
f18 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f18)
early = f18.early

LENGTHS = (16, 64, 256, 1024, 2048, 4096)
RAW = "../../docs/results/raw/2026-11-23-h200x2/fft35/"
TOUR = HERE.parent / "2026-11-23-h200" / "results-8dd30d0.md"
REFERENCES = ("cudaMemcpy", "cufft")


def tour_row(chapter, variant):
    """{column: cell} of CHAPTER's VARIANT in the FFT table of a tools/results markdown."""
    header = None
    for line in TOUR.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == ["chapter", "variant"]:
            header = cells
        elif header and cells[:2] == [chapter, variant]:
            return dict(zip(header, cells))
    raise SystemExit(f"tables_early.py: no row {chapter} {variant} in {TOUR}")


def speed(row):
    return float(row["speed_vs_ref"])


def candidates():
    runs = {n: f18.variants(HERE / "fft35" / f"all-35-n{n}.csv") for n in LENGTHS}
    names = [v for v in runs[LENGTHS[0]] if v not in REFERENCES]
    checks = {r["check"] for n in LENGTHS for v, r in runs[n].items() if v != "cudaMemcpy"}
    tour = tour_row("35-fft-tuned", "fft-tuned")
    switched = [n for n in LENGTHS if n > 1024]  # the lengths where the stage at f18eb3b takes e16-t256-sincospif
    out = [f"The first run of the candidates (N = 16, 64 and 256) is summarised under \"How the stage was chosen\" "
           f"above, with its raw files. The new stage measured {tour['vs cuFFT']} cuFFT and {tour['% memcpy']}% of "
           f"`cudaMemcpy` at N = 1024 in the H200 tour of commit `8dd30d0` "
           f"([results-8dd30d0.md](../../docs/results/raw/2026-11-23-h200/results-8dd30d0.md)).", "",
           "A second run of every candidate, `--variant all --length N --budget-ms 150` at N = 16 … 4096 with 1 GiB "
           "batches\n(NVIDIA H200, CUDA 13.0, 2026-11-23, commit `7926d81`; raw:",
           ",\n".join(f"[{'all-35-n' if n == LENGTHS[0] else 'n'}{n}{'.csv' if n == LENGTHS[0] else ''}]"
                      f"({RAW}all-35-n{n}.csv)" for n in LENGTHS)
           + "). Each cell: GB/s (one read and one\nwrite of the batch) / speed against cuFFT (cuFFT's median time "
           "/ the candidate's, same process); "
           + ("every check\n`ok`." if checks == {"ok"} else f"checks: {', '.join(sorted(checks))}."), "",
           "| candidate | " + " | ".join(f"N = {n}" for n in LENGTHS) + " |", "|---|" + "---:|" * len(LENGTHS)]
    for v in names:
        label = ("`fft-tuned` row: the two-pass plan (the stage up to N = 1024)" if v == "fft-tuned" else f"`{v}`")
        cells = [f"{float(runs[n][v]['gbps']):.1f} / {speed(runs[n][v]):.3f}x"
                 + (" \\*" if v == "fft-tuned" and n in switched else "") for n in LENGTHS]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out.append("| cuFFT (reference) | " + " | ".join(f"{float(runs[n]['cufft']['gbps']):.1f}" for n in LENGTHS) + " |")
    out.append("| `cudaMemcpy` (the bound) | " + " | ".join(f"{float(runs[n]['cudaMemcpy']['gbps']):.1f}"
                                                          for n in LENGTHS) + " |")
    plan = "fft-tuned"
    within = max(100 * (1 - speed(runs[n][plan]) / max(speed(runs[n][v]) for v in names))
                 for n in LENGTHS if n <= 1024)
    winners = {n: max(names, key=lambda v: speed(runs[n][v])) for n in switched}
    win = set(winners.values())
    spread16 = 100 * (max(speed(runs[16][v]) for v in names) / min(speed(runs[16][v]) for v in names) - 1)
    out += ["", f"\\* At commit `7926d81` the row `fft-tuned` was the two-pass plan (`Shape<0, 256>`) at every N. "
            "Since commit\n`f18eb3b` the stage takes `e16-t256-sincospif`'s shape at N = 2048 and 4096, so these two "
            "cells are the two-pass\nplan's, not the current stage's; the current stage at those lengths is measured "
            "in \"The stage by length\" at the\ntop.", "",
            f"The two-pass plan is the best or within {within:.1f}% of the best up to "
            f"N = 1024; at {' and '.join(map(str, switched))} "
            + (f"`{win.pop()}`\nwins ("
               + ", ".join(f"{speed(runs[n][winners[n]]):.3f}x" for n in switched) + ")" if len(win) == 1
               else "different candidates win")
            + ", hence the stage by length. At N = 16 every candidate runs the same per-thread kernel and\nthey lie "
            f"within {spread16:.0f}% of each other.", "",
            "Not yet measured: `--variant all` with the current stage (commit `f18eb3b`) beside the candidates in one\n"
            "process; the stage's own default runs at N = 16 … 4096 are in \"The stage by length\"."]
    return "\n".join(out)


TABLES = [("35-fft-variants", candidates)]
BLOCKS = {name: name for name, _ in TABLES}

if __name__ == "__main__":
    early.main(TABLES, BLOCKS, HERE)
