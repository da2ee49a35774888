//! What a visitor is shown: an [`Entry`] of the walk (its name, path, type,
//! and the `*at` calls made relative to its directory), and a [`DirRead`],
//! a directory just read, with all its entries.

use std::ffi::CStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, RawFd};

use crate::dirent::{self, FileType};
use crate::fds;
use crate::open_dir::{Child, OpenDir};
use crate::sys::{cvt, fstatat};

/// An entry of the walk, valid during the [`Visitor::visit`](crate::Visitor::visit) call.
pub struct Entry<'a> {
    /// The directory holding the entry, pinned while the entry is visited.
    pub(crate) parent: Option<&'a OpenDir>,
    pub(crate) name: &'a CStr,
    pub(crate) path: &'a [u8],
    pub(crate) depth: usize,
    pub(crate) file_type: FileType,
    pub(crate) followed: bool,
    pub(crate) stat: Option<&'a libc::stat>,
    pub(crate) link_error: Option<i32>,
    pub(crate) short_read_is_end: bool,
}

impl<'a> Entry<'a> {
    /// Whether a read of this (regular) file that returns less than asked
    /// means the end of the file, so the read that would return 0 can be
    /// skipped: known for entries of a directory on a local disk or memory
    /// file system when the walk asks ([`WalkBuilder::file_systems`](crate::WalkBuilder::file_systems));
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

/// A directory the walk has just read, before any of its entries is
/// visited (see [`Visitor::dir_read`](crate::Visitor::dir_read)).
pub struct DirRead<'a> {
    pub(crate) path: &'a [u8],
    pub(crate) depth: usize,
    pub(crate) stat: Option<&'a libc::stat>,
    pub(crate) children: &'a [Child],
}

impl DirRead<'_> {
    /// Its path as printed, which its entries' paths continue ("" for
    /// an implicit `.`, whose entries are printed as bare names).
    pub fn path(&self) -> &[u8] {
        self.path
    }

    /// 0 for a root, 1 for its subdirectories, and so on.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Its metadata as it was before it was read (fstat of the open
    /// directory, so a change made while it was read shows in its stamps
    /// later), when the walk reads it: it stays on one file system
    /// ([`WalkBuilder::same_file_system`](crate::WalkBuilder::same_file_system)) or follows links.
    pub fn metadata(&self) -> Option<&libc::stat> {
        self.stat
    }

    /// Its entries, in the order read: name and type (as they will be
    /// visited; an entry whose type could not be told is not among them:
    /// its error was reported).
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (&[u8], FileType)> + '_ {
        self.children.iter().map(|c| (c.name.to_bytes(), c.file_type))
    }
}
