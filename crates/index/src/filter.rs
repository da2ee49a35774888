//! A filter of the grams of a text that looks random (compressed data,
//! images, archives of them): such a text holds nearly every gram once,
//! so its postings would cost more than the text itself (a `.gz` held 2 GB
//! of them in the documents corpus's index), but a search still wants to
//! pass over it when it cannot hold the pattern.
//!
//! A filter is a Bloom filter of the text's distinct grams: 3 bits per
//! gram, each gram setting two; past 2^24 bits it becomes the exact set
//! (a bit per possible gram, 2 MiB), which no text can outgrow. It answers
//! "may hold" for every gram the text holds (never a false "no"), and for
//! about one absent gram in four; a query's grams together rule a file out
//! far more often (`Dijkstra`'s six grams pass a filter they are not in
//! about once in 5,000 times).

use crate::plan::Query;

/// Bits per distinct gram.
const BITS_PER_GRAM: usize = 3;
/// The smallest filter, in bytes.
const MIN_BYTES: usize = 64;
/// The exact set of grams: a bit per possible gram.
const EXACT_BYTES: usize = (1 << 24) / 8;

/// The bits a gram sets in a filter of `bytes` bytes.
fn positions(gram: u32, bytes: usize) -> [u64; 2] {
    if bytes == EXACT_BYTES {
        return [u64::from(gram), u64::from(gram)];
    }
    let x = (u64::from(gram) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let bits = bytes as u64 * 8;
    // Two 32-bit halves of the hash, each scaled to the filter's size.
    [((x >> 32) * bits) >> 32, ((x & 0xffff_ffff) * bits) >> 32]
}

/// The filter of a text's distinct `grams`: its bits.
pub fn make(grams: &[u32]) -> Vec<u8> {
    let bytes = (grams.len() * BITS_PER_GRAM).div_ceil(8).clamp(MIN_BYTES, EXACT_BYTES);
    let mut bits = vec![0u8; bytes];
    for &g in grams {
        for p in positions(g, bytes) {
            bits[p as usize / 8] |= 1 << (p % 8);
        }
    }
    bits
}

/// A filter read from an index.
#[derive(Clone, Copy, Debug)]
pub struct Filter<'a> {
    bits: &'a [u8],
}

impl<'a> Filter<'a> {
    /// The filter whose bits are `bits`; None when no filter has that size.
    pub fn new(bits: &'a [u8]) -> Option<Filter<'a>> {
        (MIN_BYTES..=EXACT_BYTES).contains(&bits.len()).then_some(Filter { bits })
    }

    /// Its bits.
    pub fn bits(&self) -> &'a [u8] {
        self.bits
    }

    /// Whether the text may hold `gram` (a gram number, see
    /// [`crate::grams::gram_id`]).
    pub fn may_hold(&self, gram: u32) -> bool {
        let bits = self.bits;
        positions(gram, bits.len()).iter().all(|&p| bits[p as usize / 8] & (1 << (p % 8)) != 0)
    }

    /// Whether the text may satisfy `query`.
    pub fn admits(&self, query: &Query) -> bool {
        query.admits(&|g| self.may_hold(crate::grams::gram_id(g)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grams::GramSet;

    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn a_filter_holds_every_gram_of_its_text() {
        for (n, seed) in [(10, 1), (5_000, 2), (300_000, 3), (9_000_000, 4)] {
            let text = noise(n, seed);
            let mut set = GramSet::default();
            set.add(&text);
            let grams = set.take_sorted();
            let bits = make(&grams);
            let f = Filter::new(&bits).unwrap();
            assert!(grams.iter().all(|&g| f.may_hold(g)), "{n} bytes");
            // Absent grams mostly fail (about one in four passes; the
            // exact set of a huge text passes none that it lacks).
            let absent: Vec<u32> =
                (0..1u32 << 24).step_by(97).filter(|g| grams.binary_search(g).is_err()).collect();
            let passed = absent.iter().filter(|&&g| f.may_hold(g)).count();
            let limit = if bits.len() == EXACT_BYTES { 0 } else { absent.len() * 3 / 10 };
            assert!(passed <= limit, "{n} bytes: {passed} of {} absent grams pass", absent.len());
        }
    }

    #[test]
    fn the_exact_set_is_used_past_two_to_the_24_bits() {
        let grams: Vec<u32> = (0..6_000_000u32).map(|i| i * 2).collect();
        let bits = make(&grams);
        assert_eq!(bits.len(), EXACT_BYTES);
        let f = Filter::new(&bits).unwrap();
        assert!(f.may_hold(4) && !f.may_hold(5));
    }

    #[test]
    fn a_query_is_admitted_by_the_filter_of_a_text_holding_it() {
        let mut text = noise(200_000, 9);
        text.extend_from_slice(b" Dijkstra ");
        text.extend(noise(100_000, 10));
        let mut set = GramSet::default();
        set.add(&text);
        let bits = make(&set.take_sorted());
        let f = Filter::new(&bits).unwrap();
        let query = |p: &str| crate::plan::plan(&regex_syntax::parse(p).unwrap());
        assert!(f.admits(&query("Dijkstra")));
        assert!(f.admits(&query("(?i)dijkstra")));
        assert!(!f.admits(&query("foobardoesnotexist")));
        assert!(!f.admits(&query("Knuth|Dahl and Nygaard")));
    }

    #[test]
    fn sizes_no_filter_has_are_refused() {
        assert!(Filter::new(&[0; 64]).is_some());
        assert!(Filter::new(&[0; 63]).is_none());
        assert!(Filter::new(&vec![0; EXACT_BYTES + 1]).is_none());
    }
}
