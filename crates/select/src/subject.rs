//! The entry under evaluation: its metadata read when a test first needs
//! it (as the symlink options say), and what a failure to read it means.

use std::io;

use trawl_walk::{Entry, FileType};

use crate::command::Follow;
use crate::expr::TimeField;
use crate::report::{show, Reporter};
use crate::users::Names;

/// The entry under evaluation, with lazily read metadata.
pub(crate) struct LazyEntry<'e, 'a> {
    /// The entry.
    pub(crate) e: &'e Entry<'a>,
    stat: Option<Result<libc::stat, i32>>,
    follow: Follow,
    ignore_readdir_race: bool,
    /// Its metadata could not be read: it is dropped (GNU find).
    pub(crate) abort: bool,
}

impl<'e, 'a> LazyEntry<'e, 'a> {
    /// `e`, as the command's `follow` and `-ignore_readdir_race` see it.
    pub(crate) fn new(e: &'e Entry<'a>, follow: Follow, ignore_readdir_race: bool) -> Self {
        LazyEntry { e, stat: None, follow, ignore_readdir_race, abort: false }
    }

    /// Whether the entry's metadata is its symlink's target's.
    fn follows(&self) -> bool {
        match self.follow {
            Follow::Always => true,
            Follow::Roots => self.e.is_root(),
            Follow::Never => false,
        }
    }

    /// The entry's metadata as the follow mode sees it (None: it could
    /// not be read, which is reported, and the entry is dropped).
    pub(crate) fn stat(&mut self, rep: &mut Reporter) -> Option<libc::stat> {
        if self.stat.is_none() {
            let r = match self.e.metadata() {
                Some(st) => Ok(*st),
                None => {
                    let follow = self.follows();
                    self.e.fetch_stat(follow).map_err(|e| e.raw_os_error().unwrap_or(0))
                }
            };
            if let Err(errno) = r {
                // Gone since its directory was read: passed over in
                // silence with -ignore_readdir_race.
                let vanished = errno == libc::ENOENT && !self.e.is_root();
                if !(vanished && self.ignore_readdir_race) {
                    let e = io::Error::from_raw_os_error(errno);
                    rep.report(format!(
                        "'{}': {}",
                        show(self.e.path()),
                        trawl_diag::io_message(&e)
                    ));
                }
                self.abort = true;
            }
            self.stat = Some(r);
        }
        self.stat.as_ref().and_then(|r| r.as_ref().ok()).copied()
    }

    /// The entry's birth time (None when its file system keeps none: GNU
    /// find warns and the test is false).
    pub(crate) fn birth_time(&mut self, rep: &mut Reporter) -> Option<(i64, i64)> {
        match self.e.birth_time(self.follows()) {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                crate::report::warn(format!(
                    "WARNING: cannot determine birth time of file '{}'",
                    show(self.e.path())
                ));
                None
            }
            Err(err) => {
                rep.report(format!("'{}': {}", show(self.e.path()), trawl_diag::io_message(&err)));
                self.abort = true;
                None
            }
        }
    }
}

/// What one thread needs beside the entry to render `-printf` or `-ls`: the names
/// of users and groups it looked up, and where failures are reported.
pub(crate) struct Lookups<'t> {
    /// User and group names.
    pub(crate) names: &'t mut Names,
    /// Failures (a stat, a security context).
    pub(crate) rep: &'t mut Reporter,
}

/// A time of `st` (birth time is not in a stat: its mtime stands for it,
/// where a caller has no statx).
pub(crate) fn time_of(st: &libc::stat, f: TimeField) -> (i64, i64) {
    match f {
        TimeField::Access => (st.st_atime, st.st_atime_nsec),
        TimeField::Change => (st.st_ctime, st.st_ctime_nsec),
        TimeField::Modify | TimeField::Birth => (st.st_mtime, st.st_mtime_nsec),
    }
}

/// The letter `-printf`'s `%y` gives a type.
pub(crate) fn type_letter(t: FileType) -> u8 {
    match t {
        FileType::File => b'f',
        FileType::Dir => b'd',
        FileType::Symlink => b'l',
        FileType::Fifo => b'p',
        FileType::Socket => b's',
        FileType::BlockDevice => b'b',
        FileType::CharDevice => b'c',
        FileType::Unknown => b'U',
    }
}
