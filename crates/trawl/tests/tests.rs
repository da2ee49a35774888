//! trawl's integration tests: one test binary.
//!
//! - `util`: temporary trees, running trawl and GNU grep (the oracle) with a
//!   time limit, and the differential comparison.
//! - `macros`: `engines!` / `parity!` run each test under both regex engines.
//! - `fixtures`: the generated trees.
//! - `patterns`: pattern semantics; `options`: grep's options; `files`:
//!   binary and big files, names, deep paths, symlinks, FIFOs;
//!   `trawl_only`: options grep lacks (--json, --stats, --sort, ...).
//! - `sorted`: `--sort path` and `find --sort` (parallel, written in walk
//!   order) against GNU grep given the files in walk order.
//! - `find`: `trawl find` against GNU find, on the trees of `find_fixtures`;
//!   `find_gnu`: the rest of GNU find (issue 14): -newerXY, -ok, -fstype,
//!   -files0-from & co., and behaviours that differed.
//! - `documents`: `--docs` on PDFs against pdftotext piped into GNU grep,
//!   and the extractor processes' faults; `extractors`: PostScript, DVI,
//!   legacy Word/Excel through their tools, and configured extractors.
//! - `ocr`: `--ocr` on scans made by the tests (Ghostscript, PIL): the
//!   words found and their pages, the cache, the limits, Ctrl-C, the index.
//! - `extract`: `--search-zip` against gzip, bzip2, xz, zstd, lz4, tar and
//!   unzip piped into GNU grep.
//! - `index`: `trawl index` builds, lists and drops an index.
//! - `shard`: `trawl shard` and `trawl merge` (issue 44) against one
//!   `trawl --sort path` (or `find --sort`) over the same roots;
//!   `shard_streams`: a file printing megabytes in bounded records, and a
//!   shard served by the worker's index.
//! - `simd`: every vector path of the matcher (TRAWL_SIMD caps it) against
//!   GNU grep for fixed strings and sets.
//! - `invocations`: trawl started as other users, scripts and programs
//!   start it (another user's home, no terminal, no readable configuration).
//! - `faults`: special files, loops, permissions, races, huge inputs,
//!   signals, broken pipes, names on a terminal.

#[macro_use]
mod macros;

mod find_fixtures;
mod fixtures;
mod json;
mod util;

mod conventions;
mod documents;
mod extract;
mod extractors;
mod faults;
mod files;
#[macro_use]
mod find;
mod find_gnu;
mod index;
mod invocations;
mod ocr;
mod options;
mod parts;
mod patterns;
mod properties;
mod shard;
mod shard_streams;
mod simd;
mod sorted;
mod trawl_only;
