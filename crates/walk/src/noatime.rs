//! Opening without touching access times.
//!
//! A search reads every file it passes; it is not a use of them. The walk
//! opens files and directories with `O_NOATIME`, so searching a mail
//! spool, a backup or a tree that `tmpreaper` cleans by access time
//! leaves their access times as they were, and the kernel skips its
//! access-time check on every read (`touch_atime`, about 1.5% of the
//! kernel's work on a warm tree).
//!
//! The kernel grants `O_NOATIME` only to the file's owner and to a process
//! with `CAP_FOWNER`; for anyone else the open fails with EPERM. The first
//! such failure turns the flag off for the rest of the run and the open is
//! made again without it, so a tree of other users' files costs one extra
//! open, not one per file. An EPERM for another reason comes back from the
//! second open as well and is reported as before.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether opens still ask for `O_NOATIME`.
static ASKING: AtomicBool = AtomicBool::new(true);

/// Runs `open` with `flags`, plus `O_NOATIME` while the kernel grants it.
pub(crate) fn open_with<T>(
    flags: libc::c_int,
    open: impl FnMut(libc::c_int) -> io::Result<T>,
) -> io::Result<T> {
    open_asking(&ASKING, flags, open)
}

/// [`open_with`] with the switch passed in (a test's own).
fn open_asking<T>(
    asking: &AtomicBool,
    flags: libc::c_int,
    mut open: impl FnMut(libc::c_int) -> io::Result<T>,
) -> io::Result<T> {
    if asking.load(Ordering::Relaxed) {
        match open(flags | libc::O_NOATIME) {
            Err(e) if e.raw_os_error() == Some(libc::EPERM) => {
                asking.store(false, Ordering::Relaxed);
            }
            result => return result,
        }
    }
    open(flags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_eperm_turns_the_flag_off_and_opens_again_without_it() {
        let asking = AtomicBool::new(true);
        let mut seen = Vec::new();
        let got = open_asking(&asking, libc::O_RDONLY, |flags| {
            seen.push(flags & libc::O_NOATIME != 0);
            if flags & libc::O_NOATIME != 0 {
                Err(io::Error::from_raw_os_error(libc::EPERM))
            } else {
                Ok(7)
            }
        });
        assert_eq!(got.unwrap(), 7);
        assert_eq!(seen, [true, false]);
        let mut later = Vec::new();
        open_asking(&asking, libc::O_RDONLY, |flags| {
            later.push(flags & libc::O_NOATIME != 0);
            Ok(())
        })
        .unwrap();
        assert_eq!(later, [false], "the flag stays off once refused");
    }

    #[test]
    fn other_errors_leave_the_flag_on() {
        let asking = AtomicBool::new(true);
        let mut calls = 0;
        let got: io::Result<()> = open_asking(&asking, libc::O_RDONLY, |_| {
            calls += 1;
            Err(io::Error::from_raw_os_error(libc::EACCES))
        });
        assert_eq!(got.unwrap_err().raw_os_error(), Some(libc::EACCES));
        assert_eq!(calls, 1, "one open, not retried");
        assert!(asking.load(Ordering::Relaxed));
    }
}
