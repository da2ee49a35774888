//! Directory descriptors under the open-file limit.
//!
//! Each directory the walk holds is a [`DirFd`]. A thread working in a
//! directory pins it, and a pinned descriptor stays open. When an open
//! fails for want of descriptors (EMFILE, ENFILE), the least recently used
//! directory nobody pins is closed, its device and inode kept, and the open
//! is tried again ([`retrying`]). A directory closed that way is opened
//! again when next used (by its owner, [`DirFd::get`]) and must be the same
//! directory. So a walk never fails for want of descriptors while it holds
//! any it could close, whatever the limit (as bfs does; GNU find's fts
//! keeps few open by changing directory instead).
//!
//! The walk also starts no more threads than the limit leaves room for
//! ([`threads_within_limit`]): each thread pins a directory, opens one
//! more, and its visitor holds a few of its own.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::noatime;
use crate::sys::{cvt, fstat};

/// `pins` while the descriptor is being closed.
const CLOSING: u32 = u32::MAX;

/// A directory's descriptor: open, or closed (not yet opened, or closed to
/// make room) and opened again when a pinned user needs it.
pub(crate) struct DirFd {
    slot: Arc<Slot>,
}

struct Slot {
    /// The descriptor, -1 while closed. Changed only by its opener (which
    /// pins it and holds `opening`) and by a closer (which set `pins` to
    /// [`CLOSING`]).
    fd: AtomicI32,
    pins: AtomicU32,
    /// The pool's clock when last pinned.
    last_use: AtomicU64,
    /// Whether the pool lists it.
    listed: AtomicBool,
    /// Held while opening again; the (device, inode) seen when closed.
    opening: Mutex<Option<(u64, u64)>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let fd = *self.fd.get_mut();
        if fd >= 0 {
            // SAFETY: the slot owns its descriptor, and nothing uses it any
            // more (the last reference is going).
            unsafe { libc::close(fd) };
        }
    }
}

/// A pin on a directory: its descriptor is not closed to make room until
/// every pin is dropped.
pub(crate) struct Pin(Arc<Slot>);

impl Drop for Pin {
    fn drop(&mut self) {
        self.0.pins.fetch_sub(1, Ordering::Release);
    }
}

impl DirFd {
    /// A directory opened now.
    pub(crate) fn open(fd: OwnedFd) -> DirFd {
        let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
        let dir = DirFd::closed();
        dir.slot.fd.store(raw, Ordering::Release);
        POOL.list(&dir.slot);
        dir
    }

    /// A directory not opened yet (opened when first needed).
    pub(crate) fn closed() -> DirFd {
        DirFd {
            slot: Arc::new(Slot {
                fd: AtomicI32::new(-1),
                pins: AtomicU32::new(0),
                last_use: AtomicU64::new(POOL.clock.load(Ordering::Relaxed)),
                listed: AtomicBool::new(false),
                opening: Mutex::new(None),
            }),
        }
    }

    /// Pins the directory (see [`Pin`]).
    pub(crate) fn pin(&self) -> Pin {
        let pins = &self.slot.pins;
        let mut now = pins.load(Ordering::Relaxed);
        loop {
            if now == CLOSING {
                // Being closed right now: a close and an fstat away.
                std::hint::spin_loop();
                now = pins.load(Ordering::Relaxed);
                continue;
            }
            match pins.compare_exchange_weak(now, now + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => break,
                Err(seen) => now = seen,
            }
        }
        self.slot.last_use.store(POOL.clock.load(Ordering::Relaxed), Ordering::Relaxed);
        Pin(self.slot.clone())
    }

    /// The descriptor of a pinned directory: if it is closed, `open` opens
    /// it again, and it must be the directory it was (same device and
    /// inode) when it was closed to make room.
    pub(crate) fn get(&self, open: impl FnOnce() -> io::Result<OwnedFd>) -> io::Result<RawFd> {
        debug_assert!(self.slot.pins.load(Ordering::Relaxed) > 0, "a pinned directory");
        let fd = self.slot.fd.load(Ordering::Acquire);
        if fd >= 0 {
            return Ok(fd);
        }
        let closed_as = self.slot.opening.lock().unwrap_or_else(|p| p.into_inner());
        let fd = self.slot.fd.load(Ordering::Acquire);
        if fd >= 0 {
            return Ok(fd);
        }
        let fd = open()?;
        if let Some((dev, ino)) = *closed_as {
            let st = fstat(fd.as_raw_fd())?;
            if (st.st_dev, st.st_ino) != (dev, ino) {
                return Err(io::Error::other("directory replaced during the walk"));
            }
        }
        let raw = std::os::fd::IntoRawFd::into_raw_fd(fd);
        self.slot.fd.store(raw, Ordering::Release);
        POOL.list(&self.slot);
        Ok(raw)
    }
}

/// The directories holding descriptors, for closing the least recently
/// used when the limit is reached. One for the process: descriptors are.
struct Pool {
    slots: Mutex<Vec<Weak<Slot>>>,
    /// Counts directories listed: a pin's time stamp.
    clock: AtomicU64,
}

static POOL: Pool = Pool { slots: Mutex::new(Vec::new()), clock: AtomicU64::new(0) };

impl Pool {
    fn list(&self, slot: &Arc<Slot>) {
        self.clock.fetch_add(1, Ordering::Relaxed);
        if slot.listed.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        if slots.len() == slots.capacity() && slots.len() >= 64 {
            // Drop the directories gone before growing.
            slots.retain(|w| w.strong_count() > 0);
            let live = slots.len();
            slots.reserve(live);
        }
        slots.push(Arc::downgrade(slot));
    }

    /// Closes the least recently used descriptor nobody pins; false when
    /// there is none.
    fn close_one(&self) -> bool {
        let slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let idle =
                |s: &Slot| s.pins.load(Ordering::Relaxed) == 0 && s.fd.load(Ordering::Relaxed) >= 0;
            let Some(oldest) = slots
                .iter()
                .filter_map(Weak::upgrade)
                .filter(|s| idle(s))
                .min_by_key(|s| s.last_use.load(Ordering::Relaxed))
            else {
                return false;
            };
            if oldest
                .pins
                .compare_exchange(0, CLOSING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                continue; // pinned meanwhile: look again
            }
            let fd = oldest.fd.swap(-1, Ordering::AcqRel);
            if fd >= 0 {
                let mut closed_as = oldest.opening.lock().unwrap_or_else(|p| p.into_inner());
                if let Ok(st) = fstat(fd) {
                    *closed_as = Some((st.st_dev, st.st_ino));
                }
                // SAFETY: the slot owned the descriptor; it was taken out
                // of it, and no pin can use it (pins is CLOSING).
                unsafe { libc::close(fd) };
            }
            oldest.pins.store(0, Ordering::Release);
            if fd >= 0 {
                return true;
            }
        }
    }
}

/// How long, at most, an open waits for descriptors pinned elsewhere
/// when none can be closed (in steps of a millisecond).
const WAITS: u32 = 5000;

/// Opens `name` relative to the directory `dir` (`libc::AT_FDCWD`: the
/// working directory; ignored for an absolute name) with `flags`, plus
/// `O_NOATIME` while the kernel grants it ([`crate::noatime`]), retrying
/// while descriptors run out ([`retrying`]). Every open of the walk's
/// entries, directories and ignore files goes through here.
pub(crate) fn open_at(dir: RawFd, name: &CStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    let fd = noatime::open_with(flags, |flags| {
        retrying(|| {
            // SAFETY: `name` is NUL-terminated; `dir` is AT_FDCWD or a
            // directory the caller keeps open for the call.
            cvt(unsafe { libc::openat(dir, name.as_ptr(), flags) })
        })
    })?;
    // SAFETY: a fresh descriptor from openat(2), owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Runs `open`; while it fails for want of descriptors, closes the least
/// recently used directory nobody pins and tries again (or, when every
/// one is pinned, waits for other threads to let go).
fn retrying<T>(mut open: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut waits = 0;
    loop {
        match open() {
            Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
                if POOL.close_one() {
                    continue;
                }
                if waits < WAITS {
                    waits += 1;
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
                return Err(e);
            }
            result => return result,
        }
    }
}

/// Descriptors kept free for what is not counted (standard streams
/// reopened, a message's locale files).
const SPARE: usize = 3;

/// The most threads a walk can run within the open-file limit, each
/// pinning a directory, opening another, and its visitor holding
/// `per_visit` descriptors of its own.
pub(crate) fn threads_within_limit(per_visit: usize) -> usize {
    // SAFETY: an all-zero rlimit is valid; getrlimit fills it in.
    let mut rl: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: a valid out-pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0
        || rl.rlim_cur == libc::RLIM_INFINITY
    {
        return usize::MAX;
    }
    let limit = usize::try_from(rl.rlim_cur).unwrap_or(usize::MAX);
    // The descriptors open now (the listing's own one left out).
    let open =
        std::fs::read_dir("/proc/self/fd").map_or(limit / 2, |d| d.count().saturating_sub(1));
    let room = limit.saturating_sub(open + SPARE);
    (room / (2 + per_visit)).max(1)
}
