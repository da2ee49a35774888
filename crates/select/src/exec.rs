//! `-exec` and `-execdir`: commands spawned from argv (never through a
//! shell), one per entry with `;`, or batches of entries with `+` as large
//! as the argument budget allows, run in parallel and all waited for.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::process::{Child, Command};

use trawl_walk::Entry;

use crate::batch::ArgBatch;
use crate::eval::{show, Evaluator};
use crate::paths::{dir_name, last_component};
use crate::turns::TurnWait;

#[derive(Default)]
pub(crate) struct ExecState {
    /// Paths collected for the next `-exec ... {} +` run, with their directory
    /// for `-execdir`.
    pub(crate) batch: ArgBatch,
    pub(crate) batch_dir: Option<Vec<u8>>,
    /// The depth of the batch's entries: as GNU find, a change of depth runs
    /// the batch (a starting point `.` is not batched with its children).
    pub(crate) batch_depth: usize,
    pub(crate) running: Option<(Child, Vec<u8>)>,
}

impl Evaluator<'_> {
    pub(crate) fn exec(&mut self, i: usize, e: &Entry<'_>) -> bool {
        let spec = &self.cmd.execs[i];
        let (dir, arg) = if spec.in_dir { split_for_execdir(e) } else { (None, e.path().to_vec()) };
        if spec.batch && !spec.in_dir {
            // One batch for all threads: as few, as large commands as ARG_MAX allows.
            let shared = &self.run.batches[i];
            let (full, added) = shared.add(spec, &arg);
            if let Some(batch) = full {
                self.flush_before_command();
                self.failed |= !shared.launch(spec, batch, &self.run.cancel, self.max_children());
            }
            if let Err(err) = added {
                self.report(format!("'{}': {}", show(&spec.argv[0]), trawl_diag::io_message(&err)));
            }
            return true;
        }
        if spec.batch {
            // -execdir ... +: one batch per directory, per thread.
            let st = &self.execs[i];
            let dir_changed =
                (st.batch_dir != dir || st.batch_depth != e.depth()) && !st.batch.is_empty();
            if dir_changed || !st.batch.fits(&arg) {
                self.launch(i);
            }
            // A directory reached through a descriptor cannot wait: the
            // descriptor may be closed, or reused, by the time the batch runs.
            let through_fd = dir.as_ref().is_some_and(|d| d.starts_with(b"/proc/"));
            let st = &mut self.execs[i];
            st.batch_dir = dir;
            st.batch_depth = e.depth();
            if let Err(err) = st.batch.push(&spec.argv, &arg) {
                self.report(format!("'{}': {}", show(&spec.argv[0]), trawl_diag::io_message(&err)));
            }
            if through_fd {
                self.launch(i);
                if let Some((child, name)) = self.execs[i].running.take() {
                    self.wait(child, &name);
                }
            }
            return true;
        }
        if spec.ask && !self.asked(&spec.argv[0], e.path()) {
            return false;
        }
        let argv: Vec<Vec<u8>> = spec.argv.iter().map(|a| replace_braces(a, &arg)).collect();
        if !self.buf.is_empty() {
            // This entry's output so far goes before the command's, and its
            // rest after: no other thread writes until the entry is done.
            drop(self.run.turns.wait(TurnWait::AndTake));
        }
        self.flush_before_command();
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
                crate::children::register(child.id(), &self.run.cancel);
                let status = crate::children::wait(&mut child);
                status.is_ok_and(|s| s.success())
            }
            Err(err) => {
                self.report(format!("'{}': {}", show(&argv[0]), trawl_diag::io_message(&err)));
                false
            }
        }
    }

    /// `-ok`, `-okdir`: asks on standard error whether to run `program` for
    /// `path` (what was printed before goes out first), and reads a line
    /// of standard input: yes when it starts with `y` or `Y` (an end of
    /// input is no).
    fn asked(&mut self, program: &[u8], path: &[u8]) -> bool {
        self.flush_before_command();
        let mut prompt = b"< ".to_vec();
        prompt.extend_from_slice(program);
        prompt.extend_from_slice(b" ... ");
        prompt.extend_from_slice(path);
        prompt.extend_from_slice(b" > ? ");
        let mut err = io::stderr().lock();
        if err.write_all(&prompt).and_then(|()| err.flush()).is_err() {
            self.report("Failed to write prompt for -ok".into());
            return false;
        }
        drop(err);
        let mut answer = Vec::new();
        let read = io::BufRead::read_until(&mut io::stdin().lock(), b'\n', &mut answer);
        read.is_ok() && matches!(answer.first(), Some(b'y' | b'Y'))
    }

    /// Children of one `-exec ... +` that may run at once.
    pub(crate) fn max_children(&self) -> usize {
        self.cmd.threads.max(trawl_walk::cpus())
    }

    /// Starts the command of `-execdir` number `i` on this thread's batch,
    /// after the previous run of it on this thread ends.
    pub(crate) fn launch(&mut self, i: usize) {
        if self.execs[i].batch.is_empty() {
            return;
        }
        if let Some((child, name)) = self.execs[i].running.take() {
            self.wait(child, &name);
        }
        self.flush_before_command();
        let spec = &self.cmd.execs[i];
        let st = &mut self.execs[i];
        let Some(mut c) = st.batch.take() else { return };
        if let Some(d) = &st.batch_dir {
            c.current_dir(OsStr::from_bytes(d));
        }
        match c.spawn() {
            Ok(child) => {
                crate::children::register(child.id(), &self.run.cancel);
                st.running = Some((child, spec.argv[0].clone()))
            }
            Err(err) => {
                let name = show(&spec.argv[0]);
                self.report(format!("'{name}': {}", trawl_diag::io_message(&err)));
            }
        }
    }

    pub(crate) fn wait(&mut self, mut child: Child, name: &[u8]) {
        let result = crate::children::wait(&mut child);
        match result {
            Ok(s) if s.success() => {}
            Ok(_) => self.failed = true,
            Err(err) => self.report(format!("'{}': {}", show(name), trawl_diag::io_message(&err))),
        }
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
