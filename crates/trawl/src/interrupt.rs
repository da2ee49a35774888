//! SIGINT and SIGTERM. The first signal cancels the run: every search stops
//! at its next read, every walker thread at its next entry, `-exec`
//! children are interrupted and waited for, colors are reset, then trawl
//! dies of SIGINT. A thread blocked where no cancel reaches it (opening a
//! FIFO nobody writes to, a hung network file system) cannot hold the run:
//! if it has not ended [`GRACE`] after the signal, a timer ends it from the
//! signal handler (children killed, colors reset, death by the signal). A
//! second signal ends trawl at once (exit status 128 + the signal).

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use trawl_search::Cancel;

/// How long the orderly end may take after the first signal.
const GRACE_MS: i64 = 500;

/// The first signal received (0: none yet).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// Whether colored output is being written (then a cut line may have left a
/// color on).
static COLORS: AtomicBool = AtomicBool::new(false);

/// Installs the handlers.
pub fn install(cancel: &Cancel) {
    use signal_hook::consts::{SIGALRM, SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left
        // it: set only from the second signal on.
        let _ = signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, cancel.flag());
        let _ = signal_hook::flag::register(sig, cancel.flag());
        // SAFETY: the action loads and stores atomics and calls kill(2) and
        // setitimer(2), all async-signal-safe; it allocates nothing and
        // takes no lock.
        let _ = unsafe {
            signal_hook::low_level::register(sig, move || {
                trawl_select::interrupt_children();
                arm_deadline(sig);
            })
        };
    }
    // SAFETY: as above, plus write(2), sigaction(2) and raise(3), which are
    // async-signal-safe.
    let _ = unsafe { signal_hook::low_level::register(SIGALRM, end_now) };
}

/// Colored output is being written: reset the color if the run is cut.
pub fn colors_on_output() {
    COLORS.store(true, Ordering::Relaxed);
}

/// Starts the grace period at the first signal.
fn arm_deadline(sig: i32) {
    if SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst).is_err() {
        return;
    }
    let timer = libc::itimerval {
        it_interval: libc::timeval { tv_sec: 0, tv_usec: 0 },
        it_value: libc::timeval {
            tv_sec: (GRACE_MS / 1000) as libc::time_t,
            tv_usec: ((GRACE_MS % 1000) * 1000) as libc::suseconds_t,
        },
    };
    // SAFETY: setitimer with a valid value and no old-value pointer.
    unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
}

/// The grace period is over: ends the process from the signal handler.
fn end_now() {
    let sig = SIGNAL.load(Ordering::SeqCst);
    if sig == 0 {
        return;
    }
    trawl_select::kill_children();
    if COLORS.load(Ordering::Relaxed) {
        // SAFETY: write(2) of a static buffer to descriptor 1.
        unsafe { libc::write(1, b"\x1b[0m".as_ptr().cast(), 4) };
    }
    // SAFETY: restoring the default action and raising the signal ends the
    // process; _exit if it somehow does not.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
        libc::_exit(128 + sig);
    }
}

/// Ends the process by SIGINT, as an interrupted program should (the shell
/// then knows the user stopped it).
pub fn die() -> ! {
    let _ = std::io::stderr().flush();
    // SAFETY: restoring the default action and raising the signal.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::raise(libc::SIGINT);
    }
    std::process::exit(130)
}
