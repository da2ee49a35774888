//! The walk's error type: a [`WalkError`] names the path and what went
//! wrong there ([`WalkErrorKind`]), worded as grep and find word it.

use std::fmt;
use std::io;

/// An error met during the walk, with the path it concerns.
#[derive(Debug)]
pub struct WalkError {
    pub(crate) path: Vec<u8>,
    pub(crate) kind: WalkErrorKind,
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

    /// What went wrong, taken (to keep an I/O error, say).
    pub fn into_kind(self) -> WalkErrorKind {
        self.kind
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
