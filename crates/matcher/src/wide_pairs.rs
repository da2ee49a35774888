//! One to eight pairs of ASCII bytes a fixed distance apart (the gap: 1 for
//! adjacent bytes), found 64 positions at a time by table where the CPU has
//! AVX-512 VBMI: windows.rs's probe for a few literals, each found by a pair
//! of rare bytes inside it.
//!
//! Teddy (aho-corasick's packed search) finds adjacent pairs 32 positions at
//! a time through nibble tables, and each find is a call through its API.
//! Here each byte of a 64-byte vector looks up, in a 128-entry table, the
//! pairs it starts (a bit each), the byte a gap further the pairs it ends,
//! and a position is flagged where the two sets meet. When one side's bytes
//! each name the only byte their pairs hold on the other side (the bench's
//! alternation: `Y`, `U`, `Q`, `V` end one pair each), that side alone
//! looks up the byte expected on the other, and one compare flags the
//! position: half the shuffle port's work a vector (the alternation over the
//! Linux sources, one thread, user time 118 -> 102 ms). Either way a byte
//! the table reads by its low bits may stand for another, so a flagged
//! position is checked.
//!
//! Given the literals the pairs stand for ([`Literals`]), a flagged position
//! is checked inside the scan's loop: each literal holding the pair there is
//! compared, its first 64 bytes at once, by one masked load. The bench's
//! alternation flags 384k positions over the Linux sources, nearly all of
//! them false; leaving the loop for each, and coming back, cost as much as
//! a fifth of the scan (see fold.rs's pair scan for one literal).

use std::ops::Range;

use crate::budget::MissBudget;

/// The pairs searched for, in the order of their ids, and their tables.
#[derive(Clone, Debug)]
pub(crate) struct WidePairs {
    pairs: Vec<[u8; 2]>,
    /// How far the second byte of each pair is from its first.
    gap: usize,
    tables: Box<Tables>,
    lookup: Lookup,
    test: Test,
    /// What a flagged position is checked against, inside the scan.
    literals: Option<Literals>,
}

/// The literals behind the pairs.
#[derive(Clone, Debug)]
pub(crate) struct Literals {
    /// Each literal's first (up to) 64 bytes, zero-padded, and how many.
    heads: Vec<([u8; 64], usize)>,
    /// Per pair id: the literals holding the pair and its offset in each.
    holders: Vec<Vec<(usize, usize)>>,
}

impl Literals {
    /// The literals, and per pair id those holding it with the pair's offset.
    pub(crate) fn new(literals: &[Vec<u8>], holders: &[Vec<(usize, usize)>]) -> Literals {
        let heads = literals
            .iter()
            .map(|lit| {
                // Each holds a pair: two bytes at least (the scan's mask of
                // `len` lanes needs one).
                assert!(lit.len() >= 2, "a literal shorter than its pair");
                let mut head = [0; 64];
                let len = lit.len().min(64);
                head[..len].copy_from_slice(&lit[..len]);
                (head, len)
            })
            .collect();
        Literals { heads, holders: holders.to_vec() }
    }
}

/// What [`WidePairs::find_literal`] found.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Found {
    /// The leftmost pair that passed the check: its start and id.
    Pair(usize, usize),
    /// The false candidates passed the budget: no pair before this position
    /// passed the check.
    Flooded(usize),
    /// No pair passed the check.
    Nothing,
}

/// Where one run of [`scan_vbmi`] stopped.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Scan {
    /// A flagged start (that passed the check, if any).
    Hit(usize),
    /// The check's false candidates passed its budget here.
    Flooded(usize),
    /// Every start up to this one looked at (see [`scan_vbmi`]).
    Rest(usize),
}

/// A flagged position checked against the literals, inside the scan.
struct Check<'a> {
    literals: &'a Literals,
    /// The whole haystack: a literal may reach past the span of its pair.
    full: &'a [u8],
    /// No literal starting before this counts.
    min_start: usize,
    misses: &'a mut usize,
    budget: MissBudget,
}

impl Check<'_> {
    /// Whether a literal holding pair `id` at `pos` is there (its first 64
    /// bytes), byte by byte: the scan's check for the last few starts.
    fn passes(&mut self, pos: usize, id: usize) -> bool {
        for &(lit, offset) in &self.literals.holders[id] {
            let Some(start) = pos.checked_sub(offset).filter(|&s| s >= self.min_start) else {
                continue;
            };
            let (head, len) = &self.literals.heads[lit];
            if self.full[start..].starts_with(&head[..*len]) {
                return true;
            }
            *self.misses += 1;
        }
        false
    }
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

/// How the scan's loop tells the positions that may start a pair.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Test {
    /// Each byte looks up the pairs it starts, the byte `gap` further those
    /// it ends, and the two sets meet (two lookups, a test, and the bytes
    /// over 0x7f masked: four shuffle-port operations a vector).
    BothBytes,
    /// One side's byte (the key) names the only byte its pairs have on the
    /// other side: the key looks that byte up and it is compared (one
    /// lookup and one compare). The key side is the one where no byte
    /// stands for two pairs with different other bytes; a byte over 0x7f
    /// may read an ASCII byte's entry, which the check rejects. `key` and
    /// `other` are the two sides' offsets from the start (0 and `gap`).
    Expect { key: usize, other: usize },
}

/// Where [`Test::Expect`]'s table holds no pair: a byte that valid UTF-8
/// never holds, so text never meets it on the other side.
const NO_PAIR: u8 = 0xff;

/// For each ASCII byte, the pairs it starts and those it ends (bit k: the
/// pair with id k), and for [`Test::Expect`] the byte expected on the other
/// side of a key byte.
#[derive(Clone, Debug)]
struct Tables {
    first: [u8; 128],
    second: [u8; 128],
    expect: [u8; 128],
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
        let mut tables =
            Box::new(Tables { first: [0; 128], second: [0; 128], expect: [NO_PAIR; 128] });
        for (k, pair) in pairs.iter().enumerate() {
            tables.first[usize::from(pair[0])] |= 1 << k;
            tables.second[usize::from(pair[1])] |= 1 << k;
        }
        let lookup = match pairs.iter().flatten().all(|b| (0x40..=0x5f).contains(b)) {
            true => Lookup::Upper,
            false => Lookup::Full,
        };
        // The side (1: the second byte, else 0) whose every byte names one
        // byte on the other side.
        let names_one = |key: usize| {
            pairs.iter().all(|p| pairs.iter().all(|q| p[key] != q[key] || p[1 - key] == q[1 - key]))
        };
        let test = match [1, 0].into_iter().find(|&key| names_one(key)) {
            Some(key) => {
                for pair in pairs {
                    tables.expect[usize::from(pair[key])] = pair[1 - key];
                }
                Test::Expect { key: key * gap, other: (1 - key) * gap }
            }
            None => Test::BothBytes,
        };
        Some(WidePairs { pairs: pairs.to_vec(), gap, tables, lookup, test, literals: None })
    }

    /// The pairs, each flagged position checked against `literals` inside
    /// the scan ([`WidePairs::find_literal`]).
    pub(crate) fn with_literals(self, literals: Literals) -> WidePairs {
        WidePairs { literals: Some(literals), ..self }
    }

    /// Whether the CPU runs this search (AVX-512 BW and VBMI).
    pub(crate) fn available() -> bool {
        crate::simd::avx512vbmi()
    }

    /// The bytes a pair spans: its gap and one.
    pub(crate) fn width(&self) -> usize {
        self.gap + 1
    }

    /// The leftmost start of a pair inside `span` of `hay` (both its bytes
    /// in the span), and the pair's id (the first, when pairs repeat).
    #[cfg(test)]
    pub(crate) fn find(&self, hay: &[u8], span: Range<usize>) -> Option<(usize, usize)> {
        match self.search(hay, span, None) {
            Found::Pair(start, id) => Some((start, id)),
            Found::Flooded(_) | Found::Nothing => None,
        }
    }

    /// The leftmost start of a pair inside `span` of `hay` that is, as far
    /// as its first 64 bytes tell, the pair of a literal holding it
    /// starting at or after `min_start`, and the pair's id; literals that
    /// fail count in `misses`, and past `budget` the search stops. Without
    /// literals ([`WidePairs::with_literals`]), [`WidePairs::find`].
    pub(crate) fn find_literal(
        &self,
        hay: &[u8],
        span: Range<usize>,
        min_start: usize,
        misses: &mut usize,
        budget: MissBudget,
    ) -> Found {
        let check = self.literals.as_ref().map(|literals| Check {
            literals,
            full: hay,
            min_start,
            misses,
            budget,
        });
        self.search(hay, span, check)
    }

    fn search(&self, hay: &[u8], span: Range<usize>, mut check: Option<Check<'_>>) -> Found {
        let hay = &hay[..span.end.min(hay.len())];
        let mut at = span.start;
        #[cfg(target_arch = "x86_64")]
        loop {
            let (t, gap, check) = (&self.tables, self.gap, check.as_mut());
            // SAFETY: construction checked AVX-512 BW and VBMI.
            let scan = unsafe {
                match (self.lookup, self.test) {
                    (Lookup::Full, Test::BothBytes) => {
                        scan_vbmi::<false, false>(t, hay, at, gap, (0, 0), check)
                    }
                    (Lookup::Upper, Test::BothBytes) => {
                        scan_vbmi::<true, false>(t, hay, at, gap, (0, 0), check)
                    }
                    (Lookup::Full, Test::Expect { key, other }) => {
                        scan_vbmi::<false, true>(t, hay, at, gap, (key, other), check)
                    }
                    (Lookup::Upper, Test::Expect { key, other }) => {
                        scan_vbmi::<true, true>(t, hay, at, gap, (key, other), check)
                    }
                }
            };
            match scan {
                Scan::Hit(start) => match self.id_at(hay, start) {
                    Some(id) => return Found::Pair(start, id),
                    // Control bytes read as a pair (Lookup::Upper).
                    None => at = start + 1,
                },
                Scan::Flooded(at) => return Found::Flooded(at),
                Scan::Rest(rest) => {
                    at = rest;
                    break;
                }
            }
        }
        // Fewer than 64 starts left: byte by byte.
        for start in at..hay.len().saturating_sub(self.gap) {
            let Some(id) = self.id_at(hay, start) else { continue };
            if check.as_mut().is_none_or(|check| check.passes(start, id)) {
                return Found::Pair(start, id);
            }
        }
        Found::Nothing
    }

    /// The id of the pair starting at `p`, if any.
    fn id_at(&self, hay: &[u8], p: usize) -> Option<usize> {
        self.pairs.iter().position(|pair| hay[p] == pair[0] && hay[p + self.gap] == pair[1])
    }
}

/// The leftmost start at or after `at` of a pair whose bytes are `gap`
/// apart in `hay`, 64 starts a vector: a hit, or the first start not looked
/// at (`hay` is shorter than 64 + `gap` bytes, or every start was looked
/// at). With `UPPER` (see [`Lookup::Upper`]) a start may hold control bytes
/// instead of a pair, and with `EXPECT` ([`Test::Expect`], the sides'
/// offsets in `key` and `other`) bytes over 0x7f. With a check, a flagged
/// start is a hit only if one of the literals holding its pair is there
/// (its first 64 bytes), and the scan stops once the false candidates pass
/// the check's budget. The check is done inside the loop, no call in it:
/// in a loop that called out, the compiler kept the table vectors on the
/// stack (fold.rs's pair scan).
///
/// # Safety
///
/// The CPU must support AVX-512 BW and VBMI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
unsafe fn scan_vbmi<const UPPER: bool, const EXPECT: bool>(
    t: &Tables,
    hay: &[u8],
    mut at: usize,
    gap: usize,
    (key, other): (usize, usize),
    mut check: Option<&mut Check<'_>>,
) -> Scan {
    use std::arch::x86_64::*;
    // SAFETY: each table is 128 bytes, read as two 64-byte halves.
    let (f_lo, f_hi, s_lo, s_hi, e_lo, e_hi) = unsafe {
        (
            _mm512_loadu_si512(t.first.as_ptr() as *const _),
            _mm512_loadu_si512(t.first.as_ptr().add(64) as *const _),
            _mm512_loadu_si512(t.second.as_ptr() as *const _),
            _mm512_loadu_si512(t.second.as_ptr().add(64) as *const _),
            _mm512_loadu_si512(t.expect.as_ptr() as *const _),
            _mm512_loadu_si512(t.expect.as_ptr().add(64) as *const _),
        )
    };
    let p = hay.as_ptr();
    // Starts at..at + 64 read bytes at..at + 64 + gap: inside `hay` while
    // at + 64 + gap <= hay.len(). Per start, the pairs (a bit each) whose
    // first byte is there and whose second is `gap` further; the starts
    // where either byte is over 0x7f.
    let lookup = |at: usize| -> (__m512i, __m512i, u64) {
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
            (starts, ends, _mm512_movepi8_mask(_mm512_or_si512(a, b)))
        }
    };
    let test = |at: usize| -> u64 {
        if EXPECT {
            // SAFETY: `key` and `other` are 0 and `gap`: as `lookup`'s loads.
            unsafe {
                let k = _mm512_loadu_si512(p.add(at + key) as *const _);
                let o = _mm512_loadu_si512(p.add(at + other) as *const _);
                let want = match UPPER {
                    true => _mm512_permutexvar_epi8(k, e_hi),
                    false => _mm512_permutex2var_epi8(e_lo, k, e_hi),
                };
                _mm512_cmpeq_epi8_mask(o, want)
            }
        } else {
            let (starts, ends, high) = lookup(at);
            _kandn_mask64(high, _mm512_test_epi8_mask(starts, ends))
        }
    };
    let len = hay.len();
    // The flagged starts of a vector not yet handled, and its first start.
    let mut held: Option<(usize, u64)> = None;
    // The first byte's loads on a cache line (see fold.rs's pair scan):
    // the starts before the line are tested as one vector.
    let misaligned = (p as usize + at) % 64;
    if misaligned != 0 && at + 128 + gap <= len {
        held = Some((at, test(at) & (u64::MAX >> misaligned))).filter(|&(_, hits)| hits != 0);
        at += 64 - misaligned;
    }
    loop {
        // The next vector with flagged starts. One place only, so that the
        // check below is written once and stays inside the loop.
        let (base, mut hits) = 'next: {
            if let Some(held) = held.take() {
                break 'next held;
            }
            // Two vectors a step: one branch per 128 starts.
            while at + 128 + gap <= len {
                let (lo, hi) = (test(at), test(at + 64));
                at += 128;
                if lo | hi != 0 {
                    if lo == 0 {
                        break 'next (at - 64, hi);
                    }
                    held = Some((at - 64, hi)).filter(|&(_, hits)| hits != 0);
                    break 'next (at - 128, lo);
                }
            }
            if at + 64 + gap <= len {
                let hits = test(at);
                at += 64;
                if hits != 0 {
                    break 'next (at - 64, hits);
                }
            }
            if at + gap < len && len >= 64 + gap {
                // The last starts: the vector of the 64 that end the
                // haystack, less those already tested.
                let base = len - 64 - gap;
                let hits = test(base) & (u64::MAX << (at - base));
                at = len;
                if hits != 0 {
                    break 'next (base, hits);
                }
            }
            return Scan::Rest(at);
        };
        let Some(check) = check.as_deref_mut() else {
            return Scan::Hit(base + hits.trailing_zeros() as usize);
        };
        // Per start, its pairs.
        let mut ids = [0u8; 64];
        let (starts, ends, _) = lookup(base);
        // SAFETY: `ids` is 64 bytes.
        unsafe { _mm512_storeu_si512(ids.as_mut_ptr() as *mut _, _mm512_and_si512(starts, ends)) };
        let (full, literals) = (check.full, check.literals);
        while hits != 0 {
            let lane = hits.trailing_zeros() as usize;
            let pos = base + lane;
            let mut pairs = ids[lane];
            while pairs != 0 {
                let id = pairs.trailing_zeros() as usize;
                for &(lit, offset) in &literals.holders[id] {
                    let Some(start) = pos.checked_sub(offset).filter(|&s| s >= check.min_start)
                    else {
                        continue;
                    };
                    let (head, len) = &literals.heads[lit];
                    let lanes = u64::MAX >> (64 - len);
                    // SAFETY: the masked load reads `len` bytes from `start`,
                    // inside `full` (checked first), and no other byte.
                    let same = start + len <= full.len()
                        && unsafe {
                            let c = _mm512_maskz_loadu_epi8(
                                lanes,
                                full.as_ptr().add(start) as *const _,
                            );
                            let h = _mm512_loadu_si512(head.as_ptr() as *const _);
                            _mm512_mask_cmpneq_epi8_mask(lanes, c, h) == 0
                        };
                    if same {
                        return Scan::Hit(pos);
                    }
                    *check.misses += 1;
                }
                pairs &= pairs - 1;
            }
            hits &= hits - 1;
        }
        // Every start before `end` was tested (`at` is short of base + 64
        // after the unaligned first vector).
        let end = at.min(base + 64);
        if check.budget.spent(*check.misses, end) {
            return Scan::Flooded(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Found, Literals, WidePairs};
    use crate::budget::MissBudget;
    use proptest::prelude::*;

    /// Per pair: the literals holding it and its offset in each.
    type Holders = Vec<Vec<(usize, usize)>>;

    /// Literals, each with the offset of its pair (bytes `gap` apart): the
    /// distinct pairs, and per pair the literals holding it.
    fn pairs_of(lits: &[(Vec<u8>, usize)], gap: usize) -> (Vec<[u8; 2]>, Holders) {
        let (mut pairs, mut holders): (Vec<[u8; 2]>, Holders) = (Vec::new(), Vec::new());
        for (i, (lit, at)) in lits.iter().enumerate() {
            let pair = [lit[*at], lit[at + gap]];
            match pairs.iter().position(|p| *p == pair) {
                Some(id) => holders[id].push((i, *at)),
                None => {
                    pairs.push(pair);
                    holders.push(vec![(i, *at)]);
                }
            }
        }
        (pairs, holders)
    }

    /// The leftmost start in `start..end` (both its bytes inside) of a pair
    /// whose literal, starting at or after `min_start`, is there as far as
    /// its first 64 bytes tell, byte by byte.
    fn naive_literal(
        lits: &[(Vec<u8>, usize)],
        gap: usize,
        hay: &[u8],
        span: std::ops::Range<usize>,
        min_start: usize,
    ) -> Option<usize> {
        (span.start..span.end.saturating_sub(gap)).find(|&p| {
            lits.iter().any(|(lit, at)| {
                let head = &lit[..lit.len().min(64)];
                hay[p] == lit[*at]
                    && hay[p + gap] == lit[at + gap]
                    && p.checked_sub(*at)
                        .is_some_and(|s| s >= min_start && hay[s..].starts_with(head))
            })
        })
    }

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
    fn a_side_whose_bytes_each_name_one_byte_is_looked_up_alone() {
        use super::Test;
        // The bench's alternation: `Y`, `U`, `Q`, `V` each end one pair
        // (`M` starts two).
        let Some(wide) = WidePairs::new(&[*b"RY", *b"MU", *b"KQ", *b"MV"], 4) else { return };
        assert_eq!(wide.test, Test::Expect { key: 4, other: 0 });
        // `A` starts pairs ending in `B` and `C`, `B` ends pairs starting
        // with `A` and `D`: no side names one byte.
        let wide = WidePairs::new(&[*b"AB", *b"AC", *b"DB"], 2).unwrap();
        assert_eq!(wide.test, Test::BothBytes);
        // The first side then: `A` and `C` each name `B`.
        let wide = WidePairs::new(&[*b"AB", *b"CB", *b"AB"], 2).unwrap();
        assert_eq!(wide.test, Test::Expect { key: 0, other: 2 });
        // Bytes over 0x7f read a capital's entry (0xC1 and 0x81 that of
        // `A`): never found for it.
        let mut hay = b"x".repeat(200);
        hay[10..13].copy_from_slice(b"\xC1.B");
        hay[20..23].copy_from_slice(b"\x81.B");
        hay[30..33].copy_from_slice(b"C.\xC2");
        hay[40..43].copy_from_slice(b"\xFF.B");
        hay[150..153].copy_from_slice(b"C.B");
        assert_eq!(wide.find(&hay, 0..hay.len()), Some((150, 1)));
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

    #[test]
    fn false_candidates_are_skipped_and_counted_inside_the_scan() {
        let lits = vec![(b"xQ3Zy".to_vec(), 1), (b"QxZ.".to_vec(), 0)];
        let (pairs, holders) = pairs_of(&lits, 2);
        let Some(wide) = WidePairs::new(&pairs, 2) else { return };
        let wide = wide.with_literals(Literals::new(
            &lits.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>(),
            &holders,
        ));
        // `Q?Z` 150 times, neither literal, then `xQ3Zy` at 1000.
        let mut hay = b"-Q-Z-".repeat(200);
        hay.extend_from_slice(b"xQ3Zy..");
        let lenient = MissBudget { base: 0, free: 1000, bytes: 1 };
        let mut misses = 0;
        let found = wide.find_literal(&hay, 0..hay.len(), 0, &mut misses, lenient);
        assert_eq!(found, Found::Pair(1001, 0));
        // Each false `Q?Z` fails both literals (the pair is the same).
        assert_eq!(misses, 2 * 200);
        // A literal starting before `min_start` is not one.
        let mut misses = 0;
        assert_eq!(
            wide.find_literal(&hay, 0..hay.len(), 1001, &mut misses, lenient),
            Found::Nothing
        );
        // Past the budget the scan stops, before the literal.
        let strict = MissBudget { base: 0, free: 16, bytes: 256 };
        let mut misses = 0;
        match wide.find_literal(&hay, 0..hay.len(), 0, &mut misses, strict) {
            Found::Flooded(at) => {
                assert!(at <= 1001 && strict.spent(misses, at), "{at} {misses}");
            }
            other => panic!("{other:?}"),
        }
    }

    proptest! {
        #[test]
        fn a_checked_scan_finds_what_a_byte_by_byte_search_finds(
            // Capitals only (Lookup::Upper), or with `3` (Lookup::Full); the
            // haystack holds the control bytes and bytes over 0x7f that
            // alias A-C (and `3`), and Test::Expect's NO_PAIR.
            lits in proptest::collection::vec(
                (proptest::collection::vec(prop::sample::select(b"ABC3".to_vec()), 1..80),
                 0usize..8),
                1..=4),
            gap in 1..=4usize,
            noise in proptest::collection::vec(
                prop_oneof![
                    b'A'..b'D', Just(b'3'), 0x01u8..0x04, Just(b'.'), 0x81u8..0x84, 0xC1u8..0xC4,
                    Just(0xB3u8), Just(0xFFu8)
                ], 0..400),
            plant in proptest::option::of((0usize..4, 0usize..400, proptest::option::of(0usize..80))),
            min_start in 0usize..400,
            start in 0usize..400,
            len in 0usize..400,
            free in 0usize..4,
            bytes in prop::sample::select(vec![1usize, 16, 1 << 20]),
        ) {
            // Each literal long enough for its pair at its offset.
            let lits: Vec<(Vec<u8>, usize)> = lits
                .into_iter()
                .map(|(mut lit, at)| {
                    lit.resize(lit.len().max(at + gap + 1), b'A');
                    (lit, at)
                })
                .collect();
            let mut hay = noise;
            if let Some((k, at, change)) = plant {
                let lit = &lits[k % lits.len()].0;
                let at = at.min(hay.len());
                hay.splice(at..at, lit.iter().copied());
                if let Some(c) = change.filter(|&c| c < lit.len()) {
                    hay[at + c] = b'.';
                }
            }
            let (pairs, holders) = pairs_of(&lits, gap);
            let Some(wide) = WidePairs::new(&pairs, gap) else { return Ok(()) };
            let texts: Vec<Vec<u8>> = lits.iter().map(|(l, _)| l.clone()).collect();
            let wide = wide.with_literals(Literals::new(&texts, &holders));
            let end = (start + len).min(hay.len());
            let start = start.min(end);
            let budget = MissBudget { base: start, free, bytes };
            let mut misses = 0;
            let want = naive_literal(&lits, gap, &hay, start..end, min_start);
            match wide.find_literal(&hay, start..end, min_start, &mut misses, budget) {
                Found::Pair(at, id) => {
                    prop_assert_eq!(Some(at), want);
                    prop_assert_eq!(pairs[id], [hay[at], hay[at + gap]]);
                }
                Found::Flooded(at) => {
                    prop_assert!(want.is_none_or(|w| w >= at), "{:?} before {}", want, at);
                    prop_assert!(at <= end && budget.spent(misses, at));
                }
                Found::Nothing => prop_assert_eq!(want, None),
            }
        }

        #[test]
        fn finds_what_a_byte_by_byte_search_finds(
            // Capitals only (Lookup::Upper), or with `3` (Lookup::Full);
            // the haystack holds the control bytes that alias A-E.
            pairs in proptest::collection::vec(
                proptest::array::uniform2(prop::sample::select(b"ABCD3".to_vec())), 1..=8),
            gap in 1..=WidePairs::MAX_GAP,
            hay in proptest::collection::vec(
                prop_oneof![
                    b'A'..b'F', Just(0xC1u8), 0x01u8..0x05, Just(b'3'), Just(0x82u8),
                    Just(0xB3u8), Just(0xFFu8)
                ], 0..300),
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
