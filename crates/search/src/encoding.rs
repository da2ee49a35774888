//! Text that is not in the bytes trawl searches: files that start with a
//! byte-order mark (UTF-16 little or big endian, UTF-8) are transcoded to
//! UTF-8 and searched as such (as ripgrep does; a UTF-16 file is otherwise
//! "binary" for its NUL bytes), and `--encoding LABEL` forces a decoding
//! (encoding_rs's labels: latin1, shift_jis, utf-16le...). The decoding
//! is encoding_rs_io's reader; offsets and line numbers are the text's.

use std::io::{self, Read};

use encoding_rs_io::DecodeReaderBytesBuilder;

/// How a source's bytes become the text searched.
#[derive(Clone, Copy, Debug, Default)]
pub enum Encoding {
    /// Transcoded when they start with a byte-order mark, else as they are
    /// (the default).
    #[default]
    Sniff,
    /// As they are (`--encoding none`, `-a`).
    Raw,
    /// Decoded from this encoding (`--encoding LABEL`); a UTF-16 byte-order
    /// mark still wins, and a UTF-8 one unless UTF-16 is named (as in
    /// ripgrep).
    Forced(&'static encoding_rs::Encoding),
}

impl Encoding {
    /// The encoding a label names (`none` is [`Encoding::Raw`]).
    pub fn for_label(label: &str) -> Option<Encoding> {
        if label.eq_ignore_ascii_case("none") {
            return Some(Encoding::Raw);
        }
        encoding_rs::Encoding::for_label(label.as_bytes()).map(Encoding::Forced)
    }
}

/// Whether `start` (a source's first bytes) begins with a byte-order mark.
pub fn has_bom(start: &[u8]) -> bool {
    start.starts_with(&[0xFF, 0xFE])
        || start.starts_with(&[0xFE, 0xFF])
        || start.starts_with(&[0xEF, 0xBB, 0xBF])
}

/// A reader of the text of `reader`'s bytes, decoded from `forced` (or as
/// a byte-order mark says).
pub(crate) fn decoded<R: Read>(
    reader: R,
    forced: Option<&'static encoding_rs::Encoding>,
) -> impl Read {
    DecodeReaderBytesBuilder::new()
        .encoding(forced)
        .utf8_passthru(true)
        .bom_override(true)
        .strip_bom(true)
        .build(reader)
}

/// The first bytes of a stream (up to three: enough for any mark), read
/// so the stream's kind can be told; the rest follows them.
pub(crate) fn peek<R: Read>(mut reader: R) -> io::Result<(Vec<u8>, R)> {
    let mut start = Vec::with_capacity(3);
    let mut byte = [0u8; 3];
    while start.len() < 3 {
        let want = 3 - start.len();
        match reader.read(&mut byte[..want]) {
            Ok(0) => break,
            Ok(n) => start.extend_from_slice(&byte[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
        // A stream whose first bytes cannot start a mark is told at once
        // (a pipe need not wait for more).
        if !start.is_empty() && ![0xFF, 0xFE, 0xEF].contains(&start[0]) {
            break;
        }
    }
    Ok((start, reader))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8], forced: Option<&'static encoding_rs::Encoding>) -> Vec<u8> {
        let mut out = Vec::new();
        decoded(bytes, forced).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn byte_order_marks_are_transcoded_and_dropped() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("héllo\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("héllo\n".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(text(&le, None), "héllo\n".as_bytes());
        assert_eq!(text(&be, None), "héllo\n".as_bytes());
        assert_eq!(text(b"\xEF\xBB\xBFabc", None), b"abc");
        assert!(has_bom(&le) && has_bom(&be) && has_bom(b"\xEF\xBB\xBF") && !has_bom(b"\xFFx"));
    }

    #[test]
    fn a_forced_encoding_decodes_and_labels_are_encoding_rs_ones() {
        let Some(Encoding::Forced(latin1)) = Encoding::for_label("latin1") else { panic!() };
        assert_eq!(text(b"caf\xe9", Some(latin1)), "café".as_bytes());
        assert!(matches!(Encoding::for_label("none"), Some(Encoding::Raw)));
        assert!(Encoding::for_label("no-such-encoding").is_none());
    }

    #[test]
    fn peek_keeps_every_byte_for_what_follows() {
        let (start, rest) = peek(&b"hello"[..]).unwrap();
        assert_eq!(start, b"hel");
        assert_eq!(rest, b"lo");
        // A read of one byte that cannot start a mark ends the peek.
        let one_at_a_time = std::io::Read::take(&b"x"[..], 1).chain(&b"yz"[..]);
        let (start, _) = peek(one_at_a_time).unwrap();
        assert_eq!(start, b"x");
        let (start, rest) = peek(&b"\xFF\xFEa"[..]).unwrap();
        assert_eq!((start.as_slice(), rest), (&b"\xFF\xFEa"[..], &b""[..]));
    }
}
