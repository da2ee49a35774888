//! One literal of two bytes or more, matched exactly: found by the packed
//! pair of fold.rs, 64 starts at a time, where the CPU has AVX-512 BW, and
//! by memmem (memchr's 32 at a time) elsewhere.
//!
//! Measured on the Linux tree from the cache, one thread (`-n PM_RESUME`,
//! 1.3 GB, each file read into a buffer then searched): user time 132 ms
//! with memmem, 112 with this finder. memmem tests `U` and `R`, rare by its
//! table, which the tree's capitals make common; fold.rs's table picks `P`
//! and `M`.
//!
//! The pair filter alone has no linear bound: a needle of common bytes in a
//! haystack made of them (`aaaa` in a run of `a`) is checked at every start.
//! When checks fail more often than once per 16 bytes, the rest of the
//! haystack goes to memmem, whose search is linear; needles longer than
//! [`PAIR_MAX_LEN`] go there from the start, so each failed check compares
//! a bounded number of bytes.

use memchr::memmem;

use crate::fold::{FoldByte, FoldFinder, PairScan};

/// The longest needle the pair filter takes.
const PAIR_MAX_LEN: usize = 64;

/// One exact literal, not empty.
#[derive(Debug)]
pub(crate) struct LiteralFinder {
    memmem: memmem::Finder<'static>,
    /// Present where the CPU runs the wide pair filter.
    pair: Option<FoldFinder>,
}

impl LiteralFinder {
    /// A finder for `needle` (not empty).
    pub(crate) fn new(needle: &[u8]) -> LiteralFinder {
        let pair = (needle.len() <= PAIR_MAX_LEN)
            .then(|| FoldFinder::new(needle.iter().map(|&b| FoldByte::exact(b)).collect()))
            .flatten()
            .filter(FoldFinder::is_wide);
        LiteralFinder { memmem: memmem::Finder::new(needle).into_owned(), pair }
    }

    /// The literal.
    pub(crate) fn needle(&self) -> &[u8] {
        self.memmem.needle()
    }

    /// The offset of the first occurrence of the literal in `hay`.
    #[inline]
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        let Some(pair) = &self.pair else { return self.memmem.find(hay) };
        match pair.find_or_flood(hay) {
            PairScan::Found(at) => Some(at),
            PairScan::Absent => None,
            PairScan::Flooded(from) => self.memmem.find(&hay[from..]).map(|i| from + i),
        }
    }

    /// Which search runs, for `--debug`-like reports and tests.
    pub(crate) fn uses_pair(&self) -> bool {
        self.pair.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn finds_a_literal_at_every_offset_and_near_the_end() {
        let needle = b"PM_RESUME";
        let f = LiteralFinder::new(needle);
        for len in needle.len()..300 {
            for at in 0..=len - needle.len() {
                let mut hay = vec![b'x'; len];
                hay[at..at + needle.len()].copy_from_slice(needle);
                assert_eq!(f.find(&hay), Some(at), "len {len} at {at}");
                assert_eq!(f.find(&hay[..len - 1]), (at + needle.len() < len).then_some(at));
            }
        }
    }

    #[test]
    fn a_flood_of_false_candidates_hands_over_and_still_finds() {
        // Runs of eight `a`s: seven starts in nine pass any pair test of
        // nine `a`s, and all fail the needle.
        let needle = b"aaaaaaaaa";
        let f = LiteralFinder::new(needle);
        let mut hay = b"aaaaaaaa\n".repeat(1 << 12);
        assert_eq!(f.find(&hay), None);
        let at = hay.len() - 90;
        hay[at + 8] = b'a';
        assert_eq!(f.find(&hay), Some(at));
        if let Some(pair) = &f.pair {
            assert!(matches!(pair.find_or_flood(&hay), PairScan::Flooded(_)));
        }
    }

    #[test]
    fn a_long_needle_goes_to_memmem() {
        let needle = vec![b'q'; PAIR_MAX_LEN + 1];
        assert!(!LiteralFinder::new(&needle).uses_pair());
    }

    proptest! {
        #[test]
        fn agrees_with_memmem(
            needle in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'_')], 2..6),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'_'), Just(b'\n')], 0..400),
        ) {
            let f = LiteralFinder::new(&needle);
            prop_assert_eq!(f.find(&hay), memmem::find(&hay, &needle));
        }
    }
}
