//! A shard's standard error, caught: every line trawl (or a program it
//! starts) writes there while the shard runs becomes an `error` record of
//! its stream, as written, so that nothing a shard says is lost on a host
//! no one watches.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::thread::JoinHandle;

use trawl_shard::ShardWriter;

/// Standard error while it is caught.
pub struct Caught {
    /// The descriptor standard error was before.
    saved: OwnedFd,
    reader: JoinHandle<()>,
}

/// Sends what is written to descriptor 2 from now on to `out` as `error`
/// records, one a line.
pub fn catch<W: Write + Send + Sync + 'static>(out: Arc<ShardWriter<W>>) -> io::Result<Caught> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into `fds`, which has room for
    // two.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just made by pipe2 and are owned here
    // alone.
    let (read_end, write_end) =
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor and touches no memory.
    let saved = unsafe { libc::fcntl(2, libc::F_DUPFD_CLOEXEC, 3) };
    if saved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `saved` was just made by fcntl and is owned here alone.
    let saved = unsafe { OwnedFd::from_raw_fd(saved) };
    // SAFETY: dup2 replaces descriptor 2 with the pipe's write end (not
    // close-on-exec: programs trawl starts write there too); no memory is
    // touched.
    if unsafe { libc::dup2(write_end.as_raw_fd(), 2) } < 0 {
        return Err(io::Error::last_os_error());
    }
    drop(write_end);
    let reader = std::thread::spawn(move || {
        let lines = BufReader::new(File::from(read_end)).split(b'\n');
        for line in lines.map_while(Result::ok) {
            if out.error(&line).is_err() {
                break;
            }
        }
    });
    Ok(Caught { saved, reader })
}

impl Caught {
    /// Gives standard error back, once every line written to it became a
    /// record.
    pub fn release(self) {
        // SAFETY: dup2 puts the saved descriptor back as 2, closing the
        // pipe's last write end this process holds; no memory is touched.
        unsafe { libc::dup2(self.saved.as_raw_fd(), 2) };
        let _ = self.reader.join();
    }
}
