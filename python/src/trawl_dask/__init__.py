"""trawl-dask: trawl (grep, find, index) over a tree spread across many hosts, on Dask distributed.

The driver runs `trawl shard` next to the data on each worker and `trawl merge` on the client
(docs/DISTRIBUTED.md in the trawl repository is the contract). Modules, in the order a run uses
them: options (the driver's own options), operands (trawl's command line split into arguments
and WORKER:PATH operands), request (the JSON requests), cluster (reaching the scheduler, watching
its workers), split and plan (shards, and a shared path split by size), worker_tasks (what runs
on the workers: trawl shard into a spool, reads of the spool), fetch (a shard's attempts and its
stream into the merge's FIFO), merge (the trawl merge process), run (one run, start to end), cli.
"""

__version__ = "0.1.0"
