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
    assert!(r.stderr_str().starts_with("trawl: missing: No such file or directory"), "{}", r.stderr_str());
}
