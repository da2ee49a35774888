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
    // A file named by TRAWL_CONFIG_PATH must exist.
    let r = t.trawl().env("TRAWL_CONFIG_PATH", "missing").args(["hello", "a.txt"]).run();
    r.assert_code(2);
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
