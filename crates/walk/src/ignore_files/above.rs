//! The ignore rules that apply to a walk's root from outside it, as git
//! applies them to a subdirectory of a repository: the `.gitignore` and
//! `.ignore` files of the directories from the repository's top down to
//! the root's parent, the repository's `.git/info/exclude`, then the
//! global excludes file (`core.excludesFile`, by default
//! `$XDG_CONFIG_HOME/git/ignore`). Outside a repository, none of these
//! (as git and rg).

use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ignore::gitignore::Gitignore;

use super::{build, read_at, Anchor, IgnoreStack, IGNORE_FILES};
use crate::fds;

/// The rules above the root printed as `root` (empty: "."), lowest
/// precedence last; None when there are none.
pub(crate) fn rules_above(root: &[u8]) -> Option<Arc<IgnoreStack>> {
    let shown =
        if root.is_empty() { Path::new(".") } else { Path::new(std::ffi::OsStr::from_bytes(root)) };
    // The physical path, as git sees the tree (`..` and links resolved).
    let root_abs = std::fs::canonicalize(shown).ok()?;
    let mut rules = Vec::new();
    let top = repository_top(&root_abs);
    if let Some(top) = &top {
        // Nearest parent first: a deeper file overrides a higher one.
        let parents: Vec<&Path> =
            root_abs.ancestors().skip(1).take_while(|d| d.starts_with(top)).collect();
        for dir in parents {
            for name in IGNORE_FILES {
                if let Some(gi) = read_dir_file(dir, name) {
                    rules.push(gi);
                }
            }
        }
        if let Some(gi) = rules_from(top, &top.join(".git/info/exclude")) {
            rules.push(gi);
        }
        if let Some(gi) =
            ignore::gitignore::gitconfig_excludes_path().and_then(|g| rules_from(top, &g))
        {
            rules.push(gi);
        }
    }
    IgnoreStack::outside(rules, Anchor::Above { root_abs, root_printed: root.to_vec() })
}

/// The nearest directory at or above `dir` holding `.git`.
fn repository_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").symlink_metadata().is_ok()).map(Path::to_path_buf)
}

/// The rules of the ignore file `name` in `dir`.
fn read_dir_file(dir: &Path, name: &CStr) -> Option<Gitignore> {
    let text = read_at(open_dir(dir)?.as_fd(), name).ok().flatten()?;
    build(dir, &text)
}

/// The rules of the file at `path`, rooted at `root`; a file that is not
/// regular is not read (a FIFO would block).
fn rules_from(root: &Path, path: &Path) -> Option<Gitignore> {
    let name = CString::new(path.file_name()?.as_bytes()).ok()?;
    let text = read_at(open_dir(path.parent()?)?.as_fd(), &name).ok().flatten()?;
    build(root, &text)
}

/// The directory at `path`, opened to read files relative to it (as the
/// walk opens its directories).
fn open_dir(path: &Path) -> Option<OwnedFd> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
    fds::open_at(libc::AT_FDCWD, &c, flags).ok()
}
