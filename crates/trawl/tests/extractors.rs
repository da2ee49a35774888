//! `--docs` beyond PDFs: PostScript, DVI and legacy Word/Excel files
//! through their tools (compared with `TOOL < FILE | grep`), and the
//! extractors a user configures (`extractors.toml`).

use std::path::{Path, PathBuf};

use crate::extract::sh;
use crate::util::{lines, Cmd, Tree};

const PATTERNS: [&str; 3] =
    ["package", "Dijkstra", r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)"];

/// A checked-in document (made once with LibreOffice and TeX).
fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A PostScript program that shows `lines`, one per row, on one page.
fn postscript(lines: &[&str]) -> Vec<u8> {
    let mut ps = String::from("%!PS-Adobe-3.0\n/Helvetica findfont 12 scalefont setfont\n");
    for (i, line) in lines.iter().enumerate() {
        let escaped = line.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
        ps.push_str(&format!("72 {} moveto ({escaped}) show\n", 740 - 14 * i));
    }
    ps.push_str("showpage\n");
    ps.into_bytes()
}

/// `text` through GNU grep -n for `pattern`, each line after `name` (and
/// `#page=N` when `paged`: the page is one more than the form feeds before
/// the line's text).
fn grep_named(dir: &Path, pattern: &str, text: &[u8], name: &str, paged: bool) -> Vec<u8> {
    let run = Cmd::grep(dir).args(["-P", "-a", "-n", "-e", pattern]).stdin(text).run();
    let all = lines(text);
    let mut starts = Vec::new();
    let mut at = 0;
    for l in &all {
        starts.push(at);
        at += l.len() + 1;
    }
    let mut out = Vec::new();
    for line in lines(&run.stdout) {
        let colon = line.iter().position(|&b| b == b':').unwrap();
        let n: usize = std::str::from_utf8(&line[..colon]).unwrap().parse().unwrap();
        out.extend_from_slice(name.as_bytes());
        if paged {
            let start = starts[n - 1];
            let lead = text[start..].iter().take_while(|&&b| b == b'\x0c').count();
            let page = 1 + text[..start + lead].iter().filter(|&&b| b == b'\x0c').count();
            out.extend_from_slice(format!("#page={page}").as_bytes());
        }
        out.push(b':');
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// What `program args < file` writes.
fn tool_text(dir: &Path, file: &str, program: &str, args: &[&str]) -> Vec<u8> {
    let input = std::fs::File::open(dir.join(file)).unwrap();
    let out = std::process::Command::new(program)
        .args(args)
        .stdin(input)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program} (installed by .ci/deps): {e}"));
    assert!(out.status.success(), "{program} < {file}");
    out.stdout
}

const GS: [&str; 8] =
    ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=txtwrite", "-o", "-", "-"];

fn document_tree() -> Tree {
    let t = Tree::new();
    t.file_bytes(
        b"w/figure.ps",
        postscript(&[
            "A PostScript page about the package manager.",
            "Dijkstra wrote to ewd@cs.example.org.",
            "plain text",
        ]),
    );
    t.file_bytes(b"w/pages.dvi", data("pages.dvi"));
    t.file_bytes(b"w/word.doc", data("word.doc"));
    t.file_bytes(b"w/sheet.xls", data("sheet.xls"));
    let w = t.path().join("w");
    sh(&w, "tar", &["-czf", "../docs.tgz", "pages.dvi", "word.doc"]);
    sh(&w, "gzip", &["-k", "figure.ps"]);
    t
}

#[test]
fn postscript_dvi_and_legacy_office_text_is_what_their_tools_give_grep() {
    let t = document_tree();
    let w = t.path().join("w");
    let ps = tool_text(&w, "figure.ps", "gs", &GS);
    let dvi = tool_text(&w, "pages.dvi", "catdvi", &[]);
    let doc = tool_text(&w, "word.doc", "catdoc", &["-w"]);
    let xls = tool_text(&w, "sheet.xls", "xls2csv", &["/dev/stdin"]);
    assert!(dvi.contains(&b'\x0c'), "catdvi ends pages with form feeds");
    for p in PATTERNS {
        let mut want = grep_named(&w, p, &dvi, "docs.tgz{pages.dvi}", true);
        want.extend(grep_named(&w, p, &doc, "docs.tgz{word.doc}", false));
        want.extend(grep_named(&w, p, &ps, "w/figure.ps", false));
        want.extend(grep_named(&w, p, &ps, "w/figure.ps.gz", false));
        want.extend(grep_named(&w, p, &dvi, "w/pages.dvi", true));
        want.extend(grep_named(&w, p, &xls, "w/sheet.xls", false));
        want.extend(grep_named(&w, p, &doc, "w/word.doc", false));
        assert!(!want.is_empty(), "{p}");
        let got =
            t.trawl().args(["--docs", "--sort", "path", "-n", "-e", p, "docs.tgz", "w"]).run();
        got.assert_code(0).assert_no_stderr().assert_stdout(&want);
    }
    // Without --docs they are bytes, as grep reads them.
    let files = ["w/figure.ps", "w/figure.ps.gz", "w/pages.dvi", "w/sheet.xls", "w/word.doc"];
    let raw = Cmd::grep(t.path()).args(["-c", "-a", "showpage"]).args(files).run();
    let got = t.trawl().args(["--sort", "path", "-c", "-a", "showpage", "w"]).run();
    got.assert_stdout(&raw.stdout);
}

#[test]
fn find_tells_document_kinds_by_their_bytes() {
    let t = document_tree();
    t.file("w/notes.doc", "a text file named .doc\n");
    let got = t.trawl().args(["find", "w", "-kind", "document", "-print"]).run();
    let mut found = lines(&got.stdout);
    found.sort();
    let want: Vec<&[u8]> = vec![b"w/figure.ps", b"w/pages.dvi", b"w/sheet.xls", b"w/word.doc"];
    assert_eq!(found, want);
    let ole = t.trawl().args(["find", "w", "-kind", "ole", "-name", "*.doc"]).run();
    ole.assert_code(0).assert_stdout("w/word.doc\n");
    // -docs: -contains sees the text a tool makes.
    let contains =
        t.trawl().args(["find", "w", "-docs", "-contains", "ewd@cs", "-name", "*.doc"]).run();
    contains.assert_code(0).assert_stdout("w/word.doc\n");
}

#[test]
fn an_ole_file_that_is_no_word_or_excel_document_is_searched_as_bytes() {
    let t = Tree::new();
    // A compound file whose only stream is not Word's or Excel's.
    let mut other = cfb_file("Contents", b"a compound file with a needle stream");
    t.file_bytes(b"other.msi", &other);
    // A damaged one (its header only) is reported; the search goes on.
    other.truncate(512);
    t.file_bytes(b"damaged.doc", &other);
    t.file("b.txt", "needle\n");
    let got = t.trawl().args(["--docs", "--sort", "path", "-c", "needle", "."]).run();
    got.assert_code(2).assert_stdout("./b.txt:1\n./other.msi:1\n");
    let err = got.stderr_str();
    assert!(err.starts_with("trawl: ./damaged.doc: damaged OLE2 compound file: "), "{err}");
    assert!(
        err.ends_with("trawl: text not extracted from 1 file or member (each named above)\n"),
        "{err}"
    );
}

/// A minimal OLE2 compound file with one stream `name` holding `data`
/// (under 4096 bytes: a mini stream), written by hand.
fn cfb_file(name: &str, data: &[u8]) -> Vec<u8> {
    assert!(data.len() < 4096);
    const FREE: u32 = 0xFFFF_FFFF;
    const END: u32 = 0xFFFF_FFFE;
    const FAT: u32 = 0xFFFF_FFFD;
    let le16 = |v: u16| v.to_le_bytes();
    let le32 = |v: u32| v.to_le_bytes();
    // Sectors: 0 FAT, 1 directory, 2 mini FAT, 3 mini stream (64-byte mini sectors).
    let mini_sectors = data.len().div_ceil(64) as u32;
    let mut header = Vec::new();
    header.extend_from_slice(&[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    header.extend_from_slice(&[0; 16]);
    header.extend_from_slice(&le16(0x003e));
    header.extend_from_slice(&le16(3));
    header.extend_from_slice(&le16(0xfffe));
    header.extend_from_slice(&le16(9));
    header.extend_from_slice(&le16(6));
    header.extend_from_slice(&[0; 6]);
    header.extend_from_slice(&le32(0)); // directory sectors (0 for v3)
    header.extend_from_slice(&le32(1)); // FAT sectors
    header.extend_from_slice(&le32(1)); // first directory sector
    header.extend_from_slice(&le32(0)); // transaction
    header.extend_from_slice(&le32(4096)); // mini stream cutoff
    header.extend_from_slice(&le32(2)); // first mini FAT sector
    header.extend_from_slice(&le32(1)); // mini FAT sectors
    header.extend_from_slice(&le32(END)); // first DIFAT sector
    header.extend_from_slice(&le32(0)); // DIFAT sectors
    header.extend_from_slice(&le32(0)); // DIFAT[0]: the FAT is sector 0
    while header.len() < 512 {
        header.extend_from_slice(&le32(FREE));
    }
    let mut fat = Vec::new();
    for v in [FAT, END, END, END] {
        fat.extend_from_slice(&le32(v));
    }
    fat.resize(512, 0xff);
    let entry = |name: &str, kind: u8, child: u32, start: u32, size: u32| {
        let mut e = Vec::new();
        let units: Vec<u16> = name.encode_utf16().chain([0]).collect();
        for u in &units {
            e.extend_from_slice(&le16(*u));
        }
        e.resize(64, 0);
        e.extend_from_slice(&le16((units.len() * 2) as u16));
        e.push(kind);
        e.push(1); // black
        e.extend_from_slice(&le32(FREE)); // left
        e.extend_from_slice(&le32(FREE)); // right
        e.extend_from_slice(&le32(child));
        e.resize(116, 0);
        e.extend_from_slice(&le32(start));
        e.extend_from_slice(&le32(size));
        e.extend_from_slice(&le32(0));
        e
    };
    let mut dir = entry("Root Entry", 5, 1, 3, mini_sectors * 64);
    dir.extend(entry(name, 2, FREE, 0, data.len() as u32));
    dir.resize(512, 0);
    // Unused directory entries must be empty (type 0) with no siblings.
    for i in 2..4 {
        let e = &mut dir[i * 128..(i + 1) * 128];
        e[68..80].copy_from_slice(&[0xff; 12]);
    }
    let mut minifat = Vec::new();
    for i in 0..mini_sectors {
        minifat.extend_from_slice(&le32(if i + 1 == mini_sectors { END } else { i + 1 }));
    }
    minifat.resize(512, 0xff);
    let mut mini = data.to_vec();
    mini.resize(512, 0);
    [header, fat, dir, minifat, mini].concat()
}

/// An executable script `bin/NAME` running `body`, for configured tools.
fn script(t: &Tree, name: &str, body: &str) -> PathBuf {
    let rel = format!("bin/{name}");
    t.file(&rel, format!("#!/bin/sh\n{body}\n"));
    let path = t.path().join(rel);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A configuration file in the tree; returns its path.
fn config(t: &Tree, text: &str) -> String {
    t.file("extractors.toml", text);
    t.path().join("extractors.toml").display().to_string()
}

const ROT13: &str = "tr 'A-Za-z' 'N-ZA-Mn-za-m'";

fn rot13(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a' + 13) % 26) + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A' + 13) % 26) + b'A') as char,
            _ => c,
        })
        .collect()
}

#[test]
fn configured_extractors_read_the_files_they_claim_by_name_or_bytes() {
    let t = Tree::new();
    let log = t.path().join("runs.log").display().to_string();
    let paths = t.path().join("paths.log");
    // By first bytes, the document on standard input.
    let magic = script(&t, "unrot", &format!("echo run >> '{log}'\n{ROT13}"));
    // By name, the document's path as an argument (logged: the text must
    // not depend on it, since a cached text serves every copy of the bytes).
    let named = script(
        &t,
        "unrot-path",
        &format!(
            "echo run >> '{log}'\nprintf '%s\\n' \"$1\" >> '{}'\n{ROT13} < \"$1\"",
            paths.display()
        ),
    );
    let cfg = config(
        &t,
        &format!(
            "[[extractor]]\nname = 'rot-magic'\nmagic = 'EBG13:'\ncommand = ['{}']\n\n\
             [[extractor]]\nname = 'rot-name'\nglob = '*.rot'\ncommand = ['{}', '{{}}']\n",
            magic.display(),
            named.display()
        ),
    );
    t.file("d/a.txt", format!("EBG13:\n{}\n", rot13("the secret needle")));
    t.file("d/b.rot", format!("{}\n", rot13("another needle")));
    t.file("-n.rot", format!("{}\n", rot13("dash needle")));
    sh(&t.path().join("d"), "tar", &["-cf", "../m.tar", "b.rot"]);
    let run = |args: &[&str]| t.trawl().env("TRAWL_EXTRACTORS", &cfg).args(args).run();
    let args = ["--docs", "--sort", "path", "needle", "--", "-n.rot", "d", "m.tar"];
    // Without the cache, every document's tool runs.
    let got = run(&[&["--no-cache"][..], &args].concat());
    got.assert_code(0).assert_no_stderr().assert_stdout(
        "-n.rot:dash needle\nd/a.txt:the secret needle\nd/b.rot:another needle\nm.tar{b.rot}:another needle\n",
    );
    let runs = || std::fs::read_to_string(&log).map_or(0, |s| s.lines().count());
    assert_eq!(runs(), 4);
    let given = std::fs::read_to_string(&paths).unwrap();
    let mut given: Vec<&str> = given.lines().collect();
    given.sort();
    // A name that starts with a dash is never taken for an option; a
    // member is handed over as a private copy with its extension, outside
    // the tree, gone once the tool ended.
    assert_eq!(given.len(), 3, "{given:?}");
    let at = given.iter().position(|p| p.starts_with('/')).expect("the member's copy");
    let copy = given.remove(at);
    assert_eq!(given, ["./-n.rot", "d/b.rot"]);
    assert!(copy.ends_with(".rot") && copy.starts_with('/'), "{copy}");
    assert!(!copy.starts_with(&t.path().display().to_string()), "{copy}");
    assert!(!Path::new(copy).exists(), "{copy} left behind");
    // Without --docs the files are bytes.
    run(&["-r", "-c", "needle", "d"]).assert_code(1);
    // The text is cached: once filled, a search starts no process.
    run(&args).assert_code(0).assert_stdout(&got.stdout);
    let filled = runs();
    run(&args).assert_code(0).assert_stdout(&got.stdout);
    assert_eq!(runs(), filled, "a cached text was extracted again");
    // trawl extractors lists them first, in order, with their programs.
    let listed = run(&["extractors"]);
    listed.assert_code(0).assert_no_stderr();
    let listing = listed.stdout_str();
    let rows: Vec<&str> = listing.lines().skip(1).map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(
        rows,
        [
            "rot-magic",
            "rot-name",
            "pdf",
            "postscript",
            "dvi",
            "doc",
            "xls",
            "ocr",
            "ocr",
            "ocr",
            "ocr"
        ]
    );
    assert!(listed.stdout_str().starts_with(&format!("configuration: {cfg}\n")));
}

#[test]
fn configured_extractors_come_before_the_built_in_ones_with_their_own_limits() {
    let t = Tree::new();
    t.file_bytes(b"a.pdf", crate::documents::pdf(&[&["pdf needle"]]));
    t.file("b.slow", "x\n");
    t.file("c.gone", "x\n");
    let pages = script(&t, "paged", "printf 'first needle\\n\\fsecond needle\\n'");
    let slow = script(&t, "slow", "exec sleep 1000");
    let cfg = config(
        &t,
        &format!(
            "[[extractor]]\nname = 'mine'\nmagic = '%PDF-'\ncommand = ['{}']\npages = true\n\n\
             [[extractor]]\nname = 'slow'\nglob = '*.slow'\ncommand = ['{}']\ntimeout = 0.5\n\n\
             [[extractor]]\nname = 'gone'\niglob = '*.GONE'\ncommand = ['/nonexistent/tool', '{{}}']\n",
            pages.display(),
            slow.display()
        ),
    );
    let got = t
        .trawl()
        .env("TRAWL_EXTRACTORS", &cfg)
        .args(["--docs", "-j1", "--sort", "path", "needle", "a.pdf", "b.slow", "c.gone"])
        .run();
    got.assert_code(2).assert_stdout("a.pdf#page=1:first needle\na.pdf#page=2:\x0csecond needle\n");
    assert_eq!(
        got.stderr_str(),
        format!(
            "trawl: b.slow: {} ran longer than 0.5 s; killed\n\
             trawl: c.gone: cannot run /nonexistent/tool (extractor 'gone' of {cfg}): No such file or directory; documents it reads are searched as bytes\n\
             trawl: text not extracted from 2 files or members (each named above)\n",
            slow.display()
        )
    );
}

#[test]
fn a_mistake_in_the_extractor_configuration_is_named_by_file_line_and_column() {
    let t = Tree::new();
    let cfg = config(&t, "# mine\n[[extractor]]\nname = 'a'\nglob = '*.a'\ncommand = []\n");
    let got = t.trawl().env("TRAWL_EXTRACTORS", &cfg).args(["--docs", "x", "."]).run();
    got.assert_code(2).assert_stdout("");
    assert_eq!(got.stderr_str(), format!("trawl: {cfg}:2:1: extractor 'a': `command` is empty\n"));
    let find = t.trawl().env("TRAWL_EXTRACTORS", &cfg).args(["find", ".", "-docs"]).run();
    find.assert_code(1);
    assert_eq!(find.stderr_str(), got.stderr_str());
    // Without --docs the configuration is not read.
    t.trawl().env("TRAWL_EXTRACTORS", &cfg).args(["-r", "glob", "."]).run().assert_code(0);
    // $XDG_CONFIG_HOME/trawl/extractors.toml is the default place.
    t.file("cfg/trawl/extractors.toml", "[[extractor]]\nname = 'b'\nmagic = 'x'\ncomand = ['t']\n");
    let xdg = t.path().join("cfg").display().to_string();
    let got = t.trawl().env("XDG_CONFIG_HOME", &xdg).args(["--docs", "x", "."]).run();
    got.assert_code(2);
    assert!(
        got.stderr_str().starts_with(&format!(
            "trawl: {xdg}/trawl/extractors.toml:4:1: unknown field `comand`"
        )),
        "{}",
        got.stderr_str()
    );
}

/// An executable `bin/gs` in the tree that logs each run to `gs.log` and
/// runs the real Ghostscript; returns the PATH to use.
fn counted_gs(t: &Tree) -> String {
    let real = Cmd::new("sh", t.path()).args(["-c", "command -v gs"]).run();
    let real = real.stdout_str().trim().to_string();
    assert!(!real.is_empty(), "gs (installed by .ci/deps)");
    let log = t.path().join("gs.log");
    script(t, "gs", &format!("echo run >> '{}'\nexec '{real}' \"$@\"", log.display()));
    format!("{}:{}", t.path().join("bin").display(), std::env::var("PATH").unwrap_or_default())
}

// Issue 42, item 6: a PostScript file Ghostscript cannot run (a MetaPost
// figure using TeX's fonts: `Error: /undefined in jkpmi`) is text: its
// bytes are searched as grep searches them, with no error line and exit 0
// (and nothing of what gs wrote before failing, its error report
// included), counted by --stats and the JSON summary; the cache remembers
// the failure, so gs runs once.
#[test]
fn a_postscript_file_ghostscript_cannot_run_is_searched_as_its_bytes() {
    let t = Tree::new();
    let figure = "%!PS\n%%Title: fig1\n(Dijkstra's figure) jkpmi\nshowpage\n";
    t.file("d/fig1.mps", figure);
    t.file_bytes(
        b"d/good.ps",
        postscript(&["A page that Ghostscript reads.", "Dijkstra wrote it."]),
    );
    let path = counted_gs(&t);
    let cache = t.path().join("cache");
    let search = |args: &[&str]| {
        t.trawl()
            .env("PATH", &path)
            .env("XDG_CACHE_HOME", &cache)
            .args(["--docs", "--sort", "path"])
            .args(args)
            .args(["Dijkstra", "d"])
            .run()
    };
    // As grep reads the figure's bytes, and gs the good page's text.
    let grep = Cmd::grep(&t.path().join("d")).args(["-H", "Dijkstra", "fig1.mps"]).run();
    let mut want = grep.stdout_str().replace("fig1.mps:", "d/fig1.mps:");
    let good = tool_text(&t.path().join("d"), "good.ps", "gs", &GS);
    for line in lines(&good).into_iter().filter(|l| l.windows(8).any(|w| w == b"Dijkstra")) {
        want += &format!("d/good.ps:{}\n", String::from_utf8_lossy(line));
    }
    assert_eq!(want.lines().count(), 2, "{want}");
    let runs = || std::fs::read_to_string(t.path().join("gs.log")).map_or(0, |s| s.lines().count());
    for round in ["first", "cached"] {
        let r = search(&[]);
        r.assert_code(0).assert_no_stderr();
        assert_eq!(r.stdout_str(), want, "{round}");
        let r = search(&["--stats"]);
        r.assert_code(0).assert_no_stderr();
        assert!(
            r.stdout_str()
                .contains("\n1 documents searched as bytes after their extractor failed\n"),
            "{round}: {}",
            r.stdout_str()
        );
        let r = search(&["--json"]);
        let summary = r.stdout_str().lines().last().unwrap_or_default().to_string();
        assert!(
            summary.contains(
                r#""extraction":{"failed":0,"failed_remembered":0,"searched_as_bytes":1}"#
            ),
            "{round}: {summary}"
        );
    }
    assert_eq!(runs(), 2, "gs ran once per document, the cache answered after");
    // The failure is listed, with gs's words.
    let listed = t.trawl().env("XDG_CACHE_HOME", &cache).args(["cache", "failures"]).run();
    listed.assert_code(0);
    let fig = t.path().join("d/fig1.mps");
    assert!(
        listed.stdout_str().starts_with(&format!("{}: gs failed", fig.display())),
        "{}",
        listed.stdout_str()
    );
}

// Issue 42, item 6: a configured extractor's files may be declared text
// (`text = true`): when the tool fails, their bytes are searched; without
// it, the failure is reported (exit 2) and the text made before it searched.
#[test]
fn a_configured_extractor_may_declare_its_files_text() {
    let t = Tree::new();
    let failing = script(&t, "half", "echo 'made by the tool: needle'\nexit 3");
    t.file("d/a.half", "needle in the bytes\n");
    for (declared, code, want, err) in [
        ("text = true\n", 0, "d/a.half:needle in the bytes\n", ""),
        ("", 2, "d/a.half:made by the tool: needle\n", "d/a.half: "),
    ] {
        let cfg = config(
            &t,
            &format!(
                "[[extractor]]\nname = 'half'\nglob = '*.half'\ncommand = ['{}']\n{declared}",
                failing.display()
            ),
        );
        let r = t
            .trawl()
            .env("TRAWL_EXTRACTORS", &cfg)
            .args(["--docs", "--no-cache", "needle", "d"])
            .run();
        r.assert_code(code).assert_stdout(want);
        match err {
            "" => r.assert_no_stderr(),
            _ => {
                assert!(r.stderr_str().starts_with(&format!("trawl: {err}")), "{}", r.stderr_str());
                &r
            }
        };
    }
}

// Issue 42, item 1: an extractors file that cannot be read never stops a
// search: the default one gets a warning, one named by TRAWL_EXTRACTORS
// (also when missing) an error (exit 2); the built-in extractors are used.
#[test]
fn an_extractors_file_that_cannot_be_read_never_stops_a_search() {
    let t = document_tree();
    t.dir("xdg/trawl/extractors.toml");
    let run = |env: (&str, std::ffi::OsString)| {
        t.trawl()
            .env(env.0, env.1)
            .args(["--docs", "--no-cache", "-c", "Dijkstra", "w/figure.ps"])
            .run()
    };
    let default = run(("XDG_CONFIG_HOME", t.path().join("xdg").into()));
    default.assert_code(0).assert_stdout("1\n");
    let file = t.path().join("xdg/trawl/extractors.toml");
    assert_eq!(
        default.stderr_str(),
        format!(
            "trawl: warning: {}: Is a directory; only the built-in extractors are used\n",
            file.display()
        )
    );
    let named = run(("TRAWL_EXTRACTORS", "missing.toml".into()));
    named.assert_code(2).assert_stdout("1\n");
    assert_eq!(
        named.stderr_str(),
        "trawl: missing.toml: No such file or directory (named by TRAWL_EXTRACTORS); only the built-in extractors are used\n"
    );
}
