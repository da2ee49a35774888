"""Reaching the cluster, and watching which workers it has.

`connect` gives a Client of a running scheduler (within a bounded time, or a clear error), or of
a local cluster: N single-thread workers named local1…localN in this process, talking in-process
(nothing listens on any port). `Monitor` asks the scheduler for its workers several times a
second, so that a shard pinned to a worker that left is noticed (Dask itself would wait for a
worker of that name for ever), and so is a scheduler that no longer answers.
"""

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, Optional

import dask
from distributed import Client, Scheduler, SpecCluster, Worker
from distributed.security import Security

POLL = 0.25  # seconds between two looks at the scheduler's workers


class Unreachable(Exception):
    """The scheduler could not be reached (in the time allowed)."""


@dataclass
class Connection:
    client: Client
    cluster: Optional[SpecCluster]
    address: str  # as the user gave it (for messages)

    def close(self):
        try:
            self.client.close(timeout=5)
        except Exception:
            pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass


@dataclass
class TLS:
    ca: Optional[str] = None
    cert: Optional[str] = None
    key: Optional[str] = None

    def security(self) -> Optional[Security]:
        if not (self.ca or self.cert or self.key):
            return None
        return Security(
            tls_ca_file=self.ca,
            tls_client_cert=self.cert,
            tls_client_key=self.key,
            require_encryption=True,
        )


def connect(
    scheduler: Optional[str],
    scheduler_file: Optional[str],
    local: int,
    timeout: float,
    tls: TLS,
) -> Connection:
    dask.config.set(
        {
            "distributed.comm.timeouts.connect": "%ss" % timeout,
            "distributed.scheduler.work-stealing": False,
        }
    )
    # Dask's own log lines (a task cancelled at the end, a worker that left) are not the
    # user's output: trawl-dask says what matters itself.
    # Dask configures some of its loggers by name (distributed.client…), and asyncio reports
    # Dask's abandoned tasks: each is quieted.
    names = [n for n in logging.root.manager.loggerDict if n.startswith("distributed")]
    for name in names + ["distributed", "tornado", "asyncio"]:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if local:
        return _local(local)
    kwargs = {"timeout": timeout}
    sec = tls.security()
    if sec is not None:
        kwargs["security"] = sec
    target = scheduler_file if scheduler_file else scheduler
    try:
        if scheduler_file:
            client = Client(scheduler_file=scheduler_file, **kwargs)
        else:
            client = Client(scheduler, **kwargs)
    except Exception as e:  # noqa: BLE001 (Dask raises many kinds; each is said the same way)
        why = _reason(e)
        if isinstance(e, TypeError) and "TLS" in str(e):
            why = (
                "a tls:// scheduler needs --tls-ca, --tls-cert and --tls-key "
                "(or Dask's TLS configuration)"
            )
        raise Unreachable("cannot reach the scheduler at %s: %s" % (target, why)) from None
    return Connection(client, None, target)


def _reason(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _local(n: int) -> Connection:
    opts = {"protocol": "inproc://", "dashboard": False, "dashboard_address": None}
    cluster = SpecCluster(
        scheduler={"cls": Scheduler, "options": dict(opts, port=0)},
        workers={
            "local%d" % (i + 1): {
                "cls": Worker,
                "options": {
                    "nthreads": 1,
                    "protocol": "inproc://",
                    "dashboard": False,
                    "silence_logs": logging.WARNING,
                },
            }
            for i in range(n)
        },
        silence_logs=logging.WARNING,
    )
    client = Client(cluster)
    return Connection(client, cluster, "local cluster")


@dataclass
class View:
    """What the scheduler said of its workers at one moment."""

    by_name: Dict[str, str] = field(default_factory=dict)  # worker name → address
    seen: Dict[str, float] = field(default_factory=dict)  # names ever seen → when last seen


class Monitor:
    """Keeps a fresh view of the scheduler's workers (a thread polling `scheduler_info`)."""

    def __init__(self, client: Client, lost_after: float):
        self.client = client
        self.lost_after = lost_after
        self._lock = threading.Lock()
        self._view = View()
        self._last_ok = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="trawl-dask-monitor", daemon=True)
        self.refresh()
        self._thread.start()

    def refresh(self) -> bool:
        try:
            info = self.client.scheduler_info(n_workers=-1)
            workers = info.get("workers", {})
        except Exception:
            return False
        now = time.monotonic()
        by_name = {str(w.get("name", addr)): addr for addr, w in workers.items()}
        with self._lock:
            self._view.by_name = by_name
            for name in by_name:
                self._view.seen[name] = now
            self._last_ok = now
        return True

    def _loop(self):
        while not self._stop.wait(POLL):
            self.refresh()

    def stop(self):
        self._stop.set()

    def address(self, name: str) -> Optional[str]:
        with self._lock:
            return self._view.by_name.get(name)

    def names(self):
        with self._lock:
            return sorted(self._view.by_name)

    def has_address(self, address: str) -> bool:
        with self._lock:
            return address in self._view.by_name.values()

    def ever_seen(self, name: str) -> bool:
        with self._lock:
            return name in self._view.seen

    def scheduler_lost(self) -> bool:
        """True once the scheduler has not answered for `lost_after` seconds."""
        with self._lock:
            return time.monotonic() - self._last_ok > self.lost_after
