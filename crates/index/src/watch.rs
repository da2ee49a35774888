//! `trawl index --watch`: a process that keeps, for one generation of an
//! index, what changed in the tree since (from inotify), so that a search
//! asks it instead of stat'ing every file.
//!
//! A search connects to the watcher's socket in the index's directory and
//! sends the generation it read. The watcher first reads every event
//! queued so far (the kernel queues an event before the write or rename
//! that caused it returns, so every change made before the search began is
//! among them), then answers with the changed directories and files — the
//! [`Changes`] a stat pass would have found — or "unsure" (the queue
//! overflowed, another generation, a directory it could not watch). A
//! search that gets no answer (no watcher, a timeout, unsure) makes the
//! stat pass as always.
//!
//! What inotify cannot see, the watcher cannot either: writes through a
//! shared mapping (mmap), a file changed through a hard link outside the
//! watched directories, changes made on another machine (NFS). That is why
//! watching is asked for, never the default.

use std::collections::{BTreeSet, HashMap};
use std::ffi::CString;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::Duration;

use crate::fresh::Changes;
use crate::segment::{Dir, EntryType};

/// The watcher's socket, in the index's directory.
pub const SOCKET: &str = "watch.sock";

const OK: u8 = 0;
const UNSURE: u8 = 1;

/// What a directory's watch reports.
const MASK: u32 = libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_DELETE_SELF
    | libc::IN_MOVE_SELF
    | libc::IN_ONLYDIR;

/// The events that change a directory's entries.
const ENTRIES_CHANGED: u32 =
    libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_MOVED_TO;

/// What changed since the generation was built, as the watcher knows it.
#[derive(Debug, Default)]
struct Journal {
    dirs: BTreeSet<usize>,
    files: BTreeSet<u32>,
    /// Events were lost (the queue overflowed): only a stat pass can tell.
    unsure: bool,
}

/// Why [`serve`] returned.
#[derive(Debug, Eq, PartialEq)]
pub enum Ended {
    /// `stop` said so.
    Stopped,
    /// The index has another generation now: serve that one.
    NewGeneration,
}

/// The inotify descriptor and what each watch is.
struct Inotify {
    fd: OwnedFd,
    /// Watch descriptor → the directories (by number) it watches (one
    /// directory reached by two paths shares a watch).
    by_wd: HashMap<i32, Vec<usize>>,
    /// Where events are read.
    buf: Vec<u8>,
}

impl Inotify {
    fn new() -> io::Result<Inotify> {
        // SAFETY: no pointers; the result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just returned by inotify_init1 and is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Inotify { fd, by_wd: HashMap::new(), buf: vec![0; 64 << 10] })
    }

    /// Watches the directory `path`, number `i`.
    fn watch(&mut self, path: &Path, i: usize) -> io::Result<()> {
        let c = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: `c` is NUL-terminated and the descriptor open.
        let wd = unsafe {
            libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK | libc::IN_DONT_FOLLOW)
        };
        if wd < 0 {
            return Err(io::Error::last_os_error());
        }
        self.by_wd.entry(wd).or_default().push(i);
        Ok(())
    }

    /// Reads every queued event into `journal`.
    fn drain(&mut self, dirs: &[Dir], journal: &mut Journal) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        let read = self.drain_into(&mut buf, dirs, journal);
        self.buf = buf;
        read
    }

    fn drain_into(&self, buf: &mut [u8], dirs: &[Dir], journal: &mut Journal) -> io::Result<()> {
        loop {
            // SAFETY: `buf` is writable for its length.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.kind() {
                    io::ErrorKind::WouldBlock => Ok(()),
                    io::ErrorKind::Interrupted => continue,
                    _ => Err(e),
                };
            }
            let mut at = 0;
            let n = n as usize;
            // struct inotify_event: wd i32, mask u32, cookie u32, len u32,
            // then `len` bytes of NUL-padded name.
            while at + 16 <= n {
                let word =
                    |k: usize| u32::from_ne_bytes(buf[at + k..at + k + 4].try_into().unwrap());
                let (wd, mask, len) = (word(0) as i32, word(4), word(12) as usize);
                let name = buf.get(at + 16..at + 16 + len).unwrap_or_default();
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                self.take(dirs, journal, wd, mask, name);
                at += 16 + len;
            }
        }
    }

    /// One event.
    fn take(&self, dirs: &[Dir], journal: &mut Journal, wd: i32, mask: u32, name: &[u8]) {
        if mask & libc::IN_Q_OVERFLOW != 0 {
            journal.unsure = true;
            return;
        }
        let Some(numbers) = self.by_wd.get(&wd) else { return };
        for &i in numbers {
            if name.is_empty() {
                // The directory itself: its stamps changed, it went, or
                // its watch did.
                journal.dirs.insert(i);
                continue;
            }
            if mask & ENTRIES_CHANGED != 0 {
                journal.dirs.insert(i);
            }
            let dir = &dirs[i];
            if let Some(j) = dir.entries.find(name) {
                if dir.entries.get(j).kind == EntryType::File {
                    journal.files.insert(dir.first_id + j as u32);
                }
            }
        }
    }
}

/// Watches the tree at `root` for the generation `generation` of the index
/// in `store_dir` (its directories `dirs`), answering searches on the
/// socket, until `stop` says so or the index gets another generation
/// (`generation_now`, asked once a second). `ready` is called once the
/// watches are in place and the socket listens.
pub fn serve(
    root: &Path,
    store_dir: &Path,
    (generation, dirs, racy_after): (u64, &[Dir], i64),
    threads: usize,
    generation_now: &dyn Fn() -> Option<u64>,
    stop: &dyn Fn() -> bool,
    ready: &mut dyn FnMut(usize),
) -> io::Result<Ended> {
    let mut inotify = Inotify::new()?;
    let mut journal = Journal::default();
    for (i, d) in dirs.iter().enumerate() {
        match inotify.watch(&root.join(std::ffi::OsStr::from_bytes(&d.path)), i) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "{e}: more directories ({}) than inotify may watch \
                         (/proc/sys/fs/inotify/max_user_watches)",
                        dirs.len()
                    ),
                ));
            }
            // Gone or unreadable since: changed.
            Err(_) => {
                journal.dirs.insert(i);
            }
        }
    }
    // What changed before the watches were in place (or while the index
    // was built): one stat pass.
    let seed = crate::fresh::check(root, dirs, racy_after, threads);
    journal.dirs.extend(seed.dirs);
    journal.files.extend(seed.files);
    let socket = store_dir.join(SOCKET);
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)?;
    listener.set_nonblocking(true)?;
    ready(inotify.by_wd.len());
    let mut polls = [
        libc::pollfd { fd: inotify.fd.as_raw_fd(), events: libc::POLLIN, revents: 0 },
        libc::pollfd { fd: listener.as_raw_fd(), events: libc::POLLIN, revents: 0 },
    ];
    let ended = serve_loop(
        &mut polls,
        &listener,
        (generation, dirs),
        &mut inotify,
        &mut journal,
        (generation_now, stop),
    );
    let _ = std::fs::remove_file(&socket);
    ended
}

/// Waits for events and searches, until stopped or a new generation.
fn serve_loop(
    polls: &mut [libc::pollfd; 2],
    listener: &UnixListener,
    (generation, dirs): (u64, &[Dir]),
    inotify: &mut Inotify,
    journal: &mut Journal,
    (generation_now, stop): (&dyn Fn() -> Option<u64>, &dyn Fn() -> bool),
) -> io::Result<Ended> {
    let mut checked = std::time::Instant::now();
    loop {
        if stop() {
            return Ok(Ended::Stopped);
        }
        // SAFETY: `polls` holds two valid pollfd structures.
        let n = unsafe { libc::poll(polls.as_mut_ptr(), 2, 1000) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if polls[0].revents != 0 {
            inotify.drain(dirs, journal)?;
        }
        let mut other_generation = false;
        if polls[1].revents != 0 {
            while let Ok((stream, _)) = listener.accept() {
                // A client that misbehaves is dropped, not waited on.
                let asked = answer(stream, generation, dirs, inotify, journal);
                other_generation |= asked.is_ok_and(|g| g != generation);
            }
        }
        // A search of a newer index, or a second gone by: is there one?
        if other_generation || checked.elapsed() >= Duration::from_secs(1) {
            checked = std::time::Instant::now();
            if generation_now() != Some(generation) {
                return Ok(Ended::NewGeneration);
            }
        }
    }
}

/// Answers one search: the changes up to now, or unsure; returns the
/// generation it asked about.
fn answer(
    mut stream: UnixStream,
    generation: u64,
    dirs: &[Dir],
    inotify: &mut Inotify,
    journal: &mut Journal,
) -> io::Result<u64> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
    stream.set_write_timeout(Some(Duration::from_secs(2)))?;
    let mut asked = [0u8; 8];
    stream.read_exact(&mut asked)?;
    // Every change made before the search began is queued by now.
    inotify.drain(dirs, journal)?;
    let mut reply = Vec::new();
    if journal.unsure || u64::from_le_bytes(asked) != generation {
        reply.push(UNSURE);
    } else {
        reply.push(OK);
        reply.extend_from_slice(&(journal.dirs.len() as u32).to_le_bytes());
        reply.extend_from_slice(&(journal.files.len() as u32).to_le_bytes());
        for &d in &journal.dirs {
            reply.extend_from_slice(&(d as u32).to_le_bytes());
        }
        for &f in &journal.files {
            reply.extend_from_slice(&f.to_le_bytes());
        }
    }
    stream.write_all(&reply)?;
    Ok(u64::from_le_bytes(asked))
}

/// Asks the watcher of the index in `store_dir`, if one runs, what changed
/// since `generation` (whose index has `n_dirs` directories and numbers
/// its entries below `next_id`); None when it cannot tell (then make the
/// stat pass).
pub fn ask(store_dir: &Path, generation: u64, n_dirs: usize, next_id: u32) -> Option<Changes> {
    let socket = store_dir.join(SOCKET);
    if !socket.exists() {
        return None;
    }
    let mut s = UnixStream::connect(&socket).ok()?;
    // Hangs only: a watcher answers in well under a millisecond.
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(&generation.to_le_bytes()).ok()?;
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).ok()?;
    let (&status, rest) = reply.split_first()?;
    if status != OK || rest.len() < 8 {
        return None;
    }
    let word = |k: usize| -> Option<u32> {
        Some(u32::from_le_bytes(rest.get(k * 4..k * 4 + 4)?.try_into().ok()?))
    };
    let (nd, nf) = (word(0)? as usize, word(1)? as usize);
    if rest.len() != 8 + 4 * (nd + nf) {
        return None;
    }
    let dirs: Vec<usize> =
        (0..nd).map(|k| word(2 + k).map(|d| d as usize)).collect::<Option<_>>()?;
    let files: Vec<u32> = (0..nf).map(|k| word(2 + nd + k)).collect::<Option<_>>()?;
    // Numbers past the index's are a broken answer, not a change.
    if dirs.iter().any(|&d| d >= n_dirs) || files.iter().any(|&f| f >= next_id) {
        return None;
    }
    Some(Changes { dirs, files })
}
