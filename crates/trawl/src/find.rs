//! `trawl find`: GNU find's expressions on the parallel walker.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::ExitCode;
use std::sync::Mutex;

use trawl_select::{Evaluator, FindCommand, Follow};
use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkErrorKind, WalkState};

const USAGE: &str = "\
Usage: trawl find [-H|-L|-P] [-j N] [--sort] [PATH...] [EXPRESSION]

GNU find's expressions, walked in parallel. Output order is free unless --sort
(depth-first, names in byte order) is given.

Operators: ( EXPR )  ! EXPR  -not EXPR  EXPR -a EXPR  EXPR -o EXPR  EXPR , EXPR
Options:   -maxdepth N -mindepth N -depth -xdev -mount -ignore_readdir_race
           -regextype TYPE
Tests:     -name -iname -path -ipath -wholename -regex -iregex -type -xtype
           -size -empty -newer -anewer -cnewer -mtime -mmin -atime -amin -ctime
           -cmin -perm -user -group -uid -gid -nouser -nogroup -links -inum
           -samefile -readable -writable -executable -true -false
           -text -binary (a NUL byte in the first 8 KiB)  -contains PATTERN
Actions:   -print -print0 -printf FMT -fprint FILE -fprint0 FILE -fprintf FILE FMT
           -ls -fls FILE -prune -quit -delete
           -exec CMD ; -exec CMD {} + -execdir CMD ; -execdir CMD {} +
";

/// Standard output for find: whole chunks under a lock.
struct Stdout {
    file: Mutex<ManuallyDrop<File>>,
}

impl trawl_select::Output for Stdout {
    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        self.file.lock().unwrap_or_else(|p| p.into_inner()).write_all(bytes)
    }
}

struct FindVisitor<'a> {
    cmd: &'a FindCommand,
    eval: Evaluator<'a>,
}

impl FindVisitor<'_> {
    fn evaluate(&mut self, e: &Entry<'_>, may_prune: bool) -> WalkState {
        if crate::interrupted() {
            return WalkState::Quit;
        }
        if e.depth() < self.cmd.min_depth {
            return WalkState::Continue;
        }
        let o = self.eval.eval(e);
        if o.quit || self.eval.output_closed {
            WalkState::Quit
        } else if o.prune && may_prune {
            WalkState::Skip
        } else {
            WalkState::Continue
        }
    }
}

impl Visitor for FindVisitor<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        if self.cmd.depth_first && e.file_type().is_dir() {
            // Evaluated after its contents.
            return WalkState::Continue;
        }
        self.evaluate(e, true)
    }

    fn visit_dir_end(&mut self, e: &Entry<'_>) -> WalkState {
        self.evaluate(e, false)
    }

    fn error(&mut self, err: WalkError) -> WalkState {
        if let WalkErrorKind::Io(e) = err.kind() {
            if self.cmd.ignore_readdir_race && e.raw_os_error() == Some(libc::ENOENT) {
                return WalkState::Continue;
            }
        }
        self.eval.failed = true;
        let path = String::from_utf8_lossy(err.path());
        let msg = match err.kind() {
            WalkErrorKind::Io(e) => trawl_walk::io_message(e),
            _ => "File system loop detected".to_string(),
        };
        let _ = io::stderr().lock().write_all(format!("trawl: '{path}': {msg}\n").as_bytes());
        WalkState::Continue
    }
}

/// Runs `trawl find ARGS`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    if args.first().is_some_and(|a| a == "--help") {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let args: Vec<Vec<u8>> = args.into_iter().map(OsStringExt::into_vec).collect();
    let mut cmd = match trawl_select::parse(&args) {
        Ok(c) => c,
        Err(msg) => {
            eprintln!("trawl: {msg}");
            return ExitCode::from(1);
        }
    };
    // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop keeps
    // this File from closing it.
    let out = Stdout { file: Mutex::new(ManuallyDrop::new(unsafe { File::from_raw_fd(1) })) };
    // Reading directories blocks on the disk when the cache is cold: more
    // threads than CPUs keep it busy (cold Linux tree: 0.34 s on 2 threads,
    // 0.12 s on 24), and cost little when warm (27 ms vs 34 ms).
    let threads = match cmd.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).max(24),
        n => n,
    };
    cmd.escape_names = std::io::stdout().is_terminal();
    let mut walk = WalkBuilder::new();
    walk.threads(if cmd.sorted { 1 } else { threads })
        .follow_links(cmd.follow == Follow::Always)
        .follow_roots(cmd.follow != Follow::Never)
        .max_depth(cmd.max_depth)
        .same_file_system(cmd.same_file_system)
        .sorted(cmd.sorted)
        .post_order(cmd.depth_first);
    for p in &cmd.paths {
        walk.add_root(OsStr::from_bytes(p));
    }
    let mut failed = false;
    for mut v in walk.run(|_| FindVisitor { cmd: &cmd, eval: Evaluator::new(&cmd, &out) }) {
        v.eval.finish();
        failed |= v.eval.failed;
    }
    failed |= !trawl_select::finish_execs(&cmd);
    if crate::interrupted() {
        crate::die_of_interrupt();
    }
    ExitCode::from(failed as u8)
}
