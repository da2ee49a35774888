//! Binary detection: where a file turns binary, and what a NUL does to the
//! bytes read after it.

use memchr::{memchr, memrchr};
use trawl_matcher::Matcher;

use super::{Buf, Scan};
use crate::{BinaryMode, Part, Sink};

/// Where the file being searched turned binary.
pub(super) struct Binary {
    /// Offset of the first NUL byte.
    pub(super) offset: Option<u64>,
    /// Offset of the start of the line holding the first NUL: lines from
    /// there on are binary (u64::MAX: none yet).
    pub(super) line: u64,
    /// The whole file was read and its NUL check put off until a match is
    /// found (see `Scan::fill`).
    pub(super) check_deferred: bool,
    /// Bytes of a mapped window from this offset on are not checked yet:
    /// the check follows the matcher's pass over them (see `Scan::fill`).
    pub(super) pending: Option<usize>,
}

impl Binary {
    /// The state at the start of `part` (binary from its start when a NUL
    /// came before it).
    pub(super) fn new(part: &Part) -> Self {
        Binary {
            offset: if part.binary { Some(0) } else { None },
            line: if part.binary { 0 } else { u64::MAX },
            check_deferred: false,
            pending: None,
        }
    }
}

impl<M: Matcher, S: Sink, R: std::io::Read> Scan<'_, M, S, R> {
    /// Binary detection on the bytes just read (`start..len`): a file with
    /// a NUL in its first read (256 KiB) is binary from the start, as GNU
    /// grep's; with a later NUL, from the line holding it (GNU grep: from
    /// its read buffer holding it, which no other buffer size reproduces).
    /// NULs then end lines. Returns false when the file must be skipped (`-I`).
    pub(super) fn detect_binary(&mut self, start: usize) -> bool {
        if self.config.binary == BinaryMode::Text {
            return true;
        }
        if self.binary.offset.is_none() {
            if let Some(i) = memchr(0, &self.win.buf[start..self.win.len]) {
                let at = start + i;
                self.binary.offset = Some(self.win.base + at as u64);
                let from = self.pos.min(at);
                let line =
                    memrchr(self.term(), &self.win.buf[from..at]).map_or(from, |j| from + j + 1);
                // A NUL in the first read makes the whole file binary.
                let first_read = self.config.read_size() as u64;
                self.binary.line = if self.part.origin + self.win.base + (at as u64) < first_read {
                    0
                } else {
                    self.win.base + line as u64
                };
                if self.config.binary == BinaryMode::SkipFile {
                    return false;
                }
            }
        }
        if self.binary.offset.is_some() {
            match &mut self.win.buf {
                Buf::Owned(buf) => {
                    // memchr jumps between NULs; a byte-by-byte loop cost a
                    // tenth of a search of compressed files (one NUL in 256).
                    let mut at = start;
                    while let Some(i) = memchr(0, &buf[at..self.win.len]) {
                        buf[at + i] = b'\n';
                        at += i + 1;
                    }
                }
                Buf::Mapped { .. } => {
                    self.needs_copy = true;
                    return false;
                }
            }
        }
        true
    }
}
