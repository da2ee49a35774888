//! Building a tree's index on all cores: directories are read from a shared
//! queue; each directory's entries get a block of consecutive numbers, so
//! a directory's entries are one range; each regular file is read once and
//! its (gram, number) pairs go into its thread's buffer, which is sorted by
//! gram (a radix sort: a thread's numbers only grow, so each gram's come
//! out in order) and spilled to disk as a run ([`crate::spill`]); the runs
//! are merged gram by gram as the index file is written, so memory stays
//! bounded whatever the tree's size.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use crate::grams::GramSet;
use crate::segment::{
    looks_random, nanos, Blob, Class, Dir, Entry, EntryType, Extracted, Side, SideRow, Stamp,
    StatKey, EXTRACTED, FILTERED, STREAM,
};
use crate::spill::{Blobs, Merge, RunWriter};

/// How far a build has come (read while it runs, for progress).
#[derive(Debug, Default)]
pub struct Progress {
    /// Directories read.
    pub dirs: AtomicU64,
    /// Regular files read.
    pub files: AtomicU64,
    /// Their bytes.
    pub bytes: AtomicU64,
}

/// What a build made: the directories (in entry-number order) and each
/// gram's entries; and what could not be read (reported by the caller).
pub struct Built {
    /// Directories, their entries numbered consecutively from 0.
    pub dirs: Vec<Dir<'static>>,
    /// Each gram's entries, by growing gram, merged from the spilled runs
    /// as they are read.
    pub postings: Merge,
    /// Paths that could not be read, and why.
    pub errors: Vec<(PathBuf, io::Error)>,
    /// When the build began (ns since the epoch), before anything was read.
    pub started_ns: i64,
    /// The next free entry number.
    pub next_id: u32,
    /// The next free stream number.
    pub next_stream: u32,
    /// What some numbers have beside postings (filters' bits in `blobs`).
    pub sides: Vec<SideRow<'static>>,
    /// The filters' bits.
    pub blobs: Blobs,
}

/// Extracted text for the index: what a search that extracts (archive
/// members, documents' text) reads of a file.
pub trait Texts: Sync {
    /// Feeds the text streams inside `file` (opened as `path`) to `out`,
    /// each begun with [`TextSink::begin`] and given in pieces; None when
    /// the file is searched as its bytes.
    fn texts(&self, path: &Path, file: &File, out: &mut dyn TextSink) -> Option<Extraction>;
}

/// What extraction made of a file.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Extraction {
    /// All its text was extracted.
    Complete,
    /// Some of it could not be: a search that extracts always reads the
    /// file (and says why).
    Failed,
    /// Some could not be, but what a search needs was kept: an archive
    /// whose members' texts and messages are in the cache (a pack), so a
    /// search reads the members that may match and replays the messages.
    Replayable,
}

/// How a text stream of a file is indexed.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum StreamKind {
    /// As part of the file's one text (a document's, a compressed file's,
    /// a small archive's members together).
    Part,
    /// As a member of its own: an archive whose members' texts a search
    /// can read one by one (see [`Extracted::Streams`]). A file's streams
    /// are all parts or all members.
    Member,
}

/// Receives the text streams of a file.
pub trait TextSink {
    /// A new stream begins.
    fn begin(&mut self, kind: StreamKind);
    /// More of the stream's text.
    fn add(&mut self, text: &[u8]);
}

/// Where a read of the tree starts.
pub struct Start<'k> {
    /// The directories to read (relative to the root).
    pub dirs: Vec<PathBuf>,
    /// The first free entry number.
    pub first_id: u32,
    /// The first free stream number.
    pub first_stream: u32,
    /// Directories (relative paths) whose records exist already: met as
    /// entries, they are not read.
    pub known: Option<&'k HashSet<Vec<u8>>>,
    /// Extraction, when the index holds extracted text.
    pub texts: Option<&'k dyn Texts>,
}

/// A NUL byte in a file's first block makes it binary: the size of the
/// search's first read (trawl_search's READ_SIZE, as GNU grep's), which a
/// NUL in makes `-I` skip the whole file; a search with `-I` passes over
/// such files unopened (visit::BinaryFiles), so the two must stay equal.
const FIRST_BLOCK: usize = 256 << 10;

struct Shared<'a> {
    root: &'a Path,
    queue: Mutex<(Vec<PathBuf>, usize)>,
    wake: Condvar,
    next_id: AtomicU32,
    next_stream: AtomicU32,
    dirs: Mutex<Vec<(u32, Dir<'static>)>>,
    sides: Mutex<Vec<SideRow<'static>>>,
    blobs: Blobs,
    errors: Mutex<Vec<(PathBuf, io::Error)>>,
    /// Each thread's spilled runs, once it is done.
    runs: Mutex<Vec<RunWriter>>,
    /// The first failure to spill (the build fails).
    spill_error: Mutex<Option<io::Error>>,
    spill_dir: &'a Path,
    progress: &'a Progress,
    known: Option<&'a HashSet<Vec<u8>>>,
    texts: Option<&'a dyn Texts>,
}

/// Reads the tree under `root` (not following symbolic links, staying on
/// its file system) on `threads` threads, spilling postings to unnamed
/// files in `spill_dir`; fails only when spilling fails.
pub fn build(
    root: &Path,
    spill_dir: &Path,
    threads: usize,
    progress: &Progress,
    texts: Option<&dyn Texts>,
) -> io::Result<Built> {
    let start =
        Start { dirs: vec![PathBuf::new()], first_id: 0, first_stream: 0, known: None, texts };
    read(root, spill_dir, threads, progress, start)
}

/// Reads the directories of `start` and, below them, every directory not
/// known already (see [`build`]).
pub fn read(
    root: &Path,
    spill_dir: &Path,
    threads: usize,
    progress: &Progress,
    start: Start<'_>,
) -> io::Result<Built> {
    let since_epoch =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let started_ns = i64::try_from(since_epoch.as_nanos()).unwrap_or(i64::MAX);
    let shared = Shared {
        root,
        queue: Mutex::new((start.dirs, 0)),
        wake: Condvar::new(),
        next_id: AtomicU32::new(start.first_id),
        next_stream: AtomicU32::new(start.first_stream),
        dirs: Mutex::new(Vec::new()),
        sides: Mutex::new(Vec::new()),
        blobs: Blobs::new(spill_dir)?,
        errors: Mutex::new(Vec::new()),
        runs: Mutex::new(Vec::new()),
        spill_error: Mutex::new(None),
        spill_dir,
        progress,
        known: start.known,
        texts: start.texts,
    };
    let dev = fs::metadata(root).map(|m| m.dev()).unwrap_or(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| worker(&shared, dev));
        }
    });
    if let Some(e) = shared.spill_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let mut dirs = shared.dirs.into_inner().unwrap_or_else(|p| p.into_inner());
    dirs.sort_by_key(|(first, _)| *first);
    let runs = shared.runs.into_inner().unwrap_or_else(|p| p.into_inner());
    let next_id = shared.next_id.into_inner();
    Ok(Built {
        dirs: dirs.into_iter().map(|(_, d)| d).collect(),
        postings: Merge::new(runs)?,
        errors: shared.errors.into_inner().unwrap_or_else(|p| p.into_inner()),
        started_ns,
        next_id,
        next_stream: shared.next_stream.into_inner(),
        sides: shared.sides.into_inner().unwrap_or_else(|p| p.into_inner()),
        blobs: shared.blobs,
    })
}

fn worker(shared: &Shared<'_>, dev: u64) {
    let runs = match RunWriter::new(shared.spill_dir) {
        Ok(w) => w,
        Err(e) => {
            shared.spill_failed(e);
            return;
        }
    };
    let mut postings = Pending { pairs: Vec::new(), scratch: Vec::new(), runs, shared };
    let mut grams = GramSet::default();
    let mut buf = vec![0u8; FIRST_BLOCK];
    loop {
        let rel = {
            let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(rel) = q.0.pop() {
                    q.1 += 1;
                    break rel;
                }
                if q.1 == 0 {
                    shared.wake.notify_all();
                    drop(q);
                    postings.flush();
                    shared.runs.lock().unwrap_or_else(|p| p.into_inner()).push(postings.runs);
                    return;
                }
                q = shared.wake.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        let subdirs = read_dir(shared, &rel, dev, &mut grams, &mut postings, &mut buf);
        let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.0.extend(subdirs);
        q.1 -= 1;
        shared.wake.notify_all();
    }
}

impl Shared<'_> {
    /// Spilling failed: the build fails (the first error is kept).
    fn spill_failed(&self, e: io::Error) {
        self.spill_error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
    }

    /// Keeps the filter of the distinct `grams` of `number`'s text.
    fn filter(&self, number: u32, grams: &[u32]) {
        self.side(number, &crate::filter::make(grams), Side::Filter);
    }

    /// Keeps a side row of `number` whose bytes are `bytes`.
    fn side(&self, number: u32, bytes: &[u8], side: fn(Blob<'static>) -> Side<'static>) {
        match self.blobs.put(bytes) {
            Ok((at, len)) => {
                let crc = crate::segment::side_checksum(&side(Blob::Spilled(0, 0, 0)), bytes);
                let side = side(Blob::Spilled(at, len, crc));
                self.sides.lock().unwrap_or_else(|p| p.into_inner()).push(SideRow { number, side });
            }
            Err(e) => self.spill_failed(e),
        }
    }
}

/// The stamps of a directory.
pub fn stamp_of(md: &fs::Metadata) -> Stamp {
    Stamp {
        dev: md.dev(),
        ino: md.ino(),
        mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
        ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
    }
}

/// The stat key of a file.
pub fn key_of(md: &fs::Metadata) -> StatKey {
    StatKey {
        ino: md.ino(),
        size: md.size(),
        mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
        ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
    }
}

/// Reads one directory (relative to the root) and indexes its files;
/// returns its subdirectories.
fn read_dir(
    shared: &Shared<'_>,
    rel: &Path,
    dev: u64,
    grams: &mut GramSet,
    postings: &mut Pending,
    buf: &mut [u8],
) -> Vec<PathBuf> {
    let path = shared.root.join(rel);
    let error = |p: PathBuf, e: io::Error| {
        shared.errors.lock().unwrap_or_else(|x| x.into_inner()).push((p, e))
    };
    // Stamps first: a change while it is read shows at the next check.
    let stamp = match fs::symlink_metadata(&path) {
        Ok(md) => stamp_of(&md),
        Err(e) => {
            error(path, e);
            return Vec::new();
        }
    };
    let listing = match fs::read_dir(&path) {
        Ok(it) => it,
        Err(e) => {
            error(path, e);
            return Vec::new();
        }
    };
    let mut names: Vec<(Vec<u8>, EntryType)> = Vec::new();
    for entry in listing {
        match entry {
            Ok(e) => {
                let kind = EntryType::of(e.file_type().ok());
                names.push((e.file_name().as_bytes().to_vec(), kind));
            }
            Err(e) => error(path.clone(), e),
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let first = shared.next_id.fetch_add(names.len() as u32, Ordering::Relaxed);
    let mut entries = Vec::with_capacity(names.len());
    let mut subdirs = Vec::new();
    for (i, (name, kind)) in names.into_iter().enumerate() {
        let id = first + i as u32;
        let child = path.join(std::ffi::OsStr::from_bytes(&name));
        let mut entry = Entry {
            name: name.into(),
            kind,
            key: StatKey::default(),
            class: Class::Unknown,
            extracted: Extracted::Nothing,
        };
        match kind {
            EntryType::Dir => {
                // Other file systems are not entered (a mount point is an
                // entry, as in `find -xdev`).
                let sub = rel.join(std::ffi::OsStr::from_bytes(&entry.name));
                let known = shared.known.is_some_and(|k| k.contains(sub.as_os_str().as_bytes()));
                match fs::symlink_metadata(&child) {
                    Ok(_) if known => {}
                    Ok(md) if md.dev() == dev => subdirs.push(sub),
                    Ok(_) => {}
                    Err(e) => error(child.clone(), e),
                }
            }
            EntryType::File => index_file(shared, &child, id, &mut entry, grams, postings, buf),
            EntryType::Symlink | EntryType::Other => {}
        }
        entries.push(entry);
    }
    shared.progress.dirs.fetch_add(1, Ordering::Relaxed);
    let path = rel.as_os_str().as_bytes().to_vec().into();
    let dir = Dir { path, stamp, first_id: first, entries: entries.into() };
    shared.dirs.lock().unwrap_or_else(|p| p.into_inner()).push((first, dir));
    subdirs
}

/// Reads a regular file into `grams`, notes its key and class, and adds
/// its number to the postings of each gram.
#[allow(clippy::too_many_arguments)]
fn index_file(
    shared: &Shared<'_>,
    path: &Path,
    id: u32,
    entry: &mut Entry,
    grams: &mut GramSet,
    postings: &mut Pending,
    buf: &mut [u8],
) {
    // Non-blocking and not following a link swapped in since the listing.
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let read = opened.and_then(|mut f: File| {
        let md = f.metadata()?;
        if !md.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        entry.key = key_of(&md);
        let mut first = true;
        let mut binary = false;
        let mut transcoded = false;
        let mut total = 0u64;
        loop {
            let n = match f.read(buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if first {
                binary = buf[..n].contains(&0);
                transcoded = trawl_search::has_bom(&buf[..n]);
                first = false;
            }
            grams.add(&buf[..n]);
            total += n as u64;
        }
        shared.progress.bytes.fetch_add(total, Ordering::Relaxed);
        Ok((binary, transcoded, f))
    });
    match read {
        Ok((binary, transcoded, f)) => {
            entry.class = match (transcoded, binary) {
                (true, _) => Class::Transcoded,
                (false, true) => Class::Binary,
                (false, false) => Class::Text,
            };
            shared.progress.files.fetch_add(1, Ordering::Relaxed);
            let raw = grams.take_sorted();
            let random = looks_random(raw.len(), entry.key.size);
            if random {
                entry.class = Class::Unindexed;
            } else {
                postings.add(id, &raw);
            }
            if let Some(texts) = shared.texts {
                use std::io::Seek;
                let mut sink = Sink {
                    shared,
                    grams,
                    postings,
                    fed: 0,
                    parts: 0,
                    member_open: false,
                    members: Vec::new(),
                };
                let found = match (&f).seek(io::SeekFrom::Start(0)) {
                    Ok(_) => texts.texts(path, &f, &mut sink),
                    Err(_) => Some(Extraction::Failed),
                };
                entry.extracted = sink.finish(id, found);
            }
            // Random bytes are filtered when they are what searches read:
            // a file with extracted text (a PDF, a zip) is read as its
            // bytes only by a search that does not extract, which reads
            // it whole (a filter of the compressed streams of every PDF
            // would be half their size).
            if random && entry.extracted == Extracted::Nothing {
                shared.filter(id, &raw);
            }
        }
        Err(e) => {
            grams.take_sorted();
            entry.class = Class::Unreadable;
            shared.errors.lock().unwrap_or_else(|p| p.into_inner()).push((path.to_path_buf(), e));
        }
    }
}

/// Where a file's extracted text goes: the grams of its parts are
/// gathered into one set, each member's are posted under a stream number
/// of its own when it ends.
struct Sink<'s, 'a, 'p, 'q> {
    shared: &'s Shared<'a>,
    grams: &'s mut GramSet,
    postings: &'s mut Pending<'p, 'q>,
    /// Bytes of the open member, or of all the parts.
    fed: u64,
    /// Parts begun.
    parts: u64,
    /// A member's stream is open.
    member_open: bool,
    /// Members ended: their stream numbers (with FILTERED when filtered).
    members: Vec<u32>,
}

impl TextSink for Sink<'_, '_, '_, '_> {
    fn begin(&mut self, kind: StreamKind) {
        if self.member_open {
            self.end_member();
        }
        match kind {
            StreamKind::Part => self.parts += 1,
            StreamKind::Member => self.member_open = true,
        }
    }

    fn add(&mut self, text: &[u8]) {
        self.fed += text.len() as u64;
        self.grams.add(text);
    }
}

impl Sink<'_, '_, '_, '_> {
    /// Posts (or filters) the member whose text was fed since it began.
    fn end_member(&mut self) {
        let grams = self.grams.take_sorted();
        let n = self.shared.next_stream.fetch_add(1, Ordering::Relaxed);
        if looks_random(grams.len(), self.fed) {
            self.shared.filter(STREAM | n, &grams);
            self.members.push(n | FILTERED);
        } else {
            self.postings.add(STREAM | n, &grams);
            self.members.push(n);
        }
        self.fed = 0;
        self.member_open = false;
    }

    /// What the extraction (`found`, as [`Texts::texts`] returned it)
    /// made of the file numbered `id`; its text posted.
    fn finish(mut self, id: u32, found: Option<Extraction>) -> Extracted {
        if self.member_open {
            self.end_member();
        }
        let text = self.grams.take_sorted();
        let members = !self.members.is_empty();
        let done = match found {
            None => return Extracted::Nothing,
            Some(Extraction::Failed) => return Extracted::Failed,
            // Parts and members together are not told apart: the file is
            // always read.
            Some(_) if members && self.parts > 0 => return Extracted::Failed,
            Some(done) => done,
        };
        match (done, members) {
            (Extraction::Complete | Extraction::Replayable, true) => {
                let list: Vec<u8> = self.members.iter().flat_map(|n| n.to_le_bytes()).collect();
                self.shared.side(id | EXTRACTED, &list, Side::Streams);
                match done {
                    Extraction::Complete => Extracted::Streams,
                    _ => Extracted::StreamsReported,
                }
            }
            (Extraction::Complete, false) if looks_random(text.len(), self.fed) => {
                self.shared.filter(id | EXTRACTED, &text);
                Extracted::Unindexed
            }
            (Extraction::Complete, false) => {
                self.postings.add(id | EXTRACTED, &text);
                Extracted::Text
            }
            _ => Extracted::Failed,
        }
    }
}

/// Pairs buffered per thread before they are spilled as a run (8 MB, and
/// as much again to sort them); small in tests, so there are many runs.
const BATCH: usize = if cfg!(test) { 4096 } else { 1 << 20 };

/// A thread's (gram, number) pairs not yet spilled.
struct Pending<'s, 'a> {
    pairs: Vec<u64>,
    scratch: Vec<u64>,
    runs: RunWriter,
    shared: &'s Shared<'a>,
}

impl Pending<'_, '_> {
    fn add(&mut self, id: u32, grams: &[u32]) {
        self.pairs.extend(grams.iter().map(|&g| u64::from(g) << 32 | u64::from(id)));
        if self.pairs.len() >= BATCH {
            self.flush();
        }
    }

    /// Sorts the pairs by gram (stable: each gram's numbers stay in the
    /// growing order they came in) and spills them as a run.
    fn flush(&mut self) {
        if self.pairs.is_empty() {
            return;
        }
        self.scratch.resize(self.pairs.len(), 0);
        // By the top byte of the number first: a file's extracted text is
        // numbered with the high bit set (segment::EXTRACTED), so the
        // numbers of a thread come in two growing series; a stable sort on
        // that byte, then on the gram, leaves each gram's numbers growing.
        for shift in [24, 32, 40, 48] {
            let mut counts = [0usize; 257];
            for &p in &self.pairs {
                counts[((p >> shift) & 0xff) as usize + 1] += 1;
            }
            for i in 1..257 {
                counts[i] += counts[i - 1];
            }
            for &p in &self.pairs {
                let digit = ((p >> shift) & 0xff) as usize;
                self.scratch[counts[digit]] = p;
                counts[digit] += 1;
            }
            std::mem::swap(&mut self.pairs, &mut self.scratch);
        }
        if let Err(e) = self.runs.write_run(&self.pairs) {
            self.shared.spill_failed(e);
        }
        self.pairs.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn every_file_is_in_the_postings_of_exactly_its_grams() {
        let root = tempfile::tempdir().unwrap();
        let mut texts = BTreeMap::new();
        for i in 0..300u32 {
            let rel = format!("d{}/s{}/f{i}.txt", i % 7, i % 3);
            // Many batches (of 4,096 pairs in tests), threads interleaved.
            let text: String = (0..(i * 37 % 4000))
                .map(|j| char::from(b'a' + ((i * 7 + j * j) % 26) as u8))
                .collect();
            let text = format!("{text} ID{i} MiXeD\n");
            let path = root.path().join(&rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &text).unwrap();
            texts.insert(rel, text);
        }
        fs::write(root.path().join("bin"), b"ab\0cd").unwrap();
        std::os::unix::fs::symlink("d0", root.path().join("link")).unwrap();
        let spill = tempfile::tempdir().unwrap();
        // Files named *7.txt have a "text" (their bytes reversed), indexed
        // under their numbers with the high bit; files named *5.txt are
        // "archives" of two members (the halves of their bytes), each
        // indexed under a stream number: three growing series of numbers
        // per thread, which the runs must keep in order.
        struct Reversed;
        impl Texts for Reversed {
            fn texts(
                &self,
                path: &Path,
                file: &File,
                out: &mut dyn TextSink,
            ) -> Option<Extraction> {
                let name = path.to_string_lossy();
                let mut bytes = Vec::new();
                (&*file).read_to_end(&mut bytes).ok()?;
                if name.ends_with("5.txt") {
                    let (a, b) = bytes.split_at(bytes.len() / 2);
                    for half in [a, b] {
                        out.begin(StreamKind::Member);
                        out.add(half);
                    }
                    return Some(Extraction::Complete);
                }
                if !name.ends_with("7.txt") {
                    return None;
                }
                bytes.reverse();
                out.begin(StreamKind::Part);
                out.add(&bytes);
                Some(Extraction::Complete)
            }
        }
        let built =
            build(root.path(), spill.path(), 3, &Progress::default(), Some(&Reversed)).unwrap();
        assert!(built.errors.is_empty());
        let streams: BTreeMap<u32, Vec<u32>> = built
            .sides
            .iter()
            .map(|r| match &r.side {
                Side::Streams(Blob::Spilled(at, len, _)) => {
                    let list = built.blobs.read(*at, *len).unwrap();
                    let list = list.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()));
                    (r.number, list.collect())
                }
                other => panic!("{other:?}"),
            })
            .collect();
        // Entry numbers: each directory's entries, in order.
        let mut numbered = Vec::new();
        for d in &built.dirs {
            for e in d.entries.iter() {
                let mut p = PathBuf::from(std::ffi::OsStr::from_bytes(&d.path));
                p.push(std::ffi::OsStr::from_bytes(&e.name));
                numbered.push((p.to_string_lossy().into_owned(), e.clone()));
            }
        }
        let mut want: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for (id, (path, entry)) in numbered.iter().enumerate() {
            let Some(text) = texts
                .get(path)
                .map(|t| t.as_bytes().to_vec())
                .or_else(|| (path == "bin").then(|| b"ab\0cd".to_vec()))
            else {
                assert_ne!(entry.kind, EntryType::File, "{path} unaccounted for");
                continue;
            };
            assert_eq!(
                entry.class,
                if path == "bin" { Class::Binary } else { Class::Text },
                "{path}"
            );
            assert_eq!(entry.key.size, text.len() as u64);
            let mut set = GramSet::default();
            set.add(&text);
            for g in set.take_sorted() {
                want.entry(g).or_default().push(id as u32);
            }
            let extracted = path.ends_with("7.txt");
            assert_eq!(entry.extracted == Extracted::Text, extracted, "{path}");
            if extracted {
                set.add(&text.iter().rev().copied().collect::<Vec<u8>>());
                for g in set.take_sorted() {
                    want.entry(g).or_default().push(id as u32 | EXTRACTED);
                }
            }
            let members = path.ends_with("5.txt");
            assert_eq!(entry.extracted == Extracted::Streams, members, "{path}");
            if members {
                let list = &streams[&(id as u32 | EXTRACTED)];
                let (a, b) = text.split_at(text.len() / 2);
                assert_eq!(list.len(), 2, "{path}");
                for (half, n) in [a, b].into_iter().zip(list) {
                    set.add(half);
                    for g in set.take_sorted() {
                        want.entry(g).or_default().push(STREAM | n);
                    }
                }
            }
        }
        for ids in want.values_mut() {
            ids.sort_unstable();
        }
        assert_eq!(numbered.iter().filter(|(_, e)| e.kind == EntryType::File).count(), 301);
        assert!(numbered.iter().any(|(p, e)| p == "link" && e.kind == EntryType::Symlink));
        let got: BTreeMap<u32, Vec<u32>> = built
            .postings
            .map(|item| item.unwrap())
            .map(|(g, b)| (g, b.iter().collect()))
            .collect();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "postings differ");
        // Every archive's members have numbers of their own.
        assert_eq!(streams.len(), 300 / 10);
        let all: std::collections::BTreeSet<u32> = streams.values().flatten().copied().collect();
        assert_eq!(all.len(), 2 * streams.len());
        assert_eq!(built.next_stream as usize, all.len());
    }
}
