//! Issue 18's everyday conventions: the configuration file, completions and
//! the man page, ripgrep's file filters, editor output, encodings.

use crate::util::Tree;

fn config_tree() -> Tree {
    let t = Tree::new();
    t.file("a.txt", "hello\nHELLO\n").file("b.md", "hello\n");
    t
}

#[test]
fn configuration_file_arguments_come_before_the_command_line() {
    let t = config_tree();
    t.file("conf", "# ignore case by default\n\n  -i  \n--include\n*.txt\n");
    let conf = t.path().join("conf");
    t.trawl()
        .env("TRAWL_CONFIG_PATH", &conf)
        .args(["hello", "a.txt"])
        .run()
        .assert_code(0)
        .assert_stdout("hello\nHELLO\n");
    // The command line wins over the file (-i then --no-ignore-case).
    t.trawl()
        .env("TRAWL_CONFIG_PATH", &conf)
        .args(["--no-ignore-case", "hello", "a.txt"])
        .run()
        .assert_stdout("hello\n");
    // A value on the line after its option: --include *.txt leaves b.md out.
    t.trawl()
        .env("TRAWL_CONFIG_PATH", &conf)
        .args(["-l", "hello", "."])
        .run()
        .assert_stdout("./a.txt\n");
    // --no-config ignores the file.
    t.trawl()
        .env("TRAWL_CONFIG_PATH", &conf)
        .args(["--no-config", "hello", "a.txt"])
        .run()
        .assert_stdout("hello\n");
}

/// A command line of operands only is parsed by a lean command (issue 19's
/// startup); an option that changes nothing (--no-config) sends the same
/// search through the full one: output, messages and exit code are equal.
#[test]
fn an_operands_only_command_line_is_read_as_the_full_parser_reads_it() {
    let t = config_tree();
    t.file("dir/c.txt", "hello there\n").file("dir/d.bin", "hello\0\n");
    let cases: [&[&str]; 9] = [
        &["hello", "a.txt"],
        &["hello", "a.txt", "b.md", "dir"],
        &["hello", "."],
        &["HELLO", "dir"],
        &["absent", "a.txt"],
        &["hello", "missing"],
        &["", "a.txt"],
        &["(unclosed", "a.txt"],
        &["hel+o", "a.txt", "dir/c.txt"],
    ];
    for args in cases {
        let lean = t.trawl().args(args).run();
        let full = t.trawl().args(["--no-config"]).args(args).run();
        assert_eq!(lean.code, full.code, "exit code of {args:?}");
        // Files are searched in parallel: each file's lines in order, the
        // files in any order.
        assert_eq!(by_file(&lean.stdout), by_file(&full.stdout), "output of {args:?}");
        assert_eq!(lean.stderr, full.stderr, "messages of {args:?}");
    }
    // Standard input, no operand but the pattern.
    let lean = t.trawl().args(["hello"]).stdin(b"hello\nno\n").run();
    let full = t.trawl().args(["--no-config", "hello"]).stdin(b"hello\nno\n").run();
    assert_eq!((lean.code, &lean.stdout), (full.code, &full.stdout));
    assert_eq!(lean.stdout, b"hello\n");
}

/// Output lines grouped by the file they name (a binary-file message's path,
/// else the text before the first `:`), each file's lines in their order.
fn by_file(out: &[u8]) -> Vec<&[u8]> {
    let mut v = crate::util::lines(out);
    v.sort_by_key(|l| {
        let l = l.strip_prefix(b"trawl: ").unwrap_or(l);
        l.split(|&c| c == b':').next().unwrap_or(l)
    });
    v
}

#[test]
fn configuration_file_is_found_under_xdg_config_home() {
    let t = config_tree();
    t.file("xdg/trawl/config", "--ignore-case\n");
    t.trawl()
        .env("XDG_CONFIG_HOME", t.path().join("xdg"))
        .args(["-c", "hello", "a.txt"])
        .run()
        .assert_stdout("2\n");
    // An empty TRAWL_CONFIG_PATH means no file at all.
    t.trawl()
        .env("XDG_CONFIG_HOME", t.path().join("xdg"))
        .env("TRAWL_CONFIG_PATH", "")
        .args(["-c", "hello", "a.txt"])
        .run()
        .assert_stdout("1\n");
}

#[test]
fn configuration_file_errors_name_the_file_and_line() {
    let t = config_tree();
    let cases: [(&str, &str); 5] = [
        ("-i\n# note\n--bogus\n", "conf:3: unrecognized option '--bogus'\n"),
        ("-i\n--include\n", "conf:2: option '--include' requires an argument\n"),
        ("-w\nhello\n", "conf:2: not an option"),
        ("--color=sometimes\n", "conf:1: invalid argument 'sometimes' for '--color'\n"),
        ("-m\nmany\n", "conf:2: invalid max count\n"),
    ];
    for (text, want) in cases {
        t.file("conf", text);
        let r = t.trawl().env("TRAWL_CONFIG_PATH", "conf").args(["hello", "a.txt"]).run();
        r.assert_code(2);
        let err = r.stderr_str();
        assert!(err.starts_with(&format!("trawl: {want}")), "config {text:?}: {err:?}");
        assert_eq!(err.lines().count(), 1, "one line for config {text:?}: {err:?}");
        assert!(r.stdout.is_empty(), "no search with a bad configuration file");
    }
    // A file named by TRAWL_CONFIG_PATH that does not exist is an error
    // too, but the search goes on without it (see invocations.rs).
    let r = t.trawl().env("TRAWL_CONFIG_PATH", "missing").args(["hello", "a.txt"]).run();
    r.assert_code(2).assert_stdout("hello\n");
    assert!(
        r.stderr_str().starts_with("trawl: missing: No such file or directory"),
        "{}",
        r.stderr_str()
    );
}

fn generated(kind: &str) -> Vec<u8> {
    let t = Tree::new();
    let r = t.trawl().args(["--generate", kind]).run();
    r.assert_code(0).assert_no_stderr();
    assert!(!r.stdout.is_empty(), "--generate {kind} wrote nothing");
    r.stdout
}

/// Runs `program args... FILE` on `text` saved to a file; returns its status and stderr.
fn check_with(program: &str, args: &[&str], text: &[u8]) -> (bool, String) {
    let t = Tree::new();
    t.file("generated", text);
    let out = std::process::Command::new(program)
        .args(args)
        .arg(t.path().join("generated"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} (.ci/deps installs it): {e}"));
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn generated_completions_are_accepted_by_each_shell() {
    for (kind, shell, args) in [
        ("complete-bash", "bash", &["-n"][..]),
        ("complete-zsh", "zsh", &["-n"][..]),
        ("complete-fish", "fish", &["--no-execute"][..]),
    ] {
        let text = generated(kind);
        let (ok, err) = check_with(shell, args, &text);
        assert!(ok && err.is_empty(), "{shell} refuses trawl --generate {kind}: {err}");
        let text = String::from_utf8(text).unwrap();
        for word in ["ignore-case", "search-zip", "no-config", "find", "index"] {
            assert!(text.contains(word), "{kind} does not offer {word}");
        }
    }
}

#[test]
fn bash_completion_offers_long_options_and_modes() {
    let script = String::from_utf8(generated("complete-bash")).unwrap();
    let complete = |words: &str| {
        let program = format!(
            "{script}\nCOMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; \
             _trawl trawl \"${{COMP_WORDS[-1]}}\" \"${{COMP_WORDS[-2]}}\"; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = std::process::Command::new("bash").arg("-c").arg(program).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let got = complete("trawl --ignore-c");
    assert_eq!(got.lines().collect::<Vec<_>>(), ["--ignore-case"], "{got}");
    let got = complete("trawl --binary-files ''");
    assert_eq!(got.lines().collect::<Vec<_>>(), ["binary", "text", "without-match"], "{got}");
    let got = complete("trawl index --st");
    assert_eq!(got.lines().collect::<Vec<_>>(), ["--status"], "{got}");
}

#[test]
fn generated_man_page_is_read_by_man_without_warnings() {
    let page = generated("man");
    let t = Tree::new();
    t.file("trawl.1", &page);
    let out = std::process::Command::new("man")
        .args(["--warnings", "-l"])
        .arg(t.path().join("trawl.1"))
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .expect("man (man-db; .ci/deps installs it)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "man -l: {err}");
    let text = String::from_utf8_lossy(&out.stdout);
    for section in [
        "SYNOPSIS",
        "OPTIONS",
        "--ignore-case",
        "--no-config",
        "TRAWL FIND",
        "-newerXY",
        "TRAWL INDEX",
    ] {
        assert!(text.contains(section), "the man page lacks {section}");
    }
}

/// A small repository: sources, a build directory git ignores holding a
/// binary, hidden files and directories, documents.
fn repo() -> Tree {
    let t = Tree::new();
    t.file("src/main.rs", "fn main() {}\n")
        .file("src/lib.rs", "pub fn lib_main() {}\n")
        .file("src/util.c", "int main(void);\n")
        .file("src/util.h", "int main(void);\n")
        .file("src/skip_main.rs", "fn main() {}\n")
        .file("docs/guide.md", "main page\n")
        .file("docs/Notes.TXT", "main notes\n")
        .file(".github/ci.yml", "main: yes\n")
        .file(".env", "MAIN=1\n")
        .file("src/.hidden.rs", "fn main() {}\n")
        .file("big.log", "main\n".repeat(1000))
        .file(".gitignore", "target/\n*.log\n")
        .file_bytes(b"target/debug/app", b"main\0binary\n")
        .file("target/notes.txt", "main\n");
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(t.path())
        .status()
        .expect("git (.ci/deps installs it)");
    assert!(git.success());
    t
}

/// rg's output lines, sorted (rg from .ci/deps), with the given arguments.
fn rg_sorted(t: &Tree, args: &[&str]) -> Vec<Vec<u8>> {
    let r = crate::util::Cmd::new(crate::util::rg_bin(), t.path()).args(args).run();
    assert!(r.code <= 1, "rg failed (.ci/deps installs ripgrep): {}", r.stderr_str());
    r.sorted_lines()
}

fn trawl_sorted(t: &Tree, args: &[&str]) -> Vec<Vec<u8>> {
    let r = t.trawl().args(args).run();
    assert!(r.code <= 1, "{}: {}", r.cmdline, r.stderr_str());
    assert!(r.stderr.is_empty(), "{}: {}", r.cmdline, r.stderr_str());
    r.sorted_lines()
}

fn show(lines: &[Vec<u8>]) -> String {
    lines.iter().map(|l| String::from_utf8_lossy(l).into_owned() + "\n").collect()
}

/// Each filter, with --files, lists what rg lists: rg's defaults (git's
/// ignores, hidden files) are trawl's -k, and rg -uu reads as trawl does.
#[test]
fn files_lists_what_rg_lists_under_each_filter() {
    let t = repo();
    let cases: [(&[&str], &[&str]); 13] = [
        (&["--files"], &["--files", "-uu"]),
        (&["--files", "-k"], &["--files"]),
        (&["--files", "--no-hidden"], &["--files", "--no-ignore"]),
        // --gitignore skips .git (as rg 14 does; rg 13 lists it).
        (&["--files", "--gitignore"], &["--files", "--hidden", "-g", "!.git/"]),
        (&["--files", "-g", "*.rs"], &["--files", "-uu", "-g", "*.rs"]),
        (
            &["--files", "-g", "*.rs", "-g", "!skip*"],
            &["--files", "-uu", "-g", "*.rs", "-g", "!skip*"],
        ),
        (
            &["--files", "-g", "!src/", "-g", "!.git/"],
            &["--files", "-uu", "-g", "!src/", "-g", "!.git/"],
        ),
        (&["--files", "-g", "{docs,src}/**"], &["--files", "-uu", "-g", "{docs,src}/**"]),
        (&["--files", "--iglob", "*.txt"], &["--files", "-uu", "--iglob", "*.txt"]),
        (&["--files", "-k", "-t", "rust", "-t", "md"], &["--files", "-t", "rust", "-t", "md"]),
        (&["--files", "-k", "--type-not", "c"], &["--files", "--type-not", "c"]),
        // A glob that includes a file overrides the ignore files (not its
        // ignored directory), as in rg.
        (&["--files", "-k", "-g", "*.log"], &["--files", "-g", "*.log"]),
        (
            &["--files", "-k", "--type-add", "mine:*.{c,md}", "-t", "mine"],
            &["--files", "--type-add", "mine:*.{c,md}", "-t", "mine"],
        ),
    ];
    for (trawl_args, rg_args) in cases {
        let want = rg_sorted(&t, rg_args);
        let got = trawl_sorted(&t, trawl_args);
        assert!(!want.is_empty(), "rg {rg_args:?} lists nothing");
        assert_eq!(show(&got), show(&want), "trawl {trawl_args:?} vs rg {rg_args:?}");
    }
}

/// A search under -k reads what rg reads by default (binary files skipped
/// too), and the filters narrow a search as they narrow --files.
#[test]
fn code_search_reads_what_rg_reads() {
    let t = repo();
    for (trawl_args, rg_args) in [
        (&["-k", "-l", "main", "."][..], &["-l", "main", "."][..]),
        (&["-k", "-c", "-i", "main", "."][..], &["-c", "-i", "main", "."][..]),
        (&["-l", "-t", "c", "main", "."][..], &["-uu", "-l", "-t", "c", "main", "."][..]),
        (&["-l", "-g", "!*.rs", "main", "."][..], &["-uuu", "-l", "-g", "!*.rs", "main", "."][..]),
        (
            &["-l", "--max-filesize", "1K", "main", "."][..],
            &["-uuu", "-l", "--max-filesize", "1K", "main", "."][..],
        ),
    ] {
        let want = rg_sorted(&t, rg_args);
        let got = trawl_sorted(&t, trawl_args);
        assert_eq!(show(&got), show(&want), "trawl {trawl_args:?} vs rg {rg_args:?}");
    }
    // --hidden and --no-gitignore undo -k's parts, the later option winning.
    let all = trawl_sorted(&t, &["-l", "-I", "main", "."]);
    let undone = trawl_sorted(&t, &["-k", "--hidden", "--no-gitignore", "-l", "main", "."]);
    assert_eq!(show(&undone), show(&all));
    let redone = trawl_sorted(&t, &["--hidden", "-k", "-l", "main", "."]);
    assert!(!redone.iter().any(|l| l.starts_with(b"./.")), "{}", show(&redone));
}

#[test]
fn files_named_on_the_command_line_are_listed_whatever_the_filters() {
    let t = repo();
    let got = trawl_sorted(&t, &["--files", "-t", "rust", "src/util.c", ".env", "src"]);
    let want =
        ["src/lib.rs", "src/main.rs", "src/skip_main.rs", ".env", "src/.hidden.rs", "src/util.c"];
    let mut want: Vec<Vec<u8>> = want.iter().map(|s| s.as_bytes().to_vec()).collect();
    want.sort();
    assert_eq!(show(&got), show(&want));
    // -Z ends each name with NUL.
    let r = t.trawl().args(["--files", "-Z", "src/util.c"]).run();
    r.assert_code(0).assert_stdout("src/util.c\0");
    // Nothing listed: exit 1.
    t.trawl().args(["--files", "-g", "*.nothing"]).run().assert_code(1).assert_stdout("");
}

#[test]
fn type_list_and_bad_types_and_globs() {
    let t = Tree::new();
    let r = t.trawl().args(["--type-list"]).run();
    r.assert_code(0);
    let text = r.stdout_str();
    assert!(text.lines().any(|l| l == "rust: *.rs"), "{text}");
    let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path()).args(["--type-list"]).run();
    let rg_names: Vec<&str> =
        rg.stdout_str().leak().lines().filter_map(|l| l.split(':').next()).collect();
    for name in ["rust", "c", "py", "md", "js", "go", "java"] {
        assert!(
            rg_names.contains(&name) && text.lines().any(|l| l.starts_with(&format!("{name}: "))),
            "{name}"
        );
    }
    let with_added = t.trawl().args(["--type-add", "mine:*.mine", "--type-list"]).run();
    assert!(with_added.stdout_str().lines().any(|l| l == "mine: *.mine"));
    let r = t.trawl().args(["-t", "nosuchtype", "x", "."]).run();
    r.assert_code(2);
    assert_eq!(r.stderr_str(), "trawl: unrecognized file type: nosuchtype\n");
    let r = t.trawl().args(["-g", "a[", "x", "."]).run();
    r.assert_code(2);
    assert!(r.stderr_str().starts_with("trawl: invalid glob 'a['"), "{}", r.stderr_str());
    let r = t.trawl().args(["--max-filesize", "12Q", "x", "."]).run();
    r.assert_code(2);
}

/// ripgrep's JSON messages for a search, with the times (which differ
/// from run to run) taken out.
fn json_messages(stdout: &[u8]) -> Vec<serde_json::Value> {
    fn drop_times(v: &mut serde_json::Value) {
        if let Some(map) = v.as_object_mut() {
            map.remove("elapsed");
            map.remove("elapsed_total");
            map.values_mut().for_each(drop_times);
        }
    }
    stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_slice(l).expect("a JSON line");
            drop_times(&mut v);
            v
        })
        .collect()
}

/// Every field rg writes is there with rg's value; trawl's additions are
/// only those it documents.
fn assert_json_as_rg(want: &serde_json::Value, got: &serde_json::Value, at: &str) {
    const TRAWL_ONLY: [&str; 4] = ["binary_searches_with_match", "index", "archive", "members"];
    match (want, got) {
        (serde_json::Value::Object(w), serde_json::Value::Object(g)) => {
            for (k, wv) in w {
                let gv = g.get(k).unwrap_or_else(|| panic!("{at}: no field {k} in {got}"));
                assert_json_as_rg(wv, gv, &format!("{at}.{k}"));
            }
            for k in g.keys().filter(|k| !w.contains_key(*k)) {
                assert!(TRAWL_ONLY.contains(&k.as_str()), "{at}: field {k} rg lacks, in {got}");
            }
        }
        (serde_json::Value::Array(w), serde_json::Value::Array(g)) => {
            assert_eq!(w.len(), g.len(), "{at}: {want} vs {got}");
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                assert_json_as_rg(wv, gv, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(want, got, "{at}"),
    }
}

#[test]
fn json_output_has_every_field_of_ripgreps_with_its_values() {
    let t = Tree::new();
    t.file("a.txt", "foo\nbar\nfoo bar foo\nbaz\n\nfoo\n")
        .file("b/c.txt", "nothing\nFOO here\n")
        .file_bytes(b"b/latin1.txt", b"caf\xe9 foo\nplain\n")
        .file("d.txt", "no match here\n");
    let searches: [&[&str]; 7] = [
        &["foo"],
        &["-i", "foo"],
        &["-C1", "foo"],
        &["-v", "foo"],
        &["-w", "-e", "bar", "-e", "baz"],
        &["-m1", "o"],
        &["--replace", "<$1>", "(o+)"],
    ];
    for args in searches {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["--json", "--sort", "path", "-uuu"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        let trawl = t
            .trawl()
            .args(["--json", "--sort", "path"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        assert_eq!(trawl.code, rg.code, "exit code for {args:?}: {}", trawl.stderr_str());
        let (want, got) = (json_messages(&rg.stdout), json_messages(&trawl.stdout));
        assert_eq!(
            want.len(),
            got.len(),
            "{args:?}:\nrg:\n{}\ntrawl:\n{}",
            rg.stdout_str(),
            trawl.stdout_str()
        );
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            assert_json_as_rg(w, g, &format!("{args:?} message {i}"));
        }
    }
    // Standard input is named as rg names it.
    let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
        .args(["--json", "foo"])
        .stdin("foo\nx\n")
        .run();
    let trawl = t.trawl().args(["--json", "foo"]).stdin("foo\nx\n").run();
    let (want, got) = (json_messages(&rg.stdout), json_messages(&trawl.stdout));
    assert_eq!(want.len(), got.len());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_json_as_rg(w, g, &format!("stdin message {i}"));
    }
}

/// Files for the output options: indented lines, several matches on a
/// line, long lines, UTF-8, groups for --replace.
fn output_tree() -> Tree {
    let t = Tree::new();
    t.file("a.txt", "  foo bar foo\nctx line\n    indented foo\nkey = value\nname=joe foo\n")
        .file(
            "b/c.txt",
            "nothing\n\tfoo\tbar\nlast foo line that is rather long, longer than twenty\n",
        )
        .file("b/u.txt", "abécdef foo\nnaïve foo bar foo baz\n")
        .file("d.txt", "no match\n");
    t
}

/// Each output option prints what rg prints (uncolored, sorted by path).
#[test]
fn output_options_print_what_rg_prints() {
    let t = output_tree();
    let cases: &[&[&str]] = &[
        &["-n", "--column", "-C1", "foo"],
        &["--column", "-o", "foo"],
        &["--column", "-b", "foo"],
        &["--vimgrep", "foo"],
        &["--vimgrep", "-i", "FOO|bar"],
        &["--trim", "-n", "-C1", "foo"],
        &["--trim", "-o", "\\s+foo"],
        &["-M", "8", "-n", "foo"],
        &["-M", "12", "-n", "-C1", "foo"],
        &["-M", "8", "--max-columns-preview", "-n", "-C1", "foo"],
        &["-M", "4", "--max-columns-preview", "foo"],
        &["-o", "-M", "2", "foo"],
        &["--passthru", "-n", "foo"],
        &["--passthru", "foo"],
        &["-v", "--column", "-n", "foo"],
        &["--replace", "X$0Y", "-n", "foo"],
        &["--replace", "[$0]", "-o", "foo"],
        &["--replace", "$2:$1", "(\\w+)\\s*=\\s*(\\w+)"],
        &["--replace", "<${k}>", "(?P<k>\\w+)="],
        &["--replace", "$$-$9-$1a-", "([a-z]+)"],
        &["-P", "--replace", "$2:$1", "(\\w+)\\s*=\\s*(\\w+)"],
        &["-P", "--replace", "<${k}>", "(?<k>\\w+)="],
        &["-F", "--replace", "<$0>", "foo"],
        &["--heading", "-n", "-C1", "foo"],
        &["--heading", "foo"],
        &["--heading", "--no-heading", "foo"],
        &["--trim", "--replace", "#", "-M", "12", "foo"],
        &["--trim", "--replace", "#", "-n", "foo"],
    ];
    for args in cases {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["-uuu", "--no-heading", "--sort", "path", "--no-config"])
            .args(args.iter().copied())
            .args(["."])
            .env("RIPGREP_CONFIG_PATH", "")
            .run();
        let trawl = t.trawl().args(["--sort", "path"]).args(args.iter().copied()).args(["."]).run();
        assert!(rg.code <= 1, "rg {args:?}: {}", rg.stderr_str());
        assert_eq!(
            trawl.stdout_str(),
            rg.stdout_str(),
            "trawl {args:?} prints otherwise than rg (stderr: {})",
            trawl.stderr_str()
        );
        assert_eq!(trawl.code, rg.code, "{args:?}");
    }
}

#[test]
fn sort_by_time_orders_files_as_rg_does() {
    let t = Tree::new();
    let names = ["m/one.txt", "a/two.txt", "z.txt", "b.txt"];
    for (i, name) in names.iter().enumerate() {
        t.file(name, "hit\n");
        // Times a minute apart, in the list's order (not the names'). Access
        // times in the future: reading the files (relatime) leaves them.
        let minutes = std::time::Duration::from_secs(60 * i as u64);
        let when = std::time::SystemTime::UNIX_EPOCH
            + std::time::Duration::from_secs(1_600_000_000)
            + minutes;
        let accessed =
            std::time::SystemTime::now() + std::time::Duration::from_secs(3600) + minutes;
        let f = std::fs::File::options().write(true).open(t.path().join(name)).unwrap();
        f.set_times(std::fs::FileTimes::new().set_modified(when).set_accessed(accessed)).unwrap();
    }
    for args in [
        &["--sort", "modified", "-l"][..],
        &["--sortr", "modified", "-l"],
        &["--sort", "accessed", "-n"],
        &["--sortr", "accessed", "-c"],
        &["--sortr", "path", "-l"],
        &["--sort", "path", "--sortr", "modified", "-l"],
        &["--sortr", "modified", "--sort", "path", "-l"],
        &["--sort", "modified", "--files"],
    ] {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["-uuu", "--no-config"])
            .args(args.iter().copied())
            .args(
                ["hit", "."].iter().copied().filter(|a| *a != "hit" || !args.contains(&"--files")),
            )
            .run();
        let trawl = t
            .trawl()
            .args(args.iter().copied())
            .args(
                ["hit", "."].iter().copied().filter(|a| *a != "hit" || !args.contains(&"--files")),
            )
            .run();
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{args:?}: {}", trawl.stderr_str());
    }
    let want: Vec<String> = names.iter().map(|n| format!("./{n}")).collect();
    let got = t.trawl().args(["--sort", "modified", "-l", "hit", "."]).run();
    assert_eq!(got.stdout_str(), want.join("\n") + "\n");
}

#[test]
fn no_color_turns_automatic_color_off_but_not_color_always() {
    let t = Tree::new();
    t.file("f", "a foo b\n");
    let plain = t.trawl().env("NO_COLOR", "1").args(["foo", "f"]).run();
    plain.assert_stdout("a foo b\n");
    let forced = t.trawl().env("NO_COLOR", "1").args(["--color=always", "foo", "f"]).run();
    assert!(forced.stdout_str().contains("\x1b["), "{:?}", forced.stdout_str());
}

#[test]
fn hyperlinks_wrap_names_in_osc8_when_coloring() {
    let t = Tree::new();
    t.file("sp ace/a#b.txt", "foo\n");
    let dir = std::fs::canonicalize(t.path()).unwrap();
    let dir = dir.to_str().unwrap().replace(' ', "%20");
    let r = t.trawl().args(["--color=always", "--hyperlink-format=vscode", "-n", "foo", "."]).run();
    let link = format!("\x1b]8;;vscode://file{dir}/sp%20ace/a%23b.txt:1:1\x1b\\");
    let out = r.stdout_str();
    assert!(out.starts_with(&link), "{out:?}");
    // The link covers the name and the line number, not the text.
    let close = out.find("\x1b]8;;\x1b\\").expect("the link's end");
    assert!(out[close..].contains("foo") && !out[..close].contains("foo"), "{out:?}");
    // -l names files as links too; without color, none.
    let r = t.trawl().args(["--color=always", "--hyperlink-format=file", "-l", "foo", "."]).run();
    assert!(r.stdout_str().starts_with("\x1b]8;;file://"), "{:?}", r.stdout_str());
    let r = t.trawl().args(["--hyperlink-format=vscode", "-l", "foo", "."]).run();
    r.assert_stdout("./sp ace/a#b.txt\n");
    let r = t.trawl().args(["--hyperlink-format=x{line}", "foo", "."]).run();
    r.assert_code(2);
    assert!(r.stderr_str().contains("{path} is required"), "{}", r.stderr_str());
}

/// -M's messages count matches when rg looked for them (a column, a
/// replacement, color), as rg words them.
#[test]
fn max_columns_messages_are_rgs() {
    let t = Tree::new();
    t.file("f", "foo foo foo foo\nxxxxxx\nfoo xxxxxx\n");
    for args in [
        &["-M", "5", "--max-columns-preview", "--column", "foo"][..],
        &["-M", "5", "--column", "foo"],
        &["-M", "5", "--replace", "x", "foo"],
        &["-M", "9", "--max-columns-preview", "--replace", "x", "foo"],
        &["-M", "5", "--vimgrep", "foo"],
        &["-M", "5", "--column", "-C1", "foo"],
        &["-M", "5", "--max-columns-preview", "--column", "-C1", "foo"],
        &["-M", "2", "--replace", "x", "-o", "foo"],
        &["-M", "12", "--max-columns-preview", "--column", "foo"],
    ] {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["--no-config", "-H", "--no-heading"])
            .args(args.iter().copied())
            .args(["f"])
            .run();
        let trawl = t.trawl().args(["-H"]).args(args.iter().copied()).args(["f"]).run();
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{args:?}");
    }
}

fn utf16(text: &str, little: bool) -> Vec<u8> {
    let mark: [u8; 2] = if little { [0xFF, 0xFE] } else { [0xFE, 0xFF] };
    let units = text.encode_utf16();
    mark.into_iter()
        .chain(units.flat_map(|u| if little { u.to_le_bytes() } else { u.to_be_bytes() }))
        .collect()
}

fn encoded_tree() -> Tree {
    let t = Tree::new();
    t.file_bytes(b"le.txt", utf16("héllo wörld\nsecond foo line\nfoo\n", true))
        .file_bytes(b"be.txt", utf16("foo BE\nnope\n", false))
        .file_bytes(b"bom8.txt", b"\xEF\xBB\xBFfoo at start\n")
        .file_bytes(b"latin.txt", b"caf\xe9 foo\n")
        .file("plain.txt", "plain foo\n");
    t
}

/// Byte-order marks are transcoded as rg does, and --encoding forces a
/// decoding; -a and --encoding none search the raw bytes.
#[test]
fn encodings_are_searched_as_rg_searches_them() {
    let t = encoded_tree();
    for args in [
        &["-n", "foo"][..],
        &["-n", "^foo"],
        &["-b", "-o", "foo"],
        &["-c", "."],
        &["-n", "wörld"],
        &["--encoding", "latin1", "-n", "caf."],
        &["--encoding", "utf-16le", "-n", "foo"],
        &["--encoding", "none", "-l", "foo"],
    ] {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["--no-config", "--no-heading", "-uuu", "--sort", "path", "-H"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        let trawl =
            t.trawl().args(["--sort", "path", "-H"]).args(args.iter().copied()).args(["."]).run();
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{args:?}: {}", trawl.stderr_str());
    }
    // -a reads raw bytes, as grep does (rg transcodes under -a too).
    let raw = t.trawl().args(["--sort", "path", "-a", "-l", "foo", "."]).run();
    raw.assert_stdout("./bom8.txt\n./latin.txt\n./plain.txt\n");
    // Standard input too, and a file large enough to be searched in parts.
    let le = utf16("one\ntwo foo\n", true);
    t.trawl().args(["-n", "foo"]).stdin(&le).run().assert_stdout("2:two foo\n");
    // 800,000 lines: 24 MB as UTF-16, above the size searched in parts.
    let needle = |i: usize| i % 99_999 == 7;
    let big: String = (0..800_000)
        .map(|i| format!("line {i} {}\n", if needle(i) { "needle" } else { "hay" }))
        .collect();
    t.file_bytes(b"big16.txt", utf16(&big, true));
    let want: String = (0..800_000)
        .filter(|&i| needle(i))
        .map(|i| format!("{}:line {i} needle\n", i + 1))
        .collect();
    for args in [&["-n", "needle", "big16.txt"][..], &["-n", "needle", "-j4", "big16.txt"]] {
        t.trawl().args(args.iter().copied()).run().assert_stdout(&want);
    }
    let r = t.trawl().args(["--encoding", "bogus", "x", "."]).run();
    r.assert_code(2);
    assert!(r.stderr_str().starts_with("trawl: unknown encoding 'bogus'"), "{}", r.stderr_str());
}

/// An index never hides a transcoded file: its bytes' grams are not its
/// text's.
#[test]
fn an_index_serves_transcoded_files_as_a_fresh_search() {
    let t = encoded_tree();
    // Past the index's racy window (files stamped within a second of the
    // build are searched as changed), and the cache outside the tree (a
    // change of the tree's own directory would make its files count as
    // changed), so that the index can skip files.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let elsewhere = Tree::new();
    let cache = elsewhere.path().join("cache");
    t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "."]).run().assert_code(0);
    for args in [&["-n", "foo"][..], &["-l", "wörld"], &["-I", "-l", "foo"], &["-c", "second"]] {
        // (--sort would bypass the index: the lines are compared sorted.)
        let indexed =
            t.trawl().env("XDG_CACHE_HOME", &cache).args(args.iter().copied()).args(["."]);
        let fresh = t
            .trawl()
            .env("XDG_CACHE_HOME", &cache)
            .args(["--no-index"])
            .args(args.iter().copied())
            .args(["."]);
        let (got, want) = (indexed.run().sorted_lines(), fresh.run().sorted_lines());
        assert!(!want.is_empty(), "{args:?} finds something");
        assert_eq!(show(&got), show(&want), "{args:?}");
    }
    let stats = t.trawl().env("XDG_CACHE_HOME", &cache).args(["--stats", "-l", "wörld", "."]).run();
    let out = stats.stdout_str();
    let skipped = out.lines().find(|l| l.ends_with("passed over by the index (they cannot match)"));
    // latin.txt and plain.txt cannot match; the marked files are searched.
    assert!(skipped.is_some_and(|l| l.starts_with("2 ")), "the index skipped 2 files: {out}");
}

/// A UTF-8 fixture: accents, Greek, CJK around ASCII words, the Kelvin
/// sign and long s (Unicode case folds of k and s), bytes that are not
/// UTF-8.
fn unicode_tree() -> Tree {
    let t = Tree::new();
    t.file_bytes(
        b"u.txt",
        "ÉCOLE\nnaïve café\nαβγ Greek ΑΒΓ\n中文foo中文\nfoo bar\nKELVIN \u{212A} sign\n\u{17F}top\nStraße STRASSE\n".as_bytes(),
    )
    .file_bytes(b"bad.txt", b"\xff\xff bad foo \xc3 caf\xc3\xa9\nplain\n");
    t
}

/// In a UTF-8 locale patterns are Unicode-aware as in rg; in the C locale
/// they stay bytes.
#[test]
fn utf8_locale_patterns_match_as_rg_matches() {
    let t = unicode_tree();
    let cases: &[&[&str]] = &[
        &["-i", "école"],
        &["-i", "ÉCOLE"],
        &["-o", "\\w+"],
        &["-o", "\\p{Greek}+"],
        &["-w", "foo"],
        &["-i", "k"],
        &["-i", "-o", "stop"],
        &["-o", "."],
        &["-o", "[^a ]+"],
        &["-x", ".{5}"],
        &["-o", "\\b\\w{4}\\b"],
        &["-F", "-i", "école"],
        &["-F", "-i", "-o", "kelvin"],
        &["-o", "-i", "[α-γ]+"],
        &["-S", "école"],
        &["-S", "École"],
        &["-o", "\\d+|\\s+"],
        &["-P", "-o", "\\w+"],
        &["-P", "-w", "foo"],
        &["-P", "-i", "école"],
        &["-o", "caf."],
        &["-o", "(?-u:\\xff)"],
    ];
    for args in cases {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .env("LC_ALL", "C.UTF-8")
            .args(["--no-config", "--no-heading", "-n", "-H", "--sort", "path", "-a"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        let trawl = t
            .trawl()
            .env("LC_ALL", "C.UTF-8")
            .args(["-n", "-H", "--sort", "path"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{args:?}: {}", trawl.stderr_str());
    }
    // The C locale: bytes (as GNU grep -P with LC_ALL=C).
    let c = t.trawl().args(["-i", "-c", "école", "u.txt"]).run();
    c.assert_stdout("0\n");
    let utf8 = t
        .trawl()
        .env("LC_ALL", "")
        .env("LANG", "en_US.UTF-8")
        .args(["-i", "-c", "école", "u.txt"])
        .run();
    utf8.assert_stdout("1\n");
}

/// POSIX classes cover Unicode as GNU grep's do in a UTF-8 locale (rg's
/// are ASCII).
#[test]
fn utf8_locale_posix_classes_match_as_gnu_grep_matches() {
    let t = unicode_tree();
    for args in [
        &["-o", "[[:alpha:]]+"][..],
        &["-o", "[[:upper:]]+"],
        &["-o", "[[:alnum:]]+"],
        &["-o", "[^[:alpha:][:space:]]+"],
        &["-o", "[[:space:]]+"],
        &["-c", "[[:digit:]]"],
        &["-o", "\\w+"],
        &["-wo", "\\w+"],
        &["-i", "-o", "straße"],
    ] {
        let grep = t
            .grep()
            .env("LC_ALL", "C.UTF-8")
            .args(["-E", "-a", "-n"])
            .args(args.iter().copied())
            .args(["u.txt"])
            .run();
        let trawl = t
            .trawl()
            .env("LC_ALL", "C.UTF-8")
            .args(["-n"])
            .args(args.iter().copied())
            .args(["u.txt"])
            .run();
        assert_eq!(trawl.stdout_str(), grep.stdout_str(), "{args:?}");
    }
}

/// A bad pattern, on a terminal: the reason, the pattern, a caret under the
/// place (a character, not a byte, further on for each character before
/// it), and nothing of the engine's own names. (Through a pipe: the reason
/// alone, as grep; see patterns::errors_speak_of_the_pattern.)
#[test]
fn bad_patterns_show_a_caret_under_the_place() {
    let t = Tree::new();
    t.file("f", "x\n").file("pats", "ok\nnaïve(\n");
    let trawl = || t.trawl().errors_to(crate::util::ErrorsTo::Terminal);
    let r = trawl().args(["-e", "é(x", "f"]).run();
    r.assert_code(2);
    assert_eq!(
        r.stderr_str(),
        "trawl: missing closing parenthesis (at offset 4 in 'é(x')\n    é(x\n       ^\n"
    );
    let r = trawl().args(["-f", "pats", "f"]).run();
    assert_eq!(
        r.stderr_str(),
        "trawl: pats:2: missing closing parenthesis (at offset 7 in 'naïve(')\n    naïve(\n          ^\n"
    );
    let r = trawl().args(["-e", "(?<n>a)(?<n>b)", "f"]).run();
    let err = r.stderr_str();
    assert!(err.starts_with("trawl: two named subpatterns have the same name (at offset"), "{err}");
    assert!(!err.contains("PCRE2"), "{err}");
    let r = trawl().args(["--engine", "rust", "-e", "a{2,1}", "f"]).run();
    assert!(r.stderr_str().ends_with("    a{2,1}\n     ^\n"), "{}", r.stderr_str());
}

/// --help: the synopsis, PATTERN and the standard-input rule, options in
/// groups, examples for the common tasks; -h stays grep's --no-filename.
#[test]
fn help_groups_options_and_shows_examples() {
    let t = Tree::new();
    t.file("f", "x\n");
    let r = t.trawl().args(["--help"]).run();
    r.assert_code(0);
    let help = r.stdout_str();
    for part in [
        "Usage: trawl [OPTIONS] PATTERN [PATH...]",
        "trawl shard --request FILE",
        "trawl merge --request FILE [STREAM...]",
        "With no PATH: standard input when it is",
        "Patterns:",
        "Output:",
        "Context:",
        "Choosing files:",
        "Binary files and encodings:",
        "Compressed files, archives and documents:",
        "Examples:",
        "trawl -k -n TODO",
        "trawl --files -t rust",
        "trawl --docs",
        "trawl find .",
        "extended regular expressions, read as Perl-compatible",
    ] {
        assert!(help.contains(part), "--help lacks {part:?}");
    }
    // Every option is in a group (none left under clap's "Options:").
    assert!(!help.contains("\nOptions:"), "{help}");
    t.trawl().args(["-h", "x", "f", "f"]).run().assert_stdout("x\nx\n");
}

/// --multiline: matches span lines, as with rg -U.
#[test]
fn multiline_matches_span_lines_as_rg_matches() {
    let t = Tree::new();
    t.file("a.txt", "a foo\nbar b\nc\nfoo\nbar\nx\n")
        .file("b/c.txt", "struct S {\n    x: u8,\n}\nfn f() {}\n")
        .file("d.txt", "no\nmatch\n");
    let cases: &[&[&str]] = &[
        &["-n", "foo\\nbar"],
        &["-n", "-o", "foo\\nbar"],
        &["-c", "foo\\nbar"],
        &["-n", "-C1", "o\\nb"],
        &["-v", "-n", "foo\\nbar"],
        &["-b", "-n", "foo\\nbar"],
        &["-n", "--multiline-dotall", "struct.*?\\}"],
        &["-n", "struct[^}]*\\}"],
        &["-n", "foo.bar"],
        &["-n", "^bar"],
        &["-l", "foo\\nbar"],
        &["-n", "-P", "foo\\nbar"],
        &["-n", "-m1", "foo\\nbar"],
        &["-n", "--column", "-o", "r\\s+c"],
        &["--json", "foo\\nbar"],
    ];
    for args in cases {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["--no-config", "-U", "--no-heading", "-H", "--sort", "path"])
            // grep's -c prints files without a match too.
            .args(args.contains(&"-c").then_some("--include-zero"))
            .args(args.iter().copied())
            .args(["."])
            .run();
        let trawl = t
            .trawl()
            .args(["--multiline", "-H", "--sort", "path"])
            .args(args.iter().copied())
            .args(["."])
            .run();
        if args.contains(&"--json") {
            let (want, got) = (json_messages(&rg.stdout), json_messages(&trawl.stdout));
            assert_eq!(want.len(), got.len(), "{args:?}");
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                assert_json_as_rg(w, g, &format!("{args:?} message {i}"));
            }
            continue;
        }
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{args:?}: {}", trawl.stderr_str());
        assert_eq!(trawl.code, rg.code, "{args:?}");
    }
    // Without --multiline a pattern never spans lines (grep).
    t.trawl().args(["-c", "foo\\nbar", "a.txt"]).run().assert_stdout("0\n");
}

/// --sort created: files in the order they were made (their birth times),
/// as rg orders them.
#[test]
fn sort_by_creation_orders_files_as_rg_does() {
    let t = Tree::new();
    let names = ["m/one.txt", "z.txt", "a/two.txt", "b.txt"];
    for name in names {
        t.file(name, "hit\n");
        // Birth times a little apart, whatever the clock's granularity.
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let birth = std::fs::metadata(t.path().join(names[0])).and_then(|m| m.created());
    assert!(birth.is_ok(), "the file system under the tests keeps no birth times: {birth:?}");
    for sort in ["--sort", "--sortr"] {
        let rg = crate::util::Cmd::new(crate::util::rg_bin(), t.path())
            .args(["-uuu", "--no-config", sort, "created", "-l", "hit", "."])
            .run();
        let trawl = t.trawl().args([sort, "created", "-l", "hit", "."]).run();
        assert_eq!(trawl.stdout_str(), rg.stdout_str(), "{sort}");
    }
    let want: String = names.iter().map(|n| format!("./{n}\n")).collect();
    t.trawl().args(["--sort", "created", "-l", "hit", "."]).run().assert_stdout(want);
}

/// In a UTF-8 locale an index still never hides a match: its queries come
/// from the Unicode syntax trees (the Kelvin sign for -i k, accents).
#[test]
fn an_index_serves_unicode_searches_as_a_fresh_search() {
    let t = unicode_tree();
    t.file("more/notes.txt", "kelvin scale\nécole normale\nnothing\n");
    // Past the index's racy window (files stamped within a second of the
    // build are searched as changed), so that it can skip files.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let elsewhere = Tree::new();
    let cache = elsewhere.path().join("cache");
    t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "."]).run().assert_code(0);
    for args in [
        &["-i", "kelvin"][..],
        &["-i", "-w", "k"],
        &["-i", "école"],
        &["-i", "stop"],
        &["-o", "\\p{Greek}+"],
        &["-w", "foo"],
        &["-i", "straße"],
    ] {
        let run = |extra: &[&str]| {
            t.trawl()
                .env("XDG_CACHE_HOME", &cache)
                .env("LC_ALL", "C.UTF-8")
                .args(extra.iter().copied())
                .args(["-n"])
                .args(args.iter().copied())
                .args(["."])
                .run()
                .sorted_lines()
        };
        let (indexed, fresh) = (run(&[]), run(&["--no-index"]));
        assert!(!fresh.is_empty(), "{args:?} finds something");
        assert_eq!(show(&indexed), show(&fresh), "{args:?}");
    }
    let stats = t
        .trawl()
        .env("XDG_CACHE_HOME", &cache)
        .env("LC_ALL", "C.UTF-8")
        .args(["--stats", "-l", "-i", "kelvin", "."])
        .run();
    let out = stats.stdout_str();
    let skipped = out.lines().find(|l| l.ends_with("passed over by the index (they cannot match)"));
    assert!(skipped.is_some_and(|l| !l.starts_with("0 ")), "the index served and skipped: {out}");
}
