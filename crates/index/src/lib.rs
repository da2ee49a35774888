//! trawl's index of a tree: what a search can reuse from the searches
//! before it (the walk's directory list, each file's kind, the trigrams of
//! its text), so that a repeated search reads only the files that can
//! match, and never answers from stale data.
//!
//! Built so far: the query planner ([`plan`]: from a pattern's syntax tree
//! to the trigrams a matching line must hold), the trigrams of a text
//! ([`grams`]) and the filter of a text that looks random ([`filter`]),
//! the index file ([`segment`]), where indexes live and how a
//! new one replaces the old ([`store`]), the parallel build ([`build`]) and
//! the check that the index is still true ([`fresh`]), and what a search
//! served by the index visits ([`visit`]), and the watcher that can
//! answer the check instead ([`watch`]).
#![deny(missing_docs)]

pub mod build;
pub mod filter;
pub mod fresh;
pub mod grams;
pub mod plan;
pub mod query;
pub mod segment;
pub mod spill;
pub mod store;
pub mod texts;
pub mod update;
pub mod visit;
pub mod watch;

pub use plan::{plan, Query};
