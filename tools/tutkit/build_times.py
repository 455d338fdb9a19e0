"""The front page's "How long it takes" sentence, written from committed tools/check logs (never typed):

    <!-- build-times: GPU_LOG CPU_LOG [MULTI_GPU_LOG] -->...<!-- /build-times -->

GPU_LOG: the log of `tools/check` on a GPU machine (its folder holds gpu.txt, the GPU's name first, or
nvidia-smi's "index, name, ..." lines, one per GPU); MULTI_GPU_LOG (optional): the same on a machine of several
GPUs, where tools/check spreads the GPU tests over them;
CPU_LOG: a log of `tools/check` on a machine without a GPU (CI's, .ci/run's output). From each it reads the
lines tools/check prints: "built (N steps, S s; ...)", "build S s, tests S s" and "tests: N passed, ...".
`tools/lint-docs` checks the block; `tools/lint-docs --fill` writes it."""

import re
from pathlib import Path

BLOCK = re.compile(r"<!-- build-times: (?P<gpu>\S+) (?P<cpu>\S+)(?: (?P<multi>\S+))? -->(?P<body>.*?)<!-- /build-times -->",
                   re.S)
TIMES = re.compile(r"^build (?P<build>\d+) s, tests (?P<tests>\d+) s$", re.M)
COUNTS = re.compile(r"^tests: (?P<passed>\d+) passed, (?P<failed>\d+) failed, (?P<skipped>\d+) skipped$", re.M)
STEP_2 = re.compile(r"^ci: step 2: .* built (?P<what>.*) in (?P<s>\d+) s", re.M)
ARCHS = re.compile(r"gpu_archs=auto: [^,]*, building for (?P<archs>[^:]*?)(?: only)?:", re.M)


def read_check_log(path):
    """{build, tests, passed, failed, skipped} from the first tools/check summary in a log; ValueError if none."""
    text = Path(path).read_text(errors="replace")
    t, c = TIMES.search(text), COUNTS.search(text)
    if not t or not c:
        raise ValueError(f"{path}: no tools/check summary ('build S s, tests S s' and 'tests: ...')")
    out = {k: int(v) for k, v in {**t.groupdict(), **c.groupdict()}.items()}
    a = ARCHS.search(text)
    out["archs"] = a.group("archs").strip() if a else None
    return out


def gpus_of(log):
    """(count, name) of the GPUs in the gpu.txt beside a log: its lines, each "NAME, ..." or "INDEX, NAME, ...";
    (1, "GPU machine") without one."""
    txt = Path(log).parent / "gpu.txt"
    if not txt.is_file():
        return 1, "GPU machine"
    lines = [ln.split(",") for ln in txt.read_text().splitlines() if "," in ln]
    fields = [f.strip() for f in lines[0]]
    return len(lines), fields[1] if fields[0].isdigit() and len(fields) > 1 else fields[0]


def render(gpu_log, cpu_log, root, multi_log=None):
    root = Path(root)
    gpu, cpu = read_check_log(root / gpu_log), read_check_log(root / cpu_log)
    _, name = gpus_of(root / gpu_log)
    text = (f"`tools/check` from a fresh clone took {gpu['build']} s to build and {gpu['tests']} s to test on "
            f"one {name} ({gpu['passed']} passed, {gpu['failed']} failed, {gpu['skipped']} skipped; "
            f"[log]({gpu_log})), ")
    if multi_log:
        multi = read_check_log(root / multi_log)
        count, multi_name = gpus_of(root / multi_log)
        text += (f"{multi['build']} s and {multi['tests']} s on {count} {multi_name}s of one host, where it spreads "
                 f"the GPU tests over them ({multi['passed']} passed, {multi['failed']} failed, "
                 f"{multi['skipped']} skipped; [log]({multi_log})), ")
    text += (f"and {cpu['build']} s to build ({cpu['archs'] or 'sm_75 + PTX'}) and "
            f"{cpu['tests']} s to test on 2 cores without a GPU, where the GPU tests skip "
            f"({cpu['passed']} passed, {cpu['skipped']} skipped; [log]({cpu_log}))")
    step2 = STEP_2.search((root / cpu_log).read_text(errors="replace"))
    if step2:
        text += f"; CI then builds the sm_90-only code for sm_90 in {step2.group('s')} s more"
    return text + ". `tools/tour --chapters 01` builds one chapter's program only."


def fill(text, root):
    def block(m):
        logs = " ".join(x for x in (m.group("gpu"), m.group("cpu"), m.group("multi")) if x)
        return (f"<!-- build-times: {logs} -->{render(m.group('gpu'), m.group('cpu'), root, m.group('multi'))}"
                "<!-- /build-times -->")
    return BLOCK.sub(block, text)


def check(text, root):
    """[(offset, message)] for each block that differs from what its logs give."""
    problems = []
    for m in BLOCK.finditer(text):
        try:
            want = render(m.group("gpu"), m.group("cpu"), root, m.group("multi"))
        except (OSError, ValueError) as e:
            problems.append((m.start(), f"build-times: {e}"))
            continue
        if m.group("body") != want:
            problems.append((m.start(), "build-times: the sentence differs from what its logs give "
                                        "(tools/lint-docs --fill writes it)"))
    return problems
