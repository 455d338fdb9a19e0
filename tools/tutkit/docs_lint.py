"""tools/lint-docs: checks that the READMEs hold up. Files: every chapters/*/README.md, docs/*.md and README.md.

Rules (each finding is one line `FILE:LINE: RULE: message`):
  link      a relative link's file exists; a #anchor into a .md names a heading of it (GitHub's slugs)
  path      a repo path quoted in text or backticks (chapters/..., common/..., tools/..., docs/...,
            exercises/..., solutions/...) exists; paths with a placeholder (*, <, NN) are not checked
  tmp       no temporary path (/tmp/...) outside a measured block (the blocks come from the results file)
  issue     no reference to an issue ("issue #19", "Issue 14", "the issue's ...")
  variant   a variant name quoted in a chapter README (after --variant, in the first column of a table headed
            "variant" outside measured blocks, or in backticks when shaped like one of the chapter's names)
            is in the chapter's variant list: read from the sources (see variants_from_source) or, with
            --build DIR, from the built program's --list. A name the variant had once is accepted when the README
            declares it: <!-- former-variants: NAME ... --> (beside the sentence that says when it was so named)
  measured  a measured block that cites its results file ("(Full results and the command: [..](FILE).)")
            is exactly what tools/fill-measured would write from FILE today; a block filled from a table script
            (a BLOCKS entry of a docs/results/raw/*/tables*.py that tools/meson.build runs as a host test) is its
            committed table (tables/NAME.md); a block from a template is what docs/results/screens/NAME.md
            renders; and every block has one of those generators (a block that none writes was typed by hand)
  stale     a link to a results file (docs/results/**.md or .json) in a paragraph that names a commit stands
            beside the commit that file holds (the last commit named before the link, else the first after) (otherwise the values it cites are only in git history)
  map       the front page's chapter map (<!-- chapter-map: RESULTS.json --> ... <!-- /chapter-map -->): its
            result column is what tools/tutkit/chapter_map.py writes from RESULTS (`tools/lint-docs --fill` writes it)
  screen    the first screen (first 40 lines) of a chapter README has: a "## " heading or a bold lead
            ("**...**") that carries the idea, a table (a "|---" separator line, or a measured block opening),
            and a named ncu metric (a backticked token with "__", e.g. `dram__bytes_read.sum`). Reported for
            every chapter; an error only for chapters listed in tools/docs-screen-done.txt.
  opening   a chapter README's first screen starts with words: between OPENING_WORDS[0] and OPENING_WORDS[1]
            words of prose (the idea) before its first table
  words     the first screen holds at most SCREEN_WORDS words of prose (tables, code, headings, comments and
            backticked names not counted)
  target    no project targets in a student's README ("target", "goal met", "goals"; "branch targets" and a
            compiler's or build's target are fine: see NOT_A_TARGET), HTML comments and fenced code aside
  previous  ratios from one process: a chapter with a previous stage (the chapter numbered one less in the same
            ladder, 40's is 17) names it in a table of its first screen, by its variant name or its number
            ("16 `scan-...`", "27 / cuBLAS", "chapter 17's scan"): the previous stage timed in the same run
A chapter may be a known exception to opening, words, target and previous: KNOWN_EXCEPTIONS below lists each with
its reason; an exception that is no longer needed is printed as a note (not an error), to be removed.
"""

import importlib.machinery
import importlib.util
import json
import re
import subprocess
from pathlib import Path

from .common import REPO_ROOT, ArgumentParser, ToolError, previous_chapter

SCREEN_LINES = 40
OPENING_WORDS = (20, 200)  # prose words before the first table: the idea, short
SCREEN_WORDS = 350         # prose words on the first screen
# Where project targets are named: "target(s)" and "goal(s) [met]", but not a branch's, a compiler's or a build's.
TARGET = re.compile(r"\b(?:targets?|goals?)\b", re.I)
NOT_A_TARGET = re.compile(r"\b(?:branch|divergent|uniform|oldest|build|ninja|meson|compile|compilation)\s+$", re.I)  # words before it
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
# Chapters that fail a rule today, and why. Fixing one: change the README (or the program and its run), then drop
# the chapter here (tools/lint-docs prints a note for an entry that is no longer needed).
KNOWN_EXCEPTIONS = {
    "previous": {},
    "opening": {},
}
SCREEN_DONE_FILE = "tools/docs-screen-done.txt"
REPO_DIRS = ("chapters", "common", "tools", "docs", "exercises", "solutions")
# Rows every chapter program prints besides its variants (the harness's copy bound), and the --variant keywords
# ('all'; 'default', the variants of a plain run, as in --variant default,NAME).
HARNESS_ROWS = {"cudaMemcpy", "all", "default"}

MEASURED = re.compile(r"<!-- measured: (?P<name>[\w.-]+) -->(?P<body>(?:(?!<!-- measured: ).)*?)<!-- /measured -->",
                      re.S)
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
REPO_PATH = re.compile(r"(?<![\w./-])(?P<path>(?:%s)/[\w./*<>+-]*)" % "|".join(REPO_DIRS))
TMP_PATH = re.compile(r"(?<![\w.])/tmp/\S*")
# "issue 78.0%" is ncu's issue-slot figure, not a reference
ISSUE = re.compile(r"\b(?:issues?\s*#\s*\d+|issue\s+\d+(?![\d.%])|the issue's\b)", re.I)
FULL_RESULTS = re.compile(r"\(Full results and the command: \[[^\]]*\]\((?P<target>[^)]+)\)\.\)")
RESULTS_LINK = re.compile(r"\]\((?P<target>[^)]*docs/results/[\w./-]+\.(?:md|json))\)")  # files with no commit: skipped
COMMIT = re.compile(r"commit `?(?P<sha>[0-9a-f]{7,40})`?")
FORMER = re.compile(r"<!-- former-variants: ([^>]*?) -->")
VARIANT_SHAPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9+._-]*$")
NCU_METRIC = re.compile(r"`[a-z0-9]+__[\w.]+`")
# The table scripts tools/meson.build runs as host tests: ['test name', '<raw folder>/tables*.py'] under docs/results/raw.
MESON_BUILD = "tools/meson.build"
TABLE_SCRIPT = re.compile(r"\[\s*'[\w.-]+'\s*,\s*'(?P<script>[\w.-]+(?:/[\w.-]+)?/tables\w*\.py)'\s*\]")


# ---------------------------------------------------------------------------------------------- variants

def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


# Where a variant's name is written in a chapter's sources: the first string of a braced initialiser
# ({"name", "description", ...}: VariantSpec, ScanVariant, FftVariant, GemmVariant, a chapter's own table of
# variants, and the reference rows the common/ chapter makers push; an option's name may come along, which
# only makes the check more lenient), the first argument of a named maker
# (candidate<...>("name", shape_variant<...>("name"), a kernel header's as_variant("name", ...)), an assignment to
# .name, or a stage-name constant.
_NAME_PATTERNS = (
    re.compile(r"\{\s*\"(?P<n>[^\"\\]+)\"\s*,"),
    re.compile(r">\s*\(\s*\"(?P<n>[^\"\\]+)\""),
    re.compile(r"\bas_(?:fallback_)?variant\s*(?:<[^>]*>)?\s*\(\s*\"(?P<n>[^\"\\]+)\""),  # gemm_tma::as_variant("name", ...)
    re.compile(r"\.name\s*=\s*\"(?P<n>[^\"\\]+)\""),
    re.compile(r"\bk\w*Stage\s*=\s*\"(?P<n>[^\"\\]+)\""),  # kStage, kCopyBoundStage, ...
)
# The chapter makers in common/ and the files that define the rows they add.
_MAKERS = {"make_scan_chapter": "common/scan_reference.cu", "make_gemm_chapter": "common/gemm/gemm_workload.cu",
           "make_fft_chapter": "common/fft/fft_chapter.cu"}
# Stage-name constants in common/ that a chapter registers a variant under, and the files that define them.
_NAME_CONSTANTS = {"kSm90aFallbackStage": "common/hopper/sm90a_fallback.cuh"}


def names_in_source(src):
    """Variant names written in one C++/CUDA source text (see _NAME_PATTERNS)."""
    src = _strip_comments(src)
    out = set()
    for pat in _NAME_PATTERNS:
        out.update(m.group("n") for m in pat.finditer(src) if VARIANT_SHAPE.match(m.group("n")))
    return out


def prefixes_in_source(src):
    """Names built at run time ("chains-" + std::to_string(n)): the literal before the '+', as a prefix."""
    src = _strip_comments(src)
    out = {m.group(1) + "*" for m in re.finditer(r"[{(?]\s*\"([a-z][\w.+-]{2,})\"\s*\+", src)}
    # (cond ? "a" : "b") + "-tail-" + ...
    for m in re.finditer(r"\?\s*\"([\w.+-]+)\"\s*:\s*\"([\w.+-]+)\"\s*\)\s*\+\s*\"([\w.+-]*)\"", src):
        out |= {m.group(1) + m.group(3) + "*", m.group(2) + m.group(3) + "*"}
    return out


def variants_from_source(chapter_dir, root=REPO_ROOT):
    """The variant names of one chapter, read from its main.cu and headers (and the common/ maker it calls).
    A name ending in '*' is a prefix: the program appends a number to it."""
    chapter_dir = Path(chapter_dir)
    texts = [p.read_text(errors="replace") for p in sorted(chapter_dir.glob("*.cu")) + sorted(chapter_dir.glob("*.cuh"))
             if not p.name.startswith("test")]
    names = set()
    for t in texts:
        names |= names_in_source(t) | prefixes_in_source(t)
        for maker, path in _MAKERS.items():
            if maker in t and (root / path).is_file():
                src = _strip_comments((root / path).read_text())
                names.update(m.group(1) for m in re.finditer(r"variants\.push_back\(\{\s*\"([^\"]+)\"", src))
        for constant, path in _NAME_CONSTANTS.items():
            if constant in t and (root / path).is_file():
                names |= names_in_source((root / path).read_text())
    return names


def variants_from_list(text):
    """Variant names from a program's --list output: JSON (a list of objects with "name", or an object with
    "variants") or the text form 'NAME[ (reference|on demand)]<TAB>description'."""
    text = text.strip()
    if text.startswith("[") or text.startswith("{"):
        data = json.loads(text)
        if isinstance(data, dict):
            data = data.get("variants", [])
        return {v["name"] for v in data}
    return {line.split("\t")[0].split(" (")[0].strip() for line in text.splitlines() if line.strip()}


def variants_from_build(chapter_dir, build):
    """The --list of the built program, or None when it is not built (or cannot run here)."""
    prog = Path(build) / "chapters" / chapter_dir.name / chapter_dir.name
    if not prog.is_file():
        return None
    for args in (["--list", "--format", "json"], ["--list"]):
        try:
            r = subprocess.run([str(prog), *args], capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if r.returncode == 0 and r.stdout.strip():
            try:
                return variants_from_list(r.stdout)
            except (ValueError, KeyError, TypeError):
                continue
    return None


def known_variant(name, known):
    # chapter 40 prints one row per GPU count: NAME-<N>gpu; a prefix (NAME*) takes any completion
    return (name in known or name in HARNESS_ROWS or re.sub(r"-\d+gpus?$", "", name) in known
            or any(k.endswith("*") and name.startswith(k[:-1]) and len(name) > len(k) - 1 for k in known))


def looks_like_variant(token, known):
    """A backticked token is taken for a variant name when it has a variant's shape and shares its first
    '-' segment and its number of segments... loosely: same first segment as a known name of the chapter,
    and at least one '-' (so `int4`, `cub` or a C++ name is left alone)."""
    if "-" not in token or not VARIANT_SHAPE.match(token) or token.startswith("-"):
        return False
    head = token.split("-")[0]
    return any(k.split("-")[0] == head and ("-" in k or k.endswith("*")) for k in known)


# ---------------------------------------------------------------------------------------------- markdown

def slug(heading):
    """GitHub's anchor for a heading text."""
    h = re.sub(r"`|\*\*|\*|_(?=\W)|(?<=\W)_", "", heading.strip()).lower()
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(text):
    out, seen, fence = set(), {}, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            out.add(s if n == 0 else f"{s}-{n}")
            seen[s] = n + 1
    out.update(re.findall(r"<a (?:name|id)=\"([^\"]+)\"", text))
    return out


def masked(text, pattern):
    """TEXT with every match of PATTERN blanked (newlines kept, so line numbers hold)."""
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


class Lint:
    def __init__(self, root=REPO_ROOT, build=None, screen_done=None):
        self.root = Path(root)
        self.build = build
        self.findings = []  # (file, line, rule, message)
        self.screen = []    # (chapter, [missing parts])
        self.excused = {}   # (rule, chapter): the finding a known exception covers
        done_file = self.root / SCREEN_DONE_FILE if screen_done is None else Path(screen_done)
        self.screen_done = set()
        if done_file.is_file():
            self.screen_done = {l.split("#")[0].strip() for l in done_file.read_text().splitlines()} - {""}
        self._fills = {}
        self._screens = None
        self._tables = None
        self._all_variants = None

    def add(self, path, line, rule, msg):
        self.findings.append((str(Path(path).relative_to(self.root)), line, rule, msg))

    def files(self):
        out = (sorted(self.root.glob("chapters/*/README.md")) + sorted(self.root.glob("chapters/*/lab/README.md")) +
               sorted(self.root.glob("docs/*.md")))
        top = self.root / "README.md"
        return out + ([top] if top.is_file() else [])

    def run(self):
        for f in self.files():
            self.check_file(f)
        return self

    # one file
    def check_file(self, path):
        text = path.read_text()
        no_blocks = masked(text, MEASURED)
        prose = masked(no_blocks, FENCE)  # no measured blocks, no fenced code
        self.check_links(path, prose)
        self.check_paths(path, no_blocks)
        self.check_tmp(path, no_blocks)
        self.check_issue(path, no_blocks)
        self.check_stale(path, no_blocks)
        self.check_measured(path, text)
        self.check_chapter_map(path, text)
        self.check_build_times(path, text)
        if path.parent.parent == self.root / "chapters":
            self.check_variants(path, no_blocks)
            self.check_screen(path, text)
            self.check_first_screen(path, text)

    def check_links(self, path, prose):
        for m in LINK.finditer(masked(prose, CODE_SPAN)):
            target = m.group("target")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            line = line_of(prose, m.start())
            if not dest.exists():
                self.add(path, line, "link", f"no such file: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
                self.add(path, line, "link", f"no heading for #{anchor} in {file_part or path.name}")

    def check_paths(self, path, text):
        for m in REPO_PATH.finditer(text):
            p = m.group("path").rstrip(".,:;")
            if re.search(r"[*<>]|NN|\.\.\.", p) or p.endswith("-"):
                continue
            if not (self.root / p).exists():
                self.add(path, line_of(text, m.start()), "path", f"no such path in the repository: {p}")

    def check_tmp(self, path, text):
        for m in TMP_PATH.finditer(text):
            self.add(path, line_of(text, m.start()), "tmp", f"temporary path: {m.group(0).rstrip('.,;:)`')}")

    def check_issue(self, path, text):
        for m in ISSUE.finditer(text):
            self.add(path, line_of(text, m.start()), "issue", f"reference to an issue: {m.group(0)!r}")

    def results_commit(self, target):
        f = self.root / target
        if not f.is_file():
            return None
        if f.suffix == ".json":
            try:
                return str(json.loads(f.read_text()).get("meta", {}).get("commit", "")).strip("`") or None
            except ValueError:
                return None
        m = re.search(r"^\| commit \| `?([0-9a-f]+)`? \|", f.read_text(), re.M)
        return m.group(1) if m else None

    def check_stale(self, path, text):
        for para in re.finditer(r"(?:[^\n]+\n?)+", text):  # paragraphs: runs of non-blank lines
            body = para.group(0)
            commits = [(m.start(), m.group("sha")) for m in COMMIT.finditer(body)]
            if not commits:
                continue
            for m in RESULTS_LINK.finditer(body):
                # the commit the link stands beside: the last one named before it, else the first after it
                before = [sha for pos, sha in commits if pos < m.start()]
                sha = before[-1] if before else commits[0][1]
                target = str((path.parent / m.group("target")).resolve().relative_to(self.root.resolve()))
                held = self.results_commit(target)
                if held and not (sha.startswith(held) or held.startswith(sha)):
                    self.add(path, line_of(text, para.start() + m.start()), "stale",
                             f"links {target} (commit {held}) beside commit {sha}: the values are only in git history")

    def fills(self, results):
        if results not in self._fills:
            spec = importlib.util.spec_from_loader(
                "fill_measured", importlib.machinery.SourceFileLoader("fill_measured", str(REPO_ROOT / "tools/fill-measured")))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self._fills[results] = mod.results_fills(results)
        return self._fills[results]

    def screens(self):
        if self._screens is None:
            from .screens import TemplateError, screen_fills
            try:
                self._screens = screen_fills(self.root / "docs" / "results" / "screens")
            except TemplateError as e:
                self._screens = {}
                self.add(self.root / "docs" / "results" / "screens", 1, "measured", str(e))
        return self._screens

    def table_blocks(self):
        """{block: committed table file} for each BLOCKS entry ({block: table name}) of the table scripts that
        tools/meson.build lists (each script is loaded, not run: its tables are not regenerated here; the host tests
        run each with --fill --check)."""
        if self._tables is None:
            self._tables = {}
            meson = self.root / MESON_BUILD
            scripts = TABLE_SCRIPT.findall(meson.read_text()) if meson.is_file() else []
            for i, rel in enumerate(scripts):
                script = self.root / "docs" / "results" / "raw" / rel
                try:
                    spec = importlib.util.spec_from_file_location(f"_lint_tables_{i}", script)
                    mod = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(mod)
                    blocks = dict(mod.BLOCKS)
                except (Exception, SystemExit) as e:  # a broken script is a finding, not a crash of the lint
                    self.add(meson, 1, "measured", f"cannot read BLOCKS of docs/results/raw/{rel}: {e!r}")
                    continue
                for block, table in blocks.items():
                    self._tables[block] = script.parent / "tables" / f"{table}.md"
        return self._tables

    def check_measured(self, path, text):
        for m in MEASURED.finditer(text):
            name = m.group("name")
            line = line_of(text, m.start())
            if name in self.screens():
                if m.group("body").strip("\n") != self.screens()[name]:
                    self.add(path, line, "measured", f"block {name} differs from what "
                             f"tools/fill-measured renders from docs/results/screens/{name}.md")
                continue
            table = self.table_blocks().get(name)
            if table is not None:
                rel = table.relative_to(self.root)
                if not table.is_file():
                    self.add(path, line, "measured", f"block {name}: no committed table {rel} (run its script)")
                elif m.group("body").strip("\n") != table.read_text().strip():
                    self.add(path, line, "measured", f"block {name} differs from {rel} (its script's --fill writes it)")
                continue
            cited = FULL_RESULTS.search(m.group("body"))
            if not cited:
                self.add(path, line, "measured", f"block {name}: no generator writes it (not a section of a results "
                         "file it cites, nor a docs/results/screens/ template, nor a BLOCKS entry of a table script "
                         f"in {MESON_BUILD}): a typed copy of measured numbers")
                continue
            results = (path.parent / cited.group("target")).resolve()
            if not results.is_file():
                self.add(path, line, "measured", f"block {m.group('name')}: no such results file {cited.group('target')}")
                continue
            want = self.fills(results).get(m.group("name"))
            if want is None:
                self.add(path, line, "measured", f"block {m.group('name')}: no section for it in {cited.group('target')}")
            elif m.group("body").strip("\n") != want:
                self.add(path, line, "measured", f"block {m.group('name')} differs from what tools/fill-measured "
                         f"writes from {cited.group('target')}")

    def check_chapter_map(self, path, text):
        from . import chapter_map
        for m in chapter_map.BLOCK.finditer(text):
            missing = [p for p in chapter_map.results_paths(m.group("results"), self.root) if not p.is_file()]
            if missing:
                self.add(path, line_of(text, m.start()), "map",
                         f"no such results file {missing[0].relative_to(self.root)}")
                continue
            try:
                want = chapter_map.render(m.group("body"), chapter_map.load_results(m.group("results"), self.root),
                                          self.root)
            except ValueError as e:
                self.add(path, line_of(text, m.start()), "map", str(e))
                continue
            if m.group("body") != want:
                self.add(path, line_of(text, m.start()), "map", "the chapter map's result column differs from "
                         f"what {m.group('results')} gives (tools/lint-docs --fill writes it)")

    def check_build_times(self, path, text):
        from . import build_times
        for offset, msg in build_times.check(text, self.root):
            self.add(path, line_of(text, offset), "build-times", msg)

    def variants(self, chapter_dir):
        got = variants_from_build(chapter_dir, self.build) if self.build else None
        return got if got is not None else variants_from_source(chapter_dir, self.root)

    def all_variants(self):
        if self._all_variants is None:
            self._all_variants = set()
            for d in sorted(self.root.glob("chapters/*/")):
                self._all_variants |= self.variants(d)
        return self._all_variants

    def check_variants(self, path, text):
        known = self.variants(path.parent)
        if not known:
            return
        # names a variant once had, declared where the README says so: <!-- former-variants: a b -->
        known = known | {n for m in FORMER.finditer(text) for n in m.group(1).split()}
        quoted = []  # (pos, name, strict): strict names must be this chapter's (or another's, named)
        for m in re.finditer(r"--variant[ =]+`?([\w+.,-]+)", text):
            quoted += [(m.start(), v, True) for v in m.group(1).split(",") if v]
        for m in re.finditer(r"`([^`\n]+)`", text):
            tok = m.group(1).strip()
            if looks_like_variant(tok, known):
                quoted.append((m.start(), tok, False))
        # tables headed "variant": the first column
        lines = text.splitlines(keepends=True)
        pos, in_table = 0, False
        for i, line in enumerate(lines):
            cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
            if cells is None:
                in_table = False
            elif not in_table and cells[0].lower() in ("variant", "variants") and i + 1 < len(lines) \
                    and lines[i + 1].lstrip().startswith("|-"):
                in_table = "head"
            elif in_table == "head":
                in_table = True
            elif in_table:
                name = re.sub(r"\\?\*|`|\*\*", "", cells[0]).strip()
                if name and VARIANT_SHAPE.match(name):
                    quoted.append((pos, name, True))
            pos += len(line)
        everywhere = None
        for p, name, strict in quoted:
            if len(name) < 2 or known_variant(name, known):
                continue
            if everywhere is None:
                everywhere = self.all_variants()
            if known_variant(name, everywhere):
                continue  # another chapter's variant, named to compare
            self.add(path, line_of(text, p), "variant",
                     f"'{name}' is not a variant of {path.parent.name} (nor of another chapter)")

    def finding_or_excused(self, path, line, rule, msg):
        chapter = path.parent.name
        if chapter in KNOWN_EXCEPTIONS.get(rule, {}):
            self.excused[(rule, chapter)] = msg
        else:
            self.add(path, line, rule, msg)

    def stale_exceptions(self):
        """[(rule, chapter)] listed in KNOWN_EXCEPTIONS whose README now passes that rule (or does not exist)."""
        checked = {p.parent.name for p in self.files() if p.parent.parent == self.root / "chapters"}
        return [(rule, c) for rule, cs in KNOWN_EXCEPTIONS.items() for c in cs
                if (rule, c) not in self.excused and (c in checked or not (self.root / "chapters" / c).is_dir())]

    def check_first_screen(self, path, text):
        lines = text.splitlines()[:SCREEN_LINES]
        table = first_table(lines)
        opening = prose_words(lines[:table] if table is not None else lines)
        if not OPENING_WORDS[0] <= opening <= OPENING_WORDS[1]:
            self.finding_or_excused(path, 1, "opening", f"{opening} words before the first table (want "
                                    f"{OPENING_WORDS[0]} to {OPENING_WORDS[1]}: the idea first, short)")
        words = prose_words(lines)
        if words > SCREEN_WORDS:
            self.finding_or_excused(path, 1, "words", f"{words} words of prose on the first screen (lines 1-"
                                    f"{SCREEN_LINES}; at most {SCREEN_WORDS})")
        bare = masked(masked(text, HTML_COMMENT), FENCE)
        hits = [m for m in TARGET.finditer(bare) if not NOT_A_TARGET.search(bare[max(0, m.start() - 30):m.start()])]
        if hits:
            self.finding_or_excused(path, line_of(bare, hits[0].start()), "target",
                                    f"{len(hits)} mention(s) of a project target ({hits[0].group(0)!r}): a student's "
                                    "README measures against the bound and the vendor library")
        chapters = sorted(p.name for p in (self.root / "chapters").iterdir() if p.is_dir())
        prev = previous_chapter(path.parent.name, chapters)
        if prev and not names_previous(lines, prev):
            self.finding_or_excused(path, 1, "previous", f"no table of the first screen names the previous stage "
                                    f"({prev}): ratios to it should come from the same run")

    def check_screen(self, path, text):
        first = "\n".join(text.splitlines()[:SCREEN_LINES])
        missing = []
        if not re.search(r"^## \S", first, re.M) and not re.search(r"^\*\*[^*]+\*\*", first, re.M):
            missing.append("a '## ' heading or bold lead that carries the idea")
        if not re.search(r"^\s*\|\s*:?-{3}", first, re.M) and "<!-- measured:" not in first:
            missing.append("a table")
        if not NCU_METRIC.search(first):
            missing.append("an ncu metric (`xxx__yyy`)")
        chapter = path.parent.name
        if missing:
            self.screen.append((chapter, missing))
            if chapter in self.screen_done:
                self.add(path, 1, "screen", f"first {SCREEN_LINES} lines lack " + "; ".join(missing))


def prose_words(lines):
    """Words of prose in LINES: tables, fenced code, headings, HTML comments and backticked spans not counted."""
    n, fence = 0, False
    for line in lines:
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or line.lstrip().startswith(("|", "#", "<!--")):
            continue
        n += len(re.findall(r"[A-Za-z][\w'’-]*", CODE_SPAN.sub(" ", line)))
    return n


def first_table(lines):
    """Index of the first table line (its header, or a measured block's opening) in LINES, or None."""
    for i, line in enumerate(lines):
        if line.startswith("<!-- measured:"):
            return i
        if re.match(r"^\s*\|\s*:?-{3}", line):
            return i - 1 if i and lines[i - 1].lstrip().startswith("|") else i
    return None




def names_previous(lines, prev):
    """True when a table among LINES names the chapter PREV: its stage's variant name, or its number at the start
    of a cell ("16 `scan-...`", "27 / cuBLAS") or as "chapter NN"."""
    num, _, variant = prev.partition("-")
    for line in lines:
        if not line.lstrip().startswith("|"):
            continue
        cells = [re.sub(r"[`*\\]", "", c).strip() for c in line.strip().strip("|").split("|")]
        if any(re.match(rf"^{re.escape(variant)}(?![\w-])", c) or re.match(rf"^{num}(?![\d.,])", c) or re.search(rf"\bchapter {num}\b", c)
               for c in cells):
            return True
    return False


def main(argv):
    ap = ArgumentParser(prog="tools/lint-docs", description=__doc__.splitlines()[0], epilog=__doc__.split("\n", 2)[2])
    ap.add_argument("--root", type=Path, default=REPO_ROOT, help="repository root (default: this checkout)")
    ap.add_argument("--build", type=Path, help="build directory: take variant names from the programs' --list")
    ap.add_argument("--screen-done", type=Path, help=f"allow-list of chapters held to the first-screen rule "
                    f"(default: {SCREEN_DONE_FILE})")
    ap.add_argument("--fill", action="store_true", help="first write the generated blocks that this lint owns (the "
                    "chapter map and the build times of README.md) from their results files and logs, then check")
    a = ap.parse_args(argv)
    if not (a.root / "chapters").is_dir():
        raise ToolError(f"{a.root} has no chapters/ folder")
    if a.fill:
        from . import build_times, chapter_map
        for f in Lint(a.root).files():
            text = f.read_text()
            try:
                new = build_times.fill(chapter_map.fill(text, a.root), a.root)
            except (OSError, ValueError) as e:
                raise ToolError(f"{f}: cannot fill the chapter map or the build times: {e}")
            if new != text:
                f.write_text(new)
                print(f"lint-docs: wrote the chapter map of {f.relative_to(a.root)}")
    lint = Lint(a.root, a.build, a.screen_done).run()
    for f, line, rule, msg in sorted(lint.findings):
        print(f"{f}:{line}: {rule}: {msg}")
    if lint.screen:
        print(f"first screen (lines 1-{SCREEN_LINES}) incomplete in {len(lint.screen)} chapter(s) "
              f"(an error only for those in {SCREEN_DONE_FILE}):")
        for chapter, missing in lint.screen:
            print(f"  {chapter}: lacks {'; '.join(missing)}")
    if lint.excused:
        print(f"known exceptions ({len(lint.excused)}, listed with their reasons in KNOWN_EXCEPTIONS of "
              f"tools/tutkit/docs_lint.py):")
        for (rule, chapter), msg in sorted(lint.excused.items()):
            print(f"  {chapter}: {rule}: {msg}")
    for rule, chapter in lint.stale_exceptions():
        print(f"note: {chapter} passes '{rule}' now: drop it from KNOWN_EXCEPTIONS")
    print(f"lint-docs: {len(lint.findings)} finding(s) in {len(lint.files())} file(s)")
    return 1 if lint.findings else 0
