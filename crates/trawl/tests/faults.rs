//! The fault matrix: inputs and events that break naive tools.
//!
//! Special files (FIFOs, sockets, devices) inside trees, symlink loops,
//! unreadable files as an unprivileged user, files that vanish or shrink
//! while they are searched, paths longer than `PATH_MAX`, odd names, a
//! 1 GB line (peak RSS measured with wait4), offsets past 4 GiB, a million
//! entries in one directory, empty files, broken pipes, SIGINT (color reset,
//! `-exec` children reaped), invalid patterns, `-exec` argument safety and
//! control characters in names on a terminal.
//!
//! The big tests take the [`heavy`] lock so that they do not run at the same
//! time as each other (nor as the timing-sensitive signal and pipe tests).
//! Several tests need root (mknod, setpriv): CI runs as root, so they fail
//! rather than skip without it.

use std::ffi::{CString, OsStr};
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::fixtures::deep;
use crate::util::{clip, poll_until, sorted_records, trawl_bin, Cmd, Engine, Run, Tree, HANG};

/// The limit for runs that could block forever on a special file.
const SPECIAL_TIMEOUT: Duration = Duration::from_secs(10);

/// The limit for one run over gigabytes (release builds take a few
/// seconds; unoptimized ones ten times longer).
const BIG_TIMEOUT: Duration = Duration::from_secs(if cfg!(debug_assertions) { 600 } else { 60 });

/// Peak RSS allowed for a streamed 1 GB line (KiB).
const RSS_LIMIT_KIB: i64 = 256 * 1024;

/// `setpriv` options that make the command run as nobody/nogroup.
const AS_NOBODY: [&str; 4] = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"];

static HEAVY: Mutex<()> = Mutex::new(());

/// Serializes the big and the timing-sensitive tests of this module.
fn heavy() -> MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

fn cpath(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap()
}

/// trawl with the harness environment (C locale, no color variables).
fn trawl_cmd<S: AsRef<OsStr>>(cwd: &Path, args: impl IntoIterator<Item = S>) -> Command {
    Cmd::trawl(cwd).args(args).command()
}

/// The lines of `b`, sorted, as strings (for readable assertions).
fn sorted_text(b: &[u8]) -> Vec<String> {
    sorted_records(b, b'\n').iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect()
}

fn collect(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = r.read_to_end(&mut b);
        b
    })
}

/// A running child reaped with wait4(2), which also gives its own rusage.
struct Proc {
    child: Child,
    what: String,
    start: Instant,
    out: Option<JoinHandle<Vec<u8>>>,
    err: Option<JoinHandle<Vec<u8>>>,
}

/// A finished child.
struct Done {
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Peak resident set size in KiB.
    maxrss_kib: i64,
    elapsed: Duration,
    what: String,
}

impl Proc {
    /// Spawns `cmd` (stdin null unless set; stdout and stderr piped unless
    /// set); collects stderr, and stdout unless `keep_stdout`.
    fn spawn(mut cmd: Command, keep_stdout: bool) -> Proc {
        let what = format!("{cmd:?}");
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
        drop(cmd);
        let out = if keep_stdout { None } else { child.stdout.take().map(collect) };
        let err = child.stderr.take().map(collect);
        Proc { child, what, start: Instant::now(), out, err }
    }

    /// Spawns with stdin null and stdout/stderr piped and collected.
    fn run(mut cmd: Command) -> Proc {
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        Proc::spawn(cmd, false)
    }

    fn pid(&self) -> libc::pid_t {
        self.child.id() as libc::pid_t
    }

    /// Still running (not reaped, not a zombie).
    fn running(&self) -> bool {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid with WNOWAIT only peeks at the state.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                self.pid() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        // SAFETY: si_pid is valid for a WEXITED report; 0 means no change.
        r == 0 && unsafe { info.si_pid() } == 0
    }

    /// Reaps the child if it ends before `deadline`.
    fn reap(&mut self, deadline: Instant) -> Option<(ExitStatus, libc::rusage)> {
        let pid = self.pid();
        loop {
            let mut status = 0;
            // SAFETY: zeroed rusage is a valid out-parameter.
            let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
            // SAFETY: valid pointers; pid is our unreaped child.
            let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
            if r == pid {
                return Some((ExitStatus::from_raw(status), ru));
            }
            if r < 0 {
                let e = io::Error::last_os_error();
                assert_eq!(e.kind(), io::ErrorKind::Interrupted, "wait4: {e}");
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Kills and reaps the child.
    fn kill(&mut self) {
        // SAFETY: pid is our unreaped child.
        unsafe {
            libc::kill(self.pid(), libc::SIGKILL);
            let mut status = 0;
            libc::waitpid(self.pid(), &mut status, 0);
        }
    }

    fn outputs(&mut self) -> (Vec<u8>, Vec<u8>) {
        let o = self.out.take().map(|h| h.join().unwrap()).unwrap_or_default();
        let e = self.err.take().map(|h| h.join().unwrap()).unwrap_or_default();
        (o, e)
    }

    /// Waits for the end (killing it and failing past `timeout`).
    fn wait(mut self, timeout: Duration) -> Done {
        let Some((status, ru)) = self.reap(self.start + timeout) else {
            self.kill();
            let (o, e) = self.outputs();
            panic!(
                "{} did not finish within {timeout:?}: killed\nstdout:\n{}\nstderr:\n{}",
                self.what,
                clip(&o),
                clip(&e)
            );
        };
        let elapsed = self.start.elapsed();
        let (stdout, stderr) = self.outputs();
        Done { status, stdout, stderr, maxrss_kib: ru.ru_maxrss, elapsed, what: self.what }
    }
}

impl Done {
    fn ctx(&self) -> String {
        format!(
            "{}\nstatus: {:?}\nstdout:\n{}\nstderr:\n{}",
            self.what,
            self.status,
            clip(&self.stdout),
            clip(&self.stderr)
        )
    }

    /// Asserts a normal exit (no signal) and returns the code.
    fn code(&self) -> i32 {
        assert_eq!(self.status.signal(), None, "killed by a signal\n{}", self.ctx());
        self.status.code().unwrap()
    }

    fn assert(&self, code: i32, stdout: &[u8]) -> &Self {
        assert_eq!(self.code(), code, "exit code\n{}", self.ctx());
        assert!(self.stdout == stdout, "stdout, want:\n{}\n{}", clip(stdout), self.ctx());
        self
    }

    fn assert_lines(&self, code: i32, want: &[&str]) -> &Self {
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(sorted_text(&self.stdout), want, "stdout lines (sorted)\n{}", self.ctx());
        assert_eq!(self.code(), code, "exit code\n{}", self.ctx());
        self
    }

    fn assert_no_stderr(&self) -> &Self {
        assert!(self.stderr.is_empty(), "stderr\n{}", self.ctx());
        self
    }
}

/// Runs trawl in `cwd` and waits for it.
fn trawl_done<S: AsRef<OsStr>>(
    cwd: &Path,
    args: impl IntoIterator<Item = S>,
    timeout: Duration,
) -> Done {
    Proc::run(trawl_cmd(cwd, args)).wait(timeout)
}

// ---------------------------------------------------------------------
// 1. Special files inside a tree are never opened.

fn mknod(p: &Path, kind: libc::mode_t, dev: libc::dev_t) {
    let c = cpath(p);
    // SAFETY: a valid C string.
    let r = unsafe { libc::mknod(c.as_ptr(), kind | 0o644, dev) };
    assert!(
        r == 0,
        "mknod {} failed: {} — this test needs root (CAP_MKNOD), as in CI",
        p.display(),
        io::Error::last_os_error()
    );
}

/// A real block device (the first one in /sys/dev/block), so that reading
/// it would take long; (7, 200) when there is none.
fn some_block_device() -> libc::dev_t {
    let first = fs::read_dir("/sys/dev/block").ok().and_then(|d| {
        d.filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let (ma, mi) = name.split_once(':')?;
                Some((ma.parse::<u32>().ok()?, mi.parse::<u32>().ok()?))
            })
            .min()
    });
    let (ma, mi) = first.unwrap_or((7, 200));
    libc::makedev(ma, mi)
}

fn special_tree() -> (Tree, std::os::unix::net::UnixListener) {
    let t = Tree::new();
    t.file("a.txt", "x\n").file("no.txt", "y\n").file("sub/b.txt", "x\n");
    t.fifo("sub/fifo");
    let sock = std::os::unix::net::UnixListener::bind(t.path().join("sock")).unwrap();
    mknod(&t.path().join("zero"), libc::S_IFCHR, libc::makedev(1, 5));
    mknod(&t.path().join("sub/blk"), libc::S_IFBLK, some_block_device());
    t.symlink("a.txt", "link_a")
        .symlink("zero", "link_zero")
        .symlink("sub/fifo", "link_fifo")
        .symlink("sub/blk", "link_blk")
        .symlink("sock", "link_sock");
    (t, sock)
}

#[test]
fn special_files_in_tree_are_not_opened() {
    let (t, _sock) = special_tree();
    let run = |args: &[&str]| trawl_done(t.path(), args, SPECIAL_TIMEOUT);
    run(&["-r", "x", "."]).assert_no_stderr().assert_lines(0, &["./a.txt:x", "./sub/b.txt:x"]);
    run(&["-c", "", "."])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt:1", "./no.txt:1", "./sub/b.txt:1"]);
    run(&["-R", "x", "."])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt:x", "./link_a:x", "./sub/b.txt:x"]);
    run(&["-R", "-c", "", "."])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt:1", "./link_a:1", "./no.txt:1", "./sub/b.txt:1"]);
    run(&["-r", "-L", "x", "."]).assert_no_stderr().assert_lines(0, &["./no.txt"]);
    run(&["find", ".", "-type", "f", "-contains", "x"])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt", "./sub/b.txt"]);
    run(&["find", ".", "-text"])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt", "./no.txt", "./sub/b.txt"]);
    run(&["find", ".", "-binary"]).assert_no_stderr().assert_lines(0, &[]);
    run(&["find", "-L", ".", "-contains", "x"])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt", "./link_a", "./sub/b.txt"]);
    run(&["find", "-L", ".", "-text"])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt", "./link_a", "./no.txt", "./sub/b.txt"]);
}

// ---------------------------------------------------------------------
// 2. Symbolic link loops with -R and find -L.

fn loop_tree() -> Tree {
    let t = Tree::new();
    t.file("real/file.txt", "x real\n")
        .file("real/sub/inner.txt", "x inner\n")
        .file("plain.txt", "x plain\nno\n")
        .file("loop2/a/deep.txt", "x deep\n")
        .symlink("..", "real/sub/cycle")
        .symlink("../..", "loop2/a/back")
        .symlink("real/sub", "linkdir");
    t
}

/// The paths of `PREFIX: PATH: warning: recursive directory loop` lines, sorted.
fn loop_warnings(stderr: &[u8], prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| {
            l.strip_prefix(prefix)
                .and_then(|r| r.strip_suffix(": warning: recursive directory loop"))
                .unwrap_or_else(|| panic!("not a loop warning: {l:?}"))
                .to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn symlink_loops_with_dereference_recursive() {
    let t = loop_tree();
    let grep = t.grep().args(["-R", "x", "."]).run();
    assert_eq!(grep.code, 0, "grep itself: {}", grep.stderr_str());
    for args in [&["-R", "x", "."][..], &["-R", "-n", "x", "."], &["-R", "-c", "x", "."]] {
        let r = trawl_done(t.path(), args, SPECIAL_TIMEOUT);
        let g = t.grep().args(args).run();
        assert_eq!(sorted_text(&r.stdout), sorted_text(&g.stdout), "stdout\n{}", r.ctx());
        assert_eq!(r.code(), g.code, "exit code as GNU grep\n{}", r.ctx());
        let want = loop_warnings(&g.stderr, "grep: ");
        assert_eq!(want.len(), 3, "grep warns about three loops: {}", g.stderr_str());
        assert_eq!(loop_warnings(&r.stderr, "trawl: "), want, "loop warnings\n{}", r.ctx());
    }
}

/// find's loop messages, whole but for the program's name (`File system
/// loop detected; 'P' is part of the same file system loop as 'A'.`),
/// sorted.
fn find_loops(stderr: &[u8], prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| {
            let r = l.strip_prefix(prefix).unwrap_or_else(|| panic!("no prefix: {l:?}"));
            assert!(r.starts_with("File system loop detected; '"), "not a loop message: {l:?}");
            r.to_string()
        })
        .collect();
    v.sort();
    v
}

#[test]
fn symlink_loops_with_find_follow() {
    let t = loop_tree();
    for args in [&["-L", "."][..], &["-L", ".", "-type", "f"], &["-L", ".", "-name", "*.txt"]] {
        let gnu = Cmd::new("find", t.path()).args(args).run();
        assert_eq!(gnu.code, 1, "GNU find: {}", gnu.stderr_str());
        let r = trawl_done(t.path(), [&["find"][..], args].concat(), SPECIAL_TIMEOUT);
        assert_eq!(sorted_text(&r.stdout), sorted_text(&gnu.stdout), "stdout\n{}", r.ctx());
        assert_eq!(r.code(), 1, "exit code\n{}", r.ctx());
        let want = find_loops(&gnu.stderr, "find: ");
        assert_eq!(want.len(), 3, "GNU find reports three loops: {}", gnu.stderr_str());
        assert_eq!(find_loops(&r.stderr, "trawl: "), want, "loop messages\n{}", r.ctx());
    }
}

// ---------------------------------------------------------------------
// 3. Unreadable files and directories, as nobody.

#[test]
fn unreadable_files_and_directories_as_nobody() {
    let t = Tree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    t.file("ok.txt", "x ok\n")
        .file("secret.txt", "x secret\n")
        .file("locked/in.txt", "x locked\n")
        .file("nosearch/f.txt", "x nosearch\n")
        .file("sub/deep/d.txt", "x deep\nx again\n")
        .file("sub/n.txt", "no\n");
    let mode = |rel: &str, m: u32| {
        fs::set_permissions(t.path().join(rel), fs::Permissions::from_mode(m)).unwrap()
    };
    mode("secret.txt", 0o000);
    mode("locked", 0o000);
    mode("nosearch", 0o644);
    let messages = |r: &Run, prefix: &str| -> Vec<String> {
        let mut v: Vec<String> =
            r.stderr_str().lines().map(|l| l.strip_prefix(prefix).unwrap_or(l).into()).collect();
        v.sort();
        v
    };
    let want_errors = ["./locked: Permission denied", "./nosearch/f.txt: Permission denied"];
    for args in [&["-r", "x", "."][..], &["-r", "-c", "x", "."], &["-r", "-l", "x", "."]] {
        let nobody = |prog: &str| Cmd::new("setpriv", t.path()).args(AS_NOBODY).args([prog]);
        let g = nobody("grep").args(args).run();
        let r = nobody(trawl_bin()).args(args).run();
        let ctx = format!("trawl stdout:\n{}\ntrawl stderr:\n{}", r.stdout_str(), r.stderr_str());
        assert_eq!(g.code, 2, "grep as nobody: {}", g.stderr_str());
        assert_eq!(r.sorted_lines(), g.sorted_lines(), "stdout as GNU grep\n{ctx}");
        r.assert_code(2);
        let got = messages(&r, "trawl: ");
        assert_eq!(got, messages(&g, "grep: "), "error messages as GNU grep\n{ctx}");
        for w in want_errors.iter().chain(&["./secret.txt: Permission denied"]) {
            assert!(got.iter().any(|l| l == w), "no `{w}`\n{ctx}");
        }
    }
}

// ---------------------------------------------------------------------
// 4. Files that vanish or change while they are searched.

/// Loops `f` on a thread until the returned flag is set.
fn churn(f: impl Fn(u64) + Send + 'static) -> (Arc<AtomicBool>, JoinHandle<u64>) {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    let h = std::thread::spawn(move || {
        let mut i = 0u64;
        while !s.load(Ordering::Relaxed) {
            f(i);
            i += 1;
        }
        i
    });
    (stop, h)
}

#[test]
fn files_vanishing_during_the_walk() {
    let _g = heavy();
    let t = Tree::new();
    let mut paths = Vec::new();
    for d in 0..30 {
        for f in 0..100 {
            let rel = format!("d{d:02}/f{f:03}.txt");
            t.file(&rel, "x\nhay\n");
            paths.push(t.path().join(rel));
        }
    }
    let paths = Arc::new(paths);
    let (p1, p2) = (paths.clone(), paths.clone());
    let n = paths.len() as u64;
    let (stop_del, del) = churn(move |i| {
        let _ = fs::remove_file(&p1[((i * 7) % n) as usize]);
        // Creating is slower than deleting: keep about half the files.
        std::thread::sleep(Duration::from_micros(100));
    });
    let (stop_add, add) = churn(move |i| {
        let _ = fs::write(&p2[((i * 13) % n) as usize], "x\nhay\n");
    });
    let start = Instant::now();
    let mut with_errors = 0;
    for _ in 0..20 {
        let r = trawl_done(t.path(), ["-r", "-j", "4", "x", "."], Duration::from_secs(30));
        let code = r.code();
        assert!((0..=2).contains(&code), "exit code {code}\n{}", r.ctx());
        for l in String::from_utf8_lossy(&r.stderr).lines() {
            assert!(
                l.starts_with("trawl: ") && l.ends_with(": No such file or directory"),
                "unexpected stderr line {l:?}\n{}",
                r.ctx()
            );
        }
        for l in sorted_records(&r.stdout, b'\n') {
            assert!(l.ends_with(b".txt:x"), "odd output line {:?}\n{}", clip(&l), r.ctx());
        }
        with_errors += usize::from(!r.stderr.is_empty());
    }
    stop_del.store(true, Ordering::Relaxed);
    stop_add.store(true, Ordering::Relaxed);
    let (dels, adds) = (del.join().unwrap(), add.join().unwrap());
    eprintln!(
        "vanishing files: 20 runs in {:?}, {with_errors} with errors; {dels} deletions, {adds} creations",
        start.elapsed()
    );
}

/// A small xorshift generator (no dependency).
fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn file_truncated_while_searched() {
    let _g = heavy();
    const SIZE: usize = 64 << 20;
    let t = Tree::new();
    let mut content = Vec::with_capacity(SIZE);
    let mut i = 0i64;
    while content.len() < SIZE {
        let word = if i % 1000 == 0 { "x marks" } else { "haystack" };
        let line = format!("{i:010} {word} {}\n", "-".repeat(40));
        content.extend_from_slice(&line.as_bytes()[..line.len().min(SIZE - content.len())]);
        i += 1;
    }
    t.file("big.txt", &content);
    let f = fs::OpenOptions::new().write(true).open(t.path().join("big.txt")).unwrap();
    let content = Arc::new(content);
    let c = content.clone();
    let truncations = Arc::new(AtomicU64::new(0));
    let tr = truncations.clone();
    let (stop, h) = churn(move |i| {
        let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (i + 1);
        let _ = f.set_len(0);
        tr.fetch_add(1, Ordering::SeqCst);
        let _ = f.set_len(xorshift(&mut seed) % SIZE as u64);
        let _ = f.write_all_at(&c, 0);
    });
    // At least 30 runs, and until 20 of them saw the file cut under them.
    let start = Instant::now();
    let (mut runs, mut overlapped) = (0, 0);
    while runs < 30 || (overlapped < 20 && runs < 400) {
        let args = if runs % 2 == 0 { ["-c", "x", "big.txt"] } else { ["-n", "x", "big.txt"] };
        let before = truncations.load(Ordering::SeqCst);
        let r = trawl_done(t.path(), args, Duration::from_secs(30));
        overlapped += usize::from(truncations.load(Ordering::SeqCst) != before);
        let code = r.code();
        assert!((0..=2).contains(&code), "exit code {code}\n{}", r.ctx());
        if runs % 2 == 0 && code != 2 {
            let s = String::from_utf8_lossy(&r.stdout);
            assert!(s.trim_end().parse::<u64>().is_ok(), "-c output\n{}", r.ctx());
        }
        runs += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let cycles = h.join().unwrap();
    eprintln!(
        "truncation: {runs} runs in {:?}, {overlapped} cut while running; {cycles} truncations",
        start.elapsed()
    );
    assert!(overlapped >= 20, "only {overlapped} of {runs} runs overlapped a truncation");
}

// ---------------------------------------------------------------------
// 5. Deeper than PATH_MAX: -c and -l (files.rs has plain and -l -c).

#[test]
fn deeper_than_path_max_count_and_list() {
    let (t, rel) = deep();
    for e in [Engine::Rust, Engine::Pcre2] {
        let c = t.parity(e).args(["-c", "needle", "."]).check();
        let mut want = b"./".to_vec();
        want.extend_from_slice(rel.as_os_str().as_bytes());
        let mut count = want.clone();
        count.extend_from_slice(b":1");
        assert!(c.trawl.sorted_lines().contains(&count), "{}", c.trawl.stdout_str());
        let c = t.parity(e).args(["-l", "needle", "."]).check();
        assert!(c.trawl.sorted_lines().contains(&want), "{}", c.trawl.stdout_str());
        t.parity(e).args(["-L", "needle", "."]).check();
    }
}

// ---------------------------------------------------------------------
// 6 and 14. Names with newlines, control characters and non-UTF-8 bytes.

/// Names that match `x*`, with their contents.
const ODD: &[(&[u8], &str)] = &[
    (b"x\x1b[31mred\nline.txt", "x esc\n"),
    (b"xbad\xff\xfename", "x bytes\n"),
    (b"xtab\there", "x tab\n"),
    (b"xback\\slash", "x backslash\n"),
    (b"xplain.txt", "x plain\n"),
    (b"xnomatch", "nothing\n"),
];

fn odd_tree() -> Tree {
    let t = Tree::new();
    for (name, body) in ODD {
        t.file_bytes(name, body);
    }
    t
}

fn dot_slash(name: &[u8]) -> Vec<u8> {
    [b"./", name].concat()
}

#[test]
fn odd_names_byte_exact_through_a_pipe() {
    let t = odd_tree();
    let matching: Vec<Vec<u8>> =
        ODD.iter().filter(|(_, b)| b.starts_with('x')).map(|(n, _)| dot_slash(n)).collect();
    let mut sorted = matching.clone();
    sorted.sort();
    let r = trawl_done(t.path(), ["-l", "-Z", "x", "."], SPECIAL_TIMEOUT);
    assert_eq!(r.code(), 0, "{}", r.ctx());
    assert_eq!(sorted_records(&r.stdout, 0), sorted, "-l -Z\n{}", r.ctx());
    for e in [Engine::Rust, Engine::Pcre2] {
        t.parity(e).args(["-l", "-Z", "x", "."]).records(0).check();
        t.parity(e).args(["-L", "-Z", "x", "."]).records(0).check();
        t.parity(e).args(["-c", "-Z", "x", "."]).check();
        t.parity(e).args(["-H", "x", "."]).check();
    }
    // Without -Z the names are still raw through a pipe.
    let r = trawl_done(t.path(), ["-l", "x", "."], SPECIAL_TIMEOUT);
    for name in &matching {
        let line = [&name[..], b"\n"].concat();
        assert!(r.stdout.windows(line.len()).any(|w| w == line), "{:?}\n{}", clip(name), r.ctx());
    }
    // find -print0 and -print.
    let all: Vec<Vec<u8>> = ODD.iter().map(|(n, _)| dot_slash(n)).collect();
    let mut all_sorted = all.clone();
    all_sorted.sort();
    let r = trawl_done(t.path(), ["find", ".", "-type", "f", "-print0"], SPECIAL_TIMEOUT);
    assert_eq!(r.code(), 0, "{}", r.ctx());
    assert_eq!(sorted_records(&r.stdout, 0), all_sorted, "find -print0\n{}", r.ctx());
    let gnu = Cmd::new("find", t.path()).args([".", "-type", "f", "-print0"]).run();
    assert_eq!(sorted_records(&gnu.stdout, 0), all_sorted, "GNU find -print0 (a test bug)");
    let r = trawl_done(t.path(), ["find", ".", "-type", "f"], SPECIAL_TIMEOUT);
    let mut want: Vec<u8> = all_sorted.iter().flat_map(|n| [&n[..], b"\n"].concat()).collect();
    let mut got = r.stdout.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want, "find -print through a pipe: the same bytes\n{}", r.ctx());
}

/// Runs trawl with stdout on a pseudo-terminal (raw mode: no CR added);
/// returns what the terminal received and the exit status.
fn on_terminal(cwd: &Path, args: &[&str]) -> (Vec<u8>, Done) {
    let (master, slave) = crate::util::raw_pty();
    let mut cmd = trawl_cmd(cwd, args);
    cmd.stdin(Stdio::null()).stdout(Stdio::from(slave)).stderr(Stdio::piped());
    // Proc::spawn drops the command, closing our copy of the slave side.
    let p = Proc::spawn(cmd, true);
    let reader = std::thread::spawn(move || {
        let mut m = File::from(master);
        let mut b = Vec::new();
        let mut chunk = [0u8; 65536];
        loop {
            match m.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => b.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break, // EIO: the slave side is closed
            }
        }
        b
    });
    let done = p.wait(SPECIAL_TIMEOUT);
    (reader.join().unwrap(), done)
}

#[test]
fn control_characters_escaped_on_a_terminal() {
    let t = odd_tree();
    let esc_name = "./x\\x1b[31mred\\nline.txt";
    let cases: [(&[&str], Vec<String>); 4] = [
        (
            &["--color=never", "-l", "x", "."],
            vec![esc_name.into(), "./xtab\\there".into(), "./xplain.txt".into()],
        ),
        (&["--color=never", "-c", "x", "."], vec![format!("{esc_name}:1")]),
        (&["--color=never", "-n", "x", "."], vec![format!("{esc_name}:1:x esc")]),
        (
            &["find", ".", "-name", "x*"],
            vec![esc_name.into(), "./xtab\\there".into(), "./xnomatch".into()],
        ),
    ];
    for (args, must) in cases {
        let (tty, done) = on_terminal(t.path(), args);
        let ctx = format!("{}\nterminal got:\n{}\n{}", done.what, clip(&tty), done.ctx());
        assert!(done.code() == 0, "exit code\n{ctx}");
        assert!(!tty.contains(&0x1b), "a raw ESC reached the terminal\n{ctx}");
        let lines: Vec<String> =
            tty.split(|&b| b == b'\n').map(|l| String::from_utf8_lossy(l).into_owned()).collect();
        for m in &must {
            assert!(lines.contains(m), "no line {m:?}\n{ctx}");
        }
        // Names print in full: the line count equals the number of names.
        let n = tty.iter().filter(|&&b| b == b'\n').count();
        let want = if args[0] == "find" { ODD.len() } else { ODD.len() - 1 };
        assert_eq!(n, if args.contains(&"-c") { ODD.len() } else { want }, "{ctx}");
    }
}

// ---------------------------------------------------------------------
// 7. A 1 GB line: streamed when its text is not needed.

/// Runs trawl on a 1 GB line (and then "needle") written into its stdin:
/// a pipe, so the test needs no disk space (a CI machine ran out of it
/// writing the line to a file), and trawl cannot map or seek it.
fn on_one_gigabyte_line(args: &[&str]) -> Done {
    let mut cmd = trawl_cmd(Path::new("/"), args);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut p = Proc::spawn(cmd, false);
    let mut stdin = p.child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || -> io::Result<()> {
        let block = b"abcdefghij".repeat(100_000);
        for _ in 0..1000 {
            stdin.write_all(&block)?;
        }
        stdin.write_all(b"needle\n")
    });
    let r = p.wait(BIG_TIMEOUT);
    match writer.join().unwrap() {
        Ok(()) => {}
        // -q and -l may stop reading once the answer is known.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("writing stdin: {e}\n{}", r.ctx()),
    }
    r
}

#[test]
#[ignore = "heavy tier: .ci/test runs it after the rest, from the same build (--ignored)"]
fn one_gigabyte_line_streams_in_bounded_memory() {
    let _g = heavy();
    let cases: [(&[&str], i32, &[u8], bool); 6] = [
        (&["-c", "needle"], 0, b"1\n", true),
        (&["-l", "needle"], 0, b"(standard input)\n", true),
        (&["-q", "needle"], 0, b"", true),
        (&["-c", "-v", "needle"], 1, b"0\n", true),
        // As GNU grep 3.8: -L exits with 0 when a line matched.
        (&["-L", "needle"], 0, b"", true),
        // PCRE2 may hold the line: only the answer is checked.
        (&["-c", "-P", "needle"], 0, b"1\n", false),
    ];
    // A file is searched in parts by several threads, so the line also
    // crosses the parts' bounds: the same line as a file, of NULs (a hole,
    // no disk space) read as text with -a.
    const SIZE: u64 = 1 << 30;
    let t = shm_tree();
    let f = File::create(t.path().join("line")).unwrap();
    f.set_len(SIZE).unwrap();
    f.write_all_at(b"needle\n", SIZE - 7).unwrap();
    drop(f);
    for (args, code, out, bounded) in cases {
        let check = |r: Done, what: &str| {
            eprintln!(
                "trawl {args:?} {what}: {:?}, peak RSS {} MiB",
                r.elapsed,
                r.maxrss_kib / 1024
            );
            if bounded {
                assert!(
                    r.maxrss_kib < RSS_LIMIT_KIB,
                    "peak RSS {} KiB >= {RSS_LIMIT_KIB} KiB\n{}",
                    r.maxrss_kib,
                    r.ctx()
                );
            }
        };
        let r = on_one_gigabyte_line(args);
        r.assert(code, out).assert_no_stderr();
        check(r, "on stdin");
        let in_file = [&["-a"][..], args, &["line"]].concat();
        let out = if out.starts_with(b"(standard input)") { b"line\n" } else { out };
        let r = trawl_done(t.path(), &in_file, BIG_TIMEOUT);
        r.assert(code, out).assert_no_stderr();
        check(r, "in a file");
    }
}

/// `-o` on a line over 32 MiB (too long to hold) searched piece by piece:
/// the same matches, offsets and line numbers as GNU grep's, with matches
/// across every piece boundary, for fixed strings and bounded patterns.
#[test]
fn only_matching_on_a_long_line_equals_grep() {
    let t = Tree::new();
    let mut line = Vec::with_capacity(40 << 20);
    let words: [&[u8]; 5] = [b"needle", b"neeedle", b"NEEDLE", b"nee123dle", b"a1b22c333"];
    let mut x: u64 = 7;
    while line.len() < 40 << 20 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Dense matches: every read's edge cuts some.
        line.extend(std::iter::repeat_n(b'x', 1 + (x >> 40) as usize % 30));
        line.extend_from_slice(words[(x >> 20) as usize % words.len()]);
    }
    let mut text = b"start needle\n".to_vec();
    text.extend_from_slice(&line);
    text.extend_from_slice(b"\nafter needle 42\n");
    t.file_bytes(b"long.txt", &text);
    for args in [
        &["-o", "-b", "-n", "needle"][..],
        &["-o", "-b", "-n", "nee{1,3}dle"],
        &["-o", "-i", "-n", "needle"],
        &["-o", "-b", "[0-9]{3}"],
        &["-o", "-n", "needle|NEEDLE"],
        &["-o", "-n", "-m2", "needle"],
        &["-o", "-c", "needle"],
    ] {
        let grep = t.grep().args(["-E", "-a"]).args(args.iter().copied()).args(["long.txt"]).run();
        let trawl = t.trawl().args(args.iter().copied()).args(["long.txt"]).run();
        assert!(grep.stdout.len() > 1, "{args:?}: grep found matches");
        assert!(trawl.stdout == grep.stdout, "trawl {args:?} differs from grep -E -a");
        let piped = t.trawl().args(args.iter().copied()).stdin(&text).run();
        assert!(piped.stdout == grep.stdout, "trawl {args:?} on stdin differs from grep -E -a");
        // Met in a tree: read (not mapped), in one pass, streamed.
        let in_tree = t.trawl().args(["-h"]).args(args.iter().copied()).args(["."]).run();
        assert!(in_tree.stdout == grep.stdout, "trawl {args:?} in a tree differs from grep -E -a");
    }
}

/// `-o` (with `-b`, `-n`) on a line too long to hold prints its matches
/// as found, in bounded memory (issue 19 #6): on standard input, and in
/// a file of NULs read as text (a 1 GiB line either way).
#[test]
#[ignore = "heavy tier: .ci/test runs it after the rest, from the same build (--ignored)"]
fn only_matching_on_a_one_gigabyte_line_streams() {
    let _g = heavy();
    for (args, out) in [
        (&["-o", "-b", "-n", "needle"][..], &b"1:1000000000:needle\n"[..]),
        (&["-o", "ne{1,3}dle|abcdefghij_"], b"needle\n"),
        (&["-c", "-o", "needle"], b"1\n"),
    ] {
        let r = on_one_gigabyte_line(args);
        r.assert(0, out).assert_no_stderr();
        eprintln!("trawl {args:?} on stdin: {:?}, peak RSS {} MiB", r.elapsed, r.maxrss_kib / 1024);
        assert!(r.maxrss_kib < RSS_LIMIT_KIB, "peak RSS {} KiB\n{}", r.maxrss_kib, r.ctx());
    }
    const SIZE: u64 = 1 << 30;
    let t = shm_tree();
    let f = File::create(t.path().join("line")).unwrap();
    f.set_len(SIZE).unwrap();
    f.write_all_at(b"needle", SIZE / 2).unwrap();
    f.write_all_at(b"needle\n", SIZE - 7).unwrap();
    drop(f);
    // Met in a tree (a named file is mapped: its pages, not a copy).
    let r = trawl_done(t.path(), ["-a", "-o", "-b", "needle", "."], BIG_TIMEOUT);
    let want = format!("./line:{}:needle\n./line:{}:needle\n", SIZE / 2, SIZE - 7);
    r.assert(0, want.as_bytes()).assert_no_stderr();
    eprintln!(
        "-a -o -b on a 1 GiB line of NULs: {:?}, peak RSS {} MiB",
        r.elapsed,
        r.maxrss_kib / 1024
    );
    assert!(r.maxrss_kib < RSS_LIMIT_KIB, "peak RSS {} KiB\n{}", r.maxrss_kib, r.ctx());
}

// ---------------------------------------------------------------------
// 8. Offsets past 4 GiB.

/// A tree on /dev/shm (tmpfs) when there is one.
fn shm_tree() -> Tree {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        Tree::new_in(shm).unwrap_or_else(|_| Tree::new())
    } else {
        Tree::new()
    }
}

#[test]
#[ignore = "heavy tier: .ci/test runs it after the rest, from the same build (--ignored)"]
fn byte_offsets_past_four_gib_on_stdin() {
    let _g = heavy();
    const LINE: &[u8; 64] = b"abcfghijkmopqrstuvwxyz0123456789ABCDEFGHIJKLMOPQRSTUVWXYZ_+-=.,\n";
    const TOTAL: usize = 4_300_000_000;
    let mut cmd = trawl_cmd(Path::new("/"), ["-n", "-b", "needle"]);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut p = Proc::spawn(cmd, false);
    let mut stdin = p.child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || -> io::Result<()> {
        let buf = LINE.repeat((1 << 20) / LINE.len());
        let mut left = TOTAL;
        while left > 0 {
            let n = left.min(buf.len());
            stdin.write_all(&buf[..n])?;
            left -= n;
        }
        stdin.write_all(b"needle\n")
    });
    let r = p.wait(BIG_TIMEOUT);
    writer.join().unwrap().unwrap_or_else(|e| panic!("writing stdin: {e}\n{}", r.ctx()));
    eprintln!("4.3 GB through stdin: {:?}", r.elapsed);
    let want = format!("{}:{TOTAL}:needle\n", TOTAL / LINE.len() + 1);
    r.assert(0, want.as_bytes()).assert_no_stderr();
}

#[test]
#[ignore = "heavy tier: .ci/test runs it after the rest, from the same build (--ignored)"]
fn sparse_five_gib_file() {
    let _g = heavy();
    const SIZE: u64 = 5 << 30;
    // On tmpfs, holes read as the shared zero page: reading 5 GiB takes 2 s
    // (on ext4 each hole page is allocated in the page cache: 4 to 17 s).
    let t = shm_tree();
    let f = File::create(t.path().join("sparse")).unwrap();
    f.set_len(SIZE).unwrap();
    f.write_all_at(b"needle\n", SIZE - 7).unwrap();
    drop(f);
    // (Binary: each NUL ends a line. With -a the 5 GiB of NULs is one line,
    // streamed at about 200 MB/s: too slow for this suite.)
    let r = trawl_done(t.path(), ["-c", "needle", "sparse"], BIG_TIMEOUT);
    r.assert(0, b"1\n").assert_no_stderr();
    eprintln!("-c on 5 GiB sparse: {:?}, peak RSS {} MiB", r.elapsed, r.maxrss_kib / 1024);
    assert!(r.maxrss_kib < RSS_LIMIT_KIB, "peak RSS {} KiB\n{}", r.maxrss_kib, r.ctx());
    let find =
        |args: &[&str]| trawl_done(t.path(), [&["find", "."][..], args].concat(), SPECIAL_TIMEOUT);
    find(&["-size", "+4G"]).assert(0, b"./sparse\n");
    find(&["-size", "+5368709119c"]).assert(0, b"./sparse\n");
    find(&["-size", "+5G"]).assert(0, b"");
    find(&["-size", "-6G", "-type", "f"]).assert(0, b"./sparse\n");
    find(&["-type", "f", "-printf", "%s\\n"]).assert(0, b"5368709120\n");
}

// ---------------------------------------------------------------------
// 9. A million entries in one directory.

#[test]
#[ignore = "heavy tier: .ci/test runs it after the rest, from the same build (--ignored)"]
fn a_million_entries_in_one_directory() {
    let _g = heavy();
    const N: usize = 1_000_000;
    // tmpfs makes creation and removal several times faster than ext4.
    let t = shm_tree();
    let start = Instant::now();
    let dir = t.path().join("d");
    fs::create_dir(&dir).unwrap();
    let dfd = File::open(&dir).unwrap();
    for i in 0..N {
        let name = CString::new(format!("f{i:07}")).unwrap();
        // SAFETY: a valid directory descriptor and C string.
        let r = unsafe { libc::mknodat(dfd.as_raw_fd(), name.as_ptr(), libc::S_IFREG | 0o644, 0) };
        assert_eq!(r, 0, "mknodat #{i}: {}", io::Error::last_os_error());
    }
    eprintln!("1M entries created in {:?}", start.elapsed());
    let r = trawl_done(t.path(), ["find", "d", "-type", "f"], BIG_TIMEOUT);
    assert_eq!(r.code(), 0, "{}", r.ctx());
    r.assert_no_stderr();
    let n = r.stdout.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(n, N, "find -type f: lines");
    eprintln!("trawl find d -type f: {:?}", r.elapsed);
    let r = trawl_done(t.path(), ["-c", "x", "d"], BIG_TIMEOUT);
    assert_eq!(r.code(), 1, "{}", r.ctx());
    r.assert_no_stderr();
    let lines = crate::util::lines(&r.stdout);
    assert_eq!(lines.len(), N, "-c x: lines");
    assert!(lines.iter().all(|l| l.starts_with(b"d/f") && l.ends_with(b":0")), "-c x lines");
    eprintln!("trawl -c x d: {:?}", r.elapsed);
    let start = Instant::now();
    drop(t);
    eprintln!("1M entries removed in {:?}", start.elapsed());
}

// ---------------------------------------------------------------------
// 10. Empty files.

fn empty_tree() -> Tree {
    let t = Tree::new();
    t.file("e1", "").file("sub/e2", "").file("a.txt", "x\n");
    t
}

#[test]
fn empty_files() {
    let t = empty_tree();
    let run = |args: &[&str]| trawl_done(t.path(), args, SPECIAL_TIMEOUT);
    run(&["-c", "x", "."])
        .assert_no_stderr()
        .assert_lines(0, &["./a.txt:1", "./e1:0", "./sub/e2:0"]);
    run(&["-L", "x", "."]).assert_no_stderr().assert_lines(0, &["./e1", "./sub/e2"]);
    run(&["-v", "-c", "x", "."])
        .assert_no_stderr()
        .assert_lines(1, &["./a.txt:0", "./e1:0", "./sub/e2:0"]);
    run(&["-c", "", "e1"]).assert(1, b"0\n");
    // -v with the empty pattern selects nothing anywhere: as GNU grep 3.8,
    // no file is read and nothing is printed, not even a count.
    run(&["-v", "-c", "", "e1"]).assert(1, b"");
    run(&["-v", "-c", "zzz", "e1"]).assert(1, b"0\n");
    for e in [Engine::Rust, Engine::Pcre2] {
        for args in
            [&["-c", "x", "."][..], &["-L", "x", "."], &["-v", "-c", "x", "."], &["-c", "", "."]]
        {
            t.parity(e).args(args).check();
        }
    }
}

// ---------------------------------------------------------------------
// 11. Broken pipe.

fn wide_tree() -> Tree {
    let t = Tree::new();
    let body: String = (0..20).map(|i| format!("line {i} here has an e in it\n")).collect();
    for d in 0..30 {
        for f in 0..100 {
            t.file(format!("dir{d:02}/file{f:03}.txt"), &body);
        }
    }
    t
}

/// How trawl's parent left SIGPIPE.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum SigPipe {
    /// Ignored (as some parents leave it: a shell's `trap '' PIPE`).
    Ignored,
    /// The default (as a shell, and Rust's Command, leave it).
    Default,
}

/// How trawl must end after its reader closed the pipe.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum PipeEnd {
    /// Killed by SIGPIPE, silently (grep and find when SIGPIPE is default).
    Signal,
    /// `trawl: write error: Broken pipe`, exit 2 (grep, SIGPIPE ignored).
    WriteError,
    /// Exit 0 or 1, silently (trawl find, SIGPIPE ignored).
    Quiet,
}

/// Starts trawl with `args`, reads one line, closes the pipe; trawl must
/// end (a hang fails after [`HANG`]) as `end` says.
fn broken_pipe_case(t: &Tree, args: &[&str], sigpipe: SigPipe, end: PipeEnd) {
    let mut cmd = trawl_cmd(t.path(), args);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        let disposition = match sigpipe {
            SigPipe::Default => libc::SIG_DFL,
            SigPipe::Ignored => libc::SIG_IGN,
        };
        // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(libc::SIGPIPE, disposition);
                Ok(())
            });
        }
    }
    let mut p = Proc::spawn(cmd, true);
    let mut out = BufReader::new(p.child.stdout.take().unwrap());
    let mut first = Vec::new();
    out.read_until(b'\n', &mut first).unwrap();
    assert!(first.ends_with(b"\n"), "no first line from {}", p.what);
    assert!(p.running(), "{} ended before the pipe was closed (make the tree bigger)", p.what);
    drop(out);
    let closed = Instant::now();
    let Some((status, _)) = p.reap(closed + HANG) else {
        p.kill();
        let (_, e) = p.outputs();
        panic!("{} still running {HANG:?} after its pipe closed\nstderr:\n{}", p.what, clip(&e));
    };
    let took = closed.elapsed();
    let (_, stderr) = p.outputs();
    let what = format!("{} ({sigpipe:?} SIGPIPE)", p.what);
    match end {
        PipeEnd::Signal => {
            assert_eq!(status.signal(), Some(libc::SIGPIPE), "{what}: {status:?}");
            assert!(stderr.is_empty(), "{what} wrote to stderr:\n{}", clip(&stderr));
        }
        PipeEnd::WriteError => {
            assert_eq!(status.code(), Some(2), "{what}: {status:?}");
            assert_eq!(
                String::from_utf8_lossy(&stderr),
                "trawl: write error: Broken pipe\n",
                "{what}"
            );
        }
        PipeEnd::Quiet => {
            assert_eq!(status.signal(), None, "{what} died of a signal ({status:?})");
            assert!(matches!(status.code(), Some(0 | 1)), "{what}: exit {status:?}");
            assert!(stderr.is_empty(), "{what} wrote to stderr:\n{}", clip(&stderr));
        }
    }
    eprintln!("broken pipe: {what} ended {took:?} after the pipe closed");
}

// Issue 13 #3: as GNU grep, trawl dies of SIGPIPE when it inherited the
// default disposition, and reports a write error (exit 2) when SIGPIPE was
// ignored.
#[test]
fn broken_pipe_ends_as_grep_does() {
    let _g = heavy();
    let t = wide_tree();
    let mut many = vec!["find"];
    many.extend(["."; 20]);
    for sigpipe in [SigPipe::Default, SigPipe::Ignored] {
        let grep_end =
            if sigpipe == SigPipe::Default { PipeEnd::Signal } else { PipeEnd::WriteError };
        broken_pipe_case(&t, &["-r", "e", "."], sigpipe, grep_end);
        broken_pipe_case(&t, &["-r", "-n", "-j", "1", "e", "."], sigpipe, grep_end);
        let find_end = if sigpipe == SigPipe::Default { PipeEnd::Signal } else { PipeEnd::Quiet };
        broken_pipe_case(&t, &many, sigpipe, find_end);
    }
}

/// trawl starts without the Rust runtime (runtime.rs) but keeps its guard: a
/// closed standard descriptor is opened on /dev/null, so no file trawl opens
/// takes that number and is written to as the output.
#[test]
fn closed_standard_descriptors_are_opened_on_dev_null() {
    use std::os::unix::process::CommandExt;
    let t = Tree::new();
    t.file("a.txt", "hello\n").file("dir/b.txt", "hello\n");
    for closed in [0, 1, 2] {
        let mut cmd = trawl_cmd(t.path(), ["-r", "hello", "."]);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        // SAFETY: close(2) is async-signal-safe, as pre_exec requires.
        unsafe {
            cmd.pre_exec(move || {
                libc::close(closed);
                Ok(())
            });
        }
        let out = cmd.output().unwrap();
        let what = format!("descriptor {closed} closed");
        assert_eq!(out.status.code(), Some(0), "{what}: {}", clip(&out.stderr));
        if closed != 1 {
            assert_eq!(sorted_text(&out.stdout), ["./a.txt:hello", "./dir/b.txt:hello"], "{what}");
        }
        assert!(out.stderr.is_empty(), "{what}: {}", clip(&out.stderr));
        assert_eq!(fs::read(t.path().join("a.txt")).unwrap(), b"hello\n", "{what}");
        assert_eq!(fs::read(t.path().join("dir/b.txt")).unwrap(), b"hello\n", "{what}");
    }
}

/// A large file that prints most of its lines: its output is written as it
/// is found (standard output held for it), not gathered whole in memory; the
/// reader sees the first lines early.
#[test]
fn a_large_file_printing_most_lines_holds_little() {
    let _g = heavy();
    let t = Tree::new();
    let lines = 6_000_000u32;
    {
        let mut f = io::BufWriter::new(File::create(t.path().join("big.txt")).unwrap());
        for i in 0..lines {
            writeln!(f, "keep line {i:08} and some more text to print").unwrap();
        }
        f.flush().unwrap();
    }
    // ~290 MB of output (trawl used to hold it all), from a file read or
    // mapped.
    for extra in [&["--no-mmap"][..], &[]] {
        let mut cmd = trawl_cmd(t.path(), extra.iter().chain(&["-n", "keep", "big.txt"]));
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut p = Proc::spawn(cmd, true);
        let mut out = p.child.stdout.take().unwrap();
        let start = Instant::now();
        // Counts lines; notes when the first bytes came.
        let reader = std::thread::spawn(move || {
            let (mut n, mut first) = (0u64, None);
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                match out.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => {
                        first.get_or_insert_with(|| start.elapsed());
                        n += memchr::memchr_iter(b'\n', &chunk[..k]).count() as u64;
                    }
                }
            }
            (n, first)
        });
        let r = p.wait(BIG_TIMEOUT);
        let (n, first) = reader.join().unwrap();
        r.assert(0, b"").assert_no_stderr();
        eprintln!(
            "{extra:?}: {:?}, first output after {first:?}, peak RSS {} MiB",
            r.elapsed,
            r.maxrss_kib / 1024
        );
        assert_eq!(n, lines as u64, "lines printed");
        // Held: what the search may run ahead of a slow reader (on a busy
        // machine the reader is often not scheduled) — the replayed part
        // and 3 per thread ahead, each recorded with its text and line
        // records (4 MiB + 3.5 MiB, in vectors grown by doubling: 15 MiB a
        // part, 105 MiB for 7), and up to 32 MiB + 7 parts of mapped pages
        // not yet given back: 165 MiB. Measured: 62-114 MiB on an idle
        // machine, 97-158 MiB with both cores busy. Holding the output
        // whole would take 290 MiB, the mapping of the whole file 270 MiB.
        assert!(r.maxrss_kib < 192 * 1024, "peak RSS {} KiB\n{}", r.maxrss_kib, r.ctx());
        assert!(first.unwrap() < r.elapsed / 2, "output only came at the end");
    }
}

// ---------------------------------------------------------------------
// 12. SIGINT.

#[test]
fn sigint_resets_colors_and_dies_of_sigint() {
    let _g = heavy();
    let t = Tree::new();
    {
        let mut f = io::BufWriter::new(File::create(t.path().join("big.txt")).unwrap());
        for i in 0..4_300_000u32 {
            writeln!(f, "line {i:08} some text here for the color test").unwrap();
        }
        f.flush().unwrap();
    }
    let mut cmd = trawl_cmd(t.path(), ["--color=always", "-e", "", "big.txt"]);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut p = Proc::spawn(cmd, true);
    let mut out = p.child.stdout.take().unwrap();
    // Keeps the byte count and the last bytes only.
    let read = Arc::new(AtomicU64::new(0));
    let seen = read.clone();
    let reader = std::thread::spawn(move || {
        let (mut total, mut tail) = (0usize, Vec::new());
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            match out.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n;
                    seen.store(total as u64, Ordering::SeqCst);
                    tail.extend_from_slice(&chunk[..n]);
                    let cut = tail.len().saturating_sub(64);
                    tail.drain(..cut);
                }
            }
        }
        (total, tail)
    });
    // Signalled once its first megabyte of ~200 has come out.
    assert!(poll_until(|| read.load(Ordering::SeqCst) >= 1 << 20), "no output from trawl");
    assert!(p.running(), "trawl finished before the signal (make the file bigger)");
    // SAFETY: our unreaped child.
    unsafe { libc::kill(p.pid(), libc::SIGINT) };
    let sent = Instant::now();
    let Some((status, _)) = p.reap(sent + HANG) else {
        p.kill();
        panic!("trawl still running {HANG:?} after SIGINT");
    };
    let took = sent.elapsed();
    let (total, tail) = reader.join().unwrap();
    let (_, stderr) = p.outputs();
    eprintln!("SIGINT: ended {took:?} after the signal, {total} bytes printed");
    assert_eq!(status.signal(), Some(libc::SIGINT), "death by SIGINT ({status:?})");
    assert!(total < 200_000_000, "the whole file was printed: not interrupted");
    assert!(tail.ends_with(b"\x1b[0m"), "output must end with a color reset: {:?}", clip(&tail));
    assert!(stderr.is_empty(), "stderr: {}", clip(&stderr));
}

/// A thread blocked in `open` of a FIFO nobody writes to (restarted after
/// a signal) kept trawl alive until SIGKILL: a second signal ends it at
/// once.
#[test]
fn a_second_sigint_ends_trawl_blocked_opening_a_fifo() {
    let t = Tree::new();
    t.fifo("fifo");
    for args in [&["x", "fifo"][..], &["-r", "-c", "-j", "1", "x", "fifo"]] {
        let mut p = Proc::spawn(trawl_cmd(t.path(), args), false);
        let pid = p.pid();
        assert!(poll_until(|| opening_a_fifo(pid)), "{}: never blocked opening the FIFO", p.what);
        for i in 0..2 {
            // SAFETY: our unreaped child.
            unsafe { libc::kill(pid, libc::SIGINT) };
            // Two signals pending at once would count as one.
            assert!(poll_until(|| !sigint_pending(pid)), "{}: SIGINT {i} never taken", p.what);
        }
        let Some((status, _)) = p.reap(Instant::now() + HANG) else {
            p.kill();
            panic!("{} still running {HANG:?} after two SIGINTs", p.what);
        };
        let _ = p.outputs();
        let code = status.code().unwrap_or(0);
        assert!(
            status.signal() == Some(libc::SIGINT) || code == 128 + libc::SIGINT,
            "{}: ended by {status:?}",
            p.what
        );
    }
}

/// Issue 13 #23: one SIGINT ends trawl while a thread is blocked opening a
/// FIFO (no cancel reaches it there): after a short grace the signal
/// handler ends the process, resetting the color a cut line may have left
/// on, and trawl dies of SIGINT, as grep does at once.
#[test]
fn one_sigint_ends_trawl_blocked_opening_a_fifo() {
    let t = Tree::new();
    t.fifo("fifo").file("a", "x\n");
    for args in [
        &["x", "fifo"][..],
        &["-r", "-c", "-j", "1", "x", "fifo"],
        &["--color=always", "x", "a", "fifo"],
    ] {
        let mut p = Proc::run(trawl_cmd(t.path(), args));
        let pid = p.pid();
        assert!(poll_until(|| opening_a_fifo(pid)), "{}: never blocked opening the FIFO", p.what);
        // SAFETY: our unreaped child.
        unsafe { libc::kill(pid, libc::SIGINT) };
        let Some((status, _)) = p.reap(Instant::now() + HANG) else {
            p.kill();
            panic!("{} still running {HANG:?} after one SIGINT", p.what);
        };
        let (out, _) = p.outputs();
        assert_eq!(status.signal(), Some(libc::SIGINT), "{}: ended by {status:?}", p.what);
        if args[0] == "--color=always" {
            assert!(out.ends_with(b"\x1b[0m"), "{}: {}", p.what, clip(&out));
        }
    }
}

/// Whether a thread of process `pid` waits in `open` for a FIFO's writer.
fn opening_a_fifo(pid: libc::pid_t) -> bool {
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return false };
    tasks.flatten().any(|t| {
        let wchan = fs::read_to_string(t.path().join("wchan")).unwrap_or_default();
        let syscall = fs::read_to_string(t.path().join("syscall")).unwrap_or_default();
        wchan == "wait_for_partner" || syscall.starts_with(&format!("{} ", libc::SYS_openat))
    })
}

/// Whether a SIGINT sent to process `pid` is still pending (not yet
/// delivered to a thread); false once the process has ended.
fn sigint_pending(pid: libc::pid_t) -> bool {
    let Ok(status) = fs::read_to_string(format!("/proc/{pid}/status")) else { return false };
    // A zombie keeps what was sent after it ended pending for good.
    if status.lines().any(|l| l.starts_with("State:") && l.contains("zombie")) {
        return false;
    }
    let mask = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .unwrap_or(0)
    };
    (mask("ShdPnd:") | mask("SigPnd:")) & (1 << (libc::SIGINT - 1)) != 0
}

/// The pids of processes whose command line contains `token`.
fn procs_with(token: &[u8]) -> Vec<i32> {
    let mut v = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        if let Ok(cmdline) = fs::read(e.path().join("cmdline")) {
            if cmdline.windows(token.len()).any(|w| w == token) {
                v.push(pid);
            }
        }
    }
    v
}

/// The parent of process `pid`, while it exists.
fn parent_of(pid: i32) -> Option<i32> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("PPid:")).and_then(|v| v.trim().parse().ok())
}

/// Kills the processes left with the token (whatever the test outcome).
struct KillOnDrop(&'static [u8]);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pid in procs_with(self.0) {
            // SAFETY: kill(2) on a pid we found; at worst ESRCH.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

fn sigint_exec_case(cwd: &Path, args: &[&str]) {
    sigint_child_case(trawl_cmd(cwd, args));
}

/// SIGINT while `cmd` (a trawl) waits for a child running `sleep 31.4159`:
/// trawl dies of SIGINT and leaves no child behind.
fn sigint_child_case(cmd: Command) {
    const TOKEN: &[u8] = b"31.4159";
    let cleanup = KillOnDrop(TOKEN);
    let mut p = Proc::run(cmd);
    // A sleep started by trawl (trawl's own command line holds the token
    // too, from its start: signalled that early, it could still have the
    // disposition it inherited, SIGINT ignored in a background job).
    let pid = p.pid();
    assert!(
        poll_until(|| procs_with(TOKEN).iter().any(|&c| parent_of(c) == Some(pid))),
        "{}: no sleep ever ran",
        p.what
    );
    // SAFETY: our unreaped child.
    unsafe { libc::kill(p.pid(), libc::SIGINT) };
    let sent = Instant::now();
    let reaped = p.reap(sent + HANG);
    let took = sent.elapsed();
    let left = procs_with(TOKEN);
    let Some((status, _)) = reaped else {
        p.kill();
        drop(cleanup);
        panic!("{} still running {HANG:?} after SIGINT", p.what);
    };
    drop(cleanup); // the pipes close once no straggler holds them
    let _ = p.outputs();
    eprintln!("SIGINT: {} ended {took:?} after the signal", p.what);
    assert!(left.is_empty(), "{}: children left running after trawl ended: {left:?}", p.what);
    assert_eq!(status.signal(), Some(libc::SIGINT), "{}: death by SIGINT ({status:?})", p.what);
}

#[test]
fn sigint_interrupts_and_reaps_exec_children() {
    let _g = heavy();
    let t = Tree::new();
    t.file("a", "").file("b", "").file("1", "").file("2.5", "");
    sigint_exec_case(t.path(), &["find", ".", "-type", "f", "-exec", "sleep", "31.4159", ";"]);
    sigint_exec_case(t.path(), &["find", ".", "-type", "f", "-execdir", "sleep", "31.4159", ";"]);
    // The batch runs `sleep 31.4159 1 2.5` (sleep adds its operands).
    sigint_exec_case(t.path(), &["find", "1", "2.5", "-exec", "sleep", "31.4159", "{}", "+"]);
}

#[test]
fn sigint_during_extraction_kills_and_reaps_the_extractor() {
    let _g = heavy();
    let t = Tree::new();
    t.file("a.pdf", "%PDF-1.4\n");
    t.file("bin/pdftotext", "#!/bin/sh\nexec sleep 31.4159\n");
    fs::set_permissions(t.path().join("bin/pdftotext"), fs::Permissions::from_mode(0o755)).unwrap();
    let path =
        format!("{}:{}", t.path().join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = trawl_cmd(t.path(), ["--docs", "x", "a.pdf"]);
    cmd.env("PATH", path);
    sigint_child_case(cmd);
}

// ---------------------------------------------------------------------
// 13. Invalid patterns: a position under every engine choice.

#[test]
fn invalid_regex_reports_an_offset_under_every_engine() {
    let t = Tree::new();
    t.file("a.txt", "a(\n");
    for engine in [&[][..], &["-P"], &["--engine", "rust"]] {
        for pat in ["a(", "x{2,1}", "[z-a]", "(?<name"] {
            // On a terminal (issue 42: through a pipe, grep's one line).
            let r = crate::util::Cmd::trawl(t.path())
                .args([engine, &[pat, "."]].concat())
                .errors_to(crate::util::ErrorsTo::Terminal)
                .timeout(SPECIAL_TIMEOUT)
                .run();
            r.assert_code(2).assert_stdout("");
            let err = r.stderr_str();
            assert!(err.starts_with("trawl: "), "{err}");
            assert!(err.contains("offset"), "no offset in the message\n{err}");
            // One line of message, then (issue 18) the pattern and a caret.
            let lines: Vec<&str> = err.lines().collect();
            assert_eq!(lines.len(), 3, "a message and a caret\n{err}");
            assert_eq!(lines[1].trim(), pat, "{err}");
            assert_eq!(lines[2].trim(), "^", "{err}");
            let r = trawl_done(t.path(), [engine, &[pat, "."]].concat(), SPECIAL_TIMEOUT);
            r.assert(2, b"");
            let err = String::from_utf8_lossy(&r.stderr);
            assert!(err.starts_with("trawl: ") && !err.contains("offset"), "{}", r.ctx());
            assert_eq!(err.lines().count(), 1, "through a pipe, one line\n{}", r.ctx());
        }
    }
    // find -contains too (find's errors exit with 1).
    let r = trawl_done(t.path(), ["find", ".", "-contains", "a("], SPECIAL_TIMEOUT);
    r.assert(1, b"");
    assert!(String::from_utf8_lossy(&r.stderr).contains("offset"), "{}", r.ctx());
}

// ---------------------------------------------------------------------
// 14. -exec/-execdir pass argv, never a shell; names never become options.

#[test]
fn exec_arguments_are_never_options_or_shell_code() {
    let t = Tree::new();
    t.file("-n", "hello from -n\n")
        .file("--help", "hello from --help\n")
        .file(";echo pwned", "semicolon\n")
        .file("$(touch pwned)", "dollar\n")
        .file("sub/-n", "deeper\n");
    let find = |args: &[&str], want: &[&str]| {
        let r = trawl_done(t.path(), [&["find"][..], args].concat(), SPECIAL_TIMEOUT);
        r.assert_no_stderr().assert_lines(0, want);
        let gnu = Cmd::new("find", t.path()).args(args).run();
        assert_eq!(sorted_text(&r.stdout), sorted_text(&gnu.stdout), "as GNU find\n{}", r.ctx());
    };
    let pf = ["printf", "[%s]\\n", "{}"];
    let with = |pre: &[&'static str], post: &[&'static str]| -> Vec<&'static str> {
        [pre, &pf[..], post].concat()
    };
    find(&with(&[".", "-name", "-*", "-exec"], &[";"]), &["[./--help]", "[./-n]", "[./sub/-n]"]);
    find(&with(&[".", "-name", "-*", "-execdir"], &[";"]), &["[./--help]", "[./-n]", "[./-n]"]);
    find(&with(&["sub", "-name", "-n", "-execdir"], &[";"]), &["[./-n]"]);
    find(&with(&["sub", "-name", "-n", "-execdir"], &["+"]), &["[./-n]"]);
    find(&with(&["sub", "-name", "-n", "-exec"], &[";"]), &["[sub/-n]"]);
    find(
        &with(&[".", "-name", "[;$]*", "-exec"], &[";"]),
        &["[./$(touch pwned)]", "[./;echo pwned]"],
    );
    find(
        &with(&[".", "-name", "[;$]*", "-execdir"], &["+"]),
        &["[./$(touch pwned)]", "[./;echo pwned]"],
    );
    // The child reads the file: `cat ./-n`, not `cat -n` (which would wait on stdin).
    find(&[".", "-maxdepth", "1", "-name", "-n", "-execdir", "cat", "{}", ";"], &["hello from -n"]);
    find(
        &[".", "-maxdepth", "1", "-name", "--help", "-execdir", "cat", "{}", ";"],
        &["hello from --help"],
    );
    assert!(!t.path().join("pwned").exists(), "a shell ran a file name");
}

// Issue 13 #22: a FIFO named .gitignore or .ignore is never opened for
// reading (it would block the walk for ever); it gets a warning, the run
// does not fail for it, and the other rules still apply.
#[test]
fn a_fifo_named_gitignore_is_skipped_with_a_warning() {
    let t = Tree::new();
    t.file("a.txt", "needle\n").file("skip.txt", "needle\n").file(".ignore", "skip.txt\n");
    t.fifo(".gitignore");
    t.file("sub/b.txt", "needle\n");
    t.fifo("sub/.ignore");
    let r = Cmd::trawl(t.path())
        .args(["--gitignore", "--sort", "path", "-r", "needle", "."])
        .timeout(HANG)
        .run();
    r.assert_code(0).assert_stdout("./a.txt:needle\n./sub/b.txt:needle\n");
    let stderr = r.stderr_str();
    let mut err: Vec<&str> = stderr.lines().collect();
    err.sort();
    assert_eq!(
        err,
        [
            "trawl: ./.gitignore: warning: not a regular file, not read as an ignore file",
            "trawl: ./sub/.ignore: warning: not a regular file, not read as an ignore file",
        ]
    );
}

// An ignore file that cannot be read is not passed over in silence: its
// rules are unknown, so the run says so and fails (exit 2) while the search
// goes on; the other ignore files still apply. Run as nobody (root reads
// any file).
#[test]
fn an_unreadable_ignore_file_is_reported_and_the_run_fails() {
    let t = Tree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    t.file("a.txt", "needle\n").file("skip.txt", "needle\n").file(".ignore", "skip.txt\n");
    t.file(".gitignore", "a.txt\n").file("sub/b.txt", "needle\n");
    fs::set_permissions(t.path().join(".gitignore"), fs::Permissions::from_mode(0o000)).unwrap();
    let r = Cmd::new("setpriv", t.path())
        .args(AS_NOBODY)
        .args([trawl_bin(), "--gitignore", "--no-hidden", "--sort", "path", "-r", "needle", "."])
        .run();
    // .gitignore's rule (a.txt) is unknown, .ignore's (skip.txt) applies.
    r.assert_code(2).assert_stdout("./a.txt:needle\n./sub/b.txt:needle\n");
    assert_eq!(
        r.stderr_str(),
        "trawl: ./.gitignore: Permission denied; its ignore rules are not applied\n"
    );
}

// Ignore files are opened as the walk's entries are: where descriptors run
// out, a directory is closed to make room, and no ignore file's rules are
// lost (they were, silently, below about 7 descriptors: the ignored files
// were searched).
#[test]
fn ignore_files_hold_under_a_tight_descriptor_limit() {
    let t = Tree::new();
    for i in 0..16 {
        let dir = format!("d/{i}/a/b/c/d/e/f/g/h");
        t.file(format!("{dir}/.ignore"), "skip\n");
        t.file(format!("{dir}/i/j/k/l/m/n/o/leaf"), "leaf\n");
        t.file(format!("{dir}/i/j/k/l/m/n/o/skip"), "leaf\n");
    }
    let trawl = format!("'{}' --gitignore --sort path -r -j 8 leaf d", trawl_bin());
    let want = Cmd::new("sh", t.path()).args(["-c", &trawl]).run();
    want.assert_code(0);
    assert_eq!(want.stdout_str().lines().count(), 16, "{}", want.stdout_str());
    assert!(!want.stdout_str().contains("skip"));
    for limit in [16, 8, 6, 5] {
        let script = format!("ulimit -n {limit}; {trawl}");
        let r = Cmd::new("sh", t.path()).args(["-c", &script]).run();
        assert_eq!((r.code, r.stderr_str().as_str()), (0, ""), "{script}");
        assert_eq!(r.stdout_str(), want.stdout_str(), "{script}");
    }
}

// Issue 13 #2: a write error (a full disk) is reported as GNU grep does,
// once, with exit status 2, whatever the output mode.
#[test]
fn write_errors_are_reported_and_exit_two() {
    let t = Tree::new();
    let lines: String = (1..=5000).map(|i| format!("{i}\n")).collect();
    t.file("n.txt", &lines).file("d/a.txt", &lines).file("d/b.txt", &lines);
    let cases: [&[&str]; 6] =
        [&["x"], &["1"], &["-c", "1"], &["-l", "1"], &["--line-buffered", "1"], &["-r", "1", "d"]];
    for args in cases {
        let run = |program: &str, extra: &[&str]| {
            let mut cmd =
                if program == "trawl" { Cmd::trawl(t.path()) } else { Cmd::grep(t.path()) }
                    .command();
            cmd.args(extra).args(args);
            if !args.contains(&"d") {
                cmd.stdin(File::open(t.path().join("n.txt")).unwrap());
            }
            let out = cmd
                .stdout(File::create("/dev/full").unwrap())
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            (out.status.code(), String::from_utf8_lossy(&out.stderr).replace("grep:", "trawl:"))
        };
        let want = if args == ["x"] { run("grep", &[]) } else { run("grep", &["-P"]) };
        let got = run("trawl", &[]);
        assert_eq!(got, want, "{args:?}");
    }
}

// Issue 13 #1: a file that is also standard output is not read (it could
// grow without end): GNU grep's message and exit status, the other files
// still searched; not checked with -c or -m 1, as grep.
#[test]
fn an_input_that_is_also_the_output_is_refused() {
    let cases: [(&[&str], bool); 6] = [
        (&["1", "out"], false),
        (&["1"], true),
        (&["1", "out", "other"], false),
        (&["-c", "1", "out"], false),
        (&["-m1", "1", "out"], false),
        (&["-r", "1", "."], false),
    ];
    for (args, from_stdin) in cases {
        let run = |program: &str| {
            let t = Tree::new();
            t.file("out", "1\n2\n3\n").file("other", "1\n2\n3\n");
            let mut cmd =
                if program == "trawl" { Cmd::trawl(t.path()) } else { Cmd::grep(t.path()) }
                    .command();
            let out = File::options().append(true).open(t.path().join("out")).unwrap();
            cmd.args(args).stdout(out).stderr(Stdio::piped());
            if from_stdin {
                cmd.stdin(File::open(t.path().join("out")).unwrap());
            }
            let r = cmd.output().unwrap();
            let stderr = String::from_utf8_lossy(&r.stderr).replace("grep:", "trawl:");
            (r.status.code(), stderr, fs::read_to_string(t.path().join("out")).unwrap())
        };
        assert_eq!(run("trawl"), run("grep"), "{args:?}");
    }
}
