//! What the Rust runtime would do before and after `main`, done here at a
//! fraction of its cost: the binary is `#![no_main]` (see main.rs).
//!
//! The runtime's start reads `/proc/self/maps` and the CPU affinity to place
//! the main thread's stack guard, maps an alternate signal stack and installs
//! SIGSEGV and SIGBUS handlers (to print "has overflowed its stack"), and
//! ignores SIGPIPE: about 60 us of a millisecond's search of one small file.
//! trawl keeps what matters of it: closed standard descriptors are opened on
//! `/dev/null` (so no file trawl opens becomes its output), a panic still ends
//! the process with status 101 after its message (in builds that unwind:
//! install.sh's profile aborts, as it did before), and standard output is
//! flushed at the end. SIGPIPE keeps the disposition trawl inherited: as
//! grep, trawl dies of it when a reader closes the pipe, unless its parent
//! ignored it (then writes fail and are reported). A stack overflow ends the
//! process by SIGSEGV without the runtime's message.

use std::process::ExitCode;

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed.
pub fn open_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    // SAFETY: `fds` is an array of three initialized pollfd owned here, and
    // its length is passed with it; a zero timeout never blocks.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 0) };
    if polled < 0 {
        return;
    }
    for p in fds {
        if p.revents & libc::POLLNVAL == 0 {
            continue;
        }
        let flags = if p.fd == 0 { libc::O_RDONLY } else { libc::O_WRONLY };
        // SAFETY: the path is a NUL-terminated literal. The lowest closed
        // descriptor is taken, which is `p.fd` (the ones below it are open
        // or were opened by this loop); it is left open for the process's
        // life, not owned by any Rust value.
        let fd = unsafe { libc::open(c"/dev/null".as_ptr(), flags) };
        if fd != p.fd {
            // No /dev/null (or a descriptor race): nothing better to do
            // than what the runtime does then, which is to abort.
            std::process::abort();
        }
    }
}

/// Runs `body`, then exits with its status after flushing standard output;
/// a panic (its message already printed by the hook) exits with 101, as the
/// runtime's `main` does.
pub fn run(body: impl FnOnce() -> ExitCode) -> ! {
    let status = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(code) => status_of(code),
        Err(_) => 101,
    };
    // process::exit flushes standard output, as the runtime's end does.
    std::process::exit(status)
}

/// The number an `ExitCode` stands for. The type hides it (its exit method
/// is not stable): it is one of the 256 statuses, found by comparison.
fn status_of(code: ExitCode) -> i32 {
    (0..=u8::MAX).find(|&k| ExitCode::from(k) == code).map_or(1, i32::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_status_is_recovered_from_its_exit_code() {
        for k in 0..=u8::MAX {
            assert_eq!(status_of(ExitCode::from(k)), i32::from(k));
        }
        assert_eq!(status_of(ExitCode::SUCCESS), 0);
        assert_eq!(status_of(ExitCode::FAILURE), 1);
    }
}
