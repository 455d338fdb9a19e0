#!/usr/bin/env python3
"""Writes the H200 tables and sentences that chapters 16 and 17 cite from the scan captures of 2026-11-21/22/23
(this folder, ../2026-11-21-h200, ../2026-11-23-h200x2/scan; no GPU needed):

  python3 docs/results/raw/2026-11-22-h200/tables.py          # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-22-h200/tables.py --fill   # and fills every README block they feed (BLOCKS:
                                                              # tools/fill-measured with one --extra per block)
  python3 docs/results/raw/2026-11-22-h200/tables.py --fill --check   # changes nothing; exit 1 if a table or a
                                                                      # block would

Every measured number comes from a JSON, CSV or program output under docs/results/raw/. The registers per thread
and blocks per SM in the shape tables are compile-time facts (ptxas -v, nvcc 13.0, sm_90, and the occupancy
limits they give), kept here as constants; bytes in flight are computed from them."""
import csv
import importlib.util
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
RAW = HERE.parent
ROOT = HERE.parents[3]
OUT = HERE / "tables"
LINK = "../../docs/results/raw/"

# program_rows (a chapter program's text table as {variant: {column: text}}) lives once in the H100 script.
_spec = importlib.util.spec_from_file_location("h100_tables", RAW / "2026-11-25-h100" / "tables.py")
_h100 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_h100)
program_rows = _h100.program_rows

RESULTS = HERE / "results-b100d90.json"


def results_rows(chapter):
    """{variant: row} of CHAPTER in the tools/results run of commit b100d90 (NVIDIA H200, 2026-11-22)."""
    data = json.loads(RESULTS.read_text())
    for p in data["programs"]:
        if p["chapter"] == chapter:
            return {r["variant"]: r for r in p["data"]["results"]}
    raise SystemExit(f"{RESULTS.name}: no program {chapter}")


def run16():
    return results_rows("16-scan-decoupled-lookback-tuned")


def us(row):
    return f"{1000 * row['median_ms']:.1f}"


def x(row, digits=3):
    return f"{row['speed_vs_ref']:.{digits}f}x"


def pct(row):
    return f"{row['pct_memcpy']:.1f}"


def kib(blocks, threads, items):
    """Loads in flight per SM when every resident thread has its ITEMS int32 outstanding."""
    return f"{blocks * threads * items * 4 // 1024} KiB"


RESULTS_LABEL = (f"NVIDIA H200, CUDA 13.0, 2026-11-22, commit `b100d90`, one `tools/results` run, n = 2^28 (raw: "
                 f"[results-b100d90.json]({LINK}2026-11-22-h200/results-b100d90.json))")

# Chapter 16's shapes: README label, the variant's name in the b100d90 run (the stage was then 256 x 16 under the
# stage's name; today's stage ran as lookback-t256-i32), threads, items, registers, blocks per SM (ptxas facts).
SHAPES16 = [
    ("**`scan-decoupled-lookback-tuned`** (256 × 32)", "lookback-t256-i32", 256, 32, 64, 4),
    ("`lookback-t192-i32`", "lookback-t192-i32", 192, 32, 63, 5),
    ("`lookback-t128-i32`", "lookback-t128-i32", 128, 32, 63, 8),
    ("`lookback-t256-i24`", "lookback-t256-i24", 256, 24, 48, 5),
    ("`lookback-t384-i24`", "lookback-t384-i24", 384, 24, 55, 3),
    ("`lookback-t128-i24` (CUB's sm_90 shape)", "lookback-t128-i24", 128, 24, 48, 10),
    ("`lookback-t512-i16`", "lookback-t512-i16", 512, 16, 39, 3),
    ("`lookback-t256-i16` (the first prediction)", "scan-decoupled-lookback-tuned", 256, 16, 39, 6),
    ("`lookback-t128-i16`", "lookback-t128-i16", 128, 16, 40, 12),
    ("`lookback-t512-i12`", "lookback-t512-i12", 512, 12, 37, 3),
    ("`lookback-t1024-i8`", "lookback-t1024-i8", 1024, 8, 30, 2),
    ("`lookback-t256-i12`", "lookback-t256-i12", 256, 12, 37, 6),
    ("`lookback-t512-i8`", "lookback-t512-i8", 512, 8, 30, 4),
    ("`lookback-t256-i8`", "lookback-t256-i8", 256, 8, 30, 8),
]


def shapes16():
    """Chapter 16's shapes, fastest first, and the three one-change variants of 256 x 16."""
    r = run16()
    rows = sorted(SHAPES16, key=lambda s: -r[s[1]]["speed_vs_ref"])
    out = ["| variant | threads × items | registers | blocks / SM | loads in flight / SM | % of memcpy | speed vs CUB |",
           "|---|---|---:|---:|---:|---:|---:|"]
    for label, v, t, i, regs, blocks in rows:
        speed = x(r[v]) if not label.startswith("**") else f"**{x(r[v])}**"
        out.append(f"| {label} | {t} × {i} | {regs} | {blocks} | {kib(blocks, t, i)} | {pct(r[v])} | {speed} |")
    base = r["scan-decoupled-lookback-tuned"]
    out.append("")
    out.append(f"Three more variants change one thing each in the 256 × 16 shape (same run): `lookback-t256-i16-stream` "
               f"(evict-first `__ldcs`/`__stcs`) {x(r['lookback-t256-i16-stream'])}, `lookback-t256-i16-blockidx` "
               f"(CUB's `tile = blockIdx.x`, no counter) {x(r['lookback-t256-i16-blockidx'])}, `lookback-t256-i16-spin` "
               f"(no backoff) {x(r['lookback-t256-i16-spin'])}, against {x(base)} for the shape itself.")
    out.append("")
    out.append(f"Speeds: {RESULTS_LABEL}; registers `nvcc -Xptxas -v` (nvcc 13.0, sm_90, no spills), blocks per SM "
               f"from them (65,536 registers, 64 warps per SM).")
    return "\n".join(out)


def chosen16():
    """Where chapter 16's stage was chosen: the b100d90 run, and its 2^30 and 2^28 runs on 2026-11-21 and 11-23."""
    r = run16()
    c15 = results_rows("15-scan-decoupled-lookback")["scan-decoupled-lookback"]
    st = r["lookback-t256-i32"]
    f21 = program_rows(RAW / "2026-11-21-h200" / "16-2p30-final.txt")["lookback-t256-i32"]
    a30 = program_rows(RAW / "2026-11-23-h200x2" / "scan" / "run-16-2p30.txt")["scan-decoupled-lookback-tuned"]
    a28 = program_rows(RAW / "2026-11-23-h200x2" / "scan" / "run-16-2p28.txt")["scan-decoupled-lookback-tuned"]
    scan = f"{LINK}2026-11-23-h200x2/scan/"
    return (f"The stage was chosen on an H200, where it ran at {us(st)} µs, {pct(st)}% of `cudaMemcpy` and {x(st)} CUB "
            f"(CUB at {pct(r['cub'])}%;\nchapter 15 at {1000 * c15['median_ms']:.0f} µs, {pct(c15)}%) in one "
            f"`tools/results` run, CUDA 13.0, 2026-11-22, commit `b100d90`\n"
            f"([results-b100d90.json]({LINK}2026-11-22-h200/results-b100d90.json), `docs/results/nvidia-h200.json`\n"
            f"as that run wrote it). The stage's configuration was measured there under the name `lookback-t256-i32` "
            f"(the stage\nwas then 256 × 16, now the on-demand `lookback-t256-i16`). At 2^30: {f21['median ms']} ms, "
            f"{f21['speed vs cub']} CUB, {f21['% memcpy']}% of `cudaMemcpy`\n(2026-11-21, raw: "
            f"[16-2p30-final.txt]({LINK}2026-11-21-h200/16-2p30-final.txt)), and again on\n2026-11-23 (commit "
            f"`7926d81`, an H200 of a two-GPU host: {a30['median ms']} ms, {a30['speed vs cub']} CUB, "
            f"{a30['% memcpy']}%; at 2^28 {1000 * float(a28['median ms']):.1f} µs, {a28['speed vs cub']},\n"
            f"{a28['% memcpy']}%; raw: [run-16-2p30.txt]({scan}run-16-2p30.txt),\n"
            f"[run-16-2p28.txt]({scan}run-16-2p28.txt)).")


def ncu_launches(path):
    """The launches of an ncu --csv capture, in order: [(kernel name, {metric name: value text})]."""
    launches = {}
    for r in csv.DictReader(line for line in open(path) if line.startswith('"')):
        name, m = r["Kernel Name"], launches.setdefault(r["ID"], [r["Kernel Name"], {}])[1]
        if r["Metric Name"]:
            m[r["Metric Name"]] = r["Metric Value"]
    return [tuple(v) for _, v in sorted(launches.items(), key=lambda kv: int(kv[0]))]


def scan_launch(path, which, kernel=""):
    """Metrics of the WHICH-th (0-based) scan-kernel launch of a capture whose kernel name holds KERNEL (init and
    status-reset kernels skipped)."""
    scans = [m for k, m in ncu_launches(path) if "Init" not in k and "init_" not in k and kernel in k]
    return scans[which]


def num(text):
    return float(text.replace(",", ""))


def ncu16():
    """Chapter 16's stage against CUB under ncu's sections (the first profiled launch of each scan kernel)."""
    path = RAW / "2026-11-21-h200" / "ncu-16-vs-cub.csv"
    out = ["| kernel | duration µs | DRAM % of peak | registers | block | theoretical / achieved occupancy | "
           "warp cycles per issued instruction |", "|---|---:|---:|---:|---:|---:|---:|"]
    for label, kernel in (("ours, 256 × 32", "scan_decoupled_lookback_tuned::"), ("CUB `DeviceScanKernel`", "cub::")):
        m = scan_launch(path, 0, kernel)
        out.append(f"| {label} | {num(m['Duration']) / 1000:.1f} | {num(m['DRAM Throughput']):.1f} | "
                   f"{m['Registers Per Thread']} | {m['Block Size']} | {num(m['Theoretical Occupancy']):.0f}% / "
                   f"{num(m['Achieved Occupancy']):.1f}% | {num(m['Warp Cycles Per Issued Instruction']):.1f} |")
    return "\n".join(out)


# Chapter 17's landing zones: README label, variant in the b100d90 run, threads, int32 per thread in shared memory
# and in registers, registers per thread, blocks per SM (ptxas facts and the occupancy limits they give).
ZONES17 = [
    ("chapter 16's stage (registers only)", "lookback-t256-i32", 256, 0, 32, 64, "4"),
    ("`lookback-staged-cpasync-t256-i32`", "lookback-staged-cpasync-t256-i32", 256, 32, 0, 40, "6"),
    ("`lookback-staged-cpasync-t128-i32`", "lookback-staged-cpasync-t128-i32", 128, 32, 0, 40, "12"),
    ("`lookback-staged-cpasync-t128-i48`", "lookback-staged-cpasync-t128-i48", 128, 48, 0, 38, "9"),
    ("`lookback-staged-cpasync-t64-i96`", "lookback-staged-cpasync-t64-i96", 64, 96, 0, 54, "9"),
    ("`lookback-staged-cpasync-t32-i128`", "lookback-staged-cpasync-t32-i128", 32, 128, 0, 68, "13"),
    ("`lookback-hybrid-cpasync-t128-s48-r8`", "lookback-hybrid-cpasync-t128-s48-r8", 128, 48, 8, 45, "9"),
    ("`lookback-hybrid-cpasync-t128-s48-r16`", "lookback-hybrid-cpasync-t128-s48-r16", 128, 48, 16, 61, "8"),
    ("`lookback-rescan-hybrid-cpasync-t128-s48-r16`", "lookback-rescan-hybrid-cpasync-t128-s48-r16", 128, 48, 16, 56, "9"),
    ("`lookback-rescan-hybrid-cpasync-t128-s48-r24`", "lookback-rescan-hybrid-cpasync-t128-s48-r24", 128, 48, 24, 56, "9"),
    ("`lookback-rescan-hybrid-cpasync-t128-s48-r32`", "lookback-rescan-hybrid-cpasync-t128-s48-r32", 128, 48, 32, 56, "9"),
    ("`lookback-rescan-hybrid-cpasync-t128-s48-r40`", "lookback-rescan-hybrid-cpasync-t128-s48-r40", 128, 48, 40, 64, "8"),
    ("`lookback-rescan-hybrid-cpasync-t64-s48-r32`", "lookback-rescan-hybrid-cpasync-t64-s48-r32", 64, 48, 32, 56, "17 (smem)"),
    ("`lookback-rescan-hybrid-cpasync-t96-s48-r32`", "lookback-rescan-hybrid-cpasync-t96-s48-r32", 96, 48, 32, 56, "11 (smem)"),
    ("`lookback-rescan-hybrid-cpasync-t160-s48-r32`", "lookback-rescan-hybrid-cpasync-t160-s48-r32", 160, 48, 32, 56, "7"),
    ("**`scan-lookback-landing-zone`** (t192-s48-r32)", "lookback-rescan-hybrid-cpasync-t192-s48-r32", 192, 48, 32, 56, "6"),
    ("`lookback-rescan-hybrid-cpasync-t224-s48-r32`", "lookback-rescan-hybrid-cpasync-t224-s48-r32", 224, 48, 32, 56, "5"),
    ("`lookback-rescan-hybrid-cpasync-t256-s48-r32`", "lookback-rescan-hybrid-cpasync-t256-s48-r32", 256, 48, 32, 64, "4 (regs)"),
]


def zones17():
    r = run16()
    out = ["| variant | threads | int32 per thread: smem + registers | registers | blocks / SM | loads in flight / SM | "
           "speed vs CUB |", "|---|---:|---|---:|---:|---:|---:|"]
    for label, v, t, s, g, regs, blocks in ZONES17:
        speed = f"**{x(r[v])}**" if label.startswith("**") else x(r[v])
        out.append(f"| {label} | {t} | {s} + {g} | {regs} | {blocks} | {kib(int(blocks.split()[0]), t, s + g)} | {speed} |")
    out.append("")
    out.append(f"Speeds: {RESULTS_LABEL}, all in chapter 16's program of that commit.")
    return "\n".join(out)


def profile17():
    """Chapter 17's design against CUB in two ncu sessions (metrics of the second profiled launch of each)."""
    d21, d22 = RAW / "2026-11-21-h200", HERE
    rows = [("`rescan-hybrid-cpasync-t128-s48-r32`", d21 / "ncu-16-rescan-r32.csv"),
            ("CUB `DeviceScanKernel` (same session)", d21 / "ncu-16-cub-r3.csv"),
            ("**the stage** (t192-s48-r32)", d22 / "ncu-16-lookback-rescan-hybrid-cpasync-t192-s48-r32.csv"),
            ("CUB `DeviceScanKernel` (same session)", d22 / "ncu-16-cub.csv")]
    out = ["| kernel | duration µs | DRAM % of peak | registers | blocks / SM (limit: regs, smem) | warps active | "
           "cycles between issues | of which barrier | of which long scoreboard |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for label, path in rows:
        m = scan_launch(path, 1)
        g = lambda k: num(m[k])
        out.append(f"| {label} | {g('gpu__time_duration.sum') / 1000:.1f} | "
                   f"{g('dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f} | "
                   f"{m['launch__registers_per_thread']} | {m['launch__occupancy_limit_registers']}, "
                   f"{m['launch__occupancy_limit_shared_mem']} | "
                   f"{g('sm__warps_active.avg.pct_of_peak_sustained_active'):.1f}% | "
                   f"{g('smsp__average_warp_latency_per_inst_issued.ratio'):.1f} | "
                   f"{g('smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio'):.1f} | "
                   f"{g('smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio'):.1f} |")
    return "\n".join(out)


TABLES = [("16-chosen", chosen16), ("16-shapes", shapes16), ("16-ncu", ncu16), ("17-zones", zones17),
          ("17-profile", profile17)]

# README block name -> the file in tables/ that fills it (tools/fill-measured --extra NAME=FILE).
BLOCKS = {"16-h200-chosen": "16-chosen", "16-h200-shapes": "16-shapes", "16-h200-ncu": "16-ncu",
          "17-h200-zones": "17-zones", "17-h200-profile": "17-profile"}


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    OUT.mkdir(exist_ok=True)
    for name, make in TABLES:
        text = make() + "\n"
        path = OUT / f"{name}.md"
        if check:  # change nothing: a committed table that differs from what the captures give is an error
            if not path.is_file() or path.read_text() != text:
                stale.append(path.name)
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"tables.py: {len(stale)} committed table(s) differ from what the captures give (run tables.py "
              f"--fill): {', '.join(stale)}", file=sys.stderr)
        sys.exit(1)
    missing = sorted(set(BLOCKS.values()) - {p.stem for p in OUT.glob("*.md")})
    if missing:
        raise SystemExit(f"tables.py: BLOCKS names tables not written: {', '.join(missing)}")
    if "--fill" in sys.argv[1:]:
        cmd = [sys.executable, str(ROOT / "tools" / "fill-measured"), str(ROOT / "docs/results/nvidia-h100-80gb-hbm3.md")]
        cmd += [f"--extra={block}={OUT / (f + '.md')}" for block, f in BLOCKS.items()]
        if check:
            cmd.append("--check")
        sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
