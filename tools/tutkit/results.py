"""tools/results: run the tour (plus a size sweep of chapter 03 and a selectivity sweep of chapter 04)
and write docs/results/<gpu>.json, docs/results/<gpu>.md and PNG plots; or compare two result files."""

import json
import os
import shlex
import statistics
import sys
from pathlib import Path

from .common import (REPO_ROOT, ArgumentParser, ToolError, accepts_option, chapter_number, fmt_num, fmt_ratio, fmt_us,
                     format_size, load_json, markdown_table, machine_metadata, note, parse_list,
                     parse_size, shorten, slugify, stage_variant_name, warn, write_text)
from .tour import (ARTICLE, ARTICLE_CUB_US, LADDERS, RESULTS_FORMAT, STAGE_ALIGN, add_run_arguments,
                   ladder_cells, ladder_legend, ladder_table,
                   display_path, first_device, prepare_programs, program_options, record_failed,
                   previous_stage_options, render_tour, results_document, results_of, run_program, run_programs,
                   split_passthrough, stage_cells,
                   stage_table, validate_run_arguments)

DEFAULT_SWEEP_SIZES = "2^16,2^18,2^20,2^22,2^24,2^26,2^28"
DEFAULT_SELECTIVITIES = "0,1,50,99,100"
VECTOR_CHAPTER, ATOMIC_CHAPTER = 3, 4

# How each sweep is shown: the option it varies, the value it plots, and the words around it.
SWEEPS = {
    "vector_loads": {"number": VECTOR_CHAPTER, "option": "--size", "metric": "gbps",
                     "title": "Vector loads: bandwidth against size",
                     "unit": "GB/s (bytes read + written / median time)", "plot": "vector-loads"},
    "atomics": {"number": ATOMIC_CHAPTER, "option": "--selectivity", "metric": "median_ms",
                "title": "Atomics: time against selectivity",
                "unit": "median time, µs", "plot": "atomics"},
}


# The ladders' sweeps: every stage of the ladder (with its vendor reference, which each program measures) at
# each value of one option; one plot of throughput against that option, one line per stage.
LADDER_SWEEPS = {
    "sgemm": {"numbers": range(20, 30), "option": "--size", "values": "256,512,1024,2048,4096,8192",
              "metric": "gflops", "ref": "cublas", "title": "SGEMM ladder: GFLOP/s against size (M = N = K)",
              "unit": "GFLOP/s", "xlabel": "M = N = K", "plot": "sgemm", "fixed": []},
    "fft": {"numbers": range(30, 40), "option": "--length", "values": "16,64,256,1024,4096,16384",
            "metric": "gbps", "ref": "cufft", "title": "FFT ladder: GB/s against signal length N (1 GiB batch)",
            "unit": "GB/s (one read + one write of the batch)", "xlabel": "N (complex elements per signal)",
            "plot": "fft", "fixed": ["--size", "2^27"]},
}


def run_ladder_sweeps(args, programs, only=None):
    """Runs every ladder chapter among `programs` once per value of its ladder's option (the program's default
    run: its stage and its references). Returns {ladder: {"option", "runs": [records]}}."""
    out = {}
    base = program_options(args, with_size=False)  # with the tour's budget unless one was given
    for name, how in LADDER_SWEEPS.items():
        if only is not None and name not in only:
            continue
        chosen = [(c, p) for c, p in programs if chapter_number(c) in how["numbers"]]
        if not chosen:
            continue
        runs = []
        for chapter, path in chosen:
            for v in parse_list(how["values"], how["option"]):
                opts = list(base) + list(how["fixed"]) + [how["option"], v]
                note(f"{name} sweep: {chapter} {how['option']} {v}")
                runs.append(run_program(chapter, path, opts, args.timeout, params={how["option"].lstrip("-"): v},
                                        display_path=display_path(path)))
        out[name] = {"option": how["option"], "runs": runs}
    return out


def ladder_series(doc, name):
    """{series label: [(x, value)]}: each chapter's stage, and the reference (median over programs per x)."""
    how = LADDER_SWEEPS[name]
    sweep = doc.get("ladder_sweeps", {}).get(name) or {}
    series, ref = {}, {}
    for rec in sweep.get("runs", []):
        x = float(parse_size(str((rec.get("params") or {}).get(how["option"].lstrip("-")))))
        results = results_of(rec)
        stage = stage_variant_name(rec["chapter"], [(r["variant"], r.get("reference", False)) for r in results])
        for r in results:
            v = r.get(how["metric"])
            if not v or r.get("failed"):
                continue
            if r["variant"] == stage:
                series.setdefault(rec["chapter"], []).append((x, v))
            elif r["variant"] in (how["ref"], "cudaMemcpy"):
                ref.setdefault(r["variant"], {}).setdefault(x, []).append(v)
    for variant, by_x in ref.items():
        series[f"{variant} (reference, median over the programs)"] = sorted(
            (x, statistics.median(vs)) for x, vs in by_x.items())
    return series


# ---- Sweeps -------------------------------------------------------------------------------------

def run_sweeps(args, programs, sizes, selectivities):
    """Runs chapter 03 once per size and chapter 04 once per selectivity (those of the two that are
    among `programs`). Returns {name: {"chapter", "option", "runs": [records]}}."""
    sweeps = {}
    base = program_options(args, with_size=False)  # with the tour's budget unless one was given
    for name, how in SWEEPS.items():
        chosen = [(c, p) for c, p in programs if chapter_number(c) == how["number"]]
        if not chosen:
            continue
        chapter, path = chosen[0]
        if not accepts_option(path, how["option"]):
            warn(f"{chapter} has no {how['option']} option (see its --help); its sweep is skipped")
            continue
        runs = []
        values = sizes if how["option"] == "--size" else selectivities
        for v in values:
            opts = list(base) + [how["option"], v]
            if how["option"] != "--size" and args.size:
                opts = ["--size", args.size] + opts
            key = how["option"].lstrip("-")
            runs.append(run_program(chapter, path, opts, args.timeout, params={key: v},
                                    display_path=display_path(path)))
        sweeps[name] = {"chapter": chapter, "option": how["option"], "runs": runs}
    return sweeps


def sweep_matrix(sweep, metric):
    """(parameter labels, variant names, {(label, variant): value}) of a sweep, in run order."""
    labels, variants, cells = [], [], {}
    for rec in sweep.get("runs", []):
        key = sweep["option"].lstrip("-")
        value = (rec.get("params") or {}).get(key)
        results = results_of(rec)
        if key == "size" and results:
            label = format_size(results[0].get("n"))
        else:
            label = str(value)
        if label not in labels:
            labels.append(label)
        for r in results:
            if r["variant"] not in variants:
                variants.append(r["variant"])
            cells[(label, r["variant"])] = r.get(metric)
    return labels, variants, cells


def sweep_param_values(sweep):
    """Numeric x values of a sweep's runs that produced results (n for sizes)."""
    xs = []
    for rec in sweep.get("runs", []):
        results = results_of(rec)
        if not results:
            continue
        if sweep["option"] == "--size":
            xs.append(results[0].get("n"))
        else:
            xs.append(float((rec.get("params") or {}).get(sweep["option"].lstrip("-"))))
    return xs


# ---- Markdown -----------------------------------------------------------------------------------

def _meta_rows(meta):
    gpu = meta.get("gpu") or "unknown"
    details = []
    if meta.get("compute_capability"):
        details.append(f"compute capability {meta['compute_capability']}")
    if meta.get("sms"):
        details.append(f"{meta['sms']} SMs")
    if meta.get("peak_dram_gbps"):
        details.append(f"{meta['peak_dram_gbps']:.0f} GB/s theoretical DRAM peak")
    cuda = []
    if meta.get("cuda_runtime"):
        cuda.append(f"runtime {meta['cuda_runtime']}")
    if meta.get("cuda_driver_api"):
        cuda.append(f"driver API {meta['cuda_driver_api']}")
    if meta.get("nvcc"):
        cuda.append(f"nvcc {meta['nvcc']}")
    return [
        ["GPU", gpu + (f" ({', '.join(details)})" if details else "")],
        ["driver", meta.get("driver") or "unknown"],
        ["CUDA", ", ".join(cuda) or "unknown"],
        ["date (UTC)", meta.get("date") or "unknown"],
        ["commit", f"`{meta['commit']}`" if meta.get("commit") else "unknown"],
        ["command", f"`{meta.get('command', '')}`"],
    ]


def chapter_cells(rec):
    """A program's own table, as markdown cells (every row, references included)."""
    results = results_of(rec)
    any_flops = any(r.get("flops") for r in results)
    any_fp32 = any(r.get("flops") and r.get("pct_peak_fp32") for r in results)
    ref = next((r.get("ref_name") for r in results if r.get("ref_name")), None)
    headers = ["variant", "n", "median µs", "min µs", "max µs", "reps", "GB/s"] + \
              (["GFLOP/s"] if any_flops else []) + (["% FP32 peak"] if any_fp32 else []) + \
              ["% DRAM peak", "% memcpy", f"speed vs {ref or 'ref'}", "check"]
    cells = []
    for r in results:
        c = [r["variant"] + (" \\*" if r.get("reference") else ""), format_size(r.get("n", 0)),
             fmt_us(r.get("median_ms")), fmt_us(r.get("min_ms")), fmt_us(r.get("max_ms")), str(r.get("reps", "-")),
             fmt_num(r.get("gbps")) if r.get("bytes") else "-"]
        if any_flops:
            c.append(fmt_num(r.get("gflops")) if r.get("flops") else "-")
        if any_fp32:
            c.append(fmt_num(r.get("pct_peak_fp32")) if r.get("flops") and r.get("pct_peak_fp32") else "-")
        c += [fmt_num(r.get("pct_peak_dram")) if r.get("bytes") and r.get("pct_peak_dram") else "-",
              fmt_num(r.get("pct_memcpy")) if r.get("pct_memcpy") else "-",
              fmt_ratio(r.get("speed_vs_ref")) if r.get("speed_vs_ref") else "-",
              shorten(r.get("check", "-"), 120)]
        cells.append(c)
    align = "lrrrrrr" + ("r" if any_flops else "") + ("r" if any_fp32 else "") + "rrrl"
    return headers, cells, align


def build_dir_of(meta):
    """The --build folder of the run's command when it lies outside the checkout (a scratch folder such as
    /tmp/b6), else None: the markdown then shows program paths under `build/`, the default build folder."""
    words = shlex.split(meta.get("command") or "")
    for i, w in enumerate(words):
        value = words[i + 1] if w == "--build" and i + 1 < len(words) else (w[8:] if w.startswith("--build=") else "")
        if value and os.path.isabs(value) and not value.startswith((meta.get("cwd") or "//").rstrip("/") + "/"):
            return value.rstrip("/")
    return None


def shown_command(rec, build):
    """A program's command as the markdown shows it: under `build/` when the run built outside the checkout."""
    command = rec.get("command", "")
    return "build/" + command[len(build) + 1:] if build and command.startswith(build + "/") else command


def render_markdown(doc, plots=None):
    """The docs/results/<gpu>.md text of a results document. plots: {"scan"|"vector_loads"|"atomics":
    file name} of the plots that were drawn."""
    plots = plots or {}
    meta = doc.get("meta", {})
    records = doc.get("programs", [])
    build = build_dir_of(meta)
    out = [f"# Measured results: {meta.get('gpu') or 'unknown GPU'}", "",
           "Written by `tools/results` (see [README.md](README.md)); regenerate rather than edit. "
           "Times are medians of CUDA-event-timed repetitions after warm-up, every output checked "
           "against a CPU reference.", "",
           markdown_table(["", ""], _meta_rows(meta), "ll")]

    rows, summary = stage_table(records)
    if rows:
        sizes = ", ".join(format_size(n) for n in summary["sizes"]) or "-"
        out += ["## Scan stages", "",
                f"Inclusive scan of n = {sizes} int32 per stage, next to the figures published in {ARTICLE} "
                "(its section beside each figure). The article states neither its GPU nor n: compare the "
                "ratios, not the times.", ""]
        headers, cells = stage_cells(rows, summary, unit="µs", check_width=80, sections=True)
        out.append(markdown_table(headers, cells, STAGE_ALIGN))
        out += ["*x prev*: the previous stage's time / this stage's time, timed by this stage's program where it has "
                "the previous stage as a variant (one process), else by the previous chapter's program. "
                f"*x {(summary['baseline'] or 'base').split('-')[0]}*: the baseline's time / this time. "
                "*vs CUB*: CUB's time / this time, CUB measured by the same program on the same data "
                "(>1: faster than CUB). *% memcpy*: this stage's bandwidth as a share of a "
                "device-to-device cudaMemcpy of the same bytes. The CUB and cudaMemcpy rows give the "
                "median over the programs.", ""]
        if len(summary["sizes"]) > 1:
            out += ["**Warning:** the stages ran at different sizes; their ratios do not compare.", ""]
        if plots.get("scan"):
            out += [f"![Time per scan stage, ours and the article's]({plots['scan']})", ""]

    for ladder in LADDERS:
        lrows = ladder_table(records, ladder)
        if lrows and any(r["ms"] for r in lrows):
            headers, cells, align = ladder_cells(lrows, ladder, check_width=80)
            out += [f"## {ladder['title']}", "", markdown_table(headers, cells, align), "",
                    ladder_legend(ladder, width=10 ** 6), ""]

    for name, how in SWEEPS.items():
        sweep = doc.get("sweeps", {}).get(name)
        if not sweep:
            continue
        labels, variants, cells = sweep_matrix(sweep, how["metric"])
        out += [f"## {how['title']} ({sweep['chapter']})", ""]
        if sweep.get("from"):  # a sweep kept from an earlier results file, which says where it came from
            out += [f"From {sweep['from']}.", ""]
        option = how["option"]
        out.append(f"One run of `{sweep['chapter']}` per `{option}` value; cells: {how['unit']}.")
        out.append("")
        if labels and variants:
            fmt = (lambda v: fmt_num(v)) if how["metric"] == "gbps" else fmt_us
            table = [[label] + [fmt(cells.get((label, v))) for v in variants] for label in labels]
            out.append(markdown_table([option.lstrip("-")] + variants, table))
        failed = [r for r in sweep.get("runs", []) if record_failed(r)]
        for r in failed:
            out.append(f"- `{r['command']}` failed: {r['error']}")
        if failed:
            out.append("")
        if plots.get(name):
            out += [f"![{how['title']}]({plots[name]})", ""]

    for lname, how in LADDER_SWEEPS.items():
        series = ladder_series(doc, lname)
        if not series:
            continue
        xs = sorted({x for pts in series.values() for x, _ in pts})
        out += [f"## {how['title']}", "",
                f"Each stage's default run at every `{how['option']}` value; cells: {how['unit']}. The reference "
                "rows are the median over the programs that measured it.", ""]
        table = [[name] + [fmt_num(dict(pts).get(x)) for x in xs] for name, pts in series.items()]
        out.append(markdown_table(["stage"] + [format_size(int(x)) for x in xs], table))
        out.append("")
        if plots.get(lname):
            out += [f"![{how['title']}]({plots[lname]})", ""]

    out += ["## Every chapter program", "",
            "Each program's own table (\\* = reference: a vendor library or cudaMemcpy). Paste a chapter's "
            "table at its README's `<!-- measured: ... -->` line."
            + (f" Program paths are shown under `build/`, the default build folder (this run built in `{build}`)."
               if build else ""), ""]
    for rec in records:
        out += [f"### {rec['chapter']}", "", f"`{shown_command(rec, build)}`", ""]
        if results_of(rec):
            headers, cells, align = chapter_cells(rec)
            out.append(markdown_table(headers, cells, align))
        if record_failed(rec):
            out += [f"**Failed:** {rec['error']}", ""]

    failed = [r for r in records if record_failed(r)]
    failed += [r for s in doc.get("sweeps", {}).values() for r in s.get("runs", []) if record_failed(r)]
    out += ["## Status", "",
            f"{len(failed)} program runs failed." if failed else "Every program run passed its checks.", ""]
    return "\n".join(out)


# ---- Plots --------------------------------------------------------------------------------------

class MissingMatplotlib(Exception):
    pass


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingMatplotlib()
    return plt


def plot_scan(doc, path):
    rows, summary = stage_table(doc.get("programs", []))
    rows = [r for r in rows if r["ours_ms"] or r["article_us"]]
    if not rows:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 5.5))
    x = list(range(len(rows)))
    labels = [r["chapter"].split("-", 1)[0] + "\n" + r["chapter"].split("-", 1)[-1].replace("scan-", "")
              .replace("decoupled-lookback", "lookback").replace("lookback-landing-zone", "landing-zone")
              for r in rows]
    ours = [(i, r["ours_ms"] * 1000) for i, r in zip(x, rows) if r["ours_ms"]]
    art = [(i, r["article_us"]) for i, r in zip(x, rows) if r["article_us"]]
    if ours:
        ax.plot(*zip(*ours), "o-", color="tab:blue", label=f"ours ({doc.get('meta', {}).get('gpu') or 'this GPU'})")
        for i, us in ours:
            ax.annotate(fmt_us(us / 1000), (i, us), textcoords="offset points", xytext=(0, 7), ha="center",
                        fontsize=7, color="tab:blue")
    if art:
        ax.plot(*zip(*art), "s--", color="tab:orange", label="article (GPU and n not stated)")
    if summary["cub_ms"]:
        ax.axhline(summary["cub_ms"] * 1000, color="tab:blue", linestyle=":", label="CUB, ours")
    ax.axhline(ARTICLE_CUB_US, color="tab:orange", linestyle=":", label="CUB, article")
    if summary["memcpy_ms"]:
        ax.axhline(summary["memcpy_ms"] * 1000, color="gray", linestyle="-.",
                   label="cudaMemcpy of the same bytes, ours")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels(labels, fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("time per scan, µs (log scale)")
    sizes = ", ".join(format_size(n) for n in summary["sizes"])
    ax.set_title(f"Inclusive scan, one stage at a time (ours: n = {sizes} int32)")
    ax.grid(True, which="both", axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_sweep(doc, name, path):
    sweep = doc.get("sweeps", {}).get(name)
    if not sweep:
        return False
    how = SWEEPS[name]
    runs = [r for r in sweep.get("runs", []) if results_of(r)]
    if not runs:
        return False
    xs = sweep_param_values(sweep)
    series = {}
    for x, rec in zip(xs, runs):
        for r in results_of(rec):
            v = r.get(how["metric"])
            if v:
                series.setdefault(r["variant"], []).append((x, v * 1000 if how["metric"] == "median_ms" else v))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for variant, pts in series.items():
        ref = any(r.get("reference") for rec in runs for r in results_of(rec) if r["variant"] == variant)
        style = dict(color="black", linestyle="--") if variant == "cudaMemcpy" else {}
        ax.plot(*zip(*pts), marker="o", label=variant + (" (reference)" if ref else ""), **style)
    gpu = doc.get("meta", {}).get("gpu") or "this GPU"
    peak = doc.get("meta", {}).get("peak_dram_gbps")
    if how["option"] == "--size" and peak:
        ax.axhline(peak, color="gray", linestyle=":", label=f"theoretical DRAM peak ({peak:.0f} GB/s)")
    if how["option"] == "--size":
        ax.set_xscale("log", base=2)
        ax.set_xlabel("n (elements)")
        ax.set_ylabel("GB/s (read + write)")
    else:
        ax.set_yscale("log")
        ax.set_xlabel("selectivity, % of elements kept")
        ax.set_ylabel("time, µs (log scale)")
    ax.set_title(f"{sweep['chapter']}: {how['title'].split(': ', 1)[1]} on {gpu}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_ladder(doc, name, path):
    how = LADDER_SWEEPS[name]
    series = ladder_series(doc, name)
    if not series:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for label, pts in series.items():
        style = dict(color="black", linestyle="--") if "(reference" in label else {}
        ax.plot(*zip(*sorted(pts)), marker="o", label=label, **style)
    gpu = doc.get("meta", {}).get("gpu") or "this GPU"
    ax.set_xscale("log", base=2)
    ax.set_xlabel(how["xlabel"])
    ax.set_ylabel(how["unit"])
    ax.set_title(f"{how['title']} on {gpu}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def draw_plots(doc, out_dir, slug):
    """Draws every plot the document has data for; returns {name: file name}. Without matplotlib,
    warns once and returns {}."""
    drawn = {}
    try:
        for lname, how in LADDER_SWEEPS.items():
            fname = f"{slug}-{how['plot']}.png"
            if plot_ladder(doc, lname, Path(out_dir) / fname):
                drawn[lname] = fname
        if plot_scan(doc, Path(out_dir) / f"{slug}-scan.png"):
            drawn["scan"] = f"{slug}-scan.png"
        for name, how in SWEEPS.items():
            fname = f"{slug}-{how['plot']}.png"
            if plot_sweep(doc, name, Path(out_dir) / fname):
                drawn[name] = fname
    except MissingMatplotlib:
        warn("matplotlib is not installed, so no plots were drawn: install it (python3 -m pip install "
             "matplotlib), then redraw from the saved JSON with `tools/results --render "
             f"{Path(out_dir) / (slug + '.json')}`")
        return {}
    return drawn


def write_outputs(doc, out_dir, slug, plots=True):
    out = Path(out_dir)
    json_path, md_path = out / f"{slug}.json", out / f"{slug}.md"
    write_text(json_path, json.dumps(doc, indent=1) + "\n")
    drawn = draw_plots(doc, out, slug) if plots else {}
    write_text(md_path, render_markdown(doc, drawn))
    for p in [json_path, md_path] + [out / f for f in drawn.values()]:
        note(f"wrote {display_path(p)}")


# ---- Comparing two result files -----------------------------------------------------------------

def _programs_of(doc, where):
    if isinstance(doc, dict) and isinstance(doc.get("programs"), list):
        return doc["programs"], doc.get("sweeps") or {}
    if isinstance(doc, dict) and isinstance(doc.get("results"), list):  # one program's --format json
        return [{"chapter": doc.get("chapter", "?"), "params": {}, "data": doc}], {}
    raise ToolError(f"{where} is neither a tools/results (or tour --json) file nor a program's --format json output")


def timing_index(doc, where="file"):
    """{key: (label, median_ms)} of every timed row: the main runs and the sweeps' runs."""
    programs, sweeps = _programs_of(doc, where)
    index = {}

    def add(rec):
        params = rec.get("params") or {}
        for r in results_of(rec):
            if not r.get("median_ms"):
                continue
            extra = "".join(f", {k} {v}" for k, v in sorted(params.items()) if k != "size")
            key = (rec["chapter"], r["variant"], r.get("n"), json.dumps(params, sort_keys=True))
            index[key] = (f"{rec['chapter']} / {r['variant']} (n={format_size(r.get('n', 0))}{extra})",
                          r["median_ms"])

    for rec in programs:
        add(rec)
    for sweep in sweeps.values():
        for rec in sweep.get("runs", []):
            add(rec)
    return index


def compare_documents(new, old, threshold):
    """(slower, faster, common, only_new, only_old): slower/faster are [(label, old_ms, new_ms, %change)]
    for changes beyond `threshold` percent, slowest first."""
    a, b = timing_index(new, "the new file"), timing_index(old, "the old file")
    common = [k for k in a if k in b]
    slower, faster = [], []
    for k in common:
        label, new_ms = a[k]
        old_ms = b[k][1]
        change = 100.0 * (new_ms / old_ms - 1.0)
        if change > threshold:
            slower.append((label, old_ms, new_ms, change))
        elif change < -threshold:
            faster.append((label, old_ms, new_ms, change))
    slower.sort(key=lambda t: -t[3])
    faster.sort(key=lambda t: t[3])
    return slower, faster, len(common), len([k for k in a if k not in b]), len([k for k in b if k not in a])


def _describe(doc, path):
    meta = doc.get("meta", {}) if isinstance(doc, dict) else {}
    gpu = meta.get("gpu") or ((doc.get("device") or {}).get("name") if isinstance(doc, dict) else None)
    bits = [gpu or "unknown GPU"]
    if meta.get("date"):
        bits.append(meta["date"])
    if meta.get("commit"):
        bits.append("commit " + meta["commit"][:12])
    return f"{path} ({', '.join(bits)})", gpu


def render_compare(new, old, new_path, old_path, threshold):
    from .common import format_table
    slower, faster, common, only_new, only_old = compare_documents(new, old, threshold)
    new_desc, new_gpu = _describe(new, new_path)
    old_desc, old_gpu = _describe(old, old_path)
    out = [f"new: {new_desc}", f"old: {old_desc}"]
    if new_gpu != old_gpu:
        out.append(f"note: different GPUs ({new_gpu} vs {old_gpu}): differences reflect the machines as "
                   "much as the code.")
    if common == 0:
        out.append("no timing appears in both files (different chapters, variants or sizes?)")
    else:
        out.append(f"{common} timings in both files; {len(slower)} slower by more than {threshold:g}%, "
                   f"{len(faster)} faster by more than {threshold:g}%.")
    if slower:
        out += ["", "slower (warning only: timings vary between runs and machines):",
                format_table(["what", "old us", "new us", "change"],
                             [[l, fmt_us(o), fmt_us(n), f"{c:+.1f}%"] for l, o, n, c in slower], "lrrr")]
    if faster:
        out += ["", "faster:", format_table(["what", "old us", "new us", "change"],
                                            [[l, fmt_us(o), fmt_us(n), f"{c:+.1f}%"] for l, o, n, c in faster],
                                            "lrrr")]
    if only_new or only_old:
        out.append(f"({only_new} timings only in the new file, {only_old} only in the old one)")
    return "\n".join(out).rstrip("\n") + "\n"


# ---- Command line -------------------------------------------------------------------------------

def main(argv):
    argv, extra = split_passthrough(argv)
    p = ArgumentParser(
        prog="results",
        description="Runs the tour (every chapter program, --format json), a size sweep of chapter 03 and a "
                    "selectivity sweep of chapter 04, and writes docs/results/<gpu>.json, <gpu>.md and PNG "
                    "plots (scan progression, bandwidth against size, time against selectivity). "
                    "With --compare, lists what got slower between two result files instead.",
        epilog="Examples:\n  tools/results --budget-ms 300\n"
               "  tools/results --compare new.json docs/results/nvidia-h100-80gb-hbm3.json --threshold 10\n"
               "  tools/results --render docs/results/nvidia-h100-80gb-hbm3.json   (redraw md + plots)\n"
               "Exit status: 0 on success (--compare: always 0, slower timings are warnings), 1 when a "
               "program failed (the files are still written, failures recorded), 2 on bad usage.")
    add_run_arguments(p)
    o = p.add_argument_group("output")
    o.add_argument("--out", metavar="DIR",
                   help="where to write (default: docs/results/ in the repository; with --render, the "
                        "JSON file's folder)")
    o.add_argument("--name", metavar="SLUG",
                   help="file name stem (default: the GPU's name, e.g. nvidia-h100-80gb-hbm3)")
    o.add_argument("--no-plots", action="store_true", help="write the JSON and markdown only")
    s = p.add_argument_group("sweeps")
    s.add_argument("--sweep-sizes", default=DEFAULT_SWEEP_SIZES, metavar="LIST",
                   help=f"sizes for chapter 03's bandwidth sweep (default {DEFAULT_SWEEP_SIZES})")
    s.add_argument("--selectivities", default=DEFAULT_SELECTIVITIES, metavar="LIST",
                   help=f"--selectivity values for chapter 04's sweep (default {DEFAULT_SELECTIVITIES})")
    s.add_argument("--no-sweeps", action="store_true", help="skip the sweeps (chapters 03 and 04, and the ladders)")
    s.add_argument("--ladders", metavar="LIST", default=",".join(LADDER_SWEEPS),
                   help="the ladders whose stages are swept (default: " + ",".join(LADDER_SWEEPS) + "; 'none': none)")
    m = p.add_argument_group("other modes")
    m.add_argument("--compare", nargs=2, metavar=("NEW", "OLD"),
                   help="list the timings of NEW that are slower than OLD by more than --threshold percent")
    m.add_argument("--threshold", type=float, default=10.0, metavar="PCT", help="for --compare (default 10)")
    m.add_argument("--render", metavar="FILE",
                   help="rewrite the markdown and plots of a saved results JSON (no GPU needed)")
    args = p.parse_args(argv)

    if args.threshold < 0:
        raise ToolError("--threshold must not be negative")
    if args.compare:
        new = load_json(args.compare[0], "new results file")
        old = load_json(args.compare[1], "old results file")
        print(render_compare(new, old, args.compare[0], args.compare[1], args.threshold), end="")
        return 0
    if args.render:
        doc = load_json(args.render, "results file")
        if not isinstance(doc, dict) or doc.get("format") != RESULTS_FORMAT:
            raise ToolError(f"{args.render} is not a tools/results file (no \"format\": \"{RESULTS_FORMAT}\")")
        slug = args.name or Path(args.render).stem
        out_dir = args.out or str(Path(args.render).parent)
        write_outputs(doc, out_dir, slug, plots=not args.no_plots)
        return 0

    validate_run_arguments(args)
    sizes = parse_list(args.sweep_sizes, "--sweep-sizes")
    for s_ in sizes:
        parse_size(s_)
    selectivities = parse_list(args.selectivities, "--selectivities")
    for v in selectivities:
        if not v.isdigit() or int(v) > 100:
            raise ToolError(f"invalid selectivity '{v}': expected an integer percentage 0..100")
    programs = prepare_programs(args)
    opts = program_options(args, extra)
    # Each chapter's first table names the previous stage: time it in the same process as the stage.
    records = run_programs(programs, opts, args.timeout, previous_stage_options(programs, opts))
    if first_device(records) is None:  # nothing ran (no GPU?): write nothing, skip the sweeps
        first_error = next((r["error"] for r in records if r.get("error")), "no program reported a GPU")
        raise ToolError(f"no results to write: {first_error}", status=1)
    sweeps = {} if args.no_sweeps else run_sweeps(args, programs, sizes, selectivities)
    ladders = [] if args.ladders == "none" else parse_list(args.ladders, "--ladders")
    for name in ladders:
        if name not in LADDER_SWEEPS:
            raise ToolError(f"unknown ladder '{name}' (known: {', '.join(LADDER_SWEEPS)})")
    ladder_sweeps = {} if args.no_sweeps else run_ladder_sweeps(args, programs, ladders)
    meta = machine_metadata(first_device(records), None, args.commit)
    doc = results_document(meta, records, sweeps)
    doc["ladder_sweeps"] = ladder_sweeps
    slug = args.name or slugify(meta["gpu"])
    sys.stdout.write(render_tour(meta, records))
    write_outputs(doc, args.out or str(REPO_ROOT / "docs" / "results"), slug, plots=not args.no_plots)
    failed = [r for r in records if record_failed(r)]
    failed += [r for s_ in sweeps.values() for r in s_["runs"] if record_failed(r)]
    failed += [r for s_ in ladder_sweeps.values() for r in s_["runs"] if record_failed(r)]
    for r in failed:
        warn(f"{r['command']}: {r['error']}")
    return 1 if failed else 0
