//! A substring search that ignores ASCII case (`-i` on a literal).
//!
//! Neither engine searches for a case-folded literal quickly: `(?i)pm_resume`
//! has 256 case variants, too many for the regex engine's literal
//! prefilters, and Aho-Corasick's ASCII case folding gives up its vector
//! search. This finder is the packed-pair search of `memchr::memmem` made
//! case-blind: two bytes of the needle, chosen as the least common, are
//! compared at every position 64 (AVX-512 BW), 32 (AVX2) or 16 (SSE2) at a
//! time, and a position where both agree is checked against the whole
//! needle.
//!
//! Folding is one OR: an ASCII letter's cases differ only in bit 0x20, and
//! `x | 0x20 == c` holds for exactly the two cases of a lowercase letter `c`,
//! so comparing `hay[i] | mask[i]` with the lowercased needle is exact, with
//! `mask` 0x20 at letters that fold and 0 elsewhere.
//!
//! One algorithm, kept whole past 600 lines: the case-blind packed-pair
//! search at each vector width (scalar, SSE2, AVX2, AVX-512 with its flood
//! hand-over), whose variants share the needle's layout, the pair chosen by
//! byte rarity and the candidate check, so they are read and changed
//! together.

use crate::budget::MissBudget;

/// One byte of a needle: its value (lowercase when it folds) and the bit
/// ORed into the haystack byte before comparing.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct FoldByte {
    pub(crate) value: u8,
    pub(crate) mask: u8,
}

impl FoldByte {
    /// A byte matched exactly.
    pub(crate) fn exact(b: u8) -> FoldByte {
        FoldByte { value: b, mask: 0 }
    }

    /// Either case of an ASCII letter.
    pub(crate) fn either_case(letter: u8) -> FoldByte {
        debug_assert!(letter.is_ascii_alphabetic());
        FoldByte { value: letter.to_ascii_lowercase(), mask: 0x20 }
    }

    /// `b` as `-i` reads it in the C locale: either case of an ASCII
    /// letter, any other byte exactly.
    pub(crate) fn ignoring_case(b: u8) -> FoldByte {
        if b.is_ascii_alphabetic() {
            FoldByte::either_case(b)
        } else {
            FoldByte::exact(b)
        }
    }

    pub(crate) fn matches(self, b: u8) -> bool {
        b | self.mask == self.value
    }
}

/// Failed checks a scan that hands over allows: 32, then one per 16
/// bytes of its haystack.
const FLOOD_BUDGET: MissBudget = MissBudget { base: 0, free: 32, bytes: 16 };

/// What [`FoldFinder::find_or_flood`] found.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum PairScan {
    Found(usize),
    Absent,
    /// The pair stopped filtering: no match starts before this offset, and
    /// the rest is to be searched another way.
    Flooded(usize),
}

/// Whether a scan that hands over has failed too many starts by `base`
/// ([`FLOOD_BUDGET`]).
fn past_flood_limit(flood: Flood, failed: usize, base: usize) -> bool {
    flood == Flood::HandOver && FLOOD_BUDGET.spent(failed, base)
}

impl PairScan {
    fn found(self) -> Option<usize> {
        match self {
            PairScan::Found(at) => Some(at),
            // Only a scan that hands over stops early.
            PairScan::Absent | PairScan::Flooded(_) => None,
        }
    }
}

impl From<Option<usize>> for PairScan {
    fn from(found: Option<usize>) -> PairScan {
        found.map_or(PairScan::Absent, PairScan::Found)
    }
}

/// Whether a scan gives up when its pair stops filtering.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Flood {
    /// Checks every flagged start (the case-blind search has nothing else).
    Tolerated,
    /// Returns [`PairScan::Flooded`] (an exact literal has memmem).
    HandOver,
}

/// Finds a needle of at least two bytes, some of which may match either case.
#[derive(Clone, Debug)]
pub(crate) struct FoldFinder {
    needle: Vec<FoldByte>,
    /// Offsets in the needle of the two bytes every position is tested on.
    i1: usize,
    i2: usize,
    /// The needle's first 64 bytes, as the 64-wide search checks a start.
    head: Head,
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
    #[cfg(target_arch = "x86_64")]
    avx512: bool,
}

/// The first (up to) 64 bytes of a needle, laid out for one vector compare:
/// a start matches them where `(hay | mask) == value` in the first `len`
/// lanes.
#[derive(Clone, Debug)]
struct Head {
    value: [u8; 64],
    mask: [u8; 64],
    len: usize,
}

impl Head {
    fn new(needle: &[FoldByte]) -> Head {
        let mut head = Head { value: [0; 64], mask: [0; 64], len: needle.len().min(64) };
        for (i, f) in needle.iter().take(64).enumerate() {
            head.value[i] = f.value;
            head.mask[i] = f.mask;
        }
        head
    }
}

/// Where one run of [`pairs_avx512`]'s loop stopped.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Step {
    /// A start whose first (up to) 64 bytes are the needle's.
    Candidate(usize),
    /// Failed starts passed the flood limit: no match starts before this.
    Flooded(usize),
    /// No candidate up to `last`: the next step's offset, past `last`.
    End(usize),
}

impl FoldFinder {
    /// None when the needle is shorter than two bytes.
    pub(crate) fn new(needle: Vec<FoldByte>) -> Option<FoldFinder> {
        if needle.len() < 2 {
            return None;
        }
        let (i1, i2) = rarest_pair(&needle)?;
        Some(FoldFinder {
            head: Head::new(&needle),
            needle,
            i1,
            i2,
            #[cfg(target_arch = "x86_64")]
            avx2: crate::simd::avx2(),
            #[cfg(target_arch = "x86_64")]
            avx512: crate::simd::avx512bw(),
        })
    }

    /// The needle's length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.needle.len()
    }

    /// The offset of the first occurrence of the needle in `hay`.
    pub(crate) fn find(&self, hay: &[u8]) -> Option<usize> {
        if hay.len() < self.needle.len() {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: AVX-512 BW and AVX2 were detected at construction;
            // SSE2 is part of x86_64. Each reads only inside `hay` (see
            // `find_avx512` and `find_vectors`).
            return unsafe {
                if self.avx512 {
                    self.find_avx512(hay, Flood::Tolerated).found()
                } else if self.avx2 {
                    self.find_avx2(hay)
                } else {
                    self.find_sse2(hay)
                }
            };
        }
        #[allow(unreachable_code)]
        self.find_scalar(hay, 0)
    }

    /// Whether the needle occurs at `at` (which leaves room for it).
    #[inline]
    fn is_at(&self, hay: &[u8], at: usize) -> bool {
        hay[at..at + self.needle.len()].iter().zip(&self.needle).all(|(&b, f)| f.matches(b))
    }

    /// The byte-at-a-time search of candidate starts from `from`.
    fn find_scalar(&self, hay: &[u8], from: usize) -> Option<usize> {
        let (b1, b2) = (self.needle[self.i1], self.needle[self.i2]);
        let last = hay.len() - self.needle.len();
        (from..=last).find(|&at| {
            b1.matches(hay[at + self.i1]) && b2.matches(hay[at + self.i2]) && self.is_at(hay, at)
        })
    }

    /// The search, 32 candidate starts at a time.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn find_avx2(&self, hay: &[u8]) -> Option<usize> {
        use std::arch::x86_64::*;
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        let (f1, f2) = (self.needle[self.i1], self.needle[self.i2]);
        let (v1, m1, v2, m2) = (set(f1.value), set(f1.mask), set(f2.value), set(f2.mask));
        // Tests the 32 candidate starts at..at + 32: a bit per start where
        // both chosen bytes agree.
        let test = |at: usize| {
            // SAFETY: find_vectors keeps at + max(i1, i2) + 32 <= hay.len(),
            // so both unaligned 32-byte loads read inside `hay`; the caller
            // of this fn guarantees AVX2.
            unsafe {
                let p = hay.as_ptr().add(at);
                let c1 = _mm256_loadu_si256(p.add(self.i1) as *const __m256i);
                let c2 = _mm256_loadu_si256(p.add(self.i2) as *const __m256i);
                let e1 = _mm256_cmpeq_epi8(_mm256_or_si256(c1, m1), v1);
                let e2 = _mm256_cmpeq_epi8(_mm256_or_si256(c2, m2), v2);
                _mm256_movemask_epi8(_mm256_and_si256(e1, e2)) as u32
            }
        };
        self.find_vectors(hay, 32, test)
    }

    /// Whether the CPU runs the 64-wide search (AVX-512 BW).
    pub(crate) fn is_wide(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.avx512;
        #[allow(unreachable_code)]
        false
    }

    /// [`FoldFinder::find`], giving up where the pair stops filtering: once
    /// more than one start per 16 bytes has passed the pair test and failed
    /// the needle. Only for a finder that [`is_wide`](FoldFinder::is_wide).
    pub(crate) fn find_or_flood(&self, hay: &[u8]) -> PairScan {
        if hay.len() < self.needle.len() {
            return PairScan::Absent;
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // SAFETY: AVX-512 BW was detected at construction.
            return unsafe { self.find_avx512(hay, Flood::HandOver) };
        }
        PairScan::from(self.find(hay))
    }

    /// The search, 64 candidate starts at a time, two vectors a step.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX-512 BW.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn find_avx512(&self, hay: &[u8], flood: Flood) -> PairScan {
        use std::arch::x86_64::*;
        let set = |b: u8| _mm512_set1_epi8(b as i8);
        let (f1, f2) = (self.needle[self.i1], self.needle[self.i2]);
        let (v1, m1, v2, m2) = (set(f1.value), set(f1.mask), set(f2.value), set(f2.mask));
        let folded = f1.mask | f2.mask != 0;
        let (i1, i2) = (self.i1, self.i2);
        let p = hay.as_ptr();
        // Starts below `ends` leave room for the whole needle. A vector of
        // starts at..at + 64 with at + 64 <= ends reads, for either chosen
        // byte, at most at + 63 + (needle.len() - 1) < hay.len(): inside.
        let ends = hay.len() - self.needle.len() + 1;
        let test = |at: usize| -> u64 {
            // SAFETY: at + 64 <= ends (see above); the caller of this fn
            // guarantees AVX-512 BW.
            unsafe {
                let c1 = _mm512_loadu_si512(p.add(at + i1) as *const _);
                let c2 = _mm512_loadu_si512(p.add(at + i2) as *const _);
                _mm512_cmpeq_epi8_mask(_mm512_or_si512(c1, m1), v1)
                    & _mm512_cmpeq_epi8_mask(_mm512_or_si512(c2, m2), v2)
            }
        };
        let mut failed = 0usize;
        // Checks the starts flagged in `bits` from `base`; then whether the
        // scan is to hand over (every start before `base` known not to match).
        let check = |base: usize, bits: u64, failed: &mut usize| -> Option<PairScan> {
            if let Some(found) = self.check_bits(hay, base, bits, failed) {
                return Some(PairScan::Found(found));
            }
            past_flood_limit(flood, *failed, base).then_some(PairScan::Flooded(base))
        };
        // SAFETY: both arrays are 64 bytes, the length of a load.
        let (head_value, head_mask) = unsafe {
            (
                _mm512_loadu_si512(self.head.value.as_ptr() as *const _),
                _mm512_loadu_si512(self.head.mask.as_ptr() as *const _),
            )
        };
        let head =
            Needle { value: head_value, mask: head_mask, lanes: u64::MAX >> (64 - self.head.len) };
        let pair = Pair { at_of: [i1, i2], value: [v1, v2], mask: [m1, m2] };
        let mut at = 0;
        while at + 128 <= ends {
            // The first chosen byte's loads on a cache line: a load across
            // two lines costs two, and when the bytes come from the L2 cache
            // (a file over the L1's 48 KiB just read) the scan with both
            // loads across lines runs at 16 bytes per TSC tick, with one on a
            // line at 21 (in L1: 25 and 29). The starts before the line are
            // tested as one vector.
            let misaligned = (p as usize + at + i1) % 64;
            if misaligned != 0 {
                let before = 64 - misaligned;
                if let Some(end) = check(at, test(at) & (u64::MAX >> misaligned), &mut failed) {
                    return end;
                }
                at += before;
                continue;
            }
            // SAFETY: the caller of this fn guarantees AVX-512 BW; a step
            // s <= ends - 128 reads at most s + 127 + max(i1, i2) <
            // hay.len() (see `ends` above), and a start s < ends has the
            // whole needle inside `hay`.
            let step = unsafe {
                match folded {
                    true => {
                        pairs_avx512::<true>(p, at, ends - 128, &pair, &head, flood, &mut failed)
                    }
                    false => {
                        pairs_avx512::<false>(p, at, ends - 128, &pair, &head, flood, &mut failed)
                    }
                }
            };
            match step {
                Step::End(next) => at = next,
                Step::Flooded(from) => return PairScan::Flooded(from),
                // The loop checked the head: only a needle longer than 64
                // bytes has more.
                Step::Candidate(start) if self.head.len == self.needle.len() => {
                    return PairScan::Found(start)
                }
                Step::Candidate(start) if self.is_at(hay, start) => return PairScan::Found(start),
                Step::Candidate(start) => {
                    failed += 1;
                    at = start + 1;
                }
            }
        }
        if at + 64 <= ends {
            if let Some(end) = check(at, test(at), &mut failed) {
                return end;
            }
            at += 64;
        }
        if at < ends && ends >= 64 {
            // The last starts: the vector of the 64 that end the haystack,
            // less those already tested (one byte at a time, the tail of
            // each file cost 3% of a tree search's user time).
            let base = ends - 64;
            let fresh = test(base) & (u64::MAX << (at - base));
            return check(base, fresh, &mut failed).unwrap_or(PairScan::Absent);
        }
        PairScan::from(self.find_scalar(hay, at))
    }

    /// The first start flagged in `bits` (starts `base`, `base` + 1, …)
    /// where the whole needle is; counts the others in `failed`.
    #[inline(always)]
    fn check_bits(
        &self,
        hay: &[u8],
        base: usize,
        mut bits: u64,
        failed: &mut usize,
    ) -> Option<usize> {
        while bits != 0 {
            let start = base + bits.trailing_zeros() as usize;
            if self.is_at(hay, start) {
                return Some(start);
            }
            *failed += 1;
            bits &= bits - 1;
        }
        None
    }

    /// The search, 16 candidate starts at a time.
    ///
    /// # Safety
    ///
    /// The CPU must support SSE2 (every x86_64 CPU does).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    unsafe fn find_sse2(&self, hay: &[u8]) -> Option<usize> {
        use std::arch::x86_64::*;
        let set = |b: u8| _mm_set1_epi8(b as i8);
        let (f1, f2) = (self.needle[self.i1], self.needle[self.i2]);
        let (v1, m1, v2, m2) = (set(f1.value), set(f1.mask), set(f2.value), set(f2.mask));
        let test = |at: usize| {
            // SAFETY: find_vectors keeps at + max(i1, i2) + 16 <= hay.len(),
            // so both unaligned 16-byte loads read inside `hay`; SSE2 is
            // part of x86_64.
            unsafe {
                let p = hay.as_ptr().add(at);
                let c1 = _mm_loadu_si128(p.add(self.i1) as *const __m128i);
                let c2 = _mm_loadu_si128(p.add(self.i2) as *const __m128i);
                let e1 = _mm_cmpeq_epi8(_mm_or_si128(c1, m1), v1);
                let e2 = _mm_cmpeq_epi8(_mm_or_si128(c2, m2), v2);
                _mm_movemask_epi8(_mm_and_si128(e1, e2)) as u32
            }
        };
        self.find_vectors(hay, 16, test)
    }

    /// Runs `test` (a bit per candidate start, `width` starts at a time)
    /// while whole vectors fit and checks each flagged start; the last
    /// starts by one more vector, the one whose loads end the haystack (as
    /// the 64-wide search does: a tail a byte at a time cost 3% of a tree
    /// search's user time). A haystack shorter than one vector's reach is
    /// searched a byte at a time.
    #[inline(always)]
    fn find_vectors(&self, hay: &[u8], width: usize, test: impl Fn(usize) -> u32) -> Option<usize> {
        let reach = self.i1.max(self.i2) + width;
        if hay.len() < reach {
            return self.find_scalar(hay, 0);
        }
        // Candidate starts up to `end + width - 1` have both loads inside
        // `hay`, and no later one leaves room for the needle (it holds a
        // byte at max(i1, i2)); a flagged start must also leave room for
        // the whole needle.
        let end = hay.len() - reach;
        let last = hay.len() - self.needle.len();
        let first_passed = |base: usize, mut bits: u32| {
            while bits != 0 {
                let start = base + bits.trailing_zeros() as usize;
                if start <= last && self.is_at(hay, start) {
                    return Some(start);
                }
                bits &= bits - 1;
            }
            None
        };
        let mut at = 0;
        while at <= end {
            if let Some(start) = first_passed(at, test(at)) {
                return Some(start);
            }
            at += width;
        }
        // The vector at `end`, less the starts already tested: at - end is
        // 1 to `width`, and `width` (32 at most) means none is left.
        let tested = at - end;
        (tested < width).then(|| first_passed(end, test(end) & (u32::MAX << tested))).flatten()
    }
}

/// The offsets of the least common byte of `needle`, then of the least
/// common at another offset: the two bytes every position is tested on.
pub(crate) fn rarest_pair(needle: &[FoldByte]) -> Option<(usize, usize)> {
    let rank = |i: &usize| (commonness(needle[*i]), *i);
    let i1 = (0..needle.len()).min_by_key(rank)?;
    let i2 = (0..needle.len()).filter(|&i| i != i1).min_by_key(rank)?;
    Some((i1, i2))
}

/// How common a byte is in text and source code, roughly (higher is more
/// common); a byte that matches either case counts as its commoner case.
/// Only the order matters: it picks the two bytes every position is tested on.
fn commonness(f: FoldByte) -> u8 {
    if f.mask == 0 {
        byte_commonness(f.value)
    } else {
        byte_commonness(f.value).max(byte_commonness(f.value.to_ascii_uppercase()))
    }
}

/// How common a byte is in text and source code, roughly (higher is more
/// common). Only the order matters: the searches that test a few bytes of
/// their needles per position (here, fold_set.rs, windows.rs) pick the least
/// common ones by it.
pub(crate) fn byte_commonness(b: u8) -> u8 {
    match b {
        b' ' => 255,
        b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 240,
        b'\n' | b'\t' | b'l' | b'h' | b'd' | b'c' | b'u' => 220,
        b'm' | b'p' | b'f' | b'g' | b'y' | b'w' | b'b' | b'v' | b'_' => 200,
        b',' | b'.' | b'(' | b')' | b';' | b'=' | b'*' | b'/' | b'-' | b'"' => 180,
        b'0' | b'1' | b'2' | b'{' | b'}' | b'>' | b'<' | b'#' | b'&' | b':' | b'\'' => 160,
        b'k' | b'x' | b'j' | b'q' | b'z' => 150,
        b'3'..=b'9' | b'[' | b']' | b'+' | b'!' | b'\\' | b'|' | b'%' | b'$' => 130,
        // The commonest capitals, and those that are hex digits too.
        b'A'..=b'F' | b'T' | b'S' | b'I' | b'R' | b'N' | b'O' => 120,
        b'J' | b'K' | b'Q' | b'V' | b'W' | b'X' | b'Y' | b'Z' => 90,
        b'A'..=b'Z' => 100,
        b'\r' | b'?' | b'@' | b'^' | b'`' | b'~' => 80,
        0x80..=0xff => 40,
        _ => 20,
    }
}

/// The two bytes a 64-wide scan tests each start on, broadcast.
#[cfg(target_arch = "x86_64")]
struct Pair {
    /// Their offsets in the needle.
    at_of: [usize; 2],
    value: [std::arch::x86_64::__m512i; 2],
    mask: [std::arch::x86_64::__m512i; 2],
}

/// The needle's head ([`Head`]) in vectors, and its lanes.
#[cfg(target_arch = "x86_64")]
struct Needle {
    value: std::arch::x86_64::__m512i,
    mask: std::arch::x86_64::__m512i,
    lanes: u64,
}

/// From `at` on, two vectors (128 starts) a step, the first start at or
/// before `last` + 127 that has both chosen bytes and the needle's first 64
/// bytes. Each flagged start is checked with one masked load and compare,
/// without leaving the loop: `linus` flags 411k starts over the Linux tree,
/// one in 3 KiB, and leaving the loop for each and coming back cost 12% of
/// this file's samples there. Failed starts are counted in `failed`; with
/// [`Flood::HandOver`] the scan stops once they pass the flood limit. The
/// loop holds no call: in a loop that called the check, the compiler kept
/// the constant vectors on the stack and loaded them again every step.
///
/// Each byte is XORed with the one wanted (after OR with its case bit when
/// `FOLDED`), the two differences ORed, and one test finds the zero lanes:
/// one compare-port operation per vector instead of a compare per byte
/// (in the L1 cache 28 bytes per TSC tick against 23; from L2 both ~16 with
/// both loads across cache lines, 21 with the first on a line).
///
/// # Safety
///
/// The CPU must support AVX-512 BW; for every step `s` <= `last`, the
/// 64-byte loads at `s + i` and `s + 64 + i` for `i` in `pair.at_of` must be
/// inside the allocation `p` points into, and so must the needle's head
/// (`needle.lanes`' bytes) at every start up to `last` + 127.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline(never)]
unsafe fn pairs_avx512<const FOLDED: bool>(
    p: *const u8,
    mut at: usize,
    last: usize,
    pair: &Pair,
    needle: &Needle,
    flood: Flood,
    failed: &mut usize,
) -> Step {
    use std::arch::x86_64::*;
    let (at_of, value, mask) = (pair.at_of, pair.value, pair.mask);
    let (head_value, head_mask, lanes) = (needle.value, needle.mask, needle.lanes);
    // Zero in the lanes whose two bytes are the pair's.
    let diff = |at: usize| -> __m512i {
        // SAFETY: at <= last + 64, so both loads are inside (this fn's contract).
        unsafe {
            let c1 = _mm512_loadu_si512(p.add(at + at_of[0]) as *const _);
            let c2 = _mm512_loadu_si512(p.add(at + at_of[1]) as *const _);
            match FOLDED {
                // (c | mask) ^ value for each byte, then OR.
                true => _mm512_or_si512(
                    _mm512_ternarylogic_epi32::<0x56>(c1, mask[0], value[0]),
                    _mm512_ternarylogic_epi32::<0x56>(c2, mask[1], value[1]),
                ),
                // (c2 ^ value2) | (c1 ^ value1).
                false => {
                    _mm512_ternarylogic_epi32::<0xBE>(c2, value[1], _mm512_xor_si512(c1, value[0]))
                }
            }
        }
    };
    // Whether the needle's head is at `start`.
    let head_at = |start: usize| -> bool {
        // SAFETY: start <= last + 127, so the head's bytes are inside (this
        // fn's contract); the masked load reads no other byte.
        unsafe {
            let c = _mm512_maskz_loadu_epi8(lanes, p.add(start) as *const _);
            _mm512_mask_cmpneq_epi8_mask(lanes, _mm512_or_si512(c, head_mask), head_value) == 0
        }
    };
    while at <= last {
        let (a, b) = (diff(at), diff(at + 64));
        let either = _mm512_min_epu8(a, b);
        if _mm512_testn_epi8_mask(either, either) != 0 {
            for (base, mut bits) in
                [(at, _mm512_testn_epi8_mask(a, a)), (at + 64, _mm512_testn_epi8_mask(b, b))]
            {
                while bits != 0 {
                    let start = base + bits.trailing_zeros() as usize;
                    if head_at(start) {
                        return Step::Candidate(start);
                    }
                    *failed += 1;
                    bits &= bits - 1;
                }
            }
            if past_flood_limit(flood, *failed, at + 128) {
                return Step::Flooded(at + 128);
            }
        }
        at += 128;
    }
    Step::End(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn folded(s: &[u8]) -> Vec<FoldByte> {
        s.iter().map(|&b| FoldByte::ignoring_case(b)).collect()
    }

    /// The finder as built, then as it searches on CPUs without AVX-512 BW
    /// (AVX2, where this one has it) and with SSE2 alone.
    #[cfg(target_arch = "x86_64")]
    fn every_path(f: &FoldFinder) -> Vec<FoldFinder> {
        vec![
            f.clone(),
            FoldFinder { avx512: false, ..f.clone() },
            FoldFinder { avx512: false, avx2: false, ..f.clone() },
        ]
    }

    /// The finder: elsewhere it has one path.
    #[cfg(not(target_arch = "x86_64"))]
    fn every_path(f: &FoldFinder) -> Vec<FoldFinder> {
        vec![f.clone()]
    }

    /// The obvious search: every start, every byte compared case-blind.
    fn naive(needle: &[FoldByte], hay: &[u8]) -> Option<usize> {
        (0..=hay.len().checked_sub(needle.len())?)
            .find(|&at| needle.iter().zip(&hay[at..]).all(|(f, &b)| f.matches(b)))
    }

    #[test]
    fn finds_either_case_and_only_letters_fold() {
        let f = FoldFinder::new(folded(b"pm_resume")).unwrap();
        assert_eq!(f.find(b"xx PM_Resume yy"), Some(3));
        assert_eq!(f.find(b"pm\x7fresume"), None, "'_' | 0x20 is 0x7f: '_' must not fold");
        assert_eq!(f.find(b"pm_resum"), None);
        // 0x50 | 0x20 and 0x70 | 0x20 are the only bytes giving 'p'.
        assert_eq!(f.find(b"\xd0m_resume pm_resume"), Some(10));
        let exact =
            FoldFinder::new(vec![FoldByte::exact(b'A'), FoldByte::either_case(b'b')]).unwrap();
        assert_eq!(exact.find(b"ab aB AB"), Some(6));
    }

    #[test]
    fn a_match_in_the_last_bytes_and_across_vector_edges_is_found() {
        // `ee` last: the pair is `N` and `d`, and the last starts are
        // tested by the vector that ends the haystack.
        for needle in [&b"Needle"[..], b"xNeedle", b"dledleNee"] {
            let n = needle.len();
            for f in every_path(&FoldFinder::new(folded(needle)).unwrap()) {
                for len in n..200 {
                    for at in 0..=len - n {
                        let mut hay = vec![b'.'; len];
                        hay[at..at + n].copy_from_slice(&needle.to_ascii_uppercase());
                        assert_eq!(f.find(&hay), Some(at), "{f:?} len {len} at {at}");
                        // The same needle with its last byte changed: no match.
                        hay[at + n - 1] = b'#';
                        assert_eq!(f.find(&hay), None, "{f:?} len {len} at {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_match_is_found_wherever_the_haystack_starts_on_a_cache_line() {
        // The pair's first byte (`k`, the rarest) is not the needle's first.
        let f = FoldFinder::new(folded(b"tokens")).unwrap();
        assert_ne!(f.i1, 0);
        let buf = b"-".repeat(700);
        for start in 0..64 {
            for at in 0..200 {
                let mut buf = buf.clone();
                buf[start + at..start + at + 6].copy_from_slice(b"TOKENS");
                assert_eq!(f.find(&buf[start..]), Some(at), "start {start} at {at}");
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn agrees_with_the_obvious_search(
            needle in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'B'), Just(b'_'), Just(b'A' | 0x80), any::<u8>()], 2..6),
            fold in proptest::collection::vec(any::<bool>(), 6),
            hay in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'A'), Just(b'b'), Just(b'B'), Just(b'_'), Just(0x7f), Just(0xc1), any::<u8>()], 0..400),
        ) {
            let needle: Vec<FoldByte> = needle.iter().zip(&fold).map(|(&b, &f)| {
                if f && b.is_ascii_alphabetic() { FoldByte::either_case(b) } else { FoldByte::exact(b) }
            }).collect();
            let f = FoldFinder::new(needle.clone()).unwrap();
            for f in every_path(&f) {
                prop_assert_eq!(f.find(&hay), naive(&needle, &hay));
            }
        }

        /// Needles up to 90 bytes planted whole or with one byte changed
        /// (past the 64 the wide scan compares at once, too), in either case.
        #[test]
        fn finds_planted_needles_of_any_length_and_floods_only_past_no_match(
            needle in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'B'), Just(b'_')], 2..90),
            fold in any::<bool>(),
            filler in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b'), Just(b'_'), Just(b'\n')], 0..700),
            plants in proptest::collection::vec((any::<proptest::sample::Index>(), any::<Option<proptest::sample::Index>>()), 0..4),
        ) {
            let needle: Vec<FoldByte> = needle.iter().map(|&b| {
                if fold { FoldByte::ignoring_case(b) } else { FoldByte::exact(b) }
            }).collect();
            let mut hay = filler;
            for (at, changed) in &plants {
                let mut copy: Vec<u8> = needle.iter().map(|f| f.value.to_ascii_uppercase()).collect();
                if !fold {
                    copy = needle.iter().map(|f| f.value).collect();
                }
                if let Some(i) = changed {
                    let i = i.index(copy.len());
                    copy[i] = b'#';
                }
                let at = at.index(hay.len() + 1);
                hay.splice(at..at, copy);
            }
            let f = FoldFinder::new(needle.clone()).unwrap();
            let first = naive(&needle, &hay);
            prop_assert_eq!(f.find(&hay), first);
            if f.is_wide() {
                match f.find_or_flood(&hay) {
                    PairScan::Found(at) => prop_assert_eq!(Some(at), first),
                    PairScan::Absent => prop_assert_eq!(None, first),
                    PairScan::Flooded(from) => {
                        prop_assert!(from <= hay.len());
                        prop_assert!(first.is_none_or(|at| at >= from), "{:?} before {}", first, from);
                    }
                }
            }
        }
    }
}
