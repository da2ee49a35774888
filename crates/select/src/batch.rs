//! The batches of `-exec … {} +` and `-execdir … {} +`: an [`ArgBatch`]
//! is one command line being filled; a [`SharedBatch`] is the one all
//! threads of a run fill for an `-exec … {} +`, with its children running.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::process::Child;
use std::sync::Mutex;

use trawl_search::Cancel;

use crate::expr::ExecSpec;

/// The entries gathered for one run of an `-exec … {} +` or `-execdir …
/// {} +` command, already in its command line: the argmax crate keeps
/// count of what the system's argument limit (ARG_MAX, less the
/// environment) still allows.
#[derive(Debug, Default)]
pub(crate) struct ArgBatch {
    command: Option<argmax::Command>,
    len: usize,
}

impl ArgBatch {
    /// Whether no entry was gathered.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether `arg` still fits on the command line (always, when empty).
    pub(crate) fn fits(&self, arg: &[u8]) -> bool {
        self.command.as_ref().is_none_or(|c| c.arg_would_fit(OsStr::from_bytes(arg)))
    }

    /// Adds `arg`; the first one starts the command line from `argv` (the
    /// command and its fixed arguments). An entry too long for any
    /// command line is an error (E2BIG), and is left out.
    pub(crate) fn push(&mut self, argv: &[Vec<u8>], arg: &[u8]) -> io::Result<()> {
        let command = match &mut self.command {
            Some(c) => c,
            None => {
                let mut c = argmax::Command::new(OsStr::from_bytes(&argv[0]));
                for a in &argv[1..] {
                    c.try_arg(OsStr::from_bytes(a))?;
                }
                self.command.insert(c)
            }
        };
        command.try_arg(OsStr::from_bytes(arg))?;
        self.len += 1;
        Ok(())
    }

    /// The command line gathered so far, leaving the batch empty.
    pub(crate) fn take(&mut self) -> Option<argmax::Command> {
        let len = std::mem::take(&mut self.len);
        self.command.take().filter(|_| len > 0)
    }
}

/// The batch of one `-exec … {} +` that every thread of a run fills, and
/// the children it started that were not waited for yet.
#[derive(Debug, Default)]
pub(crate) struct SharedBatch {
    state: Mutex<BatchState>,
}

#[derive(Debug, Default)]
struct BatchState {
    paths: ArgBatch,
    running: VecDeque<Child>,
}

impl SharedBatch {
    fn state(&self) -> std::sync::MutexGuard<'_, BatchState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds `arg` for `spec`; when it did not fit, the full command line
    /// it starts a new one after is returned, to be launched. The error is
    /// an entry too long for any command line.
    pub(crate) fn add(
        &self,
        spec: &ExecSpec,
        arg: &[u8],
    ) -> (Option<argmax::Command>, io::Result<()>) {
        let mut st = self.state();
        let full = (!st.paths.fits(arg)).then(|| st.paths.take()).flatten();
        (full, st.paths.push(&spec.argv, arg))
    }

    /// Spawns `batch` without waiting, keeping at most `max` children of
    /// this command running; returns false if a command failed.
    pub(crate) fn launch(
        &self,
        spec: &ExecSpec,
        mut batch: argmax::Command,
        cancel: &Cancel,
        max: usize,
    ) -> bool {
        match batch.spawn() {
            Ok(child) => {
                crate::children::register(child.id(), cancel);
                let oldest = {
                    let mut st = self.state();
                    st.running.push_back(child);
                    if st.running.len() > max {
                        st.running.pop_front()
                    } else {
                        None
                    }
                };
                match oldest {
                    Some(mut old) => crate::children::wait(&mut old).is_ok_and(|s| s.success()),
                    None => true,
                }
            }
            Err(err) => {
                let name = String::from_utf8_lossy(&spec.argv[0]);
                trawl_diag::error(format_args!("'{name}': {}", trawl_diag::io_message(&err)));
                false
            }
        }
    }

    /// After the walk: runs what the batch still holds (unless the run
    /// was interrupted) and waits for all its children; returns false if
    /// a command failed.
    pub(crate) fn finish(&self, spec: &ExecSpec, cancel: &Cancel) -> bool {
        let mut ok = true;
        let rest = self.state().paths.take();
        if let Some(rest) = rest.filter(|_| !cancel.is_cancelled()) {
            ok &= self.launch(spec, rest, cancel, usize::MAX);
        }
        let running = std::mem::take(&mut self.state().running);
        for mut child in running {
            ok &= crate::children::wait(&mut child).is_ok_and(|s| s.success());
        }
        ok
    }
}
