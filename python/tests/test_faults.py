"""Faults with the real trawl: a worker killed with SIGKILL in the middle of a shard's output
(on a shared path the shard completes on another worker, every line once; on a host's own path
it is named lost and the status is 2), and Ctrl-C (nothing left running)."""

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import Run, alive, children, wait_for

WRAPPER = """#!{python}
# The real trawl, except that the first `trawl shard` to get here (the one that creates
# MARKER.claim: shards start at once on several workers) prints the first half of its output,
# writes its pid to MARKER, sleeps, then prints the rest.
import os, subprocess, sys, time
real, marker = {real!r}, {marker!r}
argv = sys.argv[1:]
def first():
    # With MARKER.only, only a shard whose request names its text stalls.
    if os.path.exists(marker + ".only"):
        request = open(argv[argv.index("--request") + 1], "rb").read()
        if open(marker + ".only", "rb").read() not in request:
            return False
    try:
        os.close(os.open(marker + ".claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        return False
if argv[:1] != ["shard"] or not first():
    os.execv(real, [real] + argv)
out = subprocess.run([real] + argv, stdout=subprocess.PIPE).stdout
half = out.find(b"\\n", len(out) // 2) + 1
sys.stdout.buffer.write(out[:half])
sys.stdout.buffer.flush()
with open(marker + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(marker + ".tmp", marker)
time.sleep(60)
sys.stdout.buffer.write(out[half:])
"""


@pytest.fixture
def stalling(trawl, tmp_path):
    marker = str(tmp_path / "stalled")
    path = tmp_path / "stalling-trawl"
    path.write_text(WRAPPER.format(python=sys.executable, real=trawl, marker=marker))
    path.chmod(0o755)
    return str(path), marker


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    t = tmp_path_factory.mktemp("faults")
    root = os.fsencode(str(t))
    for top in (b"a", b"b", b"c"):
        for i in range(30):
            p = root + b"/p/" + top + b"/f%02d.txt" % i
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(b"".join(b"%s %d needle\n" % (top, j) for j in range(50)))
    return root + b"/p"


def worker_of(cluster, pid):
    """The worker whose process started pid."""
    with open("/proc/%d/stat" % pid) as f:
        ppid = int(f.read().split(")")[-1].split()[1])
    return next(n for n, p in cluster.workers.items() if p.pid == ppid)


def stalled_pid(marker):
    return int(open(marker).read())


def test_a_worker_killed_mid_output_on_a_shared_path_still_gives_every_line_once(
    healthy, trawl, stalling, tree
):
    wrapper, marker = stalling
    one = subprocess.run([trawl, "--sort", "path", "-n", "needle", tree], capture_output=True)
    run = Run(
        [
            "--scheduler-file",
            healthy.file,
            "--trawl",
            wrapper,
            "--grace",
            "3",
            "-n",
            "needle",
            b"shared:" + tree,
        ]
    )
    wait_for("a shard stalled mid-output", lambda: os.path.exists(marker), 60)
    pid = stalled_pid(marker)
    time.sleep(0.5)
    healthy.kill_worker(worker_of(healthy, pid))
    rc, out, err = run.finish(90)
    assert (rc, err.decode()) == (0, "")
    assert out.replace(b"shared:" + tree, tree) == one.stdout
    wait_for("the stalled shard killed with its worker", lambda: not alive(pid), 10)


def test_a_worker_killed_mid_output_on_its_own_path_is_named_and_nothing_is_silent(
    healthy, trawl, stalling, tree
):
    wrapper, marker = stalling
    # fs1's shard stalls (the marker's .only file names its root), and fs1 is killed.
    with open(marker + ".only", "wb") as f:
        f.write(tree + b"/a")
    run = Run(
        [
            "--scheduler-file",
            healthy.file,
            "--trawl",
            wrapper,
            "--grace",
            "2",
            "-n",
            "needle",
            b"fs1:" + tree + b"/a",
            b"fs2:" + tree + b"/b",
        ]
    )
    wait_for("a shard stalled mid-output", lambda: os.path.exists(marker), 60)
    pid = stalled_pid(marker)
    name = worker_of(healthy, pid)
    assert name == "fs1"
    lost = b"fs1:" + tree + b"/a"
    # The merge prints a shard's lines once it knows the shard's fate (a copy of it may still
    # come), so nothing shows when its first lines reach the client: give the fetch of a few KB
    # (30-80 ms on a running cluster, about 1 s at a load of 8 on 2 cores) 5 s.
    time.sleep(5)
    healthy.kill_worker(name)
    rc, out, err = run.finish(60)
    out = out.splitlines(keepends=True)
    assert rc == 2
    assert b"trawl-dask: shard %s lost: worker fs1 left" % lost in err
    assert b"incomplete" in err
    mine = subprocess.run(
        [trawl, "--sort", "path", "-n", "needle", tree + b"/b"], capture_output=True
    ).stdout
    assert b"".join(x for x in out if x.startswith(b"fs2:")) == b"".join(
        b"fs2:" + x for x in mine.splitlines(keepends=True)
    ), "the other host's shard is whole"
    assert 0 < sum(x.startswith(lost) for x in out) < 30 * 50, "what came is printed"


def test_ctrl_c_during_a_real_search_ends_every_process(healthy, trawl, stalling, tree):
    wrapper, marker = stalling
    run = Run(
        [
            "--scheduler-file",
            healthy.file,
            "--trawl",
            wrapper,
            "-n",
            "needle",
            b"fs1:" + tree + b"/a",
            b"fs2:" + tree + b"/b",
            b"fs3:" + tree + b"/c",
        ]
    )
    wait_for("a shard stalled mid-output", lambda: os.path.exists(marker), 60)
    pid = stalled_pid(marker)
    merge = children(run.proc.pid)
    run.proc.send_signal(signal.SIGINT)
    rc, out, err = run.finish(30)
    assert rc == 130
    for p in [pid] + merge:
        wait_for("process %d ended" % p, lambda p=p: not alive(p), 10)
