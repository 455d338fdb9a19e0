"""The front page's chapter map: its "result" column is generated from a committed results file.

README.md holds the map between
    <!-- chapter-map: docs/results/nvidia-h100-80gb-hbm3.json -->
    ... a table: | # | chapter | what you learn | result on <GPU> |
    <!-- /chapter-map -->
The marker may name several results files of one GPU, oldest first: a chapter's cell comes from the last file that
measured it (a later run of a few chapters, e.g. `tools/results --chapters 50-56`, updates only theirs). The first
three columns are prose, kept as written. The last is written here from the results file the marker
names (the `stages` and `ladders` tables tools/results computed, and the programs' own rows): every ratio but
"x prev" is from one process (the stage and its reference timed by the same program on the same data); "x prev"
divides the previous chapter's time by this one's, from the chapter's own program where it times the previous stage
(tools/results runs it with --variant default,NAME), else from two programs run one after the other by the same
tools/results call at the same size, except for the chapters of LENGTH_RUNS (36-38), whose cell comes from a
committed run at their own length that timed the previous stage in the same process. `tools/lint-docs --fill` writes the column; `tools/lint-docs` checks it.
"""

import json
import re
from pathlib import Path

from .common import REPO_ROOT

BLOCK = re.compile(r"<!-- chapter-map: (?P<results>[\w./-]+(?: [\w./-]+)*) -->\n(?P<body>.*?)<!-- /chapter-map -->", re.S)
ROW = re.compile(r"^\|\s*(?P<num>\d\d)\s*\|")

# Chapters outside the three ladders: which program's row makes the headline, and what it says.
# (program, variant, kind): kind "vs" = speed against the program's reference, "copy" = % of cudaMemcpy,
# "fp32" = % of the FP32 peak.
OTHER = {
    "01": ("01-warp-divergence", "kernel1-even-odd", "vs"),
    "02": ("02-gpu-principles-fma", "chains-8", "fp32"),
    "03": ("03-vectorized-loads", "int4", "copy"),
    "04": ("04-warp-aggregated-atomics", "warp-aggregated-cg", "vs"),
    "18": ("18-scan-any-type-copy-bound", "scan-copy-bound", "copy+vs"),
    "40": ("40-scan-multi-gpu", "scan-multi-gpu", "copy"),
}
REF_LABEL = {"cub": "CUB", "cublas": "cuBLAS", "cufft": "cuFFT"}
# Chapters whose own lengths are past the default run's N = 1024 (where they run chapter 35's kernel): their cell
# comes from a committed `--variant all` run at their longest measured length, whose table has the previous stage in
# the same process. Used only when that run's GPU is the results file's. (chapter: (capture, previous stage variant))
H200_RUN = "docs/results/raw/2026-11-28-h200-s2/c3/len"
LENGTH_RUNS = {
    "36": (["docs/results/raw/2026-11-27-h100/screens-bbee8ca/c36-all-n16384.txt", f"{H200_RUN}/c36-all-n16384.txt"],
           "fft-tuned"),
    "37": (["docs/results/raw/2026-11-27-h100/screens-bbee8ca/c37-all-n65536.txt", f"{H200_RUN}/c37-all-n65536.txt"],
           "fft-one-block-large"),
    "38": (["docs/results/raw/2026-11-27-h100/screens-bbee8ca/c38-all-n1048576.txt",
            f"{H200_RUN}/c38-all-n1048576.txt"], "fft-thread-block-cluster"),
}
# Chapters whose stage changed, or that came, after the results file's run: their cell comes from a committed
# `--variant all --format csv` run of the chapter's program (the stage, the previous stage under its folder's name,
# cuBLAS, one process), used only when that run's GPU (its .err banner beside the CSV) is the results file's.
S3_RUN = "docs/results/raw/2026-11-28-h200-s3"
S4_RUN = "docs/results/raw/2026-11-28-h200x4-s4"
S5_RUN = "docs/results/raw/2026-11-28-h200x4-s5"
S7_RUN = "docs/results/raw/2026-11-29-h200-s7"
S8_RUN = "docs/results/raw/2026-11-29-h200-s8"
S9_RUN = "docs/results/raw/2026-11-29-h200-s9"
CSV_RUNS = {
    # The FFT stages after chapter 35's twiddles per butterfly (2026-11-29): each at its chapter's length.
    "35": f"{S7_RUN}/c3/runs/35-1024.csv",
    "36": f"{S7_RUN}/c3/runs/36-16384.csv",
    "37": f"{S7_RUN}/c3/runs/37-65536.csv",
    "38": f"{S8_RUN}/c2/runs/38-1048576.csv",
    "54": f"{S3_RUN}/c1/54-bf16-gemm-wgmma-4096x4096x4096.csv",
    "55": f"{S3_RUN}/c1/55-bf16-gemm-tma-mbarrier-4096x4096x4096.csv",
    "56": f"{S3_RUN}/c5/56-bf16-gemm-warp-specialized-4096x4096x4096.csv",
    "57": f"{S4_RUN}/c2/57-bf16-gemm-persistent-4096x4096x4096.csv",
    "58": f"{S5_RUN}/c3/runs/58-256x256x65536.csv",
    # Chapter 59 with chapter 57's epilogue-prefetch among its candidates, timed in 15 alternating rounds (2026-11-29).
    "59": f"{S9_RUN}/c1/runs/59-4096.csv",
}
PREVIOUS_STAGE = {"35": "fft-high-radix", "36": "fft-tuned", "37": "fft-one-block-large",
                  "38": "fft-thread-block-cluster", "54": "bf16-gemm-cp-async-pipeline", "55": "bf16-gemm-wgmma", "56": "bf16-gemm-tma-mbarrier",
                  "57": "bf16-gemm-warp-specialized", "58": "bf16-gemm-persistent", "59": "bf16-gemm-split-k"}
# CSV runs at a shape other than the default 4096^3, which the cell names first: chapter 58's idea shows only where
# C has fewer tiles than the GPU has SMs (at 4096^3 it runs chapter 57's kernel).
CSV_RUN_SHAPE = {"35": "N = 1024", "36": "N = 2^14", "37": "N = 2^16", "38": "N = 2^20", "58": "256 × 256 × 65536"}


def _x(v):
    return f"{v:.2f}x" if v >= 0.095 else f"{v:.3f}x"


def _pct(v):
    return f"{v:.1f}%"


def _row(programs, chapter, variant):
    for r in (programs.get(chapter) or {}).get("results", []):
        if r.get("variant") == variant:
            return r
    return None


def parse_program_table(text):
    """(GPU name, N, {variant: {column: cell}}) from a chapter program's table output (the banner's 'GPU 0: NAME (',
    the 'N = 2^K' line, and the rows under the header that starts with 'variant'; a reference's ' *' dropped)."""
    gpu = re.search(r"^GPU \d+: (.+?) \(", text, re.M)
    length = re.search(r"^N = (2\^\d+)", text, re.M)
    rows, header = {}, None
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == "variant":
            header = cells
        elif header and line.startswith("-"):
            continue
        elif header and len(cells) == len(header):
            rows[cells[0].rstrip(" *")] = dict(zip(header, cells))
        elif header:
            header = None
    return (gpu.group(1) if gpu else None), (length.group(1) if length else None), rows


def length_run_cell(chapter, captures, previous, gpu, root):
    """The cell of CHAPTER from the first of CAPTURES (see LENGTH_RUNS) that exists and ran on GPU, or None."""
    for capture in captures:
        path = Path(root) / capture
        if path.is_file() and parse_program_table(path.read_text())[0] == gpu:
            break
    else:
        return None
    run_gpu, length, rows = parse_program_table(path.read_text())
    stage, prev = rows.get(chapter.split("-", 1)[1]), rows.get(previous)
    if run_gpu != gpu or stage is None:
        return None
    parts = []
    try:
        if prev is not None:
            parts.append(f"{_x(float(prev['median ms']) / float(stage['median ms']))} prev")
        parts.append(f"{_pct(float(stage['% memcpy']))} of copy")
        ref = next((k for k in stage if k.startswith("speed vs ")), None)
        if ref and stage[ref].endswith("x"):
            name = ref[len("speed vs "):]
            parts.append(f"{_x(float(stage[ref][:-1]))} {REF_LABEL.get(name, name)}")
    except (KeyError, ValueError):
        return None
    return f"N = {length}: " + ", ".join(parts)


def csv_run_cell(capture, previous, gpu, root):
    """The cell from a chapter program's CSV run (see CSV_RUNS) if it ran on GPU, else None."""
    path = Path(root) / capture
    err = path.with_suffix(".err")
    banner = "\n".join(line.lstrip("# ") for line in err.read_text().splitlines()) if err.is_file() else ""
    if not path.is_file() or parse_program_table(banner)[0] != gpu:
        return None
    import csv
    with open(path) as f:
        rows = {r["variant"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}
    chapter = next(iter(rows.values()))["chapter"] if rows else ""
    stage, prev = rows.get(chapter.split("-", 1)[1]), rows.get(previous)
    if stage is None:
        return None
    parts = []
    in_rounds = int(float(stage.get("rounds") or 0)) > 0  # --rounds: each ratio's own range over the rounds decides
    if prev is not None:
        if in_rounds and int(float(prev.get("rounds") or 0)) > 0:  # the two ratios to the reference overlap
            tie = (float(stage["speed_min"]) <= float(prev["speed_max"]) and
                   float(prev["speed_min"]) <= float(stage["speed_max"]))
        else:
            tie = float(stage["min_ms"]) <= float(prev["max_ms"]) and float(prev["min_ms"]) <= float(stage["max_ms"])
        parts.append(f"{_x(float(prev['median_ms']) / float(stage['median_ms']))} prev" + (" (a tie)" if tie else ""))
    if float(stage.get("pct_memcpy") or 0) > 0:  # the FFT and scan programs time a copy of the same bytes
        parts.append(f"{_pct(float(stage['pct_memcpy']))} of copy")
    ref = rows.get(stage["ref_name"])
    if in_rounds:
        ref_tie = float(stage["speed_min"]) <= 1.0 <= float(stage["speed_max"])
    else:
        ref_tie = ref is not None and (float(stage["min_ms"]) <= float(ref["max_ms"]) and
                                       float(ref["min_ms"]) <= float(stage["max_ms"]))
    parts.append(f"{_x(float(stage['speed_vs_ref']))} {REF_LABEL.get(stage['ref_name'], stage['ref_name'])}" +
                 (" (a tie)" if ref_tie else ""))
    return ", ".join(parts)


def headlines(results, root=REPO_ROOT):
    """{two-digit chapter number: the result cell} from one results JSON document (tools/results), and for the
    chapters of LENGTH_RUNS their committed run at their own length."""
    out = {}
    for r in results.get("stages", {}).get("rows", []):
        if not r.get("ours_ms"):
            continue
        parts = []
        if r.get("x_prev"):
            parts.append(f"{_x(r['x_prev'])} prev")
        if r.get("pct_memcpy"):
            parts.append(f"{_pct(r['pct_memcpy'])} of copy")
        if r.get("vs_cub"):
            parts.append(f"{_x(r['vs_cub'])} CUB")
        out[f"{r['number']:02d}"] = ", ".join(parts)
    for key, rows in results.get("ladders", {}).items():
        for r in rows:
            if not r.get("ms"):
                continue
            parts = []
            if r.get("x_prev"):
                parts.append(f"{_x(r['x_prev'])} prev")
            if key == "sgemm" and r.get("pct_peak"):
                parts.append(f"{_pct(r['pct_peak'])} of FP32 peak")
            if key == "fft" and r.get("pct_memcpy"):
                parts.append(f"{_pct(r['pct_memcpy'])} of copy")
            if r.get("vs_ref"):
                parts.append(f"{_x(r['vs_ref'])} {'cuFFT' if key == 'fft' else 'cuBLAS'}")
            length = (r.get("options") or {}).get("length")
            out[r["chapter"][:2]] = (f"N = {length}: " if key == "fft" and length else "") + ", ".join(parts)
    programs = {p["chapter"]: p.get("data") or {} for p in results.get("programs", [])}
    for num, (chapter, variant, kind) in OTHER.items():
        r = _row(programs, chapter, variant)
        if r is None or r.get("failed"):
            continue
        parts = []
        if "copy" in kind and r.get("pct_memcpy"):
            parts.append(f"{_pct(r['pct_memcpy'])} of copy")
        if kind == "fp32" and r.get("pct_peak_fp32"):
            parts.append(f"{_pct(r['pct_peak_fp32'])} of FP32 peak")
        if "vs" in kind and r.get("speed_vs_ref"):
            ref = r.get("ref_name") or "reference"
            parts.append(f"{_x(r['speed_vs_ref'])} {REF_LABEL.get(ref, '`' + ref + '`')}")
        if parts:
            out[num] = f"`{variant}`{' on one GPU' if num == '40' else ''}: " + ", ".join(parts)
    gpu = (results.get("meta") or {}).get("gpu")
    chapters = {p["chapter"][:2]: p["chapter"] for p in results.get("programs", [])}
    for num, (capture, previous) in LENGTH_RUNS.items():
        cell = length_run_cell(chapters.get(num, ""), capture, previous, gpu, root) if num in chapters else None
        if cell:
            out[num] = cell
    for num, capture in CSV_RUNS.items():
        cell = csv_run_cell(capture, PREVIOUS_STAGE[num], gpu, root)
        if cell:
            out[num] = f"{CSV_RUN_SHAPE[num]}: {cell}" if num in CSV_RUN_SHAPE else cell
    return out


def render(body, results, root=REPO_ROOT):
    """BODY (the map's table) with its last column written from RESULTS (one results document, or a list of them
    from one GPU, oldest first: a later document's cell replaces an earlier one's); the header names the GPU."""
    docs = results if isinstance(results, list) else [results]
    gpus = {(d.get("meta") or {}).get("gpu") for d in docs}
    if len(gpus) > 1:
        raise ValueError(f"chapter map: results files of different GPUs ({', '.join(sorted(map(str, gpus)))})")
    cells = {}
    for d in docs:
        cells.update(headlines(d, root))
    gpu = gpus.pop() or "unknown GPU"
    lines = []
    for line in body.splitlines():
        cols = line.rstrip().rstrip("|").split("|")
        m = ROW.match(line)
        if line.startswith("| # |"):
            cols[-1] = f" result on {gpu} "
        elif m:
            cols[-1] = " " + (cells.get(m.group("num")) or "not measured yet") + " "
        lines.append("|".join(cols) + "|" if line.startswith("|") else line)
    return "\n".join(lines) + "\n"


def results_paths(spec, root=REPO_ROOT):
    """The results files a marker names (space-separated, oldest first), as paths under ROOT."""
    return [Path(root) / name for name in spec.split()]


def load_results(spec, root=REPO_ROOT):
    """The documents of the results files a marker names; raises FileNotFoundError for a missing one."""
    return [json.loads(p.read_text()) for p in results_paths(spec, root)]


def fill(text, root=REPO_ROOT):
    """TEXT with every chapter-map block rewritten; raises FileNotFoundError for a missing results file."""
    def repl(m):
        results = load_results(m.group("results"), root)
        return f"<!-- chapter-map: {m.group('results')} -->\n{render(m.group('body'), results, root)}<!-- /chapter-map -->"
    return BLOCK.sub(repl, text)
