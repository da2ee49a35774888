"""One shard's stream: its attempts on the workers, and its spool copied into the merge's FIFO.

A `Fetcher` (a thread per shard) submits the shard's task (worker_tasks.run_shard) pinned to a
worker, then reads the task's spool file in chunks, each read a small task pinned to the same
worker, and writes every chunk to the shard's FIFO before asking for the next: the client holds
one chunk per shard at most, and a merge that is not reading this shard yet stops the copying
(the FIFO is full) while the spool keeps growing on the worker's disk.

When an attempt dies (its worker left, its spool vanished, trawl shard failed), a new attempt
runs: on the same worker for a pinned shard (which waits up to the grace period for a worker of
that name to come back, then the shard is lost: `shard fs2:/srv/b lost: worker fs2 left`), on
any worker for one that may run anywhere. What the merge already has is never sent again: the
new attempt's spool must repeat it byte for byte after its first line (the begin record, which
names the host), checked by a digest on the worker, and copying goes on after it; a new attempt
that prints something else fails the shard. The FIFO stays open across attempts, so the merge
sees one stream; it is closed when the shard ends in any way (a stream cut short is named by the
merge as incomplete, and the fetcher says why).
"""

import errno
import hashlib
import os
import select
import threading
import time
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from typing import List, Optional

from distributed import Client

from . import worker_tasks
from .cluster import Monitor
from .plan import Shard


@dataclass
class Settings:
    run: str  # this run's id (names its spool directory and its task keys)
    trawl: str  # the trawl binary on the workers
    spool_root: Optional[str]  # where workers keep spools (None: their temporary directory)
    grace: float  # seconds a missing worker may take to come back
    retries: int  # attempts after the first
    chunk: int  # bytes per read of a spool
    wait: float = 0.2  # seconds a read waits on the worker for more bytes


@dataclass
class Outcome:
    kind: str = "running"  # complete, lost, failed, stopped
    message: Optional[str] = None  # for standard error, without the `trawl-dask: ` prefix
    attempts: int = 0
    task_start: Optional[float] = None  # epoch seconds the first attempt's task started
    first_byte: Optional[float] = None  # epoch seconds the first bytes reached the client
    end: Optional[float] = None
    bytes: int = 0


class Stop(Exception):
    """The run is ending (the merge exited, Ctrl-C, the scheduler was lost)."""


class Dead(Exception):
    """The current attempt cannot go on; `reason` says why."""

    def __init__(self, reason: str, worker_left: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.worker_left = worker_left


class Fail(Exception):
    """The shard cannot be completed; the message names it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Attempt:
    number: int
    worker: str
    address: str
    job: dict
    future: object


@dataclass
class Context:
    client: Client
    monitor: Monitor
    settings: Settings
    stop: threading.Event = field(default_factory=threading.Event)
    futures: List[object] = field(default_factory=list)  # the shards' tasks, to cancel
    lock: threading.Lock = field(default_factory=threading.Lock)

    def submit(self, fn, *args, worker_address: str, key: str, track: bool = True):
        """A task pinned to one worker; `track`: kept to be cancelled at the end (the shards'
        tasks; reads are released by their fetcher)."""
        fut = self.client.submit(
            fn, *args, workers=[worker_address], allow_other_workers=False, pure=False, key=key
        )
        if track:
            with self.lock:
                self.futures.append(fut)
        return fut


class Fetcher(threading.Thread):
    def __init__(self, ctx: Context, shard: Shard, fifo: str):
        super().__init__(name="trawl-dask-shard-%d" % shard.index, daemon=True)
        self.ctx = ctx
        self.shard = shard
        self.fifo = fifo
        self.outcome = Outcome()
        self._fd: Optional[int] = None
        self._attempts = 0
        self._attempt: Optional[Attempt] = None
        self._ahead = None  # (attempt, offset, future) of the read submitted ahead
        self._reads = 0
        # What the merge has: the begin record's length, then a digest of what follows it.
        self._head: Optional[int] = None
        self._held = b""  # the begin record while it is not whole
        self._delivered = 0
        self._digest = hashlib.sha256()

    def worker(self) -> Optional[str]:
        """The worker of the last attempt."""
        return self._attempt.worker if self._attempt is not None else None

    # -- the thread ---------------------------------------------------------------------------

    def run(self):
        try:
            self._copy()
            self.outcome.kind = "complete"
        except Fail as f:
            self.outcome.kind = f.kind
            self.outcome.message = str(f)
        except Stop:
            self.outcome.kind = "stopped"
        except Exception as e:  # a bug or an unexpected Dask error: never a silent gap
            self.outcome.kind = "failed"
            self.outcome.message = "shard %s failed: %s: %s" % (
                self.shard.name,
                type(e).__name__,
                e,
            )
        finally:
            self._drop_ahead()
            self.outcome.end = time.time()
            self.outcome.attempts = self._attempts
            self.outcome.bytes = self._delivered
            self._close_fifo()

    def _copy(self):
        attempt = self._new_attempt(None)
        pos = 0
        while True:
            self._check_stop()
            try:
                if self._head is not None and pos == 0:
                    pos = self._align(attempt)
                r = self._read(attempt, pos)
                data, done = r.get("data", b""), r.get("done")
                if r.get("start") and self.outcome.task_start is None:
                    self.outcome.task_start = r["start"].get("t")
                if data:
                    if self.outcome.first_byte is None:
                        self.outcome.first_byte = time.time()
                    last = done is not None and pos + len(data) >= done["size"]
                    pos += len(data)
                    if not last:
                        # The next read runs while this chunk goes into the FIFO.
                        self._ahead = (attempt, pos, self._submit_read(attempt, pos))
                    self._deliver(data, attempt, last)
                    continue
                if done is None:
                    continue
                if done["rc"] == 0 and self._held == b"":
                    return
                reason = "trawl shard exited with status %s" % done["rc"]
                if done.get("stderr"):
                    reason += ": " + done["stderr"].strip().splitlines()[-1]
                raise Dead(reason)
            except Dead as d:
                self._drop_ahead()
                attempt = self._new_attempt(d)
                pos = 0
                if self._head is None:
                    self._held = b""

    # -- attempts -----------------------------------------------------------------------------

    def _new_attempt(self, why: Optional[Dead]) -> Attempt:
        s = self.ctx.settings
        if why is not None:
            if self._attempt is not None:
                self._attempt.future.cancel()
            if self._attempts > s.retries:
                kind = "lost" if why.worker_left else "failed"
                raise Fail(kind, "shard %s %s: %s" % (self.shard.name, kind, why.reason))
        name, address = self._choose_worker(why)
        self._attempts += 1
        stem = "s%d-a%d" % (self.shard.index, self._attempts)
        job = {
            "run": s.run,
            "stem": stem,
            "request": self.shard.request.as_json(),
            "trawl": s.trawl,
            "spool_root": s.spool_root,
        }
        key = "trawl-shard-%s-%s" % (s.run, stem)
        fut = self.ctx.submit(worker_tasks.run_shard, job, worker_address=address, key=key)
        self._attempt = Attempt(self._attempts, name, address, job, fut)
        return self._attempt

    def _choose_worker(self, why: Optional[Dead]):
        """The worker for the next attempt: the pinned one (waiting up to the grace period for
        it), or for a shard any worker may run the preferred one, else the first in name
        order (a worker that just left is not asked again while others remain)."""
        mon = self.ctx.monitor
        pinned = self.shard.pinned
        deadline = time.monotonic() + self.ctx.settings.grace
        while True:
            self._check_stop()
            if pinned is not None:
                addr = mon.address(pinned)
                if addr is not None:
                    return pinned, addr
            else:
                names = mon.names()
                if names:
                    pick = self.shard.preferred if self.shard.preferred in names else names[0]
                    return pick, mon.address(pick)
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        if pinned is None:
            raise Fail("lost", "shard %s lost: no worker left in the cluster" % self.shard.name)
        if why is not None and why.worker_left or mon.ever_seen(pinned):
            raise Fail("lost", "shard %s lost: worker %s left" % (self.shard.name, pinned))
        raise Fail(
            "lost",
            "shard %s lost: no worker named %s in the cluster (workers: %s)"
            % (self.shard.name, pinned, ", ".join(mon.names()) or "none"),
        )

    def _wait(self, fut, attempt: Attempt):
        """A read's result, while watching the attempt: its worker still there, its task not
        failed, the run not stopping."""
        finished = threading.Event()
        fut.add_done_callback(lambda _: finished.set())
        while True:
            self._check_stop()
            # The result is fetched once the task is done, not polled with a short timeout: a
            # timeout that ends as the result comes can raise asyncio's CancelledError inside
            # Dask's sync(), seen as a spurious UnboundLocalError (dask/distributed#8514; it
            # failed a test here once in 75 runs). The timeout left only bounds a gather from a
            # worker that died meanwhile (Dask then waits for the task to run again).
            if finished.wait(0.1):
                try:
                    return fut.result(timeout=1)
                except TimeoutError:
                    pass
                except CancelledError:
                    raise Dead("its task was cancelled") from None
                except Exception as e:
                    raise Dead("reading its spool failed: %s: %s" % (type(e).__name__, e)) from None
            if not self.ctx.monitor.has_address(attempt.address):
                raise Dead("worker %s left" % attempt.worker, worker_left=True)
            if attempt.future.status == "error":
                raise Dead("its task failed: %s" % _exception(attempt.future))
            if attempt.future.status == "cancelled":
                raise Dead("its task was cancelled") from None

    def _submit(self, attempt: Attempt, fn, *args):
        self._reads += 1
        key = "trawl-read-%s-%s-%d" % (self.ctx.settings.run, attempt.job["stem"], self._reads)
        return self.ctx.submit(
            fn, attempt.job, *args, worker_address=attempt.address, key=key, track=False
        )

    def _call(self, attempt: Attempt, fn, *args):
        fut = self._submit(attempt, fn, *args)
        try:
            return self._wait(fut, attempt)
        finally:
            fut.release()

    def _submit_read(self, attempt: Attempt, pos: int):
        s = self.ctx.settings
        return self._submit(attempt, worker_tasks.read_spool, pos, s.chunk, s.wait)

    def _drop_ahead(self):
        if self._ahead is not None:
            self._ahead[2].release()
            self._ahead = None

    def _read(self, attempt: Attempt, pos: int) -> dict:
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] is attempt and ahead[1] == pos:
            fut = ahead[2]
        else:
            if ahead is not None:
                ahead[2].release()
            fut = self._submit_read(attempt, pos)
        try:
            r = self._wait(fut, attempt)
        finally:
            fut.release()
        if r["state"] == "missing":
            if attempt.future.status == "error":
                raise Dead("its task failed: %s" % _exception(attempt.future))
            if attempt.future.done():
                raise Dead("its spool on %s was lost" % attempt.worker)
            return {}
        return r

    def _align(self, attempt: Attempt) -> int:
        """Where a new attempt's spool goes on from: after the bytes the merge has, once they
        are shown to be the same (after the begin record)."""
        s = self.ctx.settings
        while True:
            r = self._call(attempt, worker_tasks.first_line, 1 << 16, s.wait)
            if r.get("line") is not None:
                break
            if r.get("missing") and attempt.future.done():
                raise Dead("its spool on %s was lost" % attempt.worker)
            if r.get("done") is not None:
                raise Fail(
                    "failed",
                    "shard %s failed: its new attempt printed no begin record" % self.shard.name,
                )
        head = len(r["line"])
        end = head + self._delivered - self._head
        while True:
            d = self._call(attempt, worker_tasks.digest_spool, head, end, s.wait)
            if d["digest"] is not None:
                break
            if d.get("done") is not None or (d["size"] < 0 and attempt.future.done()):
                self._changed()
        if d["digest"] != self._digest.hexdigest():
            self._changed()
        return end

    def _changed(self):
        raise Fail(
            "failed",
            "shard %s failed: it printed something else when run again (did the files change?)"
            % self.shard.name,
        )

    # -- the FIFO -----------------------------------------------------------------------------

    def _deliver(self, data: bytes, attempt: "Attempt", last: bool):
        """Writes what was read to the FIFO. While the merge does not take it, the attempt's
        worker is watched (unless these are the spool's last bytes): if it leaves, the attempt
        is dead, and what was not written yet is read again from the next attempt."""
        if self._head is None:
            self._held += data
            nl = self._held.find(b"\n")
            if nl < 0:
                return
            head = nl + 1
            data, self._held = self._held, b""
            # The begin record is small: written whole into the empty FIFO at once.
            self._write(data[:head], attempt, last, counted=False)
            self._head = self._delivered = head
            data = data[head:]
        self._write(data, attempt, last, counted=True)

    def _write(self, data: bytes, attempt: Optional["Attempt"], last: bool, counted: bool):
        fd = self._open_fifo(attempt, last)
        view = memoryview(data)
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                poller.poll(100)
                self._check_stop()
                self._check_alive(attempt, last)
                continue
            except BrokenPipeError:
                raise Stop() from None
            if counted:
                self._digest.update(view[:n])
                self._delivered += n
            view = view[n:]

    def _check_alive(self, attempt: Optional["Attempt"], last: bool):
        if attempt is None or last:
            return
        if not self.ctx.monitor.has_address(attempt.address):
            raise Dead("worker %s left" % attempt.worker, worker_left=True)

    def _open_fifo(self, attempt: Optional["Attempt"] = None, last: bool = True) -> int:
        """Opens the FIFO for writing (non-blocking) once the merge has opened it for reading,
        polling, so that a merge that exits first never leaves this thread blocked."""
        if self._fd is not None:
            return self._fd
        while True:
            try:
                self._fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
                return self._fd
            except OSError as e:
                if e.errno != errno.ENXIO:
                    raise
            self._check_stop()
            self._check_alive(attempt, last)
            time.sleep(0.01)

    def _close_fifo(self):
        if self._fd is None:
            try:
                self._open_fifo()
            except (Stop, OSError):
                return
        try:
            os.close(self._fd)
        except OSError:
            pass
        self._fd = None

    def _check_stop(self):
        if self.ctx.stop.is_set():
            raise Stop()


def _exception(fut) -> str:
    try:
        e = fut.exception(timeout=1)
    except Exception as x:  # noqa: BLE001
        e = x
    return "%s: %s" % (type(e).__name__, e)
