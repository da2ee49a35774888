"""The page (docs/BENCHMARKS.md) and the plot (docs/benchmarks.svg) of a
results file of bench/run. Standard library only.

  python3 bench/report.py RESULTS.json [OUT_DIR]   (bench/run --report does the same)
"""

import json
import html
import os
import re
import shlex
import sys

ORDER = ["trawl", "rg", "ugrep", "grep", "ag", "fd", "bfs", "find", "floor"]
COLORS = {
    "trawl": "#d62728", "rg": "#1f77b4", "ugrep": "#2ca02c", "grep": "#7f7f7f", "ag": "#9467bd",
    "fd": "#17becf", "bfs": "#8c564b", "find": "#bcbd22", "floor": "#222222",
}
CHECK, CROSS = "✓", "✗"


def tool_key(name):
    return ORDER.index(name) if name in ORDER else len(ORDER)


def secs(x):
    if x is None:
        return "–"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    if x >= 0.01:
        return f"{x:.3f}"
    # Startup cases: a millisecond or two, three figures.
    return f"{x:.3g}"


def size(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def ratio(x):
    return "–" if x is None else f"{x:.2f}"


def short(cmd):
    """A command as shown: the repository's binaries and lists by short names."""
    cmd = re.sub(r"\S*/target/release/(trawl|floor)\b", r"target/release/\1", cmd)
    return re.sub(r"\S*/(lists/\w+\.list)\b", r"\1", cmd)


def cell(text):
    """Text for a Markdown table cell (pipes escaped)."""
    return text.replace("|", "\\|")


def template_text(words):
    """A command template as shown: placeholders bare, other words quoted."""
    return " ".join(w if re.fullmatch(r"\{\w+\}", w) else shlex.quote(w) for w in words)


def case_label(case):
    return f"`{cell(shlex.join(case['args']))}` {case['corpus']}"


def timed_rows(case):
    return [r for r in case["results"] if r.get("timed") and "median" in r]


def mismatches(case):
    return [r for r in case["results"] if r.get("count_ok") is False]


def check_text(case):
    if case.get("skipped"):
        return "skipped"
    if case["reference_count"] is None:
        return "–"
    bad = mismatches(case)
    if not bad:
        return CHECK
    return CROSS + " " + ", ".join(f"{r['tool']} {r['count']}" for r in bad)


def groups(results):
    """Cases by group, the thread-count family apart (see thread_section)."""
    out = {}
    for case in results["cases"]:
        if case.get("family") != "threads":
            out.setdefault(case["group"], []).append(case)
    return out


def thread_groups(results):
    """The thread-count family's cases by group, each sorted by -j (the
    default, threads 0, last)."""
    out = {}
    for case in results["cases"]:
        if case.get("family") == "threads" and timed_rows(case):
            out.setdefault(case["group"], []).append(case)
    for cases in out.values():
        cases.sort(key=lambda c: c["threads"] or 1 << 30)
    return out


def median_of(case, tool):
    return next((r["median"] for r in timed_rows(case) if r["tool"] == tool), None)


def thread_section(results):
    """Per group: each -j's medians, and the default against the best -j."""
    fam = thread_groups(results)
    if not fam:
        return []
    cores = results["host"].get("cores")
    out = ["## Thread count", "",
           f"trawl and rg with `-j N`, and trawl's default, on {cores} cores; the floor reads "
           "with as many threads (its default: one per core). Plotted in "
           "[threads.svg](threads.svg).", ""]
    for group, cases in fam.items():
        counted = [c for c in cases if c["threads"]]
        default = next((c for c in cases if not c["threads"]), None)
        best = min(counted, key=lambda c: median_of(c, "trawl") or float("inf"), default=None)
        out += [f"### {group}", "", "| -j | trawl (s) | rg (s) | floor (s) | trawl ÷ best -j |",
                "|---|---|---|---|---|"]
        top = median_of(best, "trawl") if best else None
        for c in cases:
            t = median_of(c, "trawl")
            label = str(c["threads"]) if c["threads"] else "default"
            cells = [secs(t) if t is not None else "–",
                     secs(median_of(c, "rg")) if median_of(c, "rg") is not None else "–",
                     secs(median_of(c, "floor")) if median_of(c, "floor") is not None else "–",
                     ratio(t / top) if t and top else "–"]
            if c is default:
                cells[0] = f"**{cells[0]}**"
            out.append(f"| {label} | " + " | ".join(cells) + " |")
        if default and top and median_of(default, "trawl"):
            d = median_of(default, "trawl") / top
            out += ["", f"The default takes {ratio(d)}× the best count's time "
                    f"(-j {best['threads']}): {'within' if d <= 1.05 else 'beyond'} 5%."]
        out.append("")
    return out


def threads_svg(results):
    """One panel per group of the thread-count family: median seconds by
    -j for trawl and rg, trawl's default as a dashed line."""
    fam = thread_groups(results)
    if not fam:
        return None
    pw, ph, left, top, gap = 380, 220, 50, 60, 30
    parts = []
    for i, (group, cases) in enumerate(fam.items()):
        x0 = (i % 2) * (pw + gap) + 10
        y0 = top + (i // 2) * (ph + 60)
        counted = [c for c in cases if c["threads"]]
        default = next((c for c in cases if not c["threads"]), None)
        values = [v for c in cases for v in (median_of(c, "trawl"), median_of(c, "rg")) if v]
        ymax = max(values) * 1.1 if values else 1.0
        xs = {c["threads"]: x0 + left + k * (pw - left - 20) / max(1, len(counted) - 1)
              for k, c in enumerate(counted)}
        def y(v):
            return y0 + ph - (ph - 20) * v / ymax
        parts.append(f'<text x="{x0}" y="{y0 - 8}" class="case">{html.escape(group)}</text>')
        parts.append(f'<line x1="{x0 + left}" y1="{y0 + ph}" x2="{x0 + pw}" y2="{y0 + ph}" '
                     'stroke="#444"/>')
        parts.append(f'<line x1="{x0 + left}" y1="{y0 + 10}" x2="{x0 + left}" y2="{y0 + ph}" '
                     'stroke="#444"/>')
        for frac in (0.5, 1.0):
            v = ymax * frac / 1.1
            parts.append(f'<text x="{x0 + left - 4}" y="{y(v) + 4:.1f}" class="tool">'
                         f'{secs(v)}</text>')
        for j, x in xs.items():
            parts.append(f'<text x="{x:.1f}" y="{y0 + ph + 14}" text-anchor="middle">{j}</text>')
        parts.append(f'<text x="{x0 + pw / 2}" y="{y0 + ph + 30}" text-anchor="middle">-j</text>')
        for tool in ("rg", "trawl"):
            pts = [(xs[c["threads"]], y(median_of(c, tool))) for c in counted
                   if median_of(c, tool)]
            if len(pts) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
                parts.append(f'<polyline points="{path}" fill="none" stroke="{COLORS[tool]}" '
                             'stroke-width="2"/>')
                parts += [f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{COLORS[tool]}"/>'
                          for px, py in pts]
                parts.append(f'<text x="{pts[-1][0] + 6:.1f}" y="{pts[-1][1] + 4:.1f}" '
                             f'fill="{COLORS[tool]}">{tool}</text>')
        if default and median_of(default, "trawl"):
            dy = y(median_of(default, "trawl"))
            parts.append(f'<line x1="{x0 + left}" y1="{dy:.1f}" x2="{x0 + pw}" y2="{dy:.1f}" '
                         f'stroke="{COLORS["trawl"]}" stroke-dasharray="5,4"/>')
            parts.append(f'<text x="{x0 + left + 4}" y="{dy - 4:.1f}" fill="{COLORS["trawl"]}">'
                         f'trawl default {secs(median_of(default, "trawl"))} s</text>')
    rows = (len(fam) + 1) // 2
    width, height = 2 * (pw + gap) + 10, top + rows * (ph + 60)
    head = f"trawl and rg by thread count ({results['date'][:10]}): median seconds"
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        "<style>.case{font-weight:bold;font-size:12px}.tool{text-anchor:end}</style>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="22" font-size="15" font-weight="bold">{html.escape(head)}</text>',
        *parts,
        "</svg>",
        "",
    ])


def summary_table(results, cases=None):
    """One row per case: the median of each tool, trawl's ratios, the check."""
    cases = results["cases"] if cases is None else cases
    tools = sorted({r["tool"] for c in cases for r in timed_rows(c)}
                   | {t for c in cases for t in c.get("left_out", {})}, key=tool_key)
    head = ["case", "lines"] + [f"{t} (s)" for t in tools]
    head += ["trawl ÷ floor", "trawl ÷ best peer", "line counts"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in cases:
        by_tool = {r["tool"]: r for r in timed_rows(c)}
        ref = c["reference_count"]
        row = [f"{c['id']}: {case_label(c)}", "–" if ref is None else str(ref)]
        for t in tools:
            r = by_tool.get(t)
            if t in c.get("left_out", {}):
                row.append("left out")
            elif r is None:
                row.append("–")
            else:
                mark = f" {CROSS}" if r.get("count_ok") is False else ""
                row.append(f"**{secs(r['median'])}**{mark}" if t == "trawl"
                           else secs(r["median"]) + mark)
        trawl = by_tool.get("trawl", {})
        best = c.get("best_peer")
        row.append(ratio(trawl.get("ratio_floor")))
        row.append(ratio(trawl.get("ratio_best_peer")) + (f" ({best})" if best and trawl else ""))
        row.append(check_text(c))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def detail_table(case):
    head = ["tool", "command", "lines", "check", "median (s)", "mean ± σ (s)", "min … max (s)",
            "× floor", "× best peer", "peak RSS (MB)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in sorted(case["results"], key=lambda r: tool_key(r["tool"])):
        if r["role"] == "floor":
            count, check = "–", "–"
        else:
            count = str(r["count"])
            check = {True: CHECK, False: f"{CROSS} ≠ {case['reference_count']}",
                     None: "–"}[r.get("count_ok")]
            if r["tool"] == case["reference"]:
                check += " (reference)"
        if r.get("stderr"):
            check += f" stderr: `{cell(r['stderr'][:80])}`"
        if "median" in r:
            sd = r["stddev"]
            timing = [secs(r["median"]), secs(r["mean"]) + (f" ± {secs(sd)}" if sd else ""),
                      f"{secs(r['min'])} … {secs(r['max'])}", ratio(r.get("ratio_floor")),
                      ratio(r.get("ratio_best_peer"))]
        else:
            timing = ["untimed", "", "", "", ""]
        rss = f"{r['rss_kb'] / 1024:.1f}" if r.get("rss_kb") else "–"
        lines.append("| " + " | ".join(
            [r["tool"], f"`{cell(short(r['command']))}`", count, check] + timing + [rss]) + " |")
    for tool, why in sorted(case.get("left_out", {}).items(), key=lambda kv: tool_key(kv[0])):
        lines.append(f"| {tool} | left out: {cell(why)} |" + " |" * (len(head) - 2))
    return "\n".join(lines)


METHOD = """\
## How it is measured

- **One command**: `bench/run` sets up the corpora and the peers
  (`../shared/bench/setup-corpus.sh`, `setup-peers.sh`, both idempotent), builds trawl
  (`cargo build --release`; on GNU/Linux linked statically, as install.sh does) and the floor
  (`bench/floor`), times copies of both as they run once installed, runs every case of
  [`bench/cases.toml`](../bench/cases.toml), writes `bench/results/DATE.json` and regenerates
  this page and its plot. `bench/run --quick` is the smoke run CI does (tiny corpus, one run).
- **Timing**: hyperfine. Warm cases: {warmup} warm-up run and {warm_runs} timed runs{more_runs}; cold cases:
  the page cache dropped (`{drop}`) before each of {cold_runs} runs (root only). The tools
  take turns, one run each per round (since 2026-11-26: cold cases from 10:36, warm ones
  from 10:45; before, each tool's runs were back to back, and the guest's drift over the
  minutes a case takes went into the comparison). Every
  command runs as `sh -c 'COMMAND | cat'`: output goes through a pipe, since GNU grep and
  ugrep stop early when standard output is `/dev/null`. The table shows the median.
  Environment: `LC_ALL=C` for every tool.
- **Same work**: every tool searches the same files (hidden, git-ignored and binary files
  included, no symlinks followed below the roots), with the flags below: `rg -uuu`
  (`--no-ignore --hidden --binary`), `ugrep -r -.` (hidden files; binary files are searched by
  default), `grep -E -r` (the patterns are extended regular expressions), `ag -u -s`
  (unrestricted; case-sensitive, since ag is smart-case by default; `-n` is dropped for ag, whose
  `-n` means `--norecurse` and which prints line numbers anyway), `fd -u`.
- **Line-count check**: before timing, each command runs once and its output lines are counted
  (plus GNU grep's "binary file matches" notices, which it alone writes to standard error;
  for `-c`, the sum of the counts). Each tool must print as many as the reference tool (GNU
  grep for searches, GNU find for finds). A tool that differs is marked {cross} on the page
  and is never the "best peer"; trawl differing makes `bench/run` fail.
- **Floors** (`bench/floor`, in this repository): `floor read LIST -j N` opens, reads and closes
  every file of a list made once by `find DIR -type f -print0` (the paths are known: no walk);
  `floor walk DIR -j N` lists every directory with `std::fs::read_dir` on N threads and reads
  nothing; `floor stat LIST -j N` lstats every file; `floor count FILE -j N` maps one file and
  counts its newlines with memchr, a part per thread. Search cases are compared to the read
  floor (the one big file to the count floor), find cases to the walk floor, indexed searches
  to the stat floor.
  "× floor" is a tool's time over the floor's; "× best peer" over the fastest peer (not
  trawl, not the floor) whose count is right.
- **Peak RSS**: with GNU `/usr/bin/time -f %M`; for a cold case from the counting run, for a
  warm case from one more run after the timing runs (the counting run may meet files the case
  before pushed out of the cache)
- **Microbenchmarks** of the hot loops (criterion, not on this page):
  `cargo bench -p trawl-search -p trawl-walk` (or `bench/run --micro`).
"""


def markdown(results, source, svg_name):
    s = results["settings"]
    host = results["host"]
    out = ["# Benchmarks", ""]
    out.append(f"<!-- Generated by bench/run from {source}: edit bench/report.py, not this file. -->")
    out.append("")
    if results["mode"] != "full":
        out += [f"**{results['mode']} run**: not the full suite; see the notes below.", ""]
    commit = (results["trawl"].get("commit") or "?")[:12]
    dirty = " (with uncommitted changes)" if results["trawl"].get("dirty") else ""
    out.append(f"Run on {results['date']}, trawl {commit}{dirty}: "
               f"{host.get('cores')} cores ({host.get('cpu', '?')}"
               f"{'; ' + ' '.join(host['simd']) if host.get('simd') else ''}), "
               f"{host.get('memory_gib', '?')} GiB of memory, Linux {host.get('kernel')}"
               f"{', ' + host['os'] if host.get('os') else ''}. Results: `{source}`.")
    out.append("")
    if results["corpus"]:
        out.append("Corpora: " + "; ".join(
            f"`{v['path']}` {v['files']:,} files, {size(v['bytes'])}"
            for v in results["corpus"].values()) + ".")
        out.append("")
    out += ["| tool | version |", "|---|---|"]
    for name, version in sorted(results["tools"].items(), key=lambda kv: tool_key(kv[0])):
        out.append(f"| {name} | {cell(version)} |")
    out.append("")
    for note in results["notes"]:
        out.append(f"- {note}")
    if results["notes"]:
        out.append("")
    out.append(f"![time per case and tool]({svg_name})")
    out.append("")
    out.append("## Summary (median seconds; trawl in bold)")
    out.append("")
    for group, cases in groups(results).items():
        out += [f"### {group}", "", summary_table(results, cases), ""]
    out += thread_section(results)
    # Figures measured by hand against the performance targets (the issue's
    # steps), kept in bench/targets.md beside the cases.
    targets = os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.md")
    if os.path.exists(targets):
        with open(targets) as f:
            out += [f.read().rstrip(), ""]
    out += dask_section()
    more = {}
    for c in results["cases"]:
        if c.get("mode") == "warm" and c.get("runs", s["warm_runs"]) != s["warm_runs"]:
            more.setdefault(c["runs"], []).append(f"`{c['id']}`")
    more_runs = "".join(f" ({n} for {', '.join(ids)})" for n, ids in sorted(more.items()))
    out.append(METHOD.format(warmup=s["warmup"], warm_runs=s["warm_runs"], more_runs=more_runs,
                             cold_runs=s["cold_runs"], drop=s["drop_caches"], cross=CROSS))
    out.append("Each tool's command per kind of case (`{args}` and `{path}` filled in per case):")
    out.append("")
    kinds = sorted({k for t in results["templates"].values() for k in t})
    out.append("| tool | " + " | ".join(kinds) + " |")
    out.append("|---|" + "---|" * len(kinds))
    for name, t in sorted(results["templates"].items(), key=lambda kv: tool_key(kv[0])):
        cells = [f"`{cell(template_text(t[k]))}`" if k in t else "per case" if name == "fd"
                 and k == "find" else "–" for k in kinds]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out.append("")
    out.append("## Details")
    out.append("")
    for case in results["cases"]:
        out.append(f"### {case['id']}: {case_label(case)}, {case['mode']}")
        out.append("")
        if case.get("skipped"):
            out += [f"Skipped: {case['skipped']}.", ""]
            continue
        for note in case["notes"]:
            out.append(f"- {note}")
        out += [detail_table(case), ""]
    return "\n".join(out)


def dask_section():
    """The latest figures of bench/dask.py (trawl-dask, issue 44), if any."""
    import glob
    here = os.path.dirname(os.path.abspath(__file__))
    found = sorted(glob.glob(os.path.join(here, "results", "dask-*.json")))
    if not found:
        return []
    with open(found[-1]) as f:
        d = json.load(f)
    rel = os.path.relpath(found[-1], os.path.dirname(here))
    sec = lambda x: f"{x:.2f} s"
    rows = [
        ("one `trawl --sort path -n " + d["pattern"] + "` over the Linux tree",
         sec(d["one_trawl_sorted_s"]) + f" (unsorted {sec(d['one_trawl_s'])})"),
        (f"`trawl-dask --local 2`, the same tree in {d['local2_shards']} shards "
         f"(output equal: {'yes' if d['same_output'] else 'NO'})",
         f"{sec(d['local2_s'])}; target 1.5 x one trawl + 1 s = {sec(d['target'])}"),
        ("fixed start: `trawl-dask --local 2` over one small file", sec(d["local2_fixed_start_s"])),
        ("per-shard overhead on a running cluster (task start to first byte at the client)",
         f"median {d['shard_overhead_ms_median']:.0f} ms, max {d['shard_overhead_ms_max']:.0f} ms"),
        (f"{d['six_lines']:,} lines over 2 shards on a running cluster "
         f"(one trawl {sec(d['six_one_trawl_s'])})",
         f"{sec(d['six_s'])}; client (trawl-dask) peak RSS {d['six_client_peak_rss_mb']:.0f} MB, "
         f"the merge's {d['six_merge_peak_rss_mb']:.0f} MB"),
    ]
    out = ["## Beyond one machine (bench/dask.py)", "",
           f"Run on {d['date']}, {d['cpus']} CPUs, scheduler and workers on 127.0.0.1; "
           f"results: `{rel}`; docs/DISTRIBUTED.md explains them (and compares the split with one "
           "trawl without an index too).", "",
           "| measure | value |", "|---|---|"]
    out += [f"| {cell(a)} | {cell(b)} |" for a, b in rows]
    return out + [""]


def svg(results):
    """Horizontal bars in two columns: for each case, each tool's median time,
    scaled to the slowest tool of that case (the number says the seconds)."""
    col_w, label_w, bar_w, row_h, top = 600, 46, 430, 15, 52
    cases = [c for c in results["cases"] if timed_rows(c)]
    parts, y = [], top
    for pair in range(0, len(cases), 2):
        heights = []
        for col, c in enumerate(cases[pair:pair + 2]):
            x0, yy = col * col_w, y
            rows = sorted(timed_rows(c), key=lambda r: tool_key(r["tool"]))
            slowest = max(r["median"] for r in rows) or 1.0
            title = f"{c['id']}: {shlex.join(c['args'])} ({c['corpus']}, {c['mode']})"
            if len(title) > 80:
                title = title[:78] + "…"
            parts.append(f'<text x="{x0 + 4}" y="{yy}" class="case">{html.escape(title)}</text>')
            yy += 5
            for r in rows:
                w = max(1.0, bar_w * r["median"] / slowest)
                bad = r.get("count_ok") is False
                color = COLORS.get(r["tool"], "#999999")
                parts.append(f'<text x="{x0 + label_w - 4}" y="{yy + 11}" class="tool">'
                             f'{r["tool"]}</text>')
                parts.append(f'<rect x="{x0 + label_w}" y="{yy + 2}" width="{w:.1f}" '
                             f'height="{row_h - 4}" fill="{color}"/>')
                text = f"{secs(r['median'])} s" + (f" {CROSS} {r['count']} lines" if bad else "")
                parts.append(f'<text x="{x0 + label_w + w + 4:.1f}" y="{yy + 11}" class="val'
                             f'{" bad" if bad else ""}">{html.escape(text)}</text>')
                yy += row_h
            heights.append(yy - y)
        y += max(heights) + 22
    host = results["host"]
    width, height = 2 * col_w, y - 4
    head = f"trawl benchmarks ({results['mode']} run, {results['date'][:10]}): median seconds"
    sub = (f"{host.get('cores')} cores, {host.get('memory_gib', '?')} GiB, Linux "
           f"{host.get('kernel')}. Bars are scaled per case (the slowest tool fills the width). "
           f"{CROSS}: the tool printed a different number of lines than the reference.")
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        "<style>.case{font-weight:bold;font-size:12px}.tool{text-anchor:end}"
        ".bad{fill:#d62728;font-weight:bold}</style>",
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="4" y="18" font-size="15" font-weight="bold">{html.escape(head)}</text>',
        f'<text x="4" y="34" fill="#444">{html.escape(sub)}</text>',
        *parts,
        "</svg>",
        "",
    ])


if __name__ == "__main__":
    import json
    import os

    with open(sys.argv[1]) as f:
        data = json.load(f)
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "docs"
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "BENCHMARKS.md"), "w") as f:
        f.write(markdown(data, sys.argv[1], "benchmarks.svg"))
    with open(os.path.join(out_dir, "benchmarks.svg"), "w") as f:
        f.write(svg(data))
    plot = threads_svg(data)
    if plot:
        with open(os.path.join(out_dir, "threads.svg"), "w") as f:
            f.write(plot)
