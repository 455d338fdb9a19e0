#!/usr/bin/env python3
"""Host test for chapter 03 (no GPU needed): the copy kernels use the access widths they claim.

usage: check_instructions.py KERNELS.ptx CHAPTER_BINARY NVCC

PTX (always): the int4 kernel has ld.global...v4 and st.global...v4, the int2 kernel .v2 (and no .v4),
the scalar kernel no vector access at all. SASS (where cuobjdump is found: $CUOBJDUMP, next to nvcc, or
on PATH): the same in machine code, LDG.E.128/STG.E.128 and LDG.E.64/STG.E.64, for every architecture
the binary holds. Prints what it found; exits 1 on a failed check.
"""
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tutkit.sass import find_cuobjdump, sass_functions  # noqa: E402

KERNELS = {"scalar": "copy_int32_kernel", "int2": "copy_int2_kernel", "int4": "copy_int4_kernel"}
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def ptx_entries(text):
    """{mangled name: body} for every .entry of a PTX file."""
    entries = {}
    for m in re.finditer(r"\.entry\s+(\S+)\s*\(", text):
        start = text.index("{", m.end())
        end = text.index("\n}", start)  # an entry's body closes with a '}' in column 0
        entries[m.group(1)] = text[start:end]
    return entries


def find_one(functions, needle, where):
    names = [name for name in functions if needle in name]
    check(len(names) == 1, f"{where}: exactly one function named *{needle}* (found {len(names)})")
    return functions[names[0]] if len(names) == 1 else ""


def count(pattern, body):
    return len(re.findall(pattern, body))


def check_ptx(path):
    with open(path) as f:
        entries = ptx_entries(f.read())
    for variant, kernel in KERNELS.items():
        body = find_one(entries, kernel, "PTX")
        ld = {w: count(rf"\bld\.global\S*\.v{w}\.", body) for w in (2, 4)}
        st = {w: count(rf"\bst\.global\S*\.v{w}\.", body) for w in (2, 4)}
        print(f"PTX   {kernel}: ld.global.v2 x{ld[2]}, ld.global.v4 x{ld[4]}, "
              f"st.global.v2 x{st[2]}, st.global.v4 x{st[4]}")
        if variant == "scalar":
            check(sum(ld.values()) + sum(st.values()) == 0, f"PTX {kernel}: no vector load or store")
        else:
            w, other = (4, 2) if variant == "int4" else (2, 4)
            check(ld[w] >= 1 and st[w] >= 1, f"PTX {kernel}: ld.global.v{w} and st.global.v{w} present")
            check(ld[other] + st[other] == 0, f"PTX {kernel}: no .v{other} access")


def check_sass(binary, cuobjdump):
    run = subprocess.run([cuobjdump, "-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:  # e.g. nvdisasm, which cuobjdump calls, is missing: a tool problem, not ours
        print(f"note: '{cuobjdump} -sass' failed, SASS check skipped: {run.stderr.strip()}")
        return
    functions = sass_functions(run.stdout)
    archs = sorted({arch for arch, _ in functions})
    check(len(archs) > 0, f"SASS: cuobjdump found code for {', '.join(archs) or 'no architecture'}")
    for arch in archs:
        in_arch = {name: body for (a, name), body in functions.items() if a == arch}
        for variant, kernel in KERNELS.items():
            body = find_one(in_arch, kernel, f"SASS {arch}")
            ldg = {w: count(rf"\bLDG\.E\.{w}\b", body) for w in (64, 128)}
            stg = {w: count(rf"\bSTG\.E\.{w}\b", body) for w in (64, 128)}
            print(f"SASS  {arch} {kernel}: LDG.E.64 x{ldg[64]}, LDG.E.128 x{ldg[128]}, "
                  f"STG.E.64 x{stg[64]}, STG.E.128 x{stg[128]}")
            if variant == "scalar":
                check(sum(ldg.values()) + sum(stg.values()) == 0, f"SASS {arch} {kernel}: only 32-bit LDG/STG")
            else:
                w = 128 if variant == "int4" else 64
                check(ldg[w] >= 1 and stg[w] >= 1, f"SASS {arch} {kernel}: LDG.E.{w} and STG.E.{w} present")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    ptx, binary, nvcc = sys.argv[1:]
    check_ptx(ptx)
    cuobjdump = find_cuobjdump(nvcc)
    if cuobjdump:
        check_sass(binary, cuobjdump)
    else:
        print("note: cuobjdump not found (set CUOBJDUMP, or install it next to nvcc): SASS check skipped")
    print(f"{len(failures)} failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
