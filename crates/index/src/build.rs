//! Building a tree's index on all cores, walking it with trawl-walk: each
//! directory, once read (its stamps taken before), gets a block of
//! consecutive entry numbers for its entries in name order, so a
//! directory's entries are one range; each regular file is read once, on
//! whichever thread visits it ([`file`]), and its (gram, number) pairs go
//! into that thread's buffer, sorted and spilled to disk as runs
//! ([`pending`], [`crate::spill`]); the runs are merged gram by gram as the
//! index file is written, so memory stays bounded whatever the tree's
//! size. Other file systems are not entered (a mount point is an entry,
//! as in `find -xdev`), nor are symbolic links followed.

mod file;
mod pending;
mod shared;

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use trawl_walk::{DirRead, FileType, Visitor, WalkBuilder, WalkError, WalkErrorKind, WalkState};

use crate::segment::{
    Class, Entry, EntryType, Extracted, NewSegment, Numbers, Postings, Stamp, StatKey,
};
use crate::spill::Merge;
use crate::texts::Texts;
use file::Reading;
use shared::{below_root, Block, Shared};
pub use shared::{Progress, Unreadable};

/// What a build made: a new segment (its postings merged from the
/// spilled runs as they are read), and what could not be read (reported
/// by the caller).
pub struct Built<'s> {
    /// The segment (all its own: `'s` is any lifetime).
    pub segment: NewSegment<'s>,
    /// Paths that could not be read, and why.
    pub errors: Vec<Unreadable>,
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

/// Reads the tree under `root` (not following symbolic links, staying on
/// its file system) on `threads` threads, spilling postings to unnamed
/// files in `spill_dir`; fails only when spilling fails (what cannot be
/// read is listed in [`Built::errors`]).
pub fn build<'s>(
    root: &Path,
    spill_dir: &Path,
    threads: usize,
    progress: &Progress,
    texts: Option<&dyn Texts>,
) -> io::Result<Built<'s>> {
    let start =
        Start { dirs: vec![PathBuf::new()], first_id: 0, first_stream: 0, known: None, texts };
    read(root, spill_dir, threads, progress, start)
}

/// Reads the directories of `start` and, below them, every directory not
/// known already (see [`build`]).
pub fn read<'s>(
    root: &Path,
    spill_dir: &Path,
    threads: usize,
    progress: &Progress,
    start: Start<'_>,
) -> io::Result<Built<'s>> {
    let since_epoch =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let started_ns = i64::try_from(since_epoch.as_nanos()).unwrap_or(i64::MAX);
    let root_bytes = root.as_os_str().as_bytes();
    let first = (start.first_id, start.first_stream);
    let shared = Shared::new(root_bytes, first, spill_dir, progress, start.known, start.texts)?;
    let mut walk = WalkBuilder::new();
    walk.threads(threads)
        .same_file_system(true)
        // Roots are directories of the tree: one replaced by a link since
        // is not followed.
        .follow_roots(false)
        // A file open for reading and its thread's spill file; with
        // extraction, an extractor's pipes and the cache's files too.
        .visit_descriptors(if start.texts.is_some() { 9 } else { 2 });
    for dir in &start.dirs {
        let path = root.join(dir);
        walk.add_root_displayed(path.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    }
    let visitors = walk.run(|_| Visit { reading: Reading::new(&shared), last: None });
    let mut runs = Vec::with_capacity(visitors.len());
    for v in visitors {
        match v.reading.postings.finish() {
            Ok(r) => runs.push(r),
            Err(e) => shared.spill_failed(e),
        }
    }
    let next_id = shared.next_id.load(Ordering::Relaxed);
    let next_stream = shared.next_stream.load(Ordering::Relaxed);
    let (dirs, sides, blobs, errors) = shared.finish()?;
    let numbers = Numbers { started_ns, next_id, next_stream };
    let postings = Postings::new(Merge::new(runs)?);
    Ok(Built { segment: NewSegment { numbers, dirs, sides, blobs, postings }, errors })
}

/// A walking thread of a build.
struct Visit<'s, 'a> {
    reading: Reading<'s, 'a>,
    /// The directory of the last file read (a directory's files come in
    /// batches).
    last: Option<Arc<Block>>,
}

impl Visitor for Visit<'_, '_> {
    fn dir_read(&mut self, dir: &DirRead<'_>) -> WalkState {
        let shared = self.reading.shared;
        // Its stamps as they were before it was read: a change while it
        // was read shows at the next check. (The walk, staying on one file
        // system, always has them; without, the directory would count as
        // changed at every check.)
        let stamp = dir.metadata().map_or(Stamp::default(), Stamp::from_stat);
        let mut entries: Vec<Entry<'static>> = dir
            .entries()
            .map(|(name, t)| Entry {
                name: name.to_vec().into(),
                kind: EntryType::from(t),
                key: StatKey::default(),
                class: Class::Unknown,
                extracted: Extracted::Nothing,
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let n = entries.len() as u32;
        let first_id = shared.next_id.fetch_add(n, Ordering::Relaxed);
        let path = below_root(shared.root, dir.path()).to_vec();
        shared.add_dir(Block { path, stamp, first_id, entries: entries.into() });
        WalkState::Continue
    }

    fn visit(&mut self, e: &trawl_walk::Entry<'_>) -> WalkState {
        // A starting point is a directory, read as such.
        if e.is_root() {
            return WalkState::Continue;
        }
        match e.file_type() {
            // A directory whose record the index keeps is not read again.
            FileType::Dir => {
                let shared = self.reading.shared;
                let rel = below_root(shared.root, e.path());
                match shared.known.is_some_and(|known| known.contains(rel)) {
                    true => WalkState::Skip,
                    false => WalkState::Continue,
                }
            }
            FileType::File => {
                self.file(e);
                WalkState::Continue
            }
            _ => WalkState::Continue,
        }
    }

    fn error(&mut self, err: WalkError) -> WalkState {
        let path = PathBuf::from(OsStr::from_bytes(err.path()));
        let said = err.to_string();
        let error = match err.into_kind() {
            WalkErrorKind::Io(e) => e,
            // (Not met: links are not followed, ignore files not read.)
            _ => io::Error::other(said),
        };
        self.reading.shared.unreadable(path, error);
        WalkState::Continue
    }
}

impl Visit<'_, '_> {
    /// Reads the regular file `e` into its directory's entry and the
    /// postings.
    fn file(&mut self, e: &trawl_walk::Entry<'_>) {
        let shared = self.reading.shared;
        let name = e.file_name();
        let dir_path = e.path().strip_suffix(name).unwrap_or_default();
        let rel = below_root(shared.root, dir_path);
        let rel = rel.strip_suffix(b"/").unwrap_or(rel);
        if self.last.as_ref().is_none_or(|b| b.path != rel) {
            self.last = shared.dir(rel);
        }
        let Some(block) = self.last.clone() else { return };
        let lock = || block.entries.lock().unwrap_or_else(|p| p.into_inner());
        let Ok(j) = lock().binary_search_by(|entry| entry.name.as_ref().cmp(name)) else { return };
        let mut found = Entry {
            name: b""[..].into(),
            kind: EntryType::File,
            key: StatKey::default(),
            class: Class::Unknown,
            extracted: Extracted::Nothing,
        };
        let path = Path::new(OsStr::from_bytes(e.path()));
        self.reading.file(path, e.open(), block.first_id + j as u32, &mut found);
        let mut entries = lock();
        (entries[j].key, entries[j].class, entries[j].extracted) =
            (found.key, found.class, found.extracted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grams::GramSet;
    use crate::segment::writer::Posting;
    use crate::segment::{Blob, Side, EXTRACTED, STREAM};
    use crate::texts::{Extraction, StreamKind, TextSink};
    use std::collections::BTreeMap;
    use std::fs::{self, File};
    use std::io::Read;

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
        let Built { segment: built, errors } =
            build(root.path(), spill.path(), 3, &Progress::default(), Some(&Reversed)).unwrap();
        assert!(errors.is_empty());
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
        let next_stream = built.numbers.next_stream;
        let got: BTreeMap<u32, Vec<u32>> = built
            .postings
            .map(|item| match item.unwrap() {
                (g, Posting::Bitmap(b)) => (g, b.iter().collect()),
                (_, Posting::Serialized(..)) => panic!("a build's postings are made"),
            })
            .collect();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "postings differ");
        // Every archive's members have numbers of their own.
        assert_eq!(streams.len(), 300 / 10);
        let all: std::collections::BTreeSet<u32> = streams.values().flatten().copied().collect();
        assert_eq!(all.len(), 2 * streams.len());
        assert_eq!(next_stream as usize, all.len());
    }
}
