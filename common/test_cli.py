#!/usr/bin/env python3
"""Runs a chapter program with bad command lines and checks the contract every chapter shares:
a one-line error on stderr and exit status 2; --help and --list work without a GPU; with no GPU,
a run prints one sentence and exits 1. With a GPU, a size that cannot fit exits 2."""
import os
import subprocess
import sys

prog = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([prog, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def expect_usage_error(*args):
    rc, out, err = run(*args)
    lines = [l for l in err.splitlines() if l.strip()]
    if rc != 2 or len(lines) != 1 or "error:" not in lines[0]:
        failures.append(f"{args}: expected exit 2 and one error line, got rc={rc} stderr={err!r}")


for bad in [("--size", "-1"), ("--size", "abc"), ("--size", "1.5"), ("--size", "2^64"), ("--size",),
            ("--bogus",), ("stray",), ("--reps", "0"), ("--reps", "x"), ("--warmup", "-1"),
            ("--seed", "-3"), ("--format", "xml"), ("--variant", "no-such-variant"), ("--variant", ""),
            ("--variant", "default,no-such-variant"),
            ("--no-check=yes",), ("--block", "7")]:
    expect_usage_error(*bad)

rc, out, _ = run("--help")
if rc != 0 or "--size" not in out or "--variant" not in out:
    failures.append(f"--help: rc={rc}")
rc, out, _ = run("--list")
if rc != 0 or len(out.splitlines()) < 2:
    failures.append(f"--list: rc={rc} out={out!r}")

has_gpu = subprocess.run(["sh", "-c", "nvidia-smi -L >/dev/null 2>&1"]).returncode == 0
if has_gpu:
    expect_usage_error("--size", "2^45")  # 128 Ti elements: does not fit in any device memory
else:
    rc, out, err = run("--size", "1024")
    lines = [l for l in err.splitlines() if l.strip()]
    if rc != 1 or len(lines) != 1 or "GPU" not in lines[0]:
        failures.append(f"no GPU: expected exit 1 and one line naming the GPU, got rc={rc} stderr={err!r}")

for f in failures:
    print("FAIL:", f)
print(f"{'ok' if not failures else 'FAILED'}: command-line contract of {os.path.basename(prog)}")
sys.exit(1 if failures else 0)
