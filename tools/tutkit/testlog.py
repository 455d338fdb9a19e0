"""meson's JSON test log (meson-logs/testlog*.json, one JSON object per test) read into counts, and the
summary that tools/check prints from it: the cases skipped for lack of memory, the times and
`tests: N passed, N failed, N skipped`."""

import json

from .common import ToolError

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}
# Anything else (FAIL, TIMEOUT, ERROR, UNEXPECTEDPASS, INTERRUPT) counts as a failure.

# A GPU test case that did not fit prints "note: <what> skipped: needs ..." (tut::testing::claim_memory).
MEMORY_SKIP_PREFIX = "note: "
MEMORY_SKIP_MARK = " skipped: needs "
# memory_shortfall names the margin where the case alone would fit (common/test_locks.hpp).
MARGIN_MARK = " kept for the "


def short_test_name(name):
    """The test's own name from the one meson's log gives it: meson 1.0 writes
    'cuda-optimisation-tutorial:gpu+05-scan-baseline / 05-scan-baseline', meson 1.12
    'gpu+05-scan-baseline - cuda-optimisation-tutorial:05-scan-baseline'; both -> '05-scan-baseline'."""
    return name.split(" / ")[-1].split(":")[-1]


def read_testlog_records(path):
    """{short test name: the log's record (result, duration, stdout, ...)} of a JSON test log; {} when
    the log does not exist (nothing ran)."""
    records = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    record = json.loads(line)
                    records[short_test_name(record["name"])] = record
    except FileNotFoundError:
        pass
    return records


def parse_testlog(text):
    """Counts of a JSON test log: {"passed", "failed", "skipped", "total", "failed_names", "memory_skips"};
    memory_skips holds "<test name>: <what> skipped: needs ..." once per line a test printed."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "total": 0, "failed_names": [], "memory_skips": []}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            result = entry["result"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise ToolError(f"meson's test log line {i} is not a test result", status=1)
        counts["total"] += 1
        if result in PASSED:
            counts["passed"] += 1
        elif result in SKIPPED:
            counts["skipped"] += 1
        else:
            counts["failed"] += 1
            counts["failed_names"].append(f"{short_test_name(entry.get('name', '?'))} ({result})")
        for out in (entry.get("stdout") or "", entry.get("stderr") or ""):
            for l in out.splitlines():
                if l.startswith(MEMORY_SKIP_PREFIX) and MEMORY_SKIP_MARK in l:
                    skip = f"{short_test_name(entry.get('name', '?'))}: {l[len(MEMORY_SKIP_PREFIX):]}"
                    if skip not in counts["memory_skips"]:
                        counts["memory_skips"].append(skip)
    return counts


def check_summary(counts, build_s, test_s):
    """tools/check's closing lines; the last is `tests: N passed, N failed, N skipped`."""
    lines = []
    skips = sorted(counts["memory_skips"])
    if skips:
        lines.append(f"{len(skips)} test case(s) skipped for lack of memory on this machine "
                     "(the rest of each test ran):")
        lines += [f"  {s}" for s in skips]
        if any(MARGIN_MARK in s for s in skips):
            lines.append("  (a case that names memory kept for other GPU tests fits alone: "
                         "TUT_GPU_TEST_SLOTS=1 tools/check --suite gpu runs one GPU test at a time)")
    lines.append(f"build {build_s} s, tests {test_s} s")
    lines.append("tests: {passed} passed, {failed} failed, {skipped} skipped".format(**counts))
    return lines


def main(argv):
    """tools/check's summary: `python3 tools/tutkit/testlog.py TESTLOG.json BUILD_SECONDS TEST_SECONDS`
    (run as tools/check does, from tools/ as a module). A missing log counts nothing."""
    log, build_s, test_s = argv
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            counts = parse_testlog(f.read())
    except FileNotFoundError:
        counts = parse_testlog("")
    print("\n".join(check_summary(counts, build_s, test_s)))
    return 0
