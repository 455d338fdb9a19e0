#!/usr/bin/env python3
"""Host test of the docs lint (tools/lint-docs, tools/tutkit/docs_lint.py): the variant extractor against real
--list output (tools/fixtures/list-*.txt), each rule on a fixture repository with planted errors, and the
repository's own READMEs. No GPU, no build. Run: python3 tools/test_docs.py"""

import json
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
TOOLS = Path(__file__).resolve().parent
FIXTURES = TOOLS / "fixtures"
sys.path.insert(0, str(TOOLS))

from tutkit import docs_lint  # noqa: E402
from tutkit.common import REPO_ROOT  # noqa: E402


class ExtractorTest(unittest.TestCase):
    def test_source_names_cover_each_list_fixture(self):
        fixtures = sorted(FIXTURES.glob("list-*.txt"))
        self.assertGreaterEqual(len(fixtures), 4)
        for f in fixtures:
            chapter = f.stem[len("list-"):]
            listed = docs_lint.variants_from_list(f.read_text())
            self.assertGreater(len(listed), 1, f)
            src = docs_lint.variants_from_source(REPO_ROOT / "chapters" / chapter)
            missing = {n for n in listed if not docs_lint.known_variant(n, src)}
            self.assertEqual(missing, set(), f"{chapter}: --list names the extractor missed")

    def test_names_built_at_run_time_and_comments(self):
        src = textwrap.dedent('''
            // {"commented-out", "not a variant"}
            std::vector<V> v = {{"plain-one", "desc"}, {"with-number", 4}};
            auto a = candidate<Shape<16, 256>>(
                "multi-line", "desc");
            for (int w : kWarps) v.push_back({std::string(chase ? "chase" : "fma") + "-warps-" + std::to_string(w)});
            v.push_back({"gather-stride" + std::to_string(s)});
            stage.name = "assigned";
            v.push_back(gemm_multistage::as_variant(
                "from-a-header", "desc", true));
            v.push_back(gemm_tma::as_variant<128, 3>("templated-maker", "desc", true));
        ''')
        names = docs_lint.names_in_source(src) | docs_lint.prefixes_in_source(src)
        for n in ("plain-one", "with-number", "multi-line", "assigned", "from-a-header", "templated-maker"):
            self.assertIn(n, names)
        self.assertNotIn("commented-out", names)
        for n in ("chase-warps-8", "fma-warps-64", "gather-stride32-block128"):
            self.assertTrue(docs_lint.known_variant(n, names), n)
        self.assertFalse(docs_lint.known_variant("chase-warps-", names))
        self.assertFalse(docs_lint.known_variant("plain-two", names))

    def test_a_stage_name_constant_in_common(self):
        # Chapters 54-57 register chapter 53's stage under tut::hopper::kSm90aFallbackStage, defined in common/.
        names = docs_lint.variants_from_source(REPO_ROOT / "chapters" / "57-bf16-gemm-persistent")
        self.assertIn("bf16-gemm-cp-async-pipeline", names)
        self.assertIn("bf16-gemm-tma-mbarrier", names)

    def test_list_json_and_text(self):
        j = json.dumps([{"name": "a-1", "description": "x", "reference": False, "on_demand": True,
                         "known_defect": ""}, {"name": "cub", "reference": True}])
        self.assertEqual(docs_lint.variants_from_list(j), {"a-1", "cub"})
        self.assertEqual(docs_lint.variants_from_list(json.dumps({"variants": [{"name": "b"}]})), {"b"})
        self.assertEqual(docs_lint.variants_from_list("x-1 (on demand)\tdesc\ncub (reference)\tcub\n"), {"x-1", "cub"})

    def test_slug(self):
        self.assertEqual(docs_lint.slug("Run it: `--variant` & more (2^28)"), "run-it---variant--more-228")
        self.assertEqual(docs_lint.anchors("# A\n## A\n```\n# not\n```\n"), {"a", "a-1"})


IDEA = ("The fake stage does one thing the previous chapter did not, and this sentence says what in enough words "
        "to carry the idea.")
CLEAN_README = """\
# 99: a fake stage
""" + IDEA + """
## The idea in one line

| variant | GB/s |
|---|---:|
| fake-stage | 1 |
| `fake-t128` | 2 |

`dram__bytes_read.sum` says why. See [the harness](../../docs/harness.md#timing) and [below](#more),
`common/runner.cuh` and chapters/99-fake/main.cu. Run `--variant fake-t128` or `cub`; chapter 98's
`other-stage` compares.

## More

<!-- measured: 99-fake -->
{block}
<!-- /measured -->
"""

RESULTS_MD = """\
# Measured results

| GPU | Fake GPU |
| driver | 1 |
| CUDA | 13.0 |
| date (UTC) | 2026-01-01T00:00:00Z |
| commit | `abcdef1` |

## Every chapter program

### 99-fake

| variant | GB/s |
|---|---:|
| fake-stage | 1 |
"""


class FixtureRepo:
    """A minimal repository: one chapter (99-fake) with sources and README, another (98) and docs/."""

    def __init__(self, readme=None):
        self.root = Path(tempfile.mkdtemp(prefix="docs-lint-"))
        for d in ("chapters/99-fake", "chapters/98-other", "common", "docs/results", "tools"):
            (self.root / d).mkdir(parents=True)
        (self.root / "common/runner.cuh").write_text("")
        (self.root / "common/scan_reference.cu").write_text(
            'spec.variants.push_back({"cub", "cub::DeviceScan::InclusiveSum", true, ""});\n')
        (self.root / "chapters/99-fake/main.cu").write_text(textwrap.dedent('''
            return tut::scan::make_scan_chapter("99-fake", "t", {
                {"fake-stage", "the stage", ws, launch, ""},
                candidate<Shape<128>>("fake-t128", "on demand"),
            });'''))
        (self.root / "chapters/98-other/main.cu").write_text('{"other-stage", "d"}\n')
        (self.root / "chapters/98-other/README.md").write_text("# 98\n\n" + IDEA + "\n")
        (self.root / "docs/harness.md").write_text("# Harness\n\n## Timing\n")
        self.results = self.root / "docs/results/fake.md"
        self.results.write_text(RESULTS_MD)
        self.readme = self.root / "chapters/99-fake/README.md"
        self.readme.write_text(readme if readme is not None else self.clean())

    def clean(self):
        import importlib.machinery
        import importlib.util
        spec = importlib.util.spec_from_loader("fm", importlib.machinery.SourceFileLoader(
            "fm", str(REPO_ROOT / "tools/fill-measured")))
        fm = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(fm)
        block = fm.results_fills(self.results)["99-fake"]
        return CLEAN_README.format(block=block)

    def lint(self, done=()):
        (self.root / "tools/docs-screen-done.txt").write_text("".join(f"{c}\n" for c in done))
        return docs_lint.Lint(self.root).run()

    def close(self):
        shutil.rmtree(self.root)


class RulesTest(unittest.TestCase):
    def setUp(self):
        self.repo = FixtureRepo()
        self.addCleanup(self.repo.close)
        self.clean = self.repo.readme.read_text()

    def findings(self, text=None, done=()):
        if text is not None:
            self.repo.readme.write_text(text)
        return [(line, rule, msg) for _, line, rule, msg in self.repo.lint(done).findings]

    def test_clean_fixture_passes(self):
        self.assertEqual(self.findings(), [])
        self.assertEqual([c for c, _ in self.repo.lint().screen], ["98-other"])  # its README is a bare title

    def plant(self, old, new):
        text = self.clean
        self.assertIn(old, text)
        return text.replace(old, new, 1)

    def assert_caught(self, text, rule, needle, line):
        got = self.findings(text)
        hits = [f for f in got if f[1] == rule and needle in f[2]]
        self.assertTrue(hits, f"{rule} {needle!r} not caught; findings: {got}")
        self.assertEqual(hits[0][0], line, got)

    def test_bad_link(self):
        self.assert_caught(self.plant("../../docs/harness.md#timing", "../../docs/harnes.md"), "link", "harnes.md", 10)

    def test_bad_anchor(self):
        self.assert_caught(self.plant("#timing", "#timings"), "link", "#timings", 10)
        self.assert_caught(self.plant("(#more)", "(#less)"), "link", "#less", 10)

    def test_bad_quoted_path(self):
        self.assert_caught(self.plant("`common/runner.cuh`", "`common/runner.cu`"), "path", "common/runner.cu", 11)

    def test_tmp_path(self):
        self.assert_caught(self.plant("## More\n", "## More\n\n    /tmp/bc/chapters/99-fake/99-fake\n"),
                           "tmp", "/tmp/bc/chapters", 16)

    def test_issue_reference(self):
        self.assert_caught(self.plant("says why.", "says why (issue #3)."), "issue", "issue #3", 10)
        self.assert_caught(self.plant("says why.", "meets the issue's targets."), "issue", "the issue's", 10)
        # ncu's issue-slot figure is no reference
        self.assertEqual(self.findings(self.plant("says why.", "says why: issue 78.0% active.")), [])

    def test_unknown_variant(self):
        self.assert_caught(self.plant("--variant fake-t128", "--variant fake-t256"), "variant", "fake-t256", 11)
        self.assert_caught(self.plant("| `fake-t128` |", "| fake-t64 |"), "variant", "fake-t64", 8)
        self.assert_caught(self.plant("`cub`;", "`fake-t512`;"), "variant", "fake-t512", 11)
        # a former name is accepted once the README declares it
        text = self.plant("--variant fake-t128", "--variant fake-t128 (once `fake-t96`) "
                          "<!-- former-variants: fake-t96 -->")
        self.assertEqual(self.findings(text), [])

    def test_measured_block_out_of_date(self):
        self.assert_caught(self.plant("| fake-stage | 1 |\n\n(Full", "| fake-stage | 2 |\n\n(Full"),
                           "measured", "differs", 16)

    def test_measured_block_without_generator(self):
        """A block that no generator writes (no results file cited, no screens/ template, no table script's BLOCKS
        entry) is a typed copy of numbers: flagged where it opens."""
        text = self.plant("## More\n", "## More\n\n<!-- measured: 99-typed -->\nThe stage runs 1.23x CUB.\n"
                          "<!-- /measured -->\n")
        self.assert_caught(text, "measured", "99-typed: no generator writes it", 16)

    def test_table_script_blocks(self):
        """A block named in the BLOCKS of a table script that tools/meson.build runs is its committed table; one the
        meson.build does not list has no generator."""
        raw = self.repo.root / "docs/results/raw/2026-01-01-fake"
        (raw / "tables").mkdir(parents=True)
        (raw / "tables.py").write_text('BLOCKS = {"99-from-script": "99-table"}\n'
                                       'if __name__ == "__main__":\n    raise SystemExit("not run by the lint")\n')
        (raw / "tables/99-table.md").write_text("| n | GB/s |\n|---|---:|\n| 1 | 2.5 |\n")
        block = "<!-- measured: 99-from-script -->\n| n | GB/s |\n|---|---:|\n| 1 | 2.5 |\n<!-- /measured -->\n"
        text = self.plant("## More\n", "## More\n\n" + block)
        meson = self.repo.root / "tools/meson.build"
        meson.write_text("foreach t : [['results-tables-other', 'elsewhere/tables.py']]\nendforeach\n")
        self.assert_caught(text, "measured", "99-from-script: no generator writes it", 16)
        self.assertIn((1, "measured"), [(f[0], f[1]) for f in self.findings(text) if "elsewhere/tables.py" in f[2]])
        meson.write_text("foreach t : [['results-tables-fake', '2026-01-01-fake/tables.py']]\n  test(t[0])\nendforeach\n")
        self.assertEqual(self.findings(text), [])
        self.assert_caught(text.replace("| 1 | 2.5 |\n<!--", "| 1 | 2.6 |\n<!--"), "measured",
                           "differs from docs/results/raw/2026-01-01-fake/tables/99-table.md", 16)
        (raw / "tables/99-table.md").unlink()
        self.assert_caught(text, "measured", "no committed table", 16)

    def test_stale_results_link(self):
        text = self.plant("## More\n", "## More\n\nOne run, commit `1234567` ([r](../../docs/results/fake.md)).\n")
        self.assert_caught(text, "stale", "abcdef1", 16)
        ok = self.plant("## More\n", "## More\n\nOne run, commit `abcdef1` ([r](../../docs/results/fake.md)).\n")
        self.assertEqual(self.findings(ok), [])

    def test_first_screen_is_a_list_until_done(self):
        text = self.plant("`dram__bytes_read.sum` says why.", "The DRAM bytes say why.")
        self.assertEqual(self.findings(text), [])
        self.assertIn(("99-fake", ["an ncu metric (`xxx__yyy`)"]), self.repo.lint().screen)
        got = self.findings(text, done=["99-fake"])
        self.assertEqual([f[1] for f in got], ["screen"])

    def test_opening_words_before_the_first_table(self):
        self.assert_caught(self.plant(IDEA + "\n", "\n"), "opening", "0 words before the first table", 1)
        long = " ".join(["word"] * (docs_lint.OPENING_WORDS[1] + 1))
        self.assert_caught(self.plant(IDEA + "\n", long + "\n"), "opening", "201 words", 1)

    def test_first_screen_word_limit(self):
        many = ("Words that make the first screen long. " * 60).strip()
        got = self.findings(self.plant("## More\n", "## More\n\n" + many + "\n"))
        self.assertIn("words", [f[1] for f in got], got)
        # past the first screen, words are free
        text = self.clean.replace("## More\n", "## More\n" + "\n" * 40 + many + "\n", 1)
        self.assertNotIn("words", [f[1] for f in self.findings(text)])

    def test_project_targets(self):
        self.assert_caught(self.plant("says why.", "says why; the target is met."), "target", "'target'", 10)
        self.assert_caught(self.plant("says why.", "says why: goal met."), "target", "'goal'", 10)
        for fine in ("says why: 12 divergent\nbranch targets.", "says why (CUDA 13's oldest target).",
                     "says why. <!-- the targets: none -->"):
            self.assertEqual(self.findings(self.plant("says why.", fine)), [], fine)

    def test_previous_stage_named_in_a_first_screen_table(self):
        """99-fake follows 98-fake in its ladder: its first screen's tables must name 98's stage (by its variant
        name, or by number at the start of a cell)."""
        prev = self.repo.root / "chapters/98-fake"
        prev.mkdir()
        (prev / "README.md").write_text("# 98\n\n" + IDEA + "\n")
        (prev / "main.cu").write_text('{"fake", "the previous stage"}\n')
        self.assert_caught(self.clean, "previous", "(98-fake)", 1)
        self.assertEqual(self.findings(self.plant("| fake-stage | 1 |\n", "| fake-stage | 1 |\n| fake | 3 |\n")), [])
        self.assertEqual(self.findings(self.plant("| fake-stage | 1 |\n", "| fake-stage | 1 |\n| 98 (four-step) | 3 |\n")), [])
        # a number that only starts with 98 is not the chapter
        self.assert_caught(self.plant("| fake-stage | 1 |\n", "| fake-stage | 1 |\n| 98.5 | 3 |\n"), "previous", "98-fake", 1)
        self.assertEqual(docs_lint.previous_chapter("40-scan-multi-gpu", ["17-scan-x", "39-scan-y"]), "17-scan-x")
        self.assertIsNone(docs_lint.previous_chapter("20-sgemm-naive", ["19-scan-z"]))

    def test_known_exceptions_excuse_and_go_stale(self):
        text = self.plant("says why.", "says why; the target is met.")
        saved = docs_lint.KNOWN_EXCEPTIONS
        docs_lint.KNOWN_EXCEPTIONS = {"target": {"99-fake": "reason"}, "words": {"98-other": "reason"}}
        self.addCleanup(setattr, docs_lint, "KNOWN_EXCEPTIONS", saved)
        self.repo.readme.write_text(text)
        lint = self.repo.lint()
        self.assertEqual(lint.findings, [])
        self.assertIn(("target", "99-fake"), lint.excused)
        self.assertEqual(lint.stale_exceptions(), [("words", "98-other")])
        self.repo.readme.write_text(self.clean)
        self.assertIn(("target", "99-fake"), self.repo.lint().stale_exceptions())

    def test_command_line_exit_status(self):
        cmd = [sys.executable, str(TOOLS / "lint-docs"), "--root", str(self.repo.root)]
        self.assertEqual(subprocess.run(cmd, capture_output=True).returncode, 0)
        self.repo.readme.write_text(self.plant("says why.", "says why (issue #3)."))
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("chapters/99-fake/README.md:10: issue:", r.stdout)
        r = subprocess.run(cmd[:-1] + ["/nonexistent"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1)


class ScreensTest(unittest.TestCase):
    """The sentence templates (tools/tutkit/screens.py): each placeholder renders from the results JSON and an ncu
    CSV, a bad one is refused with the template's name, and the lint flags a block that differs from its template."""

    def setUp(self):
        self.repo = FixtureRepo()
        self.addCleanup(self.repo.close)
        root = self.repo.root
        row = lambda v, ms, pct: {"variant": v, "median_ms": ms, "pct_memcpy": pct, "speed_vs_ref": 0.5, "n": 1024}
        (root / "docs/results/fake.json").write_text(json.dumps({
            "meta": {"gpu": "Fake GPU", "cuda_runtime": "13.0", "date": "2026-11-25T10:00:00", "commit": "abc1234"},
            "programs": [{"chapter": "98-other", "data": {"results": [row("other-stage", 4.0, 10.0)]}},
                         {"chapter": "99-fake", "data": {"results": [row("fake-stage", 1.0, 40.25)]}}]}))
        (root / "docs/results/ncu.csv").write_text("chapter,variant,kernel,time us,bank confl\n"
                                                  "98-other,other-stage,k,30.0,1000\n"
                                                  "99-fake,fake-stage,k,10.0,10\n")
        self.screens = root / "docs/results/screens"
        self.screens.mkdir()
        (self.screens / "results.txt").write_text("docs/results/fake.md\n")

    def render(self, template):
        from tutkit import screens
        (self.screens / "99-fake-screen.md").write_text(template)
        return screens.screen_fills(self.screens)["99-fake-screen"]

    def test_placeholders(self):
        got = self.render("{provenance}: {run:99-fake:fake-stage:pct_memcpy}% of copy, "
                          "{speedup:99-fake:fake-stage:98-other:other-stage}x faster, "
                          "{run:99-fake:fake-stage:median_us:.0f} us; conflicts {ncu:docs/results/ncu.csv:98-other:k:bank confl} "
                          "-> {ncu:docs/results/ncu.csv:99-fake:k:bank confl}, "
                          "{ncuratio:docs/results/ncu.csv:99-fake:k:time us:98-other:k:.1f}x; {{literal}} {results}")
        self.assertEqual(got, "Fake GPU, CUDA 13.0, 2026-11-25, commit `abc1234`: 40.2% of copy, 4.00x faster, "
                              "1000 us; conflicts 1,000 -> 10, 3.0x; {literal} [fake.md](../../docs/results/fake.md)")

    def test_versus_and_gpu(self):
        """{versus:...} says faster or slower by the median, and a tie when the min-max ranges overlap."""
        from tutkit import screens
        r = lambda ms, lo, hi: {"median_ms": ms, "min_ms": lo, "max_ms": hi}
        self.assertEqual(screens.versus(r(1.0, 0.9, 1.1), r(4.0, 3.9, 4.2)), "4.00x faster than")
        self.assertEqual(screens.versus(r(2.1, 2.05, 2.2), r(2.0, 1.9, 2.04)), "1.050x slower than")
        self.assertTrue(screens.versus(r(2.0, 1.9, 2.1), r(2.05, 2.0, 2.2)).startswith("level (a tie: 1.025x"))
        self.assertEqual(self.render("{gpu}"), "Fake GPU")

    def test_results_line(self):
        """A template's first line may name another results file; the line itself is not rendered."""
        import copy as _copy
        other = json.loads((self.repo.root / "docs/results/fake.json").read_text())
        other = _copy.deepcopy(other)
        other["meta"]["gpu"] = "Other GPU"
        (self.repo.root / "docs/results/other.json").write_text(json.dumps(other))
        self.assertEqual(self.render("<!-- results: docs/results/other.md -->\n{gpu} {results}"),
                         "Other GPU [other.md](../../docs/results/other.md)")
        self.assertEqual(self.render("{gpu}"), "Fake GPU")

    def test_csv_cell(self):
        (self.repo.root / "docs/results/shapes.csv").write_text("m,n,ratio_28\n1024,1024,1.0544\n1024,2048,0.5\n")
        self.assertEqual(self.render("{csv:docs/results/shapes.csv:m=1024,n=2048:ratio_28:.3f}x, "
                                     "{csv:docs/results/shapes.csv:n=1024:ratio_28:.2f}x"), "0.500x, 1.05x")

    def test_sweep_field(self):
        """{sweep:...} reads <results stem>-sweeps-KIND.json: a run of a chapter-level sweep or of a ladder sweep,
        picked by chapter and swept parameter; a missing run, variant or sweeps file is refused."""
        from tutkit import screens
        res = lambda v, ms, gf: {"variant": v, "median_ms": ms, "gflops": gf}
        run = lambda ch, p, rows: {"chapter": ch, "params": {"size": p}, "data": {"results": rows}}
        (self.repo.root / "docs/results/fake-sweeps-sgemm.json").write_text(json.dumps({
            "sweeps": {"loads": {"chapter": "98-other", "runs": [run("98-other", "2^20", [res("copy", 0.5, 0)])]}},
            "ladder_sweeps": {"sgemm": {"runs": [
                run("99-fake", "1024", [res("fake-stage", 0.25, 8589.9), res("cublas", 0.125, 17179.8)]),
                run("99-fake", "4096", [res("fake-stage", 16.0, 8590.0)]),
                {"chapter": "99-fake", "params": {"size": "8192"}, "data": None, "error": "timeout"}]}}}))
        self.assertEqual(self.render("{sweep:sgemm:99-fake:1024:fake-stage:gflops:,.0f} vs "
                                     "{sweep:sgemm:99-fake:1024:cublas:gflops:,.0f}, "
                                     "{sweep:sgemm:99-fake:4096:fake-stage:median_us:.0f} us, "
                                     "{sweep:sgemm:98-other:2^20:copy:median_ms:.2f} ms"),
                         "8,590 vs 17,180, 16000 us, 0.50 ms")
        for bad, why in (("{sweep:sgemm:99-fake:2048:fake-stage:gflops}", "0 runs"),
                         ("{sweep:sgemm:99-fake:4096:cublas:gflops}", "no variant"),
                         ("{sweep:sgemm:99-fake:8192:fake-stage:gflops}", "failed"),
                         ("{sweep:sgemm:99-fake:1024:fake-stage:no_field}", "no field"),
                         ("{sweep:fft:99-fake:1024:fake-stage:gflops}", "no sweeps JSON")):
            with self.assertRaises(screens.TemplateError, msg=bad) as e:
                self.render(bad)
            self.assertIn(why, str(e.exception))

    def test_bad_placeholders_are_refused(self):
        from tutkit import screens
        for bad in ("{run:99-fake:no-such:pct_memcpy}", "{run:97-none:x:pct_memcpy}",
                    "{ncu:docs/results/ncu.csv:99-fake:nokernel:time us}", "{frobnicate:1}",
                    "{run:99-fake:fake-stage:no_field}", "{csv:docs/results/ncu.csv:kernel=k:time us}",
                    "{csv:docs/results/ncu.csv:chapter=97-none:time us}", "{csv:docs/results/ncu.csv:chapter:time us}",
                    "{csv:docs/results/ncu.csv:chapter=99-fake:no column}"):
            with self.assertRaises(screens.TemplateError, msg=bad) as e:
                self.render(bad)
            self.assertIn("99-fake-screen.md", str(e.exception))

    def test_ncu_launch_id(self):
        """KERNEL#ID names one launch of a kernel that runs more than once; without it such a kernel is refused."""
        from tutkit import screens
        (self.repo.root / "docs/results/ncu-launches.csv").write_text(
            "chapter,variant,kernel,launch_id,time us\n99-fake,fake-stage,scan_k,0,149.4\n"
            "99-fake,fake-stage,scan_k,1,3.4\n99-fake,fake-stage,add_k,2,70.0\n99-fake,fake-stage,(total),,222.8\n")
        csv = "docs/results/ncu-launches.csv:99-fake"
        self.assertEqual(self.render(f"{{ncu:{csv}:scan_k#1:time us}} {{ncu:{csv}:scan_k#0:time us}} "
                                     f"{{ncu:{csv}:add_k:time us}} {{ncu:{csv}:(total):time us}}"),
                         "3.4 149.4 70.0 222.8")
        for bad, why in ((f"{{ncu:{csv}:scan_k:time us}}", "2 rows"), (f"{{ncu:{csv}:scan_k#7:time us}}", "no row")):
            with self.assertRaisesRegex(screens.TemplateError, why, msg=bad):
                self.render(bad)

    def test_lint_flags_a_block_that_differs_from_its_template(self):
        rendered = self.render("{run:99-fake:fake-stage:pct_memcpy}% of copy")
        text = self.repo.readme.read_text() + f"\n<!-- measured: 99-fake-screen -->\n{rendered}\n<!-- /measured -->\n"
        self.repo.readme.write_text(text)
        self.assertEqual([f for f in self.repo.lint().findings if f[2] == "measured"], [])
        self.repo.readme.write_text(text.replace("40.2% of copy", "41.0% of copy"))
        hits = [f for f in self.repo.lint().findings if f[2] == "measured"]
        self.assertEqual(len(hits), 1, hits)
        self.assertIn("99-fake-screen", hits[0][3])


class ChapterMapTest(unittest.TestCase):
    """The front page's chapter map: its result column is written from a results JSON (tools/tutkit/chapter_map.py),
    checked by the lint (rule 'map'), and written by tools/lint-docs --fill."""
    RESULTS = {"meta": {"gpu": "Fake GPU 80GB"},
               "stages": {"rows": [{"number": 5, "ours_ms": 2.0, "x_prev": None, "pct_memcpy": 40.24, "vs_cub": 0.0072},
                                   {"number": 6, "ours_ms": 1.0, "x_prev": 2.0, "pct_memcpy": 80.5, "vs_cub": 1.13}]},
               "ladders": {"sgemm": [{"chapter": "20-sgemm-naive", "ms": 3.0, "x_prev": None, "pct_peak": 8.9,
                                      "vs_ref": 0.117}]},
               "programs": [{"chapter": "03-vectorized-loads", "data": {"results": [
                   {"variant": "int4", "pct_memcpy": 93.24, "speed_vs_ref": 0.93, "ref_name": "cudaMemcpy"}]}}]}
    BODY = ("| # | chapter | what you learn | result |\n|---|---|---|---|\n"
            "| 03 | [v](chapters/03/) | vector loads | |\n| 05 | [s](chapters/05/) | the scan | |\n"
            "| 06 | [s](chapters/06/) | shared memory | |\n| 20 | [g](chapters/20/) | sgemm | |\n"
            "| 07 | [s](chapters/07/) | not run | |\n")

    def test_render(self):
        from tutkit import chapter_map
        got = chapter_map.render(self.BODY, self.RESULTS).splitlines()
        self.assertEqual(got[0], "| # | chapter | what you learn | result on Fake GPU 80GB |")
        self.assertEqual(got[2], "| 03 | [v](chapters/03/) | vector loads | `int4`: 93.2% of copy |")
        self.assertEqual(got[3], "| 05 | [s](chapters/05/) | the scan | 40.2% of copy, 0.007x CUB |")
        self.assertEqual(got[4], "| 06 | [s](chapters/06/) | shared memory | 2.00x prev, 80.5% of copy, 1.13x CUB |")
        self.assertEqual(got[5], "| 20 | [g](chapters/20/) | sgemm | 8.9% of FP32 peak, 0.12x cuBLAS |")
        self.assertEqual(got[6], "| 07 | [s](chapters/07/) | not run | not measured yet |")

    def test_render_several_files(self):
        """A marker may name several results files of one GPU: a chapter's cell comes from the last that measured
        it; files of two GPUs are an error."""
        from tutkit import chapter_map
        later = {"meta": {"gpu": "Fake GPU 80GB"},
                 "stages": {"rows": [{"number": 5, "ours_ms": 1.5, "x_prev": None, "pct_memcpy": 50.0, "vs_cub": 0.01}]}}
        got = chapter_map.render(self.BODY, [self.RESULTS, later]).splitlines()
        self.assertEqual(got[3], "| 05 | [s](chapters/05/) | the scan | 50.0% of copy, 0.010x CUB |")
        self.assertEqual(got[4], "| 06 | [s](chapters/06/) | shared memory | 2.00x prev, 80.5% of copy, 1.13x CUB |")
        other = dict(later, meta={"gpu": "Other GPU"})
        with self.assertRaisesRegex(ValueError, "different GPUs"):
            chapter_map.render(self.BODY, [self.RESULTS, other])

    def test_csv_runs(self):
        """A chapter's cell from its own CSV run (stage, previous stage, cuBLAS in one process), only on the results
        file's GPU; overlapping ranges of repetitions are a tie."""
        from tutkit import chapter_map
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        head = "chapter,variant,median_ms,min_ms,max_ms,speed_vs_ref,ref_name\n"
        (tmp / "run.csv").write_text(head + "56-x-y,x-y,2.0,1.9,2.1,0.9,cublas\n56-x-y,prev-z,1.9,1.8,1.95,0.95,cublas\n"
                                     "56-x-y,cublas,1.8,1.7,1.85,1,cublas\n")
        (tmp / "run.err").write_text("# GPU 0: Fake GPU 80GB (compute capability 9.0, 132 SMs)\n")
        self.assertEqual(chapter_map.csv_run_cell("run.csv", "prev-z", "Fake GPU 80GB", tmp), "0.95x prev (a tie), 0.90x cuBLAS")
        self.assertIsNone(chapter_map.csv_run_cell("run.csv", "prev-z", "Other GPU", tmp))
        self.assertIsNone(chapter_map.csv_run_cell("none.csv", "prev-z", "Fake GPU 80GB", tmp))
        # A program that times a copy of the same bytes (the FFT chapters): its share of the copy too.
        head = "chapter,variant,median_ms,min_ms,max_ms,pct_memcpy,speed_vs_ref,ref_name\n"
        (tmp / "fft.csv").write_text(head + "35-x-y,x-y,1.0,0.9,1.1,98.5,1.01,cufft\n35-x-y,prev-z,2.0,1.9,2.1,49.2,0.5,"
                                     "cufft\n35-x-y,cufft,1.01,1.0,1.02,97.5,1,cufft\n")
        (tmp / "fft.err").write_text("# GPU 0: Fake GPU 80GB (compute capability 9.0, 132 SMs)\n")
        # The stage's range (0.9-1.1 ms) holds cuFFT's median: a tie with the vendor library too.
        self.assertEqual(chapter_map.csv_run_cell("fft.csv", "prev-z", "Fake GPU 80GB", tmp),
                         "2.00x prev, 98.5% of copy, 1.01x cuFFT (a tie)")
        # Timed in rounds (--rounds): the paired ratio's range decides, not the overlap of the repetitions' ranges.
        head = "chapter,variant,median_ms,min_ms,max_ms,speed_vs_ref,ref_name,speed_min,speed_max,rounds\n"
        for low, cell in (("1.012", "1.20x prev, 1.04x cuBLAS"), ("0.990", "1.20x prev (a tie), 1.04x cuBLAS (a tie)")):
            (tmp / "rounds.csv").write_text(head + f"59-x-y,x-y,1.0,0.8,1.5,1.044,cublas,{low},1.08,15\n"
                                            "59-x-y,prev-z,1.2,0.9,1.6,0.87,cublas,0.85,1.0,15\n"
                                            "59-x-y,cublas,1.04,0.9,1.3,1,cublas,1,1,15\n")
            (tmp / "rounds.err").write_text("# GPU 0: Fake GPU 80GB (compute capability 9.0, 132 SMs)\n")
            self.assertEqual(chapter_map.csv_run_cell("rounds.csv", "prev-z", "Fake GPU 80GB", tmp), cell)

    def test_length_runs(self):
        """36-38's cells come from a committed run at their own length, with the previous stage in the same table,
        only when that run's GPU is the results file's."""
        from tutkit import chapter_map
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        (tmp / "run.txt").write_text(textwrap.dedent("""\
            36-fft-one-block-large: batched 1-D FFT
            GPU 0: Fake GPU 80GB (compute capability 9.0, 132 SMs, 50.0 MiB L2, 79.2 GiB)

            variant                 n  median ms  % memcpy  speed vs cufft  check
            ---------------------------------------------------------------------
            cudaMemcpy *         2^27     0.7196     100.0               -  -
            fft-one-block-large  2^27     0.8000      90.0          0.925x  ok
            fft-tuned            2^27      3.200      22.5          0.239x  ok
            cufft *              2^27     0.7400      97.3          1.000x  ok
            (* vendor reference)

            N = 2^14, batch = 8192 signals
            """))
        self.assertEqual(chapter_map.length_run_cell("36-fft-one-block-large", ["none.txt", "run.txt"], "fft-tuned",
                                                     "Fake GPU 80GB", tmp), "N = 2^14: 4.00x prev, 90.0% of copy, 0.93x cuFFT")
        self.assertIsNone(chapter_map.length_run_cell("36-fft-one-block-large", ["run.txt"], "fft-tuned", "Other GPU", tmp))
        self.assertIsNone(chapter_map.length_run_cell("36-fft-one-block-large", ["none.txt"], "fft-tuned", "Fake GPU 80GB",
                                                      tmp))

    def test_lint_checks_and_fill_writes(self):
        repo = FixtureRepo()
        self.addCleanup(repo.close)
        for c in ("03", "05", "06", "07", "20"):
            (repo.root / "chapters" / c).mkdir()
        (repo.root / "docs/results/fake.json").write_text(json.dumps(self.RESULTS))
        top = repo.root / "README.md"
        top.write_text("# T\n\n<!-- chapter-map: docs/results/fake.json -->\n" + self.BODY + "<!-- /chapter-map -->\n")
        self.assertEqual([f[2] for f in docs_lint.Lint(repo.root).run().findings], ["map"])
        r = subprocess.run([sys.executable, str(TOOLS / "lint-docs"), "--root", str(repo.root), "--fill"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("80.5% of copy", top.read_text())
        self.assertEqual(docs_lint.Lint(repo.root).run().findings, [])
        # a typed number in the column is caught
        top.write_text(top.read_text().replace("80.5% of copy", "85.0% of copy"))
        self.assertEqual([f[2] for f in docs_lint.Lint(repo.root).run().findings], ["map"])
        # and a marker naming a missing results file
        top.write_text(top.read_text().replace("fake.json", "none.json"))
        self.assertTrue(any(f[2] == "map" and "no such results file" in f[3]
                            for f in docs_lint.Lint(repo.root).run().findings))


class BuildTimesTest(unittest.TestCase):
    """The front page's build-times sentence (tools/tutkit/build_times.py): written from two tools/check logs,
    checked by the lint, rewritten by --fill."""

    def setUp(self):
        from tutkit import build_times
        self.bt = build_times
        self.root = Path(tempfile.mkdtemp())
        (self.root / "gpu").mkdir()
        (self.root / "gpu" / "gpu.txt").write_text("NVIDIA H200, 580.159.04, 143771 MiB\n")
        (self.root / "gpu" / "check.log").write_text("Message: gpu_archs=auto: GPU found, building for 90\n"
                                                     "build 147 s, tests 284 s\ntests: 111 passed, 0 failed, 0 skipped\n")
        (self.root / "ci.log").write_text(
            "Message: gpu_archs=auto: no nvidia-smi, building for sm_75 + compute_75 PTX only: runs on every GPU\n"
            "build 800 s, tests 20 s\ntests: 30 passed, 0 failed, 81 skipped\n"
            "ci: step 2: meson 1.12.1 from .venv, sm_90: built sm90-code x y in 140 s; host tests passed\n")

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def test_fill_then_check(self):
        text = "How long: <!-- build-times: gpu/check.log ci.log -->placeholder<!-- /build-times -->\n"
        self.assertEqual(len(self.bt.check(text, self.root)), 1)
        filled = self.bt.fill(text, self.root)
        self.assertEqual(self.bt.check(filled, self.root), [])
        self.assertIn("took 147 s to build and 284 s to test on one NVIDIA H200 (111 passed, 0 failed, 0 skipped", filled)
        self.assertIn("800 s to build (sm_75 + compute_75 PTX) and 20 s to test on 2 cores", filled)
        self.assertIn("in 140 s more", filled)
        # A third log, from a machine of several GPUs (gpu.txt as nvidia-smi's "index, name, ..." lines).
        (self.root / "x4").mkdir()
        (self.root / "x4" / "gpu.txt").write_text("".join(f"{i}, NVIDIA H200, 580.159.04, 143771 MiB\n" for i in range(4)))
        (self.root / "x4" / "check.log").write_text("build 105 s, tests 125 s\ntests: 124 passed, 0 failed, 0 skipped\n")
        three = self.bt.fill(text.replace("ci.log -->", "ci.log x4/check.log -->"), self.root)
        self.assertEqual(self.bt.check(three, self.root), [])
        self.assertIn("<!-- build-times: gpu/check.log ci.log x4/check.log -->", three)
        self.assertIn("105 s and 125 s on 4 NVIDIA H200s of one host, where it spreads the GPU tests over them "
                      "(124 passed", three)
        # A log without tools/check's summary is a finding, not a crash.
        (self.root / "ci.log").write_text("nothing\n")
        self.assertIn("no tools/check summary", self.bt.check(filled, self.root)[0][1])


class RepositoryTest(unittest.TestCase):
    def test_repository_docs_pass(self):
        lint = docs_lint.Lint(REPO_ROOT).run()
        self.assertEqual(["%s:%s: %s: %s" % f for f in lint.findings], [])


if __name__ == "__main__":
    unittest.main(verbosity=1)
