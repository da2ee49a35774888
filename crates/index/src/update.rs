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
use std::iter::Peekable;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use roaring::RoaringBitmap;

use crate::build::{read, Progress, Start, Texts};
use crate::segment::{
    child_path, Blob, Dir, EntryType, Numbers, Posting, Refused, Segment, Side, SideRow, EXTRACTED,
    FILTERED, STREAM,
};
use crate::spill::{Blobs, Merge};

/// What an update found to do.
pub enum Outcome<'s> {
    /// Nothing changed: the index stands.
    UpToDate,
    /// Too much changed: build the index anew.
    Rebuild,
    /// The updated index, to be written.
    Updated(Box<Updated<'s>>),
}

/// An updated index, ready to be written (its postings borrow the old
/// index's bytes).
pub struct Updated<'s> {
    /// The directories, each with its entries.
    pub dirs: Vec<Dir<'s>>,
    /// Every gram's postings, by growing gram.
    pub postings: Postings<'s>,
    /// Paths that could not be read, and why.
    pub errors: Vec<(PathBuf, io::Error)>,
    /// When the update began, the next free entry and stream numbers.
    pub numbers: Numbers,
    /// The side rows of the entries kept and of those read again (their
    /// filters' bits borrowed from the old index or in `blobs`).
    pub sides: Vec<SideRow<'s>>,
    /// The bits of the new filters.
    pub blobs: Blobs,
    /// Directories read again.
    pub dirs_read: usize,
}

/// The error of an update: the old index cannot be read, or spilling failed.
#[derive(Debug)]
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

/// Updates the index `old` of `root`.
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
    let built = read(root, spill_dir, threads, progress, start).map_err(Failed::Io)?;
    let mut dirs: Vec<Dir> =
        old_dirs.into_iter().zip(affected).filter(|(_, a)| !a).map(|(d, _)| d).collect();
    let mut sides = kept_sides(old, &dirs).map_err(Failed::Refused)?;
    sides.extend(built.sides);
    dirs.extend(built.dirs);
    let dirs = reachable(dirs);
    Ok(Outcome::Updated(Box::new(Updated {
        dirs,
        postings: Postings {
            old: (Box::new(old.all_postings()) as OldPostings<'s>).peekable(),
            new: built.postings.peekable(),
        },
        errors: built.errors,
        numbers: Numbers {
            started_ns: built.started_ns,
            next_id: built.next_id,
            next_stream: built.next_stream,
        },
        sides,
        blobs: built.blobs,
        dirs_read,
    })))
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

type OldPostings<'s> = Box<dyn Iterator<Item = Result<(u32, &'s [u8], u32), Refused>> + 's>;

/// The old index's postings (copied as they are) merged with the new
/// numbers' (which all come after the old ones).
pub struct Postings<'s> {
    old: Peekable<OldPostings<'s>>,
    new: Peekable<Merge>,
}

fn refused(r: Refused) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("the old index: {r}"))
}

impl<'s> Iterator for Postings<'s> {
    type Item = io::Result<(u32, Posting<'s>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let old_gram = match self.old.peek() {
            Some(Ok((g, _, _))) => Some(*g),
            Some(Err(_)) => {
                let e = self.old.next().and_then(Result::err)?;
                return Some(Err(refused(e)));
            }
            None => None,
        };
        let new_gram = match self.new.peek() {
            Some(Ok((g, _))) => Some(*g),
            Some(Err(_)) => return self.new.next().and_then(Result::err).map(Err),
            None => None,
        }
        .map(|g| g as u64);
        Some(Ok(match (old_gram.map(u64::from), new_gram) {
            (None, None) => return None,
            (Some(o), n) if n.is_none_or(|n| o < n) => {
                let Some(Ok((g, bytes, crc))) = self.old.next() else { return None };
                (g, Posting::Serialized(bytes, crc))
            }
            (o, Some(n)) if o.is_none_or(|o| n < o) => {
                let Some(Ok((g, bitmap))) = self.new.next() else { return None };
                (g, Posting::Bitmap(bitmap))
            }
            _ => {
                let Some(Ok((g, bytes, _))) = self.old.next() else { return None };
                let Some(Ok((_, new))) = self.new.next() else { return None };
                let mut bitmap = match RoaringBitmap::deserialize_from(bytes) {
                    Ok(b) => b,
                    Err(_) => return Some(Err(refused(Refused::Corrupt("postings")))),
                };
                bitmap |= new;
                (g, Posting::Bitmap(bitmap))
            }
        }))
    }
}
