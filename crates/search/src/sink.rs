//! What a search reports, and to whom: the [`Sink`] callbacks, where a line
//! sits, the totals, and the errors.

use std::io;

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

    /// A match in a selected line too long to hold (see
    /// [`SearcherConfig::matches_only`](crate::SearcherConfig::matches_only)):
    /// its text, the line's place, and the match's offset. The line is
    /// not given to [`Sink::matched`]. The default refuses: a sink that
    /// asks for matches only must take them.
    fn matched_part(&mut self, _text: &[u8], _line: LineInfo, _at: u64) -> io::Result<bool> {
        Err(io::Error::other("this sink does not take the matches of a line alone"))
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
    /// without line anchors is looked for first (see [`Matcher::unanchored`](trawl_matcher::Matcher::unanchored)).
    pub binary_offset: Option<u64>,
    /// For [`Searcher::search_part`](crate::Searcher::search_part) with line numbers on: the numbers of the
    /// lines holding the first and last byte of the part (1 + the newlines
    /// read before each end); None where the search stopped before an end.
    pub part_lines: (Option<u64>, Option<u64>),
    /// When `-m` ended the search: the offset (from the reader's start) just
    /// past the last selected line (grep leaves a seekable standard input
    /// there, before any after-context it printed).
    pub stopped_at: Option<u64>,
}

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
