//! Evaluating a find expression on walk entries, one evaluator per thread
//! of a [`Run`]: the operators, the tests, and the dispatch of actions
//! (running commands is in `exec`, `-printf` in `printf`, `-ls` in `ls`,
//! the held output in `held`, the entry's metadata in `subject`).

use std::io::{self, Read};

use trawl_matcher::AnyMatcher;
use trawl_printer::Output;
use trawl_search::{Searcher, SearcherConfig};
use trawl_walk::{Entry, FileType};

use crate::command::Follow;
use crate::exec::{ExecContext, Execs};
use crate::expr::{type_bit, Action, Expr, FileFormat, PermMatch, Test, TimeField};
use crate::held::{Held, FLUSH_AT};
use crate::paths::base_name;
use crate::report::{show, Reporter};
use crate::run::Run;
use crate::subject::{time_of, LazyEntry, Lookups};
use crate::users::Names;
use crate::{ls, printf};

/// What the walk should do after an entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// `-prune` was evaluated: do not descend.
    pub prune: bool,
    /// `-quit` was evaluated: stop.
    pub quit: bool,
}

/// Writes up to this size are atomic on a pipe: children that share our
/// standard output cannot split one of our lines.
const PIPE_BUF: usize = 4096;
/// How much of a file `-text`/`-binary` look at.
const SNIFF: usize = 8192;

/// One thread's evaluator.
pub struct Evaluator<'r> {
    run: &'r Run<'r>,
    /// The output held to be written.
    out: Held<'r>,
    /// Failures reported.
    rep: Reporter,
    names: Names,
    searcher: Option<Searcher>,
    execs: Execs,
    /// A `-fprint` (or `-fls`) file's write error was said (GNU find then
    /// says only "write error" of standard output).
    file_error_said: bool,
    outcome: Outcome,
    /// The expression holds `-quit`: entries are evaluated one at a time.
    quits: bool,
}

/// How an evaluator's thread ended.
#[derive(Debug)]
pub struct Finished {
    /// Something failed: find exits 1.
    pub failed: bool,
    /// Writing to standard output failed otherwise than by a closed pipe
    /// (a full disk), and whether that was said already (before a command
    /// ran): else it is said at the end, as GNU find does.
    pub write_error: Option<(io::Error, bool)>,
    /// A `-fprint` (or `-fls`) file's write error was said.
    pub file_error_said: bool,
}

impl<'r> Evaluator<'r> {
    /// An evaluator for one thread of `run`, writing to `output`.
    pub fn new(run: &'r Run<'r>, output: &'r dyn Output) -> Self {
        let cmd = run.cmd;
        let turns = (!cmd.execs.is_empty()).then_some(&run.turns);
        Evaluator {
            run,
            out: Held::new(output, turns),
            rep: Reporter::default(),
            names: Names::default(),
            searcher: None,
            execs: Execs::new(cmd.execs.len()),
            file_error_said: false,
            outcome: Outcome::default(),
            quits: cmd.expr.any_action(&|a| matches!(a, Action::Quit)),
        }
    }

    /// Says `msg` on standard error (after `trawl: `) and fails the run.
    pub fn report(&mut self, msg: String) {
        self.rep.report(msg);
    }

    /// Whether writing found standard output closed (a closed pipe): the
    /// run stops quietly.
    pub fn output_closed(&self) -> bool {
        self.out.closed
    }

    /// Standard output was found closed elsewhere: nothing more is written.
    pub fn close_output(&mut self) {
        self.out.closed = true;
    }

    /// Evaluates the expression for one entry.
    pub fn eval(&mut self, e: &Entry<'_>) -> Outcome {
        if !self.quits {
            return self.eval_entry(e);
        }
        // Once one thread has run `-quit`, no other entry may act: entries
        // are evaluated one at a time, each one's output written before the
        // lock is let go, so the quitting one's comes last.
        let mut quitted = self.run.turns.quit();
        if *quitted {
            return Outcome { prune: false, quit: true };
        }
        let mut o = self.eval_entry(e);
        *quitted = o.quit;
        self.flush();
        // A closed output ends the run too.
        o.quit |= self.outcome.quit;
        o
    }

    fn eval_entry(&mut self, e: &Entry<'_>) -> Outcome {
        self.outcome = Outcome::default();
        let start = self.out.buf.len();
        let run = self.run;
        let cmd = run.cmd;
        let mut item = LazyEntry::new(e, cmd.follow, cmd.ignore_readdir_race);
        self.expr(&cmd.expr, &mut item);
        if item.abort {
            self.out.buf.truncate(start);
        }
        if !cmd.execs.is_empty() && run.turns.held_by_me() {
            self.flush();
            run.turns.release();
        }
        if !cmd.execs.is_empty() && self.out.buf.len() > PIPE_BUF {
            // Keep each write atomic and whole-record.
            let tail = self.out.buf.split_off(start);
            self.flush();
            self.out.buf = tail;
            if self.out.buf.len() > PIPE_BUF {
                self.flush();
            }
        } else if self.out.buf.len() >= FLUSH_AT {
            self.flush();
        }
        self.outcome
    }

    /// Runs what this thread's `-execdir ... +` batches still hold, waits
    /// for their children and writes the remaining output.
    pub fn finish(mut self) -> Finished {
        let mut cx = ExecContext { run: self.run, out: &mut self.out, rep: &mut self.rep };
        self.execs.finish(&mut cx);
        self.flush();
        Finished {
            failed: self.rep.failed || self.out.write_error.is_some(),
            write_error: self.out.write_error.take(),
            file_error_said: self.file_error_said,
        }
    }

    /// Writes the held output.
    pub fn flush(&mut self) {
        self.out.flush();
        if self.out.take_closed_now() {
            self.outcome.quit = true;
        }
    }

    fn expr(&mut self, x: &Expr, it: &mut LazyEntry<'_, '_>) -> bool {
        if self.outcome.quit || it.abort {
            return false;
        }
        match x {
            Expr::And(a, b) => self.expr(a, it) && self.expr(b, it),
            Expr::Or(a, b) => self.expr(a, it) || self.expr(b, it),
            Expr::Not(a) => !self.expr(a, it),
            Expr::Comma(a, b) => {
                self.expr(a, it);
                self.expr(b, it)
            }
            Expr::Test(t) => self.test(t, it),
            Expr::Action(a) => self.action(a, it),
        }
    }

    fn test(&mut self, t: &Test, it: &mut LazyEntry<'_, '_>) -> bool {
        let e = it.e;
        match t {
            Test::Const(b) => *b,
            Test::Name(g) => g.is_match(base_name(e)),
            Test::Path(g) => g.is_match(e.path()),
            Test::Regex(re) => re.is_match(e.path()),
            Test::Type(mask) => mask & type_bit(e.file_type()) != 0,
            Test::XType(mask) => mask & type_bit(self.other_side_type(e)) != 0,
            Test::Size { cmp, n, unit } => it.stat(&mut self.rep).is_some_and(|st| {
                let size = st.st_size.max(0) as u64;
                cmp.holds(size.div_ceil(*unit) as i128, *n as i128)
            }),
            Test::Empty => match e.file_type() {
                FileType::Dir => e.is_empty_dir().unwrap_or_else(|err| {
                    self.rep.report(format!(
                        "'{}': {}",
                        show(e.path()),
                        trawl_diag::io_message(&err)
                    ));
                    false
                }),
                FileType::File => it.stat(&mut self.rep).is_some_and(|st| st.st_size == 0),
                _ => false,
            },
            Test::Time { field: TimeField::Birth, window } => match it.birth_time(&mut self.rep) {
                Some(t) => window.holds(t),
                None => false,
            },
            Test::Time { field, window } => {
                it.stat(&mut self.rep).is_some_and(|st| window.holds(time_of(&st, *field)))
            }
            Test::Used(window) => it.stat(&mut self.rep).is_some_and(|st| {
                // The delta from the access back to the status change, as
                // GNU find compares it (never true when accessed before).
                let (at, ct) = (time_of(&st, TimeField::Access), time_of(&st, TimeField::Change));
                if at < ct {
                    return false;
                }
                let (mut s, mut ns) = (ct.0 - at.0, ct.1 - at.1);
                if ns < 0 {
                    ns += 1_000_000_000;
                    s -= 1;
                }
                window.holds((s, ns))
            }),
            // As the walk sees it: under -L only a link that cannot be
            // followed is one.
            Test::LinkName(g) => {
                e.file_type() == FileType::Symlink && e.read_link().is_ok_and(|t| g.is_match(&t))
            }
            Test::FsType(t) => it
                .stat(&mut self.rep)
                .is_some_and(|st| crate::mounts::fstype_of(st.st_dev) == t.as_slice()),
            Test::Perm { how, mode: (file_mode, dir_mode) } => {
                it.stat(&mut self.rep).is_some_and(|st| {
                    let mode = st.st_mode & 0o7777;
                    let m = if st.st_mode & libc::S_IFMT == libc::S_IFDIR {
                        *dir_mode
                    } else {
                        *file_mode
                    };
                    match how {
                        PermMatch::Exact => mode == m,
                        PermMatch::All => mode & m == m,
                        PermMatch::Any => m == 0 || mode & m != 0,
                    }
                })
            }
            Test::Uid(cmp, n) => {
                it.stat(&mut self.rep).is_some_and(|st| cmp.holds(st.st_uid as i128, *n as i128))
            }
            Test::Gid(cmp, n) => {
                it.stat(&mut self.rep).is_some_and(|st| cmp.holds(st.st_gid as i128, *n as i128))
            }
            Test::NoUser => {
                it.stat(&mut self.rep).is_some_and(|st| self.names.user(st.st_uid).is_none())
            }
            Test::NoGroup => {
                it.stat(&mut self.rep).is_some_and(|st| self.names.group(st.st_gid).is_none())
            }
            Test::Links(cmp, n) => {
                it.stat(&mut self.rep).is_some_and(|st| cmp.holds(st.st_nlink as i128, *n as i128))
            }
            Test::Inum(cmp, n) => {
                it.stat(&mut self.rep).is_some_and(|st| cmp.holds(st.st_ino as i128, *n as i128))
            }
            Test::SameFile { dev, ino } => {
                it.stat(&mut self.rep).is_some_and(|st| st.st_dev == *dev && st.st_ino == *ino)
            }
            Test::Access(mode) => e.access(*mode),
            Test::Text => {
                self.sniff_text(e, |block| !block.is_empty() && memchr::memchr(0, block).is_none())
                    == Some(true)
            }
            Test::Binary => {
                self.sniff_text(e, |block| memchr::memchr(0, block).is_some()) == Some(true)
            }
            Test::Kind(kinds) => {
                self.sniff(e, |block| kinds.contains(&trawl_extract::detect(block))) == Some(true)
            }
            Test::Contains(m) => self.contains(e, m),
        }
    }

    /// The type seen from the other side of a symlink (`-xtype`).
    fn other_side_type(&mut self, e: &Entry<'_>) -> FileType {
        let follow = self.run.cmd.follow;
        let follow_now = follow == Follow::Always || (follow == Follow::Roots && e.is_root());
        if follow_now {
            // The entry's type is the target's: look at the link itself.
            e.fetch_stat(false).map(|st| FileType::from_mode(st.st_mode)).unwrap_or(e.file_type())
        } else if e.file_type().is_symlink() {
            match e.fetch_stat(true) {
                Ok(st) => FileType::from_mode(st.st_mode),
                Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
                    self.rep.report(format!(
                        "'{}': {}",
                        show(e.path()),
                        trawl_diag::io_message(&err)
                    ));
                    FileType::Unknown
                }
                Err(_) => FileType::Symlink,
            }
        } else {
            e.file_type()
        }
    }

    /// `judge` on the first block of a regular file's text: with
    /// `-search-zip`/`-docs`, of the first text inside a compressed file,
    /// an archive or a document; else as [`Evaluator::sniff`].
    fn sniff_text(&mut self, e: &Entry<'_>, judge: impl FnOnce(&[u8]) -> bool) -> Option<bool> {
        let Some(ex) = &self.run.extractor else { return self.sniff(e, judge) };
        let mut f = self.open_regular(e)?;
        // The kind is read with pread: `f` still reads from its start.
        match ex.sniff(e.path(), &f) {
            Ok(trawl_extract::Kind::Plain) | Err(_) => Some(judge_first_block(&mut f, judge)),
            Ok(kind) => {
                let mut errors = Vec::new();
                let block =
                    crate::extracted::first_block(ex, e.path(), &f, kind, SNIFF, &mut errors);
                for err in errors {
                    self.rep.report(err);
                }
                Some(judge(&block.unwrap_or_default()))
            }
        }
    }

    /// A regular file opened (None: not one, or unreadable, which is
    /// reported).
    fn open_regular(&mut self, e: &Entry<'_>) -> Option<std::fs::File> {
        if e.file_type() != FileType::File {
            return None;
        }
        match e.open() {
            Ok(f) => Some(f),
            Err(err) => {
                self.rep.report(format!("'{}': {}", show(e.path()), trawl_diag::io_message(&err)));
                None
            }
        }
    }

    /// `judge` on the first block of a regular file (None: not a regular
    /// file, or unreadable, which is reported).
    fn sniff(&mut self, e: &Entry<'_>, judge: impl FnOnce(&[u8]) -> bool) -> Option<bool> {
        let mut f = self.open_regular(e)?;
        Some(judge_first_block(&mut f, judge))
    }

    fn contains(&mut self, e: &Entry<'_>, m: &AnyMatcher) -> bool {
        let Some(f) = self.open_regular(e) else { return false };
        let cancel = &self.run.cancel;
        let searcher = self.searcher.get_or_insert_with(|| {
            Searcher::new(SearcherConfig { cancel: cancel.clone(), ..SearcherConfig::default() })
        });
        if let Some(ex) = &self.run.extractor {
            match ex.sniff(e.path(), &f) {
                Ok(trawl_extract::Kind::Plain) | Err(_) => {}
                Ok(kind) => {
                    let mut errors = Vec::new();
                    let found = crate::extracted::contains(
                        ex,
                        e.path(),
                        &f,
                        kind,
                        searcher,
                        m,
                        &mut errors,
                    );
                    for err in errors {
                        self.rep.report(err);
                    }
                    return found;
                }
            }
        }
        let mut sink = crate::extracted::First(false);
        if let Err(err) = searcher.search_reader(m, f, &mut sink) {
            self.rep.report(format!("'{}': {err}", show(e.path())));
        }
        sink.0
    }

    fn action(&mut self, a: &Action, it: &mut LazyEntry<'_, '_>) -> bool {
        let e = it.e;
        match a {
            Action::Print(end) => {
                if *end == b'\n' && self.run.escape_names {
                    trawl_diag::escape_controls(&mut self.out.buf, e.path());
                } else {
                    self.out.buf.extend_from_slice(e.path());
                }
                self.out.buf.push(*end);
                true
            }
            Action::Printf(f) => {
                let mut l = Lookups { names: &mut self.names, rep: &mut self.rep };
                printf::render(f, it, &mut l, &mut self.out.buf);
                true
            }
            Action::FPrint(file, format) => {
                let file = &self.run.outputs[*file];
                let mut out = Vec::new();
                match format {
                    FileFormat::Path(end) => {
                        out.extend_from_slice(e.path());
                        out.push(*end);
                    }
                    FileFormat::Printf(f) => {
                        let mut l = Lookups { names: &mut self.names, rep: &mut self.rep };
                        printf::render(f, it, &mut l, &mut out);
                    }
                }
                if let Some(err) = file.write(&out) {
                    self.rep.report(format!(
                        "'{}': {}",
                        show(&file.name),
                        trawl_diag::io_message(&err)
                    ));
                    self.file_error_said = true;
                }
                true
            }
            Action::Ls(file) => {
                let mut out = Vec::new();
                let mut l = Lookups { names: &mut self.names, rep: &mut self.rep };
                let run = self.run;
                ls::line(it, &mut l, &run.ls_widths, run.cmd.now.0, &mut out);
                match file {
                    None => self.out.buf.extend_from_slice(&out),
                    Some(f) => {
                        let f = &self.run.outputs[*f];
                        if let Some(err) = f.write(&out) {
                            let name = show(&f.name);
                            self.rep.report(format!("'{name}': {}", trawl_diag::io_message(&err)));
                            self.file_error_said = true;
                        }
                    }
                }
                true
            }
            Action::Prune => {
                self.outcome.prune = true;
                true
            }
            Action::Quit => {
                self.outcome.quit = true;
                true
            }
            Action::Delete => {
                if e.is_root() && matches!(e.path(), b"." | b"./") {
                    // GNU find does not remove the starting point ".".
                    return true;
                }
                match e.remove() {
                    Ok(()) => true,
                    Err(err) => {
                        self.rep.report(format!(
                            "cannot delete '{}': {}",
                            show(e.path()),
                            trawl_diag::io_message(&err)
                        ));
                        false
                    }
                }
            }
            Action::Exec(i) => {
                let run = self.run;
                let mut cx = ExecContext { run, out: &mut self.out, rep: &mut self.rep };
                let ran = self.execs.exec(*i, e, &mut cx);
                // Its output written first found the pipe closed.
                self.outcome.quit |= self.out.take_closed_now();
                ran
            }
        }
    }
}

/// `judge` on the first [`SNIFF`] bytes of `f` (fewer if it is shorter or
/// a read fails).
fn judge_first_block(f: &mut std::fs::File, judge: impl FnOnce(&[u8]) -> bool) -> bool {
    let mut block = [0u8; SNIFF];
    let mut n = 0;
    while n < SNIFF {
        match f.read(&mut block[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    judge(&block[..n])
}
