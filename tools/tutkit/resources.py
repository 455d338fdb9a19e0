#!/usr/bin/env python3
"""The registers, stack, shared and local memory of every kernel in a build's chapter objects, from
`cuobjdump --dump-resource-usage` (what ptxas gave each kernel of the build's sm_XX code), written as a committed
results file that the READMEs' register counts are generated from instead of typed:

  python3 tools/tutkit/resources.py BUILD_DIR OUT.txt CHAPTER...   # e.g. 18-scan-any-type-copy-bound 36-fft-...

BUILD_DIR is a meson build configured with -Dgpu_archs=90 -Dptx=false (any archs work: every sm_XX is listed);
only the chapters' compiled objects are read (build them first, e.g. `ninja -C BUILD_DIR
chapters/36-fft-one-block-large/36-fft-one-block-large.p/main.cu.o`). The file holds '#' lines (how it was
made) and one tab-separated row per chapter, object, arch and kernel: the demangled name and REG, STACK, SHARED
(static bytes; dynamic shared memory is the launch's), LOCAL (bytes per thread: local arrays and spills).
`load(path)` reads it back; `registers(rows, chapter, pattern)` finds one kernel's count (exactly one must match).
cuobjdump is $CUOBJDUMP, the one next to nvcc, or the one on PATH (sass.find_cuobjdump)."""
import datetime
import pathlib
import re
import shutil
import subprocess
import sys

try:
    from . import sass
except ImportError:  # run as a script
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
    from tutkit import sass

FIELDS = ("REG", "STACK", "SHARED", "LOCAL")
COLUMNS = ("chapter", "object", "arch") + ("kernel",) + tuple(f.lower() for f in FIELDS)


def parse(text):
    """[(arch, mangled name, {REG: int, ...})] from `cuobjdump --dump-resource-usage` output."""
    out, arch, name = [], None, None
    for line in text.splitlines():
        m = re.match(r"\s*arch = (sm_\d+\w*)", line)
        if m:
            arch = m.group(1)
            continue
        m = re.match(r"\s*Function (\S+):\s*$", line)
        if m:
            name = m.group(1)
            continue
        if name and re.match(r"\s*REG:", line):
            values = dict(re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line))
            out.append((arch, name, {f: int(values[f]) for f in FIELDS}))
            name = None
    return out


def demangle(names):
    """The demangled names (c++filt, one call), or the names themselves where there is no c++filt."""
    tool = shutil.which("c++filt")
    if not tool or not names:
        return list(names)
    done = subprocess.run([tool], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


def tool_version(cmd):
    done = subprocess.run(cmd + ["--version"], capture_output=True, text=True)
    return next((l.strip() for l in done.stdout.splitlines() if "release" in l), "?")


def collect(build, chapters, cuobjdump):
    rows = []
    for chapter in chapters:
        objects = sorted((build / "chapters" / chapter).glob("**/*.o"))
        if not objects:
            raise SystemExit(f"resources.py: no objects of chapter {chapter} under {build} (build them first)")
        for obj in objects:
            done = subprocess.run([cuobjdump, "--dump-resource-usage", str(obj)], capture_output=True, text=True)
            if done.returncode != 0:
                continue  # a host-only object: no device code
            found = parse(done.stdout)
            for (arch, _, usage), name in zip(found, demangle([n for _, n, _ in found])):
                rows.append({"chapter": chapter, "object": str(obj.relative_to(build / "chapters" / chapter)),
                             "arch": arch, "kernel": name, **{f.lower(): usage[f] for f in FIELDS}})
    return rows


def write(path, rows, header):
    lines = [f"# {h}" for h in header] + ["\t".join(COLUMNS)]
    # One row per kernel and arch: the same kernel compiled into a test and a program object appears once.
    seen = set()
    for r in sorted(rows, key=lambda r: (r["chapter"], r["kernel"], r["arch"], r["object"])):
        key = (r["chapter"], r["arch"], r["kernel"])
        if key in seen:
            continue
        seen.add(key)
        lines.append("\t".join(str(r[c]) for c in COLUMNS))
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def load(path):
    """The rows of a file write() made: [{chapter, object, arch, kernel, reg, stack, shared, local}] (ints)."""
    lines = [l for l in pathlib.Path(path).read_text().splitlines() if l and not l.startswith("#")]
    head = lines[0].split("\t")
    rows = []
    for l in lines[1:]:
        r = dict(zip(head, l.split("\t")))
        for f in FIELDS:
            r[f.lower()] = int(r[f.lower()])
        rows.append(r)
    return rows


def header(path):
    """The '#' lines of a file write() made, without the '# '."""
    return [l[2:] for l in pathlib.Path(path).read_text().splitlines() if l.startswith("# ")]


def find(rows, chapter, pattern, arch="sm_90"):
    """The one row of CHAPTER's kernels on ARCH whose demangled name contains PATTERN (a plain substring)."""
    hits = [r for r in rows if r["chapter"] == chapter and r["arch"] == arch and pattern in r["kernel"]]
    if len(hits) != 1:
        raise KeyError(f"{len(hits)} kernels of {chapter} ({arch}) match {pattern!r}")
    return hits[0]


def registers(rows, chapter, pattern, arch="sm_90"):
    return find(rows, chapter, pattern, arch)["reg"]


def main(argv):
    if len(argv) < 3 or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build, out, chapters = pathlib.Path(argv[0]), pathlib.Path(argv[1]), argv[2:]
    nvcc = shutil.which("nvcc") or "nvcc"
    cuobjdump = sass.find_cuobjdump(nvcc)
    if not cuobjdump:
        print("resources.py: no cuobjdump ($CUOBJDUMP, next to nvcc, or on PATH)", file=sys.stderr)
        return 2
    options = (build / "meson-info" / "intro-buildoptions.json")
    archs = "?"
    if options.is_file():
        import json
        for o in json.loads(options.read_text()):
            if o["name"] in ("gpu_archs",):
                archs = ",".join(map(str, o["value"])) if isinstance(o["value"], list) else str(o["value"])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=pathlib.Path(__file__).resolve().parent).stdout.strip() or "?"
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "chapters", "common"], capture_output=True,
                           text=True, cwd=pathlib.Path(__file__).resolve().parent).stdout.strip()
    head = [f"Kernel resource usage, `cuobjdump --dump-resource-usage` ({tool_version([cuobjdump])}) on the objects "
            f"of an nvcc build ({tool_version([nvcc])}), gpu_archs={archs}",
            f"commit {commit}{' (working tree)' if dirty else ''}, {datetime.date.today().isoformat()}, "
            f"made by tools/tutkit/resources.py",
            "REG: registers per thread; STACK, LOCAL: bytes per thread; SHARED: static bytes per block (dynamic "
            "shared memory is set at launch)"]
    write(out, collect(build, chapters, cuobjdump), head)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
