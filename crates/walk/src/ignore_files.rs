//! `.gitignore` and `.ignore` files, read relative to each directory's fd;
//! those above the walk's root are found by `above`.

mod above;

pub(crate) use above::rules_above;

use std::ffi::{CStr, OsStr};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::fds;

/// The ignore rules in force in a directory: its own files, then its parent's.
pub(crate) struct IgnoreStack {
    parent: Option<Arc<IgnoreStack>>,
    /// Most specific first: `.ignore` overrides `.gitignore` in the same directory.
    rules: Vec<Gitignore>,
    /// How an entry's printed path reaches these rules' roots.
    anchor: Anchor,
}

/// Where the rules of a node are rooted.
pub(crate) enum Anchor {
    /// At a directory of the walk, named by its printed path.
    Printed,
    /// Above the walk's root (parent directories, the repository's
    /// `info/exclude`, the global excludes file): rooted at absolute paths,
    /// so an entry's path is made absolute from the root's.
    Above { root_abs: std::path::PathBuf, root_printed: Vec<u8> },
}

/// Names of the ignore files, highest precedence first.
const IGNORE_FILES: [&CStr; 2] = [c".ignore", c".gitignore"];

impl IgnoreStack {
    /// The rules for the directory open at `dir`, whose printed path is
    /// `path`; `unused` gets the names of ignore files there that are not
    /// used, and why.
    pub(crate) fn enter(
        parent: Option<Arc<IgnoreStack>>,
        dir: BorrowedFd<'_>,
        path: &[u8],
        unused: &mut Vec<(&'static [u8], Unusable)>,
    ) -> Arc<IgnoreStack> {
        let root =
            if path.is_empty() { Path::new(".") } else { Path::new(OsStr::from_bytes(path)) };
        let mut rules = Vec::new();
        for name in IGNORE_FILES {
            match read_at(dir, name) {
                Ok(Some(text)) => rules.extend(build(root, &text)),
                Ok(None) => {}
                Err(why) => unused.push((name.to_bytes(), why)),
            }
        }
        match parent {
            Some(p) if rules.is_empty() => p,
            parent => Arc::new(IgnoreStack { parent, rules, anchor: Anchor::Printed }),
        }
    }

    /// Rules from outside the walk, lowest precedence: built by `above`.
    pub(crate) fn outside(rules: Vec<Gitignore>, anchor: Anchor) -> Option<Arc<IgnoreStack>> {
        (!rules.is_empty()).then(|| Arc::new(IgnoreStack { parent: None, rules, anchor }))
    }

    /// Whether the entry at `path` (named `name`) is ignored.
    pub(crate) fn is_ignored(&self, path: &[u8], name: &[u8], is_dir: bool) -> bool {
        if is_dir && name == b".git" {
            return true;
        }
        let rel: &Path = if let Some(stripped) = path.strip_prefix(b"./") {
            Path::new(OsStr::from_bytes(stripped))
        } else {
            Path::new(OsStr::from_bytes(path))
        };
        let mut absolute = None;
        let mut cur = Some(self);
        while let Some(node) = cur {
            let rel = match &node.anchor {
                Anchor::Printed => rel,
                Anchor::Above { root_abs, root_printed } => absolute
                    .get_or_insert_with(|| {
                        let below = path.strip_prefix(root_printed.as_slice()).unwrap_or(path);
                        let below = below.strip_prefix(b"/").unwrap_or(below);
                        root_abs.join(OsStr::from_bytes(below))
                    })
                    .as_path(),
            };
            for gi in &node.rules {
                match gi.matched(rel, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            cur = node.parent.as_deref();
        }
        false
    }
}

/// Why an ignore file that is there is not used.
pub(crate) enum Unusable {
    /// Not a regular file: never opened for reading (a FIFO would block).
    NotRegular,
    /// It could not be opened or read: its rules are unknown, so what the
    /// walk then searches may include what they leave out.
    Unreadable(io::Error),
}

/// The contents of the ignore file `name` in `dir`; None when there is
/// none. Opened as the walk opens its entries ([`fds::open_at`]: where
/// descriptors run out, a directory is closed to make room rather than the
/// rules being lost).
pub(crate) fn read_at(dir: BorrowedFd<'_>, name: &CStr) -> Result<Option<Vec<u8>>, Unusable> {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    let flags = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let fd = match fds::open_at(dir.as_raw_fd(), name, flags) {
        Ok(fd) => fd,
        // None there (ENOENT), or a symbolic link, which is not followed
        // (ELOOP under O_NOFOLLOW), as before this function opened through
        // the walk's opener.
        Err(e) if matches!(e.raw_os_error(), Some(libc::ENOENT | libc::ENOTDIR | libc::ELOOP)) => {
            return Ok(None)
        }
        Err(e) => return Err(Unusable::Unreadable(e)),
    };
    let mut f = std::fs::File::from(fd);
    match f.metadata() {
        Ok(md) if md.is_file() => {}
        Ok(_) => return Err(Unusable::NotRegular),
        Err(e) => return Err(Unusable::Unreadable(e)),
    }
    let mut text = Vec::new();
    f.read_to_end(&mut text).map_err(Unusable::Unreadable)?;
    Ok(Some(text))
}

/// The rules of an ignore file's `text`, rooted at `root`; None when it
/// has none.
fn build(root: &Path, text: &[u8]) -> Option<Gitignore> {
    let mut b = GitignoreBuilder::new(root);
    for line in text.split(|&c| c == b'\n') {
        if let Ok(line) = std::str::from_utf8(line) {
            let _ = b.add_line(None, line.trim_end_matches('\r'));
        }
    }
    b.build().ok().filter(|gi| !gi.is_empty())
}
