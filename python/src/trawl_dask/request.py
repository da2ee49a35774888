"""The requests `trawl shard` and `trawl merge` read (docs/DISTRIBUTED.md), as plain data.

A string of the command line that is not UTF-8 (a pattern, a path: Python keeps such bytes as
surrogates) goes in the JSON as `{"bytes": BASE64}`, as the shard's output writes names.
"""

import base64
import json
import os
import subprocess
from dataclasses import dataclass, field
from typing import List, Optional, Union

PROTOCOL = 1

Text = Union[str, bytes]


def json_text(s: Text):
    """A string or byte string as JSON: plain text when it is UTF-8, else {"bytes": BASE64}."""
    b = os.fsencode(s) if isinstance(s, str) else s
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"bytes": base64.b64encode(b).decode("ascii")}


@dataclass
class Root:
    operand: int
    path: bytes
    display: bytes
    part: bool = False  # a part of a shared operand (one of its entries), not an operand

    def as_json(self):
        out = {
            "operand": self.operand,
            "path": json_text(self.path),
            "display": json_text(self.display),
        }
        if self.part:
            out["part"] = True
        return out


@dataclass
class Request:
    """One shard's request; the merge's is the same with no roots."""

    trawl_version: str
    extractors: Optional[str]
    shard: str
    command: str
    args: List[str]
    locale: str
    terminal: bool = False
    operands: int = 1  # how many operands the client's command line has (names as one trawl)
    roots: List[Root] = field(default_factory=list)
    shards: Optional[List[str]] = None  # the merge's: the shards' names in stream order

    def as_json(self) -> str:
        extra = {} if self.shards is None else {"shards": [json_text(s) for s in self.shards]}
        return json.dumps(
            {
                "protocol": PROTOCOL,
                "trawl_version": self.trawl_version,
                "extractors": self.extractors,
                "shard": self.shard,
                "command": self.command,
                "args": [json_text(a) for a in self.args],
                "roots": [r.as_json() for r in self.roots],
                "locale": self.locale,
                "terminal": self.terminal,
                "operands": self.operands,
                **extra,
            }
        )


def client_locale(env=None) -> str:
    """The locale one trawl started here would use for matching (LC_ALL, LC_CTYPE, LANG)."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        if env.get(name):
            return env[name]
    return "C"


def trawl_version(trawl: str) -> str:
    """`trawl --version`'s number ("trawl 0.1.0" gives "0.1.0")."""
    out = subprocess.run(
        [trawl, "--version"], stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=30
    ).stdout
    return out.decode("utf-8", "replace").split()[-1]


def extractor_identity(trawl: str) -> Optional[str]:
    """`trawl shard --identity` (what --docs text depends on), or None when it cannot say."""
    try:
        done = subprocess.run(
            [trawl, "shard", "--identity"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip() or None


def uses_documents(args: List[str]) -> bool:
    """Whether the run reads documents through extractors (grep's --docs, find's -docs)."""
    return any(a in ("--docs", "-docs") for a in args)


def as_on_a_terminal(args: List[str], terminal: bool, env=None) -> List[str]:
    """A grep's arguments for shards whose output is a pipe, when the client's output is a
    terminal: one trawl there prints line numbers by default (`-n` first, so that a `-N`
    after it wins) and colors with `--color=auto` (the default, or given: made `always`),
    unless NO_COLOR is set."""
    if not terminal:
        return list(args)
    env = os.environ if env is None else env
    out = ["-n"]
    colors = not env.get("NO_COLOR")
    given = False
    for a in args:
        name, eq, value = a.partition("=")
        if name in ("--color", "--colour"):
            given = True
            if colors and (not eq or value == "auto"):
                a = name + "=always"
        out.append(a)
    if colors and not given:
        out.insert(0, "--color=always")
    return out
