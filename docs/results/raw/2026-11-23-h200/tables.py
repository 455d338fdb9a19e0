#!/usr/bin/env python3
"""Writes the paragraph of chapter 35 on how its stage was chosen, from this folder's first FFT run
(call2-fft-b-all-35-n*.txt and call2-fft-b-run-35.txt: NVIDIA H200, 2026-11-23) and the second run of every
candidate (../2026-11-23-h200x2/fft35/all-35-n*.csv). No GPU needed:

  python3 docs/results/raw/2026-11-23-h200/tables.py                 # writes tables/*.md beside this file
  python3 docs/results/raw/2026-11-23-h200/tables.py --fill          # and fills the README block
  python3 docs/results/raw/2026-11-23-h200/tables.py --fill --check  # changes nothing; exit 1 if a table or
                                                                     # the block would

Every number comes from a capture; nothing is typed by hand. The writing and filling are
../2026-11-21-h200/tables_early.py's, loaded from its path."""
import importlib.util
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("f18eb3b_tables", HERE.parent / "2026-11-23-h200-f18eb3b" / "tables.py")
f18 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(f18)
early = f18.early

# The candidates' names at the time of the first run -> today's (this folder's README.md).
TODAY = {"fft-tuned": "e16-t256", "sincospif-twiddles": "e16-t256-sincospif", "two-pass-t256": "twiddle-table"}
PLAN, SINCOSPIF = "twiddle-table", "e16-t256-sincospif"  # the two-pass plan and the sincospif shape, today's names
SECOND = HERE.parent / "2026-11-23-h200x2" / "fft35"


def first_run(name):
    """({today's variant: speed vs cuFFT}, size) of one call2 run: its table's rows, cudaMemcpy and cuFFT left out."""
    out, size = {}, None
    for line in early.program_output(HERE / name).splitlines():
        f = line.split()
        m = re.match(r"^(\S+)(?: \*)?\s+(2\^\d+)\s", line)
        if m and f[-1] in ("ok", "-") and "*" not in f[:2]:
            out[TODAY.get(f[0], f[0])] = float(f[-2].rstrip("x"))
            size = m.group(2)
    if not out:
        raise SystemExit(f"tables.py: no result rows in {name}")
    return out, size


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.2f}x" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}x"


def how_chosen():
    runs = {n: first_run(f"call2-fft-b-all-35-n{n}.txt") for n in (16, 64, 256)}
    sizes = {s for _, s in runs.values()}
    s16, s64, s256 = (runs[n][0] for n in (16, 64, 256))
    s1024, _ = first_run("call2-fft-b-run-35.txt")
    spread16 = 100 * (max(s16.values()) / min(s16.values()) - 1)
    table_twiddles = [v for v in s256 if v != SINCOSPIF and v != "e8-t256"]
    second = {n: f18.variants(SECOND / f"all-35-n{n}.csv") for n in (2048, 4096)}
    lost = " and ".join(f"{float(second[n]['fft-tuned']['speed_vs_ref']):.2f}x" for n in second)
    won = span([float(second[n][SINCOSPIF]["speed_vs_ref"]) for n in second])
    return (f"**How the stage was chosen.** The first stage was `e16-t256`. One run of `--variant all` on the H200\n"
            f"(2026-11-23, CUDA 13.0, `--size {' / '.join(sorted(sizes))}`; raw outputs `call2-fft-b-all-35-n*.txt` "
            f"in [docs/results/raw/2026-11-23-h200](../../docs/results/raw/2026-11-23-h200/), where today's names "
            f"are explained) measured, as speed against cuFFT in the\nsame process: at N = 16 every candidate within "
            f"{spread16:.0f}% ({span(s16.values())}; N = 8/16 do not use the block shape); at N = 64\n"
            f"`e16-t256` {s64['e16-t256']:.2f}x, `e8-t256` {s64['e8-t256']:.2f}x and the two-pass plan "
            f"(`{PLAN}` today) {s64[PLAN]:.2f}x; at N = 256 the\ntable-twiddle candidates "
            f"{span([s256[v] for v in table_twiddles])} (`e8-t256` {s256['e8-t256']:.2f}x) but `{SINCOSPIF}` "
            f"{s256[SINCOSPIF]:.2f}x; at N = 1024 `e16-t256` {s1024['e16-t256']:.2f}x (`call2-fft-b-run-35.txt`). "
            f"The stage\ncombines the two winners: the two-pass plan and `sincospif` twiddles. A second `--variant "
            f"all` at N = 16 …\n4096 (1 GiB batches, commit `7926d81`, table below) showed that plan losing at "
            f"N = 2048 and 4096 ({lost}\ncuFFT), where two passes need 32 and 64 values per thread, to `{SINCOSPIF}` "
            f"({won}): since commit\n`f18eb3b` the stage takes that shape at those two lengths (\"The stage by "
            f"length\" above). The candidates stay\nrunnable with `--variant`.")


TABLES = [("35-h200-how-chosen", how_chosen)]
BLOCKS = {name: name for name, _ in TABLES}

if __name__ == "__main__":
    early.main(TABLES, BLOCKS, HERE)
