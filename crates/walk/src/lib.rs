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

mod dirent;
mod ignore_files;
mod ordered;
mod parallel;

use std::ffi::{CStr, CString, OsStr};
use std::fmt;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub use crate::dirent::FileType;
use crate::ignore_files::IgnoreStack;

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
    /// just returned (`visit`, or `visit_dir_end`). The walk holds it until
    /// everything before it in walk order was written, then hands it to
    /// [`Visitor::write_output`]. By default a visitor hands over nothing:
    /// it writes as it goes, which keeps the order only on one thread.
    fn take_output(&mut self, _out: &mut Vec<u8>) {}

    /// In a sorted walk: writes the outputs of consecutive entries (one
    /// slice each, none empty), in walk order. Called on any thread's
    /// visitor, one call at a time; Quit stops the walk.
    fn write_output(&mut self, _outputs: &[&[u8]]) -> WalkState {
        WalkState::Continue
    }
}

/// An entry of the walk, valid during the [`Visitor::visit`] call.
pub struct Entry<'a> {
    parent: Option<BorrowedFd<'a>>,
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

    /// The directory descriptor and name to use with `*at` calls.
    fn at(&self) -> (RawFd, &CStr) {
        match self.parent {
            Some(d) => (d.as_raw_fd(), self.name),
            None => (libc::AT_FDCWD, self.name),
        }
    }

    /// The descriptor of the directory holding the entry (None for a root).
    pub fn parent_fd(&self) -> Option<BorrowedFd<'a>> {
        self.parent
    }

    /// Reads the metadata now (`lstat` unless `follow`).
    pub fn fetch_stat(&self, follow: bool) -> io::Result<libc::stat> {
        let (dir, name) = self.at();
        fstatat(dir, name, follow)
    }

    /// Whether the entry is a directory with no entries.
    pub fn is_empty_dir(&self) -> io::Result<bool> {
        let (dir, name) = self.at();
        let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        if !self.followed {
            flags |= libc::O_NOFOLLOW;
        }
        // SAFETY: a NUL-terminated name relative to an open directory (or the cwd).
        let fd = cvt(unsafe { libc::openat(dir, name.as_ptr(), flags) })?;
        // SAFETY: a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        dirent::has_entries(fd.as_raw_fd()).map(|has| !has)
    }

    /// `faccessat` for `libc::R_OK`, `W_OK` or `X_OK`.
    pub fn access(&self, mode: libc::c_int) -> bool {
        let (dir, name) = self.at();
        // SAFETY: a NUL-terminated name relative to an open directory (or the cwd).
        unsafe { libc::faccessat(dir, name.as_ptr(), mode, 0) == 0 }
    }

    /// The target of a symlink.
    pub fn read_link(&self) -> io::Result<Vec<u8>> {
        let (dir, name) = self.at();
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
        let (dir, name) = self.at();
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
                cvt(unsafe {
                    // SAFETY: `name` is a valid NUL-terminated string.
                    libc::open(self.name.as_ptr(), flags)
                })?
            }
            Some(dir) => {
                let mut flags =
                    libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOCTTY | libc::O_NONBLOCK;
                if !self.followed {
                    flags |= libc::O_NOFOLLOW;
                }
                cvt(unsafe {
                    // SAFETY: `dir` is an open directory descriptor borrowed for
                    // the lifetime of the entry; `name` is NUL-terminated.
                    libc::openat(dir.as_raw_fd(), self.name.as_ptr(), flags)
                })?
            }
        };
        // SAFETY: `fd` was just returned by open(2) and is owned by nobody else.
        Ok(unsafe { File::from_raw_fd(fd) })
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
    /// Following a symlink led back to one of its own ancestors.
    Loop,
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
            WalkErrorKind::Loop => write!(f, "{path}: warning: recursive directory loop"),
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
}

/// Configures and runs a walk.
#[derive(Clone, Debug)]
pub struct WalkBuilder {
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
        }
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
        self.roots.push(Root { open, display: display.to_vec() });
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

    /// Honour `.gitignore` and `.ignore` files, and skip `.git` directories.
    pub fn ignore_files(&mut self, yes: bool) -> &mut Self {
        self.ignore_files = yes;
        self
    }

    /// The number of threads a walk will use.
    pub fn thread_count(&self) -> usize {
        if self.threads > 0 {
            return self.threads;
        }
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// Walks every root, calling a visitor made by `make_visitor(thread index)`
    /// on each thread; returns the visitors when the walk ends.
    pub fn run<V, F>(&self, make_visitor: F) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        if self.sorted {
            ordered::walk(self, self.thread_count(), None, &make_visitor)
        } else {
            parallel::walk(self, self.thread_count(), None, &make_visitor)
        }
    }

    /// Like [`WalkBuilder::run`], but up to `max_threads` threads work once
    /// `blocked` is set (by visitors that see reads wait on the disk): a
    /// cold cache gets more requests in flight, a warm run stays at one
    /// thread per CPU.
    pub fn run_growing<V, F>(
        &self,
        max_threads: usize,
        blocked: &AtomicBool,
        make_visitor: F,
    ) -> Vec<V>
    where
        V: Visitor,
        F: Fn(usize) -> V + Sync,
    {
        let growth = Some((max_threads, blocked));
        if self.sorted {
            ordered::walk(self, self.thread_count(), growth, &make_visitor)
        } else {
            parallel::walk(self, self.thread_count(), growth, &make_visitor)
        }
    }
}

/// Runs the walk's threads: `start(i)` makes the work of thread `i` (called
/// in order of `i`). With growth, `threads` start and the rest, up to the
/// maximum, join once `blocked` is set (by visitors that see reads wait on
/// the disk): a cold cache gets more requests in flight, a warm run never
/// pays for them. Returns each thread's result, by index.
pub(crate) fn run_threads<V, T>(
    threads: usize,
    growth: Option<(usize, &AtomicBool)>,
    mut start: impl FnMut(usize) -> T,
) -> Vec<V>
where
    V: Send,
    T: FnOnce() -> V + Send,
{
    let threads = threads.max(1);
    let max = growth.map_or(threads, |(max, _)| max.max(threads));
    std::thread::scope(|s| {
        let mut spawn = |i: usize| {
            std::thread::Builder::new()
                .name(format!("trawl-{i}"))
                .spawn_scoped(s, start(i))
                .expect("spawn walker thread")
        };
        let mut handles: Vec<_> = (0..threads).map(&mut spawn).collect();
        if let Some((_, blocked)) = growth {
            loop {
                if blocked.load(Ordering::Relaxed) {
                    handles.extend((threads..max).map(&mut spawn));
                    break;
                }
                if handles.iter().all(|h| h.is_finished()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        handles.into_iter().map(|h| h.join().expect("walker thread panicked")).collect()
    })
}

/// An open directory and what its children need to know about it.
pub(crate) struct OpenDir {
    fd: OwnedFd,
    path: Vec<u8>,
    depth: usize,
    /// The (dev, ino) of this directory and its ancestors, when links are
    /// followed (for loop detection).
    ancestors: Option<Arc<Ancestor>>,
    /// The device of the root, when staying on one file system.
    root_dev: Option<u64>,
    ignore: Option<Arc<IgnoreStack>>,
    /// Work items of this directory not finished yet, itself included
    /// (post-order walks only).
    outstanding: AtomicUsize,
    /// What the directory's own entry needs for its post-order visit.
    post: Option<PostInfo>,
    /// A short read of a regular file here means its end (see
    /// [`reads_to_the_end`]).
    short_read_is_end: bool,
}

/// A directory's own entry, kept for its visit after its contents.
pub(crate) struct PostInfo {
    parent: Option<Arc<OpenDir>>,
    name: CString,
    stat: Option<libc::stat>,
    followed: bool,
}

pub(crate) struct Ancestor {
    dev: u64,
    ino: u64,
    parent: Option<Arc<Ancestor>>,
}

impl Ancestor {
    fn contains(&self, dev: u64, ino: u64) -> bool {
        let mut cur = Some(self);
        while let Some(a) = cur {
            if a.dev == dev && a.ino == ino {
                return true;
            }
            cur = a.parent.as_deref();
        }
        false
    }
}

/// A directory to read: a root, or a child of an open directory.
pub(crate) struct DirTask {
    parent: Option<Arc<OpenDir>>,
    name: CString,
    path: Vec<u8>,
    depth: usize,
    /// Opened through a followed symlink (do not use O_NOFOLLOW).
    followed: bool,
    stat: Option<libc::stat>,
}

/// Calls [`Visitor::visit_dir_end`] for the directory `name` in `parent`
/// (followed or not, with its metadata if known), printed as `path`.
fn dir_end<V: Visitor>(
    v: &mut V,
    (parent, name, followed, stat): (Option<&OpenDir>, &CStr, bool, Option<&libc::stat>),
    path: &[u8],
    depth: usize,
) -> WalkState {
    let path: &[u8] = if path.is_empty() { b"." } else { path };
    let entry = Entry {
        parent: parent.map(|p| p.fd.as_fd()),
        name,
        path,
        depth,
        file_type: FileType::Dir,
        followed,
        stat,
        link_error: None,
        short_read_is_end: false,
    };
    v.visit_dir_end(&entry)
}

/// Appends `name` to a directory path the way entries are printed.
pub(crate) fn join_path(out: &mut Vec<u8>, dir: &[u8], name: &[u8]) {
    out.clear();
    out.extend_from_slice(dir);
    if !dir.is_empty() && !dir.ends_with(b"/") {
        out.push(b'/');
    }
    out.extend_from_slice(name);
}

pub(crate) fn cvt(ret: libc::c_int) -> io::Result<RawFd> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

/// Whether the file system holding the directory `fd` returns a short read
/// of a regular file only at its end: the kernel's page-cache read loops
/// until the request is filled or the end is reached on these (ext2-4, XFS,
/// Btrfs, F2FS, tmpfs, and overlayfs, which reads from such a layer). FUSE,
/// network and pseudo file systems may return less before the end.
fn reads_to_the_end(fd: RawFd) -> bool {
    const LOCAL: [u64; 6] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0xF2F5_2010, // F2FS
        0x0102_1994, // tmpfs
        0x794C_7630, // overlayfs
    ];
    // SAFETY: an all-zero statfs is a valid value; fstatfs fills it in.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is an open descriptor and `st` a valid out-pointer.
    if unsafe { libc::fstatfs(fd, &mut st) } != 0 {
        return false;
    }
    LOCAL.contains(&(st.f_type as u64))
}

pub(crate) fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: an all-zero stat is a valid value; fstat fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a valid out-pointer.
    cvt(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

pub(crate) fn fstatat(dir: RawFd, name: &CStr, follow: bool) -> io::Result<libc::stat> {
    // SAFETY: as in `fstat`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let flags = if follow { 0 } else { libc::AT_SYMLINK_NOFOLLOW };
    // SAFETY: `name` is NUL-terminated and `st` a valid out-pointer.
    cvt(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, flags) })?;
    Ok(st)
}

/// Shared state of one walk's directory handling, used by both orders.
pub(crate) struct DirReader<'w> {
    pub(crate) config: &'w WalkBuilder,
    pub(crate) buf: dirent::DentBuf,
    pub(crate) path: Vec<u8>,
}

/// A child of a directory, as read.
pub(crate) struct Child {
    pub(crate) name: CString,
    pub(crate) file_type: FileType,
    /// Boxed: it is rarely read during a walk, and children are moved
    /// around (sorted, batched) in large numbers.
    pub(crate) stat: Option<Box<libc::stat>>,
    pub(crate) followed: bool,
    /// errno of following a symlink that could not be followed.
    pub(crate) link_error: Option<i32>,
    /// The inode number from the directory entry.
    pub(crate) ino: u64,
}

impl<'w> DirReader<'w> {
    pub(crate) fn new(config: &'w WalkBuilder) -> DirReader<'w> {
        DirReader { config, buf: dirent::DentBuf::new(), path: Vec::new() }
    }

    /// The post-order visit of a directory that could not be read.
    pub(crate) fn post_visit_task<V: Visitor>(&mut self, task: &DirTask, v: &mut V) -> WalkState {
        if !self.config.post_order {
            return WalkState::Continue;
        }
        let at = (task.parent.as_deref(), task.name.as_c_str(), task.followed, task.stat.as_ref());
        dir_end(v, at, &task.path, task.depth)
    }

    /// The post-order visit of a directory whose contents are all done.
    pub(crate) fn post_visit_dir<V: Visitor>(&mut self, dir: &OpenDir, v: &mut V) -> WalkState {
        let Some(post) = &dir.post else { return WalkState::Continue };
        let at = (post.parent.as_deref(), post.name.as_c_str(), post.followed, post.stat.as_ref());
        dir_end(v, at, &dir.path, dir.depth)
    }

    /// Marks one work item of `dir` finished; for each directory whose
    /// contents are then all done, runs its post-order visit and moves up.
    pub(crate) fn finish_item<V: Visitor>(&mut self, dir: &Arc<OpenDir>, v: &mut V) -> WalkState {
        if !self.config.post_order {
            return WalkState::Continue;
        }
        let mut cur = dir.clone();
        loop {
            if cur.outstanding.fetch_sub(1, Ordering::AcqRel) != 1 {
                return WalkState::Continue;
            }
            if self.post_visit_dir(&cur, v) == WalkState::Quit {
                return WalkState::Quit;
            }
            match cur.post.as_ref().and_then(|p| p.parent.clone()) {
                Some(parent) => cur = parent,
                None => return WalkState::Continue,
            }
        }
    }

    /// Opens a directory task; reports errors and loops to the visitor.
    pub(crate) fn open_dir<V: Visitor>(
        &mut self,
        task: DirTask,
        v: &mut V,
    ) -> Result<OpenDir, Box<DirTask>> {
        let c = self.config;
        let fd = match &task.parent {
            None => cvt(unsafe {
                // SAFETY: a NUL-terminated path.
                libc::open(
                    task.name.as_ptr(),
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOCTTY,
                )
            }),
            Some(parent) => {
                let mut flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
                if !task.followed {
                    flags |= libc::O_NOFOLLOW;
                }
                cvt(unsafe {
                    // SAFETY: the parent descriptor is open (owned by `parent`).
                    libc::openat(parent.fd.as_raw_fd(), task.name.as_ptr(), flags)
                })
            }
        };
        let fd = match fd {
            // SAFETY: a fresh descriptor from open(2).
            Ok(fd) => unsafe { OwnedFd::from_raw_fd(fd) },
            Err(e) => {
                v.error(WalkError { path: task.path.clone(), kind: WalkErrorKind::Io(e) });
                return Err(Box::new(task));
            }
        };
        let parent = task.parent.as_deref();
        let mut ancestors = None;
        let mut root_dev = parent.and_then(|p| p.root_dev);
        if c.follow_links || c.same_file_system {
            let st = match fstat(fd.as_raw_fd()) {
                Ok(st) => st,
                Err(e) => {
                    v.error(WalkError { path: task.path.clone(), kind: WalkErrorKind::Io(e) });
                    return Err(Box::new(task));
                }
            };
            let (dev, ino) = (st.st_dev, st.st_ino);
            if c.same_file_system {
                match root_dev {
                    None => root_dev = Some(dev),
                    Some(d) if d != dev => return Err(Box::new(task)),
                    Some(_) => {}
                }
            }
            if c.follow_links {
                let up = parent.and_then(|p| p.ancestors.clone());
                if up.as_ref().is_some_and(|a| a.contains(dev, ino)) {
                    v.error(WalkError { path: task.path.clone(), kind: WalkErrorKind::Loop });
                    return Err(Box::new(task));
                }
                ancestors = Some(Arc::new(Ancestor { dev, ino, parent: up }));
            }
        }
        let ignore = if c.ignore_files {
            Some(IgnoreStack::enter(parent.and_then(|p| p.ignore.clone()), fd.as_fd(), &task.path))
        } else {
            None
        };
        let post = c.post_order.then(|| PostInfo {
            parent: task.parent.clone(),
            name: task.name.clone(),
            stat: task.stat,
            followed: task.followed,
        });
        let short_read_is_end = c.file_systems && reads_to_the_end(fd.as_raw_fd());
        Ok(OpenDir {
            fd,
            path: task.path,
            depth: task.depth,
            ancestors,
            root_dev,
            ignore,
            outstanding: AtomicUsize::new(1),
            post,
            short_read_is_end,
        })
    }

    /// Reads all children of `dir`, resolving unknown types and followed links.
    pub(crate) fn read_children<V: Visitor>(
        &mut self,
        dir: &OpenDir,
        v: &mut V,
        out: &mut Vec<Child>,
    ) -> WalkState {
        out.clear();
        let c = self.config;
        let raw = dir.fd.as_raw_fd();
        let mut result = Ok(());
        self.buf
            .read_all(raw, |name, d_type, ino| {
                let mut file_type = FileType::from_d_type(d_type);
                let mut stat = None;
                let mut followed = false;
                if file_type == FileType::Unknown || (c.follow_links && file_type.is_symlink()) {
                    let follow = c.follow_links;
                    match fstatat(raw, name, follow) {
                        Ok(st) => {
                            followed = follow && file_type != FileType::Unknown;
                            file_type = FileType::from_mode(st.st_mode);
                            stat = Some(Box::new(st));
                        }
                        Err(e) => {
                            if follow {
                                // A dangling link: report it with its own type.
                                if let Ok(st) = fstatat(raw, name, false) {
                                    file_type = FileType::from_mode(st.st_mode);
                                    // A dangling link is an entry of its own; a
                                    // link loop (ELOOP) is an error, as in grep and find.
                                    let dangling = e.raw_os_error() == Some(libc::ENOENT);
                                    if file_type.is_symlink() && dangling {
                                        out.push(Child {
                                            name: name.to_owned(),
                                            file_type,
                                            stat: Some(Box::new(st)),
                                            followed: false,
                                            link_error: e.raw_os_error(),
                                            ino,
                                        });
                                        return;
                                    }
                                }
                            }
                            join_path(&mut self.path, &dir.path, name.to_bytes());
                            let err =
                                WalkError { path: self.path.clone(), kind: WalkErrorKind::Io(e) };
                            if v.error(err) == WalkState::Quit {
                                result = Err(());
                            }
                            return;
                        }
                    }
                }
                out.push(Child {
                    name: name.to_owned(),
                    file_type,
                    stat,
                    followed,
                    link_error: None,
                    ino,
                });
            })
            .unwrap_or_else(|e| {
                if v.error(WalkError { path: dir.path.clone(), kind: WalkErrorKind::Io(e) })
                    == WalkState::Quit
                {
                    result = Err(());
                }
            });
        if let Some(ig) = &dir.ignore {
            out.retain(|ch| {
                join_path(&mut self.path, &dir.path, ch.name.to_bytes());
                !ig.is_ignored(&self.path, ch.name.to_bytes(), ch.file_type.is_dir())
            });
        }
        if result.is_err() {
            WalkState::Quit
        } else {
            WalkState::Continue
        }
    }

    /// Visits one child of `dir`; returns the task for it if it is a directory
    /// to descend into.
    pub(crate) fn visit_child<V: Visitor>(
        &mut self,
        dir: &Arc<OpenDir>,
        child: &Child,
        v: &mut V,
    ) -> (WalkState, Option<DirTask>) {
        join_path(&mut self.path, &dir.path, child.name.to_bytes());
        if let (true, Some(up)) = (child.file_type.is_dir(), &dir.ancestors) {
            // Back to an ancestor: report the loop instead of the entry (as
            // GNU find -L does; grep -R only warns). A real subdirectory is on
            // its parent's device, so its d_ino says enough.
            let (dev, ino) = match &child.stat {
                Some(st) => (st.st_dev, st.st_ino),
                None => (up.dev, child.ino),
            };
            if up.contains(dev, ino) {
                let err = WalkError { path: self.path.clone(), kind: WalkErrorKind::Loop };
                return (v.error(err), None);
            }
        }
        let entry = Entry {
            parent: Some(dir.fd.as_fd()),
            name: &child.name,
            path: &self.path,
            depth: dir.depth + 1,
            file_type: child.file_type,
            followed: child.followed,
            stat: child.stat.as_deref(),
            link_error: child.link_error,
            short_read_is_end: dir.short_read_is_end,
        };
        let state = v.visit(&entry);
        if child.file_type.is_dir() {
            if state == WalkState::Continue
                && self.config.max_depth.is_none_or(|m| dir.depth + 1 < m)
            {
                let task = DirTask {
                    parent: Some(dir.clone()),
                    name: child.name.clone(),
                    path: self.path.clone(),
                    depth: dir.depth + 1,
                    followed: child.followed,
                    stat: child.stat.as_deref().copied(),
                };
                return (state, Some(task));
            }
            if self.config.post_order && state != WalkState::Quit {
                // Not descended into: its contents are done already.
                return (v.visit_dir_end(&entry), None);
            }
        }
        (state, None)
    }

    /// Visits a root; returns the task to read it if it is a directory.
    pub(crate) fn visit_root<V: Visitor>(
        &mut self,
        root: &Root,
        v: &mut V,
    ) -> (WalkState, Option<DirTask>) {
        // Roots follow symlinks (grep -r, find -H and -L), unless told not to (find -P).
        let mut follow = self.config.follow_roots;
        let st = match fstatat(libc::AT_FDCWD, &root.open, follow) {
            Ok(st) => st,
            // A dangling link named as a root is that link (find -H/-L); opening
            // it still fails for grep, which reports that.
            Err(e) if follow && e.raw_os_error() == Some(libc::ENOENT) => {
                match fstatat(libc::AT_FDCWD, &root.open, false) {
                    Ok(st) if FileType::from_mode(st.st_mode).is_symlink() => {
                        follow = false;
                        st
                    }
                    _ => {
                        let path = root.open.to_bytes().to_vec();
                        return (v.error(WalkError { path, kind: WalkErrorKind::Io(e) }), None);
                    }
                }
            }
            Err(e) => {
                let path = root.open.to_bytes().to_vec();
                return (v.error(WalkError { path, kind: WalkErrorKind::Io(e) }), None);
            }
        };
        let file_type = FileType::from_mode(st.st_mode);
        let display: &[u8] = if root.display.is_empty() { b"." } else { &root.display };
        let entry = Entry {
            parent: None,
            name: &root.open,
            path: display,
            depth: 0,
            file_type,
            followed: follow,
            stat: Some(&st),
            link_error: None,
            short_read_is_end: false,
        };
        let state = v.visit(&entry);
        if file_type.is_dir() {
            if state == WalkState::Continue && self.config.max_depth != Some(0) {
                let task = DirTask {
                    parent: None,
                    name: root.open.clone(),
                    path: root.display.clone(),
                    depth: 0,
                    followed: true,
                    stat: Some(st),
                };
                return (state, Some(task));
            }
            if self.config.post_order && state != WalkState::Quit {
                return (v.visit_dir_end(&entry), None);
            }
        }
        (state, None)
    }
}

use std::os::fd::AsFd;
