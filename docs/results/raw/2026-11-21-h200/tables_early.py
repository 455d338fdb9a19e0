#!/usr/bin/env python3
"""Writes the H200 tables that chapters 01-04 cite from this folder's captures (2026-11-21, commit e0a93a9), as
the chapter programs printed them (no GPU needed):

  python3 docs/results/raw/2026-11-21-h200/tables_early.py          # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-21-h200/tables_early.py --fill   # and fills every README block they feed
                                                                    # (BLOCKS: tools/fill-measured --extra)
  python3 docs/results/raw/2026-11-21-h200/tables_early.py --fill --check   # changes nothing; exit 1 if a
                                                                            # table or a block would

Every number comes from a program output in this folder; nothing is typed by hand. (tables_early.py, not
tables.py: chapter 16's tables from this folder may get their own script.)"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tables"
RAW_LINK = "../../docs/results/raw/2026-11-21-h200/"
# What the captures' banners do not print: the toolkit, driver, date and commit of the run.
RUN = "CUDA 13.0 (nvcc 13.0.88), driver 580.159.04, 2026-11-21, commit `e0a93a9`"


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


TABLES = [(name, (lambda runs=runs: run_block(runs))) for name, runs in RUN_BLOCKS.items()] + [
    ("01-block-sizes", block_sizes)]
# README block -> the file in tables/ that fills it (each table fills the block of its own name).
BLOCKS = {name: name for name, _ in TABLES}


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
        print(f"tables_early.py: {len(stale)} committed table(s) differ from what the captures give (run "
              f"tables_early.py --fill): {', '.join(stale)}", file=sys.stderr)
        sys.exit(1)
    if "--fill" in sys.argv[1:]:
        import subprocess
        root = HERE.parents[3]
        cmd = [sys.executable, str(root / "tools" / "fill-measured"), str(root / "docs/results/nvidia-h100-80gb-hbm3.md")]
        cmd += [f"--extra={block}={OUT / (f + '.md')}" for block, f in BLOCKS.items()]
        if check:
            cmd.append("--check")
        sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
