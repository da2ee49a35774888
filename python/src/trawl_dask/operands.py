"""Splitting a trawl command line into trawl's own arguments and `WORKER:PATH` operands.

A request carries trawl's arguments without paths, and the roots apart (docs/DISTRIBUTED.md), so
the driver must find the operands the way trawl does:
- grep: every positional argument is an operand, but the first when no `-e`/`-f`/`--files`
  gives the patterns; which options take the next argument as their value is read from the
  client's own `trawl --help` (so it follows the binary), with getopt's unique long prefixes,
  short clusters (`-nA3`, `-ne PATTERN`), `--NAME=VALUE`, `-NUM` and `--`;
- find: GNU find's rule: the operands are the arguments after find's leading options (`-H`, `-L`,
  `-P`, `-j N`, `--sort`, `--no-index`, `--max-archive-depth N`...) up to the first that starts
  with `-` or is `(` or `!`;
- index: every argument not starting with `-`.

Strings are Python's `str` of the command line (bytes that are not UTF-8 kept as surrogates).
"""

import re
from dataclasses import dataclass, field
from typing import List, Optional

# Options of trawl's grep that give the patterns (so that no positional argument is one).
_PATTERN_SHORTS = {"e", "f"}
_PATTERN_LONGS = {"--regexp", "--file"}
# Options with which trawl takes no pattern at all: every positional argument is a path.
_NO_PATTERN_LONGS = {"--files"}


class UsageError(Exception):
    """A command line trawl-dask cannot run (said as `trawl-dask: MESSAGE`, exit 2)."""


@dataclass
class ValueOptions:
    """trawl's grep options as its help lists them."""

    shorts: set = field(default_factory=set)  # letters whose option takes a value
    longs: set = field(default_factory=set)  # `--name` of options that take a value
    all_longs: List[str] = field(default_factory=list)  # every `--name`, for unique prefixes

    @staticmethod
    def from_help(text: str) -> "ValueOptions":
        """Reads `trawl --help`: `  -e, --regexp <PATTERN>` takes a value, `--color[=<WHEN>]`
        takes one only after `=`, `-n, --line-number` none; `[alias: --silent]` adds a name."""
        v = ValueOptions()
        line_re = re.compile(r"^\s+(?:-([^\s,-]), )?(--[A-Za-z0-9][A-Za-z0-9-]*)(\S*)")
        short_re = re.compile(r"^\s+-([^\s,-])( <|\s{2,}|$)")
        last_value = None
        for line in text.splitlines():
            m = line_re.match(line)
            if m:
                short, long, tail = m.group(1), m.group(2), m.group(3)
                takes = line[m.end() :].startswith(" <") and not tail.startswith("[")
                v.all_longs.append(long)
                if takes:
                    v.longs.add(long)
                    if short:
                        v.shorts.add(short)
                last_value = takes
            else:
                s = short_re.match(line)
                if s and s.group(2) == " <":
                    v.shorts.add(s.group(1))
            for alias in re.findall(r"alias: (--[A-Za-z0-9-]+)", line):
                v.all_longs.append(alias)
                if last_value:
                    v.longs.add(alias)
        return v

    def expand(self, name: str) -> str:
        """A long option's full name from a unique prefix (getopt_long's rule)."""
        if name in self.all_longs:
            return name
        hits = {n for n in self.all_longs if n.startswith(name)}
        return hits.pop() if len(hits) == 1 else name


@dataclass
class Operand:
    position: int  # its place among the operands (the request's `operand`)
    text: str  # as the user wrote it
    worker: Optional[str]  # None: a bare path (only with --local)
    path: str


@dataclass
class Command:
    """A trawl command line split for the shards."""

    command: str  # grep, find or index
    args: List[str]  # trawl's arguments without the operands
    operands: List[Operand]


_NAME = re.compile(r"^([^/:\s]+):(.+)$", re.S)


def operand(position: int, text: str, bare_paths: bool) -> Operand:
    """`WORKER:PATH`, or with `bare_paths` (a local cluster) also a plain path."""
    m = _NAME.match(text)
    if m and not text.startswith("/"):
        return Operand(position, text, m.group(1), m.group(2))
    if bare_paths:
        return Operand(position, text, None, text)
    raise UsageError(
        "%s: not WORKER:PATH (a path on the host of the Dask worker named WORKER, "
        "or shared:PATH on a file system every worker mounts)" % text
    )


def split_grep(argv: List[str], opts: ValueOptions, bare_paths: bool) -> Command:
    kinds = _classify(argv, opts)
    has_patterns = any(k == "pattern-option" for k in kinds)
    args, ops = [], []
    pattern_seen = has_patterns
    for a, k in zip(argv, kinds):
        if k != "positional":
            args.append(a)
        elif not pattern_seen:
            pattern_seen = True
            args.append(a)
        else:
            ops.append(operand(len(ops), a, bare_paths))
    if not pattern_seen:
        raise UsageError("no pattern (trawl-dask [OPTIONS] PATTERN WORKER:PATH...)")
    if not ops:
        raise UsageError("no WORKER:PATH operand: name where to search")
    # trawl reads every argument after `--` as an operand: keep `--` before a pattern only.
    if args and args[-1] == "--":
        args.pop()
    return Command("grep", args, ops)


def _classify(argv: List[str], opts: ValueOptions) -> List[str]:
    """Each argument's part: option, value, pattern-option (an option that gives patterns, or
    --files), positional, or `--`."""
    kinds = []
    value_next = False
    rest = False
    for a in argv:
        if value_next:
            kinds.append("value")
            value_next = False
            continue
        if rest or a == "-" or not a.startswith("-"):
            kinds.append("positional")
            continue
        if a == "--":
            rest = True
            kinds.append("--")
            continue
        if a.startswith("--"):
            name, eq, _ = a.partition("=")
            name = opts.expand(name)
            kind = "option"
            if name in _PATTERN_LONGS or name in _NO_PATTERN_LONGS:
                kind = "pattern-option"
            if not eq and name in opts.longs:
                value_next = True
            kinds.append(kind)
            continue
        letters = a[1:]
        kind = "option"
        if letters.isdigit():
            kinds.append(kind)
            continue
        for i, c in enumerate(letters):
            if c in opts.shorts:
                if c in _PATTERN_SHORTS:
                    kind = "pattern-option"
                if i == len(letters) - 1:
                    value_next = True
                break
        kinds.append(kind)
    return kinds


# trawl find's leading options (before the paths), and which take a value.
_FIND_FLAGS = {"-H", "-L", "-P", "--sort", "--no-index"}
_FIND_VALUED = {"-j", "--threads", "--max-archive-depth", "--extract-jobs", "--extract-timeout"}


def split_find(argv: List[str], bare_paths: bool) -> Command:
    args, ops = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        name = a.partition("=")[0]
        if (
            a in _FIND_FLAGS
            or (name in _FIND_VALUED and "=" in a)
            or (a.startswith("-j") and a[2:].isdigit())
        ):
            args.append(a)
            i += 1
        elif a in _FIND_VALUED:
            args.extend(argv[i : i + 2])
            i += 2
        else:
            break
    while i < len(argv) and not (argv[i].startswith("-") or argv[i] in ("(", "!")):
        ops.append(operand(len(ops), argv[i], bare_paths))
        i += 1
    if not ops:
        raise UsageError("find: no WORKER:PATH operand: name where to look")
    args.extend(argv[i:])
    return Command("find", args, ops)


def split_index(argv: List[str], bare_paths: bool) -> Command:
    args, ops = [], []
    for a in argv:
        if a.startswith("-"):
            if a in ("--watch", "-w"):
                raise UsageError(
                    "index --watch never ends: start 'trawl index --watch PATH' on each host"
                )
            args.append(a)
        else:
            ops.append(operand(len(ops), a, bare_paths))
    if not ops:
        raise UsageError("index: no WORKER:PATH operand: name what to index")
    return Command("index", args, ops)


def split(argv: List[str], opts: ValueOptions, bare_paths: bool) -> Command:
    if argv and argv[0] == "find":
        return split_find(argv[1:], bare_paths)
    if argv and argv[0] == "index":
        return split_index(argv[1:], bare_paths)
    return split_grep(argv, opts, bare_paths)
