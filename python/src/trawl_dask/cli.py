"""`trawl-dask`'s entry point: the driver's options (options.py), then one run (run.py)."""

import os
import sys
from typing import List, Optional

from . import run
from .operands import UsageError
from .options import USAGE, parse


def main(argv: Optional[List[str]] = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts, rest, show = parse(argv)
    except UsageError as e:
        sys.stderr.write("trawl-dask: %s\nTry 'trawl-dask --help'.\n" % e)
        sys.stderr.flush()
        os._exit(2)
    if show == "help":
        sys.stdout.write(USAGE)
        sys.stdout.flush()
        os._exit(0)
    if show == "version":
        from . import __version__

        sys.stdout.write("trawl-dask %s\n" % __version__)
        sys.stdout.flush()
        os._exit(0)
    try:
        rc = run.run(opts, rest)
    except KeyboardInterrupt:  # a second Ctrl-C during the clean-up: end at once
        rc = 130
    sys.stdout.flush()
    sys.stderr.flush()
    # Dask's own exit handlers may wait on a scheduler that is gone: everything of this run has
    # been stopped and closed (within bounded times) by now.
    os._exit(rc)
