//! Nine to 64 fixed strings, each found by the four bytes inside it least
//! likely in text and code, 64 positions at a time by table where the CPU
//! has AVX-512 VBMI.
//!
//! The regex engine finds such a set with Teddy over the strings' first
//! four bytes, 32 positions at a time through nibble tables: two shuffles,
//! a shift and two ANDs per byte of the window, and the strings' starts
//! are often common words (`event_list`, `exit_signal`, `task_cputime`
//! start as thousands of identifiers of the Linux sources do). Here each
//! string has a window of four bytes where their commonness
//! ([`byte_commonness`]) multiplies to the least (`nt_l`, `xit_`,
//! `k_cp`), each string a bucket (a bit of a byte, eight buckets, shared
//! beyond eight strings), and a 128-entry table per byte of the window
//! says which buckets hold that byte there: one lookup (`vpermt2b`) per
//! byte of the window and three ANDs per 64 positions. A position where a
//! bucket is met in all four is checked against the bucket's strings.
//!
//! Windows sit at different offsets in their strings, so a string found at
//! `s` ends the search only once every window that could belong to a
//! string starting at or before `s` has been looked at: those up to `s`
//! plus the largest offset. The leftmost start wins, the longest string at
//! it: grep -F's leftmost-longest rule.
//!
//! A window common in the text (`QQQQ` of `QQQQa`..`QQQQk` in a run of `Q`)
//! flags every position, each checked against its bucket's strings: 50 MB
//! of `Q` took 3.4 s of CPU (rg 0.12). Once checks fail more often than
//! once per [`BYTES_PER_MISS`] bytes (past [`FREE_MISSES`]), the rest goes
//! to an Aho-Corasick automaton of the strings, whose search is linear.

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::budget::MissBudget;
use crate::fold::byte_commonness;
use crate::wide_pairs::WidePairs;

/// The bytes of a window.
const WINDOW: usize = 4;
/// The buckets: a bit each in a byte.
const BUCKETS: usize = 8;

/// Failed checks a search allows before the rate applies.
const FREE_MISSES: usize = 16;

/// Past the free ones, one failed check allowed per this many bytes
/// scanned: a check costs ~10-20 ns, the automaton ~1 ns a byte.
const BYTES_PER_MISS: usize = 16;

/// A set of fixed strings found by a window of four bytes in each.
#[derive(Clone, Debug)]
pub(crate) struct QuadSet {
    literals: Vec<Box<[u8]>>,
    /// Per bucket: its strings and the offset of each one's window.
    buckets: [Vec<(usize, usize)>; BUCKETS],
    /// Per byte of the window, per ASCII byte: the buckets whose strings
    /// hold it there (a byte over 0x7f reads the entry of its 7 low bits).
    tables: Box<[[u8; 128]; WINDOW]>,
    /// The largest offset of a window in its string.
    reach: usize,
    /// Whether the 64-wide scan runs (AVX-512 BW and VBMI).
    wide: bool,
    /// The strings, leftmost-longest, for text where the windows flood.
    whole: AhoCorasick,
}

/// A search's failed checks, counted against the bytes it scanned.
struct Misses {
    budget: MissBudget,
    count: usize,
}

impl Misses {
    fn new(at: usize) -> Misses {
        Misses {
            budget: MissBudget { base: at, free: FREE_MISSES, bytes: BYTES_PER_MISS },
            count: 0,
        }
    }

    /// Whether the checks failed too often by `pos`.
    fn flooded(&self, pos: usize) -> bool {
        self.budget.spent(self.count, pos)
    }
}

/// The offset of the window of `literal` whose bytes are least common
/// together (the first of two alike), when it has one of ASCII bytes.
fn rarest_window(literal: &[u8]) -> Option<usize> {
    let score = |w: &[u8]| w.iter().map(|&b| u64::from(byte_commonness(b))).product::<u64>();
    literal
        .windows(WINDOW)
        .enumerate()
        .filter(|(_, w)| w.is_ascii())
        .min_by_key(|&(at, w)| (score(w), at))
        .map(|(at, _)| at)
}

impl QuadSet {
    /// Fewest strings: up to eight, windows.rs's rare pairs or the regex
    /// engine's Teddy give each its own bucket already.
    pub(crate) const MIN: usize = 9;
    /// Most strings: beyond, the shift-or filter (shift_or.rs).
    pub(crate) const MAX: usize = 64;

    /// Whether [`QuadSet::new`] takes `literals`: [`QuadSet::MIN`] to
    /// [`QuadSet::MAX`] of them, each holding four ASCII bytes in a row, and
    /// the CPU runs the 64-wide scan.
    pub(crate) fn takes(literals: &[Vec<u8>]) -> bool {
        Self::fits(literals) && literals.iter().all(|lit| rarest_window(lit).is_some())
    }

    /// Whether the count of `literals` and the CPU suit the set.
    fn fits(literals: &[Vec<u8>]) -> bool {
        (Self::MIN..=Self::MAX).contains(&literals.len()) && WidePairs::available()
    }

    /// The set, when [`QuadSet::takes`] the literals.
    pub(crate) fn new(literals: &[Vec<u8>]) -> Option<QuadSet> {
        if !Self::fits(literals) {
            return None;
        }
        Self::build(literals, true)
    }

    /// The set, with the 64-wide scan or without (any CPU: a position at a
    /// time, as the wide scan does the last ones); `None` when a string
    /// holds no four ASCII bytes in a row.
    fn build(literals: &[Vec<u8>], wide: bool) -> Option<QuadSet> {
        let mut buckets: [Vec<(usize, usize)>; BUCKETS] = Default::default();
        let mut tables = Box::new([[0u8; 128]; WINDOW]);
        let mut reach = 0;
        for (i, lit) in literals.iter().enumerate() {
            let at = rarest_window(lit)?;
            let bucket = i % BUCKETS;
            buckets[bucket].push((i, at));
            for (k, &b) in lit[at..at + WINDOW].iter().enumerate() {
                tables[k][usize::from(b)] |= 1 << bucket;
            }
            reach = reach.max(at);
        }
        let whole =
            AhoCorasick::builder().match_kind(MatchKind::LeftmostLongest).build(literals).ok()?;
        let literals = literals.iter().map(|lit| lit.as_slice().into()).collect();
        Some(QuadSet { literals, buckets, tables, reach, wide, whole })
    }

    /// The leftmost-longest match starting at or after `at`: (start, end).
    pub(crate) fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let mut best = None;
        let mut pos = at;
        let mut misses = Misses::new(at);
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            // SAFETY: `wide` is set only where the CPU has AVX-512 BW and
            // VBMI (QuadSet::takes).
            pos = unsafe { self.scan_vbmi(hay, at, &mut best, &mut misses) };
            if self.done(best, pos) {
                return best;
            }
            if misses.flooded(pos) {
                return self.hand_over(hay, at, pos, best);
            }
        }
        // A position at a time: the last ones, or all without the wide scan.
        let t = &self.tables;
        let entry = |k: usize, b: u8| t[k][usize::from(b & 0x7f)];
        while pos + WINDOW <= hay.len() {
            let w = &hay[pos..pos + WINDOW];
            let buckets = entry(0, w[0]) & entry(1, w[1]) & entry(2, w[2]) & entry(3, w[3]);
            if buckets != 0 {
                self.check(hay, at, pos, buckets, &mut best, &mut misses);
            }
            pos += 1;
            if self.done(best, pos) {
                break;
            }
            if misses.flooded(pos) {
                return self.hand_over(hay, at, pos, best);
            }
        }
        best
    }

    /// The leftmost-longest match at `at` or after, when every window before
    /// `pos` has been looked at and `best` holds what they found: the
    /// automaton from the first start a window at `pos` or after can have.
    fn hand_over(
        &self,
        hay: &[u8],
        at: usize,
        pos: usize,
        best: Option<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        let from = pos.saturating_sub(self.reach).max(at);
        let input = Input::new(hay).span(from..hay.len());
        let found = self.whole.find(input).map(|m| (m.start(), m.end()));
        // The leftmost, then the longest.
        best.into_iter().chain(found).min_by_key(|&(s, e)| (s, std::cmp::Reverse(e)))
    }

    /// Whether no window at `pos` or after can belong to a string starting
    /// before `best` or at it.
    #[inline(always)]
    fn done(&self, best: Option<(usize, usize)>, pos: usize) -> bool {
        best.is_some_and(|(start, _)| pos > start + self.reach)
    }

    /// The strings of `buckets` whose window would be at `pos`, compared
    /// with the haystack; the leftmost-longest so far kept in `best`.
    #[inline(never)]
    fn check(
        &self,
        hay: &[u8],
        at: usize,
        pos: usize,
        buckets: u8,
        best: &mut Option<(usize, usize)>,
        misses: &mut Misses,
    ) {
        let mut bits = buckets;
        while bits != 0 {
            let bucket = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for &(lit, offset) in &self.buckets[bucket] {
                let Some(start) = pos.checked_sub(offset).filter(|&s| s >= at) else { continue };
                let literal = &self.literals[lit];
                if !hay[start..].starts_with(literal) {
                    misses.count += 1;
                    continue;
                }
                let end = start + literal.len();
                let better = match *best {
                    None => true,
                    Some((s, e)) => start < s || (start == s && end > e),
                };
                if better {
                    *best = Some((start, end));
                }
            }
        }
    }

    /// The windows at `at` and after, 64 positions a vector, while four
    /// loads of 64 bytes fit: flagged positions are checked into `best`,
    /// and the scan stops once [`QuadSet::done`] or the checks flood.
    /// Returns the first position not looked at.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 BW and VBMI.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn scan_vbmi(
        &self,
        hay: &[u8],
        at: usize,
        best: &mut Option<(usize, usize)>,
        misses: &mut Misses,
    ) -> usize {
        let mut pos = at;
        loop {
            // SAFETY: the caller guarantees AVX-512 BW and VBMI.
            match unsafe { next_flagged(&self.tables, hay, pos) } {
                Flagged::At(base, mut hits, lanes) => {
                    while hits != 0 {
                        let lane = hits.trailing_zeros() as usize;
                        hits &= hits - 1;
                        self.check(hay, at, base + lane, lanes[lane], best, misses);
                    }
                    pos = base + 64;
                    if self.done(*best, pos) || misses.flooded(pos) {
                        return pos;
                    }
                }
                Flagged::Rest(rest) => return rest,
            }
        }
    }
}

/// What [`next_flagged`] found.
#[cfg(target_arch = "x86_64")]
enum Flagged {
    /// The first vector with a flagged position: its first position, a bit
    /// per flagged one, and per position the buckets met.
    At(usize, u64, [u8; 64]),
    /// None: the first position not looked at (four loads no longer fit).
    Rest(usize),
}

/// The first vector of 64 positions at `pos` or after where some bucket's
/// window may be. A function of its own, no call in its loop: in the loop
/// that checked the positions, the compiler kept the tables on the stack and
/// loaded them again for every vector.
///
/// # Safety
///
/// The CPU must support AVX-512 BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn next_flagged(tables: &[[u8; 128]; WINDOW], hay: &[u8], mut pos: usize) -> Flagged {
    use std::arch::x86_64::*;
    // SAFETY: each table is 128 bytes, read as two halves of 64.
    let halves = |k: usize| unsafe {
        (
            _mm512_loadu_si512(tables[k].as_ptr().cast()),
            _mm512_loadu_si512(tables[k].as_ptr().add(64).cast()),
        )
    };
    let (t0, t1, t2, t3) = (halves(0), halves(1), halves(2), halves(3));
    let p = hay.as_ptr();
    while pos + 64 + WINDOW - 1 <= hay.len() {
        // SAFETY: pos + 3 + 64 <= hay.len(): each 64-byte load, at pos to
        // pos + 3, reads inside `hay`.
        let buckets = unsafe {
            let look = |k: usize, (lo, hi): (__m512i, __m512i)| {
                _mm512_permutex2var_epi8(lo, _mm512_loadu_si512(p.add(pos + k).cast()), hi)
            };
            _mm512_and_si512(
                _mm512_and_si512(look(0, t0), look(1, t1)),
                _mm512_and_si512(look(2, t2), look(3, t3)),
            )
        };
        let hits = _mm512_test_epi8_mask(buckets, buckets);
        if hits != 0 {
            let mut lanes = [0u8; 64];
            // SAFETY: `lanes` is 64 bytes.
            unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), buckets) };
            return Flagged::At(pos, hits, lanes);
        }
        pos += 64;
    }
    Flagged::Rest(pos)
}

#[cfg(test)]
mod tests {
    use super::QuadSet;
    use proptest::prelude::*;

    /// Every match of `pats` in `hay` from each start after the last, as
    /// brute force finds it, by both scans where the CPU runs the wide one.
    fn every_match(pats: &[Vec<u8>], hay: &[u8]) {
        let longest: Vec<Option<usize>> = (0..hay.len())
            .map(|s| pats.iter().filter(|p| hay[s..].starts_with(p)).map(|p| s + p.len()).max())
            .collect();
        let naive = |at: usize| (at..hay.len()).find_map(|s| longest[s].map(|end| (s, end)));
        let mut sets: Vec<QuadSet> = QuadSet::build(pats, false).into_iter().collect();
        sets.extend(QuadSet::new(pats));
        for set in &sets {
            let mut at = 0;
            loop {
                let want = naive(at);
                assert_eq!(set.find_at(hay, at), want, "wide {} at {at}, {pats:?}", set.wide);
                match want {
                    Some((s, _)) => at = s + 1,
                    None => break,
                }
            }
        }
    }

    proptest! {
        /// A small alphabet makes shared windows, overlaps and prefixes
        /// common; windows at many offsets (each string has four ASCII
        /// bytes first, so one at least), buckets shared.
        #[test]
        fn finds_what_brute_force_finds(
            pats in prop::collection::vec(
                (
                    prop::collection::vec(prop::sample::select(b"abcq_".to_vec()), 4),
                    prop::collection::vec(prop::sample::select(b"abcq_\xe1".to_vec()), 0..10),
                )
                    .prop_map(|(head, tail)| [head, tail].concat()),
                9..64,
            ),
            hay in prop::collection::vec(prop::sample::select(b"abcq_\n\xe1".to_vec()), 0..600),
        ) {
            every_match(&pats, &hay);
        }
    }

    /// Each string planted at every offset of a haystack of other bytes,
    /// two vectors' worth and more: found by the wide scan, across its
    /// vectors' edges, and by the last positions' scan.
    #[test]
    fn a_string_is_found_at_every_offset() {
        let pats: Vec<Vec<u8>> = (0..12usize)
            .map(|i| {
                let len = 4 + i * 5 % 17;
                (0..len).map(|j| b'a' + ((i * 7 + j * 3) % 26) as u8).collect()
            })
            .collect();
        for p in &pats {
            for at in 0..140 {
                let mut hay = vec![b'.'; at + p.len() + 70];
                hay[at..at + p.len()].copy_from_slice(p);
                every_match(&pats, &hay);
            }
        }
    }

    /// A longer string starting at the same place, or one starting before,
    /// whose window is further in than the first one found: the search goes
    /// on past the first find, as far as the largest offset.
    #[test]
    fn a_match_found_later_by_a_further_window_wins_when_leftmost_or_longer() {
        // `zzzz` is the rarest window of the long strings, at their ends;
        // `abqd`'s window is found 20 bytes before.
        let long = [&b"abqd"[..], &[b'e'; 16], b"zzzz"].concat();
        let earlier = [&b"x"[..], &long].concat();
        let fill: Vec<Vec<u8>> = (0..7).map(|i| format!("k{i}yk{i}y").into_bytes()).collect();
        for with_earlier in [false, true] {
            let mut pats = vec![b"abqd".to_vec(), long.clone()];
            pats.extend(with_earlier.then(|| earlier.clone()));
            pats.extend(fill.iter().cloned());
            for pad in [0, 60, 100] {
                let hay = [&vec![b'.'; pad][..], &earlier, &[b'.'; 100]].concat();
                every_match(&pats, &hay);
            }
        }
    }

    #[test]
    fn a_window_that_floods_hands_the_rest_to_the_automaton() {
        // `QQQQ`, the window of nine strings, at every position of a run of
        // `Q`: the checks flood within the first vector. The tenth string's
        // window (`zjqx`) lies 30 bytes into it, past where the scan stopped,
        // its start before: the automaton starts early enough to find it.
        let mut pats: Vec<Vec<u8>> = (b'j'..=b'r').map(|c| [&b"QQQQ"[..], &[c]].concat()).collect();
        let tenth = [b"e".repeat(30), b"zjqxe".to_vec()].concat();
        pats.push(tenth.clone());
        let hay = [b"Q".repeat(40), tenth, b"Q".repeat(100)].concat();
        let mut sets: Vec<QuadSet> = QuadSet::build(&pats, false).into_iter().collect();
        sets.extend(QuadSet::new(&pats));
        for set in &sets {
            assert_eq!(set.reach, 30);
            assert_eq!(set.find_at(&hay, 0), Some((40, 75)), "wide {}", set.wide);
            assert_eq!(set.find_at(&hay, 41), None, "wide {}", set.wide);
        }
        every_match(&pats, &hay);
    }

    #[test]
    fn takes_nine_to_64_strings_each_with_four_ascii_bytes_in_a_row() {
        let nine: Vec<Vec<u8>> = (0..9).map(|i| format!("word{i}").into_bytes()).collect();
        let mut short = nine.clone();
        short[3] = b"abc".to_vec();
        let mut high = nine.clone();
        high[3] = b"ab\xe9cd\xe9".to_vec();
        assert_eq!(QuadSet::takes(&nine), super::WidePairs::available());
        assert!(!QuadSet::takes(&nine[..8]));
        assert!(!QuadSet::takes(&short));
        assert!(!QuadSet::takes(&high));
        let many: Vec<Vec<u8>> = (0..65).map(|i| format!("word{i}").into_bytes()).collect();
        assert!(!QuadSet::takes(&many));
        // What `takes` refuses, the set is not built for either.
        for refused in [&nine[..8], &short, &high, &many] {
            assert!(QuadSet::new(refused).is_none());
        }
        assert!(QuadSet::build(&short, false).is_none(), "`abc` holds no window");
        assert_eq!(QuadSet::new(&nine).is_some(), super::WidePairs::available());
    }
}
