//! What a search served by an index visits: from the index's directories,
//! what changed since it was built ([`crate::fresh`]) and the files that
//! may match ([`crate::query`]), the directories to open and the entries
//! of each to visit as if the walk had read them.
//!
//! A directory is reached as the walk would reach it: through its parent's
//! entries as they are now (an unchanged directory's entries are the
//! indexed ones; a changed one is read again), so a renamed or deleted
//! directory's old subtree is never visited. An entry is visited when it
//! is a file that changed, is new, could not be read when indexed, or may
//! match; or anything but a regular file or an indexed directory (links,
//! devices and directories the index has not read are the walk's to
//! judge). Unchanged files that cannot match are passed over unopened.

use std::collections::HashMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use roaring::RoaringBitmap;

use trawl_walk::{Descent, FileType};

use crate::fresh::Changes;
use crate::query::{Candidates, Members};
use crate::segment::{child_path_into, Class, Dir, EntryType, Extracted, StatKey, EXTRACTED};

/// A directory to open, and the entries of it to visit, as the walk takes
/// them ([`trawl_walk::ListedDir`], once its path is joined to the
/// searched directory's).
#[derive(Debug, Eq, PartialEq)]
pub struct ListedDir {
    /// Its path below the searched directory ("" for that directory).
    pub rel: Vec<u8>,
    /// Its depth below the searched directory.
    pub depth: usize,
    /// The entries to visit: name, type (Unknown: the walk stats it) and,
    /// for a directory, whether the walk reads it or its entries are
    /// listed too.
    pub children: Vec<(CString, FileType, Descent)>,
}

/// What a search served by an index visits.
#[derive(Debug, Default)]
pub struct Planned {
    /// The directories to open, each with the entries to visit.
    pub listed: Vec<ListedDir>,
    /// How the files were decided.
    pub counts: Counts,
    /// The archives to visit of which only some members may match, by the
    /// stat key their file has (one whose key has changed since is read
    /// whole).
    pub members: Vec<(StatKey, Members)>,
}

/// Which entries a search visits.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Visits {
    /// Files that may match (grep): directories are not visited, only
    /// entered (each listed directory a root of the walk's own).
    Candidates,
    /// Files that may match, for a sorted walk (grep's `--sort path`):
    /// each listed directory is also an entry of its parent's
    /// ([`Descent::Listed`]), so that the walk takes its entries where it
    /// comes among its parent's; only directories with something to visit
    /// below them are listed.
    CandidatesNested,
    /// Every entry, directories included (find).
    Everything,
}

/// How the files under the searched directory were decided.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Counts {
    /// Unchanged files that cannot match: not opened.
    pub skipped: u64,
    /// Unchanged files that may match: searched.
    pub candidates: u64,
    /// Files changed or new since the index was built: searched.
    pub changed: u64,
    /// Directories read again because their entries changed.
    pub dirs_reread: u64,
    /// Directories the index has not read (new ones, other file systems):
    /// walked as usual.
    pub dirs_walked: u64,
    /// Searched directories whose changes the index's watcher told
    /// (instead of a check of every stamp).
    pub watched: u64,
}

/// Where a search is in an indexed tree, and what it reads of a file.
#[derive(Clone, Copy, Debug)]
pub struct Scope<'a> {
    /// The searched directory, relative to the index's root ("" for it).
    pub sub: &'a [u8],
    /// The search's `--max-depth` (0: the searched directory alone).
    pub max_depth: Option<usize>,
    /// The search reads the text inside files (members, documents), with
    /// the extraction whose text the index holds: a file with extracted
    /// text may match by it, one whose extraction failed is always read.
    pub extracting: bool,
    /// What the search does with a file whose bytes are binary.
    pub binary_files: BinaryFiles,
    /// Which entries are visited.
    pub visits: Visits,
}

/// What a search does with a file whose bytes are binary.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum BinaryFiles {
    /// Searches it (grep's default, and `-a`).
    Searched,
    /// Skips it, printing nothing (`-I` when files without a match print
    /// nothing): an unchanged file the index found binary ([`Class::Binary`]:
    /// a NUL in its first 256 KiB, the search's first read, whose NUL makes
    /// `-I` skip the file before any line is printed) is passed over.
    Skipped,
}

/// Whether `path` is `dir` or below it (by whole components).
fn is_under(path: &[u8], dir: &[u8]) -> bool {
    dir.is_empty()
        || path == dir
        || (path.len() > dir.len() && path.starts_with(dir) && path[dir.len()] == b'/')
}

/// The numbers of the directories (by their paths) at or below `sub`;
/// None when the index has no directory `sub`.
pub fn dirs_under(paths: &[&[u8]], sub: &[u8]) -> Option<Vec<usize>> {
    let found: Vec<usize> = (0..paths.len()).filter(|&i| is_under(paths[i], sub)).collect();
    found.iter().any(|&i| paths[i] == sub).then_some(found)
}

/// The entries of a directory as they are now (name order); None when it
/// cannot be read (the walk then meets and reports the error).
fn read_again(path: &Path) -> Option<Vec<(Vec<u8>, EntryType)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).ok()? {
        let entry = entry.ok()?;
        let kind = EntryType::of(entry.file_type().ok());
        out.push((entry.file_name().as_bytes().to_vec(), kind));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Some(out)
}

/// An entry of a directory read again: its name, its type and its place
/// among the directory's indexed entries (None: not indexed).
type Present<'n> = (&'n [u8], EntryType, Option<usize>);

/// Plans the visits of a search of `scope` in the index of `root` (whose
/// directories are `dirs`), after `changes` were found; `candidates` are
/// what may match (None: all), `enter` says whether the walk
/// would enter a directory (by its path below the searched directory and
/// its depth, 0 for the searched directory),
/// `named` whether a visit of an entry by that name may do anything (an
/// entry whose name fails is not visited; a directory the index has not
/// read is, to be walked).
pub fn plan<'a>(
    root: &Path,
    dirs: &'a [Dir<'a>],
    changes: &Changes,
    candidates: Option<&Candidates>,
    scope: Scope<'_>,
    enter: &mut dyn FnMut(&[u8], usize) -> bool,
    named: &dyn Fn(&[u8]) -> bool,
) -> Option<Planned> {
    // (foldhash: a directory's path is looked up for every subdirectory
    // entry; SipHash took a tenth of an indexed find's planning.)
    let mut by_path: HashMap<&[u8], usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(dirs.len(), Default::default());
    by_path.extend(dirs.iter().enumerate().map(|(i, d)| (&d.path[..], i)));
    let mut changed_dir = vec![false; dirs.len()];
    for &d in &changes.dirs {
        changed_dir[d] = true;
    }
    let changed_file: RoaringBitmap = changes.files.iter().copied().collect();
    let start = *by_path.get(scope.sub)?;
    let below = |path: &'a [u8]| -> &'a [u8] {
        let rest = &path[scope.sub.len()..];
        rest.strip_prefix(b"/").unwrap_or(rest)
    };
    let mut counts = Counts::default();
    let mut members = Vec::new();
    let mut out = Vec::new();
    let mut stack = vec![(start, 0usize)];
    let mut child = Vec::new();
    while let Some((i, depth)) = stack.pop() {
        let dir = &dirs[i];
        let rel = below(&dir.path);
        if !enter(rel, depth) {
            continue;
        }
        // The walk visits this directory's entries at depth + 1 and
        // descends into a subdirectory at depth + 1 below the limit.
        if scope.max_depth.is_some_and(|m| depth >= m) {
            if scope.visits == Visits::Everything && depth == 0 {
                out.push(ListedDir { rel: rel.to_vec(), depth, children: Vec::new() });
            }
            continue;
        }
        let descend = scope.max_depth.is_none_or(|m| depth + 1 < m);
        // The entries as they are now, each with its place among the
        // indexed ones (None: not indexed).
        // (An unchanged directory's are read from the index in place.)
        let now: Vec<(Vec<u8>, EntryType)>;
        let reread: Option<Vec<Present>> = if changed_dir[i] {
            counts.dirs_reread += 1;
            match read_again(&root.join(std::ffi::OsStr::from_bytes(&dir.path))) {
                Some(list) => {
                    now = list;
                    let indexed = |name: &[u8]| dir.entries.find(name);
                    Some(now.iter().map(|(n, t)| (&n[..], *t, indexed(n))).collect())
                }
                None => {
                    // The walk opens it and reports why it cannot.
                    out.push(ListedDir { rel: rel.to_vec(), depth, children: Vec::new() });
                    continue;
                }
            }
        } else {
            None
        };
        let count = reread.as_ref().map_or(dir.entries.len(), Vec::len);
        let mut children = Vec::new();
        for k in 0..count {
            let (name, kind, indexed) = match &reread {
                Some(list) => list[k],
                None => (dir.entries.name(k), dir.entries.kind(k), Some(k)),
            };
            // A subdirectory the index has read (listed too).
            let listed = (kind == EntryType::Dir)
                .then(|| {
                    child_path_into(&mut child, &dir.path, name);
                    by_path.get(&child[..]).copied()
                })
                .flatten();
            if !named(name) {
                // Not visited; a directory is still descended into (or,
                // when the walk must read it, visited whatever its name).
                match (kind, listed) {
                    (EntryType::Dir, Some(sub)) if descend => {
                        stack.push((sub, depth + 1));
                        continue;
                    }
                    (EntryType::Dir, _) => {}
                    _ => continue,
                }
            }
            match kind {
                EntryType::File => {
                    let indexed = indexed
                        .map(|j| (j, dir.entries.get(j)))
                        .filter(|(_, e)| e.kind == EntryType::File);
                    let Some((j, e)) = indexed else {
                        counts.changed += 1;
                        push(&mut children, name, kind, Descent::Walked);
                        continue;
                    };
                    let id = dir.first_id + j as u32;
                    // What the search reads of it: its extracted text (when
                    // it extracts and there was text), else its bytes.
                    let posted = |n: u32| candidates.is_none_or(|c| c.posted(n));
                    let filtered = |n: u32| candidates.is_none_or(|c| c.filtered(n));
                    let may_match = match (scope.extracting, e.extracted) {
                        (true, Extracted::Text) => posted(id | EXTRACTED),
                        (true, Extracted::Unindexed) => filtered(id | EXTRACTED),
                        (true, Extracted::Failed) => true,
                        (true, Extracted::Streams) => {
                            match candidates.and_then(|c| c.members(id | EXTRACTED)) {
                                Some(m) if m.wanted.is_empty() => false,
                                Some(m) => {
                                    members.push((e.key, m));
                                    true
                                }
                                None => true,
                            }
                        }
                        // Visited for its messages, whatever it holds.
                        (true, Extracted::StreamsReported) => {
                            if let Some(m) = candidates.and_then(|c| c.members(id | EXTRACTED)) {
                                members.push((e.key, m));
                            }
                            true
                        }
                        _ if e.class == Class::Binary
                            && scope.binary_files == BinaryFiles::Skipped =>
                        {
                            false
                        }
                        _ => match e.class {
                            Class::Unreadable | Class::Transcoded => true,
                            Class::Unindexed => filtered(id),
                            _ => posted(id),
                        },
                    };
                    if changed_file.contains(id) {
                        counts.changed += 1;
                    } else if may_match {
                        counts.candidates += 1;
                    } else {
                        counts.skipped += 1;
                        continue;
                    }
                    push(&mut children, name, kind, Descent::Walked);
                }
                EntryType::Dir => match listed {
                    Some(sub) => {
                        if descend {
                            stack.push((sub, depth + 1));
                        }
                        if descend && scope.visits == Visits::CandidatesNested {
                            push(&mut children, name, kind, Descent::Listed);
                        }
                        if scope.visits == Visits::Everything {
                            let descent = if descend { Descent::Listed } else { Descent::Walked };
                            push(&mut children, name, kind, descent);
                        }
                    }
                    None => {
                        counts.dirs_walked += 1;
                        push(&mut children, name, kind, Descent::Walked);
                    }
                },
                EntryType::Symlink | EntryType::Other => {
                    push(&mut children, name, kind, Descent::Walked)
                }
            }
        }
        // find visits the searched directory itself, whatever it holds.
        if !children.is_empty() || (scope.visits == Visits::Everything && depth == 0) {
            out.push(ListedDir { rel: rel.to_vec(), depth, children });
        }
    }
    if scope.visits == Visits::CandidatesNested {
        prune_nested(&mut out);
    }
    Some(Planned { listed: out, counts, members })
}

/// [`Visits::CandidatesNested`]: drops the listed directories with nothing
/// to visit at or below them, and their entries in their parents. `out`
/// holds parents before their subdirectories (planned depth first); a
/// directory listed without entries (one that could not be read again:
/// the walk meets the error) is kept.
fn prune_nested(out: &mut Vec<ListedDir>) {
    let mut kept: std::collections::HashSet<Vec<u8>> = Default::default();
    let mut keep = vec![false; out.len()];
    let mut path = Vec::new();
    for (i, dir) in out.iter_mut().enumerate().rev() {
        let unread = dir.children.is_empty();
        let rel = &dir.rel;
        dir.children.retain(|(name, _, descent)| {
            if *descent != Descent::Listed {
                return true;
            }
            path.clear();
            path.extend_from_slice(rel);
            if !rel.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(name.to_bytes());
            kept.contains(&path)
        });
        keep[i] = unread || !dir.children.is_empty();
        if keep[i] {
            kept.insert(dir.rel.clone());
        }
    }
    let mut keep = keep.into_iter();
    out.retain(|_| keep.next().unwrap_or(false));
}

/// Adds an entry to visit, its name as the walk takes it, made in one
/// allocation (a name read from a directory holds no NUL; one that did
/// could not be visited, and is left out).
fn push(children: &mut Vec<(CString, FileType, Descent)>, name: &[u8], t: EntryType, d: Descent) {
    let mut v = Vec::with_capacity(name.len() + 1);
    v.extend_from_slice(name);
    if let Ok(name) = CString::new(v) {
        children.push((name, t.for_walk(), d));
    }
}
