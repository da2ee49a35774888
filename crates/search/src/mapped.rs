//! A large file mapped into memory, safe against truncation.
//!
//! Searching a mapping skips the kernel's copy into a read buffer, which is
//! most of the cost of a search that is not bound by the matcher. The risk
//! of a mapping is `SIGBUS`: a page past the end of a file truncated after it
//! was mapped cannot be read. A handler, installed with the first mapping,
//! catches a `SIGBUS` whose address lies in a live mapping, maps a page of
//! zeros over the faulting page and notes the fault; the read then goes on
//! and sees zeros. The searcher treats a NUL in a mapping as a reason to
//! read the part instead, and the caller re-reads every part searched after
//! a fault, so what was mapped only decides speed, never the output. A
//! `SIGBUS` anywhere else goes to the handler that was there before.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Mappings live at once (one per file searched in parallel; more wait for
/// a slot by reading instead).
const SLOTS: usize = 64;

/// A live mapping's range, for the handler: start 0 means a free slot,
/// [`CLAIMED`] one being filled in.
struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
    faulted: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot =
    Slot { start: AtomicUsize::new(0), len: AtomicUsize::new(0), faulted: AtomicBool::new(false) };

static SLOTS_IN_USE: [Slot; SLOTS] = [FREE; SLOTS];

const CLAIMED: usize = usize::MAX;

/// Faults caught (for tests).
static FAULTS: AtomicUsize = AtomicUsize::new(0);

/// How many `SIGBUS` faults in a mapping were caught so far.
#[cfg(test)]
pub(crate) fn faults() -> usize {
    FAULTS.load(Ordering::Relaxed)
}

/// The page size, set before the handler is installed.
static PAGE: AtomicUsize = AtomicUsize::new(0);

/// The `SIGBUS` action found when the handler was installed.
static PREVIOUS: OnceLock<Option<libc::sigaction>> = OnceLock::new();

/// A read-only mapping of a whole file.
pub(crate) struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
    slot: &'static Slot,
}

// SAFETY: the mapping is only read, from any thread; the raw pointer is
// what keeps it from being Send automatically.
unsafe impl Send for Mapping {}
// SAFETY: as for Send: shared references only read the mapped bytes.
unsafe impl Sync for Mapping {}

/// Whether large files' parts may be searched from a memory mapping.
///
/// A mapping's bytes can change while they are searched (another process
/// writes the file, or the `SIGBUS` handler maps zeros over a page of a file
/// truncated meanwhile), which a `&[u8]` promises cannot happen: only a
/// caller who accepts that may turn mapping on, through the unsafe
/// [`MmapChoice::auto`]. trawl-search itself never lets such a change reach
/// the output (a part searched after a fault is searched again from reads).
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct MmapChoice(bool);

impl MmapChoice {
    /// Map the parts of large files when the system allows it.
    ///
    /// # Safety
    ///
    /// The caller accepts that the bytes of a mapped file may change while
    /// they are searched (a concurrent writer, a truncation caught by the
    /// `SIGBUS` handler): the search then sees some mix of old and new bytes
    /// or zeros, as reads racing the same writer would, and must not rely on
    /// the bytes staying put.
    pub unsafe fn auto() -> MmapChoice {
        MmapChoice(true)
    }

    /// Never map: read every part (`--no-mmap`; the default).
    pub fn never() -> MmapChoice {
        MmapChoice(false)
    }

    /// Whether mapping was asked for.
    pub fn is_enabled(self) -> bool {
        self.0
    }
}

impl Mapping {
    /// Maps `len` bytes of `file`, or None when it cannot be done safely
    /// (no handler, no free slot, mmap refused: the caller reads instead).
    /// The choice proves the caller accepted bytes that may change under it
    /// (see [`MmapChoice::auto`]); None when it says never.
    pub(crate) fn new(choice: MmapChoice, file: &File, len: u64) -> Option<Mapping> {
        if !choice.is_enabled() {
            return None;
        }
        let len = usize::try_from(len).ok().filter(|&l| l > 0)?;
        if !install_handler() {
            return None;
        }
        // SAFETY: a fresh read-only shared mapping of an open file; no Rust
        // object aliases the address range it returns.
        let ptr = unsafe {
            libc::mmap(ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0)
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        for slot in &SLOTS_IN_USE {
            if slot.start.compare_exchange(0, CLAIMED, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                slot.faulted.store(false, Ordering::Relaxed);
                slot.len.store(len, Ordering::Relaxed);
                slot.start.store(ptr as usize, Ordering::Release);
                return Some(Mapping { ptr, len, slot });
            }
        }
        // SAFETY: unmapping what was mapped above, never shared.
        unsafe { libc::munmap(ptr, len) };
        None
    }

    /// The file's bytes from `from` on.
    ///
    /// The bytes may change under the reader if another process writes the
    /// file (as they may between two reads): the search then sees some mix
    /// of old and new bytes, as it would reading.
    pub(crate) fn bytes_from(&self, from: u64) -> &[u8] {
        // SAFETY: the range is mapped readable for as long as `self` lives;
        // pages past a truncation read as zeros (see the handler).
        let all = unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) };
        &all[(from as usize).min(self.len)..]
    }

    /// Whether a page could not be read (the file shrank): what was searched
    /// from the mapping may hold zeros instead of the file's bytes.
    pub(crate) fn faulted(&self) -> bool {
        self.slot.faulted.load(Ordering::Acquire)
    }

    /// Gives back the memory holding `start..end` (the file stays in the
    /// page cache; reading it again maps it again). Keeps the resident set
    /// small when a large file has been searched.
    pub(crate) fn release(&self, start: u64, end: u64) {
        let page = PAGE.load(Ordering::Relaxed);
        let from = (start as usize).div_ceil(page) * page;
        let to = (end as usize).min(self.len) / page * page;
        if from < to {
            // SAFETY: advice on a range inside the mapping; no data is lost
            // (a shared file mapping is only unmapped from this process).
            unsafe {
                libc::madvise(self.ptr.add(from), to - from, libc::MADV_DONTNEED);
            }
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // The handler forgets the range first: once unmapped, the addresses
        // may be reused by another mapping, over which it must never map
        // zeros.
        self.slot.start.store(0, Ordering::Release);
        // SAFETY: the mapping is no longer borrowed (bytes_from borrows self).
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

/// Installs the `SIGBUS` handler once; false if that failed.
fn install_handler() -> bool {
    PREVIOUS
        .get_or_init(|| {
            // SAFETY: sigaction with a handler that only does
            // async-signal-safe work (atomics, mmap).
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE).max(4096) as usize;
                PAGE.store(page, Ordering::Relaxed);
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = on_sigbus as *const () as usize;
                new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut new.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                (libc::sigaction(libc::SIGBUS, &new, &mut old) == 0).then_some(old)
            }
        })
        .is_some()
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    for slot in &SLOTS_IN_USE {
        let start = slot.start.load(Ordering::Acquire);
        if start != 0
            && start != CLAIMED
            && addr >= start
            && addr < start + slot.len.load(Ordering::Relaxed)
        {
            slot.faulted.store(true, Ordering::Release);
            FAULTS.fetch_add(1, Ordering::Relaxed);
            let page = PAGE.load(Ordering::Relaxed);
            let at = (addr / page * page) as *mut libc::c_void;
            // SAFETY: replaces one page of our own read-only mapping with
            // zeros; mmap is async-signal-safe.
            let p = unsafe {
                libc::mmap(
                    at,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                return;
            }
        }
    }
    // Not ours: what would have happened without this handler.
    match PREVIOUS.get().copied().flatten() {
        Some(old) if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN => {
            if old.sa_flags & libc::SA_SIGINFO != 0 {
                // SAFETY: the previous handler, called as it was installed.
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(old.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                // SAFETY: as above, for a one-argument handler.
                let f: extern "C" fn(libc::c_int) =
                    unsafe { std::mem::transmute(old.sa_sigaction) };
                f(sig);
            }
        }
        _ => {
            // SAFETY: restoring the default action; returning re-runs the
            // faulting access, which then ends the process as it should.
            unsafe {
                let mut dfl: libc::sigaction = std::mem::zeroed();
                dfl.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &dfl, ptr::null_mut());
            }
        }
    }
}
