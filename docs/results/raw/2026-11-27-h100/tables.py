#!/usr/bin/env python3
"""Writes the tables and sentences that chapters 01-04 take from this folder's ncu captures (NVIDIA H100 80GB
HBM3, 2026-11-27, the working tree of commit 85a4bc5; c1.sh made them), through the functions that wrote them
from the H200 captures of 2026-11-21 (../2026-11-21-h200/tables_early.py), and chapter 02's rule-4 metric:

  python3 docs/results/raw/2026-11-27-h100/tables.py                  # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-27-h100/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-27-h100/tables.py --fill --check   # changes nothing; exit 1 on a difference

Every number comes from a capture in this folder; nothing is typed by hand."""
import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
RAW_LINK = "../../docs/results/raw/2026-11-27-h100/"
COMMIT = "85a4bc5"


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


early = load(HERE.parent / "2026-11-21-h200" / "tables_early.py", "tables_early")
early.HERE, early.RAW_LINK = HERE, RAW_LINK
early.NCU = {"gpu": "NVIDIA H100 80GB HBM3", "short": "H100", "date": "2026-11-27", "commit": COMMIT,
             "commit_01": COMMIT}

LD_REQUESTS, LD_SECTORS = early.LD_REQUESTS, early.LD_SECTORS
ACTIVE = "sm__warps_active.avg.pct_of_peak_sustained_active"
STALL = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"


def why_02():
    """Chapter 02, rule 4: what the 32-bit and the 128-bit copy (128 threads per block) keep in flight."""
    runs = {}
    for v, bytes_per_thread in (("copy32-block128", 4), ("copy128-block128", 16)):
        (kernel, m), = early.ncu_first_launch(f"ncu-02-{v}.csv").items()  # the timed run's one launch
        requests, sectors = early.count(m[LD_REQUESTS]), early.count(m[LD_SECTORS])
        # one load per thread: at most one request of 32 x bytes_per_thread per resident warp in flight
        in_flight = float(m[ACTIVE]) / 100 * 64 * 32 * bytes_per_thread / 1024
        runs[v] = dict(m=m, requests=requests, sectors=sectors, per_request=sectors * 32 // requests,
                       in_flight=in_flight)
    a, b = runs["copy32-block128"], runs["copy128-block128"]
    same = "the same" if a["sectors"] == b["sectors"] else "about the same"
    return (f"**The `ncu` metric that shows why:** `{LD_REQUESTS}` with `{ACTIVE}`. The 32-bit copy loads {same} "
            f"{a['sectors']:,} sectors in {a['requests']:,} requests of {a['per_request']} bytes, the 128-bit one in "
            f"{b['requests']:,} of {b['per_request']}, and keeps {float(b['m'][ACTIVE]):.1f}% of the SM's 64 warp slots "
            f"busy against {float(a['m'][ACTIVE]):.1f}%. Each thread copies once, so a resident warp has at most one "
            f"load in flight: about {b['in_flight']:.1f} KiB per SM against {a['in_flight']:.1f} KiB, and "
            f"`{DRAM}` reads {float(b['m'][DRAM]):.1f}% against {float(a['m'][DRAM]):.1f}%. "
            f"(`{STALL}` goes the other way, {float(a['m'][STALL]):.1f} to {float(b['m'][STALL]):.1f}: with the DRAM "
            f"busy each load waits longer.) NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-11-27, working tree of commit "
            f"`{COMMIT}`, 2^27 floats, the timed run's launch; raw: [copy32]({RAW_LINK}ncu-02-copy32-block128.csv), "
            f"[copy128]({RAW_LINK}ncu-02-copy128-block128.csv).")


TABLES = [("01-branches", early.branches_01), ("01-ncu-why", early.why_01), ("02-ncu-why", why_02),
          ("03-ncu", early.ncu_03), ("03-ncu-why", early.why_03), ("04-ncu", early.ncu_04),
          ("04-ncu-why", early.why_04)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    early.h100_tables().write_tables(TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
