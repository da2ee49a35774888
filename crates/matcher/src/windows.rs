//! A few literals found by a short window of bytes they hold: a pair of
//! rare bytes inside each, or the prefix all of them start with.
//!
//! The regex engine finds an alternation of literals such as
//! `ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT` with Teddy over their first
//! four bytes: four table lookups per position. Two bytes per literal halve
//! that work (in the cache, 512 MB of the Linux sources in 24 ms against 39),
//! but their first two bytes are often common (`ER`, `PM`, `LI`) and the
//! candidates would drown the gain. This finder takes, in each literal, the
//! two adjacent bytes least likely in text and code (`YS`, `PM`, `NK`, `VT`),
//! runs Teddy over those pairs, and checks the whole literal where one is
//! found. Pairs are used only when every literal has a pair of rare bytes
//! (capital letters, most digits, rare punctuation, bytes over 0x7f): a pair of
//! lowercase letters or with `_` or a space would flood the check. Where
//! the CPU has AVX-512 VBMI the pairs are found by table, 64 positions at a
//! time (wide_pairs.rs), instead of Teddy: 1.3 GB of the Linux sources from
//! the cache, one thread, the alternation below: user time 192-198 ms with
//! Teddy, 180-181 by table. The table needs no adjacency: its pairs are
//! those of the gap (1 to 8 bytes) whose pairs are rarest by the bytes'
//! commonness ([`Pairs::rarest`]), for the alternation four bytes apart,
//! with 2.7 times fewer false candidates than adjacent bytes over the Linux
//! sources. Teddy finds adjacent pairs only.
//!
//! Literals that all start with the same three bytes (`pm_resume|pm_suspend`)
//! are found by one vector search for those bytes (memmem) instead: the
//! engine takes a shared prefix only from four bytes on and otherwise runs
//! Teddy over the literals (1.3 GB of the Linux sources in the cache, one
//! core, every match: the engine 97 ms over the copy, memmem over `pm_` and
//! the check of its 77k candidates 41 ms).
//!
//! Where the window is common all the same (text in capitals, a prefix such
//! as `the`), a search that has checked more false candidates than about one
//! per 256 bytes scanned goes on with Teddy over the whole literals, the
//! engine's own way.

use std::ops::Range;

use aho_corasick::packed::{Config, MatchKind, Searcher};
use memchr::memmem;

use crate::budget::MissBudget;
use crate::fold::byte_commonness;
use crate::wide_pairs::{Found, Literals, WidePairs};

/// The byte pair searched for.
const WIDTH: usize = 2;

/// The shortest shared prefix searched for on its own.
const PREFIX: usize = 3;

/// Literals, each with the place of the window that finds it.
#[derive(Clone, Debug)]
pub(crate) struct WindowSet {
    probe: Probe,
    /// Teddy over the literals themselves (their first bytes), for text
    /// where the windows are common.
    whole: Searcher,
    /// Per distinct window (the probe's id for it): the literals that hold
    /// it and the window's offset in each.
    holders: Vec<Vec<(usize, usize)>>,
    literals: Vec<Vec<u8>>,
    /// The largest offset of a window in its literal.
    reach: usize,
}

/// What finds the candidates.
#[derive(Clone, Debug)]
enum Probe {
    /// The distinct pairs found by table, 64 positions at a time (ids: their
    /// order), where the CPU has AVX-512 VBMI (wide_pairs.rs).
    Wide(WidePairs),
    /// Teddy over the distinct pairs (ids: Teddy's pattern ids).
    Pairs(Searcher),
    /// The prefix every literal starts with (id 0).
    Prefix(Box<memmem::Finder<'static>>),
}

impl Probe {
    /// The window's length.
    fn width(&self) -> usize {
        match self {
            Probe::Wide(pairs) => pairs.width(),
            Probe::Pairs(_) => WIDTH,
            Probe::Prefix(finder) => finder.needle().len(),
        }
    }

    /// The leftmost window inside `span` of `hay`: its start and id. The
    /// table's scan checks the literals itself ([`WidePairs::find_literal`]):
    /// it skips, and counts in `misses`, the windows of literals starting
    /// at or after `min_start` that are not there, and stops past `budget`.
    fn find(
        &self,
        hay: &[u8],
        span: Range<usize>,
        min_start: usize,
        misses: &mut usize,
        budget: MissBudget,
    ) -> Found {
        let found = match self {
            Probe::Wide(pairs) => return pairs.find_literal(hay, span, min_start, misses, budget),
            Probe::Pairs(teddy) => teddy
                .find_in(hay, aho_corasick::Span::from(span))
                .map(|m| (m.start(), m.pattern().as_usize())),
            Probe::Prefix(finder) => finder.find(&hay[span.clone()]).map(|i| (span.start + i, 0)),
        };
        found.map_or(Found::Nothing, |(start, id)| Found::Pair(start, id))
    }
}

impl WindowSet {
    /// Most literals: Teddy has eight buckets, one per pair.
    pub(crate) const MAX: usize = 8;

    /// None unless there are 2 to [`WindowSet::MAX`] literals, all starting
    /// with the same [`PREFIX`] bytes or each holding a pair of rare bytes,
    /// and the CPU runs Teddy.
    pub(crate) fn new(literals: &[Vec<u8>]) -> Option<WindowSet> {
        if !(2..=Self::MAX).contains(&literals.len()) {
            return None;
        }
        let teddy = |patterns: &[&[u8]]| {
            let mut builder = Config::new().match_kind(MatchKind::LeftmostFirst).builder();
            builder.extend(patterns);
            builder.build()
        };
        let whole = teddy(&literals.iter().map(Vec::as_slice).collect::<Vec<_>>())?;
        let shared = shared_prefix(literals);
        if shared >= PREFIX {
            let prefix = Box::new(memmem::Finder::new(&literals[0][..shared]).into_owned());
            return Some(WindowSet {
                probe: Probe::Prefix(prefix),
                whole,
                holders: vec![(0..literals.len()).map(|i| (i, 0)).collect()],
                literals: literals.to_vec(),
                reach: 0,
            });
        }
        // By table, the pairs of the gap with the rarest bytes; Teddy finds
        // adjacent pairs only.
        let wide =
            WidePairs::available().then(|| Pairs::rarest(literals)).flatten().and_then(|p| {
                let wide = WidePairs::new(&p.pairs, p.gap)?;
                Some((wide.with_literals(Literals::new(literals, &p.holders)), p.holders))
            });
        let (probe, holders) = match wide {
            Some((wide, holders)) => (Probe::Wide(wide), holders),
            None => {
                let adjacent = Pairs::at_gap(literals, 1)?;
                let patterns: Vec<&[u8]> = adjacent.pairs.iter().map(|p| &p[..]).collect();
                (Probe::Pairs(teddy(&patterns)?), adjacent.holders)
            }
        };
        let reach = holders.iter().flatten().map(|&(_, at)| at).max()?;
        Some(WindowSet { probe, whole, holders, literals: literals.to_vec(), reach })
    }

    /// The start of the leftmost literal at or after `at`.
    pub(crate) fn find(&self, hay: &[u8], at: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut from = at;
        let mut end = hay.len();
        let mut misses = 0;
        let width = self.probe.width();
        let budget = MissBudget { base: at, free: Self::FREE_MISSES, bytes: Self::BYTES_PER_MISS };
        // A literal found at s ends the search once no window left could
        // belong to one starting before s: windows start at most `reach`
        // bytes into their literal.
        while from + width <= end {
            if budget.spent(misses, from) {
                return self.hand_over(hay, at, from, best);
            }
            let (pos, id) = match self.probe.find(hay, from..end, at, &mut misses, budget) {
                Found::Pair(pos, id) => (pos, id),
                Found::Flooded(pos) => return self.hand_over(hay, at, pos, best),
                Found::Nothing => break,
            };
            for &(lit, offset) in &self.holders[id] {
                let Some(start) = pos.checked_sub(offset).filter(|&s| s >= at) else { continue };
                if best.is_some_and(|b| start >= b) {
                    continue;
                }
                if hay[start..].starts_with(&self.literals[lit]) {
                    best = Some(start);
                    end = end.min(start + self.reach + width);
                } else {
                    misses += 1;
                }
            }
            from = pos + 1;
        }
        best
    }

    /// The leftmost literal at or after `at`, when no window before `from`
    /// belongs to one other than `best`: Teddy over the whole literals from
    /// the first start whose window could be at `from` or after.
    fn hand_over(&self, hay: &[u8], at: usize, from: usize, best: Option<usize>) -> Option<usize> {
        let rest = from.saturating_sub(self.reach).max(at);
        let span = aho_corasick::Span::from(rest..hay.len());
        let found = self.whole.find_in(hay, span).map(|m| m.start());
        best.into_iter().chain(found).min()
    }

    /// False candidates a search may check before it counts them against
    /// the bytes scanned.
    const FREE_MISSES: usize = 16;

    /// Bytes scanned per false candidate allowed. Measured on the Linux
    /// sources in the cache (every match of the four-literal alternation
    /// above, one core, the copy not counted): 75 ms of scan with 1,024
    /// bytes, 70 with 512, 69 with 256 or 128; on the register headers of
    /// drivers/gpu/drm/amd/include (capitals throughout), 28, 23, 22 and 22
    /// ms: the whole literals' Teddy meets common words too.
    const BYTES_PER_MISS: usize = 256;
}

/// How many bytes every literal starts with.
fn shared_prefix(literals: &[Vec<u8>]) -> usize {
    let first = &literals[0];
    literals[1..]
        .iter()
        .fold(first.len(), |n, lit| first[..n].iter().zip(lit).take_while(|(a, b)| a == b).count())
}

/// A pair of bytes `gap` apart in each literal: the distinct pairs (ids:
/// their order) and, per pair, the literals holding it and its offset in each.
#[derive(Debug)]
struct Pairs {
    gap: usize,
    pairs: Vec<[u8; 2]>,
    holders: Vec<Vec<(usize, usize)>>,
}

impl Pairs {
    /// Each literal's pair at `gap` least likely in text, when every
    /// literal has one of rare bytes.
    fn at_gap(literals: &[Vec<u8>], gap: usize) -> Option<Pairs> {
        let mut set = Pairs { gap, pairs: Vec::new(), holders: Vec::new() };
        for (i, lit) in literals.iter().enumerate() {
            let at = rarest_pair(lit, gap)?;
            let pair = [lit[at], lit[at + gap]];
            match set.pairs.iter().position(|p| *p == pair) {
                Some(id) => set.holders[id].push((i, at)),
                None => {
                    set.pairs.push(pair);
                    set.holders.push(vec![(i, at)]);
                }
            }
        }
        Some(set)
    }

    /// Of the gaps up to [`WidePairs::MAX_GAP`], the one whose pairs are
    /// the least likely in all (the sum over distinct pairs of the product
    /// of their bytes' commonness; the smaller gap of two alike). Adjacent
    /// bytes of a word go together (`SYS`, `ERR`); bytes a few apart much
    /// less: for `ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT` the Linux
    /// sources hold 1.05M adjacent pairs (`YS`, `PM`, `NK`, `VT`) and 384k
    /// pairs four apart (`R...Y`, `M...U`, `K...Q`, `M...V`), the gap taken.
    fn rarest(literals: &[Vec<u8>]) -> Option<Pairs> {
        (1..=WidePairs::MAX_GAP)
            .filter_map(|gap| Pairs::at_gap(literals, gap))
            .min_by_key(|p| (p.score(), p.gap))
    }

    /// How likely the pairs are in text (smaller: rarer).
    fn score(&self) -> u32 {
        self.pairs.iter().map(|p| rank(p[0]) * rank(p[1])).sum()
    }
}

/// A byte's commonness (fold.rs's [`byte_commonness`]).
fn rank(b: u8) -> u32 {
    u32::from(byte_commonness(b))
}

/// The offset of the literal's two bytes `gap` apart least likely in text,
/// when both are rare enough (see the module's comment).
fn rarest_pair(lit: &[u8], gap: usize) -> Option<usize> {
    (0..lit.len().checked_sub(gap)?)
        .filter(|&i| rank(lit[i]) <= RARE && rank(lit[i + gap]) <= RARE)
        // Of pairs alike by their bytes, the one that starts with the rarer
        // byte: in the Linux sources `YS` is found 26k times to `SY`'s 63k,
        // `VT` 9.7k times to `EV`'s 115k (300 MB of big.txt).
        .min_by_key(|&i| (rank(lit[i]) * rank(lit[i + gap]), rank(lit[i]), i))
}

/// The commonness (fold.rs's [`byte_commonness`]) of the rarest bytes a pair
/// may hold: capitals, the digits 3-9, bytes over 0x7f, control bytes and
/// the rarer punctuation; not lowercase letters, blanks, `_`, `0`-`2` or
/// the punctuation of every line of code.
const RARE: u32 = 130;

#[cfg(test)]
mod tests {
    use super::{Pairs, WindowSet};
    use proptest::prelude::*;

    /// The leftmost start of any literal at or after `at`, by brute force.
    fn naive(lits: &[Vec<u8>], hay: &[u8], at: usize) -> Option<usize> {
        (at..hay.len()).find(|&s| lits.iter().any(|l| hay[s..].starts_with(l)))
    }

    #[test]
    fn takes_the_rarest_pair_of_each_literal() {
        let lits: Vec<Vec<u8>> = ["ERR_SYS", "PME_TURN_OFF", "LINK_REQ_RST", "CFG_BME_EVT"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let offsets =
            |p: &Pairs| p.holders.iter().flatten().map(|&(_, at)| at).collect::<Vec<usize>>();
        let adjacent = Pairs::at_gap(&lits, 1).unwrap();
        assert_eq!(adjacent.pairs, [*b"YS", *b"PM", *b"NK", *b"VT"]);
        assert_eq!(offsets(&adjacent), [5, 0, 2, 9]);
        let rarest = Pairs::rarest(&lits).unwrap();
        assert_eq!((rarest.gap, &rarest.pairs[..]), (4, &[*b"RY", *b"MU", *b"KQ", *b"MV"][..]));
        assert_eq!(offsets(&rarest), [1, 1, 3, 5]);
        let set = WindowSet::new(&lits).unwrap();
        let hay = b"x ERR_SY LINK_REQ_RST y CFG_BME_EVT ERR_SYS";
        assert_eq!(set.find(hay, 0), Some(9));
        assert_eq!(set.find(hay, 10), Some(24));
        assert_eq!(set.find(hay, 25), Some(36));
        assert_eq!(set.find(hay, 37), None);
    }

    #[test]
    fn refuses_literals_without_a_rare_pair_and_single_literals() {
        let lits = |v: &[&str]| v.iter().map(|s| s.as_bytes().to_vec()).collect::<Vec<_>>();
        assert!(WindowSet::new(&lits(&["PM_RESUME", "pm_resume"])).is_none());
        assert!(WindowSet::new(&lits(&["A_b", "CD"])).is_none());
        assert!(WindowSet::new(&lits(&["PM_RESUME"])).is_none());
        assert!(WindowSet::new(&lits(&["AB"; 9])).is_none());
        assert!(WindowSet::new(&lits(&["PM_RESUME", "PM_SUSPEND"])).is_some());
    }

    #[test]
    fn a_later_pair_can_belong_to_an_earlier_literal() {
        // The second literal's pair (`3Q`, offset 1) comes before the
        // first's (`QQ`, offset 4), and the first literal starts earlier.
        let lits = vec![b"xyz3QQ".to_vec(), b"z3Q".to_vec()];
        let set = WindowSet::new(&lits).unwrap();
        assert_eq!(set.find(b"xyz3QQ", 0), Some(0));
        assert_eq!(set.find(b"xyz3QQ", 1), Some(2));
        assert_eq!(set.find(b"..xyz3Q", 0), Some(4));
    }

    #[test]
    fn common_pairs_hand_the_search_to_the_whole_literals() {
        // `QQ` is the pair of `QQAB` and of `xQQy`, and every third byte
        // of the haystack starts one that is neither.
        let lits = vec![b"QQAB".to_vec(), b"xQQy".to_vec()];
        let set = WindowSet::new(&lits).unwrap();
        for (at_start, tail) in [(0, "xQQy"), (2999, "QQAB"), (50, "aQQAB")] {
            let mut hay = "QQ ".repeat(1000).into_bytes();
            hay.extend_from_slice(tail.as_bytes());
            assert_eq!(set.find(&hay, at_start), naive(&lits, &hay, at_start), "{tail}");
            assert!(set.find(&hay, at_start).is_some());
        }
        // A literal found just before the hand-over is kept: misses fill
        // the allowance, `QQAB` is found, then one more miss (the `QQ`
        // after it, inside the literal's reach) hands the search over.
        let lits = vec![b"QQAB".to_vec(), b"zzzzzzQQ".to_vec()];
        let set = WindowSet::new(&lits).unwrap();
        for n in 1..=20 {
            let mut hay = "QQ ".repeat(n).into_bytes();
            hay.extend_from_slice(b"QQABQQ.");
            assert_eq!(set.find(&hay, 0), naive(&lits, &hay, 0), "{n}");
        }
    }

    #[test]
    fn literals_sharing_three_bytes_are_found_by_that_prefix() {
        let lits = vec![b"pm_resume".to_vec(), b"pm_suspend".to_vec(), b"pm_res".to_vec()];
        let set = WindowSet::new(&lits).unwrap();
        assert!(matches!(&set.probe, super::Probe::Prefix(f) if f.needle() == b"pm_"));
        let hay = b"pm_ pm_susp pm_suspend; pm_resume pm_resum";
        for at in 0..hay.len() {
            assert_eq!(set.find(hay, at), naive(&lits, hay, at), "from {at}");
        }
        // Two bytes in common are not enough: no rare pairs, no set.
        assert!(WindowSet::new(&[b"pm_x".to_vec(), b"pmxx".to_vec()]).is_none());
    }

    #[test]
    fn a_common_prefix_hands_the_search_to_the_whole_literals() {
        // Every fourth byte starts `int`, none of them a literal.
        let lits = vec![b"int_qq".to_vec(), b"int_zz".to_vec()];
        let set = WindowSet::new(&lits).unwrap();
        for tail in ["int_zz", "int_qq", "xint_qq"] {
            let mut hay = "int ".repeat(2000).into_bytes();
            hay.extend_from_slice(tail.as_bytes());
            for at in [0, 1, 4000, 7999] {
                assert_eq!(set.find(&hay, at), naive(&lits, &hay, at), "{tail} from {at}");
            }
            assert!(set.find(&hay, 0).is_some());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn finds_what_brute_force_finds(
            lits in proptest::collection::vec(
                proptest::collection::vec(prop::sample::select(b"ABQa_\xc1".to_vec()), 2..7), 2..9),
            hay in proptest::collection::vec(prop::sample::select(b"ABQa_\xc1 ".to_vec()), 0..3000),
        ) {
            let Some(set) = WindowSet::new(&lits) else { return Ok(()) };
            let mut at = 0;
            loop {
                let want = naive(&lits, &hay, at);
                prop_assert_eq!(set.find(&hay, at), want);
                match want {
                    Some(s) => at = s + 1,
                    None => break,
                }
            }
        }

        #[test]
        fn literals_with_a_shared_prefix_find_what_brute_force_finds(
            prefix in proptest::collection::vec(prop::sample::select(b"ab_".to_vec()), 3..5),
            tails in proptest::collection::vec(
                proptest::collection::vec(prop::sample::select(b"ab_".to_vec()), 0..4), 2..9),
            hay in proptest::collection::vec(prop::sample::select(b"ab_ ".to_vec()), 0..3000),
        ) {
            let lits: Vec<Vec<u8>> =
                tails.iter().map(|t| prefix.iter().chain(t).copied().collect()).collect();
            let set = WindowSet::new(&lits).unwrap();
            prop_assert!(matches!(set.probe, super::Probe::Prefix(_)));
            let mut at = 0;
            loop {
                let want = naive(&lits, &hay, at);
                prop_assert_eq!(set.find(&hay, at), want);
                match want {
                    Some(s) => at = s + 1,
                    None => break,
                }
            }
        }
    }
}
