//! The walker against std::fs on temporary trees (the sorted walk's order:
//! sorted.rs).

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkErrorKind, WalkState};

#[derive(Default)]
struct Collect {
    seen: Vec<(Vec<u8>, bool)>,
    errors: Vec<String>,
    loops: usize,
}

impl Visitor for Collect {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        self.seen.push((e.path().to_vec(), e.file_type().is_dir()));
        WalkState::Continue
    }
    fn error(&mut self, err: WalkError) -> WalkState {
        if matches!(err.kind(), WalkErrorKind::Loop { .. }) {
            self.loops += 1;
        }
        self.errors.push(err.to_string());
        WalkState::Continue
    }
}

fn std_walk(root: &Path, prefix: &str, out: &mut BTreeSet<Vec<u8>>) {
    for e in fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        let p = format!("{prefix}/{}", name.to_string_lossy());
        out.insert(p.as_bytes().to_vec());
        if e.file_type().unwrap().is_dir() {
            std_walk(&e.path(), &p, out);
        }
    }
}

fn make_tree(root: &Path) {
    for d in 0..7 {
        let dir = root.join(format!("d{d}"));
        fs::create_dir_all(dir.join("sub/deeper")).unwrap();
        for f in 0..40 {
            fs::write(dir.join(format!("f{f}.txt")), b"x").unwrap();
        }
        fs::write(dir.join("sub/deeper/.hidden"), b"x").unwrap();
    }
    // One wide directory, so file batches are shared between threads.
    fs::create_dir(root.join("wide")).unwrap();
    for f in 0..2000 {
        fs::write(root.join("wide").join(format!("w{f:04}")), b"").unwrap();
    }
}

fn run(w: &WalkBuilder) -> (Vec<(Vec<u8>, bool)>, usize) {
    let visitors = w.run(|_| Collect::default());
    let loops = visitors.iter().map(|v| v.loops).sum();
    assert!(visitors.iter().all(|v| v.errors.len() == v.loops), "unexpected walk errors");
    (visitors.into_iter().flat_map(|v| v.seen).collect(), loops)
}

#[test]
fn parallel_walk_sees_every_entry_once() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut want = BTreeSet::new();
    std_walk(tmp.path(), "r", &mut want);
    for threads in [1, 2, 4] {
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").threads(threads);
        let (seen, _) = run(&w);
        let got: Vec<Vec<u8>> = seen.into_iter().map(|(p, _)| p).filter(|p| p != b"r").collect();
        let set: BTreeSet<Vec<u8>> = got.iter().cloned().collect();
        assert_eq!(set.len(), got.len(), "an entry was visited twice");
        assert_eq!(set, want);
    }
}

#[test]
fn max_depth_limits_the_walk() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut w = WalkBuilder::new();
    w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").max_depth(Some(1));
    let (seen, _) = run(&w);
    assert!(seen.iter().all(|(p, _)| p.iter().filter(|&&c| c == b'/').count() <= 1));
    assert!(seen.iter().any(|(p, _)| p == b"r/d0"));
}

#[test]
fn symlink_loop_is_reported_and_the_walk_ends() {
    let tmp = tempfile::tempdir().unwrap();
    fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    fs::write(tmp.path().join("a/b/file"), b"x").unwrap();
    std::os::unix::fs::symlink("../..", tmp.path().join("a/b/up")).unwrap();
    let mut w = WalkBuilder::new();
    w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").follow_links(true);
    let (seen, loops) = run(&w);
    assert_eq!(loops, 1);
    assert!(seen.iter().any(|(p, _)| p == b"r/a/b/file"));
    // Without following, the link is an entry of its own and no loop exists.
    let mut w = WalkBuilder::new();
    w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r");
    let (seen, loops) = run(&w);
    assert_eq!(loops, 0);
    assert!(seen.iter().any(|(p, is_dir)| p == b"r/a/b/up" && !is_dir));
}

#[test]
fn paths_deeper_than_path_max_are_walked() {
    let tmp = tempfile::tempdir().unwrap();
    let name = "n".repeat(200);
    let mut dir = tmp.path().to_path_buf();
    // Create with relative steps: the absolute path would exceed PATH_MAX.
    let cwd = std::env::current_dir().unwrap();
    std::env::set_current_dir(&dir).unwrap();
    for _ in 0..25 {
        fs::create_dir(&name).unwrap();
        std::env::set_current_dir(&name).unwrap();
        dir.push(&name);
    }
    fs::write("leaf", b"x").unwrap();
    std::env::set_current_dir(cwd).unwrap();
    let mut w = WalkBuilder::new();
    w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r");
    let (seen, _) = run(&w);
    let leaf = seen.iter().find(|(p, _)| p.ends_with(b"/leaf")).expect("leaf found");
    assert!(leaf.0.len() > 4096);
}

/// Records pre- and post-order events with a global sequence number.
struct Events<'a> {
    seq: &'a std::sync::atomic::AtomicUsize,
    pre: Vec<(usize, Vec<u8>)>,
    post: Vec<(usize, Vec<u8>)>,
}

impl Visitor for Events<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.pre.push((n, e.path().to_vec()));
        WalkState::Continue
    }
    fn error(&mut self, _: WalkError) -> WalkState {
        WalkState::Continue
    }
    fn visit_dir_end(&mut self, e: &Entry<'_>) -> WalkState {
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.post.push((n, e.path().to_vec()));
        WalkState::Continue
    }
}

#[test]
fn post_order_visits_each_directory_after_its_contents() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    for (sorted, threads, max_depth) in [
        (false, 2, None),
        (false, 4, Some(2)),
        (true, 1, None),
        (true, 4, None),
        (true, 3, Some(2)),
    ] {
        let seq = std::sync::atomic::AtomicUsize::new(0);
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r")
            .post_order(true)
            .sorted(sorted)
            .threads(threads)
            .max_depth(max_depth);
        let vs = w.run(|_| Events { seq: &seq, pre: vec![], post: vec![] });
        let pre: Vec<_> = vs.iter().flat_map(|v| v.pre.clone()).collect();
        let post: Vec<_> = vs.iter().flat_map(|v| v.post.clone()).collect();
        let dirs: BTreeSet<Vec<u8>> = {
            let mut d = BTreeSet::new();
            std_walk_dirs(tmp.path(), "r", max_depth, 0, &mut d);
            d
        };
        let posted: BTreeSet<Vec<u8>> = post.iter().map(|(_, p)| p.clone()).collect();
        assert_eq!(posted.len(), post.len(), "a directory was post-visited twice");
        assert_eq!(posted, dirs);
        for (s, d) in &post {
            let mut prefix = d.clone();
            prefix.push(b'/');
            for (t, p) in &pre {
                if p.starts_with(&prefix) {
                    assert!(
                        t < s,
                        "{} visited after its directory ended",
                        String::from_utf8_lossy(p)
                    );
                }
            }
        }
    }
}

fn std_walk_dirs(
    root: &Path,
    prefix: &str,
    max: Option<usize>,
    depth: usize,
    out: &mut BTreeSet<Vec<u8>>,
) {
    out.insert(prefix.as_bytes().to_vec());
    if max.is_some_and(|m| depth >= m) {
        return;
    }
    for e in fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            let p = format!("{prefix}/{}", e.file_name().to_string_lossy());
            std_walk_dirs(&e.path(), &p, max, depth + 1, out);
        }
    }
}

#[test]
fn growing_walk_sees_every_entry_once_before_and_after_growth() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut want = BTreeSet::new();
    std_walk(tmp.path(), "r", &mut want);
    for grow_at_once in [false, true] {
        let blocked = trawl_walk::GrowthSignal::new();
        if grow_at_once {
            blocked.set();
        }
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").threads(2);
        let visitors = w.run_growing(8, &blocked, |_| Collect::default());
        assert_eq!(visitors.len(), if grow_at_once { 8 } else { 2 });
        let got: Vec<Vec<u8>> = visitors
            .into_iter()
            .flat_map(|v| v.seen)
            .map(|(p, _)| p)
            .filter(|p| p != b"r")
            .collect();
        let set: BTreeSet<Vec<u8>> = got.iter().cloned().collect();
        assert_eq!(set.len(), got.len(), "an entry was visited twice");
        assert_eq!(set, want);
    }
}

/// Records, per file, whether the walk says a short read ends it.
struct ShortReads(Vec<(Vec<u8>, bool)>);

impl Visitor for ShortReads {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        if !e.file_type().is_dir() {
            self.0.push((e.path().to_vec(), e.short_read_is_end()));
        }
        WalkState::Continue
    }
    fn error(&mut self, _: WalkError) -> WalkState {
        WalkState::Continue
    }
}

fn short_reads(root: &Path, ask: bool) -> Vec<(Vec<u8>, bool)> {
    let mut w = WalkBuilder::new();
    w.add_root(root).threads(1).file_systems(ask);
    w.run(|_| ShortReads(Vec::new())).into_iter().flat_map(|v| v.0).collect()
}

#[test]
fn short_reads_end_files_only_on_local_file_systems_when_asked() {
    // tmpfs returns a short read only at the end; procfs may return one
    // line of a file at a time.
    let shm = Path::new("/dev/shm");
    let on_tmpfs = fs::metadata(shm).is_ok_and(|m| m.is_dir())
        && fs::read_to_string("/proc/self/mounts").unwrap().lines().any(|l| {
            l.split(' ').nth(1) == Some("/dev/shm") && l.split(' ').nth(2) == Some("tmpfs")
        });
    assert!(on_tmpfs, "the test needs /dev/shm on tmpfs");
    let dir = tempfile::tempdir_in(shm).unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/f"), "x\n").unwrap();
    assert!(short_reads(dir.path(), false).iter().all(|(_, end)| !end));
    let asked = short_reads(dir.path(), true);
    assert_eq!(asked.len(), 1);
    assert!(asked[0].1, "a file on tmpfs");
    let proc_files = short_reads(Path::new("/proc/self/net"), true);
    assert!(!proc_files.is_empty());
    assert!(proc_files.iter().all(|(_, end)| !end), "files in /proc");
}

/// Every name of a directory whose listing takes several getdents64 calls
/// (names of 1-255 bytes, so calls end at varying distances from the
/// buffer's end), with and without the file systems asked.
fn long_listing_is_read_whole_in(parent: &Path) {
    let tmp = tempfile::tempdir_in(parent).unwrap();
    let dir = tmp.path().join("long");
    fs::create_dir(&dir).unwrap();
    for i in 0..3000usize {
        let len = 1 + (i * 37) % 255;
        let stem = format!("{i}-");
        let name: String =
            stem.chars().chain(std::iter::repeat('n')).take(len.max(stem.len())).collect();
        fs::write(dir.join(name), b"").unwrap();
    }
    let mut want = BTreeSet::new();
    std_walk(&dir, "r", &mut want);
    assert_eq!(want.len(), 3000);
    for ask in [false, true] {
        let mut w = WalkBuilder::new();
        w.add_root_displayed(dir.as_os_str().as_bytes(), b"r").threads(1).file_systems(ask);
        let (seen, _) = run(&w);
        let got: BTreeSet<Vec<u8>> =
            seen.into_iter().map(|(p, _)| p).filter(|p| p != b"r").collect();
        assert_eq!(got, want, "file systems asked: {ask}");
    }
}

#[test]
fn a_listing_longer_than_one_read_is_read_whole_on_tmpfs() {
    long_listing_is_read_whole_in(Path::new("/dev/shm"));
}

#[test]
fn a_listing_longer_than_one_read_is_read_whole_in_the_temporary_directory() {
    long_listing_is_read_whole_in(&std::env::temp_dir());
}

/// A directory as read: its path, its inode (when the walk stat'd it),
/// its entries' names.
type Listing = (Vec<u8>, Option<u64>, BTreeSet<Vec<u8>>);

/// Records each directory as read (its stamps and entries) and checks
/// that every entry visited was among its directory's entries before.
#[derive(Default)]
struct Listings {
    read: Vec<Listing>,
    visited: Vec<Vec<u8>>,
}

impl Visitor for Listings {
    fn dir_read(&mut self, dir: &trawl_walk::DirRead<'_>) -> WalkState {
        let names = dir.entries().map(|(name, _)| name.to_vec()).collect();
        self.read.push((dir.path().to_vec(), dir.metadata().map(|st| st.st_ino), names));
        // The wide directory's entries are not visited.
        match dir.path().ends_with(b"wide") {
            true => WalkState::Skip,
            false => WalkState::Continue,
        }
    }
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        self.visited.push(e.path().to_vec());
        WalkState::Continue
    }
    fn error(&mut self, err: WalkError) -> WalkState {
        panic!("{err}")
    }
}

#[test]
fn each_directory_read_is_seen_whole_with_its_metadata_before_its_entries_are_visited() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    for (threads, one_fs) in [(1, true), (3, true), (2, false)] {
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r")
            .threads(threads)
            .same_file_system(one_fs);
        let visitors = w.run(|_| Listings::default());
        let read: Vec<_> = visitors.iter().flat_map(|v| v.read.iter()).collect();
        let visited: BTreeSet<&Vec<u8>> = visitors.iter().flat_map(|v| &v.visited).collect();
        // Every directory but none below the wide one (it has none).
        assert_eq!(read.len(), 1 + 7 * 3 + 1, "{threads} threads");
        let mut entries = 0;
        for (path, ino, names) in read {
            let on_disk =
                tmp.path().join(std::str::from_utf8(&path[1..]).unwrap().trim_start_matches('/'));
            let want: BTreeSet<Vec<u8>> = fs::read_dir(&on_disk)
                .unwrap()
                .map(|e| e.unwrap().file_name().as_bytes().to_vec())
                .collect();
            assert_eq!(names, &want, "{}", String::from_utf8_lossy(path));
            use std::os::unix::fs::MetadataExt;
            let ino_now = fs::metadata(&on_disk).unwrap().ino();
            assert_eq!(*ino, one_fs.then_some(ino_now), "metadata only when the walk stats");
            for name in names {
                let shown = [&path[..], b"/", name].concat();
                assert_eq!(visited.contains(&shown), !path.ends_with(b"wide"));
                entries += 1;
            }
        }
        assert_eq!(visited.len() + 2000, entries + 1, "the root, and nothing not listed");
    }
}
