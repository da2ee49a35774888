//! Refreshing a tree's index ([`Index::refresh`]): updated when it can be
//! (only what changed read again, [`crate::update`]), built anew when it
//! must be (none yet, asked for, another extraction, too much changed, the
//! index in use damaged: [`crate::build`]), then written and published as
//! the index's new generation ([`crate::store`]).

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::Ordering;

use trawl_walk::{Entry, FileType, Visitor, WalkBuilder, WalkError, WalkState};

use crate::build::{build, Progress, Unreadable};
use crate::indexes::Index;
use crate::segment::{write, NewSegment, Refused};
use crate::store::Store;
use crate::texts::Texts;
use crate::update::{update, Failed, Outcome, Updated};

/// Whether an index is updated or built anew.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Mode {
    /// Updated when it can be (only what changed is read again).
    Update,
    /// Built anew (`trawl index --full`).
    Full,
}

/// Whether a build whose total is not known from the index before it
/// counts the bytes it will read (for its progress's time left).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Estimate {
    /// Counted, beside the build (the progress is shown).
    Count,
    /// Not counted.
    Skip,
}

/// How to refresh an index.
pub struct Refresh<'a> {
    /// Update or build anew.
    pub mode: Mode,
    /// The text the index holds besides files' bytes (archive members,
    /// documents' text), with its extraction's signature; None: none.
    pub texts: Option<(&'a dyn Texts, &'a [u8])>,
    /// Threads that read the tree.
    pub threads: usize,
    /// How far it has come (read while it runs).
    pub progress: &'a Progress,
    /// Whether a build counts what it will read.
    pub estimate: Estimate,
}

/// What a refresh did.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Done {
    /// Nothing changed: the index stands.
    UpToDate,
    /// Updated, this many directories read again.
    Updated {
        /// Directories read again.
        dirs_read: usize,
    },
    /// Built anew.
    Built,
}

/// Why an index is built anew rather than updated, though asked to update
/// (the caller warns).
#[derive(Debug)]
#[non_exhaustive]
pub enum Anew {
    /// The index in use cannot be read (damaged, another format).
    Unreadable(Refused),
    /// Its update failed.
    UpdateFailed(Failed),
}

impl std::fmt::Display for Anew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Anew::Unreadable(r) => write!(f, "{r}"),
            Anew::UpdateFailed(e) => write!(f, "{e}"),
        }
    }
}

/// What a refresh tells as it goes, in order: before a build that
/// replaces an index it could not update, why; before publishing, each
/// path it could not read.
#[derive(Debug)]
pub enum Note<'a> {
    /// The index is built anew, though asked to update: why.
    Anew(&'a Anew),
    /// A path could not be read (the refresh goes on without it).
    Unreadable(&'a Unreadable),
}

/// Why a refresh failed: the index in use (if any) stays.
#[derive(Debug)]
#[non_exhaustive]
pub enum RefreshError {
    /// The index's directory cannot be made.
    Dir(io::Error),
    /// Reading the tree failed (spilling postings beside the index).
    Read(io::Error),
    /// Writing or publishing the new generation failed.
    Publish(io::Error),
}

impl RefreshError {
    /// The I/O error.
    pub fn io_error(&self) -> &io::Error {
        match self {
            RefreshError::Dir(e) | RefreshError::Read(e) | RefreshError::Publish(e) => e,
        }
    }
}

impl std::fmt::Display for RefreshError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefreshError::Dir(e) => write!(f, "its directory cannot be made: {e}"),
            RefreshError::Read(e) => write!(f, "reading the tree failed: {e}"),
            RefreshError::Publish(e) => write!(f, "writing the index failed: {e}"),
        }
    }
}

impl std::error::Error for RefreshError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.io_error())
    }
}

impl Index {
    /// Updates the index of the tree, or builds it anew (see [`Mode`]),
    /// and publishes it; `note` is told as it goes (see [`Note`]).
    pub fn refresh(
        &self,
        how: Refresh<'_>,
        note: &mut dyn FnMut(Note<'_>),
    ) -> Result<Done, RefreshError> {
        let store = &self.store;
        // The postings are spilled beside the index, never in the tree.
        std::fs::create_dir_all(store.dir()).map_err(RefreshError::Dir)?;
        let (texts, signature) = match how.texts {
            Some((texts, signature)) => (Some(texts), signature),
            None => (None, &[][..]),
        };
        let old = match how.mode {
            Mode::Full => None,
            Mode::Update => store.current().unwrap_or_else(|e| {
                note(Note::Anew(&Anew::Unreadable(e)));
                None
            }),
        };
        if let Some((segment, _)) = &old {
            let threads = how.threads;
            match update(
                store.root(),
                segment,
                store.dir(),
                threads,
                how.progress,
                (texts, signature),
            ) {
                Ok(Outcome::UpToDate) => return Ok(Done::UpToDate),
                Ok(Outcome::Rebuild) => {}
                Ok(Outcome::Updated(updated)) => {
                    let Updated { segment, errors, dirs_read } = *updated;
                    errors.iter().for_each(|e| note(Note::Unreadable(e)));
                    publish(store, signature, segment)?;
                    return Ok(Done::Updated { dirs_read });
                }
                Err(e) => note(Note::Anew(&Anew::UpdateFailed(e))),
            }
        }
        // What a build reads: as much as the index before it read, or
        // counted beside it.
        let before = match &old {
            Some((segment, _)) => Index::indexed_bytes(segment),
            None => store.current().ok().flatten().and_then(|(s, _)| Index::indexed_bytes(&s)),
        };
        if let Some(total) = before {
            how.progress.total.store(total, Ordering::Relaxed);
        }
        let built = std::thread::scope(|s| {
            if before.is_none() && how.estimate == Estimate::Count {
                s.spawn(|| {
                    let total = count_bytes(store.root());
                    how.progress.total.store(total, Ordering::Relaxed);
                });
            }
            build(store.root(), store.dir(), how.threads, how.progress, texts)
        });
        let built = built.map_err(RefreshError::Read)?;
        built.errors.iter().for_each(|e| note(Note::Unreadable(e)));
        publish(store, signature, built.segment)?;
        Ok(Done::Built)
    }
}

/// Writes `segment` (holding the text of the extraction `signature`) as
/// the new generation of `store`'s index.
fn publish(store: &Store, signature: &[u8], segment: NewSegment<'_>) -> Result<u64, RefreshError> {
    let root = store.root().as_os_str().as_bytes();
    store.publish(|file| write(file, root, signature, segment)).map_err(RefreshError::Publish)
}

/// The sizes of the regular files under `root`, not following links nor
/// leaving its file system (what a build reads), walked on one thread
/// (the build has the others).
pub(crate) fn count_bytes(root: &Path) -> u64 {
    struct Sizes(u64);
    impl Visitor for Sizes {
        fn visit(&mut self, e: &Entry<'_>) -> WalkState {
            if e.file_type() == FileType::File && !e.is_root() {
                self.0 += e
                    .metadata()
                    .copied()
                    .or_else(|| e.fetch_stat(false).ok())
                    .map_or(0, |st| st.st_size as u64);
            }
            WalkState::Continue
        }
        fn error(&mut self, _: WalkError) -> WalkState {
            WalkState::Continue
        }
    }
    let mut walk = WalkBuilder::new();
    walk.threads(1).same_file_system(true).follow_roots(false).add_root(root);
    walk.run(|_| Sizes(0)).iter().map(|s| s.0).sum()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::indexes::Indexes;
    use std::fs;

    /// A tree whose files are older than the racy margin (a build then
    /// trusts their stamps), the indexes' cache, and the tree's index.
    pub(crate) fn indexed_tree(
        files: &[(&str, &str)],
    ) -> (tempfile::TempDir, tempfile::TempDir, Index) {
        let tree = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = tree.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let cache = tempfile::tempdir().unwrap();
        let index = Indexes::in_cache(cache.path()).of(tree.path()).unwrap();
        (tree, cache, index)
    }

    /// Refreshes `index` as `mode` asks, without extraction; what it did
    /// and what it noted.
    pub(crate) fn refresh(index: &Index, mode: Mode) -> (Done, Vec<String>) {
        let progress = Progress::default();
        let how = Refresh {
            mode,
            texts: None,
            threads: 2,
            progress: &progress,
            estimate: Estimate::Skip,
        };
        let mut notes = Vec::new();
        let done = index
            .refresh(how, &mut |note| {
                notes.push(match note {
                    Note::Anew(why) => format!("anew: {why}"),
                    Note::Unreadable(u) => format!("unreadable: {}", u.path.display()),
                })
            })
            .unwrap();
        (done, notes)
    }

    const TREE: &[(&str, &str)] = &[
        ("a.txt", "alpha\n"),
        ("d/b.txt", "beta\n"),
        ("d/e/c.txt", "gamma\n"),
        ("f/x.txt", "x\n"),
    ];

    #[test]
    fn a_refresh_builds_then_stands_then_reads_again_only_the_directories_that_changed() {
        let (tree, cache, index) = indexed_tree(TREE);
        assert_eq!(refresh(&index, Mode::Update), (Done::Built, vec![]));
        let kept = Indexes::in_cache(cache.path()).all();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].root.as_deref(), Some(index.root().as_os_str().as_bytes()));
        assert_eq!(refresh(&index, Mode::Update), (Done::UpToDate, vec![]));
        assert!(index.check(2).unwrap().up_to_date());
        // A new file in d/e: that directory alone is read again.
        fs::write(tree.path().join("d/e/new.txt"), "delta\n").unwrap();
        let checked = index.check(2).unwrap();
        assert_eq!((checked.dirs_changed, checked.files_changed), (1, 0));
        assert_eq!(refresh(&index, Mode::Update), (Done::Updated { dirs_read: 1 }, vec![]));
        let checked = index.check(2).unwrap();
        assert_eq!((checked.dirs, checked.entries), (4, 8), "{checked:?}");
        // Asked to, it builds anew.
        assert_eq!(refresh(&index, Mode::Full), (Done::Built, vec![]));
        assert!(index.remove().unwrap());
        assert!(matches!(index.check(2), Err(crate::indexes::OpenError::Missing)));
        assert!(Indexes::in_cache(cache.path()).all().is_empty());
    }

    #[test]
    fn a_damaged_index_is_noted_and_built_anew() {
        let (_tree, _cache, index) = indexed_tree(TREE);
        refresh(&index, Mode::Update);
        let generation = index.dir().join("gen-1");
        let mut bytes = fs::read(&generation).unwrap();
        bytes[40] ^= 0xff;
        fs::write(&generation, bytes).unwrap();
        assert!(matches!(index.check(2), Err(crate::indexes::OpenError::Refused(_))));
        let (done, notes) = refresh(&index, Mode::Update);
        assert_eq!(done, Done::Built);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("anew: corrupt"), "{notes:?}");
        assert!(index.check(2).is_ok());
    }

    #[test]
    fn a_build_counts_what_it_will_read_when_asked_and_reads_it() {
        let (_tree, _cache, index) = indexed_tree(TREE);
        let progress = Progress::default();
        let how = Refresh {
            mode: Mode::Update,
            texts: None,
            threads: 2,
            progress: &progress,
            estimate: Estimate::Count,
        };
        assert_eq!(index.refresh(how, &mut |_| {}).unwrap(), Done::Built);
        let bytes: usize = TREE.iter().map(|(_, text)| text.len()).sum();
        assert_eq!(progress.total(), Some(bytes as u64));
        assert_eq!(progress.bytes.load(Ordering::Relaxed), bytes as u64);
        assert_eq!(progress.files.load(Ordering::Relaxed), 4);
        assert_eq!(progress.dirs.load(Ordering::Relaxed), 4);
        // Built again: the total is the files' sizes in the index before.
        let progress = Progress::default();
        let how = Refresh {
            mode: Mode::Full,
            texts: None,
            threads: 2,
            progress: &progress,
            estimate: Estimate::Skip,
        };
        index.refresh(how, &mut |_| {}).unwrap();
        assert_eq!(progress.total(), Some(bytes as u64));
    }

    #[test]
    fn the_bytes_a_build_reads_are_counted_on_its_file_system_without_links() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("a/b")).unwrap();
        std::fs::write(t.path().join("a/one"), [0u8; 1000]).unwrap();
        std::fs::write(t.path().join("a/b/two"), [0u8; 234]).unwrap();
        std::os::unix::fs::symlink("one", t.path().join("a/link")).unwrap();
        std::os::unix::fs::symlink("a", t.path().join("dirlink")).unwrap();
        assert_eq!(count_bytes(t.path()), 1234);
    }
}
