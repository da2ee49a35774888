//! Deterministic fixture trees, generated in code.

use std::fs;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use crate::util::Tree;

/// The main text file: a line for each pattern semantic the tests exercise.
pub const A_TXT: &str = "foo
Foo bar
foobar
foo bar baz
FOO
the word wordy words sword
x = x
y = z
count = count1
val=val
struct Point { x: i32 }
struct  Spaced;

   \t  
a b
a\tb
a
 b
-foo at start
pre-foo-post
xfoo
x-foo
axxxb xx
end
";

/// A file for context options: matches at lines 3, 5, 6, 12, 20 and 29 of 30.
pub fn ctx_text() -> String {
    let mut s = String::new();
    for i in 1..=30 {
        if [3, 5, 6, 12, 20, 29].contains(&i) {
            s += &format!("line {i} match\n");
        } else {
            s += &format!("line {i}\n");
        }
    }
    s
}

/// A small tree of text files: nested and hidden directories, dotfiles,
/// CRLF endings, a last line without newline, empty files, UTF-8 and
/// invalid UTF-8, a name with spaces.
pub fn basic() -> Tree {
    let t = Tree::new();
    t.file("a.txt", A_TXT)
        .file("ctx.txt", ctx_text())
        .file("sub/b.c", "int foo(void) {\n  return 0;\n}\n#include <stdio.h>\n")
        .file("sub/d.c", "int main() { foo(); foo(); }\n/* foobar */\n")
        .file("sub/deep/c.h", "#define FOO 1\nstatic inline int foo_bar(int x);\n")
        .file("other/e.rs", "fn foo() {}\nlet a = a;\nword\n")
        .file(".hidden/h.txt", "hidden foo\n")
        .file(".dotfile", "dot foo\nwordsmith\n")
        .file("empty.txt", "")
        .dir("empty_dir")
        .file("crlf.txt", "foo\r\nbar\r\n\r\nfoo bar\r\nend foo\r\n")
        .file("no_newline.txt", "first foo\nmiddle\nlast foo")
        .file("utf8.txt", "h\u{e9}llo w\u{f6}rld foo\nna\u{ef}ve caf\u{e9} CAF\u{c9}\n\u{65e5}\u{672c}\u{8a9e} foo\n")
        .file("invalid_utf8.txt", b"bad \xff\xfe foo\n\xc3( word\nok\n")
        .file("name with spaces.txt", "foo in spaces\n");
    t
}

/// Files for -F (regex metacharacters taken literally) and -G (BRE).
pub fn literal() -> Tree {
    let t = Tree::new();
    t.file(
        "meta.txt",
        "a.b\naxb\n(x)\nx\n[abc]\n\\d+\n123\nfoo\nFOO foo\nfoofoo\na{2}\naa\naaa\nabab\nab\n(ab)\nab+\nabb\n^start\n$end\n",
    )
    .file("sub/more.txt", "a.b again\nnothing\nfoo.\n");
    t
}

/// Binary files with an early NUL, and a text file.
pub fn binary() -> Tree {
    let t = Tree::new();
    t.file("nul_early.bin", b"\0foo\nfoo bar\nbaz\0qux\0foo\nend\n")
        .file("nul_nomatch.bin", b"\0\x01\x02 nothing here\n")
        .file("sub/nul_mid.bin", b"text foo\nmore\0foo\n")
        .file("text.txt", "foo text\nbar\n");
    t
}

/// One file with its first NUL after 300 KB of text.
pub fn binary_late() -> Tree {
    let t = Tree::new();
    t.file("nul_late.bin", nul_late());
    t
}

/// 300 KB of lines ("foo" on every 1000th) followed by a NUL and more matches.
pub fn nul_late() -> Vec<u8> {
    let mut s = Vec::new();
    let mut i = 0;
    while s.len() < 300 * 1024 {
        if i % 1000 == 0 {
            s.extend_from_slice(format!("line {i} foo\n").as_bytes());
        } else {
            s.extend_from_slice(format!("line {i} text\n").as_bytes());
        }
        i += 1;
    }
    s.extend_from_slice(b"tail\0foo after nul\nlast foo\n");
    s
}

/// Appends filler lines, then one padding line, so that `s` ends exactly at `target`.
fn pad_to(s: &mut Vec<u8>, target: usize, n: &mut usize) {
    assert!(s.len() + 100 <= target, "boundary layout overlaps");
    while target - s.len() > 100 {
        s.extend_from_slice(format!("filler {n:06}\n").as_bytes());
        *n += 1;
    }
    let r = target - s.len();
    s.resize(s.len() + r - 1, b'z');
    s.push(b'\n');
    debug_assert_eq!(s.len(), target);
}

/// Offsets where buffers commonly end.
pub const KIB: usize = 1024;

/// A file of many lines with "needle" near buffer-size boundaries: across
/// 64 KiB, starting a line at 128 KiB, ending a line at 256 KiB, across
/// 1 MiB, and as the last bytes of the file.
pub fn boundaries() -> Vec<u8> {
    let mut s = Vec::new();
    let mut n = 0;
    pad_to(&mut s, 64 * KIB - 3 - 5, &mut n);
    s.extend_from_slice(b"pre: needle across 64k\n");
    pad_to(&mut s, 128 * KIB, &mut n);
    s.extend_from_slice(b"needle at 128k line start\n");
    pad_to(&mut s, 256 * KIB - 12, &mut n);
    s.extend_from_slice(b"ends needle\n");
    pad_to(&mut s, 512 * KIB - 1, &mut n);
    s.extend_from_slice(b"\nneedle after empty line at 512k\n");
    pad_to(&mut s, 1024 * KIB - 2 - 4, &mut n);
    s.extend_from_slice(b"pre needle across 1m\n");
    pad_to(&mut s, 1024 * KIB + 64 * KIB, &mut n);
    s.extend_from_slice(b"last needle");
    s
}

/// Case-blind literals (`-i`): spellings in every case, bytes one bit away
/// from a letter's other case (`_` is `\x7f` less 0x20, `\xd0` is `P` plus
/// 0x80), and matches on both sides of every 16- and 32-byte edge.
pub fn folded() -> Tree {
    let t = Tree::new();
    let mut edges = Vec::new();
    for pad in 0..70 {
        edges.extend(std::iter::repeat_n(b'.', pad));
        edges.extend_from_slice(if pad % 2 == 0 { b"Pm_Resume" } else { b"pM_rESUME" });
        edges.extend(std::iter::repeat_n(b'-', 70 - pad));
        edges.push(b'\n');
    }
    t.file("edges.txt", edges)
        .file(
            "near.txt",
            b"pm\x7fresume\n\xd0m_resume\npm_resum\nPM_RESUMEPM_resume x pm_ReSuMe\n_1 _1\n",
        )
        .file("words.txt", "xpm_resume\npm_resume_\n(pm_resume)\nPM_RESUME2\n")
        .file("tail.txt", "line\nends with PM_resume");
    t
}

/// Big files: the boundary file and a 2 MB single line with matches at both ends.
pub fn big() -> Tree {
    let t = Tree::new();
    let mut long = b"needle start ".to_vec();
    let mut i = 0u32;
    while long.len() < 2 * 1024 * KIB {
        long.extend_from_slice(format!("w{i} ").as_bytes());
        i += 1;
    }
    long.extend_from_slice(b"needle end\n");
    t.file("boundaries.txt", boundaries()).file("long_line.txt", long);
    t
}

/// Unusual file names: spaces, a newline, non-UTF-8 bytes, a leading dash, a colon.
pub fn odd_names() -> Tree {
    let t = Tree::new();
    t.file("name with spaces.txt", "needle spaces\n")
        .file("new\nline.txt", "needle newline\n")
        .file_bytes(b"bad\xffname\xfe.txt", "needle bytes\n")
        .file("-dash.txt", "needle dash\n")
        .file("colon:name.txt", "needle colon\n")
        .file("dir with space/inner.txt", "needle inner\nno\n")
        .file("plain.txt", "nothing\n");
    t
}

/// The name of each level of the deep tree (90 bytes with the slash).
fn deep_component(i: usize) -> String {
    format!("level{i:03}_{}", "d".repeat(80))
}

/// A directory chain whose path is longer than 4096 bytes, made one
/// relative mkdir at a time (through /proc/self/fd, so no long path is ever
/// passed to the kernel), with a file at the bottom and one at the top.
pub fn deep() -> (Tree, PathBuf) {
    let t = Tree::new();
    t.file("top.txt", "needle top\n");
    let levels = 50;
    let mut dir = fs::File::open(t.path()).unwrap();
    let mut rel = PathBuf::new();
    for i in 0..levels {
        let name = deep_component(i);
        let at = PathBuf::from(format!("/proc/self/fd/{}/{}", dir.as_raw_fd(), name));
        fs::create_dir(&at).unwrap();
        dir = fs::File::open(&at).unwrap();
        rel.push(name);
    }
    let file = PathBuf::from(format!("/proc/self/fd/{}/bottom.txt", dir.as_raw_fd()));
    fs::write(file, "needle bottom\nnot here\n").unwrap();
    rel.push("bottom.txt");
    assert!(rel.as_os_str().len() > 4096);
    (t, rel)
}

/// Symbolic links: to a file, to a directory, a relative one given on the
/// command line, and targets inside the tree.
pub fn links() -> Tree {
    let t = Tree::new();
    t.file("real/file.txt", "needle real\n")
        .file("real/sub/inner.txt", "needle inner\n")
        .file("plain.txt", "needle plain\n")
        .symlink("real/file.txt", "link_to_file")
        .symlink("real", "link_to_dir")
        .symlink("../../plain.txt", "real/sub/up_link.txt");
    t
}

/// A tree with a symlink loop (`real/sub/cycle` points back at `real`).
pub fn symlink_loop() -> Tree {
    let t = Tree::new();
    t.file("real/file.txt", "needle real\n")
        .file("real/sub/inner.txt", "needle inner\n")
        .file("plain.txt", "needle plain\n")
        .symlink("..", "real/sub/cycle");
    t
}

/// A tree with named pipes that no one writes to.
pub fn fifos() -> Tree {
    let t = Tree::new();
    t.file("a.txt", "needle a\n").file("sub/b.txt", "needle b\n");
    t.fifo("pipe").fifo("sub/pipe2");
    t
}

/// Files ignored by .gitignore / .ignore, and a .git directory.
pub fn ignores() -> Tree {
    let t = Tree::new();
    t.file(".gitignore", "ignored.txt\n*.log\n!important.log\nbuild/\n/rootonly.txt\n")
        .file(".ignore", "secret.txt\n")
        .file(".git/config", "needle in git config\n")
        .file("kept.txt", "needle kept\n")
        .file(".hidden.txt", "needle hidden\n")
        .file("ignored.txt", "needle ignored\n")
        .file("x.log", "needle log\n")
        .file("important.log", "needle important\n")
        .file("build/out.txt", "needle build\n")
        .file("secret.txt", "needle secret\n")
        .file("sub/.gitignore", "local.txt\n!special.log\n")
        .file("sub/special.log", "needle special\n")
        .file("rootonly.txt", "needle rootonly\n")
        .file("sub/rootonly.txt", "needle sub rootonly\n")
        .file("sub/local.txt", "needle local\n")
        .file("sub/kept2.txt", "needle kept2\n")
        .file("other/local.txt", "needle other local\n");
    t
}
