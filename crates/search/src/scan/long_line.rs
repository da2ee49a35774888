//! A line too long to hold (over [`LONG_LINE`] bytes, when its text is not
//! wanted) is fed to the matcher piece by piece through the buffer.
//!
//! [`LONG_LINE`]: crate::LONG_LINE

use std::io::{self, Read};

use memchr::memchr;
use trawl_matcher::Matcher;

use super::{Buf, Flow, Scan};
use crate::{LineInfo, SearchError, Sink};

/// What streaming a long line found.
pub(super) enum Streamed {
    /// The matcher cannot stream: hold the line after all.
    Unsupported,
    /// `-I` met a NUL byte.
    SkipFile,
    /// The line ended (at `pos`); whether it matched.
    Line(LineInfo, bool),
}

impl<M: Matcher, S: Sink, R: Read> Scan<'_, M, S, R> {
    /// Decides whether the unfinished line at `pos` matches by feeding it to
    /// the matcher piece by piece, reusing the buffer for each piece.
    pub(super) fn stream_long_line(&mut self) -> Result<Streamed, SearchError> {
        let Some(mut stream) = self.matcher.line_stream() else { return Ok(Streamed::Unsupported) };
        if let Buf::Mapped { .. } = self.win.buf {
            // Reading streams the line through a buffer: the mapping would
            // hold all of its pages.
            self.needs_copy = true;
            return Ok(Streamed::SkipFile);
        }
        let info = self.info(self.pos);
        let mut matched = false;
        let mut from = self.pos;
        loop {
            let term = memchr(self.term(), &self.win.buf[from..self.win.len]).map(|i| from + i);
            let piece_end = term.unwrap_or(self.win.len);
            if !matched {
                matched =
                    stream.feed(&self.win.buf[from..piece_end]).map_err(SearchError::Match)?;
            }
            if let Some(t) = term {
                self.pos = t + 1;
                break;
            }
            if self.win.eof {
                self.pos = self.win.len;
                break;
            }
            // Drop what was fed and read the next piece into the whole buffer.
            self.win.base += self.win.len as u64;
            self.win.len = 0;
            from = 0;
            let Buf::Owned(buf) = &mut self.win.buf else {
                unreachable!("streams only read buffers")
            };
            while self.win.len == 0 && !self.win.eof {
                match self.win.reader.read(buf) {
                    Ok(0) => self.win.eof = true,
                    Ok(n) => self.win.len = n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.win.eof = true,
                    Err(e) => return Err(e.into()),
                }
            }
            self.win.bytes += self.win.len as u64;
            if !self.detect_binary(0) {
                return Ok(Streamed::SkipFile);
            }
        }
        if !matched {
            matched = stream.finish().map_err(SearchError::Match)?;
        }
        // The part ends inside this line: its number is the part's last.
        let line_end = self.win.base + self.pos as u64;
        if self.part.end != u64::MAX && self.lines.part_ends.1.is_none() && line_end > self.part.end
        {
            self.lines.part_ends.1 = info.line_number;
        }
        // The next line starts at `pos`, and has the next number.
        self.lines.counted_to = self.pos;
        self.lines.number = info.line_number.map_or(self.lines.number, |n| n + 1);
        self.printed.end = self.pos;
        Ok(Streamed::Line(info, matched))
    }

    /// Reports a selected line that was streamed (its text is not wanted).
    pub(super) fn select_streamed(&mut self, info: LineInfo) -> Flow {
        self.selected += 1;
        if self.config.max_count.is_some_and(|m| self.selected >= m) {
            self.done = true;
            self.stopped_at = Some(self.win.base + self.pos as u64);
        }
        if self.binary.offset.is_some() {
            return Ok(self.sink.binary_matched(info)?);
        }
        Ok(self.sink.matched(&[], info)?)
    }
}
