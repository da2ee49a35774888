//! Serving a search from an index: for a directory operand at or below an
//! indexed root, the index is checked against the tree (or its watcher
//! asked), what may match is looked up, and the walk is handed the
//! directories to open and the entries of each to visit
//! ([`trawl_walk::WalkBuilder::add_listed`]) instead of reading the tree.
//! Every visit is the walk's usual one, so the output equals a search
//! without the index.
//!
//! Two searches are served: grep's ([`ContentSearch`]: the files whose
//! bytes or extracted text may hold a match, every change checked) and
//! find's ([`crate::Indexes::serve_names`]: every entry whose name may
//! make the expression act, only directories' stamps checked); both go
//! through [`serve`].

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use trawl_walk::{Itself, Opening, WalkBuilder};

use crate::indexes::Indexes;
use crate::plan::Query;
use crate::query::{Candidates, Members};
use crate::segment::{Refused, Segment, StatKey};
use crate::store::Store;
use crate::visit::{self, BinaryFiles, Counts, Planned, Scope, Visits};

/// An index that covers a directory operand but cannot be used (damaged,
/// or of another format): the caller says so and walks the operand.
#[derive(Debug)]
pub struct Unusable {
    root: PathBuf,
    why: Refused,
}

impl Unusable {
    /// The root the index is of.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "index of {}: {}", self.root.display(), self.why)
    }
}

impl std::error::Error for Unusable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.why)
    }
}

/// A search of files' contents (grep) served by indexes: the patterns'
/// question, asked once an index covers an operand, and what the operands
/// served were told, summed.
pub struct ContentSearch {
    indexes: Indexes,
    /// The question (planning it costs a tiny search a tenth of its
    /// start: only asked when an index covers an operand).
    query: OnceLock<Query>,
    make_query: Box<dyn Fn() -> Query + Send + Sync>,
    /// The signature of the search's extraction, when it extracts.
    extraction: Option<Vec<u8>>,
    binary_files: BinaryFiles,
    /// How the served operands' files were decided, summed.
    counts: Mutex<Option<Counts>>,
    /// The archives of which only some members may match, by their
    /// files' stat keys.
    members: Mutex<HashMap<StatKey, Members>>,
}

impl ContentSearch {
    /// A search with the patterns' question `make_query` (asked once an
    /// index covers an operand), reading the text of the extraction whose
    /// signature `extraction` gives (None: bytes), doing `binary_files`
    /// with binary files; None when no index was ever made under
    /// `indexes` (then nothing else is asked).
    pub fn new(
        indexes: Indexes,
        make_query: Box<dyn Fn() -> Query + Send + Sync>,
        extraction: impl FnOnce() -> Option<Vec<u8>>,
        binary_files: BinaryFiles,
    ) -> Option<ContentSearch> {
        if !indexes.exist() {
            return None;
        }
        Some(ContentSearch {
            indexes,
            query: OnceLock::new(),
            make_query,
            extraction: extraction(),
            binary_files,
            counts: Mutex::new(None),
            members: Mutex::default(),
        })
    }

    /// Hands `walk` what the index covering the directory operand `path`
    /// (printed as `display`) says to visit: the files that changed, are
    /// new or may match, below `max_depth`, checked on `threads` threads
    /// (0: one per CPU), in the directories `enter` lets the walk enter
    /// (by path as printed, and depth: 0 for the operand). False when no
    /// index covers it (the caller walks it).
    pub fn serve(
        &self,
        walk: &mut WalkBuilder,
        (path, display): (&[u8], &[u8]),
        (max_depth, threads): (Option<usize>, usize),
        enter: &mut dyn FnMut(&[u8], usize) -> bool,
    ) -> Result<bool, Unusable> {
        let reads = Reads::Contents(self);
        let asked = Asked { max_depth, threads, reads };
        let Some((planned, _)) = serve(&self.indexes, walk, (path, display), asked, enter)? else {
            return Ok(false);
        };
        let mut all = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let sum = all.get_or_insert_with(Counts::default);
        let c = planned.counts;
        sum.skipped += c.skipped;
        sum.candidates += c.candidates;
        sum.changed += c.changed;
        sum.dirs_reread += c.dirs_reread;
        sum.dirs_walked += c.dirs_walked;
        sum.watched += c.watched;
        self.members.lock().unwrap_or_else(|p| p.into_inner()).extend(planned.members);
        Ok(true)
    }

    /// How the served operands' files were decided (None: the index
    /// served none).
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

    fn query(&self) -> &Query {
        self.query.get_or_init(|| (self.make_query)())
    }
}

/// What a served search reads.
enum Reads<'a> {
    /// Files' contents: the files that may match (grep).
    Contents(&'a ContentSearch),
    /// Entries' names (and what a stat tells): every entry whose name
    /// `named` accepts (find).
    Names(&'a dyn Fn(&[u8]) -> bool),
}

/// What a search asks of the index covering one of its operands.
struct Asked<'a> {
    max_depth: Option<usize>,
    /// Threads that check the index (0: one per CPU).
    threads: usize,
    reads: Reads<'a>,
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
    fn unusable(&self, why: Refused) -> Unusable {
        Unusable { root: self.store.root().to_path_buf(), why }
    }
}

/// `rel` appended to a path as the walk prints entries.
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

/// Whether `path` names a directory (following links): an index lists
/// directories, so a file named on the command line is searched as it
/// is, without looking for an index above it.
fn is_dir(path: &[u8]) -> bool {
    let path: &[u8] = if path.is_empty() { b"." } else { path };
    std::fs::metadata(std::ffi::OsStr::from_bytes(path)).is_ok_and(|m| m.is_dir())
}

/// The index covering the directory `path`, opened and checked.
fn open(indexes: &Indexes, path: &[u8]) -> Result<Option<Opened>, Unusable> {
    let Ok(canonical) = std::fs::canonicalize(std::ffi::OsStr::from_bytes(path)) else {
        return Ok(None);
    };
    let Some(store) = indexes.covering(&canonical) else { return Ok(None) };
    let (segment, generation) = match store.current() {
        Ok(Some(found)) => found,
        Ok(None) => return Ok(None),
        Err(why) => return Err(Unusable { root: store.root().to_path_buf(), why }),
    };
    let sub = canonical.strip_prefix(store.root()).unwrap_or(Path::new(""));
    let sub = sub.as_os_str().as_bytes().to_vec();
    Ok(Some(Opened { store, segment, generation, sub }))
}

/// Hands `walk` what the index covering the directory operand `path`
/// (printed as `display`) says to visit for the search `asked`; what it
/// planned, with the number of entries handed over, or None when no index
/// covers the operand.
fn serve(
    indexes: &Indexes,
    walk: &mut WalkBuilder,
    (path, display): (&[u8], &[u8]),
    asked: Asked<'_>,
    enter: &mut dyn FnMut(&[u8], usize) -> bool,
) -> Result<Option<(Planned, usize)>, Unusable> {
    if !is_dir(path) {
        return Ok(None);
    }
    let Some(o) = open(indexes, path)? else { return Ok(None) };
    let dirs = o.segment.dirs().map_err(|why| o.unusable(why))?;
    let paths: Vec<&[u8]> = dirs.iter().map(|d| &d.path[..]).collect();
    let Some(wanted) = visit::dirs_under(&paths, &o.sub) else { return Ok(None) };
    let root = o.store.root();
    let threads = if asked.threads == 0 { trawl_diag::cpus() } else { asked.threads };
    let racy_after = o.segment.racy_after();
    // What changed: from the index's watcher (`trawl index --watch`) when
    // one runs and can tell, else checked.
    let all_names = |_: &[u8]| true;
    let (candidates, extracting, binary_files, visits, named) = match &asked.reads {
        Reads::Contents(search) => {
            // A search that extracts with another extraction than the
            // index's (or an index without extracted text) cannot tell
            // what a file's text holds: every file is read (the walk is
            // still skipped).
            let extracting = search.extraction.is_some();
            let foreign =
                extracting && search.extraction.as_deref() != Some(o.segment.extraction());
            let candidates = match foreign {
                true => None,
                false => Some(
                    Candidates::new(search.query(), &o.segment).map_err(|why| o.unusable(why))?,
                ),
            };
            let named = &all_names as &dyn Fn(&[u8]) -> bool;
            // A sorted walk takes each listed directory where it comes
            // among its parent's entries.
            let visits = match walk.is_sorted() {
                true => Visits::CandidatesNested,
                false => Visits::Candidates,
            };
            (candidates, extracting, search.binary_files, visits, named)
        }
        Reads::Names(named) => (None, false, BinaryFiles::Searched, Visits::Everything, *named),
    };
    // What changed: from the index's watcher (`trawl index --watch`) when
    // one runs and can tell, else checked.
    let watched = crate::watch::ask(o.store.dir(), o.generation, dirs.len(), o.segment.next_id());
    let told = watched.is_some();
    let changes = watched.unwrap_or_else(|| match asked.reads {
        Reads::Contents(_) => crate::fresh::check_some(root, &dirs, &wanted, racy_after, threads),
        // Names and types change only with their directory's stamps.
        Reads::Names(_) => crate::fresh::check_dirs(root, &dirs, &wanted, racy_after, threads),
    });
    let scope = Scope { sub: &o.sub, max_depth: asked.max_depth, extracting, binary_files, visits };
    let mut enter = |rel: &[u8], depth: usize| enter(&joined(display, rel), depth);
    let planned = visit::plan(root, &dirs, &changes, candidates.as_ref(), scope, &mut enter, named);
    let Some(mut planned) = planned else { return Ok(None) };
    // grep opens every listed directory (its files are read); find opens
    // one only when an entry needs it, and visits the operand itself.
    let (open_root, how): (&[u8], _) = match asked.reads {
        Reads::Contents(_) => {
            planned.counts.watched = u64::from(told);
            (if path.is_empty() { b"." } else { path }, (Opening::Now, Itself::NotVisited))
        }
        Reads::Names(_) => (path, (Opening::WhenNeeded, Itself::Visited)),
    };
    let entries = planned.listed.iter().map(|d| d.children.len()).sum();
    add_listed(walk, std::mem::take(&mut planned.listed), (open_root, display), how);
    Ok(Some((planned, entries)))
}

/// Hands the walk the directories an index listed, under the operand
/// `open` (printed as `display`).
fn add_listed(
    walk: &mut WalkBuilder,
    listed: Vec<visit::ListedDir>,
    (open, display): (&[u8], &[u8]),
    (opening, top): (Opening, Itself),
) {
    for dir in listed {
        let (opening, itself) = match dir.rel.is_empty() {
            true => (Opening::Now, top),
            false => (opening, Itself::NotVisited),
        };
        walk.add_listed(trawl_walk::ListedDir {
            path: &joined(open, &dir.rel),
            display: &joined(display, &dir.rel),
            depth: dir.depth,
            children: dir.children,
            opening,
            itself,
        });
    }
}

impl Indexes {
    /// `trawl find`: hands `walk` every entry the index covering the
    /// starting point `path` lists (directories whose stamps changed read
    /// again) whose name `named` accepts, below `max_depth`, checked on
    /// `threads` threads (0: one per CPU), to be visited as the walk
    /// would; a directory is opened only when an entry needs it (a test
    /// that stats, an action). How many entries it handed over (the
    /// starting point included); None when no index covers it (the
    /// caller walks it).
    pub fn serve_names(
        &self,
        walk: &mut WalkBuilder,
        path: &[u8],
        (max_depth, threads): (Option<usize>, usize),
        named: &dyn Fn(&[u8]) -> bool,
    ) -> Result<Option<usize>, Unusable> {
        if !self.exist() {
            return Ok(None);
        }
        let asked = Asked { max_depth, threads, reads: Reads::Names(named) };
        let served = serve(self, walk, (path, path), asked, &mut |_, _| true)?;
        // The starting point itself, and its entries.
        Ok(served.map(|(_, entries)| 1 + entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{question, Selects};
    use crate::refresh::tests::{indexed_tree, refresh};
    use crate::refresh::Mode;
    use std::collections::BTreeSet;
    use trawl_walk::{Entry, Visitor, WalkError, WalkState};

    /// The paths a walk visits.
    #[derive(Default)]
    struct Visited(BTreeSet<String>);

    impl Visitor for Visited {
        fn visit(&mut self, e: &Entry<'_>) -> WalkState {
            self.0.insert(String::from_utf8_lossy(e.path()).into_owned());
            WalkState::Continue
        }
        fn error(&mut self, err: WalkError) -> WalkState {
            panic!("{err}")
        }
    }

    fn visited(walk: &WalkBuilder) -> BTreeSet<String> {
        walk.run(|_| Visited::default()).into_iter().flat_map(|v| v.0).collect()
    }

    const TREE: &[(&str, &str)] = &[
        ("one.txt", "alpha beta\n"),
        ("two.txt", "gamma\n"),
        ("d/three.c", "alphabet\n"),
        ("d/four.c", "delta\n"),
        ("d/e/five.txt", "epsilon alpha\n"),
    ];

    /// grep's use of the indexes under `cache`, asking for `pattern`.
    fn searching(cache: &Path, pattern: &'static str) -> ContentSearch {
        let query =
            move || question(Some(&[regex_syntax::parse(pattern).unwrap()]), Selects::Matching);
        let indexes = Indexes::in_cache(cache);
        ContentSearch::new(indexes, Box::new(query), || None, BinaryFiles::Searched).unwrap()
    }

    #[test]
    fn a_content_search_hands_the_walk_only_the_files_that_may_match_or_changed() {
        let (tree, cache, index) = indexed_tree(TREE);
        refresh(&index, Mode::Update);
        let root = index.root().as_os_str().as_bytes().to_vec();
        let search = searching(cache.path(), "alpha");
        let mut walk = WalkBuilder::new();
        let mut entered = Vec::new();
        let mut enter = |shown: &[u8], depth: usize| {
            entered.push((String::from_utf8_lossy(shown).into_owned(), depth));
            true
        };
        assert!(search.serve(&mut walk, (&root, b"top"), (None, 2), &mut enter).unwrap());
        let want: BTreeSet<String> =
            ["top/one.txt", "top/d/three.c", "top/d/e/five.txt"].map(String::from).into();
        assert_eq!(visited(&walk), want);
        entered.sort();
        assert_eq!(entered, [("top".into(), 0), ("top/d".into(), 1), ("top/d/e".into(), 2)]);
        let c = search.counts().unwrap();
        assert_eq!((c.candidates, c.skipped, c.changed, c.dirs_reread), (3, 2, 0, 0));
        // A new file is visited whatever it holds, and so is a changed one;
        // below the operand d alone, at depth 1 at most.
        std::fs::write(tree.path().join("d/six.c"), "zeta\n").unwrap();
        std::fs::write(tree.path().join("d/four.c"), "delta delta\n").unwrap();
        let sub = [&root[..], b"/d"].concat();
        let mut walk = WalkBuilder::new();
        let served = search.serve(&mut walk, (&sub, b"d"), (Some(1), 2), &mut |_, _| true);
        assert!(served.unwrap());
        let want: BTreeSet<String> = ["d/three.c", "d/four.c", "d/six.c"].map(String::from).into();
        assert_eq!(visited(&walk), want);
        let c = search.counts().unwrap();
        assert_eq!((c.candidates, c.skipped, c.changed, c.dirs_reread), (3 + 1, 2, 2, 1));
        // Not below an indexed root: not served.
        let elsewhere = tempfile::tempdir().unwrap();
        let path = elsewhere.path().as_os_str().as_bytes();
        assert!(!search
            .serve(&mut WalkBuilder::new(), (path, path), (None, 2), &mut |_, _| true)
            .unwrap());
    }

    #[test]
    fn find_is_handed_the_starting_point_and_the_entries_whose_names_may_act() {
        let (_tree, cache, index) = indexed_tree(TREE);
        refresh(&index, Mode::Update);
        let root = index.root().as_os_str().as_bytes().to_vec();
        let indexes = Indexes::in_cache(cache.path());
        let mut walk = WalkBuilder::new();
        let named = |name: &[u8]| name.ends_with(b".c");
        let handed = indexes.serve_names(&mut walk, &root, (None, 2), &named).unwrap();
        let shown = |rel: &str| format!("{}{rel}", String::from_utf8_lossy(&root));
        // The starting point and the entries named *.c (directories whose
        // names cannot act are gone through, not visited).
        let want: BTreeSet<String> = ["", "/d/three.c", "/d/four.c"].map(shown).into();
        assert_eq!(visited(&walk), want);
        assert_eq!(handed, Some(want.len()));
    }

    #[test]
    fn a_damaged_index_is_unusable_and_says_whose_it_is() {
        let (_tree, cache, index) = indexed_tree(TREE);
        refresh(&index, Mode::Update);
        let generation = index.dir().join("gen-1");
        let mut bytes = std::fs::read(&generation).unwrap();
        bytes[40] ^= 0xff;
        std::fs::write(&generation, bytes).unwrap();
        let root = index.root().as_os_str().as_bytes().to_vec();
        let search = searching(cache.path(), "alpha");
        let e = search.serve(&mut WalkBuilder::new(), (&root, &root), (None, 2), &mut |_, _| true);
        let e = e.unwrap_err();
        assert_eq!(e.root(), index.root());
        assert!(e
            .to_string()
            .starts_with(&format!("index of {}: corrupt", index.root().display())));
        let named = |_: &[u8]| true;
        let indexes = Indexes::in_cache(cache.path());
        assert!(indexes.serve_names(&mut WalkBuilder::new(), &root, (None, 2), &named).is_err());
    }
}
