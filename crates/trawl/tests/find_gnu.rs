//! The rest of GNU find (issue 14), each against the system's GNU find:
//! the predicates that were missing (`-newerXY`, `-ok`/`-okdir`, `-lname`,
//! `-fstype`, `-daystart`, `-used`, `-files0-from`) and the behaviours that
//! differed, each test named by what GNU does.

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt, PermissionsExt};
use std::path::Path;

use crate::find::{tricky_find, Find, Soft};
use crate::util::{sorted_records, trawl_bin, Cmd, Tree};

/// A tree of files whose times are set with `touch -d` (UTC), as the
/// time predicates' differential tests need them.
fn dated() -> Tree {
    let t = Tree::new();
    for (name, when) in [
        ("y2020", "2020-06-01 00:00:00"),
        ("jan1-noon", "2024-01-01 12:00:00"),
        ("jan1-1159", "2024-01-01 11:59:59"),
        ("jan1-1201", "2024-01-01 12:01:00"),
        ("jun", "2024-06-01 08:30:00"),
        ("days10", "10 days ago"),
        ("days3", "3 days ago"),
        ("hours5", "5 hours ago"),
        ("min30", "30 minutes ago"),
        ("today0", "today 00:00:01"),
    ] {
        t.file(name, name);
        let r = Cmd::new("touch", t.path()).env("TZ", "UTC").args(["-d", when, name]).run();
        assert_eq!(r.code, 0, "touch -d {when}: {}", r.stderr_str());
    }
    // Accessed long after its status changed.
    t.file("used", "used");
    Cmd::new("touch", t.path()).env("TZ", "UTC").args(["-a", "-d", "+3 days", "used"]).run();
    t.file("dir/inner", "x");
    t
}

/// `find . ARGS` on the dated tree, under `TZ=tz`.
fn dated_find(t: &Tree, tz: &str, args: &[&str]) -> Find {
    Find::new(t.path()).env("TZ", tz).args(["."]).args(args)
}

#[test]
fn newer_xy_compares_each_time_with_a_file_or_a_date_as_gnu_reads_it() {
    let t = dated();
    let mut s = Soft::default();
    for tz in ["UTC", "America/New_York", "Asia/Kolkata"] {
        for args in [
            &["-newermt", "2024-01-01 12:00"][..],
            &["-newermt", "2024-01-01 11:59:59"],
            &["-newermt", "2024-01-01T12:00:00Z"],
            &["-newermt", "2024-01-01 07:00 -0500"],
            &["-newermt", "@1704110400"],
            &["-newermt", "@1704110399.5"],
            &["-newermt", "Jan 1 2024 12:00:30"],
            &["-newermt", "1 January 2024"],
            &["-newermt", "1/1/2024 11:00pm"],
            &["-newermt", "2024-06-01"],
            &["-newermt", "2024-01-31 +1 month"],
            &["-newermt", "20240101"],
            &["-newermt", "2024-01-01 12"],
            &["-newermt", "4 days ago"],
            &["-newermt", "yesterday"],
            &["-newermt", "last week"],
            &["-newermt", "2 hours ago"],
            &["-newermt", "1 hour 30 minutes ago"],
            &["-newermt", ""],
            &["-newerat", "2024-01-01 12:00:00"],
            &["-newerct", "1 year ago"],
            &["-newermm", "jan1-noon"],
            &["-newerma", "jun"],
            &["-newermc", "min30"],
            &["-neweram", "days3"],
            &["-newerac", "y2020"],
            &["-not", "-newermt", "2024-01-01 12:00"],
        ] {
            dated_find(&t, tz, args).soft(&mut s);
        }
    }
    for args in [
        &["-newermt", "garbage"][..],
        &["-newermt", "2024-02-30"],
        &["-newermt", "25:00"],
        &["-newertm", "x"],
        &["-newerzz", "x"],
        &["-newermm", "nosuch"],
    ] {
        dated_find(&t, "UTC", args).fails().soft(&mut s);
    }
    dated_find(&t, "UTC", &["-newermt"]).fails().soft(&mut s);
    s.done();
}

/// Birth times (GNU find here was built without them: it refuses `B`):
/// trawl's agree with statx's as `stat -c %W` prints them.
#[test]
fn newer_b_compares_the_birth_time_that_statx_gives() {
    let t = Tree::new();
    t.file("old", "old");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    t.file("new", "new");
    let birth = |name: &str| {
        let r = Cmd::new("stat", t.path()).args(["-c", "%W", name]).run();
        r.stdout_str().trim().parse::<i64>().unwrap()
    };
    let (old, new) = (birth("old"), birth("new"));
    // Modified long before either was born.
    let r = Cmd::new("touch", t.path()).args(["-m", "-d", "2000-01-01", "old"]).run();
    r.assert_code(0);
    if old == 0 {
        // This file system keeps no birth time: a warning and false.
        let r = Cmd::trawl(t.path()).args(["find", "old", "-newerBt", "@0"]).run();
        r.assert_code(0).assert_stdout("");
        assert!(r.stderr_str().contains("WARNING: cannot determine birth time of file 'old'"));
        return;
    }
    assert!(new > old);
    let run = |args: &[&str]| {
        let r = Cmd::trawl(t.path()).args(["find", "old", "new"]).args(args).run();
        r.assert_code(0);
        let mut names: Vec<String> = r.stdout_str().lines().map(String::from).collect();
        names.sort();
        names
    };
    // old was born within second `old`, new more than a second later.
    assert_eq!(run(&["-newerBt", &format!("@{}", old + 1)]), ["new"]);
    assert_eq!(run(&["-newerBt", &format!("@{}", old - 1)]), ["new", "old"]);
    assert_eq!(run(&["-newerBB", "old"]), ["new"]);
    assert_eq!(run(&["-newermB", "old"]), ["new"]);
    assert_eq!(run(&["-newerBm", "old"]), ["new", "old"]);
    assert_eq!(run(&["-newerBm", "new"]), Vec::<String>::new());
    let printed = Cmd::trawl(t.path()).args(["find", "new", "-printf", "%B@\\n"]).run();
    assert!(printed.stdout_str().starts_with(&format!("{new}.")), "{}", printed.stdout_str());
}

#[test]
fn daystart_counts_days_from_the_start_of_today_from_where_it_stands() {
    let t = dated();
    let mut s = Soft::default();
    for tz in ["UTC", "Pacific/Kiritimati"] {
        for args in [
            &["-daystart", "-mtime", "0"][..],
            &["-daystart", "-mtime", "1"],
            &["-daystart", "-mtime", "-2"],
            &["-daystart", "-mtime", "+3"],
            &["-daystart", "-daystart", "-mtime", "0"],
            &["-daystart", "-mmin", "-600"],
            &["-daystart", "-mmin", "+1000"],
            &["-mtime", "0", "-daystart"],
            &["-mtime", "0", "-o", "-daystart", "-mtime", "3"],
            &["-daystart", "-atime", "0", "-ctime", "0"],
            &["-mtime", "-1.5"],
            &["-mtime", "2.5"],
            &["-mmin", "-60.5"],
            &["-mmin", "+.5"],
            &["-mtime", "-+4"],
        ] {
            dated_find(&t, tz, args).soft(&mut s);
        }
    }
    s.done();
}

#[test]
fn used_compares_access_after_status_change_as_gnu_does() {
    let t = dated();
    let mut s = Soft::default();
    for n in ["0", "1", "2", "3", "4", "+0", "+2", "+3", "-1", "-3", "-4", "1.5", "-+4"] {
        dated_find(&t, "UTC", &["-used", n]).soft(&mut s);
    }
    dated_find(&t, "UTC", &["-used", "1x"]).fails().soft(&mut s);
    s.done();
}

#[test]
fn lname_and_ilname_match_link_targets() {
    let mut s = Soft::default();
    for args in [
        &[".", "-lname", "*file*"][..],
        &[".", "-ilname", "*FILE*"],
        &[".", "-lname", "../*"],
        &[".", "-lname", "*"],
        &["-L", ".", "-lname", "*"],
        &[".", "!", "-lname", "*", "-type", "l"],
    ] {
        let (_t, f) = tricky_find(args.iter().copied());
        let f = if args[0] == "-L" { f.fails() } else { f };
        f.soft(&mut s);
    }
    s.done();
}

#[test]
fn fstype_names_the_file_system_as_the_mount_table_does() {
    let mut s = Soft::default();
    let root = Find::new(Path::new("/"));
    for args in [
        &["/", "-maxdepth", "0", "-printf", "%F %p\\n"][..],
        &["/dev/shm", "/proc", "/sys", "/", "-maxdepth", "0", "-printf", "%F %p\\n"],
        &["/dev/shm", "-maxdepth", "0", "-fstype", "tmpfs"],
        &["/", "/proc", "-maxdepth", "0", "-fstype", "proc"],
        &["/dev/shm", "-maxdepth", "0", "-fstype", "ext4"],
        &["/dev", "-maxdepth", "1", "-fstype", "devpts"],
    ] {
        root.clone().args(args).soft(&mut s);
    }
    // A tree on the root file system and one on tmpfs.
    let t = Tree::new();
    t.file("a", "a");
    let fs = Cmd::new("stat", t.path()).args(["-f", "-c", "%T", "."]).run();
    let kind = fs.stdout_str().trim().to_string();
    Find::new(t.path()).args([".", "-fstype", &kind]).soft(&mut s);
    Find::new(t.path()).args([".", "-printf", "%F\\n"]).soft(&mut s);
    let shm = Tree::new_in(Path::new("/dev/shm")).expect("a tree under /dev/shm");
    shm.file("x", "x");
    Find::new(shm.path()).args([".", "-fstype", "tmpfs", "-printf", "%F %p\\n"]).soft(&mut s);
    s.done();
}

#[test]
fn files0_from_reads_the_starting_points_as_gnu_does() {
    let t = Tree::new();
    t.file("a/x", "x").file("b/y", "y");
    fs::write(t.path().join("list"), b"a\0b\0").unwrap();
    fs::write(t.path().join("no-end"), b"b\0a").unwrap();
    fs::write(t.path().join("empty-names"), b"a\0\0b\0\0").unwrap();
    fs::write(t.path().join("nothing"), b"").unwrap();
    fs::write(t.path().join("missing"), b"a\0nosuch\0b").unwrap();
    let mut s = Soft::default();
    let f = |args: &[&str]| Find::new(t.path()).args(args);
    f(&["-files0-from", "list"]).soft(&mut s);
    f(&["-files0-from", "no-end", "-type", "f"]).soft(&mut s);
    f(&["-files0-from", "empty-names"]).fails().soft(&mut s);
    f(&["-files0-from", "nothing"]).soft(&mut s);
    f(&["-files0-from", "missing"]).fails().soft(&mut s);
    f(&["-name", "x", "-files0-from", "list"]).soft(&mut s);
    f(&["-files0-from", "list", "-files0-from", "no-end"]).soft(&mut s);
    f(&["-files0-from", "-"]).stdin(b"b\0a\0").soft(&mut s);
    f(&["x", "-files0-from", "list"]).fails().soft(&mut s);
    f(&["-files0-from", "nosuch"]).fails().soft(&mut s);
    f(&["-files0-from", "."]).fails().soft(&mut s);
    f(&["-files0-from", "-", "-ok", "echo", "{}", ";"]).stdin(b"a\0").fails().soft(&mut s);
    f(&["-files0-from"]).fails().soft(&mut s);
    s.done();
    // The list is also standard input with -ok: refused (GNU compares the
    // files' device and inode).
    let list = fs::File::open(t.path().join("list")).unwrap();
    for program in ["find", trawl_bin()] {
        let mut c = std::process::Command::new(program);
        if program != "find" {
            c.arg("find");
        }
        let out = c
            .args(["-files0-from", "list", "-ok", "echo", "{}", ";"])
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .stdin(list.try_clone().unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{program}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("standard input must not refer to the same file"), "{said}");
    }
}

#[test]
fn ok_and_okdir_ask_on_standard_error_and_read_the_answers() {
    let t = Tree::new();
    t.file("d/a", "a").file("d/b", "b").file("d/sub/c", "c");
    let mut s = Soft::default();
    let f = |args: &[&str]| Find::new(t.path()).args(args);
    // No answer (standard input at its end): no, for each.
    f(&["d", "-type", "f", "-ok", "echo", "ran", "{}", ";"]).soft(&mut s);
    f(&["d", "-type", "f", "-okdir", "echo", "ran", "{}", ";"]).soft(&mut s);
    // Yes to everything; then a mix that does not depend on the order.
    f(&["d", "-type", "f", "-ok", "echo", "ran", "{}", ";"]).stdin("y\nyes\nY\n").soft(&mut s);
    f(&["d", "-type", "f", "-okdir", "pwd", ";"]).stdin("y\ny\ny\n").soft(&mut s);
    f(&["d", "-name", "a", "-ok", "echo", "{}", ";"]).stdin("no\n").soft(&mut s);
    f(&["d", "-name", "a", "-ok", "echo", "{}", ";"]).stdin(" y\n").soft(&mut s);
    f(&["d", "-name", "a", "-ok", "false", ";", "-print"]).stdin("y\n").soft(&mut s);
    f(&["d", "-name", "a", "-ok", "echo", "{}", "+"]).fails().soft(&mut s);
    f(&["d", "-name", "a", "-ok"]).fails().soft(&mut s);
    s.done();
    // What was printed goes out before the question.
    for program in ["find", trawl_bin()] {
        let mut c = std::process::Command::new(program);
        if program != "find" {
            c.arg("find");
        }
        let out = c
            .args(["d/a", "-print", "-ok", "true", ";"])
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.stdout, b"d/a\n", "{program}");
        assert_eq!(out.stderr, b"< true ... d/a > ? ", "{program}");
    }
}

// ---------------------------------------------------------------------
// The behaviours that differed (issue 14, numbered as there).

/// Item 1: `-L`: a link through a file (ENOTDIR) is listed, with its error.
#[test]
fn follow_all_lists_a_link_through_a_file_with_its_error() {
    let t = Tree::new();
    t.file("t/file", "x");
    symlink("file", t.path().join("t/symlink")).unwrap();
    symlink("symlink/file", t.path().join("t/notdir")).unwrap();
    let mut s = Soft::default();
    for args in [
        &["-L", "t"][..],
        &["-L", "t", "-type", "l"],
        &["-L", "t", "-xtype", "l"],
        &["-L", "t", "-printf", "%y %Y %p\\n"],
    ] {
        Find::new(t.path()).args(args).fails().soft(&mut s);
    }
    s.done();
}

/// Item 2: `-H`/`-L` with `-samefile`, `-newer` of a link that cannot be
/// followed: its own metadata.
#[test]
fn samefile_and_newer_take_a_dangling_reference_as_the_link_itself() {
    let t = Tree::new();
    t.file("t/f", "x");
    symlink("nowhere", t.path().join("t/broken")).unwrap();
    symlink("f/x", t.path().join("t/nd")).unwrap();
    let mut s = Soft::default();
    Find::new(t.path()).args(["-H", "t", "-samefile", "t/broken"]).soft(&mut s);
    Find::new(t.path()).args(["-H", "t", "-samefile", "t/nd"]).soft(&mut s);
    Find::new(t.path()).args(["-L", "t", "-samefile", "t/broken"]).fails().soft(&mut s);
    Find::new(t.path()).args(["-L", "t", "-newer", "t/broken"]).fails().soft(&mut s);
    Find::new(t.path()).args(["t", "-samefile", "t/broken"]).soft(&mut s);
    s.done();
}

/// Item 3: `-execdir` on `/` runs in `/` with `/`; trailing slashes count once.
#[test]
fn execdir_on_the_root_directory_and_on_trailing_slashes() {
    let t = Tree::new();
    t.file("d/x", "x");
    let mut s = Soft::default();
    for root in ["/", "//", "///"] {
        Find::new(t.path())
            .args([root, "-maxdepth", "0", "-execdir", "echo", "{}", ";"])
            .soft(&mut s);
        Find::new(t.path()).args([root, "-maxdepth", "0", "-execdir", "pwd", ";"]).soft(&mut s);
    }
    for root in ["d/", "d//", ".", "./", ".//"] {
        Find::new(t.path())
            .args([root, "-maxdepth", "0", "-execdir", "echo", "{}", ";"])
            .soft(&mut s);
    }
    s.done();
}

/// Item 4: A sign after the comparison's sign, spaces: as strtoumax reads them.
#[test]
fn numbers_read_as_gnu_reads_them() {
    let mut s = Soft::default();
    for args in [
        &[".", "-maxdepth", "0", "-gid", "-+1"][..],
        &[".", "-maxdepth", "0", "-uid", "++0"],
        &[".", "-maxdepth", "0", "-uid", " 0"],
        &[".", "-links", "-+2"],
        &[".", "-size", "-+1"],
        &[".", "-size", " 0c"],
        &[".", "-mtime", "-+1"],
    ] {
        tricky_find(args.iter().copied()).1.soft(&mut s);
    }
    for args in [
        &[".", "-uid", "+-1"][..],
        &[".", "-inum", "1x"],
        &[".", "-links", "1.5"],
        &[".", "-size", "1.5"],
        &[".", "-size", ""],
        &[".", "-size", "5kk"],
        &[".", "-size", "1x"],
        &[".", "-mtime", "x"],
    ] {
        tricky_find(args.iter().copied()).1.fails().soft(&mut s);
    }
    s.done();
}

/// `find ARGS` with standard output on /dev/full, for both tools: exit
/// code and messages.
fn to_a_full_disk(t: &Tree, args: &[&str]) -> [(Option<i32>, String); 2] {
    ["find", trawl_bin()].map(|program| {
        let mut c = std::process::Command::new(program);
        if program != "find" {
            c.arg("find");
        }
        let out = c
            .args(args)
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .stdout(fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).replace("trawl: ", "find: ");
        (out.status.code(), said)
    })
}

/// Item 5: A write error on standard output is said, and fails the run.
#[test]
fn a_write_error_on_standard_output_is_reported() {
    let t = Tree::new();
    t.file("a", "a");
    for args in [
        &[".", "-maxdepth", "0"][..],
        &[".", "-maxdepth", "0", "-print0", "-exec", "true", ";"],
        &[".", "-printf", "x"],
        &[".", "-maxdepth", "0", "-ls"],
        &[".", "-maxdepth", "0", "-fprint", "/dev/full"],
        &[".", "-maxdepth", "0", "-fprint", "/dev/full", "-print"],
    ] {
        let [gnu, trawl] = to_a_full_disk(&t, args);
        assert_eq!(trawl, gnu, "{args:?}");
        assert_eq!(gnu.0, Some(1), "{args:?}");
    }
}

/// Item 6: `-execdir` and `-okdir` refuse a PATH naming the current directory
/// or a relative one.
#[test]
fn execdir_refuses_a_path_with_the_current_or_a_relative_directory() {
    let t = Tree::new();
    t.file("a", "a");
    let path = std::env::var("PATH").unwrap_or_default();
    let mut s = Soft::default();
    for bad in [
        format!(".:{path}"),
        format!(":{path}"),
        format!("{path}:"),
        format!("foo:{path}"),
        "/bin::/usr/bin".to_string(),
    ] {
        for action in [&["-execdir", "echo", "{}", "+"][..], &["-okdir", "echo", "{}", ";"]] {
            Find::new(t.path()).env("PATH", &bad).args(["."]).args(action).fails().soft(&mut s);
        }
    }
    Find::new(t.path())
        .env("PATH", "/usr/bin:/bin")
        .args([".", "-execdir", "echo", "{}", "+"])
        .soft(&mut s);
    s.done();
}

/// Item 7: Children get the open-file limit trawl was started with.
#[test]
fn children_get_the_limits_find_was_started_with() {
    let t = Tree::new();
    t.file("a", "a");
    for program in ["find", trawl_bin()] {
        let find = if program == "find" { "find".to_string() } else { format!("'{program}' find") };
        let script = format!("ulimit -Sn 64; {find} . -maxdepth 0 -exec sh -c 'ulimit -Sn' \\;");
        let r = Cmd::new("sh", t.path()).args(["-c", &script]).run();
        r.assert_code(0).assert_stdout("64\n");
    }
}

/// Item 8: A tight descriptor limit loses nothing: a deep tree under 16.
#[test]
fn a_tight_descriptor_limit_loses_no_subtree() {
    let t = Tree::new();
    for i in 0..16 {
        t.file(format!("d/{i}/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/leaf"), "leaf\n");
    }
    let (deep, _) = crate::find_fixtures::deep();
    let lines = |r: &crate::util::Run| {
        let mut l: Vec<String> = r.stdout_str().lines().map(String::from).collect();
        l.sort();
        l
    };
    for (program, args, limits) in [
        // GNU find works down to 14 here; trawl below that too.
        ("find", "d -type f -exec echo {} ;", &[16, 14][..]),
        ("trawl", "find d -type f -exec echo {} ;", &[16, 14, 8]),
        ("trawl", "find -j 8 d -name leaf", &[16, 14, 8]),
        ("trawl", "find -j 8 --sort d -depth", &[16, 14, 8]),
        ("trawl", "find -j 8 d -depth ! -empty", &[16, 14, 8]),
        ("trawl", "-r leaf d", &[16, 14, 8]),
        ("trawl", "-r -j 8 --sort=path leaf d", &[16, 14, 8]),
        // Deeper than PATH_MAX: directories closed to make room are opened
        // again one component at a time.
        ("trawl", "find -j 4 deep -name 'file*'", &[16, 8]),
        ("trawl", "-r -j 4 level deep", &[16, 8]),
        ("trawl", "-r -j 4 --sort=path level deep", &[16, 8]),
    ] {
        let program =
            if program == "find" { "find".to_string() } else { format!("'{}'", trawl_bin()) };
        let args = args.replace(';', "\\;").replace("deep", &deep.path().display().to_string());
        let free = format!("{program} {args}");
        let want = Cmd::new("sh", t.path()).args(["-c", &free]).run();
        want.assert_code(0);
        assert!(want.stdout_str().lines().count() >= 6, "{free}: {}", want.stdout_str());
        for limit in limits {
            let script = format!("ulimit -n {limit}; {free}");
            let r = Cmd::new("sh", t.path()).args(["-c", &script]).run();
            assert_eq!(r.code, 0, "{script}: {}", r.stderr_str());
            assert_eq!(r.stderr_str(), "", "{script}");
            if args.contains("--sort") {
                assert_eq!(r.stdout_str(), want.stdout_str(), "{script}");
            } else {
                assert_eq!(lines(&r), lines(&want), "{script}");
            }
        }
    }
}

/// Item 9: One file under several names (a hard and a symbolic link) is one
/// stream for `-fprint`.
#[test]
fn fprint_to_one_file_under_several_names_is_one_stream() {
    let mut counts = Vec::new();
    for program in ["find", trawl_bin()] {
        let t = Tree::new();
        t.file("t/a", "a").file("t/b", "b").file("o", "");
        fs::hard_link(t.path().join("o"), t.path().join("o.hard")).unwrap();
        symlink("o", t.path().join("o.soft")).unwrap();
        let mut c = Cmd::new(program, t.path());
        if program != "find" {
            c = c.args(["find"]);
        }
        c.args(["t", "-fprint", "o", "-fprint", "o.hard", "-fprint", "o.soft"])
            .run()
            .assert_code(0);
        let text = fs::read_to_string(t.path().join("o")).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort();
        counts.push(lines.iter().map(|l| l.to_string()).collect::<Vec<_>>());
    }
    assert_eq!(counts[1], counts[0]);
    assert_eq!(counts[0].len(), 9, "three entries, three names");
}

/// Item 10: -ignore_readdir_race: what vanished is passed over, a missing
/// starting point reported.
#[test]
fn ignore_readdir_race_passes_over_what_vanished_but_not_missing_roots() {
    let mut s = Soft::default();
    let t = Tree::new();
    t.file("r/foo", "f").file("r/bar", "b");
    let remove = ["-exec", "sh", "-c", "rm -f ./foo ./bar", ";"];
    for program in ["find", trawl_bin()] {
        // Both runs start from the same files.
        t.file("r/foo", "f").file("r/bar", "b");
        let mut c = Cmd::new(program, &t.path().join("r"));
        if program != "find" {
            c = c.args(["find"]);
        }
        let r = c
            .args([".", "-mindepth", "1", "-ignore_readdir_race", "-links", "1"])
            .args(remove)
            .run();
        assert_eq!((r.code, r.stderr_str()), (0, String::new()), "{program}");
    }
    Find::new(t.path()).args(["nonexistent", "-ignore_readdir_race"]).fails().soft(&mut s);
    Find::new(t.path()).args(["r", "nonexistent", "-ignore_readdir_race"]).fails().soft(&mut s);
    s.done();
}

/// Item 11: `-perm` with a symbolic X: execute bits for directories, for files
/// only after another execute bit.
#[test]
fn perm_with_a_symbolic_x_as_gnu() {
    let t = Tree::new();
    for (name, mode) in [("f", 0o100), ("g", 0o000), ("h", 0o755), ("i", 0o644)] {
        t.file(name, "x");
        fs::set_permissions(t.path().join(name), fs::Permissions::from_mode(mode)).unwrap();
    }
    for (name, mode) in [("d", 0o700), ("d2", 0o000), ("d3", 0o111)] {
        fs::create_dir(t.path().join(name)).unwrap();
        fs::set_permissions(t.path().join(name), fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut s = Soft::default();
    for p in [
        "u=X",
        "-u=X",
        "/u=X",
        "u=rwX",
        "-u=rwX",
        "a=X",
        "-g=X",
        "/o=X",
        "u+X,g=u",
        "-u+x,u+X",
        "u=x,g=X",
        "-a=rX",
        "g+s,u=rwX",
        "a=rwX",
        "/a=X",
        "+X",
    ] {
        Find::new(t.path()).args(["f", "g", "h", "i", "d", "d2", "d3", "-perm", p]).soft(&mut s);
    }
    s.done();
    for d in ["d", "d2", "d3"] {
        fs::set_permissions(t.path().join(d), fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Item 12: `-printf` flags and widths, as printf(3) reads them.
#[test]
fn printf_flags_as_printf_reads_them() {
    let t = Tree::new();
    t.file("f", "hello\n").file("t3", "abc");
    let sparse = fs::File::create(t.path().join("sp")).unwrap();
    sparse.set_len(10_000).unwrap();
    let mut s = Soft::default();
    for fmt in [
        "%05s|%+5s|%#5s|% 5s|%-5s|\\n",
        "%+03d|% d|%#m|%05d|%-4d|%.3d|%+.2d\\n",
        "%05m|%-6m|%#10m|%.5m\\n",
        "%S|%.2S|%10S|%-10S|%+S|%#S|%010S\\n",
        "%5i|%05n|%+5U|%-5k|%05b\\n",
        "%10.3p|%-10.2f|%.0p|\\n",
        "%#o|%Q|x\\n",
        "a\\qb\\n",
        "%5Ak|%-12TY|%+TY\\n",
    ] {
        Find::new(t.path()).args(["f", "sp", "t3", "-printf", fmt]).soft(&mut s);
    }
    Find::new(t.path()).args(["f", "-printf", "a\\"]).soft(&mut s);
    Find::new(t.path()).args(["f", "-printf", "%{"]).fails().soft(&mut s);
    Find::new(t.path()).args(["f", "-printf", "%"]).fails().soft(&mut s);
    s.done();
}

/// Item 13-15: -regextype: awk's backslashes in brackets, egrep's leniency,
/// findutils-default's dot and newline.
#[test]
fn regextypes_awk_egrep_and_findutils_default() {
    let t = Tree::new();
    for name in ["\\", "[", "*", "{l", "xx", "x{2}", "a\nb", "w"] {
        t.file_bytes(format!("w/{name}").as_bytes(), b"x");
    }
    let mut s = Soft::default();
    for (kind, re) in [
        ("awk", ".*/[\\[\\*]"),
        ("gnu-awk", ".*/[\\[\\*]"),
        ("posix-awk", ".*/[\\[\\*]"),
        ("posix-extended", ".*/[\\[\\*]"),
        ("awk", ".*/x{2}"),
        ("posix-awk", ".*/x{2}"),
        ("gnu-awk", ".*/x{2}"),
        ("awk", ".*/\\w"),
        ("gnu-awk", ".*/\\w"),
        ("egrep", "*.*/{l"),
        ("posix-egrep", "*.*/{l"),
        ("egrep", ".*/x{2}"),
        ("findutils-default", "w/a.b"),
        ("emacs", "w/a.b"),
        ("posix-basic", "w/a.b"),
        ("egrep", "w/a.b"),
    ] {
        Find::new(t.path()).args(["w", "-regextype", kind, "-regex", re]).soft(&mut s);
    }
    Find::new(t.path()).args(["w", "-regex", "w/a.b"]).soft(&mut s);
    Find::new(t.path())
        .args(["w", "-regextype", "posix-extended", "-regex", "*.*/{l"])
        .fails()
        .soft(&mut s);
    s.done();
}

/// What glibc refuses in each dialect, refused with its message; what it
/// accepts, matched as it matches.
#[test]
fn regex_errors_are_glibcs_in_every_dialect() {
    let t = Tree::new();
    for name in ["aa", "a1", "a", "{1}a", "x*", "(a", "a)", "ab"] {
        t.file(format!("w/{name}"), "x");
    }
    let patterns = [
        "*.*/{l",
        "a|*b",
        "^*",
        "(+a)",
        "a{1",
        "a{x}",
        "a{2,1}",
        "a{}",
        "a{99999}",
        "w/a{,3}b{2,}",
        "(a",
        "w/a)",
        "a\\)",
        "\\(a\\1\\)",
        "w/\\(a\\)\\1",
        "w/(a)\\1",
        "(a)\\2",
        "\\2",
        "[z-a]",
        "[[:foo:]]",
        "[a",
        "a\\",
        "[\\]]",
        "{1}a",
        "w/a**",
        "\\<*",
        ".*/x\\*",
    ];
    let mut s = Soft::default();
    for kind in
        ["posix-extended", "egrep", "awk", "gnu-awk", "posix-awk", "emacs", "findutils-default"]
    {
        for re in patterns {
            let gnu =
                Cmd::new("find", t.path()).args(["w", "-regextype", kind, "-regex", re]).run();
            let f = Find::new(t.path()).args(["w", "-regextype", kind, "-regex", re]);
            let f = if gnu.code == 0 { f } else { f.fails() };
            f.soft(&mut s);
        }
    }
    s.done();
}

/// Item 16-17: fnmatch on bytes: a lone backslash matches nothing; names that
/// are not UTF-8 match byte for byte.
#[test]
fn name_patterns_match_bytes_as_fnmatch() {
    let t = Tree::new();
    for name in [&b"\xffabc"[..], b"\xfe", b"abc", b"a\\", b"\\", b"\xc3\xa9"] {
        t.file_bytes(&[b"d/", name].concat(), b"x");
    }
    let mut s = Soft::default();
    for pat in [&b"\xff*"[..], b"\\", b"a\\", b"[\xfe\xff]*", b"?", b"??", b"*\\\\", b"[!a]*"] {
        let pat = std::ffi::OsStr::new(unsafe_os(pat));
        Find::new(t.path())
            .args([std::ffi::OsStr::new("d"), std::ffi::OsStr::new("-name"), pat])
            .soft(&mut s);
        Find::new(t.path())
            .args([std::ffi::OsStr::new("d"), std::ffi::OsStr::new("-path"), pat])
            .soft(&mut s);
    }
    s.done();
    // grep's --include and --exclude, on the same bytes.
    let grep = |args: &[&std::ffi::OsStr]| {
        let g = Cmd::grep(t.path()).args(["-r", "-l", "x", "d"]).args(args).run();
        let r = Cmd::trawl(t.path()).args(["-r", "-l", "x", "d"]).args(args).run();
        assert_eq!(sorted_records(&r.stdout, b'\n'), sorted_records(&g.stdout, b'\n'), "{args:?}");
    };
    grep(&[std::ffi::OsStr::new(unsafe_os(b"--include=\xff*"))]);
    grep(&[std::ffi::OsStr::new(unsafe_os(b"--exclude=\xff*"))]);
}

/// The bytes as an OsStr (names that are not UTF-8).
fn unsafe_os(b: &[u8]) -> &std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(b)
}

/// Item 18: Starting points are walked in order, whatever the threads do.
#[test]
fn starting_points_are_walked_in_order() {
    let t = Tree::new();
    for root in ["a", "b", "c/d", "e/f", "g"] {
        for i in 0..200 {
            t.file(format!("{root}/x/y/f{i}"), "x");
        }
    }
    let roots = ["a", "b", "c/d", "e/f", "g"];
    let gnu = Cmd::new("find", t.path()).args(roots).args(["-size", "-1000"]).run();
    for j in ["1", "2", "8", "24"] {
        for _ in 0..3 {
            let r = Cmd::trawl(t.path())
                .args(["find", "-j", j])
                .args(roots)
                .args(["-size", "-1000"])
                .run();
            r.assert_code(0);
            assert_eq!(sorted_records(&r.stdout, b'\n'), sorted_records(&gnu.stdout, b'\n'));
            // Each root's lines after all of the previous root's.
            let order: Vec<usize> = r
                .stdout_str()
                .lines()
                .map(|l| roots.iter().position(|root| l.starts_with(root)).unwrap())
                .collect();
            assert!(order.windows(2).all(|w| w[0] <= w[1]), "-j {j}: roots out of order");
        }
    }
}

/// Item 19: Nothing is printed or run after the entry that ran -quit.
#[test]
fn quit_stops_every_thread_after_the_entry_that_ran_it() {
    let t = Tree::new();
    for i in 0..400 {
        t.file(format!("q/{}/f{i}", i % 20), "x");
    }
    for j in ["1", "8", "24"] {
        for args in [
            &["q", "-type", "f", "-print", "-quit"][..],
            &["q", "-type", "f", "-exec", "echo", "{}", ";", "-quit"],
            &["q", "-name", "f1*", "-print", "-quit", "-o", "-print"],
        ] {
            for _ in 0..3 {
                let r = Cmd::trawl(t.path()).args(["find", "-j", j]).args(args).run();
                r.assert_code(0);
                let out = r.stdout_str();
                let lines: Vec<&str> = out.lines().collect();
                // The entry that ran -quit is the last line; every line before it is
                // one that did not reach -quit.
                let (last, before) = lines.split_last().expect("one entry before -quit");
                if args.contains(&"-o") {
                    let name = |l: &str| l.rsplit('/').next().unwrap().to_string();
                    assert!(name(last).starts_with("f1"), "-j {j} {args:?}: {lines:?}");
                    assert!(
                        before.iter().all(|l| !name(l).starts_with("f1")),
                        "-j {j} {args:?}: {lines:?}"
                    );
                } else {
                    assert!(before.is_empty() && last.contains("/f"), "-j {j} {args:?}: {lines:?}");
                }
            }
        }
    }
}

/// Item 20: -ls: the owner column widens for the rest of the run as GNU's.
#[test]
fn ls_columns_widen_as_gnus() {
    let t = Tree::new();
    t.file("a", "a").file("b", "b").file("c", "c");
    let owner = fs::metadata(t.path().join("a")).unwrap().uid();
    if owner != 0 {
        return; // chown needs root (CI runs as root)
    }
    std::os::unix::fs::chown(t.path().join("a"), Some(4_000_000), Some(4_000_000)).unwrap();
    let mut s = Soft::default();
    // Starting points in order: the same order in both.
    Find::new(t.path()).args(["a", "b", "c", "-ls"]).soft(&mut s);
    Find::new(t.path()).args(["b", "a", "c", "-ls"]).soft(&mut s);
    s.done();
    for order in [["a", "b", "c"], ["b", "a", "c"]] {
        let g = Cmd::new("find", t.path()).args(order).args(["-ls"]).run();
        let r = Cmd::trawl(t.path()).args(["find"]).args(order).args(["-ls"]).run();
        assert_eq!(r.stdout_str(), g.stdout_str(), "{order:?}");
    }
}

/// On one thread (`-j 1`, and always with `-ok`), entries come in GNU
/// find's order: each directory's in the order it lists them, a
/// subdirectory walked where it is met.
#[test]
fn one_thread_walks_in_the_order_gnu_find_does() {
    for args in [&["."][..], &[".", "-depth"], &[".", "-name", "*.txt", "-prune", "-o", "-print"]] {
        let (t, f) = tricky_find(args);
        let gnu = f.gnu();
        let r = Cmd::trawl(t.path()).args(["find", "-j", "1"]).args(args).run();
        assert_eq!(r.code, gnu.code, "{args:?}");
        assert_eq!(r.stdout_str(), gnu.stdout_str(), "{args:?}");
    }
}
