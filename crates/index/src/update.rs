//! Updating an index in place of a build: only what changed is read.
//!
//! The index is checked against the tree ([`crate::fresh`]); each
//! directory whose entries changed, or that holds a changed file, is read
//! again (with its new subdirectories) into a new block of entry numbers
//! after every number used so far, and everything else is kept as it is:
//! unchanged directories' records, and every gram's postings, copied
//! byte for byte and extended with the new numbers. The old blocks' numbers
//! stay in the postings, referenced by no entry (a search looks up only
//! the numbers of entries it visits). When such dead numbers would pass a
//! quarter of the live ones, a full build is made instead.

use std::collections::{HashMap, HashSet};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use roaring::RoaringBitmap;

use crate::build::{read, Built, Progress, Start, Unreadable};
use crate::segment::{
    child_path, Blob, Dir, EntryType, NewSegment, Refused, Segment, Side, SideRow, EXTRACTED,
    FILTERED, STREAM,
};
use crate::texts::Texts;

/// What an update found to do.
pub enum Outcome<'s> {
    /// Nothing changed: the index stands.
    UpToDate,
    /// Too much changed: build the index anew.
    Rebuild,
    /// The updated index, to be written.
    Updated(Box<Updated<'s>>),
}

/// An updated index, ready to be written (what it keeps borrows the old
/// index's bytes: its postings, its side rows).
pub struct Updated<'s> {
    /// The segment.
    pub segment: NewSegment<'s>,
    /// Paths that could not be read, and why.
    pub errors: Vec<Unreadable>,
    /// Directories read again.
    pub dirs_read: usize,
}

/// The error of an update: the old index cannot be read, or spilling failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failed {
    /// The old index is damaged or of another format.
    Refused(Refused),
    /// Reading or spilling failed.
    Io(io::Error),
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Refused(r) => write!(f, "{r}"),
            Failed::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Failed {}

/// Updates the index `old` of `root`; `extraction` is the signature of
/// `texts` (another than the old index's makes a full build).
pub fn update<'s>(
    root: &Path,
    old: &'s Segment,
    spill_dir: &Path,
    threads: usize,
    progress: &Progress,
    (texts, extraction): (Option<&dyn Texts>, &[u8]),
) -> Result<Outcome<'s>, Failed> {
    if old.extraction() != extraction {
        return Ok(Outcome::Rebuild);
    }
    let old_dirs = old.dirs().map_err(Failed::Refused)?;
    let changes = crate::fresh::check(root, &old_dirs, old.racy_after(), threads);
    if changes.is_empty() {
        return Ok(Outcome::UpToDate);
    }
    let changed_files: HashSet<u32> = changes.files.iter().copied().collect();
    let mut affected = vec![false; old_dirs.len()];
    for &d in &changes.dirs {
        affected[d] = true;
    }
    for (i, d) in old_dirs.iter().enumerate() {
        let ids = d.first_id..d.first_id + d.entries.len() as u32;
        if ids.into_iter().any(|id| changed_files.contains(&id)) {
            affected[i] = true;
        }
    }
    let live: u64 = old_dirs.iter().map(|d| d.entries.len() as u64).sum();
    let moved: u64 = old_dirs
        .iter()
        .zip(&affected)
        .filter(|(_, a)| **a)
        .map(|(d, _)| d.entries.len() as u64)
        .sum();
    let dead = u64::from(old.next_id()) - live + moved;
    if dead > live / 4 {
        return Ok(Outcome::Rebuild);
    }
    // The same for stream numbers (archives indexed member by member): an
    // archive that changes often leaves its old numbers behind each time.
    let listed: u64 = old
        .sides()
        .map(|r| match r.map_err(Failed::Refused)?.side {
            Side::Streams(list) => Ok(list.len() / 4),
            Side::Filter(_) => Ok(0),
        })
        .sum::<Result<u64, Failed>>()?;
    if u64::from(old.next_stream()).saturating_sub(listed) > (listed / 4).max(1 << 20) {
        return Ok(Outcome::Rebuild);
    }
    let known: HashSet<Vec<u8>> = old_dirs.iter().map(|d| d.path.to_vec()).collect();
    // Directories gone since are not read (their parents no longer list them).
    let start: Vec<PathBuf> = old_dirs
        .iter()
        .zip(&affected)
        .filter(|(_, a)| **a)
        .map(|(d, _)| PathBuf::from(std::ffi::OsStr::from_bytes(&d.path)))
        .filter(|rel| std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_dir()))
        .collect();
    let dirs_read = start.len();
    let start = Start {
        dirs: start,
        first_id: old.next_id(),
        first_stream: old.next_stream(),
        known: Some(&known),
        texts,
    };
    let Built { segment: read, errors } =
        read(root, spill_dir, threads, progress, start).map_err(Failed::Io)?;
    let mut dirs: Vec<Dir> =
        old_dirs.into_iter().zip(affected).filter(|(_, a)| !a).map(|(d, _)| d).collect();
    let mut sides = kept_sides(old, &dirs).map_err(Failed::Refused)?;
    sides.extend(read.sides);
    dirs.extend(read.dirs);
    let segment = NewSegment {
        numbers: read.numbers,
        dirs: reachable(dirs),
        sides,
        blobs: read.blobs,
        postings: read.postings.added_to(old),
    };
    Ok(Outcome::Updated(Box::new(Updated { segment, errors, dirs_read })))
}

/// The side rows of `old` that belong to the entries of the directories
/// kept (those of entries read again, or gone, are left behind).
fn kept_sides<'s>(old: &'s Segment, kept: &[Dir]) -> Result<Vec<SideRow<'s>>, Refused> {
    let mut live = RoaringBitmap::new();
    for d in kept {
        live.insert_range(d.first_id..d.first_id + d.entries.len() as u32);
    }
    let rows: Vec<SideRow<'s>> = old.sides().collect::<Result<_, _>>()?;
    // Stream numbers belong to the archive whose row lists them.
    let mut live_streams = RoaringBitmap::new();
    for row in &rows {
        if let Side::Streams(Blob::Bytes(list)) = &row.side {
            if live.contains(row.number & !EXTRACTED) {
                let numbers =
                    list.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()));
                live_streams.extend(numbers.map(|n| n & !FILTERED));
            }
        }
    }
    let belongs = |n: u32| match n & STREAM {
        STREAM => live_streams.contains(n & !STREAM),
        _ => live.contains(n & !EXTRACTED),
    };
    Ok(rows.into_iter().filter(|r| belongs(r.number)).collect())
}

/// The directories reached from the root through directory entries.
fn reachable(dirs: Vec<Dir>) -> Vec<Dir> {
    let by_path: HashMap<&[u8], usize> =
        dirs.iter().enumerate().map(|(i, d)| (&d.path[..], i)).collect();
    let mut seen = vec![false; dirs.len()];
    let mut stack: Vec<usize> = by_path.get(&b""[..]).copied().into_iter().collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        for e in dirs[i].entries.iter().filter(|e| e.kind == EntryType::Dir) {
            if let Some(&j) = by_path.get(&child_path(&dirs[i].path, &e.name)[..]) {
                stack.push(j);
            }
        }
    }
    dirs.into_iter().zip(seen).filter(|(_, s)| *s).map(|(d, _)| d).collect()
}
