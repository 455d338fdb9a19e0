#!/usr/bin/env python3
"""Writes the table of the tuned stages' plans on the H200 (docs/tuning-per-gpu.md, block plans-h200) from call 2's
captures in this folder (c2/plan/*.txt: one process per row, each stage with its library and, for the scans and
FFTs, a cudaMemcpy of the same bytes; NVIDIA H200, CUDA 13.0, 2026-11-28, the working tree of commit 9ca3a43).
Where a row was run twice (the first run measures the plan, the second reads it from the cache), both are shown.

  python3 docs/results/raw/2026-11-28-h200x4-s4/tables_plans.py                  # writes tables/plans-h200.md
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables_plans.py --fill           # and fills the block it feeds
  python3 docs/results/raw/2026-11-28-h200x4-s4/tables_plans.py --fill --check   # changes nothing; exit 1 on a difference
"""
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3] / "tools"))
from tutkit.chapter_map import parse_program_table  # noqa: E402

RAW_LINK = "../results/raw/2026-11-28-h200x4-s4/c2/plan/"
# (capture, stage variant, what the row is); a capture ending in -b is the same command run again (cache read).
ROWS = [("17-a", "scan-lookback-landing-zone", "17, int32 sum 2^28"),
        ("17-b", "scan-lookback-landing-zone", "17, the same again"),
        ("18-a", "scan-copy-bound", "18, int32 sum 2^28"),
        ("18-b", "scan-copy-bound", "18, the same again"),
        ("27-a", "sgemm-tuned", "27, 4096³"),
        ("28-4096", "sgemm-tile-by-shape", "28, 4096³"),
        ("28-skinny", "sgemm-tile-by-shape", "28, 64 × 4096 × 16384"),
        ("29-4096", "sgemm-split-k", "29, 4096³"),
        ("29-skinny-b", "sgemm-split-k", "29, 64 × 4096 × 16384"),
        ("35-2048", "fft-tuned", "35, N = 2^11"),
        ("35-4096", "fft-tuned", "35, N = 2^12"),
        ("36-8192", "fft-one-block-large", "36, N = 2^13"),
        ("36-16384", "fft-one-block-large", "36, N = 2^14"),
        ("37-32768", "fft-thread-block-cluster", "37, N = 2^15"),
        ("37-65536", "fft-thread-block-cluster", "37, N = 2^16"),
        ("38-65536", "fft-two-pass", "38, N = 2^16"),
        ("38-262144", "fft-two-pass", "38, N = 2^18"),
        ("38-1048576", "fft-two-pass", "38, N = 2^20"),
        ("38-1048576-b", "fft-two-pass", "38, the same again")]


def plan_of(text):
    """The plan's choice and how it was made ('measured', 'cached', 'model'), from the program's plan: line."""
    m = re.search(r"^plan: .*?: (\S+) \((measured|cached|model)", text, re.M)
    return (m.group(1), m.group(2)) if m else ("-", "no plan line")


def first_table(text):
    """The program's timing table (the first under a 'variant' header) and what precedes it: later tables (the
    SGEMM's error table) reuse the variant names with other columns."""
    head = text.index("\nvariant ")
    end = text.find("\n\n", head + 1)
    return text if end < 0 else text[:end]


def tie(stage, ref):
    """True when each row's median lies inside the other's min-max range (overlapping ranges alone would make a
    tie of 0.235x, where one slow repetition of cuBLAS stretched its range)."""
    def inside(row, other):
        return float(other["min ms"]) <= float(row["median ms"]) <= float(other["max ms"])
    return inside(stage, ref) and inside(ref, stage)


def plans_table():
    out = ["| stage, problem | plan (how chosen) | stage ms | library ms | vs library | share of the bound |",
           "|---|---|---:|---:|---:|---:|"]
    for capture, variant, what in ROWS:
        text = (HERE / "c2" / "plan" / f"{capture}.txt").read_text()
        assert text.rstrip().endswith("rc=0"), f"{capture}: the program failed"
        _, _, rows = parse_program_table(first_table(text))
        stage = rows[variant]
        assert stage["check"] == "ok", f"{capture}: {variant} failed its check"
        ref_col = next(k for k in stage if k.startswith("speed vs "))
        ref = rows[ref_col[len("speed vs "):]]
        choice, how = plan_of(text)
        share = (f"{stage['% memcpy']}% of copy" if stage.get("% memcpy", "-") != "-"
                 else f"{stage['% FP32 peak']}% of FP32 peak")
        ratio = stage[ref_col] + (" (a tie)" if tie(stage, ref) else "")
        out.append(f"| [{what}]({RAW_LINK}{capture}.txt) | `{choice}` ({how}) | {stage['median ms']} | "
                   f"{ref['median ms']} | {ratio} | {share} |")
    out += ["", "One process per row: the stage, its library (CUB, cuBLAS or cuFFT) and, for the scans and FFTs, a "
            "`cudaMemcpy` of the same bytes, `--budget-ms 200`, a fresh plan folder (`TUT_PLAN_DIR`) for the call "
            "(NVIDIA H200 of a 4 × H200 machine, one GPU per job, CUDA 13.0, 2026-11-28, the working tree of commit "
            "`9ca3a43`; script [c2.sh](../results/raw/2026-11-28-h200x4-s4/c2.sh)). \"measured\": the set-up timed "
            "the candidates and cached the winner; \"cached\": a later process read it; \"model\": the in-flight or "
            "per-SM model decided without timing. A tie: each median lies inside the other row's min–max range."]
    return "\n".join(out)


TABLES = [("plans-h200", plans_table)]
BLOCKS = {"plans-h200": "plans-h200"}

if __name__ == "__main__":
    runpy.run_path(str(HERE.parent / "2026-11-25-h100" / "tables.py"))["write_tables"](
        TABLES, BLOCKS, HERE / "tables", sys.argv[1:])
