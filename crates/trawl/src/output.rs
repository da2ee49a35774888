//! Standard output, shared by all threads.

use std::fs::File;
use std::io::{self, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::config::Config;

/// Writes whole chunks to file descriptor 1 under a lock (no extra buffering:
/// printers already hand over large chunks).
pub struct Stdout {
    inner: Mutex<Inner>,
    /// Context is on: separate groups of different files with `--`.
    context: bool,
    separator: Vec<u8>,
    broken: AtomicBool,
}

struct Inner {
    file: ManuallyDrop<File>,
    /// Some group of lines was written (the next file's group needs `--`).
    group_written: bool,
}

impl Stdout {
    pub fn new(cfg: &Config) -> Stdout {
        // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop
        // keeps this File from closing it.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
        Stdout {
            inner: Mutex::new(Inner { file, group_written: false }),
            context: cfg.printer.context,
            separator: trawl_printer::group_separator(cfg.printer.colors.as_ref()),
            broken: AtomicBool::new(false),
        }
    }

    /// Whether a reader closed the pipe (the run then ends quietly).
    pub fn broken_pipe(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }
}

impl trawl_printer::Output for Stdout {
    fn write(&self, bytes: &[u8], first: bool) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let mut result = Ok(());
        if self.context && first {
            if inner.group_written {
                result = inner.file.write_all(&self.separator);
            }
            inner.group_written = true;
        }
        let result = result.and_then(|_| inner.file.write_all(bytes));
        if let Err(e) = &result {
            if e.kind() == io::ErrorKind::BrokenPipe {
                self.broken.store(true, Ordering::Relaxed);
            }
        }
        result
    }
}
