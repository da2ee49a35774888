//! The sorted walk against a naive sorted recursive walk with std::fs: the
//! order output is written in (on 1 to 8 threads), the order of visits on one
//! thread, post order, quitting, and the bound on output held for reordering.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use trawl_walk::{Entry, Piece, Pieces, Visitor, WalkBuilder, WalkError, WalkState};

/// Depth first, each directory's entries by name bytes; `post` adds a
/// record for each directory after its contents.
fn naive(
    dir: &Path,
    shown: &[u8],
    depth: usize,
    max: Option<usize>,
    post: bool,
    out: &mut Vec<Vec<u8>>,
) {
    out.push([b"pre ", shown].concat());
    let is_dir = fs::symlink_metadata(dir).unwrap().is_dir();
    if is_dir && max.is_none_or(|m| depth < m) {
        let mut names: Vec<_> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        for name in names {
            let shown = [shown, b"/", name.as_bytes()].concat();
            naive(&dir.join(&name), &shown, depth + 1, max, post, out);
        }
    }
    if is_dir && post {
        out.push([b"post ", shown].concat());
    }
}

/// Names that sort in tricky ways: prefixes, `-` and `.` below `/`, bytes
/// above 0x80, case, spaces; wide directories (several file batches),
/// empty directories and a deep chain.
fn make_tree(root: &Path) {
    let file = |rel: &[u8], body: &[u8]| {
        let p = root.join(OsStr::from_bytes(rel));
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    };
    let dir = |rel: &[u8]| fs::create_dir_all(root.join(OsStr::from_bytes(rel))).unwrap();
    for name in [
        &b"a.c"[..],
        b"a-b",
        b"a/b",
        b"a/b.c",
        b"a0/x",
        b"A",
        b"B",
        b"b",
        b"Makefile",
        b"makefile",
        b"a b",
        b"\xc3\xa9t\xc3\xa9",
        b"\x80",
        b"\xff/\xfe",
        b"z/\x7f",
        b"z/~",
    ] {
        file(name, b"x\n");
    }
    for e in ["empty", "a/empty", "z/y/empty"] {
        dir(e.as_bytes());
    }
    for d in 0..12 {
        for s in 0..(d % 4) {
            for f in 0..(d * 7 % 40) {
                file(format!("tree/d{d:02}/s{s}/f{f:02}").as_bytes(), b"x\n");
            }
        }
        for f in 0..(d * 5) {
            file(format!("tree/d{d:02}/g{f:03}").as_bytes(), b"x\n");
        }
    }
    for f in 0..700 {
        file(format!("wide/w{:04}", (f * 7919) % 700).as_bytes(), b"");
    }
    let mut chain = b"deep".to_vec();
    for i in 0..60 {
        chain.extend_from_slice(format!("/l{i}").as_bytes());
    }
    chain.extend_from_slice(b"/leaf");
    file(&chain, b"x\n");
}

/// A cheap, deterministic pseudo-random number from a path.
fn hash(p: &[u8]) -> u64 {
    p.iter().fold(0xcbf29ce484222325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
}

/// Hands over one record per visit, and sometimes dawdles so that threads
/// finish out of order.
struct Records<'a> {
    out: Vec<u8>,
    written: &'a Mutex<Vec<u8>>,
    visited: Vec<Vec<u8>>,
    /// Quit at this entry, and count the visits that start after it.
    quit_at: Option<(&'a [u8], &'a AtomicUsize)>,
}

impl<'a> Records<'a> {
    fn new(written: &'a Mutex<Vec<u8>>) -> Self {
        Records { out: Vec::new(), written, visited: Vec::new(), quit_at: None }
    }

    fn record(&mut self, what: &[u8], e: &Entry<'_>) -> WalkState {
        if let Some((_, after)) = self.quit_at {
            if after.load(Ordering::SeqCst) > 0 {
                after.fetch_add(1, Ordering::SeqCst);
            }
        }
        let rec = [what, e.path(), b"\n"].concat();
        self.visited.push(rec[..rec.len() - 1].to_vec());
        self.out.extend_from_slice(&rec);
        if hash(e.path()).is_multiple_of(61) {
            std::thread::sleep(Duration::from_millis(3));
        }
        match self.quit_at {
            Some((at, after)) if at == e.path() => {
                after.store(1, Ordering::SeqCst);
                WalkState::Quit
            }
            _ => WalkState::Continue,
        }
    }
}

impl Visitor for Records<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        self.record(b"pre ", e)
    }
    fn visit_dir_end(&mut self, e: &Entry<'_>) -> WalkState {
        self.record(b"post ", e)
    }
    fn error(&mut self, err: WalkError) -> WalkState {
        panic!("unexpected walk error: {err}");
    }
    fn take_output(&mut self, out: &mut Pieces) {
        if !self.out.is_empty() {
            let end = self.out.len();
            out.append(&mut self.out, [(end, 0)]);
        }
    }
    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        let mut written = self.written.lock().unwrap();
        for p in pieces {
            written.extend_from_slice(p.bytes);
        }
        WalkState::Continue
    }
}

fn lines(b: &[u8]) -> Vec<Vec<u8>> {
    b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).map(<[u8]>::to_vec).collect()
}

fn show(v: &[Vec<u8>]) -> Vec<String> {
    v.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect()
}

/// Runs a sorted walk of `roots` (shown as given) and returns what was
/// written, and the visits of each thread.
fn sorted_walk(
    roots: &[(&Path, &str)],
    threads: usize,
    configure: impl Fn(&mut WalkBuilder),
) -> (Vec<Vec<u8>>, Vec<Vec<Vec<u8>>>) {
    let written = Mutex::new(Vec::new());
    let mut w = WalkBuilder::new();
    for (p, shown) in roots {
        w.add_root_displayed(p.as_os_str().as_bytes(), shown.as_bytes());
    }
    w.sorted(true).threads(threads);
    configure(&mut w);
    let visitors = w.run(|_| Records::new(&written));
    assert_eq!(visitors.len(), threads);
    let visits = visitors.into_iter().map(|v| v.visited).collect();
    (lines(&written.into_inner().unwrap()), visits)
}

#[test]
fn sorted_walk_writes_in_naive_sorted_order_on_any_number_of_threads() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    for post in [false, true] {
        let mut want = Vec::new();
        naive(tmp.path(), b"r", 0, None, post, &mut want);
        for threads in [1, 2, 4, 8] {
            for _ in 0..3 {
                let (got, visits) = sorted_walk(&[(tmp.path(), "r")], threads, |w| {
                    w.post_order(post);
                });
                assert!(got == want, "{threads} threads, post {post}: {:#?}", diff(&got, &want));
                // Every entry visited exactly once.
                let mut all: Vec<Vec<u8>> = visits.concat();
                all.sort();
                let mut sorted_want = want.clone();
                sorted_want.sort();
                assert_eq!(all, sorted_want);
            }
        }
    }
}

/// The first difference, for failure messages.
fn diff(got: &[Vec<u8>], want: &[Vec<u8>]) -> String {
    let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(got.len().min(want.len()));
    let lo = at.saturating_sub(3);
    format!(
        "first difference at record {at} of {} (want {}):\n got: {:#?}\nwant: {:#?}",
        got.len(),
        want.len(),
        show(&got[lo..(at + 3).min(got.len())]),
        show(&want[lo..(at + 3).min(want.len())])
    )
}

#[test]
fn sorted_walk_on_one_thread_visits_in_walk_order() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    for post in [false, true] {
        let mut want = Vec::new();
        naive(tmp.path(), b"r", 0, None, post, &mut want);
        let (_, visits) = sorted_walk(&[(tmp.path(), "r")], 1, |w| {
            w.post_order(post);
        });
        assert!(visits[0] == want, "{}", diff(&visits[0], &want));
    }
}

#[test]
fn sorted_walk_keeps_roots_in_order_and_honours_max_depth() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let (tree, a, wide) = (tmp.path().join("tree"), tmp.path().join("a"), tmp.path().join("wide"));
    let file = tmp.path().join("a.c");
    let roots = [(&*tree, "t"), (&*file, "f"), (&*a, "a"), (&*wide, "w")];
    for max in [None, Some(0), Some(1), Some(2)] {
        let mut want = Vec::new();
        for (p, shown) in roots {
            naive(p, shown.as_bytes(), 0, max, false, &mut want);
        }
        for threads in [1, 3, 8] {
            let (got, _) = sorted_walk(&roots, threads, |w| {
                w.max_depth(max);
            });
            assert!(got == want, "max depth {max:?}, {threads} threads: {}", diff(&got, &want));
        }
    }
}

#[test]
fn a_growing_sorted_walk_writes_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut want = Vec::new();
    naive(tmp.path(), b"r", 0, None, false, &mut want);
    for grow_at_once in [false, true] {
        let written = Mutex::new(Vec::new());
        let blocked = trawl_walk::GrowthSignal::new();
        if grow_at_once {
            blocked.set();
        }
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").sorted(true).threads(2);
        let visitors = w.run_growing(8, &blocked, |_| Records::new(&written));
        assert_eq!(visitors.len(), if grow_at_once { 8 } else { 2 });
        drop(visitors);
        let got = lines(&written.into_inner().unwrap());
        assert!(got == want, "grown {grow_at_once}: {}", diff(&got, &want));
    }
}

#[test]
fn quitting_stops_the_walk_and_keeps_what_was_written_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut want = Vec::new();
    naive(tmp.path(), b"r", 0, None, false, &mut want);
    let stop = b"r/tree/d05/g010".to_vec();
    for threads in [1, 4] {
        let written = Mutex::new(Vec::new());
        let after = AtomicUsize::new(0);
        let mut w = WalkBuilder::new();
        w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r").sorted(true).threads(threads);
        w.run(|_| Records { quit_at: Some((&stop, &after)), ..Records::new(&written) });
        let got = lines(&written.into_inner().unwrap());
        assert!(want.starts_with(&got), "{}", diff(&got, &want));
        // After the quit, other threads end the item they are in (at most
        // 256 files) and take no other.
        let after = after.load(Ordering::SeqCst) - 1;
        assert!(after <= (threads - 1) * 256, "{after} visits after quitting");
    }
}

/// Each visit makes this much output.
const ENTRY_OUTPUT: usize = 1024;

/// The first entry blocks for a while; the others each make 1 KiB of output.
/// Counts what the walk holds: handed over and not yet written.
struct Slow<'a> {
    out: Vec<u8>,
    handed: &'a AtomicUsize,
    written: &'a AtomicUsize,
    peak: &'a AtomicUsize,
    order: &'a Mutex<Vec<u8>>,
}

impl Visitor for Slow<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        if e.file_type().is_dir() {
            return WalkState::Continue;
        }
        if e.path().ends_with(b"/0000") {
            std::thread::sleep(Duration::from_millis(400));
        }
        let mut rec = e.path().to_vec();
        rec.resize(ENTRY_OUTPUT - 1, b' ');
        rec.push(b'\n');
        self.out.extend_from_slice(&rec);
        WalkState::Continue
    }
    fn error(&mut self, err: WalkError) -> WalkState {
        panic!("unexpected walk error: {err}");
    }
    fn take_output(&mut self, out: &mut Pieces) {
        let n = self.out.len();
        if n > 0 {
            out.append(&mut self.out, [(n, 0)]);
        }
        let handed = self.handed.fetch_add(n, Ordering::SeqCst) + n;
        let held = handed - self.written.load(Ordering::SeqCst);
        self.peak.fetch_max(held, Ordering::SeqCst);
    }
    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        for piece in pieces {
            let output = piece.bytes;
            assert!(!output.is_empty());
            self.order.lock().unwrap().extend_from_slice(output);
            self.written.fetch_add(output.len(), Ordering::SeqCst);
        }
        WalkState::Continue
    }
}

#[test]
fn a_slow_first_entry_holds_back_at_most_the_reorder_buffer() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("0000"), b"").unwrap();
    // Directories of 48 files: on 4 threads, items of 16 files.
    let (dirs, files, per_item) = (80, 48, 16);
    for d in 0..dirs {
        for f in 0..files {
            let p = tmp.path().join(format!("d{d:02}/f{f:02}"));
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, b"").unwrap();
        }
    }
    let total = (1 + dirs * files) * ENTRY_OUTPUT;
    let limit = 64 * 1024;
    let threads = 4;
    let (handed, written, peak) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let order = Mutex::new(Vec::new());
    let mut w = WalkBuilder::new();
    w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r")
        .sorted(true)
        .threads(threads)
        .reorder_buffer(limit);
    w.run(|_| Slow {
        out: Vec::new(),
        handed: &handed,
        written: &written,
        peak: &peak,
        order: &order,
    });
    assert_eq!(written.load(Ordering::SeqCst), total);
    let mut want = vec![b"r/0000".to_vec()];
    for d in 0..dirs {
        want.extend((0..files).map(|f| format!("r/d{d:02}/f{f:02}").into_bytes()));
    }
    let got: Vec<Vec<u8>> = lines(&order.into_inner().unwrap())
        .into_iter()
        .map(|l| l.trim_ascii_end().to_vec())
        .collect();
    assert!(got == want, "{}", diff(&got, &want));
    // Held: under the limit, plus what the threads in flight made (an item
    // each, counted here before the walk counts it), plus the items that
    // pushed the total over.
    let bound = limit + 2 * threads * per_item * ENTRY_OUTPUT;
    let peak = peak.load(Ordering::SeqCst);
    assert!(peak <= bound, "held {peak} bytes, bound {bound} (all output: {total})");
}

/// Records, written at once while the walk gives the visit its turn
/// (what was held of the item first), else handed over.
struct Turned<'a> {
    records: Records<'a>,
    turn: trawl_walk::Turn,
    /// Records written under the turn.
    direct: &'a AtomicUsize,
}

impl Turned<'_> {
    fn write_if_mine(&mut self) {
        if self.turn.is_mine() && !self.records.out.is_empty() {
            let n = self.records.out.iter().filter(|&&b| b == b'\n').count();
            self.direct.fetch_add(n, Ordering::SeqCst);
            self.records.written.lock().unwrap().append(&mut self.records.out);
        }
    }
}

impl Visitor for Turned<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        // Before and after: a turn may come while the visit runs.
        self.write_if_mine();
        let state = self.records.visit(e);
        self.write_if_mine();
        state
    }
    fn error(&mut self, err: WalkError) -> WalkState {
        self.records.error(err)
    }
    fn take_output(&mut self, out: &mut Pieces) {
        self.records.take_output(out)
    }
    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        self.records.write_output(pieces)
    }
    fn turn(&self) -> Option<trawl_walk::Turn> {
        Some(self.turn.clone())
    }
}

#[test]
fn visits_given_the_turn_write_at_once_and_the_order_stays_the_walks() {
    let tmp = tempfile::tempdir().unwrap();
    make_tree(tmp.path());
    let mut want = Vec::new();
    naive(tmp.path(), b"r", 0, None, false, &mut want);
    for threads in [1, 2, 4, 8] {
        for _ in 0..3 {
            let written = Mutex::new(Vec::new());
            let direct = AtomicUsize::new(0);
            let mut w = WalkBuilder::new();
            w.add_root_displayed(tmp.path().as_os_str().as_bytes(), b"r");
            w.sorted(true).threads(threads);
            w.run(|_| Turned {
                records: Records::new(&written),
                turn: trawl_walk::Turn::new(),
                direct: &direct,
            });
            let got = lines(&written.into_inner().unwrap());
            assert_eq!(show(&got), show(&want), "{threads} threads");
            // On one thread every visit is under the cursor.
            let direct = direct.load(Ordering::SeqCst);
            match threads {
                1 => assert_eq!(direct, want.len()),
                _ => assert!(direct > 0, "{threads} threads: no visit had the turn"),
            }
        }
    }
}

#[test]
fn listed_directories_are_taken_where_their_entries_come_in_a_sorted_walk() {
    use std::ffi::CString;
    use trawl_walk::{Descent, FileType, Itself, ListedDir, Opening};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for (rel, body) in [
        ("a.txt", "x"),
        ("b/c.txt", "x"),
        ("b/d/e.txt", "x"),
        ("b2.txt", "x"),
        ("c/new/f.txt", "x"),
    ] {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, body).unwrap();
    }
    let mut want = Vec::new();
    naive(root, b"r", 0, None, false, &mut want);
    // The root itself is not visited.
    want.remove(0);
    let entry = |name: &str, t: FileType, d: Descent| (CString::new(name).unwrap(), t, d);
    let (file, dir) = (FileType::File, FileType::Dir);
    let listed = [
        // Added deepest first: the walk nests them by their displays.
        ("b/d", 2, vec![entry("e.txt", file, Descent::Walked)]),
        (
            "",
            0,
            vec![
                entry("c", dir, Descent::Walked),
                entry("a.txt", file, Descent::Walked),
                entry("b2.txt", file, Descent::Walked),
                entry("b", dir, Descent::Listed),
            ],
        ),
        ("b", 1, vec![entry("d", dir, Descent::Listed), entry("c.txt", file, Descent::Walked)]),
    ];
    for threads in [1, 2, 4] {
        let written = Mutex::new(Vec::new());
        let mut w = WalkBuilder::new();
        for (rel, depth, children) in &listed {
            let join = |base: &[u8]| match rel.is_empty() {
                true => base.to_vec(),
                false => [base, b"/", rel.as_bytes()].concat(),
            };
            w.add_listed(ListedDir {
                path: &join(root.as_os_str().as_bytes()),
                display: &join(b"r"),
                depth: *depth,
                children: children.clone(),
                opening: Opening::Now,
                itself: Itself::NotVisited,
            });
        }
        w.sorted(true).threads(threads);
        w.run(|_| Records::new(&written));
        let got = lines(&written.into_inner().unwrap());
        assert_eq!(show(&got), show(&want), "{threads} threads");
    }
}
