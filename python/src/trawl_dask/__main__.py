"""`python -m trawl_dask`: the same as the `trawl-dask` command."""

from .cli import main

main()
