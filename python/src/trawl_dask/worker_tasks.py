"""What runs on the Dask workers: `trawl shard` into a spool file, and reads of that spool.

This module is shipped to the workers by value (cloudpickle), so a worker host needs only
`distributed` and the `trawl` binary, not this package: it imports nothing but the standard
library and `distributed`, and keeps no state in module globals (what a worker must remember
across tasks, the trawl processes it runs, hangs off the Worker object).

Spool layout on a worker, one directory per client run (`<spool_root>/trawl-dask-<uid>/<run>/`):
  `<stem>.req.json`  the request given to `trawl shard --request`
  `<stem>.out`       trawl shard's standard output (JSON Lines), growing while it runs
  `<stem>.err`       its standard error (empty unless it failed)
  `<stem>.done`      written (by rename) once it exited: {"rc", "size", "stderr"}; `size` is the
                     final length of `.out`, so a reader that saw `.done` first reads all of it
  `<stem>.start`     {"t": epoch seconds when the task started, "host": hostname}
A file `cancel` in the run's directory asks every shard of the run to stop.
"""

import ctypes
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from distributed import get_worker, secede

POLL = 0.005  # seconds between looks at a growing spool
WATCH = 0.1  # seconds between looks at whether a running shard is still wanted


def _dying_with_parent(argv):
    """argv, and a function to run in the child before exec, such that the child is killed
    when the thread that started it ends (the worker killed with SIGKILL ends it too), so that
    no trawl outlives its worker: through util-linux's `setpriv --pdeathsig KILL` where it is
    installed (the child then starts by vfork, a few milliseconds sooner than with a Python
    function run after fork), else prctl(PR_SET_PDEATHSIG) from that function; neither where
    prctl is missing (not Linux)."""
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        return [setpriv, "--pdeathsig", "KILL", "--"] + argv, None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return argv, None

    def child():
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return argv, child


def run_dir(spool_root, run):
    base = spool_root or tempfile.gettempdir()
    d = os.path.join(base, "trawl-dask-%d" % os.getuid(), run)
    os.makedirs(d, mode=0o700, exist_ok=True)
    return d


def _registry(worker):
    """The trawl processes this worker runs, by run and attempt (for stop_run)."""
    return worker.__dict__.setdefault("_trawl_dask_running", {})


def _slots(worker):
    """At most as many shards at once as the worker has threads (--nthreads): a shard's task
    leaves the thread pool (so that reads of spools run beside it) but keeps its slot."""
    n = max(1, worker.state.nthreads)
    return worker.__dict__.setdefault("_trawl_dask_slots", threading.BoundedSemaphore(n))


def _write_atomic(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f)
    os.replace(tmp, path)


def _still_wanted(worker, key, cancel_file):
    if os.path.exists(cancel_file):
        return False
    if key is None:
        return True
    ts = worker.state.tasks.get(key)
    return ts is not None and ts.state not in ("cancelled", "released", "forgotten")


def run_shard(job):
    """Runs `trawl shard --request` for one attempt of one shard; returns how it ended.

    job: {"run", "stem", "request" (JSON text), "trawl", "spool_root"}. The task secedes from
    the worker's thread pool at once, so that reads of its spool (tasks pinned to this worker)
    run beside it on a single-thread worker, then waits for one of the worker's slots. trawl is
    killed when the task is cancelled (the client let go of it, or stop_run asked the whole run
    to stop).
    """
    worker = get_worker()
    key = worker.get_current_task()
    d = run_dir(job["spool_root"], job["run"])
    base = os.path.join(d, job["stem"])
    cancel_file = os.path.join(d, "cancel")
    secede()
    slots = _slots(worker)
    while not slots.acquire(timeout=WATCH):
        if not _still_wanted(worker, key, cancel_file):
            return {"rc": -signal.SIGKILL, "size": 0, "stderr": "cancelled before it ran"}
    try:
        return _run_trawl(job, worker, key, base, cancel_file)
    finally:
        slots.release()


def _wait(proc, wanted):
    """proc's exit status, killing it once `wanted()` is false (asked every WATCH seconds).
    Its exit is seen at once through a pidfd where there is one (Popen.wait's own timeout
    polls up to 50 ms apart)."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(proc.pid)
        except OSError:
            pidfd = None
    try:
        while True:
            if pidfd is not None:
                p = select.poll()
                p.register(pidfd, select.POLLIN)
                if p.poll(WATCH * 1000):
                    return proc.wait()
            else:
                try:
                    return proc.wait(timeout=WATCH)
                except subprocess.TimeoutExpired:
                    pass
            if not wanted():
                proc.kill()
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _run_trawl(job, worker, key, base, cancel_file):
    _write_atomic(base + ".start", {"t": time.time(), "host": socket.gethostname()})
    with open(base + ".req.json", "w") as f:
        f.write(job["request"])
    if shutil.which(job["trawl"]) is None:
        result = {"rc": 127, "size": 0, "stderr": "cannot run %s: not found" % job["trawl"]}
        _write_atomic(base + ".done", result)
        return result
    with open(base + ".out", "wb") as out, open(base + ".err", "wb") as err:
        argv, child = _dying_with_parent([job["trawl"], "shard", "--request", base + ".req.json"])
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, preexec_fn=child
            )
        except OSError as e:
            result = {"rc": 127, "size": 0, "stderr": "cannot run %s: %s" % (job["trawl"], e)}
            _write_atomic(base + ".done", result)
            return result
    running = _registry(worker).setdefault(job["run"], {})
    running[job["stem"]] = proc
    try:
        rc = _wait(proc, lambda: _still_wanted(worker, key, cancel_file))
    finally:
        running.pop(job["stem"], None)
    with open(base + ".err", "rb") as f:
        stderr = f.read()[-4000:].decode("utf-8", "replace")
    size = os.path.getsize(base + ".out")
    result = {"rc": rc, "size": size, "stderr": stderr}
    _write_atomic(base + ".done", result)
    return result


def read_spool(job, offset, limit, wait):
    """Up to `limit` bytes of a shard's spool from `offset`, waiting up to `wait` seconds for
    some to appear. Returns {"state": "missing"} when there is no spool (not started yet, or
    lost), else {"state": "ok", "data", "done" (the .done record or None), "start"}; with
    "done" set and no data, the spool has been read to its end."""
    base = os.path.join(run_dir(job["spool_root"], job["run"]), job["stem"])
    deadline = time.monotonic() + wait
    while True:
        done = _read_json(base + ".done")  # before the data: then the data is complete
        try:
            with open(base + ".out", "rb") as f:
                f.seek(offset)
                data = f.read(limit)
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                return {"state": "missing"}
            time.sleep(POLL)
            continue
        if data or done is not None or time.monotonic() >= deadline:
            start = _read_json(base + ".start") if offset == 0 else None
            return {"state": "ok", "data": data, "done": done, "start": start}
        time.sleep(POLL)


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (FileNotFoundError, ValueError):
        return None


def digest_spool(job, start, end, wait):
    """The SHA-256 of a spool's bytes [start, end), waiting up to `wait` seconds for them to be
    written; None when the spool ended (or is missing) before `end`. Also returns the offset
    just past the spool's first line (its begin record), or None when that line is not whole."""
    import hashlib

    base = os.path.join(run_dir(job["spool_root"], job["run"]), job["stem"])
    deadline = time.monotonic() + wait
    while True:
        done = _read_json(base + ".done")
        try:
            size = os.path.getsize(base + ".out")
        except FileNotFoundError:
            size = -1
        if size >= end or done is not None or time.monotonic() >= deadline:
            break
        time.sleep(POLL)
    if size < end:
        return {"digest": None, "size": size, "done": done}
    h = hashlib.sha256()
    with open(base + ".out", "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            b = f.read(min(left, 1 << 20))
            if not b:
                return {"digest": None, "size": size, "done": done}
            h.update(b)
            left -= len(b)
    return {"digest": h.hexdigest(), "size": size, "done": done}


def first_line(job, limit, wait):
    """The spool's first line (its begin record) with its newline, waiting up to `wait`
    seconds; None when it is not whole yet (or the spool is missing)."""
    base = os.path.join(run_dir(job["spool_root"], job["run"]), job["stem"])
    deadline = time.monotonic() + wait
    while True:
        done = _read_json(base + ".done")
        try:
            with open(base + ".out", "rb") as f:
                head = f.read(limit)
        except FileNotFoundError:
            head = None
        if head is not None:
            nl = head.find(b"\n")
            if nl >= 0:
                return {"line": head[: nl + 1], "done": done}
        if done is not None or time.monotonic() >= deadline:
            return {"line": None, "done": done, "missing": head is None}
        time.sleep(POLL)


STALE = 24 * 3600  # seconds after which a run's spool directory is taken for abandoned


def stop_run(run, spool_root, remove, dask_worker=None):
    """Run through Client.run (outside the task queue, at once): asks every shard of `run` on
    this worker to stop, kills their trawl processes, and with `remove` deletes the run's
    spool directory, and those of runs untouched for a day (a client killed before its own
    clean-up, a worker that died with its spools). Returns how many processes were killed."""
    d = os.path.join(spool_root or tempfile.gettempdir(), "trawl-dask-%d" % os.getuid(), run)
    killed = 0
    if os.path.isdir(d):
        try:
            with open(os.path.join(d, "cancel"), "w"):
                pass
        except OSError:
            pass
    running = _registry(dask_worker).get(run, {}) if dask_worker is not None else {}
    for proc in list(running.values()):
        if proc.poll() is None:
            proc.kill()
            killed += 1
    if remove:
        for proc in list(running.values()):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(d, ignore_errors=True)
        _sweep(os.path.dirname(d))
    return killed


def _sweep(parent):
    try:
        names = os.listdir(parent)
    except OSError:
        return
    now = time.time()
    for name in names:
        path = os.path.join(parent, name)
        try:
            if now - os.stat(path).st_mtime > STALE:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def survey(root, trawl, depth):
    """Byte sizes below `root` for the split of a shared path: runs `trawl find ROOT -printf`
    and sums the sizes of regular files into their ancestors down to `depth` levels.

    Returns {"type": "d", "size": N, "entries": {name: node}} where a node is a directory
    (type "d", with "entries" while above `depth`), a regular file ("f") or anything else
    (symlinks, devices, FIFOs, sockets: "o"); names are bytes as latin-1 text (exact)."""
    tree = {"type": "d", "size": 0, "entries": {}}
    proc = subprocess.Popen(
        [trawl, "find", root, "-mindepth", "1", "-printf", "%y %s %P\\0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    rest = b""
    while True:
        block = proc.stdout.read(1 << 20)
        if not block:
            break
        parts = (rest + block).split(b"\0")
        rest = parts.pop()
        for rec in parts:
            _add(tree, rec, depth)
    proc.wait()
    if rest:
        _add(tree, rest, depth)
    return {"tree": tree, "rc": proc.returncode}


def _add(tree, rec, depth):
    kind, size, rel = rec.split(b" ", 2)
    parts = rel.decode("latin-1").split("/")
    node = tree
    is_file = kind == b"f"
    n = int(size) if is_file else 0
    tree["size"] += n
    for i, name in enumerate(parts):
        if i >= depth or "entries" not in node:
            return
        entries = node["entries"]
        last = i == len(parts) - 1
        child = entries.get(name)
        if child is None:
            if last:
                t = "d" if kind == b"d" else ("f" if is_file else "o")
            else:
                t = "d"
            child = {"type": t, "size": 0}
            if t == "d" and i + 1 < depth:
                child["entries"] = {}
            entries[name] = child
        elif last and kind != b"d" and child["type"] == "d":
            child["type"] = "o"
        child["size"] += n
        node = child
