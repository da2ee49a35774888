//! Fixed strings (`-F`): one string by a vector search (literal.rs); several by the
//! regex engine (see [`regex_engine_first`], decided by the builder), a
//! case-blind pair filter, a shift table, windows of four bytes, a shift-or
//! filter or Aho-Corasick; the shift table and the shift-or filter only
//! around a part every string holds, when there is one (factor.rs).

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::error::{Error, ErrorKind};
use crate::factor::Factored;
use crate::fold::{FoldByte, FoldFinder};
use crate::fold_set::FoldSet;
use crate::literal::LiteralFinder;
use crate::matcher::{LineStream, Match, Matcher};
use crate::quads::QuadSet;
use crate::shift::ShiftSet;
use crate::shift_or::ShiftOrSet;

/// Any of a set of fixed strings, leftmost-longest as `grep -F`.
///
/// Patterns never contain `\n` (the builder splits on it), so no match can
/// cross a line.
#[derive(Debug)]
pub struct FixedMatcher {
    search: Search,
    min_len: usize,
    /// The longest string's length (a streamed line keeps one less).
    max_len: usize,
}

#[derive(Debug)]
enum Search {
    /// One string (not empty), matched as it is: a vector search
    /// (literal.rs), without the automaton Aho-Corasick would build around
    /// it (a tiny search's start).
    One(Box<LiteralFinder>),
    /// One string with letters under `-i`: Aho-Corasick's ASCII case
    /// folding forgoes its vector search, this finder does not.
    Folded(FoldFinder),
    /// Five to sixteen strings under `-i`.
    FoldSet(FoldSet),
    /// Several strings of four bytes or more.
    Shift(Box<ShiftSet>),
    /// Nine to 64 strings, each holding four ASCII bytes in a row,
    /// case-sensitive, where the CPU has AVX-512 VBMI.
    Quads(Box<QuadSet>),
    /// More strings than a packed search holds, of three bytes or more,
    /// case-sensitive.
    ShiftOr(Box<ShiftOrSet>),
    /// A search run only around the places of a part every string holds.
    Factored(Box<Factored>, Box<Search>),
    /// Anything else (a string of one to three bytes among several, the
    /// empty string).
    Automaton(AhoCorasick),
}

/// Whether several fixed strings are better searched by the regex engine
/// (their alternation, longest first) than by [`FixedMatcher`].
///
/// Measured on a 1.8 GB file of kernel sources, 2 cores: case-sensitive,
/// the engine's packed search (Teddy, then its Aho-Corasick) beat both
/// Aho-Corasick alone and the shift table for 2, 10, 1,000 and 20,000
/// strings. Case-blind, the engine's prefilter holds the spellings of short
/// prefixes only: it wins for a few strings (2: 0.17 s against the shift
/// table's 1.06 s) and loses beyond (10: 1.66 s against 1.49 s; 20,000 do
/// not compile, the shift table takes 0.85 s for 100 MB).
///
/// Beyond the 64 strings its packed search holds, the engine runs its lazy
/// DFA, a load per byte that waits on the one before; [`ShiftOrSet`]'s loads
/// do not wait on each other. One thread, CPU time, 300 MB of kernel
/// sources (`-c`), regex engine against shift-or: 64 strings 569 ms, 65
/// 393 ms; 100 identifiers 712 against 334 ms; 1,000 941 against 410 (none
/// found: each with a suffix no line holds); 5,000 2.87 against 1.96 s;
/// 20,000 3.40 against 2.86 s. Over the Linux tree (`-l`, 1,000): 959
/// against 483 ms of user time.
///
/// Nine to 64 strings go to [`QuadSet`] where the CPU has AVX-512 VBMI
/// (four table lookups per 64 positions against Teddy's nibble tables 32
/// at a time). Same 300 MB, regex engine against windows of four bytes: 9
/// identifiers 67 against 36 ms, 20 143 against 43, 40 263 against 175, 64
/// 497 against 451; over the Linux tree (`-l`, the bench's 10) 304 against
/// 180 ms of user time. At 64 the shift-or filter took 261 ms where the
/// windows took 324 in one run, but at 48 386 against 186: it takes over
/// beyond 64, where the packed search ends.
pub(crate) fn regex_engine_first(patterns: &[Vec<u8>], ignore_case: bool) -> bool {
    const FEW_CASE_BLIND: usize = 4;
    match patterns.len() {
        0 | 1 => false,
        _ if quads_first(patterns, ignore_case) || shift_or_first(patterns, ignore_case) => false,
        n => !ignore_case || n <= FEW_CASE_BLIND,
    }
}

/// Whether several case-sensitive strings go to [`QuadSet`] (see
/// [`QuadSet::takes`]).
fn quads_first(patterns: &[Vec<u8>], ignore_case: bool) -> bool {
    !ignore_case && QuadSet::takes(patterns)
}

/// Whether several case-sensitive strings go to [`ShiftOrSet`]: more than
/// the engine's packed search (Teddy) holds, none shorter than three bytes.
fn shift_or_first(patterns: &[Vec<u8>], ignore_case: bool) -> bool {
    const PACKED_MAX: usize = 64;
    !ignore_case && patterns.len() > PACKED_MAX && patterns.iter().all(|p| p.len() >= 3)
}

impl FixedMatcher {
    /// Builds the search; `ignore_case` folds ASCII letters only (C locale).
    pub(crate) fn new(patterns: &[Vec<u8>], ignore_case: bool) -> Result<FixedMatcher, Error> {
        let min_len = patterns.iter().map(Vec::len).min().unwrap_or(0);
        let max_len = patterns.iter().map(Vec::len).max().unwrap_or(0);
        let search = match patterns {
            [one] if ignore_case && one.iter().any(u8::is_ascii_alphabetic) => {
                FoldFinder::new(one.iter().map(|&b| FoldByte::ignoring_case(b)).collect())
                    .map(Search::Folded)
            }
            [one] if !one.is_empty() && !ignore_case => {
                Some(Search::One(Box::new(LiteralFinder::new(one))))
            }
            [_, _, ..] if quads_first(patterns, ignore_case) => {
                QuadSet::new(patterns).map(|s| Search::Quads(Box::new(s)))
            }
            [_, _, ..] if shift_or_first(patterns, ignore_case) => ShiftOrSet::new(patterns)
                .map(|s| factored(patterns, ignore_case, Search::ShiftOr(Box::new(s)))),
            [_, _, ..] => ignore_case
                .then(|| FoldSet::new(patterns).map(Search::FoldSet))
                .flatten()
                .or_else(|| {
                    ShiftSet::new(patterns, ignore_case)
                        .map(|s| factored(patterns, ignore_case, Search::Shift(Box::new(s))))
                }),
            _ => None,
        };
        let search = match search {
            Some(s) => s,
            None => Search::Automaton(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .ascii_case_insensitive(ignore_case)
                    .build(patterns)
                    .map_err(|e| Error::new(ErrorKind::Unsupported(e.to_string())))?,
            ),
        };
        Ok(FixedMatcher { search, min_len, max_len })
    }

    /// The search's name, for `--debug`.
    pub(crate) fn engine(&self) -> &'static str {
        self.search.name()
    }
}

/// `set`, searched only around a part every pattern holds when they share
/// one (factor.rs).
fn factored(patterns: &[Vec<u8>], ignore_case: bool, set: Search) -> Search {
    match Factored::new(patterns, ignore_case) {
        Some(part) => Search::Factored(Box::new(part), Box::new(set)),
        None => set,
    }
}

impl Search {
    fn name(&self) -> &'static str {
        match self {
            Search::One(f) if f.uses_pair() => "substring search (pair, 64 wide)",
            Search::One(_) => "substring search (memmem)",
            Search::Folded(_) => "case-blind substring search",
            Search::FoldSet(_) => "case-blind pair filter",
            Search::Shift(_) => "shift table (Wu-Manber)",
            Search::Quads(_) => "windows of four bytes (64 wide)",
            Search::ShiftOr(_) => "shift-or filter over hashed pairs",
            Search::Factored(_, set) => match **set {
                Search::ShiftOr(_) => "shared part, then the shift-or filter around it",
                Search::Shift(_) => "shared part, then the shift table around it",
                _ => "shared part, then the set around it",
            },
            Search::Automaton(_) => "aho-corasick",
        }
    }

    /// The leftmost-longest match at or after `at` (start, end).
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Option<(usize, usize)> {
        match self {
            Search::One(f) => f.find(&haystack[at..]).map(|i| (at + i, at + i + f.needle().len())),
            Search::Folded(f) => f.find(&haystack[at..]).map(|i| (at + i, at + i + f.len())),
            Search::FoldSet(f) => f.find_at(haystack, at),
            Search::Shift(s) => s.find_at(haystack, at),
            Search::Quads(s) => s.find_at(haystack, at),
            Search::ShiftOr(s) => s.find_at(haystack, at),
            Search::Factored(part, set) => {
                part.find_at(haystack, at, |h, from| set.find_at(h, from))
            }
            Search::Automaton(ac) => {
                let input = Input::new(haystack).span(at..haystack.len());
                ac.find(input).map(|m| (m.start(), m.end()))
            }
        }
    }
}

impl Matcher for FixedMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        Ok(self.search.find_at(haystack, at).map(|(s, e)| Match::new(s, e)))
    }

    fn min_len(&self) -> usize {
        self.min_len
    }

    fn bounded_len(&self) -> Option<usize> {
        Some(self.max_len)
    }

    /// Fixed strings hold no anchors (`-x` and `-w` go to the regex engine).
    fn unanchored(&self) -> bool {
        true
    }

    /// A line too long to hold is searched piece by piece, each piece with
    /// the last bytes of the one before (one less than the longest string),
    /// where a match across the pieces' edge lies.
    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        Some(Box::new(FixedLine { m: self, carry: Vec::new(), found: false }))
    }
}

/// A line fed to a [`FixedMatcher`] in pieces.
struct FixedLine<'a> {
    m: &'a FixedMatcher,
    /// The last bytes fed, at most `max_len - 1`.
    carry: Vec<u8>,
    found: bool,
}

impl LineStream for FixedLine<'_> {
    fn feed(&mut self, bytes: &[u8]) -> Result<bool, Error> {
        if self.found {
            return Ok(true);
        }
        let keep = self.m.max_len.saturating_sub(1);
        // The edge: the carried bytes and the first ones of this piece.
        let mut edge = std::mem::take(&mut self.carry);
        edge.extend_from_slice(&bytes[..bytes.len().min(keep)]);
        self.found = self.m.find_at(&edge, 0)?.is_some() || self.m.find_at(bytes, 0)?.is_some();
        self.carry = if bytes.len() >= keep {
            bytes[bytes.len() - keep..].to_vec()
        } else {
            edge[edge.len().saturating_sub(keep)..].to_vec()
        };
        Ok(self.found)
    }

    fn finish(&mut self) -> Result<bool, Error> {
        if !self.found && self.m.min_len == 0 {
            // An empty string matches an empty line too.
            self.found = self.m.find_at(&[], 0)?.is_some();
        }
        Ok(self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::FixedMatcher;
    use crate::Matcher;

    /// A line fed in pieces of every size matches exactly when it matches
    /// whole, for each of the fixed searches.
    #[test]
    fn a_streamed_line_matches_as_the_whole_line() {
        let sets: [(&[&[u8]], bool); 5] = [
            (&[b"needle"], false),
            (&[b"needle"], true),
            (&[b"pm_resume", b"ab"], false),
            (&[b"abcab", b"bcabc", b"cabca", b"xyz_1", b"aaaab"], true),
            (&[b"abcd", b"bcda", b"cdab", b"dabc"], false),
        ];
        let hays: [&[u8]; 5] =
            [b"xx neeDLE yy", b"abcabcabcab", b"zzzpm_resumzz", b"dddd cdab", b"aaaaaaaaab"];
        for (pats, icase) in sets {
            let pats: Vec<Vec<u8>> = pats.iter().map(|p| p.to_vec()).collect();
            let m = FixedMatcher::new(&pats, icase).unwrap();
            for hay in hays {
                let whole = m.find_at(hay, 0).unwrap().is_some();
                for size in 1..=hay.len() {
                    let mut s = m.line_stream().unwrap();
                    let mut found = false;
                    for piece in hay.chunks(size) {
                        found = s.feed(piece).unwrap();
                    }
                    found = s.finish().unwrap() || found;
                    assert_eq!(found, whole, "{pats:?} {hay:?} pieces of {size}");
                }
            }
        }
    }
}
