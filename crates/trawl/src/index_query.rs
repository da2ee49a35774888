//! The index's question for a search: the patterns' syntax trees, as the
//! matcher reads them, handed to trawl-index (trawl_index::question,
//! whose tests hold it to the matcher's answers).

use trawl_index::{Query, Selects};
use trawl_matcher::MatcherBuilder;

/// The query whose candidates hold every file a search with `builder` and
/// `patterns` selects a line in.
pub fn query(builder: &MatcherBuilder, patterns: &[Vec<u8>], invert: bool) -> Query {
    let selects = if invert { Selects::NotMatching } else { Selects::Matching };
    trawl_index::question(builder.syntax_trees(patterns).as_deref(), selects)
}
