//! Parallel directory traversal for huge trees.
//!
//! The walk reads directories with `getdents64` into a large per-thread
//! buffer, opens every directory and file with `openat` relative to its
//! parent's descriptor (so paths deeper than `PATH_MAX` work), takes entry
//! types from `d_type` and calls `fstatat` only when the type is unknown or a
//! symlink must be followed.
//!
//! Work is spread with one deque per thread: a thread pops its own newest work
//! (depth first, keeping few directories open) and steals the oldest work of
//! others (whole subtrees). Directories are work items, and so are batches of
//! a directory's files, so one huge directory is still shared by all threads.
//! The threads that walk are the threads that visit: a [`Visitor`] runs on
//! each of them, and searching a file happens inside [`Visitor::visit`].
//!
//! A sorted walk ([`WalkBuilder::sorted`]) is depth first with each
//! directory's entries in name-byte order. It still runs on every thread:
//! entries are visited out of order (each thread depth first in its own
//! subtree while little output waits), and the output each visit hands
//! over ([`Visitor::take_output`]) is written in walk order
//! ([`Visitor::write_output`]) through a bounded reorder buffer.
//!
//! ```no_run
//! use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkState};
//! struct Count(usize);
//! impl Visitor for Count {
//!     fn visit(&mut self, e: &Entry<'_>) -> WalkState {
//!         self.0 += e.file_type().is_file() as usize;
//!         WalkState::Continue
//!     }
//!     fn error(&mut self, _: WalkError) -> WalkState { WalkState::Continue }
//! }
//! let mut w = WalkBuilder::new();
//! w.add_root(".");
//! w.run(|_| Count(0));
//! ```
#![deny(missing_docs)]

mod dir;
mod dirent;
mod fds;
mod ignore_files;
mod name;
mod noatime;
mod ordered;
mod parallel;
mod pieces;
mod sys;
mod threads;

use std::ffi::{CStr, CString, OsStr};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::OnceLock;

pub(crate) use crate::dir::{Child, DirReader, DirTask, OpenDir};
pub use crate::dirent::FileType;
pub use crate::pieces::{Piece, Pieces};
pub(crate) use crate::sys::{cvt, fstat, fstatat, reads_to_the_end};
pub(crate) use crate::threads::run_threads;
pub use crate::threads::GrowthSignal;

/// What a visitor wants next.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum WalkState {
    /// Go on.
    Continue,
    /// Do not descend into this directory (same as `Continue` for files).
    Skip,
    /// Stop the whole walk as soon as possible.
    Quit,
}

/// Receives the entries of a walk, one visitor per thread.
pub trait Visitor: Send {
    /// Called for every entry: roots, directories (before their contents) and
    /// everything else.
    fn visit(&mut self, entry: &Entry<'_>) -> WalkState;

    /// Called for an entry that could not be read, or a directory loop.
    fn error(&mut self, err: WalkError) -> WalkState;

    /// With [`WalkBuilder::post_order`]: called for each directory after
    /// everything below it (or at once if it is not descended into).
    fn visit_dir_end(&mut self, _entry: &Entry<'_>) -> WalkState {
        WalkState::Continue
    }

    /// In a sorted walk: appends to `out` the output made by the visit that
    /// just returned (`visit`, or `visit_dir_end`), in tagged pieces. The
    /// walk holds it until everything before it in walk order was written,
    /// then hands it to [`Visitor::write_output`]. By default a visitor
    /// hands over nothing: it writes as it goes, which keeps the order only
    /// on one thread.
    fn take_output(&mut self, _out: &mut Pieces) {}

    /// With [`WalkBuilder::operands_in_order`]: a starting point was walked
    /// whole, on every thread; what this visitor holds goes out now, before
    /// anything of the next one.
    fn operand_finished(&mut self) {}

    /// In a sorted walk: writes the pieces of output of consecutive entries,
    /// as [`Visitor::take_output`] handed them over, in walk order. Called
    /// on any thread's visitor, one call at a time; Quit stops the walk.
    fn write_output(&mut self, _pieces: &[Piece<'_>]) -> WalkState {
        WalkState::Continue
    }
}

/// An entry of the walk, valid during the [`Visitor::visit`] call.
pub struct Entry<'a> {
    /// The directory holding the entry, pinned while the entry is visited.
    parent: Option<&'a crate::dir::OpenDir>,
    name: &'a CStr,
    path: &'a [u8],
    depth: usize,
    file_type: FileType,
    followed: bool,
    stat: Option<&'a libc::stat>,
    link_error: Option<i32>,
    short_read_is_end: bool,
}

impl<'a> Entry<'a> {
    /// Whether a read of this (regular) file that returns less than asked
    /// means the end of the file, so the read that would return 0 can be
    /// skipped: known for entries of a directory on a local disk or memory
    /// file system when the walk asks ([`WalkBuilder::file_systems`]);
    /// false for roots and elsewhere (a FUSE, network or proc file may
    /// return short reads before its end).
    pub fn short_read_is_end(&self) -> bool {
        self.short_read_is_end
    }

    /// The directory descriptor and name to use with `*at` calls (the
    /// directory is opened again if it was closed to make room).
    fn at(&self) -> io::Result<(RawFd, &CStr)> {
        match self.parent {
            Some(d) => Ok((d.raw_fd()?, self.name)),
            None => Ok((libc::AT_FDCWD, self.name)),
        }
    }

    /// The descriptor of the directory holding the entry, open during the
    /// visit (None for a root, or when it cannot be opened again).
    pub fn parent_fd(&self) -> Option<BorrowedFd<'a>> {
        self.parent?.borrowed_fd().ok()
    }

    /// Reads the metadata now (`lstat` unless `follow`).
    pub fn fetch_stat(&self, follow: bool) -> io::Result<libc::stat> {
        let (dir, name) = self.at()?;
        fstatat(dir, name, follow)
    }

    /// The birth time (statx; `lstat`'s view unless `follow`): None when
    /// the file system does not keep one.
    pub fn birth_time(&self, follow: bool) -> io::Result<Option<(i64, i64)>> {
        let (dir, name) = self.at()?;
        // SAFETY: an all-zero statx is valid; the call fills it in.
        let mut stx: libc::statx = unsafe { std::mem::zeroed() };
        let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
        // SAFETY: a NUL-terminated name relative to an open directory (or
        // the cwd), a valid out-pointer.
        cvt(unsafe { libc::statx(dir, name.as_ptr(), flags, libc::STATX_BTIME, &mut stx) })?;
        Ok((stx.stx_mask & libc::STATX_BTIME != 0)
            .then(|| (stx.stx_btime.tv_sec, i64::from(stx.stx_btime.tv_nsec))))
    }

    /// Whether the entry is a directory with no entries.
    pub fn is_empty_dir(&self) -> io::Result<bool> {
        let (dir, name) = self.at()?;
        let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        if !self.followed {
            flags |= libc::O_NOFOLLOW;
        }
        let fd = fds::open_at(dir, name, flags)?;
        dirent::has_entries(fd.as_raw_fd()).map(|has| !has)
    }

    /// `faccessat` for `libc::R_OK`, `W_OK` or `X_OK`.
    pub fn access(&self, mode: libc::c_int) -> bool {
        let Ok((dir, name)) = self.at() else { return false };
        // SAFETY: a NUL-terminated name relative to an open directory (or the cwd).
        unsafe { libc::faccessat(dir, name.as_ptr(), mode, 0) == 0 }
    }

    /// The target of a symlink.
    pub fn read_link(&self) -> io::Result<Vec<u8>> {
        let (dir, name) = self.at()?;
        let mut buf = vec![0u8; 256];
        loop {
            // SAFETY: the buffer is valid for `buf.len()` bytes.
            let n =
                unsafe { libc::readlinkat(dir, name.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            let n = n as usize;
            if n < buf.len() {
                buf.truncate(n);
                return Ok(buf);
            }
            buf.resize(buf.len() * 2, 0);
        }
    }

    /// Removes the entry (`rmdir` for a directory, else `unlink`), relative
    /// to its directory.
    pub fn remove(&self) -> io::Result<()> {
        let (dir, name) = self.at()?;
        let flags = if self.file_type.is_dir() { libc::AT_REMOVEDIR } else { 0 };
        // SAFETY: a NUL-terminated name relative to an open directory (or the cwd).
        cvt(unsafe { libc::unlinkat(dir, name.as_ptr(), flags) }).map(|_| ())
    }

    /// For a symlink the walk was told to follow but could not (dangling, or
    /// a chain of links too long): why.
    pub fn broken_link_error(&self) -> Option<io::Error> {
        self.link_error.map(io::Error::from_raw_os_error)
    }

    /// The path to print: the root as given, then names joined by `/`.
    pub fn path(&self) -> &[u8] {
        self.path
    }

    /// The file name within its directory (for a root, the path as given).
    pub fn file_name(&self) -> &[u8] {
        self.name.to_bytes()
    }

    /// 0 for a root, 1 for its entries, and so on.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether this entry was named by the user rather than found by recursion.
    pub fn is_root(&self) -> bool {
        self.parent.is_none()
    }

    /// The entry's type; for a followed symlink, the type of its target.
    pub fn file_type(&self) -> FileType {
        self.file_type
    }

    /// The metadata, when the walk had to read it anyway (unknown `d_type`,
    /// followed links, roots).
    pub fn metadata(&self) -> Option<&libc::stat> {
        self.stat
    }

    /// Opens the entry for reading. Entries met during recursion are opened
    /// relative to their directory, non-blocking and without following a
    /// symlink (unless the walk follows links), so a file replaced by a FIFO
    /// or a link after the directory was read cannot hang or redirect the
    /// search.
    pub fn open(&self) -> io::Result<File> {
        let fd = match self.parent {
            None => {
                let mut flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY;
                if self.file_type.is_dir() {
                    flags |= libc::O_DIRECTORY;
                }
                fds::open_at(libc::AT_FDCWD, self.name, flags)?
            }
            Some(dir) => {
                let mut flags =
                    libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;
                if !self.followed {
                    flags |= libc::O_NOFOLLOW;
                }
                // `dir`'s descriptor stays open while the entry is visited.
                fds::open_at(dir.raw_fd()?, self.name, flags)?
            }
        };
        Ok(File::from(fd))
    }
}

/// An error met during the walk, with the path it concerns.
#[derive(Debug)]
pub struct WalkError {
    path: Vec<u8>,
    kind: WalkErrorKind,
}

/// What went wrong at a path.
#[derive(Debug)]
#[non_exhaustive]
pub enum WalkErrorKind {
    /// A system call failed.
    Io(io::Error),
    /// Following a symlink led back to one of its own ancestors (whose
    /// path this is).
    Loop {
        /// The ancestor's path.
        ancestor: Vec<u8>,
    },
    /// An ignore file (`.gitignore`, `.ignore`) that is not a regular file
    /// (a FIFO would block the walk): not read.
    IgnoreFileNotRegular,
    /// An ignore file that could not be opened or read: its rules are not
    /// applied, so the walk may visit what they leave out (an error).
    IgnoreFileUnreadable(io::Error),
}

impl WalkErrorKind {
    /// Whether this only warns (the run does not fail for it).
    pub fn is_warning(&self) -> bool {
        matches!(self, WalkErrorKind::Loop { .. } | WalkErrorKind::IgnoreFileNotRegular)
    }
}

impl WalkError {
    /// The path the error concerns.
    pub fn path(&self) -> &[u8] {
        &self.path
    }

    /// What went wrong.
    pub fn kind(&self) -> &WalkErrorKind {
        &self.kind
    }
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = String::from_utf8_lossy(&self.path);
        match &self.kind {
            WalkErrorKind::Io(e) => write!(f, "{path}: {}", trawl_diag::io_message(e)),
            WalkErrorKind::Loop { .. } => write!(f, "{path}: warning: recursive directory loop"),
            WalkErrorKind::IgnoreFileNotRegular => {
                write!(f, "{path}: warning: not a regular file, not read as an ignore file")
            }
            WalkErrorKind::IgnoreFileUnreadable(e) => {
                write!(f, "{path}: {}; its ignore rules are not applied", trawl_diag::io_message(e))
            }
        }
    }
}

/// One path given by the user.
#[derive(Clone, Debug)]
struct Root {
    /// What to open.
    open: CString,
    /// What to print before the names found under it ("" for an implicit ".").
    display: Vec<u8>,
    /// For a directory whose entries the caller knows: those entries.
    listed: Option<Box<Listed>>,
    /// The starting point it belongs to (a starting point an index serves
    /// is many listed roots).
    operand: usize,
}

/// A directory the caller has read already (from an index): the entries
/// of it to visit, as met during recursion.
#[derive(Clone, Debug)]
struct Listed {
    /// The directory's depth below the user's root.
    depth: usize,
    /// The entries to visit, by name, with their types (Unknown: stat'd
    /// when visited, as an entry whose `d_type` is unknown).
    children: Vec<(CString, FileType, Descent)>,
    opening: Opening,
    itself: Itself,
}

/// Whether the walk reads a directory among a listed directory's entries.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Descent {
    /// Read and walked below, as usual.
    Walked,
    /// Its own entries are listed too ([`WalkBuilder::add_listed`]):
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
/// [`WalkBuilder::add_listed`]).
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

/// Says, for an entry an ignore file would leave out, whether to walk it
/// anyway (ripgrep's rule: a user's glob that names an entry overrides the
/// ignore files): its path as printed, its depth, whether it is a
/// directory.
#[derive(Clone)]
pub struct KeepIgnored(pub std::sync::Arc<KeepFn>);

/// The test of [`KeepIgnored`]: path, depth, whether a directory.
pub type KeepFn = dyn Fn(&[u8], usize, bool) -> bool + Send + Sync;

impl std::fmt::Debug for KeepIgnored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeepIgnored(..)")
    }
}

/// Configures and runs a walk.
#[derive(Clone, Debug)]
pub struct WalkBuilder {
    /// Entries kept whatever the ignore files say.
    keep_ignored: Option<KeepIgnored>,
    roots: Vec<Root>,
    threads: usize,
    follow_links: bool,
    max_depth: Option<usize>,
    same_file_system: bool,
    sorted: bool,
    reorder_buffer: usize,
    ignore_files: bool,
    follow_roots: bool,
    post_order: bool,
    file_systems: bool,
    /// Starting points are walked one after another (see
    /// [`WalkBuilder::operands_in_order`]).
    in_order: bool,
    /// The number the next starting point gets.
    next_operand: usize,
    /// The starting point listed roots added now belong to.
    listed_operand: usize,
    visit_descriptors: usize,
}

/// Output a sorted walk holds, by default, for entries whose predecessors
/// are not finished (see [`WalkBuilder::reorder_buffer`]).
pub const DEFAULT_REORDER_BUFFER: usize = 32 << 20;

impl Default for WalkBuilder {
    fn default() -> Self {
        WalkBuilder::new()
    }
}

impl WalkBuilder {
    /// A walk with no roots, on as many threads as there are CPUs.
    pub fn new() -> WalkBuilder {
        WalkBuilder {
            keep_ignored: None,
            roots: Vec::new(),
            threads: 0,
            follow_links: false,
            max_depth: None,
            same_file_system: false,
            sorted: false,
            reorder_buffer: DEFAULT_REORDER_BUFFER,
            ignore_files: false,
            follow_roots: true,
            post_order: false,
            file_systems: false,
            in_order: false,
            next_operand: 0,
            listed_operand: 0,
            visit_descriptors: 1,
        }
    }

    /// Walks the starting points one after another, in the order added:
    /// each one's entries (on every thread) after all of the previous
    /// one's, and every thread's visitor told in between
    /// ([`Visitor::operand_finished`]), so that what it holds is written
    /// in order (POSIX find).
    pub fn operands_in_order(&mut self, yes: bool) -> &mut Self {
        self.in_order = yes;
        self
    }

    /// Listed roots added from now on ([`WalkBuilder::add_listed`]) belong
    /// to a new starting point (roots added with [`WalkBuilder::add_root`]
    /// are each one of their own).
    pub fn start_operand(&mut self) -> &mut Self {
        self.listed_operand = self.next_operand;
        self.next_operand += 1;
        self
    }

    /// Asks each directory's file system (one `fstatfs` per directory) so
    /// that its entries can tell whether a short read means the end of the
    /// file ([`Entry::short_read_is_end`]).
    pub fn file_systems(&mut self, yes: bool) -> &mut Self {
        self.file_systems = yes;
        self
    }

    /// Whether a root that is a symlink is followed (the default; `find -P`
    /// turns it off).
    pub fn follow_roots(&mut self, yes: bool) -> &mut Self {
        self.follow_roots = yes;
        self
    }

    /// Also call [`Visitor::visit_dir_end`] for every directory once all its
    /// contents were visited (`find -depth`).
    pub fn post_order(&mut self, yes: bool) -> &mut Self {
        self.post_order = yes;
        self
    }

    /// Adds a path to walk, printed as given.
    pub fn add_root(&mut self, path: impl AsRef<OsStr>) -> &mut Self {
        let bytes = path.as_ref().as_bytes();
        self.add_root_displayed(bytes, bytes)
    }

    /// Adds a path to walk whose entries are printed under `display` (an
    /// empty `display` prints bare names, as grep does for an implicit `.`).
    pub fn add_root_displayed(&mut self, path: &[u8], display: &[u8]) -> &mut Self {
        let open = CString::new(path.to_vec()).unwrap_or_else(|_| c".".to_owned());
        let operand = self.next_operand;
        self.next_operand += 1;
        self.roots.push(Root { open, display: display.to_vec(), listed: None, operand });
        self
    }

    /// Adds a directory whose entries the caller already knows (from an
    /// index): it is not read; only its listed children are visited, each
    /// as an entry met during recursion at `depth + 1` and printed under
    /// `display` (directories among them are walked as usual unless
    /// [`Descent::Listed`]). With [`Itself::Visited`] it is visited first,
    /// as a root. Not for a sorted or post-order walk, which ignore it.
    pub fn add_listed(&mut self, dir: ListedDir<'_>) -> &mut Self {
        let Ok(open) = CString::new(dir.path.to_vec()) else { return self };
        let listed = Some(Box::new(Listed {
            depth: dir.depth,
            children: dir.children,
            opening: dir.opening,
            itself: dir.itself,
        }));
        let operand = self.listed_operand;
        self.roots.push(Root { open, display: dir.display.to_vec(), listed, operand });
        self
    }

    /// Threads to use; 0 chooses from the number of CPUs.
    pub fn threads(&mut self, n: usize) -> &mut Self {
        self.threads = n;
        self
    }

    /// Follow symlinks met during recursion (`-R`), reporting loops.
    pub fn follow_links(&mut self, yes: bool) -> &mut Self {
        self.follow_links = yes;
        self
    }

    /// Visit nothing deeper than `depth` (0: the roots only).
    pub fn max_depth(&mut self, depth: Option<usize>) -> &mut Self {
        self.max_depth = depth;
        self
    }

    /// Do not descend into directories on other file systems.
    pub fn same_file_system(&mut self, yes: bool) -> &mut Self {
        self.same_file_system = yes;
        self
    }

    /// Walk in depth-first order, each directory's entries sorted by name
    /// bytes (with post-order visits after a directory's entries). On one
    /// thread the visits happen in that order; on more, they happen in
    /// parallel, out of order, and only the output visitors hand over
    /// ([`Visitor::take_output`]) comes out in that order.
    pub fn sorted(&mut self, yes: bool) -> &mut Self {
        self.sorted = yes;
        self
    }

    /// In a sorted walk: how much output of finished entries may wait for
    /// earlier ones. Past half of it, threads take the earliest entries;
    /// past all of it, only the next entry to write (the others wait).
    /// Memory then stays under about `bytes` plus the output of the
    /// entries being visited.
    pub fn reorder_buffer(&mut self, bytes: usize) -> &mut Self {
        self.reorder_buffer = bytes;
        self
    }

    /// With ignore files honoured: the entries walked whatever they say.
    pub fn keep_ignored(&mut self, keep: Option<KeepIgnored>) -> &mut Self {
        self.keep_ignored = keep;
        self
    }

    /// Honour `.gitignore` and `.ignore` files, and skip `.git` directories.
    pub fn ignore_files(&mut self, yes: bool) -> &mut Self {
        self.ignore_files = yes;
        self
    }

    /// How many descriptors one visit may hold at once (a file open for
    /// reading, a child's pipes; 1 by default): the walk starts no more
    /// threads than the open-file limit leaves room for.
    pub fn visit_descriptors(&mut self, n: usize) -> &mut Self {
        self.visit_descriptors = n;
        self
    }

    /// The number of threads a walk will use.
    pub fn thread_count(&self) -> usize {
        let wanted = if self.threads > 0 { self.threads } else { cpus() };
        wanted.min(fds::threads_within_limit(self.visit_descriptors))
    }

    /// Whether the walk is one entry: a single root that is not a
    /// directory to read (or nothing below the roots is visited). Such a
    /// walk runs on the calling thread, with no thread started.
    pub fn is_one_entry(&self) -> bool {
        if self.max_depth == Some(0) && self.roots.iter().all(|r| r.listed.is_none()) {
            return self.roots.len() <= 1;
        }
        let [root] = &self.roots[..] else { return self.roots.is_empty() };
        // A root that cannot be read is one entry too: its error.
        root.listed.is_none()
            && fstatat(libc::AT_FDCWD, &root.open, self.follow_roots)
                .map_or(true, |st| !FileType::from_mode(st.st_mode).is_dir())
    }

    /// Walks every root, calling a visitor made by `make_visitor(thread index)`
    /// on each thread; returns the visitors when the walk ends.
    pub fn run<V, F>(&self, make_visitor: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        if self.is_one_entry() {
            return self.run_one_entry(make_visitor);
        }
        self.walk(self.thread_count(), None, &make_visitor)
    }

    /// Walks a walk known to be one entry ([`WalkBuilder::is_one_entry`],
    /// asked by the caller) on the calling thread.
    pub fn run_one_entry<V, F>(&self, make_visitor: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        self.walk(1, None, &make_visitor)
    }

    fn walk<V, F>(&self, threads: usize, growth: Growth<'_>, make_visitor: &F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        if self.sorted {
            ordered::walk(self, threads, growth, make_visitor)
        } else {
            parallel::walk(self, threads, growth, make_visitor)
        }
    }

    /// Like [`WalkBuilder::run`], but up to `max_threads` threads work once
    /// `blocked` is set (by visitors that see reads wait on the disk): a
    /// cold cache gets more requests in flight, a warm run stays at one
    /// thread per CPU. (A caller that would rather run a one-entry walk on
    /// its own thread asks [`WalkBuilder::is_one_entry`] first.)
    pub fn run_growing<V, F>(
        &self,
        max_threads: usize,
        blocked: &GrowthSignal,
        make_visitor: F,
    ) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        let max_threads = max_threads.min(fds::threads_within_limit(self.visit_descriptors));
        self.walk(self.thread_count(), Some((max_threads, blocked)), &make_visitor)
    }
}

/// Growth of a walk: at most this many threads once the flag is set.
pub(crate) type Growth<'a> = Option<(usize, &'a GrowthSignal)>;

/// The CPUs this process may use, asked once: the standard library reads
/// cgroup files on every call.
pub fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
