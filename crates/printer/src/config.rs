//! How to print: what is printed for each file ([`OutputMode`]) and the
//! options of grep's format ([`PrinterConfig`]), as plain data the binary
//! fills in from the command line.

use crate::color::Colors;
use crate::hyperlink::Hyperlinks;
use crate::shape::{MaxColumns, Template};

/// What is printed for each file.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum OutputMode {
    /// The selected lines (the default), or their matches with `-o`.
    #[default]
    Lines,
    /// `-c`: the number of selected lines.
    Count,
    /// `-l`: the names of files with a selected line.
    FilesWithMatches,
    /// `-L`: the names of files without one.
    FilesWithoutMatch,
    /// `-q`: nothing.
    Quiet,
    /// `--json`: JSON Lines in ripgrep's message format.
    Json,
    /// `--files`: the names of the files that would be searched (none is
    /// searched).
    Files,
}

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrinterConfig {
    /// What is printed for each file.
    pub mode: OutputMode,
    /// Prefix lines with the file name (`-H`).
    pub with_filename: bool,
    /// The line between groups of context: `--` by default,
    /// `--group-separator=SEP`, none with `--no-group-separator`.
    pub group_separator: Option<Vec<u8>>,
    /// Prefix the lines of archive members with their names even when
    /// file names are off by default (one operand): all but `-h`.
    pub member_names: bool,
    /// Print line numbers (`-n`).
    pub line_number: bool,
    /// Print byte offsets (`-b`).
    pub byte_offset: bool,
    /// Print only the matched parts (`-o`).
    pub only_matching: bool,
    /// `-v` is in force (`-o` then prints nothing; colors apply to context).
    pub invert: bool,
    /// Context lines are on, so groups are separated by `--`.
    pub context: bool,
    /// Follow file names with NUL instead of `:` or a newline (`-Z`).
    pub null: bool,
    /// Colors, when coloring.
    pub colors: Option<Colors>,
    /// Write each line as soon as it is formatted (`--line-buffered`).
    pub line_buffered: bool,
    /// Escape control characters in file names (output is a terminal, where
    /// a name could otherwise move the cursor or change colors).
    pub escape_names: bool,
    /// `-T`: a tab between a line's prefix (name, numbers) and its text.
    pub initial_tab: bool,
    /// What ends a printed line (`-z`: NUL, as the lines read).
    pub terminator: trawl_matcher::LineTerminator,
    /// `--column`: the column (from 1, in bytes) of the line's first match
    /// after its number (of each match with `-o`).
    pub column: bool,
    /// `--multiline`: a selected record may hold several lines, each
    /// printed with its own prefix.
    pub multiline: bool,
    /// `--vimgrep`: a selected line is printed once per match, each time
    /// with that match's column.
    pub vimgrep: bool,
    /// `--heading`: a file's name on a line of its own above its lines,
    /// and an empty line between files.
    pub heading: bool,
    /// `--trim`: leading whitespace of printed lines dropped.
    pub trim: bool,
    /// `-M`: long lines omitted or cut.
    pub max_columns: Option<MaxColumns>,
    /// `--replace`: what matches are printed as.
    pub replace: Option<Template>,
    /// `--hyperlink-format`: file names as links (only when coloring).
    pub hyperlinks: Option<Hyperlinks>,
    /// A shard of a distributed run: the worker whose roots are searched,
    /// named in JSON messages' `host` field, beside their `path`.
    pub host: Option<String>,
}
