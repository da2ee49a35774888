//! Formatting search results: GNU grep's format, JSON Lines, color.
//!
//! A [`Printer`] belongs to one thread and collects output in memory; for
//! each file it hands out a [`FileSink`] (the searcher's [`Sink`]) and, after
//! the search, [`FileSink::finish`] writes what only the end of a file can
//! tell (`-c`, `-l`, `-L`, JSON's `end`). The caller moves [`Printer::out`] to
//! standard output in large writes, a whole file at a time, so one file's
//! lines are never interleaved with another's.
#![deny(missing_docs)]

mod color;
mod hyperlink;
mod json;
mod pages;
mod shape;
mod width;

pub use crate::json::summary as json_summary;
pub use crate::json::{ExtractionStats, IndexStats};

use std::io;

use trawl_matcher::{Match, Matcher};
use trawl_search::{ContextKind, LineInfo, SearchSummary, Sink};

pub use crate::color::Colors;
pub use crate::hyperlink::{aliases as hyperlink_aliases, Hyperlinks};
pub use crate::pages::{PageBreaks, PageReader};
pub use crate::shape::{MaxColumns, Template};
pub use crate::width::StreamSize;

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

/// An error writing standard output (not reading the input), carried
/// through the searcher inside an `io::Error` so that the caller can say
/// `write error` rather than blame the file being searched.
#[derive(Debug)]
pub struct OutputError(pub io::Error);

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for OutputError {}

/// Marks `e` as an error of the output.
pub fn output_error(e: io::Error) -> io::Error {
    if as_output_error(&e).is_some() {
        return e;
    }
    io::Error::new(e.kind(), OutputError(e))
}

/// The write's own error, if `e` is an error of the output.
pub fn as_output_error(e: &io::Error) -> Option<&io::Error> {
    e.get_ref()?.downcast_ref::<OutputError>().map(|o| &o.0)
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
}

/// Where a chunk of output sits in its file's output.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Chunk {
    /// The file's first chunk: with context lines on, the writer puts `--`
    /// before it if anything was written before (groups of different files
    /// are separated).
    FirstOfFile,
    /// A later chunk of the same file, or output that belongs to no file
    /// (the `--stats` totals, a color reset).
    Continued,
    /// A file whose lines printed nothing (`-o` finding no match in them):
    /// no bytes, but a group all the same, as in GNU grep: `--` before it
    /// when anything came before, and before the next group.
    EmptyGroup,
    /// A file's whole output when it holds no line, only its `binary file
    /// matches` notice (which GNU grep writes to standard error): no group,
    /// so no `--` before it and none after it on its account. (GNU grep
    /// counts the file as output, so that its standard output starts with
    /// `--` when such a file comes first; trawl does not follow it there,
    /// so that the lines written do not depend on the order files end in.)
    Notice,
}

/// Where printers send finished output: standard output, under a lock.
pub trait Output: Sync {
    /// Writes a chunk of one file's output (nothing for an empty chunk but
    /// [`Chunk::EmptyGroup`]'s `--`).
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()>;

    /// Keeps other threads from writing until [`Output::let_go`]: a file
    /// whose output is too large to hold is written in pieces that must
    /// stay together.
    fn hold(&self) {}

    /// Ends [`Output::hold`].
    fn let_go(&self) {}
}

/// What the writer puts between two files' outputs: an empty line under
/// `--heading`, the group separator with context lines, else nothing.
pub fn file_separator(config: &PrinterConfig) -> Option<Vec<u8>> {
    if config.heading {
        return Some(b"\n".to_vec());
    }
    config.context.then(|| group_separator(config))
}

/// The line between groups of context (`--` unless `--group-separator`
/// says otherwise), colored when coloring; empty with
/// `--no-group-separator`.
pub fn group_separator(config: &PrinterConfig) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(text) = &config.group_separator {
        color::separator(&mut out, config.colors.as_ref(), text);
    }
    out
}

/// Output is written once a printer holds this much (whole files at a time).
const FLUSH_AT: usize = 64 * 1024;

/// One file's output is written as it grows once it reaches this much (with
/// standard output held), so that a large file's output is not all held in
/// memory, and a reader sees the first lines early.
const STREAM_AT: usize = 1 << 20;

/// Totals for `--stats` and JSON's summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Matches found (counting each match on a line with `-o` or JSON).
    pub matches: u64,
    /// Lines selected.
    pub matched_lines: u64,
    /// Files with at least one selected line.
    pub files_matched: u64,
    /// Files searched.
    pub files_searched: u64,
    /// Bytes read.
    pub bytes_searched: u64,
    /// Bytes of output.
    pub bytes_printed: u64,
    /// Files whose selected lines were in binary data: their lines are
    /// counted, their matches are not (their text is not handed over).
    pub binary_files_matched: u64,
    /// Time spent in the searches of files (JSON: summed over files, as
    /// ripgrep's summary `stats.elapsed`).
    pub search_time: std::time::Duration,
}

impl Stats {
    /// Adds another thread's totals.
    pub fn add(&mut self, o: &Stats) {
        self.matches += o.matches;
        self.matched_lines += o.matched_lines;
        self.files_matched += o.files_matched;
        self.files_searched += o.files_searched;
        self.bytes_searched += o.bytes_searched;
        self.bytes_printed += o.bytes_printed;
        self.binary_files_matched += o.binary_files_matched;
        self.search_time += o.search_time;
    }
}

/// One thread's printer.
pub struct Printer<'c> {
    config: &'c PrinterConfig,
    output: &'c dyn Output,
    /// Output not yet written to standard output.
    out: Vec<u8>,
    /// Totals so far.
    pub stats: Stats,
    /// What is counted.
    counting: Counting,
}

/// What a printer counts.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Counting {
    /// What the output needs: a file's search may stop early (`-l`, `-q`,
    /// a binary file's first selected line), matches are not counted.
    Output,
    /// A summary follows (`--stats`, `--json`): every selected line of
    /// every file and every match on them, whatever the output mode.
    Summary,
}

impl<'c> Printer<'c> {
    /// A printer writing into its own buffer.
    pub fn new(config: &'c PrinterConfig, output: &'c dyn Output, counting: Counting) -> Self {
        let out = Vec::with_capacity(FLUSH_AT * 2);
        Printer { config, output, out, stats: Stats::default(), counting }
    }

    /// Writes everything held (at the end of a thread's work).
    pub fn flush(&mut self) -> io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let r = self.output.write(&self.out, Chunk::FirstOfFile).map_err(output_error);
        self.out.clear();
        r
    }

    /// `--files`: the name of a file that would be searched, on its own
    /// line (NUL-ended with `-Z`).
    pub fn list_file(&mut self, path: &[u8]) -> io::Result<()> {
        linked_file_name(&mut self.out, self.config, path);
        self.out.push(if self.config.null { 0 } else { b'\n' });
        if self.out.len() >= FLUSH_AT || self.config.line_buffered {
            return self.flush();
        }
        Ok(())
    }

    /// The configuration.
    pub fn config(&self) -> &PrinterConfig {
        self.config
    }

    /// A sink for the file printed as `path`.
    pub fn sink<'p, M: Matcher>(
        &'p mut self,
        path: &'p [u8],
        matcher: &'p M,
    ) -> FileSink<'p, 'c, M> {
        self.sink_for(path, matcher, Naming::File)
    }

    /// A sink for `path`, one of several streams of one file (an archive's
    /// members) when `naming` says so.
    pub fn sink_for<'p, M: Matcher>(
        &'p mut self,
        path: &'p [u8],
        matcher: &'p M,
        naming: Naming,
    ) -> FileSink<'p, 'c, M> {
        let start = self.out.len();
        let show_name = match naming {
            Naming::File => self.config.with_filename,
            Naming::Member => self.config.with_filename || self.config.member_names,
        };
        let json_start = (self.config.mode == OutputMode::Json).then(|| JsonStart {
            at: std::time::Instant::now(),
            matches: self.stats.matches,
            bytes_printed: self.stats.bytes_printed,
        });
        FileSink {
            json_start,
            headed: false,
            streamed_line: None,
            selected_lines: 0,
            groups: Vec::new(),
            p: self,
            path,
            show_name,
            matcher,
            selected: 0,
            start,
            flushed: false,
            holding: false,
            begun: false,
            binary_reported: false,
            binary_counted: false,
            pages: None,
            within: None,
            number_width: 0,
            notice_only: false,
            grouped: false,
        }
    }
}

/// Where a member of an archive is: the file holding the outermost archive,
/// and the member paths from there down to it.
#[derive(Clone, Debug)]
pub struct Within<'p> {
    /// The file on disk.
    pub archive: &'p [u8],
    /// Member paths, outermost first.
    pub members: Vec<&'p [u8]>,
}

/// Whether a stream's name tells it from its siblings.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Naming {
    /// A file: named when file names are on.
    File,
    /// A member of an archive: named unless `-h`.
    Member,
}

/// Where a file's search started, for its JSON `end` message.
struct JsonStart {
    at: std::time::Instant,
    /// The printer's totals then.
    matches: u64,
    bytes_printed: u64,
}

/// Receives one file's results.
pub struct FileSink<'p, 'c, M> {
    json_start: Option<JsonStart>,
    /// `--heading`: the file's name was written.
    headed: bool,
    /// The offset of the line whose matches came alone (a line too long
    /// to hold, under `-o`).
    streamed_line: Option<u64>,
    /// Room for a match's groups (`--replace`).
    groups: Vec<Option<trawl_matcher::Match>>,
    p: &'p mut Printer<'c>,
    path: &'p [u8],
    /// Lines and counts carry the name.
    show_name: bool,
    matcher: &'p M,
    selected: u64,
    /// The lines of the selected records (a record is a line unless
    /// `--multiline`).
    selected_lines: u64,
    /// Where this file's output starts in the printer's buffer.
    start: usize,
    /// Part of this file's output was written already (line buffering).
    flushed: bool,
    /// Standard output is held for this file (its output is streamed).
    holding: bool,
    /// JSON `begin` written.
    begun: bool,
    binary_reported: bool,
    /// This file is counted in `binary_files_matched`.
    binary_counted: bool,
    /// The stream is a document's text in pages: lines name their page.
    pages: Option<&'p PageBreaks>,
    /// The stream is a member of an archive: JSON lines name the chain.
    within: Option<Within<'p>>,
    /// `-T`: line numbers and byte offsets are right-aligned to this width.
    number_width: usize,
    /// The file's output is its binary notice alone (no line before it).
    notice_only: bool,
    /// Some line was printed (perhaps as nothing: `-o`), a group of context.
    grouped: bool,
}

impl<'p, M: Matcher> FileSink<'p, '_, M> {
    /// The stream is a document's text whose pages `pages` records: each
    /// line is named `PATH#page=N` (the page a PDF viewer opens with that
    /// fragment), and JSON lines carry `page`.
    pub fn with_pages(mut self, pages: &'p PageBreaks) -> Self {
        self.pages = Some(pages);
        self
    }

    /// The stream's size as known before it is read: under `-T`, line
    /// numbers and byte offsets are aligned to the widest it allows.
    pub fn sized(mut self, size: StreamSize) -> Self {
        let c = self.p.config;
        if c.initial_tab {
            self.number_width = width::number_width(size, c.line_number);
        }
        self
    }

    /// The stream is a member of an archive (perhaps nested): JSON lines
    /// carry the archive's path and the chain of members.
    pub fn within(mut self, within: Within<'p>) -> Self {
        self.within = Some(within);
        self
    }

    /// Writes what depends on the whole file, and hands the output on when
    /// due; returns whether a line was selected, and the result of writing.
    pub fn finish(mut self, summary: &SearchSummary) -> (bool, io::Result<()>) {
        let c = self.p.config;
        let matched = self.selected > 0;
        // JSON's end message is not counted as printed (as ripgrep).
        let mut uncounted = 0;
        match c.mode {
            OutputMode::Count => {
                if self.show_name {
                    self.file_name();
                    self.sep(b':');
                }
                let mut b = itoa_buf();
                self.p.out.extend_from_slice(fmt_u64(&mut b, self.selected));
                self.p.out.push(b'\n');
            }
            OutputMode::FilesWithMatches if matched => self.file_line(),
            OutputMode::FilesWithoutMatch if !matched => self.file_line(),
            OutputMode::Json if self.begun => {
                let start = self.json_start.as_ref().expect("a JSON sink has its start");
                let elapsed = start.at.elapsed();
                self.p.stats.search_time += elapsed;
                let file = json::FileTotals {
                    elapsed,
                    selected: self.selected_lines,
                    matches: self.p.stats.matches - start.matches,
                    // What was printed for the file before its end message.
                    bytes_printed: self.p.stats.bytes_printed - start.bytes_printed
                        + (self.p.out.len() - self.start) as u64,
                };
                let before = self.p.out.len();
                json::end(&mut self.p.out, self.path, summary, file);
                uncounted = self.p.out.len() - before;
            }
            _ => {}
        }
        let st = &mut self.p.stats;
        st.files_searched += 1;
        st.bytes_searched += bytes_searched(summary);
        st.matched_lines += self.selected_lines;
        st.files_matched += matched as u64;
        st.bytes_printed += (self.p.out.len() - self.start - uncounted) as u64;
        // With context, each file is written alone so that the writer can
        // separate it from whatever came before.
        let due = c.context
            || c.heading
            || c.line_buffered
            || self.holding
            || self.p.out.len() >= FLUSH_AT;
        let result = if due { self.write_out() } else { Ok(()) };
        (matched, result)
    }

    /// Writes this file's pending output (and anything before it).
    fn write_out(&mut self) -> io::Result<()> {
        // Output of earlier files first, as its own chunk (empty chunks are
        // not written).
        let c = self.p.config;
        let (earlier, own) = self.p.out.split_at(self.start);
        let r = self.p.output.write(earlier, Chunk::FirstOfFile).and_then(|_| {
            let chunk = match (self.flushed, self.notice_only) {
                (true, _) => Chunk::Continued,
                (false, true) => Chunk::Notice,
                // Groups are separated by `--` (not --heading's empty line).
                (false, false) if own.is_empty() && self.grouped && c.context && !c.heading => {
                    Chunk::EmptyGroup
                }
                (false, false) => Chunk::FirstOfFile,
            };
            self.p.output.write(own, chunk).map(|_| chunk)
        });
        // An empty group counts as the file's first chunk.
        self.flushed |= !own.is_empty() || matches!(r, Ok(Chunk::EmptyGroup));
        self.p.out.clear();
        self.start = 0;
        r.map(|_| ()).map_err(output_error)
    }

    /// After a line: write it now under `--line-buffered`, or what is held
    /// of a file whose output grew large.
    fn line_done(&mut self) -> io::Result<bool> {
        let before = self.p.out.len() - self.start;
        if self.p.config.line_buffered || before >= STREAM_AT {
            // Standard output stays this file's until it ends: its lines
            // are not interleaved with another file's (grep reads one file
            // after the other), even when each is written as it is found.
            if !self.holding {
                self.p.output.hold();
                self.holding = true;
            }
            self.write_out()?;
            self.p.stats.bytes_printed += before as u64;
        }
        Ok(true)
    }

    fn file_line(&mut self) {
        linked_file_name(&mut self.p.out, self.p.config, self.path);
        self.p.out.push(if self.p.config.null { 0 } else { b'\n' });
    }

    fn file_name(&mut self) {
        file_name(&mut self.p.out, self.p.config, self.path);
    }

    /// The separator after a field: NUL after a file name with `-Z`.
    fn sep(&mut self, sep: u8) {
        let c = self.p.config;
        if c.null {
            self.p.out.push(0);
        } else {
            color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.separator, &[sep]);
        }
    }

    fn number_field(&mut self, n: u64, which: Field, sep: u8) {
        let c = self.p.config;
        let mut b = itoa_buf();
        let aligned = match which {
            Field::Line | Field::Byte => self.number_width,
            Field::Column => 0,
        };
        let digits = width::right_aligned(&mut b, n, aligned);
        let pick: fn(&Colors) -> &str = match which {
            Field::Line => |k| &k.line_number,
            Field::Column => |k| &k.line_number,
            Field::Byte => |k| &k.byte_offset,
        };
        color::paint(&mut self.p.out, c.colors.as_ref(), pick, digits);
        color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.separator, &[sep]);
    }

    /// The page of `line` (at `info`), when the stream is in pages.
    fn page(&self, info: LineInfo, line: &[u8]) -> Option<u64> {
        self.pages.map(|p| p.page_of(info.offset, line))
    }

    /// `line` without its terminator.
    fn body<'l>(&self, line: &'l [u8]) -> &'l [u8] {
        line.strip_suffix(&[self.p.config.terminator.byte()]).unwrap_or(line)
    }

    /// Counts the matches in a selected line's `body` for the summary.
    fn count_matches(&mut self, body: &[u8]) {
        let mut at = 0;
        while next_match(self.matcher, body, &mut at).is_some() {
            self.p.stats.matches += 1;
        }
    }

    /// `--heading`: the file's name on its own line, before its first line.
    fn heading(&mut self, page: Option<u64>) {
        if self.headed || !self.show_name {
            return;
        }
        self.headed = true;
        let c = self.p.config;
        let link = c.hyperlinks.as_ref().filter(|_| c.colors.is_some());
        if let Some(h) = link {
            h.open(&mut self.p.out, self.path, 1, 1);
        }
        self.file_name();
        if let Some(page) = page {
            let text = format!("#page={page}");
            color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.file_name, text.as_bytes());
        }
        if link.is_some() {
            hyperlink::Hyperlinks::close(&mut self.p.out);
        }
        self.p.out.push(b'\n');
    }

    /// Writes the prefix of a line: name (and page), number, column,
    /// offset. `column` is the 0-based start of the match it names.
    fn prefix(
        &mut self,
        info: LineInfo,
        page: Option<u64>,
        offset: u64,
        sep: u8,
        column: Option<usize>,
        text: Text,
    ) {
        let c = self.p.config;
        let before = self.p.out.len();
        let named = self.show_name && !c.heading;
        // A link covers the name, and the line number when it names a line.
        let link = c.hyperlinks.as_ref().filter(|_| c.colors.is_some() && named);
        if let Some(h) = link {
            let line = info.line_number.unwrap_or(1);
            h.open(&mut self.p.out, self.path, line, column.map_or(1, |col| col as u64 + 1));
        }
        let mut linked = link.is_some();
        if named {
            self.file_name();
            if let Some(page) = page {
                let text = format!("#page={page}");
                color::paint(&mut self.p.out, c.colors.as_ref(), |c| &c.file_name, text.as_bytes());
            }
            if linked && !link.is_some_and(|h| h.has_line() && c.line_number) {
                hyperlink::Hyperlinks::close(&mut self.p.out);
                linked = false;
            }
            self.sep(sep);
        }
        if c.line_number {
            if let Some(n) = info.line_number {
                if linked {
                    // The link ends after the number, before its separator.
                    let mut b = itoa_buf();
                    let digits = width::right_aligned(&mut b, n, self.number_width);
                    color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.line_number, digits);
                    hyperlink::Hyperlinks::close(&mut self.p.out);
                    linked = false;
                    color::paint(&mut self.p.out, c.colors.as_ref(), |k| &k.separator, &[sep]);
                } else {
                    self.number_field(n, Field::Line, sep);
                }
            }
        }
        if linked {
            hyperlink::Hyperlinks::close(&mut self.p.out);
        }
        if let Some(col) = column.filter(|_| c.column) {
            self.number_field(col as u64 + 1, Field::Column, sep);
        }
        if c.byte_offset {
            self.number_field(offset, Field::Byte, sep);
        }
        // GNU grep: no tab before an empty line's (missing) text.
        if c.initial_tab && self.p.out.len() > before && text == Text::NotEmpty {
            self.p.out.push(b'\t');
        }
    }

    fn write_line(&mut self, line: &[u8], info: LineInfo, selected: bool) -> io::Result<()> {
        let c = self.p.config;
        self.grouped = true;
        if c.multiline && memchr::memchr(c.terminator.byte(), self.body(line)).is_some() {
            return self.write_record(line, info, selected);
        }
        let page = self.page(info, line);
        if c.heading {
            self.heading(page);
        }
        let term = c.terminator.byte();
        let body = self.body(line);
        let sep = if selected { b':' } else { b'-' };
        if c.only_matching {
            // The matches of a line selected, or of a context line under
            // -v (`2-yes`), as GNU grep: not those of a context line after
            // -m's last selected line, nor a selected line's under -v.
            if selected == c.invert {
                return Ok(());
            }
            let mut at = 0;
            while let Some(m) = next_match(self.matcher, body, &mut at) {
                self.prefix(
                    info,
                    page,
                    info.offset + m.start as u64,
                    sep,
                    Some(m.start),
                    Text::NotEmpty,
                );
                self.only_match(body, m, selected);
            }
            return Ok(());
        }
        // The matches, when something besides the line itself needs them.
        let colored = c.colors.as_ref().is_some_and(|k| {
            !(if selected { &k.selected_match } else { &k.context_match }).is_empty()
        });
        let has_matches = selected != c.invert;
        let needs_matches = has_matches
            && (c.column
                || c.vimgrep
                || (c.replace.is_some() && selected)
                || ((c.trim || c.max_columns.is_some()) && colored));
        let matches: Vec<Match> = match needs_matches {
            true => {
                let mut at = 0;
                std::iter::from_fn(|| next_match(self.matcher, body, &mut at)).collect()
            }
            false => Vec::new(),
        };
        if c.vimgrep && selected && !matches.is_empty() {
            // One line per match, each with its column.
            for m in &matches {
                self.prefix(info, page, info.offset, sep, Some(m.start), Text::of(body));
                self.body_text(body, &matches, selected)?;
                self.p.out.push(term);
            }
            return Ok(());
        }
        self.prefix(info, page, info.offset, sep, matches.first().map(|m| m.start), Text::of(body));
        self.body_text(body, &matches, selected)?;
        self.p.out.push(term);
        Ok(())
    }

    /// `-o`: the match `m` of `hay` after its prefix (replaced under
    /// `--replace` in a selected line), shaped, and its terminator.
    fn only_match(&mut self, hay: &[u8], m: Match, selected: bool) {
        let c = self.p.config;
        let mut text = Vec::new();
        let shown: &[u8] = match &c.replace {
            Some(t) if selected => {
                t.expand(self.matcher, hay, m, &mut self.groups, &mut text);
                &text
            }
            _ => &hay[m.start..m.end],
        };
        let span = [Match::new(0, shown.len())];
        let counted = c.colors.is_some() || c.replace.is_some();
        self.shaped(shown, &span, selected, counted, Piece::Match);
        self.p.out.push(c.terminator.byte());
        if selected {
            self.p.stats.matches += 1;
        }
    }

    /// `--multiline`: a record of several lines (a match spans them): each
    /// line with its own prefix; with `-o`, each match's lines.
    fn write_record(&mut self, record: &[u8], info: LineInfo, selected: bool) -> io::Result<()> {
        let c = self.p.config;
        let term = c.terminator.byte();
        let page = self.page(info, record);
        if c.heading {
            self.heading(page);
        }
        let sep = if selected { b':' } else { b'-' };
        // The prefix of the line starting at `at` in the record.
        let line_info = |at: usize| LineInfo {
            offset: info.offset + at as u64,
            line_number: info
                .line_number
                .map(|n| n + trawl_search::count_terminators(&record[..at], term)),
        };
        let body = self.body(record);
        if c.only_matching {
            // As for a line (write_line): whose matches are printed.
            if selected == c.invert {
                return Ok(());
            }
            let mut at = 0;
            while let Some(m) = next_match(self.matcher, body, &mut at) {
                let mut piece = m.start;
                for part in body[m.start..m.end].split(|&b| b == term) {
                    let line = line_info(piece);
                    let column = Some(piece - line_start_in(body, piece, term));
                    self.prefix(line, page, line.offset, sep, column, Text::of(part));
                    let span = [Match::new(0, part.len())];
                    self.shaped(part, &span, selected, c.colors.is_some(), Piece::Match);
                    self.p.out.push(term);
                    piece += part.len() + 1;
                }
                if selected {
                    self.p.stats.matches += 1;
                }
            }
            return Ok(());
        }
        let mut at = 0;
        for text in body.split(|&b| b == term) {
            let line = line_info(at);
            self.prefix(line, page, line.offset, sep, None, Text::of(text));
            self.body_text(text, &[], selected)?;
            self.p.out.push(term);
            at += text.len() + 1;
        }
        Ok(())
    }

    /// Writes a printed line's text (`matches`: its matches, when they
    /// were needed).
    fn body_text(&mut self, body: &[u8], matches: &[Match], selected: bool) -> io::Result<()> {
        let c = self.p.config;
        if c.trim || c.max_columns.is_some() || (c.replace.is_some() && selected) {
            let mut spans = Vec::new();
            let text: std::borrow::Cow<'_, [u8]> = match &c.replace {
                Some(t) if selected && !matches.is_empty() => {
                    shape::replaced(t, self.matcher, body, matches, &mut spans).into()
                }
                _ => {
                    spans.extend_from_slice(matches);
                    body.into()
                }
            };
            // ripgrep counts matches in its messages when it looked for
            // them (to color, replace or give a column).
            let counted = selected && !matches.is_empty();
            self.shaped(&text, &spans, selected, counted, Piece::Line);
            if self.p.counting == Counting::Summary && selected && !c.invert && c.colors.is_none() {
                self.count_matches(body);
            }
            return Ok(());
        }
        match &c.colors {
            Some(k) => {
                let (line_color, match_color) = if selected {
                    (k.selected_line.as_str(), k.selected_match.as_str())
                } else {
                    (k.context_line.as_str(), k.context_match.as_str())
                };
                // Matches are colored where they are: in selected lines, and
                // in context lines under -v.
                let color_matches = selected != c.invert;
                color::line(&mut self.p.out, k, body, line_color, match_color, |at| {
                    if color_matches {
                        next_match(self.matcher, body, at)
                    } else {
                        None
                    }
                });
            }
            None => {
                if body.len() >= STREAM_AT {
                    self.write_direct(body)?;
                } else {
                    self.p.out.extend_from_slice(body);
                }
                if self.p.counting == Counting::Summary && selected && !c.invert {
                    self.count_matches(body);
                }
            }
        }
        Ok(())
    }

    /// Writes `text` (whose matches are at `spans`) as `--trim` and
    /// `-M` shape it, colored when coloring. `counted`: the messages of
    /// `-M` count the matches (ripgrep's when it looked for them).
    fn shaped(
        &mut self,
        text: &[u8],
        spans: &[Match],
        selected: bool,
        counted: bool,
        piece: Piece,
    ) {
        let c = self.p.config;
        let cut = if c.trim { shape::trimmed_len(text) } else { 0 };
        let text = &text[cut..];
        let spans: Vec<Match> = spans
            .iter()
            .filter(|m| m.end > cut)
            .map(|m| Match::new(m.start.max(cut) - cut, m.end - cut))
            .collect();
        let mut shown = text;
        let mut suffix = None;
        if let Some(mc) = c.max_columns {
            if text.len() as u64 + 1 > mc.limit {
                if !mc.preview {
                    let message = match (counted, selected) {
                        (true, _) => format!("[Omitted long line with {} matches]", spans.len()),
                        (false, true) => "[Omitted long matching line]".to_string(),
                        (false, false) => "[Omitted long context line]".to_string(),
                    };
                    self.p.out.extend_from_slice(message.as_bytes());
                    return;
                }
                shown = &text[..shape::char_prefix(text, mc.limit)];
                let more = spans.iter().filter(|m| m.start >= shown.len()).count();
                suffix = Some(match (counted, more) {
                    (true, 1) => " [... 1 more match]".to_string(),
                    (true, _) => format!(" [... {more} more matches]"),
                    (false, _) => " [... omitted end of long line]".to_string(),
                });
            }
        }
        match &c.colors {
            Some(k) => {
                let (line_color, match_color) = if selected {
                    (k.selected_line.as_str(), k.selected_match.as_str())
                } else {
                    (k.context_line.as_str(), k.context_match.as_str())
                };
                // GNU grep gives -o's matches no line color.
                let line_color = match piece {
                    Piece::Line => line_color,
                    Piece::Match => "",
                };
                let mut i = 0;
                let visible: Vec<Match> = spans
                    .iter()
                    .filter(|m| m.start < shown.len())
                    .map(|m| Match::new(m.start, m.end.min(shown.len())))
                    .collect();
                color::line(&mut self.p.out, k, shown, line_color, match_color, |_| {
                    let m = visible.get(i).copied();
                    i += 1;
                    m
                });
            }
            None => self.p.out.extend_from_slice(shown),
        }
        if let Some(s) = suffix {
            self.p.out.extend_from_slice(s.as_bytes());
        }
    }

    /// Writes a line too long to copy from the search's buffer, after what
    /// is pending; standard output stays this file's until it ends.
    fn write_direct(&mut self, text: &[u8]) -> io::Result<()> {
        if !self.holding {
            self.p.output.hold();
            self.holding = true;
        }
        let before = self.p.out.len() - self.start;
        self.write_out()?;
        self.p.stats.bytes_printed += before as u64;
        let chunk = if self.flushed { Chunk::Continued } else { Chunk::FirstOfFile };
        self.p.output.write(text, chunk).map_err(output_error)?;
        self.flushed = true;
        self.p.stats.bytes_printed += text.len() as u64;
        Ok(())
    }
}

/// What [`FileSink::shaped`] writes: a line, or one match of it (`-o`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Piece {
    Line,
    Match,
}

/// Whether a prefix is followed by text: `-T`'s tab goes only before some.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Text {
    Empty,
    NotEmpty,
}

impl Text {
    fn of(text: &[u8]) -> Text {
        match text.is_empty() {
            true => Text::Empty,
            false => Text::NotEmpty,
        }
    }
}

#[derive(Clone, Copy)]
enum Field {
    Line,
    Column,
    Byte,
}

/// The start of the line holding `at` in `text`.
fn line_start_in(text: &[u8], at: usize, term: u8) -> usize {
    memchr::memrchr(term, &text[..at]).map_or(0, |i| i + 1)
}

/// The next non-empty match in `line` at or after `*at`; advances `*at`.
fn next_match<M: Matcher>(m: &M, line: &[u8], at: &mut usize) -> Option<trawl_matcher::Match> {
    while *at <= line.len() {
        let found = m.find_at(line, *at).ok()??;
        if found.is_empty() {
            *at = found.end + 1;
            continue;
        }
        *at = found.end;
        return Some(found);
    }
    None
}

impl<M> Drop for FileSink<'_, '_, M> {
    fn drop(&mut self) {
        if self.holding {
            self.p.output.let_go();
        }
    }
}

impl<M: Matcher> Sink for FileSink<'_, '_, M> {
    fn matched(&mut self, line: &[u8], info: LineInfo) -> io::Result<bool> {
        self.selected += 1;
        // --multiline: a record's lines are each a selected line (-c counts
        // records, as rg).
        self.selected_lines += match self.p.config.multiline {
            true => {
                let term = self.p.config.terminator.byte();
                1 + trawl_search::count_terminators(self.body(line), term)
            }
            false => 1,
        };
        match self.p.config.mode {
            OutputMode::Lines => {
                self.write_line(line, info, true)?;
                self.line_done()
            }
            OutputMode::Count
            | OutputMode::FilesWithMatches
            | OutputMode::FilesWithoutMatch
            | OutputMode::Files
            | OutputMode::Quiet => {
                let summary = self.p.counting == Counting::Summary;
                if summary && !self.p.config.invert {
                    self.count_matches(self.body(line));
                }
                // Only a count needs the rest of the file, or a summary.
                Ok(summary || self.p.config.mode == OutputMode::Count)
            }
            OutputMode::Json => {
                if !self.begun {
                    json::begin(&mut self.p.out, self.path);
                    self.begun = true;
                }
                let page = self.page(info, line);
                let n = json::line(
                    &mut self.p.out,
                    json::Place { path: self.path, page, within: self.within.as_ref(), info },
                    line,
                    Some(self.matcher),
                    !self.p.config.invert,
                    self.p.config.replace.as_ref(),
                );
                self.p.stats.matches += n;
                self.line_done()
            }
        }
    }

    fn context(&mut self, line: &[u8], info: LineInfo, _kind: ContextKind) -> io::Result<bool> {
        match self.p.config.mode {
            OutputMode::Lines => {
                self.write_line(line, info, false)?;
                return self.line_done();
            }
            OutputMode::Json => {
                if !self.begun {
                    json::begin(&mut self.p.out, self.path);
                    self.begun = true;
                }
                let page = self.page(info, line);
                let place =
                    json::Place { path: self.path, page, within: self.within.as_ref(), info };
                json::line(&mut self.p.out, place, line, None::<&M>, false, None);
                return self.line_done();
            }
            _ => {}
        }
        Ok(true)
    }

    fn context_break(&mut self) -> io::Result<bool> {
        let c = self.p.config;
        if let (OutputMode::Lines, Some(text)) = (c.mode, &c.group_separator) {
            color::separator(&mut self.p.out, c.colors.as_ref(), text);
        }
        Ok(true)
    }

    fn matched_part(&mut self, text: &[u8], line: LineInfo, at: u64) -> io::Result<bool> {
        // The line counts once, at its first match.
        if self.streamed_line != Some(line.offset) {
            self.streamed_line = Some(line.offset);
            self.selected += 1;
            self.selected_lines += 1;
        }
        if self.p.config.mode != OutputMode::Lines {
            return Ok(true);
        }
        let column = Some((at - line.offset) as usize);
        self.prefix(line, None, at, b':', column, Text::of(text));
        self.only_match(text, Match::new(0, text.len()), true);
        self.line_done()
    }

    fn binary_matched(&mut self, _info: LineInfo) -> io::Result<bool> {
        self.selected += 1;
        self.selected_lines += 1;
        if !self.binary_counted {
            self.binary_counted = true;
            self.p.stats.binary_files_matched += 1;
        }
        // A summary counts every selected line; the output needs only the first.
        let summary = self.p.counting == Counting::Summary;
        match self.p.config.mode {
            OutputMode::Count => Ok(true),
            OutputMode::Lines | OutputMode::Json if !self.binary_reported => {
                self.binary_reported = true;
                if self.p.config.mode == OutputMode::Lines {
                    self.notice_only = !self.flushed && self.p.out.len() == self.start;
                    self.p.out.extend_from_slice(b"trawl: ");
                    self.p.out.extend_from_slice(self.path);
                    self.p.out.extend_from_slice(b": binary file matches\n");
                } else if !self.begun {
                    json::begin(&mut self.p.out, self.path);
                    self.begun = true;
                }
                Ok(summary)
            }
            _ => Ok(summary),
        }
    }
}

/// The bytes a search looked at: up to the end of the last line `-m`
/// let it select, else all it read (as ripgrep counts them).
fn bytes_searched(summary: &SearchSummary) -> u64 {
    summary.stopped_at.map_or(summary.bytes, |at| at.min(summary.bytes))
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

/// Formats `n` in decimal into `buf`, returning the digits.
fn fmt_u64(buf: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// A file name as printed alone (`-l`, `-c`, `--files`): a link when
/// links are on (and coloring).
fn linked_file_name(out: &mut Vec<u8>, config: &PrinterConfig, path: &[u8]) {
    match config.hyperlinks.as_ref().filter(|_| config.colors.is_some()) {
        Some(h) => {
            h.open(out, path, 1, 1);
            file_name(out, config, path);
            hyperlink::Hyperlinks::close(out);
        }
        None => file_name(out, config, path),
    }
}

/// A file name as printed: control characters escaped on a terminal, and
/// colored when coloring.
fn file_name(out: &mut Vec<u8>, config: &PrinterConfig, path: &[u8]) {
    if config.escape_names && path.iter().any(|&b| b < 0x20 || b == 0x7f) {
        let mut escaped = Vec::new();
        trawl_diag::escape_controls(&mut escaped, path);
        color::paint(out, config.colors.as_ref(), |c| &c.file_name, &escaped);
        return;
    }
    color::paint(out, config.colors.as_ref(), |c| &c.file_name, path);
}
