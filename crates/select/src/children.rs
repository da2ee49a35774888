//! The `-exec` children running now, so an interrupt can reach them.
//!
//! A fixed table of atomics: a signal handler may read it and call kill(2),
//! both async-signal-safe.

use std::sync::atomic::{AtomicI32, Ordering};

const SLOTS: usize = 256;
static PIDS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Records a running child (if the table is full, the child is simply not
/// interrupted early).
pub(crate) fn register(pid: u32) {
    let pid = pid as i32;
    let _ = PIDS
        .iter()
        .find(|slot| slot.compare_exchange(0, pid, Ordering::AcqRel, Ordering::Relaxed).is_ok());
}

/// Forgets a child that was waited for.
pub(crate) fn unregister(pid: u32) {
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
