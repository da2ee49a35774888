//! The facts of the machine every crate asks: how many CPUs this process
//! may use, answered once for the whole run.

use std::sync::OnceLock;

/// The CPUs this process may use (its affinity mask and cgroup quota, as
/// [`std::thread::available_parallelism`] reads them), asked once: the
/// standard library reads cgroup files on every call, a cost a tiny search
/// would pay at each thread pool it sizes.
///
/// When the count cannot be read, 1: the smallest machine there is, so
/// nothing sized by it (the walk's threads, a large file's parts, the
/// extractor processes run at once) ever asks more of a machine than it
/// has. On Linux the count is unreadable only when both
/// `sched_getaffinity` and `sysconf` fail, so the fallback is there to keep
/// the answer defined rather than to be tuned: it once was 2 for the
/// extractor processes and 1 everywhere else, a difference no run saw.
pub fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpus_is_at_least_one_and_the_same_every_time() {
        let n = super::cpus();
        assert!(n >= 1);
        assert_eq!(super::cpus(), n);
    }
}
