//! A few literals found by a rare pair of adjacent bytes inside each.
//!
//! The regex engine finds an alternation of literals such as
//! `ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT` with Teddy over their first
//! four bytes: four table lookups per position. Two bytes per literal halve
//! that work (in the cache, 512 MB of the Linux sources in 24 ms against 39),
//! but their first two bytes are often common (`ER`, `PM`, `LI`) and the
//! candidates would drown the gain. This finder takes, in each literal, the
//! two adjacent bytes least likely in text and code (`YS`, `PM`, `NK`, `VT`),
//! runs Teddy over those pairs, and checks the whole literal where one is
//! found. It is used only when every literal has a pair of rare bytes
//! (capital letters, most digits, rare punctuation, bytes over 0x7f): a pair of
//! lowercase letters or with `_` or a space would flood the check. Where the
//! pairs are common all the same (text in capitals), a search that has
//! checked more false candidates than about one per KiB scanned goes on with
//! Teddy over the whole literals, the engine's own way.

use aho_corasick::packed::{Config, MatchKind, Searcher};

use crate::fold::byte_commonness;

/// The byte pair searched for.
const WIDTH: usize = 2;

/// Literals, each with the place of its rare pair.
#[derive(Clone, Debug)]
pub(crate) struct WindowSet {
    /// Teddy over the distinct pairs.
    pairs: Searcher,
    /// Teddy over the literals themselves (their first bytes), for text
    /// where the pairs are common.
    whole: Searcher,
    /// Per distinct pair (Teddy's pattern id): the literals that hold it
    /// and the pair's offset in each.
    holders: Vec<Vec<(usize, usize)>>,
    literals: Vec<Vec<u8>>,
    /// The largest offset of a pair in its literal.
    reach: usize,
}

impl WindowSet {
    /// Most literals: Teddy has eight buckets, one per pair.
    pub(crate) const MAX: usize = 8;

    /// None unless there are 2 to [`WindowSet::MAX`] literals, each holding
    /// a pair of rare bytes, and the CPU runs Teddy.
    pub(crate) fn new(literals: &[Vec<u8>]) -> Option<WindowSet> {
        if !(2..=Self::MAX).contains(&literals.len()) {
            return None;
        }
        let mut pairs: Vec<[u8; WIDTH]> = Vec::new();
        let mut holders: Vec<Vec<(usize, usize)>> = Vec::new();
        for (i, lit) in literals.iter().enumerate() {
            let at = rarest_pair(lit)?;
            let pair = [lit[at], lit[at + 1]];
            match pairs.iter().position(|p| *p == pair) {
                Some(id) => holders[id].push((i, at)),
                None => {
                    pairs.push(pair);
                    holders.push(vec![(i, at)]);
                }
            }
        }
        let teddy = |patterns: &[&[u8]]| {
            let mut builder = Config::new().match_kind(MatchKind::LeftmostFirst).builder();
            builder.extend(patterns);
            builder.build()
        };
        let pairs = teddy(&pairs.iter().map(|p| &p[..]).collect::<Vec<_>>())?;
        let whole = teddy(&literals.iter().map(Vec::as_slice).collect::<Vec<_>>())?;
        let reach = holders.iter().flatten().map(|&(_, at)| at).max()?;
        Some(WindowSet { pairs, whole, holders, literals: literals.to_vec(), reach })
    }

    /// The start of the leftmost literal at or after `at`.
    pub(crate) fn find(&self, hay: &[u8], at: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut from = at;
        let mut end = hay.len();
        let mut misses = 0;
        // A literal found at s ends the search once no pair left could
        // belong to one starting before s: pairs start at most `reach`
        // bytes into their literal.
        while from + WIDTH <= end {
            if misses > Self::FREE_MISSES + (from - at) / Self::BYTES_PER_MISS {
                // Every literal starting before `from - reach` was seen.
                let rest = from.saturating_sub(self.reach).max(at);
                let span = aho_corasick::Span::from(rest..hay.len());
                let found = self.whole.find_in(hay, span).map(|m| m.start());
                return best.into_iter().chain(found).min();
            }
            let Some(m) = self.pairs.find_in(hay, aho_corasick::Span::from(from..end)) else {
                break;
            };
            let pos = m.start();
            for &(lit, offset) in &self.holders[m.pattern().as_usize()] {
                let Some(start) = pos.checked_sub(offset).filter(|&s| s >= at) else { continue };
                if best.is_some_and(|b| start >= b) {
                    continue;
                }
                if hay[start..].starts_with(&self.literals[lit]) {
                    best = Some(start);
                    end = end.min(start + self.reach + WIDTH);
                } else {
                    misses += 1;
                }
            }
            from = pos + 1;
        }
        best
    }

    /// False candidates a search may check before it counts them against
    /// the bytes scanned.
    const FREE_MISSES: usize = 16;

    /// Bytes scanned per false candidate allowed: a candidate costs about
    /// what the pairs save over the whole literals on a KiB.
    const BYTES_PER_MISS: usize = 1024;
}

/// The offset of the literal's two adjacent bytes least likely in text, when
/// both are rare enough (see the module's comment).
fn rarest_pair(lit: &[u8]) -> Option<usize> {
    let rank = |b: u8| u32::from(byte_commonness(b));
    (0..lit.len().checked_sub(WIDTH - 1)?)
        .filter(|&i| rank(lit[i]) <= RARE && rank(lit[i + 1]) <= RARE)
        // Of pairs alike by their bytes, the one that starts with the rarer
        // byte: in the Linux sources `YS` is found 26k times to `SY`'s 63k,
        // `VT` 9.7k times to `EV`'s 115k (300 MB of big.txt).
        .min_by_key(|&i| (rank(lit[i]) * rank(lit[i + 1]), rank(lit[i]), i))
}

/// The commonness (fold.rs's [`byte_commonness`]) of the rarest bytes a pair
/// may hold: capitals, the digits 3-9, bytes over 0x7f, control bytes and
/// the rarer punctuation; not lowercase letters, blanks, `_`, `0`-`2` or
/// the punctuation of every line of code.
const RARE: u32 = 130;

#[cfg(test)]
mod tests {
    use super::WindowSet;
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
        let set = WindowSet::new(&lits).unwrap();
        let offsets: Vec<usize> = set.holders.iter().flatten().map(|&(_, at)| at).collect();
        assert_eq!(offsets, [5, 0, 2, 9]);
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
        assert!(WindowSet::new(&lits(&["A_B", "CD"])).is_none());
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
    }
}
