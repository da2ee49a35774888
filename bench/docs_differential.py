#!/usr/bin/env python3
"""Whole-corpus differential check of the extraction (bench/docs-differential.sh).

For the issue's three queries, the count of matching lines `trawl --docs -a -c -P` gives is
compared with the system's own tools piped into `grep -a -c -P`:

- every single file trawl reads as a document or decodes: PDFs (`pdftotext FILE -`),
  PostScript (`gs -sDEVICE=txtwrite`), DVI (`catdvi`), and every .gz/.bz2/.xz/.zst/.lz4 that is
  not a tarball (`gzip -dc` & co., the decoded bytes read again by the same rule: a .ps.gz is
  PostScript);
- every plain member of every tar and zip archive (`tar -xf`, `unzip`), one level down: trawl's
  `ARCHIVE{MEMBER}:N` line against grep on the member extracted by the system's tool.

A file or archive the system's tools fail on is left out (trawl reports those as errors).
Members that are themselves containers or documents are left to the single-file rule (trawl
searches inside them, the reference would count their bytes).
Usage: bench/docs-differential.sh [DOCS_DIR] [TRAWL]
"""
import os
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

QUERIES = ["package", "Dijkstra", r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)"]
ENV = dict(os.environ, LC_ALL="C")
GS = ["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=txtwrite", "-o", "-", "-"]
DECODERS = {".gz": ["gzip", "-dc"], ".bz2": ["bzip2", "-dc"], ".xz": ["xz", "-dc"],
            ".zst": ["zstd", "-dcq"], ".lz4": ["lz4", "-dcq"]}
TARS = (".tar", ".tgz", ".tbz2", ".txz", ".tzst", ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst",
        ".tar.lz4")
ZIPS = (".zip", ".jar", ".whl")


def kind(head):
    """What trawl's detect() says of these first bytes (the kinds that matter here)."""
    if head[:2] == b"\x1f\x8b" or head[:3] == b"BZh" or head[:6] == b"\xfd7zXZ\0" \
            or head[:4] in (b"\x28\xb5\x2f\xfd", b"\x04\x22\x4d\x18"):
        return "compressed"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06") or head[257:262] == b"ustar" or v7_tar(head):
        return "archive"
    if head[:5] == b"%PDF-":
        return "pdf"
    if head[:4] == b"%!PS" or head[:4] == b"\xc5\xd0\xd3\xc6":
        return "postscript"
    if head[:6] == b"\xf7\x02\x01\x83\x92\xc0":
        return "dvi"
    if head[:8] == b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1":
        return "ole"
    return "plain"


def v7_tar(head):
    """A pre-POSIX tar header (no magic): its checksum (octal at 148) matches."""
    if len(head) < 512 or head[0] == 0:
        return False
    field = head[148:156].strip(b" \0")
    try:
        want = int(field, 8)
    except ValueError:
        return False
    return want == sum(head[:148]) + 8 * 32 + sum(head[156:512])


def run(argv, data=None):
    """stdout of argv, or None when it fails."""
    try:
        p = subprocess.run(argv, input=data, capture_output=True, env=ENV, timeout=600)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


def text_of(data):
    """The text trawl --docs searches for these bytes (by the rule above), or None."""
    k = kind(data[:512])
    if k == "pdf":
        return run(["pdftotext", "-q", "-", "-"], data)
    if k == "postscript":
        return run(GS, data)
    if k == "dvi":
        return run(["catdvi"], data)
    if k == "plain":
        return data
    return None  # archives, nested compression, OLE: left to other rules


def grep_count(query, text):
    p = subprocess.run(["grep", "-a", "-c", "-P", "-e", query], input=text, capture_output=True,
                       env=ENV)
    return p.stdout.decode().strip()


def trawl_lines(trawl, query, path):
    p = subprocess.run([trawl, "--docs", "-a", "-c", "-P", "-e", query, path],
                       capture_output=True, env=ENV)
    return p.stdout.decode("utf-8", "surrogateescape").splitlines()


def single(trawl, path):
    """Checks of one file: [(what, want, got)]."""
    name = path.lower()
    if name.endswith(TARS) or name.endswith(ZIPS):
        return []
    with open(path, "rb") as f:
        head = f.read(512)
    k = kind(head)
    if k == "compressed":
        ext = os.path.splitext(name)[1]
        if ext not in DECODERS:
            return []
        data = run(DECODERS[ext] + [path])
        text = None if data is None else text_of(data)
    elif k in ("pdf", "postscript", "dvi"):
        with open(path, "rb") as f:
            text = text_of(f.read())
    else:
        return []
    if text is None:
        return []
    out = []
    for q in QUERIES:
        got = trawl_lines(trawl, q, path)
        out.append((f"{path} ({q})", grep_count(q, text), got[0] if len(got) == 1 else repr(got)))
    return out


def members(trawl, path):
    """Checks of the plain members of one archive."""
    name = path.lower()
    if name.endswith(TARS):
        listing = run(["tar", "-tf", path])
        extract = lambda d: run(["tar", "-xf", path, "-C", d])
    elif name.endswith(ZIPS):
        listing = run(["unzip", "-Z1", path])
        extract = lambda d: run(["unzip", "-qq", "-o", path, "-d", d])
    else:
        return []
    if listing is None:
        return []
    names = [n for n in listing.decode("utf-8", "surrogateescape").splitlines() if not n.endswith("/")]
    seen = Counter(names)
    unique = {n for n in names if seen[n] == 1}
    out = []
    with tempfile.TemporaryDirectory() as d:
        if extract(d) is None:
            return []
        texts = {}
        for n in unique:
            p = os.path.join(d, n)
            if not os.path.isfile(p) or os.path.islink(p):
                continue
            with open(p, "rb") as f:
                data = f.read()
            if kind(data[:512]) == "plain":
                texts[n] = data
        for q in QUERIES:
            got = {}
            prefix = path + "{"
            for line in trawl_lines(trawl, q, path):
                member, _, count = line.rpartition(":")
                if member.startswith(prefix) and member.endswith("}") and "}{" not in member:
                    got[member[len(prefix):-1]] = count
            for n, data in texts.items():
                out.append((f"{path}{{{n}}} ({q})", grep_count(q, data), got.get(n, "missing")))
    return out


def main():
    docs = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/trawl-bench/docs")
    trawl = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "trawl")
    files = []
    for root, dirs, names in os.walk(docs):
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                files.append(p)
    files.sort()
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        singles = [c for r in pool.map(lambda p: single(trawl, p), files) for c in r]
        archived = [c for r in pool.map(lambda p: members(trawl, p), files) for c in r]
    differ = 0
    for what, want, got in singles + archived:
        if want != got:
            differ += 1
            print(f"differs: {what}: tools {want}, trawl {got}")
    print(f"docs-differential: {len(singles)} file×query and {len(archived)} member×query checks, "
          f"{differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
