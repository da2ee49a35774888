//! `-T`'s number widths: GNU grep right-aligns line numbers and byte
//! offsets to the widest either can be in the stream, so that the text
//! after the tab lines up: the digits of the file's size (plus one under
//! `-n`), or of the largest `intmax_t` when the size is unknown (a pipe).

/// What is known of a stream's size before it is read.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum StreamSize {
    /// A regular file's size.
    Known(u64),
    /// Standard input from a pipe, a device, a decompressed or extracted
    /// stream.
    Unknown,
}

/// The largest value GNU grep assumes for a stream of unknown size.
const INTMAX_MAX: u64 = i64::MAX as u64;

/// The width of `-T`'s numbers for a stream of `size`; `line_numbers`
/// when `-n` is on (GNU grep then allows for one more).
pub fn number_width(size: StreamSize, line_numbers: bool) -> usize {
    let widest = match size {
        StreamSize::Known(n) => n.min(INTMAX_MAX),
        StreamSize::Unknown => INTMAX_MAX,
    };
    let widest = match line_numbers && widest < INTMAX_MAX {
        true => widest + 1,
        false => widest,
    };
    widest.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// `n` in decimal, right-aligned with spaces to `width` (wider numbers as
/// they are).
pub fn right_aligned(buf: &mut [u8; 20], n: u64, width: usize) -> &[u8] {
    let end = buf.len();
    let digits = crate::util::fmt_u64(buf, n).len();
    let start = end - digits.max(width.min(end));
    buf[start..end - digits].fill(b' ');
    &buf[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_is_the_digits_of_the_size() {
        assert_eq!(number_width(StreamSize::Known(0), false), 1);
        assert_eq!(number_width(StreamSize::Known(9), false), 1);
        assert_eq!(number_width(StreamSize::Known(10), false), 2);
        assert_eq!(number_width(StreamSize::Known(99), false), 2);
        assert_eq!(number_width(StreamSize::Known(100), false), 3);
    }

    #[test]
    fn line_numbers_count_one_more() {
        assert_eq!(number_width(StreamSize::Known(9), true), 2);
        assert_eq!(number_width(StreamSize::Known(99), true), 3);
        assert_eq!(number_width(StreamSize::Known(98), true), 2);
    }

    #[test]
    fn an_unknown_size_is_intmax_wide() {
        assert_eq!(number_width(StreamSize::Unknown, false), 19);
        assert_eq!(number_width(StreamSize::Unknown, true), 19);
        assert_eq!(number_width(StreamSize::Known(u64::MAX), true), 19);
    }

    #[test]
    fn numbers_are_padded_on_the_left() {
        let mut b = [0; 20];
        assert_eq!(right_aligned(&mut b, 7, 3), b"  7");
        assert_eq!(right_aligned(&mut b, 1234, 3), b"1234");
        assert_eq!(right_aligned(&mut b, 0, 0), b"0");
        assert_eq!(right_aligned(&mut b, 5, 25), b"                   5");
    }
}
