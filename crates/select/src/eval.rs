//! Evaluating a find expression on walk entries, one evaluator per thread.

use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, Command};

use trawl_matcher::AnyMatcher;
use trawl_search::{LineInfo, Searcher, SearcherConfig, Sink};
use trawl_walk::{Entry, FileType};

use crate::expr::{Action, Cmp, Expr, FileFormat, PermMatch, Test, TimeField};
use crate::parse::{type_bit, FindCommand, Follow};
use crate::printf::{pad, Directive, Format, Piece};
use crate::turns::TurnWait;
use crate::users::Names;
use crate::{mode, timefmt};

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
    cmd: &'a FindCommand,
    output: &'a dyn Output,
    buf: Vec<u8>,
    names: Names,
    searcher: Option<Searcher>,
    execs: Vec<ExecState>,
    arg_budget: usize,
    /// Something failed: find exits 1.
    pub failed: bool,
    /// Writing to standard output failed (a closed pipe): stop quietly.
    pub output_closed: bool,
    outcome: Outcome,
    /// The entry's metadata could not be read: drop it (GNU find).
    abort: bool,
    /// The expression holds `-quit`: entries are evaluated one at a time.
    quits: bool,
}

#[derive(Default)]
struct ExecState {
    /// Paths collected for the next `-exec ... {} +` run, with their directory
    /// for `-execdir`.
    batch: Vec<Vec<u8>>,
    batch_dir: Option<Vec<u8>>,
    batch_bytes: usize,
    running: Option<(Child, Vec<u8>)>,
}

/// The entry under evaluation, with lazily read metadata.
struct Item<'e, 'a> {
    e: &'e Entry<'a>,
    stat: Option<Result<libc::stat, i32>>,
}

impl<'e, 'a> Item<'e, 'a> {
    fn new(e: &'e Entry<'a>) -> Self {
        Item { e, stat: None }
    }
}

impl<'a> Evaluator<'a> {
    /// An evaluator for `cmd`, writing to `output`.
    pub fn new(cmd: &'a FindCommand, output: &'a dyn Output) -> Self {
        let execs = cmd.execs.iter().map(|_| ExecState::default()).collect();
        Evaluator {
            cmd,
            output,
            buf: Vec::with_capacity(FLUSH_AT * 2),
            names: Names::default(),
            searcher: None,
            execs,
            arg_budget: arg_budget(),
            failed: false,
            output_closed: false,
            outcome: Outcome::default(),
            abort: false,
            quits: cmd.expr.any_action(&|a| matches!(a, Action::Quit)),
        }
    }

    fn report(&mut self, msg: String) {
        self.failed = true;
        let _ = io::stderr().lock().write_all(format!("trawl: {msg}\n").as_bytes());
    }

    /// Evaluates the expression for one entry.
    pub fn eval(&mut self, e: &Entry<'_>) -> Outcome {
        if !self.quits {
            return self.eval_entry(e);
        }
        // Once one thread has run `-quit`, no other entry may act: entries
        // are evaluated one at a time, and what the quitting one printed is
        // written before the lock is let go.
        let mut quitted = self.cmd.turns.quit();
        if *quitted {
            return Outcome { prune: false, quit: true };
        }
        let o = self.eval_entry(e);
        if o.quit {
            *quitted = true;
            self.flush();
        }
        o
    }

    fn eval_entry(&mut self, e: &Entry<'_>) -> Outcome {
        self.outcome = Outcome::default();
        self.abort = false;
        let start = self.buf.len();
        let mut item = Item::new(e);
        let cmd = self.cmd;
        self.expr(&cmd.expr, &mut item);
        if self.abort {
            self.buf.truncate(start);
        }
        if !cmd.execs.is_empty() && cmd.turns.held_by_me() {
            self.flush();
            cmd.turns.release();
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
        let interrupted = self.cmd.cancel.is_cancelled();
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
        let _turn = (!self.cmd.execs.is_empty()).then(|| self.cmd.turns.wait(TurnWait::ToWrite));
        if !self.output_closed && self.output.write(&self.buf).is_err() {
            self.output_closed = true;
            self.outcome.quit = true;
        }
        self.buf.clear();
    }

    fn expr(&mut self, x: &Expr, it: &mut Item<'_, '_>) -> bool {
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
    fn stat(&mut self, it: &mut Item<'_, '_>) -> Option<libc::stat> {
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
                let e = io::Error::from_raw_os_error(errno);
                self.report(format!("'{}': {}", show(it.e.path()), trawl_walk::io_message(&e)));
                self.abort = true;
            }
            it.stat = Some(r);
        }
        it.stat.as_ref().and_then(|r| r.as_ref().ok()).copied()
    }

    fn test(&mut self, t: &Test, it: &mut Item<'_, '_>) -> bool {
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
                    self.report(format!("'{}': {}", show(e.path()), trawl_walk::io_message(&err)));
                    false
                }),
                FileType::File => self.stat(it).is_some_and(|st| st.st_size == 0),
                _ => false,
            },
            Test::Newer { field, than: (rs, rn) } => {
                self.stat(it).is_some_and(|st| time_of(&st, *field) > (*rs, *rn))
            }
            Test::Age { field, cmp, n, unit } => self.stat(it).is_some_and(|st| {
                // As GNU find: ages count from the start time;
                // -mtime N is [N, N+1) days ago, -N less than N days and a
                // second, +N more than N+1 days; -mmin N is [N-1, N) minutes
                // ago, -N less than N minutes, +N more than N.
                let (s, ns) = time_of(&st, *field);
                let (now_s, now_ns) = self.cmd.now;
                let age = (now_s as i128 - s as i128) * 1_000_000_000 + (now_ns - ns) as i128;
                let unit = *unit as i128 * 1_000_000_000;
                let n = *n as i128;
                let second = 1_000_000_000;
                if unit == 60 * second {
                    match cmp {
                        Cmp::Less => age < n * unit,
                        Cmp::Greater => age > n * unit,
                        Cmp::Equal => age >= (n - 1) * unit && age < n * unit,
                    }
                } else {
                    match cmp {
                        Cmp::Less => age < n * unit + second,
                        Cmp::Greater => age > (n + 1) * unit,
                        Cmp::Equal => age >= n * unit && age < (n + 1) * unit,
                    }
                }
            }),
            Test::Perm { how, mode: m } => self.stat(it).is_some_and(|st| {
                let mode = st.st_mode & 0o7777;
                match how {
                    PermMatch::Exact => mode == *m,
                    PermMatch::All => mode & m == *m,
                    PermMatch::Any => *m == 0 || mode & m != 0,
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
            Test::Text => self.sniff(e) == Some(false),
            Test::Binary => self.sniff(e) == Some(true),
            Test::Contains(m) => self.contains(e, m),
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
                    self.report(format!("'{}': {}", show(e.path()), trawl_walk::io_message(&err)));
                    FileType::Unknown
                }
                Err(_) => FileType::Symlink,
            }
        } else {
            e.file_type()
        }
    }

    /// Whether a regular file's first block has a NUL byte (None: not a
    /// regular file, empty, or unreadable).
    fn sniff(&mut self, e: &Entry<'_>) -> Option<bool> {
        if e.file_type() != FileType::File {
            return None;
        }
        let mut f = match e.open() {
            Ok(f) => f,
            Err(err) => {
                self.report(format!("'{}': {}", show(e.path()), trawl_walk::io_message(&err)));
                return None;
            }
        };
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
        (n > 0).then(|| memchr::memchr(0, &block[..n]).is_some())
    }

    fn contains(&mut self, e: &Entry<'_>, m: &AnyMatcher) -> bool {
        if e.file_type() != FileType::File {
            return false;
        }
        let f = match e.open() {
            Ok(f) => f,
            Err(err) => {
                self.report(format!("'{}': {}", show(e.path()), trawl_walk::io_message(&err)));
                return false;
            }
        };
        struct First(bool);
        impl Sink for First {
            fn matched(&mut self, _: &[u8], _: LineInfo) -> io::Result<bool> {
                self.0 = true;
                Ok(false)
            }
            fn binary_matched(&mut self, _: LineInfo) -> io::Result<bool> {
                self.0 = true;
                Ok(false)
            }
        }
        let cancel = &self.cmd.cancel;
        let searcher = self.searcher.get_or_insert_with(|| {
            Searcher::new(SearcherConfig { cancel: cancel.clone(), ..SearcherConfig::default() })
        });
        let mut sink = First(false);
        if let Err(err) = searcher.search_reader(m, f, &mut sink) {
            self.report(format!("'{}': {err}", show(e.path())));
        }
        sink.0
    }

    fn action(&mut self, a: &Action, it: &mut Item<'_, '_>) -> bool {
        let e = it.e;
        match a {
            Action::Print(end) => {
                if *end == b'\n' && self.cmd.escape_names {
                    trawl_search::escape_controls(&mut self.buf, e.path());
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
                let mut out = Vec::new();
                match format {
                    FileFormat::Path(end) => {
                        out.extend_from_slice(e.path());
                        out.push(*end);
                    }
                    FileFormat::Printf(f) => self.render(f, it, &mut out),
                }
                let r = file.lock().unwrap_or_else(|p| p.into_inner()).write_all(&out);
                if let Err(err) = r {
                    self.report(format!("write error: {}", trawl_walk::io_message(&err)));
                }
                true
            }
            Action::Ls(file) => {
                let mut out = Vec::new();
                self.ls(it, &mut out);
                match file {
                    None => self.buf.extend_from_slice(&out),
                    Some(f) => {
                        let _ = f.lock().unwrap_or_else(|p| p.into_inner()).write_all(&out);
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
                            trawl_walk::io_message(&err)
                        ));
                        false
                    }
                }
            }
            Action::Exec(i) => self.exec(*i, e),
        }
    }

    fn exec(&mut self, i: usize, e: &Entry<'_>) -> bool {
        let spec = &self.cmd.execs[i];
        let (dir, arg) = if spec.in_dir { split_for_execdir(e) } else { (None, e.path().to_vec()) };
        let cost = arg.len() + 1 + std::mem::size_of::<usize>();
        if spec.batch && !spec.in_dir {
            // One batch for all threads: as few, as large commands as ARG_MAX allows.
            let full = {
                let mut sh = spec.shared.lock().unwrap_or_else(|p| p.into_inner());
                let full = if !sh.paths.is_empty() && sh.bytes + cost > self.arg_budget {
                    sh.bytes = 0;
                    Some(std::mem::take(&mut sh.paths))
                } else {
                    None
                };
                sh.bytes += cost;
                sh.paths.push(arg);
                full
            };
            if let Some(batch) = full {
                self.flush();
                self.failed |= !launch_shared(self.cmd, i, batch, self.max_children());
            }
            return true;
        }
        if spec.batch {
            // -execdir ... +: one batch per directory, per thread.
            let st = &self.execs[i];
            let dir_changed = st.batch_dir != dir && !st.batch.is_empty();
            if dir_changed || (!st.batch.is_empty() && st.batch_bytes + cost > self.arg_budget) {
                self.launch(i);
            }
            // A directory reached through a descriptor cannot wait: the
            // descriptor may be closed, or reused, by the time the batch runs.
            let through_fd = dir.as_ref().is_some_and(|d| d.starts_with(b"/proc/"));
            let st = &mut self.execs[i];
            st.batch_dir = dir;
            st.batch_bytes += cost;
            st.batch.push(arg);
            if through_fd {
                self.launch(i);
                if let Some((child, name)) = self.execs[i].running.take() {
                    self.wait(child, &name);
                }
            }
            return true;
        }
        let argv: Vec<Vec<u8>> = spec.argv.iter().map(|a| replace_braces(a, &arg)).collect();
        if !self.buf.is_empty() {
            // This entry's output so far goes before the command's, and its
            // rest after: no other thread writes until the entry is done.
            drop(self.cmd.turns.wait(TurnWait::AndTake));
        }
        self.flush();
        let mut c = Command::new(OsStr::from_bytes(&argv[0]));
        c.args(argv[1..].iter().map(|a| OsStr::from_bytes(a)));
        if let Some(d) = &dir {
            c.current_dir(OsStr::from_bytes(d));
        }
        match c.spawn() {
            Ok(mut child) => {
                crate::children::register(child.id());
                let status = crate::children::wait(&mut child);
                status.is_ok_and(|s| s.success())
            }
            Err(err) => {
                self.report(format!("'{}': {}", show(&argv[0]), trawl_walk::io_message(&err)));
                false
            }
        }
    }

    /// Children of one `-exec ... +` that may run at once.
    fn max_children(&self) -> usize {
        self.cmd.threads.max(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// Starts the command of `-execdir` number `i` on this thread's batch,
    /// after the previous run of it on this thread ends.
    fn launch(&mut self, i: usize) {
        if self.execs[i].batch.is_empty() {
            return;
        }
        if let Some((child, name)) = self.execs[i].running.take() {
            self.wait(child, &name);
        }
        self.flush();
        let spec = &self.cmd.execs[i];
        let st = &mut self.execs[i];
        let batch = std::mem::take(&mut st.batch);
        st.batch_bytes = 0;
        let mut c = Command::new(OsStr::from_bytes(&spec.argv[0]));
        c.args(spec.argv[1..].iter().map(|a| OsStr::from_bytes(a)));
        c.args(batch.iter().map(|a| OsStr::from_bytes(a)));
        if let Some(d) = &st.batch_dir {
            c.current_dir(OsStr::from_bytes(d));
        }
        match c.spawn() {
            Ok(child) => {
                crate::children::register(child.id());
                st.running = Some((child, spec.argv[0].clone()))
            }
            Err(err) => {
                let name = show(&spec.argv[0]);
                self.report(format!("'{name}': {}", trawl_walk::io_message(&err)));
            }
        }
    }

    fn wait(&mut self, mut child: Child, name: &[u8]) {
        let result = crate::children::wait(&mut child);
        match result {
            Ok(s) if s.success() => {}
            Ok(_) => self.failed = true,
            Err(err) => self.report(format!("'{}': {}", show(name), trawl_walk::io_message(&err))),
        }
    }

    fn render(&mut self, f: &Format, it: &mut Item<'_, '_>, out: &mut Vec<u8>) {
        for p in &f.pieces {
            match p {
                Piece::Lit(b) => out.extend_from_slice(b),
                Piece::Stop => return,
                Piece::Directive(d) => self.directive(d, it, out),
            }
        }
    }

    fn directive(&mut self, d: &Directive, it: &mut Item<'_, '_>, out: &mut Vec<u8>) {
        let e = it.e;
        let num = |out: &mut Vec<u8>, n: i128| pad(out, d, n.to_string().as_bytes(), true);
        let text = |out: &mut Vec<u8>, s: &[u8]| pad(out, d, s, false);
        match d.conv {
            b'p' => text(out, e.path()),
            b'f' => text(out, last_component(e)),
            b'h' => text(out, dir_name(e.path())),
            b'P' => text(out, relative_to_root(e)),
            b'H' => text(out, root_of(e)),
            b'd' => num(out, e.depth() as i128),
            b'y' => text(out, &[type_letter(e.file_type())]),
            b'Y' => {
                let t = if e.file_type().is_symlink() {
                    match e.fetch_stat(true) {
                        Ok(st) => type_letter(FileType::from_mode(st.st_mode)),
                        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => b'L',
                        Err(_) => b'N',
                    }
                } else {
                    type_letter(e.file_type())
                };
                text(out, &[t]);
            }
            b'l' => {
                // Links that were followed print nothing, as in GNU find.
                let target = if e.file_type().is_symlink() {
                    e.read_link().unwrap_or_default()
                } else {
                    Vec::new()
                };
                text(out, &target);
            }
            _ => {
                let Some(st) = self.stat(it) else { return };
                match d.conv {
                    b's' => num(out, st.st_size as i128),
                    b'm' => pad(out, d, format!("{:o}", st.st_mode & 0o7777).as_bytes(), true),
                    b'M' => text(out, &mode::symbolic(st.st_mode)),
                    b'i' => num(out, st.st_ino as i128),
                    b'n' => num(out, st.st_nlink as i128),
                    b'k' => num(out, (st.st_blocks as i128 + 1) / 2),
                    b'b' => num(out, st.st_blocks as i128),
                    b'D' => num(out, st.st_dev as i128),
                    b'U' => num(out, st.st_uid as i128),
                    b'G' => num(out, st.st_gid as i128),
                    b'u' => {
                        let name = self.names.user(st.st_uid).map(<[u8]>::to_vec);
                        text(out, &name.unwrap_or_else(|| st.st_uid.to_string().into_bytes()));
                    }
                    b'g' => {
                        let name = self.names.group(st.st_gid).map(<[u8]>::to_vec);
                        text(out, &name.unwrap_or_else(|| st.st_gid.to_string().into_bytes()));
                    }
                    b'S' => {
                        let sparse = if st.st_size > 0 {
                            (st.st_blocks as f64 * 512.0) / st.st_size as f64
                        } else {
                            1.0
                        };
                        text(out, format!("{sparse}").as_bytes());
                    }
                    b'F' => text(out, b"unknown"),
                    b'a' | b'c' | b't' => {
                        let field = match d.conv {
                            b'a' => TimeField::Access,
                            b'c' => TimeField::Change,
                            _ => TimeField::Modify,
                        };
                        let (s, ns) = time_of(&st, field);
                        text(out, &timefmt::ctime(s, ns));
                    }
                    b'A' | b'C' | b'T' | b'B' => {
                        let field = match d.conv {
                            b'A' => TimeField::Access,
                            b'C' => TimeField::Change,
                            _ => TimeField::Modify,
                        };
                        let (s, ns) = time_of(&st, field);
                        text(out, &timefmt::field(s, ns, d.time));
                    }
                    _ => {}
                }
            }
        }
    }

    fn ls(&mut self, it: &mut Item<'_, '_>, out: &mut Vec<u8>) {
        let Some(st) = self.stat(it) else { return };
        let e = it.e;
        let user = self
            .names
            .user(st.st_uid)
            .map(<[u8]>::to_vec)
            .unwrap_or_else(|| st.st_uid.to_string().into_bytes());
        let group = self
            .names
            .group(st.st_gid)
            .map(<[u8]>::to_vec)
            .unwrap_or_else(|| st.st_gid.to_string().into_bytes());
        let blocks = (st.st_blocks as u64 * 512).div_ceil(1024);
        out.extend_from_slice(format!("{:>9} {:>6} ", st.st_ino, blocks).as_bytes());
        out.extend_from_slice(&mode::symbolic(st.st_mode));
        out.extend_from_slice(format!(" {:>3} ", st.st_nlink).as_bytes());
        out.extend_from_slice(&user);
        out.extend(std::iter::repeat_n(b' ', 9usize.saturating_sub(user.len()).max(1)));
        out.extend_from_slice(&group);
        out.extend(std::iter::repeat_n(b' ', 9usize.saturating_sub(group.len()).max(1)));
        let kind = st.st_mode & libc::S_IFMT;
        if kind == libc::S_IFBLK || kind == libc::S_IFCHR {
            let (ma, mi) = (libc::major(st.st_rdev), libc::minor(st.st_rdev));
            out.extend_from_slice(format!("{ma:>3}, {mi:>3} ").as_bytes());
        } else {
            out.extend_from_slice(format!("{:>8} ", st.st_size).as_bytes());
        }
        out.extend_from_slice(&timefmt::ls_date(st.st_mtime, self.cmd.now.0));
        out.push(b' ');
        ls_quote(out, e.path());
        if kind == libc::S_IFLNK {
            if let Ok(t) = e.read_link() {
                out.extend_from_slice(b" -> ");
                ls_quote(out, &t);
            }
        }
        out.push(b'\n');
    }
}

/// Names in `-ls` output are escaped as GNU find does: C escapes for
/// whitespace and controls, a backslash before space, `"` and `\`, octal for
/// bytes that are not printable ASCII.
fn ls_quote(out: &mut Vec<u8>, name: &[u8]) {
    for &b in name {
        match b {
            b' ' | b'"' | b'\\' => out.extend_from_slice(&[b'\\', b]),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\r' => out.extend_from_slice(b"\\r"),
            7 => out.extend_from_slice(b"\\a"),
            8 => out.extend_from_slice(b"\\b"),
            11 => out.extend_from_slice(b"\\v"),
            12 => out.extend_from_slice(b"\\f"),
            0x21..=0x7e => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn time_of(st: &libc::stat, f: TimeField) -> (i64, i64) {
    match f {
        TimeField::Access => (st.st_atime, st.st_atime_nsec),
        TimeField::Change => (st.st_ctime, st.st_ctime_nsec),
        TimeField::Modify => (st.st_mtime, st.st_mtime_nsec),
    }
}

fn type_letter(t: FileType) -> u8 {
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

/// The last component of a path, trailing slashes ignored ("/" stays "/").
fn base_name<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if !e.is_root() {
        return e.file_name();
    }
    let p = e.path();
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return if p.is_empty() { p } else { &p[..1] },
    };
    let start = memchr::memrchr(b'/', &p[..end]).map_or(0, |i| i + 1);
    &p[start..end]
}

/// `%h`: the leading directories, or "." when there are none.
fn dir_name(p: &[u8]) -> &[u8] {
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return if p.is_empty() { b"." } else { &p[..1] },
    };
    match memchr::memrchr(b'/', &p[..end]) {
        Some(0) => b"/",
        Some(i) => &p[..i],
        None => b".",
    }
}

/// The starting point an entry was found under (`%H`).
fn root_of<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    let p = e.path();
    let mut cut = p.len();
    for _ in 0..e.depth() {
        cut = memchr::memrchr(b'/', &p[..cut]).unwrap_or(0);
    }
    &p[..cut]
}

/// `%P`: the path below its starting point.
fn relative_to_root<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if e.depth() == 0 {
        return b"";
    }
    let root = root_of(e);
    let rest = &e.path()[root.len()..];
    rest.strip_prefix(b"/").unwrap_or(rest)
}

/// `%f` and `-execdir`: a root's last component keeps its trailing slashes.
fn last_component<'e>(e: &'e Entry<'_>) -> &'e [u8] {
    if !e.is_root() {
        return e.file_name();
    }
    let p = e.path();
    let end = match p.iter().rposition(|&b| b != b'/') {
        Some(i) => i + 1,
        None => return p,
    };
    let start = memchr::memrchr(b'/', &p[..end]).map_or(0, |i| i + 1);
    &p[start..]
}

/// `-execdir`: the directory to run in and the `./NAME` argument. A
/// directory path too long for chdir(2) is reached through the open
/// directory's descriptor instead.
fn split_for_execdir(e: &Entry<'_>) -> (Option<Vec<u8>>, Vec<u8>) {
    let mut dir = dir_name(e.path()).to_vec();
    if dir.len() >= libc::PATH_MAX as usize {
        if let Some(fd) = e.parent_fd() {
            use std::os::fd::AsRawFd;
            dir = format!("/proc/{}/fd/{}", std::process::id(), fd.as_raw_fd()).into_bytes();
        }
    }
    let mut arg = b"./".to_vec();
    arg.extend_from_slice(last_component(e));
    (Some(dir), arg)
}

/// Replaces every `{}` in an argument by `path` (`-exec ... ;`).
fn replace_braces(arg: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len() + path.len());
    let mut rest = arg;
    while let Some(i) = memchr::memmem::find(rest, b"{}") {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(path);
        rest = &rest[i + 2..];
    }
    out.extend_from_slice(rest);
    out
}

/// Spawns `-exec` number `i` on `batch` without waiting, keeping at most
/// `max` children of it running; returns false if a command failed.
fn launch_shared(cmd: &FindCommand, i: usize, batch: Vec<Vec<u8>>, max: usize) -> bool {
    let spec = &cmd.execs[i];
    let mut ok = true;
    let mut c = Command::new(OsStr::from_bytes(&spec.argv[0]));
    c.args(spec.argv[1..].iter().map(|a| OsStr::from_bytes(a)));
    c.args(batch.iter().map(|a| OsStr::from_bytes(a)));
    match c.spawn() {
        Ok(child) => {
            crate::children::register(child.id());
            let oldest = {
                let mut sh = spec.shared.lock().unwrap_or_else(|p| p.into_inner());
                sh.running.push_back(child);
                if sh.running.len() > max {
                    sh.running.pop_front()
                } else {
                    None
                }
            };
            if let Some(mut old) = oldest {
                ok &= crate::children::wait(&mut old).is_ok_and(|s| s.success());
            }
        }
        Err(err) => {
            let _ = io::stderr().lock().write_all(
                format!("trawl: '{}': {}\n", show(&spec.argv[0]), trawl_walk::io_message(&err))
                    .as_bytes(),
            );
            ok = false;
        }
    }
    ok
}

/// After the walk: runs what every `-exec ... +` still holds and waits for
/// all their children; returns false if a command failed.
pub fn finish_execs(cmd: &FindCommand) -> bool {
    let mut ok = true;
    for (i, spec) in cmd.execs.iter().enumerate() {
        if !spec.batch || spec.in_dir {
            continue;
        }
        let interrupted = cmd.cancel.is_cancelled();
        let rest = std::mem::take(&mut spec.shared.lock().unwrap_or_else(|p| p.into_inner()).paths);
        if !rest.is_empty() && !interrupted {
            ok &= launch_shared(cmd, i, rest, usize::MAX);
        }
        let running =
            std::mem::take(&mut spec.shared.lock().unwrap_or_else(|p| p.into_inner()).running);
        for mut child in running {
            ok &= crate::children::wait(&mut child).is_ok_and(|s| s.success());
        }
    }
    ok
}

/// Bytes of arguments one `-exec ... +` command may take: the system's limit
/// less the environment and some headroom.
fn arg_budget() -> usize {
    // SAFETY: sysconf has no preconditions.
    let max = unsafe { libc::sysconf(libc::_SC_ARG_MAX) };
    let max = if max <= 0 { 128 * 1024 } else { max as usize };
    let env: usize = std::env::vars_os()
        .map(|(k, v)| k.len() + v.len() + 2 + std::mem::size_of::<usize>())
        .sum();
    max.saturating_sub(env).saturating_sub(4096).max(4096)
}
