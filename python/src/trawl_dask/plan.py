"""From a split command line to shards: which roots each one walks and where it may run.

- `WORKER:PATH`: one shard pinned to the worker of that name.
- `shared:PATH` (or a bare PATH with --local): a grep whose options allow it is split into
  sub-roots of similar byte size (split.py), one shard per part, dealt round the workers; a
  find, or a grep that cannot be split, is one shard that any worker may run; an index runs on
  every worker (each keeps its own index of the path, as every worker may search it).
"""

import os
from dataclasses import dataclass, replace
from typing import Callable, List, Optional

from . import split
from .operands import Command
from .request import Request, Root

SHARED = "shared"


@dataclass
class Shard:
    index: int  # its stream's place on the merge's command line
    name: str  # in messages: `fs2:/srv/b`, `shared:/proj#2`, `shared:/proj@fs1`
    pinned: Optional[str]  # the worker that must run it, or None: any worker
    preferred: Optional[str]  # the worker asked first when any may run it
    request: Request


def plan(
    cmd: Command,
    workers: List[str],
    template: Request,
    survey: Callable[[bytes], Optional[dict]],
    per_worker: int,
    split_depth: int,
) -> List[Shard]:
    """`workers` are the names of the cluster's workers (sorted); `survey(path)` measures a
    shared path on one of them (None when it cannot)."""
    shards: List[Shard] = []

    def add(name, pinned, preferred, roots):
        req = replace(template, shard=name, roots=roots)
        shards.append(Shard(len(shards), name, pinned, preferred, req))

    for op in cmd.operands:
        path = os.fsencode(op.path)
        display = os.fsencode(op.text)
        shared = op.worker is None or op.worker == SHARED
        if not shared:
            add(op.text, op.worker, op.worker, [Root(op.position, path, display)])
            continue
        prefix = display[: len(display) - len(path)]
        if cmd.command == "index":
            for w in workers:
                add("%s@%s" % (op.text, w), w, w, [Root(op.position, path, display)])
            continue
        bins = None
        k = len(workers) * per_worker
        if cmd.command == "grep" and k >= 2 and not (path.endswith(b"/") and path != b"/"):
            # A part is one entry of the operand's directory, walked as one trawl over the
            # operand walks it; deeper parts only where no option counts from the root.
            depth = split_depth if split.deep_parts(cmd.args) else 1
            tree = survey(path)
            parts = split.sub_roots(tree, k, depth) if tree else None
            bins = split.deal(parts, k) if parts else None
        if not bins:
            first = workers[len(shards) % len(workers)] if workers else None
            add(op.text, None, first, [Root(op.position, path, display)])
            continue
        for i, b in enumerate(bins):
            roots = []
            for p in b:
                full = split.join(path, p.rel)
                roots.append(Root(op.position, full, prefix + full, part=True))
            add("%s#%d" % (op.text, i + 1), None, workers[i % len(workers)], roots)
    return shards
