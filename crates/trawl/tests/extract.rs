//! `--search-zip`: compressed files and archives, against the system's own
//! tools (gzip, bzip2, xz, zstd, lz4, tar, unzip) piped into GNU grep —
//! every member's lines compared exactly, in archive order.

use std::path::Path;
use std::process::Command;

use crate::util::{lines, Cmd, Tree};

/// Text with matches for the test patterns at many places.
fn text(seed: usize, lines: usize) -> String {
    let words = ["alpha", "needle", "Beta", "gamma42", "x@example.org", "delta", "needles", ""];
    let mut s = String::new();
    for i in 0..lines {
        let a = words[(i * 7 + seed) % words.len()];
        let b = words[(i * 3 + seed * 5) % words.len()];
        s.push_str(&format!("{seed}:{i} {a} {b}\n"));
    }
    s
}

const PATTERNS: [&str; 3] = ["needle", "^[0-9]+:1[0-9] ", r"[a-z]+@[a-z.]+\.(org|com)"];

/// Runs a system tool in `dir`; it must succeed.
pub(crate) fn sh(dir: &Path, program: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} (installed by .ci/deps): {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// GNU grep's output for `text`, each line prefixed with `prefix`.
pub(crate) fn grep_text(dir: &Path, pattern: &str, text: &[u8], prefix: &[u8]) -> Vec<u8> {
    let run = Cmd::grep(dir).args(["-P", "-a", "-n", "-e", pattern]).stdin(text).run();
    let mut out = Vec::new();
    for line in lines(&run.stdout) {
        out.extend_from_slice(prefix);
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// A tree with the same text under every compression, as the tools write it.
fn compressed_tree() -> Tree {
    let t = Tree::new();
    for (i, tool) in ["gzip", "bzip2", "xz", "zstd", "lz4"].iter().enumerate() {
        let name = format!("t_{tool}");
        t.file(&name, text(i, 400));
        let args: &[&str] = match *tool {
            "lz4" => &["-q", "-m", "--rm"],
            "zstd" => &["-q", "--rm"],
            _ => &[],
        };
        sh(t.path(), tool, &[args, &[name.as_str()]].concat());
    }
    t
}

#[test]
fn compressed_files_search_as_their_decompressed_text() {
    let t = compressed_tree();
    let files = [
        ("t_gzip.gz", "gzip"),
        ("t_bzip2.bz2", "bzip2"),
        ("t_xz.xz", "xz"),
        ("t_zstd.zst", "zstd"),
        ("t_lz4.lz4", "lz4"),
    ];
    for (file, tool) in files {
        let plain = sh(t.path(), tool, &["-dc", file]);
        for p in PATTERNS {
            let want = grep_text(t.path(), p, &plain, b"");
            let got = t.trawl().args(["--search-zip", "-n", "-e", p, file]).run();
            got.assert_no_stderr();
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want),
                "{file} {p}"
            );
            assert_eq!(got.code, if want.is_empty() { 1 } else { 0 }, "{file} {p}");
        }
    }
}

/// The expected output of `trawl --search-zip -H -n PATTERN archive`: each
/// member's grep output in archive order, named `archive{member}`.
fn members_want(
    t: &Tree,
    archive: &str,
    pattern: &str,
    members: &[String],
    extract: &dyn Fn(&str) -> Vec<u8>,
) -> Vec<u8> {
    let mut want = Vec::new();
    for m in members {
        let prefix = format!("{archive}{{{m}}}:");
        want.extend(grep_text(t.path(), pattern, &extract(m), prefix.as_bytes()));
    }
    want
}

#[test]
fn archive_members_search_as_tar_and_unzip_extract_them() {
    let t = Tree::new();
    for i in 0..6 {
        t.file(format!("src/d{}/f{i}.txt", i % 2), text(i + 10, 150));
    }
    t.file("src/empty.txt", "");
    for (archive, flag) in [("a.tar", ""), ("a.tar.gz", "z"), ("a.tar.bz2", "j"), ("a.tar.xz", "J")]
    {
        sh(t.path(), "tar", &[&format!("-c{flag}f"), archive, "src"]);
    }
    sh(t.path(), "tar", &["--zstd", "-cf", "a.tar.zst", "src"]);
    // The pre-POSIX format has no magic: its header checksum tells.
    sh(t.path(), "tar", &["--format=v7", "-czf", "a-v7.tgz", "src"]);
    sh(t.path(), "zip", &["-qr", "a.zip", "src"]);
    for archive in ["a.tar", "a.tar.gz", "a.tar.bz2", "a.tar.xz", "a.tar.zst", "a-v7.tgz"] {
        let listed = sh(t.path(), "tar", &["-tf", archive]);
        let members: Vec<String> = lines(&listed)
            .iter()
            .map(|l| String::from_utf8_lossy(l).trim_end().to_string())
            .filter(|m| !m.ends_with('/'))
            .collect();
        assert_eq!(members.len(), 7);
        for p in PATTERNS {
            let want = members_want(&t, archive, p, &members, &|m| {
                sh(t.path(), "tar", &["-xOf", archive, m])
            });
            let got = t.trawl().args(["--search-zip", "-H", "-n", "-e", p, archive]).run();
            got.assert_no_stderr();
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want),
                "{archive} {p}"
            );
        }
    }
    let listed = sh(t.path(), "unzip", &["-Z1", "a.zip"]);
    let members: Vec<String> = lines(&listed)
        .iter()
        .map(|l| String::from_utf8_lossy(l).trim_end().to_string())
        .filter(|m| !m.ends_with('/'))
        .collect();
    assert_eq!(members.len(), 7);
    for p in PATTERNS {
        let want =
            members_want(&t, "a.zip", p, &members, &|m| sh(t.path(), "unzip", &["-p", "a.zip", m]));
        let got = t.trawl().args(["--search-zip", "-H", "-n", "-e", p, "a.zip"]).run();
        got.assert_no_stderr();
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            String::from_utf8_lossy(&want),
            "a.zip {p}"
        );
    }
}

/// level1.tar.gz holds l1.txt and level2.zip, which holds l2.txt and
/// level3.tar.xz, which holds l3.txt and l4.txt.gz.
fn nested_tree() -> Tree {
    let t = Tree::new();
    t.file("w/l4.txt", "deep needle 4\n");
    sh(&t.path().join("w"), "gzip", &["l4.txt"]);
    t.file("w/l3.txt", "deep needle 3\n");
    sh(&t.path().join("w"), "tar", &["-cJf", "level3.tar.xz", "l3.txt", "l4.txt.gz"]);
    t.file("w/l2.txt", "deep needle 2\n");
    sh(&t.path().join("w"), "zip", &["-q", "level2.zip", "l2.txt", "level3.tar.xz"]);
    t.file("w/l1.txt", "deep needle 1\n");
    sh(&t.path().join("w"), "tar", &["-czf", "../level1.tar.gz", "l1.txt", "level2.zip"]);
    t
}

#[test]
fn nested_archives_are_searched_down_to_the_depth_limit() {
    let t = nested_tree();
    let got = t.trawl().args(["--search-zip", "needle", "level1.tar.gz"]).run();
    got.assert_code(0).assert_no_stderr().assert_stdout(
        "level1.tar.gz{l1.txt}:deep needle 1\n\
         level1.tar.gz{level2.zip}{l2.txt}:deep needle 2\n\
         level1.tar.gz{level2.zip}{level3.tar.xz}{l3.txt}:deep needle 3\n\
         level1.tar.gz{level2.zip}{level3.tar.xz}{l4.txt.gz}:deep needle 4\n",
    );
    // gzip + tar, zip, xz + tar: five containers down to l3.txt, six to
    // the text of l4.txt.gz.
    let got = t
        .trawl()
        .args(["--search-zip", "--max-archive-depth", "5", "-c", "needle", "level1.tar.gz"])
        .run();
    got.assert_no_stderr().assert_stdout(
        "level1.tar.gz{l1.txt}:1\n\
         level1.tar.gz{level2.zip}{l2.txt}:1\n\
         level1.tar.gz{level2.zip}{level3.tar.xz}{l3.txt}:1\n\
         level1.tar.gz{level2.zip}{level3.tar.xz}{l4.txt.gz}:0\n",
    );
}

/// find's -search-zip took the default depth whatever it was asked: it
/// takes grep's --max-archive-depth now (as a leading option).
#[test]
fn find_looks_inside_archives_down_to_the_depth_limit() {
    let t = nested_tree();
    let find = |limit: &[&str]| {
        let mut args = vec!["find"];
        args.extend(limit);
        args.extend(["level1.tar.gz", "-search-zip", "-contains", "deep needle 4"]);
        t.trawl().args(args).run()
    };
    find(&[]).assert_code(0).assert_no_stderr().assert_stdout("level1.tar.gz\n");
    // Six containers down to l4.txt.gz's text.
    find(&["--max-archive-depth", "6"]).assert_code(0).assert_stdout("level1.tar.gz\n");
    find(&["--max-archive-depth=5"]).assert_code(0).assert_no_stderr().assert_stdout("");
    let bad = find(&["--max-archive-depth", "deep"]);
    bad.assert_code(1).assert_stdout("");
    assert_eq!(bad.stderr_str(), "trawl: invalid argument `deep' to `--max-archive-depth'\n");
}

/// JSON lines of a member carry the file holding it and the chain of
/// member paths, outermost first (the display name alone is ambiguous when
/// a member's name holds braces).
#[test]
fn json_names_the_archive_and_the_chain_of_members() {
    let t = nested_tree();
    let got = t.trawl().args(["--search-zip", "--json", "needle", "level1.tar.gz"]).run();
    got.assert_code(0).assert_no_stderr();
    let mut chains = Vec::new();
    for m in crate::json::parse_lines(&got.stdout) {
        if m.str_at(&["type"]) != Some("match") {
            continue;
        }
        assert_eq!(m.data_at(&["data", "archive"]).as_deref(), Some(&b"level1.tar.gz"[..]));
        let members: Vec<String> = m
            .arr_at(&["data", "members"])
            .unwrap()
            .iter()
            .map(|v| String::from_utf8(v.data_at(&[]).unwrap()).unwrap())
            .collect();
        // The display name is the archive then each member in braces.
        let name = String::from_utf8(m.data_at(&["data", "path"]).unwrap()).unwrap();
        let joined: String = members.iter().map(|p| format!("{{{p}}}")).collect();
        assert_eq!(name, format!("level1.tar.gz{joined}"));
        chains.push(members.join(" > "));
    }
    assert_eq!(
        chains,
        [
            "l1.txt",
            "level2.zip > l2.txt",
            "level2.zip > level3.tar.xz > l3.txt",
            "level2.zip > level3.tar.xz > l4.txt.gz",
        ]
    );
    // A file that is not in an archive has neither.
    t.file("plain.txt", "needle\n");
    let got = t.trawl().args(["--search-zip", "--json", "needle", "plain.txt"]).run();
    let m = crate::json::parse_lines(&got.stdout);
    assert!(m[1].at(&["data", "archive"]).is_none() && m[1].at(&["data", "members"]).is_none());
}

#[test]
fn kinds_are_told_by_bytes_not_names() {
    let t = Tree::new();
    t.file("a", "first needle\n");
    t.file("b", "second needle\n");
    sh(t.path(), "gzip", &["a", "b"]);
    // Two gzip members in one file, named as text.
    let mut both = std::fs::read(t.path().join("a.gz")).unwrap();
    both.extend(std::fs::read(t.path().join("b.gz")).unwrap());
    t.file_bytes(b"both.txt", both);
    // A text file named .gz.
    t.file("plain.gz", "plain needle\n");
    let got =
        t.trawl().args(["--search-zip", "--sort", "path", "needle", "both.txt", "plain.gz"]).run();
    got.assert_code(0)
        .assert_no_stderr()
        .assert_stdout("both.txt:first needle\nboth.txt:second needle\nplain.gz:plain needle\n");
}

#[test]
fn damaged_input_is_reported_by_name_and_the_search_goes_on() {
    let t = Tree::new();
    t.file("good.txt", "good needle\n");
    t.file("big.txt", text(3, 20000));
    sh(t.path(), "gzip", &["big.txt"]);
    let gz = std::fs::read(t.path().join("big.txt.gz")).unwrap();
    t.file_bytes(b"cut.gz", &gz[..gz.len() / 2]);
    std::fs::remove_file(t.path().join("big.txt.gz")).unwrap();
    t.file("m/ok.txt", "member needle\n");
    sh(&t.path().join("m"), "tar", &["-cf", "../arch.tar", "ok.txt"]);
    let tar = std::fs::read(t.path().join("arch.tar")).unwrap();
    // A tar whose second header is garbage.
    let mut bad = tar[..1024].to_vec();
    bad.extend(std::iter::repeat_n(b'\xff', 512));
    t.file_bytes(b"bad.tar", bad);
    let got = t
        .trawl()
        .args(["--search-zip", "-c", "--sort", "path", "needle", "bad.tar", "cut.gz", "good.txt"])
        .run();
    got.assert_code(2);
    let out = got.stdout_str();
    assert!(out.starts_with("bad.tar{ok.txt}:1\n"), "{out}");
    assert!(out.ends_with("good.txt:1\n"), "{out}");
    let err = got.stderr_str();
    let mut errs: Vec<&str> = err.lines().collect();
    let last = errs.pop();
    assert_eq!(last, Some("trawl: text not extracted from 2 files or members (each named above)"));
    errs.sort();
    assert_eq!(errs.len(), 2, "{err}");
    assert!(errs[0].starts_with("trawl: bad.tar: damaged tar archive after 1 members: "), "{err}");
    assert!(errs[0].is_ascii(), "{err}");
    assert!(errs[1].starts_with("trawl: cut.gz: "), "{err}");
    // -s hides the messages, not the exit code.
    t.trawl()
        .args(["--search-zip", "-s", "-q", "nomatch", "bad.tar", "cut.gz"])
        .run()
        .assert_code(2)
        .assert_no_stderr();
}

#[test]
fn an_encrypted_member_gets_one_note_and_its_siblings_are_searched() {
    let t = Tree::new();
    t.file("secret.txt", "hidden needle\n");
    t.file("open.txt", "open needle\n");
    sh(t.path(), "zip", &["-q", "-P", "pw", "enc.zip", "secret.txt"]);
    sh(t.path(), "zip", &["-q", "enc.zip", "open.txt"]);
    let got = t.trawl().args(["--search-zip", "needle", "enc.zip"]).run();
    got.assert_code(2).assert_stdout("enc.zip{open.txt}:open needle\n");
    assert_eq!(got.stderr_str(), "trawl: enc.zip{secret.txt}: encrypted member, not searched\n");
    // -h drops member names; a single compressed file is one file, unnamed.
    t.trawl().args(["--search-zip", "-h", "open", "enc.zip"]).run().assert_stdout("open needle\n");
    t.file("one.txt", "one needle\n");
    sh(t.path(), "gzip", &["one.txt"]);
    t.trawl()
        .args(["--search-zip", "needle", "one.txt.gz"])
        .run()
        .assert_code(0)
        .assert_stdout("one needle\n");
}

#[test]
fn include_and_exclude_choose_members_as_they_choose_files() {
    let t = Tree::new();
    t.file("w/a.c", "c needle\n");
    t.file("w/b.h", "h needle\n");
    t.file("w/skip.c", "skipped needle\n");
    sh(&t.path().join("w"), "tar", &["-czf", "../src.tgz", "a.c", "b.h", "skip.c"]);
    std::fs::remove_dir_all(t.path().join("w")).unwrap();
    t.file("one.c", "gz needle\n");
    sh(t.path(), "gzip", &["one.c"]);
    t.file("plain.txt", "plain needle\n");
    let got = t
        .trawl()
        .args([
            "--search-zip",
            "--sort",
            "path",
            "--include",
            "*.c",
            "--exclude",
            "skip*",
            "needle",
            ".",
        ])
        .run();
    got.assert_code(0)
        .assert_no_stderr()
        .assert_stdout("./one.c.gz:gz needle\n./src.tgz{a.c}:c needle\n");
    // Excluding the archive skips all of it.
    let got =
        t.trawl().args(["--search-zip", "--exclude", "*.tgz", "-l", "needle", "src.tgz"]).run();
    got.assert_code(1).assert_stdout("");
}

#[test]
fn find_kind_tells_files_by_their_bytes() {
    let t = Tree::new();
    t.file("src/a.c", text(1, 50));
    t.file("src/b.c", text(2, 50));
    for (tool, out) in
        [("gzip", "a.gz"), ("bzip2", "a.bz2"), ("xz", "a.xz"), ("zstd", "a.zst"), ("lz4", "a.lz4")]
    {
        t.file_bytes(format!("k/{out}").as_bytes(), sh(t.path(), tool, &["-c", "src/a.c"]));
    }
    sh(t.path(), "tar", &["-cf", "k/a.tar", "src"]);
    sh(t.path(), "zip", &["-qr", "k/a.zip", "src"]);
    // Misnamed: a gzip stream named .txt, a text named .gz; an empty file.
    std::fs::copy(t.path().join("k/a.gz"), t.path().join("k/looks-like.txt")).unwrap();
    t.file("k/not.gz", "plain text\n");
    t.file("k/empty", "");
    let find = |kind: &str| {
        let r = t.trawl().args(["find", "k", "-kind", kind]).run();
        r.assert_code(0).assert_no_stderr();
        let mut v: Vec<String> = r.stdout_str().lines().map(str::to_string).collect();
        v.sort();
        v
    };
    assert_eq!(find("gzip"), ["k/a.gz", "k/looks-like.txt"]);
    assert_eq!(find("bzip2,xz"), ["k/a.bz2", "k/a.xz"]);
    assert_eq!(
        find("compressed"),
        ["k/a.bz2", "k/a.gz", "k/a.lz4", "k/a.xz", "k/a.zst", "k/looks-like.txt"]
    );
    assert_eq!(find("archive"), ["k/a.tar", "k/a.zip"]);
    assert_eq!(find("plain"), ["k/empty", "k/not.gz"]);
    let bad = t.trawl().args(["find", "k", "-kind", "rar"]).run();
    bad.assert_code(1);
    assert!(bad.stderr_str().contains("unknown kind 'rar'"), "{}", bad.stderr_str());
}

/// A sorted search wrote an archive's members with context as one group:
/// the walk carried each visit's output as one piece, so no `--` went
/// between members, as it does unsorted (each member is a file's group).
#[test]
fn sorted_context_separates_an_archives_members_as_unsorted_does() {
    let t = Tree::new();
    t.file("src/m1.txt", "a\nfoo\nb\n");
    t.file("src/m2.txt", "c\nfoo\nd\n");
    t.file("z.txt", "x\nfoo\ny\n");
    sh(t.path(), "zip", &["-qr", "a.zip", "src"]);
    let want = "a.zip{src/m1.txt}-a\na.zip{src/m1.txt}:foo\na.zip{src/m1.txt}-b\n--\n\
                a.zip{src/m2.txt}-c\na.zip{src/m2.txt}:foo\na.zip{src/m2.txt}-d\n--\n\
                z.txt-x\nz.txt:foo\nz.txt-y\n";
    for threads in ["1", "2"] {
        let got = t
            .trawl()
            .args(["--search-zip", "-C1", "--sort", "path", "-j", threads, "foo", "a.zip", "z.txt"])
            .run();
        got.assert_code(0).assert_no_stderr();
        assert_eq!(got.stdout_str(), want, "-j {threads}");
    }
    // Unsorted on one thread: the same.
    let got = t.trawl().args(["--search-zip", "-C1", "-j", "1", "foo", "a.zip", "z.txt"]).run();
    assert_eq!(got.stdout_str(), want);
}
