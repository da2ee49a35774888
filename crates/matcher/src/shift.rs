//! Many fixed strings at once, case-blind or not: a shift table over
//! blocks of three bytes (Wu and Manber's multi-pattern search).
//!
//! Every pattern is cut to its first `m` bytes, `m` the shortest pattern's
//! length, and a window of `m` bytes slides over the haystack. The block of
//! three bytes at the window's end says how far the window may move without
//! passing an alignment where some pattern's first `m` bytes could sit:
//! the least distance from an occurrence of that block in a pattern's
//! first `m` bytes to their end, or `m - 2` when no pattern holds it. Only
//! where that distance is 0 are the patterns that end their first `m`
//! bytes with the block compared with the haystack, longest first.
//!
//! Windows are visited in the order of their starts, so the first
//! comparison that succeeds is the leftmost match, and the longest pattern
//! matching there: grep -F's leftmost-longest rule. Under `-i` both the
//! patterns and the haystack's bytes go through one table that lowercases
//! ASCII letters, so case costs nothing: Aho-Corasick's ASCII case folding
//! gives up its vector search, and the regex engine's literal prefilters
//! cannot hold the 2^n spellings of a case-blind word of n letters.

use crate::slots::Slots;

/// The block length: shifts of up to `m - 2` bytes, and few blocks of a
/// thousand identifiers share a hash slot among 2^16.
const BLOCK: usize = 3;
const SLOTS: usize = 1 << 16;

/// A set of fixed strings searched with a shift table.
#[derive(Clone, Debug)]
pub(crate) struct ShiftSet {
    /// Byte → the byte compared: identity, or ASCII lowercase under `-i`.
    fold: [u8; 256],
    /// The window: the shortest pattern's length (at most 255 + 2).
    m: usize,
    /// Per hashed block: how far the window may move.
    shift: Box<[u8]>,
    /// Per hashed last block of a pattern's first `m` bytes: the patterns
    /// that end so, longest first.
    ids: Slots<u32>,
    /// The patterns, folded.
    patterns: Vec<Box<[u8]>>,
}

#[inline(always)]
fn slot(a: u8, b: u8, c: u8) -> usize {
    let key = u32::from(a) | (u32::from(b) << 8) | (u32::from(c) << 16);
    (key.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

impl ShiftSet {
    /// None when a pattern is shorter than four bytes (the shifts would
    /// be too short to pay) or there are no patterns.
    pub(crate) fn new(patterns: &[Vec<u8>], ignore_case: bool) -> Option<ShiftSet> {
        let shortest = patterns.iter().map(Vec::len).min()?;
        if shortest < BLOCK + 1 {
            return None;
        }
        let mut fold = [0u8; 256];
        for (i, f) in fold.iter_mut().enumerate() {
            let b = i as u8;
            *f = if ignore_case { b.to_ascii_lowercase() } else { b };
        }
        let m = shortest.min(255 + BLOCK - 1);
        let patterns: Vec<Box<[u8]>> =
            patterns.iter().map(|p| p.iter().map(|&b| fold[usize::from(b)]).collect()).collect();
        let mut shift = vec![(m - BLOCK + 1) as u8; SLOTS].into_boxed_slice();
        for p in &patterns {
            for end in BLOCK - 1..m {
                let s = slot(p[end - 2], p[end - 1], p[end]);
                shift[s] = shift[s].min((m - 1 - end) as u8);
            }
        }
        let last_block = |i: usize| {
            let p = &patterns[i];
            slot(p[m - 3], p[m - 2], p[m - 1])
        };
        let ids = Slots::new(&patterns, SLOTS, last_block, |i| i as u32);
        Some(ShiftSet { fold, m, shift, ids, patterns })
    }

    /// The leftmost-longest match starting at or after `at`: (start, end).
    pub(crate) fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let fold = &self.fold;
        let f = |i: usize| fold[usize::from(hay[i])];
        let mut end = at.checked_add(self.m - 1)?;
        while end < hay.len() {
            let s = slot(f(end - 2), f(end - 1), f(end));
            let step = self.shift[s];
            if step != 0 {
                end += usize::from(step);
                continue;
            }
            let start = end + 1 - self.m;
            for &id in self.ids.get(s) {
                let p = &self.patterns[id as usize];
                if let Some(window) = hay.get(start..start + p.len()) {
                    if window.iter().zip(p.iter()).all(|(&h, &n)| fold[usize::from(h)] == n) {
                        return Some((start, start + p.len()));
                    }
                }
            }
            end += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::ShiftSet;

    /// The leftmost-longest match by brute force.
    fn naive(pats: &[Vec<u8>], hay: &[u8], at: usize, icase: bool) -> Option<(usize, usize)> {
        let eq = |a: u8, b: u8| if icase { a.eq_ignore_ascii_case(&b) } else { a == b };
        (at..hay.len()).find_map(|s| {
            pats.iter()
                .filter(|p| {
                    hay.len() - s >= p.len() && p.iter().zip(&hay[s..]).all(|(&a, &b)| eq(a, b))
                })
                .map(|p| p.len())
                .max()
                .map(|len| (s, s + len))
        })
    }

    #[test]
    fn finds_what_brute_force_finds_with_and_without_case() {
        // A small alphabet makes overlaps, shared blocks and prefixes common.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let alphabet = b"abAB_c\n";
        for round in 0..400 {
            let npats = 1 + next(12) as usize;
            let pats: Vec<Vec<u8>> = (0..npats)
                .map(|_| {
                    let len = 4 + next(6) as usize;
                    (0..len).map(|_| alphabet[next(6) as usize]).collect()
                })
                .collect();
            let hay: Vec<u8> =
                (0..next(300) as usize).map(|_| alphabet[next(7) as usize]).collect();
            for icase in [false, true] {
                let set = ShiftSet::new(&pats, icase).unwrap();
                let mut at = 0;
                loop {
                    let want = naive(&pats, &hay, at, icase);
                    assert_eq!(set.find_at(&hay, at), want, "round {round} at {at} {pats:?}");
                    match want {
                        Some((s, _)) => at = s + 1,
                        None => break,
                    }
                }
            }
        }
    }

    #[test]
    fn refuses_patterns_shorter_than_four_bytes() {
        assert!(ShiftSet::new(&[b"abcd".to_vec(), b"abc".to_vec()], false).is_none());
        assert!(ShiftSet::new(&[], false).is_none());
    }
}
