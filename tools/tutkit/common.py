"""What every tool shares: errors and argument parsing, finding programs and chapters, sizes,
number and table formatting, and the facts about the machine that every result file records."""

import argparse
import datetime
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


class ToolError(Exception):
    """A problem the user can fix. Printed as one line; `status` is the exit status (2: bad input or a
    missing prerequisite, 1: something ran and failed)."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line error ("<prog>: error: ... (see --help)") and exit status 2; the
    description is wrapped, the epilog printed as written."""

    def __init__(self, *args, description=None, epilog=None, **kwargs):
        if description:
            description = textwrap.fill(" ".join(description.split()), width=90)
        if epilog:
            # paragraphs are wrapped; indented lines (examples, legends) are printed as written
            epilog = "\n".join(line if line.startswith("  ") else
                                textwrap.fill(line, width=90, break_long_words=False, break_on_hyphens=False)
                                for line in epilog.split("\n"))
        kwargs["epilog"] = epilog
        super().__init__(*args, description=description, formatter_class=argparse.RawDescriptionHelpFormatter,
                         **kwargs)

    def error(self, message):
        raise ToolError(f"{message} (see --help)", status=2)


def run_main(main, argv=None):
    """Runs main(argv) and turns ToolError and Ctrl-C into a one-line message and an exit status."""
    prog = Path(sys.argv[0]).name
    try:
        return main(sys.argv[1:] if argv is None else argv)
    except ToolError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return e.status
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `tools/tour | head`
        return 0


def warn(message):
    print(f"{Path(sys.argv[0]).name}: warning: {message}", file=sys.stderr)


def note(message):
    """Progress for the user, on stderr so that stdout holds only the results."""
    print(f"{Path(sys.argv[0]).name}: {message}", file=sys.stderr, flush=True)


# ---- Finding tools ------------------------------------------------------------------------------

def cuda_bin_dirs():
    """Where a CUDA toolkit's programs live when they are not on PATH."""
    dirs = []
    for var in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(var):
            dirs.append(Path(os.environ[var]) / "bin")
    dirs.append(Path("/usr/local/cuda/bin"))
    return [d for d in dirs if d.is_dir()]


def find_program(name, cuda=False):
    """Full path of `name` on PATH (or, with cuda=True, in the CUDA toolkit's bin/), else None."""
    found = shutil.which(name)
    if found or not cuda:
        return found
    for d in cuda_bin_dirs():
        p = d / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return None


def meson_command():
    """The command that runs meson: `meson` on PATH, else this Python's meson package
    (`python3 -m mesonbuild.mesonmain`, as a pip install without its script on PATH provides), else None."""
    found = shutil.which("meson")
    if found:
        return [found]
    if importlib.util.find_spec("mesonbuild") is not None:
        return [sys.executable, "-m", "mesonbuild.mesonmain"]
    return None


def env_with_dir_on_path(directory):
    """A copy of the environment with `directory` appended to PATH (if it is not there)."""
    env = dict(os.environ)
    parts = env.get("PATH", "").split(os.pathsep)
    if directory and str(directory) not in parts:
        env["PATH"] = os.pathsep.join([p for p in parts if p] + [str(directory)])
    return env


INSTALL_HINTS = {
    "meson": "install meson >= 1.0.1: `python3 -m pip install meson` or `apt-get install meson`",
    "ninja": "install ninja: `python3 -m pip install ninja` or `apt-get install ninja-build`",
    "nvcc": "install the CUDA Toolkit 12.x or 13.x (https://developer.nvidia.com/cuda-downloads) "
            "and put its bin/ on PATH",
    "ncu": "install Nsight Compute (it ships with the CUDA Toolkit, package nsight-compute; "
           "https://developer.nvidia.com/nsight-compute) and put ncu on PATH",
    "compute-sanitizer": "compute-sanitizer ships with the CUDA Toolkit (package cuda-sanitizer-<version>, "
                         "in <toolkit>/bin); install it and put it on PATH",
}


# ---- Sizes --------------------------------------------------------------------------------------

_SUFFIX = {"K": 10, "M": 20, "G": 30, "T": 40}


def _size_error(text, why="use forms like 1048576, 2^20, 1M, 3*2^20"):
    return ToolError(f"invalid size '{text}' ({why})")


def _parse_term(whole, t):
    if "^" in t:
        base, _, exp = t.partition("^")
        b, e = _parse_term(whole, base), _parse_term(whole, exp)
        if b > 1 and e >= 64:
            raise _size_error(whole, "too large")
        return b ** e
    m = re.fullmatch(r"(\d+)([KMGTkmgt]?)", t)
    if not m:
        raise _size_error(whole)
    v = int(m.group(1))
    return v << _SUFFIX[m.group(2).upper()] if m.group(2) else v


def parse_size(text):
    """'1048576', '2^20', '1M', '3*2^20', '2^31+5' -> int, as the chapter programs read --size."""
    s = "".join(str(text).split())
    if not re.fullmatch(r"[0-9KMGTkmgt^*]+([+-][0-9KMGTkmgt^*]+)*", s):
        raise _size_error(text)
    total = 0
    for sign, product in re.findall(r"([+-]?)([^+-]+)", s):
        v = 1
        for term in product.split("*"):
            v *= _parse_term(text, term)
        total = total - v if sign == "-" else total + v
        if total < 0:
            raise _size_error(text, "must not be negative")
    if total >= 2 ** 64:
        raise _size_error(text, "too large")
    return total


def format_size(n):
    """268435456 -> '2^28', 3145728 -> '3*2^20', 1000 -> '1000' (as the chapter programs print it)."""
    n = int(n)
    if n < 1024:
        return str(n)
    k, m = 0, n
    while m % 2 == 0:
        m //= 2
        k += 1
    if k < 10:
        return str(n)
    return ("" if m == 1 else f"{m}*") + f"2^{k}"


def parse_list(text, what):
    items = [x.strip() for x in str(text).split(",") if x.strip()]
    if not items:
        raise ToolError(f"empty list for {what}")
    return items


# ---- Numbers and tables -------------------------------------------------------------------------

def fmt_num(v, digits=1, dash="-"):
    return dash if v is None else f"{v:.{digits}f}"


def fmt_us(ms):
    """Milliseconds as microseconds with about four significant digits."""
    if ms is None:
        return "-"
    us = ms * 1000.0
    if us >= 1000:
        return f"{us:.0f}"
    if us >= 10:
        return f"{us:.1f}"
    return f"{us:.2f}"


def fmt_ratio(x):
    """2.5 -> '2.50x', 123.4 -> '123.4x', 0.0123 -> '0.0123x' (three significant digits below 0.1)."""
    if x is None:
        return "-"
    if x >= 10:
        return f"{x:.1f}x"
    if x >= 0.1:
        return f"{x:.2f}x"
    return f"{x:.3g}x"


def fmt_count(v):
    """Counters: integers with thousands separators, fractions with two decimals."""
    if v is None:
        return "-"
    if abs(v - round(v)) < 1e-9:
        return f"{int(round(v)):,}"
    return f"{v:,.2f}"


def ratio(numerator, denominator):
    """numerator / denominator, or None when either is missing or the denominator is not positive."""
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def shorten(text, width):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def format_table(headers, rows, align=None):
    """A plain-text table: a header, a rule, one line per row. align: one 'l' or 'r' per column
    (default: first column left, the others right)."""
    cols = len(headers)
    align = align or "l" + "r" * (cols - 1)
    cells = [[str(h) for h in headers]] + [[("-" if c is None else str(c)) for c in r] for r in rows]
    width = [max(len(row[i]) for row in cells) for i in range(cols)]
    lines = []
    for k, row in enumerate(cells):
        parts = [row[i].ljust(width[i]) if align[i] == "l" else row[i].rjust(width[i]) for i in range(cols)]
        lines.append("  ".join(parts).rstrip())
        if k == 0:
            lines.append("-" * (sum(width) + 2 * (cols - 1)))
    return "\n".join(lines) + "\n"


def markdown_table(headers, rows, align=None):
    cols = len(headers)
    align = align or "l" + "r" * (cols - 1)

    def cell(c):
        return ("-" if c is None else str(c)).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


# ---- Chapters and their programs ----------------------------------------------------------------

def chapter_number(chapter_id):
    m = re.match(r"(\d+)", chapter_id)
    return int(m.group(1)) if m else None


def find_programs(build_dir):
    """{program id: program path} for every built chapter program: build/chapters/<id>/<id>, or,
    for a chapter of several programs (02), build/chapters/<id>/<id>-<experiment>. The -G builds
    and the test programs are never picked."""
    root = Path(build_dir) / "chapters"
    found = {}
    if root.is_dir():
        for d in sorted(root.iterdir()):
            if not d.is_dir():
                continue
            exe = d / d.name
            if exe.is_file() and os.access(exe, os.X_OK):
                found[d.name] = exe
                continue
            for p in sorted(d.glob(d.name + "-*")):
                suffix = p.name[len(d.name) + 1:]
                if (p.is_file() and os.access(p, os.X_OK) and suffix != "G" and not suffix.endswith("test")
                        and "." not in suffix):
                    found[p.name] = p
    return found


def select_chapters(available, spec):
    """Picks chapter ids from `available` (ordered) by a comma list of numbers ('05'), ranges
    ('05-10'), full folder names or their unique prefixes. None or '' selects all."""
    if not spec:
        return list(available)
    chosen = []
    for token in parse_list(spec, "--chapters"):
        m = re.fullmatch(r"(\d+)-(\d+)", token)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            hits = [c for c in available if chapter_number(c) is not None and lo <= chapter_number(c) <= hi]
        elif token.isdigit():
            hits = [c for c in available if chapter_number(c) == int(token)]
        else:
            hits = [c for c in available if c == token] or [c for c in available if c.startswith(token)]
        if not hits:
            known = ", ".join(available) if available else "none"
            raise ToolError(f"no built chapter program matches '{token}' (built: {known})")
        chosen += [c for c in hits if c not in chosen]
    return [c for c in available if c in chosen]


def accepts_option(program, option):
    """Whether a chapter program's --help lists `option` (e.g. "--length")."""
    try:
        p = subprocess.run([str(program), "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return p.returncode == 0 and re.search(rf"(^|\s){re.escape(option)}\b", p.stdout) is not None


# The chapter whose stage a chapter improves on, where it is not the one numbered one less in the same ladder.
PREVIOUS = {"40": "17"}


def previous_chapter(chapter, chapters):
    """The folder of the chapter whose stage CHAPTER improves on, or None (a ladder's first chapter)."""
    num, _, name = chapter.partition("-")
    if not num.isdigit():
        return None
    want = PREVIOUS.get(num)
    if want:
        return next((c for c in chapters if c.startswith(want + "-")), None)
    prev = f"{int(num) - 1:02d}-" + name.split("-")[0]
    return next((c for c in chapters if c == prev or c.startswith(prev + "-")), None)


def previous_stage_name(chapter):
    """The variant name of the stage CHAPTER's stage improves on (05-scan-baseline for 06-scan-shared-memory:
    'scan-baseline'), or None for a ladder's first chapter. A chapter program that times that stage in the same
    process registers it under this name, on demand."""
    chapters = sorted(p.name for p in (REPO_ROOT / "chapters").iterdir() if p.is_dir())
    prev = previous_chapter(chapter, chapters)
    return prev.split("-", 1)[1] if prev else None


def stage_variant_name(chapter_id, variants):
    """The variant that stands for a chapter's stage: the one named like the folder without its
    number (05-scan-baseline -> scan-baseline), else the first variant that is not a reference.
    `variants`: [(name, is_reference)] in the program's order."""
    bare = chapter_id.split("-", 1)[1] if "-" in chapter_id else chapter_id
    for name, _ in variants:
        if name == bare:
            return name
    for name, is_ref in variants:
        if not is_ref and name != "cudaMemcpy":
            return name
    return None


# ---- JSON files ---------------------------------------------------------------------------------

def load_json(path, what="JSON file"):
    p = Path(path)
    try:
        with open(p, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise ToolError(f"{what} {p} does not exist")
    except IsADirectoryError:
        raise ToolError(f"{what} {p} is a directory")
    except json.JSONDecodeError as e:
        raise ToolError(f"{what} {p} is not valid JSON (line {e.lineno}: {e.msg})")
    except OSError as e:
        raise ToolError(f"cannot read {what} {p}: {e.strerror}")


def write_text(path, text):
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ToolError(f"cannot write {p}: {e.strerror}")


# ---- What a result file records about the machine and the checkout ------------------------------

def _capture(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def git_commit(repo=REPO_ROOT):
    """'<sha>' or '<sha>-dirty' (uncommitted changes), or None outside a git checkout."""
    sha = _capture(["git", "rev-parse", "HEAD"], cwd=repo)
    if not sha:
        return None
    status = _capture(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo)
    return sha + ("-dirty" if status else "")


def nvidia_smi_info():
    """(gpu name, driver version) from nvidia-smi for GPU 0, or (None, None)."""
    out = _capture(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
    if not out:
        return None, None
    parts = [p.strip() for p in out.splitlines()[0].split(",")]
    return (parts[0], parts[1]) if len(parts) >= 2 else (None, None)


def nvcc_version():
    nvcc = find_program("nvcc", cuda=True)
    out = _capture([nvcc, "--version"]) if nvcc else None
    m = re.search(r"release ([\d.]+), V([\d.]+)", out or "")
    return m.group(2) if m else None


def cuda_version_text(v):
    """13000 -> '13.0' (the CUDA API version encoding of cudaDriverGetVersion/cudaRuntimeGetVersion)."""
    return f"{v // 1000}.{(v % 1000) // 10}" if isinstance(v, int) and v > 0 else None


def machine_metadata(device=None, argv=None, commit=None):
    """The facts every result records. `device`: the "device" object of a chapter program's JSON."""
    smi_name, smi_driver = nvidia_smi_info()
    device = device or {}
    return {
        "gpu": device.get("name") or smi_name,
        "compute_capability": device.get("cc"),
        "sms": device.get("sms"),
        "peak_dram_gbps": device.get("peak_dram_gbps"),
        "driver": smi_driver,
        "cuda_driver_api": cuda_version_text(device.get("driver_version")),
        "cuda_runtime": cuda_version_text(device.get("runtime_version")),
        "nvcc": nvcc_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit or git_commit(),
        "command": shlex.join(argv if argv is not None else sys.argv),
        "cwd": os.getcwd(),
    }


def slugify(text):
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    s = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")
    return s or "unknown-gpu"
