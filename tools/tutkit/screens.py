"""Sentences with measured numbers in them, generated: the templates under docs/results/screens/.

A README's first screen interprets its table ("this stage is 5.4x faster than chapter 05", "the ncu metric
falls from A to B"). Those numbers must come from the committed runs, not be typed. A template
docs/results/screens/<block>.md is markdown with placeholders; tools/fill-measured renders it into the README
block <!-- measured: <block> --> and tools/lint-docs checks that every rendered block is what its template
gives today. The placeholders:

  {run:CHAPTER:VARIANT:FIELD[:FORMAT]}         a field of one row of the results JSON (the .json beside the
                                               results markdown given to fill-measured): median_us, median_ms,
                                               gbps, gflops, pct_memcpy, pct_peak_dram, pct_peak_fp32,
                                               speed_vs_ref, n
  {speedup:CHAPTER:VARIANT:CHAPTER2:VARIANT2[:FORMAT]}
                                               median time of the second row / median time of the first
                                               (how many times faster the first is)
  {ncu:CSV:CHAPTER:KERNEL:COLUMN[:FORMAT]}     a cell of an ncu-compare CSV (CSV relative to the repository
                                               root; KERNEL is the kernel column, '(total)' for a chapter's
                                               sum over the timed run's launches, KERNEL#ID the launch
                                               with that launch_id where a kernel runs more than once)
  {ncuratio:CSV:CHAPTER:KERNEL:COLUMN:CHAPTER2:KERNEL2[:FORMAT]}
                                               the second cell / the first (how many times the first shrank)
  {csv:CSV:KEY=VALUE[,KEY=VALUE...]:COLUMN[:FORMAT]}
                                               a cell of any CSV with a header line (relative to the
                                               repository root): the one row whose KEY columns hold the VALUEs
                                               (a shape sweep: m=1024,n=1024,k=1024)
  {versus:CHAPTER:VARIANT:CHAPTER2:VARIANT2}   how the first row compares with the second, to read "the stage
                                               is ... chapter 05": "2.49x faster than", "1.05x slower than", or
                                               "level (a tie: ...) with" when their min-max ranges overlap
  {sweep:KIND:CHAPTER:PARAM:VARIANT:FIELD[:FORMAT]}
                                               a field (as for run) of one row of a size/length sweep: the
                                               sweeps JSON <results stem>-sweeps-KIND.json beside the results
                                               file (KIND: sgemm, fft), the run of CHAPTER whose swept
                                               parameter is PARAM as the sweep wrote it (2^20, 4096, 1024)
  {provenance}                                 'NVIDIA H100 80GB HBM3, CUDA 13.0, 2026-11-25, commit abc1234'
                                               of the results JSON
  {results}                                    a link to the results markdown, relative to a chapter README
  {gpu}                                        the results JSON's GPU ('NVIDIA H200'), for a table's header

The results file the templates read is named in docs/results/screens/results.txt (one path, relative to the
repository root), so that the blocks do not depend on which results file fill-measured was given; a template
whose first line is <!-- results: docs/results/<file>.md --> reads that file instead.

FORMAT is a Python format spec (default: '.1f' for percentages, '.2f' for ratios, '.1f' for times, ',.0f'
for counts); a literal brace is written {{ or }}.
"""
import csv
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SCREENS = ROOT / "docs" / "results" / "screens"
PLACEHOLDER = re.compile(r"(?<!\{)\{(?P<body>[a-z]+(?::[^{}]*)?)\}(?!\})")


class TemplateError(ValueError):
    pass


def _fmt(value, spec, default):
    try:
        return format(value, spec or default)
    except (TypeError, ValueError) as e:
        raise TemplateError(f"bad format {spec!r} for {value!r}: {e}")


def _field(row, field, where):
    """FIELD of one result row; median_us is derived from median_ms."""
    if field == "median_us":
        return row["median_ms"] * 1000.0
    if field not in row:
        raise TemplateError(f"{where}: no field {field!r} (have {', '.join(sorted(row))})")
    return row[field]


class Sources:
    """The results JSON and the ncu CSVs a template reads, loaded once."""

    def __init__(self, results_md: pathlib.Path, root: pathlib.Path = ROOT):
        self.root = root.resolve()
        self.results_md = results_md.resolve()
        path = self.results_md.with_suffix(".json")
        if not path.is_file():
            raise TemplateError(f"no results JSON beside {results_md} (expected {path.name})")
        self.data = json.loads(path.read_text())
        self._csv = {}
        self._sweeps = {}

    def row(self, chapter, variant):
        for prog in self.data.get("programs", []):
            if prog.get("chapter") == chapter and prog.get("data"):
                for r in prog["data"].get("results", []):
                    if r.get("variant") == variant:
                        return r
                raise TemplateError(f"results: chapter {chapter} has no variant {variant!r}")
        raise TemplateError(f"results: no chapter {chapter!r}")

    def run_field(self, chapter, variant, field):
        return _field(self.row(chapter, variant), field, "results")

    def _rows(self, csv_path):
        if csv_path not in self._csv:
            p = self.root / csv_path
            if not p.is_file():
                raise TemplateError(f"no CSV {csv_path}")
            with open(p) as f:
                # a chapter program's --format csv starts with '#' lines naming the GPU: not part of the table
                self._csv[csv_path] = list(csv.DictReader(line for line in f if not line.startswith("#")))
        return self._csv[csv_path]

    def ncu(self, csv_path, chapter, kernel, column):
        kernel, _, launch = kernel.partition("#")
        rows = [r for r in self._rows(csv_path) if r["chapter"] == chapter and r["kernel"] == kernel
                and (not launch or r.get("launch_id") == launch)]
        if not rows:
            raise TemplateError(f"{csv_path}: no row for chapter {chapter!r}, kernel {kernel!r}")
        if len(rows) > 1:
            raise TemplateError(f"{csv_path}: {len(rows)} rows for chapter {chapter!r}, kernel {kernel!r} "
                                "(name one launch's kernel, KERNEL#launch_id, or '(total)')")
        if column not in rows[0]:
            raise TemplateError(f"{csv_path}: no column {column!r}")
        return float(rows[0][column])

    def cell(self, csv_path, keys, column):
        """COLUMN of the one row of CSV_PATH whose columns hold KEYS ('m=1024,n=1024')."""
        try:
            want = dict(kv.split("=", 1) for kv in keys.split(","))
        except ValueError:
            raise TemplateError(f"csv: bad row keys {keys!r} (KEY=VALUE,KEY=VALUE)")
        rows = self._rows(csv_path)
        missing = [k for k in list(want) + [column] if rows and k not in rows[0]]
        if missing:
            raise TemplateError(f"{csv_path}: no column {missing[0]!r}")
        hits = [r for r in rows if all(r[k] == v for k, v in want.items())]
        if len(hits) != 1:
            raise TemplateError(f"{csv_path}: {len(hits)} rows with {keys} (need exactly one)")
        return float(hits[0][column])

    def sweep_field(self, kind, chapter, param, variant, field):
        """FIELD of VARIANT in the run of CHAPTER at swept parameter PARAM, from <results stem>-sweeps-KIND.json."""
        if kind not in self._sweeps:
            path = self.results_md.with_name(f"{self.results_md.stem}-sweeps-{kind}.json")
            if not path.is_file():
                raise TemplateError(f"sweep: no sweeps JSON {path.name} beside {self.results_md.name}")
            d = json.loads(path.read_text())
            self._sweeps[kind] = [r for group in ("sweeps", "ladder_sweeps")
                                  for s in d.get(group, {}).values() for r in s.get("runs", [])]
        runs = [r for r in self._sweeps[kind]
                if r.get("chapter") == chapter and param in map(str, r.get("params", {}).values())]
        if len(runs) != 1:
            raise TemplateError(f"sweep {kind}: {len(runs)} runs of {chapter!r} at {param!r} (need exactly one)")
        if not runs[0].get("data"):
            raise TemplateError(f"sweep {kind}: the run of {chapter!r} at {param!r} failed: {runs[0].get('error')}")
        rows = [r for r in runs[0]["data"].get("results", []) if r.get("variant") == variant]
        if not rows:
            raise TemplateError(f"sweep {kind}: {chapter!r} at {param!r} has no variant {variant!r}")
        return _field(rows[0], field, f"sweep {kind}")

    def provenance(self):
        m = self.data.get("meta", {})
        cuda = m.get("cuda_runtime", "?")
        return f"{m.get('gpu', '?')}, CUDA {cuda}, {str(m.get('date', '?'))[:10]}, commit `{m.get('commit', '?')}`"

    def results_link(self):
        rel = self.results_md.relative_to(self.root)
        return f"[{self.results_md.name}](../../{rel})"


def _default_spec(field):
    if field.startswith("pct") or field in ("gbps", "gflops"):
        return ".1f"
    if field in ("speed_vs_ref",):
        return ".2f"
    if field == "n":
        return ","
    return ".1f"


def _cell_spec(column):
    return ".1f" if ("%" in column or "us" in column) else ",.0f"


def versus(a, b):
    """How row A compares with row B, as words that read "A is ... B": "2.49x faster than", "1.05x slower
    than", or a tie when their min-max ranges of repetitions overlap (a difference inside the spread)."""
    x = lambda r: f"{r:.3f}x" if r < 1.1 else f"{r:.2f}x"  # a close call keeps its third digit: 1.004x, not 1.00x
    if a["min_ms"] <= b["max_ms"] and b["min_ms"] <= a["max_ms"]:
        return f"level (a tie: {x(b['median_ms'] / a['median_ms'])}, inside the spread of the repetitions) with"
    if a["median_ms"] < b["median_ms"]:
        return f"{x(b['median_ms'] / a['median_ms'])} faster than"
    return f"{x(a['median_ms'] / b['median_ms'])} slower than"


def render(template: str, src: Sources) -> str:
    def one(m):
        parts = m.group("body").split(":")
        kind, args = parts[0], parts[1:]
        if kind == "provenance" and not args:
            return src.provenance()
        if kind == "results" and not args:
            return src.results_link()
        if kind == "gpu" and not args:
            return src.data.get("meta", {}).get("gpu", "?")
        if kind == "run" and len(args) in (3, 4):
            v = src.run_field(*args[:3])
            return _fmt(v, args[3] if len(args) == 4 else "", _default_spec(args[2]))
        if kind == "speedup" and len(args) in (4, 5):
            a, b = src.row(args[0], args[1]), src.row(args[2], args[3])
            return _fmt(b["median_ms"] / a["median_ms"], args[4] if len(args) == 5 else "", ".2f")
        if kind == "versus" and len(args) == 4:
            return versus(src.row(args[0], args[1]), src.row(args[2], args[3]))
        if kind == "sweep" and len(args) in (5, 6):
            v = src.sweep_field(*args[:5])
            return _fmt(v, args[5] if len(args) == 6 else "", _default_spec(args[4]))
        if kind == "ncu" and len(args) in (4, 5):
            return _fmt(src.ncu(*args[:4]), args[4] if len(args) == 5 else "", _cell_spec(args[3]))
        if kind == "csv" and len(args) in (3, 4):
            return _fmt(src.cell(*args[:3]), args[3] if len(args) == 4 else "", _cell_spec(args[2]))
        if kind == "ncuratio" and len(args) in (6, 7):
            a = src.ncu(args[0], args[1], args[2], args[3])
            b = src.ncu(args[0], args[4], args[5], args[3])
            if a == 0:
                raise TemplateError(f"ncuratio: {args[3]} of {args[1]}/{args[2]} is 0")
            return _fmt(b / a, args[6] if len(args) == 7 else "", ".2f")
        raise TemplateError(f"unknown placeholder {{{m.group('body')}}}")

    out = PLACEHOLDER.sub(one, template)
    return out.replace("{{", "{").replace("}}", "}").strip()


RESULTS_LINE = re.compile(r"\A<!-- results: (?P<path>\S+) -->\n")


def screen_fills(directory: pathlib.Path = SCREENS) -> dict:
    """{block name: rendered text} for every template in DIRECTORY, from the results file its results.txt names, or
    the one a template's first line names (<!-- results: docs/results/<file>.md -->: a chapter whose first table
    comes from a newer run than the rest)."""
    named = directory / "results.txt"
    if not named.is_file():
        return {}
    root = directory.resolve().parents[2]
    sources = {}

    def source(rel):
        if rel not in sources:
            sources[rel] = Sources(root / rel, root)
        return sources[rel]

    default = named.read_text().strip()
    fills = {}
    for t in sorted(directory.glob("*.md")):
        text = t.read_text()
        m = RESULTS_LINE.match(text)
        try:
            fills[t.stem] = render(text[m.end():] if m else text, source(m.group("path") if m else default))
        except TemplateError as e:
            raise TemplateError(f"{t.relative_to(root)}: {e}")
    return fills
