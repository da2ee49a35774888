//! Documents read by another program (PDF through poppler's `pdftotext`,
//! the other [`crate::tools`]): a child process per document, its text
//! streamed to the searcher as it comes.
//!
//! How children are run (Recoll's lessons on spawn cost and descriptor
//! hygiene): through `std::process::Command` with argv and no `pre_exec`,
//! so the C library's posix_spawn path starts them; the document is the
//! child's standard input (an open file, or an anonymous temporary file
//! holding an archive member), so no file name reaches the child, or, for
//! a configured tool that asks for one, its path is one argv element
//! (never seen by a shell, never taken for an option); every descriptor
//! trawl opens is close-on-exec, so the child holds only its standard
//! streams. At most [`ExternalLimits::jobs`] children
//! run at once; each is killed past its time limit, its output limit or
//! when the run is cancelled, has its address space limited (prlimit after
//! the spawn), and is always reaped before the search moves on.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::tools::{Input, Provenance, Tool};

/// A document to hand to a tool.
pub(crate) struct Subject<'a> {
    /// The document, open at its start.
    pub(crate) file: File,
    /// The path it was opened by (a file of the tree), if it has one.
    pub(crate) path: Option<&'a [u8]>,
    /// Its display name (the extension of a member's copy comes from it).
    pub(crate) name: &'a [u8],
}

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

/// Runs tools under [`ExternalLimits`]; shared by every search thread.
#[derive(Debug)]
pub(crate) struct Runner {
    limits: ExternalLimits,
    /// Children that may run at once (`limits.jobs`, 0 made one per CPU).
    jobs: usize,
    /// Children running now.
    running: Mutex<usize>,
    freed: Condvar,
    /// Set when the run is cancelled: children are killed.
    cancel: Arc<AtomicBool>,
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
            0 => trawl_diag::cpus(),
            n => n,
        };
        Runner { limits, jobs, running: Mutex::new(0), freed: Condvar::new(), cancel }
    }

    /// Children that may run at once.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs
    }

    /// Whether the run was cancelled.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
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

    /// Runs `tool` on `subject` and hands its output to `text` as it
    /// comes. An error of the tool (a damaged or encrypted document, a
    /// crash, a limit) is returned after `text` saw what came before it.
    pub(crate) fn run(
        &self,
        tool: &Tool,
        subject: Subject<'_>,
        text: &mut dyn FnMut(&mut dyn Read) -> crate::Flow,
    ) -> io::Result<Outcome> {
        self.run_with(tool, None, subject, text)
    }

    /// As [`Runner::run`], with `args` instead of the tool's own when
    /// given (a page of a document: see [`crate::ocr`]).
    pub(crate) fn run_with(
        &self,
        tool: &Tool,
        args: Option<Vec<std::ffi::OsString>>,
        subject: Subject<'_>,
        text: &mut dyn FnMut(&mut dyn Read) -> crate::Flow,
    ) -> io::Result<Outcome> {
        if tool.missing.load(Ordering::Relaxed) {
            return Ok(Outcome::MissingBefore);
        }
        // A tool that reads a path gets the file's own, or a private copy
        // of an archive member (removed when it is dropped, after the
        // child is reaped).
        let mut copy = None;
        let (stdin, path) = match tool.input {
            Input::Stdin => (Stdio::from(subject.file), None),
            Input::Path => match subject.path {
                Some(path) => (Stdio::null(), Some(path.to_vec())),
                None => {
                    let temp = private_copy(&subject.file, subject.name)?;
                    let path =
                        AsRef::<std::path::Path>::as_ref(&temp).as_os_str().as_bytes().to_vec();
                    copy = Some(temp);
                    (Stdio::null(), Some(path))
                }
            },
        };
        let args = args.unwrap_or_else(|| tool.args_for(path.as_deref()));
        let _slot = self.slot();
        let spawned = Command::new(&tool.program)
            .args(args)
            .envs(tool.env.iter().copied())
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if tool.missing.swap(true, Ordering::Relaxed) {
                    return Ok(Outcome::MissingBefore);
                }
                let (from, reported) = match &tool.origin {
                    Provenance::Required { package } => (format!("({package})"), true),
                    Provenance::Optional { .. } => (String::new(), false),
                    Provenance::Configured { file } => {
                        (format!("(extractor '{}' of {})", tool.name, file.display()), true)
                    }
                };
                if !reported {
                    return Ok(Outcome::MissingBefore);
                }
                return Ok(Outcome::Missing(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot run {} {from}: {e}; documents it reads are searched as bytes",
                        tool.program.to_string_lossy()
                    ),
                )));
            }
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot run {}: {e}", tool.program.to_string_lossy()),
                ))
            }
        };
        limit_memory(&child, self.limits.max_memory);
        let mut stdout = child.stdout.take().expect("stdout is piped");
        let timeout = tool.timeout.unwrap_or(self.limits.timeout);
        let watchdog = Watchdog::start(&child, timeout, self.cancel.clone());
        let mut capped =
            Capped { inner: &mut stdout, left: self.limits.max_output, over: false, eof: false };
        let flow = text(&mut capped);
        let (over, eof) = (capped.over, capped.eof);
        drop(stdout);
        let killed = watchdog.finish(&mut child, eof);
        let status = child.wait()?;
        drop(copy);
        if flow == crate::Flow::Stop || (!eof && !over && killed == Killed::No) {
            // The search stopped before the text ended (-l, -q, -m, or an
            // error it reports itself): how the child ended does not matter.
            return Ok(Outcome::Ran(flow));
        }
        if over {
            return Err(io::Error::other(format!(
                "{} wrote more than {} MiB; killed",
                tool.program.to_string_lossy(),
                self.limits.max_output >> 20
            )));
        }
        if killed == Killed::Timeout {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "{} ran longer than {} s; killed",
                    tool.program.to_string_lossy(),
                    timeout.as_secs_f64()
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
fn failure(tool: &Tool, status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(1), _) if tool.program == "pdftotext" => {
            "damaged, unreadable or password-protected PDF (pdftotext: exit 1)".into()
        }
        (Some(3), _) if tool.program == "pdftotext" => {
            "encrypted PDF, not searched (pdftotext: exit 3, no permission)".into()
        }
        (Some(1), _) if tool.program == "tesseract" => {
            "damaged or unreadable image (tesseract: exit 1)".into()
        }
        (Some(c), _) => format!("{} failed (exit {c})", tool.program.to_string_lossy()),
        (None, Some(s)) => format!("{} was killed by signal {s}", tool.program.to_string_lossy()),
        (None, None) => format!("{} failed", tool.program.to_string_lossy()),
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

/// A private copy of `file` for a tool that reads a path: a new file of
/// mode 0600 with a random name in the temporary directory, ending with the
/// extension of `name` (some tools go by it); removed when it is dropped.
fn private_copy(file: &File, name: &[u8]) -> io::Result<tempfile::TempPath> {
    let base = name.rsplit(|&b| b == b'/' || b == b'{' || b == b'}').find(|p| !p.is_empty());
    let ext: String = base
        .and_then(|b| b.iter().rposition(|&c| c == b'.').map(|i| &b[i + 1..]))
        .filter(|e| !e.is_empty() && e.len() <= 16 && e.iter().all(u8::is_ascii_alphanumeric))
        .map(|e| format!(".{}", String::from_utf8_lossy(e)))
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new().prefix("trawl-").suffix(&ext).tempfile()?;
    io::copy(&mut crate::Positional { file, at: 0 }, temp.as_file_mut())?;
    temp.as_file_mut().flush()?;
    Ok(temp.into_temp_path())
}
