//! Building a tree's index on all cores: directories are read from a shared
//! queue; each directory's entries get a block of consecutive numbers, so
//! a directory's entries are one range; each regular file is read once and
//! its grams go into postings sharded by gram (threads rarely meet).

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use roaring::RoaringBitmap;

use crate::grams::GramSet;
use crate::segment::{Class, Dir, Entry, EntryType, Stamp, StatKey};

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
    pub dirs: Vec<Dir>,
    /// Each gram's entries, sorted by gram.
    pub postings: Vec<(u32, RoaringBitmap)>,
    /// Paths that could not be read, and why.
    pub errors: Vec<(PathBuf, io::Error)>,
}

const SHARDS: usize = 64;
/// A NUL byte in a file's first block makes it binary (GNU grep's first read).
const FIRST_BLOCK: usize = 256 << 10;

struct Shared<'a> {
    root: &'a Path,
    queue: Mutex<(Vec<PathBuf>, usize)>,
    wake: Condvar,
    next_id: AtomicU32,
    dirs: Mutex<Vec<(u32, Dir)>>,
    shards: Vec<Mutex<HashMap<u32, RoaringBitmap>>>,
    errors: Mutex<Vec<(PathBuf, io::Error)>>,
    progress: &'a Progress,
}

/// Reads the tree under `root` (not following symbolic links, staying on
/// its file system) on `threads` threads.
pub fn build(root: &Path, threads: usize, progress: &Progress) -> Built {
    let shared = Shared {
        root,
        queue: Mutex::new((vec![PathBuf::new()], 0)),
        wake: Condvar::new(),
        next_id: AtomicU32::new(0),
        dirs: Mutex::new(Vec::new()),
        shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        errors: Mutex::new(Vec::new()),
        progress,
    };
    let dev = fs::metadata(root).map(|m| m.dev()).unwrap_or(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| worker(&shared, dev));
        }
    });
    let mut dirs = shared.dirs.into_inner().unwrap_or_else(|p| p.into_inner());
    dirs.sort_by_key(|(first, _)| *first);
    let mut postings: Vec<(u32, RoaringBitmap)> = shared
        .shards
        .into_iter()
        .flat_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect();
    postings.sort_unstable_by_key(|(g, _)| *g);
    Built {
        dirs: dirs.into_iter().map(|(_, d)| d).collect(),
        postings,
        errors: shared.errors.into_inner().unwrap_or_else(|p| p.into_inner()),
    }
}

fn worker(shared: &Shared<'_>, dev: u64) {
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
                    return;
                }
                q = shared.wake.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        let subdirs = read_dir(shared, &rel, dev, &mut grams, &mut buf);
        let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.0.extend(subdirs);
        q.1 -= 1;
        shared.wake.notify_all();
    }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
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
                let kind = match e.file_type() {
                    Ok(t) if t.is_file() => EntryType::File,
                    Ok(t) if t.is_dir() => EntryType::Dir,
                    Ok(t) if t.is_symlink() => EntryType::Symlink,
                    _ => EntryType::Other,
                };
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
        let mut entry = Entry { name, kind, key: StatKey::default(), class: Class::Unknown };
        match kind {
            EntryType::Dir => {
                // Other file systems are not entered (a mount point is an
                // entry, as in `find -xdev`).
                match fs::symlink_metadata(&child) {
                    Ok(md) if md.dev() == dev => {
                        subdirs.push(rel.join(std::ffi::OsStr::from_bytes(&entry.name)))
                    }
                    Ok(_) => {}
                    Err(e) => error(child.clone(), e),
                }
            }
            EntryType::File => index_file(shared, &child, id, &mut entry, grams, buf),
            EntryType::Symlink | EntryType::Other => {}
        }
        entries.push(entry);
    }
    shared.progress.dirs.fetch_add(1, Ordering::Relaxed);
    let dir = Dir { path: rel.as_os_str().as_bytes().to_vec(), stamp, entries };
    shared.dirs.lock().unwrap_or_else(|p| p.into_inner()).push((first, dir));
    subdirs
}

/// Reads a regular file into `grams`, notes its key and class, and adds
/// its number to the postings of each gram.
fn index_file(
    shared: &Shared<'_>,
    path: &Path,
    id: u32,
    entry: &mut Entry,
    grams: &mut GramSet,
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
        let mut total = 0u64;
        loop {
            let n = match f.read(buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if first {
                binary = memchr_nul(&buf[..n]);
                first = false;
            }
            grams.add(&buf[..n]);
            total += n as u64;
        }
        shared.progress.bytes.fetch_add(total, Ordering::Relaxed);
        Ok(binary)
    });
    match read {
        Ok(binary) => {
            entry.class = if binary { Class::Binary } else { Class::Text };
            shared.progress.files.fetch_add(1, Ordering::Relaxed);
            let mut found = grams.take_sorted();
            // One shard at a time, each locked once.
            found.sort_unstable_by_key(|&g| (shard(g), g));
            for chunk in found.chunk_by(|a, b| shard(*a) == shard(*b)) {
                let mut map =
                    shared.shards[shard(chunk[0])].lock().unwrap_or_else(|p| p.into_inner());
                for &g in chunk {
                    map.entry(g).or_default().insert(id);
                }
            }
        }
        Err(e) => {
            grams.take_sorted();
            entry.class = Class::Unreadable;
            shared.errors.lock().unwrap_or_else(|p| p.into_inner()).push((path.to_path_buf(), e));
        }
    }
}

fn shard(gram: u32) -> usize {
    (gram.wrapping_mul(0x9E37_79B1) >> 26) as usize % SHARDS
}

fn memchr_nul(b: &[u8]) -> bool {
    b.contains(&0)
}
