//! The harness: temporary trees, running trawl and GNU grep with a time
//! limit, and comparing their output.
//!
//! GNU grep 3.8 (`LC_ALL=C grep -P -r`) is the oracle. Its output and trawl's
//! are compared file by file: each file's lines in exact order, only the
//! order of the files free (trawl searches files in parallel); runs over a
//! single file are compared byte for byte. Standard error is compared too.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long any trawl or grep run may take before it is killed and the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// How long a process that should end at once (its output pipe closed, a
/// signal received) may take: it ends in milliseconds, so only a hang takes
/// this long, however busy the machine is.
pub const HANG: Duration = Duration::from_secs(60);

/// Calls `ready` every few milliseconds until it returns true; false if
/// it never did within [`HANG`]. Tests wait for an event this way instead
/// of sleeping for a time the event usually takes.
pub fn poll_until(mut ready: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < HANG {
        if ready() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    ready()
}

/// A cache directory for this test process, outside every searched tree.
fn test_cache_dir() -> PathBuf {
    std::env::temp_dir().join(format!("trawl-test-cache-{}", std::process::id()))
}

/// The regex engine a differential test runs trawl with.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Engine {
    /// `--engine rust` (`--engine rust` with an explicit syntax such as -G).
    Rust,
    /// `-P` (`--engine pcre2` with an explicit syntax such as -G or -F).
    Pcre2,
    /// No engine option: trawl picks (used where a pattern needs PCRE2).
    Auto,
}

impl Engine {
    /// The options that select this engine for a Perl-syntax pattern.
    fn perl_flags(self) -> &'static [&'static str] {
        match self {
            Engine::Rust => &["--engine", "rust"],
            Engine::Pcre2 => &["-P"],
            Engine::Auto => &[],
        }
    }

    /// The options that select this engine alongside an explicit syntax flag.
    fn explicit_flags(self) -> &'static [&'static str] {
        match self {
            Engine::Rust => &["--engine", "rust"],
            Engine::Pcre2 => &["--engine", "pcre2"],
            Engine::Auto => &[],
        }
    }
}

/// The outcome of one process.
#[derive(Clone, Debug)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
    /// The command line, for failure messages.
    pub cmdline: String,
}

impl Run {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// Panics with the full picture unless the exit code is `code`.
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            code,
            "exit code of `{}`\nstdout:\n{}\nstderr:\n{}",
            self.cmdline,
            clip(&self.stdout),
            clip(&self.stderr)
        );
        self
    }

    /// Panics unless standard output is exactly `want`.
    pub fn assert_stdout(&self, want: impl AsRef<[u8]>) -> &Self {
        let want = want.as_ref();
        assert!(
            self.stdout == want,
            "stdout of `{}`\n--- want:\n{}\n--- got:\n{}\n--- stderr:\n{}",
            self.cmdline,
            clip(want),
            clip(&self.stdout),
            clip(&self.stderr)
        );
        self
    }

    /// Panics unless standard error is empty.
    pub fn assert_no_stderr(&self) -> &Self {
        assert!(
            self.stderr.is_empty(),
            "unexpected stderr of `{}`:\n{}",
            self.cmdline,
            clip(&self.stderr)
        );
        self
    }

    /// Lines of standard output, sorted.
    pub fn sorted_lines(&self) -> Vec<Vec<u8>> {
        sorted_records(&self.stdout, b'\n')
    }
}

/// A lossy, length-limited rendering of output for failure messages.
pub fn clip(b: &[u8]) -> String {
    const MAX: usize = 6000;
    let s = String::from_utf8_lossy(&b[..b.len().min(MAX)]).into_owned();
    let s = s.replace('\0', "\\0").replace('\x1b', "\\e");
    if b.len() > MAX {
        format!("{s}\n... ({} bytes in all)", b.len())
    } else {
        s
    }
}

/// Splits `b` into records ended by `sep` (the last may lack it) and sorts them.
pub fn sorted_records(b: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = b.split(|&c| c == sep).map(<[u8]>::to_vec).collect();
    if v.last().is_some_and(Vec::is_empty) {
        v.pop();
    }
    v.sort();
    v
}

/// Where a command's standard error goes.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ErrorsTo {
    /// A pipe, as a script reads it.
    Pipe,
    /// A pseudo-terminal (raw mode: no CR added), as a person reads it.
    Terminal,
}

/// What a command's standard input is, besides a pipe of given bytes or
/// /dev/null (the default).
#[derive(Clone, Debug)]
pub enum StdinIs {
    /// A pseudo-terminal nobody types into.
    Terminal,
    /// Closed (the program starts without descriptor 0).
    Closed,
    /// This regular file, opened for reading.
    File(PathBuf),
    /// One end of a socket pair; the other end writes these bytes.
    Socket(Vec<u8>),
}

/// A command to run with a time limit.
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    cwd: PathBuf,
    stdin: Option<Vec<u8>>,
    env: Vec<(OsString, OsString)>,
    timeout: Duration,
    errors_to: ErrorsTo,
    stdin_is: Option<StdinIs>,
}

/// A pseudo-terminal in raw mode: (master, slave).
pub fn raw_pty() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    let (mut master, mut slave) = (0, 0);
    // SAFETY: out-pointers to ints; no name, termios or size.
    let r = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: fresh descriptors owned from here on.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // SAFETY: a valid descriptor and termios buffer.
    unsafe {
        let mut tio: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(slave.as_raw_fd(), &mut tio), 0);
        libc::cfmakeraw(&mut tio);
        assert_eq!(libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &tio), 0);
    }
    (master, slave)
}

impl Cmd {
    pub fn new(program: impl AsRef<OsStr>, cwd: &Path) -> Cmd {
        Cmd {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            cwd: cwd.to_owned(),
            stdin: None,
            env: Vec::new(),
            timeout: TIMEOUT,
            errors_to: ErrorsTo::Pipe,
            stdin_is: None,
        }
    }

    /// Standard input of another kind than a pipe or /dev/null.
    pub fn stdin_is(mut self, what: StdinIs) -> Cmd {
        self.stdin_is = Some(what);
        self
    }

    /// Standard error on a terminal (standard output stays a pipe).
    pub fn errors_to(mut self, to: ErrorsTo) -> Cmd {
        self.errors_to = to;
        self
    }

    /// trawl, with its working directory in `cwd`.
    pub fn trawl(cwd: &Path) -> Cmd {
        Cmd::new(trawl_bin(), cwd)
    }

    /// GNU grep, with its working directory in `cwd`.
    pub fn grep(cwd: &Path) -> Cmd {
        Cmd::new("grep", cwd)
    }

    pub fn args<I, S>(mut self, it: I) -> Cmd
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(it.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Cmd {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    pub fn env(mut self, k: impl AsRef<OsStr>, v: impl AsRef<OsStr>) -> Cmd {
        self.env.push((k.as_ref().to_owned(), v.as_ref().to_owned()));
        self
    }

    pub fn timeout(mut self, t: Duration) -> Cmd {
        self.timeout = t;
        self
    }

    fn cmdline(&self) -> String {
        let mut s = String::new();
        for (k, v) in &self.env {
            s += &format!("{}={} ", k.to_string_lossy(), v.to_string_lossy());
        }
        s += &Path::new(&self.program).file_name().unwrap_or_default().to_string_lossy();
        for a in &self.args {
            s.push(' ');
            s += &shell_quote(a);
        }
        s += &format!("   (in {})", self.cwd.display());
        s
    }

    /// A `Command` with the environment both tools get: the C locale, no
    /// color settings from the caller.
    pub fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .current_dir(&self.cwd)
            .env("LC_ALL", "C")
            .env_remove("GREP_COLOR")
            .env_remove("GREP_COLORS")
            .env_remove("GREP_OPTIONS")
            .env_remove("TERM")
            // Never the user's cache of extracted text (tests that look at
            // the cache set their own).
            .env("XDG_CACHE_HOME", test_cache_dir())
            // Nor the user's configuration (extractors, git's global
            // excludes): tests that need one set their own.
            .env("XDG_CONFIG_HOME", test_cache_dir().join("no-config"))
            .env_remove("TRAWL_EXTRACTORS")
            .env_remove("TRAWL_CONFIG_PATH");
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// Runs to completion; panics (after killing the process) past the time limit.
    pub fn run(&self) -> Run {
        let cmdline = self.cmdline();
        let mut command = self.command();
        command
            .stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped());
        // Kept open (the terminal's master, the socket's writer) until the
        // run ends.
        let mut stdin_keep: Option<Box<dyn Send>> = None;
        match &self.stdin_is {
            None => {}
            Some(StdinIs::Terminal) => {
                let (master, slave) = raw_pty();
                command.stdin(Stdio::from(slave));
                stdin_keep = Some(Box::new(master));
            }
            Some(StdinIs::Closed) => {
                // A shell closes descriptor 0, then becomes the program
                // (its arguments passed as "$@", never read as script).
                let mut closed = Command::new("sh");
                closed.arg("-c").arg("exec 0<&- \"$0\" \"$@\"").arg(&self.program);
                closed.args(&self.args).current_dir(&self.cwd);
                for (k, v) in command.get_envs() {
                    match v {
                        Some(v) => closed.env(k, v),
                        None => closed.env_remove(k),
                    };
                }
                closed.stdout(Stdio::piped());
                command = closed;
            }
            Some(StdinIs::File(path)) => {
                let f = fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                command.stdin(Stdio::from(f));
            }
            Some(StdinIs::Socket(bytes)) => {
                let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
                command.stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs)));
                let bytes = bytes.clone();
                stdin_keep = Some(Box::new(std::thread::spawn(move || {
                    let _ = ours.write_all(&bytes);
                })));
            }
        }
        let terminal = match self.errors_to {
            ErrorsTo::Pipe => {
                command.stderr(Stdio::piped());
                None
            }
            ErrorsTo::Terminal => {
                let (master, slave) = raw_pty();
                command.stderr(Stdio::from(slave));
                Some(master)
            }
        };
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot run `{cmdline}`: {e}"));
        // The slave side's only other copy was the command's: the master
        // reads EIO once the child (and its children) closed it.
        drop(command);
        let writer = self.stdin.clone().map(|input| {
            let mut w = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                // The tool may exit without reading everything (e.g. -q).
                let _ = w.write_all(&input);
            })
        });
        let mut out = child.stdout.take().unwrap();
        let mut err: Box<dyn Read + Send> = match terminal {
            Some(master) => Box::new(fs::File::from(master)),
            None => Box::new(child.stderr.take().unwrap()),
        };
        let out_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = out.read_to_end(&mut b);
            b
        });
        let err_t = std::thread::spawn(move || {
            let mut b = Vec::new();
            let mut chunk = [0u8; 65536];
            loop {
                match err.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => b.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // EIO: a terminal's slave side is closed.
                    Err(_) => break,
                }
            }
            b
        });
        let start = Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if start.elapsed() > self.timeout {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{cmdline}` did not finish within {:?}: killed", self.timeout);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        if let Some(w) = writer {
            let _ = w.join();
        }
        drop(stdin_keep);
        let stdout = out_t.join().unwrap();
        let stderr = err_t.join().unwrap();
        let code = status
            .code()
            .unwrap_or_else(|| panic!("`{cmdline}` was killed by a signal: {status:?}"));
        Run { stdout, stderr, code, cmdline }
    }
}

fn shell_quote(a: &OsStr) -> String {
    let s = a.to_string_lossy();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=,:+".contains(&b)) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''").replace('\n', "\\n"))
    }
}

/// The trawl binary under test.
pub fn trawl_bin() -> &'static str {
    env!("CARGO_BIN_EXE_trawl")
}

/// ripgrep 15.2, the reference for the conventions trawl takes from it
/// (.ci/deps builds it where the benchmarks keep their peers).
pub fn rg_bin() -> std::path::PathBuf {
    let base = match std::env::var_os("TRAWL_BENCH_DIR") {
        Some(d) => std::path::PathBuf::from(d),
        None => std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME"))
            .join(".cache/trawl-bench"),
    };
    let rg = base.join("peers/bin/rg");
    assert!(rg.is_file(), "{} is missing: .ci/deps builds it", rg.display());
    rg
}

/// A temporary directory tree that is removed when dropped.
pub struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    /// Every path under the tree as grep may print it: relative, and with
    /// `./` in front (links to directories followed, each directory once).
    pub fn names(&self) -> BTreeSet<Vec<u8>> {
        fn walk(
            dir: &Path,
            rel: &[u8],
            out: &mut BTreeSet<Vec<u8>>,
            seen: &mut BTreeSet<(u64, u64)>,
        ) {
            let Ok(meta) = fs::metadata(dir) else { return };
            if !seen.insert((meta.dev(), meta.ino())) {
                return;
            }
            let Ok(entries) = fs::read_dir(dir) else { return };
            for e in entries.flatten() {
                let name = e.file_name();
                let sub = if rel.is_empty() {
                    name.as_bytes().to_vec()
                } else {
                    [rel, b"/", name.as_bytes()].concat()
                };
                out.insert(sub.clone());
                out.insert([b"./".as_slice(), &sub].concat());
                if e.path().is_dir() {
                    walk(&e.path(), &sub, out, seen);
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(self.path(), b"", &mut out, &mut BTreeSet::new());
        out.insert(b"(standard input)".to_vec());
        out
    }
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

impl Tree {
    pub fn new() -> Tree {
        Tree { dir: tempfile::Builder::new().prefix("trawl-test-").tempdir().unwrap() }
    }

    /// A tree in another directory (for example on another file system).
    pub fn new_in(parent: &Path) -> std::io::Result<Tree> {
        Ok(Tree { dir: tempfile::Builder::new().prefix("trawl-test-").tempdir_in(parent)? })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Creates (or overwrites) a file, and its parent directories.
    pub fn file(&self, rel: impl AsRef<OsStr>, contents: impl AsRef<[u8]>) -> &Self {
        let p = self.path().join(rel.as_ref());
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&p, contents).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        self
    }

    /// Creates a file whose relative name is given as raw bytes.
    pub fn file_bytes(&self, rel: &[u8], contents: impl AsRef<[u8]>) -> &Self {
        self.file(OsStr::from_bytes(rel), contents)
    }

    pub fn dir(&self, rel: impl AsRef<OsStr>) -> &Self {
        fs::create_dir_all(self.path().join(rel.as_ref())).unwrap();
        self
    }

    /// Creates the symbolic link `link` (relative to the tree) pointing at `target` (verbatim).
    pub fn symlink(&self, target: impl AsRef<Path>, link: impl AsRef<OsStr>) -> &Self {
        let l = self.path().join(link.as_ref());
        if let Some(parent) = l.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        std::os::unix::fs::symlink(target.as_ref(), &l).unwrap();
        self
    }

    /// Creates a named pipe (nobody ever writes to it).
    pub fn fifo(&self, rel: impl AsRef<OsStr>) -> &Self {
        let p = self.path().join(rel.as_ref());
        let st = Command::new("mkfifo").arg(&p).status().expect("run mkfifo");
        assert!(st.success(), "mkfifo {} failed", p.display());
        self
    }

    /// trawl with its working directory at the root of the tree.
    pub fn trawl(&self) -> Cmd {
        Cmd::trawl(self.path())
    }

    /// GNU grep with its working directory at the root of the tree.
    pub fn grep(&self) -> Cmd {
        Cmd::grep(self.path())
    }

    /// A differential comparison of trawl (with `engine`) and grep in this tree.
    pub fn parity(&self, engine: Engine) -> Parity<'_> {
        Parity {
            tree: self,
            engine,
            args: Vec::new(),
            trawl_args: Vec::new(),
            grep_args: None,
            syntax: None,
            grep_syntax: None,
            recursive: true,
            stdin: None,
            env: Vec::new(),
            exact: false,
            sep: b'\n',
            timeout: TIMEOUT,
            errors_expected: false,
            worded_differently: None,
        }
    }
}

/// One differential test: the same options for trawl and GNU grep.
///
/// trawl gets the engine options and `args`; grep gets `LC_ALL=C`, `-r`
/// (unless [`Parity::stdin_only`]), `-P` (or the explicit syntax flag) and
/// `args`. Standard output is compared after sorting its records (or byte for
/// byte with [`Parity::exact`]), and so are the exit codes and whether
/// anything went to standard error. grep's `grep: PATH: binary file matches`
/// (standard error) becomes `trawl: PATH: binary file matches` (standard
/// output), trawl's intended difference.
pub struct Parity<'t> {
    tree: &'t Tree,
    engine: Engine,
    args: Vec<OsString>,
    trawl_args: Vec<OsString>,
    grep_args: Option<Vec<OsString>>,
    syntax: Option<&'static str>,
    grep_syntax: Option<&'static str>,
    recursive: bool,
    stdin: Option<Vec<u8>>,
    env: Vec<(OsString, OsString)>,
    exact: bool,
    sep: u8,
    timeout: Duration,
    errors_expected: bool,
    /// Why standard error is compared only for being empty or not.
    worded_differently: Option<&'static str>,
}

/// What a differential run saw.
pub struct Compared {
    pub trawl: Run,
    #[allow(dead_code)]
    pub grep: Run,
}

impl<'t> Parity<'t> {
    /// Options and operands given to both tools.
    pub fn args<I, S>(mut self, it: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(it.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Options for trawl alone (ones grep lacks, such as -j), before `args`.
    pub fn trawl_args<I, S>(mut self, it: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.trawl_args.extend(it.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Options and operands for grep alone, replacing `args` there.
    pub fn grep_args<I, S>(mut self, it: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.grep_args = Some(it.into_iter().map(|a| a.as_ref().to_owned()).collect());
        self
    }

    /// A pattern syntax flag (`-F`, `-G` or `-E`) given to both tools; the
    /// engine is then chosen with `--engine`.
    pub fn syntax(mut self, flag: &'static str) -> Self {
        self.syntax = Some(flag);
        self
    }

    /// The syntax flag grep alone gets instead of `-P` (trawl keeps its
    /// Perl syntax), e.g. `-E` for several `-e` patterns that grep -P refuses.
    pub fn grep_syntax(mut self, flag: &'static str) -> Self {
        self.grep_syntax = Some(flag);
        self
    }

    /// Reads standard input: grep gets no `-r` (which would search ".").
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Self {
        self.stdin = Some(input.as_ref().to_vec());
        self.recursive = false;
        self
    }

    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Compare standard output byte for byte (a single file: order is fixed).
    pub fn exact(mut self) -> Self {
        self.exact = true;
        self
    }

    /// Records end with `sep` rather than a newline (`-Z -l`).
    pub fn records(mut self, sep: u8) -> Self {
        self.sep = sep;
        self
    }

    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Standard error is only checked for being empty in both or in
    /// neither: trawl's messages for this case are worded otherwise than
    /// grep's, for the reason given (each of them is checked by the test).
    pub fn worded_differently(mut self, why: &'static str) -> Self {
        self.worded_differently = Some(why);
        self
    }

    /// grep is expected to exit with 2 (without this, that is a harness bug:
    /// two tools failing alike would prove nothing).
    pub fn errors_expected(mut self) -> Self {
        self.errors_expected = true;
        self
    }

    fn build(&self, mut c: Cmd, args: &[OsString]) -> Cmd {
        if let Some(input) = &self.stdin {
            c = c.stdin(input);
        }
        for (k, v) in &self.env {
            c = c.env(k, v);
        }
        c.timeout(self.timeout).args(args)
    }

    /// Runs both tools and asserts that they agree.
    pub fn check(self) -> Compared {
        let mut targs: Vec<OsString> = Vec::new();
        match self.syntax {
            Some(s) => {
                targs.push(s.into());
                targs.extend(self.engine.explicit_flags().iter().map(OsString::from));
            }
            None => targs.extend(self.engine.perl_flags().iter().map(OsString::from)),
        }
        targs.extend(self.trawl_args.iter().cloned());
        targs.extend(self.args.iter().cloned());
        let mut gargs: Vec<OsString> = Vec::new();
        if self.recursive {
            gargs.push("-r".into());
        }
        gargs.push(self.grep_syntax.or(self.syntax).unwrap_or("-P").into());
        gargs.extend(self.grep_args.clone().unwrap_or_else(|| self.args.clone()));

        let trawl = self.build(self.tree.trawl(), &targs).run();
        let grep = self.build(self.tree.grep(), &gargs).run();
        assert!(
            self.errors_expected || grep.code != 2,
            "grep itself failed (a test bug): `{}`\n{}",
            grep.cmdline,
            clip(&grep.stderr)
        );
        let (want_out, want_err) = grep_as_trawl(&grep);
        let ctx = || {
            format!(
                "trawl: {}\n grep: {}\n--- grep stdout (as trawl's):\n{}\n--- trawl stdout:\n{}\n--- grep stderr:\n{}\n--- trawl stderr:\n{}",
                trawl.cmdline,
                grep.cmdline,
                clip(&want_out),
                clip(&trawl.stdout),
                clip(&grep.stderr),
                clip(&trawl.stderr)
            )
        };
        if self.exact {
            assert!(trawl.stdout == want_out, "stdout differs (byte for byte)\n{}", ctx());
        } else {
            let names = self.tree.names();
            let (w, g) = (
                FileBlocks::of(&want_out, self.sep, &names),
                FileBlocks::of(&trawl.stdout, self.sep, &names),
            );
            if let Some(why) = w.differs_from(&g) {
                panic!("stdout differs, file by file: {why}\n{}", ctx());
            }
        }
        assert_eq!(trawl.code, grep.code, "exit codes differ (left trawl, right grep)\n{}", ctx());
        if self.worded_differently.is_some() {
            assert_eq!(
                trawl.stderr.is_empty(),
                want_err.is_empty(),
                "one tool wrote to stderr, the other did not\n{}",
                ctx()
            );
        } else {
            let (want_err, got_err) = (sorted_stderr(&want_err), sorted_stderr(&trawl.stderr));
            assert!(want_err == got_err, "stderr differs (sorted; prefix aside)\n{}", ctx());
        }
        if !trawl.stderr.is_empty() {
            assert!(trawl.stderr.starts_with(b"trawl: "), "stderr without `trawl: `\n{}", ctx());
        }
        Compared { trawl, grep }
    }
}

/// Standard error's lines, sorted, each without its `grep: `/`trawl: `
/// prefix (files are searched in parallel: messages come in any order).
fn sorted_stderr(err: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = sorted_records(err, b'\n')
        .into_iter()
        .map(|l| {
            let body = l.strip_prefix(b"grep: ").or_else(|| l.strip_prefix(b"trawl: "));
            body.map_or(l.clone(), <[u8]>::to_vec)
        })
        .collect();
    v.sort();
    v
}

/// Output records grouped by the file they belong to: each file's records
/// in their order, the files in any order (they are searched in parallel),
/// and the `--` separators between groups counted.
#[derive(Debug)]
struct FileBlocks {
    /// (file, its records in order); a file split in two blocks shows twice.
    blocks: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    /// Records that name no file (`-h`, `-c` of standard input): their
    /// file is unknown, so only the set of them is compared (sorted).
    unnamed: Vec<Vec<u8>>,
    separators: usize,
}

impl FileBlocks {
    fn of(out: &[u8], sep: u8, names: &BTreeSet<Vec<u8>>) -> FileBlocks {
        let mut records: Vec<&[u8]> = out.split(|&c| c == sep).collect();
        if records.last().is_some_and(|r| r.is_empty()) {
            records.pop();
        }
        let mut fb = FileBlocks { blocks: Vec::new(), unnamed: Vec::new(), separators: 0 };
        for r in records {
            if r == b"--" {
                fb.separators += 1;
                continue;
            }
            let key = file_of(r, names);
            if key.is_empty() {
                fb.unnamed.push(r.to_vec());
                continue;
            }
            match fb.blocks.last_mut() {
                Some((k, rs)) if *k == key => rs.push(r.to_vec()),
                _ => fb.blocks.push((key, vec![r.to_vec()])),
            }
        }
        fb.unnamed.sort();
        fb
    }

    /// Why `self` (grep's) and `other` (trawl's) differ, if they do.
    fn differs_from(&self, other: &FileBlocks) -> Option<String> {
        let show = |b: &FileBlocks| {
            let mut v: Vec<(Vec<u8>, Vec<Vec<u8>>)> = b.blocks.clone();
            v.sort();
            v
        };
        let (w, g) = (show(self), show(other));
        if w != g {
            for (k, rs) in &g {
                let n = g.iter().filter(|(k2, _)| k2 == k).count();
                if n > 1 && w.iter().filter(|(k2, _)| k2 == k).count() < n {
                    return Some(format!("trawl split {}'s output in {n} pieces", clip(k)));
                }
                match w.iter().find(|(k2, _)| k2 == k) {
                    None => return Some(format!("trawl printed {} (grep did not)", clip(k))),
                    Some((_, want)) if want != rs => {
                        return Some(format!(
                            "{}: grep printed\n{}\ntrawl printed\n{}",
                            clip(k),
                            clip(&want.join(&b'\n')),
                            clip(&rs.join(&b'\n'))
                        ))
                    }
                    _ => {}
                }
            }
            let missing: Vec<String> =
                w.iter().filter(|b| !g.contains(b)).take(8).map(|(k, _)| clip(k)).collect();
            return Some(format!("files missing from trawl's output: {missing:?}"));
        }
        if let Some(d) = record_differences(&self.unnamed, &other.unnamed) {
            return Some(format!("lines naming no file differ (sorted): {d}"));
        }
        (self.separators != other.separators).then(|| {
            format!("{} `--` lines from grep, {} from trawl", self.separators, other.separators)
        })
    }
}

/// What differs between two sorted record lists (the reference's first),
/// or None: the counts and up to ten records missing and extra. The grep
/// and find harnesses both report differences through it.
pub fn record_differences(want: &[Vec<u8>], got: &[Vec<u8>]) -> Option<String> {
    if want == got {
        return None;
    }
    let missing: Vec<String> =
        want.iter().filter(|l| !got.contains(l)).take(10).map(|l| clip(l)).collect();
    let extra: Vec<String> =
        got.iter().filter(|l| !want.contains(l)).take(10).map(|l| clip(l)).collect();
    Some(format!(
        "{} records from the reference, {} from trawl\nmissing from trawl: {missing:#?}\nextra in trawl: {extra:#?}",
        want.len(),
        got.len()
    ))
}

/// The file a record of grep's output belongs to: the longest of `names`
/// that the record starts with, followed by a separator (`:`, `-`, NUL) or
/// nothing; a binary-file message's path; empty when none is named.
fn file_of(record: &[u8], names: &BTreeSet<Vec<u8>>) -> Vec<u8> {
    const BINARY: &[u8] = b": binary file matches";
    if let Some(path) = record.strip_prefix(b"trawl: ").and_then(|r| r.strip_suffix(BINARY)) {
        return path.to_vec();
    }
    let mut best: &[u8] = b"";
    for (i, &c) in record.iter().enumerate() {
        if matches!(c, b':' | b'-' | 0) && names.contains(&record[..i]) {
            best = &record[..i];
        }
    }
    if names.contains(record) {
        best = record;
    }
    best.to_vec()
}

/// grep's standard output and error as trawl writes them: the binary-file
/// messages move from standard error to the end of standard output.
pub fn grep_as_trawl(grep: &Run) -> (Vec<u8>, Vec<u8>) {
    const SUFFIX: &[u8] = b": binary file matches";
    let mut out = grep.stdout.clone();
    let mut err = Vec::new();
    for line in grep.stderr.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if body.starts_with(b"grep: ") && body.ends_with(SUFFIX) {
            out.extend_from_slice(b"trawl: ");
            out.extend_from_slice(&body[b"grep: ".len()..]);
            out.push(b'\n');
        } else {
            err.extend_from_slice(line);
        }
    }
    (out, err)
}

/// Lines of `b` (without their newlines), in order.
pub fn lines(b: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Runs `f` under both engines' trawl-side flags for trawl-only tests.
pub fn engine_flags(engine: Engine) -> Vec<&'static str> {
    engine.perl_flags().to_vec()
}

/// The harness's own check: the file-by-file comparison sees what sorting
/// hid (order within a file, a file's output split, a moved `--`) and
/// accepts any order of whole files.
#[test]
fn file_blocks_compare_each_file_in_order() {
    let names: BTreeSet<Vec<u8>> = [b"./a".to_vec(), b"./b".to_vec()].into();
    let blocks = |s: &str| FileBlocks::of(s.as_bytes(), b'\n', &names);
    let grep = blocks("./a:1:x\n./a-2-y\n--\n./b:1:z\n");
    assert!(grep.differs_from(&blocks("./b:1:z\n--\n./a:1:x\n./a-2-y\n")).is_none());
    assert!(grep.differs_from(&blocks("./a-2-y\n./a:1:x\n--\n./b:1:z\n")).is_some());
    assert!(grep.differs_from(&blocks("./a:1:x\n--\n./b:1:z\n./a-2-y\n")).is_some());
    assert!(grep.differs_from(&blocks("./a:1:x\n./a-2-y\n./b:1:z\n")).is_some());
    assert!(grep.differs_from(&blocks("./a:1:x\n./a-2-y\n--\n./b:1:z\n./b:1:z\n")).is_some());
}
