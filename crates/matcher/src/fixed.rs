//! Fixed strings through Aho-Corasick (`-F`).

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::{Error, ErrorKind, Match, Matcher};

/// Any of a set of fixed strings, leftmost-longest as `grep -F`.
///
/// Patterns never contain `\n` (the builder splits on it), so no match can
/// cross a line.
#[derive(Debug)]
pub struct FixedMatcher {
    ac: AhoCorasick,
    min_len: usize,
}

impl FixedMatcher {
    /// Builds the automaton; `ignore_case` folds ASCII letters only (C locale).
    pub(crate) fn new(patterns: &[Vec<u8>], ignore_case: bool) -> Result<FixedMatcher, Error> {
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .ascii_case_insensitive(ignore_case)
            .build(patterns)
            .map_err(|e| Error::new(ErrorKind::Unsupported(e.to_string())))?;
        let min_len = patterns.iter().map(Vec::len).min().unwrap_or(0);
        Ok(FixedMatcher { ac, min_len })
    }
}

impl Matcher for FixedMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        let input = Input::new(haystack).span(at..haystack.len());
        Ok(self.ac.find(input).map(|m| Match::new(m.start(), m.end())))
    }

    fn min_len(&self) -> usize {
        self.min_len
    }
}
