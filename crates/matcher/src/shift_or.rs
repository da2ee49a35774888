//! Many fixed strings at once (more than a packed search holds): a filter
//! that flags the starts where some string may begin, then a hash table
//! that names the strings to compare there.
//!
//! The strings are sorted by length, then bytes, and cut into eight groups;
//! a group is one bit of a byte. A group's `span` is one less than its
//! shortest string's length, at most eight: the filter looks at the pairs
//! of adjacent bytes at offsets `0..span` of a start, and the start passes
//! for the group when, at each of them, some string of the group holds the
//! same pair (hashed) at the same offset. One table says, for a hashed
//! pair, at which offsets each group holds it; a start's verdict is the OR
//! of the table's entries for its eight pairs, each shifted by its offset
//! (shift-or, as Hyperscan's FDR).
//!
//! Why not an automaton: a DFA's next state waits on the load of the one
//! before (a load's latency per byte), and Aho-Corasick's prefilters need
//! few distinct leading bytes; here every byte's table load is independent
//! of the others, and eight starts are decided by one word. Measured: see
//! the note on [`crate::fixed::regex_engine_first`].
//!
//! A start that passes is checked against the strings whose first
//! `key_len` bytes hash as its own, longest first: the first that matches
//! is the longest at that start, and starts are checked in order, which is
//! grep -F's leftmost-longest rule.

use crate::slots::Slots;

/// The groups: one bit each in a byte.
const GROUPS: usize = 8;
/// The pairs of a start the filter looks at, at most: one byte per offset.
const MAX_SPAN: usize = 8;
/// Hashed pairs: 2^12 entries of 8 bytes, 32 KiB, held in the first-level
/// cache.
const DOMAIN_BITS: u32 = 12;

/// A pair of bytes hashed to `DOMAIN_BITS` bits: the high bits of a
/// 16-bit product mix both bytes, and 16-bit lanes let the compiler hash
/// a block's pairs in vector registers.
#[inline(always)]
fn domain(a: u8, b: u8) -> u16 {
    let pair = u16::from(a) | (u16::from(b) << 8);
    pair.wrapping_mul(PAIR_MULTIPLIER) >> (16 - DOMAIN_BITS)
}

/// A set of fixed strings (none shorter than three bytes) searched with the
/// shift-or filter.
#[derive(Clone, Debug)]
pub(crate) struct ShiftOrSet {
    /// Per hashed pair: bit `8 * (7 - k) + g` set when no string of group
    /// `g` holds the pair at offset `k` (offsets past the group's span
    /// always clear).
    reach: Box<[u64; 1 << DOMAIN_BITS]>,
    /// The bytes of a start hashed to find its strings: at most eight, at
    /// most the shortest string's length.
    key_len: usize,
    /// The shortest string's length.
    min_len: usize,
    /// Per hashed key: the strings that begin so (each with its key,
    /// compared first), longest first.
    keyed: Slots<(u64, u32)>,
    /// Keeps a key's bytes of a word: `key_len` bytes.
    key_mask: u64,
    /// The number of slots (a power of two), less one.
    slot_mask: usize,
    patterns: Vec<Box<[u8]>>,
}

/// The first `len` bytes of `bytes` (at most eight) as a number.
#[inline(always)]
fn key(bytes: &[u8], len: usize) -> u64 {
    let mut word = [0u8; 8];
    word[..len].copy_from_slice(&bytes[..len]);
    u64::from_le_bytes(word)
}

/// A key's slot among `mask + 1`.
#[inline(always)]
fn key_slot(key: u64, mask: usize) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
}

impl ShiftOrSet {
    /// None when a string is shorter than three bytes (fewer than two
    /// pairs to test) or there are none.
    pub(crate) fn new(patterns: &[Vec<u8>]) -> Option<ShiftOrSet> {
        let min_len = patterns.iter().map(Vec::len).min()?;
        if min_len < 3 {
            return None;
        }
        let key_len = min_len.min(8);
        let patterns: Vec<Box<[u8]>> = patterns.iter().map(|p| p.as_slice().into()).collect();

        // Strings of like length share a group, so a group of long ones
        // tests more pairs (its shortest string's span); in a length,
        // neighbours in sorted order share leading pairs, so a group allows
        // fewer pairs at its first offsets.
        let span = |p: &[u8]| (p.len() - 1).min(MAX_SPAN);
        let mut sorted: Vec<usize> = (0..patterns.len()).collect();
        sorted.sort_by(|&a, &b| {
            (span(&patterns[a]), &patterns[a]).cmp(&(span(&patterns[b]), &patterns[b]))
        });
        let per_group = patterns.len().div_ceil(GROUPS);
        let bit = |k: usize, group: usize| 1u64 << (8 * (MAX_SPAN - 1 - k) + group);
        let mut reach = Box::new([u64::MAX; 1 << DOMAIN_BITS]);
        for (group, members) in sorted.chunks(per_group).enumerate() {
            // Offsets past the group's span test nothing.
            let tested = span(&patterns[members[0]]);
            let untested: u64 = (tested..MAX_SPAN).fold(0, |m, k| m | bit(k, group));
            for entry in reach.iter_mut() {
                *entry &= !untested;
            }
            for p in members.iter().map(|&i| &patterns[i]) {
                for k in 0..tested {
                    reach[usize::from(domain(p[k], p[k + 1]))] &= !bit(k, group);
                }
            }
        }

        let slots = (patterns.len() * 2).next_power_of_two().max(16);
        let slot_mask = slots - 1;
        let slot_of = |p: &[u8]| key_slot(key(p, key_len), slot_mask);
        let keyed = Slots::new(
            &patterns,
            slots,
            |i| slot_of(&patterns[i]),
            |i| (key(&patterns[i], key_len), i as u32),
        );
        Some(ShiftOrSet {
            reach,
            key_len,
            min_len,
            keyed,
            key_mask: u64::MAX >> (64 - 8 * key_len),
            slot_mask,
            patterns,
        })
    }

    /// The longest string that starts at `start`, if any: its end.
    #[inline]
    fn confirm(&self, hay: &[u8], start: usize) -> Option<usize> {
        let rest = hay.get(start..)?;
        if rest.len() < self.min_len {
            return None;
        }
        let key = match rest.first_chunk::<8>() {
            Some(word) => u64::from_le_bytes(*word) & self.key_mask,
            None => key(rest, self.key_len),
        };
        let s = key_slot(key, self.slot_mask);
        let tail = &rest[self.key_len..];
        self.keyed
            .get(s)
            .iter()
            .filter(|&&(k, _)| k == key)
            .map(|&(_, id)| &self.patterns[id as usize])
            .find(|p| tail.starts_with(&p[self.key_len..]))
            .map(|p| start + p.len())
    }

    /// The leftmost-longest match starting at or after `at`: (start, end).
    pub(crate) fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        // Lanes 0..8 of `carry` are the starts `base - 7 ..= base`; those
        // before `at` are ruled out.
        let mut carry: u64 = u64::MAX >> 8;
        // The pairs at `base .. base + 8` into the filter, and the first
        // start they let pass that holds a string.
        let mut feed = |pairs: &[u16; 8], base: usize| {
            let done = self.block(pairs, &mut carry);
            self.first_passed(hay, done, base)
        };
        let mut base = at;
        // A run hashes the pairs at `base .. base + RUN` first (65 bytes),
        // then takes them eight at a time.
        while let Some(run) = hay.get(base..base + RUN + 1) {
            // SAFETY: SSE2 is part of x86_64 (the other version needs nothing).
            let pairs = unsafe { hash_run(run.try_into().expect("a run's bytes")) };
            for block in pairs.chunks_exact(8) {
                if let Some(found) = feed(block.try_into().expect("eight pairs"), base) {
                    return Some(found);
                }
                base += 8;
            }
        }
        // A block reads the pairs at `base .. base + 8`: nine bytes.
        while let Some(bytes) = hay.get(base..base + 9) {
            let mut block = [0u16; 8];
            for (j, d) in block.iter_mut().enumerate() {
                *d = domain(bytes[j], bytes[j + 1]);
            }
            if let Some(found) = feed(&block, base) {
                return Some(found);
            }
            base += 8;
        }
        // The last starts, whose pairs no block read in full: each checked.
        let first = (base + 1).saturating_sub(MAX_SPAN).max(at);
        let last = hay.len().checked_sub(self.min_len)?;
        (first..=last).find_map(|start| self.confirm(hay, start).map(|end| (start, end)))
    }

    /// Eight pairs (at `base .. base + 8`) into the filter: the verdicts of
    /// the starts `base - 7 ..= base`, a byte each, all ones when no group
    /// passed.
    #[inline(always)]
    fn block(&self, pairs: &[u16; 8], carry: &mut u64) -> u64 {
        let mut state = u128::from(*carry);
        for (j, &d) in pairs.iter().enumerate() {
            state |= u128::from(self.reach[usize::from(d)]) << (8 * j);
        }
        *carry = (state >> 64) as u64;
        state as u64
    }

    /// The first start among a block's verdicts where a string matches.
    #[inline(always)]
    fn first_passed(&self, hay: &[u8], done: u64, base: usize) -> Option<(usize, usize)> {
        if done == u64::MAX {
            return None;
        }
        let mut passed = lanes_with_a_clear_bit(done);
        while passed != 0 {
            let lane = passed.trailing_zeros() as usize / 8;
            passed &= passed - 1;
            let start = base + lane - (MAX_SPAN - 1);
            if let Some(end) = self.confirm(hay, start) {
                return Some((start, end));
            }
        }
        None
    }
}

/// The pairs a run hashes at once.
const RUN: usize = 64;
/// The multiplier of [`domain`].
const PAIR_MULTIPLIER: u16 = 0x9E37;

/// The hashed pairs at each offset of a run: [`domain`] of `run[j]` and
/// `run[j + 1]`, sixteen at a time in vector registers (SSE2, part of
/// every x86_64 CPU): interleaving the run's bytes with the same bytes one
/// further makes the pairs.
///
/// # Safety
///
/// The CPU must support SSE2 (every x86_64 CPU does).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
unsafe fn hash_run(run: &[u8; RUN + 1]) -> [u16; RUN] {
    use std::arch::x86_64::*;
    let mut pairs = [0u16; RUN];
    let multiplier = _mm_set1_epi16(PAIR_MULTIPLIER as i16);
    for (i, out) in pairs.chunks_exact_mut(16).enumerate() {
        let (firsts, seconds): (&[u8; 16], &[u8; 16]) = (
            run[16 * i..16 * i + 16].try_into().expect("16 bytes"),
            run[16 * i + 1..16 * i + 17].try_into().expect("16 bytes"),
        );
        let out: &mut [u16; 16] = out.try_into().expect("16 pairs");
        // SAFETY: each load reads the 16 bytes of an array of 16 bytes and
        // each store writes 16 bytes, 8 of `out`'s 16 numbers (at 0 and 8);
        // unaligned loads and stores accept any address.
        unsafe {
            let a = _mm_loadu_si128(firsts.as_ptr().cast());
            let b = _mm_loadu_si128(seconds.as_ptr().cast());
            let hash = |pairs| {
                _mm_srli_epi16::<{ 16 - DOMAIN_BITS as i32 }>(_mm_mullo_epi16(pairs, multiplier))
            };
            _mm_storeu_si128(out.as_mut_ptr().cast(), hash(_mm_unpacklo_epi8(a, b)));
            _mm_storeu_si128(out.as_mut_ptr().add(8).cast(), hash(_mm_unpackhi_epi8(a, b)));
        }
    }
    pairs
}

/// The hashed pairs at each offset of a run, one at a time.
///
/// # Safety
///
/// None needed; unsafe to match the vector version's signature.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn hash_run(run: &[u8; RUN + 1]) -> [u16; RUN] {
    let mut pairs = [0u16; RUN];
    for (j, d) in pairs.iter_mut().enumerate() {
        *d = domain(run[j], run[j + 1]);
    }
    pairs
}

/// One bit (the lowest) per byte of `word` that is not all ones.
#[inline(always)]
fn lanes_with_a_clear_bit(word: u64) -> u64 {
    const LOW: u64 = 0x0101_0101_0101_0101;
    let clear = !word;
    // A byte is non-zero when folding its bits down leaves its low bit set.
    let mut fold = clear | (clear >> 4);
    fold |= fold >> 2;
    fold |= fold >> 1;
    fold & LOW
}

#[cfg(test)]
mod tests {
    use super::ShiftOrSet;
    use proptest::prelude::*;

    /// The longest string at each start, by brute force.
    fn longest_at(pats: &[Vec<u8>], hay: &[u8]) -> Vec<Option<usize>> {
        (0..hay.len())
            .map(|s| pats.iter().filter(|p| hay[s..].starts_with(p)).map(|p| s + p.len()).max())
            .collect()
    }

    /// Every match of `pats` in `hay`, from each start after the last, as
    /// brute force finds it.
    fn every_match(set: &ShiftOrSet, pats: &[Vec<u8>], hay: &[u8]) {
        let longest = longest_at(pats, hay);
        let naive = |at: usize| (at..hay.len()).find_map(|s| longest[s].map(|end| (s, end)));
        let mut at = 0;
        loop {
            let want = naive(at);
            assert_eq!(set.find_at(hay, at), want, "at {at}, {pats:?}");
            match want {
                Some((s, _)) => at = s + 1,
                None => break,
            }
        }
    }

    proptest! {
        /// A small alphabet makes shared pairs, overlaps and prefixes
        /// common; sets of one to 300 strings fill one group or all eight.
        #[test]
        fn finds_what_brute_force_finds(
            pats in prop::collection::vec(prop::collection::vec(prop::sample::select(b"abc_\n\xe9".to_vec()), 3..12), 1..300),
            hay in prop::collection::vec(prop::sample::select(b"abc_\n\xe9".to_vec()), 0..400),
        ) {
            let set = ShiftOrSet::new(&pats).unwrap();
            every_match(&set, &pats, &hay);
        }
    }

    /// Each string alone, planted at every offset of a haystack of
    /// non-matching bytes, is found there: the lanes, the carry between
    /// blocks and the tail each decide some of these starts.
    #[test]
    fn a_string_is_found_at_every_offset() {
        let pats: Vec<Vec<u8>> = (0..40usize)
            .map(|i| {
                let len = 3 + i % 13;
                (0..len).map(|j| b'a' + ((i * 7 + j) % 26) as u8).collect()
            })
            .collect();
        let set = ShiftOrSet::new(&pats).unwrap();
        for p in &pats {
            for at in 0..40 {
                for len in at + p.len()..at + p.len() + 20 {
                    let mut hay = vec![b'.'; len];
                    hay[at..at + p.len()].copy_from_slice(p);
                    every_match(&set, &pats, &hay);
                    assert!(set.find_at(&hay, 0).is_some_and(|(s, _)| s <= at));
                }
            }
        }
    }

    #[test]
    fn refuses_strings_shorter_than_three_bytes() {
        assert!(ShiftOrSet::new(&[b"abcd".to_vec(), b"ab".to_vec()]).is_none());
        assert!(ShiftOrSet::new(&[]).is_none());
    }
}
