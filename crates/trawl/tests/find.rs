//! `trawl find` against GNU find 4.9 (the oracle).
//!
//! Both tools run with the same arguments in the same tree (`LC_ALL=C`);
//! trawl prints in parallel, so standard output is compared as a multiset
//! of records (lines, or NUL-terminated names with [`Find::nul`]). Exit
//! codes are compared, and so are the error messages after normalizing
//! `find: 'P': reason` / `trawl: 'P': reason` and the two spellings of a
//! file system loop. Unreadable directories are tested as uid 65534 through
//! `setpriv`. `-delete` runs on two copies of a tree and compares what is
//! left. trawl-only tests (`-text`, `-binary`, `-contains`) are compared
//! with references computed here or with `grep -l -P`.

use std::cmp::Ordering;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::find_fixtures::{deep, linux, regex_names, self_loops, set_times, tricky, unreadable};
use crate::util::{clip, record_differences, sorted_records, trawl_bin, Cmd, Run, Tree, TIMEOUT};

/// The limit for runs over trees with a FIFO: opening it would block forever.
const FIFO_TIMEOUT: Duration = Duration::from_secs(10);

/// `setpriv` options that make the command run as nobody/nogroup.
const AS_NOBODY: [&str; 4] = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"];

/// One differential run of GNU find and trawl find.
#[derive(Clone)]
pub(crate) struct Find {
    cwd: PathBuf,
    args: Vec<OsString>,
    /// trawl-only options (`-j N`, `--sort`), placed before `args`.
    trawl_opts: Vec<OsString>,
    sep: u8,
    nobody: bool,
    /// The exit code GNU find must have (else the test itself is wrong).
    gnu_code: Option<i32>,
    timeout: Duration,
    /// Environment for GNU find alone (e.g. a UTF-8 locale for grep -P).
    gnu_env: Vec<(String, String)>,
    /// Environment for both.
    env: Vec<(String, String)>,
    /// Standard input for both.
    stdin: Option<Vec<u8>>,
}

impl Find {
    pub(crate) fn new(cwd: &Path) -> Find {
        Find {
            cwd: cwd.to_owned(),
            args: Vec::new(),
            trawl_opts: Vec::new(),
            sep: b'\n',
            nobody: false,
            gnu_code: Some(0),
            timeout: TIMEOUT,
            gnu_env: Vec::new(),
            env: Vec::new(),
            stdin: None,
        }
    }

    /// Sets `k` in both tools' environment.
    pub(crate) fn env(mut self, k: &str, v: &str) -> Find {
        self.env.push((k.into(), v.into()));
        self
    }

    /// Gives both tools `input` on standard input.
    pub(crate) fn stdin(mut self, input: impl AsRef<[u8]>) -> Find {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    pub(crate) fn args<I, S>(mut self, it: I) -> Find
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(it.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub(crate) fn trawl_opts<I, S>(mut self, it: I) -> Find
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.trawl_opts.extend(it.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Records end with NUL (`-print0`, `-printf '...\0'`).
    pub(crate) fn nul(mut self) -> Find {
        self.sep = 0;
        self
    }

    /// Both tools run as uid/gid 65534.
    pub(crate) fn nobody(mut self) -> Find {
        self.nobody = true;
        self
    }

    /// GNU find exits with 1 here (errors are part of the test).
    pub(crate) fn fails(mut self) -> Find {
        self.gnu_code = Some(1);
        self
    }

    /// Whatever GNU find's exit code, trawl's must be the same.
    pub(crate) fn any_code(mut self) -> Find {
        self.gnu_code = None;
        self
    }

    pub(crate) fn timeout(mut self, t: Duration) -> Find {
        self.timeout = t;
        self
    }

    fn cmd(&self, program: &str, args: Vec<OsString>) -> Cmd {
        let mut c = if self.nobody {
            Cmd::new("setpriv", &self.cwd).args(AS_NOBODY).args([program]).args(args)
        } else {
            Cmd::new(program, &self.cwd).args(args)
        };
        for (k, v) in &self.env {
            c = c.env(k, v);
        }
        if let Some(input) = &self.stdin {
            c = c.stdin(input);
        }
        c.timeout(self.timeout)
    }

    pub(crate) fn gnu_env(mut self, k: &str, v: &str) -> Find {
        self.gnu_env.push((k.into(), v.into()));
        self
    }

    pub(crate) fn gnu(&self) -> Run {
        let mut c = self.cmd("find", self.args.clone());
        for (k, v) in &self.gnu_env {
            c = c.env(k, v);
        }
        c.run()
    }

    pub(crate) fn trawl(&self) -> Run {
        let mut a: Vec<OsString> = vec!["find".into()];
        a.extend(self.trawl_opts.iter().cloned());
        a.extend(self.args.iter().cloned());
        self.cmd(trawl_bin(), a).run()
    }

    /// Runs both and asserts that they agree; returns (trawl, GNU).
    pub(crate) fn check(&self) -> (Run, Run) {
        let gnu = self.gnu();
        let trawl = self.trawl();
        if let Some(code) = self.gnu_code {
            assert_eq!(
                gnu.code,
                code,
                "GNU find's exit code (a test bug): `{}`\n{}",
                gnu.cmdline,
                clip(&gnu.stderr)
            );
        }
        compare(&trawl, &gnu, self.sep);
        (trawl, gnu)
    }
}

/// Runs several checks to the end even when some fail (the panic hook
/// prints each failure), then fails the test if any did.
#[derive(Default)]
pub(crate) struct Soft {
    failed: Vec<String>,
}

impl Soft {
    pub(crate) fn run(&mut self, what: String, f: impl FnOnce()) {
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
            self.failed.push(what);
        }
    }

    pub(crate) fn done(self) {
        assert!(self.failed.is_empty(), "{} checks failed: {:#?}", self.failed.len(), self.failed);
    }
}

impl Find {
    /// [`Find::check`] under [`Soft`].
    pub(crate) fn soft(&self, s: &mut Soft) {
        let what = format!("{:?}", self.args);
        s.run(what, || {
            self.check();
        });
    }
}

/// The failure context shared by the comparisons.
fn context(trawl: &Run, gnu: &Run) -> String {
    format!(
        "trawl: {}\n  gnu: {}\n--- gnu stdout:\n{}\n--- trawl stdout:\n{}\n--- gnu stderr:\n{}\n--- trawl stderr:\n{}",
        trawl.cmdline,
        gnu.cmdline,
        clip(&gnu.stdout),
        clip(&trawl.stdout),
        clip(&gnu.stderr),
        clip(&trawl.stderr)
    )
}

/// Asserts that two record multisets are equal, listing the differences.
fn assert_same_records(what: &str, want: &[Vec<u8>], got: &[Vec<u8>], ctx: &dyn Fn() -> String) {
    if let Some(d) = record_differences(want, got) {
        panic!("{what} differs (the reference: GNU find): {d}\n{}", ctx());
    }
}

/// Compares stdout (as a multiset of records), exit codes and errors.
pub(crate) fn compare(trawl: &Run, gnu: &Run, sep: u8) {
    let ctx = || context(trawl, gnu);
    assert_same_records(
        "sorted stdout",
        &sorted_records(&gnu.stdout, sep),
        &sorted_records(&trawl.stdout, sep),
        &ctx,
    );
    assert_eq!(trawl.code, gnu.code, "exit codes differ (left trawl, right GNU)\n{}", ctx());
    let (want, got) = (error_keys(&gnu.stderr, "find: "), error_keys(&trawl.stderr, "trawl: "));
    assert_eq!(got, want, "error messages differ (left trawl, right GNU)\n{}", ctx());
}

/// Error messages, sorted, each without its program's name: `'P': reason`
/// for `PREFIX'P': reason` (and `cannot delete 'P': reason`), `other:
/// LINE` otherwise (a file system loop's message among them, whole).
fn error_keys(stderr: &[u8], prefix: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr);
    let mut keys: Vec<String> = text
        .lines()
        .map(|line| {
            let Some(rest) = line.strip_prefix(prefix) else {
                return format!("other: {line}");
            };
            let rest = rest.strip_prefix("cannot delete ").unwrap_or(rest);
            if let Some(r) = rest.strip_prefix('\'') {
                if let Some(end) = r.find("': ") {
                    return format!("'{}': {}", &r[..end], &r[end + 3..]);
                }
            }
            format!("other: {rest}")
        })
        .collect();
    keys.sort();
    keys
}

/// `find ARGS` on a fresh tricky tree.
pub(crate) fn tricky_find<S: AsRef<OsStr>>(args: impl IntoIterator<Item = S>) -> (Tree, Find) {
    let t = tricky();
    let f = Find::new(t.path()).args(args);
    (t, f)
}

/// `gnu!(name, [ARGS...] $(, modifier)*)`: a differential test of
/// `find ARGS` on a fresh tricky tree; modifiers are [`Find`] methods
/// without arguments (`nul`, `fails`, `any_code`).
macro_rules! gnu {
    ($name:ident, [$($arg:expr),* $(,)?] $(, $m:ident)*) => {
        #[test]
        fn $name() {
            let (_t, f) = tricky_find([$($arg),*]);
            f$(.$m())*.check();
        }
    };
}

// ---------------------------------------------------------------------
// Starting points, traversal options, -H/-L/-P.

gnu!(print_all_nul, [".", "-print0"], nul);
gnu!(implicit_print, ["."]);
gnu!(no_starting_point_means_dot, ["-name", "*.txt"]);
gnu!(several_starting_points_and_trailing_slash, ["sub/", "links", "times/ref", "-print0"], nul);
gnu!(starting_point_dot_slash, ["./sizes", "./perms/"]);
gnu!(maxdepth_0, [".", "-maxdepth", "0"]);
gnu!(maxdepth_1, [".", "-maxdepth", "1", "-print0"], nul);
gnu!(mindepth_2, [".", "-mindepth", "2", "-print0"], nul);
gnu!(mindepth_and_maxdepth, [".", "-mindepth", "1", "-maxdepth", "2", "-type", "d"]);
gnu!(mindepth_beyond_tree, [".", "-mindepth", "9"]);
gnu!(depth_post_order_set, [".", "-depth", "-print0"], nul);
gnu!(d_is_depth, [".", "-d", "-type", "d"]);
gnu!(ignore_readdir_race, [".", "-ignore_readdir_race", "-type", "f", "-print0"], nul);
gnu!(
    follow_roots_h,
    ["-H", ".", "links/to_dir", "links/to_file", "links/dangling", "-print0"],
    nul
);
gnu!(physical_links_on_command_line, ["-P", "links/to_dir", "links/to_file", "links/dangling"]);
gnu!(follow_roots_h_printf, ["-H", "links/to_dir", "links/to_file", "-printf", "%y %Y %p\\n"]);
gnu!(follow_all_l_with_loops_ends_with_errors, ["-L", ".", "-print0"], nul, fails);
gnu!(follow_all_l_type_l_is_dangling_and_loops, ["-L", ".", "-type", "l"], fails);
gnu!(follow_all_l_printf_types, ["-L", ".", "-printf", "%y %Y %p\\0"], nul, fails);
gnu!(follow_all_l_below_link_to_dir, ["-L", "links/to_dir", "-maxdepth", "1"]);
gnu!(follow_all_l_maxdepth_avoids_loop, ["-L", ".", "-maxdepth", "1", "-print0"], nul, any_code);

#[test]
fn thread_counts_do_not_change_the_set() {
    let mut s = Soft::default();
    let t = tricky();
    for j in ["1", "2", "64"] {
        Find::new(t.path()).trawl_opts(["-j", j]).args([".", "-print0"]).nul().soft(&mut s);
        Find::new(t.path())
            .trawl_opts(["-j", j])
            .args(["-L", ".", "-type", "f"])
            .fails()
            .soft(&mut s);
    }
    s.done();
}

#[test]
fn absolute_starting_point() {
    let t = tricky();
    let abs = t.path().as_os_str().to_owned();
    Find::new(Path::new("/")).args([abs.as_os_str(), OsStr::new("-print0")]).nul().check();
    let sub = t.path().join("sub/");
    Find::new(Path::new("/"))
        .args([sub.as_os_str(), OsStr::new("-name"), OsStr::new("*.c")])
        .check();
}

#[test]
fn xdev_and_mount_on_dev() {
    let mut s = Soft::default();
    // /dev holds mount points (/dev/pts, /dev/shm) that -xdev must not enter.
    let f = Find::new(Path::new("/")).any_code();
    f.clone().args(["/dev", "-xdev", "-print0"]).nul().soft(&mut s);
    f.clone().args(["/dev", "-mount", "-type", "d"]).soft(&mut s);
    f.clone().args(["/dev", "-maxdepth", "1", "-type", "c"]).soft(&mut s);
    f.clone().args(["/dev", "-maxdepth", "1", "-type", "b"]).soft(&mut s);
    f.args(["/dev", "-maxdepth", "1", "-type", "b,c,l", "-printf", "%y %Y %p\\n"]).soft(&mut s);
    // -xdev within one file system changes nothing.
    let t = tricky();
    Find::new(t.path()).args([".", "-xdev", "-print0"]).nul().soft(&mut s);
    s.done();
}

/// Symlinks that resolve to themselves: GNU reports
/// `Too many levels of symbolic links` where it needs the target.
#[test]
fn self_referential_symlinks() {
    let mut s = Soft::default();
    let t = self_loops();
    let f = Find::new(t.path()).any_code();
    f.clone().args(["."]).soft(&mut s);
    f.clone().args([".", "-printf", "%y %Y %p\\n"]).soft(&mut s);
    f.clone().args([".", "-xtype", "l"]).soft(&mut s);
    f.clone().args([".", "-xtype", "f"]).soft(&mut s);
    f.clone().args(["-L", "."]).soft(&mut s);
    f.clone().args(["-L", ".", "-type", "l"]).soft(&mut s);
    f.clone().args(["-L", ".", "-printf", "%y %Y %p\\n"]).soft(&mut s);
    f.clone().args(["-H", "self", "ping", "dir"]).soft(&mut s);
    f.args(["-L", ".", "-ls"]).soft(&mut s);
    s.done();
}

// ---------------------------------------------------------------------
// Names and paths.

gnu!(name_glob, [".", "-name", "*.txt", "-print0"], nul);
gnu!(name_class_and_question_mark, [".", "-name", "s5?[12]"]);
gnu!(name_negated_class, [".", "-name", "*[!a-z.0-9]*", "-print0"], nul);
gnu!(name_hidden, [".", "-name", ".*"]);
gnu!(name_with_space, [".", "-name", "* *"]);
gnu!(name_escaped_star, [".", "-name", "\\*"]);
gnu!(name_of_dot, [".", "-name", "."]);
gnu!(name_newline, [".", "-name", "new?line*", "-print0"], nul);
gnu!(name_leading_dash, [".", "-name", "-dash*"]);
gnu!(iname, [".", "-iname", "PLAIN*"]);
gnu!(iname_class, [".", "-iname", "[S]5*"]);
gnu!(path_glob, [".", "-path", "./sub/*"]);
gnu!(path_star_matches_slash, [".", "-path", "*deeper*"]);
gnu!(ipath, [".", "-ipath", "*SUB*"]);
gnu!(wholename, [".", "-wholename", "./times/old*"]);
gnu!(path_of_starting_point_with_trailing_slash, ["sub/", "-path", "sub/d*"]);

#[test]
fn name_non_utf8() {
    let mut s = Soft::default();
    let t = tricky();
    let f = Find::new(t.path());
    f.clone().args([".", "-name", "bad?name.txt"]).soft(&mut s);
    f.clone()
        .args([OsStr::new("."), OsStr::new("-name"), OsStr::from_bytes(b"bad\xff*")])
        .soft(&mut s);
    f.args([".", "-path", "./bad*", "-printf", "%f|%P\\0"]).nul().soft(&mut s);
    s.done();
}

// Regular expressions in the three dialects.
gnu!(regex_emacs_default, [".", "-regex", "\\./sizes/s[0-9]+"]);
gnu!(regex_emacs_alternation_group, [".", "-regex", ".*/\\(s1\\|s512\\|p6[0-9]+\\)"]);
gnu!(regex_emacs_whole_path, [".", "-regex", "sub"]);
gnu!(regex_extended, [".", "-regextype", "posix-extended", "-regex", ".*/s(1|51[0-9])"]);
gnu!(regex_extended_interval, [".", "-regextype", "posix-extended", "-regex", ".*/s[0-9]{3}"]);
gnu!(
    regex_extended_class,
    [".", "-regextype", "posix-extended", "-regex", ".*[^[:print:]].*", "-print0"],
    nul
);
gnu!(regex_basic, [".", "-regextype", "posix-basic", "-regex", ".*/s51[1-3]"]);
gnu!(
    regex_basic_group_interval,
    [".", "-regextype", "posix-basic", "-regex", ".*/\\(s\\)\\{1\\}1.*"]
);
gnu!(regex_basic_plus_is_literal, [".", "-regextype", "posix-basic", "-regex", ".*/s+"]);
gnu!(iregex, [".", "-iregex", ".*/PLAIN\\.TXT"]);
gnu!(
    iregex_extended,
    [".", "-regextype", "posix-extended", "-iregex", ".*/(TEXT|NONL)[0-9]*\\.TXT"]
);
gnu!(
    regextype_switch_midway,
    [".", "-regex", ".*/s1", "-o", "-regextype", "posix-extended", "-regex", ".*/(p644|p755)"]
);

/// `find . -regextype TYPE -regex RE` for each (TYPE, RE), in a tree of
/// names made of regex operators.
fn regex_cases(cases: &[(&str, &str)]) {
    let t = regex_names();
    let mut s = Soft::default();
    for (rt, re) in cases {
        Find::new(t.path()).args([".", "-regextype", rt, "-regex", re]).any_code().soft(&mut s);
    }
    s.done();
}

#[test]
fn regex_operators_in_each_dialect() {
    let mut cases = Vec::new();
    for re in [
        ".*/a+b",
        ".*/a\\+b",
        ".*/a?b",
        ".*/a\\?b",
        ".*/x{2}",
        ".*/a|b",
        ".*/a\\|b",
        ".*/(g)",
        ".*/\\(g\\)",
        ".*/a.b",
        ".*/a\\.b",
        ".*/[]a]+b",
        ".*/[a-]+b",
        ".*/a*",
        ".*/\\(a\\|x\\)*b",
        "\\./[^/]*",
        ".*/\\w+",
        ".*/\\W.*",
        ".*\\bw.*",
        ".*/+a",
    ] {
        for rt in ["emacs", "posix-basic", "posix-extended"] {
            cases.push((rt, re));
        }
    }
    cases.push(("posix-basic", ".*/x\\{2\\}"));
    cases.push(("posix-basic", ".*/a\\{1,2\\}b"));
    cases.push(("posix-extended", ".*/[[:alpha:]]+"));
    cases.push(("posix-basic", ".*/[[:alpha:]]*"));
    regex_cases(&cases);
}

/// GNU's emacs syntax has no intervals: `\{` and `\}` are literal.
#[test]
fn regex_emacs_braces_are_literal() {
    regex_cases(&[
        ("emacs", ".*/x\\{2\\}"),
        ("emacs", ".*/a\\{1,2\\}b"),
        ("emacs", ".*/x\\{2,\\}"),
    ]);
}

/// GNU's emacs syntax has no `[[:class:]]` (the brackets are a plain set).
#[test]
fn regex_emacs_has_no_character_classes() {
    regex_cases(&[("emacs", ".*/[[:alpha:]]+"), ("emacs", ".*/[[:alpha:]]*")]);
}

/// `\<` and `\>` (word start and end) in the emacs and basic dialects.
#[test]
fn regex_word_boundaries() {
    regex_cases(&[
        ("emacs", ".*\\<Word.*"),
        ("emacs", ".*d\\>.*"),
        ("posix-basic", ".*\\<Word.*"),
        ("posix-basic", ".*d\\>.*"),
        ("posix-extended", ".*\\<Word.*"),
    ]);
}

/// Back-references `\N` in the emacs and basic dialects.
#[test]
fn regex_back_references() {
    regex_cases(&[("emacs", ".*/\\(a\\)\\1b"), ("posix-basic", ".*/\\(a\\)\\1b")]);
}

// ---------------------------------------------------------------------
// Types.

gnu!(type_f, [".", "-type", "f", "-print0"], nul);
gnu!(type_d, [".", "-type", "d"]);
gnu!(type_l, [".", "-type", "l"]);
gnu!(type_p, [".", "-type", "p"]);
gnu!(type_s, [".", "-type", "s"]);
gnu!(type_b_c, [".", "-type", "b", "-o", "-type", "c"]);
gnu!(type_list, [".", "-type", "f,d", "-print0"], nul);
gnu!(type_list_specials, [".", "-type", "l,p,s,b,c"]);
gnu!(xtype_l_dangling, [".", "-xtype", "l"]);
gnu!(xtype_d_links_to_dirs, [".", "-xtype", "d"]);
gnu!(xtype_f, [".", "-xtype", "f", "-print0"], nul);
gnu!(xtype_l_with_follow_all, ["-L", ".", "-xtype", "l"], fails);
gnu!(xtype_with_follow_roots, ["-H", "links/to_dir", "links/to_file", "-xtype", "l"]);

// ---------------------------------------------------------------------
// Sizes, emptiness, links, inodes.

gnu!(size_bytes_exact, [".", "-size", "512c"]);
gnu!(size_bytes_more, [".", "-type", "f", "-size", "+511c"]);
gnu!(size_bytes_less, [".", "-type", "f", "-size", "-2c"]);
gnu!(size_blocks_default, [".", "-type", "f", "-size", "1"]);
gnu!(size_blocks_b, [".", "-type", "f", "-size", "2b"]);
gnu!(size_words, [".", "-type", "f", "-size", "256w"]);
gnu!(size_kib_rounds_up, [".", "-type", "f", "-size", "1k"]);
gnu!(size_less_than_1k_is_empty_only, [".", "-size", "-1k"]);
gnu!(size_more_than_4k, [".", "-size", "+4k"]);
gnu!(size_mib, [".", "-size", "1M"]);
gnu!(size_less_than_2m, [".", "-type", "f", "-size", "-2M", "-print0"], nul);
gnu!(size_gib, [".", "-size", "-1G"]);
gnu!(size_zero, [".", "-size", "0"]);
gnu!(empty, [".", "-empty"]);
gnu!(not_empty_files, [".", "-type", "f", "!", "-empty", "-print0"], nul);
gnu!(links_2, [".", "-type", "f", "-links", "2"]);
gnu!(links_more, [".", "-links", "+2"]);
gnu!(links_less, [".", "-links", "-2", "-print0"], nul);

#[test]
fn inum_and_samefile_find_the_hard_link() {
    let mut s = Soft::default();
    let t = tricky();
    let ino = fs::metadata(t.path().join("plain.txt")).unwrap().ino().to_string();
    let f = Find::new(t.path());
    let (r, _) = f.clone().args([".", "-inum", &ino]).check();
    assert_eq!(r.sorted_lines(), [b"./hard.txt".to_vec(), b"./plain.txt".to_vec()]);
    f.clone().args([".", "-samefile", "plain.txt"]).soft(&mut s);
    f.clone().args([".", "-samefile", "links/to_file"]).soft(&mut s);
    f.clone().args(["-H", ".", "-samefile", "links/to_file"]).soft(&mut s);
    f.clone().args(["-L", ".", "-samefile", "hard.txt"]).fails().soft(&mut s);
    f.args([".", "-inum", &format!("-{ino}"), "-inum", "+1", "-name", "*.txt"]).soft(&mut s);
    s.done();
}

// ---------------------------------------------------------------------
// Times.

gnu!(newer, [".", "-newer", "times/ref", "-print0"], nul);
gnu!(not_newer, [".", "!", "-newer", "times/ref"]);
gnu!(anewer, [".", "-anewer", "times/ref", "-print0"], nul);
gnu!(cnewer, [".", "-cnewer", "times/ref", "-print0"], nul);
gnu!(newer_than_a_symlink_itself, [".", "-newer", "times/oldlink", "-name", "old*"]);
gnu!(mtime_exact, [".", "-mtime", "3"]);
gnu!(mtime_more, [".", "-mtime", "+2"]);
gnu!(mtime_less, [".", "-mtime", "-1", "-name", "old*"]);
gnu!(mtime_zero, ["times", "-mtime", "0"]);
gnu!(mtime_future_is_less, ["times/future", "times/old2h", "-mtime", "-0"]);
gnu!(mmin_less, ["times", "-mmin", "-45"]);
gnu!(mmin_more, ["times", "-mmin", "+39"]);
gnu!(mmin_exact, ["times", "-mmin", "41"]);
gnu!(mmin_range, [".", "-mmin", "+30", "-mmin", "-180"]);
gnu!(atime_more, [".", "-atime", "+9"]);
gnu!(atime_exact, [".", "-atime", "3"]);
gnu!(amin_less, ["times", "-amin", "-45"]);
gnu!(amin_more, [".", "-amin", "+100"]);
gnu!(ctime_zero, [".", "-ctime", "0", "-print0"], nul);
gnu!(ctime_more, [".", "-ctime", "+0"]);
gnu!(cmin_less, [".", "-cmin", "-10", "-print0"], nul);
gnu!(cmin_more, [".", "-cmin", "+10"]);
gnu!(times_with_follow, ["-L", "times", "-mtime", "+4"]);
gnu!(times_physical_link_age, ["times", "-mtime", "+4"]);

/// GNU's `-mtime -0` is true for a file modified less than a second before
/// the start (its reference time is rounded); the file here is 200 ms old.
#[test]
fn mtime_minus_zero_just_modified() {
    let t = Tree::new();
    t.file("fresh", "x\n").file("old", "y\n");
    set_times(&t.path().join("old"), 3 * 3600, 3 * 3600);
    let p = t.path().join("fresh");
    let now = std::time::SystemTime::now() - Duration::from_millis(200);
    fs::File::options().write(true).open(&p).unwrap().set_modified(now).unwrap();
    Find::new(t.path()).args(["fresh", "old", "-mtime", "-0"]).check();
}

/// -newer & co compare nanoseconds: 0.100 and 0.150 are not newer than
/// 0.150, 0.200 is.
#[test]
fn newer_compares_nanoseconds() {
    let t = Tree::new();
    let base = std::time::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for (name, ms) in [("n100", 100), ("ref", 150), ("n150", 150), ("n200", 200)] {
        t.file(name, "x\n");
        let f = fs::File::options().write(true).open(t.path().join(name)).unwrap();
        let when = base + Duration::from_millis(ms);
        f.set_times(fs::FileTimes::new().set_accessed(when).set_modified(when)).unwrap();
    }
    let f = Find::new(t.path());
    let (r, _) = f.clone().args(["n100", "n150", "n200", "-newer", "ref"]).check();
    r.assert_stdout("n200\n");
    f.args(["n100", "n150", "n200", "-anewer", "ref"]).check();
}

// ---------------------------------------------------------------------
// Permissions, owners, access.

gnu!(perm_exact_octal, [".", "-perm", "644", "-print0"], nul);
gnu!(perm_exact_zero, [".", "-perm", "0"]);
gnu!(perm_all_bits, [".", "-perm", "-644", "-print0"], nul);
gnu!(perm_any_bit, [".", "-perm", "/111", "-type", "f"]);
gnu!(perm_suid, [".", "-perm", "-4000"]);
gnu!(perm_suid_or_sgid, [".", "-perm", "/6000"]);
gnu!(perm_sticky, [".", "-perm", "-1000"]);
gnu!(perm_symbolic_all, [".", "-perm", "-u+x", "-type", "f"]);
gnu!(perm_symbolic_any, [".", "-perm", "/g+w"]);
gnu!(perm_symbolic_any_other_write, [".", "-perm", "/o+w"]);
gnu!(perm_symbolic_exact, [".", "-perm", "u=rw,g=r,o=r", "-print0"], nul);
gnu!(perm_symbolic_exact_group_only, [".", "-perm", "g=r"]);
gnu!(perm_symbolic_a, [".", "-perm", "-a+r", "-type", "f", "-print0"], nul);
gnu!(perm_symbolic_comma_list, [".", "-perm", "/u=s,g=s"]);
gnu!(perm_zero_all_matches_all, [".", "-perm", "-000", "-name", "p*"]);
gnu!(user_root, [".", "-user", "root", "-print0"], nul);
gnu!(user_nobody, [".", "-user", "nobody"]);
gnu!(user_numeric, [".", "-user", "65534"]);
gnu!(group_root, [".", "-group", "root", "-print0"], nul);
gnu!(group_nogroup, [".", "-group", "nogroup"]);
gnu!(uid_gid, [".", "-uid", "0", "-gid", "65534"]);
gnu!(uid_more, [".", "-uid", "+1000"]);
gnu!(gid_less, [".", "-gid", "-1", "-name", "*o*"]);
gnu!(nouser, [".", "-nouser"]);
gnu!(nogroup, [".", "-nogroup"]);
gnu!(owner_of_symlink_vs_target, ["-L", "owners", "-user", "nobody"]);
gnu!(readable_as_root, [".", "-readable", "-print0"], nul);
gnu!(not_writable_as_root, [".", "!", "-writable"]);
gnu!(executable_as_root, [".", "-executable", "-print0"], nul);

// ---------------------------------------------------------------------
// Operators.

gnu!(true_false, [".", "-true", "-name", "*.c", "-o", "-false"]);
gnu!(false_prints_nothing, [".", "-false"]);
gnu!(not_bang, [".", "!", "-type", "d", "!", "-type", "f"]);
gnu!(not_word, [".", "-not", "-name", "*.*", "-type", "f"]);
gnu!(and_word_and_a, [".", "-type", "f", "-a", "-size", "+0", "-and", "-name", "s*"]);
gnu!(or_word_and_o, [".", "-name", "*.c", "-or", "-name", "*.md", "-o", "-name", "s1"]);
gnu!(precedence_and_binds_tighter, [".", "-name", "s1", "-o", "-type", "d", "-name", "s*"]);
gnu!(parentheses, [".", "(", "-name", "s1", "-o", "-type", "d", ")", "-name", "s*"]);
gnu!(
    nested_parentheses_and_not,
    [".", "!", "(", "-type", "f", "-o", "(", "-type", "d", "-empty", ")", ")"]
);
gnu!(
    comma_runs_both_sides,
    [".", "-name", "*.c", "-printf", "C %p\\n", ",", "-type", "d", "-printf", "D %p\\n"]
);
gnu!(comma_value_is_the_right_side, [".", "(", "-false", ",", "-name", "s1", ")", "-print"]);
gnu!(
    or_short_circuits_actions,
    [".", "-name", "*.md", "-print", "-o", "-name", "*.c", "-printf", "c:%p\\n"]
);
gnu!(and_short_circuits_actions, [".", "-false", "-print"]);

// ---------------------------------------------------------------------
// Actions.

gnu!(printf_path_directives, [".", "-printf", "%p|%P|%f|%h|%d\\0"], nul);
gnu!(printf_stat_directives, [".", "-printf", "%p %s %m %M %y %Y %i %u %g %l %%\\0"], nul);
gnu!(printf_times, [".", "-printf", "%p %t %T@\\0"], nul);
gnu!(printf_widths, [".", "-printf", "[%-10f][%10s][%5m][%-4y][%3d]\\t\\\\\\n"]);
gnu!(printf_escape_nul, [".", "-type", "f", "-printf", "%P\\0"], nul);
gnu!(printf_with_follow, ["-L", ".", "-printf", "%p %y %Y %s %l %m\\0"], nul, fails);
gnu!(
    printf_starting_points,
    ["sub/", "times/ref", ".", "-maxdepth", "0", "-printf", "%p|%P|%f|%h|%d\\n"]
);
gnu!(printf_devices_and_specials, ["special", "-printf", "%y %M %s %p\\n"]);
gnu!(printf_more_directives, [".", "-printf", "%p %a %c %A@ %C@ %k %b %n %G %U %D\\0"], nul);
// `\c` ends this entry's output; the `,` branch then ends the line.
gnu!(
    printf_octal_and_stop_escapes,
    ["sub", "-printf", "%5.3f|\\101|\\c|not printed\\n", ",", "-printf", "\\n"]
);
gnu!(
    execdir_starting_point_with_trailing_slash,
    ["sub/", "-maxdepth", "1", "-execdir", "printf", "%s\\n", "{}", ";"]
);
gnu!(execdir_starting_point_dot, [".", "-maxdepth", "0", "-execdir", "printf", "%s\\n", "{}", ";"]);
gnu!(exec_braces_twice, ["sub", "-exec", "printf", "%s %s\\n", "{}", "{}", ";"]);
gnu!(
    fprint_dev_stdout,
    [
        ".",
        "-name",
        "*.c",
        "-fprint",
        "/dev/stdout",
        "-o",
        "-name",
        "*.md",
        "-fprintf",
        "/dev/stdout",
        "md %p\\n"
    ]
);
gnu!(print0, [".", "-print0"], nul);
// GNU's -ls widens its owner column for good after printing a numeric
// owner (owners/ghost), so its output depends on the order: those entries
// are left out of the whole-tree comparisons and tested alone.
gnu!(ls, [".", "!", "-nouser", "!", "-nogroup", "-ls"]);
gnu!(ls_with_follow, ["-L", ".", "!", "-nouser", "!", "-nogroup", "-ls"], fails);
gnu!(ls_numeric_owner_alone, ["owners/ghost", "-ls"]);
gnu!(ls_devices_and_links, ["special", "links", "-ls"]);
gnu!(ls_old_and_future_dates, ["times", "-ls"]);
gnu!(prune_by_name, [".", "-name", "sub", "-prune", "-o", "-print"]);
gnu!(prune_by_path, [".", "-path", "./sizes", "-prune", "-o", "-type", "f", "-print0"], nul);
gnu!(prune_prints_the_pruned, [".", "-type", "d", "-name", "s*", "-prune"]);
gnu!(prune_with_depth_does_nothing, [".", "-depth", "-name", "sub", "-prune", "-o", "-print"]);
gnu!(prune_starting_point, ["sub", "-prune"]);
gnu!(prune_everything_below_depth_1, [".", "-mindepth", "1", "-prune", "-print0"], nul);

#[test]
fn quit_prints_one_valid_entry() {
    let t = tricky();
    let all = Find::new(t.path()).args([".", "-name", "*.txt"]).gnu();
    let valid = all.sorted_lines();
    for _ in 0..3 {
        let f = Find::new(t.path()).args([".", "-name", "*.txt", "-print", "-quit"]);
        let r = f.trawl();
        r.assert_code(0).assert_no_stderr();
        let got = r.sorted_lines();
        assert_eq!(got.len(), 1, "-quit printed {} lines:\n{}", got.len(), r.stdout_str());
        assert!(valid.contains(&got[0]), "{} is no match of -name *.txt", clip(&got[0]));
    }
    // Pending -exec + batches run before -quit exits.
    let files = Find::new(t.path()).args(["sizes", "-type", "f"]).gnu().sorted_lines();
    let r = Find::new(t.path())
        .args(["sizes", "-type", "f", "-exec", "printf", "%s\\n", "{}", "+", "-quit"])
        .trawl();
    r.assert_code(0).assert_no_stderr();
    let got = r.sorted_lines();
    assert_eq!(got.len(), 1, "-exec + then -quit ran on {} files:\n{}", got.len(), r.stdout_str());
    assert!(files.contains(&got[0]), "{}", r.stdout_str());
    // -quit before any action prints nothing; -quit after a failing test
    // does not stop the walk.
    let f = Find::new(t.path());
    f.clone().args([".", "-quit"]).check();
    f.clone().args([".", "-maxdepth", "0", "-print", "-quit"]).check();
    f.args([".", "-name", "nothing", "-quit", "-o", "-name", "s1"]).check();
}

// -fprint & co write to a file outside the tree: each tool gets its own.

/// Runs `args(out)` with `out` a fresh file for each tool; compares
/// stdout, exit codes, and the file contents as multisets of records.
fn fprint_case(args: impl Fn(&Path) -> Vec<OsString>, sep: u8) {
    let t = tricky();
    let out = Tree::new();
    let (go, to) = (out.path().join("gnu.out"), out.path().join("trawl.out"));
    let gnu = Find::new(t.path()).args(args(&go)).gnu();
    let trawl = Find::new(t.path()).args(args(&to)).trawl();
    assert_eq!(gnu.code, 0, "GNU find failed: {}", clip(&gnu.stderr));
    compare(&trawl, &gnu, b'\n');
    let (g, w) = (fs::read(&go).unwrap(), fs::read(&to).unwrap_or_default());
    assert!(!g.is_empty(), "GNU wrote nothing (a test bug)");
    assert_same_records(
        "the -fprint* file",
        &sorted_records(&g, sep),
        &sorted_records(&w, sep),
        &|| {
            format!(
                "{}\n--- gnu file:\n{}\n--- trawl file:\n{}",
                context(&trawl, &gnu),
                clip(&g),
                clip(&w)
            )
        },
    );
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn with_out(before: &[&str], out: &Path, after: &[&str]) -> Vec<OsString> {
    let mut v = os(before);
    v.push(out.as_os_str().to_owned());
    v.extend(os(after));
    v
}

#[test]
fn fprint() {
    fprint_case(|o| with_out(&[".", "-name", "*.txt", "-fprint"], o, &[]), b'\n');
}

#[test]
fn fprint_and_print_together() {
    fprint_case(|o| with_out(&[".", "-type", "d", "-fprint"], o, &["-o", "-print"]), b'\n');
}

#[test]
fn fprint0() {
    fprint_case(|o| with_out(&[".", "-fprint0"], o, &[]), 0);
}

#[test]
fn fprintf() {
    fprint_case(|o| with_out(&[".", "-type", "f", "-fprintf"], o, &["%P %s %m\\0"]), 0);
}

#[test]
fn fls() {
    fprint_case(|o| with_out(&[".", "!", "-nouser", "!", "-nogroup", "-fls"], o, &[]), b'\n');
}

#[test]
fn fprint_same_file_twice_is_one_stream() {
    fprint_case(
        |o| {
            let mut v = with_out(&[".", "-name", "s*", "-fprint"], o, &[]);
            v.extend(with_out(&[",", "-name", "p*", "-fprintf"], o, &["P %p\\n"]));
            v
        },
        b'\n',
    );
}

// -exec and -execdir.

gnu!(exec_each, [".", "-name", "*.txt", "-exec", "printf", "%s\\n", "{}", ";"]);
gnu!(exec_each_nul_names, [".", "-exec", "printf", "%s\\0", "{}", ";"], nul);
gnu!(exec_batched, [".", "-type", "f", "-exec", "printf", "%s\\0", "{}", "+"], nul);
gnu!(exec_braces_inside_an_argument, ["sub", "-exec", "printf", "<%s>\\n", "pre{}post", "{}", ";"]);
gnu!(exec_as_a_test, [".", "-type", "f", "-exec", "grep", "-q", "foo", "{}", ";", "-print"]);
gnu!(exec_failing_test_prints_nothing, ["sub", "-exec", "false", ";", "-print"]);
gnu!(exec_batched_failure_sets_exit_code, ["sub", "-exec", "false", "{}", "+"], fails);
gnu!(exec_batched_is_true, ["sub", "-exec", "true", "{}", "+", "-print"]);
gnu!(execdir_each, [".", "-name", "*.c", "-execdir", "printf", "%s\\n", "{}", ";"]);
gnu!(execdir_each_all_nul, [".", "-execdir", "printf", "%s\\0", "{}", ";"], nul);
gnu!(execdir_runs_in_the_directory, [".", "-name", "*.md", "-execdir", "pwd", ";"]);
gnu!(execdir_batched, [".", "-type", "f", "-execdir", "printf", "%s\\0", "{}", "+"], nul);
gnu!(
    execdir_batched_pwd,
    [
        ".",
        "-type",
        "f",
        "-execdir",
        "sh",
        "-c",
        "for f; do echo \"$PWD $f\"; done",
        "sh",
        "{}",
        "+"
    ]
);
gnu!(exec_with_follow, ["-L", "links/to_dir", "-exec", "printf", "%s\\n", "{}", "+"], fails);
gnu!(
    exec_and_printf_interleave,
    ["sizes", "-printf", "%f ", "-exec", "true", ";", "-printf", "%s\\n"]
);

// -delete runs on two copies of the same tree.

/// The entries of a tree (type, mode, path), for comparing what -delete left.
fn listing(root: &Path) -> Vec<Vec<u8>> {
    let r = Find::new(root).args([".", "-printf", "%y %m %p\\0"]).gnu();
    assert_eq!(r.code, 0, "{}", r.stderr_str());
    sorted_records(&r.stdout, 0)
}

fn delete_case(make: fn() -> Tree, args: &[&str], gnu_code: i32) {
    let (a, b) = (make(), make());
    let gnu = Find::new(a.path()).args(args).gnu();
    let trawl = Find::new(b.path()).args(args).trawl();
    assert_eq!(gnu.code, gnu_code, "GNU find: {}", clip(&gnu.stderr));
    compare(&trawl, &gnu, b'\n');
    let (left_g, left_t) = (listing(a.path()), listing(b.path()));
    assert_same_records("what is left after -delete", &left_g, &left_t, &|| context(&trawl, &gnu));
}

#[test]
fn delete_by_name() {
    delete_case(tricky, &[".", "-name", "*.txt", "-delete"], 0);
}

#[test]
fn delete_empty_files_and_dirs() {
    delete_case(tricky, &[".", "-empty", "-print", "-delete"], 0);
}

#[test]
fn delete_whole_subtree() {
    delete_case(tricky, &[".", "-path", "./sizes*", "-delete"], 0);
}

#[test]
fn delete_links_and_specials() {
    delete_case(tricky, &[".", "!", "-type", "f", "!", "-type", "d", "-delete"], 0);
}

#[test]
fn delete_non_empty_directory_fails() {
    delete_case(tricky, &[".", "-name", "sub", "-delete"], 1);
}

#[test]
fn delete_everything() {
    delete_case(tricky, &[".", "-delete"], 0);
}

#[test]
fn delete_deep_tree() {
    delete_case(|| deep().0, &[".", "-mindepth", "1", "-delete"], 0);
}

// ---------------------------------------------------------------------
// A tree deeper than PATH_MAX.

#[test]
fn deep_tree() {
    let mut s = Soft::default();
    let (t, rel) = deep();
    let f = Find::new(t.path());
    let (r, _) = f.clone().args([".", "-print0"]).nul().check();
    let mut bottom = b"./".to_vec();
    bottom.extend_from_slice(rel.as_os_str().as_bytes());
    bottom.extend_from_slice(b"/empty_bottom");
    assert!(sorted_records(&r.stdout, 0).contains(&bottom), "the deepest directory is missing");
    f.clone().args([".", "-name", "file*", "-printf", "%d %f %s\\n"]).soft(&mut s);
    f.clone().args([".", "-depth", "-empty", "-print0"]).nul().soft(&mut s);
    f.clone().args([".", "-regex", ".*deep059.*", "-printf", "%P\\0"]).nul().soft(&mut s);
    // (GNU find -L fails with "File name too long" here: -H instead.)
    f.clone().args(["-H", ".", "-type", "f", "-print0"]).nul().soft(&mut s);
    f.clone().args([".", "-name", "file59.txt", "-execdir", "cat", "{}", ";"]).soft(&mut s);
    f.clone().args([".", "-name", "file*", "-execdir", "cat", "{}", "+"]).soft(&mut s);
    // cat itself cannot open paths this long: both fail alike.
    f.args([".", "-name", "file*", "-exec", "cat", "{}", "+"]).any_code().soft(&mut s);
    s.done();
}

// ---------------------------------------------------------------------
// Unreadable directories, as an unprivileged user.

#[test]
fn unreadable_directories_as_nobody() {
    let mut s = Soft::default();
    let t = unreadable();
    let f = Find::new(t.path()).nobody();
    let (r, _) = f.clone().args(["."]).fails().check();
    let err = r.stderr_str();
    for p in ["./locked", "./nor", "./ok/sub/locked2"] {
        assert!(
            err.lines().any(|l| l.contains(&format!("'{p}'")) && l.contains("Permission denied")),
            "no `Permission denied` for {p}:\n{err}"
        );
    }
    f.clone().args([".", "-type", "f"]).fails().soft(&mut s);
    f.clone().args([".", "-depth", "-print0"]).nul().fails().soft(&mut s);
    f.clone().args([".", "-printf", "%p %m %y\\n"]).fails().soft(&mut s);
    f.clone().args([".", "-name", "secret.txt"]).fails().soft(&mut s);
    f.clone().args(["-L", "."]).fails().soft(&mut s);
    f.clone().args([".", "-mindepth", "2"]).fails().soft(&mut s);
    f.clone().args([".", "-empty"]).fails().soft(&mut s);
    // Not descending into them: no error.
    f.clone().args([".", "-maxdepth", "1"]).any_code().soft(&mut s);
    f.clone()
        .args([".", "-name", "locked", "-prune", "-o", "-name", "nor", "-prune", "-o", "-print"])
        .any_code()
        .soft(&mut s);
    // A file in a searchable, unreadable directory can be named.
    f.clone().args(["nor/known.txt", "nor"]).fails().soft(&mut s);
    f.clone().args(["locked/secret.txt", "top.txt"]).fails().soft(&mut s);
    s.done();
}

#[test]
fn access_tests_as_nobody() {
    let mut s = Soft::default();
    let t = unreadable();
    let f = Find::new(t.path()).nobody().any_code();
    f.clone().args([".", "-maxdepth", "1", "-readable"]).soft(&mut s);
    f.clone().args([".", "-maxdepth", "1", "!", "-readable"]).soft(&mut s);
    f.clone().args([".", "-maxdepth", "1", "-writable"]).soft(&mut s);
    f.clone().args([".", "-maxdepth", "1", "-executable"]).soft(&mut s);
    f.clone().args([".", "-readable", "-type", "f", "-print0"]).nul().soft(&mut s);
    f.args([".", "-maxdepth", "1", "-user", "nobody", "-perm", "600"]).soft(&mut s);
    s.done();
}

#[test]
fn unreadable_starting_point_as_nobody() {
    let mut s = Soft::default();
    let t = unreadable();
    let f = Find::new(t.path()).nobody().fails();
    f.clone().args(["locked", "ok"]).soft(&mut s);
    f.clone().args(["locked", "-maxdepth", "0"]).any_code().soft(&mut s);
    f.args(["missing", "locked/inner"]).soft(&mut s);
    s.done();
}

// ---------------------------------------------------------------------
// FIFOs never block the walk.

#[test]
fn fifo_does_not_hang() {
    let mut s = Soft::default();
    let t = tricky();
    let f = Find::new(t.path()).timeout(FIFO_TIMEOUT);
    f.clone().args([".", "-type", "p"]).soft(&mut s);
    f.clone().args([".", "-empty"]).soft(&mut s);
    f.clone().args(["special/fifo", "-empty"]).soft(&mut s);
    f.clone().args(["-L", "special", "-type", "p", "-ls"]).soft(&mut s);
    for expr in [&["-text"][..], &["-binary"], &["-contains", "x"], &["-contains", "^$"]] {
        for root in ["special", "special/fifo"] {
            let r = f.clone().args([root]).args(expr).trawl();
            r.assert_code(0).assert_no_stderr();
            assert!(r.stdout.is_empty(), "{}: {}", r.cmdline, r.stdout_str());
        }
    }
    s.done();
}

// ---------------------------------------------------------------------
// Errors.

/// An expression error: both exit with 1 and print nothing; trawl's
/// message is one `trawl: ` line that contains `needle`.
fn syntax_error(args: &[&str], needle: &str) {
    let t = tricky();
    let f = Find::new(t.path()).args(args);
    let (gnu, trawl) = (f.gnu(), f.trawl());
    let ctx = context(&trawl, &gnu);
    assert_eq!(gnu.code, 1, "GNU accepted it (a test bug)\n{ctx}");
    assert_eq!(trawl.code, 1, "exit code\n{ctx}");
    assert!(trawl.stdout.is_empty(), "stdout\n{ctx}");
    let err = trawl.stderr_str();
    assert!(err.starts_with("trawl: "), "message\n{ctx}");
    assert!(err.contains(needle), "the message does not mention {needle:?}\n{ctx}");
}

#[test]
fn error_unknown_predicate() {
    syntax_error(&[".", "-bogus"], "-bogus");
    syntax_error(&[".", "-name", "x", "-frobnicate", "y"], "-frobnicate");
}

#[test]
fn error_missing_argument() {
    syntax_error(&[".", "-name"], "-name");
    syntax_error(&[".", "-type", "f", "-newer"], "-newer");
    syntax_error(&[".", "-printf"], "-printf");
    syntax_error(&[".", "-exec", "echo", "{}"], "-exec");
    syntax_error(&[".", "-execdir", "echo", "{}"], "-execdir");
    syntax_error(&[".", "-maxdepth"], "-maxdepth");
}

#[test]
fn error_unbalanced_parentheses() {
    syntax_error(&[".", "(", "-name", "x"], ")");
    syntax_error(&[".", "-name", "x", ")"], ")");
    syntax_error(&[".", "(", ")"], "parentheses");
}

#[test]
fn error_bad_operands() {
    syntax_error(&[".", "-type", "z"], "-type");
    syntax_error(&[".", "-maxdepth", "x1"], "-maxdepth");
    syntax_error(&[".", "-size", "5x"], "-size");
    syntax_error(&[".", "-perm", "u+q"], "u+q");
    syntax_error(&[".", "-regextype", "klingon"], "klingon");
    syntax_error(&[".", "-user", "no_such_user_xyz"], "no_such_user_xyz");
    syntax_error(&[".", "-group", "no_such_group_xyz"], "no_such_group_xyz");
    syntax_error(&[".", "-newer", "no_such_file"], "no_such_file");
    syntax_error(&[".", "-samefile", "no_such_file"], "no_such_file");
    syntax_error(&[".", "-mtime", "abc"], "abc");
}

#[test]
fn error_dangling_operators() {
    syntax_error(&[".", "-o", "-print"], "-o");
    syntax_error(&[".", "-print", "-a"], "-a");
    syntax_error(&[".", "!"], "!");
    syntax_error(&[".", "-name", "x", ","], ",");
}

#[test]
fn error_percent_at_end_of_format() {
    syntax_error(&[".", "-printf", "x%"], "%");
    syntax_error(&[".", "-fprintf", "/dev/null", "%p%"], "%");
}

#[test]
fn error_exec_plus_needs_braces_last() {
    syntax_error(&[".", "-exec", "echo", "{}", "x", "+"], "-exec");
    syntax_error(&[".", "-type", "f,"], "-type");
}

#[test]
fn error_delete_with_prune_is_refused() {
    // GNU refuses: -delete implies -depth, which disables -prune (the tree
    // would be deleted). The tree is a throwaway one.
    syntax_error(&[".", "-name", "sub", "-prune", "-o", "-delete"], "-prune");
}

#[test]
fn nonexistent_starting_point_among_good_ones() {
    let mut s = Soft::default();
    let t = tricky();
    let f = Find::new(t.path()).fails();
    let (r, _) = f.clone().args(["sub", "nonexistent", "times/ref", "-print0"]).nul().check();
    assert!(
        r.stderr_str().contains("'nonexistent': No such file or directory"),
        "{}",
        r.stderr_str()
    );
    f.clone().args(["nonexistent"]).soft(&mut s);
    f.clone().args(["plain.txt/x", "sub/deeper"]).soft(&mut s);
    f.args(["", "sub"]).soft(&mut s);
    s.done();
}

// ---------------------------------------------------------------------
// --sort: depth-first, each directory's entries in byte order.

/// Depth-first order by path components; `post` puts directories after
/// their contents (-depth).
fn dfs_cmp(a: &[u8], b: &[u8], post: bool) -> Ordering {
    let (ca, cb): (Vec<&[u8]>, Vec<&[u8]>) =
        (a.split(|&c| c == b'/').collect(), b.split(|&c| c == b'/').collect());
    for (x, y) in ca.iter().zip(&cb) {
        if x != y {
            return x.cmp(y);
        }
    }
    if post {
        cb.len().cmp(&ca.len())
    } else {
        ca.len().cmp(&cb.len())
    }
}

fn sorted_matches_gnu(root: &Path, args: &[&str], post: bool, gnu_code: i32) {
    let f = Find::new(root).args(args).trawl_opts(["--sort"]);
    let gnu = f.gnu();
    assert_eq!(gnu.code, gnu_code, "{}", clip(&gnu.stderr));
    let mut want: Vec<Vec<u8>> = gnu.stdout.split(|&c| c == 0).map(<[u8]>::to_vec).collect();
    want.pop();
    want.sort_by(|a, b| dfs_cmp(a, b, post));
    let mut first: Option<Vec<u8>> = None;
    for _ in 0..3 {
        let r = f.trawl();
        compare(&r, &gnu, 0);
        let got: Vec<Vec<u8>> = {
            let mut v: Vec<Vec<u8>> = r.stdout.split(|&c| c == 0).map(<[u8]>::to_vec).collect();
            v.pop();
            v
        };
        if got != want {
            let at = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
            panic!(
                "--sort order differs at record {at}: got {:?}, want {:?}\n{}",
                got.get(at).map(|g| clip(g)),
                want.get(at).map(|w| clip(w)),
                context(&r, &gnu)
            );
        }
        if let Some(f) = &first {
            assert_eq!(f, &r.stdout, "--sort is not deterministic");
        }
        first = Some(r.stdout);
    }
}

#[test]
fn sort_pre_order() {
    let t = tricky();
    sorted_matches_gnu(t.path(), &[".", "-print0"], false, 0);
    sorted_matches_gnu(t.path(), &[".", "-type", "f", "-name", "*s*", "-print0"], false, 0);
}

#[test]
fn sort_post_order() {
    let t = tricky();
    sorted_matches_gnu(t.path(), &[".", "-depth", "-print0"], true, 0);
}

/// Several starting points: each one's walk, in command-line order.
#[test]
fn sort_several_starting_points_keep_their_order() {
    let t = tricky();
    let roots = ["times", "sub", "content", "links"];
    let mut want: Vec<u8> = Vec::new();
    for root in roots {
        let g = Find::new(t.path()).args([root, "-print0"]).gnu();
        let mut recs = sorted_records(&g.stdout, 0);
        recs.sort_by(|a, b| dfs_cmp(a, b, false));
        for r in recs {
            want.extend_from_slice(&r);
            want.push(0);
        }
    }
    let r = Find::new(t.path()).trawl_opts(["--sort"]).args(roots).args(["-print0"]).trawl();
    r.assert_code(0);
    assert!(
        r.stdout == want,
        "--sort with several roots\n--- want:\n{}\n--- got:\n{}",
        clip(&want),
        clip(&r.stdout)
    );
}

#[test]
fn sort_linux_subtree() {
    let (root, _keep) = linux();
    sorted_matches_gnu(&root, &["drivers/net", "-print0"], false, 0);
}

// ---------------------------------------------------------------------
// The Linux tree (or its generated stand-in).

fn linux_find(args: &[&str]) {
    let (root, _keep) = linux();
    let mut f = Find::new(&root).args(args);
    if args.contains(&"-print0") {
        f = f.nul();
    }
    let (_, g) = f.check();
    assert!(!g.stdout.is_empty(), "GNU found nothing: a useless test");
}

#[test]
fn linux_net_name() {
    linux_find(&["drivers/net", "-name", "*.c"]);
}

#[test]
fn linux_empty_dirs_and_files() {
    linux_find(&[".", "-empty", "-printf", "%y %p\\n"]);
}

#[test]
fn linux_net_size_printf() {
    linux_find(&["drivers/net", "-size", "+20k", "-printf", "%s %P %m %u\\n"]);
}

#[test]
fn linux_net_regex() {
    linux_find(&[
        "drivers/net",
        "-regextype",
        "posix-extended",
        "-regex",
        ".*/[a-z0-9_]+_(main|core|[0-9])\\.[ch]",
    ]);
}

#[test]
fn linux_net_prune() {
    linux_find(&["drivers/net", "-path", "*/dev0", "-prune", "-o", "-name", "*.h", "-print"]);
}

#[test]
fn linux_net_depth_dirs() {
    linux_find(&["drivers/net", "-depth", "-type", "d", "-printf", "%d %p\\n"]);
}

#[test]
fn linux_net_ls() {
    linux_find(&["drivers/net", "-maxdepth", "2", "-ls"]);
}

#[test]
fn linux_net_exec_batched() {
    linux_find(&["drivers/net", "-name", "*.h", "-exec", "printf", "%s\\n", "{}", "+"]);
}

#[test]
fn linux_whole_tree_cheap_expressions() {
    linux_find(&[".", "-name", "*.h", "-path", "*/include/*"]);
    linux_find(&[".", "-type", "l", "-printf", "%p -> %l\\n"]);
    linux_find(&[".", "-maxdepth", "3", "-type", "d"]);
    linux_find(&[".", "-print0"]);
}

#[test]
fn linux_quit_stops_with_one_line() {
    let (root, _keep) = linux();
    let r = Find::new(&root).args([".", "-name", "Makefile", "-print", "-quit"]).trawl();
    r.assert_code(0).assert_no_stderr();
    let lines = r.sorted_lines();
    assert_eq!(lines.len(), 1, "{}", r.stdout_str());
    assert!(lines[0].ends_with(b"/Makefile"));
    // Many threads meeting many matches at once: still exactly one.
    for _ in 0..20 {
        let r = Find::new(&root)
            .trawl_opts(["-j", "8"])
            .args([".", "-name", "*.c", "-contains", "include", "-print", "-quit"])
            .trawl();
        r.assert_code(0).assert_no_stderr();
        assert_eq!(r.sorted_lines().len(), 1, "{}", r.stdout_str());
    }
}

#[test]
fn linux_contains_matches_grep() {
    let (root, _keep) = linux();
    contains_vs_grep(
        &root,
        &["drivers/net", "-type", "f", "-name", "*.c"],
        "MODULE_LICENSE\\(\"GPL v2\"\\)",
    );
    contains_vs_grep(&root, &["drivers/net", "-type", "f"], "^\\s*EXPORT_SYMBOL_GPL\\(\\w+\\);$");
}

#[test]
fn linux_text_binary_match_reference() {
    let (root, _keep) = linux();
    text_binary_vs_reference(&root, &["drivers/net"]);
}

// ---------------------------------------------------------------------
// trawl-only tests: -text, -binary, -contains.

/// Whether a regular file's first 8 KiB hold a NUL; None for empty files.
fn classify(path: &Path) -> Option<bool> {
    use std::io::Read;
    let mut f = fs::File::open(path).ok()?;
    let mut buf = vec![0; 8192];
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]).unwrap() {
            0 => break,
            k => n += k,
        }
    }
    (n > 0).then(|| buf[..n].contains(&0))
}

/// `trawl find ROOTS OPTS -text` and `-binary` against the regular files
/// GNU find lists with the same options, classified here.
fn text_binary_vs_reference(cwd: &Path, roots_and_opts: &[&str]) {
    let f = Find::new(cwd).args(roots_and_opts).any_code();
    let files = f.clone().args(["-type", "f", "-print0"]).gnu();
    let (mut text, mut binary) = (Vec::new(), Vec::new());
    for p in sorted_records(&files.stdout, 0) {
        match classify(&cwd.join(OsStr::from_bytes(&p))) {
            Some(false) => text.push(p),
            Some(true) => binary.push(p),
            None => {}
        }
    }
    for (test, want) in [("-text", text), ("-binary", binary)] {
        let r = f.clone().args([test, "-print0"]).trawl();
        assert_eq!(r.code, files.code, "{}\n{}", r.cmdline, r.stderr_str());
        assert_same_records(test, &want, &sorted_records(&r.stdout, 0), &|| {
            format!("{}\n{}", r.cmdline, clip(&r.stderr))
        });
    }
}

/// `trawl find ROOTS OPTS -contains PAT` against
/// `find ROOTS OPTS -exec grep -l -P -e PAT -- {} +`.
fn contains_vs_grep(cwd: &Path, roots_and_opts: &[&str], pat: &str) {
    contains_vs_grep_in(cwd, roots_and_opts, pat, "C");
}

/// [`contains_vs_grep`] with grep in the locale `lc_all`.
fn contains_vs_grep_in(cwd: &Path, roots_and_opts: &[&str], pat: &str, lc_all: &str) {
    let f = Find::new(cwd)
        .args(roots_and_opts)
        .any_code()
        .timeout(FIFO_TIMEOUT * 6)
        .gnu_env("LC_ALL", lc_all);
    let want = f.clone().args(["-exec", "grep", "-l", "-P", "-e", pat, "--", "{}", "+"]).gnu();
    let got = f.clone().args(["-contains", pat]).trawl();
    assert_same_records(
        &format!("-contains {pat}"),
        &want.sorted_lines(),
        &got.sorted_lines(),
        &|| context(&got, &want),
    );
}

#[test]
fn text_and_binary() {
    let t = tricky();
    text_binary_vs_reference(t.path(), &["."]);
    text_binary_vs_reference(t.path(), &["content", "sizes"]);
    let r = Find::new(t.path()).args(["content", "-binary"]).trawl();
    r.assert_code(0);
    assert_eq!(
        r.sorted_lines(),
        [b"content/bin.dat".to_vec(), b"content/nul8191.dat".to_vec()],
        "a NUL at offset 8191 is binary, at 8192 it is not"
    );
}

#[test]
fn text_and_binary_are_false_for_non_regular_files() {
    let t = tricky();
    let f = Find::new(t.path()).timeout(FIFO_TIMEOUT);
    // Under -P a symlink is not a regular file; empty files are neither.
    let r = f.clone().args([".", "(", "-text", "-o", "-binary", ")", "!", "-type", "f"]).trawl();
    r.assert_code(0).assert_no_stderr().assert_stdout("");
    let r = f.clone().args([".", "-empty", "(", "-text", "-o", "-binary", ")"]).trawl();
    r.assert_code(0).assert_stdout("");
    // -L: the links to text files count (the loops are errors).
    text_binary_vs_reference(t.path(), &["-L", "links", "owners"]);
}

#[test]
fn text_with_other_tests() {
    let t = tricky();
    let f = Find::new(t.path());
    let a = f.clone().args([".", "-name", "*.txt", "-text", "-print0"]).trawl();
    let b = f.clone().args([".", "-text", "-name", "*.txt", "-print0"]).trawl();
    assert_eq!(sorted_records(&a.stdout, 0), sorted_records(&b.stdout, 0));
    let n = f.args([".", "!", "-text", "-type", "f", "!", "-empty", "-print0"]).trawl();
    let bin = Find::new(t.path()).args([".", "-binary", "-print0"]).trawl();
    assert_eq!(sorted_records(&n.stdout, 0), sorted_records(&bin.stdout, 0));
}

#[test]
fn contains_matches_grep() {
    let t = tricky();
    let p = t.path();
    let files: &[&str] = &[".", "-type", "f"];
    for pat in [
        "foo",
        "^foo",
        "bar$",
        "(?i)todo",
        "hello\\s+world",
        "line one$",
        "end$",
        "^$",
        "\\bmain\\b",
        "a{8000}",
        "def",
        "FIXME(?= later)",
    ] {
        contains_vs_grep(p, files, pat);
    }
    contains_vs_grep(p, &["-L", ".", "-type", "f", "-name", "*.txt"], "foo");
    contains_vs_grep(p, &["content", "sizes", "-type", "f", "-size", "-2k"], "x");
}

#[test]
fn contains_agrees_with_trawl_grep_on_non_ascii() {
    // trawl's regexes are not GNU grep's in either locale (`\x{e9}` is
    // the UTF-8 character, `.` one byte): -contains must agree with
    // `trawl -l` (grep -l) itself.
    let t = tricky();
    for pat in ["h\\x{e9}llo", "w.rld", "^h.llo w.rld$", "(?i)H\\x{c9}LLO", "w[^a-z]+rld", "\\xff"]
    {
        let f = Find::new(t.path()).args([".", "-type", "f"]).any_code();
        let want = f.clone().args(["-exec", trawl_bin(), "-l", "-e", pat, "--", "{}", "+"]).gnu();
        let got = f.args(["-contains", pat]).trawl();
        assert_same_records(
            &format!("-contains {pat}"),
            &want.sorted_lines(),
            &got.sorted_lines(),
            &|| context(&got, &want),
        );
    }
}

#[test]
fn contains_combined_with_operators() {
    let t = tricky();
    let f = Find::new(t.path()).timeout(FIFO_TIMEOUT);
    let r = f
        .clone()
        .args([".", "-contains", "foo", "-name", "*.txt", "!", "-contains", "bar"])
        .trawl();
    r.assert_code(0);
    assert_eq!(
        r.sorted_lines(),
        [
            b"./.hiddendir/inner.txt".to_vec(),
            b"./bad\xffname.txt".to_vec(),
            b"./content/text2.txt".to_vec(),
            b"./name with spaces.txt".to_vec(),
        ]
    );
    // Under -P a symlink's target is not read.
    let r = f.clone().args(["links", "owners", "-contains", "hello"]).trawl();
    r.assert_code(0).assert_stdout("");
    let r = f.args(["-L", "links/to_file", "-contains", "hello", "-printf", "%p %s\\n"]).trawl();
    r.assert_code(0)
        .assert_stdout(format!("links/to_file {}\n", crate::find_fixtures::PLAIN.len()));
}

#[test]
fn contains_invalid_pattern_is_an_error() {
    let t = tricky();
    let r = Find::new(t.path()).args([".", "-contains", "a(b"]).trawl();
    assert_eq!(r.code, 1, "{}", r.stderr_str());
    assert!(r.stdout.is_empty());
    assert!(r.stderr_str().starts_with("trawl: "), "{}", r.stderr_str());
}

/// Issue 16 #5: with `-search-zip` (and `-docs`), `-contains`, `-text` and
/// `-binary` look at the text inside compressed files, archives (and
/// documents); each verdict is checked against the system's own tools
/// (`gzip -dc`, `unzip -p`, `tar -xO`, `pdftotext`) piped into grep.
#[test]
fn content_tests_see_extracted_text_when_asked() {
    use crate::extract::sh;
    let t = Tree::new();
    t.file("plain.txt", "a needle here\n").file("other.txt", "nothing\n");
    t.file("a", "gz needle\n").file("b", "gz other\n");
    sh(t.path(), "gzip", &["a", "b"]);
    t.file("m/in.txt", "zip needle\n").file("m/out.txt", "zip other\n");
    sh(&t.path().join("m"), "zip", &["-q", "../c.zip", "in.txt"]);
    sh(&t.path().join("m"), "zip", &["-q", "../f.zip", "out.txt"]);
    sh(&t.path().join("m"), "tar", &["-cJf", "../d.tar.xz", "in.txt"]);
    fs::remove_dir_all(t.path().join("m")).unwrap();
    t.file_bytes(b"e.pdf", crate::documents::pdf(&[&["pdf needle"]]));
    t.file_bytes(b"z", b"binary\0data\n");
    sh(t.path(), "gzip", &["z"]);
    // The reference: each file's text as the tools give it.
    let text_of = |name: &str, docs: bool| -> Vec<u8> {
        let p = t.path();
        match name {
            n if n.ends_with(".gz") => sh(p, "gzip", &["-dc", n]),
            n if n.ends_with(".zip") => sh(p, "unzip", &["-p", n]),
            n if n.ends_with(".tar.xz") => sh(p, "tar", &["-xOJf", n]),
            n if n.ends_with(".pdf") && docs => sh(p, "pdftotext", &[n, "-"]),
            n => fs::read(p.join(n)).unwrap(),
        }
    };
    let names =
        ["a.gz", "b.gz", "c.zip", "d.tar.xz", "e.pdf", "f.zip", "other.txt", "plain.txt", "z.gz"];
    for (option, docs) in [("-search-zip", false), ("-docs", true)] {
        let find = |test: &[&str]| -> Vec<String> {
            let r = Cmd::new(trawl_bin(), t.path())
                .args(["find", ".", "-type", "f", option])
                .args(test)
                .run();
            assert_eq!(r.code, 0, "{option} {test:?}: {}", r.stderr_str());
            let mut got: Vec<String> =
                r.stdout_str().lines().map(|l| l.trim_start_matches("./").to_string()).collect();
            got.sort();
            got
        };
        let want = |judge: &dyn Fn(&[u8]) -> bool| -> Vec<String> {
            names.iter().filter(|n| judge(&text_of(n, docs))).map(|n| n.to_string()).collect()
        };
        let needle = |text: &[u8]| memchr::memmem::find(text, b"needle").is_some();
        assert_eq!(find(&["-contains", "needle"]), want(&needle), "{option}");
        let head = |text: &[u8]| text[..text.len().min(8192)].to_vec();
        let text = |b: &[u8]| !b.is_empty() && !head(b).contains(&0);
        let binary = |b: &[u8]| head(b).contains(&0);
        assert_eq!(find(&["-text"]), want(&text), "{option}");
        assert_eq!(find(&["-binary"]), want(&binary), "{option}");
    }
    // Without either option the bytes are judged: a gzip is binary.
    let r = Cmd::new(trawl_bin(), t.path()).args(["find", ".", "-name", "*.gz", "-text"]).run();
    assert_eq!(r.stdout_str(), "");
}
