//! trawl's index of a tree: what a search can reuse from the searches
//! before it (the walk's directory list, each file's kind, the trigrams of
//! its text), so that a repeated search reads only the files that can
//! match, and never answers from stale data.
//!
//! This first part is the query planner ([`plan`]): from a pattern's
//! syntax tree to the trigrams a matching line must hold.
#![deny(missing_docs)]

pub mod grams;
pub mod plan;
pub mod segment;

pub use plan::{plan, Query};
