//! Evaluating a find expression on walk entries, one evaluator per thread:
//! the operators, the tests, and the dispatch of actions (running commands
//! is in `exec`, `-printf` in `printf`, `-ls` in `ls`, path pieces in
//! `paths`).

use std::io::{self, Read, Write};

use trawl_matcher::AnyMatcher;
use trawl_search::{Searcher, SearcherConfig};
use trawl_walk::{Entry, FileType};

use crate::command::{FindCommand, Follow};
use crate::exec::ExecState;
use crate::expr::{Action, Expr, FileFormat, PermMatch, Test, TimeField};
use crate::parse::type_bit;
use crate::paths::base_name;
use crate::run::Run;
use crate::turns::TurnWait;
use crate::users::Names;

/// Where evaluators send their output (standard output, under a lock).
pub trait Output: Sync {
    /// Writes bytes in one piece.
    fn write(&self, bytes: &[u8]) -> io::Result<()>;
}

/// What the walk should do after an entry.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outcome {
    /// `-prune` was evaluated: do not descend.
    pub prune: bool,
    /// `-quit` was evaluated: stop.
    pub quit: bool,
}

/// Output is handed on when this much is held.
const FLUSH_AT: usize = 64 * 1024;
/// Writes up to this size are atomic on a pipe: children that share our
/// standard output cannot split one of our lines.
const PIPE_BUF: usize = 4096;
/// How much of a file `-text`/`-binary` look at.
const SNIFF: usize = 8192;

/// One thread's evaluator.
pub struct Evaluator<'a> {
    pub(crate) cmd: &'a FindCommand,
    pub(crate) run: &'a Run<'a>,
    pub(crate) output: &'a dyn Output,
    pub(crate) buf: Vec<u8>,
    pub(crate) names: Names,
    pub(crate) searcher: Option<Searcher>,
    pub(crate) execs: Vec<ExecState>,
    /// Something failed: find exits 1.
    pub failed: bool,
    /// Writing to standard output failed (a closed pipe): stop quietly.
    pub output_closed: bool,
    /// Writing to standard output failed otherwise (a full disk): said at
    /// the end, unless said already (before a command ran), as GNU find.
    pub write_error: Option<(std::io::Error, bool)>,
    /// A `-fprint` (or `-fls`) file's write error was said (GNU find then
    /// says only "write error" of standard output).
    pub file_error_said: bool,
    pub(crate) outcome: Outcome,
    /// The entry's metadata could not be read: drop it (GNU find).
    pub(crate) abort: bool,
    /// The expression holds `-quit`: entries are evaluated one at a time.
    pub(crate) quits: bool,
}

/// The entry under evaluation, with lazily read metadata.
pub(crate) struct LazyEntry<'e, 'a> {
    pub(crate) e: &'e Entry<'a>,
    pub(crate) stat: Option<Result<libc::stat, i32>>,
}

impl<'e, 'a> LazyEntry<'e, 'a> {
    fn new(e: &'e Entry<'a>) -> Self {
        LazyEntry { e, stat: None }
    }
}

impl<'a> Evaluator<'a> {
    /// An evaluator for one thread of `run`, writing to `output`.
    pub fn new(run: &'a Run<'a>, output: &'a dyn Output) -> Self {
        let cmd = run.cmd;
        let execs = cmd.execs.iter().map(|_| ExecState::default()).collect();
        Evaluator {
            cmd,
            run,
            output,
            buf: Vec::with_capacity(FLUSH_AT * 2),
            names: Names::default(),
            searcher: None,
            execs,
            failed: false,
            output_closed: false,
            write_error: None,
            file_error_said: false,
            outcome: Outcome::default(),
            abort: false,
            quits: cmd.expr.any_action(&|a| matches!(a, Action::Quit)),
        }
    }

    pub(crate) fn report(&mut self, msg: String) {
        self.failed = true;
        self.warn(msg);
    }

    /// Says something on standard error without failing the run.
    pub(crate) fn warn(&self, msg: String) {
        let _ = io::stderr().lock().write_all(format!("trawl: {msg}\n").as_bytes());
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
        self.abort = false;
        let start = self.buf.len();
        let mut item = LazyEntry::new(e);
        let (cmd, run) = (self.cmd, self.run);
        self.expr(&cmd.expr, &mut item);
        if self.abort {
            self.buf.truncate(start);
        }
        if !cmd.execs.is_empty() && run.turns.held_by_me() {
            self.flush();
            run.turns.release();
        }
        if !cmd.execs.is_empty() && self.buf.len() > PIPE_BUF {
            // Keep each write atomic and whole-record.
            let tail = self.buf.split_off(start);
            self.flush();
            self.buf = tail;
            if self.buf.len() > PIPE_BUF {
                self.flush();
            }
        } else if self.buf.len() >= FLUSH_AT {
            self.flush();
        }
        self.outcome
    }

    /// Runs what `-exec ... +` still holds, waits for every child and writes
    /// the remaining output.
    pub fn finish(&mut self) {
        let interrupted = self.run.cancel.is_cancelled();
        for i in 0..self.execs.len() {
            if !interrupted {
                self.launch(i);
            }
            if let Some((child, name)) = self.execs[i].running.take() {
                self.wait(child, &name);
            }
        }
        self.flush();
    }

    /// Writes the held output.
    pub fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        // Not while another thread's record is split around a command.
        let _turn = (!self.cmd.execs.is_empty()).then(|| self.run.turns.wait(TurnWait::ToWrite));
        match self.output_closed || self.write_error.is_some() {
            true => {}
            false => match self.output.write(&self.buf) {
                Ok(()) => {}
                // A reader closed the pipe: the run ends quietly.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    self.output_closed = true;
                    self.outcome.quit = true;
                }
                // Anything else fails the run, which goes on (its commands
                // and deletions still act).
                Err(e) => {
                    self.failed = true;
                    self.write_error = Some((e, false));
                }
            },
        }
        self.buf.clear();
    }

    /// Writes the held output before a command runs: a failure is said
    /// now (GNU find: "write error").
    pub(crate) fn flush_before_command(&mut self) {
        let unsaid = self.write_error.is_none();
        self.flush();
        if let (Some((_, said)), true) = (&mut self.write_error, unsaid) {
            *said = true;
            self.warn("write error".into());
        }
    }

    fn expr(&mut self, x: &Expr, it: &mut LazyEntry<'_, '_>) -> bool {
        if self.outcome.quit || self.abort {
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

    /// The entry's metadata as the follow mode sees it.
    pub(crate) fn stat(&mut self, it: &mut LazyEntry<'_, '_>) -> Option<libc::stat> {
        if it.stat.is_none() {
            let follow = match self.cmd.follow {
                Follow::Always => true,
                Follow::Roots => it.e.is_root(),
                Follow::Never => false,
            };
            let r = match it.e.metadata() {
                Some(st) => Ok(*st),
                None => it.e.fetch_stat(follow).map_err(|e| e.raw_os_error().unwrap_or(0)),
            };
            if let Err(errno) = r {
                // Gone since its directory was read: passed over in
                // silence with -ignore_readdir_race.
                let vanished = errno == libc::ENOENT && !it.e.is_root();
                if !(vanished && self.cmd.ignore_readdir_race) {
                    let e = io::Error::from_raw_os_error(errno);
                    self.report(format!("'{}': {}", show(it.e.path()), trawl_diag::io_message(&e)));
                }
                self.abort = true;
            }
            it.stat = Some(r);
        }
        it.stat.as_ref().and_then(|r| r.as_ref().ok()).copied()
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
            Test::Size { cmp, n, unit } => self.stat(it).is_some_and(|st| {
                let size = st.st_size.max(0) as u64;
                cmp.holds(size.div_ceil(*unit) as i128, *n as i128)
            }),
            Test::Empty => match e.file_type() {
                FileType::Dir => e.is_empty_dir().unwrap_or_else(|err| {
                    self.report(format!("'{}': {}", show(e.path()), trawl_diag::io_message(&err)));
                    false
                }),
                FileType::File => self.stat(it).is_some_and(|st| st.st_size == 0),
                _ => false,
            },
            Test::Time { field: TimeField::Birth, window } => match self.birth_time(it) {
                Some(t) => window.holds(t),
                None => false,
            },
            Test::Time { field, window } => {
                self.stat(it).is_some_and(|st| window.holds(time_of(&st, *field)))
            }
            Test::Used(window) => self.stat(it).is_some_and(|st| {
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
            Test::FsType(t) => {
                self.stat(it).is_some_and(|st| crate::mounts::fstype_of(st.st_dev) == t.as_slice())
            }
            Test::Perm { how, mode: (file_mode, dir_mode) } => self.stat(it).is_some_and(|st| {
                let mode = st.st_mode & 0o7777;
                let m =
                    if st.st_mode & libc::S_IFMT == libc::S_IFDIR { *dir_mode } else { *file_mode };
                match how {
                    PermMatch::Exact => mode == m,
                    PermMatch::All => mode & m == m,
                    PermMatch::Any => m == 0 || mode & m != 0,
                }
            }),
            Test::Uid(cmp, n) => {
                self.stat(it).is_some_and(|st| cmp.holds(st.st_uid as i128, *n as i128))
            }
            Test::Gid(cmp, n) => {
                self.stat(it).is_some_and(|st| cmp.holds(st.st_gid as i128, *n as i128))
            }
            Test::NoUser => self.stat(it).is_some_and(|st| self.names.user(st.st_uid).is_none()),
            Test::NoGroup => self.stat(it).is_some_and(|st| self.names.group(st.st_gid).is_none()),
            Test::Links(cmp, n) => {
                self.stat(it).is_some_and(|st| cmp.holds(st.st_nlink as i128, *n as i128))
            }
            Test::Inum(cmp, n) => {
                self.stat(it).is_some_and(|st| cmp.holds(st.st_ino as i128, *n as i128))
            }
            Test::SameFile { dev, ino } => {
                self.stat(it).is_some_and(|st| st.st_dev == *dev && st.st_ino == *ino)
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

    /// The entry's birth time (None when its file system keeps none: GNU
    /// find warns and the test is false).
    pub(crate) fn birth_time(&mut self, it: &mut LazyEntry<'_, '_>) -> Option<(i64, i64)> {
        let follow = match self.cmd.follow {
            Follow::Always => true,
            Follow::Roots => it.e.is_root(),
            Follow::Never => false,
        };
        match it.e.birth_time(follow) {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                self.warn(format!(
                    "WARNING: cannot determine birth time of file '{}'",
                    show(it.e.path())
                ));
                None
            }
            Err(err) => {
                self.report(format!("'{}': {}", show(it.e.path()), trawl_diag::io_message(&err)));
                self.abort = true;
                None
            }
        }
    }

    /// The type seen from the other side of a symlink (`-xtype`).
    fn other_side_type(&mut self, e: &Entry<'_>) -> FileType {
        let follow_now =
            self.cmd.follow == Follow::Always || (self.cmd.follow == Follow::Roots && e.is_root());
        if follow_now {
            // The entry's type is the target's: look at the link itself.
            e.fetch_stat(false).map(|st| FileType::from_mode(st.st_mode)).unwrap_or(e.file_type())
        } else if e.file_type().is_symlink() {
            match e.fetch_stat(true) {
                Ok(st) => FileType::from_mode(st.st_mode),
                Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
                    self.report(format!("'{}': {}", show(e.path()), trawl_diag::io_message(&err)));
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
                    self.report(err);
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
                self.report(format!("'{}': {}", show(e.path()), trawl_diag::io_message(&err)));
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
                        self.report(err);
                    }
                    return found;
                }
            }
        }
        let mut sink = crate::extracted::First(false);
        if let Err(err) = searcher.search_reader(m, f, &mut sink) {
            self.report(format!("'{}': {err}", show(e.path())));
        }
        sink.0
    }

    fn action(&mut self, a: &Action, it: &mut LazyEntry<'_, '_>) -> bool {
        let e = it.e;
        match a {
            Action::Print(end) => {
                if *end == b'\n' && self.run.escape_names {
                    trawl_diag::escape_controls(&mut self.buf, e.path());
                } else {
                    self.buf.extend_from_slice(e.path());
                }
                self.buf.push(*end);
                true
            }
            Action::Printf(f) => {
                let mut out = std::mem::take(&mut self.buf);
                self.render(f, it, &mut out);
                self.buf = out;
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
                    FileFormat::Printf(f) => self.render(f, it, &mut out),
                }
                if let Some(err) = file.write(&out) {
                    self.report(format!(
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
                self.ls(it, &mut out);
                match file {
                    None => self.buf.extend_from_slice(&out),
                    Some(f) => {
                        let f = &self.run.outputs[*f];
                        if let Some(err) = f.write(&out) {
                            let name = show(&f.name);
                            self.report(format!("'{name}': {}", trawl_diag::io_message(&err)));
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
                        self.report(format!(
                            "cannot delete '{}': {}",
                            show(e.path()),
                            trawl_diag::io_message(&err)
                        ));
                        false
                    }
                }
            }
            Action::Exec(i) => self.exec(*i, e),
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

pub(crate) fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A time of `st` (birth time is not in a stat: its mtime stands for it,
/// where a caller has no statx).
pub(crate) fn time_of(st: &libc::stat, f: TimeField) -> (i64, i64) {
    match f {
        TimeField::Access => (st.st_atime, st.st_atime_nsec),
        TimeField::Change => (st.st_ctime, st.st_ctime_nsec),
        TimeField::Modify | TimeField::Birth => (st.st_mtime, st.st_mtime_nsec),
    }
}

pub(crate) fn type_letter(t: FileType) -> u8 {
    match t {
        FileType::File => b'f',
        FileType::Dir => b'd',
        FileType::Symlink => b'l',
        FileType::Fifo => b'p',
        FileType::Socket => b's',
        FileType::BlockDevice => b'b',
        FileType::CharDevice => b'c',
        FileType::Unknown => b'U',
    }
}
