//! The output a sorted walk carries for its visitors: what each visit hands
//! over ([`crate::Visitor::take_output`]), held until everything before it
//! in walk order was written, then handed back
//! ([`crate::Visitor::write_output`]). It comes in pieces, each with the
//! visitor's own tag (what kind of output it is, for the visitor: the walk
//! keeps it beside the bytes and never reads either).

/// A piece of output handed back to be written in walk order.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Piece<'a> {
    /// What the visitor said the piece is.
    pub tag: u8,
    /// Its bytes (perhaps none: the tag may still mean something).
    pub bytes: &'a [u8],
}

/// Pieces of output, in order.
#[derive(Debug, Default)]
pub struct Pieces {
    bytes: Vec<u8>,
    /// Where each piece ends in `bytes`, and its tag.
    ends: Vec<(usize, u8)>,
}

/// Bytes handed over at least this large, when nothing is held yet, are
/// moved rather than copied.
const MOVE_AT: usize = 64 * 1024;

impl Pieces {
    /// Adds a piece (an empty one too).
    pub fn push(&mut self, tag: u8, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        self.ends.push((self.bytes.len(), tag));
    }

    /// Adds the pieces of `bytes` ending at `ends` (offsets into `bytes`,
    /// increasing, the last one its length), each with its tag, and leaves
    /// `bytes` empty: moved without a copy when nothing is held yet and they
    /// are large, else copied (so `bytes` keeps its capacity).
    pub fn append(&mut self, bytes: &mut Vec<u8>, ends: impl IntoIterator<Item = (usize, u8)>) {
        let base = self.bytes.len();
        if base == 0 && bytes.len() >= MOVE_AT {
            std::mem::swap(&mut self.bytes, bytes);
        } else {
            self.bytes.extend_from_slice(bytes);
        }
        bytes.clear();
        self.ends.extend(ends.into_iter().map(|(end, tag)| (base + end, tag)));
    }

    /// Whether there is no piece.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes held.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Adds each piece to `into`, in order.
    pub(crate) fn pieces<'a>(&'a self, into: &mut Vec<Piece<'a>>) {
        let mut start = 0;
        for &(end, tag) in &self.ends {
            into.push(Piece { tag, bytes: &self.bytes[start..end] });
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &Pieces) -> Vec<(u8, Vec<u8>)> {
        let mut v = Vec::new();
        p.pieces(&mut v);
        v.into_iter().map(|p| (p.tag, p.bytes.to_vec())).collect()
    }

    #[test]
    fn pieces_keep_their_tags_and_empty_pieces() {
        let mut p = Pieces::default();
        p.push(1, b"ab");
        p.push(2, b"");
        let mut more = b"cdef".to_vec();
        p.append(&mut more, [(1, 3), (4, 1)]);
        assert!(more.is_empty());
        let want =
            vec![(1, b"ab".to_vec()), (2, Vec::new()), (3, b"c".to_vec()), (1, b"def".to_vec())];
        assert_eq!(all(&p), want);
    }

    #[test]
    fn large_output_is_moved_into_empty_pieces() {
        let mut p = Pieces::default();
        let mut big = vec![b'x'; MOVE_AT];
        let at = big.as_ptr();
        p.append(&mut big, [(MOVE_AT, 7)]);
        assert_eq!(p.bytes.as_ptr(), at);
        assert_eq!(p.len(), MOVE_AT);
    }
}
