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
mod tests {
    use super::*;

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
