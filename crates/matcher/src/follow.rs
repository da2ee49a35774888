//! The two bytes that can follow a part every string of a set holds, as a
//! table of 64 Kbit (8 KiB, in the L1 cache): a place of the part whose
//! next two bytes no string has there holds no match, and is dropped
//! before the automaton that confirms a place is asked.
//!
//! On the bench's 600 `struct NAME` strings over the first 300 MB of the
//! kernel sources file, the part, `struct `, is met 807,523 times and the
//! two bytes after it pass at 390,132 of those places (factor.rs's
//! `AtStart` has the time it saves).

/// Which pairs of bytes follow the part in some string.
#[derive(Debug)]
pub(crate) struct Follow {
    bits: Box<[u64; 1024]>,
}

impl Follow {
    /// The table of the bytes after the part in each of `tails` (each
    /// string's bytes past its part; either case of an ASCII letter with
    /// `ignore_case`); `None` when a tail is empty, as any bytes may then
    /// follow a place.
    pub(crate) fn new<'a>(
        tails: impl IntoIterator<Item = &'a [u8]>,
        ignore_case: bool,
    ) -> Option<Follow> {
        let mut bits = Box::new([0u64; 1024]);
        let cases = |b: u8| -> Vec<u8> {
            match ignore_case && b.is_ascii_alphabetic() {
                true => vec![b.to_ascii_lowercase(), b.to_ascii_uppercase()],
                false => vec![b],
            }
        };
        for tail in tails {
            let firsts = cases(*tail.first()?);
            // A tail of one byte is followed by anything.
            let seconds: Vec<u8> = match tail.get(1) {
                Some(&b) => cases(b),
                None => (0..=255).collect(),
            };
            for &a in &firsts {
                for &b in &seconds {
                    let i = usize::from(a) << 8 | usize::from(b);
                    bits[i / 64] |= 1 << (i % 64);
                }
            }
        }
        Some(Follow { bits })
    }

    /// Whether the two bytes at `at` can follow the part (where fewer than
    /// two are left, whether some string could still be there: yes).
    #[inline]
    pub(crate) fn admits(&self, hay: &[u8], at: usize) -> bool {
        let (Some(&a), Some(&b)) = (hay.get(at), hay.get(at + 1)) else { return true };
        let i = usize::from(a) << 8 | usize::from(b);
        self.bits[i / 64] & 1 << (i % 64) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::Follow;

    #[test]
    fn admits_the_pairs_the_tails_start_with_and_no_other() {
        let f = Follow::new([&b"ab"[..], b"cde"], false).unwrap();
        assert!(f.admits(b"xab", 1));
        assert!(f.admits(b"cd", 0));
        assert!(!f.admits(b"ac", 0));
        assert!(!f.admits(b"AB", 0), "case counts");
        assert!(!f.admits(b"ce", 0));
        assert!(f.admits(b"zz a", 3), "one byte left: it may start a string");
        assert!(f.admits(b"zz", 2), "none left");
    }

    #[test]
    fn a_one_byte_tail_admits_any_second_byte_and_an_empty_one_everything() {
        let f = Follow::new([&b"q"[..], b"rs"], false).unwrap();
        for b in 0..=255u8 {
            assert!(f.admits(&[b'q', b], 0));
            assert_eq!(f.admits(&[b'r', b], 0), b == b's');
        }
        assert!(Follow::new([&b"q"[..], b""], false).is_none());
    }

    #[test]
    fn under_ignore_case_either_case_of_a_letter_is_admitted() {
        let f = Follow::new([&b"a_"[..], b"Xy"], true).unwrap();
        for pair in [&b"a_"[..], b"A_", b"xy", b"XY", b"xY"] {
            assert!(f.admits(pair, 0), "{pair:?}");
        }
        assert!(!f.admits(b"a-", 0));
        assert!(!f.admits(b"a\x7f", 0), "`_` does not fold");
    }
}
