//! Growing the walk when the cache is cold.
//!
//! A warm search is CPU-bound: one thread per CPU is best. A cold one waits
//! on the disk, and more requests in flight finish sooner. trawl starts with
//! one thread per CPU and a watcher that reads the kernel's per-process I/O
//! accounting; once the process has made the disk read a few MiB, the walk
//! adds threads. Measured on the Linux tree (2 cores): grep, cold, 6.7 s on
//! 2 threads and 1.7-1.9 s growing; warm unchanged. `trawl find` does not
//! use this: a cold walk is over (0.12 s) before the watcher has seen enough,
//! so it runs 24 threads from the start (cold 0.14 s growing, 0.11-0.13 s
//! fixed; warm 35 ms either way).

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use trawl_walk::{GrowthSignal, Visitor, WalkBuilder};

/// Threads once the cache is seen to be cold.
const COLD_THREADS: usize = 24;

/// Bytes fetched from storage (not the page cache) that mark a cold cache.
const COLD_READ_BYTES: u64 = 4 << 20;

/// Runs `walk` on one thread per CPU, growing to [`COLD_THREADS`] when the
/// disk is being read.
pub fn run<V, F>(walk: &WalkBuilder, make_visitor: F) -> Vec<V>
where
    V: Visitor,
    F: Fn(usize) -> V + Sync,
{
    if walk.is_one_entry() {
        // Nothing to grow: no watcher either.
        return walk.run_one_entry(make_visitor);
    }
    let max = max_threads(walk);
    let cold = GrowthSignal::new();
    let done = Done::default();
    std::thread::scope(|s| {
        s.spawn(|| watch_disk_reads(&cold, &done));
        let visitors = walk.run_growing(max, &cold, make_visitor);
        done.set();
        visitors
    })
}

/// The walk is over: the watcher stops at once (it is not left to finish
/// a sleep that the run would wait for).
#[derive(Default)]
struct Done {
    over: Mutex<bool>,
    wake: Condvar,
}

impl Done {
    fn set(&self) {
        *self.over.lock().unwrap_or_else(|p| p.into_inner()) = true;
        self.wake.notify_all();
    }

    /// Waits `d` or until the walk is over; whether it is.
    fn wait(&self, d: Duration) -> bool {
        let over = self.over.lock().unwrap_or_else(|p| p.into_inner());
        let (over, _) =
            self.wake.wait_timeout_while(over, d, |o| !*o).unwrap_or_else(|p| p.into_inner());
        *over
    }
}

/// The most threads [`run`] may grow `walk` to.
pub fn max_threads(walk: &WalkBuilder) -> usize {
    walk.thread_count().max(COLD_THREADS)
}

/// Sets the `cold` signal once this process has made the disk read more than
/// [`COLD_READ_BYTES`], polling every few milliseconds until `done`.
fn watch_disk_reads(cold: &GrowthSignal, done: &Done) {
    let read_bytes = || -> Option<u64> {
        let io = std::fs::read_to_string("/proc/self/io").ok()?;
        io.lines().find_map(|l| l.strip_prefix("read_bytes: "))?.trim().parse().ok()
    };
    // A short walk is over before the first look.
    if done.wait(Duration::from_millis(3)) {
        return;
    }
    let Some(start) = read_bytes() else { return };
    // Looks ever further apart, up to 48 ms: a warm search is not woken
    // a hundred times (on 2 cores each look displaces a searching thread),
    // and a cold one, reading a few MiB in tens of milliseconds, is still
    // seen within the first 100 ms.
    let mut pause = Duration::from_millis(3);
    while !done.wait(pause) {
        if read_bytes().is_some_and(|n| n.saturating_sub(start) > COLD_READ_BYTES) {
            cold.set();
            return;
        }
        pause = (pause * 2).min(Duration::from_millis(48));
    }
}
