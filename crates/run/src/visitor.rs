//! The walk's visitor of a grep run: what an entry is (a file to search,
//! a directory to enter, a device, an archive or a document to open), and
//! the search of one file through the printer.

use std::fs::File;
use std::io::{self, Read};
use std::sync::atomic::Ordering;

use trawl_extract::Layout;
use trawl_printer::{
    Counting, Naming, Output, OutputMode, PageBreaks, PageReader, Printer, Stats, StreamSize,
    Within,
};
use trawl_search::{FileHints, MapParts, SearchError, SearchSummary, Searcher, ShortRead};
use trawl_select::rules::EntryKind;
use trawl_walk::{Entry, FileType, Visitor, WalkError, WalkState};

use crate::config::{Config, Devices, Directories};
use crate::context::Context;
use crate::filter::{Reached, Verdict};

/// How the walk reached `entry`: what `--include`, `--exclude` and
/// `--exclude-dir` match it by.
pub(crate) fn reached(cfg: &Config, entry: &Entry<'_>) -> Reached {
    match entry.depth() {
        0 if cfg.implicit_dot() => Reached::ImplicitDot,
        0 => Reached::Operand,
        _ => Reached::Recursion,
    }
}

/// A regular file's size; other files' sizes are unknown (as GNU grep's
/// `usable_st_size`).
pub(crate) fn stream_size(file: &File) -> StreamSize {
    match file.metadata() {
        Ok(md) if md.file_type().is_file() => StreamSize::Known(md.len()),
        _ => StreamSize::Unknown,
    }
}

/// What one search reads.
pub(crate) enum Source<'f, R> {
    /// A regular file, with what the walk knows of it.
    File(&'f File, FileHints),
    /// Anything else: standard input, a FIFO or device named on the
    /// command line, and its size if known (`-T` aligns numbers to it).
    Stream(R, StreamSize),
}

/// One thread's searcher, printer and buffers.
pub(crate) struct GrepVisitor<'a> {
    pub(crate) ctx: &'a Context<'a>,
    pub(crate) searcher: Searcher,
    pub(crate) printer: Printer<'a>,
    /// The summary of the last search.
    pub(crate) last: SearchSummary,
    /// The last search failed to read its input (for an extracted stream:
    /// its text could not be extracted).
    pub(crate) last_read_failed: bool,
    /// `--sort modified` and the like: the files to search are gathered
    /// here first (not searched).
    pub(crate) listed: Option<Vec<Vec<u8>>>,
}

impl<'a> GrepVisitor<'a> {
    pub(crate) fn new(ctx: &'a Context<'a>) -> Self {
        GrepVisitor::with_output(ctx, ctx.out)
    }

    /// A visitor whose printer writes to `output` (a sorted walk's capture).
    pub(crate) fn with_output(ctx: &'a Context<'a>, output: &'a dyn Output) -> Self {
        let cfg = ctx.cfg;
        GrepVisitor {
            ctx,
            searcher: Searcher::new(cfg.searcher.clone()),
            printer: Printer::new(&cfg.printer, output, cfg.counting()),
            last: SearchSummary::default(),
            last_read_failed: false,
            listed: None,
        }
    }

    pub(crate) fn finish(&mut self) -> Stats {
        self.printer.flush();
        self.check_written();
        self.printer.stats
    }

    /// Whether the printer's output was written: a failure is reported
    /// (once for the run), and the run stops.
    pub(crate) fn check_written(&self) -> WalkState {
        match self.printer.write_error() {
            Some(e) => {
                self.ctx.write_failed(e);
                WalkState::Quit
            }
            None => WalkState::Continue,
        }
    }

    /// Whether `file` is standard output's own regular file (GNU grep
    /// refuses to read it, which could grow without end); reported.
    /// `known` is the file's stat when the walk has it (else fstat).
    pub(crate) fn is_the_output(
        &self,
        file: &File,
        known: Option<&libc::stat>,
        path: &[u8],
    ) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Some(output) = self.ctx.cfg.output_file else { return false };
        let id = match known {
            Some(st) => Some((st.st_dev, st.st_ino)),
            None => file.metadata().ok().map(|md| (md.dev(), md.ino())),
        };
        if id != Some(output) {
            return false;
        }
        self.ctx.report_path(path, &"input file is also the output");
        true
    }

    /// Searches one source (a regular file, with what the walk knows of
    /// it, or any other stream); returns Quit when the run should stop.
    pub(crate) fn search<R: Read>(
        &mut self,
        path: &[u8],
        source: Source<'_, R>,
        naming: Naming,
    ) -> WalkState {
        self.search_with(path, source, naming, None, None)
    }

    /// Searches one source; `pages` records a document's page breaks as
    /// the source is read (the source reads through a PageReader).
    pub(crate) fn search_with<R: Read>(
        &mut self,
        path: &[u8],
        source: Source<'_, R>,
        naming: Naming,
        pages: Option<&PageBreaks>,
        within: Option<Within<'_>>,
    ) -> WalkState {
        let cfg = self.ctx.cfg;
        let matcher = &cfg.matcher;
        let mut sink = self.printer.sink_for(path, matcher, naming);
        if let Some(pages) = pages {
            sink = sink.with_pages(pages);
        }
        if let Some(within) = within {
            sink = sink.within(within);
        }
        if cfg.printer.initial_tab {
            sink = sink.sized(match &source {
                Source::File(f, hints) => {
                    hints.size.map_or_else(|| stream_size(f), StreamSize::Known)
                }
                Source::Stream(_, size) => *size,
            });
        }
        let result = match source {
            Source::File(f, hints) => self.searcher.search_file(matcher, f, hints, &mut sink),
            Source::Stream(r, _) => self.searcher.search_stream(matcher, r, None, &mut sink),
        };
        self.last_read_failed = matches!(result, Err(SearchError::Io(_)));
        let summary = {
            match result {
                Ok(outcome) => outcome.summary,
                Err(e) => {
                    if cfg.searcher.cancel.is_cancelled() {
                        self.ctx.quit.store(true, Ordering::Relaxed);
                        return WalkState::Quit;
                    }
                    match e {
                        SearchError::Io(e) => {
                            self.ctx.report_path(path, &trawl_diag::io_message(&e))
                        }
                        SearchError::Match(e) => self.ctx.report_path(path, &e),
                    }
                    SearchSummary::default()
                }
            }
        };
        let matched = sink.finish(&summary);
        self.last = summary;
        if self.check_written() == WalkState::Quit {
            return WalkState::Quit;
        }
        if matched {
            self.ctx.matched.store(true, Ordering::Relaxed);
            // -q stops at the first match, unless a summary counts them all.
            if cfg.printer.mode == OutputMode::Quiet && cfg.counting() == Counting::Output {
                self.ctx.quit.store(true, Ordering::Relaxed);
                return WalkState::Quit;
            }
        }
        if self.ctx.quit.load(Ordering::Relaxed) {
            WalkState::Quit
        } else {
            WalkState::Continue
        }
    }
}

impl GrepVisitor<'_> {
    /// `--files`: names the file if `--include`, `--exclude` and
    /// `--max-filesize` keep it (it is not opened).
    pub(crate) fn list(&mut self, entry: &Entry<'_>) -> WalkState {
        let filter = &self.ctx.cfg.filter;
        if !filter.file_ok(entry.path(), reached(self.ctx.cfg, entry)) {
            return WalkState::Continue;
        }
        let size = || match entry.metadata() {
            Some(st) => Some(st.st_size as u64),
            None => entry.fetch_stat(true).ok().map(|st| st.st_size as u64),
        };
        if filter.too_large(size) {
            return WalkState::Continue;
        }
        if let Some(listed) = &mut self.listed {
            listed.push(entry.path().to_vec());
            return WalkState::Continue;
        }
        self.ctx.matched.store(true, Ordering::Relaxed);
        self.printer.list_file(entry.path());
        self.check_written()
    }
}

impl Visitor for GrepVisitor<'_> {
    fn visit(&mut self, entry: &Entry<'_>) -> WalkState {
        if self.ctx.quit.load(Ordering::Relaxed) || self.ctx.cfg.searcher.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        let cfg = self.ctx.cfg;
        let ft = entry.file_type();
        if self.ctx.only.is_some_and(|name| entry.depth() == 1 && entry.file_name() != name) {
            return if ft.is_dir() { WalkState::Skip } else { WalkState::Continue };
        }
        if ft.is_dir() {
            if entry.is_root() && cfg.directories != Directories::Recurse {
                // -d read: read(2) says EISDIR, reported as for any file.
                if cfg.directories == Directories::Read {
                    match entry.open() {
                        Ok(dir) => {
                            self.search(
                                entry.path(),
                                Source::Stream(&dir, StreamSize::Unknown),
                                Naming::File,
                            );
                        }
                        Err(e) => self.ctx.report_path(entry.path(), &trawl_diag::io_message(&e)),
                    }
                }
                return WalkState::Skip;
            }
            if !cfg.filter.dir_ok(entry.path(), reached(cfg, entry))
                || !cfg.filter.chosen(entry.path(), entry.depth(), EntryKind::Dir)
            {
                return WalkState::Skip;
            }
            return WalkState::Continue;
        }
        if let Some(e) = entry.broken_link_error() {
            // -R met a link it cannot follow: grep reports it, unless
            // --include/--exclude leave its name out.
            if !cfg.filter.file_ok(entry.path(), reached(cfg, entry)) {
                return WalkState::Continue;
            }
            self.ctx.report_path(entry.path(), &trawl_diag::io_message(&e));
            return WalkState::Continue;
        }
        // During recursion only regular files are read (grep -r: devices,
        // FIFOs and sockets are never opened unless -D read; symlinks only
        // with -R). -D skip skips operands too.
        let device = matches!(
            ft,
            FileType::Fifo | FileType::Socket | FileType::CharDevice | FileType::BlockDevice
        );
        let wanted = match (entry.is_root(), device) {
            (_, true) if cfg.devices == Devices::Skip => false,
            (true, _) => true,
            (false, true) => cfg.devices == Devices::Read,
            (false, false) => ft == FileType::File,
        };
        if !wanted || !cfg.filter.chosen(entry.path(), entry.depth(), EntryKind::File) {
            return WalkState::Continue;
        }
        if cfg.printer.mode == OutputMode::Files || self.listed.is_some() {
            return self.list(entry);
        }
        // With --search-zip, a file --include does not name may still be
        // an archive whose members it names: its bytes tell.
        let included = match cfg.filter.verdict(entry.path(), reached(cfg, entry)) {
            Verdict::Kept => true,
            Verdict::NotIncluded if cfg.extract.is_some() => false,
            Verdict::NotIncluded | Verdict::Excluded => return WalkState::Continue,
        };
        let file = match entry.open() {
            Ok(f) => f,
            Err(e) => {
                self.ctx.report_path(entry.path(), &trawl_diag::io_message(&e));
                return WalkState::Continue;
            }
        };
        let meta = entry.metadata();
        let size = || match meta {
            Some(st) => Some(st.st_size as u64),
            None => file.metadata().ok().map(|md| md.len()),
        };
        if cfg.filter.too_large(size) {
            return WalkState::Continue;
        }
        // Regular files may be searched in parts (stat'd or recursed into).
        let regular =
            meta.map_or(ft == FileType::File, |st| FileType::from_mode(st.st_mode).is_file());
        if !regular {
            if !included {
                return WalkState::Continue;
            }
            return self.search(
                entry.path(),
                Source::Stream(&file, StreamSize::Unknown),
                Naming::File,
            );
        }
        if self.is_the_output(&file, meta, entry.path()) {
            return WalkState::Continue;
        }
        if let Some(ex) = &cfg.extract {
            match ex.sniff(entry.path(), &file) {
                Ok(trawl_extract::Kind::Plain) if !included => return WalkState::Continue,
                Ok(trawl_extract::Kind::Plain) => {}
                Ok(kind) => {
                    // An archive of which the index knows the members that
                    // may match: only those, from the cache, when it can.
                    let some = cfg.index.as_ref().and_then(|ix| ix.members_of(&file));
                    let mut members = Members {
                        grep: self,
                        outer_included: included,
                        reached: reached(cfg, entry),
                    };
                    let from_pack = some.and_then(|(count, wanted)| {
                        ex.members_from_pack(entry.path(), &file, (count, &wanted), &mut members)
                    });
                    let flow = match from_pack {
                        Some(flow) => flow,
                        None => ex.file(entry.path(), &file, kind, &mut members),
                    };
                    return match flow {
                        trawl_extract::Flow::Continue => WalkState::Continue,
                        trawl_extract::Flow::Stop => WalkState::Quit,
                    };
                }
                Err(e) => {
                    self.ctx.report_path(entry.path(), &trawl_diag::io_message(&e));
                    return WalkState::Continue;
                }
            }
        }
        let hints = FileHints {
            size: meta.map(|st| st.st_size as u64),
            mapping: if entry.is_root() { MapParts::Allowed } else { MapParts::Never },
            short_read: if entry.short_read_is_end() {
                ShortRead::IsEnd
            } else {
                ShortRead::MayContinue
            },
        };
        self.search(entry.path(), Source::<&File>::File(&file, hints), Naming::File)
    }

    fn error(&mut self, err: WalkError) -> WalkState {
        // grep reports a directory loop as a warning; it does not fail the run.
        let is_error = !err.kind().is_warning();
        self.ctx.report(err.to_string().as_bytes(), is_error);
        if self.ctx.quit.load(Ordering::Relaxed) {
            WalkState::Quit
        } else {
            WalkState::Continue
        }
    }
}

/// Searches the text streams found inside a compressed file or archive,
/// each under its member name, members chosen by `--include` and
/// `--exclude` as files are; reports what cannot be read.
pub(crate) struct Members<'v, 'a> {
    pub(crate) grep: &'v mut GrepVisitor<'a>,
    /// `--include` names the outer file (so a decoded `.gz` is searched).
    pub(crate) outer_included: bool,
    /// How the outer file was reached (what its name is matched by).
    pub(crate) reached: Reached,
}

impl trawl_extract::Visit for Members<'_, '_> {
    fn text(
        &mut self,
        name: &[u8],
        data: &mut dyn Read,
        origin: trawl_extract::Origin<'_>,
    ) -> trawl_extract::Flow {
        self.stream(name, data, origin, Layout::Lines)
    }

    fn pages(
        &mut self,
        name: &[u8],
        data: &mut dyn Read,
        origin: trawl_extract::Origin<'_>,
    ) -> trawl_extract::Flow {
        self.stream(name, data, origin, Layout::Pages)
    }

    fn error(&mut self, name: &[u8], err: &io::Error) {
        self.grep.ctx.extraction.failed.fetch_add(1, Ordering::Relaxed);
        self.grep.ctx.report_path(name, &trawl_diag::io_message(err));
    }

    /// Counted and said once at the end of the run (the first run named
    /// it); the exit status is what that run's was.
    fn remembered_failure(&mut self, _name: &[u8], _err: &io::Error) {
        self.grep.ctx.extraction.remembered.fetch_add(1, Ordering::Relaxed);
        self.grep.ctx.error.store(true, Ordering::Relaxed);
    }

    /// Searched as grep would: not an error, counted for --stats.
    fn searched_as_bytes(&mut self, _name: &[u8], _why: &io::Error) {
        self.grep.ctx.extraction.as_bytes.fetch_add(1, Ordering::Relaxed);
    }

    /// Passed over on purpose (an encrypted member): reported, not counted
    /// as a failed extraction.
    fn note(&mut self, name: &[u8], err: &io::Error) {
        self.grep.ctx.report_path(name, &trawl_diag::io_message(err));
    }

    fn warning(&mut self, name: &[u8], err: &io::Error) {
        let mut msg = b"warning: ".to_vec();
        msg.extend_from_slice(name);
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(trawl_diag::io_message(err).as_bytes());
        self.grep.ctx.report(&msg, false);
    }
}

impl Members<'_, '_> {
    /// Searches one extracted stream, if `--include`/`--exclude` let it.
    pub(crate) fn stream(
        &mut self,
        name: &[u8],
        data: &mut dyn Read,
        origin: trawl_extract::Origin<'_>,
        layout: Layout,
    ) -> trawl_extract::Flow {
        let filter = &self.grep.ctx.cfg.filter;
        let naming = match origin {
            trawl_extract::Origin::Whole if self.outer_included => Naming::File,
            // `--include='*.c'` names `x.c.gz`: the name without its
            // compression suffix.
            trawl_extract::Origin::Whole
                if filter.file_ok(strip_codec_suffix(name), self.reached) =>
            {
                Naming::File
            }
            trawl_extract::Origin::Whole => return trawl_extract::Flow::Continue,
            trawl_extract::Origin::Member(m) if filter.file_ok(m.path, Reached::Member) => {
                Naming::Member
            }
            trawl_extract::Origin::Member(_) => return trawl_extract::Flow::Continue,
        };
        // The display name is the file's, then `{member}` for each member.
        let within = origin.member().map(|m| {
            let members = m.chain();
            let suffix: usize = members.iter().map(|p| p.len() + 2).sum();
            Within { archive: &name[..name.len().saturating_sub(suffix)], members }
        });
        let state = match layout {
            Layout::Lines => self.grep.search_with(
                name,
                Source::Stream(data, StreamSize::Unknown),
                naming,
                None,
                within,
            ),
            Layout::Pages => {
                let breaks = PageBreaks::new();
                let paged = PageReader::new(data, &breaks);
                let source = Source::Stream(paged, StreamSize::Unknown);
                self.grep.search_with(name, source, naming, Some(&breaks), within)
            }
        };
        if self.grep.last_read_failed {
            self.grep.ctx.extraction.failed.fetch_add(1, Ordering::Relaxed);
        }
        match state {
            WalkState::Quit => trawl_extract::Flow::Stop,
            _ => trawl_extract::Flow::Continue,
        }
    }
}

/// `name` without a compression suffix (`.gz`, `.bz2`, `.xz`, `.zst`,
/// `.lz4`).
pub(crate) fn strip_codec_suffix(name: &[u8]) -> &[u8] {
    [&b".gz"[..], b".bz2", b".xz", b".zst", b".lz4"]
        .iter()
        .find_map(|s| name.strip_suffix(*s))
        .unwrap_or(name)
}
