//! Searching bytes for selected lines, with grep's semantics.
//!
//! A [`Searcher`] reads a file into a reusable buffer and hands the whole
//! buffer (every complete line in it) to the matcher at once; line boundaries
//! are located only around the matches it returns, and newlines are counted
//! only when line numbers are wanted, incrementally from the last counted
//! point. Lines longer than the buffer grow it; the tail of a buffer that ends
//! mid-line, plus the lines needed for before-context, is moved to the front
//! before the next read.
//!
//! Results go to a [`Sink`], whose callbacks return `Ok(false)` to stop.
//!
//! How a source is searched is decided here too ([`Searcher::search_file`]
//! for regular files: one pass or parts on every thread, mapped or read;
//! [`Searcher::search_stream`] for any other byte stream), and every search
//! stops at its next read once the run's [`Cancel`] token is set.
//!
//! ```
//! use trawl_matcher::MatcherBuilder;
//! use trawl_search::{LineInfo, Searcher, SearcherConfig, Sink};
//!
//! struct Lines(Vec<String>);
//! impl Sink for Lines {
//!     fn matched(&mut self, line: &[u8], _: LineInfo) -> std::io::Result<bool> {
//!         self.0.push(String::from_utf8_lossy(line).into_owned());
//!         Ok(true)
//!     }
//! }
//! let m = MatcherBuilder::new().build(&[b"b+".to_vec()]).unwrap();
//! let mut s = Searcher::new(SearcherConfig::default());
//! let mut sink = Lines(vec![]);
//! s.search_slice(&m, b"a\nbb\nc", &mut sink).unwrap();
//! assert_eq!(sink.0, ["bb\n"]);
//! ```
#![deny(missing_docs)]

use std::io::{self, Read};

use memchr::{memchr, memrchr};
use trawl_matcher::Matcher;

/// What to do with a file that contains a NUL byte.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum BinaryMode {
    /// grep's default: from the first NUL on, NULs end lines, no line is
    /// printed, and [`Sink::binary_matched`] reports selected lines.
    #[default]
    Detect,
    /// `-a`: search and print as text.
    Text,
    /// `-I`: stop at the first NUL; the file counts as not matching from there.
    SkipFile,
}

/// How a searcher selects and surrounds lines.
#[derive(Clone, Debug, Default)]
pub struct SearcherConfig {
    /// `-v`: select the lines that do not match.
    pub invert: bool,
    /// Compute line numbers (`-n`).
    pub line_numbers: bool,
    /// `-B`: lines of context before each selected line.
    pub before_context: usize,
    /// `-A`: lines of context after each selected line.
    pub after_context: usize,
    /// Report breaks between non-adjacent groups (any of `-A`, `-B`, `-C`
    /// given, even 0, as grep).
    pub group_breaks: bool,
    /// Search the data of each read as soon as it arrives instead of filling
    /// the buffer first (`--line-buffered` on a pipe).
    pub stream: bool,
    /// `-m`: stop after this many selected lines.
    pub max_count: Option<u64>,
    /// Binary file handling.
    pub binary: BinaryMode,
    /// Whether the sink needs the text of selected lines. When it does not
    /// (`-c`, `-l`, `-L`, `-q`), a line longer than [`LONG_LINE`] is streamed
    /// through the matcher instead of held in memory.
    pub lines_unneeded: bool,
    /// Bytes read at a time (0: 256 KiB). Tests use tiny sizes to put line
    /// and match edges at every buffer position.
    pub read_size: usize,
    /// Bytes per part when one file is searched by several threads (0:
    /// [`PART_SIZE`]). Tests use tiny parts to put part edges everywhere.
    pub part_size: u64,
    /// Search a file split into parts from a memory mapping rather than
    /// reading it (never by default and with `--no-mmap`; a file truncated
    /// meanwhile cannot crash the search or change its output).
    pub mmap: MmapChoice,
    /// Threads that may search one large file in parts (0: one per CPU;
    /// 1: never in parts).
    pub threads: usize,
    /// Stops every search holding it at its next read (SIGINT).
    pub cancel: Cancel,
}

impl SearcherConfig {
    /// Bytes per part of a file searched in parallel.
    pub(crate) fn part_size(&self) -> u64 {
        if self.part_size == 0 {
            PART_SIZE
        } else {
            self.part_size
        }
    }

    /// Bytes read at a time.
    pub(crate) fn read_size(&self) -> usize {
        if self.read_size == 0 {
            READ_SIZE
        } else {
            self.read_size
        }
    }
}

/// A line without an end after this many bytes is streamed when its text is
/// not needed (so `-c` on a 1 GB line stays within a few dozen MB). When the
/// text is printed, the line is held: memory grows to about twice the
/// longest printed line.
pub const LONG_LINE: usize = 32 * 1024 * 1024;

/// What streaming a long line found.
enum Streamed {
    /// The matcher cannot stream: hold the line after all.
    Unsupported,
    /// `-I` met a NUL byte.
    SkipFile,
    /// The line ended (at `pos`); whether it matched.
    Line(LineInfo, bool),
}

/// Where a line sits in its file.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct LineInfo {
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// 1-based line number, when line numbers are on.
    pub line_number: Option<u64>,
}

/// Which side of a selected line a context line is on.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ContextKind {
    /// Before it (`-B`).
    Before,
    /// After it (`-A`).
    After,
}

/// Receives what a search finds. Every callback returns `Ok(false)` to stop
/// searching the current file.
pub trait Sink {
    /// A selected line, with its terminator if it has one.
    fn matched(&mut self, line: &[u8], info: LineInfo) -> io::Result<bool>;

    /// A context line (not selected) near a selected line.
    fn context(&mut self, _line: &[u8], _info: LineInfo, _kind: ContextKind) -> io::Result<bool> {
        Ok(true)
    }

    /// The next line printed is not adjacent to the previous one (`--`).
    fn context_break(&mut self) -> io::Result<bool> {
        Ok(true)
    }

    /// A selected line in a file found to be binary; the default stops.
    fn binary_matched(&mut self, _info: LineInfo) -> io::Result<bool> {
        Ok(false)
    }
}

/// Totals of one search.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct SearchSummary {
    /// Lines selected (matching, or not matching with `-v`).
    pub selected: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Offset of the first NUL byte, if the file was found to be binary. A
    /// file without a selected line may not have been checked: a pattern
    /// without line anchors is looked for first (see [`Matcher::unanchored`]).
    pub binary_offset: Option<u64>,
    /// For [`Searcher::search_part`] with line numbers on: the numbers of the
    /// lines holding the first and last byte of the part (1 + the newlines
    /// read before each end); None where the search stopped before an end.
    pub part_lines: (Option<u64>, Option<u64>),
}

/// A part of a file searched alone by [`Searcher::search_part`]: only lines
/// starting in `start..end` (offsets from the reader's start) are selected;
/// the lines before `start` serve as before-context and those after `end` as
/// after-context.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Part {
    /// Offset of the part's first byte.
    pub start: u64,
    /// Offset just past its last byte.
    pub end: u64,
    /// Whether the file was already found binary before this part (a NUL
    /// earlier in the file): NULs end lines and no line is printed.
    pub binary: bool,
    /// Offset in the file of the reader's first byte.
    pub origin: u64,
}

impl Part {
    /// The whole input.
    const WHOLE: Part = Part { start: 0, end: u64::MAX, binary: false, origin: 0 };
}

/// Bytes of a mapped file looked at at a time (they stay in the L1 cache
/// between binary detection and the search; measured on 1.8 GB: 5% faster
/// than 256 KiB).
const MAPPED_WINDOW: usize = 32 * 1024;

/// Bytes read at a time past the end of a part (for its last line and
/// after-context).
const MARGIN_READ: usize = 64 * 1024;

/// Error of a search: reading failed, the matcher failed, or the sink failed.
#[derive(Debug)]
pub enum SearchError {
    /// Reading the input or writing through the sink failed.
    Io(io::Error),
    /// The matcher gave up (for example PCRE2's backtracking limit).
    Match(trawl_matcher::Error),
}

impl std::fmt::Display for SearchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SearchError::Io(e) => e.fmt(f),
            SearchError::Match(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<io::Error> for SearchError {
    fn from(e: io::Error) -> Self {
        SearchError::Io(e)
    }
}

/// Smallest read: most source files fit whole, so one matcher call covers them.
const READ_SIZE: usize = 256 * 1024;
/// A buffer grown past this for one long line is given back after the file.
const SHRINK_ABOVE: usize = 16 * 1024 * 1024;

/// Searches inputs one at a time, reusing its buffer (one per thread).
#[derive(Debug)]
pub struct Searcher {
    config: SearcherConfig,
    buf: Vec<u8>,
}

impl Searcher {
    /// A searcher with its own buffer.
    pub fn new(config: SearcherConfig) -> Searcher {
        Searcher { config, buf: Vec::new() }
    }

    /// The configuration.
    pub fn config(&self) -> &SearcherConfig {
        &self.config
    }

    /// Searches everything `reader` yields.
    pub fn search_reader<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
    ) -> Result<SearchSummary, SearchError> {
        self.search_part(matcher, reader, sink, Part::WHOLE)
    }

    /// Searches the lines of `reader` that start inside `part`, reading no
    /// further past its end than the last such line and after-context need.
    pub fn search_part<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
        part: Part,
    ) -> Result<SearchSummary, SearchError> {
        self.search_owned(matcher, reader, sink, part, 0)
    }

    /// Searches with the searcher's own buffer, whose first `prefilled`
    /// bytes were already read from `reader`.
    fn search_owned<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
        part: Part,
        prefilled: usize,
    ) -> Result<SearchSummary, SearchError> {
        if self.config.max_count == Some(0) {
            return Ok(SearchSummary::default());
        }
        let mut buf = std::mem::take(&mut self.buf);
        let read_size = self.config.read_size();
        if buf.len() < read_size {
            buf.resize(read_size, 0);
        }
        let mut scan = Scan::new(&self.config, matcher, sink, reader, Buf::Owned(&mut buf), part);
        scan.len = prefilled;
        scan.prefilled = prefilled;
        let result = scan.search().map(|s| scan.finish_part(s));
        if buf.len() > SHRINK_ABOVE {
            buf = Vec::new();
        }
        self.buf = buf;
        result
    }

    /// Searches the lines of a mapped file that start inside `part`, as
    /// [`Searcher::search_part`] does with a reader: `data` holds the file
    /// from `part.origin` to its end. Returns None, having told `sink` some
    /// lines, when the data holds a NUL that binary detection must rewrite,
    /// or a line to stream through a buffer: the part must then be searched
    /// from a reader.
    pub fn search_mapped<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        data: &[u8],
        sink: &mut S,
        part: Part,
    ) -> Result<Option<SearchSummary>, SearchError> {
        if self.config.max_count == Some(0) {
            return Ok(Some(SearchSummary::default()));
        }
        let buf = Buf::Mapped { data, off: 0 };
        let mut scan = Scan::new(&self.config, matcher, sink, io::empty(), buf, part);
        let summary = scan.search().map(|s| scan.finish_part(s))?;
        Ok((!scan.needs_copy).then_some(summary))
    }

    /// Searches a byte slice as a whole file.
    pub fn search_slice<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        data: &[u8],
        sink: &mut S,
    ) -> Result<SearchSummary, SearchError> {
        self.search_reader(matcher, data, sink)
    }
}

/// The bytes a search looks at: a buffer it reads into, or a mapped file.
enum Buf<'a> {
    /// Read into; its length is its capacity.
    Owned(&'a mut Vec<u8>),
    /// The file from the part's origin to its end; `off` bytes of it were
    /// dropped (as a buffer drops bytes by moving its tail to the front).
    Mapped { data: &'a [u8], off: usize },
}

impl Buf<'_> {
    /// Makes room for at least `len` bytes (a mapping has it all).
    fn grow(&mut self, len: usize) {
        if let Buf::Owned(v) = self {
            v.resize(len, 0);
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

impl std::ops::Deref for Buf<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Buf::Owned(v) => v,
            Buf::Mapped { data, off } => &data[*off..],
        }
    }
}

/// The state of one search. Positions are indexes into `buf`; `base` is the
/// file offset of `buf[0]`.
struct Scan<'a, M, S, R> {
    config: &'a SearcherConfig,
    matcher: &'a M,
    sink: &'a mut S,
    reader: R,
    buf: Buf<'a>,
    base: u64,
    /// Bytes of `buf` holding data.
    len: usize,
    eof: bool,
    /// Start of the first line not yet searched.
    pos: usize,
    /// Lines before this were printed or passed over for good.
    printed_end: usize,
    /// Whether any line of this file was printed (for `--` breaks).
    printed_any: bool,
    /// Lines dropped from the buffer were never printed: the next group is
    /// not adjacent to the last one.
    dropped_unprinted: bool,
    /// After-context lines still owed.
    after_left: usize,
    /// Newlines are counted up to here...
    counted_to: usize,
    /// ...and this is the number of the line starting there.
    line_number: u64,
    selected: u64,
    /// `-m` reached: only trailing context is still wanted.
    done: bool,
    binary_offset: Option<u64>,
    /// Offset of the start of the line holding the first NUL: lines from
    /// there on are binary (u64::MAX: none yet).
    binary_line: u64,
    bytes: u64,
    /// The part whose lines are selected ([`Part::WHOLE`] but for chunks).
    part: Part,
    /// Line numbers at the part's start and end, once counted past them.
    part_lines: (Option<u64>, Option<u64>),
    /// A mapped file held a NUL to rewrite: search it from a reader instead.
    needs_copy: bool,
    /// The whole file was read and its NUL check put off until a match is
    /// found (see `fill`).
    nul_unchecked: bool,
    /// Bytes at the buffer's start read before the search began (the
    /// first read of a file whose size was unknown): the first fill
    /// treats them as read by itself.
    prefilled: usize,
}

/// Whether to go on after a step.
type Flow = Result<bool, SearchError>;

impl<'a, M: Matcher, S: Sink, R: Read> Scan<'a, M, S, R> {
    fn new(
        config: &'a SearcherConfig,
        matcher: &'a M,
        sink: &'a mut S,
        reader: R,
        buf: Buf<'a>,
        part: Part,
    ) -> Self {
        Scan {
            config,
            matcher,
            sink,
            reader,
            buf,
            base: 0,
            len: 0,
            eof: false,
            pos: 0,
            printed_end: 0,
            printed_any: false,
            dropped_unprinted: false,
            after_left: 0,
            counted_to: 0,
            line_number: 1,
            selected: 0,
            done: false,
            binary_offset: if part.binary { Some(0) } else { None },
            binary_line: if part.binary { 0 } else { u64::MAX },
            bytes: 0,
            part,
            part_lines: (if part.start == 0 { Some(1) } else { None }, None),
            needs_copy: false,
            nul_unchecked: false,
            prefilled: 0,
        }
    }

    fn summary(&self) -> SearchSummary {
        SearchSummary {
            selected: self.selected,
            bytes: self.bytes,
            binary_offset: self.binary_offset,
            part_lines: (None, None),
        }
    }

    /// Completes the summary of a part: the line number at its end, when the
    /// search got that far.
    fn finish_part(&mut self, mut s: SearchSummary) -> SearchSummary {
        if self.part.end != u64::MAX
            && self.config.line_numbers
            && self.part_lines.1.is_none()
            && self.part.end >= self.base
        {
            let end = self.part.end - self.base;
            if end <= self.len as u64 {
                self.count_lines_to(end as usize);
                if self.counted_to == end as usize && self.part_lines.1.is_none() {
                    self.part_lines.1 = Some(self.line_number);
                }
            } else if self.eof {
                self.count_lines_to(self.len);
                self.part_lines.1 = Some(self.line_number);
            }
        }
        s.part_lines = self.part_lines;
        s
    }

    fn search(&mut self) -> Result<SearchSummary, SearchError> {
        loop {
            if !self.fill()? {
                // -I met a NUL byte: the rest of the file does not count.
                return Ok(self.summary());
            }
            if std::mem::take(&mut self.nul_unchecked) {
                let hay = &self.buf[..self.len];
                if self.matcher.find_at(hay, 0).map_err(SearchError::Match)?.is_none() {
                    return Ok(self.summary());
                }
                self.detect_binary(0);
            }
            let end = if self.eof {
                self.len
            } else {
                match memrchr(b'\n', &self.buf[self.pos..self.len]) {
                    // A line begun before the part runs past its end: the
                    // part holds no line start.
                    None if self.base + (self.pos as u64) < self.part.start
                        && self.base + self.len as u64 >= self.part.end =>
                    {
                        if self.config.line_numbers {
                            self.count_lines_to(self.pos);
                            self.part_lines = (Some(self.line_number), Some(self.line_number));
                        }
                        return Ok(self.summary());
                    }
                    Some(i) => self.pos + i + 1,
                    // Only after-context is wanted, and lines are not printed.
                    None if self.done && self.config.lines_unneeded => {
                        return Ok(self.summary());
                    }
                    None if self.config.lines_unneeded
                        && self.len - self.pos >= LONG_LINE
                        && self.base + self.pos as u64 >= self.part.start =>
                    {
                        match self.stream_long_line()? {
                            Streamed::Unsupported => continue,
                            Streamed::SkipFile => return Ok(self.summary()),
                            Streamed::Line(info, matched) => {
                                let go_on =
                                    matched == self.config.invert || self.select_streamed(info)?;
                                if !go_on || self.done || (self.eof && self.pos == self.len) {
                                    return Ok(self.summary());
                                }
                                continue;
                            }
                        }
                    }
                    // No complete line yet: read more (growing the buffer).
                    None => continue,
                }
            };
            let go_on = if self.done {
                self.trailing_context(end)?
            } else if self.part == Part::WHOLE {
                self.search_lines(end)?
            } else {
                self.search_in_part(end)?
            };
            self.pos = end;
            if !go_on || self.eof || (self.done && self.after_left == 0) {
                return Ok(self.summary());
            }
            self.roll();
        }
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
        let start = self.part.start.saturating_sub(self.base);
        if (self.pos as u64) < start {
            let s = (start - 1) as usize;
            match self.buf.get(s..end).and_then(|b| memchr(b'\n', b)) {
                Some(i) => self.pos = s + i + 1,
                None => return Ok(true),
            }
        }
        let stop = self.part.end.saturating_sub(self.base);
        if stop >= end as u64 {
            return self.search_lines(end);
        }
        // Lines from the first one starting at or after the part's end are
        // only context.
        let clip = match (stop as usize).checked_sub(1) {
            Some(s) if s >= self.pos => memchr(b'\n', &self.buf[s..end]).map_or(end, |i| s + i + 1),
            _ => self.pos,
        };
        if !self.search_lines(clip)? {
            return Ok(false);
        }
        self.done = true;
        self.trailing_context(end)
    }

    /// Reads more data after `len`, growing the buffer when it is full.
    /// Returns false when a binary file must be skipped (`-I`).
    fn fill(&mut self) -> Result<bool, SearchError> {
        if self.config.cancel.is_cancelled() {
            return Err(SearchError::Io(io::Error::from(io::ErrorKind::Interrupted)));
        }
        let read_size = self.config.read_size();
        let prefilled = std::mem::take(&mut self.prefilled);
        if prefilled == 0 && self.buf.len() - self.len < read_size / 2 + 1 {
            let new_len = (self.buf.len() * 2).max(self.len + read_size);
            self.buf.grow(new_len);
        }
        let start = self.len - prefilled;
        // Fill the buffer up: fewer matcher calls, and a small file in one go.
        // A part is read to its end, then a little at a time past it.
        let mut limit = self.buf.len();
        if self.part.end != u64::MAX {
            let at = self.base + self.len as u64;
            let want = if at < self.part.end {
                (self.part.end - at).min(limit as u64) as usize
            } else {
                // As much as the unfinished line holds: a long line is
                // read in doubling pieces, not rescanned 64 KiB at a time.
                MARGIN_READ.max(self.len - self.pos)
            };
            limit = limit.min(self.len + want);
        }
        if let Buf::Mapped { .. } = self.buf {
            // A little at a time, so the search finds the bytes binary
            // detection just brought into the cache; an unfinished line
            // doubles it, as it grows a buffer.
            let window = MAPPED_WINDOW.min(read_size).max(self.len - self.pos);
            self.len = limit.min(self.len + window);
            self.eof = self.len == self.buf.len();
        }
        while let Buf::Owned(buf) = &mut self.buf {
            if self.len >= limit {
                break;
            }
            match self.reader.read(&mut buf[self.len..limit]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.len += n;
                    if self.config.stream {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    self.eof = true;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.bytes += (self.len - start) as u64;
        // A whole file in one read, and a pattern a NUL cannot help to
        // match (no line anchors; `-v` selects the pieces a NUL cuts a line
        // into): if the file has no match, whether it holds a NUL does not
        // matter, so `search` looks for a match first.
        if start == 0
            && self.base == 0
            && self.eof
            && self.part == Part::WHOLE
            && self.config.binary == BinaryMode::Detect
            && !self.config.invert
            && matches!(self.buf, Buf::Owned(_))
            && self.matcher.unanchored()
        {
            self.nul_unchecked = true;
            return Ok(true);
        }
        Ok(self.detect_binary(start))
    }

    /// Binary detection on the bytes just read (`start..len`): a file with
    /// a NUL in its first read (256 KiB) is binary from the start, as GNU
    /// grep's; with a later NUL, from the line holding it (GNU grep: from
    /// its read buffer holding it, which no other buffer size reproduces).
    /// NULs then end lines. Returns false when the file must be skipped (`-I`).
    fn detect_binary(&mut self, start: usize) -> bool {
        if self.config.binary == BinaryMode::Text {
            return true;
        }
        if self.binary_offset.is_none() {
            if let Some(i) = memchr(0, &self.buf[start..self.len]) {
                let at = start + i;
                self.binary_offset = Some(self.base + at as u64);
                let from = self.pos.min(at);
                let line = memrchr(b'\n', &self.buf[from..at]).map_or(from, |j| from + j + 1);
                // A NUL in the first read makes the whole file binary.
                let first_read = self.config.read_size() as u64;
                self.binary_line = if self.part.origin + self.base + (at as u64) < first_read {
                    0
                } else {
                    self.base + line as u64
                };
                if self.config.binary == BinaryMode::SkipFile {
                    return false;
                }
            }
        }
        if self.binary_offset.is_some() {
            match &mut self.buf {
                Buf::Owned(buf) => {
                    for b in buf[start..self.len].iter_mut().filter(|b| **b == 0) {
                        *b = b'\n';
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

    /// Decides whether the unfinished line at `pos` matches by feeding it to
    /// the matcher piece by piece, reusing the buffer for each piece.
    fn stream_long_line(&mut self) -> Result<Streamed, SearchError> {
        let Some(mut stream) = self.matcher.line_stream() else { return Ok(Streamed::Unsupported) };
        if let Buf::Mapped { .. } = self.buf {
            // Reading streams the line through a buffer: the mapping would
            // hold all of its pages.
            self.needs_copy = true;
            return Ok(Streamed::SkipFile);
        }
        let info = self.info(self.pos);
        let mut matched = false;
        let mut from = self.pos;
        loop {
            let term = memchr(b'\n', &self.buf[from..self.len]).map(|i| from + i);
            let piece_end = term.unwrap_or(self.len);
            if !matched {
                matched = stream.feed(&self.buf[from..piece_end]).map_err(SearchError::Match)?;
            }
            if let Some(t) = term {
                self.pos = t + 1;
                break;
            }
            if self.eof {
                self.pos = self.len;
                break;
            }
            // Drop what was fed and read the next piece into the whole buffer.
            self.base += self.len as u64;
            self.len = 0;
            from = 0;
            let Buf::Owned(buf) = &mut self.buf else { unreachable!("streams only read buffers") };
            while self.len == 0 && !self.eof {
                match self.reader.read(buf) {
                    Ok(0) => self.eof = true,
                    Ok(n) => self.len = n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.eof = true,
                    Err(e) => return Err(e.into()),
                }
            }
            self.bytes += self.len as u64;
            if !self.detect_binary(0) {
                return Ok(Streamed::SkipFile);
            }
        }
        if !matched {
            matched = stream.finish().map_err(SearchError::Match)?;
        }
        // The part ends inside this line: its number is the part's last.
        let line_end = self.base + self.pos as u64;
        if self.part.end != u64::MAX && self.part_lines.1.is_none() && line_end > self.part.end {
            self.part_lines.1 = info.line_number;
        }
        // The next line starts at `pos`, and has the next number.
        self.counted_to = self.pos;
        self.line_number = info.line_number.map_or(self.line_number, |n| n + 1);
        self.printed_end = self.pos;
        Ok(Streamed::Line(info, matched))
    }

    /// Reports a selected line that was streamed (its text is not wanted).
    fn select_streamed(&mut self, info: LineInfo) -> Flow {
        self.selected += 1;
        if self.config.max_count.is_some_and(|m| self.selected >= m) {
            self.done = true;
        }
        if self.binary_offset.is_some() {
            return Ok(self.sink.binary_matched(info)?);
        }
        Ok(self.sink.matched(&[], info)?)
    }

    /// Moves the unsearched tail (and lines kept for before-context) to the
    /// front of the buffer.
    fn roll(&mut self) {
        let mut keep = self.pos;
        let mut n = self.config.before_context;
        while n > 0 && keep > self.printed_end {
            keep = memrchr(b'\n', &self.buf[self.printed_end..keep - 1])
                .map_or(self.printed_end, |i| self.printed_end + i + 1);
            n -= 1;
        }
        if self.config.line_numbers {
            self.count_lines_to(keep);
        }
        if self.printed_end < keep {
            self.dropped_unprinted = true;
        }
        self.buf.drop_front(keep, self.len);
        self.base += keep as u64;
        self.len -= keep;
        self.pos -= keep;
        self.printed_end = self.printed_end.saturating_sub(keep);
        self.counted_to = self.counted_to.saturating_sub(keep);
    }

    fn count_lines_to(&mut self, at: usize) {
        if at > self.counted_to {
            if self.part.end != u64::MAX {
                self.count_part_ends(at);
            }
            self.line_number += count_newlines(&self.buf[self.counted_to..at]);
            self.counted_to = at;
        }
    }

    /// Notes the line numbers at the part's ends when counting to `at`
    /// passes them.
    fn count_part_ends(&mut self, at: usize) {
        if self.part_lines.0.is_none() {
            self.part_lines.0 = self.count_to_edge(self.part.start, at);
        }
        if self.part_lines.1.is_none() {
            self.part_lines.1 = self.count_to_edge(self.part.end, at);
        }
    }

    /// Counts up to file offset `edge` if it lies between what is counted
    /// and `at`; returns the number of the line holding it then.
    fn count_to_edge(&mut self, edge: u64, at: usize) -> Option<u64> {
        let from = self.base + self.counted_to as u64;
        if edge < from || edge > self.base + at as u64 {
            return None;
        }
        let mid = (edge - self.base) as usize;
        self.line_number += count_newlines(&self.buf[self.counted_to..mid]);
        self.counted_to = mid;
        Some(self.line_number)
    }

    fn info(&mut self, line_start: usize) -> LineInfo {
        let line_number = if self.config.line_numbers {
            self.count_lines_to(line_start);
            Some(self.line_number)
        } else {
            None
        };
        LineInfo { offset: self.base + line_start as u64, line_number }
    }

    /// The end of the line containing `at` (after its `\n`, or `end`).
    fn next_line(&self, at: usize, end: usize) -> usize {
        memchr(b'\n', &self.buf[at..end]).map_or(end, |i| at + i + 1)
    }

    /// Searches `pos..end` for matching lines.
    fn search_matches(&mut self, end: usize) -> Flow {
        let mut at = self.pos;
        while at < end {
            let m = self.matcher.find_at(&self.buf[..end], at).map_err(SearchError::Match)?;
            let Some(m) = m else { break };
            // A match at `end` after a newline belongs to a line not read yet.
            if m.start > end || (m.start == end && self.buf[end - 1] == b'\n') {
                break;
            }
            let ls = memrchr(b'\n', &self.buf[at..m.start]).map_or(at, |i| at + i + 1);
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
            let m = self.matcher.find_at(&self.buf[..end], at).map_err(SearchError::Match)?;
            let (mls, mnext) = match m {
                Some(m) if m.start < end || (m.start == end && self.buf[end - 1] != b'\n') => {
                    let ls = memrchr(b'\n', &self.buf[at..m.start]).map_or(at, |i| at + i + 1);
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
        }
        if self.base + ls as u64 >= self.binary_line {
            // Text lines owed as after-context come first.
            let text_end = self.binary_line.saturating_sub(self.base) as usize;
            if !self.after_context_until(text_end.min(ls))? {
                return Ok(false);
            }
            self.after_left = 0;
            let info = self.info(ls);
            self.printed_end = next;
            return Ok(self.sink.binary_matched(info)?);
        }
        if !self.context_before(ls)? {
            return Ok(false);
        }
        let info = self.info(ls);
        self.printed_any = true;
        self.printed_end = next;
        self.after_left = self.config.after_context;
        Ok(self.sink.matched(&self.buf[ls..next], info)?)
    }

    /// Prints the context lines between the last printed line and `ls`.
    fn context_before(&mut self, ls: usize) -> Flow {
        let c = self.config;
        if c.before_context == 0 && c.after_context == 0 && !c.group_breaks {
            return Ok(true);
        }
        // After-context of the previous selected line first.
        if !self.after_context_until(ls)? {
            return Ok(false);
        }
        // Then up to `before_context` lines just before `ls`.
        let mut start = ls;
        let mut n = self.config.before_context;
        while n > 0 && start > self.printed_end {
            start = memrchr(b'\n', &self.buf[self.printed_end..start - 1])
                .map_or(self.printed_end, |i| self.printed_end + i + 1);
            n -= 1;
        }
        let gap = start > self.printed_end || (self.dropped_unprinted && start == 0);
        if self.printed_any && gap && !self.sink.context_break()? {
            return Ok(false);
        }
        self.dropped_unprinted = false;
        let mut at = start;
        while at < ls {
            let next = self.next_line(at, ls);
            let info = self.info(at);
            self.printed_any = true;
            if !self.sink.context(&self.buf[at..next], info, ContextKind::Before)? {
                return Ok(false);
            }
            at = next;
        }
        self.printed_end = self.printed_end.max(ls);
        Ok(true)
    }

    /// Prints owed after-context lines from `printed_end`, stopping at `limit`.
    fn after_context_until(&mut self, limit: usize) -> Flow {
        while self.after_left > 0 && self.printed_end < limit {
            let at = self.printed_end;
            let next = self.next_line(at, limit);
            let info = self.info(at);
            if !self.sink.context(&self.buf[at..next], info, ContextKind::After)? {
                return Ok(false);
            }
            self.after_left -= 1;
            self.printed_end = next;
        }
        Ok(true)
    }

    /// Prints owed after-context lines up to `end` (no selected line follows
    /// in `pos..end`).
    fn trailing_context(&mut self, end: usize) -> Flow {
        // Lines from the first NUL's on are never printed.
        let binary = self.binary_line.saturating_sub(self.base);
        if binary <= end as u64 {
            let go_on = self.after_context_until(binary as usize)?;
            self.after_left = 0;
            return Ok(go_on);
        }
        self.after_context_until(end)
    }
}

/// Counts `\n` bytes.
pub fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

mod cancel;
mod file;
mod mapped;
mod parallel;
pub use cancel::Cancel;
pub use file::{FileHints, MapParts, SearchOutcome, SearchedAs, ShortRead};
pub use mapped::MmapChoice;
pub use parallel::{search_file as search_file_parallel, PARALLEL_MIN, PART_SIZE};

#[cfg(test)]
mod tests;
