"""One trawl-dask run: connect, plan the shards, start the merge and a fetcher per shard, wait,
and end everything (tasks, trawl processes on the workers, spools, the merge) however it ends:
completed, a shard lost, the scheduler gone, the merge done early (-q), or Ctrl-C/SIGTERM.

Exit status: the merge's (grep's 0/1/2), or 2 when a shard was lost or failed or the scheduler
was lost, 130 on Ctrl-C (143 on SIGTERM). Every wait is bounded: the grace period for workers,
`--connect-timeout` for the scheduler, a few seconds for the clean-up.
"""

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import replace
from typing import List, Optional

from distributed.protocol.pickle import cloudpickle

from . import operands, plan, worker_tasks
from .cluster import Monitor, Unreachable, connect
from .fetch import Context, Fetcher, Settings
from .merge import Merge
from .operands import UsageError
from .options import DriverOptions
from .request import (
    Request,
    as_on_a_terminal,
    client_locale,
    extractor_identity,
    trawl_version,
    uses_documents,
)

# Workers need only distributed and trawl: the tasks travel by value.
cloudpickle.register_pickle_by_value(worker_tasks)


class Terminated(Exception):
    """SIGTERM."""


def say(message: str):
    sys.stderr.write("trawl-dask: %s\n" % message)
    sys.stderr.flush()


def run(opts: DriverOptions, argv: List[str]) -> int:
    def on_term(signum, frame):
        raise Terminated()

    signal.signal(signal.SIGTERM, on_term)
    conn = None
    try:
        local_trawl = opts.trawl
        try:
            version = trawl_version(local_trawl)
            cmd = operands.split(argv, _value_options(local_trawl, argv), bool(opts.local))
        except UsageError as e:
            say(str(e))
            return 2
        except (OSError, subprocess.SubprocessError) as e:
            say("cannot run %s here (the merge needs it): %s" % (local_trawl, e))
            return 2
        started = time.time()
        try:
            conn = connect(
                opts.scheduler, opts.scheduler_file, opts.local, opts.connect_timeout, opts.tls
            )
        except Unreachable as e:
            say(str(e))
            return 2
        return _search(opts, cmd, conn, version, started)
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
    finally:
        if conn is not None:
            _bounded(conn.close, 15)


def _value_options(trawl: str, argv: List[str]) -> operands.ValueOptions:
    if argv and argv[0] in ("find", "index"):
        return operands.ValueOptions()
    text = subprocess.run(
        [trawl, "--help"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30
    ).stdout
    return operands.ValueOptions.from_help(text.decode("utf-8", "replace"))


def _search(opts, cmd, conn, version, started) -> int:
    client = conn.client
    mon = Monitor(client, lost_after=max(opts.grace, opts.connect_timeout))
    run_id = "%s-%d" % (uuid.uuid4().hex[:12], os.getpid())
    settings = Settings(
        run=run_id,
        trawl=opts.trawl,
        spool_root=opts.spool_dir,
        grace=opts.grace,
        retries=opts.retries,
        chunk=opts.chunk_size,
    )
    ctx = Context(client, mon, settings)
    merge: Optional[Merge] = None
    fetchers: List[Fetcher] = []
    status = 2
    try:
        if not _wait_for_workers(mon, opts.grace):
            say("no worker joined the scheduler at %s within %g s" % (conn.address, opts.grace))
            return 2
        workers = mon.names()
        template = Request(
            trawl_version=version,
            extractors=extractor_identity(opts.trawl) if uses_documents(cmd.args) else None,
            shard="",
            command=cmd.command,
            args=as_on_a_terminal(cmd.args, os.isatty(1)) if cmd.command == "grep" else cmd.args,
            locale=client_locale(),
            terminal=os.isatty(1),
            operands=len(cmd.operands),
        )
        shards = plan.plan(
            cmd,
            workers,
            template,
            lambda path: _survey(ctx, path, opts.split_depth),
            opts.shards_per_worker,
            opts.split_depth,
        )
        planned = time.time()
        merge_request = replace(template, shards=[s.name for s in shards])
        merge = Merge(opts.trawl, merge_request, len(shards))
        merge.start()
        fetchers = [Fetcher(ctx, s, merge.fifos[s.index]) for s in shards]
        for f in fetchers:
            f.start()
        status = _watch(ctx, mon, merge, fetchers, conn.address)
        _write_timings(opts.timings, started, planned, fetchers, shards)
        return status
    except KeyboardInterrupt:
        status = 130
        raise
    except Terminated:
        status = 143
        raise
    finally:
        ctx.stop.set()
        if merge is not None and status in (130, 143):
            merge.kill()
        if not mon.scheduler_lost():
            _bounded(lambda: _stop_tasks(ctx, run_id, opts.spool_dir), 10)
        mon.stop()
        for f in fetchers:
            f.join(timeout=2)
        if merge is not None:
            merge.kill()
            merge.cleanup()


def _wait_for_workers(mon: Monitor, grace: float) -> bool:
    deadline = time.monotonic() + grace
    while not mon.names():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
        mon.refresh()
    return True


def _watch(ctx, mon, merge, fetchers, address) -> int:
    """Waits for the merge and the fetchers; says each shard that was lost or failed."""
    said = set()
    bad = False
    scheduler_lost = False
    while True:
        for f in fetchers:
            if f.outcome.kind in ("lost", "failed") and f.shard.index not in said:
                said.add(f.shard.index)
                say(f.outcome.message)
                bad = True
        if not scheduler_lost and mon.scheduler_lost():
            scheduler_lost = True
            bad = True
            say(
                "lost the scheduler at %s (no answer for %g s): shards not finished are missing"
                % (address, mon.lost_after)
            )
            ctx.stop.set()
        rc = merge.poll()
        if rc is not None:
            ctx.stop.set()
            for f in fetchers:
                f.join(timeout=5)
            for f in fetchers:
                if f.outcome.kind in ("lost", "failed") and f.shard.index not in said:
                    said.add(f.shard.index)
                    say(f.outcome.message)
                    bad = True
            return 2 if bad else merge.status()
        time.sleep(0.01)


def _survey(ctx: Context, path: bytes, depth: int) -> Optional[dict]:
    """The sizes below a shared path, measured by one worker (None when it cannot)."""
    names = ctx.monitor.names()
    if not names:
        return None
    addr = ctx.monitor.address(names[0])
    if addr is None:
        return None
    key = "trawl-survey-%s-%d" % (ctx.settings.run, len(ctx.futures))
    fut = ctx.submit(
        worker_tasks.survey,
        os.fsdecode(path),
        ctx.settings.trawl,
        depth,
        worker_address=addr,
        key=key,
    )
    finished = threading.Event()
    fut.add_done_callback(lambda _: finished.set())
    try:
        # The result once the task is done: see fetch.Fetcher._wait.
        if not finished.wait(max(60.0, ctx.settings.grace)):
            return None
        r = fut.result(timeout=10)
    except Exception:
        return None
    finally:
        fut.release()
    return r["tree"] if r.get("rc") == 0 else None


def _stop_tasks(ctx: Context, run_id: str, spool_root: Optional[str]):
    with ctx.lock:
        futures = list(ctx.futures)
    try:
        ctx.client.cancel(futures)
    except Exception:
        pass
    try:
        ctx.client.run(worker_tasks.stop_run, run_id, spool_root, True, on_error="ignore")
    except Exception:
        pass


def _bounded(fn, seconds: float):
    """Runs fn in a thread, waiting at most `seconds` for it."""
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(seconds)


def _peak_rss_kb() -> int:
    """This process's peak resident set (VmHWM), in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _write_timings(path, started, planned, fetchers, shards):
    if not path:
        return
    out = {
        "client_peak_rss_kb": _peak_rss_kb(),
        "children_peak_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        "started": started,
        "planned": planned,
        "ended": time.time(),
        "shards": [
            {
                "name": s.name,
                "worker": f.worker(),
                "outcome": f.outcome.kind,
                "attempts": f.outcome.attempts,
                "task_start": f.outcome.task_start,
                "first_byte": f.outcome.first_byte,
                "end": f.outcome.end,
                "bytes": f.outcome.bytes,
            }
            for s, f in zip(shards, fetchers)
        ],
    }
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
