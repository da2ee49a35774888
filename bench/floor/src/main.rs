//! The floors of the benchmark suite: the least work a search or a find over
//! the same files must do, so results can be read as ratios to it.
//!
//! ```text
//! floor read LISTFILE [-j N]   open, read (256 KiB at a time, into a buffer on a
//!                              cache line) and close every file
//!                              named in LISTFILE (NUL-separated, as `find DIR -type f
//!                              -print0` writes it): the paths are known, nothing walks
//! floor walk DIR [-j N]        list every directory under DIR with std::fs::read_dir
//!                              (types from the directory entry, no stat): nothing is read
//! floor stat LISTFILE [-j N]   lstat every file named in LISTFILE: what a search that
//!                              trusts an index but is never stale must do at least
//! floor count FILE [-j N]      map FILE and count its newlines with memchr, the mapping
//!                              cut in N equal parts, one per thread: what a search of
//!                              one big file that numbers its lines must do at least
//! ```
//!
//! Each prints one summary line (files and bytes, entries, or newlines) on standard output.
//! Without `-j`, one thread per CPU, counted as trawl counts them (`trawl_diag::cpus`).
//! They are baselines, not products: plain std, a shared index or a shared queue.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Size of each thread's read buffer (the same as trawl's smallest read).
const READ_SIZE: usize = 256 * 1024;

/// The boundary the read buffer starts on.
const LINE: usize = 64;

const USAGE: &str = "usage: floor read LISTFILE [-j N] | floor walk DIR [-j N] | \
     floor stat LISTFILE [-j N] | floor count FILE [-j N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, target, threads) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(msg) => {
            eprintln!("floor: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match cmd.as_str() {
        "read" => read_list(Path::new(&target), threads),
        "stat" => stat_list(Path::new(&target), threads),
        "count" => count_newlines(Path::new(&target), threads),
        _ => walk_tree(Path::new(&target), threads),
    };
    match result {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("floor: {target}: {e}");
            ExitCode::from(2)
        }
    }
}

/// Returns (subcommand, its path argument, threads).
fn parse_args(args: &[String]) -> Result<(String, String, usize), String> {
    let mut threads = trawl_diag::cpus();
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-j" {
            let n = it.next().ok_or("-j needs a number")?;
            threads = n.parse().map_err(|_| format!("bad thread count {n:?}"))?;
        } else if let Some(n) = a.strip_prefix("-j") {
            threads = n.parse().map_err(|_| format!("bad thread count {n:?}"))?;
        } else {
            rest.push(a.clone());
        }
    }
    match rest.as_slice() {
        [cmd, target] if ["read", "walk", "stat", "count"].contains(&cmd.as_str()) => {
            Ok((cmd.clone(), target.clone(), threads.max(1)))
        }
        _ => Err("expected a subcommand and one path".into()),
    }
}

/// Reads every file named in the NUL-separated `list`, `threads` at a time.
/// Files that cannot be opened or read are counted, not fatal.
fn read_list(list: &Path, threads: usize) -> io::Result<String> {
    let names = fs::read(list)?;
    let paths: Vec<&Path> = names
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| Path::new(OsStr::from_bytes(p)))
        .collect();
    let next = AtomicUsize::new(0);
    let bytes = AtomicU64::new(0);
    let failed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // On a cache line, as trawl's (its allocator, alloc.rs): the
                // kernel's copy into a buffer 16 bytes off one, where glibc
                // puts a block this large, is about 5% slower.
                let mut space = vec![0u8; READ_SIZE + LINE];
                let start = space.as_ptr().align_offset(LINE).min(LINE);
                let buf = &mut space[start..start + READ_SIZE];
                let mut total = 0u64;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = paths.get(i) else { break };
                    match read_whole(path, buf) {
                        Ok(n) => total += n,
                        Err(_) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                bytes.fetch_add(total, Ordering::Relaxed);
            });
        }
    });
    Ok(format!(
        "read {} files, {} bytes, {} failed, {threads} threads",
        paths.len(),
        bytes.into_inner(),
        failed.into_inner()
    ))
}

/// lstats every file named in the NUL-separated `list`, `threads` at a time.
fn stat_list(list: &Path, threads: usize) -> io::Result<String> {
    let names = fs::read(list)?;
    let paths: Vec<&Path> = names
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| Path::new(OsStr::from_bytes(p)))
        .collect();
    let next = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(64, Ordering::Relaxed);
                if i >= paths.len() {
                    break;
                }
                for path in &paths[i..(i + 64).min(paths.len())] {
                    if fs::symlink_metadata(path).is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    Ok(format!("stat {} files, {} failed, {threads} threads", paths.len(), failed.into_inner()))
}

/// Maps `path` and counts its newlines with memchr, `threads` equal parts
/// of the mapping counted at once.
fn count_newlines(path: &Path, threads: usize) -> io::Result<String> {
    let file = File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(io::Error::other)?;
    if len == 0 {
        return Ok(format!("counted 0 newlines in 0 bytes, {threads} threads"));
    }
    // SAFETY: a read-only private mapping of an open file, `len` bytes (its
    // size); nothing else in this process writes to it, and it is unmapped
    // below after the threads that read it have ended.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            std::os::fd::AsRawFd::as_raw_fd(&file),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `addr` is a live mapping of `len` readable bytes (above).
    let bytes = unsafe { std::slice::from_raw_parts(addr.cast::<u8>(), len) };
    let part = len.div_ceil(threads);
    let newlines = AtomicU64::new(0);
    std::thread::scope(|s| {
        for chunk in bytes.chunks(part) {
            let newlines = &newlines;
            s.spawn(move || {
                let n = memchr::memchr_iter(b'\n', chunk).count();
                newlines.fetch_add(n as u64, Ordering::Relaxed);
            });
        }
    });
    // SAFETY: the mapping made above, no longer borrowed (the threads ended).
    unsafe { libc::munmap(addr, len) };
    Ok(format!("counted {} newlines in {len} bytes, {threads} threads", newlines.into_inner()))
}

/// Opens `path`, reads it to the end through `buf`, closes it; returns its size.
fn read_whole(path: &Path, buf: &mut [u8]) -> io::Result<u64> {
    let mut file = File::open(path)?;
    let mut total = 0u64;
    loop {
        match file.read(buf) {
            Ok(0) => return Ok(total),
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Directories waiting to be listed, and how many are queued or being listed.
struct Queue {
    dirs: Vec<PathBuf>,
    pending: usize,
}

/// Lists every directory under `root` on `threads` threads sharing one queue;
/// counts the entries (the root included). Unreadable directories are counted.
fn walk_tree(root: &Path, threads: usize) -> io::Result<String> {
    fs::symlink_metadata(root)?;
    let queue = Mutex::new(Queue { dirs: vec![root.to_path_buf()], pending: 1 });
    let ready = Condvar::new();
    let entries = AtomicU64::new(1);
    let failed = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut count = 0u64;
                let mut found = Vec::new();
                loop {
                    let dir = {
                        let mut q = queue.lock().unwrap();
                        loop {
                            if let Some(d) = q.dirs.pop() {
                                break Some(d);
                            }
                            if q.pending == 0 {
                                break None;
                            }
                            q = ready.wait(q).unwrap();
                        }
                    };
                    let Some(dir) = dir else { break };
                    match fs::read_dir(&dir) {
                        Ok(rd) => {
                            for e in rd.flatten() {
                                count += 1;
                                if e.file_type().is_ok_and(|t| t.is_dir()) {
                                    found.push(e.path());
                                }
                            }
                        }
                        Err(_) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    let mut q = queue.lock().unwrap();
                    q.pending += found.len();
                    q.pending -= 1;
                    q.dirs.append(&mut found);
                    if q.pending == 0 || !q.dirs.is_empty() {
                        ready.notify_all();
                    }
                }
                entries.fetch_add(count, Ordering::Relaxed);
            });
        }
    });
    Ok(format!(
        "walked {} entries, {} unreadable directories, {threads} threads",
        entries.into_inner(),
        failed.into_inner()
    ))
}
