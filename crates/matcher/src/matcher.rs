//! The one small trait every engine implements ([`Matcher`]: the leftmost
//! match at or after an offset, in a buffer of many lines), the [`Match`]
//! it returns, and [`LineStream`], a line fed in pieces.

use crate::error::Error;

/// The byte range of one match in a haystack.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Match {
    /// Offset of the first byte of the match.
    pub start: usize,
    /// Offset one past the last byte of the match.
    pub end: usize,
}

impl Match {
    /// Creates a match covering `start..end`.
    pub fn new(start: usize, end: usize) -> Match {
        Match { start, end }
    }

    /// Whether the match is empty.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A compiled pattern that finds matches in a buffer of `\n`-terminated lines.
///
/// Implementations guarantee grep's line semantics: a returned match lies
/// within one line, and the result is the same as if each line had been
/// searched on its own (with `at` as the start offset into the line).
pub trait Matcher: Send + Sync {
    /// Returns the leftmost match that starts at or after `at`.
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error>;

    /// The length of the shortest possible match: a file shorter than this
    /// cannot match and need not be read.
    fn min_len(&self) -> usize {
        0
    }

    /// Whether the pattern is free of line anchors (`^`, `$`, `-x`), so
    /// that where a line has no match, no piece of it has one: a searcher
    /// may then look for a match in a file before cutting its lines at NUL
    /// bytes (grep's binary-file rule), and skip the NUL check when there is
    /// none. False when unsure.
    fn unanchored(&self) -> bool {
        false
    }

    /// A matcher that decides whether one line matches from pieces fed in
    /// order, so a line too long to hold need not be held; None when the
    /// engine cannot do that.
    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        None
    }

    /// The capture groups of `m`, a match [`Matcher::find_at`] found in
    /// `line` (searched on its own): `groups[i]` is group `i` (0: the whole
    /// match), None for a group that took no part. An engine without groups
    /// (fixed strings) gives the match alone.
    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        let _ = line;
        groups.clear();
        groups.push(Some(m));
        Ok(())
    }

    /// The number of the group named `name`, if the pattern has one.
    fn group_number(&self, name: &str) -> Option<usize> {
        let _ = name;
        None
    }

    /// The longest a match can be, when nothing but its own bytes decides
    /// it (no anchor, word boundary or look-around): then a match found in
    /// a piece of a line, at a start followed by that many bytes of the
    /// piece, is the line's, so a line too long to hold can be searched
    /// for `-o` piece by piece. None when unknown.
    fn bounded_len(&self) -> Option<usize> {
        None
    }
}

/// Decides whether one line matches, fed in pieces.
pub trait LineStream {
    /// Feeds the next bytes of the line (without its terminator). Returns
    /// `Ok(true)` once a match is certain (the rest need not be fed), `Err`
    /// if the engine gave up.
    fn feed(&mut self, bytes: &[u8]) -> Result<bool, Error>;

    /// Ends the line; returns whether it matched.
    fn finish(&mut self) -> Result<bool, Error>;
}
