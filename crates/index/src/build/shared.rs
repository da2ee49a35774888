//! What the threads of a build share: the numbers handed out, the
//! directories read (each a block of consecutive entry numbers, its
//! entries filled in as its files are read), the side rows and their
//! bytes, what could not be read, and the progress.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::segment::{Blob, Dir, Entry, Side, SideRow, Stamp};
use crate::spill::Blobs;
use crate::texts::Texts;

/// How far a build has come (read while it runs, for progress).
#[derive(Debug)]
pub struct Progress {
    /// Directories read.
    pub dirs: AtomicU64,
    /// Regular files read.
    pub files: AtomicU64,
    /// Their bytes.
    pub bytes: AtomicU64,
    /// The bytes it will read, once known (`u64::MAX` until then; an
    /// update's stays unknown: it reads only what changed).
    pub total: AtomicU64,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            dirs: AtomicU64::new(0),
            files: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            total: AtomicU64::new(u64::MAX),
        }
    }
}

impl Progress {
    /// The bytes the build will read, when known.
    pub fn total(&self) -> Option<u64> {
        Some(self.total.load(Ordering::Relaxed)).filter(|&n| n != u64::MAX)
    }
}

/// A path a build could not read, and why (the build goes on without it:
/// a file is then always searched, a directory walked).
#[derive(Debug)]
pub struct Unreadable {
    /// The path, as the build met it.
    pub path: PathBuf,
    /// Why.
    pub error: io::Error,
}

/// A directory read: its record, whose entries (in name order) are filled
/// in as its files are read, on any thread.
pub(crate) struct Block {
    /// Its path below the root.
    pub(crate) path: Vec<u8>,
    pub(crate) stamp: Stamp,
    pub(crate) first_id: u32,
    pub(crate) entries: Mutex<Vec<Entry<'static>>>,
}

pub(crate) struct Shared<'a> {
    /// The root's path as the walk prints it (its entries' paths continue
    /// it).
    pub(crate) root: &'a [u8],
    pub(crate) next_id: AtomicU32,
    pub(crate) next_stream: AtomicU32,
    /// The directories read, by their paths below the root.
    blocks: Mutex<HashMap<Vec<u8>, Arc<Block>>>,
    sides: Mutex<Vec<SideRow<'static>>>,
    pub(crate) blobs: Blobs,
    errors: Mutex<Vec<Unreadable>>,
    /// The first failure to spill (the build fails).
    spill_error: Mutex<Option<io::Error>>,
    pub(crate) spill_dir: &'a Path,
    pub(crate) progress: &'a Progress,
    /// Directories (paths below the root) whose records exist already:
    /// met as entries, they are not read.
    pub(crate) known: Option<&'a HashSet<Vec<u8>>>,
    pub(crate) texts: Option<&'a dyn Texts>,
}

/// Locks `m`, a poisoned lock as it is (a thread that panicked left whole
/// values behind).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `path` (as the walk prints it) below `root` ("" for the root itself).
pub(crate) fn below_root<'p>(root: &[u8], path: &'p [u8]) -> &'p [u8] {
    let rest = path.strip_prefix(root).unwrap_or(path);
    rest.strip_prefix(b"/").unwrap_or(rest)
}

impl<'a> Shared<'a> {
    /// The state of a read of the tree under `root` (as the walk prints
    /// it) numbering from `first_id` and `first_stream`.
    pub(crate) fn new(
        root: &'a [u8],
        (first_id, first_stream): (u32, u32),
        spill_dir: &'a Path,
        progress: &'a Progress,
        known: Option<&'a HashSet<Vec<u8>>>,
        texts: Option<&'a dyn Texts>,
    ) -> io::Result<Shared<'a>> {
        Ok(Shared {
            root,
            next_id: AtomicU32::new(first_id),
            next_stream: AtomicU32::new(first_stream),
            blocks: Mutex::default(),
            sides: Mutex::default(),
            blobs: Blobs::new(spill_dir)?,
            errors: Mutex::default(),
            spill_error: Mutex::default(),
            spill_dir,
            progress,
            known,
            texts,
        })
    }

    /// Keeps a directory read (`path` below the root) whose entries, in
    /// name order, get numbers from `first_id`.
    pub(crate) fn add_dir(&self, block: Block) {
        self.progress.dirs.fetch_add(1, Ordering::Relaxed);
        lock(&self.blocks).insert(block.path.clone(), Arc::new(block));
    }

    /// The directory read whose path below the root is `path`.
    pub(crate) fn dir(&self, path: &[u8]) -> Option<Arc<Block>> {
        lock(&self.blocks).get(path).cloned()
    }

    /// `path` could not be read.
    pub(crate) fn unreadable(&self, path: PathBuf, error: io::Error) {
        lock(&self.errors).push(Unreadable { path, error });
    }

    /// Spilling failed: the build fails (the first error is kept).
    pub(crate) fn spill_failed(&self, e: io::Error) {
        lock(&self.spill_error).get_or_insert(e);
    }

    /// Keeps the filter of the distinct `grams` of `number`'s text.
    pub(crate) fn filter(&self, number: u32, grams: &[u32]) {
        self.side(number, &crate::filter::make(grams), Side::Filter);
    }

    /// Keeps a side row of `number` whose bytes are `bytes`.
    pub(crate) fn side(&self, number: u32, bytes: &[u8], side: fn(Blob<'static>) -> Side<'static>) {
        match self.blobs.put(bytes) {
            Ok((at, len)) => {
                let crc = crate::segment::side_checksum(&side(Blob::Spilled(0, 0, 0)), bytes);
                let side = side(Blob::Spilled(at, len, crc));
                lock(&self.sides).push(SideRow { number, side });
            }
            Err(e) => self.spill_failed(e),
        }
    }

    /// What the threads made: the directories in entry-number order, the
    /// side rows, the side rows' bytes, what could not be read; or the
    /// first failure to spill.
    #[allow(clippy::type_complexity)]
    pub(crate) fn finish(
        self,
    ) -> io::Result<(Vec<Dir<'static>>, Vec<SideRow<'static>>, Blobs, Vec<Unreadable>)> {
        if let Some(e) = self.spill_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        let blocks = self.blocks.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut dirs: Vec<Dir<'static>> = blocks
            .into_values()
            .map(|b| {
                let b = Arc::try_unwrap(b).unwrap_or_else(|shared| Block {
                    path: shared.path.clone(),
                    stamp: shared.stamp,
                    first_id: shared.first_id,
                    entries: Mutex::new(lock(&shared.entries).clone()),
                });
                let entries = b.entries.into_inner().unwrap_or_else(|p| p.into_inner());
                Dir {
                    path: b.path.into(),
                    stamp: b.stamp,
                    first_id: b.first_id,
                    entries: entries.into(),
                }
            })
            .collect();
        // (An empty directory's first number is the next one's too.)
        dirs.sort_by(|a, b| (a.first_id, &a.path).cmp(&(b.first_id, &b.path)));
        let sides = self.sides.into_inner().unwrap_or_else(|p| p.into_inner());
        let errors = self.errors.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok((dirs, sides, self.blobs, errors))
    }
}
