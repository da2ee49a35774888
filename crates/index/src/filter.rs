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
//!
//! Stored, the bits are followed by a CRC-32 of each 4 KiB block of them
//! (the side row keeps the CRC-32 of that table): a search checks only the
//! blocks its grams fall in, not megabytes of bits it does not read. A
//! damaged block makes the filter answer "may hold" and report damage.

use std::cell::Cell;

use crate::plan::Query;

/// The bits are checked in blocks of this many bytes.
const BLOCK: usize = 4096;

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

/// The filter of a text's distinct `grams`, as stored: its bits, then the
/// CRC-32 of each block of them.
pub fn make(grams: &[u32]) -> Vec<u8> {
    let bytes = (grams.len() * BITS_PER_GRAM).div_ceil(8).clamp(MIN_BYTES, EXACT_BYTES);
    let mut bits = vec![0u8; bytes];
    for &g in grams {
        for p in positions(g, bytes) {
            bits[p as usize / 8] |= 1 << (p % 8);
        }
    }
    let crcs: Vec<u8> = bits.chunks(BLOCK).flat_map(|b| crc32fast::hash(b).to_le_bytes()).collect();
    bits.extend_from_slice(&crcs);
    bits
}

/// The checksum a side row keeps of a stored filter (that of its table of
/// block checksums); None when no filter has that size.
pub fn checksum(stored: &[u8]) -> Option<u32> {
    Filter::new(stored).map(|f| crc32fast::hash(f.crcs))
}

/// A filter read from an index.
#[derive(Clone, Debug)]
pub struct Filter<'a> {
    bits: &'a [u8],
    /// The CRC-32 of each block of `bits`.
    crcs: &'a [u8],
    /// A block read failed its check.
    damaged: Cell<bool>,
}

impl<'a> Filter<'a> {
    /// The filter stored as `stored` (bits, then the blocks' checksums);
    /// None when no filter has that size.
    pub fn new(stored: &'a [u8]) -> Option<Filter<'a>> {
        // n blocks of bits take at most 4096 n + 4 n bytes with their checksums.
        let blocks = stored.len().div_ceil(BLOCK + 4);
        let (bits, crcs) = stored.split_at(stored.len().checked_sub(4 * blocks)?);
        let ok =
            (MIN_BYTES..=EXACT_BYTES).contains(&bits.len()) && bits.len().div_ceil(BLOCK) == blocks;
        ok.then_some(Filter { bits, crcs, damaged: Cell::new(false) })
    }

    /// Whether the text may hold `gram` (a gram number, see
    /// [`crate::grams::gram_id`]); "may" where a block fails its check.
    pub fn may_hold(&self, gram: u32) -> bool {
        positions(gram, self.bits.len()).iter().all(|&p| {
            let byte = p as usize / 8;
            let block = byte / BLOCK;
            let bits = &self.bits[block * BLOCK..self.bits.len().min((block + 1) * BLOCK)];
            let want = u32::from_le_bytes(self.crcs[block * 4..block * 4 + 4].try_into().unwrap());
            if crc32fast::hash(bits) != want {
                self.damaged.set(true);
                return true;
            }
            self.bits[byte] & (1 << (p % 8)) != 0
        })
    }

    /// Whether the text may satisfy `query`; None when a block it read
    /// was damaged.
    pub fn admits(&self, query: &Query) -> Option<bool> {
        let admitted = query.admits(&|g| self.may_hold(crate::grams::gram_id(g)));
        (!self.damaged.get()).then_some(admitted)
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
            let stored = make(&grams);
            let f = Filter::new(&stored).unwrap();
            assert!(grams.iter().all(|&g| f.may_hold(g)), "{n} bytes");
            // Absent grams mostly fail (about one in four passes; the
            // exact set of a huge text passes none that it lacks).
            let absent: Vec<u32> =
                (0..1u32 << 24).step_by(97).filter(|g| grams.binary_search(g).is_err()).collect();
            let passed = absent.iter().filter(|&&g| f.may_hold(g)).count();
            let limit = if f.bits.len() == EXACT_BYTES { 0 } else { absent.len() * 3 / 10 };
            assert!(passed <= limit, "{n} bytes: {passed} of {} absent grams pass", absent.len());
        }
    }

    #[test]
    fn the_exact_set_is_used_past_two_to_the_24_bits() {
        let grams: Vec<u32> = (0..6_000_000u32).map(|i| i * 2).collect();
        let stored = make(&grams);
        assert_eq!(stored.len(), EXACT_BYTES + EXACT_BYTES / BLOCK * 4);
        let f = Filter::new(&stored).unwrap();
        assert_eq!(f.bits.len(), EXACT_BYTES);
        assert!(f.may_hold(4) && !f.may_hold(5));
    }

    #[test]
    fn a_query_is_admitted_by_the_filter_of_a_text_holding_it() {
        let mut text = noise(200_000, 9);
        text.extend_from_slice(b" Dijkstra ");
        text.extend(noise(100_000, 10));
        let mut set = GramSet::default();
        set.add(&text);
        let stored = make(&set.take_sorted());
        let f = Filter::new(&stored).unwrap();
        let query = |p: &str| crate::plan::plan(&regex_syntax::parse(p).unwrap());
        assert_eq!(f.admits(&query("Dijkstra")), Some(true));
        assert_eq!(f.admits(&query("(?i)dijkstra")), Some(true));
        assert_eq!(f.admits(&query("foobardoesnotexist")), Some(false));
        assert_eq!(f.admits(&query("Knuth|Dahl and Nygaard")), Some(false));
    }

    #[test]
    fn a_damaged_block_answers_may_hold_and_is_reported() {
        let grams: Vec<u32> = (0..20_000u32).map(|i| i * 97).collect();
        let mut stored = make(&grams);
        let f = Filter::new(&stored).unwrap();
        let absent = (0..1u32 << 24).find(|g| !f.may_hold(*g)).unwrap();
        // Damage the blocks both its bits are in.
        let mut bytes: Vec<usize> =
            positions(absent, f.bits.len()).iter().map(|&p| p as usize / 8).collect();
        bytes.dedup();
        for byte in bytes {
            stored[byte] ^= 0xff;
        }
        let f = Filter::new(&stored).unwrap();
        assert!(f.may_hold(absent), "a damaged block may hold anything");
        let q = crate::plan::Query::Gram(crate::grams::gram_of(absent));
        assert_eq!(f.admits(&q), None);
    }

    #[test]
    fn sizes_no_filter_has_are_refused() {
        assert!(Filter::new(&[0; 68]).is_some());
        assert!(Filter::new(&[0; 64]).is_none());
        assert!(Filter::new(&[0; 67]).is_none());
        assert!(Filter::new(&vec![0; EXACT_BYTES + EXACT_BYTES / BLOCK * 4 + 1]).is_none());
        assert!(checksum(&make(&[1, 2, 3])).is_some());
    }
}
