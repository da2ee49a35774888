//! What the threads of one `trawl find` run agree on while they evaluate:
//! whether `-quit` ran, and which thread's output is split around a
//! command's (`-printf A -exec CMD ; -printf B`).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::ThreadId;

/// Per-run state shared by every evaluator of one command.
#[derive(Debug, Default)]
pub(crate) struct Turns {
    /// A thread has evaluated `-quit` (taken for each evaluation when the
    /// expression holds `-quit`).
    quit: Mutex<bool>,
    /// The thread whose entry's output is split around a command's output:
    /// until it ends the entry, other threads do not write to standard
    /// output.
    holder: Mutex<Option<ThreadId>>,
    free: Condvar,
}

/// Whether waiting for the turn also takes it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum TurnWait {
    /// Only wait until no other thread holds it (to write).
    ToWrite,
    /// Wait, then hold it until [`Turns::release`] (an entry's output is
    /// about to be split around a command's).
    AndTake,
}

impl Turns {
    /// The `-quit` flag, locked: evaluations run one at a time under it.
    pub(crate) fn quit(&self) -> MutexGuard<'_, bool> {
        self.quit.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until no other thread holds the turn. Writing while the
    /// returned guard lives cannot interleave with a turn.
    pub(crate) fn wait(&self, how: TurnWait) -> MutexGuard<'_, Option<ThreadId>> {
        let me = std::thread::current().id();
        let mut t = self.holder.lock().unwrap_or_else(|p| p.into_inner());
        while t.is_some_and(|o| o != me) {
            t = self.free.wait(t).unwrap_or_else(|p| p.into_inner());
        }
        if how == TurnWait::AndTake {
            *t = Some(me);
        }
        t
    }

    /// Whether the calling thread holds the turn.
    pub(crate) fn held_by_me(&self) -> bool {
        *self.holder.lock().unwrap_or_else(|p| p.into_inner()) == Some(std::thread::current().id())
    }

    /// Gives the turn back.
    pub(crate) fn release(&self) {
        *self.holder.lock().unwrap_or_else(|p| p.into_inner()) = None;
        self.free.notify_all();
    }
}
