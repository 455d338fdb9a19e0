#!/usr/bin/env python3
"""Writes the H200 tables and sentences that chapters 16 and 17 (and 17's lab/README.md) and docs/scan-progression.md
cite from the scan captures of 2026-11-21/22/23 (this folder, ../2026-11-21-h200 with its ncu-compare capture at
2^24, ../2026-11-23-h200x2/scan, and docs/results/nvidia-h200.json, the 7926d81 run; no GPU needed):

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
        m = launches.setdefault(r["ID"], [r["Kernel Name"], {}])[1]
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
    out = ["| variant | threads | int32 per thread: smem + registers | registers | blocks / SM | landing zone / SM | "
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


STAGE17 = "lookback-rescan-hybrid-cpasync-t192-s48-r32"  # chapter 17's stage under its b100d90 name


def targets17():
    """Chapter 17's stage on the H200 it was first tuned on: the b100d90 run at 2^28, its 2^30 run."""
    r = run16()
    st, cub = r[STAGE17], r["cub"]
    big = program_rows(HERE / "16-best-2p30-1.txt")
    b = big[STAGE17]
    return (f"On the H200 (the GPU the stage was first tuned on), it was first measured in chapter 16's program, in the\n"
            f"`tools/results` run of commit `b100d90`, CUDA 13.0, 2026-11-22\n"
            f"([results-b100d90.json]({LINK}2026-11-22-h200/results-b100d90.json), `docs/results/nvidia-h200.json`\n"
            f"as that run wrote it): {us(st)} µs, {pct(st)}% of `cudaMemcpy`, {x(st)} CUB (CUB {us(cub)} µs, {pct(cub)}%; "
            f"chapter 16's stage\n{us(r['lookback-t256-i32'])} µs, {x(r['lookback-t256-i32'])}), where this stage ran as "
            f"`{STAGE17}` and chapter 16's as\n`lookback-t256-i32` (the same kernel code, with the same registers from "
            f"`ptxas`, now under the stages' names;\nthis one has gained a `carry_in` parameter). At 2^30: "
            f"{b['median ms']} ms, {b['speed vs cub']} CUB, {b['% memcpy']}% of `cudaMemcpy` (CUB {big['cub']['median ms']} ms,\n"
            f"`cudaMemcpy` {big['cudaMemcpy']['median ms']} ms, same process; raw:\n"
            f"[16-best-2p30-1.txt]({LINK}2026-11-22-h200/16-best-2p30-1.txt)).")


def screen17():
    """The H200 sentences of chapter 17's first screen (between its two screens/ templates): CUB's share of the copy
    in the b100d90 run on the H200 it was first tuned on, and the ncu metric that shows why (the profile table's stage and CUB
    rows, 17-profile)."""
    cub = run16()["cub"]
    path = HERE / "ncu-16-lookback-rescan-hybrid-cpasync-t192-s48-r32.csv"
    st, cb = scan_launch(path, 1), scan_launch(HERE / "ncu-16-cub.csv", 1)
    dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
    assert num(st[dram]) > num(cb[dram])
    return (f"In an earlier H200 run (the one the stage was first tuned on), CUB ran at {pct(cub)}% of the copy (commit `b100d90`, "
            f"\"Against CUB and the copy\").\n"
            f"**The metric that shows why:** `{dram}` of the scan kernel at 2^28: **{num(st[dram]):.1f}%** for this "
            f"stage against **{num(cb[dram]):.1f}%** for CUB's `DeviceScanKernel` in the same `ncu` session (NVIDIA "
            f"H200, 2026-11-22, commit `b100d90`, raw: [{path.name}]({LINK}2026-11-22-h200/{path.name}), "
            f"[ncu-16-cub.csv]({LINK}2026-11-22-h200/ncu-16-cub.csv)).")


# ---- docs/scan-progression.md: the stages 05-17 of the b100d90 run beside the article's figures -------------------
# (label, chapter program, variant in that program's b100d90 rows, the article's µs or None). The article (seed 000,
# §3-§12) gives its times without its GPU or n: its figures are the article's, typed from it, not measurements of ours.
PROGRESSION = [
    ("05 baseline ScanThenFan (§3)", "05-scan-baseline", "scan-baseline", 72390),
    ("06 shared memory (§4)", "06-scan-shared-memory", "scan-shared-memory", 33726),
    ("07 warp-organised block scan (§5)", "07-scan-block", "scan-block", 9948),
    ("08 Kogge–Stone warp scan (§6)", "08-scan-warp", "scan-warp", 7595),
    ("09 zero padding (§7)", "09-scan-zero-padding", "scan-zero-padding", 7516),
    ("10 recursion (§8)", "10-scan-recursion", "scan-recursion", 3972),
    ("11 warp shuffle (§9)", "11-scan-warp-shuffle", "scan-warp-shuffle", 3747),
    ("12 inline PTX (§10)", "12-scan-inline-ptx", "scan-inline-ptx", 3442),
    ("13 ReduceThenScan (§11)", "13-scan-reduce-then-scan", "scan-reduce-then-scan", 3503),
    ("14 two-pass (§11)", "14-scan-two-pass", "scan-two-pass", 2467),
    ("15 decoupled look-back, 1 item/thread", "15-scan-decoupled-lookback", "scan-decoupled-lookback", None),
    ("16 decoupled look-back, tile in registers (stage 256×32¹)", "16-scan-decoupled-lookback-tuned",
     "lookback-t256-i32", None),
    ("17 tile lands in shared memory (stage t192-s48-r32, tile counter¹)", "16-scan-decoupled-lookback-tuned",
     STAGE17, None),
]
BLOCKIDX17 = ("17, with tile = blockIdx.x (on demand: …-t192-s48-r32-blockidx)", "16-scan-decoupled-lookback-tuned",
              STAGE17 + "-blockidx")
ARTICLE_CUB_US = 1444  # the article's §12


def progression_programs():
    """The chapter programs of the scan stages 05-16 in the b100d90 run: {chapter: {variant: row}}."""
    data = json.loads(RESULTS.read_text())
    return {p["chapter"]: {r["variant"]: r for r in p["data"]["results"]} for p in data["programs"]
            if p["chapter"][:2].isdigit() and 5 <= int(p["chapter"][:2]) <= 16}


def median(values):
    v = sorted(values)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2


def progression_refs():
    """CUB's and cudaMemcpy's µs: the medians of the rows every stage program (05-16) timed in the same run."""
    progs = progression_programs()
    return (median(1000 * r["cub"]["median_ms"] for r in progs.values()),
            median(1000 * r["cudaMemcpy"]["median_ms"] for r in progs.values()))


def time_us(t):
    return f"{t:.0f}" if t >= 1000 else f"{t:.1f}"


def vs(v):
    """A speed against CUB: two significant digits below 0.1, two decimals above."""
    return format(v, "#.2g") if v < 0.1 else f"{v:.2f}"


def scan_progression():
    """The table of docs/scan-progression.md: each stage's time, its step over the previous one and its speed against
    CUB, ours (b100d90) beside the article's."""
    progs = progression_programs()
    cub, copy = progression_refs()
    out = ["| stage | ours µs | article µs | × prev (ours) | × prev (article) | vs CUB (ours) | vs CUB (article) | "
           "% of memcpy (ours) |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    prev = prev_art = None
    for label, chapter, variant, art in PROGRESSION:
        r = progs[chapter][variant]
        t = 1000 * r["median_ms"]
        out.append(f"| {label} | {time_us(t)} | {art if art else '–'} | {f'{prev / t:.2f}' if prev else '–'} | "
                   f"{f'{prev_art / art:.2f}' if prev_art and art else '–'} | {vs(r['speed_vs_ref'])} | "
                   f"{vs(ARTICLE_CUB_US / art) if art else '–'} | {r['pct_memcpy']:.1f} |")
        prev, prev_art = t, art
    label, chapter, variant = BLOCKIDX17
    r = progs[chapter][variant]
    out.append(f"| {label} | {time_us(1000 * r['median_ms'])} | – | – | – | {vs(r['speed_vs_ref'])} | – | "
               f"{r['pct_memcpy']:.1f} |")
    out.append(f"| CUB `DeviceScan::InclusiveSum` (§12) | {time_us(cub)} | {ARTICLE_CUB_US} | – | – | 1.00 | 1.00 | "
               f"{100 * copy / cub:.1f} |")
    out.append(f"| `cudaMemcpy` of the same bytes | {time_us(copy)} | – | – | – | {cub / copy:.2f} | – | 100.0 |")
    out += ["", f"CUB's and `cudaMemcpy`'s rows: the medians of the {len(progs)} stage programs' (05–16) own rows in the "
            "same run."]
    return "\n".join(out)


NCU_COMPARE = RAW / "2026-11-21-h200" / "ncu-compare.csv"  # tools/ncu-compare --preset all at 2^24, NVIDIA H200


def ncu_compare(chapter):
    """[(kernel, {column: float or text})] of CHAPTER's launches in the 2^24 ncu-compare capture, in order, and its
    '(total)' row last."""
    out = []
    for r in csv.DictReader(open(NCU_COMPARE)):
        if r["chapter"] == chapter:
            out.append((r["kernel"], {k: (float(v) if k not in ("chapter", "variant", "kernel", "kernel_full_name",
                                                                 "launch_id") and v != "" else v)
                                      for k, v in r.items()}))
    if not out or out[-1][0] != "(total)":
        raise SystemExit(f"tables.py: {NCU_COMPARE.name}: no launches and total of {chapter}")
    return out


def ncu_kernel(chapter, kernel):
    """The one launch of KERNEL (the largest by time where it runs more than once: the first level of a recursion)."""
    rows = [m for k, m in ncu_compare(chapter) if k == kernel]
    return max(rows, key=lambda m: m["time us"])


def ncu_total(chapter):
    return ncu_compare(chapter)[-1][1]


def scan_progression_why():
    """The numbered explanations of docs/scan-progression.md (b100d90 run and the ncu-compare capture at 2^24)."""
    progs = progression_programs()
    cub, copy = progression_refs()
    t = {label[:2]: 1000 * progs[ch][v]["median_ms"] for label, ch, v, _ in PROGRESSION}
    art = {label[:2]: a for label, _, _, a in PROGRESSION}
    step = lambda s, p: f"{t[p] / t[s]:.2f}x"
    astep = lambda s, p: f"{art[p] / art[s]:.2f}x"
    ch = {label[:2]: c for label, c, _, _ in PROGRESSION}
    single = {s: ncu_kernel(ch[s], "scan_part_sums_kernel")["time us"] for s in ("05", "06", "07", "08", "09")}
    assert max(single.values()) / min(single.values()) < 1.01  # "the same in every one of those stages"
    one = f"{median(single.values()):.0f}"
    parts05, parts08 = ncu_kernel(ch["05"], "scan_parts_kernel"), ncu_kernel(ch["08"], "scan_parts_kernel")
    total08 = ncu_total(ch["08"])["time us"]
    share08 = 100 * single["08"] / total08
    wr13, wr12 = ncu_total(ch["13"])["DRAM wr MB"], ncu_total(ch["12"])["DRAM wr MB"]
    k13 = [ncu_kernel(ch["13"], k)["DRAM %peak"] for k in ("reduce_parts_kernel", "scan_parts_with_base_kernel")]
    assert max(k13) - min(k13) < 1
    reduce14 = ncu_kernel(ch["14"], "reduce_parts_kernel")["DRAM %peak"]
    p14 = progs[ch["14"]]
    bound14 = 1.5 * 1000 * p14["cudaMemcpy"]["median_ms"]
    dram15 = ncu_kernel(ch["15"], "scan_tiles_kernel")["DRAM %peak"]
    r16 = progs[ch["16"]]
    s16, s17, s17b = r16["lookback-t256-i32"], r16[STAGE17], r16[STAGE17 + "-blockidx"]
    assert t["13"] > t["12"] and t["13"] > t["10"] and t["15"] > t["14"]  # "slower than", "*slower*"
    best_art = min(a for a in art.values() if a)  # the article's best stage (14)
    return "\n".join([
        f"1. **Stages 07–09 gain less than in the article, and stage 10 gains more ({step('10', '09')} against "
        f"{astep('10', '09')}).** In 05–09",
        "   the part sums are scanned by a single thread (`scan_part_sums_kernel<<<1, 1>>>`). At 2^24 that one thread",
        f"   takes {one} µs in every one of those stages, while the part-scanning kernel shrinks from "
        f"{parts05['time us']:,.0f} µs (05) to",
        f"   {parts08['time us']:.0f} µs (08): by stage 08 the single thread is {share08:.0f}% of the time "
        f"({single['08']:.0f} of {total08:.0f} µs), so making the warp scan",
        "   faster (08, 09) can barely move the total. Recursion (10) removes that thread, which is why it is the big",
        "   step here. The article's GPU presumably spent relatively less in that one thread (we cannot profile it), "
        "so its 07 and 08 steps looked bigger",
        "   and its 10 step smaller.",
        f"2. **The shared-memory stage (06) gains {step('06', '05')}, not {astep('06', '05')}.** In 05 one thread per "
        "block walks 1024 elements",
        f"   through global memory, one dependent load after another (occupancy {parts05['occupancy %']:.1f}%, DRAM "
        f"at {parts05['DRAM %peak']:.1f}% of peak); staging",
        "   the part into shared memory with all 1024 threads turns 1024 serial global loads into one coalesced",
        "   block-wide load. The longer a GPU's memory latency relative to its shared-memory latency, the more this",
        "   pays; the H200's is long.",
        f"3. **ReduceThenScan (13) is slower than the recursive shuffle scan (12), by more than in the article "
        f"({t['12'] / t['13']:.2f}x",
        f"   against {art['12'] / art['13']:.2f}x), and now also slower than stage 10.** It moves fewer bytes (it "
        "writes the output once:",
        f"   {wr13:.1f} MB written against {wr12:.1f} MB for stage 12 at 2^24), but both of its kernels run at about "
        f"{sum(k13) / 2:.0f}% of DRAM",
        "   peak: with the article's shape (at most 128 blocks of 1024 threads striding over 1024-element parts, one",
        "   block per SM) the reduce pass and the scan pass are each bound by per-part latency (barriers and the block",
        "   reduction for each part), not by bandwidth. Saving a write does not help a kernel that is not bandwidth",
        "   bound.",
        f"4. **The two-pass scan (14) gains {step('14', '13')}, not {astep('14', '13')}, and reaches "
        f"{p14['scan-two-pass']['speed_vs_ref']:.2f}x CUB.** With 1024 large parts the grid",
        f"   has 1024 blocks, so every SM is busy: its reduce pass runs at {reduce14:.1f}% of DRAM peak at 2^24,",
        f"   against {k13[0]:.0f}% for stage 13's. The lesson the article drew from it (fewer, bigger parts) is even "
        "stronger on",
        "   a GPU with 132 SMs. Its bound is not CUB's: reading the input twice moves 3 words per element where a",
        "   copy moves 2, so no two-pass scan can beat 1.5 times `cudaMemcpy` "
        f"({bound14:.0f} µs here, {bound14 / (1000 * p14['cub']['median_ms']):.2f}x CUB's time);",
        "   chapter 14's tuned variant (int4 register tiles, one part per resident warp), measured since this run,",
        "   shows how close the code can get to that bound (chapter 14's README).",
        "5. **The single-pass scans.** Chapter 15 (one element per thread) is *slower* than the two-pass scan: one",
        f"   `int32` per thread keeps far too few bytes in flight ({dram15:.1f}% of DRAM peak at 2^24), and every "
        "1024-element",
        "   tile pays an atomic, a look-back and two barriers. Chapter 16 puts 32 `int32` per thread in 128-bit loads",
        f"   and is {step('16', '15')[:-1]}x faster than 15, but with tiles in registers its best shape stops at "
        f"{s16['speed_vs_ref']:.2f}x CUB. What passes",
        "   CUB (chapter 17) is a bigger landing zone for the loads: tiles that land in shared memory (`cp.async`),",
        "   plus rows in registers, with a pass 2 that needs few registers, so that 6 blocks of 192 threads keep",
        f"   360 KiB of loads in flight per SM. With tiles from the atomic counter it reaches "
        f"{s17['speed_vs_ref']:.2f}x CUB and {s17['pct_memcpy']:.1f}% of",
        f"   memcpy in this run ({s17b['speed_vs_ref']:.2f}x and {s17b['pct_memcpy']:.1f}% with tile = blockIdx.x, as "
        "CUB does); see",
        "   [chapter 16](../chapters/16-scan-decoupled-lookback-tuned/) for the register shapes and",
        "   [chapter 17](../chapters/17-scan-lookback-landing-zone/) for the landing-zone configurations and the "
        "profile.",
        "",
        f"CUB itself reaches {100 * copy / cub:.1f}% of `cudaMemcpy` on this GPU in this run (the article: CUB "
        f"{best_art / ARTICLE_CUB_US:.1f}x faster than its best",
        f"stage; here CUB is {t['14'] / cub:.2f}x faster than our two-pass stage 14)."])


def size_table_rows(path):
    """{(size, variant): {column: text}} from a size_table.sh markdown table."""
    lines = [l for l in open(path) if l.startswith("| ")]
    header = [c.strip() for c in lines[0].strip().strip("|").split("|")]
    rows = {}
    for line in lines[1:]:
        cells = dict(zip(header, (c.strip() for c in line.strip().strip("|").split("|"))))
        rows[(cells["size"], cells["variant"])] = cells
    return rows


def best_runs17():
    """Every H200 run of the best shapes at b100d90, by size: (speed vs CUB, % of memcpy) per run and variant."""
    runs = {"2^28": [], "2^30": []}
    for size, pattern in (("2^28", "16-best-2p28-*.txt"), ("2^30", "16-best-2p30-*.txt")):
        for f in sorted(HERE.glob(pattern)):
            runs[size].append({v: (float(c["speed vs cub"].rstrip("x")), float(c["% memcpy"]))
                               for v, c in program_rows(f).items() if c["speed vs cub"] != "-"})
    table = size_table_rows(HERE / "16-size-table-t192.md")
    for size in runs:
        runs[size].append({v: (float(c["speed vs CUB"]), float(c["% of memcpy"]))
                           for (s, v), c in table.items() if s == size})
    runs["2^28"].append({v: (r["speed_vs_ref"], r["pct_memcpy"]) for v, r in run16().items()})
    return runs


def best17():
    runs = best_runs17()
    out = ["| variant | 2^28: speed vs CUB | 2^28: % of memcpy | 2^30: speed vs CUB | 2^30: % of memcpy |",
           "|---|---|---|---|---|"]
    worst = {}
    for label, v in (("the stage (t192-s48-r32, atomic counter)", STAGE17),
                     ("`...-t192-s48-r32-blockidx`", STAGE17 + "-blockidx"),
                     ("`...-t128-s48-r32` (the previous best)", "lookback-rescan-hybrid-cpasync-t128-s48-r32")):
        cells = []
        for size in ("2^28", "2^30"):
            got = [run[v] for run in runs[size] if v in run]
            speeds, pcts = [g[0] for g in got], [g[1] for g in got]
            worst[(v, size)] = (min(speeds), min(pcts))
            cells += [f"{min(speeds):.3f}–{max(speeds):.3f}x ({len(got)} runs)", f"{min(pcts):.1f}–{max(pcts):.1f}"]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    # the sentences below: the lowest of the stage and its blockidx twin over every run, and t128 below both
    both = (STAGE17, STAGE17 + "-blockidx")
    low_x = min(worst[(v, z)][0] for v in both for z in ("2^28", "2^30"))
    low_pct = min(worst[(v, z)][1] for v in both for z in ("2^28", "2^30"))
    t128 = "lookback-rescan-hybrid-cpasync-t128-s48-r32"
    assert all(worst[(t128, z)][i] < min(worst[(v, z)][i] for v in both) for z in ("2^28", "2^30") for i in (0, 1))
    stage28 = worst[(STAGE17, "2^28")][1]
    a28 = program_rows(RAW / "2026-11-23-h200x2" / "scan" / "run-17-2p28.txt")["scan-lookback-landing-zone"]
    a30 = program_rows(RAW / "2026-11-23-h200x2" / "scan" / "run-17-2p30.txt")["scan-lookback-landing-zone"]
    tour = json.loads((ROOT / "docs" / "results" / "nvidia-h200.json").read_text())
    assert tour["meta"]["commit"] == "7926d81", "docs/results/nvidia-h200.json is no longer the 7926d81 run"
    t = next(p for p in tour["programs"] if p["chapter"] == "17-scan-lookback-landing-zone")
    t = {r["variant"]: r for r in t["data"]["results"]}["scan-lookback-landing-zone"]
    scan = f"{LINK}2026-11-23-h200x2/scan/"
    out.append("")
    assert t["pct_memcpy"] < stage28
    out.append(f"In every run of this table the stage and its `blockidx` twin reach at least {low_x:.3f}x CUB and "
               f"{low_pct:.1f}% of `cudaMemcpy`\nat both sizes (the previous best, t128, lower on both at each size). Run again on "
               f"2026-11-23 (commit `7926d81`, an H200 of a two-GPU host, CUDA 13.0; raw:\n"
               f"[run-17-2p28.txt]({scan}run-17-2p28.txt),\n"
               f"[run-17-2p30.txt]({scan}run-17-2p30.txt)): {1000 * float(a28['median ms']):.1f} µs, "
               f"{a28['speed vs cub']} CUB, {a28['% memcpy']}% of\n`cudaMemcpy` at 2^28; {a30['median ms']} ms, "
               f"{a30['speed vs cub']} CUB, {a30['% memcpy']}% at 2^30. In the\n`tools/results` run of the same commit "
               f"(a shorter budget, 120 ms per variant) the stage measured {us(t)} µs,\n{x(t, 2)} CUB and "
               f"**{pct(t)}%** of `cudaMemcpy` at 2^28 ([nvidia-h200.md](../../docs/results/nvidia-h200.md)), "
               f"{stage28 - t['pct_memcpy']:.1f}\npoints under the lowest run of this table: at 2^28 the stage's share "
               f"of the copy moves by about a point from run to run.")
    return "\n".join(out)


def zone(name):
    """(threads, int32 per thread, blocks per SM) of a ZONES17 variant (compile-time facts)."""
    t, sm, rg, blocks = next((t, sm, rg, int(b.split()[0])) for _, v, t, sm, rg, _, b in ZONES17 if v == name)
    return t, sm + rg, blocks


def slower(a, b):
    """How much longer A takes than B in the b100d90 run, in percent."""
    r = run16()
    return 100 * (r[a]["median_ms"] / r[b]["median_ms"] - 1)


def zones17_text():
    """The two paragraphs that read the landing-zone table."""
    r = run16()
    sx = lambda v: x(r[v], 2)
    h = "lookback-rescan-hybrid-cpasync-t{}-s48-r{}"
    steps = ["lookback-staged-cpasync-t128-i48", "lookback-hybrid-cpasync-t128-s48-r8", h.format(128, 16),
             h.format(128, 24), h.format(128, 32)]
    assert all(r[a]["speed_vs_ref"] < r[b]["speed_vs_ref"] for a, b in zip(steps, steps[1:]))  # "every step adds"
    assert r[h.format(128, 40)]["speed_vs_ref"] < r[h.format(128, 32)]["speed_vs_ref"]
    assert r["lookback-hybrid-cpasync-t128-s48-r16"]["speed_vs_ref"] < r[h.format(128, 16)]["speed_vs_ref"]
    sizes = [64, 96, 128, 160, 192]
    assert all(r[h.format(a, 32)]["speed_vs_ref"] < r[h.format(b, 32)]["speed_vs_ref"] for a, b in zip(sizes, sizes[1:]))
    warps = lambda v: zone(v)[0] // 32 * zone(v)[2]
    tiles = lambda t: -(-2**28 // (t * 80))
    kibs = ", ".join(str(zone(v)[2] * zone(v)[0] * zone(v)[1] * 4 // 1024) for v in steps)
    return (f"Read down the table and the lesson is Little's law twice over. At equal landing zones (192 KiB per SM), 12 blocks\n"
            f"of 128 threads beat 6 blocks of 256 by "
            f"{slower('lookback-staged-cpasync-t256-i32', 'lookback-staged-cpasync-t128-i32'):.1f}%: a block's warps wait "
            f"at a barrier while warp 0 looks back, and\nsmaller blocks idle fewer warps and run more look-backs side by "
            f"side. Below 128 threads too few warps are\nleft to issue the copies and the stores (64 × 96: "
            f"{warps('lookback-staged-cpasync-t64-i96')} warps per SM; 32 × 128: {warps('lookback-staged-cpasync-t32-i128')}). "
            f"Then, at 9 blocks of 128,\nevery step that enlarges the landing zone adds speed: {kibs} KiB give "
            + ", ".join(sx(v) for v in steps) +
            f" CUB; at 352 KiB in 8 blocks it is slightly slower again (256 KiB in 8 blocks, `hybrid ... -r16`,\n"
            f"is slower than 288 KiB in 9: data per thread alone is not the point).\n\n"
            f"The last rows hold the landing zone and the warps per SM almost constant (330–360 KiB, 33–36 warps) and\n"
            f"change only the block size. We expected smaller blocks to win again; they lose: "
            + ", ".join(f"{t} threads {sx(h.format(t, 32))}" if t == 64 else f"{t} {sx(h.format(t, 32))}" for t in sizes) +
            f". A bigger tile pays its fixed costs (the atomic, two barriers, warp\n0's look-back, the publications) over "
            f"more bytes: at 2^28 the 192-thread tiles ({192 * 80:,} elements) number\n{tiles(192):,} against "
            f"{tiles(128):,} of 128 threads. Past 192 it falls off (224: {sx(h.format(224, 32))}; 256: "
            f"{sx(h.format(256, 32))}, where 64 registers\nleave 4 blocks); we have not found why 224 × 5 blocks, with the "
            f"same bytes and warps as 160 × 7, is {slower(h.format(224, 32), h.format(160, 32)):.0f}%\nslower, and say so "
            f"rather than guess. The optimum moved when the design changed (192 for the rescan\nhybrid, 128 for the staged "
            f"kernel), so each design gets its own sweep.")


def effects17():
    """The bullet list of smaller effects: the b100d90 run, the PDL runs, the reset kernel's ncu time."""
    r = run16()
    h = "lookback-rescan-hybrid-cpasync-t128-s48-r32"
    within = lambda a, b: abs(slower(a, b))
    bulk = within("lookback-rescan-hybrid-bulk-t128-s48-r32", h)
    sleeps = max(within(h + "-sleep16-128", h), within(h + "-sleep128-1024", h))
    pdl = [program_rows(f) for f in sorted(HERE.glob("pdl-2p28-*.txt"))]
    span = lambda v: (f"{min(float(p[v]['% memcpy']) for p in pdl):.1f}–"
                      f"{max(float(p[v]['% memcpy']) for p in pdl):.1f}")
    launches = ncu_launches(RAW / "2026-11-21-h200" / "ncu-16-rescan-r32.csv")
    reset = num(next(m for k, m in launches if "init_" in k)["gpu__time_duration.sum"]) / 1000
    scan = num(scan_launch(RAW / "2026-11-21-h200" / "ncu-16-rescan-r32.csv", 1)["gpu__time_duration.sum"]) / 1000
    lost = sorted(v["speed_vs_ref"] for k, v in r.items() if k.startswith(("lookback-persistent", "lookback-bulkcopy")))
    bi = r[STAGE17 + "-blockidx"]
    return (f"- **Bulk copies** (`cp.async.bulk`, the TMA, one instruction per warp segment, an `mbarrier` counting the\n"
            f"  bytes) and `cp.async` are within {bulk:.1f}% of each other: `lookback-rescan-hybrid-bulk-t128-s48-r32` "
            f"{x(r['lookback-rescan-hybrid-bulk-t128-s48-r32'])}\n  against {x(r[h])}.\n"
            f"- **`tile = blockIdx.x`** (CUB's choice) saves one atomic's latency per tile: `...-t192-s48-r32-blockidx`\n"
            f"  {x(bi)} and {pct(bi)}% of `cudaMemcpy` against the stage's {x(r[STAGE17])}. It relies on blocks being "
            f"dispatched in index\n  order, which CUDA does not promise (CUB relies on it too); the stage keeps the "
            f"counter, which cannot\n  deadlock whatever order the blocks start in.\n"
            f"- **Backoff.** 16–128 ns and 128–1024 ns (`-sleep*`) are within {max(sleeps, 0.05):.1f}% of the default "
            f"64–512 ns.\n"
            f"- **Programmatic dependent launch** (`-pdl`, sm_90+) gains nothing measurable. The scan kernel is launched\n"
            f"  with `cudaLaunchAttributeProgrammaticStreamSerialization`; the status reset executes\n"
            f"  `griddepcontrol.launch_dependents` first, and each scan block executes `griddepcontrol.wait` before its\n"
            f"  first access to the counter or the status words (with `blockIdx.x`, only before the look-back, so the\n"
            f"  tile's loads are already in flight). Over {len(pdl)} runs at 2^28 the t128 shape ran at {span(h)}% of\n"
            f"  `cudaMemcpy` without it and {span(h + '-pdl')}% with it (raw: `pdl-2p28-*.txt` in\n"
            f"  `docs/results/raw/2026-11-22-h200/`): the reset is a {reset:.0f} µs kernel and a {scan:.0f} µs scan (both "
            f"`ncu`, [ncu-16-rescan-r32.csv]({LINK}2026-11-21-h200/ncu-16-rescan-r32.csv)) does not notice its\n"
            f"  launch gap. (CCCL 3.0's scan does not use it either.)\n"
            f"- **Persistent kernels** (a grid of resident blocks looping over tiles, prefetching the next tile into\n"
            f"  registers or a shared-memory ring filled by bulk copies) lose badly, {lost[0]:.2f}–{lost[-1]:.2f}x CUB: "
            f"they are in\n  [lab/](lab/), with their table and why they lost.")


def profile17_text():
    """The paragraph that reads chapter 17's profile table."""
    path22 = HERE / "ncu-16-lookback-rescan-hybrid-cpasync-t192-s48-r32.csv"
    st, cub = scan_launch(path22, 1), scan_launch(HERE / "ncu-16-cub.csv", 1)
    dram = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
    for path in (path22, HERE / "ncu-16-cub.csv", RAW / "2026-11-21-h200" / "ncu-16-rescan-r32.csv",
                 RAW / "2026-11-21-h200" / "ncu-16-cub-r3.csv"):
        m = scan_launch(path, 1)  # "more than a third ... at a barrier", "the next largest share on loads"
        assert num(m["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"]) > \
            num(m["smsp__average_warp_latency_per_inst_issued.ratio"]) / 3
    copy = run16()["cudaMemcpy"]
    return (f"The stage moves {100 * (num(st[dram]) / num(cub[dram]) - 1):.0f}% more bytes per second from DRAM than CUB, "
            f"with the same kind of stall profile: more\nthan a third of every warp's waiting is at a barrier (the warps "
            f"of a block waiting for warp 0's look-back),\nthe next largest share on loads (long scoreboard). The "
            f"192-thread tile waits about as long per instruction\nas the 128-thread one; what it saves is a third of the "
            f"tiles, and with them a third of the atomics,\nbarriers and look-backs. `cudaMemcpy` runs at "
            f"{copy['pct_peak_dram']:.1f}% of the DRAM peak (the `tools/results` run of `b100d90`); the remaining gap "
            f"is still the time a\nblock spends not loading.")


def by_size17():
    """The by-size paragraph, from size_table.sh's run at b100d90."""
    t = size_table_rows(HERE / "16-size-table-t192.md")
    st = lambda z: float(t[(z, STAGE17)]["speed vs CUB"])
    c16 = lambda z: float(t[(z, "scan-decoupled-lookback-tuned")]["speed vs CUB"])
    tile = 192 * 80
    assert all(st(z) < 1 for z in ("2^16", "2^18")) and all(st(z) > 1 for z in ("2^22", "2^24", "2^26", "2^28", "2^30"))
    assert all(c16(z) < 1 for z in ("2^24", "2^26", "2^28", "2^30")) and c16("2^16") > 1
    big = [st(z) for z in ("2^26", "2^28", "2^30")]
    return (f"**By size** (H200, `size_table.sh`, then chapter 16's program, raw:\n"
            f"[16-size-table-t192.md]({LINK}2026-11-22-h200/16-size-table-t192.md)): the stage's tiles are\n"
            f"{tile:,} elements, so up to 2^20 there are fewer tiles than SMs ({-(-2**20 // tile)} at 2^20) and it loses "
            f"to CUB ({st('2^16'):.2f}x at\n2^16, {st('2^18'):.2f}x at 2^18); from 2^22 on it wins ({st('2^22'):.2f}x), "
            f"from 2^26 by {min(big):.2f}–{max(big):.2f}x. Chapter 16's 256 × 16 shape,\nmeasured in the same table, wins "
            f"at the small sizes ({c16('2^16'):.2f}x at 2^16) and loses from 2^24 on. A library picks\nthe tile by size, "
            f"as CUB's tuning policies do per architecture and type.")


def ncu16_text():
    """The paragraph that reads chapter 16's ncu table."""
    path = RAW / "2026-11-21-h200" / "ncu-16-vs-cub.csv"
    ours, cub = scan_launch(path, 0, "scan_decoupled_lookback_tuned::"), scan_launch(path, 0, "cub::")
    cyc = lambda m: num(m["Warp Cycles Per Issued Instruction"])
    assert ours["Theoretical Occupancy"] == cub["Theoretical Occupancy"] == "50"
    assert all(num(m["DRAM Throughput"]) < 100 * 2 / 3 + 2 for m in (ours, cub))  # "a third idle", roughly
    return (f"Both kernels are limited by registers to half the SM's warps, and both leave DRAM a third idle, so the\n"
            f"gap to `cudaMemcpy` is shared with CUB. The {100 * (num(ours['Duration']) / num(cub['Duration']) - 1):.1f}% "
            f"between us and CUB shows as longer stalls per instruction\n({cyc(ours):.1f} against {cyc(cub):.1f} cycles): "
            f"our warps wait longer, with the same number of them resident. Registers are the\ncap on bytes in flight; "
            f"chapter 17 lands most of the tile in shared memory instead and passes CUB.")


# Chapter 17's lab (persistent kernels): each variant and chapter 16's shape with the same tiles, one tile per block
# (the b100d90 run named 256 x 16 after the stage of the time).
LAB17 = {"lookback-bulkcopy-t512-i16-s3": "lookback-t512-i16", "lookback-bulkcopy-t256-i32-s3": "lookback-t256-i32",
         "lookback-bulkcopy-t256-i24-s3": "lookback-t256-i24",
         "lookback-bulkcopy-t256-i16-s4": "scan-decoupled-lookback-tuned",
         "lookback-bulkcopy-t128-i24-s4": "lookback-t128-i24",
         "lookback-persistent-prefetch-t256-i16": "scan-decoupled-lookback-tuned",
         "lookback-persistent-prefetch-t256-i12": "lookback-t256-i12"}


def lab17():
    """The lab's table of persistent kernels (b100d90 run) and what it shows, for chapters/17-.../lab/README.md."""
    r = run16()
    t = lambda ms: f"{1000 * ms:.0f}" if ms >= 1 else f"{1000 * ms:.1f}"
    earlier = program_rows(RAW / "2026-11-21-h200" / "16-2p28-final.txt")
    agree = max(abs(float(earlier[v]["median ms"]) / r[v]["median_ms"] - 1) for v in LAB17)
    assert agree < 0.03, "the a203e03 run no longer agrees within 3%"
    out = [f"NVIDIA H200, CUDA 13.0, n = 2^28, the `tools/results` run of commit `b100d90`, 2026-11-22 (raw:\n"
           f"[results-b100d90.json](../{LINK}2026-11-22-h200/results-b100d90.json), chapter 16's program, which then "
           f"held these\nvariants; the earlier run of commit `a203e03`,\n"
           f"[16-2p28-final.txt](../{LINK}2026-11-21-h200/16-2p28-final.txt), agrees within "
           f"{100 * agree:.0f}%):", "",
           "| variant | median µs | min–max µs | % of `cudaMemcpy` | speed vs CUB |", "|---|---:|---:|---:|---:|"]
    rows = sorted(LAB17, key=lambda v: -r[v]["speed_vs_ref"])
    rows += [("for comparison: chapter 16's stage (one tile per block, registers)", "lookback-t256-i32"),
             ("for comparison: chapter 17's stage (one tile per block, landing zone)", STAGE17)]
    for row in rows:
        label, v = row if isinstance(row, tuple) else (f"`{row}`", row)
        g = r[v]
        out.append(f"| {label} | {t(g['median_ms'])} | {t(g['min_ms'])}–{t(g['max_ms'])} | {pct(g)} | {x(g)} |")
    return "\n".join(out)


def lab17_text():
    """The first paragraph of the lab's "Why they lost"."""
    r = run16()
    slow = [r[v]["median_ms"] / r[same]["median_ms"] for v, same in LAB17.items()]
    pre = r["lookback-persistent-prefetch-t256-i16"]
    st = r["lookback-t256-i32"]
    spread = 100 * max(st["max_ms"] / st["median_ms"] - 1, 1 - st["min_ms"] / st["median_ms"])
    return (f"What the numbers show (NVIDIA H200, CUDA 13.0, 2026-11-22, commit `b100d90`, the table above):\nevery "
            f"persistent design is {min(slow):.1f} to {max(slow):.1f} times slower than "
            f"chapter 16's one-tile-per-block\nkernel with the same tiles, and its times scatter (the prefetching "
            f"t256-i16: {pre['min_ms']:.1f} to {pre['max_ms']:.1f} ms from run to run,\nwhere chapter 16's stage "
            f"stays within ±{spread:.0f}%). The rings are as large per SM (192–216 KiB of loads they can hold in flight) as\nchapter 17's "
            f"landing zones that stage the whole tile (`lookback-staged-cpasync-*`, 192–216 KiB), which ran\nfar faster, "
            f"so the capacity for bytes in flight is not what is missing.")


TABLES = [("16-chosen", chosen16), ("16-shapes", shapes16), ("16-ncu", ncu16), ("17-zones", zones17),
          ("17-profile", profile17), ("17-targets", targets17), ("17-best", best17),
          ("17-zones-text", zones17_text), ("17-effects", effects17), ("17-profile-text", profile17_text),
          ("17-by-size", by_size17), ("16-ncu-text", ncu16_text),
          ("17-lab", lab17), ("17-lab-text", lab17_text), ("17-screen", screen17),
          ("scan-progression", scan_progression),
          ("scan-progression-why", scan_progression_why)]

# README block name -> the file in tables/ that fills it (tools/fill-measured --extra NAME=FILE).
BLOCKS = {"16-h200-chosen": "16-chosen", "16-h200-shapes": "16-shapes", "16-h200-ncu": "16-ncu",
          "17-h200-zones": "17-zones", "17-h200-profile": "17-profile",
          "17-h200-targets": "17-targets", "17-h200-best": "17-best",
          "17-h200-zones-text": "17-zones-text", "17-h200-effects": "17-effects",
          "17-h200-profile-text": "17-profile-text", "17-h200-by-size": "17-by-size", "16-h200-ncu-text": "16-ncu-text",
          "17-lab-h200": "17-lab", "17-lab-h200-text": "17-lab-text",
          "17-h200-screen": "17-screen", "scan-progression-h200": "scan-progression",
          "scan-progression-h200-why": "scan-progression-why"}


def main():
    _h100.write_tables(TABLES, BLOCKS, OUT, sys.argv[1:])

if __name__ == "__main__":
    main()
