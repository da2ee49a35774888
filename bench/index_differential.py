#!/usr/bin/env python3
"""Whole-corpus differential check of the index: for each pattern set and
extraction mode, `trawl -r ARGS DIR` (served by DIR's index) against
`trawl -r --no-index ARGS DIR`: the same exit code, the same output records
(each file's lines in order; files in any order) and the same messages.

Usage: bench/index-differential.sh linux|docs [DIR] [TRAWL]

The index of DIR is built first (`trawl index`, with --docs for the docs
corpus). Prints one line per check and ends with "N equal, N differ".
"""
import os
import subprocess
import sys

# The kinds of patterns: literals, -i, -w, alternations, classes,
# anchors, -v, -c, -l, -o, -P look-around; and what a search of a tree
# prints besides (-L, -n, context, -m, -b, -z).
PATTERNS = [
    ["PM_RESUME"], ["foobardoesnotexist"], ["-n", "linus"], ["-i", "pm_resume"],
    ["-w", "-i", "LINUS"], ["-n", "-w", "[A-Z]+_SUSPEND"], ["-c", "PM_RESUME"],
    ["-l", "static int"], ["-L", "TORVALDS"], ["-o", "0x[0-9a-f]{8}"],
    ["-v", "-c", "a"], ["^static int"], ["-x", "}"], ["-E", "pm_(resume|suspend)"],
    ["-F", "-i", "-e", "pm_resume", "-e", "TORVALDS"], ["-n", "foo.*bar"],
    ["ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"], ["-P", "(?<=foo_)bar"],
    ["-P", r"\blinus(?!\w)"], ["-P", r"(\w+)\s*=\s*\1\b"], ["-G", "x+y=z"],
    [r"\w+_RESUME"], ["-i", "naïve"], ["Dijkstra"], ["-i", "dijkstra"],
    ["-w", "package"], ["-c", "package"], ["-l", "-i", "copyright"],
    [r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)"], ["-m1", "-n", "return"],
    ["-A1", "-B1", "PM_RESUME"], ["-b", "-o", "Dijkstra"], ["-w", "ab"],
    ["-e", "abcdefghij", "-e", "zyxwvu"], ["-z", "-l", "PM_RESUME"],
    ["-I", "-l", "linus"], ["-a", "-c", "ELF"], ["--include=*.c", "-l", "PM_RESUME"],
    ["--exclude-dir=drivers", "-c", "-i", "linus"], ["--max-depth", "2", "-l", "linus"],
    ["-q", "TORVALDS"], ["-s", "-l", "Knuth"], ["trawl nested needle"],
    ["-i", "lorem ipsum"], ["-c", "-w", "the"],
]


def records(data, sep):
    """Output split into records by file name (each file's records in
    order), then sorted by file: files are searched in parallel."""
    by_file = {}
    for rec in data.split(sep):
        if rec.startswith(b"trawl: ") and rec.endswith(b": binary file matches"):
            name = rec[len(b"trawl: "):-len(b": binary file matches")]
        else:
            name = rec.split(b":", 1)[0] if b":" in rec else rec
        by_file.setdefault(name, []).append(rec)
    return sorted(by_file.items())


def run(trawl, args, path):
    p = subprocess.run([trawl] + args + [path], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    corpus = sys.argv[1] if len(sys.argv) > 1 else "linux"
    bench = os.environ.get("TRAWL_BENCH_DIR", os.path.expanduser("~/.cache/trawl-bench"))
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(bench, corpus)
    trawl = sys.argv[3] if len(sys.argv) > 3 else "target/release/trawl"
    modes = [[]] if corpus != "docs" else [["--docs"], ["--search-zip"], []]
    build = [trawl, "index"] + (["--docs"] if corpus == "docs" else []) + [path]
    subprocess.run(build, check=True)
    equal = differ = 0
    for mode in modes:
        for pat in PATTERNS:
            args = ["-r"] + mode + pat
            # -z ends output lines with NUL, but -l names with a newline.
            nul = ("-z" in pat and "-l" not in pat) or "-Z" in pat
            sep = b"\0" if nul else b"\n"
            a = run(trawl, args, path)
            b = run(trawl, ["--no-index"] + args, path)
            same = (a[0] == b[0] and records(a[1], sep) == records(b[1], sep)
                    and sorted(a[2].split(b"\n")) == sorted(b[2].split(b"\n")))
            lines = a[1].count(sep)
            print(f"{'equal ' if same else 'DIFFER'} {lines:>8} lines  {' '.join(args)}",
                  flush=True)
            equal += same
            differ += not same
    print(f"{equal} equal, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
