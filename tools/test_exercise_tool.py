#!/usr/bin/env python3
"""Host tests of tools/exercise (tools/tutkit/exercise.py): list, show, hint, check, verify --static and
grade, end to end on a copy of the repository's exercises, with tools/fixtures/fake_exercise_build.py
standing in for meson and ninja (a test passes when the file under test is the solution) and a fake nvcc;
and the fresh-machine path: with no meson on PATH, `check` installs meson and ninja into .venv/ as
tools/check does. No GPU, no compiler. Run: python3 tools/test_exercise_tool.py"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True
TOOLS = Path(__file__).resolve().parent
REPO = TOOLS.parent
FIXTURES = TOOLS / "fixtures"
sys.path.insert(0, str(TOOLS))

from tutkit import bootstrap, exercise  # noqa: E402
from test_tools import call, install_script  # noqa: E402

MANIFEST = json.loads((REPO / "exercises" / "manifest.json").read_text())["exercises"]
COUNT = len(MANIFEST)


def entry(prefix):
    return next(e for e in MANIFEST if e["id"].startswith(prefix))


class ExerciseToolTest(unittest.TestCase):
    """Each test gets a copy of what the exercise build reads (the repository with exercises, solutions and
    the tools), a bin/ with the fake meson, ninja and nvcc as the only PATH, and an empty build dir."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="exercise-tool-test-"))
        self.repo = self.tmp / "repo"
        self.repo.mkdir()
        ignore = shutil.ignore_patterns("__pycache__")
        for f in ("meson.build", "meson_options.txt"):
            shutil.copy2(REPO / f, self.repo / f)
        for d in ("common", "exercises", "solutions", "subprojects", "tools/tutkit"):
            if (REPO / d).is_dir():
                shutil.copytree(REPO / d, self.repo / d, ignore=ignore)
        shutil.copy2(REPO / "tools" / "exercise", self.repo / "tools" / "exercise")
        # The chapters' headers: exercises with include_chapter compile against their chapter's design.
        shutil.copytree(REPO / "chapters", self.repo / "chapters", ignore=exercise._chapter_headers_only)
        self.bin = self.tmp / "bin"
        self.bin.mkdir()
        for name in ("meson", "ninja"):
            install_script(FIXTURES / "fake_exercise_build.py", self.bin / name)
        self.fake_nvcc(self.bin)
        self.build = self.tmp / "build"
        self.log = self.tmp / "meson-calls.jsonl"
        env = {"PATH": str(self.bin), "FAKE_MESON_LOG": str(self.log)}
        for var in ("TUT_BUILD_DIR", "FAKE_NO_GPU", "FAKE_SANITIZERS", "FAKE_RACE", "CUDA_HOME"):
            env[var] = ""
        self.patches = [mock.patch.dict(os.environ, env), mock.patch.object(exercise, "REPO", self.repo),
                        mock.patch.object(bootstrap, "_doctest_present", return_value=True),
                        mock.patch.object(bootstrap, "VENV", self.tmp / ".venv")]
        for p in self.patches:
            p.start()
        for var in ("TUT_BUILD_DIR", "FAKE_NO_GPU", "FAKE_SANITIZERS", "FAKE_RACE", "CUDA_HOME"):
            del os.environ[var]

    def tearDown(self):
        for p in reversed(self.patches):
            p.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def fake_nvcc(directory):
        nvcc = directory / "nvcc"
        nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.48'\n")
        nvcc.chmod(0o755)

    def run_tool(self, *argv):
        return call(exercise.main, [*argv, "--build", str(self.build)] if argv[0] != "grade" else list(argv))

    def calls(self):
        """The fake meson's and ninja's command lines, less the `--version` questions of bootstrap."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [c for c in map(json.loads, lines) if c[1:] != ["--version"]]

    # ---- list, show, hint -----------------------------------------------------------------------

    def test_list_on_a_fresh_build_dir(self):
        status, out, err = self.run_tool("list")
        self.assertEqual((status, err), (0, ""))
        self.assertIn(f"0 of {COUNT} passed, 0 failing, {COUNT} not tried.", out)
        first = MANIFEST[0]["id"]
        self.assertIn(f"Next: tools/exercise show {first}   then   tools/exercise check {first}", out)
        self.assertRegex(out, rf"(?m)^{first} +{MANIFEST[0]['chapter']} +not tried +0/{len(MANIFEST[0]['hints'])}$")
        self.assertEqual(self.calls(), [], "list needs no meson")

    def test_show_prints_the_statement_and_the_file(self):
        e = entry("03")
        status, out, _ = self.run_tool("show", "03")
        self.assertEqual(status, 0)
        self.assertIn((REPO / e["files"]["statement"]).read_text().splitlines()[0], out)
        self.assertIn(f"File to edit: {e['files']['exercise']}", out)

    def test_hints_one_more_each_call_then_reset(self):
        e = entry("03")
        hints = e["hints"]
        status, out, _ = self.run_tool("hint", "03")
        self.assertEqual(status, 0)
        self.assertIn(f"Hint 1 of {len(hints)}: {hints[0]}", out)
        self.assertNotIn("Hint 2", out)
        self.assertIn(f"Run 'tools/exercise hint {e['id']}' again", out)
        for _ in range(len(hints) + 1):  # past the last one it stays at the last
            status, out, _ = self.run_tool("hint", "03")
        self.assertIn(f"Hint {len(hints)} of {len(hints)}: {hints[-1]}", out)
        self.assertIn("That was the last hint.", out)
        _, out, _ = self.run_tool("list")
        self.assertRegex(out, rf"(?m)^{e['id']} .* {len(hints)}/{len(hints)}$")
        status, out, _ = self.run_tool("hint", "03", "--reset")
        self.assertEqual((status, out.strip()), (0, f"Hints of {e['id']} reset."))
        state = json.loads((self.build / "exercise-state.json").read_text())
        self.assertNotIn(e["id"], state["hints_shown"])

    def test_bad_ids_are_one_line_and_status_2(self):
        status, out, err = self.run_tool("hint", "99")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.strip().splitlines()), 1)
        self.assertIn("error: no exercise '99'; the exercises are: " + MANIFEST[0]["id"], err)
        status, _, err = self.run_tool("check", "0")
        self.assertEqual(status, 2)
        self.assertIn("error: '0' is ambiguous: ", err)
        status, _, err = call(exercise.main, ["frobnicate"])
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'frobnicate'", err)
        self.assertEqual(self.calls(), [])

    def test_verify_static_finds_a_broken_manifest(self):
        # (no --build: a build dir named on the command line must be a configured one)
        status, out, _ = call(exercise.main, ["verify", "--static"])
        self.assertEqual(status, 0, out)
        self.assertIn(f"static checks: {COUNT} exercises in the manifest, no problems", out)
        path = self.repo / "exercises" / "manifest.json"
        data = json.loads(path.read_text())
        data["exercises"][2]["hints"] = ["only one"]
        path.write_text(json.dumps(data))
        (self.repo / "exercises" / "stray.txt").write_text("x")
        status, out, _ = call(exercise.main, ["verify", "--static"])
        self.assertEqual(status, 1)
        self.assertIn(f"exercise {data['exercises'][2]['id']}: needs a list of at least two non-empty hints", out)
        self.assertIn("stray file exercises/stray.txt", out)

    # ---- check ----------------------------------------------------------------------------------

    def test_check_configures_builds_and_reports_the_first_mismatch(self):
        e = entry("03")
        status, out, err = self.run_tool("check", "03")
        self.assertEqual(status, 1, out + err)
        self.assertIn(f"Configuring {self.build} (meson setup; once) ...", out)
        self.assertIn(f"FAIL  {e['id']} (fail). First failure:", out)
        self.assertIn("MISMATCH: 1 element differs", out)
        self.assertIn(f"Stuck? tools/exercise hint {e['id']}", out)
        calls = self.calls()
        self.assertEqual(calls[0][:3], ["meson", "setup", str(self.build)])
        self.assertEqual(calls[1], ["ninja", "-C", str(self.build), f"exercises/exercise-{e['id']}-test"])
        self.assertEqual(calls[2][:2], ["meson", "test"])
        self.assertIn("--setup", calls[2])
        self.assertEqual(calls[2][-1], e["test"])
        _, out, _ = self.run_tool("list")
        self.assertRegex(out, rf"(?m)^{e['id']} +\S+ +FAIL ")
        self.assertIn(f"0 of {COUNT} passed, 1 failing, {COUNT - 1} not tried.", out)

        # The student's file, now solved: PASS, and list counts it (configured once only).
        shutil.copy2(self.repo / e["files"]["solution"], self.repo / e["files"]["exercise"])
        status, out, _ = self.run_tool("check", "03")
        self.assertEqual(status, 0, out)
        self.assertRegex(out, rf"PASS  {e['id']}  \(1\.2 s\)")
        self.assertIn(f"Now answer the questions in {e['files']['statement']}", out)
        self.assertEqual(sum(c[:2] == ["meson", "setup"] for c in self.calls()), 1)
        _, out, _ = self.run_tool("list")
        self.assertRegex(out, rf"(?m)^{e['id']} +\S+ +pass ")
        self.assertIn(f"1 of {COUNT} passed, 0 failing", out)

    def test_check_solution_and_its_sanitizer(self):
        e = next(x for x in MANIFEST if x.get("sanitizers"))
        status, out, _ = self.run_tool("check", e["id"], "--solution")
        self.assertEqual(status, 0, out)
        self.assertIn(f"PASS  {e['id']}", out)
        tool = e["sanitizers"][0]
        self.assertIn(f"note: {tool} was not run: compute-sanitizer was not found", out)
        os.environ["FAKE_SANITIZERS"] = tool
        status, out, _ = self.run_tool("check", e["id"], "--solution")
        self.assertEqual(status, 0, out)
        self.assertIn(f"{tool}: pass", out)
        os.environ["FAKE_RACE"] = e["id"]
        status, out, _ = self.run_tool("check", e["id"], "--solution")
        self.assertEqual(status, 1, out)
        self.assertIn(f"FAIL  {e['id']} ({tool}-fail)", out)
        self.assertIn("Race reported between", out)
        status, out, _ = self.run_tool("check", e["id"], "--solution", "--no-sanitizers")
        self.assertEqual(status, 0, out)

    def test_check_without_a_gpu_skips_and_records_nothing(self):
        os.environ["FAKE_NO_GPU"] = "1"
        e = entry("05")
        status, out, _ = self.run_tool("check", "05")
        self.assertEqual(status, 77)
        self.assertIn(f"SKIP  {e['id']}: no usable CUDA GPU on this machine", out)
        _, out, _ = self.run_tool("list")
        self.assertIn(f"{COUNT} not tried.", out)

    def test_check_of_a_file_that_does_not_compile(self):
        e = entry("07")
        path = self.repo / e["files"]["exercise"]
        path.write_text("#error oops\n" + path.read_text())
        status, out, _ = self.run_tool("check", "07")
        self.assertEqual(status, 1)
        self.assertIn(f"BUILD FAILED  {e['files']['exercise']}:", out)
        self.assertIn("error: #error the student's file does not compile", out)
        self.assertFalse(any(c[:2] == ["meson", "test"] for c in self.calls()), "no test run after a failed build")

    # ---- the fresh machine ----------------------------------------------------------------------

    def fake_pip(self, real_run):
        """subprocess.run, except that making .venv and pip-installing meson and ninja into it put the fakes
        there (bootstrap.ensure_meson_ninja's two commands)."""
        venv_bin = self.tmp / ".venv" / "bin"

        def run(cmd, *a, **kw):
            cmd_text = [str(c) for c in cmd]
            if cmd_text[1:3] == ["-m", "venv"]:
                venv_bin.mkdir(parents=True)
                (venv_bin / "python").symlink_to(sys.executable)
                return subprocess.CompletedProcess(cmd, 0, b"", b"")
            if cmd_text[1:4] == ["-m", "pip", "install"]:
                self.assertIn("meson>=1.0.1", cmd_text)
                for name in ("meson", "ninja"):
                    install_script(FIXTURES / "fake_exercise_build.py", venv_bin / name)
                return subprocess.CompletedProcess(cmd, 0, b"", b"")
            return real_run(cmd, *a, **kw)
        return run

    def test_fresh_machine_check_installs_meson_like_tools_check(self):
        (self.bin / "meson").unlink()
        (self.bin / "ninja").unlink()
        e = entry("01")
        with mock.patch.object(bootstrap.subprocess, "run", side_effect=self.fake_pip(subprocess.run)):
            status, out, err = self.run_tool("check", e["id"])
        self.assertEqual(status, 1, out + err)  # the shipped exercise fails its test: it was built and run
        self.assertNotIn("not found on PATH", err)
        self.assertIn("tools/exercise: meson is not on PATH: installing meson and ninja from PyPI into .venv", err)
        self.assertIn("tools/exercise: installed meson 1.12.0 and ninja 1.12.0 into .venv", err)
        self.assertIn(f"FAIL  {e['id']} (fail)", out)
        venv_bin = str(self.tmp / ".venv" / "bin")
        self.assertEqual(os.environ["PATH"].split(os.pathsep)[0], venv_bin, "meson test and ninja run from .venv")
        self.assertEqual([c[0] for c in self.calls()], ["meson", "ninja", "meson"])

        # The next run (a new process, PATH as before) reuses .venv and says so.
        os.environ["PATH"] = str(self.bin)
        status, out, err = self.run_tool("check", e["id"])
        self.assertEqual(status, 1)
        self.assertIn("tools/exercise: using meson 1.12.0 and ninja from .venv (installed by an earlier run)", err)

    def test_no_nvcc_is_one_line_and_status_2(self):
        (self.bin / "nvcc").unlink()
        with mock.patch.object(bootstrap, "CUDA_BIN_DIRS", []):
            status, out, err = self.run_tool("check", "01")
        self.assertEqual(status, 2)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("error: nvcc not found: install the CUDA Toolkit", err)
        self.assertEqual(self.calls(), [])

    # ---- grade ----------------------------------------------------------------------------------

    def grade_submission(self):
        """03 solved (layout of exercises/), 05 as shipped (flat), 07 not compiling (a copy of the repository),
        11 missing."""
        sub = self.tmp / "submission"
        solved, shipped, broken = entry("03"), entry("05"), entry("07")
        (sub / solved["id"]).mkdir(parents=True)
        shutil.copy2(self.repo / solved["files"]["solution"], sub / solved["id"] / Path(solved["files"]["exercise"]).name)
        shutil.copy2(self.repo / shipped["files"]["exercise"], sub / Path(shipped["files"]["exercise"]).name)
        (sub / "exercises" / broken["id"]).mkdir(parents=True)
        (sub / "exercises" / broken["id"] / Path(broken["files"]["exercise"]).name).write_text("#error\n")
        return sub

    def test_grade_writes_junit_and_json_and_leaves_the_repository_alone(self):
        sub = self.grade_submission()
        before = {p: p.read_bytes() for p in (self.repo / "exercises").rglob("*") if p.is_file()}
        junit, report, work = self.tmp / "r.xml", self.tmp / "r.json", self.tmp / "work"
        status, out, err = self.run_tool("grade", str(sub), "--ids", "03,05,07,11", "--junit", str(junit),
                                         "--json", str(report), "--work-dir", str(work), "--build", str(self.build))
        self.assertEqual(status, 1, out + err)
        data = json.loads(report.read_text())
        self.assertEqual(data["summary"], {"total": 4, "passed": 1, "failed": 1, "build_failed": 1,
                                           "not_submitted": 1, "skipped_no_gpu": 0})
        results = {r["id"][:2]: r for r in data["exercises"]}
        self.assertEqual({k: r["test"]["result"] for k, r in results.items()},
                         {"03": "pass", "05": "fail", "07": "build-failed", "11": "not-submitted"})
        self.assertIn("MISMATCH", results["05"]["test"]["summary"])
        self.assertIn("#error", results["07"]["build"]["log"])
        self.assertEqual(data["gpu_archs"], "auto")
        self.assertIn("1 of 4 passed", out)
        cases = {tc.get("name")[:2]: tc for tc in ET.parse(junit).getroot().iter("testcase")}
        self.assertEqual(len(cases), 4)
        self.assertEqual([c.tag for c in cases["03"]], ["system-out"])  # passed: no failure, error or skipped
        self.assertEqual(cases["05"].find("failure").get("type"), "fail")
        self.assertEqual(cases["07"].find("error").get("type"), "build")
        self.assertEqual(cases["11"].find("failure").get("type"), "not-submitted")
        self.assertEqual(before, {p: p.read_bytes() for p in (self.repo / "exercises").rglob("*") if p.is_file()})
        # The copy holds the launcher and its package, so that exercises/meson.build can list the manifest there.
        r = subprocess.run([sys.executable, str(work / "src" / "tools" / "exercise"), "meson-list"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), COUNT)
        self.assertFalse((self.build / "build.ninja").exists(), "the student's build dir is not touched")

    def test_grade_without_a_gpu_exits_77_and_takes_the_main_builds_archs(self):
        sub = self.grade_submission()
        self.run_tool("hint", "03")  # makes the build dir ...
        (self.build / "meson-info").mkdir()
        (self.build / "meson-info" / "intro-buildoptions.json").write_text('[{"name": "gpu_archs", "value": "90"}]')
        os.environ["FAKE_NO_GPU"] = "1"
        report = self.tmp / "r.json"
        status, out, _ = self.run_tool("grade", str(sub), "--ids", "03,05", "--json", str(report),
                                       "--build", str(self.build))
        self.assertEqual(status, 77)
        self.assertIn("2 skipped: no usable GPU here", out)
        self.assertEqual(json.loads(report.read_text())["summary"]["skipped_no_gpu"], 2)
        setup = next(c for c in self.calls() if c[:2] == ["meson", "setup"])
        self.assertIn("-Dgpu_archs=90", setup)

    def test_grading_tree_resolves_every_include_of_every_exercise(self):
        """The grading build configures and compiles in a copy of the repository (make_grading_tree), not in it:
        every quoted #include of each exercise's test and file under test, followed through the headers they
        include, must resolve there on the include path exercises/meson.build gives (the file's own folder, the
        exercise's folder, exercises/support, common/; `<name.cuh>` on the include path alone; a test with
        include_chapter reaches its chapter's headers by a relative path), and no chapter
        program may be configured there (no chapter meson.build)."""
        tree = self.tmp / "grading-tree"
        exercise.make_grading_tree(tree)
        self.assertEqual(list((tree / "chapters").rglob("meson.build")), [])
        # "name" and <name.cuh> are the project's (tests name the file under test with angle brackets, so
        # that only the include path finds it); other <...> are the toolkit's or the system's.
        include = re.compile(r'^\s*#\s*include\s+(?:"([^"]+)"|<([^>/]+\.cuh)>)', re.M)
        unresolved = []
        for e in MANIFEST:
            dirs = [tree / "exercises" / e["id"], tree / "exercises" / "support",
                    tree / "common", tree / "common" / "fft", tree / "common" / "gemm"]
            dirs += [tree / d for d in e.get("include_dirs", [])]  # the manifest's extra folders (exercise 40)
            todo = [tree / e["files"]["test"], tree / e["files"]["exercise"]]
            seen = set()
            while todo:
                f = todo.pop()
                if f in seen:
                    continue
                seen.add(f)
                for quoted, angled in include.findall(f.read_text(encoding="utf-8", errors="replace")):
                    name = quoted or angled
                    hit = next((d / name for d in ([f.parent] if quoted else []) + dirs if (d / name).is_file()), None)
                    if hit is None:
                        unresolved.append(f"{e['id']}: {f.relative_to(tree)} includes \"{name}\"")
                    else:
                        todo.append(hit.resolve())
        self.assertEqual(unresolved, [])

    def test_verify_static_reports_a_folder_that_shadows_the_file_under_test(self):
        """meson writes a target's include folders to nvcc's command in reverse order: with exercise 18's chapter
        folder on the path (as exercises/meson.build had it until 2026-11-27) the chapter's packed_status.cuh was
        found before the student's, and the exercise passed as shipped. The static check reads the build's
        compile_commands.json and must report that order, and accept the exercise's own folder first."""
        e = entry("18")
        build = self.tmp / "order-build"
        (build / "meson-info").mkdir(parents=True)
        (build / "meson-info" / "meson-info.json").write_text(json.dumps({"directories": {"source": str(REPO)}}))

        def commands(first_chapter):
            out = []
            for kind, folder in (("exercise", "exercises"), ("solution", "solutions")):
                own = f"-I{REPO / folder / e['id']}"
                chapter = f"-I{REPO / 'chapters' / e['chapter']}"
                incs = [chapter, f"-I{REPO / 'exercises' / 'support'}", own] if first_chapter else \
                    [f"-I{REPO / 'exercises' / 'support'}", own, f"-I{REPO / 'common'}"]
                out.append({"directory": str(build), "file": f"exercises/{kind}-{e['id']}-test.cu",
                            "command": " ".join(["nvcc", "-Iexercises/x.p"] + incs + ["-c", "x.cu"])})
            return out

        (build / "compile_commands.json").write_text(json.dumps(commands(True)))
        found = exercise.include_order_problems(build, [e])
        self.assertEqual(len(found), 2, found)
        self.assertIn(f"finds <packed_status.cuh> in {REPO / 'chapters' / e['chapter']}", found[0])
        (build / "compile_commands.json").write_text(json.dumps(commands(False)))
        self.assertEqual(exercise.include_order_problems(build, [e]), [])

    def test_grade_usage_errors(self):
        status, _, err = self.run_tool("grade", str(self.tmp / "nope"), "--json", "x.json")
        self.assertEqual(status, 2)
        self.assertIn("does not exist", err)
        status, _, err = self.run_tool("grade", str(self.tmp))
        self.assertEqual(status, 2)
        self.assertIn("give --junit FILE and/or --json FILE", err)


class LauncherTest(unittest.TestCase):
    def test_the_launcher_runs_the_package_and_writes_no_bytecode(self):
        build = Path(tempfile.mkdtemp(prefix="exercise-launcher-"))
        try:
            r = subprocess.run([sys.executable, str(TOOLS / "exercise"), "list", "--build", str(build)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(f"{COUNT} not tried.", r.stdout)
            r = subprocess.run([sys.executable, str(TOOLS / "exercise"), "show", "nope"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stderr.splitlines(), [r.stderr.strip()])
            self.assertTrue(r.stderr.startswith("exercise: error: no exercise 'nope'"), r.stderr)
        finally:
            shutil.rmtree(build, ignore_errors=True)


class ManifestKindsTest(unittest.TestCase):
    """meson-list hands exercises/meson.build each entry's kind (host: doctest's main, solution in suite 'host'),
    extra include folders and requirements; the build check wants a host solution in 'host', not 'gpu'."""

    def test_meson_list_fields_and_host_suites(self):
        r = subprocess.run([sys.executable, str(TOOLS / "exercise"), "meson-list"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = {l.split("|")[0]: l.split("|") for l in r.stdout.splitlines()}
        self.assertEqual(len(lines), COUNT)
        for e in MANIFEST:
            f = lines[e["id"]]
            self.assertEqual(len(f), 9, f)
            self.assertEqual(f[6], "host" if e.get("host") else "gpu")
            self.assertEqual(f[7], ",".join(e.get("include_dirs", [])))
            self.assertEqual(f[8], ",".join(e.get("requires", [])))
        hosts = [e for e in MANIFEST if e.get("host")]
        if not hosts:
            return
        e = hosts[0]
        build = Path(tempfile.mkdtemp(prefix="exercise-kinds-"))
        try:
            (build / "meson-info").mkdir()
            tests = [{"name": x["test"], "suite": ["p:exercises"]} for x in MANIFEST]
            tests += [{"name": x["solution_test"], "suite": ["p:solutions", "p:" + ("host" if x.get("host") else "gpu")]}
                      for x in MANIFEST]
            intro = build / "meson-info" / "intro-tests.json"
            intro.write_text(json.dumps(tests))
            self.assertEqual([p for p in exercise.static_problems(REPO, build) if "suite" in p], [])
            for t in tests:
                if t["name"] == e["solution_test"]:
                    t["suite"] = ["p:solutions", "p:gpu"]
            intro.write_text(json.dumps(tests))
            self.assertIn(f"build {build}: {e['solution_test']} must be in suites 'solutions' and 'host'",
                          exercise.static_problems(REPO, build))
            # An entry that requires what the build lacks (no NCCL: meson left it out) is not a problem.
            needs = [x for x in MANIFEST if x.get("requires")]
            if needs:
                tests = [t for t in tests if t["name"] not in (needs[0]["test"], needs[0]["solution_test"])]
                intro.write_text(json.dumps(tests))
                self.assertEqual([p for p in exercise.static_problems(REPO, build) if needs[0]["id"] in p], [])
                self.assertEqual(exercise.left_out(build, needs[0]), needs[0]["requires"])
        finally:
            shutil.rmtree(build, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
