"""Splitting a shared path into sub-roots of similar size, and the shards planned (no cluster)."""

import os

from trawl_dask import worker_tasks
from trawl_dask.operands import Command, Operand
from trawl_dask.plan import plan
from trawl_dask.request import Request
from trawl_dask.split import deal, deep_parts, join, sub_roots


def d(entries):
    return {"type": "d", "size": sum(e["size"] for e in entries.values()), "entries": entries}


def f(n):
    return {"type": "f", "size": n}


def test_a_large_directory_is_opened_and_the_parts_dealt_evenly():
    tree = d({"big": d({"x": f(40), "y": f(30), "z": f(30)}), "a": f(50), "b": f(50)})
    parts = sub_roots(tree, 2, 3)
    assert sorted(p.rel for p in parts) == [
        ("a",),
        ("b",),
        ("big", "x"),
        ("big", "y"),
        ("big", "z"),
    ]
    bins = deal(parts, 2)
    loads = sorted(sum(p.size for p in b) for b in bins)
    assert sum(loads) == 200 and loads[1] - loads[0] <= max(p.size for p in parts)
    for b in bins:
        keys = [tuple(n.encode("latin-1") for n in p.rel) for p in b]
        assert keys == sorted(keys), "each shard's roots in walk order"


def test_symlinks_and_fifos_are_parts_like_any_entry():
    tree = d({"big": d({"x": f(90), "l": {"type": "o", "size": 0}}), "a": f(10)})
    parts = sub_roots(tree, 2, 3)
    assert sorted(p.rel for p in parts) == [("a",), ("big", "l"), ("big", "x")]


def test_a_single_shard_or_an_empty_root_is_not_split():
    assert sub_roots(d({"a": f(1)}), 1, 3) is None
    assert sub_roots({"type": "d", "size": 0, "entries": {}}, 2, 3) is None


def test_walk_order_compares_names_as_bytes_and_paths_join_exactly():
    parts = sub_roots(d({"b": f(5), "a.c": f(5), "a": d({"x": f(1)}), "\xff": f(5)}), 2, 1)
    bins = deal(parts, 1)
    assert [p.rel for p in bins[0]] == [("a",), ("a.c",), ("b",), ("\xff",)]
    assert join(b"/srv/p", ("a", "\xff")) == b"/srv/p/a/\xff"
    assert join(b"/", ("a",)) == b"/a"


def test_options_whose_meaning_depends_on_the_root_keep_parts_one_level_deep():
    assert deep_parts(["-n", "-A", "3", "x"])
    for args in (
        ["--max-depth=2", "x"],
        ["-g", "*.c", "x"],
        ["-nk", "x"],
        ["--gitignore"],
        ["--no-hidden"],
        ["-d", "skip"],
        ["--one-file-system"],
    ):
        assert not deep_parts(args), args


def test_the_survey_sums_file_sizes_into_their_directories(tmp_path, monkeypatch):
    # The survey's parse of `trawl find -printf '%y %s %P\0'`, fed by hand.
    tree = {"type": "d", "size": 0, "entries": {}}
    for rec in (
        b"d 4096 a",
        b"f 10 a/x",
        b"d 4096 a/b",
        b"f 5 a/b/y",
        b"f 7 z",
        b"l 3 a/link",
        b"f 2 a/b/c/deep",
    ):
        worker_tasks._add(tree, rec, 2)
    assert tree["size"] == 24
    a = tree["entries"]["a"]
    assert a["size"] == 17 and a["entries"]["b"]["size"] == 7
    assert "entries" not in a["entries"]["b"]
    assert a["entries"]["link"]["type"] == "o"
    assert tree["entries"]["z"] == {"type": "f", "size": 7}


def test_shards_pinned_shared_split_and_index_on_every_worker():
    tree = d({"a": f(50), "b": f(50)})
    template = Request("0.1.0", None, "", "grep", ["x"], "C")
    cmd = Command(
        "grep", ["x"], [Operand(0, "fs1:/a", "fs1", "/a"), Operand(1, "shared:/p", "shared", "/p")]
    )
    shards = plan(cmd, ["fs1", "fs2"], template, lambda p: tree, 1, 3)
    assert [(s.name, s.pinned, s.preferred) for s in shards] == [
        ("fs1:/a", "fs1", "fs1"),
        ("shared:/p#1", None, "fs1"),
        ("shared:/p#2", None, "fs2"),
    ]
    assert [(r.operand, r.path, r.display) for r in shards[1].request.roots] == [
        (1, b"/p/a", b"shared:/p/a")
    ]
    idx = plan(
        Command("index", [], [Operand(0, "shared:/p", "shared", "/p")]),
        ["fs1", "fs2"],
        template,
        lambda p: tree,
        1,
        3,
    )
    assert [(s.name, s.pinned) for s in idx] == [("shared:/p@fs1", "fs1"), ("shared:/p@fs2", "fs2")]
    bare = plan(
        Command("find", [], [Operand(0, "/p", None, "/p")]),
        ["local1", "local2"],
        template,
        lambda p: tree,
        1,
        3,
    )
    assert [(s.name, s.pinned, [r.display for r in s.request.roots]) for s in bare] == [
        ("/p", None, [b"/p"])
    ]
    assert os.fsencode("/p") == b"/p"
