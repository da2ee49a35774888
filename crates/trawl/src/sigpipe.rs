//! SIGPIPE as trawl inherited it. The Rust runtime ignores SIGPIPE before
//! `main` runs; GNU grep and find die of it when a reader closes the pipe,
//! unless their parent ignored it (then they report a write error). A
//! constructor in `.init_array`, which the C library runs before the Rust
//! runtime starts, records the inherited disposition, and [`restore`] puts
//! it back.

use std::sync::atomic::{AtomicBool, Ordering};

/// SIGPIPE's disposition was the default when trawl started.
static WAS_DEFAULT: AtomicBool = AtomicBool::new(false);

extern "C" fn record() {
    // SAFETY: sigaction with a null new action only reads the current one
    // into `old`, a zeroed sigaction owned here.
    let default = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_DFL
    };
    WAS_DEFAULT.store(default, Ordering::Relaxed);
}

/// Runs `record` before the Rust runtime changes SIGPIPE.
#[used]
#[link_section = ".init_array"]
static RECORD: extern "C" fn() = record;

/// Puts SIGPIPE back to the default when trawl inherited it so: a write to
/// a closed pipe then ends trawl by the signal, as grep. Returns whether
/// it did (else SIGPIPE stays ignored and writes fail with EPIPE).
pub fn restore() -> bool {
    let default = WAS_DEFAULT.load(Ordering::Relaxed);
    if default {
        // SAFETY: setting a signal's disposition to the default is async-
        // signal-safe and touches no memory of ours.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    default
}
