"""tools/sanitize: run the GPU tests under each compute-sanitizer tool (the meson test setups
memcheck, racecheck, synccheck and initcheck) and print one summary line per tool."""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from .common import (INSTALL_HINTS, REPO_ROOT, ArgumentParser, ToolError, find_program, meson_command, note,
                     parse_list, warn)
from .testlog import parse_testlog
from .tour import ensure_built, split_passthrough

TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]


def parse_meson_summary(text):
    """The same counts from meson test's console summary ('Ok: 3', 'Fail: 1', ...), or None."""
    def num(label):
        m = re.search(rf"^{label}:\s+(\d+)", text, re.M)
        return int(m.group(1)) if m else None
    ok, fail = num("Ok"), num("Fail")
    if ok is None or fail is None:
        return None
    passed = ok + (num("Expected Fail") or 0)
    failed = fail + (num("Unexpected Pass") or 0) + (num("Timeout") or 0)
    skipped = num("Skipped") or 0
    names = [f"{m.group(1)} ({m.group(2)})" for m in
             re.finditer(r"^\s*\d+/\d+\s+(?:\S+ / )?(\S+)\s+(FAIL|TIMEOUT|ERROR|UNEXPECTEDPASS)\b", text, re.M)]
    return {"passed": passed, "failed": failed, "skipped": skipped, "total": passed + failed + skipped,
            "failed_names": names, "memory_skips": []}


def summary_line(tool, counts):
    if counts is None:
        return f"{tool:<10} no results (meson test did not run the tests; see its output above)"
    line = f"{tool:<10} {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    if counts["failed_names"]:
        line += "; failed: " + ", ".join(counts["failed_names"])
    elif counts["total"] and counts["skipped"] == counts["total"]:
        line += " (all skipped: is there a GPU?)"
    elif counts["total"] == 0:
        line += " (no tests in the selected suites)"
    return line


def run_meson_test(meson, build, tool, suites, jobs, rebuild, extra, quiet):
    cmd = [*meson, "test", "-C", str(build), "--setup", tool]
    for s in suites:
        cmd += ["--suite", s]
    # A chapter's suite holds its host tests too; compute-sanitizer fails a program that makes no CUDA call
    # ("terminated before first instrumented API call"), so they never run under it.
    cmd += ["--no-suite", "host"]
    if jobs:
        cmd += ["--num-processes", str(jobs)]
    if not rebuild:
        cmd.append("--no-rebuild")
    cmd += extra
    note("running: " + " ".join(["meson"] + cmd[len(meson):]))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if not quiet:
            sys.stderr.write(line)
    proc.wait()
    return proc.returncode, "".join(lines)


def read_counts(build, tool, since, output):
    log = Path(build) / "meson-logs" / f"testlog-{tool}.json"
    if log.is_file() and log.stat().st_mtime >= since - 1:
        return parse_testlog(log.read_text(encoding="utf-8", errors="replace"))
    return parse_meson_summary(output)


def main(argv):
    argv, extra = split_passthrough(argv)
    p = ArgumentParser(
        prog="sanitize",
        description="Runs `meson test -C <build> --setup <tool> --suite gpu` for each compute-sanitizer tool "
                    "(memcheck, racecheck, synccheck, initcheck) and prints one summary line per tool. The test "
                    "setups exist when meson found compute-sanitizer at configure time; they set TUT_SANITIZER "
                    "so that the tests cap their sizes.",
        epilog="Options after `--` go to `meson test` unchanged. Exit status: 0 when no test failed, 1 when one "
               "did, 2 on bad usage or a missing prerequisite.\n"
               "Example: tools/sanitize --tools racecheck --suite 09-scan-zero-padding")
    p.add_argument("--build", default=str(REPO_ROOT / "build"), metavar="DIR",
                   help="build directory (default: build/ in the repository; configured if missing)")
    p.add_argument("--tools", default=",".join(TOOLS), metavar="LIST",
                   help="comma-separated compute-sanitizer tools (default: all four)")
    p.add_argument("--suite", action="append", metavar="NAME",
                   help="meson test suite (repeatable; default gpu), e.g. a chapter folder name")
    p.add_argument("-j", "--num-processes", type=int, metavar="N",
                   help="tests run at once (meson's default: one per CPU core)")
    p.add_argument("--no-rebuild", action="store_true", help="do not let meson rebuild before testing")
    p.add_argument("--setup-arg", action="append", default=[], metavar="ARG",
                   help="extra `meson setup` argument if the build directory must be configured")
    p.add_argument("--quiet", action="store_true", help="do not echo meson's output; print only the summary")
    args = p.parse_args(argv)

    tools = parse_list(args.tools, "--tools")
    for t in tools:
        if t not in TOOLS:
            raise ToolError(f"unknown compute-sanitizer tool '{t}' (known: {', '.join(TOOLS)})")
    if args.num_processes is not None and args.num_processes < 1:
        raise ToolError("--num-processes must be at least 1")
    suites = args.suite or ["gpu"]
    meson = meson_command()
    if not meson:
        raise ToolError(f"meson not found ({INSTALL_HINTS['meson']})")
    sanitizer = find_program("compute-sanitizer", cuda=True)
    if not sanitizer:
        raise ToolError("compute-sanitizer not found, so the build has no sanitizer test setups: "
                        f"{INSTALL_HINTS['compute-sanitizer']}, then run `meson setup --reconfigure {args.build}`")
    if not find_program("compute-sanitizer"):
        # meson's find_program() looks on PATH: let it see the toolkit's copy when it (re)configures.
        os.environ["PATH"] = os.environ.get("PATH", "") + os.pathsep + str(Path(sanitizer).parent)
        note(f"compute-sanitizer is not on PATH; using {sanitizer}")

    build = Path(args.build)
    if not (build / "build.ninja").is_file():
        ensure_built(build, None, args.setup_arg)
    reconfigured = False
    results = []
    rebuild = not args.no_rebuild
    for tool in tools:
        while True:
            start = time.time()
            rc, output = run_meson_test(meson, build, tool, suites, args.num_processes, rebuild, extra, args.quiet)
            if re.search(rf"[Tt]est setup '?{tool}'? not found", output) and not reconfigured:
                note(f"the build has no '{tool}' test setup (configured before compute-sanitizer was found); "
                     f"reconfiguring: meson setup --reconfigure {build}")
                r = subprocess.run([*meson, "setup", "--reconfigure", str(build), *args.setup_arg], cwd=REPO_ROOT,
                                   stdout=sys.stderr, stderr=sys.stderr)
                if r.returncode != 0:
                    raise ToolError(f"`meson setup --reconfigure {build}` failed (see its output above)", status=1)
                reconfigured = True
                continue
            break
        if re.search(rf"[Tt]est setup '?{tool}'? not found", output):
            raise ToolError(f"the build in {build} has no '{tool}' test setup although compute-sanitizer is at "
                            f"{sanitizer}; check the top-level meson.build", status=1)
        rebuild = False  # built once is enough
        counts = read_counts(build, tool, start, output)
        if counts is None and rc != 0:
            last = [l for l in output.splitlines() if l.strip()]
            warn(f"meson test --setup {tool} failed: {last[-1] if last else f'exit status {rc}'}")
        results.append((tool, counts, rc))

    print("compute-sanitizer over the suites " + ", ".join(suites) + ":")
    for tool, counts, _ in results:
        print(summary_line(tool, counts))
    bad = any(c is None or c["failed"] > 0 for _, c, _ in results) or \
        any(rc != 0 and c is not None and c["failed"] == 0 and c["total"] == 0 for _, c, rc in results)
    return 1 if bad else 0
