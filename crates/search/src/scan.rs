//! One search of one input: the loop that hands whole buffers to the
//! matcher and turns its matches into selected lines. Its parts, each a
//! small type or a step of the loop, are in the submodules: refilling the
//! buffer, binary detection, line numbers, context, and streaming a line
//! too long to hold.

use std::fs::File;
use std::io::Read;

use memchr::{memchr, memrchr};
use trawl_matcher::Matcher;

use crate::{LineInfo, Part, SearchError, SearchSummary, SearcherConfig, Sink, LONG_LINE};

mod binary;
mod buffer;
mod context;
mod lazy;
mod lines;
mod long_line;

use binary::Binary;
use buffer::Window;
pub(crate) use buffer::{grow_zeroed, Buf};
use context::Printed;
#[cfg(test)]
pub(crate) use lazy::read_again;
use lazy::Lazy;
use lines::LineCounter;
pub use lines::{count_newlines, count_terminators};
use long_line::Streamed;

/// The state of one search. Positions are indexes into the window's buffer.
pub(crate) struct Scan<'a, M, S, R> {
    config: &'a SearcherConfig,
    matcher: &'a M,
    sink: &'a mut S,
    /// The bytes being searched, and where they come from.
    win: Window<'a, R>,
    /// Start of the first line not yet searched.
    pos: usize,
    /// What was printed: where, and what context is owed.
    printed: Printed,
    /// Line numbers, counted as far as needed.
    lines: LineCounter,
    /// Where the file turned binary.
    binary: Binary,
    /// Checks put off for a file without a match yet (None once caught
    /// up, or for a file that cannot be read again).
    lazy: Option<Lazy<'a>>,
    selected: u64,
    /// `-m` reached: only trailing context is still wanted.
    done: bool,
    /// Where `-m` stopped: just past the last selected line.
    stopped_at: Option<u64>,
    /// The part whose lines are selected ([`Part::WHOLE`] but for chunks).
    part: Part,
    /// A mapped file held a NUL to rewrite, or a line to stream: search it
    /// from a reader instead.
    needs_copy: bool,
}

/// Whether to go on after a step.
pub(crate) type Flow = Result<bool, SearchError>;

/// What the NUL check of a mapped window found its whole lines to need.
enum LinesNeed {
    /// No search: no match in them, and nothing else to print or count
    /// (their search would select no line and print nothing).
    Quiet,
    /// The search, as any window's.
    Search,
    /// The check ends the search (`-I`, or a NUL that a mapping
    /// cannot rewrite: the part is searched again from reads).
    Stop,
}

impl<'a, M: Matcher, S: Sink, R: Read> Scan<'a, M, S, R> {
    /// A search of `reader` (or of the mapping in `buf`) whose first
    /// `prefilled` bytes are already in `buf`; `reread` is the file the
    /// reader reads from its start, when it may be read again.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        config: &'a SearcherConfig,
        matcher: &'a M,
        sink: &'a mut S,
        reader: R,
        buf: Buf<'a>,
        part: Part,
        prefilled: usize,
        reread: Option<&'a File>,
    ) -> Self {
        Scan {
            config,
            matcher,
            sink,
            win: Window { reader, buf, base: 0, len: prefilled, eof: false, bytes: 0, prefilled },
            pos: 0,
            // --passthru: lines are owed as context from the start on.
            printed: Printed {
                after_left: if config.passthru { usize::MAX } else { 0 },
                ..Printed::default()
            },
            lines: LineCounter::new(&part, config.terminator.byte()),
            binary: Binary::new(&part),
            lazy: reread.map(Lazy::new),
            selected: 0,
            done: false,
            stopped_at: None,
            part,
            needs_copy: false,
        }
    }

    /// Searches to the end (or the part's), and sums up.
    pub(crate) fn run(&mut self) -> Result<SearchSummary, SearchError> {
        let summary = self.search()?;
        let summary = self.finish_lazy(summary)?;
        Ok(self.finish_part(summary))
    }

    /// Whether a mapped search stopped for a NUL to rewrite or a line to
    /// stream: the part must then be searched from a reader.
    pub(crate) fn needs_copy(&self) -> bool {
        self.needs_copy
    }

    fn summary(&self) -> SearchSummary {
        SearchSummary {
            selected: self.selected,
            bytes: self.win.bytes,
            binary_offset: self.binary.offset,
            part_lines: (None, None),
            stopped_at: self.stopped_at,
        }
    }

    /// Completes the summary of a part: the line number at its end, when the
    /// search got that far.
    fn finish_part(&mut self, mut s: SearchSummary) -> SearchSummary {
        if self.part.end != u64::MAX
            && self.config.line_numbers
            && self.lines.part_ends.1.is_none()
            && self.part.end >= self.win.base
        {
            let end = self.part.end - self.win.base;
            if end <= self.win.len as u64 {
                self.count_lines_to(end as usize);
                if self.lines.counted_to == end as usize && self.lines.part_ends.1.is_none() {
                    self.lines.part_ends.1 = Some(self.lines.number);
                }
            } else if self.win.eof {
                self.count_lines_to(self.win.len);
                self.lines.part_ends.1 = Some(self.lines.number);
            }
        }
        s.part_lines = self.lines.part_ends;
        s
    }

    fn search(&mut self) -> Result<SearchSummary, SearchError> {
        loop {
            if !self.fill()? {
                // -I met a NUL byte: the rest of the file does not count.
                return Ok(self.summary());
            }
            if std::mem::take(&mut self.binary.check_deferred) {
                let hay = &self.win.buf[..self.win.len];
                if self.matcher.find_at(hay, 0).map_err(SearchError::Match)?.is_none() {
                    return Ok(self.summary());
                }
                self.detect_binary(0);
            }
            // The end of the window's last whole line (all of it at the end
            // of the input).
            let lines_end = if self.win.eof {
                Some(self.win.len)
            } else {
                memrchr(self.term(), &self.win.buf[self.pos..self.win.len])
                    .map(|i| self.pos + i + 1)
            };
            // A NUL check after the matcher (a mapped window), or put off
            // (scan/lazy.rs).
            let need = match self.binary.pending.take() {
                Some(from) => self.search_before_binary_check(from, lines_end)?,
                None => self.lazy_lines(lines_end)?,
            };
            let skip = match need {
                LinesNeed::Quiet => true,
                LinesNeed::Search => false,
                LinesNeed::Stop => return Ok(self.summary()),
            };
            let end = match lines_end {
                Some(end) => end,
                // A line begun before the part runs past its end: the
                // part holds no line start.
                None if self.win.base + (self.pos as u64) < self.part.start
                    && self.win.base + self.win.len as u64 >= self.part.end =>
                {
                    if self.config.line_numbers {
                        self.count_lines_to(self.pos);
                        self.lines.part_ends = (Some(self.lines.number), Some(self.lines.number));
                    }
                    return Ok(self.summary());
                }
                // Only after-context is wanted, and lines are not printed.
                None if self.done && self.config.lines_unneeded => {
                    return Ok(self.summary());
                }
                None if self.win.len - self.pos >= LONG_LINE
                    && self.part == Part::WHOLE
                    && self.binary.offset.is_none()
                    && matches!(self.win.buf, Buf::Owned(_))
                    && self.config.streams_matches(self.matcher) =>
                {
                    if !self.stream_matches()?
                        || self.done
                        || (self.win.eof && self.pos == self.win.len)
                    {
                        return Ok(self.summary());
                    }
                    continue;
                }
                None if self.config.lines_unneeded
                    && self.win.len - self.pos >= LONG_LINE
                    && self.win.base + self.pos as u64 >= self.part.start =>
                {
                    match self.stream_long_line()? {
                        Streamed::Unsupported => continue,
                        Streamed::SkipFile => return Ok(self.summary()),
                        Streamed::Line(info, matched) => {
                            let go_on =
                                matched == self.config.invert || self.select_streamed(info)?;
                            if !go_on || self.done || (self.win.eof && self.pos == self.win.len) {
                                return Ok(self.summary());
                            }
                            continue;
                        }
                    }
                }
                // No complete line yet: read more (growing the buffer).
                None => continue,
            };
            let go_on = if skip {
                true
            } else if self.done {
                self.trailing_context(end)?
            } else if self.part == Part::WHOLE {
                self.search_lines(end)?
            } else {
                self.search_in_part(end)?
            };
            self.pos = end;
            if !go_on || self.win.eof || (self.done && self.printed.after_left == 0) {
                return Ok(self.summary());
            }
            self.roll();
        }
    }

    /// The NUL check of a mapped window's bytes from `from` on, after the
    /// matcher has looked for a match in its whole lines (which brings them
    /// into the cache); `lines_end` is the end of its last whole line, if it holds one.
    fn search_before_binary_check(
        &mut self,
        from: usize,
        lines_end: Option<usize>,
    ) -> Result<LinesNeed, SearchError> {
        let quiet_lines = lines_end.filter(|&end| {
            !self.config.invert
                && !self.config.passthru
                && !self.done
                && self.printed.after_left == 0
                && self.win.base + self.pos as u64 >= self.part.start
                && self.win.base + end as u64 <= self.part.end
        });
        let skip = match quiet_lines {
            Some(end) => self.no_match_before(end)?,
            None => false,
        };
        Ok(match (self.detect_binary(from), skip) {
            (false, _) => LinesNeed::Stop,
            (true, true) => LinesNeed::Quiet,
            (true, false) => LinesNeed::Search,
        })
    }

    /// Whether the whole lines from `pos` to `end` hold no match.
    fn no_match_before(&self, end: usize) -> Result<bool, SearchError> {
        if end <= self.pos {
            return Ok(true);
        }
        let found =
            self.matcher.find_at(&self.win.buf[..end], self.pos).map_err(SearchError::Match)?;
        // As `search_matches` reads a match: one at `end` after a line
        // terminator starts a line not in these.
        Ok(found.is_none_or(|m| {
            m.start > end || (m.start == end && self.win.buf[end - 1] == self.term())
        }))
    }

    /// The byte that ends a line.
    fn term(&self) -> u8 {
        self.config.terminator.byte()
    }

    /// Searches `pos..end` for selected lines.
    fn search_lines(&mut self, end: usize) -> Flow {
        if self.config.invert {
            self.search_inverted(end)
        } else {
            self.search_matches(end)
        }
    }

    /// Searches the lines of `pos..end` that start inside the part; once
    /// past its end, only after-context is still wanted.
    fn search_in_part(&mut self, end: usize) -> Flow {
        // Lines begun before the part are left for before-context.
        let start = self.part.start.saturating_sub(self.win.base);
        if (self.pos as u64) < start {
            let s = (start - 1) as usize;
            match self.win.buf.get(s..end).and_then(|b| memchr(self.term(), b)) {
                Some(i) => self.pos = s + i + 1,
                None => return Ok(true),
            }
        }
        let stop = self.part.end.saturating_sub(self.win.base);
        if stop >= end as u64 {
            return self.search_lines(end);
        }
        // Lines from the first one starting at or after the part's end are
        // only context.
        let clip = match (stop as usize).checked_sub(1) {
            Some(s) if s >= self.pos => {
                memchr(self.term(), &self.win.buf[s..end]).map_or(end, |i| s + i + 1)
            }
            _ => self.pos,
        };
        if !self.search_lines(clip)? {
            return Ok(false);
        }
        self.done = true;
        self.trailing_context(end)
    }

    fn count_lines_to(&mut self, at: usize) {
        self.lines.count_to(&self.win.buf, self.win.base, &self.part, at);
    }

    fn info(&mut self, line_start: usize) -> LineInfo {
        let line_number = if self.config.line_numbers {
            self.count_lines_to(line_start);
            Some(self.lines.number)
        } else {
            None
        };
        LineInfo { offset: self.win.base + line_start as u64, line_number }
    }

    /// The end of the line containing `at` (after its `\n`, or `end`).
    fn next_line(&self, at: usize, end: usize) -> usize {
        memchr(self.term(), &self.win.buf[at..end]).map_or(end, |i| at + i + 1)
    }

    /// Searches `pos..end` for matching lines.
    fn search_matches(&mut self, end: usize) -> Flow {
        let mut at = self.pos;
        while at < end {
            let m = self.matcher.find_at(&self.win.buf[..end], at).map_err(SearchError::Match)?;
            let Some(m) = m else { break };
            // A match at `end` after a newline belongs to a line not read yet.
            if m.start > end || (m.start == end && self.win.buf[end - 1] == self.term()) {
                break;
            }
            let ls = memrchr(self.term(), &self.win.buf[at..m.start]).map_or(at, |i| at + i + 1);
            let next = self.next_line(m.end.max(ls), end);
            if !self.select(ls, next)? {
                return Ok(false);
            }
            if self.done {
                return self.trailing_context(end);
            }
            at = next;
        }
        self.trailing_context(end)
    }

    /// Searches `pos..end` for lines that do not match (`-v`).
    fn search_inverted(&mut self, end: usize) -> Flow {
        let mut at = self.pos;
        while at < end {
            let m = self.matcher.find_at(&self.win.buf[..end], at).map_err(SearchError::Match)?;
            let (mls, mnext) = match m {
                Some(m)
                    if m.start < end
                        || (m.start == end && self.win.buf[end - 1] != self.term()) =>
                {
                    let ls =
                        memrchr(self.term(), &self.win.buf[at..m.start]).map_or(at, |i| at + i + 1);
                    (ls, self.next_line(m.end.max(ls), end))
                }
                _ => (end, end),
            };
            while at < mls {
                let next = self.next_line(at, mls);
                if !self.select(at, next)? {
                    return Ok(false);
                }
                if self.done {
                    return self.trailing_context(end);
                }
                at = next;
            }
            at = mnext;
        }
        self.trailing_context(end)
    }

    /// Handles the selected line `ls..next`: context before it, the line,
    /// and the `-m` count.
    fn select(&mut self, ls: usize, next: usize) -> Flow {
        self.selected += 1;
        if self.config.max_count.is_some_and(|m| self.selected >= m) {
            self.done = true;
            self.stopped_at = Some(self.win.base + next as u64);
        }
        if self.win.base + ls as u64 >= self.binary.line {
            // Text lines owed as after-context come first.
            let text_end = self.binary.line.saturating_sub(self.win.base) as usize;
            if !self.after_context_until(text_end.min(ls))? {
                return Ok(false);
            }
            self.printed.after_left = 0;
            let info = self.info(ls);
            self.printed.end = next;
            return Ok(self.sink.binary_matched(info)?);
        }
        if !self.context_before(ls)? {
            return Ok(false);
        }
        let info = self.info(ls);
        self.printed.any = true;
        self.printed.end = next;
        self.printed.after_left = self.config.after_context;
        Ok(self.sink.matched(&self.win.buf[ls..next], info)?)
    }
}
