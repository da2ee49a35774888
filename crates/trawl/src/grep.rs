//! The search itself: a walk whose visitors search the files they meet.

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use trawl_printer::{
    Capture, Counting, Naming, Output, OutputMode, PageBreaks, PageReader, Printer, Stats,
    StreamSize, Within,
};
use trawl_search::{FileHints, MapParts, SearchError, SearchSummary, Searcher, ShortRead};
use trawl_walk::{Entry, FileType, Piece, Pieces, Visitor, WalkBuilder, WalkError, WalkState};

use crate::config::{Config, Devices, Directories, Target};
use crate::filter::{Reached, Verdict};
use trawl_select::rules::EntryKind;

/// State shared by every thread of a run.
pub struct Context<'a> {
    pub cfg: &'a Config,
    pub out: &'a dyn Output,
    /// A line was selected somewhere.
    pub matched: AtomicBool,
    /// An error was met (exit code 2).
    pub error: AtomicBool,
    /// Stop as soon as possible (-q matched, or the output pipe closed).
    pub quit: AtomicBool,
    /// Writing standard output failed (reported once).
    write_failed: AtomicBool,
    /// What became of documents beyond their search (counted for the end
    /// of the run).
    pub extraction: ExtractionCounts,
    /// A shard's part of an operand: the one entry of the (directory) root
    /// that is searched.
    only: Option<&'a [u8]>,
}

/// What became of documents, counted as the run goes (see
/// trawl_printer::ExtractionStats).
#[derive(Default)]
pub struct ExtractionCounts {
    /// Files and archive members whose text could not be extracted (each
    /// reported as met).
    failed: AtomicU64,
    /// Documents the cache remembers failing (not reported one by one).
    remembered: AtomicU64,
    /// Documents searched as bytes after their extractor failed.
    as_bytes: AtomicU64,
}

impl ExtractionCounts {
    /// The counts so far.
    pub fn stats(&self) -> trawl_printer::ExtractionStats {
        trawl_printer::ExtractionStats {
            failed: self.failed.load(Ordering::Relaxed),
            failed_remembered: self.remembered.load(Ordering::Relaxed),
            searched_as_bytes: self.as_bytes.load(Ordering::Relaxed),
        }
    }
}

impl<'a> Context<'a> {
    pub fn new(cfg: &'a Config, out: &'a dyn Output) -> Self {
        Context {
            cfg,
            out,
            matched: AtomicBool::new(false),
            error: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            write_failed: AtomicBool::new(false),
            extraction: ExtractionCounts::default(),
            only: None,
        }
    }

    /// Searches only the entry `name` of the root (a directory): a shard's
    /// part of an operand, searched as one trawl over the operand searches
    /// that entry.
    pub fn only(mut self, name: Option<&'a [u8]>) -> Self {
        self.only = name;
        self
    }

    /// Reports `trawl: MESSAGE` on stderr (unless -s) and marks the run failed.
    fn report(&self, message: &[u8], is_error: bool) {
        if is_error {
            self.error.store(true, Ordering::Relaxed);
        }
        if self.cfg.no_messages || self.out.broken_pipe() {
            return;
        }
        let mut line = Vec::with_capacity(message.len() + 8);
        line.extend_from_slice(b"trawl: ");
        line.extend_from_slice(message);
        line.push(b'\n');
        let _ = io::stderr().lock().write_all(&line);
    }

    fn report_path(&self, path: &[u8], err: &dyn std::fmt::Display) {
        let mut msg = path.to_vec();
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(err.to_string().as_bytes());
        self.report(&msg, true);
    }
}

/// Searches every target; returns the totals.
/// The walk of the operands, as the options configure it.
fn walk_builder(cfg: &Config) -> WalkBuilder {
    let mut walk = WalkBuilder::new();
    walk.threads(cfg.threads)
        .follow_links(cfg.follow_links)
        .max_depth(cfg.max_depth)
        .same_file_system(cfg.one_file_system)
        .sorted(cfg.sorted)
        .ignore_files(cfg.gitignore)
        // A file a --glob includes is read whatever the ignore files say (rg).
        .keep_ignored(cfg.filter.chosen.clone().map(|rules| {
            trawl_walk::KeepIgnored(std::sync::Arc::new(move |path, depth, is_dir| {
                let kind = if is_dir { EntryKind::Dir } else { EntryKind::File };
                rules.named_by_glob(trawl_select::rules::below_root(path, depth), kind)
            }))
        }))
        .file_systems(true)
        // A file open for reading; with extraction, a temporary file, an
        // extractor's pipes and the cache's files too.
        .visit_descriptors(if cfg.extract.is_some() { 8 } else { 1 })
        // -q stops at the first match, and, as grep, opens no operand after
        // the one that holds it (a missing one is then never reported).
        .operands_in_order(cfg.printer.mode == OutputMode::Quiet && cfg.targets.len() > 1);
    walk
}

pub fn run(ctx: &Context<'_>) -> Stats {
    let cfg = ctx.cfg;
    let mut stats = Stats::default();
    let mut walk = walk_builder(cfg);
    let mut roots = 0;
    for t in &cfg.targets {
        match t {
            Target::Stdin => {
                // Searched in order with the paths around it would need the
                // walk to know about stdin; grep users name it once.
                let mut v = GrepVisitor::new(ctx);
                let name = &cfg.stdin_label[..];
                // SAFETY: descriptor 0 stays open for the run; ManuallyDrop
                // keeps this File from closing it.
                let stdin = std::mem::ManuallyDrop::new(unsafe {
                    <File as std::os::fd::FromRawFd>::from_raw_fd(0)
                });
                if v.is_the_output(&stdin, None, name) {
                    stats.add(&v.finish());
                    continue;
                }
                let start = seekable_stdin_offset(cfg);
                match &cfg.extract {
                    Some(ex) => {
                        let mut members = Members {
                            grep: &mut v,
                            outer_included: true,
                            reached: Reached::Operand,
                        };
                        ex.stream(name, &mut io::stdin().lock(), 0, &mut members);
                    }
                    None => {
                        let size = stream_size(&stdin);
                        v.search(name, Source::Stream(io::stdin().lock(), size), Naming::File);
                        // -m on a seekable standard input: leave it just after
                        // the last line used, for the next reader (as grep).
                        if let (Some(start), Some(at)) = (start, v.last.stopped_at) {
                            // SAFETY: lseek on descriptor 0 has no memory effects.
                            unsafe { libc::lseek(0, (start + at) as libc::off_t, libc::SEEK_SET) };
                        }
                    }
                }
                stats.add(&v.finish());
            }
            Target::Path { path, display } => {
                let report = |msg: &[u8]| ctx.report(msg, false);
                let served = cfg.index.as_ref().is_some_and(|ix| {
                    crate::indexed::add_operand(cfg, ix, &mut walk, path, display, &report)
                });
                if !served {
                    walk.add_root_displayed(path, display);
                }
                roots += 1;
            }
        }
    }
    if roots == 0 || ctx.quit.load(Ordering::Relaxed) {
        return stats;
    }
    if let Some(order) = cfg.order {
        // The files that would be searched, sorted, then searched in that
        // order (as operands of a sorted walk).
        let mut files: Vec<(Option<std::time::SystemTime>, Vec<u8>)> = Vec::new();
        for mut v in run_walk(cfg, &walk, |_| {
            let mut v = GrepVisitor::new(ctx);
            v.listed = Some(Vec::new());
            v
        }) {
            stats.add(&v.finish());
            files.extend(v.listed.take().unwrap_or_default().into_iter().map(|p| (None, p)));
        }
        order.sort(&mut files);
        let mut again = walk_builder(cfg);
        again.sorted(true);
        for (_, path) in &files {
            again.add_root_displayed(path, path);
        }
        if files.is_empty() {
            return stats;
        }
        walk = again;
    }
    if cfg.sorted || cfg.order.is_some() {
        let threads = match cfg.threads {
            0 => crate::thread_growth::max_threads(&walk),
            _ => walk.thread_count(),
        };
        let captures: Vec<Capture> = (0..threads).map(|_| Capture::default()).collect();
        let visitors = run_walk(cfg, &walk, |i| {
            let capture = &captures[i];
            InOrder { grep: GrepVisitor::with_output(ctx, capture), capture }
        });
        for mut v in visitors {
            stats.add(&v.grep.finish());
        }
        if let Err(e) = ctx.out.flush() {
            write_failed(ctx, &e);
        }
    } else {
        for mut v in run_walk(cfg, &walk, |_| GrepVisitor::new(ctx)) {
            stats.add(&v.finish());
        }
    }
    stats
}

/// What the printers count: everything when a summary ends the run.
fn counting(cfg: &Config) -> Counting {
    if cfg.stats || cfg.printer.mode == OutputMode::Json {
        Counting::Summary
    } else {
        Counting::Output
    }
}

/// Runs the walk on `-j` threads, or from one per CPU growing when the disk
/// is read (no `-j`).
fn run_walk<V: Visitor>(
    cfg: &Config,
    walk: &WalkBuilder,
    make_visitor: impl Fn(usize) -> V + Sync,
) -> Vec<V> {
    if cfg.threads == 0 {
        crate::thread_growth::run(walk, make_visitor)
    } else {
        walk.run(make_visitor)
    }
}

/// The offset of standard input when `-m` is given and it is a regular
/// file (grep then leaves it after the last selected line).
fn seekable_stdin_offset(cfg: &Config) -> Option<u64> {
    cfg.searcher.max_count?;
    // -q, -l and -L stop at the first match and read no further anyway;
    // grep leaves standard input wherever its read left it then.
    if !matches!(cfg.printer.mode, OutputMode::Lines | OutputMode::Count) {
        return None;
    }
    // SAFETY: fstat fills `st`; lseek has no memory effects.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(0, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return None;
        }
        let at = libc::lseek(0, 0, libc::SEEK_CUR);
        (at >= 0).then_some(at as u64)
    }
}

/// Writing standard output failed (a closed pipe with SIGPIPE ignored, a
/// full disk): reported once, the run stops and exits 2.
fn write_failed(ctx: &Context<'_>, e: &io::Error) {
    ctx.error.store(true, Ordering::Relaxed);
    // Reported once, a closed pipe too (SIGPIPE ignored: grep says "write
    // error: Broken pipe"); -s does not hide it, as in grep.
    if !ctx.write_failed.swap(true, Ordering::Relaxed) {
        let msg = format!("trawl: write error: {}\n", trawl_diag::io_message(e));
        let _ = io::stderr().lock().write_all(msg.as_bytes());
    }
    ctx.quit.store(true, Ordering::Relaxed);
}

/// A thread's searcher in a sorted walk (`--sort path`): files are searched
/// in parallel, and each one's output is captured and handed to the walk,
/// which writes it in walk order.
struct InOrder<'a> {
    grep: GrepVisitor<'a>,
    /// Where this thread's printer writes.
    capture: &'a Capture,
}

impl Visitor for InOrder<'_> {
    fn visit(&mut self, entry: &Entry<'_>) -> WalkState {
        let state = self.grep.visit(entry);
        // The printer may still hold the end of the file's output.
        self.grep.printer.flush();
        state
    }

    fn error(&mut self, err: WalkError) -> WalkState {
        self.grep.error(err)
    }

    fn take_output(&mut self, out: &mut Pieces) {
        crate::sorted::hand_over(self.capture, out);
    }

    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        match crate::sorted::write(self.grep.ctx.out, pieces) {
            Ok(()) => WalkState::Continue,
            Err(e) => {
                write_failed(self.grep.ctx, &e);
                WalkState::Quit
            }
        }
    }
}

/// How the walk reached `entry`: what `--include`, `--exclude` and
/// `--exclude-dir` match it by.
fn reached(cfg: &Config, entry: &Entry<'_>) -> Reached {
    match entry.depth() {
        0 if cfg.implicit_dot() => Reached::ImplicitDot,
        0 => Reached::Operand,
        _ => Reached::Recursion,
    }
}

/// A regular file's size; other files' sizes are unknown (as GNU grep's
/// `usable_st_size`).
fn stream_size(file: &File) -> StreamSize {
    match file.metadata() {
        Ok(md) if md.file_type().is_file() => StreamSize::Known(md.len()),
        _ => StreamSize::Unknown,
    }
}

/// What one search reads.
enum Source<'f, R> {
    /// A regular file, with what the walk knows of it.
    File(&'f File, FileHints),
    /// Anything else: standard input, a FIFO or device named on the
    /// command line, and its size if known (`-T` aligns numbers to it).
    Stream(R, StreamSize),
}

/// One thread's searcher, printer and buffers.
struct GrepVisitor<'a> {
    ctx: &'a Context<'a>,
    searcher: Searcher,
    printer: Printer<'a>,
    /// The summary of the last search.
    last: SearchSummary,
    /// The last search failed to read its input (for an extracted stream:
    /// its text could not be extracted).
    last_read_failed: bool,
    /// `--sort modified` and the like: the files to search are gathered
    /// here first (not searched).
    listed: Option<Vec<Vec<u8>>>,
}

impl<'a> GrepVisitor<'a> {
    fn new(ctx: &'a Context<'a>) -> Self {
        GrepVisitor::with_output(ctx, ctx.out)
    }

    /// A visitor whose printer writes to `output` (a sorted walk's capture).
    fn with_output(ctx: &'a Context<'a>, output: &'a dyn Output) -> Self {
        let cfg = ctx.cfg;
        GrepVisitor {
            ctx,
            searcher: Searcher::new(cfg.searcher.clone()),
            printer: Printer::new(&cfg.printer, output, counting(cfg)),
            last: SearchSummary::default(),
            last_read_failed: false,
            listed: None,
        }
    }

    fn finish(&mut self) -> Stats {
        self.printer.flush();
        self.check_written();
        self.printer.stats
    }

    /// Whether the printer's output was written: a failure is reported
    /// (once for the run), and the run stops.
    fn check_written(&self) -> WalkState {
        match self.printer.write_error() {
            Some(e) => {
                write_failed(self.ctx, e);
                WalkState::Quit
            }
            None => WalkState::Continue,
        }
    }

    /// Whether `file` is standard output's own regular file (GNU grep
    /// refuses to read it, which could grow without end); reported.
    /// `known` is the file's stat when the walk has it (else fstat).
    fn is_the_output(&self, file: &File, known: Option<&libc::stat>, path: &[u8]) -> bool {
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
    fn search<R: Read>(&mut self, path: &[u8], source: Source<'_, R>, naming: Naming) -> WalkState {
        self.search_with(path, source, naming, None, None)
    }

    /// Searches one source; `pages` records a document's page breaks as
    /// the source is read (the source reads through a PageReader).
    fn search_with<R: Read>(
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
            if cfg.printer.mode == OutputMode::Quiet && counting(cfg) == Counting::Output {
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
    fn list(&mut self, entry: &Entry<'_>) -> WalkState {
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
struct Members<'v, 'a> {
    grep: &'v mut GrepVisitor<'a>,
    /// `--include` names the outer file (so a decoded `.gz` is searched).
    outer_included: bool,
    /// How the outer file was reached (what its name is matched by).
    reached: Reached,
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

/// Whether a stream's lines are grouped in pages.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Layout {
    Lines,
    /// A document's text, each page after the first starting with a form feed.
    Pages,
}

impl Members<'_, '_> {
    /// Searches one extracted stream, if `--include`/`--exclude` let it.
    fn stream(
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
fn strip_codec_suffix(name: &[u8]) -> &[u8] {
    [&b".gz"[..], b".bz2", b".xz", b".zst", b".lz4"]
        .iter()
        .find_map(|s| name.strip_suffix(*s))
        .unwrap_or(name)
}
