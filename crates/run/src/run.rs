//! A grep run: the walk of the operands as the options configure it, its
//! visitors made per thread, standard input, and a sorted run's output in
//! walk order.

use std::fs::File;
use std::io;
use std::sync::atomic::Ordering;

use trawl_printer::{Naming, OutputMode, Stats};
use trawl_select::rules::EntryKind;
use trawl_walk::{Entry, Piece, Pieces, Turn, Visitor, WalkBuilder, WalkError, WalkState};

use crate::config::{Config, Target};
use crate::context::Context;
use crate::filter::Reached;
use crate::sorted::InTurn;
use crate::visitor::{stream_size, GrepVisitor, Members, Source};

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

/// Searches every target; returns the totals.
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
        let outputs: Vec<InTurn> = (0..threads).map(|_| InTurn::new(ctx.out)).collect();
        let visitors = run_walk(cfg, &walk, |i| {
            let output = &outputs[i];
            InOrder { grep: GrepVisitor::with_output(ctx, output), output }
        });
        for mut v in visitors {
            stats.add(&v.grep.finish());
        }
        if let Err(e) = ctx.out.flush() {
            ctx.write_failed(&e);
        }
    } else {
        for mut v in run_walk(cfg, &walk, |_| GrepVisitor::new(ctx)) {
            stats.add(&v.finish());
        }
    }
    stats
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

/// A thread's searcher in a sorted walk (`--sort path`): files are searched
/// in parallel, and each one's output is captured and handed to the walk,
/// which writes it in walk order (or written at once in the item's turn).
struct InOrder<'a> {
    grep: GrepVisitor<'a>,
    /// Where this thread's printer writes.
    output: &'a InTurn<'a>,
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
        crate::sorted::hand_over(self.output.capture(), out);
    }

    fn turn(&self) -> Option<Turn> {
        Some(self.output.turn())
    }

    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        match crate::sorted::write(self.grep.ctx.out, pieces) {
            Ok(()) => WalkState::Continue,
            Err(e) => {
                self.grep.ctx.write_failed(&e);
                WalkState::Quit
            }
        }
    }
}
