//! A handful of case-blind strings at once (`-F -i` with 5 to 16 strings).
//!
//! The one-string finder's test, per string: two of its least common
//! bytes compared (ORed with 0x20 where they fold) at 32 candidate starts
//! at a time; the strings' tests are ORed, and a flagged start is checked
//! against every string, the longest that matches winning (grep -F's
//! leftmost-longest rule). The shift table is slower here: its steps are
//! short and each waits for the last (1.41 s on big.txt for 10 strings,
//! where this filter reads every byte once per string in vector loads).

use crate::fold::{rarest_pair, FoldByte};

/// Several strings, some bytes of which match either case.
#[derive(Clone, Debug)]
pub(crate) struct FoldSet {
    needles: Vec<Vec<FoldByte>>,
    /// Per string: the offsets of the two bytes tested.
    pairs: Vec<(usize, usize)>,
    /// The largest of those offsets.
    reach: usize,
}

impl FoldSet {
    /// At most this many strings: each adds two loads and five operations
    /// per 32 bytes.
    pub(crate) const MAX: usize = 16;

    /// None without AVX2, with more than [`FoldSet::MAX`] strings, or with
    /// a string shorter than two bytes.
    pub(crate) fn new(patterns: &[Vec<u8>]) -> Option<FoldSet> {
        let avx2 = crate::simd::avx2();
        if !avx2 || patterns.is_empty() || patterns.len() > Self::MAX {
            return None;
        }
        let needles: Vec<Vec<FoldByte>> = patterns
            .iter()
            .map(|p| p.iter().map(|&b| FoldByte::ignoring_case(b)).collect())
            .collect();
        let pairs = needles.iter().map(|n| rarest_pair(n)).collect::<Option<Vec<_>>>()?;
        let reach = pairs.iter().map(|&(a, b)| a.max(b)).max()?;
        Some(FoldSet { needles, pairs, reach })
    }

    /// The leftmost-longest match starting at or after `at`: (start, end).
    pub(crate) fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: AVX2 was detected in `new`; `find_avx2` reads only
            // inside `hay` (see there).
            return unsafe { self.find_avx2(hay, at) };
        }
        #[allow(unreachable_code)]
        self.find_scalar(hay, at)
    }

    /// The length of the longest string at `start`, if any is there.
    fn longest_at(&self, hay: &[u8], start: usize) -> Option<usize> {
        let rest = &hay[start..];
        self.needles
            .iter()
            .filter(|n| n.len() <= rest.len() && n.iter().zip(rest).all(|(f, &b)| f.matches(b)))
            .map(Vec::len)
            .max()
    }

    fn find_scalar(&self, hay: &[u8], from: usize) -> Option<(usize, usize)> {
        (from..hay.len()).find_map(|s| self.longest_at(hay, s).map(|len| (s, s + len)))
    }

    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn find_avx2(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        use std::arch::x86_64::*;
        const WIDTH: usize = 32;
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        let tests: Vec<[__m256i; 4]> = self
            .needles
            .iter()
            .zip(&self.pairs)
            .map(|(n, &(i1, i2))| {
                [set(n[i1].value), set(n[i1].mask), set(n[i2].value), set(n[i2].mask)]
            })
            .collect();
        let mut p = at;
        if let Some(end) = hay.len().checked_sub(self.reach + WIDTH) {
            while p <= end {
                let mut any = _mm256_setzero_si256();
                for (t, &(i1, i2)) in tests.iter().zip(&self.pairs) {
                    // SAFETY: p <= hay.len() - reach - 32 and i1, i2 <=
                    // reach, so both 32-byte loads lie inside `hay`.
                    let (c1, c2) = unsafe {
                        let base = hay.as_ptr().add(p);
                        (
                            _mm256_loadu_si256(base.add(i1) as *const __m256i),
                            _mm256_loadu_si256(base.add(i2) as *const __m256i),
                        )
                    };
                    let e1 = _mm256_cmpeq_epi8(_mm256_or_si256(c1, t[1]), t[0]);
                    let e2 = _mm256_cmpeq_epi8(_mm256_or_si256(c2, t[3]), t[2]);
                    any = _mm256_or_si256(any, _mm256_and_si256(e1, e2));
                }
                let mut bits = _mm256_movemask_epi8(any) as u32;
                while bits != 0 {
                    let start = p + bits.trailing_zeros() as usize;
                    if let Some(len) = self.longest_at(hay, start) {
                        return Some((start, start + len));
                    }
                    bits &= bits - 1;
                }
                p += WIDTH;
            }
        }
        self.find_scalar(hay, p)
    }
}

#[cfg(test)]
mod tests {
    use super::FoldSet;
    use proptest::prelude::*;

    /// The leftmost-longest match by brute force, ASCII case ignored.
    fn naive(pats: &[Vec<u8>], hay: &[u8], at: usize) -> Option<(usize, usize)> {
        (at..hay.len()).find_map(|s| {
            pats.iter()
                .filter(|p| {
                    p.len() <= hay.len() - s && p.eq_ignore_ascii_case(&hay[s..s + p.len()])
                })
                .map(|p| (s, s + p.len()))
                .max_by_key(|&(_, e)| e)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn finds_what_brute_force_finds(
            pats in proptest::collection::vec(
                proptest::collection::vec(prop::sample::select(b"abAB_\x7f\xc1".to_vec()), 2..6), 1..17),
            hay in proptest::collection::vec(prop::sample::select(b"abAB_\x7f\xc1 ".to_vec()), 0..200),
        ) {
            let Some(set) = FoldSet::new(&pats) else { return Ok(()) };
            let mut at = 0;
            loop {
                let want = naive(&pats, &hay, at);
                prop_assert_eq!(set.find_at(&hay, at), want);
                match want {
                    Some((s, _)) => at = s + 1,
                    None => break,
                }
            }
        }
    }
}
