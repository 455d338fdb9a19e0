"""tools/ncu-compare: profile the stage variant of several chapters with Nsight Compute (one
`ncu --clock-control none` run per chapter, reports kept for the GUI) and print one table of the
metrics that tell the stages apart."""

import csv
import glob
import io
import json
import re
import shlex
import subprocess
from pathlib import Path

from .common import (INSTALL_HINTS, REPO_ROOT, ArgumentParser, ToolError, accepts_option, find_program, find_programs, fmt_count,
                     fmt_num, format_table, note, parse_list, parse_size, select_chapters,
                     stage_variant_name, warn, write_text)
from .tour import display_path, ensure_built, is_scan_stage

M_TIME = "gpu__time_duration.sum"
M_DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
M_DRAM_READ = "dram__bytes_read.sum"
M_DRAM_WRITE = "dram__bytes_write.sum"
M_OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
M_UNIFORM = "smsp__sass_average_branch_targets_threads_uniform.pct"
M_DIVERGENT = "smsp__sass_branch_targets_threads_divergent.sum"
M_BRANCHES = "smsp__sass_inst_executed_op_branch.sum"
M_BANK_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
M_BANK_ST = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
M_GLOBAL_ATOM = "smsp__sass_inst_executed_op_global_atom.sum"
M_GLOBAL_RED = "smsp__sass_inst_executed_op_global_red.sum"
M_SHARED_ATOM = "smsp__sass_inst_executed_op_shared_atom.sum"
M_INST = "smsp__inst_executed.sum"
M_THREADS_PER_INST = "smsp__thread_inst_executed_per_inst_executed.ratio"
# The SGEMM ladder (chapters 20-29): is the FMA pipe busy, and if not, what feeds it too slowly.
M_FMA_PIPE = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
M_ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
M_REGS = "launch__registers_per_thread"
M_GLD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
M_GLD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
M_L2_PCT = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
M_STALL_BARRIER = "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
M_STALL_LONG_SB = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
M_STALL_MIO = "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
# The tensor-core GEMM ladder (chapters 50-53): how busy the tensor pipe is (mma.sync and wmma run on its HMMA
# part, sm_80+), and what starves it: shared-memory bank conflicts (ldmatrix), barrier, global and MIO stalls.
M_TENSOR_PIPE = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
M_STALL_SHORT_SB = "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"

# Metric names valid on sm_70 and newer with ncu 2025; one list per question a chapter asks.
PRESETS = {
    "memory": [M_TIME, M_DRAM_PCT, M_DRAM_READ, M_DRAM_WRITE, M_OCCUPANCY, M_INST],
    "branches": [M_TIME, M_UNIFORM, M_DIVERGENT, M_BRANCHES, M_INST, M_THREADS_PER_INST],
    "shared": [M_TIME, M_BANK_LD, M_BANK_ST, M_SHARED_ATOM, M_OCCUPANCY, M_INST],
    "atomics": [M_TIME, M_GLOBAL_ATOM, M_GLOBAL_RED, M_SHARED_ATOM, M_DRAM_PCT, M_INST],
    # SGEMM: FMA pipe and issue utilisation, registers and occupancy, global load sectors per request
    # (coalescing), L2 and DRAM throughput, shared-memory bank conflicts, and the stall reasons that tell
    # the stages apart (barrier, waiting on global loads, shared-memory/MIO queue full). Not in "all".
    "sgemm": [M_TIME, M_FMA_PIPE, M_ISSUE, M_REGS, M_OCCUPANCY, M_GLD_SECTORS, M_GLD_REQUESTS, M_L2_PCT, M_DRAM_PCT,
              M_BANK_LD, M_BANK_ST, M_STALL_BARRIER, M_STALL_LONG_SB, M_STALL_MIO, M_INST],
    # The tensor-core GEMM ladder (chapters 50-53): tensor pipe and FMA pipe (chapter 50's FP32 lanes), issue,
    # registers and occupancy, bank conflicts, and the stalls (barrier, global loads, MIO queue, shared-memory
    # results). Not in "all".
    "tensor": [M_TIME, M_TENSOR_PIPE, M_FMA_PIPE, M_ISSUE, M_REGS, M_OCCUPANCY, M_BANK_LD, M_BANK_ST,
               M_STALL_BARRIER, M_STALL_LONG_SB, M_STALL_MIO, M_STALL_SHORT_SB, M_L2_PCT, M_DRAM_PCT, M_INST],
    # The FFT ladder (chapters 30-39): DRAM traffic and throughput (a round trip per pass in chapter 31, one in
    # all from chapter 32), shared-memory bank conflicts of the exchanges between passes, barrier stalls, achieved
    # occupancy and registers. Not in "all".
    "fft": [M_TIME, M_DRAM_PCT, M_DRAM_READ, M_DRAM_WRITE, M_BANK_LD, M_BANK_ST, M_STALL_BARRIER, M_OCCUPANCY,
            M_REGS, M_INST],
    "all": [M_TIME, M_DRAM_PCT, M_DRAM_READ, M_DRAM_WRITE, M_OCCUPANCY, M_UNIFORM, M_DIVERGENT, M_BRANCHES,
            M_BANK_LD, M_BANK_ST, M_GLOBAL_ATOM, M_GLOBAL_RED, M_SHARED_ATOM, M_INST, M_THREADS_PER_INST],
}


def _sum(*names):
    def f(m):
        vals = [m.get(n) for n in names]
        return None if all(v is None for v in vals) else sum(v for v in vals if v is not None)
    return f


def _scaled(name, factor):
    return lambda m: None if m.get(name) is None else m[name] * factor


def _ratio(num, den):
    return lambda m: None if m.get(num) is None or not m.get(den) else m[num] / m[den]


# The table's columns: header, the metrics it needs (any one suffices), value from a launch's
# metrics (base units), how a chapter's total combines launches ("sum", or "weighted": averaged with
# the launches' durations as weights; "inst-weighted": with their instruction counts), format.
COLUMNS = [
    ("time us", [M_TIME], _scaled(M_TIME, 1e-3), "sum", lambda v: fmt_num(v, 1)),
    ("DRAM %peak", [M_DRAM_PCT], _scaled(M_DRAM_PCT, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("DRAM rd MB", [M_DRAM_READ], _scaled(M_DRAM_READ, 1e-6), "sum", lambda v: fmt_num(v, 1)),
    ("DRAM wr MB", [M_DRAM_WRITE], _scaled(M_DRAM_WRITE, 1e-6), "sum", lambda v: fmt_num(v, 1)),
    ("occupancy %", [M_OCCUPANCY], _scaled(M_OCCUPANCY, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("br uniform %", [M_UNIFORM], _scaled(M_UNIFORM, 1.0), "inst-weighted", lambda v: fmt_num(v, 1)),
    ("divergent", [M_DIVERGENT], _scaled(M_DIVERGENT, 1.0), "sum", fmt_count),
    ("branches", [M_BRANCHES], _scaled(M_BRANCHES, 1.0), "sum", fmt_count),
    ("bank confl", [M_BANK_LD, M_BANK_ST], _sum(M_BANK_LD, M_BANK_ST), "sum", fmt_count),
    ("glob atomics", [M_GLOBAL_ATOM, M_GLOBAL_RED], _sum(M_GLOBAL_ATOM, M_GLOBAL_RED), "sum", fmt_count),
    ("shm atomics", [M_SHARED_ATOM], _scaled(M_SHARED_ATOM, 1.0), "sum", fmt_count),
    ("instructions", [M_INST], _scaled(M_INST, 1.0), "sum", fmt_count),
    ("warp eff %", [M_THREADS_PER_INST], _scaled(M_THREADS_PER_INST, 100.0 / 32), "inst-weighted",
     lambda v: fmt_num(v, 1)),
    ("FMA pipe %", [M_FMA_PIPE], _scaled(M_FMA_PIPE, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("issue %", [M_ISSUE], _scaled(M_ISSUE, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("regs", [M_REGS], _scaled(M_REGS, 1.0), "weighted", lambda v: fmt_num(v, 0)),
    ("sectors/req", [M_GLD_SECTORS, M_GLD_REQUESTS], _ratio(M_GLD_SECTORS, M_GLD_REQUESTS), "weighted",
     lambda v: fmt_num(v, 2)),
    ("L2 %peak", [M_L2_PCT], _scaled(M_L2_PCT, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("stall barrier", [M_STALL_BARRIER], _scaled(M_STALL_BARRIER, 1.0), "inst-weighted", lambda v: fmt_num(v, 2)),
    ("stall long sb", [M_STALL_LONG_SB], _scaled(M_STALL_LONG_SB, 1.0), "inst-weighted", lambda v: fmt_num(v, 2)),
    ("stall mio", [M_STALL_MIO], _scaled(M_STALL_MIO, 1.0), "inst-weighted", lambda v: fmt_num(v, 2)),
    ("tensor pipe %", [M_TENSOR_PIPE], _scaled(M_TENSOR_PIPE, 1.0), "weighted", lambda v: fmt_num(v, 1)),
    ("stall short sb", [M_STALL_SHORT_SB], _scaled(M_STALL_SHORT_SB, 1.0), "inst-weighted", lambda v: fmt_num(v, 2)),
]

PERMISSION_HELP = (
    "ncu may not read the GPU's performance counters on this machine (ERR_NVGPUCTRPERM): run it as root "
    "(sudo), or let every user profile (NVIDIA driver option NVreg_RestrictProfilingToAdminUsers=0; see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM)")


# ---- Parsing ncu's CSV --------------------------------------------------------------------------

_UNIT_SCALE = {
    "ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9,
    "byte": 1.0, "b": 1.0, "kbyte": 1e3, "kb": 1e3, "mbyte": 1e6, "mb": 1e6, "gbyte": 1e9, "gb": 1e9,
    "tbyte": 1e12, "tb": 1e12,
}
_DURATION_UNITS = {"ns", "nsecond", "us", "usecond", "ms", "msecond", "s", "second"}


def parse_number(text):
    """ncu's value text -> float, or None ('n/a', '', tuples such as '(1024, 1, 1)'). Accepts
    thousands separators ('1,234,567')."""
    s = (text or "").strip()
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    try:
        return float(s)
    except ValueError:
        return None


def to_base_unit(metric, value, unit):
    """Converts a value to base units (nanoseconds for durations, bytes for sizes); other units
    (%, inst, ratios, counts) are left as they are."""
    if value is None:
        return None
    u = (unit or "").strip().lower()
    if u in _UNIT_SCALE and (u in _DURATION_UNITS or "byte" in u or u in ("b", "kb", "mb", "gb", "tb")):
        return value * _UNIT_SCALE[u]
    return value


def _find_header(rows):
    for i, r in enumerate(rows):
        if r and r[0] == "ID" and "Kernel Name" in r:
            return i
    raise ToolError("not an Nsight Compute CSV: no header row with \"ID\" and \"Kernel Name\"", status=1)


def parse_ncu_csv(text):
    """Parses `ncu --csv` output: the raw page (one row per launch: a header of names, a row of units,
    then the values) or the details/metrics layout (one row per launch and metric: "Metric Name",
    "Metric Unit", "Metric Value"). Lines before the header (ncu's ==PROF== lines, the program's
    output) are skipped. Returns the launches in ID order:
    [{"id", "kernel", "block", "grid", "metrics": {name: value in base units or None}, "units": {...}}]."""
    rows = list(csv.reader(io.StringIO(text)))
    h = _find_header(rows)
    header = rows[h]
    col = {name: i for i, name in enumerate(header)}
    launches = {}

    def launch_for(r):
        lid = int(parse_number(r[col["ID"]]) or 0)
        if lid not in launches:
            launches[lid] = {"id": lid, "kernel": r[col["Kernel Name"]],
                             "block": r[col["Block Size"]] if "Block Size" in col else None,
                             "grid": r[col["Grid Size"]] if "Grid Size" in col else None,
                             "metrics": {}, "units": {}}
        return launches[lid]

    body = [r for r in rows[h + 1:] if r and any(c.strip() for c in r)]
    if "Metric Name" in col and "Metric Value" in col:
        for r in body:
            if len(r) < len(header) or parse_number(r[col["ID"]]) is None:
                continue
            L = launch_for(r)
            name = r[col["Metric Name"]]
            unit = r[col["Metric Unit"]] if "Metric Unit" in col else ""
            L["units"][name] = unit
            L["metrics"][name] = to_base_unit(name, parse_number(r[col["Metric Value"]]), unit)
    else:
        units = {}
        if body and not body[0][col["ID"]].strip():  # the units row: empty ID
            units = {header[i]: u for i, u in enumerate(body[0]) if i < len(header)}
            body = body[1:]
        first_metric = col.get("CC", col["Kernel Name"]) + 1
        for r in body:
            if len(r) < len(header) or parse_number(r[col["ID"]]) is None:
                continue
            L = launch_for(r)
            for i in range(first_metric, len(header)):
                name = header[i]
                if "__" not in name:  # attribute columns such as "Section Name"
                    continue
                L["units"][name] = units.get(name, "")
                L["metrics"][name] = to_base_unit(name, parse_number(r[i]), units.get(name, ""))
    return [launches[k] for k in sorted(launches)]


def _strip_groups(s, open_ch, close_ch):
    out, depth = [], 0
    for ch in s:
        if ch == open_ch:
            depth += 1
        elif ch == close_ch and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def short_kernel_name(name):
    """'void scan_baseline::scan_parts_kernel<1024>(const int *, int *, long)' -> 'scan_parts_kernel'."""
    s = (name or "").strip()
    if s.endswith(")"):  # drop the parameter list: the last balanced (...)
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    s = _strip_groups(s, "<", ">").strip()
    s = s.split("::")[-1].strip()
    return s.split()[-1] if s.split() else (name or "?")


# ---- Table --------------------------------------------------------------------------------------

def active_columns(metrics, extra=()):
    """The COLUMNS whose metrics were collected, then one column per EXTRA metric (--metrics) that no column of
    COLUMNS shows, headed by the metric's own name: summed over launches for a counter (.sum), else averaged with
    the kernels' times as weights."""
    columns = [c for c in COLUMNS if any(m in metrics for m in c[1])]
    shown = {m for c in columns for m in c[1]}
    for m in extra:
        if m not in shown:
            shown.add(m)
            columns.append((m, [m], _scaled(m, 1.0), "sum" if m.endswith(".sum") else "weighted",
                            fmt_count if m.endswith(".sum") else (lambda v: fmt_num(v, 2))))
    return columns


def launch_values(launch, columns):
    return [c[2](launch["metrics"]) for c in columns]


def total_values(launches, columns):
    """One chapter's total over launches (see COLUMNS for how each column combines)."""
    out = []
    for c in columns:
        vals = [c[2](l["metrics"]) for l in launches]
        if c[3] == "sum":
            present = [v for v in vals if v is not None]
            out.append(sum(present) if present else None)
            continue
        key = M_TIME if c[3] == "weighted" else M_INST
        pairs = [(v, l["metrics"].get(key)) for v, l in zip(vals, launches) if v is not None]
        weights = [w for _, w in pairs if w]
        if pairs and len(weights) == len(pairs) and sum(weights) > 0:
            out.append(sum(v * w for v, w in pairs) / sum(weights))
        elif pairs:
            out.append(sum(v for v, _ in pairs) / len(pairs))
        else:
            out.append(None)
    return out


def table_rows(profiles, metrics, extra=()):
    """profiles: [{"chapter", "variant", "launches"}], the launches being every one that ncu profiled (with the
    NVTX filter: exactly those of the timed run). One row per launch, then the chapter's total over all of them
    when there are several; EXTRA: the --metrics names, each its own column where no built-in column shows it.
    Returns (headers, display rows, csv headers, csv rows)."""
    columns = active_columns(metrics, extra)
    headers = ["chapter", "variant", "kernel"] + [c[0] for c in columns]
    display, raw = [], []
    for prof in profiles:
        launches = prof["launches"]
        for l in launches:
            vals = launch_values(l, columns)
            display.append([prof["chapter"], prof["variant"], short_kernel_name(l["kernel"])] +
                           [c[4](v) for c, v in zip(columns, vals)])
            raw.append([prof["chapter"], prof["variant"], short_kernel_name(l["kernel"]), l["id"], l["kernel"]] + vals)
        if len(launches) > 1:
            vals = total_values(launches, columns)
            display.append([prof["chapter"], prof["variant"], f"(total, {len(launches)} launches)"] +
                           [c[4](v) for c, v in zip(columns, vals)])
            raw.append([prof["chapter"], prof["variant"], "(total)", "", ""] + vals)
    csv_headers = ["chapter", "variant", "kernel", "launch_id", "kernel_full_name"] + [c[0] for c in columns]
    return headers, display, csv_headers, raw


def _csv_value(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e15 else f"{v:.10g}"
    return v


def to_csv(headers, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(headers)
    for r in rows:
        w.writerow([_csv_value(v) for v in r])
    return buf.getvalue()


def column_legend():
    """What each column measures, for --help."""
    lines = []
    for header, metrics, _, how, _ in COLUMNS:
        combine = {"sum": "summed over kernels", "weighted": "kernels weighted by time",
                   "inst-weighted": "kernels weighted by instructions"}[how]
        formula = " + ".join(metrics)
        if header == "warp eff %":
            formula += " / 32 x 100"
        elif header == "time us":
            formula += " (in us)"
        elif "MB" in header:
            formula += " (in MB)"
        lines.append(f"  {header:<13} {formula}; total: {combine}")
    return "\n".join(lines)


# ---- Running ncu --------------------------------------------------------------------------------

def find_ncu(explicit=None):
    if explicit:
        p = Path(explicit)
        if not (p.is_file()):
            raise ToolError(f"--ncu {explicit}: no such file")
        return str(p)
    found = find_program("ncu", cuda=True)
    if not found:
        cands = sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"))
        found = cands[-1] if cands else None
    if not found:
        raise ToolError(f"ncu not found: {INSTALL_HINTS['ncu']}")
    return found


def check_ncu_output(text):
    """Raises ToolError for the failures that no retry fixes (counter permission)."""
    low = text.lower()
    if "err_nvgpuctrperm" in low or ("permission" in low and "counter" in low):
        raise ToolError(PERMISSION_HELP, status=1)


def ncu_errors(text):
    return [l.strip() for l in text.splitlines() if l.startswith("==ERROR==")]


def list_variants(program):
    """The program's variants from `program --list --format json` (no GPU needed):
    [{"name", "description", "reference", "on_demand", "known_defect"}] in the program's order."""
    try:
        p = subprocess.run([str(program), "--list", "--format", "json"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise ToolError(f"cannot run {program} --list: {e}")
    if p.returncode != 0:
        why = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit status {p.returncode}"
        raise ToolError(f"{program} --list failed: {why}")
    try:
        variants = json.loads(p.stdout)
        return [{"name": v["name"], "description": v.get("description", ""), "reference": bool(v["reference"]),
                 "on_demand": bool(v.get("on_demand")), "known_defect": v.get("known_defect", "")}
                for v in variants]
    except (ValueError, TypeError, KeyError):
        raise ToolError(f"{program} --list --format json did not print a JSON list of variants (built from an "
                        "older harness? rebuild it)")


def timed_range(chapter, variant):
    """ncu's NVTX filter for the launches of one variant's timed run: the runner pushes "<chapter>", then
    "<variant>", then "timed" around the timed repetitions only (not set-up, the checked run or a warm-up)."""
    return f"{chapter}/{variant}/timed/"


def profile_command(ncu, chapter, program, variant, size, metrics, report, chapter_args=(), all_launches=False):
    cmd = [ncu, "--clock-control", "none"]
    if not all_launches:
        cmd += ["--nvtx", "--nvtx-include", timed_range(chapter, variant)]
    cmd += ["--metrics", ",".join(metrics), "-o", str(report), "--force-overwrite",
            str(program), "--profile", "--variant", variant]
    if size is not None:
        cmd += ["--size", size]
    return cmd + list(chapter_args)


DEFAULT_SIZE = "2^24"


def size_for(size, program):
    """The --size a chapter is profiled at: the one given, else 2^24 elements, except for the SGEMM chapters (their
    --size is the square matrix's side), which keep their own default shape unless --m/--n/--k say otherwise."""
    if size is not None:
        return size
    return None if accepts_option(program, "--m") else DEFAULT_SIZE


def run_ncu_profile(cmd, chapter, report, timeout):
    """Runs one profiling command; returns (True when the report holds kernels, ncu's output)."""
    note("profiling: " + shlex.join([Path(cmd[0]).name] + cmd[1:]))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ToolError(f"ncu on {chapter} did not finish in {timeout:g} s (try a smaller --size)", status=1)
    text = p.stdout + "\n" + p.stderr
    check_ncu_output(text)
    rep = Path(str(report) + ".ncu-rep")
    if "No kernels were profiled" in text or not rep.is_file():
        errors = ncu_errors(text)
        if errors and "No kernels were profiled" not in text:
            raise ToolError(f"ncu failed on {chapter}: {errors[-1]}", status=1)
        return False, text
    if p.returncode != 0:
        errors = ncu_errors(text)
        warn(f"{chapter}: ncu or the program exited with status {p.returncode}"
             + (f" ({errors[-1]})" if errors else "") + "; using the report it wrote")
    return True, text


def program_error_in(text):
    """The chapter program's own error line in ncu's output, if any."""
    for line in text.splitlines():
        if ": error: " in line and not line.startswith("=="):
            return line[line.index("error: "):].strip()
    return None


def import_report(ncu, report):
    rep = str(report) + ".ncu-rep"
    for extra in (["--print-units", "base"], []):
        cmd = [ncu, "--import", rep, "--csv", "--page", "raw", *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode == 0 and "Kernel Name" in p.stdout:
            return p.stdout
    errors = ncu_errors(p.stdout + p.stderr)
    raise ToolError(f"`ncu --import {rep} --csv --page raw` failed" + (f": {errors[-1]}" if errors else ""), status=1)


# ---- Command line -------------------------------------------------------------------------------

# Chapter options that ncu-compare passes on to the programs that take them (see each program's --help), so that
# a ladder can be profiled at the shape where a stage is weak: the FFT chapters' signal length, the SGEMM chapters'
# matrix shape.
CHAPTER_OPTIONS = [
    ("length", "N", "FFT chapters (30-38): signal length, a power of two; batch = --size / N"),
    ("m", "M", "SGEMM chapters (20-29): rows of A and C"),
    ("n", "N", "SGEMM chapters (20-29): columns of B and C"),
    ("k", "K", "SGEMM chapters (20-29): columns of A, rows of B"),
]


def chapter_arguments(args, targets):
    """{chapter: [--option, value, ...]}: each chapter option given to ncu-compare, for the programs whose --help
    lists it (an option that no chosen program takes is a usage error; one that some do not take is a warning),
    then the --chapter-arg arguments, for every program."""
    given = [(name, getattr(args, name)) for name, _, _ in CHAPTER_OPTIONS if getattr(args, name) is not None]
    out = {chapter: [] for chapter, _ in targets}
    for name, value in given:
        takers = [chapter for chapter, program in targets if accepts_option(program, "--" + name)]
        if not takers:
            raise ToolError(f"--{name}: none of the chosen chapters takes it ({', '.join(c for c, _ in targets)})")
        for chapter, _ in targets:
            if chapter in takers:
                out[chapter] += ["--" + name, str(value)]
            else:
                warn(f"{chapter} has no --{name}; profiled without it")
    for chapter, _ in targets:
        out[chapter] += args.chapter_arg
    return out


def main(argv):
    p = ArgumentParser(
        prog="ncu-compare",
        description="Profiles the stage variant of each chapter with Nsight Compute (one `ncu --clock-control "
                    "none` run per chapter, in profile mode: one checked run, which is also the warm-up, then one "
                    "timed run), keeps the .ncu-rep reports, and prints one table of every launch of the timed "
                    "run (selected by the runner's NVTX range <chapter>/<variant>/timed/, so one-time set-up and "
                    "the checked run are left out) with the chapter's total over them: duration, DRAM "
                    "throughput, occupancy, branch uniformity and divergence, shared-memory bank conflicts, "
                    "atomics, instructions and warp execution efficiency. Also writes the table as CSV.",
        epilog="Presets: " + "; ".join(f"{k}: {', '.join(v)}" for k, v in PRESETS.items() if k != "all") +
               "; all: every metric above.\nColumns (the table shows those whose metrics were collected):\n" +
               column_legend() + "\nOpen two reports in ncu-ui and use Add Baseline on the earlier "
               "stage to see every metric's difference. Exit status: 0 on success, 1 when profiling failed, 2 "
               "on bad usage or when ncu is missing.")
    p.add_argument("--build", default=None, metavar="DIR", help="build directory (default: build/ in the repository)")
    p.add_argument("--no-build", action="store_true", help="profile what is built; do not configure or build")
    p.add_argument("--setup-arg", action="append", default=[], metavar="ARG", help="extra `meson setup` argument")
    p.add_argument("--chapters", metavar="LIST",
                   help="chapters to profile: numbers, ranges (05-10) or folder names (default: every scan "
                        "stage 05-16 that is built)")
    p.add_argument("--program", action="append", default=[], metavar="PATH",
                   help="profile this chapter binary instead (repeatable); its NVTX prefix is its file name")
    p.add_argument("--variant", metavar="NAME",
                   help="variant to profile in every chapter (default: each chapter's stage variant)")
    p.add_argument("--size", default=None, metavar="N",
                   help=f"problem size (default {DEFAULT_SIZE} elements: quick; the SGEMM chapters, whose --size is "
                        "the side of square matrices, keep their own default shape)")
    for name, metavar, what in CHAPTER_OPTIONS:
        p.add_argument("--" + name, type=int, metavar=metavar,
                       help=f"{what}; passed to the chapters that take --{name}")
    p.add_argument("--chapter-arg", action="append", default=[], metavar="ARG",
                   help="one more argument for every chapter program (repeatable; --chapter-arg=--selectivity "
                        "--chapter-arg=10)")
    p.add_argument("--preset", default="all", choices=sorted(PRESETS), help="metric preset (default all)")
    p.add_argument("--metrics", metavar="LIST", help="extra ncu metric names, comma-separated (added to the preset; "
                                                     "each one no built-in column shows gets its own column, in the "
                                                     "table and the CSV, headed by its name)")
    p.add_argument("--out", metavar="DIR", help="where the .ncu-rep reports go (default: <build>/ncu)")
    p.add_argument("--csv", metavar="FILE", help="CSV file of the table (default: <out>/ncu-compare.csv)")
    p.add_argument("--ncu", metavar="PATH", help="the ncu program (default: ncu on PATH or in the CUDA toolkit)")
    p.add_argument("--all-launches", action="store_true",
                   help="profile without the NVTX filter and show every launch of the process (set-up, the "
                        "checked run and the timed run), to see what the filter leaves out")
    p.add_argument("--timeout", type=float, default=600, metavar="S", help="per chapter (default 600)")
    args = p.parse_args(argv)

    if args.size is not None:
        parse_size(args.size)
    if args.timeout <= 0:
        raise ToolError("--timeout must be positive")
    for name, _, _ in CHAPTER_OPTIONS:
        if getattr(args, name) is not None and getattr(args, name) <= 0:
            raise ToolError(f"--{name} must be positive")
    metrics = list(PRESETS[args.preset])
    extra_metrics = parse_list(args.metrics, "--metrics") if args.metrics is not None else []
    for m in extra_metrics:
        if not re.fullmatch(r"[A-Za-z0-9_.]+", m):
            raise ToolError(f"invalid metric name '{m}'")
        if m not in metrics:
            metrics.append(m)
    ncu = find_ncu(args.ncu)

    build = Path(args.build) if args.build else REPO_ROOT / "build"
    targets = []
    if args.program:
        for prog in args.program:
            path = Path(prog)
            if not path.is_file():
                raise ToolError(f"--program {prog}: no such file")
            targets.append((path.name, path.resolve()))
    else:
        if not args.no_build:
            ensure_built(build, None, args.setup_arg)
        elif not build.is_dir():
            raise ToolError(f"build directory {build} does not exist (drop --no-build to configure and build it)")
        programs = find_programs(build)
        if args.chapters:
            chosen = select_chapters(list(programs), args.chapters)
        else:
            chosen = [c for c in programs if is_scan_stage(c)]
            if not chosen:
                raise ToolError(f"no scan stage programs (05-16) are built under {build / 'chapters'}")
        targets = [(c, programs[c]) for c in chosen]
    passed = chapter_arguments(args, targets)

    out_dir = Path(args.out) if args.out else build / "ncu"
    out_dir.mkdir(parents=True, exist_ok=True)
    profiles = []
    for chapter, program in targets:
        variants = list_variants(program)
        names = [v["name"] for v in variants]
        variant = args.variant or stage_variant_name(
            chapter, [(v["name"], v["reference"]) for v in variants if not v["on_demand"]])
        if not variant:
            raise ToolError(f"{chapter}: no variant to profile (see {program} --list)")
        if variant not in names:
            raise ToolError(f"{chapter} has no variant '{variant}' (known: {', '.join(names)})")
        report = out_dir / chapter
        cmd = profile_command(ncu, chapter, program, variant, size_for(args.size, program), metrics, report,
                              passed[chapter],
                              args.all_launches)
        ok, text = run_ncu_profile(cmd, chapter, report, args.timeout)
        if not ok:
            why = program_error_in(text)
            if why:
                raise ToolError(f"ncu profiled no kernel of {chapter} (variant {variant}): the program said {why}",
                                status=1)
            raise ToolError(f"ncu profiled no kernel of {chapter} (variant {variant})" +
                            ("" if args.all_launches else
                             f" inside the NVTX range \"{timed_range(chapter, variant)}\": is {program} an old "
                             "build from before the runner's \"timed\" range (rebuild it), or not a program of this "
                             "tutorial's harness? (--all-launches profiles without the filter)"), status=1)
        launches = parse_ncu_csv(import_report(ncu, report))
        profiles.append({"chapter": chapter, "variant": variant, "launches": launches,
                         "report": str(report) + ".ncu-rep"})

    headers, display, csv_headers, raw = table_rows(profiles, metrics, extra_metrics)
    shape = "".join(f", --{name} {getattr(args, name)}" for name, _, _ in CHAPTER_OPTIONS
                    if getattr(args, name) is not None)
    sizes = "--size " + (args.size or f"{DEFAULT_SIZE} (SGEMM: each program's default shape)")
    print(f"Nsight Compute, {sizes}{shape}, preset {args.preset}; "
          + ("every launch of the process (set-up, checked run, timed run)" if args.all_launches
             else "every launch of the timed run") + ":")
    print(format_table(headers, display, "lll" + "r" * (len(headers) - 3)), end="")
    print("total: over the launches above; counts summed; DRAM %peak and occupancy averaged with the kernels' times as "
          "weights, br uniform % and warp eff % (threads per instruction / 32) with their instruction counts (see "
          "--help).")
    csv_path = Path(args.csv) if args.csv else out_dir / "ncu-compare.csv"
    write_text(csv_path, to_csv(csv_headers, raw))
    print(f"CSV: {display_path(csv_path)}")
    print("reports: " + " ".join(display_path(p_["report"]) for p_ in profiles))
    if len(profiles) > 1:
        print(f"compare in the GUI: ncu-ui {display_path(profiles[0]['report'])} {display_path(profiles[1]['report'])}"
              " (then Add Baseline on the first)")
    return 0
