"""trawl-dask over three workers (each standing for a host) prints what one trawl prints over the
same files, byte for byte once the `WORKER:` labels are removed, with the same exit status."""

import base64
import json
import os
import re
import subprocess

import pytest
from conftest import trawl_dask

NEEDLE = b"needle"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """Three hosts' trees and a tree every host mounts."""
    t = tmp_path_factory.mktemp("hosts")
    root = os.fsencode(str(t))
    a, b, c, p = (root + s for s in (b"/h1/srv/a", b"/h2/srv/b", b"/h3/srv/c", b"/shared/p"))
    body = b"".join(b"line %d %s\n" % (i, NEEDLE if i % 7 == 0 else b"hay") for i in range(60))
    write(a + b"/x.c", body)
    write(a + b"/sub/y.txt", b"Needle upper\nneedle lower\nneedles plural\n")
    write(a + b"/caf\xe9.txt", b"a needle in latin-1 \xe9t\xe9\n\xff\xfe needle\n")
    write(a + b"/bin.dat", b"needle\0binary\n")
    write(b + b"/z.txt", b"nothing here\n")
    write(b + b"/empty", b"")
    write(b + b"/d\xffir/w.txt", b"needle needle needle\nx\nneedle\n")
    write(c + b"/deep/er/v.txt", body[:300])
    for i, name in enumerate((b"alpha", b"beta", b"gamma", b"delta", b"\xe9psilon")):
        for j in range(i + 1):
            write(p + b"/" + name + b"/f%d.txt" % j, body * (i + 1))
        write(p + b"/" + name + b".top", b"top needle %d\n" % i)
    return {"fs1": a, "fs2": b, "fs3": c, "shared": p}


def unlabel(data: bytes, roots) -> bytes:
    for label, root in roots:
        data = data.replace(label.encode() + b":" + root, root)
    return data


VARIES = ("elapsed", "elapsed_total", "bytes_printed", "human")


def normalize_json(out: bytes, roots) -> list:
    """JSON lines with the labels removed, `host` fields dropped, and the fields that differ
    between two runs of one trawl (times) or with the labels' length (bytes printed) left out."""

    def fix(v):
        if isinstance(v, dict):
            if set(v) == {"bytes"}:
                return {
                    "bytes": base64.b64encode(unlabel(base64.b64decode(v["bytes"]), roots)).decode()
                }
            if set(v) == {"text"}:
                return {
                    "text": unlabel(v["text"].encode("utf-8", "surrogateescape"), roots).decode(
                        "utf-8", "surrogateescape"
                    )
                }
            return {k: fix(x) for k, x in v.items() if k != "host" and k not in VARIES}
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    return [fix(json.loads(line)) for line in out.splitlines()]


def normalize_text(out: bytes, roots) -> bytes:
    out = unlabel(out, roots)
    out = re.sub(rb"(?m)^[0-9.]+ seconds$", b"S seconds", out)
    return re.sub(rb"(?m)^[0-9]+ bytes printed$", b"N bytes printed", out)


def one_trawl(trawl, args, paths):
    done = subprocess.run(
        [trawl, "--sort", "path"] + args + paths, capture_output=True, timeout=120
    )
    return done.returncode, done.stdout, done.stderr


def both(cluster, trawl, args, ops, hosts):
    paths = [hosts[w] for w in ops]
    operands = [w.encode() + b":" + hosts[w] for w in ops]
    rc1, out1, err1 = one_trawl(trawl, args, paths)
    rc2, out2, err2 = trawl_dask(
        ["--scheduler-file", cluster.file, "--trawl", trawl] + args + operands
    )
    roots = [(w, hosts[w]) for w in ops]
    return (rc1, out1, err1), (rc2, out2, err2), roots


GREP = [
    ["needle"],
    ["-n", "needle"],
    ["-c", "needle"],
    ["-l", "needle"],
    ["-L", "needle"],
    ["-o", "-b", "needle"],
    ["-v", "-n", "hay"],
    ["-n", "-C", "2", "needle"],
    ["-A", "1", "-B", "3", "needle"],
    ["-i", "-w", "-n", "needle"],
    ["-m", "1", "-n", "needle"],
    ["-h", "-n", "needle"],
    ["-n", "--heading", "needle"],
    ["-a", "needle"],
    ["-I", "-l", "needle"],
    ["-n", "--include", "*.txt", "needle"],
    ["-q", "needle"],
    ["-q", "absent-string"],
    ["absent-string"],
    ["-e", "needle", "-e", "\\xff"],
]


@pytest.mark.parametrize("args", GREP, ids=[" ".join(a) for a in GREP])
def test_grep_over_three_hosts_equals_one_trawl(healthy, trawl, hosts, args):
    one, dist, roots = both(healthy, trawl, args, ["fs1", "fs2", "fs3"], hosts)
    assert dist[0] == one[0], dist[2]
    assert normalize_text(dist[1], roots) == normalize_text(one[1], roots)
    assert unlabel(dist[2], roots) == one[2]


@pytest.mark.parametrize("args", [["--json", "needle"], ["--json", "-C", "1", "-i", "needle"]])
def test_json_over_three_hosts_equals_one_trawl_with_the_host_beside_each_path(
    healthy, trawl, hosts, args
):
    one, dist, roots = both(healthy, trawl, args, ["fs1", "fs2", "fs3"], hosts)
    assert dist[0] == one[0]
    assert normalize_json(dist[1], roots) == normalize_json(one[1], roots)
    hosts_seen = {
        json.loads(line)["data"].get("host")
        for line in dist[1].splitlines()
        if json.loads(line)["type"] == "match"
    }
    assert hosts_seen == {"fs1", "fs2", "fs3"}


def test_stats_are_summed_over_the_hosts(healthy, trawl, hosts):
    one, dist, roots = both(
        healthy, trawl, ["--stats", "-n", "needle"], ["fs1", "fs2", "fs3"], hosts
    )
    assert dist[0] == one[0]
    assert normalize_text(dist[1], roots) == normalize_text(one[1], roots)


FIND = [
    ["-name", "*.txt"],
    ["-type", "f", "-print0"],
    ["-type", "f", "-printf", "%s %p %P\\n"],
    ["-size", "+0", "-ls"],
]


@pytest.mark.parametrize("expr", FIND, ids=[" ".join(a) for a in FIND])
def test_find_over_three_hosts_equals_one_trawl_find(healthy, trawl, hosts, expr):
    ops = ["fs1", "fs2", "fs3"]
    paths = [hosts[w] for w in ops]
    one = subprocess.run([trawl, "find", "--sort"] + paths + expr, capture_output=True, timeout=120)
    rc, out, err = trawl_dask(
        ["--scheduler-file", healthy.file, "--trawl", trawl, "find"]
        + [w.encode() + b":" + hosts[w] for w in ops]
        + expr
    )
    roots = [(w, hosts[w]) for w in ops]
    assert rc == one.returncode
    assert unlabel(out, roots) == one.stdout
    assert unlabel(err, roots) == one.stderr


@pytest.mark.parametrize("args", [["-n", "needle"], ["-c", "needle"], ["--json", "needle"]])
def test_a_shared_path_split_over_the_workers_equals_one_trawl(
    healthy, trawl, hosts, args, tmp_path
):
    timings = tmp_path / "t.json"
    one, _, roots = both(healthy, trawl, args, ["shared"], hosts)
    rc, out, err = trawl_dask(
        ["--scheduler-file", healthy.file, "--trawl", trawl, "--timings", timings]
        + args
        + [b"shared:" + hosts["shared"]]
    )
    assert rc == one[0], err
    if "--json" in args:
        assert normalize_json(out, roots) == normalize_json(one[1], roots)
    else:
        assert unlabel(out, roots) == one[1]
    shards = json.loads(timings.read_text())["shards"]
    assert len(shards) == 3, "split in one part per worker"
    assert {s["worker"] for s in shards} == {"fs1", "fs2", "fs3"}


def test_an_error_on_one_host_is_printed_and_gives_status_2(healthy, trawl, hosts):
    missing = hosts["fs2"] + b"/not-there"
    one = subprocess.run(
        [trawl, "--sort", "path", "-n", "needle", hosts["fs1"], missing],
        capture_output=True,
        timeout=60,
    )
    rc, out, err = trawl_dask(
        [
            "--scheduler-file",
            healthy.file,
            "--trawl",
            trawl,
            "-n",
            "needle",
            b"fs1:" + hosts["fs1"],
            b"fs2:" + missing,
        ]
    )
    roots = [("fs1", hosts["fs1"]), ("fs2", missing)]
    assert rc == one.returncode == 2
    assert unlabel(out, roots) == one.stdout
    assert unlabel(err, roots) == one.stderr


@pytest.fixture(scope="module")
def odd_shared(tmp_path_factory):
    """A shared tree whose top holds a symbolic link to a directory, one to a file, a FIFO,
    hidden names, a .gitignore and files at several depths."""
    t = tmp_path_factory.mktemp("odd")
    root = os.fsencode(str(t))
    q, other = root + b"/q", root + b"/other"
    body = b"".join(b"row %d %s\n" % (i, NEEDLE if i % 5 == 0 else b"x") for i in range(40))
    for name in (b"a", b"b", b"c", b".hidden"):
        write(q + b"/" + name + b"/one/two/deep.txt", body)
        write(q + b"/" + name + b"/top.txt", body)
        write(q + b"/" + name + b"/skip.log", body)
    write(q + b"/.gitignore", b"*.log\n")
    write(q + b"/file.txt", body)
    write(other + b"/y.txt", b"needle elsewhere\n")
    os.symlink(b"../other", q + b"/link")
    os.symlink(b"file.txt", q + b"/flink")
    os.mkfifo(q + b"/fifo")
    return q


SHARED = [
    ["-n", "needle"],
    ["-n", "--max-depth", "2", "needle"],
    ["-c", "-g", "*.txt", "needle"],
    ["-l", "--gitignore", "needle"],
    ["-l", "--no-hidden", "needle"],
    ["-l", "-R", "needle"],
    ["-n", "--max-depth=3", "-g", "!**/two/**", "needle"],
]


@pytest.mark.parametrize("args", SHARED, ids=[" ".join(a) for a in SHARED])
def test_a_shared_path_with_links_fifos_and_root_options_equals_one_trawl(
    healthy, trawl, odd_shared, args
):
    one = subprocess.run(
        [trawl, "--sort", "path"] + args + [odd_shared], capture_output=True, timeout=60
    )
    rc, out, err = trawl_dask(
        ["--scheduler-file", healthy.file, "--trawl", trawl] + args + [b"shared:" + odd_shared]
    )
    roots = [("shared", odd_shared)]
    assert rc == one.returncode, err
    assert unlabel(out, roots) == one.stdout
    assert unlabel(err, roots) == one.stderr


def test_find_over_a_shared_path_is_one_shard_and_equals_one_trawl_find(
    healthy, trawl, odd_shared, tmp_path
):
    timings = tmp_path / "t.json"
    one = subprocess.run(
        [trawl, "find", "--sort", odd_shared, "-name", "*.txt"], capture_output=True, timeout=60
    )
    rc, out, err = trawl_dask(
        ["--scheduler-file", healthy.file, "--trawl", trawl, "--timings", timings, "find"]
        + [b"shared:" + odd_shared, "-name", "*.txt"]
    )
    assert rc == one.returncode, err
    assert unlabel(out, [("shared", odd_shared)]) == one.stdout
    assert len(json.loads(timings.read_text())["shards"]) == 1


def test_index_runs_on_each_worker_and_indexed_searches_still_equal_one_trawl(
    healthy, trawl, hosts
):
    rc, out, err = trawl_dask(
        ["--scheduler-file", healthy.file, "--trawl", trawl, "index"]
        + [w.encode() + b":" + hosts[w] for w in ("fs1", "fs2")]
    )
    assert rc == 0, err
    for w in ("fs1", "fs2"):
        assert any((healthy.root / ("w-" + w) / "cache" / "trawl" / "index").iterdir())
    one, dist, roots = both(healthy, trawl, ["-n", "needle"], ["fs1", "fs2"], hosts)
    assert dist[0] == one[0]
    assert normalize_text(dist[1], roots) == normalize_text(one[1], roots)
