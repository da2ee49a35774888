//! Documents read by another program (PDF through poppler's `pdftotext`):
//! a child process per document, its text streamed to the searcher as it
//! comes.
//!
//! How children are run (Recoll's lessons on spawn cost and descriptor
//! hygiene): through `std::process::Command` with argv and no `pre_exec`,
//! so the C library's posix_spawn path starts them; the document is the
//! child's standard input (an open file, or an anonymous temporary file
//! holding an archive member), so no file name ever reaches the child or a
//! shell; every descriptor trawl opens is close-on-exec, so the child holds
//! only its standard streams. At most [`ExternalLimits::jobs`] children
//! run at once; each is killed past its time limit, its output limit or
//! when the run is cancelled, has its address space limited (prlimit after
//! the spawn), and is always reaped before the search moves on.

use std::fs::File;
use std::io::{self, Read};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Bounds on the children that extract text.
#[derive(Clone, Copy, Debug)]
pub struct ExternalLimits {
    /// Children running at once (0: one per CPU).
    pub jobs: usize,
    /// A child still running after this long is killed.
    pub timeout: Duration,
    /// A child that writes more text than this is killed.
    pub max_output: u64,
    /// Address space a child may use (RLIMIT_AS).
    pub max_memory: u64,
}

impl Default for ExternalLimits {
    fn default() -> Self {
        ExternalLimits {
            jobs: 0,
            timeout: Duration::from_secs(30),
            max_output: 1 << 30,
            max_memory: 2 << 30,
        }
    }
}

/// A program that turns a document on its standard input into text on its
/// standard output.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tool {
    pub(crate) program: &'static str,
    pub(crate) args: &'static [&'static str],
    /// Where it comes from, for the message when it is missing.
    pub(crate) package: &'static str,
}

/// poppler's pdftotext: reading order (not `-layout`: the same speed, and
/// what `pdftotext FILE -` users grep), UTF-8, no messages; pages end
/// with a form feed.
pub(crate) const PDFTOTEXT: Tool = Tool {
    program: "pdftotext",
    args: &["-q", "-enc", "UTF-8", "-", "-"],
    package: "poppler-utils",
};

/// Runs tools under [`ExternalLimits`]; shared by every search thread.
#[derive(Debug)]
pub(crate) struct Runner {
    limits: ExternalLimits,
    /// Children that may run at once (`limits.jobs`, 0 made one per CPU).
    jobs: usize,
    /// Children running now.
    running: Mutex<usize>,
    freed: Condvar,
    /// A tool was found missing (reported once; its documents are then
    /// searched as bytes).
    missing: AtomicBool,
    /// Set when the run is cancelled: children are killed.
    cancel: Arc<AtomicBool>,
    /// What identifies the tool's output for the cache (pdftotext, the
    /// only tool so far): found once.
    identity: OnceLock<Option<Vec<u8>>>,
}

/// What running a tool on a document gave.
pub(crate) enum Outcome {
    /// The tool ran; the visitor's result.
    Ran(crate::Flow),
    /// The tool is missing (and this is the first time): the caller
    /// reports it and searches the document as bytes.
    Missing(io::Error),
    /// The tool was missing before: search the document as bytes, quietly.
    MissingBefore,
}

impl Runner {
    pub(crate) fn new(limits: ExternalLimits, cancel: Arc<AtomicBool>) -> Runner {
        let jobs = match limits.jobs {
            0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
            n => n,
        };
        Runner {
            limits,
            jobs,
            running: Mutex::new(0),
            freed: Condvar::new(),
            missing: AtomicBool::new(false),
            cancel,
            identity: OnceLock::new(),
        }
    }

    /// What the tool's output depends on: its name and arguments, and the
    /// inode, size and mtime of the executable PATH finds (a new version is
    /// a new file). None when PATH has no such executable.
    pub(crate) fn identity(&self, tool: Tool) -> Option<Vec<u8>> {
        self.identity
            .get_or_init(|| {
                use std::os::unix::fs::{MetadataExt, PermissionsExt};
                let path = std::env::var_os("PATH")?;
                std::env::split_paths(&path).find_map(|dir| {
                    let md = std::fs::metadata(dir.join(tool.program)).ok()?;
                    if !md.is_file() || md.permissions().mode() & 0o111 == 0 {
                        return None;
                    }
                    let mut id = Vec::new();
                    for part in std::iter::once(&tool.program).chain(tool.args) {
                        id.extend_from_slice(part.as_bytes());
                        id.push(0);
                    }
                    for v in
                        [md.dev(), md.ino(), md.size(), md.mtime() as u64, md.mtime_nsec() as u64]
                    {
                        id.extend_from_slice(&v.to_le_bytes());
                    }
                    Some(id)
                })
            })
            .clone()
    }

    /// Waits for a free slot; the slot is given back when the guard drops.
    fn slot(&self) -> Slot<'_> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        while *running >= self.jobs {
            running = self.freed.wait(running).unwrap_or_else(|p| p.into_inner());
        }
        *running += 1;
        Slot(self)
    }

    /// Runs `tool` with `document` as its standard input and hands its
    /// output to `text` as it comes. An error of the tool (a damaged or
    /// encrypted document, a crash, a limit) is returned after `text` saw
    /// what came before it.
    pub(crate) fn run(
        &self,
        tool: Tool,
        document: File,
        text: &mut dyn FnMut(&mut dyn Read) -> crate::Flow,
    ) -> io::Result<Outcome> {
        if self.missing.load(Ordering::Relaxed) {
            return Ok(Outcome::MissingBefore);
        }
        let _slot = self.slot();
        let spawned = Command::new(tool.program)
            .args(tool.args)
            .stdin(Stdio::from(document))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if self.missing.swap(true, Ordering::Relaxed) {
                    return Ok(Outcome::MissingBefore);
                }
                return Ok(Outcome::Missing(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot run {} ({}): {e}; documents it reads are searched as bytes",
                        tool.program, tool.package
                    ),
                )));
            }
            Err(e) => {
                return Err(io::Error::new(e.kind(), format!("cannot run {}: {e}", tool.program)))
            }
        };
        limit_memory(&child, self.limits.max_memory);
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let watchdog = Watchdog::start(&child, self.limits.timeout, self.cancel.clone());
        let mut capped =
            Capped { inner: &mut stdout, left: self.limits.max_output, over: false, eof: false };
        let flow = text(&mut capped);
        let (over, eof) = (capped.over, capped.eof);
        drop(stdout);
        let killed = watchdog.finish(&mut child, eof);
        let status = child.wait()?;
        if flow == crate::Flow::Stop || (!eof && !over && killed == Killed::No) {
            // The search stopped before the text ended (-l, -q, -m, or an
            // error it reports itself): how the child ended does not matter.
            return Ok(Outcome::Ran(flow));
        }
        if over {
            return Err(io::Error::other(format!(
                "{} wrote more than {} MiB; killed",
                tool.program,
                self.limits.max_output >> 20
            )));
        }
        if killed == Killed::Timeout {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "{} ran longer than {} s; killed",
                    tool.program,
                    self.limits.timeout.as_secs()
                ),
            ));
        }
        if killed == Killed::Cancelled {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        if !status.success() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, failure(tool, status)));
        }
        Ok(Outcome::Ran(flow))
    }
}

/// A running child's place in the pool.
struct Slot<'r>(&'r Runner);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|p| p.into_inner());
        *running -= 1;
        self.0.freed.notify_one();
    }
}

/// Why a tool failed, in words (pdftotext's exit codes).
fn failure(tool: Tool, status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(1), _) if tool.program == "pdftotext" => {
            "damaged, unreadable or password-protected PDF (pdftotext: exit 1)".into()
        }
        (Some(3), _) if tool.program == "pdftotext" => {
            "encrypted PDF, not searched (pdftotext: exit 3, no permission)".into()
        }
        (Some(c), _) => format!("{} failed (exit {c})", tool.program),
        (None, Some(s)) => format!("{} was killed by signal {s}", tool.program),
        (None, None) => format!("{} failed", tool.program),
    }
}

/// Limits the child's address space. Set after the spawn (the fast spawn
/// path has no hook before exec); a child that ran past it meanwhile is
/// still bounded by the output limit and the timeout.
fn limit_memory(child: &Child, bytes: u64) {
    let limit = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
    // SAFETY: prlimit reads `limit` and writes nothing (old limit pointer is
    // null); the pid is our unreaped child, so it names no other process.
    unsafe {
        libc::prlimit(child.id() as libc::pid_t, libc::RLIMIT_AS, &limit, std::ptr::null_mut());
    }
}

/// Output beyond the limit is an error; notes whether the end was read.
struct Capped<'a> {
    inner: &'a mut dyn Read,
    left: u64,
    over: bool,
    eof: bool,
}

impl Read for Capped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            self.over = true;
            return Err(io::Error::other("extractor output over its limit"));
        }
        let max = buf.len().min(self.left.min(usize::MAX as u64) as usize);
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        if n == 0 && max > 0 {
            self.eof = true;
        }
        Ok(n)
    }
}

/// Why the watchdog killed a child.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Killed {
    No,
    Timeout,
    Cancelled,
}

/// Kills a child past its deadline or when the run is cancelled. The
/// child is reaped only after the watchdog ended, so the pid it may kill
/// is never another process's.
struct Watchdog {
    done: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<Killed>,
}

impl Watchdog {
    fn start(child: &Child, timeout: Duration, cancel: Arc<AtomicBool>) -> Watchdog {
        let pid = child.id() as libc::pid_t;
        let (done, finished) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let start = std::time::Instant::now();
            loop {
                let left = timeout.saturating_sub(start.elapsed());
                let step = left.min(Duration::from_millis(100));
                match finished.recv_timeout(step) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    // Finished (or the owner went away): nothing to kill.
                    _ => return Killed::No,
                }
                let why = if cancel.load(Ordering::Relaxed) {
                    Killed::Cancelled
                } else if start.elapsed() >= timeout {
                    Killed::Timeout
                } else {
                    continue;
                };
                // SAFETY: kill has no memory effects; `pid` is the owner's
                // child, not reaped before this thread ends.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                return why;
            }
        });
        Watchdog { done, thread }
    }

    /// Ends the watch, and tells whether (and why) the child was killed.
    /// A child whose output was not read to its end is killed now: it
    /// would get SIGPIPE at its next write, but may be busy until then.
    fn finish(self, child: &mut Child, read_to_end: bool) -> Killed {
        let _ = self.done.send(());
        let killed = self.thread.join().unwrap_or(Killed::No);
        if killed == Killed::No && !read_to_end {
            let _ = child.kill();
        }
        killed
    }
}
