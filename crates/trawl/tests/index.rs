//! `trawl index`: builds a tree's index under `$XDG_CACHE_HOME/trawl`
//! (never in the tree), lists and drops it; searches it serves equal
//! searches without it (`--no-index`) after every kind of change to the
//! tree, with a damaged index, and after a build killed midway.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;

use crate::util::{clip, sorted_records, Cmd, Run, Tree};

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        out.push(e.file_name().to_string_lossy().into_owned());
        if e.file_type().unwrap().is_dir() {
            out.extend(
                listing(&e.path())
                    .into_iter()
                    .map(|n| format!("{}/{n}", e.file_name().to_string_lossy())),
            );
        }
    }
    out.sort();
    out
}

#[test]
fn an_index_is_built_listed_and_dropped_outside_the_tree() {
    let t = Tree::new();
    t.file("tree/a.c", "int main(void) { return PM_RESUME; }\n");
    t.file("tree/sub/b.txt", "nothing here\n");
    t.file_bytes(b"tree/sub/bin", b"\x00\x01binary PM_RESUME\n");
    let cache = t.path().join("cache").display().to_string();
    let before = listing(&t.path().join("tree"));
    // Older than the margin within which a file counts as changed.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let built = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "tree"]).run();
    // Quiet through a pipe.
    built.assert_code(0).assert_no_stderr().assert_stdout("");
    assert_eq!(listing(&t.path().join("tree")), before, "nothing written in the tree");
    let root = std::fs::canonicalize(t.path().join("tree")).unwrap();
    let status = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status"]).run();
    status.assert_code(0);
    let line = status.stdout_str();
    assert!(line.starts_with(&format!("{}\t", root.display())), "{line}");
    assert!(line.contains(&format!(" MiB\t{cache}/trawl/index/")), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");
    // With a path: checked against the tree.
    let fresh = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status", "tree"]).run();
    fresh.assert_code(0);
    assert!(
        fresh.stdout_str().starts_with("tree: up to date (2 directories, 4 entries checked in "),
        "{}",
        fresh.stdout_str()
    );
    t.file("tree/sub/b.txt", "changed text\n");
    t.file("tree/new.txt", "new\n");
    // (b.txt's stamps changed, or it is racy: changed either way.)
    let stale = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status", "tree"]).run();
    assert!(
        stale.stdout_str().starts_with("tree: 1 directory and 1 file changed ("),
        "{}",
        stale.stdout_str()
    );
    // Built again: a new generation replaces the old.
    t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "tree"]).run().assert_code(0);
    let stores = listing(&t.path().join("cache/trawl/index"));
    assert_eq!(stores.iter().filter(|n| n.ends_with("/gen-2")).count(), 1, "{stores:?}");
    assert!(!stores.iter().any(|n| n.ends_with("/gen-1")), "{stores:?}");
    let dropped = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--drop", "tree"]).run();
    dropped.assert_code(0).assert_no_stderr();
    let again = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--drop", "tree"]).run();
    again.assert_code(2);
    assert_eq!(again.stderr_str(), "trawl: tree: no index\n");
    let none = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status"]).run();
    none.assert_code(0).assert_stdout(format!("no index under {cache}/trawl/index\n"));
    let missing = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "nowhere"]).run();
    missing.assert_code(2);
    assert_eq!(missing.stderr_str(), "trawl: nowhere: No such file or directory\n");
}

// ---------------------------------------------------------------------
// Searches served by the index.

const WORDS: [&str; 16] = [
    "static",
    "int",
    "PM_RESUME",
    "pm_suspend",
    "linus",
    "Linus",
    "TORVALDS",
    "foo_bar",
    "ewd@cs.example.org",
    "x+y=z",
    "naïve",
    "(void)",
    "return",
    "abc",
    "abd",
    "xyz7",
];

#[test]
fn a_build_shows_its_progress_on_a_terminal() {
    let t = Tree::new();
    t.file("tree/a.c", "int main(void) { return PM_RESUME; }\n");
    t.file("tree/sub/b.txt", "nothing here\n");
    let cache = t.path().join("cache").display().to_string();
    // Through a pseudo-terminal (script(1)): the build's summary, on
    // standard error.
    let trawl = env!("CARGO_BIN_EXE_trawl");
    let r = Cmd::new("script", t.path())
        .env("XDG_CACHE_HOME", &cache)
        .args(["-qec", &format!("'{trawl}' index tree"), "/dev/null"])
        .run();
    r.assert_code(0);
    let shown = r.stdout_str();
    assert!(
        shown.contains("trawl: indexed tree: 2 files, 2 directories, 0.0 MB read, in "),
        "{shown}"
    );
    // Through a pipe: nothing.
    t.trawl()
        .env("XDG_CACHE_HOME", &cache)
        .args(["index", "--full", "tree"])
        .run()
        .assert_code(0)
        .assert_no_stderr();
}

/// `n` bytes that look random (as compressed data), with `word` in the
/// middle.
fn noise(n: usize, word: Option<&[u8]>) -> Vec<u8> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
    let mut out: Vec<u8> = (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    if let Some(w) = word {
        out[n / 2..n / 2 + w.len()].copy_from_slice(w);
    }
    out
}

/// A tree of 150 source-like files in `tree/` (words from WORDS, a binary
/// file, a symlink, an empty file, a name that is not UTF-8, a FIFO), with
/// its own cache, indexed.
struct Indexed {
    t: Tree,
    cache: String,
}

impl Indexed {
    fn new() -> Indexed {
        let t = Tree::new();
        for i in 0..150usize {
            let mut text = String::new();
            for l in 0..(i % 7 + 1) {
                let w: Vec<&str> =
                    (0..4).map(|k| WORDS[(i * 5 + l * 3 + k * k) % WORDS.len()]).collect();
                text.push_str(&w.join(" "));
                text.push('\n');
            }
            t.file(format!("tree/d{}/e{}/f{i}.c", i % 5, i % 3), text);
        }
        t.file_bytes(b"tree/bin.dat", b"\x00\x01binary PM_RESUME linus\n");
        t.file("tree/d3/e1/rare.c", "Dijkstra was here\n");
        // Bytes that look random (as compressed data): not posted, but
        // filtered; a word in the middle of them.
        t.file_bytes(b"tree/d4/noise.bin", noise(300_000, Some(b"Zanzibar")));
        t.file("tree/empty", "");
        t.file("tree/.hidden/h.txt", "hidden linus\n");
        t.file_bytes(b"tree/d1/odd\xff.txt", b"odd name linus\n");
        t.symlink("d0/e0/f0.c", "tree/link.c");
        t.fifo("tree/d2/pipe");
        let cache = t.path().join("cache").display().to_string();
        let ix = Indexed { t, cache };
        ix.index();
        ix
    }

    /// Builds the index again, once what was just written is older than
    /// the margin within which a file counts as changed.
    fn index(&self) {
        std::thread::sleep(Duration::from_millis(1100));
        self.trawl().args(["index", "tree"]).run().assert_code(0).assert_no_stderr();
    }

    fn trawl(&self) -> Cmd {
        self.t.trawl().env("XDG_CACHE_HOME", &self.cache)
    }

    fn path(&self, rel: &str) -> std::path::PathBuf {
        self.t.path().join("tree").join(rel)
    }

    /// The search `args` of `tree` with and without the index: the same
    /// exit code, messages and output (records sorted by file); returns
    /// the indexed run.
    fn same(&self, args: &[&str]) -> Run {
        let sep = if args.contains(&"-z") || args.contains(&"-Z") { 0 } else { b'\n' };
        let run = |extra: &[&str]| self.trawl().args(extra).args(args).args(["tree"]).run();
        let (with, without) = (run(&["-r"]), run(&["-r", "--no-index"]));
        assert_eq!(with.code, without.code, "{args:?}: exit code\n{}", with.stderr_str());
        assert_eq!(
            sorted_records(&with.stdout, sep),
            sorted_records(&without.stdout, sep),
            "{args:?}: output\nwith the index:\n{}\nwithout:\n{}",
            clip(&with.stdout),
            clip(&without.stdout)
        );
        // (A damaged index's warning is the tests' to check.)
        let mut said = sorted_records(&with.stderr, b'\n');
        said.retain(|l| !l.starts_with(b"trawl: warning: index of "));
        assert_eq!(said, sorted_records(&without.stderr, b'\n'), "{args:?}: messages");
        with
    }

    /// How the index served a search (the JSON summary's `index`).
    fn served(&self, args: &[&str]) -> Option<serde_json::Value> {
        self.summary(args).get("index").cloned()
    }

    /// The JSON summary of a search of `tree`.
    fn summary(&self, args: &[&str]) -> serde_json::Value {
        let r = self.trawl().args(["-r", "--json"]).args(args).args(["tree"]).run();
        let out = r.stdout_str();
        let last =
            out.lines().rfind(|l| l.starts_with("{\"type\":\"summary\"")).unwrap_or_default();
        let v: serde_json::Value = serde_json::from_str(last).unwrap_or_else(|e| {
            panic!("summary {last:?}: {e}");
        });
        v["data"].clone()
    }
}

/// The searches an index must answer as a plain search does.
const CASES: [&[&str]; 47] = [
    &["PM_RESUME"],
    &["foobardoesnotexist"],
    &["-n", "linus"],
    &["-i", "linus"],
    &["-w", "-i", "LINUS"],
    &["-c", "PM_RESUME"],
    &["-l", "static int"],
    &["-L", "TORVALDS"],
    &["-o", "x\\+y=\\w"],
    &["-v", "-c", "a"],
    &["-v", "static"],
    &["^static int"],
    &["-x", "abc abd xyz7 static"],
    &["-E", "pm_(resume|suspend)"],
    &["-F", "-i", "-e", "pm_resume", "-e", "TORVALDS"],
    &["-n", "foo.*bar"],
    &["[0-9]{2,}"],
    &["-P", "(?<=foo_)bar"],
    &["-P", "\\blinus(?!\\w)"],
    &["-P", "(\\w+) \\1"],
    &["-G", "x+y=z"],
    &["-i", "NAÏVE"],
    &["naïve"],
    &["."],
    &["^$"],
    &["\\w+@\\w+\\.example"],
    &["-m1", "-n", "return"],
    &["-A1", "-B1", "PM_RESUME"],
    &["-b", "-o", "abd"],
    &["-e", "abcdefghij", "-e", "zyxwvu"],
    &["-w", "ab"],
    &["a|b|c"],
    &["-F", "(void)"],
    &["-z", "PM_RESUME"],
    &["-Z", "-l", "linus"],
    &["-I", "linus"],
    &["-a", "-c", "binary"],
    &["--include=*.c", "-l", "PM_RESUME"],
    &["--exclude-dir=d1", "-c", "-i", "linus"],
    &["--max-depth", "2", "-l", "linus"],
    &["--max-depth", "0", "linus"],
    &["-D", "read", "-l", "static"],
    &["-q", "TORVALDS"],
    &["-s", "-l", "linus"],
    // Three bytes the noise holds.
    &["-c", "-a", "-P", "\\x01\\x02"],
    &["-l", "-F", "xyz"],
    // A word in the noise: its filter admits it.
    &["-a", "-o", "Zanzibar"],
];

#[test]
fn an_indexed_search_equals_a_search_without_the_index() {
    let ix = Indexed::new();
    for args in CASES {
        ix.same(args);
    }
    // The index did serve them: a rare word opens its one file; the noise,
    // whose grams are filtered rather than posted, is opened only for a
    // word its filter admits.
    let served = ix.served(&["Dijkstra"]).expect("the index serves the search");
    assert_eq!(served["files_changed"], 0, "{served}");
    assert_eq!(served["files_candidates"], 1, "{served}");
    assert!(served["files_skipped"].as_u64().unwrap() > 150, "{served}");
    let none = ix.served(&["foobardoesnotexist"]).expect("served");
    assert_eq!(none["files_candidates"], 0, "{none}");
    let in_noise = ix.served(&["Zanzibar"]).expect("served");
    assert_eq!(in_noise["files_candidates"], 1, "the noise: {in_noise}");
    let r = ix.same(&["-a", "-c", "Zanzibar"]);
    assert!(r.stdout_str().contains("tree/d4/noise.bin:1\n"), "{}", r.stdout_str());
    // -v, and -c (which prints every file), read every file.
    assert_eq!(ix.served(&["-v", "static"]).unwrap()["files_skipped"], 0);
    let counted = ix.trawl().args(["-r", "--stats", "-c", "static", "tree"]).run();
    let text = counted.stdout_str();
    assert!(text.contains("\n0 files passed over by the index (they cannot match)\n"), "{text}");
    let rare = ix.trawl().args(["-r", "--stats", "Dijkstra", "tree"]).run();
    let text = rare.stdout_str();
    assert!(text.contains("\n1 files searched as the index's candidates\n"), "{text}");
    assert!(text.contains("\n0 files searched because they changed or are new\n"), "{text}");
    // --no-index: not served.
    assert_eq!(ix.served(&["--no-index", "TORVALDS"]), None);
    // A directory below the indexed root is served by its index.
    let r = ix.trawl().args(["-r", "--json", "linus", "tree/d1"]).run();
    assert!(r.stdout_str().contains("\"index\":{"), "{}", r.stdout_str());
    let (a, b) = (
        ix.trawl().args(["-r", "linus", "tree/d1"]).run(),
        ix.trawl().args(["-r", "--no-index", "linus", "tree/d1"]).run(),
    );
    assert_eq!(a.sorted_lines(), b.sorted_lines());
    // From inside the tree, no operand: names printed bare, as always.
    let inside = |extra: &[&str]| {
        Cmd::trawl(&ix.path(""))
            .env("XDG_CACHE_HOME", &ix.cache)
            .args(extra)
            .args(["-r", "-n", "linus"])
            .run()
    };
    assert_eq!(inside(&[]).sorted_lines(), inside(&["--no-index"]).sorted_lines());
    assert!(inside(&[]).stdout_str().lines().any(|l| l.starts_with("d0/")));
}

#[test]
fn binary_files_the_index_knows_are_skipped_with_dash_i_exactly_as_without_it() {
    let ix = Indexed::new();
    // A matching line first, then a NUL at offsets around the end of the
    // search's first read (256 KiB), in files small and big (a big one is
    // searched in parts); and a text file whose only NUL is far past it.
    let line = b"linus was here\n";
    for (name, nul_at, len) in [
        ("nul0", 0usize, 4096usize),
        ("nul100k", 100 << 10, 300 << 10),
        ("nul-edge", (256 << 10) - 1, 300 << 10),
        ("nul-past", 256 << 10, 300 << 10),
        ("nul-far", 3 << 20, 40 << 20),
        ("big-nul-early", 1000, 40 << 20),
    ] {
        let mut bytes = Vec::with_capacity(len);
        while bytes.len() < len {
            bytes.extend_from_slice(line);
        }
        bytes.truncate(len);
        bytes[nul_at] = 0;
        ix.t.file_bytes(format!("tree/bin/{name}").as_bytes(), &bytes);
    }
    ix.index();
    for args in [
        &["-I", "linus"][..],
        &["-I", "-l", "linus"],
        &["-I", "-c", "linus"],
        &["-I", "-L", "linus"],
        &["-I", "-v", "-l", "zzz"],
        &["-I", "-o", "-b", "was"],
        &["--binary-files=without-match", "-n", "PM_RESUME"],
        &["-l", "linus"],
    ] {
        ix.same(args);
    }
    // The binary files the index knows were passed over unopened.
    let candidates = |args: &[&str]| -> u64 {
        let r = ix.trawl().args(["-r", "--stats"]).args(args).args(["tree"]).run();
        let text = r.stdout_str();
        let line = text.lines().find(|l| l.ends_with(" files searched as the index's candidates"));
        let n = line.and_then(|l| l.split(' ').next()?.parse().ok());
        n.unwrap_or_else(|| panic!("{args:?}: {text}"))
    };
    let (plain, skipping) = (candidates(&["linus"]), candidates(&["-I", "linus"]));
    assert!(skipping + 4 <= plain, "{plain} {skipping}");
    // Files without a match are printed by -L and -c: none is passed over.
    let counted = ix.trawl().args(["-r", "--stats", "-I", "-c", "linus", "tree"]).run();
    let text = counted.stdout_str();
    assert!(text.contains("\n0 files passed over by the index (they cannot match)\n"), "{text}");
}

/// One change to the tree, then every search of CASES.
fn after(change: impl FnOnce(&Indexed), must: &[(&[&str], &str)]) {
    let ix = Indexed::new();
    change(&ix);
    for args in CASES {
        ix.same(args);
    }
    for (args, line) in must {
        let r = ix.same(args);
        assert!(
            r.stdout_str().lines().any(|l| l == *line),
            "{args:?}: no line {line:?}\n{}",
            r.stdout_str()
        );
    }
    assert!(ix.served(&["linus"]).is_some(), "the index still serves the search");
}

#[test]
fn appending_to_a_file_is_seen() {
    after(
        |ix| {
            use std::io::Write;
            let mut f =
                std::fs::OpenOptions::new().append(true).open(ix.path("d1/e1/f1.c")).unwrap();
            f.write_all(b"appended NEEDLE\n").unwrap();
        },
        &[(&["NEEDLE"], "tree/d1/e1/f1.c:appended NEEDLE")],
    );
}

/// Rewrites a file with text of the same size, then restores its mtime.
fn edit_in_place(path: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    let old = std::fs::metadata(path).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
    std::fs::File::options().write(true).open(path).unwrap().set_modified(old).unwrap();
    assert_eq!(std::fs::metadata(path).unwrap().modified().unwrap(), old);
}

#[test]
fn a_same_size_edit_with_the_old_mtime_restored_is_seen() {
    after(
        |ix| edit_in_place(&ix.path("d2/e2/f2.c"), "static", "NEEDLE"),
        &[(&["-c", "NEEDLE"], "tree/d2/e2/f2.c:1")],
    );
}

#[test]
fn an_edit_that_changes_the_size_with_the_old_mtime_restored_is_seen() {
    after(
        |ix| {
            let p = ix.path("d3/e0/f3.c");
            let old = std::fs::metadata(&p).unwrap().modified().unwrap();
            std::fs::write(&p, "a longer NEEDLE than before\n").unwrap();
            // touch -d with the old time.
            let shown = chrono_free_touch_date(old);
            let st = std::process::Command::new("touch").args(["-d", &shown]).arg(&p).status();
            assert!(st.unwrap().success());
        },
        &[(&["NEEDLE"], "tree/d3/e0/f3.c:a longer NEEDLE than before")],
    );
}

/// A `touch -d` date for `t`: `@SECONDS.NANOS`.
fn chrono_free_touch_date(t: std::time::SystemTime) -> String {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap();
    format!("@{}.{:09}", d.as_secs(), d.subsec_nanos())
}

#[test]
fn a_new_file_in_an_old_directory_is_seen() {
    after(
        |ix| std::fs::write(ix.path("d4/e1/new.c"), "new NEEDLE\n").unwrap(),
        &[(&["NEEDLE"], "tree/d4/e1/new.c:new NEEDLE")],
    );
}

#[test]
fn a_new_directory_is_walked() {
    after(
        |ix| {
            std::fs::create_dir_all(ix.path("d0/new/deeper")).unwrap();
            std::fs::write(ix.path("d0/new/deeper/n.c"), "deep NEEDLE\n").unwrap();
        },
        &[(&["NEEDLE"], "tree/d0/new/deeper/n.c:deep NEEDLE")],
    );
}

#[test]
fn a_deleted_file_and_directory_are_gone() {
    after(
        |ix| {
            std::fs::remove_file(ix.path("d0/e0/f0.c")).unwrap();
            std::fs::remove_dir_all(ix.path("d1/e2")).unwrap();
        },
        &[(&["-c", "-r", "--include=f15.c", "static"], "tree/d0/e0/f15.c:0")],
    );
}

#[test]
fn renamed_files_and_directories_are_found_under_their_new_names() {
    after(
        |ix| {
            std::fs::rename(ix.path("d2/e0/f12.c"), ix.path("d3/moved.c")).unwrap();
            std::fs::rename(ix.path("d4/e2"), ix.path("renamed")).unwrap();
        },
        &[(&["-l", "."], "tree/d3/moved.c"), (&["-l", "."], "tree/renamed/f14.c")],
    );
}

#[test]
fn a_file_replaced_by_a_symlink_is_not_followed() {
    after(
        |ix| {
            std::fs::remove_file(ix.path("d1/e0/f6.c")).unwrap();
            std::os::unix::fs::symlink("../../d3/e0/f3.c", ix.path("d1/e0/f6.c")).unwrap();
        },
        &[(&["-c", "--include=f3.c", "."], "tree/d3/e0/f3.c:4")],
    );
}

#[test]
fn a_file_made_unreadable_is_searched_again() {
    after(
        |ix| {
            let p = ix.path("d2/e1/f7.c");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        },
        &[],
    );
}

/// One edit of a random sequence.
#[derive(Clone, Debug)]
enum Edit {
    Append(usize),
    SameSize(usize),
    NewFile(usize),
    NewDir(usize),
    Delete(usize),
    Rename(usize, usize),
    ToSymlink(usize),
    Unreadable(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0..150usize).prop_map(Edit::Append),
        (0..150usize).prop_map(Edit::SameSize),
        (0..15usize).prop_map(Edit::NewFile),
        (0..15usize).prop_map(Edit::NewDir),
        (0..150usize).prop_map(Edit::Delete),
        (0..150usize, 0..15usize).prop_map(|(a, b)| Edit::Rename(a, b)),
        (0..150usize).prop_map(Edit::ToSymlink),
        (0..150usize).prop_map(Edit::Unreadable),
    ]
}

impl Indexed {
    /// The path of file `i` of the generated tree.
    fn file_of(&self, i: usize) -> std::path::PathBuf {
        self.path(&format!("d{}/e{}/f{i}.c", i % 5, i % 3))
    }

    /// Applies an edit (one whose file is gone already does nothing).
    fn apply(&self, e: &Edit, serial: usize) {
        let dir_of = |k: usize| self.path(&format!("d{}/e{}", k % 5, k % 3));
        let f = |i| self.file_of(i);
        match *e {
            Edit::Append(i) if f(i).is_file() => {
                use std::io::Write;
                let mut h = std::fs::OpenOptions::new().append(true).open(f(i)).unwrap();
                writeln!(h, "NEEDLE{serial}").unwrap();
            }
            Edit::SameSize(i) if f(i).is_file() => {
                let text = std::fs::read_to_string(f(i)).unwrap();
                if let Some(w) = WORDS.iter().find(|w| w.len() >= 3 && text.contains(*w)) {
                    edit_in_place(&f(i), &w[..3], "NDL");
                }
            }
            Edit::NewFile(k) if dir_of(k).is_dir() => {
                let p = dir_of(k).join(format!("new{serial}.c"));
                std::fs::write(p, format!("NEEDLE{serial} new\n")).unwrap();
            }
            Edit::NewDir(k) if dir_of(k).is_dir() => {
                let d = dir_of(k).join(format!("dir{serial}"));
                std::fs::create_dir(&d).unwrap();
                std::fs::write(d.join("n.c"), format!("NEEDLE{serial} in a new directory\n"))
                    .unwrap();
            }
            Edit::Delete(i) if f(i).is_file() => std::fs::remove_file(f(i)).unwrap(),
            Edit::Rename(i, k) if f(i).is_file() && dir_of(k).is_dir() => {
                std::fs::rename(f(i), dir_of(k).join(format!("renamed{serial}.c"))).unwrap()
            }
            Edit::ToSymlink(i) if f(i).is_file() => {
                std::fs::remove_file(f(i)).unwrap();
                std::os::unix::fs::symlink("../../d0/e0/f0.c", f(i)).unwrap();
            }
            Edit::Unreadable(i) if f(i).is_file() => {
                std::fs::set_permissions(f(i), std::fs::Permissions::from_mode(0o000)).unwrap()
            }
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// After any sequence of edits, the indexed search of a few patterns
    /// equals the search without the index, edit after edit.
    #[test]
    fn any_sequence_of_edits_leaves_indexed_searches_right(
        edits in proptest::collection::vec(edit(), 1..8)
    ) {
        let ix = Indexed::new();
        for (n, e) in edits.iter().enumerate() {
            ix.apply(e, n);
            for args in [&["NEEDLE"][..], &["-c", "NDL"], &["-l", "-i", "linus"], &["-n", "static int"]] {
                ix.same(args);
            }
        }
    }
}

// ---------------------------------------------------------------------
// A damaged index, a build killed midway, two builds at once.

impl Indexed {
    /// The one generation file of the index.
    fn generation(&self) -> std::path::PathBuf {
        let stores = std::path::Path::new(&self.cache).join("trawl/index");
        let mut found = Vec::new();
        for store in std::fs::read_dir(&stores).unwrap() {
            for f in std::fs::read_dir(store.unwrap().path()).unwrap() {
                let p = f.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                if name.starts_with("gen-") && !name.ends_with(".tmp") {
                    found.push(p);
                }
            }
        }
        assert_eq!(found.len(), 1, "{found:?}");
        found.pop().unwrap()
    }

    /// (offset, length) of section `tag` of the generation file.
    fn section(&self, tag: u32) -> (usize, usize) {
        let b = std::fs::read(self.generation()).unwrap();
        let at = 16 + (tag as usize - 1) * 32;
        assert_eq!(u32::from_le_bytes(b[at..at + 4].try_into().unwrap()), tag);
        let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap()) as usize;
        (word(at + 8), word(at + 16))
    }
}

#[test]
fn a_damaged_index_is_reported_and_the_search_is_still_right() {
    let ix = Indexed::new();
    let g = ix.generation();
    let good = std::fs::read(&g).unwrap();
    let (entries_at, entries_len) = ix.section(3);
    let (postings_at, postings_len) = ix.section(6);
    let flip = |at: usize| {
        let mut b = good.clone();
        b[at] ^= 0x10;
        b
    };
    let damages: [(&str, Vec<u8>); 4] = [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("a bit flipped in the entries", flip(entries_at + entries_len / 2)),
        ("a bit flipped in the header", flip(8)),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in damages {
        std::fs::write(&g, &bytes).unwrap();
        for args in [&["-n", "linus"][..], &["-l", "PM_RESUME"], &["foobardoesnotexist"]] {
            let r = ix.same(args);
            let said = r.stderr_str();
            assert_eq!(said.lines().count(), 1, "{what}: reported once\n{said}");
            assert!(
                said.starts_with("trawl: warning: index of ")
                    && said.contains("searched without it"),
                "{what}: {said}"
            );
            assert!(ix.served(&["-n", "linus"]).is_none(), "{what}: not used");
        }
    }
    // Postings are checked as they are read: every byte of a gram's
    // postings is covered by its checksum.
    for k in 0..16 {
        std::fs::write(&g, flip(postings_at + postings_len * k / 16)).unwrap();
        for w in WORDS {
            let r = ix.same(&["-F", "-c", w]);
            assert!(r.stderr.is_empty() || r.stderr_str().contains("searched without it"));
            let r = ix.same(&["-F", "-l", w]);
            assert!(r.stderr.is_empty() || r.stderr_str().contains("searched without it"));
        }
    }
    // trawl index makes it whole again.
    ix.index();
    std::fs::write(ix.path("fresh.c"), "PM_RESUME\n").unwrap();
    let r = ix.same(&["-l", "PM_RESUME"]);
    r.assert_no_stderr();
    assert!(ix.served(&["linus"]).is_some());
}

#[test]
fn an_index_of_another_format_is_not_read() {
    let ix = Indexed::new();
    let g = ix.generation();
    let mut b = std::fs::read(&g).unwrap();
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&g, b).unwrap();
    let r = ix.same(&["linus"]);
    assert!(
        r.stderr_str().contains("made by another version of trawl (format 1)"),
        "{}",
        r.stderr_str()
    );
}

/// A tree large enough that a build takes a while.
fn big_indexed() -> Indexed {
    let ix = Indexed::new();
    for i in 0..3000usize {
        let text: String = (0..80)
            .map(|l| {
                format!("line {l} of file {i}: {} {}\n", WORDS[(i + l) % 16], WORDS[(i * l) % 16])
            })
            .collect();
        ix.t.file(format!("tree/big/b{}/g{i}.txt", i % 30), text);
    }
    ix
}

#[test]
fn a_build_killed_at_any_moment_leaves_searches_right() {
    let ix = big_indexed();
    // How long a whole build takes.
    let start = std::time::Instant::now();
    ix.index();
    let whole = start.elapsed().saturating_sub(Duration::from_millis(1100));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for round in 0..10 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = whole.mul_f64((seed % 1000) as f64 / 1000.0);
        std::fs::write(ix.path(&format!("big/b0/round{round}.txt")), format!("NEEDLE{round}\n"))
            .unwrap();
        // Updates, and full builds every third round.
        let full: &[&str] = if round % 3 == 2 { &["--full"] } else { &[] };
        let mut child =
            ix.trawl().args(["index"]).args(full).args(["tree"]).command().spawn().unwrap();
        std::thread::sleep(at);
        let _ = child.kill();
        child.wait().unwrap();
        for args in [&["NEEDLE[0-9]"][..], &["-c", "linus"], &["-l", "PM_RESUME"]] {
            let r = ix.same(args);
            r.assert_no_stderr();
        }
        let r = ix.same(&["-h", "NEEDLE[0-9]"]);
        let found: Vec<String> = r.stdout_str().lines().map(str::to_owned).collect();
        let want: Vec<String> = (0..=round).map(|k| format!("NEEDLE{k}")).collect();
        let mut found_sorted = found.clone();
        found_sorted.sort();
        assert_eq!(found_sorted, want, "round {round}, killed after {at:?}");
    }
    // A build after the kills works and leaves one generation.
    ix.index();
    ix.generation();
    ix.same(&["-l", "linus"]).assert_no_stderr();
}

#[test]
fn two_builds_at_once_both_succeed() {
    let ix = big_indexed();
    std::thread::sleep(Duration::from_millis(1100));
    let spawn = || ix.trawl().args(["index", "tree"]).command().spawn().unwrap();
    let (mut a, mut b) = (spawn(), spawn());
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    ix.generation();
    for args in [&["-n", "linus"][..], &["-c", "static"], &["-l", "foobardoesnotexist"]] {
        ix.same(args).assert_no_stderr();
    }
    assert!(ix.served(&["linus"]).is_some());
}

// ---------------------------------------------------------------------
// Updates.

impl Indexed {
    /// (next free entry number, entries) of the index: an update leaves
    /// the old blocks of the directories it read again unused.
    fn numbers(&self) -> (u32, usize) {
        let b = std::fs::read(self.generation()).unwrap();
        let (meta, _) = self.section(1);
        let (_, entries_len) = self.section(3);
        (u32::from_le_bytes(b[meta + 8..meta + 12].try_into().unwrap()), entries_len / 48)
    }
}

#[test]
fn an_update_reads_only_what_changed_and_searches_stay_right() {
    // Large enough that the changes below touch few of its directories.
    let ix = big_indexed();
    std::thread::sleep(Duration::from_millis(1100));
    ix.trawl().args(["index", "--full", "tree"]).run().assert_code(0).assert_no_stderr();
    let (next, entries) = ix.numbers();
    assert_eq!(next as usize, entries, "a full build uses every number");
    // Every kind of change, then an update once they are old enough to be
    // trusted.
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(ix.path("d1/e1/f1.c")).unwrap();
    f.write_all(b"appended NEEDLE\n").unwrap();
    edit_in_place(&ix.path("d2/e2/f2.c"), "static", "NEEDLE");
    std::fs::write(ix.path("d4/e1/new.c"), "new NEEDLE\n").unwrap();
    std::fs::create_dir_all(ix.path("d0/new/deeper")).unwrap();
    std::fs::write(ix.path("d0/new/deeper/n.c"), "deep NEEDLE\n").unwrap();
    std::fs::remove_file(ix.path("d0/e0/f0.c")).unwrap();
    std::fs::rename(ix.path("d4/e2"), ix.path("renamed")).unwrap();
    ix.index();
    let status = ix.trawl().args(["index", "--status", "tree"]).run();
    assert!(status.stdout_str().starts_with("tree: up to date ("), "{}", status.stdout_str());
    let (next_after, entries_after) = ix.numbers();
    assert!(next_after as usize > entries_after, "updated, not built anew: {next_after}");
    assert!(entries_after.abs_diff(entries) < 10, "{entries_after} entries, {entries} before");
    for args in CASES {
        ix.same(args);
    }
    let r = ix.same(&["-c", "NEEDLE"]);
    for line in
        ["tree/d1/e1/f1.c:1", "tree/d2/e2/f2.c:1", "tree/d4/e1/new.c:1", "tree/d0/new/deeper/n.c:1"]
    {
        assert!(r.stdout_str().lines().any(|l| l == line), "{line}\n{}", r.stdout_str());
    }
    // The index serves it with nothing changed since.
    let served = ix.served(&["NEEDLE"]).expect("served");
    assert_eq!(served["files_changed"], 0, "{served}");
    assert_eq!(served["files_candidates"], 4, "{served}");
    // The noise's filter was kept by the update.
    assert_eq!(ix.served(&["Zanzibar"]).expect("served")["files_candidates"], 1);
    // Nothing changed: the index stands as it is.
    let before = std::fs::read(ix.generation()).unwrap();
    ix.trawl().args(["index", "tree"]).run().assert_code(0).assert_no_stderr();
    assert_eq!(std::fs::read(ix.generation()).unwrap(), before);
    // --full builds anew: every number used again.
    ix.trawl().args(["index", "--full", "tree"]).run().assert_code(0).assert_no_stderr();
    let (next_full, entries_full) = ix.numbers();
    assert_eq!(next_full as usize, entries_full);
    for args in CASES {
        ix.same(args);
    }
}

// ---------------------------------------------------------------------
// Extracted text in the index.

#[test]
fn an_index_with_extracted_text_serves_searches_that_extract() {
    use crate::extract::sh;
    let ix = Indexed::new();
    let z = ix.path("z");
    std::fs::create_dir_all(z.join("w")).unwrap();
    std::fs::write(z.join("a.txt"), "compressed ZIPNEEDLE here\nlinus\n").unwrap();
    sh(&z, "gzip", &["a.txt"]);
    std::fs::write(z.join("w/m1.txt"), "a MEMBERWORD in a zip\n").unwrap();
    std::fs::write(z.join("w/m2.txt"), "static int in a member\n").unwrap();
    std::fs::write(z.join("w/noise.bin"), noise(300_000, Some(b"Zoroaster"))).unwrap();
    sh(&z.join("w"), "zip", &["-q", "../arch.zip", "m1.txt", "m2.txt"]);
    sh(&z.join("w"), "zip", &["-q", "-0", "../noise.zip", "noise.bin"]);
    std::fs::remove_dir_all(z.join("w")).unwrap();
    std::fs::write(
        z.join("doc.pdf"),
        crate::documents::pdf(&[&["a PDFWORD on page one"], &["linus on two"]]),
    )
    .unwrap();
    // Damaged: always read by a search that extracts (it reports it).
    std::fs::write(z.join("broken.gz"), b"\x1f\x8b\x08\x00garbage that is not deflate").unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    ix.trawl().args(["index", "--full", "--docs", "tree"]).run().assert_code(0).assert_no_stderr();
    let cases: [&[&str]; 11] = [
        &["ZIPNEEDLE"],
        &["MEMBERWORD"],
        &["PDFWORD"],
        &["-n", "linus"],
        &["-c", "static int"],
        &["-l", "-i", "pdfword"],
        &["foobardoesnotexist"],
        &["--include=*.txt", "MEMBERWORD"],
        &["-w", "on"],
        &["-c", "-a", "-P", "\\x01\\x02"],
        &["-a", "-l", "Zoroaster"],
    ];
    for mode in [&["--docs"][..], &["--search-zip"], &[]] {
        for args in cases {
            ix.same(&[mode, args].concat());
        }
    }
    // Read by their text: the one file holding a rare word, and the
    // damaged one, are opened.
    for (word, file) in
        [("PDFWORD", "doc.pdf"), ("MEMBERWORD", "arch.zip"), ("ZIPNEEDLE", "a.txt.gz")]
    {
        let served = ix.served(&["--docs", word]).expect("served");
        // With the file holding it and the damaged one (the noise's bytes
        // and the zipped noise's text are filtered).
        assert_eq!(served["files_candidates"], 2, "{word}: {file}, broken.gz\n{served}");
        let r = ix.same(&["--docs", "-l", word]);
        assert!(r.stdout_str().contains(file), "{word}: {}", r.stdout_str());
    }
    // An extraction other than the index's (another archive depth) cannot
    // tell what files hold: every file is read.
    let other = ix.served(&["--search-zip", "--max-archive-depth", "3", "MEMBERWORD"]).unwrap();
    assert_eq!(other["files_skipped"], 0, "{other}");
    ix.same(&["--search-zip", "--max-archive-depth", "3", "MEMBERWORD"]);
    // An update keeps the extracted text (no option needed) and reads
    // what changed.
    std::fs::remove_file(z.join("a.txt.gz")).unwrap();
    std::fs::write(z.join("a.txt"), "NEWZIPWORD\n").unwrap();
    sh(&z, "gzip", &["a.txt"]);
    ix.index();
    let served = ix.served(&["--docs", "NEWZIPWORD"]).expect("served");
    assert_eq!(served["files_candidates"], 2, "{served}");
    // A word of the zipped noise: the zip's text filter admits it.
    let zipped = ix.served(&["--docs", "Zoroaster"]).expect("served");
    assert_eq!(zipped["files_candidates"], 2, "noise.zip, broken.gz: {zipped}");
    assert_eq!(served["files_changed"], 0, "{served}");
    for mode in [&["--docs"][..], &["--search-zip"]] {
        for args in [&["NEWZIPWORD"][..], &["ZIPNEEDLE"], &["-c", "linus"]] {
            ix.same(&[mode, args].concat());
        }
    }
    // An index without extracted text serves them too, reading every file.
    ix.trawl().args(["index", "--full", "tree"]).run().assert_code(0);
    let none = ix.served(&["--docs", "PDFWORD"]).expect("served");
    assert_eq!(none["files_skipped"], 0, "{none}");
    ix.same(&["--docs", "PDFWORD"]);
}

// ---------------------------------------------------------------------
// Big archives, read member by member.

/// A 1.2 MB `.tgz` in `tree/arch` (compressed: past the size from which
/// archives are kept member by member): 300 text members, a nested zip,
/// and noise (with a word in it).
fn with_big_archive(ix: &Indexed) {
    use crate::extract::sh;
    let src = ix.t.path().join("src");
    let m = src.join("m");
    std::fs::create_dir_all(m.join("z")).unwrap();
    for i in 0..300usize {
        let mut text = format!("member {i} of the archive\nstatic int x{i};\n");
        if i % 50 == 7 {
            text.push_str("a MEMBERNEEDLE here\n");
        }
        if i == 123 {
            text.push_str("ONLYONCE in one member\n");
        }
        std::fs::write(m.join(format!("t{i:03}.txt")), text).unwrap();
    }
    for k in 0..4 {
        std::fs::write(m.join(format!("noise{k}.bin")), noise(300_000 + k, Some(b"Zephyr")))
            .unwrap();
    }
    std::fs::write(m.join("z/inner.txt"), "INNERWORD in a zip in the tar\n").unwrap();
    sh(&m.join("z"), "zip", &["-q", "../inner.zip", "inner.txt"]);
    std::fs::remove_dir_all(m.join("z")).unwrap();
    std::fs::create_dir_all(ix.path("arch")).unwrap();
    let out = ix.path("arch/big.tgz");
    sh(&src, "tar", &["czf", out.to_str().unwrap(), "m"]);
    assert!(std::fs::metadata(&out).unwrap().len() > 1 << 20);
}

/// The searches a big archive's members must answer as a plain search
/// does.
const MEMBER_CASES: [&[&str]; 14] = [
    &["ONLYONCE"],
    &["MEMBERNEEDLE"],
    &["-n", "-i", "memberneedle"],
    &["-l", "MEMBERNEEDLE"],
    &["-c", "ONLYONCE"],
    &["INNERWORD"],
    &["--include=*.txt", "MEMBERNEEDLE"],
    &["--include=inner.txt", "INNERWORD"],
    &["-o", "-b", "x12[0-9]"],
    &["-m1", "static"],
    &["-a", "-c", "Zephyr"],
    &["foobardoesnotexist"],
    &["-q", "ONLYONCE"],
    &["-v", "-c", "static"],
];

/// The bytes a search of `tree` read.
fn bytes_searched(ix: &Indexed, args: &[&str]) -> u64 {
    ix.summary(args)["stats"]["bytes_searched"].as_u64().unwrap()
}

#[test]
fn a_big_archive_is_read_member_by_member_from_the_cache() {
    let ix = Indexed::new();
    with_big_archive(&ix);
    std::thread::sleep(Duration::from_millis(1100));
    let built = ix.trawl().args(["index", "--full", "--search-zip", "tree"]).run();
    built.assert_code(0).assert_no_stderr();
    for args in MEMBER_CASES {
        ix.same(&[&["--search-zip"], args].concat());
    }
    // A rare word: its one member is read, from the cache.
    let whole = bytes_searched(&ix, &["--no-index", "--search-zip", "ONLYONCE"]);
    let one = bytes_searched(&ix, &["--search-zip", "ONLYONCE"]);
    assert!(whole > 1 << 20, "{whole}");
    assert!(one < 100, "the member alone: {one} bytes");
    let six = bytes_searched(&ix, &["--search-zip", "MEMBERNEEDLE"]);
    assert!(six < 1000, "six members: {six} bytes");
    // A word of the noise members: each of their filters admits it.
    assert!(bytes_searched(&ix, &["--search-zip", "-a", "Zephyr"]) >= 1_200_000);
    // The cache of the members' texts damaged: the archive is read whole,
    // and the answers are the same.
    let db = std::path::Path::new(&ix.cache).join("trawl/extracted.sqlite3");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let changed = conn.execute("UPDATE pack_rows SET data = zeroblob(length(data))", []).unwrap();
    assert_eq!(changed, 305, "one pack: 300 texts, the noise and the nested zip's member");
    drop(conn);
    for args in MEMBER_CASES {
        ix.same(&[&["--search-zip"], args].concat());
    }
    assert!(bytes_searched(&ix, &["--search-zip", "ONLYONCE"]) > 1 << 20, "read whole");
    // Gone from the cache: the same.
    ix.trawl().args(["cache", "clear"]).run().assert_code(0);
    for args in MEMBER_CASES {
        ix.same(&[&["--search-zip"], args].concat());
    }
    // The archive changed since the index: read whole, new members found.
    ix.trawl().args(["index", "--full", "--search-zip", "tree"]).run().assert_code(0);
    assert!(bytes_searched(&ix, &["--search-zip", "ONLYONCE"]) < 100, "a pack again");
    std::fs::write(ix.t.path().join("src/m/t000.txt"), "ONLYONCE again, changed\n").unwrap();
    let out = ix.path("arch/big.tgz");
    crate::extract::sh(&ix.t.path().join("src"), "tar", &["czf", out.to_str().unwrap(), "m"]);
    for args in MEMBER_CASES {
        ix.same(&[&["--search-zip"], args].concat());
    }
    let r = ix.same(&["--search-zip", "-c", "ONLYONCE"]);
    assert!(r.stdout_str().contains("tree/arch/big.tgz{m/t000.txt}:1\n"), "{}", r.stdout_str());
    // Another extraction than the index's: read whole, the same answers.
    ix.same(&["--search-zip", "--max-archive-depth", "1", "INNERWORD"]);
    ix.same(&["--docs", "ONLYONCE"]);
}

#[test]
fn a_damaged_big_archive_is_read_member_by_member_and_its_messages_replayed() {
    use crate::extract::sh;
    let ix = Indexed::new();
    with_big_archive(&ix);
    // Cut: a member's text ends early, then the archive itself fails.
    let whole = std::fs::read(ix.path("arch/big.tgz")).unwrap();
    std::fs::write(ix.path("arch/cut.tgz"), &whole[..whole.len() * 7 / 10]).unwrap();
    std::fs::remove_file(ix.path("arch/big.tgz")).unwrap();
    // A zip with an encrypted member among plain ones.
    let z = ix.t.path().join("z");
    std::fs::create_dir_all(&z).unwrap();
    std::fs::write(z.join("secret.txt"), "ONLYONCE but encrypted\n").unwrap();
    for k in 0..3 {
        std::fs::write(z.join(format!("n{k}.bin")), noise(150_000 + k, None)).unwrap();
    }
    std::fs::write(z.join("plain.txt"), "MEMBERNEEDLE in a zip\n").unwrap();
    let zip = ix.path("arch/locked.zip");
    sh(&z, "zip", &["-q", "-0", zip.to_str().unwrap(), "n0.bin", "n1.bin", "n2.bin", "plain.txt"]);
    sh(&z, "zip", &["-q", "-P", "secret", zip.to_str().unwrap(), "secret.txt"]);
    assert!(std::fs::metadata(&zip).unwrap().len() > 256 << 10);
    std::thread::sleep(Duration::from_millis(1100));
    ix.trawl().args(["index", "--full", "--search-zip", "tree"]).run().assert_code(0);
    for args in MEMBER_CASES {
        let r = ix.same(&[&["--search-zip"], args].concat());
        // The messages of both, whatever the pattern.
        if !args.contains(&"-q") && !args.contains(&"-s") {
            let said = r.stderr_str();
            assert!(said.contains("tree/arch/cut.tgz"), "{args:?}: {said}");
            assert!(said.contains("tree/arch/locked.zip{secret.txt}"), "{args:?}: {said}");
        }
    }
    // Both are visited for their messages, but a rare word reads little.
    let served = ix.served(&["--search-zip", "ONLYONCE"]).expect("served");
    assert_eq!(served["files_candidates"], 2, "{served}");
    assert!(bytes_searched(&ix, &["--search-zip", "ONLYONCE"]) < 1000);
    assert!(bytes_searched(&ix, &["--no-index", "--search-zip", "ONLYONCE"]) > 500_000);
}

// ---------------------------------------------------------------------
// trawl find from the index.

/// `trawl find tree ARGS` (served by the index), `trawl find --no-index`
/// and GNU find print the same entries.
fn find_same(ix: &Indexed, args: &[&str]) {
    let sep = if args.contains(&"-print0") { 0 } else { b'\n' };
    let with = ix.trawl().args(["find", "tree"]).args(args).run();
    let without = ix.trawl().args(["find", "--no-index", "tree"]).args(args).run();
    let gnu = Cmd::new("find", ix.t.path()).args(["tree"]).args(args).run();
    assert_eq!(with.code, gnu.code, "{args:?}: exit code\n{}", with.stderr_str());
    assert_eq!(without.code, gnu.code, "{args:?}: exit code without the index");
    let (w, n, g) = (
        sorted_records(&with.stdout, sep),
        sorted_records(&without.stdout, sep),
        sorted_records(&gnu.stdout, sep),
    );
    assert_eq!(w, g, "{args:?}: with the index against GNU find\n{}", clip(&with.stdout));
    assert_eq!(n, g, "{args:?}: without the index against GNU find");
}

const FIND_CASES: [&[&str]; 18] = [
    &[],
    &["-name", "*.c"],
    &["-type", "d"],
    &["-type", "f", "-size", "-1k"],
    &["-maxdepth", "2"],
    &["-maxdepth", "0"],
    &["-mindepth", "2", "-name", "f1*"],
    &["-empty"],
    &["-name", "f*", "-print0"],
    &["-path", "*/e1/*", "-type", "f"],
    &["-type", "l"],
    &["-newer", "tree/d0/e1/f15.c"],
    &["-name", "e0", "-prune", "-o", "-type", "f", "-print"],
    &["-iname", "F1?.C", "-o", "-name", "new*"],
    // Names that decide alone which entries can print (the others are not
    // visited), and ones that do not.
    &["-name", "deeper"],
    &["-type", "d", "-name", "e*"],
    &["-name", "f1*", "-size", "+1"],
    &["!", "-name", "*.c"],
];

#[test]
fn find_served_by_the_index_prints_what_gnu_find_prints_after_changes() {
    let ix = Indexed::new();
    for args in FIND_CASES {
        find_same(&ix, args);
    }
    // Changes the directories' stamps tell.
    std::fs::create_dir_all(ix.path("d0/new/deeper")).unwrap();
    std::fs::write(ix.path("d0/new/deeper/new.c"), "x\n").unwrap();
    std::fs::remove_file(ix.path("d0/e0/f0.c")).unwrap();
    std::fs::rename(ix.path("d4/e2"), ix.path("renamed")).unwrap();
    std::fs::remove_dir_all(ix.path("d3/e1")).unwrap();
    std::fs::remove_file(ix.path("d1/e0/f6.c")).unwrap();
    std::os::unix::fs::symlink("../../d3/e0/f3.c", ix.path("d1/e0/f6.c")).unwrap();
    // And ones only a stat tells (size, time): read when a test needs them.
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(ix.path("d2/e2/f2.c")).unwrap();
    f.write_all(&[b'x'; 2000]).unwrap();
    for args in FIND_CASES {
        find_same(&ix, args);
    }
    // A starting point below the root, and one that is a link (-P: the link).
    let below = ix.trawl().args(["find", "tree/d1", "-name", "*.c"]).run();
    let gnu = Cmd::new("find", ix.t.path()).args(["tree/d1", "-name", "*.c"]).run();
    assert_eq!(below.sorted_lines(), gnu.sorted_lines());
    std::os::unix::fs::symlink("tree", ix.t.path().join("tree-link")).unwrap();
    for follow in ["-P", "-H"] {
        let t = ix.trawl().args(["find", follow, "tree-link"]).run();
        let g = Cmd::new("find", ix.t.path()).args([follow, "tree-link"]).run();
        assert_eq!(t.sorted_lines(), g.sorted_lines(), "{follow}");
    }
}

/// A running `trawl index --watch tree`, stopped when dropped.
struct Watcher {
    child: std::process::Child,
    /// `$XDG_CACHE_HOME/trawl/index` of the test.
    index: std::path::PathBuf,
}

impl Watcher {
    /// Starts it and waits (hangs only: 60 s) until its socket listens.
    fn start(ix: &Indexed) -> Watcher {
        let child = std::process::Command::new(crate::util::trawl_bin())
            .args(["index", "--watch", "tree"])
            .current_dir(ix.t.path())
            .env("XDG_CACHE_HOME", &ix.cache)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let w = Watcher { child, index: Path::new(&ix.cache).join("trawl/index") };
        wait_until(|| w.socket().is_some(), "the watcher's socket");
        w
    }

    fn socket(&self) -> Option<std::path::PathBuf> {
        let found = std::fs::read_dir(&self.index).ok()?.flatten();
        found.map(|e| e.path().join("watch.sock")).find(|p| p.exists())
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `done` (hangs only: a minute).
fn wait_until(mut done: impl FnMut() -> bool, what: &str) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "waited a minute for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the watcher told a search of `args` what changed.
fn watched(ix: &Indexed, args: &[&str]) -> bool {
    let served = ix.served(args).expect("the index serves the search");
    served["watched"].as_bool().expect("a watched field")
}

/// A change to the tree of a test.
type Change = dyn Fn(&Indexed);

#[test]
fn a_watcher_tells_searches_what_changed_and_they_stay_right() {
    let ix = Indexed::new();
    let w = Watcher::start(&ix);
    assert!(watched(&ix, &["Dijkstra"]), "the watcher answered");
    for args in CASES {
        ix.same(args);
    }
    // Every kind of change, one after another, each seen at once (no
    // stat pass: the watcher answers every search below).
    let changes: [(&str, &Change); 10] = [
        ("append", &|ix| {
            use std::io::Write;
            let mut f =
                std::fs::OpenOptions::new().append(true).open(ix.path("d1/e1/f1.c")).unwrap();
            f.write_all(b"NEEDLE appended\n").unwrap();
        }),
        ("same-size edit, old mtime", &|ix| {
            edit_in_place(&ix.path("d2/e2/f2.c"), "static", "NEEDLE")
        }),
        ("new file in an old directory", &|ix| {
            std::fs::write(ix.path("d0/e0/new.c"), "NEEDLE new\n").unwrap()
        }),
        ("new directory", &|ix| {
            std::fs::create_dir_all(ix.path("d3/newdir/deeper")).unwrap();
            std::fs::write(ix.path("d3/newdir/deeper/n.c"), "NEEDLE deep\n").unwrap();
        }),
        ("deletion", &|ix| std::fs::remove_file(ix.path("d4/e1/f4.c")).unwrap()),
        ("renamed directory", &|ix| std::fs::rename(ix.path("d4/e2"), ix.path("moved")).unwrap()),
        ("file replaced by a symlink", &|ix| {
            std::fs::remove_file(ix.path("d1/e0/f6.c")).unwrap();
            std::os::unix::fs::symlink("../../d1/e1/f1.c", ix.path("d1/e0/f6.c")).unwrap();
        }),
        ("permissions", &|ix| {
            let p = ix.path("d0/e1/f10.c");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        }),
        ("directory deleted and made again", &|ix| {
            std::fs::remove_dir_all(ix.path("d2/e0")).unwrap();
            std::fs::create_dir(ix.path("d2/e0")).unwrap();
            std::fs::write(ix.path("d2/e0/again.c"), "NEEDLE again\n").unwrap();
        }),
        ("renamed file over another", &|ix| {
            std::fs::write(ix.path("d3/e2/tmp"), "NEEDLE renamed over\n").unwrap();
            std::fs::rename(ix.path("d3/e2/tmp"), ix.path("d3/e2/f8.c")).unwrap();
        }),
    ];
    for (what, change) in changes {
        change(&ix);
        // (-c and -L read every file: the others read the candidates.)
        for args in [
            &["NEEDLE"][..],
            &["-l", "NEEDLE"],
            &["-c", "NEEDLE"],
            &["-n", "linus"],
            &["-L", "TORVALDS"],
        ] {
            ix.same(args);
        }
        assert!(watched(&ix, &["NEEDLE"]), "{what}: the watcher answered");
    }
    for args in CASES {
        ix.same(args);
    }
    // find from the index asks it too.
    for args in FIND_CASES {
        find_same(&ix, args);
    }
    // An update makes another generation: the watcher follows it, and
    // searches never wait for it (meanwhile they check every stamp).
    ix.index();
    ix.same(&["NEEDLE"]);
    wait_until(|| watched(&ix, &["NEEDLE"]), "the watcher of the new generation");
    std::fs::write(ix.path("d0/after-update.c"), "NEEDLE after the update\n").unwrap();
    edit_in_place(&ix.path("d0/e0/f15.c"), "linus", "NEEDL");
    ix.same(&["NEEDL"]);
    ix.same(&["NEEDLE"]);
    assert!(watched(&ix, &["NEEDLE"]));
    // Killed: searches check every stamp again, and stay right.
    drop(w);
    std::fs::write(ix.path("d0/after-kill.c"), "NEEDLE after the kill\n").unwrap();
    ix.same(&["NEEDLE"]);
    assert!(!watched(&ix, &["NEEDLE"]), "no watcher");
}
