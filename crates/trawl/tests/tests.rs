//! trawl's integration tests: one test binary.
//!
//! - `util`: temporary trees, running trawl and GNU grep (the oracle) with a
//!   time limit, and the differential comparison.
//! - `macros`: `engines!` / `parity!` run each test under both regex engines.
//! - `fixtures`: the generated trees.
//! - `patterns`: pattern semantics; `options`: grep's options; `files`:
//!   binary and big files, names, deep paths, symlinks, FIFOs;
//!   `trawl_only`: options grep lacks (--json, --stats, --sort, ...).

#[macro_use]
mod macros;

mod fixtures;
mod json;
mod util;

mod files;
mod options;
mod patterns;
mod trawl_only;
