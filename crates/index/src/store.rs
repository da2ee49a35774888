//! Where a tree's index lives, and how a new one replaces the old.
//!
//! Each indexed root has a directory under `$XDG_CACHE_HOME/trawl/index/`
//! named by a hash of the root's device, inode and path (never inside the
//! tree). It holds generations `gen-N` (immutable [`crate::segment`]
//! files), a file `current` naming the one in use, and a `lock` file.
//!
//! A writer takes the lock (a second writer waits), writes `gen-N.tmp`,
//! syncs it, renames it to `gen-N`, then writes and renames `current`: the
//! rename of `current` is the moment the new index exists. A `kill -9` at
//! any point before it leaves the previous generation in use; after it,
//! the new one. Readers never take the lock: they read `current` and map
//! the generation it names, which no one changes afterwards (an older
//! generation, removed by a later writer, stays readable while mapped).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::segment::{Refused, Segment};

/// The index directory of one root.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    root: PathBuf,
}

/// A 64-bit FNV-1a hash (names a root's directory; the segment's own copy
/// of the root is compared, so a collision is never a wrong answer).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Store {
    /// The store of `root` (a canonical directory path) under `cache`
    /// (`$XDG_CACHE_HOME/trawl`).
    pub fn new(cache: &Path, root: &Path) -> io::Result<Store> {
        let md = fs::metadata(root)?;
        let key =
            fnv(&[&md.dev().to_le_bytes(), &md.ino().to_le_bytes(), root.as_os_str().as_bytes()]);
        Ok(Store { dir: cache.join("index").join(format!("{key:016x}")), root: root.to_path_buf() })
    }

    /// The root it is the index of.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Its directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The number of the generation in use (None: none, or unreadable),
    /// without opening it.
    pub fn current_generation(&self) -> Option<u64> {
        parse_generation(&fs::read(self.dir.join("current")).ok()?)
    }

    /// The generation in use, checked; None when there is none yet.
    pub fn current(&self) -> Result<Option<(Segment, u64)>, Refused> {
        let name = match fs::read(self.dir.join("current")) {
            Ok(name) => name,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Refused::Io(e)),
        };
        let n = parse_generation(&name).ok_or(Refused::Corrupt("current"))?;
        let file = match File::open(self.dir.join(format!("gen-{n}"))) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Refused::Corrupt("generation missing"))
            }
            Err(e) => return Err(Refused::Io(e)),
        };
        let segment = Segment::open(&file)?;
        if segment.root() != self.root.as_os_str().as_bytes() {
            return Err(Refused::Corrupt("another root"));
        }
        Ok(Some((segment, n)))
    }

    /// Writes a new generation with `write` and makes it current, holding
    /// the lock throughout (another writer waits). Older generations are
    /// removed.
    pub fn publish(&self, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<u64> {
        fs::create_dir_all(&self.dir)?;
        let _lock = Lock::take(&self.dir.join("lock"))?;
        let n = self.newest_generation()? + 1;
        let tmp = self.dir.join(format!("gen-{n}.tmp"));
        let mut file =
            OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
        write(&mut file)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, self.dir.join(format!("gen-{n}")))?;
        let current_tmp = self.dir.join("current.tmp");
        let mut current = File::create(&current_tmp)?;
        current.write_all(n.to_string().as_bytes())?;
        current.sync_all()?;
        drop(current);
        fs::rename(&current_tmp, self.dir.join("current"))?;
        File::open(&self.dir)?.sync_all()?;
        // Older generations (and leftovers of a writer killed before its
        // rename) go; a reader that mapped one keeps it.
        for entry in fs::read_dir(&self.dir)?.flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            let old = name.strip_prefix(b"gen-").is_some_and(|rest| {
                let rest = rest.strip_suffix(b".tmp").unwrap_or(rest);
                parse_generation(rest).is_some_and(|g| g != n)
            });
            if old {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(n)
    }

    /// The highest generation number present (0 when none).
    fn newest_generation(&self) -> io::Result<u64> {
        let mut newest = 0;
        for entry in fs::read_dir(&self.dir)?.flatten() {
            let name = entry.file_name();
            if let Some(rest) = name.as_bytes().strip_prefix(b"gen-") {
                let rest = rest.strip_suffix(b".tmp").unwrap_or(rest);
                newest = newest.max(parse_generation(rest).unwrap_or(0));
            }
        }
        Ok(newest)
    }

    /// Removes the index (under the lock).
    pub fn drop_index(&self) -> io::Result<bool> {
        if !self.dir.exists() {
            return Ok(false);
        }
        let _lock = Lock::take(&self.dir.join("lock"))?;
        let _ = fs::remove_file(self.dir.join("current"));
        for entry in fs::read_dir(&self.dir)?.flatten() {
            if entry.file_name() != "lock" {
                let _ = fs::remove_file(entry.path());
            }
        }
        fs::remove_file(self.dir.join("lock"))?;
        fs::remove_dir(&self.dir)?;
        Ok(true)
    }
}

fn parse_generation(name: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(name).ok()?;
    s.trim().parse().ok()
}

/// An exclusive flock, released when dropped.
struct Lock(File);

impl Lock {
    fn take(path: &Path) -> io::Result<Lock> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)?;
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: flock on a descriptor this function owns; no memory
            // is passed.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(Lock(file));
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        use std::os::fd::AsRawFd;
        // SAFETY: as in `take`; closing the file would release it anyway.
        unsafe {
            libc::flock(self.0.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// Every store under `cache`, with the root each is of (read from its
/// current generation; None when it cannot be read).
pub fn all(cache: &Path) -> Vec<(PathBuf, Option<Vec<u8>>, u64)> {
    let mut out = Vec::new();
    let Ok(dirs) = fs::read_dir(cache.join("index")) else { return out };
    for d in dirs.flatten() {
        let mut name = Vec::new();
        let root = File::open(d.path().join("current")).ok().and_then(|mut f| {
            f.read_to_end(&mut name).ok()?;
            let n = parse_generation(&name)?;
            let file = File::open(d.path().join(format!("gen-{n}"))).ok()?;
            Segment::open(&file).ok().map(|s| s.root().to_vec())
        });
        let size = fs::read_dir(d.path())
            .map(|it| it.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
            .unwrap_or(0);
        out.push((d.path(), root, size));
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment;

    fn publish(store: &Store, dirs: &[segment::Dir]) -> u64 {
        let root = store.root().as_os_str().as_bytes().to_vec();
        let segment = segment::NewSegment {
            numbers: segment::Numbers::default(),
            dirs: dirs.to_vec(),
            sides: Vec::new(),
            blobs: crate::spill::Blobs::new(&std::env::temp_dir()).unwrap(),
            postings: segment::Postings::new(std::iter::empty()),
        };
        store.publish(|f| segment::write(f, &root, b"", segment)).unwrap()
    }

    fn dir(name: &str) -> segment::Dir<'static> {
        segment::Dir {
            path: name.as_bytes().to_vec().into(),
            stamp: Default::default(),
            first_id: 0,
            entries: Vec::new().into(),
        }
    }

    #[test]
    fn a_new_generation_replaces_the_old_and_leftovers_go() {
        let cache = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(cache.path(), root.path()).unwrap();
        assert!(store.current().unwrap().is_none());
        assert_eq!(publish(&store, &[dir("a")]), 1);
        // A writer killed before its rename left a partial file behind.
        fs::write(store.dir().join("gen-7.tmp"), b"partial").unwrap();
        let (seg, n) = store.current().unwrap().unwrap();
        assert_eq!((n, seg.dirs().unwrap()), (1, vec![dir("a")]));
        assert_eq!(publish(&store, &[dir("b")]), 8);
        let (seg, n) = store.current().unwrap().unwrap();
        assert_eq!((n, seg.dirs().unwrap()), (8, vec![dir("b")]));
        let mut left: Vec<String> = fs::read_dir(store.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["current", "gen-8", "lock"]);
        assert_eq!(all(cache.path()).len(), 1);
        assert!(store.drop_index().unwrap());
        assert!(store.current().unwrap().is_none());
        assert!(all(cache.path()).is_empty());
    }

    #[test]
    fn a_damaged_index_is_refused_not_read() {
        let cache = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Store::new(cache.path(), root.path()).unwrap();
        publish(&store, &[dir("a")]);
        let gen = store.dir().join("gen-1");
        let mut bytes = fs::read(&gen).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(&gen, &bytes).unwrap();
        assert!(matches!(store.current(), Err(Refused::Corrupt(_))));
        fs::write(store.dir().join("current"), b"x").unwrap();
        assert!(matches!(store.current(), Err(Refused::Corrupt("current"))));
    }
}
