//! A line too long to hold (over [`LONG_LINE`] bytes, when its text is not
//! wanted) is fed to the matcher piece by piece through the buffer.
//!
//! [`LONG_LINE`]: crate::LONG_LINE

use std::io::{self, Read};

use memchr::memchr;
use trawl_matcher::Matcher;

use super::{Buf, Flow, Scan};
use crate::{BinaryMode, LineInfo, SearchError, Sink};

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

    /// `-o` on the unfinished line at `pos`, too long to hold: searched
    /// piece by piece, each piece keeping the bytes a match starting
    /// after the previous piece's searched starts could still need (one
    /// less than the longest match); its matches go to the sink as found.
    pub(super) fn stream_matches(&mut self) -> Flow {
        let longest = self.matcher.bounded_len().unwrap_or(1).max(1);
        let info = self.info(self.pos);
        let term = self.term();
        let mut found = false;
        // Past a NUL (unless -a) the line is binary, as GNU grep makes the
        // rest of a file binary from the read holding it: its later
        // matches are one "binary file matches" (-I: the file stops).
        let mut binary = false;
        // The piece searched starts at `from`; matches may start at `at`;
        // the line's end has not been met before `scanned`.
        let (mut from, mut at, mut scanned) = (self.pos, self.pos, self.pos);
        let end_of_line = loop {
            let end = memchr(term, &self.win.buf[scanned..self.win.len]).map(|i| scanned + i);
            let piece_end = end.unwrap_or(self.win.len);
            let last = end.is_some() || self.win.eof;
            // Starts from here on may need bytes past the piece.
            let limit = if last { piece_end + 1 } else { piece_end.saturating_sub(longest - 1) };
            while at < limit && at <= piece_end {
                let hay = &self.win.buf[from..piece_end];
                let Some(m) = self.matcher.find_at(hay, at - from).map_err(SearchError::Match)?
                else {
                    at = limit;
                    break;
                };
                let (s, e) = (from + m.start, from + m.end);
                if s >= limit {
                    at = limit;
                    break;
                }
                if s == e {
                    // Empty matches print nothing (as -o in grep).
                    at = s + 1;
                    continue;
                }
                found = true;
                if binary {
                    self.selected += 1;
                    self.binary.offset.get_or_insert(self.win.base + s as u64);
                    self.sink.binary_matched(info)?;
                    return Ok(false);
                }
                let offset = self.win.base + s as u64;
                if !self.sink.matched_part(&self.win.buf[s..e], info, offset)? {
                    return Ok(false);
                }
                at = e;
            }
            if last {
                break end;
            }
            // Keep what a later match may start in, then read more after it.
            let keep = at.min(self.win.len);
            let Buf::Owned(buf) = &mut self.win.buf else {
                unreachable!("streams only read buffers")
            };
            buf.copy_within(keep..self.win.len, 0);
            self.win.base += keep as u64;
            self.win.len -= keep;
            at -= keep;
            from = 0;
            scanned = self.win.len;
            loop {
                match self.win.reader.read(&mut buf[self.win.len..]) {
                    Ok(0) => self.win.eof = true,
                    Ok(n) => {
                        let new = &buf[self.win.len..self.win.len + n];
                        if self.config.binary != BinaryMode::Text && memchr(0, new).is_some() {
                            if self.config.binary == BinaryMode::SkipFile {
                                return Ok(false);
                            }
                            binary = true;
                        }
                        self.win.len += n;
                        self.win.bytes += n as u64;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.win.eof = true,
                    Err(e) => return Err(e.into()),
                }
                break;
            }
        };
        self.pos = end_of_line.map_or(self.win.len, |t| t + 1);
        // The next line starts at `pos`, and has the next number.
        self.lines.counted_to = self.pos;
        self.lines.number = info.line_number.map_or(self.lines.number, |n| n + 1);
        self.printed.end = self.pos;
        if found {
            self.selected += 1;
            if self.config.max_count.is_some_and(|m| self.selected >= m) {
                self.done = true;
                self.stopped_at = Some(self.win.base + self.pos as u64);
            }
        }
        Ok(true)
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
