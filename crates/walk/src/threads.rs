//! The walk's threads: started, grown when the disk is read, joined.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Grows a walk ([`crate::WalkBuilder::run_growing`]): set by whoever sees
/// the walk's reads wait on the disk. The thread that runs the walk sleeps
/// until the signal is set or every walking thread is done; it is not woken
/// by a timer, so a warm walk is never interrupted by it.
#[derive(Debug, Default)]
pub struct GrowthSignal {
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct State {
    grow: bool,
    /// Walking threads finished (in the one walk using the signal).
    finished: usize,
}

impl GrowthSignal {
    /// A signal not set.
    pub fn new() -> GrowthSignal {
        GrowthSignal::default()
    }

    /// Asks the walk for its extra threads.
    pub fn set(&self) {
        self.lock().grow = true;
        self.wake.notify_all();
    }

    /// Whether [`GrowthSignal::set`] was called.
    pub fn is_set(&self) -> bool {
        self.lock().grow
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state holds a flag and a count, valid whatever a panicking
        // thread left.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One walking thread is done (or panicked): counted, and the waiting
    /// thread woken.
    fn finished(&self) {
        self.lock().finished += 1;
        self.wake.notify_all();
    }

    /// Sleeps until the signal is set or `threads` threads are finished;
    /// whether it was set.
    fn wait(&self, threads: usize) -> bool {
        let guard = self.lock();
        let state = self
            .wake
            .wait_while(guard, |s| !s.grow && s.finished < threads)
            .unwrap_or_else(|p| p.into_inner());
        state.grow
    }
}

/// Counts its thread finished when dropped, on return or unwinding: the
/// waiting thread never waits for a thread that panicked.
struct Finished<'s>(&'s GrowthSignal);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.finished();
    }
}

/// Growth of a walk: at most this many threads once the signal is set.
pub(crate) type Growth<'a> = Option<(usize, &'a GrowthSignal)>;

/// Runs the walk's threads: `start(i)` makes the work of thread `i` (called
/// in order of `i`). With growth, `threads` start and the rest, up to the
/// maximum, join once the signal is set (by visitors that see reads wait on
/// the disk): a cold cache gets more requests in flight, a warm run never
/// pays for them. Returns each thread's result, by index.
pub(crate) fn run_threads<V, T>(
    threads: usize,
    growth: Growth<'_>,
    mut start: impl FnMut(usize) -> T,
) -> Vec<V>
where
    V: Send,
    T: FnOnce() -> V + Send,
{
    let threads = threads.max(1);
    if threads == 1 && growth.is_none() {
        // One thread: the calling one (no thread to start and join).
        return vec![start(0)()];
    }
    let max = growth.map_or(threads, |(max, _)| max.max(threads));
    let signal = growth.map(|(_, signal)| signal);
    if let Some(signal) = signal {
        signal.lock().finished = 0;
    }
    std::thread::scope(|s| {
        let mut spawn = |i: usize| {
            let work = start(i);
            std::thread::Builder::new()
                .name(format!("trawl-{i}"))
                .spawn_scoped(s, move || {
                    let _finished = signal.map(Finished);
                    work()
                })
                .expect("spawn walker thread")
        };
        let mut handles: Vec<_> = (0..threads).map(&mut spawn).collect();
        if let Some(signal) = signal {
            if signal.wait(threads) {
                handles.extend((threads..max).map(&mut spawn));
            }
        }
        handles.into_iter().map(|h| h.join().expect("walker thread panicked")).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::{run_threads, GrowthSignal};

    #[test]
    fn a_signal_set_by_a_running_thread_starts_the_rest() {
        let signal = GrowthSignal::new();
        let ran = run_threads(2, Some((5, &signal)), |i| {
            let signal = &signal;
            move || {
                if i == 0 {
                    signal.set();
                }
                i
            }
        });
        assert_eq!(ran, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_walk_never_signalled_ends_with_its_first_threads() {
        let signal = GrowthSignal::new();
        let ran = run_threads(3, Some((8, &signal)), |i| move || i);
        assert_eq!(ran, vec![0, 1, 2]);
        assert!(!signal.is_set());
    }

    #[test]
    fn a_panicking_thread_does_not_leave_the_caller_waiting() {
        let signal = GrowthSignal::new();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_threads(2, Some((4, &signal)), |i| {
                move || {
                    if i == 1 {
                        panic!("thread 1 fails");
                    }
                    i
                }
            })
        }));
        assert!(outcome.is_err(), "the panic reaches the caller");
        assert!(!signal.is_set());
    }
}
