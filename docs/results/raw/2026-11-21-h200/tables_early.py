#!/usr/bin/env python3
"""Writes the H200 tables that chapters 01-04 cite from this folder's captures (2026-11-21, commit e0a93a9), as
the chapter programs printed them, and chapter 09's racecheck excerpt (racecheck-09-*.txt; no GPU needed).
Its ncu functions (branches_01, why_01, ncu_03, why_03, ncu_04, why_04) now fill the READMEs from the H100
captures of 2026-11-27 (docs/results/raw/2026-11-27-h100/tables.py); this folder's ncu CSVs stay as history.

  python3 docs/results/raw/2026-11-21-h200/tables_early.py          # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-21-h200/tables_early.py --fill   # and fills every README block they feed
                                                                    # (BLOCKS: tools/fill-measured --extra)
  python3 docs/results/raw/2026-11-21-h200/tables_early.py --fill --check   # changes nothing; exit 1 if a
                                                                            # table or a block would

Every number comes from a program output in this folder; nothing is typed by hand. (tables_early.py, not
tables.py: chapter 16's tables from this folder may get their own script.)"""
import csv
import importlib.util
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
RAW_LINK = "../../docs/results/raw/2026-11-21-h200/"
# What the captures' banners do not print: the toolkit, driver, date and commit of the run.
RUN = "CUDA 13.0 (nvcc 13.0.88), driver 580.159.04, 2026-11-21, commit `e0a93a9`"
# The ncu captures' GPU, date and commit, for the sentences below. The H100 captures of 2026-11-27
# (docs/results/raw/2026-11-27-h100/tables.py) use these functions with their own HERE, RAW_LINK and NCU.
NCU = {"gpu": "NVIDIA H200", "short": "H200", "date": "2026-11-21", "commit": "038affa", "commit_01": "40f6318"}


def gpu_of(path):
    """'NVIDIA H200 (132 SMs, compute capability 9.0)' from a chapter program's banner line 'GPU 0: ...'."""
    m = re.search(r"^GPU \d+: (.+?) \(compute capability ([\d.]+), (\d+) SMs,", path.read_text(), re.M)
    if not m:
        raise SystemExit(f"tables_early.py: no 'GPU 0:' banner line in {path}")
    return f"{m.group(1)} ({m.group(3)} SMs, compute capability {m.group(2)})"


def program_output(path):
    """A chapter program's output without its banner (everything up to the first empty line)."""
    text = path.read_text()
    if "\n\n" not in text:
        raise SystemExit(f"tables_early.py: {path}: no empty line after the banner")
    return text.split("\n\n", 1)[1].rstrip("\n")


def run_block(runs):
    """A README's '-run' block: provenance, then each (command, raw file) as the shell showed it."""
    gpus = {gpu_of(HERE / raw) for _, raw in runs}
    if len(gpus) != 1:
        raise SystemExit(f"tables_early.py: runs on different GPUs: {sorted(gpus)}")
    shown = "\n\n".join(f"$ {cmd}\n\n{program_output(HERE / raw)}" for cmd, raw in runs)
    return (f"Measured on {gpus.pop()}, {RUN}; raw output in [docs/results/raw/2026-11-21-h200/]({RAW_LINK}).\n\n"
            f"```\n{shown}\n```")


def program(chapter, name=None):
    return f"./build/chapters/{chapter}/{name or chapter}"


# README block -> the runs it shows: (the command as run, the raw file holding its output).
RUN_BLOCKS = {
    **{f"02-gpu-principles-{part}-run": [(program("02-gpu-principles", f"02-gpu-principles-{part}"), f"02-{part}.txt")]
       for part in ("fma", "latency", "barrier", "bandwidth", "mimd", "exchange")},
    "03-vectorized-loads-run": [(program("03-vectorized-loads") + " --budget-ms 300", "03.txt"),
                                (program("03-vectorized-loads") + " --budget-ms 300 --offset 1", "03-offset1.txt")],
    "04-warp-aggregated-atomics-run": [(program("04-warp-aggregated-atomics") + " --size 2^24 --budget-ms 300",
                                        "04.txt")],
}


def block_sizes():
    """Chapter 01 by block size: lines 'block B: VARIANT [*] n median ...' of 01-blocks.txt."""
    rows = {}
    for line in (HERE / "01-blocks.txt").read_text().splitlines():
        m = re.match(r"^block (\d+): (\S+)( \*)?\s+(.*)$", line)
        if not m:
            raise SystemExit(f"tables_early.py: 01-blocks.txt: unexpected line {line!r}")
        f = m.group(4).split()  # n, median ms, min, max, reps, GB/s, % peak, % memcpy, speed, check
        rows.setdefault(int(m.group(1)), {})[m.group(2)] = {"median": f[1], "pct_memcpy": f[7]}
    out = ["The block size decides it. NVIDIA H200, CUDA 13.0, 2026-11-21 (commit `e0a93a9`), 2^26 threads,",
           "`--block B --variant kernel1-even-odd,kernel2-warp-uniform`, median ms and share of `cudaMemcpy`:", "",
           "| `--block` | kernel1-even-odd | kernel2-warp-uniform | % of cudaMemcpy |", "|---:|---:|---:|---:|"]
    for block, r in sorted(rows.items()):
        label = f"{block} (the article's)" if block == 64 else str(block)
        out.append(f"| {label} | {r['kernel1-even-odd']['median']} | {r['kernel2-warp-uniform']['median']} | "
                   f"{r['kernel2-warp-uniform']['pct_memcpy']} |")
    out += ["", "Time halves each time the block doubles, until the stores saturate memory: the kernels are bound by how",
            "many blocks per second the GPU can start, not by the branch. (Raw: "
            f"[01-blocks.txt]({RAW_LINK}01-blocks.txt).)"]
    return "\n".join(out)


# ---- ncu captures (ncu --csv: the program's own output, then one row per kernel launch and metric) ----------
def ncu_first_launch(name):
    """{kernel: {metric: value}} from an ncu --csv capture (NAME: a path, or a file in this folder), each kernel's
    first launch (the slides' launch in chapter 03, where the same kernels run again with the one-wave launch;
    the check run where a --profile run launches twice); kernel names without their arguments."""
    lines = (HERE / name).read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        raise SystemExit(f"tables_early.py: {name}: no ncu CSV header line")
    first, out = {}, {}
    for r in csv.DictReader(line for line in lines[start:] if line.startswith('"')):
        # the kernel's name without its arguments, and without return type and namespace before its template
        # arguments (which stay): "void ns::k<T>(int)" -> "k<T>"
        head, angle, template = r["Kernel Name"].split("(")[0].partition("<")
        kernel = head.split(" ")[-1].split("::")[-1] + angle + template
        first.setdefault(kernel, r["ID"])
        if r["ID"] == first[kernel]:
            out.setdefault(kernel, {})[r["Metric Name"]] = r["Metric Value"]
    return out


def count(text):
    return int(text.replace(",", ""))


def micros(ns_text):
    """ncu's gpu__time_duration.sum (ns, with thousands commas) in µs."""
    return f"{count(ns_text) / 1000:,.1f}"


NCU_01 = {"optimised": "ncu-01-warp-divergence.csv", "`-G`": "ncu-01-warp-divergence-G.csv"}
KERNELS_01 = [("even_odd_branch", "mathKernel1", "kernel1-even-odd"), ("warp_uniform_branch", "mathKernel2", None),
              ("split_predicate_branch", "mathKernel3", "kernel3-split-if"), ("warp_shift_branch", "mathKernel4", None)]


def branches_01():
    """Chapter 01's branch metrics, both builds, and what they show."""
    out = ["**Branch metrics**, `ncu --clock-control none`, 2^22 threads in blocks of 64:", "",
           "| kernel | build | branch instructions | uniform branch targets | divergent branch targets | threads per "
           "instruction |", "|---|---|---:|---:|---:|---:|"]
    ncu = {build: ncu_first_launch(f) for build, f in NCU_01.items()}
    for build, r in ncu.items():
        kernels = [(k, f" ({article})") for k, article, _ in KERNELS_01]
        if build == "`-G`":
            kernels.append(("warp_shift_branch_article", ""))
        for k, article in kernels:
            m = r[k]
            uniform = m["smsp__sass_average_branch_targets_threads_uniform.pct"]
            out.append(f"| {k}{article} | {build} | {m['smsp__sass_inst_executed_op_branch.sum']} | "
                       f"{uniform if uniform == '0' else uniform + '%'} | "
                       f"{m['smsp__sass_branch_targets_threads_divergent.sum']} | "
                       f"{m['smsp__thread_inst_executed_per_inst_executed.ratio']} |")
    g = ncu["`-G`"]
    div = {k: count(g[k]["smsp__sass_branch_targets_threads_divergent.sum"]) for k, _, _ in KERNELS_01}
    branches = sum(count(m["smsp__sass_inst_executed_op_branch.sum"]) for m in ncu["optimised"].values())
    warps = 2**22 // 32
    split = div["split_predicate_branch"] / div["even_odd_branch"]
    out += ["", "What this shows, as the article found with `nvprof` on its GPU: the optimised build has "
            + ("no branch at all\n(every kernel is predicated)" if branches == 0 else f"{branches:,} branches")
            + f"; with `-G`, the even/odd kernel diverges in "
            + ("every warp" if div["even_odd_branch"] == warps else f"{div['even_odd_branch'] / warps:.2f} times per warp")
            + f" ({div['even_odd_branch']:,} divergent\ntargets = one per warp of the 2^22 threads) and splitting its "
            f"if/else into two ifs **{'doubles' if split == 2 else f'multiplies by {split:.2f}'}** the divergent\n"
            f"branch targets ({div['split_predicate_branch']:,}). The warp-granular conditions "
            + ("never diverge." if div["warp_uniform_branch"] == div["warp_shift_branch"] == 0 else "diverge too.")]
    return "\n".join(out)


def why_01():
    r = ncu_first_launch(NCU_01["`-G`"])
    opt = ncu_first_launch(NCU_01["optimised"])
    div = "smsp__sass_branch_targets_threads_divergent.sum"
    zero = all(count(m[div]) == 0 for m in opt.values())
    uniform = {r[k][div] for k in ("warp_uniform_branch", "warp_shift_branch")}
    return (f"**The `ncu` metric that shows why:** `{div}` is "
            f"{'0 for every kernel' if zero else 'not 0 for every kernel'} of the optimised build; with `-G` (2^22 "
            f"threads) it is {r['even_odd_branch'][div]} for `kernel1-even-odd` (one per warp), "
            f"{r['split_predicate_branch'][div]} for `kernel3-split-if` and {' or '.join(sorted(uniform))} for the "
            f"warp-uniform conditions ({NCU['gpu']}, CUDA 13.0, {NCU['date']}, commit `{NCU['commit_01']}`; raw: "
            f"[ncu-01-warp-divergence-G.csv]({RAW_LINK}ncu-01-warp-divergence-G.csv)).")


LD_REQUESTS, LD_SECTORS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"


def ncu_03():
    out = [f"**Counted with `ncu`** ({NCU['short']}, CUDA 13.0, {NCU['date']}, commit `{NCU['commit']}`; `--size 2^26`, "
           "`--profile`, slides' launch;", f"raw: [offset 0]({RAW_LINK}ncu-03-offset0.csv),",
           f"[offset 1]({RAW_LINK}ncu-03-offset1.csv)):", "",
           "| kernel | `--offset` | load instructions | L1 load requests | 32-byte sectors loaded | DRAM % of peak | "
           "time µs |", "|---|---:|---:|---:|---:|---:|---:|"]
    for offset in (0, 1):
        r = ncu_first_launch(f"ncu-03-offset{offset}.csv")
        for k in ("copy_int32_kernel", "copy_int2_kernel", "copy_int4_kernel"):
            m = r[k]
            out.append(f"| {k} | {offset} | {m['smsp__inst_executed_op_global_ld.sum']} | {m[LD_REQUESTS]} | "
                       f"{m[LD_SECTORS]} | {float(m['dram__throughput.avg.pct_of_peak_sustained_elapsed']):.1f} | "
                       f"{micros(m['gpu__time_duration.sum'])} |")
    return "\n".join(out)


def why_03():
    r = ncu_first_launch("ncu-03-offset0.csv")
    scalar, int4 = r["copy_int32_kernel"], r["copy_int4_kernel"]
    same = scalar[LD_SECTORS] == int4[LD_SECTORS]
    share = count(int4[LD_REQUESTS]) / count(scalar[LD_REQUESTS])
    return (f"**The `ncu` metric that shows why:** `{LD_REQUESTS}`, {scalar[LD_REQUESTS]} requests for the scalar "
            f"kernel against {int4[LD_REQUESTS]} for `int4` at 2^26 ints, for "
            + (f"the same {scalar[LD_SECTORS]} sectors" if same else
               f"{scalar[LD_SECTORS]} and {int4[LD_SECTORS]} sectors")
            + f" (`{LD_SECTORS}`): "
            + ("a quarter" if share == 0.25 else f"{share:.2f} times") + " of the requests for the same bytes "
            f"({NCU['gpu']}, CUDA 13.0, {NCU['date']}, commit `{NCU['commit']}`; \"Counted with `ncu`\" below, from "
            f"[ncu-03-offset0.csv]({RAW_LINK}ncu-03-offset0.csv)).")


ATOM_L2 = "lts__t_requests_op_atom.sum"
KERNELS_04 = [("filter_global_atomic", " (compiler-aggregated)"), ("filter_global_atomic_per_lane", ""),
              ("filter_shared_atomic", ""), ("filter_warp_aggregated_cg", ""), ("filter_warp_aggregated_manual", "")]


def ncu_04():
    r = ncu_first_launch("ncu-04.csv")
    out = [f"**Counted with `ncu`** ({NCU['short']}, CUDA 13.0, {NCU['date']}, commit `{NCU['commit']}`; `--size 2^24`, "
           "50% selected, `--profile`;", f"raw: [ncu-04.csv]({RAW_LINK}ncu-04.csv)):", "",
           "| kernel | `..._op_global_atom.sum` (warp instructions) | `..._op_shared_atom.sum` | "
           f"`{ATOM_L2}` (L2 atomic requests) | time µs |", "|---|---:|---:|---:|---:|"]
    for k, note in KERNELS_04:
        m = r[k]
        out.append(f"| {k}{note} | {m['smsp__sass_inst_executed_op_global_atom.sum']} | "
                   f"{m['smsp__sass_inst_executed_op_shared_atom.sum']} | {m[ATOM_L2]} | "
                   f"{micros(m['gpu__time_duration.sum'])} |")
    agg, lane = r["filter_global_atomic"], r["filter_global_atomic_per_lane"]
    filters = {k: r[k] for k, _ in KERNELS_04}  # the capture also holds the check's and CUB's kernels
    per_warp = {m["smsp__sass_inst_executed_op_global_atom.sum"] for k, m in filters.items() if k != "filter_shared_atomic"}
    reds = {m["smsp__sass_inst_executed_op_global_red.sum"] for m in filters.values()}
    out += ["", "The SASS counters count *warp* instructions, so they cannot tell aggregation apart: every kernel but "
            "the\nshared one issues one `ATOMG` per warp (2^24 / 32 = "
            + (f"{2**24 // 32:,})" if per_warp == {f"{2**24 // 32:,}"} else f"{2**24 // 32:,}; measured "
               f"{', '.join(sorted(per_warp))})")
            + f". What the L2 receives can: {count(lane[ATOM_L2]) / count(agg[ATOM_L2]):.0f} times more\natomic "
            f"requests without aggregation, and that is the "
            f"{count(lane['gpu__time_duration.sum']) / count(agg['gpu__time_duration.sum']):.0f}x in the time. "
            f"`RED` count is {' or '.join(sorted(reds))} everywhere (the\nfilters use the atomic's result)."]
    return "\n".join(out)


def why_04():
    r = ncu_first_launch("ncu-04.csv")
    a = {k: r[f"filter_{k}"][ATOM_L2] for k in ("global_atomic", "warp_aggregated_manual", "global_atomic_per_lane",
                                                  "shared_atomic")}
    return (f"**The `ncu` metric that shows why:** `{ATOM_L2}`, the atomic requests the L2 receives: "
            f"{a['global_atomic']} for `global-atomic` and {a['warp_aggregated_manual']} for `warp-aggregated-manual` "
            f"(both aggregated), {a['global_atomic_per_lane']} for `global-atomic-per-lane` "
            f"({count(a['global_atomic_per_lane']) / count(a['global_atomic']):.0f}x as many), {a['shared_atomic']} "
            f"for `shared-atomic` (2^24 ints, 50%; {NCU['gpu']}, CUDA 13.0, {NCU['date']}, commit `{NCU['commit']}`; "
            f"\"Counted with `ncu`\" below, [ncu-04.csv]({RAW_LINK}ncu-04.csv)).")


def program_medians(name):
    """{variant: median ms as printed} from a chapter program's table in RAW file NAME."""
    rows = {}
    for line in program_output(HERE / name).splitlines():
        f = line.split()
        if len(f) > 3 and f[1] in ("*",) + tuple(f"2^{i}" for i in range(64)):
            g = f[2:] if f[1] == "*" else f[1:]
            rows[f[0]] = g[1]
    return rows


def sass_timings_04():
    """The sentences under chapter 04's SASS listing: the timings of 04.txt."""
    t = program_medians("04.txt")
    ms = {k: float(v) for k, v in t.items()}
    return (f"So the slides' last claim holds on this compiler: the naive `global-atomic` kernel is compiled into the\n"
            f"same vote/popc/one-atomic-per-warp pattern as the hand-written versions, and the timings agree (at 2^24\n"
            f"elements and 50% selectivity, {t['global-atomic']} ms naive against {t['warp-aggregated-cg']} ms with "
            f"cooperative groups and {t['warp-aggregated-manual']} ms by\nhand; H200, commit `e0a93a9`, "
            f"[04.txt]({RAW_LINK}04.txt)).\nOnly when the compiler cannot prove the address is the same for the "
            f"whole warp (`global-atomic-per-lane`) does every selected lane issue its own atomic, and that is "
            f"{ms['global-atomic-per-lane'] / ms['global-atomic']:.0f} times slower\n({t['global-atomic-per-lane']} "
            f"ms). Aggregation per *block* (`shared-atomic`, {t['shared-atomic']} ms) beats aggregation per warp by "
            f"{ms['warp-aggregated-manual'] / ms['shared-atomic']:.1f}x here,\nand CUB's order-preserving "
            f"`DeviceSelect::If` is {'faster' if ms['cub'] < ms['shared-atomic'] else 'slower'} still ({t['cub']} ms, "
            f"{ms['shared-atomic'] / ms['cub']:.2f}x the shared-atomic filter),\nwhile also keeping the input order.")


# ---- Chapter 02's verdict: the rule tables the programs print under their timings --------------------------
def h100_tables():
    """The H100 tables.py as a module (its program_rows and write_tables), loaded from its path."""
    spec = importlib.util.spec_from_file_location("h100_tables", HERE.parent / "2026-11-25-h100" / "tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rule_lines(name):
    """[(row label, [cells])] of the rule table a chapter 02 program prints after its timings (the lines after the
    second dashed line; a label is the first column, cells split on two or more spaces)."""
    lines = (HERE / name).read_text().splitlines()
    dashes = [i for i, line in enumerate(lines) if line.startswith("-----")]
    rows = []
    for line in lines[dashes[1] + 1:]:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) < 3:
            break
        rows.append((cells[0], cells[1:]))
    return rows


def rule_rows(name):
    return dict(rule_lines(name))


def first(pattern, name):
    m = re.search(pattern, (HERE / name).read_text(), re.M)
    if not m:
        raise SystemExit(f"tables_early.py: {name}: no match for {pattern!r}")
    return m.group(1)


def gpu_principles_width():
    """Rule 4's prediction, proved wrong: the 32- and 64-bit copies' share of cudaMemcpy at 128 threads."""
    r = h100_tables().program_rows(HERE / "02-bandwidth.txt")
    tb = float(first(r"DRAM peak here: ([\d.]+) GB/s", "02-bandwidth.txt")) / 1000
    return (f"**The measurement below proved the first half wrong** (NVIDIA H200, CUDA 13.0, 2026-11-21):\n"
            f"at 128 threads per block the 32-bit copy\n"
            f"reaches only {r['copy32-block128']['% memcpy']}% of `cudaMemcpy` and the 64-bit copy "
            f"{r['copy64-block128']['% memcpy']}%; only the 128-bit copy matches it. One 4-byte\nload per thread per "
            f"iteration does not keep enough bytes in flight at {tb:.1f} TB/s.")


def gpu_principles_verdict():
    h100 = h100_tables()
    fma = rule_rows("02-fma.txt")
    lat = rule_rows("02-latency.txt")
    bar = rule_rows("02-barrier.txt")
    bw = rule_rows("02-bandwidth.txt")
    mimd = rule_rows("02-mimd.txt")
    ex = rule_rows("02-exchange.txt")
    exr = h100.program_rows(HERE / "02-exchange.txt")
    peak = int(first(r"^peak = .* = (\d+) GFLOP/s$", "02-fma.txt"))
    clock = first(r"^SM clock measured .*: (\d+) MHz", "02-fma.txt")
    knee = re.search(r"first reached at: FMA (\d+) warps/SM, chase (\d+) warps/SM",
                     (HERE / "02-latency.txt").read_text())
    fma_knee, chase_knee = int(knee.group(1)), int(knee.group(2))
    article_threads = int(first(r"the article needed (\d+) threads", "02-latency.txt"))
    tb = float(first(r"DRAM peak here: ([\d.]+) GB/s", "02-bandwidth.txt")) / 1000
    c8, c1 = fma["chains-8"], fma["chains-1"]  # chains/thread, warps/SM, GFLOP/s, % of peak, % at measured clock
    cycles = lat["fma-warps-1"][-1].split()[0]
    twice = "twice" if 32 * fma_knee == 2 * article_threads else f"{32 * fma_knee / article_threads:.2g} times"
    chase1, chase_knee_row = lat["chase-warps-1"], lat[f"chase-warps-{chase_knee}"]
    b = {(e, k): float(bar[f"sync-every-{e}-blocks-{k}"][4]) for e in (1, 4, 16) for k in (1, 2, 4)}
    fine = [b[(1, k)] for k in (1, 2, 4)]
    mid = [b[(4, k)] for k in (1, 2, 4)]
    coarse = [b[(16, k)] for k in (1, 2, 4)]
    copy = {bits: bw[f"copy{bits}-block128"] for bits in (32, 64, 128)}  # bits, threads, GB/s, % peak, % memcpy
    article = [cells for label, cells in rule_lines("02-bandwidth.txt") if label.startswith("GTX 280")]
    warp_cost = round(100 * (float(mimd["branch-by-warp"][-1].rstrip("x")) - 1))
    lane = mimd["branch-by-lane"][-1]
    full, halved = ex["full-buffer"], ex["halved-buffer"]  # shared, registers, blocks/SM, warps/SM, GB/s, %, time
    time_ratio = float(halved[-1].rstrip("x"))
    tight = float(exr["full-buffer-tight-smem"]["median ms"]) / float(exr["halved-buffer-tight-smem"]["median ms"])
    extra_kib = first(r"The tight variants add (\d+) KiB", "02-exchange.txt")
    return "\n".join([
        "Measured on an NVIDIA H200 (132 SMs, CUDA 13.0, 2026-11-21; the tables above):", "",
        f"- **Rule 1, know your peak: still pays, and modern GPUs get closer.** Eight independent chains per thread "
        f"reach\n  {int(c8[2]):,} GFLOP/s, {c8[3]}% of the {peak:,} GFLOP/s peak at the boost clock ({c8[4]}% at "
        f"the {clock} MHz the SMs actually\n  ran); even one chain per thread reaches {c1[3]}% with {c1[1]} warps per "
        "SM. The article's \"67% of peak\" was 100% of\n  what MAD-only code can reach on a GTX 280: its 933 GFLOP/s "
        "counts a MUL that such a loop never issues.",
        f"- **Rule 2, enough warps: still pays, but the number changed.** One dependent FFMA takes about {cycles} "
        f"cycles\n  here, so an SM (four schedulers) needs {fma_knee} warps, {32 * fma_knee} threads, to reach 90% "
        f"of peak, {twice} the article's {article_threads}.\n  Dependent global "
        f"loads (a pointer chase, about {chase1[-1].split()[0]} ns each) stop scaling at {chase_knee} warps per SM at "
        f"{chase_knee_row[3].split()[0]} G loads/s:\n  memory latency is hidden by loads in flight, not by warps alone "
        "(chapter 03 and 16 use that).",
        "- **Rule 3, a second block hides `__syncthreads()`: pays only for very fine-grained barriers.** With a "
        f"barrier\n  every 8 FMAs, one 512-thread block per SM reaches {fine[0]}% of peak, two blocks {fine[1]}%, four "
        f"blocks {fine[2]}%. With a\n  barrier every 32 FMAs the three differ by {max(mid) - min(mid):.1f} points "
        f"({min(mid)}–{max(mid)}%), and at 128 FMAs per barrier\n  they are within "
        f"{max(coarse) - min(coarse):.1f} points.",
        f"- **Rule 4, wider accesses: pays much more than it did.** At 128 threads per block, 32-bit copies move\n"
        f"  {float(copy[32][2]):,.0f} GB/s ({copy[32][3]}% of peak), 64-bit {float(copy[64][2]):,.0f} GB/s "
        f"({copy[64][3]}%) and 128-bit {float(copy[128][2]):,.0f} GB/s ({copy[128][3]}%, "
        f"{copy[128][4]}% of\n  `cudaMemcpy`); the article measured {article[0][2]} against {article[1][2]} GB/s on "
        "the GTX 280. One 4-byte load per thread no\n  longer keeps enough bytes in flight to cover DRAM latency at "
        f"{tb:.1f} TB/s (chapter 03 explores this).",
        f"- **Rule 5a, warp-uniform branches are free: still holds.** Branching on the warp index costs {warp_cost}%; "
        "branching\n  on the lane index makes every warp run both paths and halves the rate "
        f"({lane} the time).",
        "- **Rule 5b, halve shared memory to fit a second block: no longer pays by default.** With the default "
        f"shared\n  memory both versions already run {full[2]} blocks per SM and take the same time within "
        f"{100 * abs(1 - time_ratio):.0f}% (the halved buffer {halved[-1]}\n  the full one's time). It pays again "
        f"when shared\n  memory really is the limit: with {extra_kib} KiB of other shared memory per block (one "
        f"full-buffer block per SM\n  against two halved ones), the halved buffer is {tight:.2f}x faster."])


def misalignment_03():
    """Chapter 03's misalignment bullet: the --offset 1 run against the aligned one (03-offset1.txt, 03.txt)."""
    aligned, shifted = program_medians("03.txt"), program_medians("03-offset1.txt")

    def cost(v, first=False):
        return (f"{shifted[v]}{' ms' if first else ''} against {aligned[v]}{' aligned' if first else ''} "
                f"({float(shifted[v]) / float(aligned[v]):.3g}x)")
    return (f"- **Misalignment costs, and most for the narrow kernels** (H200, commit `e0a93a9`). With `--offset 1` "
            f"(both pointers 4 bytes\n  past a 16-byte boundary) at 2^28: `int4-slides` {cost('int4-slides', True)}, "
            f"`int2-slides`\n  {cost('int2-slides')}, `scalar-slides` {cost('scalar-slides')}, and the one-wave "
            f"`scalar`\n  {cost('scalar')}. Every warp-wide access now straddles one more 32-byte sector and one more\n"
            f"  128-byte line, and the ncu counts above show how much that extra sector weighs for each width.")


def racecheck_09():
    """Chapter 09's racecheck of the article's variant (its first hazard and the summary) and of the stage."""
    art = (HERE / "racecheck-09-article.txt").read_text().splitlines()
    stage = (HERE / "racecheck-09-scan-zero-padding.txt").read_text().splitlines()
    summary = lambda lines: next(line for line in lines if "RACECHECK SUMMARY" in line)
    hazard = art[:art.index("=========     Saved host backtrace up to driver entry point at kernel launch time")]
    m = re.search(r"\((\d+) errors, (\d+) warnings\)", summary(art))
    errors, warnings = int(m.group(1)), int(m.group(2))
    row = h100_tables().program_rows(HERE / "racecheck-09-article.txt")["article"]
    assert errors == 0 and "0 hazards" in summary(stage)
    return (f"On the NVIDIA H200 (CUDA 13.0, 2026-11-21, commit `bb8222b`), the `article` variant:\n\n```\n"
            + "\n".join(hazard) + f"\n...\n{summary(art)}\n```\n\n"
            "and the default `scan-zero-padding` variant, same command with `--variant scan-zero-padding`:\n\n"
            f"```\n{summary(stage)}\n```\n\n"
            f"racecheck reports the hazards as warnings ({warnings:,} of them at {row['n']} elements) and exits 0; the "
            f"article variant still produced the right sums in this run (its check column says `{row['check']}`), "
            "which is what makes the race dangerous: it is right until the scheduler interleaves the warp "
            f"differently. Full outputs: [racecheck-09-article.txt]({RAW_LINK}racecheck-09-article.txt), "
            f"[racecheck-09-scan-zero-padding.txt]({RAW_LINK}racecheck-09-scan-zero-padding.txt).")


TABLES = [(name, (lambda runs=runs: run_block(runs))) for name, runs in RUN_BLOCKS.items()] + [
    ("01-block-sizes", block_sizes), ("04-h200-sass-timings", sass_timings_04), ("02-h200-width", gpu_principles_width),
    ("02-h200-verdict", gpu_principles_verdict), ("03-h200-misalignment", misalignment_03),
    ("racecheck-09", racecheck_09)]
# README block -> the file in tables/ that fills it (each table fills the block of its own name).
BLOCKS = {name: name for name, _ in TABLES}


def main(tables=None, blocks=None, here=HERE):
    """Write HERE/tables/NAME.md for each (NAME, make) in TABLES and fill the README blocks BLOCKS, through the
    H100 tables.py's write_tables (loaded from its path). Other raw folders' scripts call this with theirs."""
    h100_tables().write_tables(TABLES if tables is None else tables, BLOCKS if blocks is None else blocks, here / "tables",
                               sys.argv[1:])

if __name__ == "__main__":
    main()
