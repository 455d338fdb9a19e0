"""tools/tour: build the project, run every chapter program with --format json, and print one table
that compares the scan stages with each other, with CUB, with cudaMemcpy and with the article."""

import json
import os
import shlex
import statistics
import subprocess
import sys
import shutil
import textwrap
import time
from pathlib import Path

from . import bootstrap, buildlog
from .common import (INSTALL_HINTS, REPO_ROOT, ArgumentParser, ToolError, chapter_number,
                     find_programs, fmt_num, fmt_ratio, fmt_us,
                     format_size, format_table, machine_metadata, meson_command, note, parse_size, ratio,
                     previous_stage_name, select_chapters, shorten, stage_variant_name, write_text)

RESULTS_FORMAT = "cuda-tutorial-results/1"

# The scan article (seed 000): its stages' times in microseconds, as published (ARTICLES.md). The
# article states neither its GPU nor n, so only its ratios compare with ours.
ARTICLE = 'Will Zhang, "CUDA high-performance classic problem: prefix sum" (OneFlow, 2022)'
ARTICLE_US = {5: 72390, 6: 33726, 7: 9948, 8: 7595, 9: 7516, 10: 3972, 11: 3747, 12: 3442, 13: 3503,
              14: 2467}
ARTICLE_SECTION = {5: "3", 6: "4", 7: "5", 8: "6", 9: "7", 10: "8", 11: "9", 12: "10", 13: "11",
                   14: "11"}
ARTICLE_CUB_US = 1444
# The tour's timing budget per variant: the committed results use it too, and it keeps the tour of every
# chapter under 3 minutes on an H100 or H200.
TOUR_BUDGET_MS = 250
SCAN_STAGES = range(5, 18)   # 05-scan-baseline .. 17-scan-lookback-landing-zone
BASELINE_STAGE = 5


def is_scan_stage(chapter_id):
    return chapter_number(chapter_id) in SCAN_STAGES


# ---- Building -----------------------------------------------------------------------------------

def ensure_built(build_dir, chapters=None, setup_args=(), quiet=False):
    """Configures `build_dir` with `meson setup` if it is not a build directory yet, then builds the
    programs of `chapters` (ids; None: every chapter folder with a meson.build) with ninja."""
    build = Path(build_dir)
    # meson, ninja and doctest are installed where missing (into .venv/ or with apt-get), and it says so.
    bootstrap.PREFIX = "tour"
    try:
        env = bootstrap.ensure(build)
    except bootstrap.BootstrapError as e:
        raise ToolError(str(e), status=2)
    meson = [shutil.which("meson", path=env["PATH"])] if shutil.which("meson", path=env["PATH"]) else meson_command()
    ninja = shutil.which("ninja", path=env["PATH"])
    out = sys.stderr  # build chatter goes to stderr: stdout carries only results

    if not (build / "build.ninja").is_file():
        cmd = [*meson, "setup", str(build), *setup_args]
        note("configuring: " + shlex.join(["meson", "setup", str(build), *setup_args]))
        if subprocess.run(cmd, cwd=REPO_ROOT, env=env, stdout=out, stderr=out).returncode != 0:
            raise ToolError(f"`meson setup {build}` failed (see its output above)", status=1)
    elif meson and ninja:
        _reconfigure_for_new_chapters(build, meson, ninja, env)
    if not ninja and not meson:
        raise ToolError(f"ninja not found ({INSTALL_HINTS['ninja']})")

    targets = _program_targets(build, ninja, chapters) if ninja else []
    if ninja:
        cmd = [ninja, "-C", str(build), *targets]
    else:
        cmd = [*meson, "compile", "-C", str(build)]
    if not quiet:
        note("building: " + shlex.join([Path(cmd[0]).name, *cmd[1:]]))
    # The whole output goes to a log; the screen gets progress and, on a failure, the first errors and one line.
    meson_version = None
    if meson:
        try:
            meson_version = subprocess.run([*meson, "--version"], capture_output=True, text=True, env=env,
                                           timeout=60).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            pass
    log_path = build / "meson-logs" / "build.log"
    if buildlog.run(cmd, str(log_path), meson_version or "unknown", tool="tour", out=out, err=out, env=env,
                    print_summary=False) != 0:
        raise ToolError(buildlog.last_summary.split(": ", 1)[1], status=1)


def _source_chapters():
    root = REPO_ROOT / "chapters"
    return sorted(d.name for d in root.iterdir() if (d / "meson.build").is_file()) if root.is_dir() else []


def _ninja_targets(build, ninja):
    try:
        listing = subprocess.run([ninja, "-C", str(build), "-t", "targets", "all"], capture_output=True,
                                 text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    return {line.split(":", 1)[0] for line in listing.splitlines()}


def _reconfigure_for_new_chapters(build, meson, ninja, env):
    """The top-level meson.build includes a chapter folder only if its meson.build existed when the
    build was configured; a chapter added since needs `meson setup --reconfigure`."""
    stamp = (build / "build.ninja").stat().st_mtime
    known = _ninja_targets(build, ninja)
    new = [c for c in _source_chapters()
           if f"chapters/{c}/{c}" not in known and (REPO_ROOT / "chapters" / c / "meson.build").stat().st_mtime > stamp]
    if new:
        note(f"chapters added since {build} was configured ({', '.join(new)}): meson setup --reconfigure {build}")
        if subprocess.run([*meson, "setup", "--reconfigure", str(build)], cwd=REPO_ROOT, env=env,
                          stdout=sys.stderr, stderr=sys.stderr).returncode != 0:
            raise ToolError(f"`meson setup --reconfigure {build}` failed (see its output above)", status=1)


def _program_targets(build, ninja, chapters):
    """ninja targets of the selected chapter programs (build/chapters/<id>/<id>); [] (build all)
    when a selected chapter has no such target."""
    if chapters is None:
        chapters = _source_chapters()
    known = _ninja_targets(build, ninja)
    wanted = [f"chapters/{c}/{c}" for c in chapters]
    if not wanted or any(t not in known for t in wanted):
        return []
    return wanted


# ---- Running the programs -----------------------------------------------------------------------

def program_error(stderr, returncode):
    """One line saying why a program failed, from its stderr."""
    lines = [l.strip() for l in (stderr or "").splitlines() if l.strip()]
    for line in reversed(lines):
        if "error:" in line:
            return line[line.index("error:"):]
    if lines:
        return lines[-1]
    if returncode is not None and returncode < 0:
        return f"killed by signal {-returncode}"
    return f"exit status {returncode}"


def run_program(chapter, path, args, timeout=None, params=None, display_path=None):
    """Runs one chapter program with --format json and returns its record (see RESULTS_FORMAT)."""
    cmd = [str(path), "--format", "json", *args]
    shown = [str(display_path or path), "--format", "json", *args]
    rec = {"chapter": chapter, "program": str(display_path or path), "params": params or {},
           "command": shlex.join(shown), "returncode": None, "elapsed_s": None, "error": None, "data": None}
    note("running " + rec["command"])
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        rec["error"] = f"timed out after {timeout:g} s"
        return rec
    except OSError as e:
        rec["error"] = f"cannot run {path}: {e.strerror}"
        return rec
    rec["elapsed_s"] = round(time.monotonic() - start, 3)
    rec["returncode"] = p.returncode
    try:
        data = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        data = None
        if p.returncode == 0:
            rec["error"] = "its output is not the JSON that --format json prints"
    if data is not None and not (isinstance(data, dict) and isinstance(data.get("results"), list)):
        data = None
        rec["error"] = "its JSON has no 'results' list"
    rec["data"] = data
    if p.returncode != 0:
        rec["error"] = program_error(p.stderr, p.returncode)
    elif data is not None and any(r.get("failed") for r in data["results"]):
        rec["error"] = "a variant produced wrong results (see the check column)"
    return rec


def record_failed(rec):
    return rec.get("error") is not None


def results_of(rec):
    data = rec.get("data") or {}
    return data.get("results") or []


def find_result(rec, variant):
    for r in results_of(rec):
        if r.get("variant") == variant:
            return r
    return None


def first_device(records):
    for rec in records:
        if rec.get("data") and rec["data"].get("device"):
            return rec["data"]["device"]
    return None


# ---- The comparison -----------------------------------------------------------------------------

def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def own_previous_ms(rec):
    """The median time of the previous chapter's stage as the chapter's own program timed it (its on-demand
    variant, run by tools/results with --variant default,NAME), or None: x prev is then a ratio from one process."""
    prev = previous_stage_name(rec["chapter"])
    row = find_result(rec, prev) if prev else None
    return row.get("median_ms") if row and not row.get("failed") else None


def stage_table(records):
    """Rows for the scan stages present in `records`, in stage order, plus a summary.

    Each row: chapter, number, variant, n, ours_ms, article_us, prev (chapter compared with),
    x_prev / article_x_prev (previous stage's time / this time), x_base / article_x_base (baseline's
    time / this time), vs_cub / article_vs_cub (CUB's time / this time), pct_memcpy, check."""
    stages = sorted((r for r in records if is_scan_stage(r["chapter"])),
                    key=lambda r: (chapter_number(r["chapter"]), r["chapter"]))
    rows = []
    for rec in stages:
        num = chapter_number(rec["chapter"])
        row = {"chapter": rec["chapter"], "number": num, "variant": None, "n": None, "ours_ms": None,
               "article_us": ARTICLE_US.get(num), "article_section": ARTICLE_SECTION.get(num),
               "cub_ms": None, "memcpy_ms": None, "pct_memcpy": None, "vs_cub": None,
               "article_vs_cub": ratio(ARTICLE_CUB_US, ARTICLE_US.get(num)), "prev": None,
               "x_prev": None, "article_x_prev": None, "x_base": None, "article_x_base": None,
               "check": None, "error": rec.get("error")}
        results = results_of(rec)
        variant = stage_variant_name(rec["chapter"], [(r["variant"], r.get("reference", False)) for r in results])
        stage = find_result(rec, variant) if variant else None
        if stage is not None:
            cub, memcpy = find_result(rec, "cub"), find_result(rec, "cudaMemcpy")
            row.update(variant=variant, n=stage.get("n"), ours_ms=stage.get("median_ms"), check=stage.get("check"))
            row["cub_ms"] = cub.get("median_ms") if cub else None
            row["memcpy_ms"] = memcpy.get("median_ms") if memcpy else None
            row["vs_cub"] = ratio(row["cub_ms"], row["ours_ms"])
            if row["vs_cub"] is None and stage.get("ref_name") == "cub" and stage.get("speed_vs_ref"):
                row["vs_cub"] = stage["speed_vs_ref"]
            pct = stage.get("pct_memcpy")
            if not pct and memcpy and memcpy.get("gbps") and stage.get("gbps"):
                pct = 100.0 * stage["gbps"] / memcpy["gbps"]
            row["pct_memcpy"] = pct or None
            row["own_prev_ms"] = own_previous_ms(rec)
        if stage is None:
            row["check"] = "FAILED: " + (rec.get("error") or "no stage variant in its output")
        elif stage.get("failed"):
            row["check"] = "FAILED: " + str(stage.get("check"))
        rows.append(row)

    measured = [r for r in rows if r["ours_ms"]]
    base = next((r for r in measured if r["number"] == BASELINE_STAGE), measured[0] if measured else None)
    prev = None
    for row in measured:
        if prev is not None:
            row["prev"] = prev["chapter"]
            row["x_prev"] = ratio(row.get("own_prev_ms") or prev["ours_ms"], row["ours_ms"])
            row["x_prev_same_process"] = bool(row.get("own_prev_ms"))
            row["article_x_prev"] = ratio(prev["article_us"], row["article_us"])
        row["x_base"] = ratio(base["ours_ms"], row["ours_ms"])
        row["article_x_base"] = ratio(base["article_us"], row["article_us"])
        prev = row

    sizes = sorted({r["n"] for r in measured})
    summary = {
        "baseline": base["chapter"] if base else None,
        "sizes": sizes,
        "cub_ms": _median(r["cub_ms"] for r in rows),
        "memcpy_ms": _median(r["memcpy_ms"] for r in rows),
        "article_cub_us": ARTICLE_CUB_US,
        "programs_with_cub": sum(1 for r in rows if r["cub_ms"]),
    }
    return rows, summary


# The ladders after the scan: (title, chapter numbers, vendor reference variant, its label, throughput key).
LADDERS = [
    {"key": "sgemm", "title": "SGEMM ladder (seed 002 section 2): C = alpha*A*B + beta*C, FP32, row-major",
     "numbers": range(20, 30), "ref": "cublas", "ref_label": "cuBLAS (cublasSgemm)", "metric": "gflops"},
    {"key": "fft", "title": "Batched FFT ladder (seed 002 section 3): complex float, forward, out-of-place",
     "numbers": range(30, 40), "ref": "cufft", "ref_label": "cuFFT (cufftExecC2C)", "metric": "gbps"},
    {"key": "tensor", "title": "Tensor-core GEMM ladder: C = alpha*A*B^T + beta*C, BF16 in, FP32 accumulate and out",
     "numbers": range(50, 60), "ref": "cublas", "ref_label": "cuBLAS (cublasGemmEx)", "metric": "gflops"},
]


def ladder_of(chapter_id):
    num = chapter_number(chapter_id)
    return next((l for l in LADDERS if num in l["numbers"]), None)


def ladder_table(records, ladder):
    """Rows for one ladder's chapters in `records`: the stage of each against the previous stage and the
    vendor library measured in the same program."""
    rows, recs = [], []
    for rec in sorted((r for r in records if ladder_of(r["chapter"]) is ladder),
                      key=lambda r: (chapter_number(r["chapter"]), r["chapter"])):
        recs.append(rec)
        results = results_of(rec)
        variant = stage_variant_name(rec["chapter"], [(r["variant"], r.get("reference", False)) for r in results])
        stage = find_result(rec, variant) if variant else None
        ref = find_result(rec, ladder["ref"])
        memcpy = find_result(rec, "cudaMemcpy")
        options = (rec.get("data") or {}).get("options") or {}
        row = {"chapter": rec["chapter"], "variant": variant, "n": None, "options": options, "ms": None,
               "rate": None, "pct_peak": None, "pct_memcpy": None, "ref_ms": None, "ref_rate": None,
               "vs_ref": None, "memcpy_rate": None, "x_prev": None, "check": None, "error": rec.get("error")}
        if stage is not None:
            row.update(n=stage.get("n"), ms=stage.get("median_ms"), rate=stage.get(ladder["metric"]),
                       pct_peak=stage.get("pct_peak_fp32") or None, pct_memcpy=stage.get("pct_memcpy") or None,
                       check=stage.get("check"))
            if ref is not None:
                row["ref_ms"], row["ref_rate"] = ref.get("median_ms"), ref.get(ladder["metric"])
                row["vs_ref"] = ratio(row["ref_ms"], row["ms"])
            if memcpy is not None:
                row["memcpy_rate"] = memcpy.get("gbps")
            if stage.get("failed"):
                row["check"] = "FAILED: " + str(stage.get("check"))
            row["own_prev_ms"] = own_previous_ms(rec)
        else:
            row["check"] = "FAILED: " + (rec.get("error") or "no stage variant in its output")
        rows.append(row)
    prev = None
    for row, rec in zip(rows, recs):
        if row["ms"] and not row.get("own_prev_ms") and prev is not None and prev["variant"]:
            # a program may name the previous stage by that stage's own variant name instead
            same = find_result(rec, prev["variant"]) if prev["chapter"] != row["chapter"] else None
            row["own_prev_ms"] = same.get("median_ms") if same and not same.get("failed") else None
        if row["ms"] and row.get("own_prev_ms"):  # timed in the chapter's own process: preferred
            row["x_prev"], row["x_prev_same_process"] = ratio(row["own_prev_ms"], row["ms"]), True
        elif row["ms"] and prev is not None and prev["ms"] and prev["n"] == row["n"] and prev["options"] == row["options"]:
            row["x_prev"] = ratio(prev["ms"], row["ms"])
        if row["ms"]:
            prev = row
    return rows


def ladder_cells(rows, ladder, check_width=40):
    gemm = ladder["metric"] == "gflops"
    headers = ["chapter", "variant", "size" if gemm else "N x batch", "ms",
               "GFLOP/s" if gemm else "GB/s", "% FP32 peak" if gemm else "% memcpy", "x prev",
               f"vs {ladder['ref_label'].split()[0]}", "check"]
    cells = []
    for r in rows:
        opts = r["options"]
        if gemm:
            m, n, k = (opts.get(d) or r["n"] for d in ("m", "n", "k"))
            size = f"{m}x{n}x{k}" if r["n"] is not None else "-"
        else:
            length = opts.get("length")
            size = f"{length} x {r['n'] // length}" if length and r["n"] else format_size(r["n"]) if r["n"] else "-"
        cells.append([r["chapter"], r["variant"] or "-", size, fmt_num(r["ms"], 3) if r["ms"] else "-",
                      fmt_num(r["rate"]), fmt_num(r["pct_peak"] if gemm else r["pct_memcpy"]),
                      fmt_ratio(r["x_prev"]), fmt_ratio(r["vs_ref"]), shorten(r["check"] or "-", check_width)])
    refs = [r for r in rows if r["ref_ms"]]
    if refs:
        cells.append([ladder["ref_label"], ladder["ref"], "(each program's)", fmt_num(_median(r["ref_ms"] for r in refs), 3),
                      fmt_num(_median(r["ref_rate"] for r in refs)), "-", "-", "1.00x", "reference"])
    if not gemm and any(r["memcpy_rate"] for r in rows):
        cells.append(["cudaMemcpy (same bytes)", "cudaMemcpy", "", "-",
                      fmt_num(_median(r["memcpy_rate"] for r in rows)), "100.0", "-", "-", "reference"])
    return headers, cells, "lllrrrrrl"


def ladder_legend(ladder, width=100):
    if ladder["key"] == "tensor":
        text = ("GFLOP/s = 2*M*N*K / median time; % FP32 peak = the same share of the FP32 lanes' peak (the chapters "
                "print their share of the BF16 tensor peak); x prev = the previous chapter's time / this time, "
                "timed in this chapter's program; vs cuBLAS = cublasGemmEx's time in the same program / this time.")
    elif ladder["metric"] == "gflops":
        text = ("GFLOP/s = 2*M*N*K / median time; % FP32 peak = share of SMs x FP32 lanes per SM x 2 x clock "
                "(the harness's peak_fp32_gflops); x prev = the previous chapter's time / this time at the same size (timed in this chapter's program where it has that stage, else by the previous chapter's program in the same call); "
                "vs cuBLAS = cuBLAS's time in the same program / this time (>1: faster). FP32 FFMA throughout, "
                "no tensor cores, no TF32.")
    else:
        text = ("GB/s = one read and one write of the batch / median time; % memcpy = share of a cudaMemcpy of the "
                "same bytes in the same program; x prev = the previous chapter's time / this time at the same N (timed in this chapter's program where it has that stage, else by the previous chapter's program in the same call); "
                "vs cuFFT = cuFFT's time in the same program / this time (>1: faster).")
    return textwrap.fill(text, width=width)


def other_rows(records):
    """Per-variant rows of every chapter that is not a scan stage, plus the extra variants of the
    scan chapters (those the stage table does not show)."""
    rows = []
    for rec in records:
        results = results_of(rec)
        staged = is_scan_stage(rec["chapter"]) or ladder_of(rec["chapter"]) is not None
        stage = stage_variant_name(rec["chapter"], [(r["variant"], r.get("reference", False)) for r in results])
        for r in results:
            if staged and (r.get("reference") or r["variant"] in (stage, "cudaMemcpy")):
                continue
            rows.append({
                "chapter": rec["chapter"], "variant": r["variant"], "reference": bool(r.get("reference")),
                "n": r.get("n"), "median_ms": r.get("median_ms"),
                "gbps": r.get("gbps") if r.get("bytes") else None,
                "gflops": r.get("gflops") if r.get("flops") else None,
                "pct_memcpy": r.get("pct_memcpy") or None,
                "speed_vs_ref": r.get("speed_vs_ref") or None, "ref_name": r.get("ref_name") or None,
                "check": r.get("check"), "params": rec.get("params") or {},
            })
        if rec.get("error") and not results:
            rows.append({"chapter": rec["chapter"], "variant": None, "reference": False, "n": None,
                         "median_ms": None, "gbps": None, "gflops": None, "pct_memcpy": None,
                         "speed_vs_ref": None, "ref_name": None, "check": "FAILED: " + rec["error"],
                         "params": rec.get("params") or {}})
    return rows


# ---- Rendering ----------------------------------------------------------------------------------

def stage_legend(summary, width=100):
    base = summary.get("baseline")
    num = base.split("-")[0] if base else "base"
    text = (f"ours: median time at the size shown; each program also times CUB and cudaMemcpy on the same data, "
            f"and the last two rows give their median over the programs. article: {ARTICLE}, sections 3-12; it "
            f"states neither its GPU nor n, so compare ratios, not times. x prev = the previous stage's time / "
            f"this time; x {num} = the time of {base or 'the first stage'} / this time; vs CUB = CUB's time / "
            f"this time (>1: faster than CUB); % memcpy = this stage's GB/s as a share of cudaMemcpy's for the "
            f"same bytes (one read and one write of n int32).")
    return textwrap.fill(text, width=width)


def stage_cells(rows, summary, unit="us", check_width=48, sections=False):
    """Header and cells of the stage table (shared by the terminal and the markdown; sections: name
    the article's section beside its figure)."""
    base = summary["baseline"]
    base_label = f"x {base.split('-')[0]}" if base else "x base"
    headers = ["stage", "variant", f"ours {unit}", f"article {unit}", "x prev", "article x prev",
               base_label, f"article {base_label}", "vs CUB", "article vs CUB", "% memcpy", "check"]
    cells = []
    for r in rows:
        cells.append([r["chapter"], r["variant"] or "-", fmt_us(r["ours_ms"]),
                      (str(r["article_us"]) + (f" (§{r['article_section']})" if sections else ""))
                      if r["article_us"] else "-",
                      fmt_ratio(r["x_prev"]), fmt_ratio(r["article_x_prev"]),
                      fmt_ratio(r["x_base"]), fmt_ratio(r["article_x_base"]),
                      fmt_ratio(r["vs_cub"]), fmt_ratio(r["article_vs_cub"]),
                      fmt_num(r["pct_memcpy"]), shorten(r["check"] or "-", check_width)])
    if summary["cub_ms"] is not None:
        cells.append(["CUB (cub::DeviceScan)", "cub", fmt_us(summary["cub_ms"]),
                      str(ARTICLE_CUB_US) + (" (§12)" if sections else ""),
                      "-", "-", "-", "-", "1.00x", "1.00x",
                      fmt_num(ratio(100.0 * summary["memcpy_ms"], summary["cub_ms"])
                              if summary["memcpy_ms"] else None), "reference"])
    if summary["memcpy_ms"] is not None:
        cells.append(["cudaMemcpy (same bytes)", "cudaMemcpy", fmt_us(summary["memcpy_ms"]), "-",
                      "-", "-", "-", "-", fmt_ratio(ratio(summary["cub_ms"], summary["memcpy_ms"])), "-",
                      "100.0", "reference"])
    return headers, cells


STAGE_ALIGN = "llrrrrrrrrrl"


def other_cells(rows, unit="us", check_width=48):
    any_flops = any(r["gflops"] for r in rows)
    headers = ["chapter", "variant", "n", f"median {unit}", "GB/s"] + (["GFLOP/s"] if any_flops else []) + \
              ["% memcpy", "speed vs ref", "ref", "check"]
    cells = []
    for r in rows:
        c = [r["chapter"], (r["variant"] or "-") + (" *" if r["reference"] else ""),
             format_size(r["n"]) if r["n"] is not None else "-", fmt_us(r["median_ms"]), fmt_num(r["gbps"])]
        if any_flops:
            c.append(fmt_num(r["gflops"]))
        c += [fmt_num(r["pct_memcpy"]), fmt_ratio(r["speed_vs_ref"]), r["ref_name"] or "-",
              shorten(r["check"] or "-", check_width)]
        cells.append(c)
    align = "llrrr" + ("r" if any_flops else "") + "rrll"
    return headers, cells, align


def describe_machine(meta):
    parts = [meta.get("gpu") or "unknown GPU"]
    if meta.get("compute_capability"):
        parts.append(f"cc {meta['compute_capability']}")
    if meta.get("sms"):
        parts.append(f"{meta['sms']} SMs")
    line = ", ".join(parts)
    extra = []
    if meta.get("driver"):
        extra.append(f"driver {meta['driver']}")
    if meta.get("cuda_runtime"):
        extra.append(f"CUDA runtime {meta['cuda_runtime']}")
    if meta.get("nvcc"):
        extra.append(f"nvcc {meta['nvcc']}")
    extra.append(f"commit {meta.get('commit') or 'unknown'}")
    return line + "; " + ", ".join(extra)


def render_tour(meta, records):
    """The tour's whole terminal output."""
    out = [describe_machine(meta), ""]
    rows, summary = stage_table(records)
    if not any(results_of(r) for r in records):
        rows = []  # nothing measured: the failures below say why
    if rows:
        sizes = ", ".join(format_size(n) for n in summary["sizes"]) or "-"
        out.append(f"Scan stages: inclusive scan of n = {sizes} int32")
        headers, cells = stage_cells(rows, summary)
        out.append(format_table(headers, cells, STAGE_ALIGN))
        if len(summary["sizes"]) > 1:
            out.append("warning: the stages ran at different sizes; their ratios are not comparable.")
        out.append(stage_legend(summary))
        out.append("")
    for ladder in LADDERS:
        lrows = ladder_table(records, ladder)
        if lrows and any(r["ms"] for r in lrows):
            out.append(ladder["title"])
            headers, cells, align = ladder_cells(lrows, ladder)
            out.append(format_table(headers, cells, align))
            out.append(ladder_legend(ladder))
            out.append("")
    others = [r for r in other_rows(records) if r["variant"] is not None]
    if others:
        out.append("Other chapters (and the scan chapters' extra variants); * = reference:")
        headers, cells, align = other_cells(others)
        out.append(format_table(headers, cells, align))
        out.append("speed vs ref = the reference's median time / this median time (the chapter names its "
                   "reference).")
        out.append("")
    failed = [r for r in records if record_failed(r)]
    if failed:
        out.append(f"{len(failed)} of {len(records)} programs failed:")
        by_error = {}
        for r in failed:
            by_error.setdefault(r["error"], []).append(r["chapter"])
        for error, chapters in by_error.items():
            out.append(f"  {chapters[0]}: {error}" if len(chapters) == 1 else f"  {', '.join(chapters)}: {error}")
    else:
        out.append(f"all {len(records)} programs ran and passed their checks.")
    return "\n".join(out) + "\n"


def results_document(meta, records, sweeps=None):
    rows, summary = stage_table(records)
    ladders = {l["key"]: ladder_table(records, l) for l in LADDERS}
    return {"format": RESULTS_FORMAT, "meta": meta, "programs": records,
            "stages": {"rows": rows, "summary": summary, "article": ARTICLE},
            "ladders": {k: v for k, v in ladders.items() if v}, "sweeps": sweeps or {}}


# ---- Command line -------------------------------------------------------------------------------

def split_passthrough(argv):
    """argv before '--' and the program options after it."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def add_run_arguments(p):
    g = p.add_argument_group("building and choosing programs")
    # BUILD, as tools/check reads it: a relative path is taken from the repository's root.
    g.add_argument("--build", default=str(REPO_ROOT / os.environ.get("BUILD", "build")), metavar="DIR",
                   help="build directory (default: $BUILD, as for tools/check, else build/ in the repository); "
                        "configured with `meson setup DIR` if it is not one yet")
    g.add_argument("--no-build", action="store_true", help="run what is built; do not configure or build")
    g.add_argument("--setup-arg", action="append", default=[], metavar="ARG",
                   help="extra argument for `meson setup` when it configures, e.g. --setup-arg=-Dgpu_archs=90")
    g.add_argument("--chapters", metavar="LIST",
                   help="comma-separated chapters: numbers (05), ranges (05-10) or folder names "
                        "(default: every built chapter program)")
    r = p.add_argument_group("options passed to every program")
    r.add_argument("--size", metavar="N", help="problem size (e.g. 2^24); default: each program's own")
    r.add_argument("--budget-ms", type=int, metavar="MS",
                   help=f"timing budget per variant (default {TOUR_BUDGET_MS} here, the programs' own default "
                        "is 1000; medians settle well within it)")
    r.add_argument("--reps", type=int, metavar="N", help="timed repetitions instead of the budget")
    r.add_argument("--warmup", type=int, metavar="N", help="untimed warm-up runs")
    r.add_argument("--seed", type=int, metavar="S", help="seed of the random input")
    r.add_argument("--no-check", action="store_true", help="skip verification")
    r.add_argument("--flush-l2", action="store_true", help="flush the L2 before every timed repetition")
    r.add_argument("--timeout", type=float, default=900, metavar="S",
                   help="give up on a program after S seconds (default 900)")
    p.add_argument("--commit", metavar="ID", help="commit id to record when the checkout has no .git")


def program_options(args, extra=(), with_size=True):
    """The options the tour passes to every program."""
    opts = []
    if args.budget_ms is None and args.reps is None:
        opts += ["--budget-ms", str(TOUR_BUDGET_MS)]
    if with_size and args.size:
        opts += ["--size", args.size]
    for flag, value in (("--budget-ms", args.budget_ms), ("--reps", args.reps), ("--warmup", args.warmup),
                        ("--seed", args.seed)):
        if value is not None:
            opts += [flag, str(value)]
    if args.no_check:
        opts.append("--no-check")
    if args.flush_l2:
        opts.append("--flush-l2")
    return opts + list(extra)


def validate_run_arguments(args):
    if args.size is not None:
        parse_size(args.size)
    for name, lo in (("budget_ms", 1), ("reps", 1), ("warmup", 0), ("seed", 0)):
        v = getattr(args, name)
        if v is not None and v < lo:
            raise ToolError(f"--{name.replace('_', '-')} must be at least {lo}")
    if args.timeout <= 0:
        raise ToolError("--timeout must be positive")


def prepare_programs(args):
    """Builds (unless --no-build) and returns [(chapter id, program path)] for the selection."""
    build = Path(args.build)
    if args.no_build:
        if not build.is_dir():
            raise ToolError(f"build directory {build} does not exist (drop --no-build to configure and build it)")
    else:
        wanted = None
        if args.chapters:
            try:
                wanted = select_chapters(_source_chapters(), args.chapters)
            except ToolError:
                wanted = None  # let the check on the built programs below report it
        ensure_built(build, wanted, args.setup_arg)
    programs = find_programs(build)
    if not programs:
        raise ToolError(f"no chapter programs under {build / 'chapters'} (is {build} a build of this project?)")
    chosen = select_chapters(list(programs), args.chapters)
    return [(c, programs[c]) for c in chosen]


def display_path(path):
    """A program's path as the user would type it: relative to the current directory when inside it."""
    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:
        return str(path)


def run_tour(args, extra):
    programs = prepare_programs(args)
    opts = program_options(args, extra)
    if getattr(args, "full", False):
        opts += ["--variant", "all"]
    return run_programs(programs, opts, args.timeout)


# What every chapter program says (common/device.cu, NoUsableGpu) when this machine has no GPU it can run on.
NO_USABLE_GPU = ("error: no CUDA GPU found", "error: unsupported GPU")


def previous_stage_options(programs, opts):
    """{chapter: ["--variant", "default,PREV"]} for each program that registers the previous chapter's stage
    (common.previous_stage_name) as an on-demand variant: its first table then has that stage's row timed in
    the same process as its own. Nothing when `opts` already choose variants."""
    if any(o in ("-v", "--variant") or o.startswith("--variant=") for o in opts):
        return {}
    out = {}
    for chapter, path in programs:
        prev = previous_stage_name(chapter)
        if not prev:
            continue
        try:
            p = subprocess.run([str(path), "--list", "--format", "json"], capture_output=True, text=True, timeout=60)
            names = {v["name"] for v in json.loads(p.stdout) if v.get("on_demand")} if p.returncode == 0 else set()
        except (OSError, subprocess.TimeoutExpired, ValueError, TypeError, KeyError):
            names = set()
        if prev in names:
            out[chapter] = ["--variant", "default," + prev]
    return out


def run_programs(programs, opts, timeout, per_program=None):
    """Runs [(chapter, path)] one after another with `opts` (and per_program[chapter], when given), saying
    which one runs and how many are left. When the first program finds no usable GPU, every other would too:
    one line and exit status 1 instead of the same failure for every program."""
    records = []
    start = time.monotonic()
    for i, (chapter, path) in enumerate(programs, 1):
        left = len(programs) - i
        note(f"[{i}/{len(programs)}] {chapter} ({left} left after it, {time.monotonic() - start:.0f} s so far)")
        records.append(run_program(chapter, path, opts + list((per_program or {}).get(chapter, ())), timeout,
                                   display_path=display_path(path)))
        error = records[0]["error"] or ""
        if i == 1 and error.startswith(NO_USABLE_GPU):
            built = "Everything is built" if len(programs) > 1 else f"{chapter} is built"
            raise ToolError(f"{chapter} says {error[len('error: '):]}. {built}; the chapter programs "
                            f"need that GPU, so nothing was measured. `tools/check` runs the host tests here.",
                            status=1)
    note(f"ran {len(programs)} programs in {time.monotonic() - start:.0f} s")
    return records


def main(argv):
    argv, extra = split_passthrough(argv)
    p = ArgumentParser(
        prog="tour",
        description="Builds the tutorial (meson setup + ninja, if needed), runs every chapter program with "
                    "--format json, and prints one table: the scan stages against each other, CUB, "
                    "cudaMemcpy and the article's figures, then every other chapter's variants.",
        epilog="Options after `--` go to every program unchanged (chapter-specific ones such as --offset "
               "or --selectivity only make sense with --chapters). Exit status: 0 when every program ran "
               "and passed its checks, 1 when one failed, 2 on bad usage or a missing prerequisite.\n"
               "Example: tools/tour --chapters 05-14 --size 2^24 --budget-ms 300 --json tour.json")
    add_run_arguments(p)
    p.add_argument("--json", metavar="FILE", help="also save everything (every program's JSON and the "
                                                  "machine, driver, CUDA, date, commit, command) to FILE")
    p.add_argument("--list", action="store_true", help="list the chapter programs that would run, then exit")
    p.add_argument("--full", action="store_true",
                   help="run every variant of every program (--variant all: the configurations each chapter "
                        "measured to choose its stage, too); by default each program runs its stage and its "
                        "references")
    args = p.parse_args(argv)
    validate_run_arguments(args)
    if args.list:
        for chapter, path in prepare_programs(args):
            print(f"{chapter}\t{display_path(path)}")
        return 0
    records = run_tour(args, extra)
    meta = machine_metadata(first_device(records), None, args.commit)
    sys.stdout.write(render_tour(meta, records))
    if args.json:
        write_text(args.json, json.dumps(results_document(meta, records), indent=1) + "\n")
        note(f"wrote {args.json}")
    return 1 if any(record_failed(r) for r in records) else 0
