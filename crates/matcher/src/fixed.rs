//! Fixed strings through Aho-Corasick (`-F`).

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::fold::{FoldByte, FoldFinder};
use crate::{Error, ErrorKind, Match, Matcher};

/// Any of a set of fixed strings, leftmost-longest as `grep -F`.
///
/// Patterns never contain `\n` (the builder splits on it), so no match can
/// cross a line.
#[derive(Debug)]
pub struct FixedMatcher {
    ac: AhoCorasick,
    /// One string with letters under `-i`: Aho-Corasick's ASCII case
    /// folding forgoes its vector search, this finder does not.
    folded: Option<FoldFinder>,
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
        let folded = match patterns {
            [one] if ignore_case && one.iter().any(u8::is_ascii_alphabetic) => {
                FoldFinder::new(one.iter().map(|&b| FoldByte::ignoring_case(b)).collect())
            }
            _ => None,
        };
        Ok(FixedMatcher { ac, folded, min_len })
    }
}

impl Matcher for FixedMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        if let Some(f) = &self.folded {
            let found = f.find(&haystack[at..]).map(|i| Match::new(at + i, at + i + f.len()));
            return Ok(found);
        }
        let input = Input::new(haystack).span(at..haystack.len());
        Ok(self.ac.find(input).map(|m| Match::new(m.start(), m.end())))
    }

    fn min_len(&self) -> usize {
        self.min_len
    }

    /// Fixed strings hold no anchors (`-x` and `-w` go to the regex engine).
    fn unanchored(&self) -> bool {
        true
    }
}
