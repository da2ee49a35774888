"""The `trawl merge` process on the client, and the FIFOs its shard streams come through.

One FIFO per shard in a private temporary directory; `trawl merge --request FILE FIFO...` reads
them, prints what one trawl would print on the client's own standard output and error, and
exits with grep's status. It is killed when trawl-dask ends early (Ctrl-C) and dies with it
(PR_SET_PDEATHSIG) if trawl-dask itself is killed.
"""

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
from typing import List, Optional

from .request import Request


def _die_with_parent():
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def child():
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    return child


class Merge:
    def __init__(self, trawl: str, request: Request, streams: int):
        self.dir = tempfile.mkdtemp(prefix="trawl-dask-")
        self.fifos: List[str] = []
        for i in range(streams):
            path = os.path.join(self.dir, "s%d" % i)
            os.mkfifo(path, 0o600)
            self.fifos.append(path)
        self.request_file = os.path.join(self.dir, "merge.json")
        with open(self.request_file, "w") as f:
            f.write(request.as_json())
        self.proc: Optional[subprocess.Popen] = None
        self.trawl = trawl

    def start(self):
        self.proc = subprocess.Popen(
            [self.trawl, "merge", "--request", self.request_file] + self.fifos,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent(),
        )

    def poll(self) -> Optional[int]:
        return None if self.proc is None else self.proc.poll()

    def kill(self, patience: float = 1.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=patience)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def status(self) -> int:
        """grep's exit status from the merge's (a merge killed by a signal: 2)."""
        rc = self.proc.returncode if self.proc is not None else None
        if rc is None or rc < 0:
            return 2
        return rc

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
