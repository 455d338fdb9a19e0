#!/usr/bin/env python3
"""Writes README blocks from this folder's calls on one NVIDIA H200 (CUDA 13.0, driver 580.159.04, 2026-11-29):
chapter 59 with K padded to a multiple of 8 (c2: --variant all at 4095 x 4097 x 4093).

  python3 docs/results/raw/2026-11-29-h200-s7/tables.py                  # writes tables/*.md
  python3 docs/results/raw/2026-11-29-h200-s7/tables.py --fill           # and fills the README blocks
  python3 docs/results/raw/2026-11-29-h200-s7/tables.py --fill --check   # changes nothing; exit 1 on a difference"""
import csv
import pathlib
import re
import runpy
import sys

HERE = pathlib.Path(__file__).resolve().parent
S2 = runpy.run_path(str(HERE.parent / "2026-11-28-h200-s2" / "tables.py"))
RAW_LINK = "../../docs/results/raw/2026-11-29-h200-s7/"
COMMITS = {"c1": "4915122", "c2": "12384de"}
BF16_PEAK_TFLOPS = 132 * 4096 * 1980e6 / 1e12  # the dense peak the GEMM programs print (1071 TFLOP/s)


def provenance(call):
    return (f"NVIDIA H200, CUDA 13.0, driver 580.159.04, 2026-11-29, the working tree of commit "
            f"`{COMMITS[call]}`")


def rows(path):
    """{variant: row} of one program's --format csv output."""
    with open(HERE / path) as f:
        return {r["variant"]: r for r in csv.DictReader(f)}


def ms(r):
    return float(r["median_ms"])


def tie(a, b):
    """Each median inside the other row's min-max range."""
    return (float(a["min_ms"]) <= ms(b) <= float(a["max_ms"])) and (float(b["min_ms"]) <= ms(a) <= float(b["max_ms"]))


def plan_line(path, prefix):
    text = (HERE / path).read_text()
    m = re.search(r"^# plan: " + re.escape(prefix) + r".*$", text, re.M)
    assert m, f"no plan line {prefix} in {path}"
    return m.group(0)[len("# plan: "):]


def padded_k_59():
    """Chapter 59 at 4095 x 4097 x 4093: the stage on padded copies, its candidates on A and B as given."""
    path = "c2/runs/59-4095x4097x4093.csv"
    r = rows(path)
    line = plan_line(path.replace(".csv", ".err"), "59 bf16 gemm")
    chosen = re.search(r": (\S+) \(measured", line).group(1)
    names = [("bf16-gemm-by-shape", f"**59 `bf16-gemm-by-shape`** (A and B padded to K = 4096, then `{chosen}`)"),
             ("bf16-gemm-split-k", "58 `bf16-gemm-split-k` (the previous stage; chapter 54's kernel here)"),
             ("bf16-gemm-tma-mbarrier", "55 `bf16-gemm-tma-mbarrier` (chapter 54's kernel here)"),
             ("ping-pong", "57 `ping-pong` (chapter 54's kernel here)"),
             ("bf16-gemm-cp-async-pipeline", "53 `bf16-gemm-cp-async-pipeline` (`cp.async`, `mma.sync`)"),
             ("cublas", "cuBLAS `cublasGemmEx`")]
    out = ["| 4095 × 4097 × 4093, NVIDIA H200 | median µs | TFLOP/s | % of the BF16 peak | vs cuBLAS |",
           "|---|---:|---:|---:|---:|"]
    for v, label in names:
        d = r[v]
        tf = float(d["gflops"]) / 1000
        cells = [f"{1000 * ms(d):.1f}", f"{tf:.1f}", f"{100 * tf / BF16_PEAK_TFLOPS:.1f}", f"{float(d['speed_vs_ref']):.3f}x"]
        if v == "bf16-gemm-by-shape":
            cells = [f"**{c}**" for c in cells]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", f"One run of `59-bf16-gemm-by-shape --variant all --budget-ms 200 --m 4095 --n 4097 --k 4093` with an "
                f"empty plan folder ({provenance('c2')}; raw: [59-4095x4097x4093.csv]({RAW_LINK}{path})): every row "
                f"from one process, every output checked against cuBLAS. The candidates' rows run them as their "
                f"chapters do, on A and B as given. The plan line: `{line.split(': ', 1)[1].split('; cached')[0]})`: "
                f"each candidate timed with the copy."]
    return "\n".join(out)


TABLES = [("59-h200-padded-k", padded_k_59)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    S2["write_tables"](TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
