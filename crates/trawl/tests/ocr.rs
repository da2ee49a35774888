//! `--ocr` (issue 45): scanned documents read through Tesseract. The
//! scans are made here: known words set in Helvetica, turned a little and
//! speckled, rendered by Ghostscript to each image format (PIL for GIF and
//! WebP) and to image-only PDFs. Tesseract is not byte-exact: the tests
//! look for chosen words and the pages they are on, never a whole text.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::extract::sh;
use crate::util::{poll_until, Cmd, Tree, HANG};

/// A small page (4 x 3 inches) per list of lines, turned by a degree and
/// speckled, as PostScript.
fn scan_ps(pages: &[&[&str]]) -> String {
    let mut ps = String::from("%!PS\n<< /PageSize [288 216] >> setpagedevice\n7 srand\n");
    for lines in pages {
        ps.push_str("/Helvetica findfont 18 scalefont setfont\ngsave 24 160 translate 1 rotate\n");
        for (i, line) in lines.iter().enumerate() {
            ps.push_str(&format!("0 {} moveto ({line}) show\n", -28 * i as i32));
        }
        ps.push_str("grestore\n0 1 150 { pop rand 288 mod rand 216 mod 0.7 0.7 rectfill } for\n");
        ps.push_str("showpage\n");
    }
    ps
}

/// Renders `pages` to `name` with Ghostscript's `device` at `dpi`.
fn scan(t: &Tree, name: &str, device: &str, dpi: u32, pages: &[&[&str]]) {
    let ps = format!("{name}.ps");
    t.file(&ps, scan_ps(pages));
    let (out, res) = (format!("-sOutputFile={name}"), format!("-r{dpi}"));
    sh(
        t.path(),
        "gs",
        &["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", &format!("-sDEVICE={device}"), &res, &out, &ps],
    );
    std::fs::remove_file(t.path().join(ps)).unwrap();
}

/// A Python with PIL (Debian's python3-pil, installed by .ci/deps).
fn python_with_pil() -> &'static str {
    ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| {
            Command::new(p).args(["-c", "import PIL"]).output().is_ok_and(|o| o.status.success())
        })
        .expect("python3 with PIL (python3-pil, installed by .ci/deps)")
}

/// The names (with their `#page=N`) of the lines of `out` that hold `word`.
fn names_with(out: &str, word: &str) -> BTreeSet<String> {
    out.lines()
        .filter(|l| l.contains(word))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

const PAGE_ONE: &[&str] = &["Invoice from Zanzibar", "paid in full"];
const PAGE_TWO: &[&str] = &["The harbour lantern", "was lit at dusk"];
const PAGE_THREE: &[&str] = &["A meadow and a kettle"];

/// A tree of scans: every image format, a three-page TIFF, an image-only
/// PDF, a PDF of a text page then a scanned one, and a PNG inside a zip.
fn scans() -> Tree {
    let t = Tree::new();
    t.dir("s/zipped");
    scan(&t, "s/page.png", "pnggray", 200, &[PAGE_ONE]);
    scan(&t, "s/photo.jpg", "jpeggray", 200, &[PAGE_TWO]);
    scan(&t, "s/old.bmp", "bmpgray", 200, &[PAGE_THREE]);
    scan(&t, "s/pages.tif", "tiffgray", 200, &[PAGE_ONE, PAGE_TWO, PAGE_THREE]);
    scan(&t, "s/scan.pdf", "pdfimage8", 200, &[PAGE_THREE, PAGE_ONE]);
    // A text page, then a scanned one.
    t.file(
        "text.pdf",
        crate::documents::pdf(&[&["Quarterly lighthouse report", "for the harbour"]]),
    );
    scan(&t, "scanned.pdf", "pdfimage8", 200, &[PAGE_TWO]);
    sh(t.path(), "pdfunite", &["text.pdf", "scanned.pdf", "s/mixed.pdf"]);
    scan(&t, "s/zipped/inner.png", "pnggray", 200, &[PAGE_TWO]);
    sh(&t.path().join("s/zipped"), "zip", &["-q", "../bundle.zip", "inner.png"]);
    std::fs::remove_dir_all(t.path().join("s/zipped")).unwrap();
    let py = "from PIL import Image\nim = Image.open('s/page.png')\nim.save('s/anim.gif')\n\
              im.save('s/web.webp', lossless=True)\n";
    sh(t.path(), python_with_pil(), &["-c", py]);
    t
}

#[test]
fn scanned_images_and_pdf_pages_are_found_by_their_words_and_pages() {
    let t = scans();
    let r = t
        .trawl()
        .args([
            "--ocr",
            "-n",
            "--sort",
            "path",
            "-i",
            "-e",
            "zanzibar",
            "-e",
            "lantern",
            "-e",
            "kettle",
            "-e",
            "lighthouse",
            "s",
        ])
        .run();
    r.assert_code(0).assert_no_stderr();
    let out = r.stdout_str();
    assert_eq!(
        names_with(&out, "Zanzibar"),
        set(&["s/anim.gif", "s/page.png", "s/pages.tif#page=1", "s/scan.pdf#page=2", "s/web.webp"]),
        "{out}"
    );
    assert_eq!(
        names_with(&out, "lantern"),
        set(&[
            "s/bundle.zip{inner.png}",
            "s/mixed.pdf#page=2",
            "s/pages.tif#page=2",
            "s/photo.jpg"
        ]),
        "{out}"
    );
    assert_eq!(
        names_with(&out, "kettle"),
        set(&["s/old.bmp", "s/pages.tif#page=3", "s/scan.pdf#page=1"]),
        "{out}"
    );
    // The text page of the mixed PDF is its text layer's.
    assert!(out.contains("s/mixed.pdf#page=1:1:Quarterly lighthouse report\n"), "{out}");
    // Without --ocr, none of it is text.
    let docs = t
        .trawl()
        .args(["--docs", "-r", "-l", "-i", "-e", "zanzibar", "-e", "lantern", "-e", "kettle", "s"])
        .run();
    assert_eq!(docs.stdout_str(), "", "{}", docs.stderr_str());
}

/// A tree's `bin` holding `tesseract`, `pdftoppm`, `pdfinfo` and
/// `pdftotext` that log each run to `runs.log` and run the real ones; the
/// PATH to use.
fn counted(t: &Tree) -> String {
    t.dir("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    for tool in ["tesseract", "pdftoppm", "pdfinfo", "pdftotext"] {
        let real = std::env::split_paths(&path)
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{tool} (installed by .ci/deps)"));
        let log = t.path().join("runs.log");
        let script = format!(
            "#!/bin/sh\necho {tool} >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.display()
        );
        wrapper(t, tool, &script);
    }
    format!("{}:{}", t.path().join("bin").display(), path.to_string_lossy())
}

fn wrapper(t: &Tree, tool: &str, script: &str) {
    use std::os::unix::fs::PermissionsExt;
    let p = t.path().join("bin").join(tool);
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn runs(t: &Tree) -> Vec<String> {
    let log = std::fs::read_to_string(t.path().join("runs.log")).unwrap_or_default();
    log.lines().map(str::to_string).collect()
}

#[test]
fn a_second_search_starts_no_process() {
    let t = Tree::new();
    t.dir("d");
    scan(&t, "d/a.png", "pnggray", 200, &[PAGE_ONE]);
    scan(&t, "d/b.pdf", "pdfimage8", 200, &[PAGE_THREE, PAGE_TWO, PAGE_ONE]);
    let path = counted(&t);
    let cache = t.path().join("cache");
    let search = |args: &[&str]| {
        t.trawl()
            .env("PATH", &path)
            .env("XDG_CACHE_HOME", &cache)
            .args(["--ocr", "--sort", "path"])
            .args(args)
            .run()
    };
    let first = search(&["-n", "Zanzibar", "d"]);
    first.assert_code(0).assert_no_stderr();
    assert_eq!(names_with(&first.stdout_str(), "Zanzibar"), set(&["d/a.png", "d/b.pdf#page=3"]));
    let started = runs(&t);
    // One pdftotext, one pdfinfo, a render and a recognition per page, and
    // the image's.
    let count = |tool: &str| started.iter().filter(|r| *r == tool).count();
    assert_eq!(
        (count("pdftotext"), count("pdfinfo"), count("pdftoppm"), count("tesseract")),
        (1, 1, 3, 4),
        "{started:?}"
    );
    search(&["-n", "Zanzibar", "d"]).assert_code(0).assert_no_stderr().assert_stdout(&first.stdout);
    search(&["-c", "lantern", "d/b.pdf"]).assert_code(0).assert_stdout("1\n");
    assert_eq!(runs(&t), started, "a search of cached text started a process");
    // Another language or resolution is another extraction.
    search(&["--ocr-dpi", "150", "-l", "Zanzibar", "d/b.pdf"])
        .assert_code(0)
        .assert_stdout("d/b.pdf\n");
    assert!(runs(&t).len() > started.len());
}

/// A PNG's signature and header for a `w` x `h` grey image, and a few
/// bytes of data that are no image at all: only a decoder would notice.
fn png_header(w: u32, h: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&w.to_be_bytes());
    png.extend_from_slice(&h.to_be_bytes());
    png.extend_from_slice(&[8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    png
}

#[test]
fn a_huge_image_is_refused_with_one_line_and_a_broken_one_reported() {
    let t = Tree::new();
    t.dir("d");
    scan(&t, "d/good.png", "pnggray", 200, &[PAGE_ONE]);
    t.file("d/huge.png", png_header(30000, 30000));
    let good = std::fs::read(t.path().join("d/good.png")).unwrap();
    t.file("d/broken.png", &good[..good.len() / 3]);
    let path = counted(&t);
    let r =
        t.trawl().env("PATH", &path).args(["--ocr", "--sort", "path", "-l", "Zanzibar", "d"]).run();
    r.assert_code(2).assert_stdout("d/good.png\n");
    let err = r.stderr_str();
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].starts_with("trawl: d/broken.png: damaged or unreadable image"), "{err}");
    assert!(
        lines[1].starts_with("trawl: d/huge.png: 30000 x 30000 pixels, over OCR's limit"),
        "{err}"
    );
    assert!(lines[2].starts_with("trawl: text not extracted from 2 files"), "{err}");
    // The huge one was never given to a program.
    assert_eq!(runs(&t), ["tesseract", "tesseract"], "{err}");
}

#[test]
fn a_missing_language_names_its_debian_package_and_nothing_is_searched() {
    let t = Tree::new();
    t.file("a.txt", "Zanzibar\n");
    let r = t.trawl().args(["--ocr", "--ocr-lang", "eng+xyz", "Zanzibar", "a.txt"]).run();
    r.assert_code(2).assert_stdout("");
    let err = r.stderr_str();
    assert!(err.starts_with("trawl: --ocr-lang: no Tesseract data for 'xyz' in "), "{err}");
    assert!(err.contains("(install the Debian package tesseract-ocr-xyz); installed: "), "{err}");
    assert!(err.contains("eng"), "{err}");
    let bad = t.trawl().args(["--ocr", "--ocr-lang=../x", "Zanzibar", "a.txt"]).run();
    bad.assert_code(2).assert_stdout("");
    assert!(bad.stderr_str().contains("is not a Tesseract language name"), "{}", bad.stderr_str());
}

#[test]
fn json_of_a_recognised_page_carries_its_page() {
    let t = Tree::new();
    scan(&t, "a.pdf", "pdfimage8", 200, &[PAGE_THREE, PAGE_ONE]);
    let r = t.trawl().args(["--ocr", "--json", "Zanzibar", "a.pdf"]).run();
    r.assert_code(0);
    let pages: Vec<Option<u64>> = crate::json::parse_lines(&r.stdout)
        .iter()
        .filter(|m| m.str_at(&["type"]) == Some("match"))
        .map(|m| m.u64_at(&["data", "page"]))
        .collect();
    assert_eq!(pages, [Some(2)], "{}", r.stdout_str());
}

/// The children of `pid` named `comm` now.
fn children_named(pid: u32, comm: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else { continue };
        let Some((head, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if head.ends_with(&format!("({comm}")) && fields.get(1) == Some(&pid.to_string().as_str()) {
            found.push(child);
        }
    }
    found
}

/// Whether `pid` is a process still running (not gone, not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, r)| !r.trim_start().starts_with('Z')))
}

#[test]
fn an_interrupted_ocr_search_ends_at_once_and_leaves_no_child() {
    use std::os::unix::process::ExitStatusExt;
    let t = Tree::new();
    scan(&t, "a.pdf", "pdfimage8", 100, &[PAGE_ONE; 6]);
    t.dir("bin");
    // A recognition that would take a minute.
    wrapper(&t, "tesseract", "#!/bin/sh\nexec sleep 60\n");
    let path = format!("{}:{}", t.path().join("bin").display(), std::env::var("PATH").unwrap());
    let mut cmd = Cmd::trawl(t.path())
        .env("PATH", &path)
        .args(["--ocr", "--no-cache", "--extract-jobs", "2", "Zanzibar", "a.pdf"])
        .command();
    let mut child = cmd.stdout(std::process::Stdio::null()).spawn().unwrap();
    let pid = child.id();
    let mut sleeping = Vec::new();
    assert!(poll_until(|| {
        sleeping = children_named(pid, "sleep");
        sleeping.len() == 2
    }));
    // SAFETY: our unreaped child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let sent = std::time::Instant::now();
    assert!(
        poll_until(|| matches!(child.try_wait(), Ok(Some(_)))),
        "still running {HANG:?} after SIGINT"
    );
    eprintln!("--ocr ended {:?} after SIGINT", sent.elapsed());
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGINT));
    let left: Vec<u32> = sleeping.into_iter().filter(|&p| running(p)).collect();
    assert!(left.is_empty(), "children left running: {left:?}");
}

#[test]
fn the_index_holds_recognised_text_and_keeps_it_on_update() {
    let t = Tree::new();
    t.dir("tree");
    scan(&t, "tree/a.png", "pnggray", 200, &[PAGE_ONE]);
    scan(&t, "tree/b.pdf", "pdfimage8", 200, &[PAGE_THREE, PAGE_TWO]);
    t.file("tree/c.txt", "nothing to see\n");
    let path = counted(&t);
    let cache = t.path().join("cache");
    let trawl = || t.trawl().env("PATH", &path).env("XDG_CACHE_HOME", &cache);
    trawl().args(["index", "--ocr", "tree"]).run().assert_code(0);
    let built = runs(&t);
    assert!(built.contains(&"tesseract".to_string()), "{built:?}");
    let search = |word: &str| trawl().args(["--ocr", "-r", "--json", word, "tree"]).run();
    for (word, page) in [("lantern", "tree/b.pdf"), ("Zanzibar", "tree/a.png")] {
        let r = search(word);
        r.assert_code(0);
        let out = r.stdout_str();
        let summary = out.lines().rfind(|l| l.starts_with("{\"type\":\"summary\"")).unwrap();
        let v: serde_json::Value = serde_json::from_str(summary).unwrap();
        assert!(!v["data"]["index"].is_null(), "not served by the index: {summary}");
        assert!(out.contains(&format!("\"path\":{{\"text\":\"{page}\"}}")), "{out}");
    }
    assert_eq!(runs(&t), built, "a search of an indexed tree started a process");
    // Updated without --ocr, it keeps what it holds.
    t.file("tree/d.txt", "more\n");
    trawl().args(["index", "tree"]).run().assert_code(0);
    assert!(!serde_json::from_str::<serde_json::Value>(
        search("kettle").stdout_str().lines().last().unwrap()
    )
    .unwrap()["data"]["index"]
        .is_null());
}

#[test]
fn find_ocr_looks_inside_scans() {
    let t = Tree::new();
    t.dir("d");
    scan(&t, "d/a.png", "pnggray", 200, &[PAGE_ONE]);
    scan(&t, "d/b.png", "pnggray", 200, &[PAGE_TWO]);
    let r = t.trawl().args(["find", "d", "-ocr", "-contains", "lantern", "-print"]).run();
    r.assert_code(0).assert_no_stderr().assert_stdout("d/b.png\n");
    let plain = t.trawl().args(["find", "d", "-docs", "-contains", "lantern", "-print"]).run();
    plain.assert_code(0).assert_stdout("");
}

#[test]
fn trawl_extractors_lists_ocr_with_its_languages() {
    let r = Cmd::trawl(Path::new("/")).args(["extractors"]).run();
    r.assert_code(0);
    let out = r.stdout_str();
    let ocr: Vec<&str> = out.lines().filter(|l| l.starts_with("ocr\t")).collect();
    assert_eq!(ocr.len(), 4, "{out}");
    assert!(ocr[0].contains("\ttesseract stdin stdout -l eng\t"), "{out}");
    assert!(ocr[1].contains("\tpdftoppm -f N -l N -r 300 -gray /dev/stdin\t"), "{out}");
    let last: Vec<&str> = ocr[3].split('\t').collect();
    assert!(last[1].starts_with("tesseract 5") || last[1].starts_with("tesseract 4"), "{out}");
    assert!(last[2].starts_with("languages: ") && last[2].contains("eng"), "{out}");
    assert_eq!(last[4], "--ocr reads eng at 300 dpi", "{out}");
}
