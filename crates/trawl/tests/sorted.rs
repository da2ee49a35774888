//! `--sort path` (grep) and `trawl find --sort`: searched in parallel, written
//! in walk order (depth first, each directory's entries by name bytes).
//!
//! The reference for grep is GNU grep given the files in walk order, as
//! computed here with std::fs: it prints them in that order, with `--`
//! between context groups of different files. Runs on 1 to 8 threads and
//! with the default (growing) thread count must equal it byte for byte.

use std::ffi::OsStr;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{clip, Cmd, Run, Tree, HANG};

/// Thread options every comparison runs with (none: the default count,
/// which grows when reads wait on the disk).
const THREADS: [&[&str]; 5] = [&["-j", "1"], &["-j", "2"], &["-j", "3"], &["-j", "8"], &[]];

/// A file's lines: some match `needle`, in varying places, so that context
/// groups start and end at different lines; a few files have no match.
fn body(k: usize) -> String {
    (0..k % 7 + 1)
        .map(|i| {
            if (k + i).is_multiple_of(3) {
                format!("needle {k} {i}\n")
            } else {
                format!("hay {k} {i}\n")
            }
        })
        .collect()
}

/// Names that sort in tricky ways (prefixes; `-`, ` ` and `.` below `/`;
/// bytes above 0x80; case), many directories, file batches, empty
/// directories and a deep chain.
fn tree(ascii_only: bool) -> Tree {
    let t = Tree::new();
    let mut k = 0;
    let mut add = |rel: &[u8]| {
        t.file_bytes(rel, body(k));
        k += 1;
    };
    for name in [
        &b"a/b"[..],
        b"a/b.c",
        b"a.c",
        b"a-b",
        b"a b",
        b"a0/x",
        b"A",
        b"B",
        b"b",
        b"Makefile",
        b"makefile",
        b"z/~",
        b"z/y/x",
    ] {
        add(name);
    }
    if !ascii_only {
        for name in [&b"\xc3\xa9t\xc3\xa9"[..], b"\x80", b"\xff/\xfe", b"z/\x7f"] {
            add(name);
        }
    }
    for d in 0..12 {
        for s in 0..d % 4 {
            for f in 0..d * 5 % 23 {
                add(format!("tree/d{d:02}/s{s}/f{f:02}").as_bytes());
            }
        }
        for f in 0..d * 3 {
            add(format!("tree/d{d:02}/g{f:02}.c").as_bytes());
        }
    }
    for f in 0..120 {
        add(format!("wide/w{:03}", f * 37 % 120).as_bytes());
    }
    let mut chain = "deep".to_string();
    for i in 0..40 {
        chain += &format!("/l{i}");
    }
    add(format!("{chain}/leaf").as_bytes());
    for e in ["empty", "a/empty", "tree/d05/empty"] {
        t.dir(e);
    }
    t
}

/// The regular files under `dir` (shown as `shown`), in walk order.
fn files_in_walk_order(dir: &Path, shown: &[u8], out: &mut Vec<Vec<u8>>) {
    let meta = fs::symlink_metadata(dir).unwrap();
    if meta.is_file() {
        out.push(shown.to_vec());
    }
    if !meta.is_dir() {
        return;
    }
    let mut names: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for name in names {
        let shown = [shown, b"/", name.as_bytes()].concat();
        files_in_walk_order(&dir.join(&name), &shown, out);
    }
}

/// GNU grep with `args`, then the files of each root in walk order.
fn grep_in_walk_order(t: &Tree, args: &[&str], roots: &[&str]) -> Run {
    let mut files = Vec::new();
    for root in roots {
        files_in_walk_order(&t.path().join(root), root.as_bytes(), &mut files);
    }
    let g = t.grep().args(args).arg_bytes(&files).run();
    assert!(g.code < 2, "grep failed (a test bug): {}\n{}", g.cmdline, clip(&g.stderr));
    g
}

trait ArgBytes {
    fn arg_bytes(self, args: &[Vec<u8>]) -> Self;
}

impl ArgBytes for Cmd {
    fn arg_bytes(self, args: &[Vec<u8>]) -> Self {
        self.args(args.iter().map(|a| OsStr::from_bytes(a)))
    }
}

/// trawl `--sort path` with `threads`, `args` and the roots.
fn trawl_sorted(t: &Tree, threads: &[&str], args: &[&str], roots: &[&str]) -> Run {
    t.trawl().args(["--sort", "path"]).args(threads).args(args).args(roots).run()
}

fn assert_same(got: &Run, want: &Run) {
    assert!(
        got.stdout == want.stdout,
        "`{}` differs from `{}`\n--- want:\n{}\n--- got:\n{}\n--- stderr:\n{}",
        got.cmdline,
        want.cmdline,
        clip(&want.stdout),
        clip(&got.stdout),
        clip(&got.stderr)
    );
    assert_eq!(got.code, want.code, "exit code of `{}`", got.cmdline);
    got.assert_no_stderr();
}

#[test]
fn sort_path_equals_grep_over_the_files_in_walk_order() {
    let t = tree(false);
    for args in [
        &["-n", "needle"][..],
        &["-c", "needle"],
        &["-l", "needle"],
        &["-L", "needle"],
        &["-o", "-b", "needle [0-9]*"],
        &["-n", "-C1", "needle"],
        &["-A2", "needle"],
        &["-v", "-n", "-B1", "needle"],
    ] {
        let want = grep_in_walk_order(&t, args, &["."]);
        assert!(!want.stdout.is_empty(), "no output from {}", want.cmdline);
        for threads in THREADS {
            assert_same(&trawl_sorted(&t, threads, args, &["."]), &want);
        }
    }
}

#[test]
fn sort_path_keeps_the_order_of_roots_after_standard_input() {
    let t = tree(false);
    let roots = ["tree/d05", "a.c", "wide", "a"];
    let args = ["-n", "-C1", "needle"];
    let mut files = Vec::new();
    for root in roots {
        files_in_walk_order(&t.path().join(root), root.as_bytes(), &mut files);
    }
    let stdin = "hay\nneedle from stdin\nhay\n";
    let want = t.grep().args(args).args(["-"]).arg_bytes(&files).stdin(stdin).run();
    for threads in THREADS {
        let got = t
            .trawl()
            .args(["--sort", "path"])
            .args(threads)
            .args(args)
            .args(["-"])
            .args(roots)
            .stdin(stdin)
            .run();
        assert_same(&got, &want);
    }
}

/// Each file's messages (`begin` to `end`), keyed by the `begin` line.
fn json_files(out: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut files: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for line in out.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(br#"{"type":"begin""#) {
            files.push((line.to_vec(), Vec::new()));
        }
        if line.starts_with(br#"{"type":"summary""#) {
            continue;
        }
        let line = without_elapsed(line);
        files.last_mut().expect("a message before any begin").1.extend_from_slice(&line);
    }
    files
}

/// A JSON line without its `"elapsed":{...},` field (a time, which
/// differs from run to run).
fn without_elapsed(line: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b"\"elapsed\":{";
    match line.windows(KEY.len()).position(|w| w == KEY) {
        Some(at) => {
            let close = line[at..].iter().position(|&b| b == b'}').expect("the field's end") + at;
            let end = if line.get(close + 1) == Some(&b',') { close + 2 } else { close + 1 };
            [&line[..at], &line[end..]].concat()
        }
        None => line.to_vec(),
    }
}

#[test]
fn sort_path_json_is_the_unsorted_json_in_walk_order() {
    let t = tree(true);
    let args = ["--json", "needle", "."];
    // The order: the files with a match, in walk order.
    let order = grep_in_walk_order(&t, &["-l", "needle"], &["."]);
    let unsorted = json_files(&t.trawl().args(["-j", "4"]).args(args).run().stdout);
    let mut want = Vec::new();
    for path in crate::util::lines(&order.stdout) {
        let begin = format!(
            "{{\"type\":\"begin\",\"data\":{{\"path\":{{\"text\":\"{}\"}}}}}}\n",
            String::from_utf8(path.to_vec()).unwrap()
        );
        let (_, messages) = unsorted
            .iter()
            .find(|(b, _)| *b == begin.as_bytes())
            .unwrap_or_else(|| panic!("no JSON for {begin}"));
        want.extend_from_slice(messages);
    }
    assert_eq!(unsorted.len(), crate::util::lines(&order.stdout).len());
    for threads in THREADS {
        let got = trawl_sorted(&t, threads, &args[..2], &["."]);
        got.assert_code(0).assert_no_stderr();
        let end = got.stdout.len().saturating_sub(1);
        let cut = got.stdout[..end].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let (body, summary) = got.stdout.split_at(cut);
        assert!(summary.starts_with(br#"{"type":"summary""#), "{}", clip(summary));
        let body: Vec<u8> =
            body.split_inclusive(|&b| b == b'\n').flat_map(without_elapsed).collect();
        assert!(
            body == want,
            "--json, {threads:?}\n--- want:\n{}\n--- got:\n{}",
            clip(&want),
            clip(&body)
        );
    }
}

/// The unsorted output's lines, stably sorted by their file's path
/// (component by component): the order --sort path must give.
fn in_walk_order(unsorted: &[u8]) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = unsorted.split_inclusive(|&b| b == b'\n').collect();
    lines.sort_by(|a, b| {
        let path = |l: &[u8]| l[..l.iter().position(|&c| c == b':').unwrap()].to_vec();
        let (pa, pb) = (path(a), path(b));
        pa.split(|&c| c == b'/').cmp(pb.split(|&c| c == b'/'))
    });
    lines.concat()
}

#[test]
fn sort_path_with_max_depth_links_ignore_files_and_globs() {
    let t = tree(true);
    t.symlink("../tree/d07", "links/to_dir");
    t.symlink("../a.c", "links/to_file");
    t.symlink("../../tree", "tree/d03/up");
    t.file(".gitignore", "wide/w0*\n*.c\n");
    t.file("tree/.gitignore", "d1*\n");
    for args in [
        &["--max-depth", "2"][..],
        &["-R"],
        &["--gitignore"],
        &["--include", "*.c", "--exclude-dir", "d0[3-6]"],
    ] {
        let unsorted = t.trawl().args(["-j", "4", "-n"]).args(args).args(["needle", "."]).run();
        let want = in_walk_order(&unsorted.stdout);
        assert!(!want.is_empty());
        for threads in THREADS {
            let got = trawl_sorted(&t, threads, &[&["-n"], args, &["needle"]].concat(), &["."]);
            assert!(
                got.stdout == want,
                "`{}`\n--- want:\n{}\n--- got:\n{}",
                got.cmdline,
                clip(&want),
                clip(&got.stdout)
            );
            assert_eq!(got.code, unsorted.code);
            assert_eq!(got.stderr, unsorted.stderr, "stderr of `{}`", got.cmdline);
        }
    }
}

/// Opens `fifo` for writing once a reader has it open, waits, writes
/// `text` and closes it.
fn feed_fifo_later(fifo: &Path, text: &'static str) -> std::thread::JoinHandle<()> {
    let fifo = fifo.to_owned();
    std::thread::spawn(move || {
        let start = Instant::now();
        let mut f = loop {
            // Non-blocking: fails with ENXIO until trawl opens the FIFO.
            match fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&fifo) {
                Ok(f) => break f,
                Err(_) if start.elapsed() < Duration::from_secs(20) => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(e) => panic!("nobody opened the FIFO: {e}"),
            }
        };
        std::thread::sleep(Duration::from_millis(300));
        f.write_all(text.as_bytes()).unwrap();
    })
}

/// Regression guard for the reorder buffer: the first file named blocks
/// (a FIFO nobody writes to yet) while the other threads search the tree;
/// its output must still come first, and the rest in walk order.
#[test]
fn a_slow_first_file_does_not_break_the_order() {
    let t = tree(false);
    t.fifo("slow");
    let args = ["-n", "-C1", "needle"];
    let mut want = grep_in_walk_order(&t, &[&args[..], &["-H"]].concat(), &["tree", "wide"]);
    let first = b"slow-1-hay\nslow:2:needle from the FIFO\n--\n";
    want.stdout.splice(0..0, first.iter().copied());
    for threads in [&["-j", "4"][..], &[]] {
        let feeder = feed_fifo_later(&t.path().join("slow"), "hay\nneedle from the FIFO\n");
        let got = trawl_sorted(&t, threads, &args, &["slow", "tree", "wide"]);
        feeder.join().unwrap();
        assert_same(&got, &want);
    }
}

#[test]
fn sort_path_quiet_stops_at_the_first_match() {
    let t = tree(false);
    for threads in THREADS {
        let r = trawl_sorted(&t, threads, &["-q", "needle"], &["."]);
        r.assert_code(0).assert_stdout("").assert_no_stderr();
        let r = trawl_sorted(&t, threads, &["-q", "no such text"], &["."]);
        r.assert_code(1).assert_stdout("").assert_no_stderr();
    }
}

/// A closed pipe ends a sorted run quietly, soon, with the first line
/// being the first in walk order.
#[test]
fn sort_path_ends_by_sigpipe_on_a_broken_pipe() {
    let t = Tree::new();
    let body: String = (0..20).map(|i| format!("line {i} has an e in it\n")).collect();
    for d in (0..30).rev() {
        for f in 0..100 {
            t.file(format!("dir{d:02}/file{f:03}.txt"), &body);
        }
    }
    for threads in [&["-j", "4"][..], &[]] {
        let mut c = Cmd::trawl(t.path())
            .args(["--sort", "path"])
            .args(threads)
            .args(["-n", "e", "."])
            .command();
        c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = Vec::new();
        out.read_until(b'\n', &mut first).unwrap();
        assert_eq!(first, b"./dir00/file000.txt:1:line 0 has an e in it\n");
        drop(out);
        let closed = Instant::now();
        let status = loop {
            if let Some(st) = child.try_wait().unwrap() {
                break st;
            }
            if closed.elapsed() > HANG {
                let _ = child.kill();
                panic!(
                    "trawl --sort path {threads:?} still running {HANG:?} after its pipe closed"
                );
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut err = Vec::new();
        std::io::Read::read_to_end(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        // As grep with SIGPIPE at its default (as Command leaves it): the
        // signal ends it, silently.
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGPIPE), "exit {status:?}");
        assert!(err.is_empty(), "stderr: {}", clip(&err));
    }
}

// ---------------------------------------------------------------------
// trawl find --sort

/// Paths in walk order (directories too), as find prints them.
fn entries_in_walk_order(dir: &Path, shown: &[u8], post: bool, out: &mut Vec<Vec<u8>>) {
    let is_dir = fs::symlink_metadata(dir).unwrap().is_dir();
    if !(post && is_dir) {
        out.push(shown.to_vec());
    }
    if !is_dir {
        return;
    }
    let mut names: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    for name in names {
        let shown = [shown, b"/", name.as_bytes()].concat();
        entries_in_walk_order(&dir.join(&name), &shown, post, out);
    }
    if post {
        out.push(shown.to_vec());
    }
}

fn records(paths: &[Vec<u8>], end: u8) -> Vec<u8> {
    paths.iter().flat_map(|p| [&p[..], &[end]].concat()).collect()
}

/// Printing only: evaluated in parallel, written in order.
#[test]
fn find_sort_prints_in_walk_order_on_any_number_of_threads() {
    let t = tree(false);
    for post in [false, true] {
        let mut all = Vec::new();
        entries_in_walk_order(t.path(), b".", post, &mut all);
        let want = records(&all, 0);
        let depth: &[&str] = if post { &["-depth"] } else { &[] };
        for threads in [&["-j", "1"][..], &["-j", "2"], &["-j", "8"], &[]] {
            let got = t
                .trawl()
                .args(["find"])
                .args(threads)
                .args(["--sort", "."])
                .args(depth)
                .args(["-print0"])
                .run();
            got.assert_code(0).assert_no_stderr().assert_stdout(&want);
        }
    }
    // -ls and -printf too; tests that read the file.
    let mut files = Vec::new();
    files_in_walk_order(t.path(), b".", &mut files);
    let matching: Vec<Vec<u8>> = files
        .into_iter()
        .filter(|p| {
            fs::read_to_string(t.path().join(OsStr::from_bytes(p))).unwrap().contains("needle 1")
        })
        .collect();
    let want: Vec<u8> = matching.iter().flat_map(|p| [b"[", &p[..], b"]\n"].concat()).collect();
    let got = t
        .trawl()
        .args(["find", "--sort", ".", "-type", "f", "-contains", "needle 1", "-printf", "[%p]\\n"])
        .run();
    got.assert_code(0).assert_no_stderr().assert_stdout(&want);
}

/// Actions with effects run on one thread, in walk order: a child's output
/// comes right after the line printed before it, and -quit stops at the
/// first entry in walk order.
#[test]
fn find_sort_runs_actions_in_walk_order() {
    let t = tree(true);
    let mut files = Vec::new();
    files_in_walk_order(t.path(), b".", &mut files);
    let c_files: Vec<&Vec<u8>> = files.iter().filter(|p| p.ends_with(b".c")).collect();
    let want: Vec<u8> =
        c_files.iter().flat_map(|p| [&p[..], b"\nfound ", &p[..], b"\n"].concat()).collect();
    let got = t
        .trawl()
        .args([
            "find", "--sort", ".", "-name", "*.c", "-print", "-exec", "echo", "found", "{}", ";",
        ])
        .run();
    got.assert_code(0).assert_no_stderr().assert_stdout(&want);
    let got = t.trawl().args(["find", "--sort", ".", "-name", "*.c", "-print", "-quit"]).run();
    got.assert_code(0).assert_no_stderr().assert_stdout([&c_files[0][..], b"\n"].concat());
}
