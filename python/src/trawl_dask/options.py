"""trawl-dask's own options (they come first, before trawl's), as plain data, and their parse.

trawl-dask (--scheduler ADDR | --scheduler-file FILE | --local N) [DRIVER OPTIONS]
           [TRAWL OPTIONS] PATTERN WORKER:PATH...
trawl-dask ... find [-H|-L|-P] [-j N] [--sort] WORKER:PATH... [EXPRESSION]
trawl-dask ... index [--full|--status|--drop|--search-zip|--docs] WORKER:PATH...
"""

from dataclasses import dataclass, field
from typing import List, Optional

from .cluster import TLS
from .operands import UsageError

USAGE = """\
Usage: trawl-dask (--scheduler ADDR | --scheduler-file FILE | --local N) [DRIVER OPTIONS]
                  [TRAWL OPTIONS] PATTERN WORKER:PATH...
       trawl-dask ... find [-H|-L|-P] [-j N] [--sort] WORKER:PATH... [EXPRESSION]
       trawl-dask ... index [--full|--status|--drop|--search-zip|--docs] WORKER:PATH...

Runs trawl next to the data on the workers of a Dask cluster, one task per operand, and prints
what one trawl over all of them would print (paths prefixed by WORKER:), with grep's exit status.
WORKER:PATH is a path on the host of the worker started with 'dask worker ... --name WORKER';
shared:PATH is a path every worker mounts: a search splits it into parts of similar size across
the workers. With --local, a plain PATH means shared:PATH.

Driver options (before trawl's own):
  --scheduler ADDR        the Dask scheduler (tcp://HOST:8786, tls://HOST:8786)
  --scheduler-file FILE   the scheduler's file (dask scheduler --scheduler-file FILE)
  --local N               start N single-thread workers in this process (local1..localN)
  --trawl PATH            the trawl binary, on the workers and here (default: trawl on PATH)
  --grace SECS            how long a missing worker may take to come back (default 10)
  --retries N             attempts of a shard after its first (default 2)
  --connect-timeout SECS  give up reaching the scheduler after SECS (default 10)
  --spool-dir DIR         where workers keep shard outputs (default: their temporary directory)
  --shards-per-worker N   parts of a shared path per worker (default 1)
  --split-depth N         how deep a shared path may be split (default 3)
  --chunk-size BYTES      bytes fetched from a worker at a time (default 4194304)
  --tls-ca FILE, --tls-cert FILE, --tls-key FILE
                          reach the scheduler over TLS (Dask's Security)
  --timings FILE          write per-shard timings (JSON) to FILE
  --help, --version
"""


@dataclass
class DriverOptions:
    scheduler: Optional[str] = None
    scheduler_file: Optional[str] = None
    local: int = 0
    trawl: str = "trawl"
    grace: float = 10.0
    retries: int = 2
    connect_timeout: float = 10.0
    spool_dir: Optional[str] = None
    shards_per_worker: int = 1
    split_depth: int = 3
    chunk_size: int = 4 << 20
    tls: TLS = field(default_factory=TLS)
    timings: Optional[str] = None


_VALUED = {
    "--scheduler": ("scheduler", str),
    "--scheduler-file": ("scheduler_file", str),
    "--local": ("local", int),
    "--trawl": ("trawl", str),
    "--grace": ("grace", float),
    "--retries": ("retries", int),
    "--connect-timeout": ("connect_timeout", float),
    "--spool-dir": ("spool_dir", str),
    "--shards-per-worker": ("shards_per_worker", int),
    "--split-depth": ("split_depth", int),
    "--chunk-size": ("chunk_size", int),
    "--timings": ("timings", str),
}
_TLS = {"--tls-ca": "ca", "--tls-cert": "cert", "--tls-key": "key"}


def parse(argv: List[str]):
    """The driver's options from the front of argv; returns (options, trawl's argv, what to
    print instead of running: "help", "version" or None)."""
    o = DriverOptions()
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--help", "--version"):
            return o, argv[i + 1 :], a[2:]
        name, eq, value = a.partition("=")
        if name not in _VALUED and name not in _TLS:
            break
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError("%s needs a value" % name)
            value = argv[i + 1]
            i += 1
        i += 1
        if name in _TLS:
            setattr(o.tls, _TLS[name], value)
            continue
        attr, kind = _VALUED[name]
        try:
            setattr(o, attr, kind(value))
        except ValueError:
            raise UsageError("%s: '%s' is not a number" % (name, value)) from None
    given = [x for x in (o.scheduler, o.scheduler_file, o.local or None) if x]
    if len(given) != 1:
        raise UsageError("say where to run: --scheduler ADDR, --scheduler-file FILE or --local N")
    if o.local < 0 or o.retries < 0 or o.grace < 0 or o.shards_per_worker < 1:
        raise UsageError("--local, --retries and --grace cannot be negative")
    if o.chunk_size < 4096:
        raise UsageError("--chunk-size: at least 4096 bytes")
    return o, argv[i:], None
