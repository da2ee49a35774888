//! Issue 42: trawl started as other users, scripts and programs start it —
//! as another user whose home it cannot read (`su` without `-`, `sudo -E`,
//! `setpriv`, a unit with `ProtectHome`), from cron and CI (standard input
//! /dev/null or closed), with a configuration file it cannot read. Each
//! such run searches, and prints what a run at a terminal prints.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::util::{trawl_bin, Cmd, Run, StdinIs, Tree};

fn tree() -> Tree {
    let t = Tree::new();
    t.file("a.txt", "needle one\nhay\n").file("sub/b.rs", "fn needle() {}\n");
    t
}

/// The lines of a run, sorted (files are searched in parallel).
fn sorted(r: &Run) -> Vec<Vec<u8>> {
    r.sorted_lines()
}

#[test]
fn a_default_configuration_file_that_cannot_be_read_is_a_warning_and_the_search_goes_on() {
    let t = tree();
    // Read errors that root meets too: a directory, a loop of links. (If
    // the file were read, -c would count instead of print.)
    t.dir("isdir/trawl/config");
    t.dir("loop/trawl");
    std::os::unix::fs::symlink("config", t.path().join("loop/trawl/config")).unwrap();
    let plain = t.trawl().args(["--no-config", "-n", "needle", "a.txt"]).run();
    plain.assert_code(0).assert_stdout("1:needle one\n");
    for (home, reason) in
        [("isdir", "Is a directory"), ("loop", "Too many levels of symbolic links")]
    {
        let config = t.path().join(home);
        let r = t.trawl().env("XDG_CONFIG_HOME", &config).args(["-n", "needle", "a.txt"]).run();
        r.assert_code(0).assert_stdout(&plain.stdout);
        let file = config.join("trawl/config");
        let want =
            format!("trawl: warning: {}: {reason}; its defaults are not applied\n", file.display());
        assert_eq!(r.stderr_str(), want);
    }
    // No file at all: nothing said.
    t.trawl()
        .env("XDG_CONFIG_HOME", t.path().join("none"))
        .args(["-n", "needle", "a.txt"])
        .run()
        .assert_code(0)
        .assert_no_stderr();
}

/// ripgrep's rule for RIPGREP_CONFIG_PATH: a file the user named that
/// cannot be read is an error (exit status 2), and the search goes on.
#[test]
fn a_configuration_file_named_by_the_environment_that_cannot_be_read_is_an_error_and_the_search_goes_on(
) {
    let t = tree();
    t.dir("dir");
    for (named, reason) in [("missing", "No such file or directory"), ("dir", "Is a directory")] {
        let r = t.trawl().env("TRAWL_CONFIG_PATH", named).args(["needle", "a.txt"]).run();
        r.assert_code(2).assert_stdout("needle one\n");
        let want = format!(
            "trawl: {named}: {reason} (named by TRAWL_CONFIG_PATH); its defaults are not applied\n"
        );
        assert_eq!(r.stderr_str(), want);
        // -q: a match decides, as with any other error.
        let r = t.trawl().env("TRAWL_CONFIG_PATH", named).args(["-q", "needle", "a.txt"]).run();
        r.assert_code(0).assert_stdout("");
    }
}

/// Makes `dir` and its ancestors inside the tree reachable by everyone.
fn open_to_all(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Run as another user (root runs it as nobody through setpriv; anyone
/// else makes the home unreadable instead): the configuration file under a
/// home it cannot read is a warning, and the search prints what the same
/// search prints without it, standard input from /dev/null or a terminal.
#[test]
fn run_as_another_user_whose_home_it_cannot_read_it_searches_as_at_a_terminal() {
    let t = tree();
    open_to_all(t.path());
    open_to_all(&t.path().join("sub"));
    for f in ["a.txt", "sub/b.rs"] {
        let p = t.path().join(f);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    // The home (outside the tree): only its owner may enter; its
    // configuration would count.
    let homes = Tree::new();
    open_to_all(homes.path());
    homes.file("home/.config/trawl/config", "--count\n");
    let home = homes.path().join("home");
    // The binary, where the other user can run it (outside the tree).
    let bin_dir = Tree::new();
    open_to_all(bin_dir.path());
    let bin = bin_dir.path().join("trawl");
    std::fs::copy(trawl_bin(), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let as_other = |stdin: Option<StdinIs>| {
        let mut c = match root {
            true => Cmd::new("setpriv", t.path())
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .args([&bin]),
            false => Cmd::new(&bin, t.path()),
        };
        c = c.env("HOME", &home).env("XDG_CONFIG_HOME", "").args(["needle"]);
        if let Some(s) = stdin {
            c = c.stdin_is(s);
        }
        c.run()
    };
    // Root's 0700 home shuts nobody out; another user shuts itself out.
    let shut = if root { 0o700 } else { 0o000 };
    let want = t.trawl().args(["--no-config", "needle"]).stdin_is(StdinIs::Terminal).run();
    want.assert_code(0);
    assert_eq!(sorted(&want), [&b"a.txt:needle one"[..], b"sub/b.rs:fn needle() {}"]);
    let config = home.join(".config/trawl/config");
    let warning = format!(
        "trawl: warning: {}: Permission denied; its defaults are not applied\n",
        config.display()
    );
    for stdin in [None, Some(StdinIs::Terminal)] {
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(shut)).unwrap();
        let r = as_other(stdin.clone());
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
        r.assert_code(0);
        assert_eq!(sorted(&r), sorted(&want), "stdin {stdin:?}");
        assert_eq!(r.stderr_str(), warning, "stdin {stdin:?}");
    }
}

/// With no path, standard input is read only when it holds input: a pipe,
/// a regular file or a socket (ripgrep's rule). /dev/null (cron, CI,
/// `subprocess.run(stdin=DEVNULL)`, `nohup`) and a closed standard input
/// search `.`, as at a terminal; `-` reads standard input whatever it is.
#[test]
fn with_no_path_standard_input_is_read_only_when_it_holds_input() {
    let t = tree();
    let at_terminal = t.trawl().args(["needle"]).stdin_is(StdinIs::Terminal).run();
    at_terminal.assert_code(0).assert_no_stderr();
    assert_eq!(sorted(&at_terminal), [&b"a.txt:needle one"[..], b"sub/b.rs:fn needle() {}"]);
    // The default of the harness: /dev/null.
    let from_null = t.trawl().args(["needle"]).run();
    from_null.assert_code(0).assert_no_stderr();
    assert_eq!(sorted(&from_null), sorted(&at_terminal), "standard input /dev/null");
    let closed = t.trawl().args(["needle"]).stdin_is(StdinIs::Closed).run();
    closed.assert_code(0).assert_no_stderr();
    assert_eq!(sorted(&closed), sorted(&at_terminal), "standard input closed");
    // The example of the issue: a glob, no path.
    let globbed = t.trawl().args(["-g", "*.rs", "fn"]).run();
    globbed.assert_code(0).assert_stdout("sub/b.rs:fn needle() {}\n");
    // -r with no path searches `.`, whatever standard input is (grep).
    let r = t.trawl().args(["-r", "needle"]).stdin("piped needle\n").run();
    assert_eq!(sorted(&r), sorted(&at_terminal));
    // Input that is input: a pipe, a regular file, a socket.
    t.trawl().args(["needle"]).stdin("piped needle\n").run().assert_stdout("piped needle\n");
    t.file("input", "needle from a file\n");
    let from_file = t.trawl().args(["needle"]).stdin_is(StdinIs::File(t.path().join("input")));
    from_file.run().assert_code(0).assert_stdout("needle from a file\n");
    let socket = StdinIs::Socket(b"needle through a socket\n".to_vec());
    t.trawl().args(["needle"]).stdin_is(socket).run().assert_stdout("needle through a socket\n");
    // `-` names standard input: /dev/null holds nothing.
    t.trawl().args(["needle", "-"]).run().assert_code(1).assert_stdout("");
}
