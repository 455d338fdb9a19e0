#!/usr/bin/env python3
"""Host tests of the comparison tools (tools/tour, results, ncu-compare, sanitize): their arithmetic,
parsing and formatting on fixtures, and each tool end to end with stand-ins for the chapter programs,
ncu and meson (tools/fixtures/fake_*.py). No GPU needed. Run: python3 tools/test_tools.py"""

import contextlib
import copy
import io
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from pathlib import Path

sys.dont_write_bytecode = True
TOOLS = Path(__file__).resolve().parent
FIXTURES = TOOLS / "fixtures"
sys.path.insert(0, str(TOOLS))

from tutkit import bootstrap, buildlog, common, ncu, resources, results, sanitize, testlog, tour  # noqa: E402
from tutkit.common import ToolError  # noqa: E402


def fixture_json(name):
    return json.loads((FIXTURES / name).read_text())


def argparse_namespace(**kw):
    import argparse
    return argparse.Namespace(**kw)


def record(chapter, data=None, error=None, params=None):
    return {"chapter": chapter, "program": f"build/chapters/{chapter}/{chapter}", "params": params or {},
            "command": f"build/chapters/{chapter}/{chapter} --format json", "returncode": 0 if not error else 1,
            "elapsed_s": 1.0, "error": error, "data": data}


def fixture_records(*chapters):
    return [record(c, fixture_json(f"program-{c}.json")) for c in chapters]


SCAN = ["05-scan-baseline", "06-scan-shared-memory", "09-scan-zero-padding", "14-scan-two-pass"]


def install_script(source, dest):
    """Copies a fixture script to `dest`, executable, run by this interpreter (not whatever `python3` on
    PATH is, which may be slow to start or missing)."""
    lines = Path(source).read_text().splitlines(keepends=True)
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    Path(dest).write_text(f"#!{sys.executable}\n" + "".join(lines))
    os.chmod(dest, 0o755)
    return Path(dest)


def call(main, argv):
    """Runs a tool's main through run_main with stdout and stderr captured: (status, out, err)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = common.run_main(main, argv)
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read()


class FakeBuild:
    """A build directory whose chapter programs are tools/fixtures/fake_chapter.py."""

    def __init__(self, chapters):
        self.dir = Path(tempfile.mkdtemp(prefix="tools-test-build-"))
        self.log = self.dir / "calls.jsonl"
        for c in chapters:
            d = self.dir / "chapters" / c
            d.mkdir(parents=True)
            install_script(FIXTURES / "fake_chapter.py", d / c)
            # the -G and -test builds must never be picked up
            install_script(FIXTURES / "fake_chapter.py", d / (c + "-test"))
        os.environ["FAKE_FIXTURES"] = str(FIXTURES)
        os.environ["FAKE_CHAPTER_LOG"] = str(self.log)

    def calls(self):
        return [json.loads(l) for l in self.log.read_text().splitlines()] if self.log.exists() else []

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


# ---- common -------------------------------------------------------------------------------------

class ResourcesTest(unittest.TestCase):
    """tools/tutkit/resources.py: cuobjdump --dump-resource-usage parsed, written and read back, one kernel found."""
    DUMP = """
Fatbin elf code:
================
arch = sm_90
code version = [1,8]

Resource usage:
 Common:
  GLOBAL:32768 CONSTANT[4]:8
 Function _Z6kernelILi8EEvPf:
  REG:128 STACK:8 SHARED:1024 LOCAL:0 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z6kernelILi16EEvPf:
  REG:64 STACK:0 SHARED:2048 LOCAL:4 CONSTANT[0]:552 TEXTURE:0 SURFACE:0 SAMPLER:0
"""

    def test_parse_write_load_find(self):
        found = resources.parse(self.DUMP)
        self.assertEqual([(a, n, u["REG"], u["STACK"], u["SHARED"], u["LOCAL"]) for a, n, u in found],
                         [("sm_90", "_Z6kernelILi8EEvPf", 128, 8, 1024, 0), ("sm_90", "_Z6kernelILi16EEvPf", 64, 0, 2048, 4)])
        names = resources.demangle([n for _, n, _ in found])
        rows = [{"chapter": "99-x", "object": "main.cu.o", "arch": a, "kernel": k, "reg": u["REG"], "stack": u["STACK"],
                 "shared": u["SHARED"], "local": u["LOCAL"]} for (a, _, u), k in zip(found, names)]
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "r.txt"
            resources.write(path, rows + rows, ["made here"])  # duplicates (a test object too) appear once
            self.assertEqual(resources.header(path), ["made here"])
            back = resources.load(path)
        self.assertEqual(len(back), 2)
        self.assertEqual(resources.registers(back, "99-x", names[1]), 64)
        with self.assertRaises(KeyError):
            resources.registers(back, "99-x", "kernel")  # two match: ambiguous


class CommonTest(unittest.TestCase):
    def test_sizes(self):
        for text, n in [("1048576", 2**20), ("2^20", 2**20), ("1M", 2**20), ("4K", 4096), ("3*2^20", 3 * 2**20),
                        ("2^31+5", 2**31 + 5), ("2^28-1", 2**28 - 1), ("0", 0)]:
            self.assertEqual(common.parse_size(text), n, text)
        for bad in ["", "-1", "abc", "1.5", "2^64", "2^", "1x", "5-10", "1--2"]:
            with self.assertRaises(ToolError, msg=bad):
                common.parse_size(bad)
        self.assertEqual(common.format_size(2**28), "2^28")
        self.assertEqual(common.format_size(3 * 2**20), "3*2^20")
        self.assertEqual(common.format_size(1000), "1000")
        self.assertEqual(common.format_size(2**31 + 5), "2147483653")

    def test_select_chapters(self):
        built = ["01-warp-divergence", "03-vectorized-loads", "05-scan-baseline", "06-scan-shared-memory",
                 "14-scan-two-pass"]
        self.assertEqual(common.select_chapters(built, None), built)
        self.assertEqual(common.select_chapters(built, "05,01"), ["01-warp-divergence", "05-scan-baseline"])
        self.assertEqual(common.select_chapters(built, "05-14"), built[2:])
        self.assertEqual(common.select_chapters(built, "03-vectorized-loads"), ["03-vectorized-loads"])
        self.assertEqual(common.select_chapters(built, "06-scan"), ["06-scan-shared-memory"])
        with self.assertRaisesRegex(ToolError, "no built chapter program matches '07'"):
            common.select_chapters(built, "07")
        with self.assertRaises(ToolError):
            common.select_chapters(built, ",")

    def test_stage_variant_name(self):
        self.assertEqual(common.stage_variant_name("09-scan-zero-padding",
                                                   [("scan-zero-padding-article", False), ("scan-zero-padding", False),
                                                    ("cub", True)]), "scan-zero-padding")
        self.assertEqual(common.stage_variant_name("05-scan-baseline",
                                                   [("cudaMemcpy", True), ("cub", True), ("serial", False)]), "serial")
        self.assertIsNone(common.stage_variant_name("05-x", [("cub", True)]))

    def test_tables(self):
        text = common.format_table(["name", "value"], [["a", "1"], ["long name", "22.5"], ["c", None]])
        lines = text.splitlines()
        self.assertEqual(lines[0], "name       value")
        self.assertEqual(lines[1], "-" * 16)
        self.assertEqual(lines[3], "long name   22.5")
        self.assertEqual(lines[4], "c" + " " * 14 + "-")
        md = common.markdown_table(["a|b", "n"], [["x|y", 3]], "lr")
        self.assertEqual(md.splitlines(), ["| a\\|b | n |", "|---|---:|", "| x\\|y | 3 |"])

    def test_number_formats(self):
        self.assertEqual(common.fmt_us(10.0), "10000")
        self.assertEqual(common.fmt_us(0.0123), "12.3")
        self.assertEqual(common.fmt_us(0.00123), "1.23")
        self.assertEqual(common.fmt_us(None), "-")
        self.assertEqual(common.fmt_ratio(2.5), "2.50x")
        self.assertEqual(common.fmt_ratio(123.45), "123.5x")
        self.assertEqual(common.fmt_ratio(0.0123), "0.0123x")
        self.assertEqual(common.fmt_count(1234567.0), "1,234,567")
        self.assertIsNone(common.ratio(1.0, 0))
        self.assertEqual(common.slugify("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3")
        self.assertEqual(common.cuda_version_text(13000), "13.0")
        self.assertEqual(common.cuda_version_text(12040), "12.4")


# ---- tour ---------------------------------------------------------------------------------------

class PreviousStageTest(unittest.TestCase):
    """tools/results times the previous chapter's stage in the stage's own process when the program has it."""

    def test_names(self):
        self.assertEqual(common.previous_stage_name("06-scan-shared-memory"), "scan-baseline")
        self.assertEqual(common.previous_stage_name("40-scan-multi-gpu"), "scan-lookback-landing-zone")
        self.assertIsNone(common.previous_stage_name("05-scan-baseline"))   # chapter 04 is another ladder
        self.assertIsNone(common.previous_stage_name("20-sgemm-naive"))

    def test_options(self):
        with tempfile.TemporaryDirectory() as d:
            with_prev, without = Path(d) / "with", Path(d) / "without"
            with_prev.write_text("#!/bin/sh\nprintf '[{\"name\": \"scan-shared-memory\", \"on_demand\": false}, "
                                 "{\"name\": \"scan-baseline\", \"on_demand\": true}]'\n")
            without.write_text("#!/bin/sh\nprintf '[{\"name\": \"scan-block\", \"on_demand\": false}]'\n")
            for f in (with_prev, without):
                f.chmod(0o755)
            programs = [("06-scan-shared-memory", with_prev), ("07-scan-block", without)]
            self.assertEqual(tour.previous_stage_options(programs, ["--budget-ms", "300"]),
                             {"06-scan-shared-memory": ["--variant", "default,scan-baseline"]})
            self.assertEqual(tour.previous_stage_options(programs, ["--variant", "all"]), {})


class SameProcessPrevTest(unittest.TestCase):
    """x prev comes from the chapter's own record when it timed the previous stage, else from the previous program."""

    def rec(self, chapter, rows):
        return {"chapter": chapter, "error": None, "data": {"options": {}, "results": [
            {"variant": v, "median_ms": ms, "n": 4096, **({"reference": True} if v == "cublas" else {})}
            for v, ms in rows]}}

    def test_ladder(self):
        sgemm = next(l for l in tour.LADDERS if l["key"] == "sgemm")
        records = [self.rec("22-sgemm-register-blocking", [("sgemm-register-blocking", 4.0), ("cublas", 2.0)]),
                   self.rec("23-sgemm-2d-register-tile", [("sgemm-2d-register-tile", 2.0), ("cublas", 2.0),
                                                          ("sgemm-register-blocking", 5.0)]),
                   self.rec("24-sgemm-vectorized-transposed", [("sgemm-vectorized-transposed", 1.0), ("cublas", 2.0)])]
        rows = {r["chapter"][:2]: r for r in tour.ladder_table(records, sgemm)}
        self.assertEqual(rows["23"]["x_prev"], 2.5)       # 5.0 / 2.0, its own process
        self.assertTrue(rows["23"]["x_prev_same_process"])
        self.assertEqual(rows["24"]["x_prev"], 2.0)       # 23's program's 2.0 / 1.0
        self.assertFalse(rows["24"].get("x_prev_same_process"))

    def test_tensor_ladder(self):
        self.assertEqual(tour.ladder_of("53-bf16-gemm-cp-async-pipeline")["key"], "tensor")


class TourMathTest(unittest.TestCase):
    def test_stage_ratios(self):
        rows, summary = tour.stage_table(fixture_records(*SCAN))
        by = {r["chapter"]: r for r in rows}
        self.assertEqual([r["chapter"] for r in rows], SCAN)
        b, s, z, t = (by[c] for c in SCAN)
        self.assertEqual(b["variant"], "scan-baseline")
        self.assertEqual(z["variant"], "scan-zero-padding")  # named like the folder, not the 'article' variant
        self.assertIsNone(b["x_prev"])
        self.assertAlmostEqual(s["x_prev"], 10.0 / 4.0)
        self.assertEqual(s["prev"], "05-scan-baseline")
        self.assertAlmostEqual(z["x_prev"], 4.0 / 2.0)
        self.assertAlmostEqual(t["x_prev"], 2.0 / 0.1)        # 14 compares with 09: 10-13 are absent
        self.assertEqual(t["prev"], "09-scan-zero-padding")
        self.assertAlmostEqual(t["x_base"], 10.0 / 0.1)
        self.assertAlmostEqual(b["x_base"], 1.0)
        self.assertAlmostEqual(t["vs_cub"], 0.05 / 0.1)
        self.assertAlmostEqual(s["vs_cub"], 0.052 / 4.0)
        self.assertAlmostEqual(t["pct_memcpy"], 40.0)
        self.assertAlmostEqual(s["article_x_prev"], 72390 / 33726)
        self.assertAlmostEqual(t["article_x_prev"], 7516 / 2467)
        self.assertAlmostEqual(t["article_x_base"], 72390 / 2467)
        self.assertAlmostEqual(t["article_vs_cub"], 1444 / 2467)
        self.assertEqual(summary["baseline"], "05-scan-baseline")
        self.assertAlmostEqual(summary["cub_ms"], 0.05)       # median of 0.05, 0.052, 0.049, 0.05
        self.assertAlmostEqual(summary["memcpy_ms"], 0.04)
        self.assertEqual(summary["sizes"], [2**24])

    def test_baseline_is_first_stage_without_05(self):
        rows, summary = tour.stage_table(fixture_records("06-scan-shared-memory", "14-scan-two-pass"))
        self.assertEqual(summary["baseline"], "06-scan-shared-memory")
        self.assertAlmostEqual(rows[1]["x_base"], 4.0 / 0.1)
        self.assertAlmostEqual(rows[1]["article_x_base"], 33726 / 2467)

    def test_failed_stage_is_skipped_by_ratios(self):
        recs = fixture_records("05-scan-baseline")
        recs.append(record("07-scan-block", None, "error: no CUDA GPU found"))
        recs += fixture_records("14-scan-two-pass")
        rows, _ = tour.stage_table(recs)
        self.assertEqual(rows[1]["check"], "FAILED: error: no CUDA GPU found")
        self.assertIsNone(rows[1]["ours_ms"])
        self.assertEqual(rows[2]["prev"], "05-scan-baseline")
        self.assertAlmostEqual(rows[2]["x_prev"], 100.0)

    def test_wrong_result_shows_in_check(self):
        recs = fixture_records("05-scan-baseline")
        stage = recs[0]["data"]["results"][1]
        stage.update(failed=True, check="MISMATCH: 7 elements differ")
        recs[0]["error"] = "a variant produced wrong results (see the check column)"
        rows, _ = tour.stage_table(recs)
        self.assertEqual(rows[0]["check"], "FAILED: MISMATCH: 7 elements differ")
        self.assertIn("1 of 1 programs failed", tour.render_tour({}, recs))

    def test_other_rows(self):
        rows = tour.other_rows(fixture_records("01-warp-divergence", *SCAN))
        names = [(r["chapter"], r["variant"]) for r in rows]
        self.assertIn(("01-warp-divergence", "cudaMemcpy"), names)
        self.assertIn(("01-warp-divergence", "kernel4-article"), names)
        self.assertIn(("09-scan-zero-padding", "scan-zero-padding-article"), names)
        self.assertNotIn(("09-scan-zero-padding", "scan-zero-padding"), names)  # in the stage table
        self.assertFalse([n for n in names if n[0] != "01-warp-divergence" and n[1] in ("cub", "cudaMemcpy")])
        k1 = next(r for r in rows if r["variant"] == "kernel1-even-odd")
        self.assertEqual(k1["ref_name"], "kernel2-warp-uniform")
        self.assertAlmostEqual(k1["speed_vs_ref"], 0.999597157)

    def test_render(self):
        meta = {"gpu": "NVIDIA H200", "compute_capability": "9.0", "sms": 132, "driver": "580.1",
                "cuda_runtime": "13.0", "commit": "abc"}
        text = tour.render_tour(meta, fixture_records("01-warp-divergence", *SCAN))
        self.assertIn("NVIDIA H200, cc 9.0, 132 SMs; driver 580.1, CUDA runtime 13.0", text)
        self.assertIn("inclusive scan of n = 2^24 int32", text)
        line14 = next(l for l in text.splitlines() if l.startswith("14-scan-two-pass"))
        for cell in ["scan-two-pass", "100.0", "2467", "20.0x", "3.05x", "100.0x", "29.3x", "0.50x", "0.59x",
                     "40.0", "ok"]:
            self.assertIn(cell, line14.split(), cell)
        self.assertRegex(text, r"CUB \(cub::DeviceScan\)\s+cub\s+50\.0\s+1444")
        self.assertIn("all 5 programs ran and passed their checks.", text)
        self.assertIn("kernel4-article", text)


def ladder_record(chapter, stage, ref, rows, options):
    """A program record of a ladder chapter: rows = [(variant, median_ms, rate)]."""
    metric = "gflops" if ref == "cublas" else "gbps"
    results = [{"variant": v, "reference": v == ref, "n": 4096, "median_ms": ms, metric: rate, "check": "ok",
                "failed": False, "pct_peak_fp32": 50.0 if metric == "gflops" else 0, "pct_memcpy": 80.0}
               for v, ms, rate in rows]
    return record(chapter, {"results": results, "options": options, "device": {"name": "X"}})


class TourLadderTest(unittest.TestCase):
    def test_sgemm_and_fft_ladders(self):
        recs = [ladder_record("20-sgemm-naive", "sgemm-naive", "cublas",
                              [("sgemm-naive", 40.0, 3400.0), ("naive-uncoalesced", 400.0, 340.0),
                               ("cublas", 4.0, 34000.0)], {"m": 0, "n": 0, "k": 0}),
                ladder_record("21-sgemm-shared-tiling", "sgemm-shared-tiling", "cublas",
                              [("sgemm-shared-tiling", 20.0, 6800.0), ("cublas", 4.0, 34000.0)], {"m": 0, "n": 0, "k": 0}),
                ladder_record("30-fft-dft", "fft-dft", "cufft",
                              [("fft-dft", 10.0, 100.0), ("cufft", 1.0, 1000.0), ("cudaMemcpy", 0.8, 1250.0)],
                              {"length": 1024})]
        rows = tour.ladder_table(recs, tour.LADDERS[0])
        self.assertEqual([r["variant"] for r in rows], ["sgemm-naive", "sgemm-shared-tiling"])
        self.assertAlmostEqual(rows[1]["x_prev"], 2.0)
        self.assertAlmostEqual(rows[0]["vs_ref"], 0.1)
        fft = tour.ladder_table(recs, tour.LADDERS[1])
        self.assertEqual(fft[0]["memcpy_rate"], 1250.0)
        text = tour.render_tour({}, recs)
        self.assertIn("SGEMM ladder", text)
        self.assertIn("4096x4096x4096", text)
        self.assertIn("1024 x 4", text)   # N x batch
        self.assertIn("naive-uncoalesced", text)  # an extra variant goes to the other table
        other = [r["variant"] for r in tour.other_rows(recs)]
        self.assertNotIn("cublas", other)
        self.assertNotIn("sgemm-naive", other)
        doc = tour.results_document({}, recs)
        self.assertEqual(sorted(doc["ladders"]), ["fft", "sgemm"])


class LadderSweepTest(unittest.TestCase):
    def test_series_markdown_and_plot(self):
        runs = []
        for ch, stage in (("20-sgemm-naive", "sgemm-naive"), ("21-sgemm-shared-tiling", "sgemm-shared-tiling")):
            for size, ms in (("256", 0.01), ("512", 0.05)):
                rec = ladder_record(ch, stage, "cublas", [(stage, ms, 100.0 / ms), ("cublas", 0.001, 1e5 / (1 + int(size)))],
                                    {"m": 0, "n": 0, "k": 0})
                rec["params"] = {"size": size}
                runs.append(rec)
        doc = {"meta": {"gpu": "X"}, "programs": [], "ladder_sweeps": {"sgemm": {"option": "--size", "runs": runs}}}
        series = results.ladder_series(doc, "sgemm")
        self.assertEqual(sorted(series), ["20-sgemm-naive", "21-sgemm-shared-tiling",
                                          "cublas (reference, median over the programs)"])
        self.assertEqual(series["20-sgemm-naive"], [(256.0, 10000.0), (512.0, 2000.0)])
        md = results.render_markdown(doc, {"sgemm": "x-sgemm.png"})
        self.assertIn("SGEMM ladder: GFLOP/s against size", md)
        self.assertIn("x-sgemm.png", md)


class TourOneChapterTest(unittest.TestCase):
    """`tools/tour --chapters 01` (the front page's first command) builds only chapter 01's program: ninja is asked
    for that one target, not for the whole project (a fake ninja lists the targets and records its calls)."""

    def test_builds_only_the_chosen_chapter(self):
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        log = tmp / "ninja.log"
        ninja = tmp / "ninja"
        ninja.write_text("#!/bin/sh\necho \"$@\" >> " + str(log) + "\n"
                         "if [ \"$3\" = -t ]; then\n  echo 'chapters/01-warp-divergence/01-warp-divergence: link'\n"
                         "  echo 'chapters/05-scan-baseline/05-scan-baseline: link'\nfi\n")
        ninja.chmod(0o755)
        build = tmp / "build"
        build.mkdir()
        self.assertEqual(tour._program_targets(build, str(ninja), ["01-warp-divergence"]),
                         ["chapters/01-warp-divergence/01-warp-divergence"])
        # a chapter with no such target (a build configured before it was added): build everything
        self.assertEqual(tour._program_targets(build, str(ninja), ["07-scan-block"]), [])
        self.assertIn("-t targets all", log.read_text())


class MyGpuTest(unittest.TestCase):
    """tools/my-gpu: tools/results, then tools/fill-measured on what it wrote, then the chapter map pointed at it and
    filled (stand-ins record their command lines; the checkout is a temporary folder)."""

    def test_runs_the_three_steps_in_order(self):
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        log = tmp / "calls.log"
        tools = {}
        for name, status in (("results", 1), ("fill", 0), ("lint", 1)):
            script = tmp / name
            script.write_text(f"#!/bin/sh\necho {name} \"$@\" >> {log}\nexit {status}\n")
            script.chmod(0o755)
            tools[name] = str(script)
        (tmp / "README.md").write_text("x\n<!-- chapter-map: docs/results/nvidia-h100-80gb-hbm3.json -->\n| a |\n")
        env = dict(os.environ, MY_GPU_RESULTS=tools["results"], MY_GPU_FILL=tools["fill"], MY_GPU_LINT=tools["lint"],
                   MY_GPU_ROOT=str(tmp))
        cmd = [str(TOOLS / "my-gpu")]
        r = subprocess.run(cmd + ["--name", "rtx-4090", "--", "--chapters", "05"], env=env, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 1, r.stderr)  # a program failed: said, the tables still filled
        self.assertIn("a chapter program failed", r.stderr)
        self.assertEqual(log.read_text().splitlines(), ["results --name rtx-4090 --chapters 05",
                                                        "fill docs/results/rtx-4090.md", "lint --fill"])
        self.assertIn("<!-- chapter-map: docs/results/rtx-4090.json -->", (tmp / "README.md").read_text())
        log.unlink()
        r = subprocess.run(cmd + ["--dry-run"], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(log.exists())
        self.assertIn("--name my-gpu --budget-ms 300 --no-sweeps", r.stderr)
        for bad in (["--name", "Bad/Name"], ["--what"]):
            r = subprocess.run(cmd + bad, env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("usage: tools/my-gpu", r.stderr)


class TourEndToEndTest(unittest.TestCase):
    def setUp(self):
        self.build = FakeBuild(["01-warp-divergence", "05-scan-baseline", "06-scan-shared-memory",
                                "14-scan-two-pass", "07-nogpu"])

    def tearDown(self):
        self.build.cleanup()

    def test_selected_chapters_pass(self):
        out_json = self.build.dir / "tour.json"
        status, out, err = call(tour.main, ["--build", str(self.build.dir), "--no-build", "--chapters", "05,06,14",
                                            "--size", "2^20", "--budget-ms", "5", "--json", str(out_json), "--",
                                            "--flush-l2"])
        self.assertEqual(status, 0, err)
        calls = self.build.calls()
        self.assertEqual([c[0] for c in calls], ["05-scan-baseline", "06-scan-shared-memory", "14-scan-two-pass"])
        self.assertEqual(calls[0][1:], ["--format", "json", "--size", "2^20", "--budget-ms", "5", "--flush-l2"])
        self.assertIn("05-scan-baseline", out)
        self.assertNotIn("Other chapters", out)
        doc = json.loads(out_json.read_text())
        self.assertEqual(doc["format"], tour.RESULTS_FORMAT)
        self.assertEqual(doc["meta"]["gpu"], "NVIDIA H200")
        self.assertEqual(doc["meta"]["cuda_runtime"], "13.0")
        for key in ("driver", "date", "commit", "command", "nvcc"):
            self.assertIn(key, doc["meta"])
        self.assertEqual(len(doc["programs"]), 3)
        self.assertEqual(doc["stages"]["rows"][2]["chapter"], "14-scan-two-pass")

    def test_a_failing_program_fails_the_tour(self):
        status, out, err = call(tour.main, ["--build", str(self.build.dir), "--no-build"])
        self.assertEqual(status, 1)
        self.assertIn("1 of 5 programs failed:", out)
        self.assertIn("07-nogpu: error: no CUDA GPU found", out)
        self.assertNotIn("-test", " ".join(c[0] for c in self.build.calls()))

    def test_no_usable_gpu_stops_after_the_first_program_with_one_line(self):
        nogpu = FakeBuild(["00-nogpu", "05-scan-baseline", "06-scan-shared-memory"])
        try:
            status, out, err = call(tour.main, ["--build", str(nogpu.dir), "--no-build"])
            self.assertEqual(status, 1)
            self.assertEqual([c[0] for c in nogpu.calls()], ["00-nogpu"], "the other programs are not run")
            errors = [l for l in err.splitlines() if "error:" in l]
            self.assertEqual(len(errors), 1, err)
            self.assertIn("00-nogpu says no CUDA GPU found", errors[0])
            self.assertIn("tools/check", errors[0])
            self.assertNotIn("programs failed", out)
        finally:
            nogpu.cleanup()

    def test_bad_input(self):
        for argv, message in [(["--size", "abc"], "invalid size 'abc'"), (["--budget-ms", "0"], "--budget-ms"),
                              (["--chapters", "42"], "no built chapter program matches '42'"),
                              (["--bogus"], "unrecognized arguments: --bogus")]:
            status, out, err = call(tour.main, ["--build", str(self.build.dir), "--no-build"] + argv)
            self.assertEqual(status, 2, argv)
            self.assertIn(message, err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        status, _, err = call(tour.main, ["--build", str(self.build.dir / "missing"), "--no-build"])
        self.assertEqual(status, 2)
        self.assertIn("does not exist", err)

    def test_missing_nvcc_is_one_line(self):
        with self.assertRaises(bootstrap.BootstrapError) as cm, mock.patch.object(bootstrap, "find_nvcc",
                                                                                 return_value=None):
            bootstrap.ensure(self.build.dir / "new")
        self.assertIn("nvcc not found", str(cm.exception))
        self.assertNotIn("\n", str(cm.exception))

    def test_meson_is_reused_from_the_project_venv(self):
        venv = self.build.dir / "venv"
        (venv / "bin").mkdir(parents=True)
        for tool, version in (("meson", "1.12.1"), ("ninja", "1.13.0")):
            exe = venv / "bin" / tool
            exe.write_text(f"#!/bin/sh\necho {version}\n")
            exe.chmod(0o755)
        old = os.environ["PATH"]
        os.environ["PATH"] = str(self.build.dir / "empty")  # no meson, no ninja on PATH
        try:
            with mock.patch.object(bootstrap, "VENV", venv), mock.patch.object(bootstrap, "say") as said:
                bin_dir, msg = bootstrap.ensure_meson_ninja()
        finally:
            os.environ["PATH"] = old
        self.assertEqual(bin_dir, venv / "bin")
        self.assertIn("using meson 1.12.1", msg)
        said.assert_not_called()  # nothing installed

    def test_meson_that_cannot_be_installed_is_one_line(self):
        venv = self.build.dir / "no-venv"
        old = os.environ["PATH"]
        os.environ["PATH"] = str(self.build.dir / "empty")
        failed = subprocess.CalledProcessError(1, ["pip"], stderr=b"ERROR: no network")
        try:
            with mock.patch.object(bootstrap, "VENV", venv), mock.patch.object(bootstrap, "say"), \
                    mock.patch.object(bootstrap, "_apt_install", return_value=False), \
                    mock.patch.object(bootstrap.subprocess, "run", side_effect=failed), \
                    self.assertRaises(bootstrap.BootstrapError) as cm:
                bootstrap.ensure_meson_ninja()
        finally:
            os.environ["PATH"] = old
        self.assertIn("pip install --user meson ninja", str(cm.exception))
        self.assertFalse(venv.exists())  # a half-made .venv is removed, so the next run starts clean

    def test_doctest_that_cannot_be_fetched_is_one_line(self):
        with mock.patch.object(bootstrap, "_doctest_present", return_value=False), \
                mock.patch.object(bootstrap, "say"), mock.patch.object(bootstrap, "_apt_install", return_value=False), \
                mock.patch.object(bootstrap.subprocess, "run",
                                  return_value=subprocess.CompletedProcess([], 1, b"", b"")), \
                mock.patch.object(bootstrap, "REPO_ROOT", self.build.dir), \
                self.assertRaises(bootstrap.BootstrapError) as cm:
            bootstrap.ensure_doctest(["meson"])
        self.assertIn("apt-get install doctest-dev", str(cm.exception))

    def test_doctest_is_fetched_through_the_wrap(self):
        # The wrap path with real git and meson, offline: subprojects/doctest.wrap as shipped, its URL pointed at
        # a local repository shaped like doctest's (its header, a meson.build that provides `doctest`, the tag).
        meson = common.meson_command()
        header = next((d / "doctest" / "doctest.h" for d in (Path("/usr/include"), Path("/usr/local/include"))
                       if (d / "doctest" / "doctest.h").is_file()), None)
        if not (meson and shutil.which("git") and header):
            self.skipTest("needs meson, git and a doctest.h to make the stand-in repository from")
        wrap = (TOOLS.parent / "subprojects" / "doctest.wrap").read_text()
        self.assertIn("url = https://github.com/doctest/doctest.git\n", wrap)
        revision = next(l.split("=", 1)[1].strip() for l in wrap.splitlines() if l.startswith("revision"))
        upstream = self.build.dir / "doctest-upstream"
        (upstream / "doctest").mkdir(parents=True)
        shutil.copy(header, upstream / "doctest" / "doctest.h")
        (upstream / "meson.build").write_text(
            "project('doctest', 'cpp')\n"
            "doctest_dep = declare_dependency(include_directories: include_directories('doctest'))\n"
            "meson.override_dependency('doctest', doctest_dep)\n")
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"]
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "stand-in"], ["tag", revision]):
            subprocess.run(git + args, cwd=upstream, check=True, capture_output=True)
        project = self.build.dir / "project"
        (project / "subprojects").mkdir(parents=True)
        (project / "meson.build").write_text("project('p', 'cpp')\n")
        (project / "subprojects" / "doctest.wrap").write_text(
            wrap.replace("https://github.com/doctest/doctest.git", upstream.as_uri()))
        fetched = project / "subprojects" / "doctest" / "meson.build"
        with mock.patch.object(bootstrap, "_doctest_present", side_effect=lambda: fetched.is_file()), \
                mock.patch.object(bootstrap, "say") as said, mock.patch.object(bootstrap, "REPO_ROOT", project), \
                mock.patch.object(bootstrap, "_apt_install", side_effect=AssertionError("apt-get not wanted")):
            msg = bootstrap.ensure_doctest(meson)
            self.assertEqual(msg, "fetched doctest through meson's wrap into subprojects/doctest")
            self.assertTrue((project / "subprojects" / "doctest" / "doctest" / "doctest.h").is_file())
            said.assert_called_once()
            self.assertIsNone(bootstrap.ensure_doctest(meson))  # the second run reuses it

    def test_program_json_that_is_not_json(self):
        # The harness writes null for a value that is not finite; a bare nan (an old build) is not JSON, and the
        # record says so instead of patching it.
        with tempfile.TemporaryDirectory() as d:
            prog = Path(d) / "prog"
            prog.write_text('#!/bin/sh\nprintf \'{"results": [{"gbps": nan}]}\'\n')
            prog.chmod(0o755)
            rec = tour.run_program("05-scan-baseline", prog, [])
            self.assertIsNone(rec["data"])
            self.assertEqual(rec["error"], "its output is not the JSON that --format json prints")
            prog.write_text('#!/bin/sh\nprintf \'{"results": [{"gbps": null, "failed": false}]}\'\n')
            rec = tour.run_program("05-scan-baseline", prog, [])
            self.assertIsNone(rec["error"])
            self.assertIsNone(rec["data"]["results"][0]["gbps"])

    def test_program_error_line(self):
        self.assertEqual(tour.program_error("noise\n./x: error: no CUDA GPU found\n", 1), "error: no CUDA GPU found")
        self.assertEqual(tour.program_error("", -9), "killed by signal 9")
        self.assertEqual(tour.program_error("", 3), "exit status 3")


class SweepTest(unittest.TestCase):
    """tools/sweep: one run per value, one column per variant, stops at the first failed run."""

    PROGRAM = """#!/bin/sh
echo "# GPU 0: fake" >&2
[ "$2" = "bad" ] && { echo "fake: error: bad size" >&2; exit 2; }
echo "chapter,variant,reference,n,bytes,flops,median_ms,min_ms,max_ms,reps,gbps,gflops,pct_peak_dram,pct_memcpy,speed_vs_ref,ref_name,check"
echo "x,cudaMemcpy,1,1,8,0,0.5,0.5,0.5,1,100,0,1,100,0,,-"
echo "x,int4,0,1,8,0,0.25,0.2,0.3,1,$2,0,1,90,2,cudaMemcpy,ok"
"""

    def run_sweep(self, *args):
        with tempfile.TemporaryDirectory() as d:
            prog = Path(d) / "prog"
            prog.write_text(self.PROGRAM)
            prog.chmod(0o755)
            return subprocess.run([sys.executable, str(TOOLS / "sweep"), str(prog), *args],
                                  capture_output=True, text=True)

    def test_table(self):
        p = self.run_sweep("--over", "size=7,9")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "# GPU 0: fake")
        self.assertEqual(lines[2].split(), ["size", "cudaMemcpy", "int4"])
        self.assertEqual(lines[3].split(), ["7", "100.0", "7.0"])
        self.assertEqual(lines[4].split(), ["9", "100.0", "9.0"])
        p = self.run_sweep("--over", "size=7", "--metric", "median_ms")
        self.assertEqual(p.stdout.splitlines()[3].split(), ["7", "0.5000", "0.2500"])

    def test_stops_at_failure(self):
        p = self.run_sweep("--over", "size=7,bad,9")
        self.assertEqual(p.returncode, 2)
        self.assertIn("bad size", p.stderr)

    def test_bad_usage(self):
        self.assertEqual(self.run_sweep("--over", "size=").returncode, 2)


class CommandLineTest(unittest.TestCase):
    def test_help_and_usage_errors(self):
        for tool in ("tour", "results", "ncu-compare", "sanitize"):
            p = subprocess.run([sys.executable, str(TOOLS / tool), "--help"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, tool)
            self.assertIn("usage:", p.stdout)
            p = subprocess.run([sys.executable, str(TOOLS / tool), "--no-such-option"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2, tool)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertTrue(p.stderr.startswith(f"{tool}: error:"), p.stderr)
            self.assertTrue(os.access(TOOLS / tool, os.X_OK), f"tools/{tool} is not executable")


class MeasureScreensTest(unittest.TestCase):
    """tools/measure-screens: its commands name programs and scripts that exist, and write the files the committed
    screens run holds (the table scripts read those names)."""
    TOOL = TOOLS / "measure-screens"
    RUN = TOOLS.parent / "docs" / "results" / "raw" / "2026-11-27-h100" / "screens-bbee8ca"

    def run_tool(self, *args):
        return subprocess.run(["bash", str(self.TOOL), *args], capture_output=True, text=True)

    def test_list_names_real_programs_and_the_committed_files(self):
        p = self.run_tool("--list")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.strip().splitlines()
        self.assertGreaterEqual(len(lines), 12)
        outputs = set()
        for line in lines:
            words = line.split()
            first = words[1] if words[0] == "python3" else words[0]
            if first.startswith("build/chapters/"):
                chapter = first.split("/")[2]
                self.assertEqual(first, f"build/chapters/{chapter}/{chapter}", line)
                self.assertTrue((TOOLS.parent / "chapters" / chapter / "main.cu").is_file(), line)
            else:
                self.assertTrue((TOOLS.parent / first).is_file(), line)
            target = words[words.index(">") + 1] if ">" in words else next(w for w in words if w.startswith("OUT/"))
            self.assertTrue(target.startswith("OUT/"), line)
            outputs.add(target[len("OUT/"):])
        for name in outputs:  # the committed run holds every file or folder the tool writes
            self.assertTrue((self.RUN / name).exists(), f"{name} missing from {self.RUN}")

    def test_only_selects_parts(self):
        p = self.run_tool("--list", "--only", "37")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.strip().splitlines()), 2)
        self.assertTrue(all("37-fft-thread-block-cluster" in line for line in p.stdout.splitlines()))

    def test_bad_usage_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            for args in (["--only", "19", "--list"], ["--no-such-option"], [tmp + "/out", "--build", tmp + "/none"],
                         []):
                p = self.run_tool(*args)
                self.assertEqual(p.returncode, 2, args)
                self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))
                self.assertTrue(p.stderr.startswith("tools/measure-screens:") or p.stderr.startswith("usage:"),
                                p.stderr)
            self.assertFalse(os.path.exists(tmp + "/out"), "a bad build directory must not create OUT")


# ---- results ------------------------------------------------------------------------------------

def sample_document():
    meta = {"gpu": "NVIDIA H200", "compute_capability": "9.0", "sms": 132, "peak_dram_gbps": 4814.3,
            "driver": "580.159.03", "cuda_driver_api": "13.0", "cuda_runtime": "13.0", "nvcc": "13.0.48",
            "date": "2026-11-21T20:00:00Z", "commit": "0123456789abcdef", "command": "tools/results --budget-ms 300"}
    return tour.results_document(meta, fixture_records("01-warp-divergence", *SCAN))


class ResultsTest(unittest.TestCase):
    def test_markdown(self):
        md = results.render_markdown(sample_document(), {"scan": "nvidia-h200-scan.png"})
        for text in ["# Measured results: NVIDIA H200", "| GPU | NVIDIA H200 (compute capability 9.0, 132 SMs, "
                     "4814 GB/s theoretical DRAM peak) |", "| driver | 580.159.03 |",
                     "| CUDA | runtime 13.0, driver API 13.0, nvcc 13.0.48 |", "| commit | `0123456789abcdef` |",
                     "| command | `tools/results --budget-ms 300` |", "## Scan stages",
                     "![Time per scan stage, ours and the article's](nvidia-h200-scan.png)",
                     "### 01-warp-divergence", "### 14-scan-two-pass", "Every program run passed its checks."]:
            self.assertIn(text, md)
        row = next(l for l in md.splitlines() if l.startswith("| 06-scan-shared-memory |"))
        self.assertEqual([c.strip() for c in row.strip("|").split("|")][:10],
                         ["06-scan-shared-memory", "scan-shared-memory", "4000", "33726 (§4)", "2.50x", "2.15x",
                          "2.50x", "2.15x", "0.013x", "0.0428x"])
        self.assertNotIn("vector-loads.png", md)
        # a chapter's own table: every row, references marked
        self.assertIn("| cudaMemcpy \\* | 2^26 |", md)

    def test_markdown_records_failures(self):
        doc = sample_document()
        doc["programs"].append(record("07-scan-block", None, "error: no CUDA GPU found"))
        md = results.render_markdown(doc)
        self.assertIn("**Failed:** error: no CUDA GPU found", md)
        self.assertIn("1 program runs failed.", md)

    def test_compare(self):
        old = sample_document()
        new = copy.deepcopy(old)
        for rec in new["programs"]:
            for r in rec["data"]["results"]:
                if rec["chapter"] == "06-scan-shared-memory" and r["variant"] == "scan-shared-memory":
                    r["median_ms"] *= 1.2
                if rec["chapter"] == "14-scan-two-pass" and r["variant"] == "scan-two-pass":
                    r["median_ms"] *= 0.5
                if rec["chapter"] == "05-scan-baseline" and r["variant"] == "scan-baseline":
                    r["median_ms"] *= 1.05
        slower, faster, common_n, only_new, only_old = results.compare_documents(new, old, 10)
        self.assertEqual([s[0] for s in slower], ["06-scan-shared-memory / scan-shared-memory (n=2^24)"])
        self.assertAlmostEqual(slower[0][3], 20.0)
        self.assertEqual([f[0] for f in faster], ["14-scan-two-pass / scan-two-pass (n=2^24)"])
        self.assertEqual(common_n, 7 + 4 * 3 + 1)
        self.assertEqual((only_new, only_old), (0, 0))
        self.assertEqual(results.compare_documents(new, old, 25)[0], [])
        self.assertEqual(len(results.compare_documents(new, old, 4)[0]), 2)

    def test_compare_command(self):
        tmp = Path(tempfile.mkdtemp())
        try:
            old, new = tmp / "old.json", tmp / "new.json"
            doc = sample_document()
            old.write_text(json.dumps(doc))
            doc["meta"]["gpu"] = "NVIDIA H100 80GB HBM3"
            doc["programs"][1]["data"]["results"][1]["median_ms"] *= 2
            new.write_text(json.dumps(doc))
            status, out, err = call(results.main, ["--compare", str(new), str(old), "--threshold", "10"])
            self.assertEqual(status, 0, err)
            self.assertIn("05-scan-baseline / scan-baseline (n=2^24)", out)
            self.assertIn("+100.0%", out)
            self.assertIn("different GPUs", out)
            # one program's own --format json output compares too
            status, out, _ = call(results.main, ["--compare", str(FIXTURES / "program-05-scan-baseline.json"),
                                                 str(FIXTURES / "program-05-scan-baseline.json")])
            self.assertEqual(status, 0)
            self.assertIn("3 timings in both files; 0 slower", out)
            for argv, message in [(["--compare", str(tmp / "none.json"), str(old)], "does not exist"),
                                  (["--compare", str(new), str(old), "--threshold", "-1"], "--threshold"),
                                  (["--compare", str(FIXTURES / "testlog-racecheck.json"), str(old)],
                                   "not valid JSON")]:
                status, _, err = call(results.main, argv)
                self.assertEqual(status, 2, argv)
                self.assertIn(message, err)
        finally:
            shutil.rmtree(tmp)

    def test_results_end_to_end_with_sweeps(self):
        build = FakeBuild(["03-vectorized-loads", "04-warp-aggregated-atomics", "05-scan-baseline",
                           "14-scan-two-pass"])
        try:
            out_dir = build.dir / "results"
            status, out, err = call(results.main, ["--build", str(build.dir), "--no-build", "--out", str(out_dir),
                                                   "--no-plots", "--sweep-sizes", "2^16,2^20",
                                                   "--selectivities", "0,50,100", "--commit", "feedbeef"])
            self.assertEqual(status, 0, err)
            self.assertIn("Scan stages", out)
            doc = json.loads((out_dir / "nvidia-h200.json").read_text())
            self.assertEqual(doc["meta"]["commit"], "feedbeef")
            self.assertEqual([r["params"] for r in doc["sweeps"]["vector_loads"]["runs"]],
                             [{"size": "2^16"}, {"size": "2^20"}])
            self.assertEqual([r["params"] for r in doc["sweeps"]["atomics"]["runs"]],
                             [{"selectivity": "0"}, {"selectivity": "50"}, {"selectivity": "100"}])
            calls = build.calls()
            sweep_calls = [c for c in calls if c[0].startswith("04") and "--selectivity" in c]
            self.assertEqual(len(sweep_calls), 3)
            self.assertIn("--budget-ms", sweep_calls[0])   # sweeps default to a short budget
            md = (out_dir / "nvidia-h200.md").read_text()
            self.assertIn("## Vector loads: bandwidth against size (03-vectorized-loads)", md)
            self.assertIn("| size | cudaMemcpy | scalar | int4 |", md)
            self.assertIn("| 2^16 |", md)
            self.assertIn("| selectivity | global-atomic | warp-aggregated | cub |", md)
            row = next(l for l in md.splitlines() if l.startswith("| 50 |"))
            self.assertEqual(row, "| 50 | 510.0 | 25.6 | 20.0 |")   # µs, from the fake's formula
            # --render rewrites the markdown from the JSON alone
            (out_dir / "nvidia-h200.md").unlink()
            status, _, err = call(results.main, ["--render", str(out_dir / "nvidia-h200.json"), "--no-plots"])
            self.assertEqual(status, 0, err)
            self.assertEqual((out_dir / "nvidia-h200.md").read_text(), md)
        finally:
            build.cleanup()

    def test_sweep_needs_its_option(self):
        build = FakeBuild(["04-warp-aggregated-atomics", "14-scan-two-pass"])
        try:
            prog = build.dir / "chapters" / "04-warp-aggregated-atomics" / "04-warp-aggregated-atomics"
            self.assertTrue(common.accepts_option(prog, "--selectivity"))
            self.assertFalse(common.accepts_option(prog, "--offset"))
            other = build.dir / "chapters" / "14-scan-two-pass" / "14-scan-two-pass"
            ns = argparse_namespace(budget_ms=None, reps=None, warmup=None, seed=None, no_check=False,
                                    flush_l2=False, size=None, timeout=60)
            with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
                # a chapter numbered 04 whose program lacks --selectivity: no sweep, no failed runs
                sweeps = results.run_sweeps(ns, [("04-other", other)], ["2^16"], ["0", "50"])
            self.assertEqual(sweeps, {})
        finally:
            build.cleanup()

    def test_sweep_matrix(self):
        sweep = {"option": "--size", "runs": [
            record("03-x", {"results": [{"variant": "a", "n": 2**16, "gbps": 1.0},
                                        {"variant": "b", "n": 2**16, "gbps": 2.0}]},
                   params={"size": "2^16"}),
            record("03-x", {"results": [{"variant": "a", "n": 2**20, "gbps": 3.0}]}, params={"size": "1M"})]}
        labels, variants, cells = results.sweep_matrix(sweep, "gbps")
        self.assertEqual(labels, ["2^16", "2^20"])
        self.assertEqual(variants, ["a", "b"])
        self.assertEqual(cells[("2^20", "a")], 3.0)
        self.assertNotIn(("2^20", "b"), cells)
        self.assertEqual(results.sweep_param_values(sweep), [2**16, 2**20])


# ---- ncu-compare --------------------------------------------------------------------------------

class NcuParseTest(unittest.TestCase):
    def setUp(self):
        self.launches = ncu.parse_ncu_csv((FIXTURES / "ncu-raw-05-scan-baseline.csv").read_text())

    def test_raw_page(self):
        self.assertEqual([l["id"] for l in self.launches], list(range(9)))
        last = self.launches[6]
        self.assertEqual(last["kernel"], "void scan_baseline::scan_parts_kernel<1024>(const int *, int *, long, int *)")
        self.assertEqual(last["block"], "(1024, 1, 1)")
        m = last["metrics"]
        self.assertEqual(m[ncu.M_TIME], 1_000_000.0)            # "1,000,000" ns
        self.assertEqual(m[ncu.M_DRAM_WRITE], 67_174_400.0)
        self.assertEqual(m[ncu.M_DRAM_PCT], 10.5)
        self.assertEqual(last["units"][ncu.M_TIME], "ns")
        self.assertIsNone(self.launches[8]["metrics"][ncu.M_UNIFORM])   # "n/a"

    def test_units_and_numbers(self):
        self.assertEqual(ncu.parse_number("1,234,567.5"), 1234567.5)
        self.assertEqual(ncu.parse_number("12.5"), 12.5)
        self.assertIsNone(ncu.parse_number("(1024, 1, 1)"))
        self.assertIsNone(ncu.parse_number("n/a"))
        self.assertEqual(ncu.to_base_unit(ncu.M_TIME, 3.5, "usecond"), 3500.0)
        self.assertEqual(ncu.to_base_unit(ncu.M_TIME, 2.0, "msecond"), 2e6)
        self.assertEqual(ncu.to_base_unit(ncu.M_DRAM_READ, 1.5, "Mbyte"), 1.5e6)
        self.assertEqual(ncu.to_base_unit(ncu.M_DRAM_PCT, 50.0, "%"), 50.0)
        self.assertEqual(ncu.to_base_unit(ncu.M_INST, 7.0, "inst"), 7.0)

    def test_details_layout(self):
        launches = ncu.parse_ncu_csv((FIXTURES / "ncu-details-01-warp-divergence.csv").read_text())
        self.assertEqual(len(launches), 18)   # 6 variants x (check, warm-up, timed)
        self.assertEqual(launches[0]["kernel"], "warm_up(float *, long)")
        self.assertEqual(launches[0]["metrics"][ncu.M_TIME], 41248.0)
        self.assertEqual(len(launches[0]["metrics"]), 5)

    def test_not_ncu_csv(self):
        with self.assertRaisesRegex(ToolError, "not an Nsight Compute CSV"):
            ncu.parse_ncu_csv("a,b\n1,2\n")

    def test_kernel_names(self):
        self.assertEqual([ncu.short_kernel_name(l["kernel"]) for l in self.launches[:3]],
                         ["scan_parts_kernel", "scan_part_sums_kernel", "add_base_kernel"])
        self.assertEqual(ncu.short_kernel_name(
            "void cub::CUB_300000_SM_900::detail::scan::DeviceScanKernel<cub::Policy<(int)128>, const int *>"
            "(T2, int, cub::ScanTileState<int, true>)"), "DeviceScanKernel")
        self.assertEqual(ncu.short_kernel_name("warm_up(float *, long)"), "warm_up")

    def test_timed_range(self):
        # The runner's NVTX nesting: chapter, variant, then "timed" around the timed repetitions only.
        self.assertEqual(ncu.timed_range("05-scan-baseline", "scan-baseline"), "05-scan-baseline/scan-baseline/timed/")
        self.assertFalse(hasattr(ncu, "last_run"))   # no guessing the timed run from kernel-name periodicity

    def test_totals_and_table(self):
        timed = self.launches[6:]   # what the NVTX filter keeps of this fixture (see its fake:nvtx column)
        cols = ncu.active_columns(ncu.PRESETS["all"])
        totals = dict(zip([c[0] for c in cols], ncu.total_values(timed, cols)))
        self.assertAlmostEqual(totals["time us"], 1750.0)
        self.assertAlmostEqual(totals["DRAM %peak"], (10.5 * 1000 + 0.1 * 500 + 60 * 250) / 1750)
        self.assertAlmostEqual(totals["warp eff %"], (50 * 2e6 + 3.125 * 1e5 + 100 * 4e5) / 2.5e6)
        self.assertAlmostEqual(totals["br uniform %"], 100.0)  # the n/a launch is left out
        self.assertEqual(totals["bank confl"], 15)
        self.assertEqual(totals["glob atomics"], 2)
        self.assertEqual(totals["instructions"], 2_500_000)
        headers, display, csv_headers, raw = ncu.table_rows(
            [{"chapter": "05-scan-baseline", "variant": "scan-baseline", "launches": timed}],
            ncu.PRESETS["all"])
        self.assertEqual(headers[:4], ["chapter", "variant", "kernel", "time us"])
        self.assertEqual(len(display), 4)
        self.assertEqual(display[0][2:6], ["scan_parts_kernel", "1000.0", "10.5", "67.1"])
        self.assertEqual(display[3][2], "(total, 3 launches)")
        self.assertEqual(display[0][headers.index("warp eff %")], "50.0")
        csv_text = ncu.to_csv(csv_headers, raw)
        self.assertIn(",2000000,50\n", csv_text)      # integers stay integers, no 2e+06
        self.assertTrue(csv_text.startswith("chapter,variant,kernel,launch_id,kernel_full_name,time us,"))
        headers_b, *_ = ncu.table_rows([], ncu.PRESETS["branches"])
        self.assertNotIn("bank confl", headers_b)
        self.assertIn("divergent", headers_b)

    def test_extra_metrics_get_their_own_columns(self):
        timed = copy.deepcopy(self.launches[6:])
        for i, launch in enumerate(timed):
            launch["metrics"]["lts__t_sectors.sum"] = 100.0 * (i + 1)
            launch["metrics"]["smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct"] = 10.0 * (i + 1)
        extra = ["lts__t_sectors.sum", "smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct", ncu.M_TIME]
        headers, display, csv_headers, raw = ncu.table_rows(
            [{"chapter": "05-scan-baseline", "variant": "scan-baseline", "launches": timed}], ncu.PRESETS["memory"],
            extra)
        self.assertEqual(headers.count("time us"), 1)          # a metric a built-in column shows is not repeated
        self.assertNotIn(ncu.M_TIME, headers)
        sectors = headers.index("lts__t_sectors.sum")
        warps = headers.index("smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct")
        self.assertEqual([row[sectors] for row in display], ["100", "200", "300", "600"])  # counters: summed
        self.assertEqual(display[-1][warps], f"{(10 * 1000 + 20 * 500 + 30 * 250) / 1750:.2f}")  # time-weighted
        self.assertIn("lts__t_sectors.sum", csv_headers)
        self.assertEqual(raw[-1][csv_headers.index("lts__t_sectors.sum")], 600.0)


class NcuSgemmPresetTest(unittest.TestCase):
    def test_sgemm_columns(self):
        cols = ncu.active_columns(ncu.PRESETS["sgemm"])
        headers = [c[0] for c in cols]
        for h in ["time us", "FMA pipe %", "issue %", "regs", "occupancy %", "sectors/req", "L2 %peak",
                  "bank confl", "stall barrier", "stall long sb", "stall mio", "instructions"]:
            self.assertIn(h, headers)
        self.assertNotIn("divergent", headers)
        launch = {"metrics": {ncu.M_TIME: 2000.0, ncu.M_FMA_PIPE: 61.5, ncu.M_REGS: 96.0, ncu.M_GLD_SECTORS: 400.0,
                              ncu.M_GLD_REQUESTS: 100.0, ncu.M_BANK_LD: 3.0, ncu.M_BANK_ST: None}}
        values = dict(zip(headers, ncu.launch_values(launch, cols)))
        self.assertEqual(values["sectors/req"], 4.0)
        self.assertEqual(values["FMA pipe %"], 61.5)
        self.assertEqual(values["regs"], 96.0)
        self.assertEqual(values["bank confl"], 3.0)
        self.assertIsNone(values["stall barrier"])
        no_requests = {"metrics": {ncu.M_GLD_SECTORS: 0.0, ncu.M_GLD_REQUESTS: 0.0}}
        self.assertIsNone(dict(zip(headers, ncu.launch_values(no_requests, cols)))["sectors/req"])
        self.assertNotIn(ncu.M_FMA_PIPE, ncu.PRESETS["all"])  # "all" stays the scan chapters' set

    def test_list_variants_reads_json(self):
        with tempfile.TemporaryDirectory() as d:
            prog = Path(d) / "prog"
            prog.write_text("#!/bin/sh\nprintf 'stage\\tthe stage\\nclaim (on demand)\\tx\\ncublas (reference)\\ty\\n'\n")
            prog.chmod(0o755)
            listed = [{"name": "stage", "description": "the stage", "reference": False, "on_demand": False,
                       "known_defect": ""},
                      {"name": "claim", "description": "x", "reference": False, "on_demand": True,
                       "known_defect": "drops a tile"},
                      {"name": "cublas", "description": "y", "reference": True, "on_demand": False,
                       "known_defect": ""}]
            prog.write_text("#!/bin/sh\n[ \"$*\" = \"--list --format json\" ] || exit 2\n"
                            f"cat <<'END'\n{json.dumps(listed)}\nEND\n")
            self.assertEqual(ncu.list_variants(prog), listed)
            prog.write_text("#!/bin/sh\nprintf 'stage\\tthe stage\\n'\n")   # an old build: text only
            with self.assertRaisesRegex(ToolError, "did not print a JSON list of variants"):
                ncu.list_variants(prog)


class NcuFftPresetTest(unittest.TestCase):
    def test_fft_columns(self):
        cols = ncu.active_columns(ncu.PRESETS["fft"])
        headers = [c[0] for c in cols]
        for h in ["time us", "DRAM %peak", "DRAM rd MB", "DRAM wr MB", "bank confl", "stall barrier", "occupancy %",
                  "regs", "instructions"]:
            self.assertIn(h, headers)
        self.assertNotIn("FMA pipe %", headers)
        launch = {"metrics": {ncu.M_TIME: 1000.0, ncu.M_DRAM_READ: 2e6, ncu.M_BANK_LD: 0.0, ncu.M_BANK_ST: 8.0,
                              ncu.M_STALL_BARRIER: 1.25}}
        values = dict(zip(headers, ncu.launch_values(launch, cols)))
        self.assertEqual(values["DRAM rd MB"], 2.0)
        self.assertEqual(values["bank confl"], 8.0)
        self.assertEqual(values["stall barrier"], 1.25)
        self.assertIsNone(values["occupancy %"])
        self.assertNotIn(ncu.M_STALL_BARRIER, ncu.PRESETS["all"])  # "all" stays the scan chapters' set


class NcuEndToEndTest(unittest.TestCase):
    def setUp(self):
        self.build = FakeBuild(["05-scan-baseline"])
        self.log = self.build.dir / "ncu.jsonl"
        os.environ.update(FAKE_NCU_LOG=str(self.log), FAKE_NCU_CSV=str(FIXTURES / "ncu-raw-05-scan-baseline.csv"),
                          FAKE_NCU_MODE="")
        self.program = self.build.dir / "chapters" / "05-scan-baseline" / "05-scan-baseline"
        self.out = self.build.dir / "ncu"
        self.fake_ncu = install_script(FIXTURES / "fake_ncu.py", self.build.dir / "ncu-fake")

    def tearDown(self):
        self.build.cleanup()

    def ncu_calls(self):
        return [json.loads(l) for l in self.log.read_text().splitlines()]

    def run_tool(self, *extra):
        return call(ncu.main, ["--program", str(self.program), "--ncu", str(self.fake_ncu),
                               "--out", str(self.out), *extra])

    def test_profiles_and_tabulates(self):
        status, out, err = self.run_tool()
        self.assertEqual(status, 0, err)
        profile, imported = self.ncu_calls()
        self.assertEqual(profile[:5], ["--clock-control", "none", "--nvtx", "--nvtx-include",
                                       "05-scan-baseline/scan-baseline/timed/"])
        metrics = profile[profile.index("--metrics") + 1].split(",")
        self.assertEqual(metrics, ncu.PRESETS["all"])
        self.assertEqual(profile[profile.index("-o") + 1], str(self.out / "05-scan-baseline"))
        self.assertEqual(profile[-5:], ["--profile", "--variant", "scan-baseline", "--size", "2^24"])
        self.assertIn("--force-overwrite", profile)
        self.assertEqual(imported, ["--import", str(self.out / "05-scan-baseline") + ".ncu-rep", "--csv", "--page",
                                    "raw", "--print-units", "base"])
        self.assertIn("scan_parts_kernel", out)
        # Exactly the timed run's three launches (IDs 6-8 of the process): 1000 + 500 + 250 us.
        self.assertIn("(total, 3 launches)", out)
        self.assertIn("1750.0", out)
        self.assertNotIn("2000.0", out)   # the checked run's launches are not profiled
        self.assertEqual(out.count("scan_parts_kernel"), 1)
        self.assertTrue((self.out / "ncu-compare.csv").is_file())
        self.assertTrue((self.out / "05-scan-baseline.ncu-rep").is_file())

    def test_preset_variant_and_size(self):
        status, out, err = self.run_tool("--preset", "shared", "--variant", "cub", "--size", "2^20",
                                         "--metrics", "sm__cycles_elapsed.avg", "--csv", str(self.out / "t.csv"))
        self.assertEqual(status, 0, err)
        profile = self.ncu_calls()[0]
        self.assertEqual(profile[profile.index("--metrics") + 1].split(","),
                         ncu.PRESETS["shared"] + ["sm__cycles_elapsed.avg"])
        self.assertIn("05-scan-baseline/cub/timed/", profile)
        self.assertEqual(profile[-4:], ["--variant", "cub", "--size", "2^20"])
        self.assertIn("bank confl", out)
        self.assertNotIn("divergent", out)
        self.assertTrue((self.out / "t.csv").is_file())

    def test_sgemm_chapters_keep_their_own_shape(self):
        # An SGEMM program's --size is the side of square matrices: the default 2^24 would ask for a 2^24-square
        # problem (the program exits 2). Without --size the SGEMM chapters get none; the scan chapters get 2^24.
        sgemm = FakeBuild(["20-sgemm-naive"])
        try:
            program = sgemm.dir / "chapters" / "20-sgemm-naive" / "20-sgemm-naive"
            status, out, err = call(ncu.main, ["--program", str(program), "--program", str(self.program), "--ncu",
                                               str(self.fake_ncu), "--out", str(self.out), "--preset", "sgemm"])
            self.assertEqual(status, 0, err)
            profiles = [c for c in self.ncu_calls() if "--profile" in c]
            self.assertEqual(len(profiles), 2)
            self.assertEqual(profiles[0][-3:], ["--profile", "--variant", "sgemm-naive"])
            self.assertNotIn("--size", profiles[0])
            self.assertEqual(profiles[1][-2:], ["--size", "2^24"])
            self.assertIn("SGEMM: each program's default shape", out)
            status, out, err = call(ncu.main, ["--program", str(program), "--ncu", str(self.fake_ncu),
                                               "--out", str(self.out), "--preset", "sgemm", "--size", "512"])
            self.assertEqual(status, 0, err)
            self.assertEqual([c for c in self.ncu_calls() if "--profile" in c][-1][-2:], ["--size", "512"])
        finally:
            sgemm.cleanup()

    def test_permission_error(self):
        os.environ["FAKE_NCU_MODE"] = "perm"
        status, out, err = self.run_tool()
        self.assertEqual(status, 1)
        self.assertIn("ERR_NVGPUCTRPERM", err)
        self.assertEqual(len(err.strip().splitlines()), len([l for l in err.splitlines() if l.strip()]))

    def test_nvtx_filter_that_matches_nothing(self):
        # No falling back to every launch of the process (set-up and the checked run included): that table
        # would be wrong. One clear error instead.
        os.environ["FAKE_NCU_MODE"] = "nvtx-miss"
        status, out, err = self.run_tool()
        self.assertEqual(status, 1)
        self.assertIn('inside the NVTX range "05-scan-baseline/scan-baseline/timed/"', err)
        self.assertEqual(len([l for l in err.splitlines() if "error:" in l]), 1)
        self.assertEqual(len(self.ncu_calls()), 1)

    def test_all_launches(self):
        status, out, err = self.run_tool("--all-launches")
        self.assertEqual(status, 0, err)
        self.assertNotIn("--nvtx", self.ncu_calls()[0])
        self.assertIn("(total, 9 launches)", out)
        self.assertIn("every launch of the process", out)

    def test_timed_run_of_a_fixture_chapter(self):
        # The logic the GPU test tools/fixtures/ncu-fixture checks on a real program, with the fake: a one-off
        # set-up kernel, K launches of a kernel in the checked run and K in the timed run. Rows: exactly the
        # timed K, the set-up kernel absent, the total their sum.
        k = 5
        header = ["ID", "Kernel Name", "Block Size", "Grid Size", "CC", ncu.M_TIME, "fake:nvtx"]
        units = ["", "", "", "", "", "ns", ""]
        launches = [["0", "setup_table_kernel(float *)", "(32, 1, 1)", "(1, 1, 1)", "9.0", "9,999",
                     "{chapter}/{variant}/"]]
        launches += [[str(1 + i), "void step_kernel<256>(int *, int)", "(256, 1, 1)", "(4, 1, 1)", "9.0",
                      str(5000 + i), "{chapter}/{variant}/"] for i in range(k)]
        launches += [[str(1 + k + i), "void step_kernel<256>(int *, int)", "(256, 1, 1)", "(4, 1, 1)", "9.0",
                      str(1000 * (i + 1)), "{chapter}/{variant}/timed/"] for i in range(k)]
        fixture = self.build.dir / "fixture.csv"
        with open(fixture, "w", newline="") as f:
            csv.writer(f, quoting=csv.QUOTE_ALL).writerows([header, units, *launches])
        os.environ["FAKE_NCU_CSV"] = str(fixture)
        program = install_script(FIXTURES / "fake_chapter.py", self.build.dir / "ncu-fixture")
        status, out, err = call(ncu.main, ["--program", str(program), "--ncu", str(self.fake_ncu), "--out",
                                           str(self.out), "--variant", "step", "--preset", "memory"])
        self.assertEqual(status, 0, err)
        with open(self.out / "ncu-compare.csv") as f:
            rows = list(csv.DictReader(f))
        kernels = [r for r in rows if r["kernel"] != "(total)"]
        self.assertEqual([r["kernel"] for r in kernels], ["step_kernel"] * k)
        self.assertEqual([float(r["time us"]) for r in kernels], [1.0 * (i + 1) for i in range(k)])
        total = [r for r in rows if r["kernel"] == "(total)"]
        self.assertEqual(len(total), 1)
        self.assertAlmostEqual(float(total[0]["time us"]), sum(float(r["time us"]) for r in kernels))
        self.assertNotIn("setup_table_kernel", out)

    def test_chapter_options_are_passed_to_the_programs_that_take_them(self):
        fft = install_script(FIXTURES / "fake_chapter.py", self.build.dir / "31-fft-stockham-global")
        gemm = install_script(FIXTURES / "fake_chapter.py", self.build.dir / "22-sgemm-register-blocking")
        status, out, err = call(ncu.main, ["--program", str(fft), "--program", str(gemm), "--ncu",
                                           str(self.fake_ncu), "--out", str(self.out), "--length", "64",
                                           "--m", "4096", "--n", "128", "--k", "32"])
        self.assertEqual(status, 0, err)
        fft_call, _, gemm_call, _ = self.ncu_calls()
        self.assertEqual(fft_call[fft_call.index(str(fft)):],
                         [str(fft), "--profile", "--variant", "fft-stockham-global", "--size", "2^24", "--length", "64"])
        self.assertEqual(gemm_call[gemm_call.index(str(gemm)):],
                         [str(gemm), "--profile", "--variant", "sgemm-register-blocking",
                          "--m", "4096", "--n", "128", "--k", "32"])
        self.assertIn("22-sgemm-register-blocking has no --length", err)
        self.assertIn("31-fft-stockham-global has no --m", err)
        self.assertIn("--length 64, --m 4096, --n 128, --k 32", out)
        status, out, err = call(ncu.main, ["--program", str(fft), "--ncu", str(self.fake_ncu), "--out", str(self.out),
                                           "--chapter-arg=--selectivity", "--chapter-arg", "10"])
        self.assertEqual(status, 0, err)
        self.assertEqual(self.ncu_calls()[-2][-2:], ["--selectivity", "10"])
        # An option no chosen chapter takes is bad usage; so is a value that is not a positive integer.
        for extra, message in [(["--length", "64"], "--length: none of the chosen chapters takes it"),
                               (["--m", "0"], "--m must be positive"), (["--k", "x"], "invalid int value")]:
            status, _, err = self.run_tool(*extra)
            self.assertEqual(status, 2, extra)
            self.assertIn(message, err)

    def test_program_failure_is_reported(self):
        os.environ["FAKE_NCU_MODE"] = "app-error"
        status, out, err = self.run_tool()
        self.assertEqual(status, 1)
        self.assertIn("the program said error: no CUDA GPU found", err)
        self.assertEqual(len(self.ncu_calls()), 1)  # no pointless retry without the NVTX filter

    def test_bad_input(self):
        for extra, message in [(["--variant", "nope"], "has no variant 'nope'"), (["--size", "x"], "invalid size"),
                               (["--metrics", "bad name"], "invalid metric name"),
                               (["--preset", "x"], "invalid choice")]:
            status, _, err = self.run_tool(*extra)
            self.assertEqual(status, 2, extra)
            self.assertIn(message, err)
        status, _, err = call(ncu.main, ["--program", str(self.program), "--ncu", str(self.build.dir / "no-ncu")])
        self.assertEqual(status, 2)
        self.assertIn("no such file", err)


# ---- tools/check's summary --------------------------------------------------------------------

class CheckSummaryTest(unittest.TestCase):
    def test_counts_and_memory_skips(self):
        c = testlog.parse_testlog((FIXTURES / "testlog-small-gpu.json").read_text())
        self.assertEqual((c["passed"], c["failed"], c["skipped"], c["total"]), (3, 1, 1, 5))
        self.assertEqual(c["failed_names"], ["20-sgemm-naive (TIMEOUT)"])
        # One entry per distinct line, from stdout and stderr; a "note:" that is not a memory skip, or not at
        # the start of a line, is not one.
        self.assertEqual(c["memory_skips"], [
            "05-scan-baseline: 05-scan-baseline at n = 2147484673 skipped: needs 16.0 GiB of device memory, "
            "5.1 GiB free on this GPU",
            "05-scan-baseline: 05-scan-baseline at n = 2^28 skipped: needs 2.0 GiB of device memory and 4.5 GiB "
            "kept for the 3 other GPU tests that may run beside it, 5.1 GiB free on this GPU",
            "14-scan-two-pass: 14-scan-two-pass at n = 2147484673 skipped: needs 16.0 GiB of device memory, "
            "3.2 GiB free on this GPU",
            "14-scan-two-pass: 14 at n = 2^31 skipped: needs 24.0 GiB of host memory, 14.0 GiB available on "
            "this machine"])

    def test_summary_lines(self):
        c = testlog.parse_testlog((FIXTURES / "testlog-small-gpu.json").read_text())
        lines = testlog.check_summary(c, 73, 78)
        self.assertEqual(lines[0], "4 test case(s) skipped for lack of memory on this machine "
                                   "(the rest of each test ran):")
        self.assertEqual(len([l for l in lines if l.startswith("  14-scan-two-pass: ")]), 2)
        self.assertIn("TUT_GPU_TEST_SLOTS=1 tools/check --suite gpu", lines[-3])
        self.assertEqual(lines[-2:], ["build 73 s, tests 78 s", "tests: 3 passed, 1 failed, 1 skipped"])
        # No margin named: no hint. Nothing skipped: the two lines alone.
        c["memory_skips"] = [s for s in c["memory_skips"] if "kept for" not in s]
        self.assertFalse(any("TUT_GPU_TEST_SLOTS" in l for l in testlog.check_summary(c, 1, 2)))
        empty = testlog.parse_testlog("")
        self.assertEqual(testlog.check_summary(empty, 1, 2), ["build 1 s, tests 2 s",
                                                             "tests: 0 passed, 0 failed, 0 skipped"])

    def test_as_tools_check_runs_it(self):
        # tools/check's own command line, from the repository root; a missing log counts nothing.
        code = 'import sys; sys.path.insert(0, "tools"); from tutkit.testlog import main; main(sys.argv[1:])'
        self.assertIn(code, (TOOLS / "check").read_text())
        for log, last in ((FIXTURES / "testlog-small-gpu.json", "tests: 3 passed, 1 failed, 1 skipped"),
                          (Path(tempfile.mkdtemp()) / "none.json", "tests: 0 passed, 0 failed, 0 skipped")):
            out = subprocess.run([sys.executable, "-B", "-c", code, str(log), "5", "6"], cwd=TOOLS.parent,
                                 capture_output=True, text=True, check=True).stdout
            self.assertEqual(out.splitlines()[-1], last)


class BuildLogTest(unittest.TestCase):
    """tools/check's build step (tools/tutkit/buildlog.py): the log keeps everything, the screen gets the first
    failed step's errors and one last line naming the target and the meson in use."""

    def fake_ninja(self, fixture, rc):
        script = Path(tempfile.mkdtemp()) / "ninja"
        script.write_text(f"#!/bin/sh\ncat '{FIXTURES / fixture}'\nexit {rc}\n")
        script.chmod(0o755)
        return str(script)

    def run_build(self, fixture, rc):
        log_path = Path(tempfile.mkdtemp()) / "meson-logs" / "build.log"
        out, err = io.StringIO(), io.StringIO()
        status = buildlog.run([self.fake_ninja(fixture, rc)], str(log_path), "1.0.1", out=out, err=err)
        return status, out.getvalue(), err.getvalue(), log_path

    def test_failed_target_names(self):
        self.assertEqual(buildlog.failed_target("chapters/05-x/05-x.p/main.cu.o"), "chapters/05-x/05-x")
        self.assertEqual(buildlog.failed_target("chapters/16-x/lib16-x-units.a.p/main.cu.o"), "chapters/16-x/16-x-units")
        self.assertEqual(buildlog.failed_target("chapters/16-x/16-x "), "chapters/16-x/16-x")

    def test_link_failure_of_old_meson(self):
        # The failure meson 1.0.1 gave before programs linked their main as an object (issue 37), verbatim.
        status, out, err, log_path = self.run_build("ninja-meson-1.0.1-link-failure.txt", 1)
        self.assertEqual(status, 1)
        lines = err.splitlines()
        self.assertEqual(lines[-1], "tools/check: build failed at chapters/16-scan-decoupled-lookback-tuned/"
                                    f"16-scan-decoupled-lookback-tuned (meson 1.0.1); full log: {log_path}")
        self.assertIn("  nvcc fatal   : No input files specified; use option --help for more information", lines)
        self.assertFalse(any(l.lstrip().startswith("nvcc  -o") for l in lines))  # not the command line
        self.assertNotIn("Compiling", out + err)  # the steps stay in the log
        self.assertEqual(log_path.read_text(), (FIXTURES / "ninja-meson-1.0.1-link-failure.txt").read_text())

    def test_compile_failure_shows_the_first_errors(self):
        status, _, err, _ = self.run_build("ninja-compile-failure.txt", 1)
        lines = err.splitlines()
        self.assertEqual(status, 1)
        self.assertIn("build failed at chapters/05-scan-baseline/05-scan-baseline and 1 more (meson 1.0.1)", lines[-1])
        self.assertEqual(lines[1], "  ../chapters/05-scan-baseline/scan_baseline.cuh(41): error: identifier "
                                   "\"undefined_name\" is undefined")
        self.assertFalse(any("06-scan-shared-memory/main.cu(3)" in l for l in lines))  # only the first failure
        self.assertLessEqual(len(lines), buildlog.SHOWN_ERROR_LINES + 2)

    def test_success_is_one_line(self):
        status, out, err, log_path = self.run_build("ninja-compile-failure.txt", 0)
        self.assertEqual((status, err), (0, ""))
        # Not a terminal: a progress line once a minute and at the last step (this log stops at 3 of 9), then done.
        self.assertEqual(out.splitlines(), [f"tools/check: built (9 steps, 0 s; log: {log_path})"])

    def test_tools_check_uses_it(self):
        self.assertIn("tools/tutkit/buildlog.py --log", (TOOLS / "check").read_text())

    def test_tour_ends_a_failed_build_with_the_same_line(self):
        # tools/tour's build (ensure_built) with stand-ins for meson 1.0.1 and ninja whose build fails as meson
        # 1.0.1's did: the last line names the target and the meson version, after the error itself.
        bin_dir = Path(tempfile.mkdtemp())
        (bin_dir / "meson").write_text("#!/bin/sh\necho 1.0.1\n")
        (bin_dir / "ninja").write_text(
            "#!/bin/sh\ncase \"$*\" in *'-t targets'*) echo 'chapters/16-scan-decoupled-lookback-tuned/"
            "16-scan-decoupled-lookback-tuned: cuda_LINKER'; exit 0;; esac\n"
            f"cat '{FIXTURES / 'ninja-meson-1.0.1-link-failure.txt'}'\nexit 1\n")
        for f in ("meson", "ninja"):
            (bin_dir / f).chmod(0o755)
        build = Path(tempfile.mkdtemp())
        (build / "build.ninja").write_text("")
        env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
        with mock.patch.object(tour.bootstrap, "ensure", return_value=env):
            status, out, err = call(lambda argv: tour.ensure_built(build, ["16-scan-decoupled-lookback-tuned"]), [])
        self.assertEqual(status, 1)
        lines = err.splitlines()
        # (run_main names the program it runs in: "tour" from tools/tour)
        self.assertTrue(lines[-1].endswith(": error: build failed at chapters/16-scan-decoupled-lookback-tuned/"
                                           f"16-scan-decoupled-lookback-tuned (meson 1.0.1); full log: "
                                           f"{build}/meson-logs/build.log"), lines[-1])
        self.assertIn("  nvcc fatal   : No input files specified; use option --help for more information", lines)


# ---- sanitize -----------------------------------------------------------------------------------

class SanitizeTest(unittest.TestCase):
    def test_parse_testlog(self):
        c = sanitize.parse_testlog((FIXTURES / "testlog-racecheck.json").read_text())
        self.assertEqual((c["passed"], c["failed"], c["skipped"], c["total"]), (3, 2, 1, 6))
        self.assertEqual(c["failed_names"], ["09-scan-zero-padding (FAIL)", "14-scan-two-pass (TIMEOUT)"])
        with self.assertRaises(ToolError):
            sanitize.parse_testlog("{not json}\n")

    def test_parse_console_summary(self):
        c = sanitize.parse_meson_summary((FIXTURES / "meson-test-summary.txt").read_text())
        self.assertEqual((c["passed"], c["failed"], c["skipped"]), (1, 2, 1))
        self.assertEqual(c["failed_names"], ["09-scan-zero-padding (FAIL)", "14-scan-two-pass (TIMEOUT)"])
        self.assertIsNone(sanitize.parse_meson_summary("nothing here"))

    def test_summary_line(self):
        c = sanitize.parse_testlog((FIXTURES / "testlog-racecheck.json").read_text())
        self.assertEqual(sanitize.summary_line("racecheck", c),
                         "racecheck  3 passed, 2 failed, 1 skipped; failed: 09-scan-zero-padding (FAIL), "
                         "14-scan-two-pass (TIMEOUT)")
        skipped = {"passed": 0, "failed": 0, "skipped": 4, "total": 4, "failed_names": []}
        self.assertIn("all skipped", sanitize.summary_line("memcheck", skipped))

    def test_end_to_end(self):
        tmp = Path(tempfile.mkdtemp())
        old_path = os.environ.get("PATH", "")
        try:
            bindir, build, logs = tmp / "bin", tmp / "build", tmp / "logs"
            for d in (bindir, build, logs):
                d.mkdir()
            (build / "build.ninja").write_text("")
            install_script(FIXTURES / "fake_meson.py", bindir / "meson")
            (bindir / "compute-sanitizer").write_text("#!/bin/sh\nexit 0\n")
            os.chmod(bindir / "compute-sanitizer", 0o755)
            shutil.copy(FIXTURES / "testlog-racecheck.json", logs / "testlog-racecheck.json")
            (logs / "testlog-memcheck.json").write_text(json.dumps({"name": "p:gpu / a", "result": "OK"}) + "\n")
            os.environ.update(PATH=f"{bindir}{os.pathsep}{old_path}", FAKE_TESTLOG_DIR=str(logs),
                              FAKE_MESON_LOG=str(tmp / "meson.jsonl"))
            status, out, err = call(sanitize.main, ["--build", str(build), "--tools", "memcheck,racecheck", "--quiet",
                                                    "--suite", "gpu", "--suite", "05-scan-baseline", "-j", "2"])
            self.assertEqual(status, 1, err)
            lines = out.splitlines()
            self.assertEqual(lines[1], "memcheck   1 passed, 0 failed, 0 skipped")
            self.assertTrue(lines[2].startswith("racecheck  3 passed, 2 failed, 1 skipped"))
            calls = [json.loads(l) for l in (tmp / "meson.jsonl").read_text().splitlines()]
            self.assertEqual(calls[0], ["test", "-C", str(build), "--setup", "memcheck", "--suite", "gpu", "--suite",
                                        "05-scan-baseline", "--no-suite", "host", "--num-processes", "2"])
            self.assertEqual(calls[1][-1], "--no-rebuild")     # built once is enough
            status, out, _ = call(sanitize.main, ["--build", str(build), "--tools", "memcheck", "--quiet"])
            self.assertEqual(status, 0)
            # a setup the build lacks: one reconfigure, then a clear error
            status, out, err = call(sanitize.main, ["--build", str(build), "--tools", "synccheck", "--quiet"])
            self.assertEqual(status, 1)
            self.assertIn("no 'synccheck' test setup", err)
            calls = [json.loads(l) for l in (tmp / "meson.jsonl").read_text().splitlines()]
            self.assertEqual(sum(1 for c in calls if c[:2] == ["setup", "--reconfigure"]), 1)
            status, _, err = call(sanitize.main, ["--build", str(build), "--tools", "helgrind"])
            self.assertEqual(status, 2)
            self.assertIn("unknown compute-sanitizer tool 'helgrind'", err)
        finally:
            os.environ["PATH"] = old_path
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main(verbosity=1)
