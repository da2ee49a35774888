//! Where indexes live and what can be done with one: each indexed root's
//! index has a directory under `index/` in trawl's cache directory
//! ([`crate::store`]); [`Index`] is one root's, to refresh, check, watch or
//! remove; searches find the index covering a directory through
//! [`Indexes`] ([`crate::serve`]).

use std::io;
use std::path::{Path, PathBuf};

use crate::segment::{Dir, EntryType, Refused, Segment};
use crate::store::Store;
use crate::watch::Ended;

/// The indexes kept under trawl's cache directory.
#[derive(Clone, Debug)]
pub struct Indexes {
    /// trawl's cache directory (`$XDG_CACHE_HOME/trawl`).
    cache: PathBuf,
}

/// An index kept, as listed by [`Indexes::all`].
#[derive(Debug)]
pub struct Kept {
    /// Its directory.
    pub dir: PathBuf,
    /// The root it is the index of (None: it cannot be read).
    pub root: Option<Vec<u8>>,
    /// The bytes of its files.
    pub size: u64,
}

impl Indexes {
    /// The indexes kept under `cache`, trawl's cache directory
    /// (`$XDG_CACHE_HOME/trawl`; they go in its `index/`).
    pub fn in_cache(cache: &Path) -> Indexes {
        Indexes { cache: cache.to_path_buf() }
    }

    /// The directory the indexes are in.
    pub fn dir(&self) -> PathBuf {
        self.cache.join("index")
    }

    /// Whether any index was ever made here (a search that finds none asks
    /// nothing more).
    pub fn exist(&self) -> bool {
        self.dir().is_dir()
    }

    /// Every index kept, in the order of their directories.
    pub fn all(&self) -> Vec<Kept> {
        crate::store::all(&self.cache)
            .into_iter()
            .map(|(dir, root, size)| Kept { dir, root, size })
            .collect()
    }

    /// The index of the directory `path` (made or not yet).
    pub fn of(&self, path: &Path) -> io::Result<Index> {
        let root = std::fs::canonicalize(path)?;
        Ok(Index { store: Store::new(&self.cache, &root)? })
    }

    /// The store of the nearest indexed root at or above the directory
    /// `canonical`.
    pub(crate) fn covering(&self, canonical: &Path) -> Option<Store> {
        canonical.ancestors().find_map(|dir| {
            let store = Store::new(&self.cache, dir).ok()?;
            store.dir().join("current").exists().then_some(store)
        })
    }
}

/// Why an index in use cannot be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum OpenError {
    /// There is none.
    Missing,
    /// It is damaged, or of another format.
    Refused(Refused),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Missing => write!(f, "no index"),
            OpenError::Refused(r) => write!(f, "{r}"),
        }
    }
}

impl std::error::Error for OpenError {}

/// What an index's check against its tree found ([`Index::check`]).
#[derive(Debug, Eq, PartialEq)]
pub struct Checked {
    /// Directories indexed.
    pub dirs: usize,
    /// Entries indexed.
    pub entries: usize,
    /// Directories whose entries changed (or that are gone).
    pub dirs_changed: usize,
    /// Files whose stat key changed (or that are gone).
    pub files_changed: usize,
}

impl Checked {
    /// Nothing changed.
    pub fn up_to_date(&self) -> bool {
        self.dirs_changed == 0 && self.files_changed == 0
    }
}

/// Why watching a tree ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum WatchError {
    /// Its index cannot be read.
    Open(OpenError),
    /// Watching failed (inotify, the socket).
    Io(io::Error),
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchError::Open(e) => write!(f, "{e}"),
            WatchError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for WatchError {}

/// The index of one root.
#[derive(Debug)]
pub struct Index {
    pub(crate) store: Store,
}

impl Index {
    /// The root it is the index of (canonical).
    pub fn root(&self) -> &Path {
        self.store.root()
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// The generation in use, and its number.
    fn current(&self) -> Result<(Segment, u64), OpenError> {
        match self.store.current() {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err(OpenError::Missing),
            Err(e) => Err(OpenError::Refused(e)),
        }
    }

    /// The signature of the extraction whose text the index in use holds;
    /// None when it holds none, or there is no index that can be read.
    pub fn extraction(&self) -> Option<Vec<u8>> {
        let (segment, _) = self.current().ok()?;
        Some(segment.extraction().to_vec()).filter(|sig| !sig.is_empty())
    }

    /// Checks the index against its tree on `threads` threads: what
    /// changed since it was made.
    pub fn check(&self, threads: usize) -> Result<Checked, OpenError> {
        let (segment, _) = self.current()?;
        let dirs = segment.dirs().map_err(OpenError::Refused)?;
        let changes = crate::fresh::check(self.root(), &dirs, segment.racy_after(), threads);
        Ok(Checked {
            dirs: dirs.len(),
            entries: dirs.iter().map(|d| d.entries.len()).sum(),
            dirs_changed: changes.dirs.len(),
            files_changed: changes.files.len(),
        })
    }

    /// Watches the tree (inotify) and answers the searches that ask what
    /// changed, following the index to its new generations, until `stop`
    /// says so; `ready` is told how many directories are watched each
    /// time the watches are in place. Checks on `threads` threads.
    pub fn watch(
        &self,
        threads: usize,
        stop: &dyn Fn() -> bool,
        ready: &mut dyn FnMut(usize),
    ) -> Result<(), WatchError> {
        loop {
            let (segment, generation) = self.current().map_err(WatchError::Open)?;
            let dirs = segment.dirs().map_err(|e| WatchError::Open(OpenError::Refused(e)))?;
            let served = crate::watch::serve(
                self.root(),
                self.dir(),
                (generation, &dirs, segment.racy_after()),
                threads,
                &|| self.store.current_generation(),
                stop,
                ready,
            );
            match served.map_err(WatchError::Io)? {
                Ended::Stopped => return Ok(()),
                Ended::NewGeneration => continue,
            }
        }
    }

    /// Removes the index; false when there was none.
    pub fn remove(&self) -> io::Result<bool> {
        self.store.drop_index()
    }

    /// The bytes of the regular files the index in use lists (what a build
    /// of the same tree will read, about).
    pub(crate) fn indexed_bytes(segment: &Segment) -> Option<u64> {
        let dirs: Vec<Dir> = segment.dirs().ok()?;
        let files = dirs.iter().flat_map(|d| d.entries.iter());
        Some(files.filter(|e| e.kind == EntryType::File).map(|e| e.key.size).sum())
    }
}
