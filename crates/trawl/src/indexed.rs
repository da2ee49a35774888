//! A search served by an index (`trawl index`): for a directory operand at
//! or below an indexed root, the index is checked against the tree, and
//! the walk is handed the directories to open and the entries of each to
//! visit (files that changed, are new, or may match; see
//! trawl_index::visit) instead of reading the tree. Every visit is the
//! walk's usual one, so the output equals a search without the index.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use trawl_index::query::Members;
use trawl_index::segment::{Dir, EntryType, Segment, StatKey};
use trawl_index::store::Store;
use trawl_index::visit::{self, BinaryFiles, Counts, Scope, Visits};
use trawl_index::Query;
use trawl_walk::{Descent, FileType, Itself, ListedDir, Opening, WalkBuilder};

use crate::config::Config;
use crate::filter::Reached;

/// What a search needs to ask an index.
pub struct IndexUse {
    /// `$XDG_CACHE_HOME/trawl`.
    cache: PathBuf,
    /// The patterns' question (see index_query), asked when an index
    /// covers an operand: planning it costs a tiny search a tenth of its
    /// start.
    query: OnceLock<Query>,
    make_query: Box<dyn Fn() -> Query + Send + Sync>,
    /// The signature of the search's extraction, when it extracts.
    extraction: Option<Vec<u8>>,
    /// What the search does with a binary file (`-I`).
    binary_files: BinaryFiles,
    /// How the served operands' files were decided, summed.
    counts: Mutex<Option<Counts>>,
    /// The archives of which only some members may match, by their
    /// files' stat keys.
    members: Mutex<HashMap<StatKey, Members>>,
}

impl IndexUse {
    /// The index's use for a search, when any index exists; `make_query`
    /// is asked once an index covers an operand.
    pub fn find(
        make_query: Box<dyn Fn() -> Query + Send + Sync>,
        extraction: impl FnOnce() -> Option<Vec<u8>>,
        binary_files: BinaryFiles,
    ) -> Option<IndexUse> {
        let cache = index_cache()?;
        let extraction = extraction();
        let (counts, members) = (Mutex::new(None), Mutex::default());
        let query = OnceLock::new();
        Some(IndexUse { cache, query, make_query, extraction, binary_files, counts, members })
    }

    /// The patterns' question to the index.
    fn query(&self) -> &Query {
        self.query.get_or_init(|| (self.make_query)())
    }

    /// The counts of the operands the index served (None: it served none).
    pub fn counts(&self) -> Option<Counts> {
        *self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The members of the archive open as `file` that may match, when the
    /// index knows its members and it is unchanged: (how many members
    /// with text, the places of those that may match).
    pub fn members_of(&self, file: &std::fs::File) -> Option<(u32, Vec<u32>)> {
        let members = self.members.lock().unwrap_or_else(|p| p.into_inner());
        if members.is_empty() {
            return None;
        }
        let key = StatKey::from_metadata(&file.metadata().ok()?);
        members.get(&key).map(|m| (m.count, m.wanted.clone()))
    }

    fn add_counts(&self, c: Counts) {
        let mut all = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let sum = all.get_or_insert_with(Counts::default);
        sum.skipped += c.skipped;
        sum.candidates += c.candidates;
        sum.changed += c.changed;
        sum.dirs_reread += c.dirs_reread;
        sum.dirs_walked += c.dirs_walked;
        sum.watched += c.watched;
    }
}

/// `$XDG_CACHE_HOME/trawl`, when an index lives there.
fn index_cache() -> Option<PathBuf> {
    let cache = trawl_extract::cache::default_dir()?;
    cache.join("index").is_dir().then_some(cache)
}

/// The nearest indexed root at or above the directory `canonical`, with
/// the store of its index.
fn nearest_store(cache: &Path, canonical: &Path) -> Option<Store> {
    canonical.ancestors().find_map(|dir| {
        let store = Store::new(cache, dir).ok()?;
        store.dir().join("current").exists().then_some(store)
    })
}

/// `name` appended to a path as the walk prints entries.
fn joined(dir: &[u8], rel: &[u8]) -> Vec<u8> {
    let mut out = dir.to_vec();
    if !rel.is_empty() {
        if !out.is_empty() && !out.ends_with(b"/") {
            out.push(b'/');
        }
        out.extend_from_slice(rel);
    }
    out
}

/// An index that covers an operand.
struct Opened {
    store: Store,
    segment: Segment,
    /// Its generation.
    generation: u64,
    /// The operand's directory below the index's root.
    sub: Vec<u8>,
}

impl Opened {
    /// What changed, from the index's watcher (`trawl index --watch`),
    /// when one runs and can tell.
    fn watched(&self, n_dirs: usize) -> Option<trawl_index::fresh::Changes> {
        let next_id = self.segment.next_id();
        trawl_index::watch::ask(self.store.dir(), self.generation, n_dirs, next_id)
    }

    /// The index's directories, with the numbers of those at or below the
    /// operand; a damaged index is reported and not used.
    fn dirs(&self, report: &dyn Fn(&[u8])) -> Option<(Vec<Dir<'_>>, Vec<usize>)> {
        let dirs = match self.segment.dirs() {
            Ok(d) => d,
            Err(e) => {
                report_refused(&self.store, &e, report);
                return None;
            }
        };
        let paths: Vec<&[u8]> = dirs.iter().map(|d| &d.path[..]).collect();
        let wanted = visit::dirs_under(&paths, &self.sub)?;
        Some((dirs, wanted))
    }
}

fn report_refused(store: &Store, e: &dyn std::fmt::Display, report: &dyn Fn(&[u8])) {
    let msg = format!(
        "warning: index of {}: {e}; searched without it (run 'trawl index' again)",
        store.root().display()
    );
    report(msg.as_bytes());
}

/// Whether `path` names a directory (following links): an index lists
/// directories, so a file named on the command line is searched as it
/// is, without looking for an index above it.
fn is_dir(path: &[u8]) -> bool {
    let path: &[u8] = if path.is_empty() { b"." } else { path };
    std::fs::metadata(std::ffi::OsStr::from_bytes(path)).is_ok_and(|m| m.is_dir())
}

/// The index covering the directory `path`, checked; a damaged one is
/// reported and not used.
fn open(cache: &Path, path: &[u8], report: &dyn Fn(&[u8])) -> Option<Opened> {
    let canonical = std::fs::canonicalize(std::ffi::OsStr::from_bytes(path)).ok()?;
    let store = nearest_store(cache, &canonical)?;
    let refused = |e: &dyn std::fmt::Display| report_refused(&store, e, report);
    let segment = match store.current() {
        Ok(Some(found)) => found,
        Ok(None) => return None,
        Err(e) => {
            refused(&e);
            return None;
        }
    };
    let sub = canonical.strip_prefix(store.root()).unwrap_or(Path::new(""));
    let sub = sub.as_os_str().as_bytes().to_vec();
    let (segment, generation) = segment;
    Some(Opened { store, segment, generation, sub })
}

/// `trawl find`: hands `walk` every entry an index lists below the
/// starting point `path` (directories whose stamps changed read again)
/// whose name `named` accepts, to be visited as the walk would;
/// directories are opened only when an entry needs it (a test that stats,
/// an action); `threads` check it (0: one per CPU). How many entries it
/// handed over; None when no index serves it.
pub fn add_find_root(
    walk: &mut WalkBuilder,
    path: &[u8],
    (max_depth, threads): (Option<usize>, usize),
    named: &dyn Fn(&[u8]) -> bool,
    report: &dyn Fn(&[u8]),
) -> Option<usize> {
    if !is_dir(path) {
        return None;
    }
    let threads = if threads == 0 { trawl_walk::cpus() } else { threads };
    let cache = index_cache()?;
    let o = open(&cache, path, report)?;
    let (dirs, wanted) = o.dirs(report)?;
    let root = o.store.root();
    let changes = o.watched(dirs.len()).unwrap_or_else(|| {
        trawl_index::fresh::check_dirs(root, &dirs, &wanted, o.segment.racy_after(), threads)
    });
    let scope = Scope {
        sub: &o.sub,
        max_depth,
        extracting: false,
        binary_files: BinaryFiles::Searched,
        visits: Visits::Everything,
    };
    let planned = visit::plan(root, &dirs, &changes, None, scope, &mut |_| true, named)?;
    // The starting point itself, and its entries.
    let entries = 1 + planned.listed.iter().map(|d| d.children.len()).sum::<usize>();
    add_listed(walk, planned.listed, (path, path), (Opening::WhenNeeded, Itself::Visited));
    Some(entries)
}

/// Hands `walk` what the index says to visit for the directory operand
/// `path` (printed as `display`); false when no index serves it (the
/// caller walks it). A damaged index is reported and not used.
pub fn add_operand(
    cfg: &Config,
    use_: &IndexUse,
    walk: &mut WalkBuilder,
    path: &[u8],
    display: &[u8],
    report: &dyn Fn(&[u8]),
) -> bool {
    if !is_dir(path) {
        return false;
    }
    let Some(o) = open(&use_.cache, path, report) else { return false };
    let Some((dirs, wanted)) = o.dirs(report) else { return false };
    let Opened { store, segment, sub, .. } = &o;
    let sub = &sub[..];
    let refused = |e: &dyn std::fmt::Display| {
        report_refused(store, e, report);
        false
    };
    // A search that extracts with another extraction than the index's
    // (or an index without extracted text) cannot tell what a file's text
    // holds: every file is read (the walk is still skipped).
    let extracting = use_.extraction.is_some();
    let foreign = extracting && use_.extraction.as_deref() != Some(segment.extraction());
    let candidates = match foreign {
        true => None,
        false => match trawl_index::query::Candidates::new(use_.query(), segment) {
            Ok(c) => Some(c),
            Err(e) => return refused(&e),
        },
    };
    let threads = match cfg.threads {
        0 => std::thread::available_parallelism().map_or(2, |n| n.get()),
        n => n,
    };
    let watched = o.watched(dirs.len());
    let told = watched.is_some();
    let changes = watched.unwrap_or_else(|| {
        trawl_index::fresh::check_some(store.root(), &dirs, &wanted, segment.racy_after(), threads)
    });
    let mut enter = |rel: &[u8]| {
        let shown = joined(display, rel);
        let reached = match (rel.is_empty(), shown.is_empty()) {
            (true, true) => Reached::ImplicitDot,
            (true, false) => Reached::Operand,
            (false, _) => Reached::Recursion,
        };
        cfg.filter.dir_ok(&shown, reached)
    };
    let scope = Scope {
        sub,
        max_depth: cfg.max_depth,
        extracting,
        binary_files: use_.binary_files,
        visits: Visits::Candidates,
    };
    let planned =
        visit::plan(store.root(), &dirs, &changes, candidates.as_ref(), scope, &mut enter, &|_| {
            true
        });
    let Some(mut planned) = planned else { return false };
    planned.counts.watched = u64::from(told);
    let open_root: &[u8] = if path.is_empty() { b"." } else { path };
    add_listed(walk, planned.listed, (open_root, display), (Opening::Now, Itself::NotVisited));
    use_.add_counts(planned.counts);
    use_.members.lock().unwrap_or_else(|p| p.into_inner()).extend(planned.members);
    true
}

/// Hands the walk the directories an index listed, under the operand
/// `open` (printed as `display`).
pub fn add_listed(
    walk: &mut WalkBuilder,
    listed: Vec<visit::ListedDir>,
    (open, display): (&[u8], &[u8]),
    (opening, top): (Opening, Itself),
) {
    for dir in listed {
        let children = dir
            .children
            .into_iter()
            .map(|(name, kind, descent)| {
                let t = match kind {
                    EntryType::File => FileType::File,
                    EntryType::Dir => FileType::Dir,
                    EntryType::Symlink => FileType::Symlink,
                    EntryType::Other => FileType::Unknown,
                };
                let d = match descent {
                    visit::Descent::Walk => Descent::Walked,
                    visit::Descent::Listed => Descent::Listed,
                };
                (name, t, d)
            })
            .collect();
        let (opening, itself) = match dir.rel.is_empty() {
            true => (Opening::Now, top),
            false => (opening, Itself::NotVisited),
        };
        walk.add_listed(ListedDir {
            path: &joined(open, &dir.rel),
            display: &joined(display, &dir.rel),
            depth: dir.depth,
            children,
            opening,
            itself,
        });
    }
}
