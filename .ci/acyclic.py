#!/usr/bin/env python3
"""No module of a crate imports one that imports it back.

For every crate under crates/, each source file is a module (lib.rs and
main.rs the crate's root, a/mod.rs and a.rs the module a, a/b.rs a::b). A
file's imports are the modules its `crate::` and `super::` paths, and the
paths through the submodules it declares, name (the longest prefix that is a
module: `crate::a::b::Item` names a::b when a/b.rs exists). A submodule
naming its own parent or an ancestor is not counted: it is part of it. Tests
(`#[cfg(test)]` and what follows) are left out. Prints every circle and
exits 1 if there is one.

    .ci/acyclic.py [CRATES_DIR]
"""
import os
import re
import sys

WORD = r"[A-Za-z_][A-Za-z0-9_]*"


def modules(src):
    """{module path tuple: file} for a crate's src directory."""
    found = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), src)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main"):
                parts = parts[:-1]
            found[tuple(parts)] = os.path.join(dirpath, f)
    return found


def paths_in(text):
    """Every path (a list of segments) written in `text`, `use` groups
    expanded: `crate::a::{b, c::D}` gives crate::a::b and crate::a::c::D."""
    out = []

    def expand(prefix, body):
        depth, start, items = 0, 0, []
        for i, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(body[start:i])
                start = i + 1
        items.append(body[start:])
        for item in items:
            item = item.strip()
            m = re.match(r"^((?:%s\s*::\s*)*)\{(.*)\}$" % WORD, item, re.S)
            if m:
                expand(prefix + segments(m.group(1)), m.group(2))
            elif item:
                out.append(prefix + segments(item.split(" as ")[0]))

    for m in re.finditer(r"\buse\s+([^;]*);", text, re.S):
        expand([], m.group(1))
    for m in re.finditer(r"\b((?:crate|super|self)(?:\s*::\s*%s)+)" % WORD, text):
        out.append(segments(m.group(1)))
    return out


def segments(path):
    return [s.strip() for s in path.split("::") if s.strip()]


def resolve(here, path, mods, children):
    """The module `path`, written in module `here`, names (None: none of
    the crate's)."""
    if not path:
        return None
    if path[0] == "crate":
        base, rest = (), path[1:]
    elif path[0] in ("super", "self"):
        base = here
        while path and path[0] in ("super", "self"):
            if path[0] == "super":
                base = base[:-1]
            path = path[1:]
        rest = path
    elif path[0] in children:
        base, rest = here, path
    else:
        return None
    best = None
    for n in range(len(rest) + 1):
        if base + tuple(rest[:n]) in mods:
            best = base + tuple(rest[:n])
    return best


def strip_tests(text):
    m = re.search(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s", text)
    return text[: m.start()] if m else text


def circles(src):
    mods = modules(src)
    graph = {m: set() for m in mods}
    for here, file in mods.items():
        text = strip_tests(open(file, encoding="utf-8").read())
        # Comments and string literals name nothing.
        text = re.sub(r"'\\?\"'", "", text)
        text = re.sub(r'r#"(?:.|\n)*?"#', '""', text)
        text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
        text = re.sub(r"//[^\n]*", "", text)
        children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(%s)\s*;" % WORD, text, re.M))
        for path in paths_in(text):
            target = resolve(here, path, mods, children)
            if target is None or target == here or here[: len(target)] == target:
                continue  # itself, or an ancestor it is part of
            graph[here].add(target)
    # Tarjan's strongly connected components.
    index, low, on, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return found, mods


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "crates")
    bad = 0
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        found, mods = circles(src)
        for comp in found:
            bad += 1
            names = ", ".join("::".join(m) or "(root)" for m in comp)
            print(f"{crate}: modules importing each other: {names}")
    if bad:
        sys.exit(1)
    print("no module imports one that imports it back")


if __name__ == "__main__":
    main()
