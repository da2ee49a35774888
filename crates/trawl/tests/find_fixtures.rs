//! Trees for the `trawl find` tests, generated in code.
//!
//! - [`tricky`]: odd names, sizes, permissions, owners, symlinks (including
//!   a loop), special files, a hard link, old and future timestamps, text and
//!   binary contents.
//! - [`unreadable`]: directories an unprivileged user cannot read or search.
//! - [`deep`]: a directory chain whose path is longer than `PATH_MAX`.
//! - [`linux`]: the Linux source tree of the benchmarks, or a generated
//!   stand-in when it is missing.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{chown, lchown, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::util::Tree;

/// Seconds in a minute, an hour, a day.
pub const MIN: i64 = 60;
pub const HOUR: i64 = 60 * MIN;
pub const DAY: i64 = 24 * HOUR;

/// The uid and gid no account has (for -nouser and -nogroup).
pub const GHOST_ID: u32 = 4242;
/// nobody / nogroup.
pub const NOBODY_ID: u32 = 65534;

/// The contents of `plain.txt` (and of its hard link `hard.txt`).
pub const PLAIN: &str = "hello world\nfoo bar\n";

fn cpath(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap()
}

/// Sets the access and modification times of `p` (not following a
/// symlink) to `atime_ago` and `mtime_ago` seconds before now (negative:
/// in the future), with a fraction of a second so that `%T@` shows it.
pub fn set_times(p: &Path, atime_ago: i64, mtime_ago: i64) {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64;
    let ts = |ago: i64| libc::timespec { tv_sec: now - ago, tv_nsec: 250_000_000 };
    let times = [ts(atime_ago), ts(mtime_ago)];
    let c = cpath(p);
    // SAFETY: a valid C string and an array of two timespecs.
    let r = unsafe {
        libc::utimensat(libc::AT_FDCWD, c.as_ptr(), times.as_ptr(), libc::AT_SYMLINK_NOFOLLOW)
    };
    assert_eq!(r, 0, "utimensat {}: {}", p.display(), std::io::Error::last_os_error());
}

pub fn chmod(p: &Path, mode: u32) {
    fs::set_permissions(p, fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {mode:o} {}: {e}", p.display()));
}

/// `mknod`; false when not permitted (no CAP_MKNOD).
fn mknod(p: &Path, kind: libc::mode_t, major: u32, minor: u32) -> bool {
    let c = cpath(p);
    // SAFETY: a valid C string.
    unsafe { libc::mknod(c.as_ptr(), kind | 0o644, libc::makedev(major, minor)) == 0 }
}

pub fn is_root() -> bool {
    // SAFETY: no arguments, no failure.
    unsafe { libc::geteuid() == 0 }
}

/// Reads every directory of the tree once, after a pause, so that the
/// first reads by the tools under test do not move directory access times
/// (`relatime` updates an access time that is not newer than the
/// modification time): both tools then see the same times.
pub fn settle_atimes(root: &Path) {
    std::thread::sleep(Duration::from_millis(30));
    fn walk(d: &Path) {
        for e in fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                walk(&e.path());
            }
        }
    }
    walk(root);
}

/// The tricky tree. Paths below are relative to its root.
///
/// ```text
/// plain.txt hard.txt(hard link)  name with spaces.txt  new\nline.txt
/// bad\xffname.txt  -dash.txt  .hidden  .hiddendir/inner.txt  empty.txt
/// empty_dir/  sizes/s{0,1,511,512,513,4096,1m}
/// perms/{p644,p755,p600,p444,p000,suid(4755),sgid(2755)} perms/sticky/(1777)
///   perms/private/(0700)/x
/// owners/{nobody,ghost(4242),mixed(0:65534)} owners/link_nobody -> ../plain.txt
/// links/{to_file -> ../plain.txt, to_dir -> ../sub, dangling -> ../nowhere}
/// sub/up -> ..  sub/deeper/{file.c,notes.md}
/// special/{fifo,socket,chr(1,3),blk(7,0)}
/// times/{ref(1 h),old3d,old2h,old40m,old1y,acc_old(atime 10 d),future(+1 d)}
///   times/oldlink -> old3d (the link itself 5 days old)
/// content/{bin.dat,nul8191.dat,nul8192.dat,text1.txt,text2.txt,crlf.txt,
///   nonl.txt,utf8.txt}
/// ```
pub fn tricky() -> Tree {
    let t = Tree::new();
    let p = |rel: &str| t.path().join(rel);
    t.file("plain.txt", PLAIN)
        .file("name with spaces.txt", "spaces here\nfoo\n")
        .file("new\nline.txt", "newline name\n")
        .file_bytes(b"bad\xffname.txt", "bytes name\nfoo\n")
        .file("-dash.txt", "dash\n")
        .file(".hidden", "hidden\n")
        .file(".hiddendir/inner.txt", "inner foo\n")
        .file("empty.txt", "")
        .dir("empty_dir");
    fs::hard_link(p("plain.txt"), p("hard.txt")).unwrap();

    for (name, n) in [
        ("s0", 0),
        ("s1", 1),
        ("s511", 511),
        ("s512", 512),
        ("s513", 513),
        ("s4096", 4096),
        ("s1m", 1 << 20),
    ] {
        t.file(format!("sizes/{name}"), vec![b'x'; n]);
    }

    for (name, mode) in [
        ("p644", 0o644),
        ("p755", 0o755),
        ("p600", 0o600),
        ("p444", 0o444),
        ("p000", 0o000),
        ("suid", 0o4755),
        ("sgid", 0o2755),
    ] {
        t.file(format!("perms/{name}"), format!("{name}\n"));
        chmod(&p(&format!("perms/{name}")), mode);
    }
    t.dir("perms/sticky").file("perms/sticky/in_sticky", "s\n");
    chmod(&p("perms/sticky"), 0o1777);
    t.file("perms/private/x", "x\n");
    chmod(&p("perms/private"), 0o700);

    t.file("owners/nobody", "n\n").file("owners/ghost", "g\n").file("owners/mixed", "m\n");
    t.symlink("../plain.txt", "owners/link_nobody");
    if is_root() {
        chown(p("owners/nobody"), Some(NOBODY_ID), Some(NOBODY_ID)).unwrap();
        chown(p("owners/ghost"), Some(GHOST_ID), Some(GHOST_ID)).unwrap();
        chown(p("owners/mixed"), Some(0), Some(NOBODY_ID)).unwrap();
        lchown(p("owners/link_nobody"), Some(NOBODY_ID), Some(NOBODY_ID)).unwrap();
    }

    t.symlink("../plain.txt", "links/to_file")
        .symlink("../sub", "links/to_dir")
        .symlink("../nowhere", "links/dangling")
        .file("sub/deeper/file.c", "int main(void) { return 0; }\n")
        .file("sub/deeper/notes.md", "# Notes\nTODO: more\n")
        .symlink("..", "sub/up");

    t.dir("special").fifo("special/fifo");
    let sock = std::os::unix::net::UnixListener::bind(p("special/socket")).unwrap();
    drop(sock);
    // Device nodes need CAP_MKNOD; without it the tree has none (the
    // -type b/c tests also run on /dev).
    let _ = mknod(&p("special/chr"), libc::S_IFCHR, 1, 3)
        && mknod(&p("special/blk"), libc::S_IFBLK, 7, 0);

    t.file("times/ref", "ref\n")
        .file("times/old3d", "3 days\n")
        .file("times/old2h", "2 hours\n")
        .file("times/old40m", "40 minutes\n")
        .file("times/old1y", "a year\n")
        .file("times/acc_old", "read long ago\n")
        .file("times/future", "tomorrow\n")
        .symlink("old3d", "times/oldlink");
    // Well away from the minute and day boundaries of -mmin and -mtime.
    set_times(&p("times/ref"), HOUR, HOUR);
    set_times(&p("times/old3d"), 3 * DAY + HOUR, 3 * DAY + HOUR);
    set_times(&p("times/old2h"), 2 * HOUR + 10 * MIN, 2 * HOUR + 10 * MIN);
    set_times(&p("times/old40m"), 40 * MIN + 30, 40 * MIN + 30);
    set_times(&p("times/old1y"), 400 * DAY, 400 * DAY);
    set_times(&p("times/acc_old"), 10 * DAY + HOUR, 0);
    set_times(&p("times/future"), -DAY - HOUR, -DAY - HOUR);
    set_times(&p("times/oldlink"), 5 * DAY + HOUR, 5 * DAY + HOUR);

    let mut nul8191 = vec![b'a'; 8191];
    nul8191.extend_from_slice(b"\0tail\n");
    let mut nul8192 = vec![b'a'; 8192];
    nul8192.extend_from_slice(b"\0tail\n");
    t.file("content/bin.dat", b"abc\0def\nfoo bar\n")
        .file("content/nul8191.dat", nul8191)
        .file("content/nul8192.dat", nul8192)
        .file("content/text1.txt", "fn main() {\n    println!(\"hi\");\n}\n")
        .file("content/text2.txt", "TODO: fix this\nFIXME later\nfoo\n")
        .file("content/crlf.txt", "line one\r\nline two\r\n")
        .file("content/nonl.txt", "no newline at end")
        .file("content/utf8.txt", "h\u{e9}llo w\u{f6}rld\n");

    settle_atimes(t.path());
    t
}

/// Names for regular-expression dialects: operators as literal characters.
pub fn regex_names() -> Tree {
    let t = Tree::new();
    for name in [
        "a+b",
        "a.b",
        "aab",
        "ab",
        "x{2}",
        "xx",
        "a|b",
        "(g)",
        "g",
        "a?b",
        "sub dir/Word_1",
        "sub dir/w-2",
    ] {
        t.file(name, "");
    }
    settle_atimes(t.path());
    t
}

/// Symlinks that resolve to themselves (`ELOOP`): `self -> self`,
/// `ping -> pong -> ping`, and `dir/` with `to_self -> ../self`. Kept out of
/// the tricky tree so that one bug does not fail every `-L` test there.
pub fn self_loops() -> Tree {
    let t = Tree::new();
    t.file("a.txt", "a\n")
        .symlink("self", "self")
        .symlink("pong", "ping")
        .symlink("ping", "pong")
        .symlink("../self", "dir/to_self")
        .symlink("../a.txt", "dir/to_a");
    settle_atimes(t.path());
    t
}

/// A world-readable tree, made for uid 65534, with:
/// `locked/` (000), `ok/sub/locked2/` (000), `noexec/` (0644: readable,
/// not searchable), `nor/` (0311: searchable, not readable), files of mode
/// 000, 0444, 0622, 0755 and one owned by nobody (0600).
pub fn unreadable() -> Tree {
    let t = Tree::new();
    let p = |rel: &str| t.path().join(rel);
    t.file("top.txt", "top\n")
        .file("ok/a.txt", "a\n")
        .file("ok/sub/c.txt", "c\n")
        .file("ok/sub/locked2/hidden.txt", "h\n")
        .file("locked/secret.txt", "s\n")
        .dir("locked/inner")
        .file("noexec/x.txt", "x\n")
        .file("nor/known.txt", "k\n")
        .file("f000", "0\n")
        .file("f444", "4\n")
        .file("f622", "6\n")
        .file("f755", "7\n")
        .file("mine", "nobody's\n")
        .dir("empty_dir");
    chown(p("mine"), Some(NOBODY_ID), Some(NOBODY_ID)).unwrap();
    for (rel, mode) in [
        ("f000", 0o000),
        ("f444", 0o444),
        ("f622", 0o622),
        ("f755", 0o755),
        ("mine", 0o600),
        ("locked", 0o000),
        ("ok/sub/locked2", 0o000),
        ("noexec", 0o644),
        ("nor", 0o311),
    ] {
        chmod(&p(rel), mode);
    }
    // tempfile makes the root 0700.
    chmod(t.path(), 0o755);
    settle_atimes(t.path());
    t
}

/// The name of each level of the deep tree (100 bytes with the slash).
fn deep_component(i: usize) -> String {
    format!("deep{i:03}_{}", "d".repeat(92))
}

/// A chain of 60 directories (a 6000-byte path, more than PATH_MAX), made
/// with mkdirat/openat relative to the previous level, with `file{i}.txt`
/// at every tenth level, an empty directory at the bottom and `top.txt`.
/// Returns the tree and the relative path of the deepest directory.
pub fn deep() -> (Tree, PathBuf) {
    let t = Tree::new();
    t.file("top.txt", "top\n");
    let root = cpath(t.path());
    // SAFETY: plain libc calls on valid C strings and descriptors we own.
    unsafe {
        let mut fd = libc::open(root.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
        assert!(fd >= 0);
        let mut rel = PathBuf::new();
        for i in 0..60 {
            let name = CString::new(deep_component(i)).unwrap();
            assert_eq!(libc::mkdirat(fd, name.as_ptr(), 0o755), 0, "mkdirat at level {i}");
            let next = libc::openat(fd, name.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY);
            assert!(next >= 0, "openat at level {i}");
            libc::close(fd);
            fd = next;
            rel.push(deep_component(i));
            if i % 10 == 9 {
                let f = CString::new(format!("file{i}.txt")).unwrap();
                let ffd = libc::openat(fd, f.as_ptr(), libc::O_WRONLY | libc::O_CREAT, 0o644);
                assert!(ffd >= 0);
                let body = format!("level {i}\n");
                assert_eq!(libc::write(ffd, body.as_ptr().cast(), body.len()), body.len() as isize);
                libc::close(ffd);
            }
        }
        let e = CString::new("empty_bottom").unwrap();
        assert_eq!(libc::mkdirat(fd, e.as_ptr(), 0o755), 0);
        libc::close(fd);
        assert!(rel.as_os_str().len() > 4096);
        (t, rel)
    }
}

/// Where the Linux tree of the benchmarks lives.
pub fn linux_corpus() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let p = Path::new(&home).join(".cache/trawl-bench/linux");
    p.join("drivers/net").is_dir().then_some(p)
}

/// The Linux tree, or (when the corpus is missing, as in CI before the
/// benchmarks' setup) a generated tree of about 3500 entries with the same
/// top-level layout: `drivers/net/...`, `include/...`, `Makefile`, links.
/// The second value keeps a generated tree alive.
pub fn linux() -> (PathBuf, Option<Tree>) {
    if let Some(p) = linux_corpus() {
        return (p, None);
    }
    eprintln!(
        "note: $HOME/.cache/trawl-bench/linux is missing: the Linux-tree tests run on a \
         generated tree of about 3500 entries instead"
    );
    let t = Tree::new();
    t.file("Makefile", "all:\n\t@true\n").file("README", "Linux stand-in\n");
    let exts = ["c", "h", "txt", "S", "rst"];
    for d in 0..12 {
        for s in 0..6 {
            let dir = if d < 6 {
                format!("drivers/net/dev{d}/part{s}")
            } else {
                format!("arch/a{d}/include/sub{s}")
            };
            t.dir(&dir);
            for f in 0..45 {
                let ext = exts[f % exts.len()];
                let mut body = format!("/* {dir} {f} */\n");
                if f % 7 == 0 {
                    body += "MODULE_LICENSE(\"GPL v2\");\n";
                }
                if f % 11 == 0 {
                    body += "EXPORT_SYMBOL_GPL(thing);\n";
                }
                for l in 0..(f * 40) {
                    body += &format!("static int line_{l} = {l};\n");
                }
                let mut bytes = body.into_bytes();
                if f % 13 == 0 {
                    bytes.extend_from_slice(b"\0binary\0");
                }
                t.file(format!("{dir}/file_{f}.{ext}"), bytes);
            }
        }
        t.dir(format!("drivers/net/empty{d}"));
    }
    t.file("drivers/net/Makefile", "obj-y += dev0/\n")
        .file("drivers/net/Kconfig", "config NET\n")
        .file("include/linux/net.h", "#define NET 1\n")
        .symlink("../../include/linux/net.h", "drivers/net/net.h")
        .symlink("dev0", "drivers/net/dev_link");
    let p = t.path().to_owned();
    (p, Some(t))
}
