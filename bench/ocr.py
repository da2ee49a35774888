#!/usr/bin/env python3
"""--ocr's measurements (issue 45): a generated corpus of scanned pages, `trawl --ocr -l WORD`
with an empty cache against the floor (pdftoppm + tesseract on every page, all cores, xargs -P),
the same search with the cache filled, the peak RSS of trawl and its children together, and
ocrmypdf's sidecar text on the same corpus when ocrmypdf is installed.

  bench/ocr.py [--trawl PATH] [--dir DIR] [--pdfs N] [--pages N] [--runs N] [--out JSON]

The corpus (default: N=5 image-only PDFs of 40 Letter pages at 300 dpi, 22 lines of Times 12
pt each, turned 0.6 degrees and speckled; the word Zanzibar on one page in 10) is made with
Ghostscript in --dir (default target/ocr-bench) and reused when it is there. Prints a Markdown
table (for bench/targets.md) and writes the figures as JSON (default
bench/results/ocr-DATE.json).
"""

import argparse
import datetime
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORD = "Zanzibar"
VOCAB = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "no more what can said who about up out into them could than other time some these two may "
    "then do first any my now such like our over man me even most made after also did many "
    "before must through back years where much your way well down should because each just "
    "those people how too little state good very make world still own see men work long get "
    "here between both life being under never day same another know while last might us great "
    "old year off come since against go came right used take three"
).split()


def page_ps(rng, marked):
    out = ["/Times-Roman findfont 12 scalefont setfont gsave 72 700 translate 0.6 rotate"]
    for i in range(22):
        words = [rng.choice(VOCAB) for _ in range(9)]
        if marked and i == 11:
            words[4] = WORD
        out.append(f"0 {-20 * i} moveto ({' '.join(words)}) show")
    out.append("grestore 0 1 400 { pop rand 612 mod rand 792 mod 0.5 0.5 rectfill } for showpage")
    return out


def make_corpus(d, pdfs, pages):
    """N image-only PDFs of `pages` pages; returns the pages that hold WORD, by file."""
    os.makedirs(d, exist_ok=True)
    marked = {}
    rng = random.Random(45)
    for n in range(pdfs):
        name = f"scan{n:02d}.pdf"
        ps = ["%!PS", "<< /PageSize [612 792] >> setpagedevice", f"{n + 3} srand"]
        marks = []
        for p in range(pages):
            m = (n * pages + p) % 10 == 3
            if m:
                marks.append(p + 1)
            ps += page_ps(rng, m)
        marked[name] = marks
        path = os.path.join(d, name)
        if not os.path.exists(path):
            with tempfile.NamedTemporaryFile("w", suffix=".ps") as f:
                f.write("\n".join(ps) + "\n")
                f.flush()
                subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE",
                                "-sDEVICE=pdfimage8", "-r300", "-o", path, f.name], check=True)
    return marked


def descendants_rss(root):
    """The summed resident set (bytes) of `root` and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def run(cmd, env=None, shell=False, sample=False):
    """Wall time, output and (when `sample`) the peak summed RSS of the process tree, sampled
    every 20 ms."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         shell=shell)
    peak = [0]
    done = threading.Event()

    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], descendants_rss(p.pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch) if sample else None
    if watcher:
        watcher.start()
    out, err = p.communicate(timeout=3600)
    dt = time.perf_counter() - t
    done.set()
    if watcher:
        watcher.join()
    if p.returncode not in (0, 1):
        sys.exit(f"failed ({p.returncode}): {cmd}\n{err.decode(errors='replace')}")
    return dt, out.decode(errors="replace"), peak[0]


def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        return out.splitlines()[0] if out else "?"
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trawl", default=os.path.join(REPO, "target/release/trawl"))
    ap.add_argument("--dir", default=os.path.join(REPO, "target/ocr-bench"))
    ap.add_argument("--pdfs", type=int, default=5)
    ap.add_argument("--pages", type=int, default=40)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--pairs-only", action="store_true",
                    help="only the empty-cache pairs and the filled cache (no 200-page PDF, no ocrmypdf)")
    ap.add_argument("--out")
    a = ap.parse_args()
    corpus = os.path.join(a.dir, "corpus")
    marked = make_corpus(corpus, a.pdfs, a.pages)
    want = sorted(os.path.join(corpus, f) for f, m in marked.items() if m)
    pages = a.pdfs * a.pages
    cache = os.path.join(a.dir, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=cache, LC_ALL="C")
    cores = os.cpu_count()
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "pages": pages, "pdfs": a.pdfs, "cores": cores, "load_before": os.getloadavg(),
               "tools": {"trawl": version([a.trawl, "--version"]),
                         "tesseract": version(["tesseract", "--version"]),
                         "pdftoppm": subprocess.run(["pdftoppm", "-v"], capture_output=True,
                                                    text=True).stderr.splitlines()[0],
                         "ocrmypdf": version(["ocrmypdf", "--version"])},
               "commit": subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                                        capture_output=True, text=True).stdout.strip()}
    trawl_cmd = [a.trawl, "--ocr", "-l", WORD, corpus]
    # The floor: every page rendered and recognised, one page per job, as many jobs as cores
    # (OpenMP held to one thread in each, as trawl does).
    floor_cmd = (
        f"cd {corpus} && for f in *.pdf; do n=$(pdfinfo \"$f\" | awk '/^Pages:/ {{print $2}}'); "
        f"seq 1 $n | sed \"s|^|$f |\"; done | OMP_THREAD_LIMIT=1 xargs -P {cores} -L 1 "
        f"sh -c 'pdftoppm -f $1 -l $1 -r 300 -gray \"$0\" | tesseract stdin stdout --dpi 300 "
        f"2>/dev/null | grep -q {WORD} && echo \"$0\"' | sort -u"
    )
    rows = {"trawl-empty": [], "floor": [], "trawl-cached": [], "ocrmypdf": []}
    peaks = []
    for i in range(a.runs):
        shutil.rmtree(cache, ignore_errors=True)
        dt, out, peak = run(trawl_cmd, env=env, sample=True)
        got = sorted(out.split())
        if got != want:
            sys.exit(f"trawl found {got}, not {want}")
        rows["trawl-empty"].append(dt)
        peaks.append(peak)
        print(f"trawl, empty cache: {dt:.1f} s, peak RSS {peak / 2**20:.0f} MiB", flush=True)
        dt, out, _ = run(floor_cmd, shell=True)
        got = sorted(os.path.join(corpus, f) for f in out.split())
        if got != want:
            print(f"note: the floor found {got}, not {want}", flush=True)
        rows["floor"].append(dt)
        print(f"floor: {dt:.1f} s", flush=True)
    for i in range(5):
        dt, out, _ = run(trawl_cmd, env=env)
        rows["trawl-cached"].append(dt)
    print(f"trawl, filled cache: {statistics.median(rows['trawl-cached']):.3f} s", flush=True)
    # One 200-page PDF: trawl's peak RSS with its children.
    big = os.path.join(a.dir, "one")
    if a.pairs_only:
        big = None
    if big:
        os.makedirs(big, exist_ok=True)
        one = os.path.join(big, "all.pdf")
        if not os.path.exists(one):
            subprocess.run(["pdfunite"] + sorted(os.path.join(corpus, f) for f in marked) + [one],
                           check=True)
        shutil.rmtree(cache, ignore_errors=True)
        dt, out, peak_one = run([a.trawl, "--ocr", "-c", WORD, one], env=env, sample=True)
        results["one_pdf"] = {"pages": pages, "seconds": dt, "peak_rss": peak_one,
                              "count": out.strip()}
        print(f"one {pages}-page PDF: {dt:.1f} s, peak RSS {peak_one / 2**20:.0f} MiB",
              flush=True)
    if shutil.which("ocrmypdf") and not a.pairs_only:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = (f"cd {corpus} && for f in *.pdf; do ocrmypdf -q -j {cores} --output-type pdf "
                   f"--sidecar {tmp}/$f.txt \"$f\" {tmp}/$f; done; grep -l {WORD} {tmp}/*.txt")
            dt, out, _ = run(cmd, shell=True)
            rows["ocrmypdf"].append(dt)
            print(f"ocrmypdf sidecars: {dt:.1f} s", flush=True)
    results["seconds"] = rows
    results["peak_rss"] = peaks
    results["load_after"] = os.getloadavg()
    med = {k: statistics.median(v) for k, v in rows.items() if v}
    print()
    print(f"| {pages} scanned pages ({a.pdfs} PDFs), {cores} cores | median s | vs floor |")
    print("|---|---|---|")
    for k, v in med.items():
        print(f"| {k} | {v:.3g} | {v / med['floor']:.2f}x |")
    print(f"| peak RSS, trawl + children | {max(peaks) / 2**20:.0f} MiB | |")
    out = a.out or os.path.join(HERE, "results",
                                f"ocr-{datetime.date.today().isoformat()}.json")
    with open(out, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
