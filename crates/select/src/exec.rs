//! `-exec` and `-execdir`: commands spawned from argv (never through a
//! shell), one per entry with `;`, or batches of entries with `+` as large
//! as the argument budget allows, run in parallel and all waited for.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, Command};

use trawl_walk::Entry;

use crate::batch::ArgBatch;
use crate::held::Held;
use crate::paths::{dir_name, last_component};
use crate::report::{show, Reporter};
use crate::run::Run;
use crate::turns::TurnWait;

/// One thread's state of one `-exec`/`-execdir` command.
#[derive(Default)]
struct ExecState {
    /// Paths collected for the next `-execdir ... {} +` run, with their
    /// directory.
    batch: ArgBatch,
    batch_dir: Option<Vec<u8>>,
    /// The depth of the batch's entries: as GNU find, a change of depth runs
    /// the batch (a starting point `.` is not batched with its children).
    batch_depth: usize,
    /// Its last batch's command, still running, and the program's name.
    running: Option<(Child, Vec<u8>)>,
}

/// What one thread needs to run a command: where its output so far goes
/// first, and where failures are reported.
pub(crate) struct ExecContext<'x, 'r> {
    /// The run.
    pub(crate) run: &'r Run<'r>,
    /// The thread's held output, written before a command runs.
    pub(crate) out: &'x mut Held<'r>,
    /// The thread's reports.
    pub(crate) rep: &'x mut Reporter,
}

/// One thread's part of the command's `-exec`s and `-execdir`s (those of
/// `-exec … {} +` are the run's: [`crate::batch::SharedBatch`]).
#[derive(Default)]
pub(crate) struct Execs {
    states: Vec<ExecState>,
}

impl Execs {
    /// For a command with `n` of them.
    pub(crate) fn new(n: usize) -> Self {
        Execs { states: (0..n).map(|_| ExecState::default()).collect() }
    }

    /// The action `-exec` number `i` on `e`: true when its command ran and
    /// succeeded (a batched one is always true).
    pub(crate) fn exec(&mut self, i: usize, e: &Entry<'_>, cx: &mut ExecContext<'_, '_>) -> bool {
        let spec = &cx.run.cmd.execs[i];
        let (dir, arg) = if spec.in_dir { split_for_execdir(e) } else { (None, e.path().to_vec()) };
        if spec.batch && !spec.in_dir {
            // One batch for all threads: as few, as large commands as ARG_MAX allows.
            let shared = &cx.run.batches[i];
            let (full, added) = shared.add(spec, &arg);
            if let Some(batch) = full {
                cx.out.flush_before_command();
                let max = max_children(cx.run);
                cx.rep.failed |= !shared.launch(spec, batch, &cx.run.cancel, max);
            }
            if let Err(err) = added {
                cx.rep.report(format!(
                    "'{}': {}",
                    show(&spec.argv[0]),
                    trawl_diag::io_message(&err)
                ));
            }
            return true;
        }
        if spec.batch {
            // -execdir ... +: one batch per directory, per thread.
            let st = &self.states[i];
            let dir_changed =
                (st.batch_dir != dir || st.batch_depth != e.depth()) && !st.batch.is_empty();
            if dir_changed || !st.batch.fits(&arg) {
                self.launch(i, cx);
            }
            // A directory reached through a descriptor cannot wait: the
            // descriptor may be closed, or reused, by the time the batch runs.
            let through_fd = dir.as_ref().is_some_and(|d| d.starts_with(b"/proc/"));
            let st = &mut self.states[i];
            st.batch_dir = dir;
            st.batch_depth = e.depth();
            if let Err(err) = st.batch.push(&spec.argv, &arg) {
                cx.rep.report(format!(
                    "'{}': {}",
                    show(&spec.argv[0]),
                    trawl_diag::io_message(&err)
                ));
            }
            if through_fd {
                self.launch(i, cx);
                if let Some((child, name)) = self.states[i].running.take() {
                    wait(child, &name, cx.rep);
                }
            }
            return true;
        }
        if spec.ask && !asked(&spec.argv[0], e.path(), cx) {
            return false;
        }
        let argv: Vec<Vec<u8>> = spec.argv.iter().map(|a| replace_braces(a, &arg)).collect();
        if !cx.out.buf.is_empty() {
            // This entry's output so far goes before the command's, and its
            // rest after: no other thread writes until the entry is done.
            drop(cx.run.turns.wait(TurnWait::AndTake));
        }
        cx.out.flush_before_command();
        let mut c = Command::new(OsStr::from_bytes(&argv[0]));
        c.args(argv[1..].iter().map(|a| OsStr::from_bytes(a)));
        if let Some(d) = &dir {
            c.current_dir(OsStr::from_bytes(d));
        }
        if spec.ask {
            // Standard input gives the answers, not the command's input.
            c.stdin(std::process::Stdio::null());
        }
        match c.spawn() {
            Ok(mut child) => {
                crate::children::register(child.id(), &cx.run.cancel);
                let status = crate::children::wait(&mut child);
                status.is_ok_and(|s| s.success())
            }
            Err(err) => {
                cx.rep.report(format!("'{}': {}", show(&argv[0]), trawl_diag::io_message(&err)));
                false
            }
        }
    }

    /// After the walk: starts what this thread's `-execdir … +` batches
    /// hold (unless the run was interrupted) and waits for their commands.
    pub(crate) fn finish(&mut self, cx: &mut ExecContext<'_, '_>) {
        let interrupted = cx.run.cancel.is_cancelled();
        for i in 0..self.states.len() {
            if !interrupted {
                self.launch(i, cx);
            }
            if let Some((child, name)) = self.states[i].running.take() {
                wait(child, &name, cx.rep);
            }
        }
    }

    /// Starts the command of `-execdir` number `i` on this thread's batch,
    /// after the previous run of it on this thread ends.
    fn launch(&mut self, i: usize, cx: &mut ExecContext<'_, '_>) {
        if self.states[i].batch.is_empty() {
            return;
        }
        if let Some((child, name)) = self.states[i].running.take() {
            wait(child, &name, cx.rep);
        }
        cx.out.flush_before_command();
        let spec = &cx.run.cmd.execs[i];
        let st = &mut self.states[i];
        let Some(mut c) = st.batch.take() else { return };
        if let Some(d) = &st.batch_dir {
            c.current_dir(OsStr::from_bytes(d));
        }
        match c.spawn() {
            Ok(child) => {
                crate::children::register(child.id(), &cx.run.cancel);
                st.running = Some((child, spec.argv[0].clone()))
            }
            Err(err) => {
                let name = show(&spec.argv[0]);
                cx.rep.report(format!("'{name}': {}", trawl_diag::io_message(&err)));
            }
        }
    }
}

/// `-ok`, `-okdir`: asks on standard error whether to run `program` for
/// `path` (what was printed before goes out first), and reads a line
/// of standard input: yes when it starts with `y` or `Y` (an end of
/// input is no).
fn asked(program: &[u8], path: &[u8], cx: &mut ExecContext<'_, '_>) -> bool {
    cx.out.flush_before_command();
    let mut prompt = b"< ".to_vec();
    prompt.extend_from_slice(program);
    prompt.extend_from_slice(b" ... ");
    prompt.extend_from_slice(path);
    prompt.extend_from_slice(b" > ? ");
    let mut err = io::stderr().lock();
    if err.write_all(&prompt).and_then(|()| err.flush()).is_err() {
        cx.rep.report("Failed to write prompt for -ok".into());
        return false;
    }
    drop(err);
    let mut answer = Vec::new();
    let read = io::BufRead::read_until(&mut io::stdin().lock(), b'\n', &mut answer);
    read.is_ok() && matches!(answer.first(), Some(b'y' | b'Y'))
}

/// Children of one `-exec ... +` that may run at once.
fn max_children(run: &Run<'_>) -> usize {
    run.cmd.threads.max(trawl_diag::cpus())
}

/// Waits for a batch's command; its failure fails the run.
fn wait(mut child: Child, name: &[u8], rep: &mut Reporter) {
    let result = crate::children::wait(&mut child);
    match result {
        Ok(s) if s.success() => {}
        Ok(_) => rep.failed = true,
        Err(err) => rep.report(format!("'{}': {}", show(name), trawl_diag::io_message(&err))),
    }
}

/// `-execdir`: the directory to run in and the `./NAME` argument. A
/// directory path too long for chdir(2) is reached through the open
/// directory's descriptor instead.
pub(crate) fn split_for_execdir(e: &Entry<'_>) -> (Option<Vec<u8>>, Vec<u8>) {
    if e.is_root() && e.path().iter().all(|&b| b == b'/') && !e.path().is_empty() {
        // GNU find: the root directory runs in itself, named `/`.
        return (Some(b"/".to_vec()), b"/".to_vec());
    }
    let mut dir = dir_name(e.path()).to_vec();
    if dir.len() >= libc::PATH_MAX as usize {
        if let Some(fd) = e.parent_fd() {
            use std::os::fd::AsRawFd;
            dir = format!("/proc/{}/fd/{}", std::process::id(), fd.as_raw_fd()).into_bytes();
        }
    }
    let mut arg = b"./".to_vec();
    let name = last_component(e);
    // A starting point's trailing slashes count as one (as fts gives it).
    let kept = name.iter().rposition(|&b| b != b'/').map_or(0, |i| i + 1);
    arg.extend_from_slice(&name[..(kept + 1).min(name.len())]);
    (Some(dir), arg)
}

/// Replaces every `{}` in an argument by `path` (`-exec ... ;`).
pub(crate) fn replace_braces(arg: &[u8], path: &[u8]) -> Vec<u8> {
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
