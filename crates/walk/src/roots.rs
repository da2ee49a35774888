//! Where a walk starts: a [`Root`] for each path the user named, and the
//! directories whose entries the caller already knows ([`ListedDir`], from
//! an index), with how the walk treats them ([`Descent`], [`Opening`],
//! [`Itself`]).

use std::ffi::CString;

use crate::dirent::FileType;

/// One path given by the user.
#[derive(Clone, Debug)]
pub(crate) struct Root {
    /// What to open.
    pub(crate) open: CString,
    /// What to print before the names found under it ("" for an implicit ".").
    pub(crate) display: Vec<u8>,
    /// For a directory whose entries the caller knows: those entries.
    pub(crate) listed: Option<Box<Listed>>,
    /// The starting point it belongs to (a starting point an index serves
    /// is many listed roots).
    pub(crate) operand: usize,
}

/// A directory the caller has read already (from an index): the entries
/// of it to visit, as met during recursion.
#[derive(Clone, Debug)]
pub(crate) struct Listed {
    /// The directory's depth below the user's root.
    pub(crate) depth: usize,
    /// The entries to visit, by name, with their types (Unknown: stat'd
    /// when visited, as an entry whose `d_type` is unknown).
    pub(crate) children: Vec<(CString, FileType, Descent)>,
    pub(crate) opening: Opening,
    pub(crate) itself: Itself,
}

/// Whether the walk reads a directory among a listed directory's entries.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Descent {
    /// Read and walked below, as usual.
    Walked,
    /// Its own entries are listed too ([`WalkBuilder::add_listed`](crate::WalkBuilder::add_listed)):
    /// visited, not read.
    Listed,
}

/// When a listed directory is opened.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Opening {
    /// Before its entries are visited.
    Now,
    /// The first time an entry needs it (to stat or open it); the
    /// directory is never opened for visits that look at names and types
    /// alone.
    WhenNeeded,
}

/// Whether a listed directory is visited itself.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Itself {
    /// As a root (the user named it).
    Visited,
    /// Only its entries.
    NotVisited,
}

/// A directory whose entries the caller knows (see
/// [`WalkBuilder::add_listed`](crate::WalkBuilder::add_listed)).
#[derive(Clone, Debug)]
pub struct ListedDir<'p> {
    /// What to open.
    pub path: &'p [u8],
    /// What to print before its entries' names.
    pub display: &'p [u8],
    /// Its depth below the user's root.
    pub depth: usize,
    /// The entries to visit: name, type (Unknown: stat'd) and, for a
    /// directory, whether the walk reads it.
    pub children: Vec<(CString, FileType, Descent)>,
    /// When it is opened.
    pub opening: Opening,
    /// Whether it is visited itself.
    pub itself: Itself,
}
