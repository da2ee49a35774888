//! One large file searched by several threads at once.
//!
//! The file is cut into parts of [`PART_SIZE`] bytes. A line belongs to the
//! part holding its first byte, so every line is searched exactly once, by
//! one thread, which reads its part with `pread` into its own buffer (a
//! little before it for before-context, and past its end for the last line
//! and after-context). What a part selects is recorded (offsets, line
//! numbers relative to the part, the text only when printed) and replayed
//! into the caller's sink in file order by the calling thread, which also
//! searches parts while it waits. Replaying restores what crossing a part
//! edge changes: absolute line numbers (prefix sums of each part's newline
//! count), context lines printed by two parts (kept once, a selected line
//! winning over context), the `--` between groups, `-m` across parts, and a
//! binary file whose first NUL sits in an earlier part. At most a few parts
//! per thread are held ahead of the one being replayed. Here: the parts
//! handed out and searched; record.rs: what a part selects; replay.rs: the
//! replay.

mod record;
mod replay;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use memchr::memrchr;
use trawl_matcher::Matcher;

use self::record::{Recorded, Recorder};
use self::replay::Replay;
use crate::config::{BinaryMode, SearcherConfig};
use crate::mapped::Mapping;
use crate::part::Part;
use crate::sink::{SearchError, SearchSummary, Sink};
use crate::Searcher;

/// Bytes per part: large enough that the per-part cost (a thread handoff, a
/// few syscalls) vanishes, small enough to share a file among threads.
pub const PART_SIZE: u64 = 4 << 20;

/// Files of at least this many parts are worth searching on several threads.
pub(crate) const PARTS_MIN: u64 = 4;

/// Files at least this large are worth searching on several threads.
pub const PARALLEL_MIN: u64 = PARTS_MIN * PART_SIZE;

/// A mapped file's pages are given back this many bytes at a time.
const RELEASE_EVERY: u64 = 32 << 20;

/// Parts searched ahead of the one being replayed, per thread.
const AHEAD_PER_THREAD: usize = 3;

/// Searches `file` (of `size` bytes) with up to `threads` threads, giving
/// `sink` exactly what [`Searcher::search_reader`] would.
pub fn search_file<M: Matcher, S: Sink>(
    config: &SearcherConfig,
    matcher: &M,
    file: &File,
    size: u64,
    threads: usize,
    sink: &mut S,
) -> Result<SearchSummary, SearchError> {
    if config.max_count == Some(0) {
        return Ok(SearchSummary::default());
    }
    let job = Job {
        config,
        matcher,
        file,
        size,
        part_size: config.part_size(),
        parts: size.div_ceil(config.part_size()) as usize,
        state: Mutex::new(PartQueue::default()),
        wake: Condvar::new(),
        first_nul: AtomicU64::new(u64::MAX),
        stop: AtomicBool::new(false),
        ahead: threads * AHEAD_PER_THREAD,
        map: Mapping::new(config.mmap, file, size),
    };
    std::thread::scope(|s| {
        for _ in 1..threads.min(job.parts) {
            s.spawn(|| job.work());
        }
        // The helpers stop when the replay ends, even by a panic (else the
        // scope would wait for them forever).
        let _stop = StopOnDrop(&job);
        let mut searcher = Searcher::new(config.clone());
        job.replay(&mut searcher, sink)
    })
}

/// Tells a job's helpers to take no more parts.
struct StopOnDrop<'j, 'a, M>(&'j Job<'a, M>);

impl<M> Drop for StopOnDrop<'_, '_, M> {
    fn drop(&mut self) {
        // Under the lock: a helper between its check and its wait would
        // otherwise miss the wake-up and never end.
        let st = self.0.lock();
        self.0.stop.store(true, Ordering::Relaxed);
        drop(st);
        self.0.wake.notify_all();
    }
}

/// Which parts are handed out, replayed, and waiting to be replayed.
#[derive(Default)]
struct PartQueue {
    /// The next part to hand out.
    next: usize,
    /// The next part to replay.
    head: usize,
    done: BTreeMap<usize, Result<Recorded, SearchError>>,
}

struct Job<'a, M> {
    config: &'a SearcherConfig,
    matcher: &'a M,
    file: &'a File,
    size: u64,
    part_size: u64,
    parts: usize,
    state: Mutex<PartQueue>,
    wake: Condvar,
    /// Offset of the first NUL byte found so far: parts after it are binary.
    first_nul: AtomicU64,
    /// The replay is over: take no more parts.
    stop: AtomicBool,
    ahead: usize,
    /// The file mapped (parts are read when it is not).
    map: Option<Mapping>,
}

impl<M> Job<'_, M> {
    fn lock(&self) -> std::sync::MutexGuard<'_, PartQueue> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<M: Matcher> Job<'_, M> {
    /// Takes the next part, unless too far ahead of the replay; waits for
    /// one when `wait` (helper threads) and returns None when all are out.
    fn take(&self, wait: bool) -> Option<usize> {
        let mut st = self.lock();
        loop {
            if self.stop.load(Ordering::Relaxed) || st.next >= self.parts {
                return None;
            }
            if st.next < st.head + self.ahead {
                st.next += 1;
                return Some(st.next - 1);
            }
            if !wait {
                return None;
            }
            st = self.wake.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Helper threads: search parts until none are left.
    fn work(&self) {
        let mut searcher = Searcher::new(self.config.clone());
        while let Some(k) = self.take(true) {
            let r = self.search_part(&mut searcher, k, false);
            self.lock().done.insert(k, r);
            self.wake.notify_all();
        }
    }

    /// Searches part `k` into a record.
    fn search_part(
        &self,
        searcher: &mut Searcher,
        k: usize,
        binary: bool,
    ) -> Result<Recorded, SearchError> {
        let start = k as u64 * self.part_size;
        let end = (start + self.part_size).min(self.size);
        let binary = binary || self.first_nul.load(Ordering::Relaxed) < start;
        let read_start = self.read_start(start)?;
        if let Some(rec) = self.lineless(start, end, read_start, binary) {
            return Ok(rec);
        }
        let part =
            Part { start: start - read_start, end: end - read_start, binary, origin: read_start };
        let text = !self.config.lines_unneeded;
        let mut rec = Recorder { text, record: Recorded::default(), mapped: None };
        let mapped = match self.map.as_ref().filter(|m| !binary && !m.faulted()) {
            Some(map) => {
                let data = map.bytes_from(read_start);
                rec.mapped = Some(data);
                let found = searcher.search_mapped(self.matcher, data, &mut rec, part)?;
                // After a fault the part may have seen zeros for the file's bytes.
                found.filter(|_| !map.faulted())
            }
            None => None,
        };
        let summary = match mapped {
            Some(summary) => summary,
            None => {
                // Read, from a fresh record (a mapped try may have left lines).
                rec = Recorder { text, record: Recorded::default(), mapped: None };
                let reader = PartReader { file: self.file, pos: read_start };
                searcher.search_part(self.matcher, reader, &mut rec, part)?
            }
        };
        if let Some(at) = summary.binary_offset.filter(|_| !binary) {
            self.first_nul.fetch_min(read_start + at, Ordering::Relaxed);
        }
        let mut r = rec.record;
        r.summary = summary;
        r.read_start = read_start;
        r.assumed_binary = binary;
        Ok(r)
    }

    /// The record of a mapped part in which no line starts and that holds
    /// no NUL (inside a line longer than a part): nothing to search. Every
    /// part of a 100 MB line searched its rest for the line's end.
    fn lineless(&self, start: u64, end: u64, read_start: u64, binary: bool) -> Option<Recorded> {
        let map = self.map.as_ref().filter(|m| !m.faulted())?;
        // Without before-context the reader starts at the byte before the
        // part: line 1 of the part's numbering holds both its ends.
        if start == 0 || read_start != start - 1 {
            return None;
        }
        let region = map.bytes_from(read_start).get(..(end - read_start) as usize)?;
        if memchr::memchr2(self.config.terminator.byte(), 0, region).is_some() {
            return None;
        }
        Some(Recorded {
            summary: SearchSummary { part_lines: (Some(1), Some(1)), ..SearchSummary::default() },
            read_start,
            assumed_binary: binary,
            ..Recorded::default()
        })
    }

    /// Where to start reading for the part beginning at `start`: the byte
    /// before it (so the searcher sees whether a line starts at `start`),
    /// or further back to hold the lines wanted as before-context.
    fn read_start(&self, start: u64) -> io::Result<u64> {
        if start == 0 {
            return Ok(0);
        }
        let want = self.config.before_context;
        if want == 0 {
            return Ok(start - 1);
        }
        // Back over `want` newlines before the one that may end at start-1.
        let mut buf = vec![0; 64 * 1024];
        let mut end = start - 1;
        let mut found = 0;
        while end > 0 {
            let from = end.saturating_sub(buf.len() as u64);
            let chunk = &mut buf[..(end - from) as usize];
            self.file.read_exact_at(chunk, from)?;
            let mut hay = &chunk[..];
            while let Some(i) = memrchr(self.config.terminator.byte(), hay) {
                found += 1;
                if found == want {
                    return Ok(from + i as u64 + 1);
                }
                hay = &hay[..i];
            }
            end = from;
        }
        Ok(0)
    }

    /// The calling thread: replays parts in order into `sink`, searching
    /// parts itself while the next one is not ready.
    fn replay<S: Sink>(
        &self,
        searcher: &mut Searcher,
        sink: &mut S,
    ) -> Result<SearchSummary, SearchError> {
        let mut r = Replay::new(self.config, self.part_size);
        let mut released = 0;
        for k in 0..self.parts {
            if self.config.cancel.is_cancelled() {
                return Err(SearchError::Io(io::Error::from(io::ErrorKind::Interrupted)));
            }
            let rec = loop {
                let mut st = self.lock();
                if let Some(rec) = st.done.remove(&k) {
                    st.head = k + 1;
                    drop(st);
                    self.wake.notify_all();
                    break rec;
                }
                drop(st);
                match self.take(false) {
                    Some(j) => {
                        let rec = self.search_part(searcher, j, false);
                        self.lock().done.insert(j, rec);
                    }
                    None => {
                        let st = self.lock();
                        if !st.done.contains_key(&k) {
                            drop(self.wake.wait(st));
                        }
                    }
                }
            };
            let mut rec = rec?;
            let start = k as u64 * self.part_size;
            let nul_before = r.summary.binary_offset.is_some_and(|z| z < start);
            if nul_before && !rec.assumed_binary && self.config.binary == BinaryMode::Detect {
                // An earlier part held a NUL: this one is binary too.
                rec = self.search_part(searcher, k, true)?;
            }
            if !r.play(k, rec, self.map.as_ref(), sink)? {
                break;
            }
            if let Some(map) = &self.map {
                // Parts up to k are done with: give back their pages, a
                // batch at a time (each call interrupts the other threads).
                let done = (k as u64 + 1) * self.part_size;
                if done - released >= RELEASE_EVERY {
                    map.release(released, done);
                    released = done;
                }
            }
        }
        r.finish(sink)?;
        Ok(SearchSummary { bytes: self.size, ..r.summary })
    }
}

/// Reads a file from an offset with `pread`, never moving a shared cursor.
struct PartReader<'a> {
    file: &'a File,
    pos: u64,
}

impl Read for PartReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}
