#!/usr/bin/env python3
"""Writes the tables and sentences that chapters 01-04 take from this folder's ncu captures (NVIDIA H100 80GB
HBM3, 2026-11-27, the working tree of commit 85a4bc5; c1.sh made them), through the functions that wrote them
from the H200 captures of 2026-11-21 (../2026-11-21-h200/tables_early.py), and chapter 02's rule-4 metric; and
chapters 24's and 27's off-switch tables (24-switches, 27-switches) from calls 2 and 3 (c2.sh at 38ea8b3,
c3.sh at 1b08d1e: measure-38ea8b3/, check-1b08d1e/), and chapter 27's candidates (27-candidates) from call 6
(c6.sh at b794ba4: results-b794ba4/, which also repeats the off-switches):

  python3 docs/results/raw/2026-11-27-h100/tables.py                  # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-27-h100/tables.py --fill           # and fills the README blocks they feed
  python3 docs/results/raw/2026-11-27-h100/tables.py --fill --check   # changes nothing; exit 1 on a difference

Every number comes from a capture in this folder, or (24-switches, 27-switches) from chapter 23's ncu capture of
2026-11-25 (../2026-11-25-h100/measure-9fe5849/ncu-sgemm.csv) and the committed results run
(docs/results/nvidia-h100-80gb-hbm3.json, cuBLAS's medians and chapter 24's stage); nothing is typed by hand."""
import csv
import importlib.util
import json
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


# ---- Chapters 24 and 27: each mechanism turned off (calls 2 and 3) ------------------------------------------
M38 = HERE / "measure-38ea8b3"  # call 2: the working tree of 38ea8b3
C1B = HERE / "check-1b08d1e"    # call 3: the working tree of 1b08d1e (chapters/ and common/ as at 38ea8b3)
NCU_25 = HERE.parent / "2026-11-25-h100" / "measure-9fe5849" / "ncu-sgemm.csv"  # chapter 23's capture
LINK_25 = "../../docs/results/raw/2026-11-25-h100/measure-9fe5849/ncu-sgemm.csv"
RESULTS = HERE.parents[1] / "nvidia-h100-80gb-hbm3.json"  # the committed results run (its meta says which)
REPEAT = HERE / "results-b794ba4"  # call 6: chapter 27 --variant all at 4096^3 and 8192^3, a second run of the switches
RESULTS_LINK = "../../docs/results/nvidia-h100-80gb-hbm3.json"
PROV_27 = "NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-11-27"
WARPS_PER_SM = 64  # sm_90: at most 64 resident warps per SM


def claim(holds, sentence):
    """A sentence that interprets the numbers; stop rather than write it when the numbers say otherwise."""
    if not holds:
        raise SystemExit(f"tables.py: this text no longer holds: {sentence}")


def program_csv(path):
    """{variant: row} of a chapter program's --format csv output (its '#' lines are the device header)."""
    with open(path) as f:
        return {r["variant"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def ncu_launch(path, chapter=None):
    """The one launch of a tools/ncu-compare --csv capture (the timed run's), or of CHAPTER's in a capture of several."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if chapter is None or r["chapter"] == chapter]
    if len(rows) != 1:
        raise SystemExit(f"tables.py: {path.name}: {len(rows)} launches{' of ' + chapter if chapter else ''}, not one")
    return rows[0]


def link(path):
    return RAW_LINK + str(path.relative_to(HERE))


def ms(row):
    return float(row["median_ms"])


def slower(row, stage):
    """How much longer than the stage a variant takes, in % of the stage's time."""
    return (ms(row) / ms(stage) - 1) * 100


def f1(x):
    return f"{float(x):.1f}"


def f2(x):
    return f"{float(x):.2f}"


def n_(x):
    return f"{int(float(x)):,}"


def x3(x):
    return f"{float(x):.3f}x"


def blocks_per_sm(occupancy, threads=256):
    """Resident blocks per SM from ncu's achieved occupancy (% of the SM's warp slots) and the block size."""
    return round(float(occupancy) / 100 * WARPS_PER_SM / (threads // 32))


def non_overlapping(rows):
    """True when the repetitions of ROWS (fastest first by median) do not overlap: each one's max below the next one's min."""
    rows = sorted(rows, key=ms)
    return all(float(a["max_ms"]) < float(b["min_ms"]) for a, b in zip(rows, rows[1:]))


def cublas_spread():
    """cuBLAS's median at 4096^3 in each SGEMM chapter's process of the committed results run: (min ms, max ms,
    count, 'the results run of DATE (commit `C`'), the last for the sentences that cite it."""
    doc = json.loads(RESULTS.read_text())
    meds = [r["median_ms"] for p in doc["programs"] if p["chapter"][:2] in
            {str(c) for c in range(20, 30)} and p.get("data") for r in p["data"]["results"]
            if r["variant"] == "cublas" and r["n"] == 4096]
    which = f"the results run of {doc['meta']['date'][:10]} (commit `{doc['meta']['commit']}`"
    return min(meds), max(meds), len(meds), which


# Results runs whose chapter 24 kernel code is that of 38ea8b3 (b794ba4 changed only a comment and a variant's
# description: git diff 38ea8b3 b794ba4 -- chapters/24-sgemm-vectorized-transposed common/).
SAME_CODE_24 = {"38ea8b3", "b794ba4"}


def results_stage_24():
    """Chapter 24's stage at 4096^3 in the committed results run: (median ms, its commit)."""
    doc = json.loads(RESULTS.read_text())
    meds = [r["median_ms"] for p in doc["programs"] if p["chapter"] == "24-sgemm-vectorized-transposed"
            and p.get("data") for r in p["data"]["results"]
            if r["variant"] == "sgemm-vectorized-transposed" and r["n"] == 4096]
    if len(meds) != 1:
        raise SystemExit(f"tables.py: {len(meds)} runs of chapter 24's stage at 4096 in {RESULTS.name}, not one")
    return meds[0], doc["meta"]["commit"]


V24 = [("sgemm-vectorized-transposed", "–"),
       ("vectorized-transposed-scalar-global", "the 128-bit global loads and stores"),
       ("vectorized-untransposed-a", "the transposed, padded `As`")]


def switches_24():
    """Chapter 24: the stage against each of its two changes turned off, with ncu; chapter 23's registers."""
    run = program_csv(M38 / "c24-all.csv")
    stage, scalar, untr = (run[v] for v, _ in V24)
    cub = run["cublas"]
    ncu = {v: ncu_launch(M38 / f"ncu24-{v}.csv") for v, _ in V24}
    s, g, u = (ncu[v] for v, _ in V24)
    c23 = ncu_launch(NCU_25, "23-sgemm-2d-register-tile")
    n = int(stage["n"])
    per_slice = (n // 128) ** 2 * 8 * (n // 8)  # warps (8 per 128 x 128 tile) x slices of 8
    head = [f"`{v}`" + (" (the stage)" if i == 0 else "") for i, (v, _) in enumerate(V24)]
    t = [f"**Each change turned off** ({PROV_27}, working tree of commit `38ea8b3`, M = N = K = {n}: "
         f"`24-sgemm-vectorized-transposed --variant all --budget-ms 300 --format csv`, one process, cuBLAS in the "
         f"same run; `ncu` of each variant: `tools/ncu-compare --chapters 24 --preset sgemm` with the shared load and "
         f"store instruction counts, the timed run's one launch. Raw: [c24-all.csv]({link(M38 / 'c24-all.csv')}), "
         + ", ".join(f"[{v}]({link(M38 / f'ncu24-{v}.csv')})" for v, _ in V24)
         + f". Chapter 23's column: its `ncu` capture of 2026-11-25, working tree of commit `9fe5849`, "
         f"[ncu-sgemm.csv]({LINK_25}).)", "",
         "| | " + " | ".join(head) + " | chapter 23 (2026-11-25, `9fe5849`) |",
         "|---|---:|---:|---:|---:|",
         "| turns off | " + " | ".join(w for _, w in V24) + " | both (its own kernel) |"]

    def row(label, cells, c23_cell="–"):
        t.append(f"| {label} | " + " | ".join(cells) + f" | {c23_cell} |")

    rows = (stage, scalar, untr)
    row("median µs", [f"{ms(r) * 1000:.0f}" for r in rows])
    row("GFLOP/s", [f"{float(r['gflops']):.0f}" for r in rows])
    row("% FP32 peak", [f1(r["pct_peak_fp32"]) for r in rows])
    row(f"vs cuBLAS ({ms(cub) * 1000:.0f} µs in the same run)", [x3(r["speed_vs_ref"]) for r in rows])
    row("time vs the stage", [x3(ms(r) / ms(stage)) for r in rows])
    row("registers per thread", [m["regs"] for m in (s, g, u)], c23["regs"])
    row("achieved occupancy, % (blocks of 8 warps per SM)",
        [f"{f1(m['occupancy %'])} ({blocks_per_sm(m['occupancy %'])})" for m in (s, g, u)],
        f"{f1(c23['occupancy %'])} ({blocks_per_sm(c23['occupancy %'])})")
    row("instructions", [n_(m["instructions"]) for m in (s, g, u)])
    ld, st = "smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"
    row("shared load / store instructions (per warp and slice)",
        [f"{n_(m[ld])} / {n_(m[st])} ({int(m[ld]) // per_slice} / {int(m[st]) // per_slice})" for m in (s, g, u)])
    row("global load sectors per request", [f2(m["sectors/req"]) for m in (s, g, u)])
    row("stall long scoreboard per issue", [f2(m["stall long sb"]) for m in (s, g, u)])
    row("stall MIO throttle per issue", [f2(m["stall mio"]) for m in (s, g, u)])
    row("issue slots busy, %", [f1(m["issue %"]) for m in (s, g, u)])
    row("FMA pipe active, %", [f1(m["FMA pipe %"]) for m in (s, g, u)])

    # What the 128-bit global accesses buy: the stage against the scalar path
    g_more = (int(g["instructions"]) / int(s["instructions"]) - 1) * 100
    claim(slower(scalar, stage) > 3 * g_more and float(g["stall long sb"]) > float(s["stall long sb"]),
          "the scalar path's loss is not its extra instructions; its warps wait longer on global loads")
    claim(g["sectors/req"] == s["sectors/req"], "sectors per request do not tell the two paths apart")
    t += ["", f"**What the 128-bit global accesses buy** (the stage against `{V24[1][0]}`, which keeps the "
          f"transposed `As`): without them the kernel takes {slower(scalar, stage):.1f}% longer "
          f"({x3(scalar['speed_vs_ref'])} cuBLAS against {x3(stage['speed_vs_ref'])}). It executes only "
          f"{g_more:.1f}% more instructions, so the loss is not the issue slots: its warps stall on global loads "
          f"{float(g['stall long sb']) / float(s['stall long sb']):.1f} times as much "
          f"(long scoreboard, {f2(g['stall long sb'])} against {f2(s['stall long sb'])} warps per issue), and the FMA pipe "
          f"is active {f1(g['FMA pipe %'])}% of the time against {f1(s['FMA pipe %'])}%. The capture holds sectors "
          f"per request, not the request count, and the ratio is the same {f2(s['sectors/req'])} on both paths: each of "
          f"a warp's four 4-byte loads of a quad touches the same 16 sectors as its one 16-byte load, and uses a "
          f"quarter of each."]

    # What the transposed As buys: the stage against A as it lies
    claim(s[ld] == u[ld] and int(u[st]) < int(s[st]), "same shared loads, fewer shared stores without the transposition")
    claim(int(u["regs"]) > int(s["regs"]) and float(u["stall mio"]) > float(s["stall mio"]),
          "the untransposed variant holds more registers and stalls more on the MIO queue")
    t += ["", f"**What the transposed `As` buys** (the stage against `{V24[2][0]}`, which keeps the 128-bit global "
          f"accesses): without it the kernel takes {slower(untr, stage):.1f}% longer ({x3(untr['speed_vs_ref'])} "
          f"cuBLAS). Not through fewer shared loads: both issue {n_(s[ld])} "
          f"({int(s[ld]) // per_slice} `LDS.128` per warp and slice, since ptxas merges each row of chapter 23's "
          f"layout into `LDS.128` too), and the transposing scatter costs the stage {int(s[st]) // per_slice} shared "
          f"stores per warp and slice against {int(u[st]) // per_slice}. What the untransposed variant pays instead: "
          f"{u['regs']} registers against {s['regs']} (with chapter 23's layout all 64 A values of a slice are live at "
          f"once, says the top comment of the kernel's file), MIO-throttle stalls {f2(u['stall mio'])} against {f2(s['stall mio'])} per issue, and the "
          f"FMA pipe {f1(u['FMA pipe %'])}% active against {f1(s['FMA pipe %'])}%. The bank conflicts stay "
          f"({n_(u['bank confl'])} against {n_(s['bank confl'])}): chapter 25's job either way."]

    # The registers: not a third change
    blocks = {blocks_per_sm(m["occupancy %"]) for m in (s, g, u)}
    claim(blocks == {2} and blocks_per_sm(c23["occupancy %"]) == 1,
          "either change alone keeps two blocks per SM; chapter 23 had one")
    t += ["", f"**The register drop is not a third change.** Each variant keeps one of the two changes, and each "
          f"runs two blocks of 8 warps per SM ({s['regs']}, {g['regs']} and {u['regs']} registers; "
          f"{f1(s['occupancy %'])}-{f1(max(float(g['occupancy %']), float(u['occupancy %'])))}% occupancy), where "
          f"chapter 23's kernel had {c23['regs']} registers and one block ({f1(c23['occupancy %'])}%). So either "
          f"change alone keeps the second block, and the rows above measure each change at the stage's occupancy. "
          f"The template's kernel with both changes off (`{V24[2][0]}` on an unaligned shape) is not measured, and "
          f"chapter 23's kernel differs from it in its own loaders and stores, so which of its lines cost chapter 23 "
          f"the second block is not measured either."]

    # How sure: one run each
    claim(non_overlapping(rows), "the repetitions of the three variants do not overlap")
    by_ncu = sorted(range(3), key=lambda i: float((s, g, u)[i]["time us"]))
    claim(by_ncu == sorted(range(3), key=lambda i: ms(rows[i])), "ncu ranks the three as the program does")
    lo, hi, count, which = cublas_spread()
    effect = min(slower(scalar, stage), slower(untr, stage))
    claim((hi / lo - 1) * 100 * 3 < effect, "cuBLAS's spread across processes is far below either change's effect")
    again, again_commit = results_stage_24()
    moved = (again / ms(stage) - 1) * 100
    claim(again_commit in SAME_CODE_24 and n == 4096, "the results run timed the same kernel code at the same size")
    claim(abs(moved) * 3 < effect, "the stage's repeat moved far less than either change's effect")
    t += ["", f"One run of each (one process; {min(int(r['reps']) for r in rows)}-{max(int(r['reps']) for r in rows)} "
          f"timed repetitions): the repetitions of the three do not overlap, and the `ncu` launches, separate "
          f"processes, rank them the same way ({', '.join(f1(m['time us']) for m in (s, g, u))} µs in the table's "
          f"order). The two variants were not run again; the stage was, with the same kernel code, in {which}, "
          f"[results JSON]({RESULTS_LINK})): {again * 1000:.0f} µs against {ms(stage) * 1000:.0f} µs here "
          f"({moved:+.1f}%), and cuBLAS's 4096³ medians across the {count} SGEMM processes of that run spread "
          f"{(hi / lo - 1) * 100:.1f}%, both far less than either change's effect."]
    return "\n".join(t)


V27 = [("sgemm-tuned", "–", M38), ("tuned-two-barriers", "one barrier per slice (chapter 26's schedule)", C1B),
       ("tuned-no-copy-plan", "the copy plan and its unguarded path (chapter 26's copies)", C1B)]


def switches_27():
    """Chapter 27: the stage against its two off-switches at 4096^3 and 8192^3, with ncu at 4096^3."""
    runs = {n: program_csv(M38 / f"c27-off-{n}.csv") for n in (4096, 8192)}
    ncu = {v: ncu_launch(d / f"ncu27-{v}.csv") for v, _, d in V27}
    names = [v for v, _, _ in V27]
    t = [f"**The stage against each mechanism turned off** ({PROV_27}; timings: working tree of commit `38ea8b3`, "
         f"`27-sgemm-tuned --size N --variant {','.join(names)},cublas --budget-ms 300 --format csv`, one process "
         f"per size, cuBLAS in the same run; `ncu` at 4096³: `tools/ncu-compare --chapters 27 --preset sgemm`, the "
         f"timed run's one launch, the stage at `38ea8b3`, the two variants at `1b08d1e`, whose chapters/ and "
         f"common/ are those of `38ea8b3`. Raw: "
         + ", ".join(f"[{n}³]({link(M38 / f'c27-off-{n}.csv')})" for n in runs)
         + ", `ncu` " + ", ".join(f"[{v}]({link(d / f'ncu27-{v}.csv')})" for v, _, d in V27) + ".)", "",
         "| | " + " | ".join(f"`{v}`" + (" (the stage)" if i == 0 else "") for i, v in enumerate(names))
         + " | `cublas` |", "|---|---:|---:|---:|---:|",
         "| turns off | " + " | ".join(w for _, w, _ in V27) + " | – |"]
    for n, run in runs.items():
        stage = run["sgemm-tuned"]
        t.append(f"| {n}³: median ms | " + " | ".join(f"{ms(run[v]):.3f}" for v in names + ["cublas"]) + " |")
        t.append(f"| {n}³: vs cuBLAS | " + " | ".join(x3(run[v]["speed_vs_ref"]) for v in names + ["cublas"]) + " |")
        t.append(f"| {n}³: % FP32 peak (the bound) | " + " | ".join(f1(run[v]["pct_peak_fp32"]) for v in names + ["cublas"])
                 + " |")
        t.append(f"| {n}³: time vs the stage | " + " | ".join(x3(ms(run[v]) / ms(stage)) for v in names) + " | – |")
    m = [ncu[v] for v in names]
    for label, key, fmt in [("`ncu` at 4096³ (this row and below): time, µs", "time us", f1), ("instructions", "instructions", n_),
                            ("FMA pipe active, %", "FMA pipe %", f1), ("issue slots busy, %", "issue %", f1),
                            ("stall barrier per issue", "stall barrier", f2),
                            ("stall long scoreboard per issue", "stall long sb", f2),
                            ("registers per thread", "regs", str)]:
        t.append(f"| {label} | " + " | ".join(fmt(x[key]) for x in m) + " | – |")

    s, b, c = m
    cost = {v: {n: slower(run[v], run["sgemm-tuned"]) for n, run in runs.items()} for v in names[1:]}
    for v in names[1:]:
        claim(all(x > 0 for x in cost[v].values()), f"{v} is slower than the stage at both sizes")
        claim(all(x < 3 for x in cost[v].values()), f"{v} costs less than 3% at both sizes")
    b_instr = (int(b["instructions"]) / int(s["instructions"]) - 1) * 100
    c_instr = (int(c["instructions"]) / int(s["instructions"]) - 1) * 100
    claim(abs(b_instr) < 0.5 and float(b["stall barrier"]) > float(s["stall barrier"]),
          "the second barrier adds no instructions but more barrier stalls")
    claim(c_instr > 2 * cost["tuned-no-copy-plan"][4096] and float(c["issue %"]) > float(s["issue %"]),
          "the copy plan saves instructions, most absorbed by idle issue slots")


    s4, s8 = runs[4096]["sgemm-tuned"], runs[8192]["sgemm-tuned"]
    off = [float(run[v]["speed_vs_ref"]) for run in runs.values() for v in names[1:]]
    t += ["", f"**What each bought, measured by turning it off:** the one-barrier pipeline "
          f"{cost[names[1]][4096]:.1f}% of the stage's time at 4096³ and {cost[names[1]][8192]:.1f}% at 8192³ "
          f"(turned off, the kernel takes that much longer), the copy plan with its unguarded path "
          f"{cost[names[2]][4096]:.1f}% and {cost[names[2]][8192]:.1f}%. Both paid, and both are small: the stage "
          f"is at {x3(s4['speed_vs_ref'])} and {x3(s8['speed_vs_ref'])} cuBLAS with them, {x3(min(off))} to "
          f"{x3(max(off))} with either one off. The second barrier costs no instructions "
          f"({b_instr:+.2f}%); its warps wait at barriers more ({f2(b['stall barrier'])} stalls per issue against "
          f"{f2(s['stall barrier'])}) and issue less ({f1(b['issue %'])}% of the slots against {f1(s['issue %'])}%). "
          f"Chapter 26's per-element copy arithmetic adds {c_instr:.1f}% instructions and "
          f"{int(c['regs']) - int(s['regs'])} registers at 4096³, but the time only {cost[names[2]][4096]:.1f}%: the "
          f"stage's issue slots were not full, and the extra instructions take idle ones ({f1(c['issue %'])}% busy "
          f"against {f1(s['issue %'])}%)."]

    ordered = all(sorted(names, key=lambda v: ms(run[v])) == names for run in runs.values())
    claim(ordered and float(s["time us"]) < float(b["time us"]) < float(c["time us"]),
          "the three keep one order in every measurement")
    claim(all(non_overlapping([run[names[0]], run[v]]) for run in runs.values() for v in names[1:]),
          "the stage's repetitions do not overlap either variant's")
    # The repeat: call 6 ran chapter 27 --variant all at both sizes (the same chapter code, commit b794ba4).
    again = {n: program_csv(REPEAT / f"c27-all-{n}.csv") for n in runs}
    moved = [abs(ms(again[n][v]) / ms(runs[n][v]) - 1) * 100 for n in runs for v in names + ["cublas"]]
    cost2 = {v: {n: slower(again[n][v], again[n]["sgemm-tuned"]) for n in runs} for v in names[1:]}
    drift = max(abs(cost2[v][n] - cost[v][n]) for v in names[1:] for n in runs)
    claim(all(sorted(names, key=lambda v: ms(again[n][v])) == names for n in runs),
          "the repeat ranks the three the same way at both sizes")
    claim(max(moved) * 2 < min(x for v in cost.values() for x in v.values()),
          "run-to-run movement is well below the smallest effect")
    effects = sorted(x for v in cost.values() for x in v.values())
    reps = {n: sorted(int(run[v]["reps"]) for v in names) for n, run in runs.items()}
    t += ["", f"How sure: each size was measured twice, in separate processes: the run above "
          f"({reps[4096][0]}-{reps[4096][-1]} timed repetitions at 4096³, {reps[8192][0]}-{reps[8192][-1]} at 8192³) "
          f"and a second one at commit `b794ba4` with the same chapter code (`--variant all`, the candidates table "
          f"above; raw: " + ", ".join(f"[{n}³]({link(REPEAT / f'c27-all-{n}.csv')})" for n in runs) + "). Between "
          f"the two, no median of the stage, its two variants or cuBLAS moved by more than {max(moved):.2f}%, and "
          f"each switch's cost moved by at most {drift:.2f} points (second run: two barriers "
          f"{cost2[names[1]][4096]:.1f}% and {cost2[names[1]][8192]:.1f}%, no copy plan {cost2[names[2]][4096]:.1f}% "
          f"and {cost2[names[2]][8192]:.1f}%), against effects of {effects[0]:.1f}% to {effects[-1]:.1f}%. The "
          f"order (stage, two barriers, no copy plan) is the same in both runs at both sizes and in the `ncu` "
          f"launches ({', '.join(f1(x['time us']) for x in m)} µs): small effects, but measured ones."]
    return "\n".join(t)


STAGE_27 = "tuned-128x256x16-w64x64-t16x8-s3"  # StageConfig in chapters/27-sgemm-tuned/main.cu
H200_27 = "../../docs/results/raw/2026-11-23-h200/"  # the run that chose the stage (2026-11-23, commit 3830b2d)


def candidates_27():
    """Chapter 27's candidates on the H100 (call 6, --variant all at 4096^3 and 8192^3), fastest first, and what
    the pairs that differ in one parameter say."""
    runs = {n: program_csv(REPEAT / f"c27-all-{n}.csv") for n in (4096, 8192)}
    cands = {n: {v: r for v, r in run.items() if v.startswith("tuned-1") or v.startswith("tuned-2")}
             for n, run in runs.items()}
    fastest = {n: min(c, key=lambda v: ms(c[v])) for n, c in cands.items()}
    claim(all(f == STAGE_27 for f in fastest.values()), "the stage's configuration is the fastest candidate at both sizes")
    claim(all(abs(ms(runs[n]["sgemm-tuned"]) / ms(runs[n][STAGE_27]) - 1) < 0.005 for n in runs),
          "the row sgemm-tuned and its configuration's row agree (the same kernel)")

    def gain(n, a, b):  # how much longer b takes than a, % of a's time
        return slower(runs[n][b], runs[n][a])

    def both(a, b):
        return " and ".join(f"{gain(n, a, b):+.1f}%" for n in runs)

    s2, s3 = "tuned-128x128x8-w32x64-t8x8-s2", "tuned-128x128x8-w32x64-t8x8-s3"
    x16, s4 = "tuned-128x128x16-w32x64-t8x8-s3", "tuned-128x128x16-w32x64-t8x8-s4"
    x32, t16 = "tuned-128x128x32-w32x64-t8x8-s3", "tuned-128x128x16-w64x64-t16x8-s3"
    g8 = [(v, v + "-g8") for v in (x16, STAGE_27)]
    claim(all(gain(n, x16, s4) > 0 for n in runs), "-s4 is slower than -s3 at 128x128x16 at both sizes")
    claim(all(gain(n, x16, s3) > 0 and gain(n, x32, x16) > 0 for n in runs), "deeper slices pay: x8 > x16 > x32 in time")
    claim(all(gain(n, STAGE_27, t16) > 5 for n in runs), "the 128x256 block beats its 128x128 twin by far")
    claim(all(gain(n, a, b) > 0 for n in runs for a, b in g8), "every -g8 twin is slower than its row-by-row twin")
    s2_vs_s3 = [gain(n, s2, s3) for n in runs]
    claim(min(s2_vs_s3) < 0 < max(s2_vs_s3), "-s2 and -s3 at 128x128x8 trade places between the sizes")
    close = [gain(n, STAGE_27, x32) for n in runs]
    first = {n: program_csv(M38 / f"c27-off-{n}.csv") for n in runs}  # call 2's run of the stage, switches, cuBLAS
    moved = max(abs(ms(runs[n][v]) / ms(first[n][v]) - 1) * 100 for n in runs for v in first[n])
    claim(close[0] < moved < close[1], "at 4096^3 the x32 margin is within run-to-run movement, at 8192^3 it is not")
    claim(all(0 < c < 1 for c in close), "the 128x128x32 candidate is within 1% of the stage at both sizes")

    out = [f"NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-11-27, working tree of commit `b794ba4`, `27-sgemm-tuned --size N "
           f"--variant all --budget-ms 300 --format csv`, one process per size, fastest first (`sgemm-tuned` is the "
           f"stage, the same kernel as its configuration's row; `tuned-two-barriers` and `tuned-no-copy-plan` are its "
           f"off-switches, the table below, not candidates). "
           f"Raw: " + ", ".join(f"[{n}³]({link(REPEAT / f'c27-all-{n}.csv')})" for n in runs) + "."]
    for n, run in runs.items():
        rows = sorted(run.items(), key=lambda kv: ms(kv[1]))
        out += ["", f"At {n}³:", "", "| variant | median ms | GFLOP/s | % FP32 peak | vs cuBLAS |",
                "|---|---:|---:|---:|---:|"]
        out += [f"| `{v}`{' (the stage)' if v == STAGE_27 else ''} | {ms(r):.3f} | {float(r['gflops']):.0f} | "
                f"{f1(r['pct_peak_fp32'])} | {x3(r['speed_vs_ref'])} |" for v, r in rows]
    out += ["", f"Read pairwise (time of the second against the first, at 4096³ and 8192³): slices of 16 against 8 "
            f"(`{x16}` against its `x8` twin) {both(x16, s3)}, and 32 against 16 {both(x32, x16)}: deeper slices "
            f"pay; a fourth stage (`-s4`) {both(x16, s4)}: it does not; the banded order (`-g8`) "
            f"{both(x16, x16 + '-g8')} on the 128 × 128 tile and {both(STAGE_27, STAGE_27 + '-g8')} on the stage's: it "
            f"does not either; the stage's 128 × 128 twin (`{t16}`) {both(STAGE_27, t16)}. Two candidates do not "
            f"settle: `-s2` against `-s3` at 128 × 128 × 8 ({both(s2, s3)}: they trade places between the sizes), "
            f"and `{x32}`, 8 × 8 thread tiles with 16 warps per SM, runs within {max(close):.1f}% of the stage "
            f"({both(STAGE_27, x32)}), where the 16 × 8 tiles' larger FFMA share was expected to win clearly. The "
            f"stage was chosen by the first run, on an H200 (2026-11-23, commit `3830b2d`: [4096]({H200_27}"
            f"call2-sgemm-b-all-27-4096.txt), [8192]({H200_27}call2-sgemm-b-all-27-8192.txt), without the `x32` "
            f"candidate). This H100 run confirms it at 8192³, {close[1]:.1f}% ahead of `x32`; at 4096³ the "
            f"margin, {close[0]:.1f}%, is below the {moved:.2f}% by which the same kernels' medians moved between two "
            f"runs (the off-switch table below), so there the two tie."]
    return "\n".join(out)


# ---- Chapter 37's lab: the cluster exchange without the FFT (call 8, c8.sh at 7e9ec24) ----------------------
LAB37 = HERE / "lab37-7e9ec24"
LAB37_STAGE = "fft-thread-block-cluster"
LAB37_LENGTHS = (32768, 65536)
PROV_LAB37 = ("NVIDIA H100 80GB HBM3 (132 SMs), driver 580.159.04, CUDA 13.0, 2026-11-27, working tree of commit "
              "`7e9ec24`")


def lab37_runs():
    """{N: {variant: row}} of the lab's CSV runs and {N: {variant: (clusters, blocks per SM)}} of its residency table."""
    runs = {n: program_csv(LAB37 / f"lab-{n}.csv") for n in LAB37_LENGTHS}
    resident = {}
    for n in LAB37_LENGTHS:
        text = (LAB37 / f"lab-{n}.txt").read_text()
        resident[n] = {f[0]: (int(f[4]), float(f[5])) for f in
                       (line.split() for line in text[text.index("Clusters resident"):].splitlines())
                       if len(f) == 6 and f[1].isdigit()}
    return runs, resident


def lab37_ncu():
    """{(variant, N): ncu row} of the exchange and the stage at both lengths (2^24 elements)."""
    return {(v, n): ncu_launch(LAB37 / f"ncu-{v}-{n}.csv") for v in ("exchange-c8", LAB37_STAGE) for n in LAB37_LENGTHS}


def pct(row):
    return float(row["pct_memcpy"])


def lab37_table(prefix="../"):
    """The lab README's table: every exchange and the stage at both lengths, their residency, and ncu."""
    runs, resident = lab37_runs()
    ncu = lab37_ncu()
    for n, run in runs.items():
        claim(all(r["check"] == "ok" for v, r in run.items() if v != "cudaMemcpy"), f"every row checked ok at {n}")
        claim(all(pct(r) > pct(run[LAB37_STAGE]) for v, r in run.items() if v.startswith("exchange-")),
              f"every exchange is faster than the stage at {n}")
    raw = prefix + RAW_LINK + "lab37-7e9ec24/"
    out = [f"{PROV_LAB37}, `37-fft-cluster-exchange-lab --length N --budget-ms 300 --format csv` (1 GiB batch), "
           f"one process per length; residency: the program's table (`cudaOccupancyMaxActiveClusters`); raw: "
           + ", ".join(f"[{n}]({raw}lab-{n}.csv)" for n in runs) + "."]
    for n, run in runs.items():
        out += ["", f"N = {n}:", "", "| variant | median ms | GB/s | % of `cudaMemcpy` | time vs the stage | "
                "clusters resident (blocks per SM) |", "|---|---:|---:|---:|---:|---:|"]
        for v, r in sorted(run.items(), key=lambda kv: ms(kv[1])):
            where = resident[n].get(v)
            out.append(f"| `{v}`{' (the stage, an FFT)' if v == LAB37_STAGE else ''} | {ms(r):.3f} | "
                       f"{float(r['gbps']):.0f} | {f1(r['pct_memcpy'])} | "
                       f"{'–' if v == 'cudaMemcpy' else x3(ms(r) / ms(run[LAB37_STAGE]))} | "
                       f"{f'{where[0]} ({where[1]:.2f})' if where else '–'} |")
    out += ["", f"`ncu` (`tools/ncu-compare --program <lab> --variant V --length N --preset fft`, 2^24 elements, the "
            f"timed run's one launch; raw: [{raw}](" + raw + ")):", "",
            "| | " + " | ".join(f"`{v}` {n}" for v in ("exchange-c8", LAB37_STAGE) for n in LAB37_LENGTHS) + " |",
            "|---|---:|---:|---:|---:|"]
    keys = [(v, n) for v in ("exchange-c8", LAB37_STAGE) for n in LAB37_LENGTHS]
    for label, key, fmt in [("time, µs", "time us", f1), ("DRAM throughput, % of peak", "DRAM %peak", f1),
                            ("achieved occupancy, %", "occupancy %", f1), ("instructions", "instructions", n_),
                            ("registers per thread", "regs", str), ("stall barrier per issue", "stall barrier", f2)]:
        out.append(f"| {label} | " + " | ".join(fmt(ncu[k][key]) for k in keys) + " |")
    out += ["", "Barrier stalls are counted per issued instruction, and the exchange issues a few times fewer "
            "instructions than the stage, so its ratio is not comparable with the stage's; the time and the DRAM "
            "throughput are. What these numbers say about the stage: chapter 37's README, \"The bound\"."]
    return "\n".join(out).replace(f"[{raw}](", "[lab37-7e9ec24](")


def lab37_bound():
    """Chapter 37's "The bound": what the exchange alone reaches (the design's bound)."""
    runs, resident = lab37_runs()
    ncu = lab37_ncu()
    e = {n: runs[n]["exchange-c8"] for n in runs}
    st = {n: runs[n][LAB37_STAGE] for n in runs}
    best32 = max((v for v in runs[32768] if v.startswith("exchange-")), key=lambda v: pct(runs[32768][v]))
    claim(resident[65536]["exchange-c8"] == (15, 0.91), "at 65536 the exchange holds the stage's 15 clusters")
    c37 = (HERE.parent / "2026-11-27-h100" / "screens-bbee8ca" / "c37-all-n32768.txt").read_text()
    stage32 = next(int(f[5]) for f in (line.split() for line in c37[c37.index("Clusters resident"):].splitlines())
                   if len(f) == 7 and f[0] == LAB37_STAGE and f[1] == "32768")
    claim(stage32 < resident[32768]["exchange-c8"][0], "at 32768 the exchange holds more clusters than the stage")
    i = {n: int(ncu[(LAB37_STAGE, n)]["instructions"]) / int(ncu[("exchange-c8", n)]["instructions"]) for n in runs}
    claim(all(x > 5 for x in i.values()), "the FFT multiplies the instructions several times")
    claim(all(ms(st[n]) - ms(e[n]) > ms(e[n]) - ms(runs[n]["cudaMemcpy"]) for n in runs),
          "the butterflies add more time than the exchange adds over a copy, at both lengths")
    return (f"**Measured: the exchange alone** (the chapter's [lab](lab/README.md): the stage's kernel with every FFT "
            f"operation removed, the same plan, launch, barriers, gather and stores; {PROV_LAB37}, the stage in the "
            f"same process). At N = 32768 the stage's exchange reaches {f1(pct(e[32768]))}% of `cudaMemcpy` "
            f"(`{best32}`, the fastest shape, {f1(pct(runs[32768][best32]))}%), where the stage reaches "
            f"{f1(pct(st[32768]))}%; at 65536 it reaches {f1(pct(e[65536]))}% against the stage's "
            f"{f1(pct(st[65536]))}%, with the same {resident[65536]['exchange-c8'][0]} clusters resident "
            f"({resident[65536]['exchange-c8'][1]:.2f} blocks per SM). The stage takes "
            f"{ms(st[32768]) / ms(e[32768]):.2f}× and {ms(st[65536]) / ms(e[65536]):.2f}× its exchange's time: the "
            f"butterflies, with {i[32768]:.1f}× and {i[65536]:.1f}× the exchange's instructions (`ncu`, "
            f"`smsp__inst_executed.sum`) and their own barriers inside each block, add more time than the exchange "
            f"adds over a copy. At 32768 the exchange stops {100 - pct(e[32768]):.0f} points short of copy "
            f"({100 - pct(runs[32768][best32]):.0f} with `{best32}`), though with more clusters resident than the "
            f"stage ({resident[32768]['exchange-c8'][0]} against {stage32} in chapter 37's residency table: without "
            f"the butterflies ptxas needs {ncu[('exchange-c8', 32768)]['regs']} registers, not "
            f"{ncu[(LAB37_STAGE, 32768)]['regs']}), so for the stage's own occupancy it is an upper bound; at 65536 "
            f"it is far from copy: one block per SM, waiting at "
            f"two cluster barriers per signal, keeps the DRAM at {f1(ncu[('exchange-c8', 65536)]['DRAM %peak'])}% of "
            f"its peak with no arithmetic at all (`dram__throughput.avg.pct_of_peak_sustained_elapsed`; the stage "
            f"{f1(ncu[(LAB37_STAGE, 65536)]['DRAM %peak'])}%). The lab's table has every shape, the residency and "
            f"the `ncu` counters.")


TABLES = [("01-branches", early.branches_01), ("01-ncu-why", early.why_01), ("02-ncu-why", why_02),
          ("03-ncu", early.ncu_03), ("03-ncu-why", early.why_03), ("04-ncu", early.ncu_04),
          ("04-ncu-why", early.why_04), ("24-switches", switches_24), ("27-switches", switches_27),
          ("27-candidates", candidates_27), ("37-lab-exchange", lab37_table), ("37-bound-exchange", lab37_bound)]
BLOCKS = {name: name for name, _ in TABLES}


def main():
    early.h100_tables().write_tables(TABLES, BLOCKS, HERE / "tables", sys.argv[1:])


if __name__ == "__main__":
    main()
