#!/usr/bin/env python3
"""Host test of chapter 40's rank form, the program itself: bad rendezvous input ends every rank with one line
and a non-zero exit within the stated time, with or without GPUs (without, each rank's own problem is "no usable
GPU", and the rendezvous still ends every rank with one line).

    python3 test_rank_program.py PROGRAM
"""
import os
import subprocess
import sys
import tempfile
import time

PROGRAM = sys.argv[1]
QUICK = ["--size", "1025", "--reps", "2", "--warmup", "1", "--rank-timeout", "3"]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def start(rank, world, rendezvous, extra_env=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TUT_", "OMPI_COMM_WORLD_", "SLURM_")) and k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
    env.update({"TUT_RANK": str(rank), "TUT_WORLD_SIZE": str(world), "TUT_LOCAL_RANK": "0",
                "TUT_RENDEZVOUS": rendezvous})
    env.update(extra_env or {})
    return subprocess.Popen([PROGRAM, *QUICK], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(procs, limit):
    t0 = time.time()
    out = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=max(1, limit - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
            out.append((None, o, e))
            continue
        out.append((p.returncode, o, e))
    return out, time.time() - t0


def error_lines(text):
    return [l for l in text.splitlines() if ": error: " in l]


with tempfile.TemporaryDirectory() as d:
    # mismatched world sizes: both ranks end with one line each, exit 1
    results, took = finish([start(0, 2, f"file:{d}/w"), start(1, 3, f"file:{d}/w")], 20)
    for rank, (rc, o, e) in enumerate(results):
        check(rc == 1, f"mismatched world size: rank {rank} exits 1 (got {rc}; {e.strip()!r})")
        check(len(error_lines(e)) == 1, f"mismatched world size: rank {rank} prints one error line ({e.strip()!r})")
    check(took < 15, f"mismatched world size: both end within 15 s ({took:.1f} s)")
    # a rendezvous that never completes: rank 1 alone (TCP to a port nobody listens on, and a file)
    for address in ("tcp:127.0.0.1:1", f"file:{d}/alone"):
        results, took = finish([start(1, 2, address)], 20)
        rc, o, e = results[0]
        check(rc == 1, f"rank 1 alone at {address}: exits 1 (got {rc}; {e.strip()!r})")
        check(len(error_lines(e)) == 1, f"rank 1 alone at {address}: one error line ({e.strip()!r})")
        check(2.5 < took < 10, f"rank 1 alone at {address}: ends after its 3 s deadline ({took:.1f} s)")
    # a corrupt id file
    with open(f"{d}/corrupt", "w") as f:
        f.write("not a rendezvous record\n")
    results, took = finish([start(1, 2, f"file:{d}/corrupt")], 20)
    rc, o, e = results[0]
    check(rc == 1 and "corrupt" in e and len(error_lines(e)) == 1, f"corrupt rendezvous file: one line ({e.strip()!r})")
    # malformed variables: usage, exit 2, one line
    for env in ({"TUT_RANK": "2", "TUT_WORLD_SIZE": "2"}, {"TUT_RENDEZVOUS": "host:99999"},
                {"TUT_RANK": "x"}):
        results, _ = finish([start(0, 2, f"file:{d}/u", env)], 20)
        rc, o, e = results[0]
        check(rc == 2 and len(error_lines(e)) == 1, f"malformed {env}: exit 2, one line (got {rc}; {e.strip()!r})")
    # --ranks with --gpus: usage
    r = subprocess.run([PROGRAM, "--ranks", "2", "--gpus", "2"], capture_output=True, text=True, timeout=20)
    check(r.returncode == 2 and len(error_lines(r.stderr)) == 1, f"--ranks 2 --gpus 2: exit 2 ({r.stderr.strip()!r})")
    check(os.listdir(d) == ["corrupt"] or sorted(os.listdir(d)) == ["corrupt"],
          f"the rendezvous records are gone ({sorted(os.listdir(d))})")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
