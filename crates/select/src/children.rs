//! The `-exec` children running now, so an interrupt can reach them.
//!
//! A fixed table of atomics: a signal handler may read it and call kill(2),
//! both async-signal-safe.

use std::io;
use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicI32, Ordering};

use trawl_search::Cancel;

const SLOTS: usize = 256;
static PIDS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Records a running child (if the table is full, the child is simply not
/// interrupted early). A child spawned before an interrupt but recorded
/// after the handler looked at the table is interrupted here: the handler
/// sets `cancel` before it looks, and this looks at `cancel` after
/// recording, so one of the two sees the other.
pub(crate) fn register(pid: u32, cancel: &Cancel) {
    let pid = pid as i32;
    let _ = PIDS
        .iter()
        .find(|slot| slot.compare_exchange(0, pid, Ordering::SeqCst, Ordering::Relaxed).is_ok());
    if cancel.flag().load(Ordering::SeqCst) {
        // SAFETY: kill(2) on our own child, not yet waited for.
        unsafe { libc::kill(pid, libc::SIGINT) };
    }
}

/// Waits for a registered child to end, forgets it, then reaps it. The
/// pid leaves the table before it is reaped: once reaped, it may be reused
/// by an unrelated process, which an interrupt must never reach.
pub(crate) fn wait(child: &mut Child) -> io::Result<ExitStatus> {
    loop {
        // SAFETY: a zeroed siginfo_t is a valid out-parameter.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid on our own unreaped child; WNOWAIT leaves it
        // unreaped (its pid stays ours).
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 {
            break;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            // Already reaped, or not ours: let Child::wait say so.
            break;
        }
    }
    unregister(child.id());
    child.wait()
}

/// Forgets a child that was waited for.
fn unregister(pid: u32) {
    let pid = pid as i32;
    let _ = PIDS
        .iter()
        .find(|slot| slot.compare_exchange(pid, 0, Ordering::AcqRel, Ordering::Relaxed).is_ok());
}

/// Sends SIGINT to every running `-exec` child. Async-signal-safe: call it
/// from a SIGINT handler; trawl then waits for (reaps) them.
pub fn interrupt_children() {
    for slot in &PIDS {
        let pid = slot.load(Ordering::Acquire);
        if pid > 0 {
            // SAFETY: kill(2) is async-signal-safe; the pid is a child of ours
            // that was not waited for yet.
            unsafe { libc::kill(pid, libc::SIGINT) };
        }
    }
}

/// Sends SIGKILL to every running `-exec` child, when trawl must end before
/// it could wait for them. Async-signal-safe.
pub fn kill_children() {
    for slot in &PIDS {
        let pid = slot.load(Ordering::Acquire);
        if pid > 0 {
            // SAFETY: kill(2) is async-signal-safe; the pid is a child of ours
            // that was not waited for yet.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}
