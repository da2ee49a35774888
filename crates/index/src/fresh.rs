//! Is the index still true? Every indexed directory's stamps and every
//! indexed file's stat key are checked against the tree, in parallel: a
//! directory whose stamps changed has gained or lost entries (read it
//! again), a file whose key changed has other bytes (search it directly).
//! This is the check a search makes before it trusts the index.

use std::ffi::CStr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::segment::{Dir, EntryType, Stamp, StatKey};

/// What changed since the index was built.
#[derive(Debug, Default, Eq, PartialEq)]
pub struct Changes {
    /// Directories (by their number in the index) whose stamps differ or
    /// that are gone: their entries must be read again.
    pub dirs: Vec<usize>,
    /// Files (by entry number) whose stat key differs or that are gone.
    pub files: Vec<u32>,
}

impl Changes {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.files.is_empty()
    }
}

/// `fstatat` without following links; None when it fails.
fn stat_at(dirfd: libc::c_int, name: &CStr) -> Option<libc::stat> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `name` is NUL-terminated, `st` is written by the call before
    // it is read, and only when it succeeds.
    let rc =
        unsafe { libc::fstatat(dirfd, name.as_ptr(), st.as_mut_ptr(), libc::AT_SYMLINK_NOFOLLOW) };
    // SAFETY: fstatat returned 0, so it filled `st`.
    (rc == 0).then(|| unsafe { st.assume_init() })
}

/// Checks the directories of an index of `root` on `threads` threads;
/// what is stamped at or after
/// `racy_after` counts as changed (see segment::RACY_MARGIN_NS).
pub fn check(root: &Path, dirs: &[Dir], racy_after: i64, threads: usize) -> Changes {
    let all: Vec<usize> = (0..dirs.len()).collect();
    check_some(root, dirs, &all, racy_after, threads)
}

/// Checks the directories numbered `wanted` (and their files) only.
pub fn check_some(
    root: &Path,
    dirs: &[Dir],
    wanted: &[usize],
    racy_after: i64,
    threads: usize,
) -> Changes {
    in_parallel(root, wanted, threads, |root_fd, i, out, scratch| {
        check_dir(root_fd, &dirs[i], i, racy_after, out, scratch)
    })
}

/// Checks the stamps of the directories numbered `wanted` only (nothing
/// opened): enough for a search that looks at names and types, which only
/// a directory's change can change.
pub fn check_dirs(
    root: &Path,
    dirs: &[Dir],
    wanted: &[usize],
    racy_after: i64,
    threads: usize,
) -> Changes {
    in_parallel(root, wanted, threads, |root_fd, i, out, scratch| {
        let dir = &dirs[i];
        let same = c_rel(scratch, &dir.path)
            .and_then(|p| stat_at(root_fd, p))
            .is_some_and(|st| Stamp::from_stat(&st) == dir.stamp);
        if !same || dir.stamp.is_racy(racy_after) {
            out.dirs.push(i);
        }
    })
}

/// Runs `check` on each directory numbered in `wanted`, on up to
/// `threads` threads taking them in chunks (few atomic operations), each
/// thread with its own changes and scratch buffer; returns the changes,
/// sorted. `check` gets the root's descriptor: paths are looked up
/// relative to it, each walking the directory's own components only (-1
/// when the root cannot be opened: every lookup fails, and everything
/// counts as changed).
fn in_parallel(
    root: &Path,
    wanted: &[usize],
    threads: usize,
    check: impl Fn(libc::c_int, usize, &mut Changes, &mut Vec<u8>) + Sync,
) -> Changes {
    const CHUNK: usize = 32;
    let root_dir = std::fs::File::open(root).ok();
    let root_fd = root_dir.as_ref().map_or(-1, std::os::fd::AsRawFd::as_raw_fd);
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Changes::default());
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, wanted.len().div_ceil(CHUNK).max(1)) {
            s.spawn(|| {
                let (mut local, mut scratch) = (Changes::default(), Vec::new());
                loop {
                    let start = next.fetch_add(CHUNK, Ordering::Relaxed);
                    if start >= wanted.len() {
                        break;
                    }
                    for &i in &wanted[start..(start + CHUNK).min(wanted.len())] {
                        check(root_fd, i, &mut local, &mut scratch);
                    }
                }
                let mut all = found.lock().unwrap_or_else(|p| p.into_inner());
                all.dirs.extend(local.dirs);
                all.files.extend(local.files);
            });
        }
    });
    let mut changes = found.into_inner().unwrap_or_else(|p| p.into_inner());
    changes.dirs.sort_unstable();
    changes.files.sort_unstable();
    changes
}

/// `rel` (a path below the root, "" for the root itself, or a name) as a
/// C string in `buf`; None when it holds a NUL.
fn c_rel<'b>(buf: &'b mut Vec<u8>, rel: &[u8]) -> Option<&'b CStr> {
    buf.clear();
    buf.extend_from_slice(if rel.is_empty() { b"." } else { rel });
    buf.push(0);
    CStr::from_bytes_with_nul(buf).ok()
}

fn check_dir(
    root_fd: libc::c_int,
    dir: &Dir,
    number: usize,
    racy_after: i64,
    out: &mut Changes,
    scratch: &mut Vec<u8>,
) {
    let first = dir.first_id;
    // O_PATH: the descriptor only names the directory for the lookups
    // and its own fstat (nothing is read through it).
    let fd = c_rel(scratch, &dir.path).map_or(-1, |p| {
        // SAFETY: `p` is NUL-terminated; a valid or -1 `root_fd` (then
        // the call fails); the descriptor is closed below.
        unsafe {
            libc::openat(
                root_fd,
                p.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        }
    });
    if fd < 0 {
        out.dirs.push(number);
        out.files.extend(
            dir.entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.kind == EntryType::File)
                .map(|(i, _)| first + i as u32),
        );
        return;
    }
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: `fd` is open; `st` is read only when fstat succeeds.
    let same = if unsafe { libc::fstat(fd, st.as_mut_ptr()) } == 0 {
        // SAFETY: fstat returned 0, so it filled `st`.
        Stamp::from_stat(&unsafe { st.assume_init() }) == dir.stamp
    } else {
        false
    };
    if !same || dir.stamp.is_racy(racy_after) {
        out.dirs.push(number);
    }
    for (i, e) in dir.entries.iter().enumerate() {
        if e.kind != EntryType::File {
            continue;
        }
        let key =
            c_rel(scratch, &e.name).and_then(|n| stat_at(fd, n)).map(|st| StatKey::from_stat(&st));
        if key != Some(e.key) || e.key.is_racy(racy_after) {
            out.files.push(first + i as u32);
        }
    }
    // SAFETY: `fd` was opened above and is closed once.
    unsafe { libc::close(fd) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{build, Progress};
    use std::fs;
    use std::os::unix::ffi::OsStrExt;

    fn tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (p, t) in [("a.txt", "alpha\n"), ("d/b.txt", "beta\n"), ("d/e/c.txt", "gamma\n")] {
            let path = root.path().join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, t).unwrap();
        }
        root
    }

    /// The paths `check` finds changed after `change`.
    fn changed_after(change: impl FnOnce(&Path)) -> (Vec<String>, Vec<String>) {
        let root = tree();
        let spill = tempfile::tempdir().unwrap();
        let dirs =
            build(root.path(), spill.path(), 2, &Progress::default(), None).unwrap().segment.dirs;
        assert!(check(root.path(), &dirs, i64::MAX, 2).is_empty(), "fresh right after the build");
        // Time stamps must be able to differ.
        std::thread::sleep(std::time::Duration::from_millis(20));
        change(root.path());
        let changes = check(root.path(), &dirs, i64::MAX, 2);
        let names: Vec<String> = dirs
            .iter()
            .flat_map(|d| {
                d.entries.iter().map(move |e| {
                    let p = Path::new(std::ffi::OsStr::from_bytes(&d.path))
                        .join(std::ffi::OsStr::from_bytes(&e.name));
                    p.to_string_lossy().into_owned()
                })
            })
            .collect();
        let files = changes.files.iter().map(|&i| names[i as usize].clone()).collect();
        let dirs = changes
            .dirs
            .iter()
            .map(|&i| String::from_utf8_lossy(&dirs[i].path).into_owned())
            .collect();
        (dirs, files)
    }

    #[test]
    fn what_is_stamped_after_the_build_began_counts_as_changed() {
        let root = tree();
        let spill = tempfile::tempdir().unwrap();
        let built =
            build(root.path(), spill.path(), 2, &Progress::default(), None).unwrap().segment;
        let racy_after = built.numbers.started_ns - crate::segment::RACY_MARGIN_NS;
        // Made just before the build: all of it may have changed unseen.
        let changes = check(root.path(), &built.dirs, racy_after, 2);
        assert_eq!((changes.dirs.len(), changes.files.len()), (3, 3), "{changes:?}");
        // With nothing racy (stamped long before the build): trusted.
        assert!(check(root.path(), &built.dirs, i64::MAX, 2).files.is_empty());
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        let f = fs::File::options().write(true).open(root.path().join("a.txt")).unwrap();
        f.set_modified(old).unwrap();
        // ctime still says now.
        let changes = check(root.path(), &built.dirs, racy_after, 2);
        assert!(changes.files.len() == 3, "{changes:?}");
    }

    #[test]
    fn every_kind_of_change_is_seen() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let append = |r: &Path| {
            use std::io::Write;
            fs::OpenOptions::new()
                .append(true)
                .open(r.join("d/b.txt"))
                .unwrap()
                .write_all(b"more\n")
                .unwrap()
        };
        assert_eq!(changed_after(append), (s(&[]), s(&["d/b.txt"])));
        // The same size, the old mtime restored: ctime still tells.
        let same_size = |r: &Path| {
            let p = r.join("d/b.txt");
            let old = fs::metadata(&p).unwrap().modified().unwrap();
            fs::write(&p, "BETA\n").unwrap();
            fs::File::options().write(true).open(&p).unwrap().set_modified(old).unwrap();
        };
        assert_eq!(changed_after(same_size), (s(&[]), s(&["d/b.txt"])));
        assert_eq!(
            changed_after(|r| fs::write(r.join("d/new.txt"), "x").unwrap()),
            (s(&["d"]), s(&[]))
        );
        assert_eq!(
            changed_after(|r| fs::create_dir(r.join("d/e/f")).unwrap()),
            (s(&["d/e"]), s(&[]))
        );
        assert_eq!(
            changed_after(|r| fs::remove_file(r.join("a.txt")).unwrap()),
            (s(&[""]), s(&["a.txt"]))
        );
        let rename = |r: &Path| fs::rename(r.join("a.txt"), r.join("d/e/c.txt")).unwrap();
        assert_eq!(changed_after(rename), (s(&["", "d/e"]), s(&["a.txt", "d/e/c.txt"])));
        let symlink = |r: &Path| {
            fs::remove_file(r.join("d/b.txt")).unwrap();
            std::os::unix::fs::symlink("../a.txt", r.join("d/b.txt")).unwrap();
        };
        assert_eq!(changed_after(symlink), (s(&["d"]), s(&["d/b.txt"])));
        let chmod = |r: &Path| {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(r.join("d/e/c.txt"), fs::Permissions::from_mode(0o000)).unwrap()
        };
        assert_eq!(changed_after(chmod), (s(&[]), s(&["d/e/c.txt"])));
        assert_eq!(
            changed_after(|r| fs::remove_dir_all(r.join("d/e")).unwrap()),
            (s(&["d", "d/e"]), s(&["d/e/c.txt"]))
        );
    }
}
