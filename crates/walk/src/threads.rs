//! The walk's threads: started, grown when the disk is read, joined.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Runs the walk's threads: `start(i)` makes the work of thread `i` (called
/// in order of `i`). With growth, `threads` start and the rest, up to the
/// maximum, join once `blocked` is set (by visitors that see reads wait on
/// the disk): a cold cache gets more requests in flight, a warm run never
/// pays for them. Returns each thread's result, by index.
pub(crate) fn run_threads<V, T>(
    threads: usize,
    growth: Option<(usize, &AtomicBool)>,
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
    std::thread::scope(|s| {
        let mut spawn = |i: usize| {
            std::thread::Builder::new()
                .name(format!("trawl-{i}"))
                .spawn_scoped(s, start(i))
                .expect("spawn walker thread")
        };
        let mut handles: Vec<_> = (0..threads).map(&mut spawn).collect();
        if let Some((_, blocked)) = growth {
            loop {
                if blocked.load(Ordering::Relaxed) {
                    handles.extend((threads..max).map(&mut spawn));
                    break;
                }
                if handles.iter().all(|h| h.is_finished()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        handles.into_iter().map(|h| h.join().expect("walker thread panicked")).collect()
    })
}
