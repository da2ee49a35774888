//! A directory of the walk as its threads share it: [`OpenDir`] (its
//! descriptor, opened again by path when it was closed to make room, and
//! what its children need to know about it), the [`DirTask`] that reads
//! one, and the [`Child`]ren read from it.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use crate::dirent::FileType;
use crate::fds::{self, DirFd};
use crate::ignore_files::IgnoreStack;
use crate::name::Name;
use crate::roots::Descent;

/// Where a walk started: the path a directory is opened again by is this
/// root's path, then the directory's own path after `display_len` bytes
/// (its path is printed under the root's display name).
pub(crate) struct Origin {
    pub(crate) open: CString,
    pub(crate) display_len: usize,
}

/// Opens a directory by path, without blocking on a terminal.
pub(crate) fn open_dir_path(path: &CStr) -> io::Result<OwnedFd> {
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC | libc::O_NOCTTY;
    fds::open_at(libc::AT_FDCWD, path, flags)
}

/// A directory of the walk and what its children need to know about it.
pub(crate) struct OpenDir {
    /// Its descriptor: open, closed to make room (see [`crate::fds`]), or
    /// not opened yet (a listed directory whose entries the caller knows:
    /// a `trawl find -name` served by an index never opens it).
    pub(crate) fd: DirFd,
    pub(crate) origin: Arc<Origin>,
    pub(crate) path: Vec<u8>,
    pub(crate) depth: usize,
    /// The (dev, ino) of this directory and its ancestors, when links are
    /// followed (for loop detection).
    pub(crate) ancestors: Option<Arc<Ancestor>>,
    /// The device of the root, when staying on one file system.
    pub(crate) root_dev: Option<u64>,
    pub(crate) ignore: Option<Arc<IgnoreStack>>,
    /// Work items of this directory not finished yet, itself included
    /// (post-order walks only).
    pub(crate) outstanding: AtomicUsize,
    /// What the directory's own entry needs for its post-order visit.
    pub(crate) post: Option<PostInfo>,
    /// A short read of a regular file here means its end (see
    /// [`reads_to_the_end`](crate::sys::reads_to_the_end)).
    pub(crate) short_read_is_end: bool,
    /// Its metadata, read (fstat) after it was opened and before it was
    /// read, when the walk reads it (links followed, one file system).
    pub(crate) stat: Option<Box<libc::stat>>,
}

impl OpenDir {
    /// The descriptor, while the directory is pinned ([`DirFd::pin`]):
    /// opened again if it was closed.
    pub(crate) fn raw_fd(&self) -> io::Result<RawFd> {
        self.fd.get(|| self.reopen())
    }

    /// The descriptor as borrowed while pinned.
    pub(crate) fn borrowed_fd(&self) -> io::Result<BorrowedFd<'_>> {
        // SAFETY: the descriptor stays open while the directory is pinned,
        // which its users do for as long as they use it.
        self.raw_fd().map(|fd| unsafe { BorrowedFd::borrow_raw(fd) })
    }

    /// Opens the directory again by its path: in one call when the path is
    /// short enough, else one component at a time from the root.
    fn reopen(&self) -> io::Result<OwnedFd> {
        let rel = self.path.get(self.origin.display_len..).unwrap_or_default();
        let rel = &rel[rel.iter().take_while(|&&b| b == b'/').count()..];
        let root = self.origin.open.as_bytes();
        let mut full = root.to_vec();
        if !rel.is_empty() {
            if !full.ends_with(b"/") {
                full.push(b'/');
            }
            full.extend_from_slice(rel);
        }
        if full.len() < libc::PATH_MAX as usize {
            let full =
                CString::new(full).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            return open_dir_path(&full);
        }
        let mut cur = open_dir_path(&self.origin.open)?;
        for name in rel.split(|&b| b == b'/').filter(|n| !n.is_empty()) {
            let name =
                CString::new(name).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
            cur = fds::open_at(cur.as_raw_fd(), &name, flags)?;
        }
        Ok(cur)
    }
}

/// A directory's own entry, kept for its visit after its contents.
pub(crate) struct PostInfo {
    pub(crate) parent: Option<Arc<OpenDir>>,
    pub(crate) name: CString,
    pub(crate) stat: Option<libc::stat>,
    pub(crate) followed: bool,
}

/// A directory above one being read, when links are followed: a chain
/// of them is what a loop is detected against.
pub(crate) struct Ancestor {
    pub(crate) dev: u64,
    pub(crate) ino: u64,
    /// Its path (for the message of a loop back to it).
    pub(crate) path: Vec<u8>,
    pub(crate) parent: Option<Arc<Ancestor>>,
}

impl Ancestor {
    /// The path of the ancestor that is (dev, ino), if one is.
    pub(crate) fn find(&self, dev: u64, ino: u64) -> Option<&[u8]> {
        let mut cur = Some(self);
        while let Some(a) = cur {
            if a.dev == dev && a.ino == ino {
                return Some(&a.path);
            }
            cur = a.parent.as_deref();
        }
        None
    }
}

/// A directory to read: a root, or a child of an open directory.
pub(crate) struct DirTask {
    pub(crate) parent: Option<Arc<OpenDir>>,
    pub(crate) name: CString,
    pub(crate) path: Vec<u8>,
    pub(crate) depth: usize,
    /// Opened through a followed symlink (do not use O_NOFOLLOW).
    pub(crate) followed: bool,
    pub(crate) stat: Option<libc::stat>,
}

/// A child of a directory, as read.
pub(crate) struct Child {
    pub(crate) name: Name,
    pub(crate) file_type: FileType,
    /// Boxed: it is rarely read during a walk, and children are moved
    /// around (sorted, batched) in large numbers.
    pub(crate) stat: Option<Box<libc::stat>>,
    pub(crate) followed: bool,
    /// errno of following a symlink that could not be followed.
    pub(crate) link_error: Option<i32>,
    /// The inode number from the directory entry.
    pub(crate) ino: u64,
    /// For a directory: whether the walk reads it.
    pub(crate) descent: Descent,
}
