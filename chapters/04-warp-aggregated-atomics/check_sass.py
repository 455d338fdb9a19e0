#!/usr/bin/env python3
"""Host test for chapter 04 (no GPU needed): what the filter kernels' atomics became in SASS.

usage: check_sass.py CHAPTER_BINARY NVCC

Runs `cuobjdump -sass` on the chapter program (cuobjdump from $CUOBJDUMP, next to nvcc, or on PATH;
exit 77, meson's SKIP, where none works) and, for every architecture in the binary:
  asserts  the hand-aggregated kernels (cooperative groups and manual) hold a warp vote (the manual one a
           ballot on its predicate), a shuffle, and one global atomic instruction per code path: one, or
           two where nvcc wraps the leader's add (an increment it cannot prove uniform) in its own
           aggregation, which has a one-lane path and a warp-scan path (seen on sm_75..sm_89 with nvcc 13.0);
           the shared-memory kernel holds shared atomics (ATOMS) and global ones; every filter kernel holds
           a global atomic;
  reports  whether nvcc aggregated the naive kernel itself (a VOTE.ANY giving the active lanes, a POPC
           counting them, one ATOMG by one lane, a SHFL.IDX broadcasting its result) or left one atomic
           per lane, and the same for the per-lane kernel, which exists to defeat that rewrite.
"""
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tutkit.sass import find_cuobjdump, sass_functions  # noqa: E402

GLOBAL_ATOMIC = r"\b(?:ATOMG|REDG|ATOM|RED)\.E\."  # ATOMG/REDG (sm_90), ATOMG/RED (sm_75..89)
SHARED_ATOMIC = r"\bATOMS\."
VOTE = r"\bVOTEU?\.ANY\b"  # __ballot_sync / __activemask, or the compiler's own vote
BALLOT = r"\bVOTE\.ANY R\d+, PT, !?P\d\b"  # a vote on a predicate into a register: __ballot_sync(mask, p)
POPC = r"\bU?POPC\b"
SHUFFLE = r"\bSHFL\.IDX\b"

failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def count(pattern, body):
    return len(re.findall(pattern, body))


def kernel(functions, arch, needle):
    # Kernel names end in their parameter list; match "<length><name>E" of the mangled name exactly,
    # so that filter_global_atomic does not also match filter_global_atomic_per_lane.
    token = f"{len(needle)}{needle}E"
    names = [n for (a, n) in functions if a == arch and token in n]
    check(len(names) == 1, f"{arch}: exactly one kernel named {needle} (found {len(names)})")
    return functions[(arch, names[0])] if len(names) == 1 else ""


def summary(body):
    return (f"global atomics x{count(GLOBAL_ATOMIC, body)}, shared atomics x{count(SHARED_ATOMIC, body)}, "
            f"VOTE x{count(VOTE, body)}, POPC x{count(POPC, body)}, SHFL.IDX x{count(SHUFFLE, body)}")


def aggregated(body):
    """The compiler's (or our) warp-aggregation pattern: a vote, a popc, one atomic per code path."""
    return count(VOTE, body) >= 1 and count(POPC, body) >= 1 and 1 <= count(GLOBAL_ATOMIC, body) <= 2


def atomics(body):
    return "; ".join(re.sub(r"\s+", " ", m.group(0)).strip()
                     for m in re.finditer(r"\S*\s*" + GLOBAL_ATOMIC + r"[^;]*", body))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, nvcc = sys.argv[1:]
    cuobjdump = find_cuobjdump(nvcc)
    if not cuobjdump:
        print("SKIP: cuobjdump not found (set CUOBJDUMP, or install it next to nvcc)")
        return 77
    run = subprocess.run([cuobjdump, "-sass", binary], capture_output=True, text=True)
    if run.returncode != 0:  # e.g. nvdisasm, which cuobjdump calls, is missing
        print(f"SKIP: '{cuobjdump} -sass' failed: {run.stderr.strip()}")
        return 77
    functions = sass_functions(run.stdout)
    archs = sorted({a for a, _ in functions})
    check(len(archs) > 0, f"cuobjdump found code for {', '.join(archs) or 'no architecture'}")

    for arch in archs:
        for name in ("filter_warp_aggregated_cg", "filter_warp_aggregated_manual"):
            body = kernel(functions, arch, name)
            print(f"      {arch} {name}: {summary(body)}\n        atomics: {atomics(body)}")
            check(count(VOTE, body) >= 1, f"{arch} {name}: has a warp vote")
            if name.endswith("manual"):
                check(count(BALLOT, body) >= 1, f"{arch} {name}: has a ballot on the predicate")
            check(1 <= count(GLOBAL_ATOMIC, body) <= 2,
                  f"{arch} {name}: one global atomic instruction per code path (1 or 2 in all)")
            check(count(SHUFFLE, body) >= 1, f"{arch} {name}: broadcasts the warp's base with a shuffle")

        body = kernel(functions, arch, "filter_shared_atomic")
        print(f"      {arch} filter_shared_atomic: {summary(body)}")
        check(count(SHARED_ATOMIC, body) >= 1 and count(GLOBAL_ATOMIC, body) >= 1,
              f"{arch} filter_shared_atomic: shared atomics and global atomics")

        for name in ("filter_global_atomic", "filter_global_atomic_per_lane"):
            body = kernel(functions, arch, name)
            check(count(GLOBAL_ATOMIC, body) >= 1, f"{arch} {name}: has a global atomic")
            verdict = ("AGGREGATED by the compiler (vote + popc + one atomic per warp)" if aggregated(body)
                       else "one atomic per selected lane (not aggregated)")
            print(f"      {arch} {name}: {summary(body)} -> {verdict}")
        if aggregated(body):  # the per-lane kernel, the last one above
            print(f"WARNING {arch}: nvcc now aggregates filter_global_atomic_per_lane too, so the chapter no "
                  "longer has an unaggregated baseline (see warp_aggregation.cuh)")

    print(f"{len(failures)} failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
