//! Microbenchmark of the parallel walker on a temporary tree (about 10k
//! entries, built once), with a visitor that only counts. Run with
//! `cargo bench -p trawl-walk`; `bench/run` is the end-to-end suite.

use std::fs;
use std::path::Path;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkState};

/// Counts files and directories, per thread.
#[derive(Default)]
struct Count {
    files: u64,
    dirs: u64,
}

impl Visitor for Count {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        if e.file_type().is_dir() {
            self.dirs += 1;
        } else {
            self.files += 1;
        }
        WalkState::Continue
    }
    fn error(&mut self, _: WalkError) -> WalkState {
        WalkState::Continue
    }
}

/// 20 top directories of 20 subdirectories of 20 empty files, plus one wide
/// directory of 1000 files: 9,421 entries.
fn make_tree(root: &Path) -> u64 {
    let mut n = 0;
    for a in 0..20 {
        for b in 0..20 {
            let dir = root.join(format!("d{a:02}/e{b:02}"));
            fs::create_dir_all(&dir).unwrap();
            for f in 0..20 {
                fs::write(dir.join(format!("f{f:02}.c")), b"").unwrap();
                n += 1;
            }
            n += 1;
        }
        n += 1;
    }
    fs::create_dir(root.join("wide")).unwrap();
    for f in 0..1000 {
        fs::write(root.join(format!("wide/w{f:04}")), b"").unwrap();
    }
    n + 1001
}

fn walk(root: &Path, threads: usize, sorted: bool) -> u64 {
    let mut w = WalkBuilder::new();
    w.add_root(root).threads(threads).sorted(sorted);
    w.run(|_| Count::default()).iter().map(|c| c.files + c.dirs).sum()
}

fn bench_walk(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let entries = make_tree(tmp.path()) + 1;
    let mut g = c.benchmark_group("walk");
    g.throughput(Throughput::Elements(entries));
    let cpus = trawl_diag::cpus();
    let mut variants = vec![("1_thread", 1, false), ("sorted_1_thread", 1, true)];
    if cpus > 1 {
        variants.push(("all_threads", cpus, false));
        variants.push(("sorted_all_threads", cpus, true));
    }
    for (name, threads, sorted) in variants {
        assert_eq!(walk(tmp.path(), threads, sorted), entries);
        g.bench_function(name, |b| b.iter(|| walk(tmp.path(), threads, sorted)));
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_walk
}
criterion_main!(benches);
