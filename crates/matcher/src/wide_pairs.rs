//! One to eight pairs of ASCII bytes a fixed distance apart (the gap: 1 for
//! adjacent bytes), found 64 positions at a time by table where the CPU has
//! AVX-512 VBMI: windows.rs's probe for a few literals, each found by a pair
//! of rare bytes inside it.
//!
//! Teddy (aho-corasick's packed search) finds adjacent pairs 32 positions at
//! a time through nibble tables, and each find is a call through its API.
//! Here each byte of a 64-byte vector looks up, in a 128-entry table, the
//! pairs it starts (a bit each), the byte a gap further the pairs it ends,
//! and a position is flagged where the two sets meet: exact, so a flagged
//! position holds a pair.

use std::ops::Range;

/// The pairs searched for, in the order of their ids, and their tables.
#[derive(Clone, Debug)]
pub(crate) struct WidePairs {
    pairs: Vec<[u8; 2]>,
    /// How far the second byte of each pair is from its first.
    gap: usize,
    tables: Box<Tables>,
    lookup: Lookup,
}

/// How a byte finds its entry in the tables.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Lookup {
    /// By its 7 low bits, from both halves (`vpermt2b`, two cycles a vector
    /// on this CPU's one shuffle port): exact.
    Full,
    /// Every pair byte is in 0x40..=0x5f (capitals, `@[\]^_`): by its 6
    /// low bits, from the upper half (`vpermb`, one cycle). A control byte
    /// (0x00-0x1f) then reads the entry of the byte 0x40 above it (`\n`
    /// that of `J`), so a flagged position is checked; both bytes of a
    /// pair must be met so, which the controls of text rarely do.
    Upper,
}

/// For each ASCII byte, the pairs it starts and those it ends (bit k: the
/// pair with id k).
#[derive(Clone, Debug)]
struct Tables {
    first: [u8; 128],
    second: [u8; 128],
}

impl WidePairs {
    /// Most pairs: a bit each in a byte.
    pub(crate) const MAX: usize = 8;

    /// The widest gap.
    pub(crate) const MAX_GAP: usize = 8;

    /// None unless there are 1 to [`WidePairs::MAX`] pairs, all ASCII, the
    /// gap is 1 to [`WidePairs::MAX_GAP`], and the CPU has AVX-512 BW and
    /// VBMI ([`WidePairs::available`]).
    pub(crate) fn new(pairs: &[[u8; 2]], gap: usize) -> Option<WidePairs> {
        let fits = (1..=Self::MAX).contains(&pairs.len())
            && (1..=Self::MAX_GAP).contains(&gap)
            && pairs.iter().flatten().all(u8::is_ascii);
        if !fits || !Self::available() {
            return None;
        }
        let mut tables = Box::new(Tables { first: [0; 128], second: [0; 128] });
        for (k, pair) in pairs.iter().enumerate() {
            tables.first[usize::from(pair[0])] |= 1 << k;
            tables.second[usize::from(pair[1])] |= 1 << k;
        }
        let lookup = match pairs.iter().flatten().all(|b| (0x40..=0x5f).contains(b)) {
            true => Lookup::Upper,
            false => Lookup::Full,
        };
        Some(WidePairs { pairs: pairs.to_vec(), gap, tables, lookup })
    }

    /// Whether the CPU runs this search (AVX-512 BW and VBMI).
    pub(crate) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi");
        #[allow(unreachable_code)]
        false
    }

    /// The bytes a pair spans: its gap and one.
    pub(crate) fn width(&self) -> usize {
        self.gap + 1
    }

    /// The leftmost start of a pair inside `span` of `hay` (both its bytes
    /// in the span), and the pair's id (the first, when pairs repeat).
    pub(crate) fn find(&self, hay: &[u8], span: Range<usize>) -> Option<(usize, usize)> {
        let hay = &hay[..span.end.min(hay.len())];
        let mut at = span.start;
        #[cfg(target_arch = "x86_64")]
        loop {
            // SAFETY: construction checked AVX-512 BW and VBMI.
            let scan = unsafe {
                match self.lookup {
                    Lookup::Full => scan_vbmi::<false>(&self.tables, hay, at, self.gap),
                    Lookup::Upper => scan_vbmi::<true>(&self.tables, hay, at, self.gap),
                }
            };
            match scan {
                Ok(start) => match self.id_at(hay, start) {
                    Some(id) => return Some((start, id)),
                    // Control bytes read as a pair (Lookup::Upper).
                    None => at = start + 1,
                },
                Err(rest) => {
                    at = rest;
                    break;
                }
            }
        }
        (at..hay.len().saturating_sub(self.gap)).find_map(|p| self.id_at(hay, p).map(|id| (p, id)))
    }

    /// The id of the pair starting at `p`, if any.
    fn id_at(&self, hay: &[u8], p: usize) -> Option<usize> {
        self.pairs.iter().position(|pair| hay[p] == pair[0] && hay[p + self.gap] == pair[1])
    }
}

/// The leftmost start at or after `at` of a pair whose bytes are `gap`
/// apart in `hay`, 64 starts a vector: Ok with the start, or Err with the
/// first start not looked at (`hay` is shorter than 64 + `gap` bytes, or
/// every start was looked at). With `UPPER` (see [`Lookup::Upper`]) the
/// start may hold control bytes instead of a pair.
///
/// # Safety
///
/// The CPU must support AVX-512 BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn scan_vbmi<const UPPER: bool>(
    t: &Tables,
    hay: &[u8],
    mut at: usize,
    gap: usize,
) -> Result<usize, usize> {
    use std::arch::x86_64::*;
    // SAFETY: each table is 128 bytes, read as two 64-byte halves.
    let (f_lo, f_hi, s_lo, s_hi) = unsafe {
        (
            _mm512_loadu_si512(t.first.as_ptr() as *const _),
            _mm512_loadu_si512(t.first.as_ptr().add(64) as *const _),
            _mm512_loadu_si512(t.second.as_ptr() as *const _),
            _mm512_loadu_si512(t.second.as_ptr().add(64) as *const _),
        )
    };
    let p = hay.as_ptr();
    // Starts at..at + 64 read bytes at..at + 64 + gap: inside `hay` while
    // at + 64 + gap <= hay.len().
    let test = |at: usize| -> u64 {
        // SAFETY: the callers below keep at + 64 + gap <= hay.len(), so both
        // 64-byte loads read inside `hay`; the caller of this fn guarantees
        // AVX-512 BW and VBMI.
        unsafe {
            let a = _mm512_loadu_si512(p.add(at) as *const _);
            let b = _mm512_loadu_si512(p.add(at + gap) as *const _);
            // The permute reads a byte's low 7 bits (6 with UPPER); a
            // position where either byte is over 0x7f starts no pair, so it
            // is cleared afterwards (off the lookups' path: one mask for
            // both bytes).
            let (starts, ends) = match UPPER {
                true => (_mm512_permutexvar_epi8(a, f_hi), _mm512_permutexvar_epi8(b, s_hi)),
                false => (
                    _mm512_permutex2var_epi8(f_lo, a, f_hi),
                    _mm512_permutex2var_epi8(s_lo, b, s_hi),
                ),
            };
            let high = _mm512_movepi8_mask(_mm512_or_si512(a, b));
            _kandn_mask64(high, _mm512_test_epi8_mask(starts, ends))
        }
    };
    // The first byte's loads on a cache line (see fold.rs's pair scan):
    // the starts before the line are tested as one vector.
    let misaligned = (p as usize + at) % 64;
    if misaligned != 0 && at + 128 + gap <= hay.len() {
        let hits = test(at) & (u64::MAX >> misaligned);
        if hits != 0 {
            return Ok(at + hits.trailing_zeros() as usize);
        }
        at += 64 - misaligned;
    }
    // Two vectors a step: one branch per 128 starts.
    while at + 128 + gap <= hay.len() {
        let (lo, hi) = (test(at), test(at + 64));
        if lo | hi != 0 {
            let first = if lo != 0 { lo.trailing_zeros() } else { 64 + hi.trailing_zeros() };
            return Ok(at + first as usize);
        }
        at += 128;
    }
    if at + 64 + gap <= hay.len() {
        let hits = test(at);
        if hits != 0 {
            return Ok(at + hits.trailing_zeros() as usize);
        }
        at += 64;
    }
    if at + gap < hay.len() && hay.len() >= 64 + gap {
        // The last starts: the vector of the 64 that end the haystack, less
        // those already tested.
        let base = hay.len() - 64 - gap;
        let hits = test(base) & (u64::MAX << (at - base));
        return match hits {
            0 => Err(hay.len()),
            _ => Ok(base + hits.trailing_zeros() as usize),
        };
    }
    Err(at)
}

#[cfg(test)]
mod tests {
    use super::WidePairs;
    use proptest::prelude::*;

    /// The leftmost pair (bytes `gap` apart) in `hay[start..end]`, byte by
    /// byte.
    fn naive(
        pairs: &[[u8; 2]],
        gap: usize,
        hay: &[u8],
        start: usize,
        end: usize,
    ) -> Option<(usize, usize)> {
        (start..end.saturating_sub(gap)).find_map(|p| {
            pairs.iter().position(|q| hay[p] == q[0] && hay[p + gap] == q[1]).map(|id| (p, id))
        })
    }

    #[test]
    fn bytes_over_0x7f_never_stand_for_their_low_seven_bits() {
        // 0xC1 & 0x7f is `A`: a table read by the low bits alone would
        // flag `\xC1B` as `AB`.
        let Some(wide) = WidePairs::new(&[*b"AB", *b"CD"], 1) else { return };
        let hay = [b"x".repeat(70), vec![0xC1, b'B', 0xC3, 0xC4], b"AB".to_vec(), b"y".repeat(70)]
            .concat();
        assert_eq!(wide.find(&hay, 0..hay.len()), Some((74, 0)));
        assert_eq!(wide.find(&hay, 0..75), None, "a pair must end inside the span");
    }

    #[test]
    fn a_gapped_pair_must_end_inside_the_span() {
        let Some(wide) = WidePairs::new(&[*b"AB"], 4) else { return };
        assert_eq!(wide.width(), 5);
        // `A...B` at 150, and `AB` side by side (not a pair at gap 4).
        let mut hay = b"x".repeat(300);
        hay[100..102].copy_from_slice(b"AB");
        hay[150..155].copy_from_slice(b"A...B");
        assert_eq!(wide.find(&hay, 0..hay.len()), Some((150, 0)));
        assert_eq!(wide.find(&hay, 0..154), None);
        assert_eq!(wide.find(&hay, 0..155), Some((150, 0)));
        assert_eq!(wide.find(&hay, 151..hay.len()), None);
    }

    #[test]
    fn a_pair_is_found_wherever_the_scan_starts_on_a_cache_line() {
        // Every start offset on a line, every pair position from there to
        // past the first two-vector step.
        let Some(wide) = WidePairs::new(&[*b"AB"], 3) else { return };
        for start in 0..64 {
            for at in start..start + 200 {
                let mut hay = b"x".repeat(600);
                hay[at] = b'A';
                hay[at + 3] = b'B';
                assert_eq!(wide.find(&hay, start..hay.len()), Some((at, 0)), "{start} {at}");
            }
        }
    }

    #[test]
    fn control_bytes_are_not_taken_for_the_capitals_they_alias() {
        // `\n` (0x0a) has the 6 low bits of `J`, 0x11 those of `Q`.
        let Some(wide) = WidePairs::new(&[*b"JQ"], 2) else { return };
        assert_eq!(wide.lookup, super::Lookup::Upper);
        let mut hay = b"\n.\x11 ".repeat(100);
        hay.extend_from_slice(b"J.\x11 \n.Q J.Q");
        let want = hay.len() - 3;
        assert_eq!(wide.find(&hay, 0..hay.len()), Some((want, 0)));
        assert_eq!(WidePairs::new(&[*b"J3"], 2).map(|w| w.lookup), Some(super::Lookup::Full));
    }

    #[test]
    fn refuses_pairs_over_0x7f_more_than_eight_and_gaps_out_of_range() {
        assert!(WidePairs::new(&[[0xC1, b'B']], 1).is_none());
        assert!(WidePairs::new(&[*b"AB"; 9], 1).is_none());
        assert!(WidePairs::new(&[], 1).is_none());
        assert!(WidePairs::new(&[*b"AB"], 0).is_none());
        assert!(WidePairs::new(&[*b"AB"], WidePairs::MAX_GAP + 1).is_none());
    }

    proptest! {
        #[test]
        fn finds_what_a_byte_by_byte_search_finds(
            // Capitals only (Lookup::Upper), or with `3` (Lookup::Full);
            // the haystack holds the control bytes that alias A-E.
            pairs in proptest::collection::vec(
                proptest::array::uniform2(prop::sample::select(b"ABCD3".to_vec())), 1..=8),
            gap in 1..=WidePairs::MAX_GAP,
            hay in proptest::collection::vec(
                prop_oneof![b'A'..b'F', Just(0xC1u8), 0x01u8..0x05, Just(b'3')], 0..300),
            start in 0usize..300,
            len in 0usize..300,
        ) {
            let Some(wide) = WidePairs::new(&pairs, gap) else { return Ok(()) };
            let end = (start + len).min(hay.len());
            let start = start.min(end);
            prop_assert_eq!(wide.find(&hay, start..end), naive(&pairs, gap, &hay, start, end));
        }
    }
}
