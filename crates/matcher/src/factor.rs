//! Many fixed strings that all hold one substring (a shared prefix, suffix
//! or inner part, e.g. 1,000 identifiers ending in `_init`): the substring
//! alone is searched with the one-literal vector search (literal.rs), and
//! the set's own search runs only around each place it occurs.
//!
//! The shift-or filter (shift_or.rs) looks at every byte, ~1.4 ns a byte
//! for 1,000 strings, the shift table under `-i` ~3; the shared part's
//! vector search a tenth of that or less. Measured: see [`Factored`].
//!
//! Every match holds the shared part, so the first place it occurs at or
//! after the search's start bounds where the leftmost match can be: a match
//! holding it there starts at most `longest - part` bytes before it and
//! ends at most `longest` bytes after. The set is searched in that window;
//! where it finds nothing, no match holds that place and the search goes on
//! to the next one. Where every string holds the part at the same offset
//! from its start (a shared prefix), a place has one candidate start, and
//! an automaton anchored there confirms it instead ([`AtStart`]). A part
//! that occurs too often for this to pay (more than once per
//! [`BYTES_PER_MISS`] or [`BYTES_PER_CHECK`] bytes, past [`FREE_MISSES`]
//! places) hands the rest of the haystack to the set's own search.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};
use memchr::memmem;

use crate::budget::MissBudget;
use crate::fold::{FoldByte, FoldFinder};
use crate::follow::Follow;
use crate::literal::LiteralFinder;

/// The shortest shared part searched for on its own.
const MIN_PART: usize = 3;

/// The longest part looked for: a longer one would not be rarer in text
/// to any purpose, and the candidates grow with its square.
const MAX_PART: usize = 32;

/// Strings of at most this many bytes in all get a DFA for their anchored
/// automaton (a table lookup a byte; up to a few MB, its size growing with
/// the bytes), more the crate's default (an NFA). The 600 `struct` names
/// (12 KB): the automaton's samples 545 -> 370, one thread, 300 MB.
const DFA_MAX_BYTES: usize = 16 * 1024;

/// Sets whose shortest string is longer than this are not looked at: the
/// candidates grow with its length (each of its substrings of
/// [`MIN_PART`]-[`MAX_PART`] bytes).
const MAX_SHORTEST: usize = 1024;

/// Places of the part without a match allowed before the rate applies.
const FREE_MISSES: usize = 16;

/// Past the free ones, one place without a match allowed per this many
/// bytes searched: a window costs the set's search over up to twice the
/// longest string, ~350 ns for the shift-or filter (649 `struct` names,
/// 807k places in 300 MB), what that filter spends on ~250 bytes of text.
const BYTES_PER_MISS: usize = 256;

/// The same for a place confirmed at its one candidate start ([`AtStart`]):
/// an anchored automaton's walk, ~40 ns, what the shift-or filter spends
/// on ~30 bytes.
const BYTES_PER_CHECK: usize = 32;

/// The shared part of a set of fixed strings and where matches can lie
/// around it.
///
/// Measured (one thread, `-c -F -f`, the first 300 MB of the kernel
/// sources file, CPU time of the shift-or filter or the shift table alone
/// -> around the shared part, and rg's; then the same with `-i`):
///
/// | strings | shared part | ms | `-i` ms |
/// |---|---|---|---|
/// | 1,000 identifiers + `_QZX` (no match) | suffix | 433 -> 53, rg 67 | 967 -> 50, rg 2,602 |
/// | `QZX_` + 1,000 identifiers | prefix | 441 -> 46, rg 67 | 1,060 -> 52, rg 85 |
/// | 1,000 identifiers with `QZXW` inside | inner | 445 -> 54, rg 951 | 737 -> 50, rg 2,260 |
/// | 426 `CONFIG_` symbols (7,338 lines) | prefix | 371 -> 54, rg 63 | 676 -> 61, rg 101 |
/// | 184 `..._ops` names (10,246 lines) | suffix | 396 -> 73, rg 773 | 1,341 -> 72, rg 743 |
/// | 649 `struct` names (126,574 lines) | prefix | 411 -> 133, rg 88 | 612 -> 160, rg 162 |
///
/// The last: `struct ` is met every 371 bytes; searching the set in a
/// window around each place took 345 ms, an automaton anchored at each
/// place's one candidate start ([`AtStart`]) 133. On 2 cores (the file in
/// two parts against rg's one thread) 72 ms of wall time against rg's 91,
/// `-i` 83 against 165.
#[derive(Debug)]
pub(crate) struct Factored {
    part: Part,
    /// The longest string's length.
    longest: usize,
    at_start: Option<AtStart>,
}

/// Every string holds the part first `offset` bytes after its start (a
/// shared prefix: 0): a place has one candidate start, confirmed by an
/// automaton of the strings anchored there instead of a window's search.
///
/// The automaton is built at the first place met, not with the matcher:
/// 20,000 strings take ~55 ms to build (most of it the failure transitions
/// aho-corasick computes even for anchored searches), which a search of a
/// few small files without the part need not pay.
///
/// Before the automaton, the two bytes after the part are looked up in a
/// table of those that follow it in some string ([`Follow`]): the 600
/// bench `struct` names over the first 300 MB of big.txt, one thread:
/// 807,523 places, of which the automaton is asked for 390,132 (counted
/// apart); its samples 941 -> 489 of the run's 3,585 -> 2,700 (perf), CPU
/// 123 -> 108 ms (9 rounds interleaved; `-i` 121 -> 113).
#[derive(Debug)]
struct AtStart {
    offset: usize,
    /// The bytes that follow the part in the strings.
    follow: Option<Follow>,
    /// The strings as given (not lowercased: the automaton folds them).
    patterns: Box<[Vec<u8>]>,
    ignore_case: bool,
    /// The strings anchored, leftmost-longest, once built; `None` if they
    /// could not be.
    strings: OnceLock<Option<AhoCorasick>>,
}

impl AtStart {
    /// `patterns` (lowercased under `-i`: `folded`) each hold the part
    /// `finder` looks for first at the same offset.
    fn new(
        patterns: &[Vec<u8>],
        folded: &[Vec<u8>],
        finder: &memmem::Finder<'_>,
        ignore_case: bool,
    ) -> Option<AtStart> {
        let offset = finder.find(&folded[0])?;
        if folded.iter().any(|p| finder.find(p) != Some(offset)) {
            return None;
        }
        let part_end = offset + finder.needle().len();
        let follow = Follow::new(patterns.iter().map(|p| &p[part_end..]), ignore_case);
        let patterns = patterns.into();
        Some(AtStart { offset, follow, patterns, ignore_case, strings: OnceLock::new() })
    }

    /// The anchored automaton, built on the first call.
    fn strings(&self) -> Option<&AhoCorasick> {
        let build = || {
            let bytes: usize = self.patterns.iter().map(Vec::len).sum();
            AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .start_kind(StartKind::Anchored)
                .ascii_case_insensitive(self.ignore_case)
                .kind((bytes <= DFA_MAX_BYTES).then_some(AhoCorasickKind::DFA))
                .build(&self.patterns)
                .ok()
        };
        self.strings.get_or_init(build).as_ref()
    }
}

/// The longest string of `strings` starting at `start`.
fn anchored_at(strings: &AhoCorasick, hay: &[u8], start: usize) -> Option<(usize, usize)> {
    let input = Input::new(hay).span(start..hay.len()).anchored(Anchored::Yes);
    let m = strings.try_find(input).ok()??;
    Some((m.start(), m.end()))
}

/// The search for the shared part.
#[derive(Debug)]
enum Part {
    Exact(Box<LiteralFinder>),
    /// Either case of its ASCII letters (`-i`).
    Folded(FoldFinder),
}

impl Part {
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match self {
            Part::Exact(f) => f.find(hay),
            Part::Folded(f) => f.find(hay),
        }
    }

    fn len(&self) -> usize {
        match self {
            Part::Exact(f) => f.needle().len(),
            Part::Folded(f) => f.len(),
        }
    }
}

impl Factored {
    /// The search of `patterns`' longest shared part, when it has
    /// [`MIN_PART`] bytes or more; `ignore_case` folds ASCII letters, as
    /// the set's search does.
    pub(crate) fn new(patterns: &[Vec<u8>], ignore_case: bool) -> Option<Factored> {
        let longest = patterns.iter().map(Vec::len).max()?;
        let lower: Vec<Vec<u8>>;
        let folded = match ignore_case {
            false => patterns,
            true => {
                lower = patterns.iter().map(|p| p.to_ascii_lowercase()).collect();
                &lower
            }
        };
        let (shared, finder) = shared_part(folded)?;
        let part = match ignore_case {
            false => Part::Exact(Box::new(LiteralFinder::new(shared))),
            true => Part::Folded(FoldFinder::new(
                shared.iter().map(|&b| FoldByte::ignoring_case(b)).collect(),
            )?),
        };
        let at_start = AtStart::new(patterns, folded, &finder, ignore_case);
        Some(Factored { part, longest, at_start })
    }

    /// The shared part's length.
    #[cfg(test)]
    pub(crate) fn part_len(&self) -> usize {
        self.part.len()
    }

    /// The leftmost-longest match at or after `at` (start, end), given
    /// `set`, the set's own search: `set(hay, from)` is the leftmost-longest
    /// match of the strings in `hay` starting at `from` or after.
    pub(crate) fn find_at(
        &self,
        hay: &[u8],
        at: usize,
        set: impl Fn(&[u8], usize) -> Option<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        if let Some(anchored) = &self.at_start {
            return self.find_at_starts(hay, at, anchored, set);
        }
        let part_len = self.part.len();
        let mut from = at;
        let mut misses = 0;
        let budget = MissBudget { base: at, free: FREE_MISSES, bytes: BYTES_PER_MISS };
        loop {
            let place = from + self.part.find(&hay[from..])?;
            // Every match at `at` or after holds the part at `place` or
            // after (the places before were ruled out): it starts here at
            // the earliest.
            let start = (place + part_len).saturating_sub(self.longest).max(at);
            // One that holds the part at `place` ends here at the latest.
            let end = (place + self.longest).min(hay.len());
            if let Some((s, e)) = set(&hay[..end], start) {
                // A match starting before `s` (holding a later place of
                // the part) ends before `s + longest`, and so do all the
                // strings at the leftmost start.
                let all_by = (s + self.longest).min(hay.len());
                if all_by <= end {
                    return Some((s, e));
                }
                return set(&hay[..all_by], start);
            }
            misses += 1;
            from = place + 1;
            if budget.spent(misses, from) {
                // The part is common here: the set's own search for the
                // rest. No match starts at `place` or before: it would
                // hold the part there.
                return set(hay, from);
            }
        }
    }

    /// [`Factored::find_at`] where each place has one candidate start.
    fn find_at_starts(
        &self,
        hay: &[u8],
        at: usize,
        anchored: &AtStart,
        set: impl Fn(&[u8], usize) -> Option<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        let part_len = self.part.len();
        // A place before this one would stand for a start before `at`.
        let mut from = at + anchored.offset;
        let mut checks = 0;
        let budget = MissBudget { base: at, free: FREE_MISSES, bytes: BYTES_PER_CHECK };
        while from <= hay.len() {
            let place = from + self.part.find(&hay[from..])?;
            let start = place - anchored.offset;
            if anchored.follow.as_ref().is_none_or(|f| f.admits(hay, place + part_len)) {
                let Some(strings) = anchored.strings() else {
                    // No automaton: no match starts before this place's
                    // start (it would hold an earlier place).
                    return set(hay, start);
                };
                // Places come in order, and so do their starts: the first
                // that holds a string is the leftmost match.
                if let Some(found) = anchored_at(strings, hay, start) {
                    return Some(found);
                }
            }
            // A place the table drops counts as a check too: it costs the
            // part's search from there.
            checks += 1;
            from = place + 1;
            if budget.spent(checks, from) {
                // No match starts at this place's start or before.
                return set(hay, from - anchored.offset);
            }
        }
        None
    }
}

/// The longest substring of [`MIN_PART`] to [`MAX_PART`] bytes that every
/// pattern holds (the first of the shortest pattern's, when several are as
/// long), and its finder.
fn shared_part(patterns: &[Vec<u8>]) -> Option<(&[u8], memmem::Finder<'_>)> {
    let shortest = patterns.iter().min_by_key(|p| p.len()).filter(|p| p.len() <= MAX_SHORTEST)?;
    // The pattern that ruled out the last candidate is asked first: most
    // candidates fail on one of a few patterns.
    let mut first_to_ask = 0;
    for len in (MIN_PART..=shortest.len().min(MAX_PART)).rev() {
        'candidates: for candidate in shortest.windows(len) {
            let finder = memmem::Finder::new(candidate);
            if finder.find(&patterns[first_to_ask]).is_none() {
                continue;
            }
            for (i, p) in patterns.iter().enumerate() {
                if finder.find(p).is_none() {
                    first_to_ask = i;
                    continue 'candidates;
                }
            }
            return Some((candidate, finder));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(strs: &[&str]) -> Vec<Vec<u8>> {
        strs.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    /// The shared part alone.
    fn part_of(patterns: &[Vec<u8>]) -> Option<&[u8]> {
        shared_part(patterns).map(|(part, _)| part)
    }

    /// Leftmost-longest by brute force.
    fn brute(pats: &[Vec<u8>], hay: &[u8], at: usize) -> Option<(usize, usize)> {
        (at..=hay.len()).find_map(|s| {
            pats.iter().filter(|p| hay[s..].starts_with(p)).map(|p| (s, s + p.len())).max()
        })
    }

    #[test]
    fn the_shared_part_is_the_longest_substring_all_strings_hold() {
        assert_eq!(part_of(&bytes(&["abc_init", "x_init", "long_name_init"])), Some(&b"_init"[..]));
        assert_eq!(part_of(&bytes(&["CONFIG_A", "CONFIG_BB", "CONFIG_"])), Some(&b"CONFIG_"[..]));
        assert_eq!(part_of(&bytes(&["aQZXWb", "ccQZXW", "QZXWdd"])), Some(&b"QZXW"[..]));
        assert_eq!(part_of(&bytes(&["abc", "abd"])), None, "two bytes are too few");
        assert_eq!(part_of(&bytes(&["task", "other"])), None);
        let long = [b"x".repeat(40), b"y".repeat(40)].concat();
        assert_eq!(part_of(&[long.clone(), long.clone()]).map(<[u8]>::len), Some(MAX_PART));
        let longer = b"z".repeat(MAX_SHORTEST + 1);
        assert_eq!(part_of(&[longer.clone(), longer]), None, "not looked at");
    }

    #[test]
    fn a_string_holding_the_part_twice_or_at_a_later_place_is_found_leftmost() {
        // `bbbbbbbbbb_QZ_QZ` holds the part twice, and in
        // `_QZ_QZ a_QZc ...` two places hold no match before one that does.
        let pats = bytes(&["a_QZ", "bbbbbbbbbb_QZ_QZ", "_QZc"]);
        let f = Factored::new(&pats, false).unwrap();
        assert_eq!(f.part_len(), 3);
        for hay in [
            &b"...bbbbbbbbbb_QZ_QZ..."[..],
            b"_QZ_QZ a_QZc bbbbbbbbbb_QZ_QZ",
            b"xx_QZc",
            b"bbbbbbbbbb_QZ_Q",
            b"a_QZ_QZc",
        ] {
            for at in 0..=hay.len() {
                let set = |h: &[u8], from: usize| brute(&pats, h, from);
                assert_eq!(f.find_at(hay, at, set), brute(&pats, hay, at), "{hay:?} from {at}");
            }
        }
    }

    #[test]
    fn a_match_ending_past_the_first_window_but_starting_earlier_wins() {
        // The window of the first `_QQ` ends at 11: `_QQx` (6..10) lies in
        // it, `ab_QQxdefgh` (4..15) starts earlier and ends past it.
        let pats = bytes(&["ab_QQxdefgh", "_QQx", "_QQz"]);
        let f = Factored::new(&pats, false).unwrap();
        let hay = b"_QQ.ab_QQxdefgh";
        let set = |h: &[u8], from: usize| brute(&pats, h, from);
        assert_eq!(f.part_len(), 3);
        assert_eq!(f.find_at(hay, 0, set), Some((4, 15)));
    }

    #[test]
    fn a_common_part_hands_the_rest_to_the_set() {
        // `_QZ` everywhere, the match at the end: the search hands over and
        // still finds it.
        let pats = bytes(&["a_QZb", "cc_QZdd"]);
        let f = Factored::new(&pats, false).unwrap();
        let mut hay = b"x_QZy ".repeat(2000);
        hay.extend_from_slice(b"cc_QZdd");
        let calls = std::cell::Cell::new(0);
        let set = |h: &[u8], from: usize| {
            calls.set(calls.get() + 1);
            brute(&pats, h, from)
        };
        assert_eq!(f.find_at(&hay, 0, set), Some((12000, 12007)));
        assert!(calls.get() < 200, "{} windows searched", calls.get());
    }

    #[test]
    fn a_case_blind_part_is_found_in_either_case() {
        let pats = bytes(&["foo_Init", "bar_INIT", "x_init"]);
        let f = Factored::new(&pats, true).unwrap();
        assert_eq!(f.part_len(), 5, "`_init` whatever the case");
        let brute_i = |h: &[u8], from: usize| {
            let lower = h.to_ascii_lowercase();
            let pats: Vec<Vec<u8>> = pats.iter().map(|p| p.to_ascii_lowercase()).collect();
            brute(&pats, &lower, from)
        };
        let hay = b"_INIT x _iNiT BAR_init foo_inIT";
        assert_eq!(f.find_at(hay, 0, brute_i), Some((14, 22)));
        assert_eq!(f.find_at(hay, 15, brute_i), Some((23, 31)));
        assert!(Factored::new(&pats, false).is_none(), "case-sensitive, they share `_` only");
    }

    #[test]
    fn strings_holding_the_part_at_one_offset_are_confirmed_at_their_start() {
        let pats = bytes(&["x_QZab", "y_QZabcd", "z_QZ"]);
        let f = Factored::new(&pats, false).unwrap();
        assert_eq!(f.at_start.as_ref().map(|a| a.offset), Some(1));
        let hay = b"_QZ x_QZ y_QZabcd y_QZab z_QZ";
        let set = |h: &[u8], from: usize| brute(&pats, h, from);
        for at in 0..=hay.len() {
            assert_eq!(f.find_at(hay, at, set), brute(&pats, hay, at), "from {at}");
        }
        // A place common enough hands the rest to the set.
        let mut hay = b"w_QZxy ".repeat(2000);
        hay.extend_from_slice(b"y_QZabcd");
        let calls = std::cell::Cell::new(0);
        let set = |h: &[u8], from: usize| {
            calls.set(calls.get() + 1);
            brute(&pats, h, from)
        };
        assert_eq!(f.find_at(&hay, 3, set), Some((14000, 14008)));
        assert_eq!(calls.get(), 1, "handed over once");
        assert!(Factored::new(&bytes(&["x_QZab", "_QZab"]), false).unwrap().at_start.is_none());
    }

    #[test]
    fn the_anchored_automaton_is_built_at_the_first_place_met() {
        let pats = bytes(&["QZ_ab", "QZ_abcd", "QZ_x"]);
        let f = Factored::new(&pats, true).unwrap();
        let built = || f.at_start.as_ref().unwrap().strings.get().is_some();
        let set = |h: &[u8], from: usize| brute(&pats, h, from);
        assert_eq!(f.find_at(b"no part here, only Q and Z", 0, set), None);
        assert!(!built(), "no place, no automaton");
        assert_eq!(f.find_at(b"..qz_AbCd..", 0, set), Some((2, 9)));
        assert!(built());
    }

    /// The part every string of the two tests below holds at one offset:
    /// longer than any part their other bytes (at most 5, from `ab_\n`, which
    /// holds neither Q nor Z) can share at another offset, so that it is
    /// the part chosen (a shorter one lost to such a part now and then).
    const MARK: &[u8] = b"QZQZQ_";

    proptest! {
        #[test]
        fn every_search_at_one_offset_agrees_with_brute_force(
            stems in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 2),
                 proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 0..6)),
                1..8),
            hay in proptest::collection::vec(proptest::sample::select(b"abAB_QZ\n".to_vec()), 0..300),
            ignore_case in proptest::bool::ANY,
        ) {
            let pats: Vec<Vec<u8>> = stems
                .iter()
                .map(|(a, b)| [&a[..], MARK, &b[..]].concat())
                .collect();
            let f = Factored::new(&pats, ignore_case).unwrap();
            prop_assert!(f.at_start.is_some());
            let fold = |h: &[u8]| if ignore_case { h.to_ascii_lowercase() } else { h.to_vec() };
            let folded: Vec<Vec<u8>> = pats.iter().map(|p| fold(p)).collect();
            let hay_folded = fold(&hay);
            for at in 0..=hay.len() {
                let set = |h: &[u8], from: usize| brute(&folded, &fold(h), from);
                prop_assert_eq!(f.find_at(&hay, at, set), brute(&folded, &hay_folded, at));
            }
        }
    }

    proptest! {
        /// The strings planted in the text, some with a byte changed (the
        /// bytes after the part among them) or in the other case: the
        /// places the table of following bytes drops hold no match.
        #[test]
        fn planted_strings_at_one_offset_are_found_as_brute_force_finds_them(
            stems in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 2),
                 proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 1..6)),
                1..8),
            filler in proptest::collection::vec(proptest::sample::select(b"abAB_QZ\n".to_vec()), 0..200),
            plants in proptest::collection::vec(
                (any::<proptest::sample::Index>(), any::<proptest::sample::Index>(),
                 any::<Option<(proptest::sample::Index, proptest::sample::Index)>>(),
                 proptest::bool::ANY),
                0..6),
            ignore_case in proptest::bool::ANY,
        ) {
            let pats: Vec<Vec<u8>> = stems
                .iter()
                .map(|(a, b)| [&a[..], MARK, &b[..]].concat())
                .collect();
            let mut hay = filler;
            for (which, at, changed, upper) in &plants {
                let mut copy = pats[which.index(pats.len())].clone();
                if let Some((i, b)) = changed {
                    let i = i.index(copy.len());
                    copy[i] = b"ab_AB\n"[b.index(6)];
                }
                if *upper {
                    copy.make_ascii_uppercase();
                }
                let at = at.index(hay.len() + 1);
                hay.splice(at..at, copy);
            }
            let f = Factored::new(&pats, ignore_case).unwrap();
            prop_assert!(f.at_start.is_some());
            let fold = |h: &[u8]| if ignore_case { h.to_ascii_lowercase() } else { h.to_vec() };
            let folded: Vec<Vec<u8>> = pats.iter().map(|p| fold(p)).collect();
            let hay_folded = fold(&hay);
            for at in 0..=hay.len() {
                let set = |h: &[u8], from: usize| brute(&folded, &fold(h), from);
                prop_assert_eq!(f.find_at(&hay, at, set), brute(&folded, &hay_folded, at));
            }
        }

        #[test]
        fn every_search_agrees_with_brute_force(
            stems in proptest::collection::vec(
                (proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 0..6),
                 proptest::collection::vec(proptest::sample::select(b"ab_\n".to_vec()), 0..6)),
                1..8),
            hay in proptest::collection::vec(proptest::sample::select(b"ab_QZ\n".to_vec()), 0..300),
        ) {
            let pats: Vec<Vec<u8>> = stems
                .iter()
                .map(|(a, b)| [&a[..], b"QZ_", &b[..]].concat())
                .collect();
            let f = Factored::new(&pats, false).unwrap();
            for at in 0..=hay.len() {
                let set = |h: &[u8], from: usize| brute(&pats, h, from);
                prop_assert_eq!(f.find_at(&hay, at, set), brute(&pats, &hay, at));
            }
        }
    }
}
