"""tools/exercise: the tutorial's exercises: progress, checks, hints, the checker and the grader.

Students:
  tools/exercise list                    progress over every exercise: pass / FAIL / not tried
  tools/exercise show <id>               the statement of an exercise and the file to edit
  tools/exercise check <id>              build and run the exercise's test: pass, or the first mismatch
  tools/exercise hint <id>               the next hint (the count shown is kept in the build dir)
  tools/exercise measure <id>            run the exercise's measurement (its "measure" test case)

Instructors:
  tools/exercise verify                  the checker: every exercise and solution builds; on a GPU each
                                         exercise as shipped FAILS its test and each solution PASSES;
                                         manifest, hints, TODO markers, no stray files
  tools/exercise verify --static         only the parts that need no build and no GPU
  tools/exercise verify --ids 05,14      build and test only these exercises
  tools/exercise grade <folder> --junit out.xml --json out.json
                                         build a submission's files in place of the exercise files (in a
                                         separate copy and build dir), run the tests, write a report

<id> is an exercise id from exercises/manifest.json, or any unique prefix of one ("03", "03-int4").
The build dir is --build DIR, else $TUT_BUILD_DIR, else build/ in the repository; check, measure and
verify configure it (meson setup) when it does not exist yet.
"""

import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from . import bootstrap
from .common import REPO_ROOT, ArgumentParser, ToolError
from .testlog import read_testlog_records

REPO = REPO_ROOT
STATE_FILE = "exercise-state.json"
SANITIZERS = ("memcheck", "racecheck", "synccheck", "initcheck")
ID_RE = re.compile(r"^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*$")
CHAPTER_RE = re.compile(r"^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*$")
SKIP_EXIT = 77


# ---------------------------------------------------------------------------------------------------
# The manifest


def load_manifest(repo=None):
    path = (repo or REPO) / "exercises" / "manifest.json"
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ToolError(f"{path} not found")
    except json.JSONDecodeError as e:
        raise ToolError(f"{path} is not valid JSON: {e}")
    if not isinstance(data, dict) or not isinstance(data.get("exercises"), list):
        raise ToolError(f"{path}: expected an object with an 'exercises' list")
    return data


def entries(manifest):
    return manifest["exercises"]


def resolve_id(manifest, text):
    ids = [e["id"] for e in entries(manifest)]
    if text in ids:
        return next(e for e in entries(manifest) if e["id"] == text)
    matches = [e for e in entries(manifest) if e["id"].startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ToolError(f"no exercise '{text}'; the exercises are: {', '.join(ids)}")
    raise ToolError(f"'{text}' is ambiguous: {', '.join(e['id'] for e in matches)}")


def header_name(entry):
    return Path(entry["files"]["exercise"]).name


def test_kind(entry):
    """'host' for an entry whose test needs no GPU ("host": true: doctest's own main, suite 'host'), else 'gpu'."""
    return "host" if entry.get("host") is True else "gpu"


REQUIREMENTS = ("nccl",)  # what an entry may require; exercises/meson.build leaves it out of a build without it


# ---------------------------------------------------------------------------------------------------
# Build directory, meson and ninja


def default_build_dir():
    env = os.environ.get("TUT_BUILD_DIR")
    return Path(env) if env else REPO / "build"


def is_configured(build):
    return (build / "build.ninja").is_file() and (build / "meson-info").is_dir()


def ensure_tools(build):
    """nvcc, meson, ninja and doctest, as tools/check has them: meson and ninja installed into .venv/ and
    doctest fetched where missing (tutkit/bootstrap.py says what it did). PATH then holds all three
    programs, for this process and the meson, ninja and test runs it starts."""
    bootstrap.PREFIX = "tools/exercise"
    try:
        env = bootstrap.ensure(build)
    except bootstrap.BootstrapError as e:
        raise ToolError(str(e), status=2)
    os.environ["PATH"] = env["PATH"]


def ensure_configured(build, source=None, meson_args=()):
    ensure_tools(build)
    source = source or REPO
    if is_configured(build):
        return
    print(f"Configuring {build} (meson setup; once) ...", flush=True)
    cmd = ["meson", "setup", str(build), str(source), *meson_args]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-4000:])
        raise ToolError(f"meson setup failed: {' '.join(cmd)}", status=1)


def target_path(kind, entry):
    return f"exercises/{kind}-{entry['id']}-test"


def test_name(kind, entry):
    return entry["test"] if kind == "exercise" else entry["solution_test"]


def build_targets(build, targets, keep_going=False):
    """Runs ninja on the targets. Returns (ok, output)."""
    cmd = ["ninja", "-C", str(build)] + (["-k", "0"] if keep_going else []) + list(targets)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode == 0, r.stdout


def failed_targets(output):
    """{ninja output that FAILED: the compiler messages printed under it} from a `ninja -k 0` log."""
    failed, current = {}, None
    for line in output.splitlines():
        if line.startswith("FAILED: "):
            current = line[len("FAILED: "):].strip()
            failed[current] = []
        elif current is not None:
            if re.match(r"^\[\d+/\d+\] ", line) or line.startswith("ninja: "):
                current = None
            else:
                failed[current].append(line)
    return {k: "\n".join(v) for k, v in failed.items()}


def unit_problem(build, kind, entry):
    """The compiled unit of a test must be one #include of the test source (see exercises/meson.build);
    a unit that is all comment would build a test program with no test cases, which passes."""
    unit = build / f"{target_path(kind, entry)}.cu"
    try:
        lines = unit.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return f"{unit} is missing"
    want = re.compile(r'^#include ".*/' + re.escape(entry["files"]["test"]) + r'"$')
    if not any(want.match(l) for l in lines):
        return f"{unit} does not include {entry['files']['test']} on a line of its own"
    return None


def target_failure(build, target, failed):
    """None if `target` built, else the messages that say why."""
    for out, text in failed.items():
        if out == target or out.startswith(target + ".p/") or out.startswith(target + ".cu") or \
                out == "build.ninja":
            return compiler_messages(text) if text.strip() else f"ninja: {out} failed"
    if not (build / target).is_file():
        return f"{target} was not produced (see the build output above)"
    return None


def compiler_messages(output, limit=40):
    """The error and warning lines of a build log (and the lines that follow each), shortened."""
    # Progress lines say nothing once the build is over; keep what the compilers said.
    lines = [l for l in output.splitlines()
             if not re.match(r"^\[\d+/\d+\] ", l) and not l.startswith("ninja: Entering directory")]
    keep = []
    for i, line in enumerate(lines):
        if re.search(r"\b(error|warning)\b", line, re.IGNORECASE) and not line.startswith("ninja: build stopped"):
            keep.extend(lines[i:i + 3])
    if not keep:
        keep = lines[-limit:]
    out, seen = [], set()
    for line in keep:
        if line not in seen:
            seen.add(line)
            out.append(line)
    return "\n".join(out[:limit])


def warnings_in(output, paths):
    """Compiler warnings in a build log that name one of `paths` (exercise and solution files)."""
    found = []
    for line in output.splitlines():
        if "warning" in line.lower() and any(p in line for p in paths):
            found.append(line.strip())
    return found


def run_meson_tests(build, names, logbase, setup=None, num_processes=1, env=None):
    """Runs the named tests (already built). Returns {name: record} from meson's JSON log, and the
    console output. A record has result (OK, FAIL, SKIP, TIMEOUT, ERROR...), duration, stdout."""
    # The default test setup (exercises/meson.build) leaves suite 'exercises' out of a plain `meson test`,
    # and newer meson keeps it out even when the suite is named: so always name a setup without
    # exclusions, 'withexercises' unless a sanitizer setup is asked for.
    cmd = ["meson", "test", "-C", str(build), "--no-rebuild", "--logbase", logbase,
           "--num-processes", str(num_processes), "--print-errorlogs", "--suite", "exercises",
           "--suite", "solutions", "--setup", setup or "withexercises"]
    setup = setup or "withexercises"
    cmd += list(names)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env={**os.environ, **(env or {})})
    if setup and "nknown test setup" in r.stdout:
        return None, r.stdout  # the setup exists only where compute-sanitizer was found at configure time
    # meson names the log after the setup too: <logbase>-<setup>.json
    return read_testlog_records(build / "meson-logs" / f"{logbase}-{setup}.json"), r.stdout


def first_failure(stdout, limit=25):
    """The first failure block of doctest's output (from its separator line to the next one), or the
    last lines of the output when there is no doctest failure (a crash, an exception)."""
    lines = (stdout or "").splitlines()
    sep = re.compile(r"^={20,}$")
    for i, line in enumerate(lines):
        if re.search(r"\b(ERROR|FATAL ERROR)\b", line) or "THREW exception" in line:
            start = i
            while start > 0 and not sep.match(lines[start - 1]):
                start -= 1
            end = i + 1
            while end < len(lines) and not sep.match(lines[end]):
                end += 1
            block = [l for l in lines[start:end] if l.strip()]
            return "\n".join(block[:limit])
    tail = [l for l in lines if l.strip()][-limit:]
    return "\n".join(tail)


def sanitizer_report(stdout, limit=30):
    """compute-sanitizer's own lines ("========= ..."): the hazards it found, or the doctest failure."""
    lines = [l for l in (stdout or "").splitlines() if l.startswith("=========")]
    hazards = [l for l in lines if not re.match(r"^=+\s*(COMPUTE-SANITIZER|RACECHECK SUMMARY|ERROR SUMMARY)", l)]
    if hazards:
        return "\n".join(hazards[:limit])
    return first_failure(stdout, limit)


def mismatch_line(stdout):
    """One line for a report: the MISMATCH line, else the first error line."""
    for line in (stdout or "").splitlines():
        if "MISMATCH" in line or "diverges" in line or "computed twice" in line:
            line = line.strip()
            return line[len("logged:"):].strip() if line.startswith("logged:") else line
    for line in (stdout or "").splitlines():
        if re.search(r"\b(ERROR|FATAL ERROR)\b", line) or "exception" in line:
            return line.strip()
    return ""


def result_word(rec):
    if rec is None:
        return "not-run"
    return {"OK": "pass", "FAIL": "fail", "SKIP": "skip", "TIMEOUT": "timeout", "ERROR": "error"}.get(
        rec.get("result"), str(rec.get("result", "")).lower())


# ---------------------------------------------------------------------------------------------------
# State kept in the build dir: hints shown and the last result of each check


def load_state(build):
    try:
        with open(build / STATE_FILE, encoding="utf-8") as f:
            state = json.load(f)
    except (FileNotFoundError, json.JSONDecodeError):
        state = {}
    state.setdefault("hints_shown", {})
    state.setdefault("results", {})
    return state


def save_state(build, state):
    build.mkdir(parents=True, exist_ok=True)
    tmp = build / (STATE_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1, sort_keys=True)
    tmp.replace(build / STATE_FILE)


# ---------------------------------------------------------------------------------------------------
# Static checks (no build, no GPU)


def static_problems(repo=None, build=None):
    repo = repo or REPO
    problems = []
    try:
        manifest = load_manifest(repo)
    except ToolError as e:
        return [str(e)]
    listed = set()
    support = manifest.get("support_files", [])
    if not isinstance(support, list):
        problems.append("manifest: 'support_files' must be a list of paths")
        support = []
    for p in support:
        listed.add(p)
        if not (repo / p).is_file():
            problems.append(f"manifest: support file {p} does not exist")
    for required in ("exercises/manifest.json", "exercises/meson.build"):
        if required not in listed:
            problems.append(f"manifest: support_files must list {required}")

    seen_ids, seen_headers, last_chapter = set(), {}, ""
    es = entries(manifest)
    if not es:
        problems.append("manifest: no exercises")
    for n, e in enumerate(es):
        where = f"manifest entry {n + 1}"
        if not isinstance(e, dict):
            problems.append(f"{where}: not an object")
            continue
        eid = e.get("id", "")
        where = f"exercise {eid or n + 1}"
        missing = [k for k in ("id", "chapter", "title", "files", "test", "solution_test", "hints") if k not in e]
        if missing:
            problems.append(f"{where}: missing keys {', '.join(missing)}")
            continue
        if not ID_RE.match(eid):
            problems.append(f"{where}: id must look like NN-words-with-dashes")
        if eid in seen_ids:
            problems.append(f"{where}: duplicate id")
        seen_ids.add(eid)
        chapter = e["chapter"]
        if not CHAPTER_RE.match(chapter):
            problems.append(f"{where}: chapter '{chapter}' must be a chapter folder name like 05-scan-baseline")
        elif eid[:2] != chapter[:2]:
            problems.append(f"{where}: id must start with its chapter's number {chapter[:2]}")
        if chapter < last_chapter:
            problems.append(f"{where}: out of reading order (chapter {chapter} after {last_chapter})")
        last_chapter = max(last_chapter, chapter)
        if e["test"] != f"exercise-{eid}" or e["solution_test"] != f"solution-{eid}":
            problems.append(f"{where}: test names must be exercise-{eid} and solution-{eid}")
        hints = e["hints"]
        if not isinstance(hints, list) or len(hints) < 2 or not all(isinstance(h, str) and h.strip() for h in hints):
            problems.append(f"{where}: needs a list of at least two non-empty hints, gentle to explicit")
        for s in e.get("sanitizers", []):
            if s not in SANITIZERS:
                problems.append(f"{where}: unknown sanitizer '{s}' (one of {', '.join(SANITIZERS)})")
        if not isinstance(e.get("timeout", 300), int) or e.get("timeout", 300) <= 0:
            problems.append(f"{where}: timeout must be a positive integer (seconds)")
        if not isinstance(e.get("include_chapter", False), bool):
            problems.append(f"{where}: include_chapter must be true or false")
        if not isinstance(e.get("host", False), bool):
            problems.append(f"{where}: host must be true or false")
        dirs = e.get("include_dirs", [])
        if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
            problems.append(f"{where}: include_dirs must be a list of folders")
        else:
            for d in dirs:
                if not d.startswith("chapters/") or not (repo / d).is_dir():
                    problems.append(f"{where}: include_dirs: {d} is not a chapter folder of the repository")
                elif "files" in e and isinstance(e["files"], dict) and \
                        (repo / d / Path(str(e["files"].get("exercise", ""))).name).is_file():
                    problems.append(f"{where}: include_dirs: {d} holds a file named like the file under test, "
                                    "which could shadow the student's")
        reqs = e.get("requires", [])
        if not isinstance(reqs, list) or any(r not in REQUIREMENTS for r in reqs):
            problems.append(f"{where}: requires must be a list of {', '.join(REQUIREMENTS)}")

        files = e["files"]
        need = ("exercise", "solution", "statement", "test")
        if not isinstance(files, dict) or any(k not in files for k in need):
            problems.append(f"{where}: files must name {', '.join(need)}")
            continue
        for k in need:
            listed.add(files[k])
        expected_dirs = {"exercise": f"exercises/{eid}", "statement": f"exercises/{eid}",
                         "test": f"exercises/{eid}", "solution": f"solutions/{eid}"}
        for k, d in expected_dirs.items():
            if str(Path(files[k]).parent) != d:
                problems.append(f"{where}: {k} file {files[k]} must be in {d}/")
        if Path(files["exercise"]).name != Path(files["solution"]).name:
            problems.append(f"{where}: exercise and solution files must have the same name")
        header = Path(files["exercise"]).name
        if header in seen_headers:
            problems.append(f"{where}: file name {header} is also used by {seen_headers[header]} "
                            "(names must be unique: flat submission folders rely on it)")
        seen_headers[header] = eid
        texts = {}
        for k in need:
            p = repo / files[k]
            if not p.is_file():
                problems.append(f"{where}: {k} file {files[k]} does not exist")
            else:
                texts[k] = p.read_text(encoding="utf-8", errors="replace")
        if "exercise" in texts and "// TODO" not in texts["exercise"]:
            problems.append(f"{where}: {files['exercise']} has no '// TODO' marker")
        if "solution" in texts and "TODO" in texts["solution"]:
            problems.append(f"{where}: {files['solution']} still contains 'TODO'")
        if "exercise" in texts and "solution" in texts and texts["exercise"] == texts["solution"]:
            problems.append(f"{where}: exercise and solution files are identical")
        if "test" in texts:
            if f"#include <{header}>" not in texts["test"]:
                problems.append(f"{where}: {files['test']} must include the file under test as "
                                f"'#include <{header}>' (angle brackets: the include path decides which)")
            if f'#include "{header}"' in texts["test"]:
                problems.append(f"{where}: {files['test']} includes \"{header}\" with quotes, which finds "
                                "the exercise file next to the test even in the solution build")
        if "statement" in texts:
            st = texts["statement"]
            if chapter not in st:
                problems.append(f"{where}: the statement must name its chapter {chapter}")
            if not re.search(r"^#+\s*Questions", st, re.MULTILINE):
                problems.append(f"{where}: the statement needs a 'Questions' section (predict, measure, explain)")
            if f"tools/exercise check {eid}" not in st:
                problems.append(f"{where}: the statement must show 'tools/exercise check {eid}'")

    # No stray files: everything under exercises/ and solutions/ is in the manifest.
    for top in ("exercises", "solutions"):
        for p in sorted((repo / top).rglob("*")):
            if p.is_dir() or "__pycache__" in p.parts:
                continue
            rel = p.relative_to(repo).as_posix()
            if rel not in listed:
                problems.append(f"stray file {rel}: not in exercises/manifest.json (add it or remove it)")

    # The build's tests agree with the manifest (meson generates them from it: a mismatch means a
    # stale build or an edited meson.build).
    if build is not None:
        intro = Path(build) / "meson-info" / "intro-tests.json"
        if intro.is_file():
            tests = json.loads(intro.read_text(encoding="utf-8"))
            by_name = {t["name"]: [s.split(":")[-1] for s in t.get("suite", [])] for t in tests}
            built = {n for n in by_name if n.startswith(("exercise-", "solution-"))}
            wanted, host_solutions = set(), set()
            for e in es:
                if isinstance(e, dict) and "test" in e and "solution_test" in e:
                    # An entry that requires what this build lacks (NCCL) is left out by exercises/meson.build.
                    if e.get("requires") and not {e["test"], e["solution_test"]} & set(by_name):
                        continue
                    wanted |= {e["test"], e["solution_test"]}
                    if test_kind(e) == "host":
                        host_solutions.add(e["solution_test"])
            for name in sorted(wanted - built):
                problems.append(f"build {build}: test {name} from the manifest is not defined (reconfigure?)")
            for name in sorted(built - wanted):
                problems.append(f"build {build}: test {name} is not in the manifest")
            for name in sorted(built & wanted):
                suites = set(by_name[name])
                if name.startswith("exercise-") and suites != {"exercises"}:
                    problems.append(f"build {build}: {name} must be in suite 'exercises' only (it fails as "
                                    f"shipped), not {sorted(suites)}")
                kind = "host" if name in host_solutions else "gpu"
                if name.startswith("solution-") and not {"solutions", kind} <= suites:
                    problems.append(f"build {build}: {name} must be in suites 'solutions' and '{kind}'")
        else:
            problems.append(f"build {build}: no meson-info/intro-tests.json (not a configured build dir)")
        problems += include_order_problems(Path(build), es)
    return problems


def include_order_problems(build, es):
    """The file each exercise and solution test compiles against, as the compiler finds it: the first folder
    of its compile command's -I list (in the order meson wrote them, which for nvcc is not the order of the
    target's include_directories) that holds a file of that name must be the exercise's (or the solution's)
    own. Another folder first would shadow the student's file, and the test would pass as shipped."""
    db = build / "compile_commands.json"
    if not db.is_file():
        return []
    try:
        commands = json.loads(db.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return [f"build {build}: compile_commands.json is not valid JSON"]
    try:  # the source tree this build compiles (a grading copy's, say), else this repository
        source = Path(json.loads((build / "meson-info" / "meson-info.json").read_text(encoding="utf-8"))
                      ["directories"]["source"])
    except (OSError, KeyError, json.JSONDecodeError):
        source = REPO
    problems = []
    for e in es:
        if not isinstance(e, dict) or "id" not in e or "files" not in e:
            continue
        for kind in ("exercise", "solution"):
            unit = f"{kind}-{e['id']}-test.cu"
            cmd = next((c for c in commands if Path(c.get("file", "")).name == unit), None)
            if cmd is None:
                continue
            args = cmd.get("arguments") or shlex.split(cmd.get("command", ""))
            folders = []
            for i, a in enumerate(args):
                d = args[i + 1] if a == "-I" and i + 1 < len(args) else a[2:] if a.startswith("-I") and len(a) > 2 else None
                if d is not None:
                    folders.append((Path(cmd.get("directory", build)) / d).resolve())
            name = header_name(e)
            found = next((f / name for f in folders if (f / name).is_file()), None)
            own = (source / e["files"][kind]).resolve()
            if found is not None and found.resolve() != own:
                problems.append(f"build {build}: the {kind} test of {e['id']} finds <{name}> in {found.parent}, "
                                f"before {own.parent}: it would test that file, not the {kind}'s")
    return problems


# ---------------------------------------------------------------------------------------------------
# Commands


def cmd_meson_list(args):
    for e in entries(load_manifest()):
        test_src = Path(e["files"]["test"]).relative_to("exercises").as_posix()
        print("|".join([e["id"], e["test"], e["solution_test"], test_src, header_name(e),
                        str(e.get("timeout", 300)), test_kind(e), ",".join(e.get("include_dirs", [])),
                        ",".join(e.get("requires", []))]))
    return 0


def cmd_list(args):
    manifest = load_manifest()
    build = args.build
    state = load_state(build)
    full_log = read_testlog_records(build / "meson-logs" / "testlog.json")
    full_log.update(read_testlog_records(build / "meson-logs" / "testlog-withexercises.json"))
    counts = {"pass": 0, "FAIL": 0, "not tried": 0}
    next_up = None
    print(f"{'exercise':<30} {'chapter':<32} {'status':<14} hints")
    for e in entries(manifest):
        eid = e["id"]
        status, when = "not tried", 0.0
        rec = state["results"].get(eid)
        if rec:
            status, when = rec["status"], rec["time"]
        logged = full_log.get(e["test"])
        if logged and logged.get("starttime", 0) > when and logged.get("result") in ("OK", "FAIL", "TIMEOUT"):
            status = "pass" if logged["result"] == "OK" else "FAIL"
            when = logged["starttime"]
        changed = ""
        src = REPO / e["files"]["exercise"]
        if status != "not tried" and src.is_file() and src.stat().st_mtime > when:
            changed = " (edited since)"
        key = "pass" if status == "pass" else "not tried" if status == "not tried" else "FAIL"
        counts[key] += 1
        if key != "pass" and next_up is None:
            next_up = eid
        shown = state["hints_shown"].get(eid, 0)
        print(f"{eid:<30} {e['chapter']:<32} {(status + changed):<14} {shown}/{len(e['hints'])}")
    print(f"\n{counts['pass']} of {len(entries(manifest))} passed, {counts['FAIL']} failing, "
          f"{counts['not tried']} not tried.")
    if next_up:
        print(f"Next: tools/exercise show {next_up}   then   tools/exercise check {next_up}")
    return 0


def cmd_show(args):
    e = resolve_id(load_manifest(), args.id)
    print((REPO / e["files"]["statement"]).read_text(encoding="utf-8"))
    print(f"File to edit: {e['files']['exercise']}")
    print(f"Test:         {e['files']['test']}   (tools/exercise check {e['id']})")
    return 0


def cmd_hint(args):
    e = resolve_id(load_manifest(), args.id)
    build = args.build
    state = load_state(build)
    hints = e["hints"]
    if args.reset:
        state["hints_shown"].pop(e["id"], None)
        save_state(build, state)
        print(f"Hints of {e['id']} reset.")
        return 0
    shown = min(state["hints_shown"].get(e["id"], 0) + 1, len(hints))
    state["hints_shown"][e["id"]] = shown
    save_state(build, state)
    for i in range(shown):
        print(f"Hint {i + 1} of {len(hints)}: {hints[i]}\n")
    if shown == len(hints):
        print("That was the last hint.")
    else:
        print(f"Run 'tools/exercise hint {e['id']}' again for the next one.")
    return 0


def left_out(build, entry):
    """The requirements (NCCL) for which exercises/meson.build left this entry out of the build, or []."""
    if not entry.get("requires"):
        return []
    intro = build / "meson-info" / "intro-tests.json"
    try:
        names = {t["name"] for t in json.loads(intro.read_text(encoding="utf-8"))}
    except (OSError, json.JSONDecodeError, KeyError, TypeError):
        return []
    return [] if {entry["test"], entry["solution_test"]} & names else list(entry["requires"])


def run_one(build, entry, kind, run_sanitizers=True, quiet=False):
    """Builds and runs one exercise (or solution) test. Returns a dict with status and details."""
    target = target_path(kind, entry)
    ok, out = build_targets(build, [target])
    if not ok:
        return {"status": "build-failed", "detail": compiler_messages(out)}
    name = test_name(kind, entry)
    records, console = run_meson_tests(build, [name], logbase=name)
    rec = records.get(name) if records else None
    word = result_word(rec)
    result = {"status": word, "duration": rec.get("duration") if rec else None,
              "detail": first_failure(rec.get("stdout", "")) if rec and word != "pass" else "",
              "sanitizers": {}}
    if rec is None:
        result["detail"] = console[-3000:]
    if word == "pass" and run_sanitizers:
        for tool in entry.get("sanitizers", []):
            if not quiet:
                print(f"  ... and under compute-sanitizer --tool {tool}", flush=True)
            srec, sout = run_meson_tests(build, [name], logbase=f"{name}-{tool}", setup=tool)
            if srec is None:
                result["sanitizers"][tool] = "unavailable"
                continue
            sw = result_word(srec.get(name))
            result["sanitizers"][tool] = sw
            if sw != "pass":
                result["status"] = f"{tool}-{sw}"
                result["detail"] = sanitizer_report(srec.get(name, {}).get("stdout", ""))
    return result


def cmd_check(args):
    manifest = load_manifest()
    e = resolve_id(manifest, args.id)
    kind = "solution" if args.solution else "exercise"
    build = args.build
    ensure_configured(build)
    missing = left_out(build, e)
    if missing:
        print(f"SKIP  {e['id']}: this build has no {', '.join(missing).upper()} (meson setup found none), so the "
              "exercise is not built; see its chapter's README for how to install it.")
        return 77
    print(f"Building and testing {e['files'][kind]} ...", flush=True)
    r = run_one(build, e, kind, run_sanitizers=not args.no_sanitizers)
    status = r["status"]
    if kind == "exercise" and status not in ("skip", "not-run"):
        state = load_state(build)
        state["results"][e["id"]] = {"status": "pass" if status == "pass" else "FAIL", "time": time.time()}
        save_state(build, state)
    if status == "pass":
        extra = "".join(f", {t}: {v}" for t, v in r["sanitizers"].items())
        print(f"PASS  {e['id']}  ({r['duration']:.1f} s{extra})")
        for t, v in r["sanitizers"].items():
            if v == "unavailable":
                print(f"  note: {t} was not run: compute-sanitizer was not found when the build was configured")
        print(f"Now answer the questions in {e['files']['statement']} (tools/exercise measure {e['id']}).")
        return 0
    if status == "skip":
        print(f"SKIP  {e['id']}: no usable CUDA GPU on this machine (the test exits 77); run it on a GPU.")
        return 77
    if status == "build-failed":
        print(f"BUILD FAILED  {e['files'][kind]}:\n{r['detail']}")
        return 1
    if status == "timeout":
        print(f"FAIL  {e['id']}: the test timed out after {e.get('timeout', 300)} s (a kernel that never "
              "finishes? a spin-wait on a flag nobody sets?)")
        return 1
    print(f"FAIL  {e['id']} ({status}). First failure:\n{r['detail']}")
    print(f"\nStuck? tools/exercise hint {e['id']}")
    return 1


def cmd_measure(args):
    e = resolve_id(load_manifest(), args.id)
    kind = "solution" if args.solution else "exercise"
    build = args.build
    ensure_configured(build)
    ok, out = build_targets(build, [target_path(kind, e)])
    if not ok:
        print(f"BUILD FAILED:\n{compiler_messages(out)}")
        return 1
    exe = build / target_path(kind, e)
    r = subprocess.run([str(exe), "--no-skip", "-tc=measure*", "--no-version"] + args.extra)
    if r.returncode == SKIP_EXIT:
        print("SKIP: no usable CUDA GPU on this machine.")
    return r.returncode


def cmd_verify(args):
    build = args.build
    # The build's tests are compared with the manifest when the build exists, or when --build names it.
    problems = static_problems(REPO, build if (is_configured(build) or args.build_given) else None)
    manifest = load_manifest()
    es = entries(manifest)
    print(f"static checks: {len(es)} exercises in the manifest, "
          f"{'no problems' if not problems else str(len(problems)) + ' problem(s)'}")
    for p in problems:
        print(f"  PROBLEM: {p}")
    if args.static:
        return 1 if problems else 0

    if args.ids:
        es = [resolve_id(manifest, i.strip()) for i in args.ids.split(",") if i.strip()]
    ensure_configured(build)
    # The static part again, now that the build exists (its tests must agree with the manifest).
    for p in static_problems(REPO, build):
        if p not in problems:
            problems.append(p)
            print(f"  PROBLEM: {p}")

    for e in [e for e in es if left_out(build, e)]:
        print(f"  note: {e['id']} is not in this build (no {', '.join(left_out(build, e)).upper()}): not verified")
    es = [e for e in es if not left_out(build, e)]
    targets = [target_path(k, e) for e in es for k in ("exercise", "solution")]
    print(f"building {len(targets)} test programs ...", flush=True)
    _, out = build_targets(build, targets, keep_going=True)
    sources = [e["files"][k] for e in es for k in ("exercise", "solution", "test")] + ["exercises/support/"]
    for w in warnings_in(out, sources):
        problems.append(f"compiler warning: {w}")
        print(f"  PROBLEM: compiler warning: {w}")
    failed = failed_targets(out)
    built = {}
    for e in es:
        for k in ("exercise", "solution"):
            why = target_failure(build, target_path(k, e), failed) or unit_problem(build, k, e)
            built[(e["id"], k)] = why is None
            if why is not None:
                problems.append(f"{k} {e['id']} does not build")
                print(f"  PROBLEM: {k} {e['id']} does not build:\n{why}")

    names = [test_name(k, e) for e in es for k in ("exercise", "solution") if built[(e["id"], k)]]
    print(f"running {len(names)} tests, one at a time (a few minutes on a GPU) ...", flush=True)
    records, console = run_meson_tests(build, names, logbase="exercise-verify")
    gpu_ran = False
    rows = []
    for e in es:
        ex = result_word(records.get(e["test"])) if built[(e["id"], "exercise")] else "not-built"
        so = result_word(records.get(e["solution_test"])) if built[(e["id"], "solution")] else "not-built"
        gpu_ran |= "skip" not in (ex, so) and "not-run" not in (ex, so)
        san, san_detail = {}, {}
        if so == "pass":
            for tool in e.get("sanitizers", []):
                srec, _ = run_meson_tests(build, [e["solution_test"]], logbase=f"exercise-verify-{tool}", setup=tool)
                san[tool] = "unavailable" if srec is None else result_word(srec.get(e["solution_test"]))
                if san[tool] not in ("pass", "unavailable"):
                    san_detail[tool] = sanitizer_report((srec.get(e["solution_test"]) or {}).get("stdout", ""))
        rows.append((e, ex, so, san))
        if ex == "pass":
            problems.append(f"exercise {e['id']} as shipped PASSES its test: the TODO leaves nothing to do")
        elif ex in ("timeout", "error"):
            problems.append(f"exercise {e['id']} as shipped ends with {ex}, not a clean failure")
        elif ex == "not-run":
            problems.append(f"exercise {e['id']}: its test did not run")
        if so not in ("pass", "skip", "not-built"):
            detail = first_failure(records.get(e["solution_test"], {}).get("stdout", ""))
            problems.append(f"solution {e['id']}: {so}\n{detail}")
        for tool, v in san.items():
            if v not in ("pass", "unavailable"):
                problems.append(f"solution {e['id']} under {tool}: {v}\n{san_detail.get(tool, '')}")
        if (ex == "skip" or so == "skip") and args.require_gpu:
            problems.append(f"{e['id']}: skipped (no usable GPU) but --require-gpu was given")

    print(f"\n{'exercise':<30} {'exercise as shipped':<22} {'solution':<10} sanitizers")
    for e, ex, so, san in rows:
        exs = {"fail": "fails (expected)", "skip": "skip (no GPU)"}.get(ex, ex.upper())
        sos = {"pass": "passes", "skip": "skip"}.get(so, so.upper())
        print(f"{e['id']:<30} {exs:<22} {sos:<10} {', '.join(f'{t}: {v}' for t, v in san.items())}")
    if not gpu_ran:
        print("\nNo usable GPU here: the tests were skipped, so only the static checks and the builds were "
              "verified. Run this on a GPU machine (--require-gpu makes a skip an error).")
    if problems:
        print(f"\nverify: {len(problems)} problem(s):")
        for p in problems:
            print(f"  - {p}")
        return 1
    print("\nverify: OK")
    return 0


# ---------------------------------------------------------------------------------------------------
# Grading


def find_submitted_file(folder, entry):
    name = header_name(entry)
    for candidate in (folder / entry["id"] / name, folder / "exercises" / entry["id"] / name, folder / name):
        if candidate.is_file():
            return candidate
    return None


HEADER_SUFFIXES = (".cuh", ".hpp", ".h")


def _chapter_headers_only(folder, names):
    """shutil.copytree ignore function: keep sub-folders and header files, drop everything else (the chapters'
    meson.build above all: without it the grading build compiles no chapter program)."""
    return [n for n in names if not (Path(folder) / n).is_dir() and not n.endswith(HEADER_SUFFIXES)]


def make_grading_tree(dest):
    """A copy of what the exercise build needs: common/, exercises/, solutions/, and the chapters' headers only
    (an exercise with include_chapter is one header of its chapter's design and compiles against the rest of
    it, which may include another chapter's header: 18's includes 17's). No chapter programs, no build dirs."""
    dest.mkdir(parents=True, exist_ok=True)
    for f in ("meson.build", "meson_options.txt"):
        shutil.copy2(REPO / f, dest / f)
    ignore = shutil.ignore_patterns("__pycache__", "*.o")
    for d in ("common", "exercises", "solutions"):
        if (dest / d).exists():
            shutil.rmtree(dest / d)
        shutil.copytree(REPO / d, dest / d, ignore=ignore)
    if (dest / "chapters").exists():
        shutil.rmtree(dest / "chapters")
    if (REPO / "chapters").is_dir():
        shutil.copytree(REPO / "chapters", dest / "chapters", ignore=_chapter_headers_only)
    # The wraps, and doctest where the wrap has already fetched it (so that grading needs no network).
    sub = dest / "subprojects"
    if (REPO / "subprojects").is_dir():
        shutil.copytree(REPO / "subprojects", sub, ignore=ignore, dirs_exist_ok=True)
    sub.mkdir(exist_ok=True)
    # exercises/meson.build lists the exercises with `tools/exercise meson-list`: the launcher and its package.
    (dest / "tools").mkdir(exist_ok=True)
    shutil.copy2(REPO / "tools" / "exercise", dest / "tools" / "exercise")
    if (dest / "tools" / "tutkit").exists():
        shutil.rmtree(dest / "tools" / "tutkit")
    shutil.copytree(REPO / "tools" / "tutkit", dest / "tools" / "tutkit", ignore=ignore)


def configured_archs(build):
    try:
        opts = json.loads((build / "meson-info" / "intro-buildoptions.json").read_text(encoding="utf-8"))
        for o in opts:
            if o.get("name") == "gpu_archs":
                return str(o.get("value"))
    except (FileNotFoundError, json.JSONDecodeError):
        pass
    return "auto"


def cmd_grade(args):
    manifest = load_manifest()
    folder = Path(args.submission).resolve()
    if not folder.is_dir():
        raise ToolError(f"submission folder {folder} does not exist")
    selected = entries(manifest)
    if args.ids:
        selected = [resolve_id(manifest, i.strip()) for i in args.ids.split(",") if i.strip()]
    if not args.junit and not args.json:
        raise ToolError("give --junit FILE and/or --json FILE for the report")
    work = Path(args.work_dir).resolve() if args.work_dir else Path(tempfile.mkdtemp(prefix="exercise-grade-"))
    src, gbuild = work / "src", work / "build"
    started = datetime.datetime.now(datetime.timezone.utc)

    print(f"grading {folder} ({len(selected)} exercises) in {work}", flush=True)
    make_grading_tree(src)
    submitted = {}
    for e in selected:
        f = find_submitted_file(folder, e)
        submitted[e["id"]] = f
        if f is not None:
            shutil.copy2(f, src / e["files"]["exercise"])
    archs = args.gpu_archs or configured_archs(args.build)
    ensure_configured(gbuild, src, [f"-Dgpu_archs={archs}"])

    results = []
    to_run = []
    for e in selected:
        r = {"id": e["id"], "chapter": e["chapter"], "title": e["title"],
             "file": e["files"]["exercise"],
             "submitted": submitted[e["id"]] is not None,
             "submitted_path": str(submitted[e["id"]]) if submitted[e["id"]] else None,
             "build": {"ok": False, "log": ""}, "test": {"result": "not-run", "duration": 0.0,
                                                        "first_failure": "", "output": ""},
             "sanitizers": {}, "passed": False}
        if not r["submitted"]:
            r["test"]["result"] = "not-submitted"
            r["test"]["first_failure"] = (f"no {header_name(e)} in the submission (looked for {e['id']}/"
                                          f"{header_name(e)} and {header_name(e)})")
        else:
            print(f"  building {e['id']} ...", flush=True)
            ok, out = build_targets(gbuild, [target_path("exercise", e)])
            r["build"] = {"ok": ok, "log": "" if ok else compiler_messages(out, limit=60)}
            if ok:
                to_run.append(e)
            else:
                r["test"]["result"] = "build-failed"
                r["test"]["first_failure"] = r["build"]["log"]
        results.append(r)

    if to_run:
        print(f"  running {len(to_run)} tests ...", flush=True)
        records, _ = run_meson_tests(gbuild, [e["test"] for e in to_run], logbase="grade")
        for e in to_run:
            r = next(x for x in results if x["id"] == e["id"])
            rec = records.get(e["test"]) if records else None
            word = result_word(rec)
            out = rec.get("stdout", "") if rec else ""
            r["test"] = {"result": word, "duration": round(rec.get("duration", 0.0), 3) if rec else 0.0,
                         "first_failure": first_failure(out) if word != "pass" else "",
                         "summary": mismatch_line(out) if word != "pass" else "",
                         "output": out[-20000:]}
            r["passed"] = word == "pass"
            if word == "pass":
                for tool in e.get("sanitizers", []):
                    srec, _ = run_meson_tests(gbuild, [e["test"]], logbase=f"grade-{tool}", setup=tool)
                    if srec is None:
                        r["sanitizers"][tool] = {"result": "unavailable"}
                        continue
                    sr = srec.get(e["test"])
                    sw = result_word(sr)
                    r["sanitizers"][tool] = {"result": sw,
                                             "first_failure": sanitizer_report((sr or {}).get("stdout", "")) if sw != "pass" else ""}
                    if sw != "pass":
                        r["passed"] = False

    summary = {
        "total": len(results),
        "passed": sum(r["passed"] for r in results),
        "failed": sum(r["test"]["result"] in ("fail", "timeout", "error") or
                      (r["test"]["result"] == "pass" and not r["passed"]) for r in results),
        "build_failed": sum(r["test"]["result"] == "build-failed" for r in results),
        "not_submitted": sum(r["test"]["result"] == "not-submitted" for r in results),
        "skipped_no_gpu": sum(r["test"]["result"] == "skip" for r in results),
    }
    report = {"tool": "tools/exercise grade", "submission": str(folder), "work_dir": str(work),
              "started": started.isoformat(timespec="seconds"),
              "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "gpu_archs": archs, "summary": summary, "exercises": results}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    if args.junit:
        write_junit(Path(args.junit), report)

    print(f"\n{'exercise':<30} result")
    for r in results:
        extra = "".join(f", {t}: {v['result']}" for t, v in r["sanitizers"].items())
        print(f"{r['id']:<30} {r['test']['result']}{extra}")
    print(f"\n{summary['passed']} of {summary['total']} passed"
          + (f"; {summary['skipped_no_gpu']} skipped: no usable GPU here" if summary["skipped_no_gpu"] else ""))
    for what, path in (("JSON", args.json), ("JUnit", args.junit)):
        if path:
            print(f"{what} report: {path}")
    if not args.keep and not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    if summary["skipped_no_gpu"]:
        return 77
    return 0 if summary["passed"] == summary["total"] else 1


def write_junit(path, report):
    s = report["summary"]
    time_total = sum(r["test"].get("duration", 0.0) or 0.0 for r in report["exercises"])
    suites = ET.Element("testsuites", name="exercises", tests=str(s["total"]),
                        failures=str(s["failed"] + s["not_submitted"]), errors=str(s["build_failed"]),
                        skipped=str(s["skipped_no_gpu"]), time=f"{time_total:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="exercises", tests=str(s["total"]),
                          failures=str(s["failed"] + s["not_submitted"]), errors=str(s["build_failed"]),
                          skipped=str(s["skipped_no_gpu"]), time=f"{time_total:.3f}",
                          timestamp=report["started"])
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="submission", value=report["submission"])
    for r in report["exercises"]:
        tc = ET.SubElement(suite, "testcase", classname=f"exercises.{r['chapter']}", name=r["id"],
                           time=f"{r['test'].get('duration', 0.0) or 0.0:.3f}")
        res = r["test"]["result"]
        if res == "pass" and r["passed"]:
            pass
        elif res == "skip":
            ET.SubElement(tc, "skipped", message="no usable CUDA GPU on the grading machine")
        elif res == "build-failed":
            el = ET.SubElement(tc, "error", type="build", message=f"{r['file']} does not compile")
            el.text = r["test"]["first_failure"]
        elif res == "not-submitted":
            el = ET.SubElement(tc, "failure", type="not-submitted", message="not submitted")
            el.text = r["test"]["first_failure"]
        elif res == "pass":
            bad = {t: v for t, v in r["sanitizers"].items() if v["result"] != "pass"}
            el = ET.SubElement(tc, "failure", type="sanitizer",
                               message="; ".join(f"{t}: {v['result']}" for t, v in bad.items()))
            el.text = "\n".join(v.get("first_failure", "") for v in bad.values())
        else:
            el = ET.SubElement(tc, "failure", type=res,
                               message=r["test"].get("summary") or f"test {res}")
            el.text = r["test"]["first_failure"]
        if r["test"].get("output"):
            ET.SubElement(tc, "system-out").text = r["test"]["output"]
    ET.indent(suites) if hasattr(ET, "indent") else None
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


# ---------------------------------------------------------------------------------------------------


def main(argv):
    p = ArgumentParser(prog="tools/exercise")
    p.description = __doc__  # printed as written: its command table is laid out by hand
    p.add_argument("--build", type=Path, default=None, help="build dir (default: $TUT_BUILD_DIR or build/)")
    sub = p.add_subparsers(dest="command", required=True, metavar="command")

    def add(name, fn, help_text):
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.add_argument("--build", type=Path, default=None, dest="build_sub",
                        help="build dir (default: $TUT_BUILD_DIR or build/)")
        sp.set_defaults(fn=fn)
        return sp

    add("list", cmd_list, "progress over every exercise")
    sp = add("show", cmd_show, "print an exercise's statement")
    sp.add_argument("id")
    sp = add("check", cmd_check, "build and run an exercise's test")
    sp.add_argument("id")
    sp.add_argument("--solution", action="store_true", help="test the solution file instead")
    sp.add_argument("--no-sanitizers", action="store_true", help="skip the compute-sanitizer runs")
    sp = add("hint", cmd_hint, "show the next hint of an exercise")
    sp.add_argument("id")
    sp.add_argument("--reset", action="store_true", help="forget the hints shown so far")
    sp = add("measure", cmd_measure, "run an exercise's measurement (its 'measure' test case)")
    sp.add_argument("id")
    sp.add_argument("--solution", action="store_true", help="measure the solution file instead")
    sp.add_argument("extra", nargs="*", help="more doctest options (after --)")
    sp = add("verify", cmd_verify, "the checker: builds, exercises fail, solutions pass, manifest")
    sp.add_argument("--static", action="store_true", help="only the checks that need no build and no GPU")
    sp.add_argument("--require-gpu", action="store_true", help="a test skipped for want of a GPU is an error")
    sp.add_argument("--ids", help="build and test only these exercises (comma-separated ids or prefixes)")
    sp = add("grade", cmd_grade, "grade a submission folder")
    sp.add_argument("submission", help="folder with the student's files: <id>/<file>.cuh or <file>.cuh")
    sp.add_argument("--junit", help="write a JUnit XML report here")
    sp.add_argument("--json", help="write a JSON report here")
    sp.add_argument("--ids", help="grade only these exercises (comma-separated ids or prefixes)")
    sp.add_argument("--work-dir", help="where to put the copy and its build (default: a temporary dir, removed)")
    sp.add_argument("--keep", action="store_true", help="keep the temporary dir")
    sp.add_argument("--gpu-archs", help="gpu_archs for the grading build (default: the main build's, else auto)")
    sp = add("meson-list", cmd_meson_list, "(used by exercises/meson.build) the manifest as lines")

    args = p.parse_args(argv)
    args.build_given = bool(args.build_sub or args.build)
    build = args.build_sub or args.build or default_build_dir()
    args.build = Path(build).resolve()
    return args.fn(args)
