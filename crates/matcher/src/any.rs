//! [`AnyMatcher`]: the engine chosen at run time, one type for the
//! searcher to be generic over, dispatching each call to its engine.

use crate::error::Error;
use crate::fixed::FixedMatcher;
use crate::matcher::{LineStream, Match, Matcher};
use crate::pcre::PcreMatcher;
use crate::rust::RustMatcher;

/// The matcher chosen at run time; dispatches to one engine.
#[derive(Debug)]
pub enum AnyMatcher {
    /// The Rust regex engine.
    Rust(Box<RustMatcher>),
    /// PCRE2.
    Pcre(PcreMatcher),
    /// Aho-Corasick over fixed strings.
    Fixed(FixedMatcher),
}

impl AnyMatcher {
    /// A short name of the engine, for `--stats` and debugging.
    pub fn engine_name(&self) -> &'static str {
        match self {
            AnyMatcher::Rust(_) => "rust-regex",
            AnyMatcher::Pcre(_) => "pcre2",
            AnyMatcher::Fixed(m) => m.engine(),
        }
    }
}

impl Matcher for AnyMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        match self {
            AnyMatcher::Rust(m) => m.find_at(haystack, at),
            AnyMatcher::Pcre(m) => m.find_at(haystack, at),
            AnyMatcher::Fixed(m) => m.find_at(haystack, at),
        }
    }

    fn unanchored(&self) -> bool {
        match self {
            AnyMatcher::Rust(m) => m.unanchored(),
            AnyMatcher::Pcre(m) => m.unanchored(),
            AnyMatcher::Fixed(m) => m.unanchored(),
        }
    }

    fn min_len(&self) -> usize {
        match self {
            AnyMatcher::Rust(m) => m.min_len(),
            AnyMatcher::Pcre(m) => m.min_len(),
            AnyMatcher::Fixed(m) => m.min_len(),
        }
    }

    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        match self {
            AnyMatcher::Rust(m) => m.line_stream(),
            AnyMatcher::Pcre(m) => m.line_stream(),
            AnyMatcher::Fixed(m) => m.line_stream(),
        }
    }

    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        match self {
            AnyMatcher::Rust(r) => r.captures(line, m, groups),
            AnyMatcher::Pcre(r) => r.captures(line, m, groups),
            AnyMatcher::Fixed(r) => r.captures(line, m, groups),
        }
    }

    fn group_number(&self, name: &str) -> Option<usize> {
        match self {
            AnyMatcher::Rust(r) => r.group_number(name),
            AnyMatcher::Pcre(r) => r.group_number(name),
            AnyMatcher::Fixed(r) => r.group_number(name),
        }
    }

    fn bounded_len(&self) -> Option<usize> {
        match self {
            AnyMatcher::Rust(r) => r.bounded_len(),
            AnyMatcher::Pcre(r) => r.bounded_len(),
            AnyMatcher::Fixed(r) => r.bounded_len(),
        }
    }
}
