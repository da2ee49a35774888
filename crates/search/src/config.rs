//! How a searcher is configured: what it selects, what context it shows,
//! how it treats binary files, and its sizes.

use crate::{Cancel, MmapChoice, PART_SIZE};

/// What to do with a file that contains a NUL byte.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum BinaryMode {
    /// grep's default: from the first NUL on, NULs end lines, no line is
    /// printed, and [`Sink::binary_matched`](crate::Sink::binary_matched) reports selected lines.
    #[default]
    Detect,
    /// `-a`: search and print as text.
    Text,
    /// `-I`: stop at the first NUL; the file counts as not matching from there.
    SkipFile,
}

pub use trawl_matcher::LineTerminator;

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
    /// How bytes become text: transcoded after a byte-order mark (the
    /// default), raw, or decoded from a given encoding.
    pub encoding: crate::Encoding,
    /// Only the matches of selected lines are printed (`-o` without
    /// context or `-v`): a line too long to hold is searched piece by
    /// piece and its matches handed over as found
    /// ([`Sink::matched_part`](crate::Sink::matched_part)), when the
    /// matcher's matches are bounded.
    pub matches_only: bool,
    /// `--multiline`: matches may span lines; the whole text is read, and
    /// the lines a match touches are one selected record.
    pub multiline: bool,
    /// `--passthru`: every line not selected is printed as context, as it
    /// is passed (none is held back waiting for a selected line).
    pub passthru: bool,
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
    /// The byte that ends a line (the matcher must be built for the same).
    pub terminator: LineTerminator,
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

    /// Whether a line too long to hold is searched for `-o` piece by piece
    /// ([`SearcherConfig::matches_only`]): the matcher's matches are of a
    /// bounded length, which a piece keeps room for.
    pub(crate) fn streams_matches<M: trawl_matcher::Matcher>(&self, matcher: &M) -> bool {
        self.matches_only && matcher.bounded_len().is_some_and(|n| n > 0 && n <= LONG_LINE / 4)
    }
}

/// A line without an end after this many bytes is streamed when its text is
/// not needed (so `-c` on a 1 GB line stays within a few dozen MB). When the
/// text is printed, the line is held: memory grows to about twice the
/// longest printed line.
pub const LONG_LINE: usize = 32 * 1024 * 1024;

/// Smallest read: most source files fit whole, so one matcher call covers them.
/// A NUL in a file's first read makes it binary (GNU grep's rule), so
/// trawl-index reads this much first too: a file it found binary is one
/// `-I` skips.
pub const READ_SIZE: usize = 256 * 1024;
