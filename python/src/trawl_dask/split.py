"""Splitting a path every worker mounts into sub-roots of similar byte size (plain functions).

The survey (worker_tasks.survey, `trawl find` on one worker) gives the byte size of every entry
down to a few levels. A directory much larger than a shard's share is replaced by its entries,
then the sub-roots are dealt largest first to the least loaded shard (LPT scheduling: no shard
ends up more than the largest sub-root above the mean). Each shard's roots are listed in the
order one `trawl --sort path` walks them (path components compared as bytes), which is the order
the merge prints them in.

A part (`"part": true` in the request) is one entry of the operand's directory that `trawl
shard` walks as one trawl over the operand walks it. A part deeper than one level is walked as
an entry of its own parent, which prints the same unless an option counts from the root
(depth, globs below the root, ignore files, hidden names, file system boundaries, what to do
with operands): under those, parts stay one level deep (see ROOT_DEPENDENT). A part that is a
symbolic link, a device or a FIFO is treated as the walk meets it (not followed, not read).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

# grep options under which a part deeper than one level would not print what the operand's walk
# prints there.
ROOT_DEPENDENT = (
    "--max-depth",
    "-g",
    "--glob",
    "--iglob",
    "--gitignore",
    "-k",
    "--code",
    "--no-hidden",
    "--one-file-system",
    "-d",
    "--directories",
    "-D",
    "--devices",
    "--exclude-from",
    "--files",
)


def deep_parts(args: List[str]) -> bool:
    """Whether a grep with these arguments may be split into parts deeper than one level."""
    for a in args:
        name = a.partition("=")[0]
        if name in ROOT_DEPENDENT:
            return False
        if a.startswith("-") and not a.startswith("--"):
            # a short cluster: -k, -g, -d, -D anywhere in it (a value after them is theirs)
            for c in a[1:]:
                if c in "kgdD":
                    return False
                if not c.isalpha():
                    break
    return True


@dataclass
class Part:
    rel: Tuple[str, ...]  # path components below the root (latin-1 text of the name bytes)
    size: int


def sub_roots(tree: dict, parts: int, max_depth: int) -> Optional[List[Part]]:
    """The sub-roots to deal into `parts` shards, or None to keep the root whole (a file, or
    an empty directory)."""
    if parts < 2 or tree.get("type") != "d" or "entries" not in tree:
        return None
    if not _can_open(tree):
        return None
    items: List[Tuple[Tuple[str, ...], dict]] = [((n,), c) for n, c in tree["entries"].items()]
    if len(items) == 0:
        return None
    share = max(1, tree["size"]) / parts
    for _ in range(10_000):
        items.sort(key=lambda it: -it[1]["size"])
        big = next(
            (
                i
                for i, (rel, node) in enumerate(items)
                if node["size"] > share / 2 and len(rel) < max_depth and _can_open(node)
            ),
            None,
        )
        if big is None:
            break
        rel, node = items.pop(big)
        items.extend((rel + (n,), c) for n, c in node["entries"].items())
    return [Part(rel, node["size"]) for rel, node in items]


def _can_open(node: dict) -> bool:
    """A directory whose entries are known (the survey went that deep) and not none."""
    entries: Optional[Dict[str, dict]] = node.get("entries")
    return node.get("type") == "d" and entries is not None and len(entries) > 0


def deal(parts: List[Part], shards: int) -> List[List[Part]]:
    """Largest first to the least loaded shard; each shard's parts in walk order; no empty
    shard."""
    bins: List[List[Part]] = [[] for _ in range(shards)]
    load = [0] * shards
    for p in sorted(parts, key=lambda p: (-p.size, walk_key(p.rel))):
        i = min(range(shards), key=lambda j: (load[j], j))
        bins[i].append(p)
        load[i] += p.size
    out = [sorted(b, key=lambda p: walk_key(p.rel)) for b in bins if b]
    out.sort(key=lambda b: walk_key(b[0].rel))
    return out


def walk_key(rel: Tuple[str, ...]) -> Tuple[bytes, ...]:
    """The order of `--sort path`: depth first, names compared as bytes."""
    return tuple(n.encode("latin-1") for n in rel)


def join(root: bytes, rel: Tuple[str, ...]) -> bytes:
    return b"/".join([root.rstrip(b"/") if root != b"/" else b""] + list(walk_key(rel)))
