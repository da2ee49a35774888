//! One thread's [`Printer`] and the [`FileSink`] it hands out for each
//! file: the searcher's [`Sink`], which counts, formats each line in
//! grep's format (standard.rs) or JSON (json.rs) into the printer's buffer,
//! and hands finished output to the [`Output`] in large pieces of known
//! [`Chunk`] kind, a whole file at a time. A failed write is recorded here
//! ([`Printer::write_error`]); the searches then stop.

use std::io;

use trawl_matcher::Matcher;
use trawl_search::{ContextKind, LineInfo, SearchSummary, Sink};

use crate::color;
use crate::config::{OutputMode, PrinterConfig};
use crate::json::{self, Within};
use crate::output::{Chunk, Output};
use crate::pages::PageBreaks;
use crate::stats::Stats;
use crate::util::{bytes_searched, fmt_u64, itoa_buf, linked_file_name, next_match};
use crate::width::{self, StreamSize};

mod standard;

/// Output is written once a printer holds this much (whole files at a time).
const FLUSH_AT: usize = 64 * 1024;

/// One file's output is written as it grows once it reaches this much (with
/// standard output held), so that a large file's output is not all held in
/// memory, and a reader sees the first lines early.
const STREAM_AT: usize = 1 << 20;

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
    /// The first error writing the output met: nothing more is written,
    /// and sinks stop their searches.
    write_error: Option<io::Error>,
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
        Printer { config, output, out, stats: Stats::default(), counting, write_error: None }
    }

    /// Writes everything held (at the end of a thread's work, or of a
    /// sorted walk's visit).
    pub fn flush(&mut self) {
        let kind = files_chunk(self.config);
        send(self.output, &mut self.write_error, &self.out, kind);
        self.out.clear();
    }

    /// The first error writing the output met, if any (the printer then
    /// writes nothing more, and its sinks stop their searches).
    pub fn write_error(&self) -> Option<&io::Error> {
        self.write_error.as_ref()
    }

    /// `--files`: the name of a file that would be searched, on its own
    /// line (NUL-ended with `-Z`).
    pub fn list_file(&mut self, path: &[u8]) {
        linked_file_name(&mut self.out, self.config, path);
        self.out.push(if self.config.null { 0 } else { b'\n' });
        if self.out.len() >= FLUSH_AT || self.config.line_buffered {
            self.flush();
        }
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
    /// due; returns whether a line was selected (whether writing failed is
    /// the printer's [`Printer::write_error`]).
    pub fn finish(mut self, summary: &SearchSummary) -> bool {
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
                let name = self.name();
                json::end(&mut self.p.out, name, summary, file);
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
        if due {
            self.write_out();
        }
        matched
    }

    /// Writes this file's pending output (and anything before it).
    fn write_out(&mut self) {
        let c = self.p.config;
        let p = &mut *self.p;
        let (earlier, own) = p.out.split_at(self.start);
        // Output of earlier files first, as its own piece (empty pieces are
        // not written).
        send(p.output, &mut p.write_error, earlier, files_chunk(c));
        let chunk = match (self.flushed, self.notice_only) {
            (true, _) => Chunk::Continued,
            (false, true) => Chunk::Notice,
            // Groups are separated by `--` (not --heading's empty line).
            (false, false) if own.is_empty() && self.grouped && c.context && !c.heading => {
                Chunk::EmptyGroup
            }
            (false, false) => files_chunk(c),
        };
        send(p.output, &mut p.write_error, own, chunk);
        // An empty group counts as the file's first piece.
        self.flushed |= chunk.is_output(own);
        p.out.clear();
        self.start = 0;
    }

    /// After a line: write it now under `--line-buffered`, or what is held
    /// of a file whose output grew large. Whether the search goes on: not
    /// once writing failed.
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
            self.write_out();
            self.p.stats.bytes_printed += before as u64;
        }
        Ok(self.p.write_error.is_none())
    }

    /// The stream's name in JSON messages: its path, and the host.
    fn name(&self) -> json::Name<'p> {
        json::Name { path: self.path, host: self.p.config.host.as_deref() }
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

    /// Writes a line too long to copy from the search's buffer, after what
    /// is pending; standard output stays this file's until it ends.
    fn write_direct(&mut self, text: &[u8]) {
        if !self.holding {
            self.p.output.hold();
            self.holding = true;
        }
        let before = self.p.out.len() - self.start;
        self.write_out();
        self.p.stats.bytes_printed += before as u64;
        let chunk = if self.flushed { Chunk::Continued } else { files_chunk(self.p.config) };
        send(self.p.output, &mut self.p.write_error, text, chunk);
        self.flushed = true;
        self.p.stats.bytes_printed += text.len() as u64;
    }
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
                self.write_line(line, info, true);
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
                    let name = self.name();
                    json::begin(&mut self.p.out, name);
                    self.begun = true;
                }
                let page = self.page(info, line);
                let name = self.name();
                let n = json::line(
                    &mut self.p.out,
                    json::Place { name, page, within: self.within.as_ref(), info },
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
                self.write_line(line, info, false);
                return self.line_done();
            }
            OutputMode::Json => {
                if !self.begun {
                    let name = self.name();
                    json::begin(&mut self.p.out, name);
                    self.begun = true;
                }
                let page = self.page(info, line);
                let name = self.name();
                let place = json::Place { name, page, within: self.within.as_ref(), info };
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
        self.write_part(text, line, at);
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
                    let name = self.name();
                    json::begin(&mut self.p.out, name);
                    self.begun = true;
                }
                Ok(summary)
            }
            _ => Ok(summary),
        }
    }
}

/// Hands `bytes` to `output` unless writing failed before; the first
/// failure is kept in `error`.
fn send(output: &dyn Output, error: &mut Option<io::Error>, bytes: &[u8], chunk: Chunk) {
    if error.is_some() || !chunk.is_output(bytes) {
        return;
    }
    if let Err(e) = output.write(bytes, chunk) {
        *error = Some(e);
    }
}

/// What a file's output is: a group of lines (for what goes between
/// files) when lines are printed, else output of no group.
fn files_chunk(config: &PrinterConfig) -> Chunk {
    match config.mode {
        OutputMode::Lines => Chunk::Lines,
        _ => Chunk::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// An output that takes `room` bytes, then fails as a full disk does.
    struct Full {
        room: usize,
        taken: Mutex<Vec<(Chunk, Vec<u8>)>>,
    }

    impl Output for Full {
        fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
            let mut taken = self.taken.lock().unwrap();
            if taken.iter().map(|(_, b)| b.len()).sum::<usize>() + bytes.len() > self.room {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            taken.push((chunk, bytes.to_vec()));
            Ok(())
        }
    }

    /// Searches `text` for `x`: whether a line was selected, how many,
    /// and whether writing failed.
    fn search(
        config: &PrinterConfig,
        output: &Full,
        path: &[u8],
        text: &[u8],
    ) -> (bool, u64, bool) {
        let matcher = trawl_matcher::MatcherBuilder::new().build(&[b"x".to_vec()]).unwrap();
        let mut printer = Printer::new(config, output, Counting::Output);
        let searcher_config =
            trawl_search::SearcherConfig { line_numbers: config.line_number, ..Default::default() };
        let mut searcher = trawl_search::Searcher::new(searcher_config);
        let mut sink = printer.sink(path, &matcher);
        let summary = searcher.search_stream(&matcher, text, None, &mut sink).unwrap().summary;
        let matched = sink.finish(&summary);
        printer.flush();
        (matched, summary.selected, printer.write_error().is_some())
    }

    #[test]
    fn each_files_output_is_one_piece_of_its_kind() {
        let output = Full { room: usize::MAX, taken: Mutex::new(Vec::new()) };
        let lines = PrinterConfig { context: true, ..Default::default() };
        assert_eq!(search(&lines, &output, b"a", b"x\ny\nx\n"), (true, 2, false));
        let count = PrinterConfig { mode: OutputMode::Count, ..Default::default() };
        assert_eq!(search(&count, &output, b"b", b"x\n"), (true, 1, false));
        let taken = output.taken.into_inner().unwrap();
        assert_eq!(taken, [(Chunk::Lines, b"x\nx\n".to_vec()), (Chunk::Other, b"1\n".to_vec())]);
    }

    #[test]
    fn a_failed_write_is_recorded_and_stops_the_search() {
        // Line-buffered: each line is written as found, so the second fails
        // and the search stops there, before the third line.
        let config = PrinterConfig { line_buffered: true, ..Default::default() };
        let output = Full { room: 2, taken: Mutex::new(Vec::new()) };
        let text = b"x\nx\nx\n";
        assert_eq!(search(&config, &output, b"a", text), (true, 2, true));
        assert_eq!(output.taken.into_inner().unwrap(), [(Chunk::Lines, b"x\n".to_vec())]);
    }
}
