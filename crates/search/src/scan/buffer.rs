//! The buffer a search looks at, and refilling it: reading more (growing it
//! for a long line), or widening the window over a mapped file; rolling the
//! unsearched tail to the front.

use std::io::{self, Read};

use memchr::memrchr;
use trawl_matcher::Matcher;

use super::Scan;
use crate::{BinaryMode, Part, SearchError, Sink};

/// Bytes of a mapped file looked at at a time: the matcher reads them from
/// memory, and they stay in the L2 cache for the NUL check and the line
/// count after it (big.txt `-n PM_RESUME`, 20 runs: 153 ms against 159 for
/// 32 KiB windows, user time 137 ms against 157).
const MAPPED_WINDOW: usize = 128 * 1024;

/// Bytes read at a time past the end of a part (for its last line and
/// after-context).
const MARGIN_READ: usize = 64 * 1024;

/// The bytes a search looks at: a buffer it reads into, or a mapped file.
pub(crate) enum Buf<'a> {
    /// Read into; its length is its capacity.
    Owned(&'a mut Vec<u8>),
    /// The file from the part's origin to its end; `off` bytes of it were
    /// dropped (as a buffer drops bytes by moving its tail to the front).
    Mapped { data: &'a [u8], off: usize },
}

impl Buf<'_> {
    /// Makes room for at least `len` bytes (a mapping has it all). The
    /// new buffer comes zeroed from the allocator (calloc: fresh pages for
    /// a large one, untouched until read into), not zeroed here.
    fn grow(&mut self, len: usize) {
        if let Buf::Owned(v) = self {
            grow_zeroed(v, len);
        }
    }

    /// Drops the first `keep` bytes, of which `len` hold data.
    fn drop_front(&mut self, keep: usize, len: usize) {
        match self {
            Buf::Owned(v) => v.copy_within(keep..len, 0),
            Buf::Mapped { off, .. } => *off += keep,
        }
    }
}

/// Makes `v` at least `len` bytes long. A new buffer comes zeroed from the
/// allocator (calloc: fresh pages for a large one, untouched until read
/// into) instead of being zeroed here: a search of a small file touches one
/// page of its 256 KiB buffer, not all 64.
pub(crate) fn grow_zeroed(v: &mut Vec<u8>, len: usize) {
    if len > v.len() {
        let mut grown = vec![0u8; len];
        grown[..v.len()].copy_from_slice(v);
        *v = grown;
    }
}

impl std::ops::Deref for Buf<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { data, off } => &data[*off..],
        }
    }
}

/// The bytes a search looks at and where they come from. Positions are
/// indexes into `buf`; `base` is the file offset of `buf[0]`.
pub(super) struct Window<'a, R> {
    pub(super) reader: R,
    pub(super) buf: Buf<'a>,
    pub(super) base: u64,
    /// Bytes of `buf` holding data.
    pub(super) len: usize,
    /// The reader is exhausted (or the mapping's end is in the window).
    pub(super) eof: bool,
    /// Bytes read.
    pub(super) bytes: u64,
    /// Bytes at the buffer's start read before the search began (the
    /// first read of a file whose size was unknown): the first fill
    /// treats them as read by itself.
    pub(super) prefilled: usize,
}

impl<M: Matcher, S: Sink, R: Read> Scan<'_, M, S, R> {
    /// Reads more data after `len`, growing the buffer when it is full.
    /// Returns false when a binary file must be skipped (`-I`).
    pub(super) fn fill(&mut self) -> Result<bool, SearchError> {
        if self.config.cancel.is_cancelled() {
            return Err(SearchError::Io(io::Error::from(io::ErrorKind::Interrupted)));
        }
        let read_size = self.config.read_size();
        let prefilled = std::mem::take(&mut self.win.prefilled);
        if prefilled == 0 && self.win.buf.len() - self.win.len < read_size / 2 + 1 {
            let new_len = (self.win.buf.len() * 2).max(self.win.len + read_size);
            self.win.buf.grow(new_len);
        }
        let start = self.win.len - prefilled;
        // Fill the buffer up: fewer matcher calls, and a small file in one go.
        // A part is read to its end, then a little at a time past it.
        let mut limit = self.win.buf.len();
        if self.part.end != u64::MAX {
            let at = self.win.base + self.win.len as u64;
            let want = if at < self.part.end {
                (self.part.end - at).min(limit as u64) as usize
            } else {
                // As much as the unfinished line holds: a long line is
                // read in doubling pieces, not rescanned 64 KiB at a time.
                MARGIN_READ.max(self.win.len - self.pos)
            };
            limit = limit.min(self.win.len + want);
        }
        if let Buf::Mapped { .. } = self.win.buf {
            // A little at a time, so the search finds the bytes binary
            // detection just brought into the cache; an unfinished line
            // doubles it, as it grows a buffer.
            let window = MAPPED_WINDOW.min(read_size).max(self.win.len - self.pos);
            self.win.len = limit.min(self.win.len + window);
            self.win.eof = self.win.len == self.win.buf.len();
        }
        while let Buf::Owned(buf) = &mut self.win.buf {
            if self.win.len >= limit {
                break;
            }
            match self.win.reader.read(&mut buf[self.win.len..limit]) {
                Ok(0) => {
                    self.win.eof = true;
                    break;
                }
                Ok(n) => {
                    self.win.len += n;
                    if self.config.stream {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.win.eof = true;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.win.bytes += (self.win.len - start) as u64;
        // A whole file in one read, and a pattern a NUL cannot help to
        // match (no line anchors; `-v` selects the pieces a NUL cuts a line
        // into): if the file has no match, whether it holds a NUL does not
        // matter, so `search` looks for a match first.
        if start == 0
            && self.win.base == 0
            && self.win.eof
            && self.part == Part::WHOLE
            && self.config.binary == BinaryMode::Detect
            && !self.config.invert
            && !self.config.passthru
            && matches!(self.win.buf, Buf::Owned(_))
            && self.matcher.unanchored()
        {
            self.binary.check_deferred = true;
            return Ok(true);
        }
        // A mapped window is read from memory by whichever pass comes
        // first; the matcher's pass, which has more to do per byte, hides
        // the wait better, and the NUL check then finds the bytes in the
        // cache (big.txt `-c -w '[A-Z]+_SUSPEND'`: the check was a third of
        // the samples). `search` runs the check before any line of the
        // window is selected.
        if matches!(self.win.buf, Buf::Mapped { .. }) && self.config.binary != BinaryMode::Text {
            self.binary.pending = Some(start);
            return Ok(true);
        }
        if self.put_off_binary_check(start) {
            return Ok(true);
        }
        Ok(self.detect_binary(start))
    }

    /// Moves the unsearched tail (and lines kept for before-context) to the
    /// front of the buffer.
    pub(super) fn roll(&mut self) {
        let mut keep = self.pos;
        let mut n = self.config.before_context;
        while n > 0 && keep > self.printed.end {
            keep = memrchr(self.term(), &self.win.buf[self.printed.end..keep - 1])
                .map_or(self.printed.end, |i| self.printed.end + i + 1);
            n -= 1;
        }
        if self.config.line_numbers && !self.put_off_line_count() {
            self.count_lines_to(keep);
        }
        if self.printed.end < keep {
            self.printed.dropped_unprinted = true;
        }
        self.win.buf.drop_front(keep, self.win.len);
        self.win.base += keep as u64;
        self.win.len -= keep;
        self.pos -= keep;
        self.printed.end = self.printed.end.saturating_sub(keep);
        self.lines.dropped(keep);
    }
}
