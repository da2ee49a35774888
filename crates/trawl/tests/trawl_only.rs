//! trawl's own options, which grep lacks: --json, --stats, --sort,
//! --gitignore, -S, --max-depth, --engine, --one-file-system, and streaming
//! with --line-buffered. Expected outputs are spelled out here.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;

use crate::fixtures::{basic, big, ignores};
use crate::json::{parse_lines, Value};
use crate::util::{engine_flags, lines, sorted_records, Cmd, Engine, Run, Tree};

fn trawl(t: &Tree, e: Engine, args: &[&str]) -> Run {
    t.trawl().args(engine_flags(e)).args(args).run()
}

fn json_tree() -> Tree {
    let t = Tree::new();
    t.file("j.txt", "foo\nbar\nfoo bar foo\n").file("k.txt", "nothing\n");
    t
}

fn kind(v: &Value) -> &str {
    v.str_at(&["type"]).unwrap_or_else(|| panic!("message without a type: {v:?}"))
}

/// Checks one match/context message.
fn assert_line_msg(
    v: &Value,
    kind_: &str,
    path: &str,
    text: &[u8],
    line: u64,
    offset: u64,
    subs: &[(&str, u64, u64)],
) {
    assert_eq!(kind(v), kind_, "{v:?}");
    assert_eq!(v.data_at(&["data", "path"]).as_deref(), Some(path.as_bytes()), "{v:?}");
    assert_eq!(v.data_at(&["data", "lines"]).as_deref(), Some(text), "{v:?}");
    assert_eq!(v.u64_at(&["data", "line_number"]), Some(line), "line_number in {v:?}");
    assert_eq!(v.u64_at(&["data", "absolute_offset"]), Some(offset), "absolute_offset in {v:?}");
    let got: Vec<(Vec<u8>, u64, u64)> = v
        .arr_at(&["data", "submatches"])
        .unwrap_or_else(|| panic!("no submatches in {v:?}"))
        .iter()
        .map(|s| {
            (
                s.data_at(&["match"]).unwrap(),
                s.u64_at(&["start"]).unwrap(),
                s.u64_at(&["end"]).unwrap(),
            )
        })
        .collect();
    let want: Vec<(Vec<u8>, u64, u64)> =
        subs.iter().map(|(t, s, e)| (t.as_bytes().to_vec(), *s, *e)).collect();
    assert_eq!(got, want, "submatches in {v:?}");
}

engines!(json_begin_match_end_summary, |e| {
    let t = json_tree();
    let r = trawl(&t, e, &["--json", "foo", "j.txt"]);
    r.assert_code(0).assert_no_stderr();
    let m = parse_lines(&r.stdout);
    let kinds: Vec<&str> = m.iter().map(kind).collect();
    assert_eq!(kinds, ["begin", "match", "match", "end", "summary"], "{}", r.stdout_str());
    assert_eq!(m[0].data_at(&["data", "path"]).as_deref(), Some(&b"j.txt"[..]));
    assert_line_msg(&m[1], "match", "j.txt", b"foo\n", 1, 0, &[("foo", 0, 3)]);
    assert_line_msg(
        &m[2],
        "match",
        "j.txt",
        b"foo bar foo\n",
        3,
        8,
        &[("foo", 0, 3), ("foo", 8, 11)],
    );
    assert_eq!(m[3].data_at(&["data", "path"]).as_deref(), Some(&b"j.txt"[..]));
    assert_eq!(m[4].u64_at(&["data", "stats", "matched_lines"]), Some(2), "{:?}", m[4]);
    assert_eq!(m[4].u64_at(&["data", "stats", "matches"]), Some(3), "{:?}", m[4]);
    assert_eq!(m[4].u64_at(&["data", "stats", "searches_with_match"]), Some(1), "{:?}", m[4]);
});

engines!(json_context_messages, |e| {
    let t = json_tree();
    let r = trawl(&t, e, &["--json", "-C", "1", "bar$", "j.txt"]);
    r.assert_code(0);
    let m = parse_lines(&r.stdout);
    let kinds: Vec<&str> = m.iter().map(kind).collect();
    assert_eq!(
        kinds,
        ["begin", "context", "match", "context", "end", "summary"],
        "{}",
        r.stdout_str()
    );
    assert_line_msg(&m[1], "context", "j.txt", b"foo\n", 1, 0, &[]);
    assert_line_msg(&m[2], "match", "j.txt", b"bar\n", 2, 4, &[("bar", 0, 3)]);
    assert_line_msg(&m[3], "context", "j.txt", b"foo bar foo\n", 3, 8, &[]);
});

engines!(json_context_across_files_is_only_json, |e| {
    // Context separates groups of different files with `--` in grep's
    // format; JSON has no such line.
    let t = json_tree();
    t.file("l.txt", "bar\nx\n");
    let r = trawl(&t, e, &["--json", "-C", "1", "bar$", "j.txt", "l.txt"]);
    r.assert_code(0);
    let m = parse_lines(&r.stdout);
    let kinds: Vec<&str> = m.iter().map(kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "begin").count(), 2, "{}", r.stdout_str());
});

engines!(json_no_match_exits_one_with_a_summary, |e| {
    let t = json_tree();
    let r = trawl(&t, e, &["--json", "zzz", "."]);
    r.assert_code(1);
    let m = parse_lines(&r.stdout);
    assert!(m.iter().all(|v| kind(v) != "match"), "{}", r.stdout_str());
    let last = m.last().expect("a summary message");
    assert_eq!(kind(last), "summary");
    assert_eq!(last.u64_at(&["data", "stats", "matched_lines"]), Some(0));
});

engines!(json_non_utf8_data_is_base64_bytes, |e| {
    let t = Tree::new();
    t.file("b.txt", b"ok\nbad \xff foo\n");
    let r = trawl(&t, e, &["--json", "foo", "b.txt"]);
    r.assert_code(0);
    let m = parse_lines(&r.stdout);
    let hit = m.iter().find(|v| kind(v) == "match").expect("a match");
    assert!(hit.at(&["data", "lines", "bytes"]).is_some(), "non-UTF-8 lines use bytes: {hit:?}");
    assert_line_msg(hit, "match", "b.txt", b"bad \xff foo\n", 2, 3, &[("foo", 6, 9)]);
});

engines!(json_files_are_contiguous_and_agree_with_grep, |e| {
    let t = basic();
    let r = trawl(&t, e, &["--json", "foo", "."]);
    r.assert_code(0);
    let m = parse_lines(&r.stdout);
    assert_eq!(kind(m.last().unwrap()), "summary");
    // begin, then matches of that file only, then end.
    let mut open: Option<Vec<u8>> = None;
    let mut seen_paths = BTreeSet::new();
    let mut got = BTreeSet::new();
    for v in &m[..m.len() - 1] {
        let path = v.data_at(&["data", "path"]).expect("a path");
        match kind(v) {
            "begin" => {
                assert!(open.is_none(), "begin inside another file's messages");
                assert!(seen_paths.insert(path.clone()), "file reported twice");
                open = Some(path);
            }
            "match" => {
                assert_eq!(open.as_ref(), Some(&path), "match outside its file's begin/end");
                let mut line = v.data_at(&["data", "lines"]).unwrap();
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                got.insert((
                    path,
                    v.u64_at(&["data", "line_number"]).unwrap(),
                    v.u64_at(&["data", "absolute_offset"]).unwrap(),
                    line,
                ));
            }
            "end" => {
                assert_eq!(open.take().as_ref(), Some(&path));
            }
            other => panic!("unexpected message type {other}"),
        }
    }
    assert!(open.is_none());
    let grep = t.grep().args(["-r", "-P", "-n", "-b", "-a", "foo", "."]).run();
    let want: BTreeSet<_> = lines(&grep.stdout).iter().map(|l| split_nb(l)).collect();
    assert_eq!(got, want);
});

/// Splits grep's `PATH:LINE:OFFSET:TEXT` (paths without colons).
fn split_nb(l: &[u8]) -> (Vec<u8>, u64, u64, Vec<u8>) {
    let mut it = l.splitn(4, |&b| b == b':');
    let path = it.next().unwrap().to_vec();
    let n = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
    let off = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
    (path, n, off, it.next().unwrap_or_default().to_vec())
}

engines!(json_line_numbers_and_offsets_across_buffer_boundaries, |e| {
    let t = big();
    let r = trawl(&t, e, &["--json", "needle", "boundaries.txt"]);
    r.assert_code(0);
    let got: Vec<(u64, u64)> = parse_lines(&r.stdout)
        .iter()
        .filter(|v| kind(v) == "match")
        .map(|v| {
            (
                v.u64_at(&["data", "line_number"]).unwrap(),
                v.u64_at(&["data", "absolute_offset"]).unwrap(),
            )
        })
        .collect();
    let grep = t.grep().args(["-P", "-n", "-b", "needle", "boundaries.txt"]).run();
    let want: Vec<(u64, u64)> = lines(&grep.stdout)
        .iter()
        .map(|l| {
            let mut it = l.splitn(3, |&b| b == b':');
            let n = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
            let o = std::str::from_utf8(it.next().unwrap()).unwrap().parse().unwrap();
            (n, o)
        })
        .collect();
    assert_eq!(got, want);
});

// --stats
engines!(stats_follow_the_normal_output, |e| {
    let t = json_tree();
    let r = trawl(&t, e, &["--stats", "foo", "j.txt", "k.txt"]);
    r.assert_code(0).assert_no_stderr();
    let normal = b"j.txt:foo\nj.txt:foo bar foo\n";
    assert!(r.stdout.starts_with(normal), "{}", r.stdout_str());
    let rest = String::from_utf8(r.stdout[normal.len()..].to_vec()).unwrap();
    let want = "\n3 matches\n2 matched lines\n1 files contained matches\n2 files searched\n28 bytes printed\n28 bytes searched\n";
    assert!(rest.starts_with(want), "stats:\n{rest}\nwant:\n{want}");
    let secs = rest[want.len()..]
        .strip_suffix(" seconds\n")
        .unwrap_or_else(|| panic!("no seconds line: {rest}"));
    assert!(secs.parse::<f64>().is_ok(), "{secs:?}");
});

engines!(stats_without_a_match, |e| {
    let t = json_tree();
    let r = trawl(&t, e, &["--stats", "zzz", "."]);
    r.assert_code(1);
    let out = r.stdout_str();
    assert!(
        out.starts_with(
            "\n0 matches\n0 matched lines\n0 files contained matches\n2 files searched\n"
        ),
        "{out}"
    );
});

/// The number before `label` in a --stats block ("14 matches").
fn stat(out: &str, label: &str) -> u64 {
    let line =
        out.lines().find(|l| l.split_once(' ').is_some_and(|(_, rest)| rest.starts_with(label)));
    let line = line.unwrap_or_else(|| panic!("no `{label}` in {out}"));
    line.split(' ').next().unwrap().parse().unwrap()
}

// Issue 13 #25: the statistics mean the same in every output mode: with
// --stats (or --json), -l, -L, -q and -c go on counting every selected line
// and every match on them; the counts are grep's (the sum of -c, the lines
// of -o, the names of -l). A binary file's matched lines are counted, its
// matches are not, and the summary says so.
engines!(statistics_mean_the_same_in_every_output_mode, |e| {
    let t = Tree::new();
    t.file("a.txt", "fn a() { fn b() }\nnothing\nfn c\n")
        .file("b.txt", "no\n")
        .file("c/d.txt", "fn fn fn\nfnx\n");
    let grep = |args: &[&str]| t.grep().args(["-r", "-P"]).args(args).run().stdout_str();
    let lines: u64 = grep(&["-c", "fn ", "."])
        .lines()
        .map(|l| l.rsplit(':').next().unwrap().parse::<u64>().unwrap())
        .sum();
    let matches = grep(&["-o", "fn ", "."]).lines().count() as u64;
    let files = grep(&["-l", "fn ", "."]).lines().count() as u64;
    assert_eq!((lines, matches, files), (3, 5, 2));
    for mode in [&[][..], &["-l"], &["-L"], &["-q"], &["-c"], &["-o"], &["-n", "-C1"]] {
        let r = trawl(&t, e, &[&["--stats"], mode, &["fn ", "."]].concat());
        let out = r.stdout_str();
        assert_eq!(stat(&out, "matches"), matches, "{mode:?}: {out}");
        assert_eq!(stat(&out, "matched lines"), lines, "{mode:?}: {out}");
        assert_eq!(stat(&out, "files contained"), files, "{mode:?}: {out}");
        assert!(!out.contains("binary"), "{out}");
    }
    // A binary file: its two matched lines count, its matches do not.
    t.file("bin.dat", "fn one\n\0\nfn two fn\n");
    for mode in [&[][..], &["-l"], &["-c"]] {
        let r = trawl(&t, e, &[&["--stats"], mode, &["fn ", "."]].concat());
        let out = r.stdout_str();
        assert_eq!(stat(&out, "matched lines"), lines + 2, "{mode:?}: {out}");
        assert_eq!(stat(&out, "files contained"), files + 1, "{mode:?}: {out}");
        assert!(
            out.contains(&format!("\n{matches} matches (not counting those in 1 binary files)\n")),
            "{out}"
        );
    }
    let r = trawl(&t, e, &["--json", "fn ", "bin.dat", "a.txt"]);
    let m = parse_lines(&r.stdout);
    let last = m.last().unwrap();
    assert_eq!(last.u64_at(&["data", "stats", "matched_lines"]), Some(4), "{last:?}");
    assert_eq!(last.u64_at(&["data", "stats", "matches"]), Some(3), "{last:?}");
    assert_eq!(last.u64_at(&["data", "stats", "binary_searches_with_match"]), Some(1), "{last:?}");
});

// --sort path: depth-first, entries by name bytes.
fn sort_tree() -> Tree {
    let t = Tree::new();
    for name in ["b.txt", "a.txt", "ab/x.txt", "a-b.txt", "a/c/d.txt", "a/b.txt", "B.txt"] {
        t.file(name, "needle 1\nx\nneedle 2\n");
    }
    for i in (0..60).rev() {
        t.file(format!("m/f{i:02}.txt"), "needle\n");
    }
    t
}

fn sorted_expectation() -> Vec<u8> {
    let mut s = Vec::new();
    for name in ["B.txt", "a/b.txt", "a/c/d.txt", "a-b.txt", "a.txt", "ab/x.txt", "b.txt"] {
        s.extend_from_slice(format!("./{name}:1:needle 1\n./{name}:3:needle 2\n").as_bytes());
    }
    for i in 0..60 {
        s.extend_from_slice(format!("./m/f{i:02}.txt:1:needle\n").as_bytes());
    }
    s
}

engines!(sort_path_is_depth_first_by_name_bytes, |e| {
    let t = sort_tree();
    let want = sorted_expectation();
    for _ in 0..3 {
        trawl(&t, e, &["--sort", "path", "-j", "4", "-n", "needle", "."])
            .assert_code(0)
            .assert_stdout(&want);
    }
    let unsorted = trawl(&t, e, &["-j", "4", "-n", "needle", "."]);
    assert_eq!(unsorted.sorted_lines(), sorted_records(&want, b'\n'));
});

engines!(sort_path_files_with_matches, |e| {
    let t = sort_tree();
    let mut want = String::new();
    for name in ["B.txt", "a/b.txt", "a/c/d.txt", "a-b.txt", "a.txt", "ab/x.txt", "b.txt"] {
        want += &format!("./{name}\n");
    }
    for i in 0..60 {
        want += &format!("./m/f{i:02}.txt\n");
    }
    trawl(&t, e, &["--sort=path", "-l", "needle", "."]).assert_code(0).assert_stdout(want);
});

// --gitignore
engines!(default_searches_ignored_hidden_and_git_files, |e| {
    let c = ignores().parity(e).args(["-l", "needle", "."]).check();
    assert_eq!(c.trawl.sorted_lines().len(), 14, "{}", c.trawl.stdout_str());
});

engines!(gitignore_skips_ignored_files, |e| {
    let t = ignores();
    let r = trawl(&t, e, &["--gitignore", "-l", "needle", "."]);
    r.assert_code(0).assert_no_stderr();
    let want = [
        "./.hidden.txt",
        "./important.log",
        "./kept.txt",
        "./other/local.txt",
        "./sub/kept2.txt",
        "./sub/rootonly.txt",
        "./sub/special.log",
    ];
    let got = r.sorted_lines();
    let got: Vec<String> = got.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect();
    assert_eq!(got, want);
});

engines!(gitignore_still_searches_files_named_on_the_command_line, |e| {
    let t = ignores();
    trawl(&t, e, &["--gitignore", "needle", "ignored.txt"])
        .assert_code(0)
        .assert_stdout("needle ignored\n");
});

// -S / --smart-case: grep -i when the pattern has no uppercase letter.
engines!(smart_case_lowercase_pattern_ignores_case, |e| {
    basic().parity(e).args(["-S", "-n", "foo", "."]).grep_args(["-i", "-n", "foo", "."]).check();
    basic()
        .parity(e)
        .args(["--smart-case", "-c", r"\bfoo\b", "."])
        .grep_args(["-i", "-c", r"\bfoo\b", "."])
        .check();
});
engines!(smart_case_uppercase_pattern_is_case_sensitive, |e| {
    basic().parity(e).args(["-S", "-n", "Foo", "."]).grep_args(["-n", "Foo", "."]).check();
});

// --max-depth: levels below each path; 0 searches only the paths themselves.
fn depth_tree() -> Tree {
    let t = Tree::new();
    t.file("top.txt", "needle\n")
        .file("d1/one.txt", "needle\n")
        .file("d1/d2/two.txt", "needle\n")
        .file("d1/d2/d3/three.txt", "needle\n");
    t
}

engines!(max_depth_limits_recursion, |e| {
    let t = depth_tree();
    let run = |d: &str| trawl(&t, e, &["--max-depth", d, "-l", "needle", "."]);
    run("0").assert_code(1).assert_stdout("");
    run("1").assert_code(0).assert_stdout("./top.txt\n");
    let two = run("2");
    assert_eq!(two.sorted_lines(), [b"./d1/one.txt".to_vec(), b"./top.txt".to_vec()]);
    assert_eq!(run("3").sorted_lines().len(), 3);
    assert_eq!(run("9").sorted_lines().len(), 4);
    trawl(&t, e, &["--max-depth", "0", "needle", "top.txt"])
        .assert_code(0)
        .assert_stdout("needle\n");
    trawl(&t, e, &["--max-depth", "1", "-l", "needle", "d1"])
        .assert_code(0)
        .assert_stdout("d1/one.txt\n");
});

// --engine
#[test]
fn engine_rust_rejects_backreferences_and_look_around() {
    let t = basic();
    for pat in [r"(\w+)\s*=\s*\1", r"(?<=struct )\w+", "foo(?!bar)"] {
        let r = trawl(&t, Engine::Rust, &[pat, "."]);
        r.assert_code(2).assert_stdout("");
        assert!(r.stderr_str().starts_with("trawl: "), "{}", r.stderr_str());
    }
}

#[test]
fn engine_auto_picks_pcre2_for_look_around() {
    basic()
        .parity(Engine::Auto)
        .trawl_args(["--engine", "auto"])
        .args(["-o", r"(?<=struct )\w+", "."])
        .check();
    basic()
        .parity(Engine::Auto)
        .trawl_args(["--engine=pcre2"])
        .args(["-n", "foo(?!bar)", "."])
        .check();
}

#[test]
fn engine_rejects_unknown_names() {
    let r = trawl(&basic(), Engine::Auto, &["--engine", "perl", "foo", "."]);
    r.assert_code(2).assert_stdout("");
}

// --one-file-system: /dev/shm is usually another file system than the temp dir.
engines!(one_file_system_does_not_follow_into_another_file_system, |e| {
    let t = Tree::new();
    t.file("local/a.txt", "needle local\n");
    let Ok(other) = Tree::new_in(Path::new("/dev/shm")) else {
        eprintln!("skipped: cannot write /dev/shm");
        return;
    };
    let dev = |p: &Path| std::fs::metadata(p).unwrap().dev();
    if dev(t.path()) == dev(other.path()) {
        eprintln!("skipped: /dev/shm is on the temp dir's file system");
        return;
    }
    other.file("b.txt", "needle other\n");
    t.symlink(other.path(), "elsewhere");
    let all = trawl(&t, e, &["-R", "-l", "needle", "."]);
    assert_eq!(all.sorted_lines(), [b"./elsewhere/b.txt".to_vec(), b"./local/a.txt".to_vec()]);
    trawl(&t, e, &["-R", "--one-file-system", "-l", "needle", "."])
        .assert_code(0)
        .assert_stdout("./local/a.txt\n");
    // A path named on the command line is searched wherever it is.
    let other_path = other.path().to_str().unwrap().to_owned();
    let r = trawl(&t, e, &["--one-file-system", "-c", "needle", "local", &other_path]);
    assert_eq!(r.sorted_lines().len(), 2, "{}", r.stdout_str());
});

// --line-buffered: each line is written as soon as it is found.
engines!(line_buffered_streams_stdin_lines, |e| {
    let t = Tree::new();
    let cmd = Cmd::trawl(t.path()).args(engine_flags(e)).args(["--line-buffered", "foo"]);
    let mut child = cmd
        .command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let limit = crate::util::HANG;
    stdin.write_all(b"bar\nfoo one\n").unwrap();
    stdin.flush().unwrap();
    let first = rx.recv_timeout(limit);
    if first.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert_eq!(first.as_deref(), Ok("foo one"), "first line not written while input stays open");
    stdin.write_all(b"foo two\n").unwrap();
    stdin.flush().unwrap();
    let second = rx.recv_timeout(limit);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(second.as_deref(), Ok("foo two"));
});

// Issue 13 #24: --gitignore in a subdirectory of a repository honours what
// git does there: the parents' .gitignore files up to the repository's top,
// .git/info/exclude and the global excludes file (core.excludesFile,
// $XDG_CONFIG_HOME/git/ignore by default). Compared with git's own list of
// the files it does not ignore, from three starting points.
#[test]
fn gitignore_above_the_root_is_honoured_as_git_does() {
    let t = Tree::new();
    t.file("home/xdg/git/ignore", "globally.txt\n").file(
        "repo/.gitignore",
        "ignored.txt\n/sub/top-anchored.txt\n*.log\n!keep.log\ndeep/skipped/\n",
    );
    for f in [
        "ignored.txt",
        "kept.txt",
        "excluded.txt",
        "top-anchored.txt",
        "globally.txt",
        "a.log",
        "keep.log",
        "deep/ignored.txt",
        "deep/top-anchored.txt",
        "deep/kept.txt",
        "deep/skipped/x.txt",
    ] {
        t.file(format!("repo/sub/{f}"), "needle\n");
    }
    let home = t.path().join("home");
    let env = [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join("xdg")),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
    ];
    let git = |dir: &str, args: &[&str]| {
        let mut c = crate::util::Cmd::new("git", &t.path().join(dir)).args(args);
        for (k, v) in &env {
            c = c.env(k, v);
        }
        c.run()
    };
    git("repo", &["init", "-q"]).assert_code(0);
    std::fs::write(t.path().join("repo/.git/info/exclude"), "excluded.txt\n").unwrap();
    for (dir, root) in [("repo", "sub"), ("repo/sub", "."), ("repo/sub/deep", "..")] {
        let mut c = crate::util::Cmd::new(crate::util::trawl_bin(), &t.path().join(dir)).args([
            "--gitignore",
            "-l",
            "needle",
            root,
        ]);
        for (k, v) in &env {
            c = c.env(k, v);
        }
        let r = c.run();
        r.assert_code(0).assert_no_stderr();
        // The same files, however each tool spells their paths.
        let resolved = |out: String| -> BTreeSet<std::path::PathBuf> {
            out.lines().map(|l| t.path().join(dir).join(l).canonicalize().unwrap()).collect()
        };
        let got = resolved(r.stdout_str());
        let listed = git(dir, &["ls-files", "--others", "--exclude-standard", "--", root]);
        let want = resolved(listed.stdout_str());
        assert!(want.len() >= 3, "{dir}: git lists {want:?}");
        assert_eq!(got, want, "from {dir}, searching {root}");
    }
}
