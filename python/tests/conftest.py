"""Fixtures: a Dask cluster of a scheduler and three single-thread `dask worker` processes named
fs1, fs2, fs3 (each standing for a host), all on 127.0.0.1 and started and stopped here; the
trawl binary of this repository; a stand-in trawl for the driver's machinery; running
trawl-dask as a user would (a subprocess), with every wait bounded.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
BIN = Path(sys.executable).parent
WORKERS = ("fs1", "fs2", "fs3")


def wait_for(what, predicate, timeout, step=0.05):
    """Polls `predicate` until it is true, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        v = predicate()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %g s waiting for %s" % (timeout, what))
        time.sleep(step)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def children(pid):
    """Processes whose parent is pid (from /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().split(")")[-1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(d))
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1."""

    def __init__(self, root: Path):
        self.root = root
        self.file = str(root / "scheduler.json")
        self.scheduler = None
        self.workers = {}
        self.log = open(root / "dask.log", "ab")

    def start(self, names=WORKERS):
        self.scheduler = subprocess.Popen(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                self.file,
                "--idle-timeout",
                "900",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
        )
        wait_for("the scheduler file", lambda: os.path.exists(self.file), 60)
        for n in names:
            self.start_worker(n)
        self.wait_workers(names)

    def start_worker(self, name):
        d = self.root / ("w-" + name)
        d.mkdir(exist_ok=True)
        self.workers[name] = subprocess.Popen(
            [
                str(BIN / "dask"),
                "worker",
                "--scheduler-file",
                self.file,
                "--name",
                name,
                "--nthreads",
                "1",
                "--no-nanny",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
                "--local-directory",
                str(d),
                "--death-timeout",
                "60",
            ],
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=self.log,
            # Indexes and extracted text stay in the test's directory, one cache per "host".
            env=dict(os.environ, XDG_CACHE_HOME=str(d / "cache")),
        )

    def names(self):
        from distributed import Client

        with Client(scheduler_file=self.file, timeout=10) as c:
            return {w["name"] for w in c.scheduler_info(n_workers=-1)["workers"].values()}

    def wait_workers(self, names):
        wait_for("workers %s" % (names,), lambda: set(names) <= self.names(), 90, step=0.3)

    def kill_worker(self, name):
        p = self.workers.pop(name)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)

    def kill_scheduler(self):
        self.scheduler.send_signal(signal.SIGKILL)
        self.scheduler.wait(timeout=30)

    def stop(self):
        """Workers first (stopped together with their scheduler, they wait for it), then the
        scheduler; each killed when it takes more than a few seconds."""
        for group in (list(self.workers.values()), [self.scheduler] if self.scheduler else []):
            for p in group:
                if p.poll() is None:
                    p.terminate()
            for p in group:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(timeout=15)
        self.log.close()


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        c.start()
        yield c
    finally:
        c.stop()


@pytest.fixture
def own_cluster(tmp_path):
    """A cluster of this test alone (for tests that kill its scheduler)."""
    c = Cluster(tmp_path)
    try:
        yield c
    finally:
        c.stop()


@pytest.fixture
def healthy(cluster):
    """The shared cluster with its three workers (restarting one a test killed)."""
    for n in WORKERS:
        if n not in cluster.workers:
            cluster.start_worker(n)
    cluster.wait_workers(WORKERS)
    return cluster


def _find_trawl():
    env = os.environ.get("TRAWL")
    cands = [env] if env else []
    cands += [str(REPO / "target" / "release" / "trawl"), str(REPO / "target" / "debug" / "trawl")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    return shutil.which("trawl")


@pytest.fixture(scope="session")
def trawl():
    """The real trawl (TRAWL, else this repository's target/release or target/debug build)."""
    t = _find_trawl()
    if t is None:
        pytest.fail("no trawl binary: build it (cargo build --release -p trawl) or set TRAWL")
    probe = subprocess.run([t, "shard", "--help"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.fail("%s has no 'trawl shard' (the shard protocol): build this branch" % t)
    return t


@pytest.fixture(scope="session")
def fake_trawl(tmp_path_factory):
    d = tmp_path_factory.mktemp("fake")
    script = d / "trawl"
    script.write_text(
        "#!%s\nimport runpy, sys\nsys.path.insert(0, %r)\n"
        "runpy.run_path(%r, run_name='__main__')\n"
        % (sys.executable, str(HERE), str(HERE / "fake_trawl.py"))
    )
    script.chmod(0o755)
    return str(script)


class Run:
    """A trawl-dask process, as a user starts it."""

    def __init__(self, args, env=None):
        self.args = [str(BIN / "trawl-dask")] + [
            a if isinstance(a, bytes) else str(a) for a in args
        ]
        e = dict(os.environ)
        e.update(env or {})
        self.proc = subprocess.Popen(
            self.args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=e,
        )

    def finish(self, timeout=120):
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(
                "trawl-dask still running after %g s: %s" % (timeout, err)
            ) from None
        return self.proc.returncode, out, err


def trawl_dask(args, timeout=120, env=None):
    return Run(args, env).finish(timeout)


@pytest.fixture
def spool(tmp_path):
    d = tmp_path / "spool"
    d.mkdir()
    return d


def spool_files(root):
    found = []
    for dirpath, _, files in os.walk(root):
        found += [os.path.join(dirpath, f) for f in files]
    return found


@pytest.fixture
def pid_dir():
    d = tempfile.mkdtemp(prefix="trawl-dask-pids-")
    yield d
    shutil.rmtree(d, ignore_errors=True)
