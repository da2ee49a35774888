//! Standard output, shared by all threads, for grep and find alike.
//!
//! Unsorted, printers (and find's evaluators) hand over whole files' output
//! and it is written at once under a lock. Sorted (`--sort path`, `find
//! --sort`), each walker thread writes what it prints for an entry into its
//! own [`Capture`], which the walk takes and passes back in walk order
//! ([`Stdout::write_in_order`]); it is then gathered into large writes.

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::mem::ManuallyDrop;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread::ThreadId;

use trawl_printer::Chunk;

use crate::config::Config;

/// Sorted output is written once this much is gathered (and a file's output
/// this large is written as it is).
pub const WRITE_AT: usize = 64 * 1024;

/// Writes whole chunks to file descriptor 1 under a lock (no extra buffering:
/// printers already hand over large chunks).
pub struct Stdout {
    inner: Mutex<Inner>,
    /// Signalled when a thread lets standard output go.
    free: Condvar,
    /// Context is on: separate groups of different files with `--`.
    context: bool,
    separator: Vec<u8>,
    /// `--line-buffered`: sorted output is written entry by entry.
    line_buffered: bool,
    broken: AtomicBool,
    /// Threads waiting for a holder to let go (tests wait on it).
    waiting: AtomicUsize,
}

struct Inner {
    file: ManuallyDrop<File>,
    /// Some group of lines was written (the next file's group needs `--`).
    group_written: bool,
    /// Sorted output gathered for one large write.
    gathered: Vec<u8>,
    /// The thread writing a large file's output in pieces: others wait.
    holder: Option<ThreadId>,
}

impl Stdout {
    pub fn new(cfg: &Config) -> Stdout {
        // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop
        // keeps this File from closing it.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
        let separator = trawl_printer::file_separator(&cfg.printer);
        let separated = separator.is_some();
        Stdout::on(file, separated, separator.unwrap_or_default(), cfg.printer.line_buffered)
    }

    /// Standard output for `trawl find` (no groups, no `--`).
    pub fn for_find() -> Stdout {
        // SAFETY: as in `new`.
        let file = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
        Stdout::on(file, false, Vec::new(), false)
    }

    /// Shared output over `file` (fd 1, or a file in tests).
    fn on(
        file: ManuallyDrop<File>,
        context: bool,
        separator: Vec<u8>,
        line_buffered: bool,
    ) -> Stdout {
        Stdout {
            inner: Mutex::new(Inner {
                file,
                group_written: false,
                gathered: Vec::new(),
                holder: None,
            }),
            free: Condvar::new(),
            context,
            separator,
            line_buffered,
            broken: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
        }
    }

    /// Whether a reader closed the pipe (the run then ends quietly).
    pub fn broken_pipe(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }

    /// Writes files' outputs (one slice each, as a [`Capture`] handed it
    /// over: ended by the byte saying whether it holds lines), after
    /// everything written before them (the walk calls this in walk order):
    /// `--` goes before each as it would before an unsorted file's first
    /// chunk. Small output is gathered for one large write;
    /// [`Stdout::flush`] writes the rest.
    pub fn write_in_order(&self, outputs: &[&[u8]]) -> io::Result<()> {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let separator: &[u8] = if self.context { &self.separator } else { b"" };
        // Each output ends with the byte saying whether it holds lines.
        let outputs: Vec<(&[u8], bool)> = outputs
            .iter()
            .filter_map(|o| o.split_last().map(|(&kind, o)| (o, kind == HOLDS_LINES)))
            .collect();
        // Whether `--` goes before an output: each is a file's group (a
        // notice alone is none: see Chunk::Notice).
        let separate = |inner: &mut Inner, lines: bool| {
            let before = self.context && lines && inner.group_written;
            inner.group_written |= self.context && lines;
            before
        };
        let total = outputs.iter().map(|(o, _)| o.len() + separator.len()).sum::<usize>();
        if inner.gathered.len() + total < WRITE_AT && !self.line_buffered {
            for &(output, lines) in &outputs {
                if separate(inner, lines) {
                    inner.gathered.extend_from_slice(separator);
                }
                inner.gathered.extend_from_slice(output);
            }
            return Ok(());
        }
        let mut seps = Vec::with_capacity(outputs.len());
        for &(_, lines) in &outputs {
            seps.push(separate(inner, lines));
        }
        let mut slices = Vec::with_capacity(outputs.len() * 2 + 1);
        slices.push(IoSlice::new(&inner.gathered));
        for (&(output, _), sep) in outputs.iter().zip(seps) {
            if sep {
                slices.push(IoSlice::new(separator));
            }
            slices.push(IoSlice::new(output));
        }
        let r = write_all_vectored(&mut *inner.file, &mut slices);
        inner.gathered.clear();
        self.note_error(r)
    }

    /// Writes gathered sorted output.
    pub fn flush(&self) -> io::Result<()> {
        self.write_gathered(&mut self.lock())
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

impl trawl_printer::Output for Stdout {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        if bytes.is_empty() && chunk != Chunk::EmptyGroup {
            return Ok(());
        }
        let mut inner = self.lock();
        // Sorted output gathered so far comes first.
        let mut result = self.write_gathered(&mut inner);
        if self.context && matches!(chunk, Chunk::FirstOfFile | Chunk::EmptyGroup) {
            if inner.group_written && result.is_ok() {
                result = inner.file.write_all(&self.separator);
            }
            inner.group_written = true;
        }
        let result = result.and_then(|_| inner.file.write_all(bytes));
        self.note_error(result)
    }

    fn hold(&self) {
        self.lock().holder = Some(std::thread::current().id());
    }

    fn let_go(&self) {
        self.lock().holder = None;
        self.free.notify_all();
    }
}

impl trawl_select::Output for Stdout {
    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        trawl_printer::Output::write(self, bytes, Chunk::Continued)
    }
}

/// What one thread of a sorted walk prints for the entry it visits, until
/// the walk takes it to write it in walk order (a file's output whole: one
/// group of context, as [`Stdout::write_in_order`] expects).
#[derive(Default)]
pub struct Capture(Mutex<Held>);

#[derive(Default)]
struct Held {
    bytes: Vec<u8>,
    /// Some of it is lines (not only a binary notice: [`Chunk::Notice`]),
    /// or lines that printed as nothing ([`Chunk::EmptyGroup`]).
    lines: bool,
}

/// The byte ending each output a [`Capture`] hands over: what it holds, for
/// [`Stdout::write_in_order`] (which takes it off).
const HOLDS_LINES: u8 = 1;
const HOLDS_NOTICE: u8 = 0;

impl Capture {
    /// Moves what was captured to the end of `out`, followed by the byte
    /// telling what it is: large output moves, small output is copied so
    /// the capture keeps its capacity.
    pub fn take_into(&self, out: &mut Vec<u8>) {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if held.bytes.is_empty() && !held.lines {
            return;
        }
        let kind = if held.lines { HOLDS_LINES } else { HOLDS_NOTICE };
        held.lines = false;
        if out.is_empty() && held.bytes.len() >= WRITE_AT {
            std::mem::swap(out, &mut held.bytes);
        } else {
            out.extend_from_slice(&held.bytes);
            held.bytes.clear();
        }
        out.push(kind);
    }

    fn append(&self, bytes: &[u8], chunk: Chunk) {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        held.bytes.extend_from_slice(bytes);
        held.lines |= match chunk {
            Chunk::Notice => false,
            Chunk::EmptyGroup => true,
            Chunk::FirstOfFile | Chunk::Continued => !bytes.is_empty(),
        };
    }
}

impl trawl_printer::Output for Capture {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        self.append(bytes, chunk);
        Ok(())
    }
}

impl trawl_select::Output for Capture {
    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        self.append(bytes, Chunk::FirstOfFile);
        Ok(())
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
    use trawl_printer::Output;

    #[test]
    fn a_held_output_keeps_other_threads_waiting() {
        let mut f = tempfile::tempfile().unwrap();
        let out = Stdout::on(ManuallyDrop::new(f.try_clone().unwrap()), false, Vec::new(), false);
        let (tx, rx) = std::sync::mpsc::channel();
        let out = &out;
        std::thread::scope(|s| {
            out.hold();
            out.write(b"a1\n", Chunk::FirstOfFile).unwrap();
            s.spawn(move || {
                rx.recv().unwrap();
                out.write(b"b\n", Chunk::FirstOfFile).unwrap();
            });
            tx.send(()).unwrap();
            // Once the other thread waits for the holder to let go.
            while out.waiting.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            out.write(b"a2\n", Chunk::Continued).unwrap();
            out.let_go();
        });
        let mut got = String::new();
        f.rewind().unwrap();
        f.read_to_string(&mut got).unwrap();
        assert_eq!(got, "a1\na2\nb\n");
    }
}
