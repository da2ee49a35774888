//! Standard output, shared by all threads, for grep and find alike.
//!
//! Unsorted, printers (and find's evaluators) hand over whole files' output
//! and it is written at once under a lock. Sorted (`--sort path`, `find
//! --sort`), each walker thread's printer writes into its own
//! [`crate::Capture`], which the walk takes and passes back in walk order
//! ([`Output::write_in_order`]); it is then gathered into large writes.
//! Either way [`Separators`] decides what goes between files.

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;

use crate::config::PrinterConfig;
use crate::output::{Chunk, Output, Separators};

/// Sorted output is written once this much is gathered (and a file's output
/// this large is written as it is).
pub const WRITE_AT: usize = 64 * 1024;

/// Writes whole pieces to file descriptor 1 under a lock (no extra
/// buffering: printers already hand over large pieces).
pub struct Stdout {
    inner: Mutex<Inner>,
    /// Signalled when a thread lets standard output go.
    free: Condvar,
    /// `--line-buffered`: sorted output is written entry by entry.
    line_buffered: bool,
    broken: AtomicBool,
    /// Threads waiting for a holder to let go (tests wait on it).
    waiting: AtomicUsize,
}

struct Inner {
    file: ManuallyDrop<File>,
    /// What goes between files' outputs, and whether a group was written.
    separators: Separators,
    /// Sorted output gathered for one large write.
    gathered: Vec<u8>,
    /// The thread writing a large file's output in pieces: others wait.
    holder: Option<ThreadId>,
}

impl Stdout {
    /// Standard output for grep's output as `config` prints it.
    pub fn new(config: &PrinterConfig) -> Stdout {
        Stdout::on(fd_1(), Separators::new(config), config.line_buffered)
    }

    /// Standard output for `trawl find` (no groups, no `--`).
    pub fn for_find() -> Stdout {
        Stdout::on(fd_1(), Separators::none(), false)
    }

    /// Standard output joining pieces with `separators` (a merge of
    /// shards' output); `line_buffered`: pieces in order are written as
    /// they come.
    pub fn joining(separators: Separators, line_buffered: bool) -> Stdout {
        Stdout::on(fd_1(), separators, line_buffered)
    }

    /// Shared output over `file` (fd 1, or a file in tests).
    fn on(file: ManuallyDrop<File>, separators: Separators, line_buffered: bool) -> Stdout {
        Stdout {
            inner: Mutex::new(Inner { file, separators, gathered: Vec::new(), holder: None }),
            free: Condvar::new(),
            line_buffered,
            broken: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Locks standard output, once no other thread holds it.
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        let me = std::thread::current().id();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        while inner.holder.is_some_and(|h| h != me) {
            self.waiting.fetch_add(1, Ordering::SeqCst);
            inner = self.free.wait(inner).unwrap_or_else(|e| e.into_inner());
            self.waiting.fetch_sub(1, Ordering::SeqCst);
        }
        inner
    }

    fn write_gathered(&self, inner: &mut Inner) -> io::Result<()> {
        if inner.gathered.is_empty() {
            return Ok(());
        }
        let r = inner.file.write_all(&inner.gathered);
        inner.gathered.clear();
        self.note_error(r)
    }

    fn note_error(&self, result: io::Result<()>) -> io::Result<()> {
        if let Err(e) = &result {
            if e.kind() == io::ErrorKind::BrokenPipe {
                self.broken.store(true, Ordering::Relaxed);
            }
        }
        result
    }
}

/// File descriptor 1, never closed by this process.
fn fd_1() -> ManuallyDrop<File> {
    // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop
    // keeps this File from closing it.
    ManuallyDrop::new(unsafe { File::from_raw_fd(1) })
}

impl Output for Stdout {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        if !chunk.is_output(bytes) {
            return Ok(());
        }
        let mut inner = self.lock();
        let inner = &mut *inner;
        // Sorted output gathered so far comes first.
        let mut result = self.write_gathered(inner);
        if let Some(sep) = inner.separators.before(chunk, bytes) {
            if result.is_ok() {
                result = inner.file.write_all(sep);
            }
        }
        let result = result.and_then(|_| inner.file.write_all(bytes));
        self.note_error(result)
    }

    /// Small output is gathered for one large write; [`Output::flush`]
    /// writes the rest.
    fn write_in_order(&self, pieces: &[(Chunk, &[u8])]) -> io::Result<()> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let separated: Vec<bool> = pieces
            .iter()
            .map(|&(chunk, bytes)| inner.separators.before(chunk, bytes).is_some())
            .collect();
        let separator = inner.separators.text();
        let total = pieces.iter().map(|(_, o)| o.len() + separator.len()).sum::<usize>();
        if inner.gathered.len() + total < WRITE_AT && !self.line_buffered {
            for (&(_, bytes), sep) in pieces.iter().zip(separated) {
                if sep {
                    inner.gathered.extend_from_slice(separator);
                }
                inner.gathered.extend_from_slice(bytes);
            }
            return Ok(());
        }
        let mut slices = Vec::with_capacity(pieces.len() * 2 + 1);
        slices.push(IoSlice::new(&inner.gathered));
        for (&(_, bytes), sep) in pieces.iter().zip(separated) {
            if sep {
                slices.push(IoSlice::new(separator));
            }
            slices.push(IoSlice::new(bytes));
        }
        let r = write_all_vectored(&mut *inner.file, &mut slices);
        inner.gathered.clear();
        self.note_error(r)
    }

    fn flush(&self) -> io::Result<()> {
        self.write_gathered(&mut self.lock())
    }

    fn hold(&self) {
        self.lock().holder = Some(std::thread::current().id());
    }

    fn let_go(&self) {
        self.lock().holder = None;
        self.free.notify_all();
    }

    fn broken_pipe(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }
}

/// Writes every slice (in chunks the kernel takes: at most 1024 per call).
pub fn write_all_vectored(out: &mut impl Write, mut slices: &mut [IoSlice<'_>]) -> io::Result<()> {
    IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        let n = slices.len().min(1024);
        match out.write_vectored(&slices[..n]) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut slices, written),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    fn contents(mut f: File) -> String {
        let mut got = String::new();
        f.rewind().unwrap();
        f.read_to_string(&mut got).unwrap();
        got
    }

    fn context() -> PrinterConfig {
        PrinterConfig { context: true, group_separator: Some(b"--".to_vec()), ..Default::default() }
    }

    #[test]
    fn a_held_output_keeps_other_threads_waiting() {
        let f = tempfile::tempfile().unwrap();
        let out = Stdout::on(ManuallyDrop::new(f.try_clone().unwrap()), Separators::none(), false);
        let (tx, rx) = std::sync::mpsc::channel();
        let out = &out;
        std::thread::scope(|s| {
            out.hold();
            out.write(b"a1\n", Chunk::Lines).unwrap();
            s.spawn(move || {
                rx.recv().unwrap();
                out.write(b"b\n", Chunk::Lines).unwrap();
            });
            tx.send(()).unwrap();
            // Once the other thread waits for the holder to let go.
            while out.waiting.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            out.write(b"a2\n", Chunk::Continued).unwrap();
            out.let_go();
        });
        assert_eq!(contents(f), "a1\na2\nb\n");
    }

    #[test]
    fn sorted_and_unsorted_writes_separate_files_alike() {
        let pieces: [(Chunk, &[u8]); 5] = [
            (Chunk::Notice, b"trawl: x: binary file matches\n"),
            (Chunk::Lines, b"a-1\na:2\n"),
            (Chunk::EmptyGroup, b""),
            (Chunk::Other, b""),
            (Chunk::Lines, b"b:1\n"),
        ];
        let want = "trawl: x: binary file matches\na-1\na:2\n--\n--\nb:1\n";
        let unsorted = tempfile::tempfile().unwrap();
        let out = Stdout::on(
            ManuallyDrop::new(unsorted.try_clone().unwrap()),
            Separators::new(&context()),
            false,
        );
        for (chunk, bytes) in pieces {
            out.write(bytes, chunk).unwrap();
        }
        assert_eq!(contents(unsorted), want);
        // In walk order, in two calls, gathered and then written.
        let sorted = tempfile::tempfile().unwrap();
        let out = Stdout::on(
            ManuallyDrop::new(sorted.try_clone().unwrap()),
            Separators::new(&context()),
            false,
        );
        out.write_in_order(&pieces[..2]).unwrap();
        out.write_in_order(&pieces[2..]).unwrap();
        out.flush().unwrap();
        assert_eq!(contents(sorted), want);
    }

    #[test]
    fn unsorted_output_follows_what_was_gathered_in_order() {
        let f = tempfile::tempfile().unwrap();
        let out = Stdout::on(
            ManuallyDrop::new(f.try_clone().unwrap()),
            Separators::new(&context()),
            false,
        );
        out.write_in_order(&[(Chunk::Lines, b"a\n")]).unwrap();
        out.write(b"total\n", Chunk::Other).unwrap();
        assert_eq!(contents(f), "a\ntotal\n");
    }
}
