#!/usr/bin/env python3
"""Chapter 40's two forms side by side on two GPUs of one host: one process driving both GPUs (ncclCommInitAll,
the lesson's first table) and one process per GPU (--ranks 2: ncclCommInitRank, the way NCCL programs span
hosts), each at 2^30 and 2^32, in one call.

    python3 chapters/40-scan-multi-gpu/measure_forms.py OUT [--build DIR] [--sizes 30,32] [--budget-ms 300]
    python3 chapters/40-scan-multi-gpu/measure_forms.py OUT --parse-only      # tables again from OUT's raw files
    python3 chapters/40-scan-multi-gpu/measure_forms.py OUT --screen-template # the README block's template

Runs, per size, one form after the other (one-process first), each program's own table output kept raw:
    OUT/one-process-2pS.txt   PROGRAM --size 2^S --gpus 2 --budget-ms B
    OUT/ranks-2pS.txt         PROGRAM --ranks 2 --size 2^S --budget-ms B
then writes
    OUT/forms.csv   form,size,n,median_ms,min_ms,max_ms,reps,reduce_us,exchange_us,scan_us,bound_us,check
    OUT/forms.md    the README's table (the two forms per size, the ratio, whether the spreads overlap)
and OUT/gpu.txt, OUT/topo.txt, OUT/commit.txt, OUT/commands.txt (each command, its exit status and seconds).
Exit status 1 if a command failed or a check was not ok.
"""
import argparse
import csv
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CHAPTER = "40-scan-multi-gpu"
FORMS = [("one-process", "scan-multi-gpu", "one process, both GPUs (`ncclCommInitAll`)"),
         ("ranks", "scan-multi-gpu-ranks", "one process per GPU (`--ranks 2`, `ncclCommInitRank`)")]
FIELDS = ["form", "size", "n", "median_ms", "min_ms", "max_ms", "reps", "reduce_us", "exchange_us", "scan_us",
          "bound_us", "check"]


def table_rows(text, first_header):
    """Rows of a text table whose header line starts with `first_header`: {first cell: {column: cell}}."""
    lines = text.splitlines()
    starts = [i for i, l in enumerate(lines) if l.startswith(first_header + " ")]
    rows = {}
    for start in starts:
        header = re.split(r"\s{2,}", lines[start].strip())
        for line in lines[start + 2:]:
            cells = re.split(r"\s{2,}", line.strip())
            if len(cells) != len(header):
                break
            rows.setdefault(cells[0], dict(zip(header, cells)))
    return rows


def parse(path, form, row, size):
    """One CSV row from a program's table output."""
    text = path.read_text()
    main = table_rows(text, "variant").get(row)
    if main is None:
        raise SystemExit(f"{path}: no row {row}")
    out = {"form": form, "size": f"2^{size}", "n": 2 ** size, "median_ms": main["median ms"],
           "min_ms": main["min ms"], "max_ms": main["max ms"], "reps": main["reps"], "check": main["check"]}
    # the parts: the one-process form's table is headed "GPUs" (row "2"), the rank form's "row"
    parts = table_rows(text, "GPUs").get("2") if form == "one-process" else table_rows(text, "row").get(row)
    for key, col in (("reduce_us", "reduce us"), ("exchange_us", "exchange us"), ("scan_us", "scan us"),
                     ("bound_us", "bound us")):
        out[key] = parts.get(col, "-") if parts else "-"
    return out


def markdown(rows):
    by = {(r["form"], r["size"]): r for r in rows}
    sizes = sorted({r["size"] for r in rows}, key=lambda s: int(s.split("^")[1]))
    head = ("| n `int32` | " + " | ".join(f"{label}: median (min–max) µs" for _, _, label in FORMS) +
            " | per GPU / one process | spreads overlap | exchange µs (one process / per GPU) | bound µs (one process / per GPU) | checks |")
    lines = [head, "|---|" + "---:|" * 5 + "---|"]
    for size in sizes:
        a, b = by.get(("one-process", size)), by.get(("ranks", size))
        if not a or not b:
            continue
        def cell(r):
            return (f"{float(r['median_ms']) * 1000:.0f} ({float(r['min_ms']) * 1000:.0f}–"
                    f"{float(r['max_ms']) * 1000:.0f})")
        ratio = float(b["median_ms"]) / float(a["median_ms"])
        overlap = float(a["min_ms"]) <= float(b["max_ms"]) and float(b["min_ms"]) <= float(a["max_ms"])
        lines.append(f"| {size} | {cell(a)} | {cell(b)} | {ratio:.3f} | {'yes' if overlap else 'no'} | "
                     f"{a['exchange_us']} / {b['exchange_us']} | {a['bound_us']} / {b['bound_us']} | "
                     f"{a['check']}, {b['check']} |")
    return "\n".join(lines) + "\n"


def screen_template(out):
    """The template of the README block <!-- measured: 40-scan-multi-gpu-ranks --> (docs/results/screens/), its
    numbers read from OUT/forms.csv once OUT is committed under docs/results/raw/."""
    rel = Path(out).resolve().relative_to(ROOT) / "forms.csv"
    t = []
    for size in ("2^30", "2^32"):
        one = f"{{csv:{rel}:form=one-process,size={size}:"
        per = f"{{csv:{rel}:form=ranks,size={size}:"
        t.append(f"| {size} | {one}median_ms:.3f}} ms ({one}min_ms:.3f}}–{one}max_ms:.3f}}) | "
                 f"{per}median_ms:.3f}} ms ({per}min_ms:.3f}}–{per}max_ms:.3f}}) | "
                 f"{one}exchange_us}} / {per}exchange_us}} | {one}bound_us:.4g}} / {per}bound_us:.4g}} |")
    # (bound_us as the program prints it, 4 digits; the csv placeholder reads numbers only: the checks, all "ok" or the script exits 1, are in forms.csv)
    return ("GPUS, CUDA, NCCL, DATE, commit `COMMIT` (fill from gpu.txt and commit.txt); each row two runs of "
            f"this program one after the other, every check ok (raw: [{rel.parent.name}/](../../{rel.parent}/)):\n\n"
            "| n `int32` | one process, both GPUs: median (min–max) | one process per GPU: median (min–max) | "
            "exchange µs (one process / per GPU) | bound µs (one process / per GPU) |\n"
            "|---|---:|---:|---:|---:|\n" + "\n".join(t) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--build", default="build-gpu")
    ap.add_argument("--sizes", default="30,32")
    ap.add_argument("--budget-ms", default="300")
    ap.add_argument("--parse-only", action="store_true")
    ap.add_argument("--screen-template", action="store_true")
    a = ap.parse_args()
    out = Path(a.out)
    if a.screen_template:
        print(screen_template(out), end="")
        return 0
    sizes = [int(s) for s in a.sizes.split(",")]
    failed = 0
    if not a.parse_only:
        out.mkdir(parents=True, exist_ok=True)
        program = Path(a.build) / "chapters" / CHAPTER / CHAPTER
        if not program.is_file():
            raise SystemExit(f"measure_forms.py: {program} is not built (ninja -C {a.build})")
        for name, cmd in (("gpu.txt", "nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader"),
                          ("topo.txt", "nvidia-smi topo -m"), ("commit.txt", "git rev-parse HEAD")):
            (out / name).write_text(subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout)
        log = open(out / "commands.txt", "a")
        for size in sizes:
            for form, _, _ in FORMS:
                args = (["--gpus", "2"] if form == "one-process" else ["--ranks", "2"])
                cmd = [str(program), "--size", f"2^{size}", *args, "--budget-ms", a.budget_ms]
                t0 = time.time()
                with open(out / f"{form}-2p{size}.txt", "w") as f:
                    rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode
                line = f"rc={rc} {time.time() - t0:.0f} s: {' '.join(cmd)}"
                print(line, file=sys.stderr)
                print(line, file=log)
                failed += rc != 0
        log.close()
    rows = []
    for size in sizes:
        for form, row, _ in FORMS:
            path = out / f"{form}-2p{size}.txt"
            if path.is_file():
                rows.append(parse(path, form, row, size))
    with open(out / "forms.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    (out / "forms.md").write_text(markdown(rows))
    print(markdown(rows), end="")
    failed += sum(r["check"] != "ok" for r in rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
