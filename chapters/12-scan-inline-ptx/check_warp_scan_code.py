#!/usr/bin/env python3
"""Reads the code nvcc generates for the warp scans of chapters 11 and 12 and checks what chapter 12
claims: the inline-PTX warp scan guards each add with the shuffle's own predicate, so it has no
branch and no lane compare, while chapter 11's C++ loop (__shfl_up_sync + `if (lane >= d)`) throws
that predicate away and recomputes the guard from the lane index in every step.

  check_warp_scan_code.py ptx  warp_scan_probe.ptx               (needs only nvcc: no GPU)
  check_warp_scan_code.py sass CUOBJDUMP warp_scan_probe.cubin   (needs cuobjdump: no GPU)

What nvcc does with chapter 11's guard depends on its version: the article's (2021) emitted a
conditional branch per step (`@%p bra`); nvcc 13.0 emits a compare and a select (setp + selp, in SASS
ISETP + SEL). Either way it is two extra instructions per step, and both are accepted here; the
script prints which one it found. Exit status 0: all checks hold, 1: a check failed, 77: skipped.
"""
import re
import subprocess
import sys

STEPS = 5  # log2(32) Kogge-Stone steps
PROBE_11 = "probe_scan_warp_shuffle"
PROBE_12 = "probe_scan_warp_inline_ptx"
# Mangled-name fragments of the chapter kernels: tut::warp::scan_parts_kernel (common/warp_scan.cuh) with
# chapter 11's warp scan, and with chapter 12's (tut::warp::PredicatedWarpScan).
KERNEL_11 = "17scan_parts_kernelIN17scan_warp_shuffle15ShuffleWarpScan"
KERNEL_12 = "17scan_parts_kernelINS0_18PredicatedWarpScan"

failures = []


def check(cond, what):
    print(("  ok    " if cond else "  FAIL  ") + what)
    if not cond:
        failures.append(what)


# ---- PTX -----------------------------------------------------------------------------------------


def ptx_entries(text):
    """{entry name: [instruction, ...]} with comments, labels, directives and braces removed."""
    entries = {}
    for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)\s*\{(.*?)\n\}", text, re.S):
        instructions = []
        for line in m.group(3).splitlines():
            line = line.split("//")[0].strip().rstrip(";").strip()
            if not line or line in "{}" or line.startswith(".") or line.endswith(":"):
                continue
            instructions.append(" ".join(line.split()))
        entries[m.group(1)] = instructions
    return entries


def find_entry(entries, fragment):
    names = [n for n in entries if fragment in n]
    if len(names) != 1:
        raise SystemExit(f"expected one PTX entry containing {fragment!r}, found {names}")
    return entries[names[0]]


SHFL = re.compile(r"^shfl\.sync\.up\.b32 (\S+)\|(\S+), ")


def shuffles(instructions):
    """[(index, destination register, predicate register)] of every shfl.sync.up."""
    return [(i, m.group(1), m.group(2)) for i, ins in enumerate(instructions) if (m := SHFL.match(ins))]


def uses(ins, reg):
    return re.search(r"(?<![\w%])" + re.escape(reg) + r"(?!\w)", ins) is not None


def is_branch(ins):
    return re.match(r"^(@!?\S+ )?bra(\.uni)?\b", ins) is not None


def scan_steps(instructions):
    """Split the probe kernel's warp scan into its steps: each from one shuffle up to the next (the
    last one up to the store of the result)."""
    shfl = shuffles(instructions)
    end = next(i for i, ins in enumerate(instructions) if ins.startswith("st.global"))
    bounds = [s[0] for s in shfl] + [end]
    return shfl, [instructions[bounds[k] : bounds[k + 1]] for k in range(len(shfl))]


def check_ptx(path):
    entries = ptx_entries(open(path).read())
    probe11, probe12 = find_entry(entries, PROBE_11), find_entry(entries, PROBE_12)

    print(f"chapter 11 warp scan ({PROBE_11}):")
    shfl11, steps11 = scan_steps(probe11)
    check(len(shfl11) == STEPS, f"{STEPS} shfl.sync.up (found {len(shfl11)})")
    unused = all(not any(uses(ins, pred) for ins in probe11 if not SHFL.match(ins)) for _, _, pred in shfl11)
    check(unused, "the shuffles' own predicates are never read (the C++ intrinsic drops them)")
    guards = set()
    for k, step in enumerate(steps11):
        compares = [ins for ins in step if ins.startswith("setp.")]
        selects = [ins for ins in step if ins.startswith("selp.")]
        branches = [ins for ins in step if is_branch(ins) and ins.startswith("@")]
        check(len(compares) == 1 and (selects or branches),
              f"step {k + 1}: the lane guard is a compare ({len(compares)}) and a "
              f"select ({len(selects)}) or conditional branch ({len(branches)})")
        guards.add("branch" if branches else "select")
    print(f"  -> nvcc implements `if (lane >= d)` as a {' and a '.join(sorted(guards))} per step")
    for ins in steps11[1]:
        print("     " + ins)

    print(f"chapter 12 warp scan ({PROBE_12}):")
    shfl12, steps12 = scan_steps(probe12)
    check(len(shfl12) == STEPS, f"{STEPS} shfl.sync.up (found {len(shfl12)})")
    check(not any(is_branch(ins) for ins in probe12), "no bra anywhere in the kernel")
    for k, (i, dest, pred) in enumerate(shfl12):
        nxt = probe12[i + 1] if i + 1 < len(probe12) else ""
        check(nxt.startswith(f"@{pred} add.") and uses(nxt, dest),
              f"step {k + 1}: the shuffle is followed by an add guarded by its own predicate: {nxt!r}")
        check(not any(ins.startswith(("setp.", "selp.")) for ins in steps12[k]), f"step {k + 1}: no setp/selp")
    for ins in steps12[1]:
        print("     " + ins)
    n11, n12 = sum(map(len, steps11)), sum(map(len, steps12))
    check(n12 < n11, f"fewer PTX instructions in the warp scan: {n12} (chapter 12) < {n11} (chapter 11)")

    print("the chapters' scan_parts_kernel (two warp scans each: the warp's values, then the warp totals):")
    k11, k12 = find_entry(entries, KERNEL_11), find_entry(entries, KERNEL_12)
    s11, s12 = shuffles(k11), shuffles(k12)
    check(len(s11) == 2 * STEPS and len(s12) == 2 * STEPS, f"{2 * STEPS} shuffles in each ({len(s11)}, {len(s12)})")
    check(all(k12[i + 1].startswith(f"@{pred} add.") for i, _, pred in s12),
          "chapter 12: every shuffle's predicate guards the add right after it")
    check(all(not any(uses(ins, pred) for ins in k11 if not SHFL.match(ins)) for _, _, pred in s11),
          "chapter 11: no shuffle predicate is used")
    b11, b12 = sum(map(is_branch, k11)), sum(map(is_branch, k12))
    check(b12 <= b11, f"chapter 12 has no more branches than chapter 11 ({b12} <= {b11})")
    print(f"  (branches left in both kernels belong to the part loop, `if (i < n)`, `if (warp == 0)`, ...)")


# ---- SASS ----------------------------------------------------------------------------------------


def sass_functions(text):
    """{function name: [instruction, ...]} up to and including EXIT (what follows is padding: a
    `BRA` to itself and NOPs)."""
    functions, name, body = {}, None, []
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            name, body = m.group(1), []
            functions[name] = body
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
        if m and name and not (body and body[-1].startswith("EXIT")):
            body.append(" ".join(m.group(1).split()))
    return functions


def check_sass(cuobjdump, cubin):
    if not cuobjdump:
        print("cuobjdump not found: SASS check skipped")
        return 77
    text = subprocess.run([cuobjdump, "-sass", cubin], check=True, capture_output=True, text=True).stdout
    functions = sass_functions(text)
    f11, f12 = functions[PROBE_11], functions[PROBE_12]
    print(f"chapter 11 warp scan ({PROBE_11}), SASS:")
    print("\n".join("     " + ins for ins in f11))
    shfl11 = [ins for ins in f11 if ins.startswith("SHFL.UP")]
    check(len(shfl11) == STEPS, f"{STEPS} SHFL.UP (found {len(shfl11)})")
    check(all(ins.startswith("SHFL.UP PT,") for ins in shfl11), "their predicate output is discarded (PT)")
    guard = [ins for ins in f11 if re.match(r"(@!?P\d )?(SEL|ISETP|BRA|LOP3\.LUT P)", ins)]
    check(len(guard) >= STEPS, f"the lane guard costs compare/select/branch instructions ({len(guard)})")

    print(f"chapter 12 warp scan ({PROBE_12}), SASS:")
    print("\n".join("     " + ins for ins in f12))
    shfl12 = [(i, ins) for i, ins in enumerate(f12) if ins.startswith("SHFL.UP")]
    check(len(shfl12) == STEPS, f"{STEPS} SHFL.UP (found {len(shfl12)})")
    check(not any("BRA" in ins for ins in f12), "no BRA before EXIT")
    check(not any(re.match(r"(@!?P\d )?(SEL|ISETP)", ins) for ins in f12), "no ISETP, no SEL")
    bounds = [i for i, _ in shfl12] + [len(f12)]
    for k, (i, ins) in enumerate(shfl12):
        pred = ins.split()[1].rstrip(",")
        # The add is IADD3 or, where ptxas uses the multiply-add unit for it (sm_75), IMAD.IADD.
        adds = [x for x in f12[i + 1 : bounds[k + 1]] if re.match(rf"@{pred} (IADD|IMAD\.IADD)", x)]
        check(pred != "PT" and len(adds) == 1, f"{ins!r} sets {pred}, which guards the add {adds}")
    check(len(f12) < len(f11), f"fewer SASS instructions: {len(f12)} (chapter 12) < {len(f11)} (chapter 11)")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "ptx":
        check_ptx(argv[2])
    elif len(argv) == 4 and argv[1] == "sass":
        if check_sass(argv[2], argv[3]) == 77:
            return 77
    else:
        print(__doc__)
        return 2
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
