//! `--docs`: PDFs through pdftotext (compared with `pdftotext FILE - |
//! grep`), alone and inside archives; the extractor processes' faults
//! (damaged input, a crash, a hang, a missing tool) and their reaping.

use std::path::Path;

use crate::extract::{grep_text, sh};
use crate::util::{lines, poll_until, Cmd, Tree};

/// A PDF of `pages`, each a list of lines, in Helvetica: small, but a
/// real PDF with a cross-reference table.
pub fn pdf(pages: &[&[&str]]) -> Vec<u8> {
    let n = pages.len();
    // Objects: 1 catalog, 2 pages, 3 font, then a page and its content per page.
    let mut objects: Vec<Vec<u8>> = Vec::new();
    objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 4 + 2 * i)).collect();
    objects.push(format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes());
    objects.push(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec());
    for (i, page) in pages.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                5 + 2 * i
            )
            .into_bytes(),
        );
        let mut content = String::from("BT /F1 12 Tf 14 TL 72 740 Td\n");
        for line in page.iter() {
            let escaped = line.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
            content.push_str(&format!("({escaped}) Tj T*\n"));
        }
        content.push_str("ET");
        let mut obj = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
        obj.extend_from_slice(content.as_bytes());
        obj.extend_from_slice(b"\nendstream");
        objects.push(obj);
    }
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, obj) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(obj);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// Pages of text with matches for the test patterns.
fn pages(seed: usize) -> Vec<Vec<String>> {
    (0..3)
        .map(|p| {
            (0..25)
                .map(|l| match (seed + p * 7 + l) % 6 {
                    0 => format!("page {p} line {l}: the package manager"),
                    1 => format!("Dijkstra wrote to ewd{l}@cs.example.org"),
                    2 => String::new(),
                    _ => format!("plain text {seed} {p} {l}"),
                })
                .collect()
        })
        .collect()
}

fn write_pdf(t: &Tree, name: &str, seed: usize) {
    let pages = pages(seed);
    let refs: Vec<Vec<&str>> =
        pages.iter().map(|p| p.iter().map(String::as_str).collect()).collect();
    let slices: Vec<&[&str]> = refs.iter().map(Vec::as_slice).collect();
    t.file_bytes(name.as_bytes(), pdf(&slices));
}

const PATTERNS: [&str; 3] =
    ["package", "Dijkstra", r"[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)"];

fn pdftotext(dir: &Path, file: &str) -> Vec<u8> {
    sh(dir, "pdftotext", &[file, "-"])
}

#[test]
fn pdf_text_is_what_pdftotext_gives_grep() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 1);
    let text = pdftotext(t.path(), "a.pdf");
    assert!(text.contains(&b'\x0c'), "pages end with a form feed");
    for p in PATTERNS {
        let want = grep_text(t.path(), p, &text, b"");
        assert!(!want.is_empty(), "{p}");
        let got = t.trawl().args(["--docs", "-n", "-e", p, "a.pdf"]).run();
        got.assert_code(0).assert_no_stderr().assert_stdout(&want);
    }
    // Without --docs a PDF is bytes, as grep reads it.
    let raw = Cmd::grep(t.path()).args(["-c", "-a", "Td", "a.pdf"]).run();
    t.trawl().args(["-c", "-a", "Td", "a.pdf"]).run().assert_stdout(&raw.stdout);
    assert_ne!(raw.stdout, b"0\n");
}

#[test]
fn pdfs_inside_archives_are_documents_too() {
    let t = Tree::new();
    write_pdf(&t, "w/in-zip.pdf", 2);
    write_pdf(&t, "w/in-tar.pdf", 3);
    let w = t.path().join("w");
    sh(&w, "zip", &["-q", "../docs.zip", "in-zip.pdf"]);
    sh(&w, "tar", &["-czf", "../docs.tgz", "in-tar.pdf"]);
    for p in PATTERNS {
        let mut want = grep_pages(&w, p, "in-zip.pdf", "docs.zip{in-zip.pdf}");
        want.extend(grep_pages(&w, p, "in-tar.pdf", "docs.tgz{in-tar.pdf}"));
        let got = t
            .trawl()
            .args(["--docs", "--sort", "path", "-n", "-e", p, "docs.zip", "docs.tgz"])
            .run();
        got.assert_code(0).assert_no_stderr().assert_stdout(&want);
    }
}

/// The lines `pdftotext PDF - | grep -n PATTERN` gives, each after
/// `NAME#page=N:`, N being the page that `pdftotext -f N -l N` extracts the
/// line from: a line of a PDF names its page.
fn grep_pages(dir: &Path, pattern: &str, pdf: &str, name: &str) -> Vec<u8> {
    let pages: Vec<Vec<u8>> = (1..)
        .map_while(|n: u32| {
            let n = n.to_string();
            let r = Cmd::new("pdftotext", dir).args(["-f", &n, "-l", &n, pdf, "-"]).run();
            (r.code == 0).then_some(r.stdout)
        })
        .collect();
    let plain = grep_text(dir, pattern, &pdftotext(dir, pdf), b"");
    let mut out = Vec::new();
    for line in lines(&plain) {
        let text = &line[line.iter().position(|&b| b == b':').unwrap() + 1..];
        let text = text.strip_prefix(b"\x0c").unwrap_or(text);
        let page = pages
            .iter()
            .position(|p| lines(p).iter().any(|l| l.strip_prefix(b"\x0c").unwrap_or(l) == text))
            .unwrap_or_else(|| panic!("{pdf}: no page holds {}", String::from_utf8_lossy(text)));
        out.extend_from_slice(format!("{name}#page={}:", page + 1).as_bytes());
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

/// A directory holding a fake `pdftotext` running `script`, for PATH.
fn fake_pdftotext(t: &Tree, script: &str) -> String {
    t.file("bin/pdftotext", format!("#!/bin/sh\n{script}\n"));
    let bin = t.path().join("bin");
    let tool = bin.join("pdftotext");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn a_damaged_pdf_is_reported_and_the_search_goes_on() {
    let t = Tree::new();
    write_pdf(&t, "good.pdf", 4);
    let good = std::fs::read(t.path().join("good.pdf")).unwrap();
    t.file_bytes(b"cut.pdf", &good[..good.len() / 3]);
    t.file_bytes(b"random.pdf", b"%PDF-1.4\n\x01\x02\x03 not a pdf at all");
    let got = t
        .trawl()
        .args(["--docs", "--sort", "path", "-l", "Dijkstra", "cut.pdf", "good.pdf", "random.pdf"])
        .run();
    got.assert_code(2).assert_stdout("good.pdf\n");
    let mut errs: Vec<String> = got.stderr_str().lines().map(str::to_string).collect();
    // The count of failed extractions ends the run.
    let last = errs.pop();
    assert_eq!(
        last.as_deref(),
        Some("trawl: text not extracted from 2 files or members (each named above)")
    );
    errs.sort();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("trawl: cut.pdf: damaged"), "{errs:?}");
    assert!(errs[1].starts_with("trawl: random.pdf: damaged"), "{errs:?}");
    // -s: no messages, the exit status still tells.
    let quiet = t.trawl().args(["--docs", "-s", "-l", "Dijkstra", "cut.pdf", "good.pdf"]).run();
    quiet.assert_code(2).assert_stdout("good.pdf\n").assert_no_stderr();
}

#[test]
fn an_extractor_killed_from_outside_is_reported_and_the_search_goes_on() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 5);
    t.file("b.txt", "Dijkstra in text\n");
    let path = fake_pdftotext(&t, "kill -9 $$");
    let got = t
        .trawl()
        .env("PATH", &path)
        .args(["--docs", "--sort", "path", "Dijkstra", "a.pdf", "b.txt"])
        .run();
    got.assert_code(2).assert_stdout("b.txt:Dijkstra in text\n");
    assert_eq!(
        got.stderr_str(),
        "trawl: a.pdf: pdftotext was killed by signal 9\ntrawl: text not extracted from 1 file or member (each named above)\n"
    );
}

#[test]
fn a_hanging_extractor_is_killed_at_its_timeout_and_reaped() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 6);
    let path = fake_pdftotext(&t, "exec sleep 1000");
    let got = t
        .trawl()
        .env("PATH", &path)
        .args(["--docs", "--extract-timeout", "1", "Dijkstra", "a.pdf"])
        .run();
    got.assert_code(2).assert_stdout("");
    assert_eq!(
        got.stderr_str(),
        "trawl: a.pdf: pdftotext ran longer than 1 s; killed\ntrawl: text not extracted from 1 file or member (each named above)\n"
    );
}

#[test]
fn a_missing_extractor_is_reported_once_and_pdfs_are_searched_as_bytes() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 7);
    write_pdf(&t, "b.pdf", 8);
    // A PATH without pdftotext.
    t.dir("empty-bin");
    let path = t.path().join("empty-bin").display().to_string();
    let got = t
        .trawl()
        .env("PATH", &path)
        .args(["--docs", "-j1", "-c", "Helvetica", "a.pdf", "b.pdf"])
        .run();
    got.assert_code(2).assert_stdout("a.pdf:1\nb.pdf:1\n");
    let err = got.stderr_str();
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(err.starts_with("trawl: a.pdf: cannot run pdftotext (poppler-utils): "), "{err}");
    assert!(
        err.ends_with("\ntrawl: text not extracted from 1 file or member (each named above)\n"),
        "{err}"
    );
}

/// Zombie children of `pid` (state Z) now.
fn zombies_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else { continue };
        // pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r.trim().to_string()) else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 1 && fields[0] == "Z" && fields[1] == pid.to_string() {
            found.push(child);
        }
    }
    found
}

#[test]
fn no_extractor_is_left_a_zombie_while_a_search_runs() {
    let t = Tree::new();
    for i in 0..40 {
        t.file(format!("d/{i}.pdf"), "%PDF-1.4\n");
    }
    // Each extraction takes a little while, so the search lasts.
    let path = fake_pdftotext(&t, "sleep 0.05; echo Dijkstra");
    let mut cmd =
        Cmd::trawl(t.path()).env("PATH", &path).args(["--docs", "-c", "Dijkstra", "d"]).command();
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    // A zombie seen twice, 50 ms apart, was not reaped when its output ended.
    let mut seen_before: Vec<u32> = Vec::new();
    let mut leaked: Vec<u32> = Vec::new();
    let finished = poll_until(|| {
        let now = zombies_of(pid);
        leaked.extend(now.iter().filter(|z| seen_before.contains(z)));
        seen_before = now;
        std::thread::sleep(std::time::Duration::from_millis(45));
        matches!(child.try_wait(), Ok(Some(_)))
    });
    assert!(finished, "trawl did not finish");
    assert!(leaked.is_empty(), "zombies left: {leaked:?}");
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert_eq!(out.lines().filter(|l| l.ends_with(":1")).count(), 40, "{out}");
}

/// The real pdftotext, as PATH finds it.
fn real_pdftotext() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("pdftotext"))
        .find(|p| p.is_file())
        .expect("pdftotext (poppler-utils, installed by .ci/deps)")
}

/// A tree whose `bin/pdftotext` logs each run to `runs.log` and then runs
/// the real one; returns the PATH to use and the cache directory.
fn counted(t: &Tree) -> (String, String) {
    let real = real_pdftotext();
    let log = t.path().join("runs.log");
    let path = fake_pdftotext(
        t,
        &format!("echo run >> '{}'\nexec '{}' \"$@\"", log.display(), real.display()),
    );
    (path, t.path().join("cache").display().to_string())
}

fn runs(t: &Tree) -> usize {
    std::fs::read_to_string(t.path().join("runs.log")).map_or(0, |s| s.lines().count())
}

fn search(t: &Tree, path: &str, cache: &str, args: &[&str]) -> crate::util::Run {
    t.trawl().env("PATH", path).env("XDG_CACHE_HOME", cache).args(["--docs"]).args(args).run()
}

#[test]
fn a_cached_document_starts_no_process_and_copies_hit_by_content() {
    let t = Tree::new();
    t.dir("docs");
    write_pdf(&t, "docs/a.pdf", 10);
    let (path, cache) = counted(&t);
    let first = search(&t, &path, &cache, &["-n", "Dijkstra", "docs/a.pdf"]);
    first.assert_code(0).assert_no_stderr();
    assert_eq!(runs(&t), 1);
    let second = search(&t, &path, &cache, &["-n", "Dijkstra", "docs/a.pdf"]);
    second.assert_code(0).assert_no_stderr().assert_stdout(&first.stdout);
    assert_eq!(runs(&t), 1, "the second search ran pdftotext");
    // A copy elsewhere has the same bytes: found by their hash.
    std::fs::copy(t.path().join("docs/a.pdf"), t.path().join("copy.pdf")).unwrap();
    search(&t, &path, &cache, &["-n", "Dijkstra", "copy.pdf"]).assert_stdout(&first.stdout);
    assert_eq!(runs(&t), 1, "the copy ran pdftotext");
    // A different pattern needs no new extraction either.
    let pkg = search(&t, &path, &cache, &["-c", "package", "docs/a.pdf"]);
    assert_ne!(pkg.stdout, b"0\n");
    assert_eq!(runs(&t), 1);
    // --no-cache neither reads nor fills it.
    search(&t, &path, &cache, &["--no-cache", "-n", "Dijkstra", "docs/a.pdf"])
        .assert_stdout(&first.stdout);
    assert_eq!(runs(&t), 2);
}

/// What a search says of one failure the cache remembers (issue 42).
const REMEMBERED_ONE: &str =
    "trawl: 1 document's text could not be extracted (remembered; trawl cache failures lists them)\n";

#[test]
fn a_failure_is_remembered_with_its_message() {
    let t = Tree::new();
    write_pdf(&t, "good.pdf", 11);
    let good = std::fs::read(t.path().join("good.pdf")).unwrap();
    t.file_bytes(b"cut.pdf", &good[..good.len() / 3]);
    let (path, cache) = counted(&t);
    let first = search(&t, &path, &cache, &["-c", "Dijkstra", "cut.pdf"]);
    first.assert_code(2);
    assert_eq!(runs(&t), 1);
    let second = search(&t, &path, &cache, &["-c", "Dijkstra", "cut.pdf"]);
    second.assert_code(2).assert_stdout(&first.stdout);
    // Issue 42: named the first time, counted after.
    assert!(first.stderr_str().starts_with("trawl: cut.pdf: damaged"), "{}", first.stderr_str());
    assert_eq!(second.stderr_str(), REMEMBERED_ONE);
    assert_eq!(runs(&t), 1, "a remembered failure ran pdftotext again");
}

#[test]
fn a_compressed_document_is_known_to_the_cache_by_its_file() {
    use crate::extract::sh;
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 12);
    let want = grep_pages(t.path(), "Dijkstra", "a.pdf", "a.pdf.gz");
    sh(t.path(), "gzip", &["a.pdf"]);
    write_pdf(&t, "good.pdf", 13);
    let good = std::fs::read(t.path().join("good.pdf")).unwrap();
    t.file_bytes(b"cut.pdf", &good[..good.len() / 3]);
    sh(t.path(), "gzip", &["cut.pdf"]);
    let (path, cache) = counted(&t);
    let first = search(&t, &path, &cache, &["-n", "Dijkstra", "a.pdf.gz", "cut.pdf.gz"]);
    first.assert_code(2).assert_stdout(&want);
    assert_eq!(runs(&t), 2);
    // Known by each file's inode, size and times (with the tool's
    // identity): a later search asks the cache before it decodes.
    let db = rusqlite::Connection::open(format!("{cache}/trawl/extracted.sqlite3")).unwrap();
    let mut keys = db.prepare("SELECT key FROM aliases").unwrap();
    let keys: Vec<Vec<u8>> =
        keys.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    let stat_keyed = keys.iter().filter(|k| k.starts_with(b"S") && k.ends_with(b"\0decoded"));
    assert_eq!(stat_keyed.count(), 2, "each compressed document by its file");
    let second = search(&t, &path, &cache, &["-n", "Dijkstra", "a.pdf.gz", "cut.pdf.gz"]);
    second.assert_code(2).assert_stdout(&first.stdout);
    assert!(first.stderr_str().starts_with("trawl: cut.pdf.gz: damaged"), "{}", first.stderr_str());
    assert_eq!(second.stderr_str(), REMEMBERED_ONE, "the failure, remembered");
    assert_eq!(runs(&t), 2, "the second search ran pdftotext");
    // Replaced by another compressed document: its own text.
    std::fs::remove_file(t.path().join("a.pdf.gz")).unwrap();
    write_pdf(&t, "a.pdf", 14);
    let want = grep_pages(t.path(), "Dijkstra", "a.pdf", "a.pdf.gz");
    sh(t.path(), "gzip", &["a.pdf"]);
    let again = search(&t, &path, &cache, &["-H", "-n", "Dijkstra", "a.pdf.gz"]);
    again.assert_code(0).assert_stdout(&want);
    assert_eq!(runs(&t), 3);
}

/// Searches `a.pdf` after `change` rewrote it: the new text must be found.
fn after_change(change: impl FnOnce(&Tree)) {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 20);
    let (path, cache) = counted(&t);
    let before =
        lines(&grep_text(t.path(), "plain text 20 ", &pdftotext(t.path(), "a.pdf"), b"")).len();
    assert!(before > 0);
    let first = search(&t, &path, &cache, &["-c", "plain text 20 ", "a.pdf"]);
    first.assert_code(0).assert_stdout(format!("{before}\n"));
    change(&t);
    let after = search(&t, &path, &cache, &["-c", "plain text 2[01] ", "a.pdf"]);
    let want =
        lines(&grep_text(t.path(), "plain text 2[01] ", &pdftotext(t.path(), "a.pdf"), b"")).len();
    after.assert_no_stderr().assert_stdout(format!("{want}\n"));
    let old = search(&t, &path, &cache, &["-c", "plain text 20 ", "a.pdf"]);
    old.assert_stdout("0\n");
    assert_eq!(runs(&t), 2);
}

/// The same PDF as `pages(20)` but saying 21 where it said 20: the same size.
fn same_size_other_text(t: &Tree) -> Vec<u8> {
    let old = std::fs::read(t.path().join("a.pdf")).unwrap();
    let new: Vec<u8> = String::from_utf8(old.clone())
        .unwrap()
        .replace("plain text 20 ", "plain text 21 ")
        .into_bytes();
    assert_eq!(new.len(), old.len());
    assert_ne!(new, old);
    new
}

#[test]
fn a_rewrite_with_its_old_mtime_restored_is_seen() {
    after_change(|t| {
        let p = t.path().join("a.pdf");
        let mtime = std::fs::metadata(&p).unwrap().modified().unwrap();
        let new = same_size_other_text(t);
        std::fs::write(&p, new).unwrap();
        // touch -d: the old mtime back (ctime moves on regardless).
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(mtime).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), mtime);
    });
}

#[test]
fn an_in_place_edit_of_the_same_size_is_seen() {
    after_change(|t| {
        use std::io::{Seek, Write};
        let new = same_size_other_text(t);
        let mut f = std::fs::File::options().write(true).open(t.path().join("a.pdf")).unwrap();
        f.seek(std::io::SeekFrom::Start(0)).unwrap();
        f.write_all(&new).unwrap();
    });
}

#[test]
fn a_file_renamed_over_is_seen() {
    after_change(|t| {
        let new = same_size_other_text(t);
        t.file_bytes(b"b.pdf", new);
        std::fs::rename(t.path().join("b.pdf"), t.path().join("a.pdf")).unwrap();
    });
}

#[test]
fn a_pdf_replaced_by_another_is_seen() {
    after_change(|t| {
        std::fs::remove_file(t.path().join("a.pdf")).unwrap();
        write_pdf(t, "a.pdf", 21);
    });
}

#[test]
fn a_corrupt_cache_is_rebuilt_with_a_warning() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 12);
    let (path, cache) = counted(&t);
    let first = search(&t, &path, &cache, &["-n", "Dijkstra", "a.pdf"]);
    let db = t.path().join("cache/trawl/extracted.sqlite3");
    assert!(db.is_file());
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::write(&db, b"this is not a database, it was damaged\n".repeat(200)).unwrap();
    let again = search(&t, &path, &cache, &["-n", "Dijkstra", "a.pdf"]);
    again.assert_code(0).assert_stdout(&first.stdout);
    let err = again.stderr_str();
    assert!(
        err.starts_with("trawl: warning: extraction cache: ")
            && err.trim_end().ends_with("made again"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // Rebuilt, it serves the next run.
    search(&t, &path, &cache, &["-n", "Dijkstra", "a.pdf"])
        .assert_no_stderr()
        .assert_stdout(&first.stdout);
    assert_eq!(runs(&t), 2);
}

/// JSON lines of a PDF carry the page each is on (pdftotext's page alone
/// is the reference), and a text file's lines carry none.
#[test]
fn json_lines_of_a_pdf_carry_their_page() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 7);
    t.file("b.txt", "package\n");
    let want: Vec<(u64, u64)> = lines(&grep_pages(t.path(), "package", "a.pdf", "a.pdf"))
        .iter()
        .map(|l| {
            let l = String::from_utf8_lossy(l);
            let rest = l.split_once("#page=").unwrap().1;
            let mut f = rest.split(':');
            (f.next().unwrap().parse().unwrap(), f.next().unwrap().parse().unwrap())
        })
        .collect();
    assert!(want.iter().any(|&(page, _)| page > 1), "{want:?}");
    let r = t.trawl().args(["--docs", "--json", "package", "a.pdf", "b.txt"]).run();
    r.assert_code(0);
    let mut got = Vec::new();
    for m in crate::json::parse_lines(&r.stdout) {
        if m.str_at(&["type"]) != Some("match") {
            continue;
        }
        let page = m.u64_at(&["data", "page"]);
        match m.data_at(&["data", "path"]).as_deref() {
            Some(b"a.pdf") => {
                got.push((page.unwrap(), m.u64_at(&["data", "line_number"]).unwrap()))
            }
            _ => assert_eq!(page, None, "{m:?}"),
        }
    }
    assert_eq!(got, want);
}

// Issue 42, item 6: a failure the cache remembers is not printed again
// document by document: the first search names each one; later ones say at
// the end how many, and where to read them, with the first search's output
// and exit status and no tool run. `trawl cache failures` lists them with
// the extractor's message; `trawl cache clear --failures` forgets them, and
// the next search names them again.
#[test]
fn a_remembered_failure_is_counted_at_the_end_not_named_again() {
    let t = Tree::new();
    write_pdf(&t, "good.pdf", 4);
    let good = std::fs::read(t.path().join("good.pdf")).unwrap();
    t.file_bytes(b"cut.pdf", &good[..good.len() / 3]);
    t.file_bytes(b"random.pdf", b"%PDF-1.4\n\x01\x02\x03 remembered, not a pdf");
    let (path, cache) = counted(&t);
    let args = ["--sort", "path", "-n", "Dijkstra", "cut.pdf", "good.pdf", "random.pdf"];
    let named = |r: &crate::util::Run| {
        let err = r.stderr_str();
        let mut lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines.pop(),
            Some("trawl: text not extracted from 2 files or members (each named above)"),
            "{err}"
        );
        lines.sort();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].starts_with("trawl: cut.pdf: damaged"), "{err}");
        assert!(lines[1].starts_with("trawl: random.pdf: damaged"), "{err}");
    };
    let first = search(&t, &path, &cache, &args);
    first.assert_code(2);
    assert!(!first.stdout.is_empty());
    named(&first);
    let ran = runs(&t);
    let again = search(&t, &path, &cache, &args);
    again.assert_code(2).assert_stdout(&first.stdout);
    assert_eq!(
        again.stderr_str(),
        "trawl: 2 documents' text could not be extracted (remembered; trawl cache failures lists them)\n"
    );
    assert_eq!(runs(&t), ran, "the cache answered");
    let stats = search(&t, &path, &cache, &[&["--stats"][..], &args].concat());
    assert!(
        stats
            .stdout_str()
            .contains("\n2 documents whose text could not be extracted (remembered)\n"),
        "{}",
        stats.stdout_str()
    );
    // -s: no line, the status still tells.
    let quiet = search(&t, &path, &cache, &[&["-s"][..], &args].concat());
    quiet.assert_code(2).assert_stdout(&first.stdout).assert_no_stderr();
    let cache_cmd = |args: &[&str]| t.trawl().env("XDG_CACHE_HOME", &cache).args(args).run();
    let listed = cache_cmd(&["cache", "failures"]);
    listed.assert_code(0).assert_no_stderr();
    let listed = listed.stdout_str();
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    for (line, name) in lines.iter().zip(["cut.pdf", "random.pdf"]) {
        let want = format!("{}: damaged", t.path().join(name).display());
        assert!(line.starts_with(&want), "{listed}");
    }
    let forgot = cache_cmd(&["cache", "clear", "--failures"]);
    forgot.assert_code(0);
    assert!(forgot.stdout_str().starts_with("forgot 2 failures in "), "{}", forgot.stdout_str());
    cache_cmd(&["cache", "failures"]).assert_code(0).assert_stdout("");
    let third = search(&t, &path, &cache, &args);
    third.assert_code(2).assert_stdout(&first.stdout);
    named(&third);
    assert_eq!(runs(&t), ran + 2, "the two failed documents were read again, the good one not");
}

// Issue 42, item 1: a cache that cannot be opened (its place is a file, or
// another user's) never stops a search: one warning naming it, and
// documents are read without it.
#[test]
fn a_cache_that_cannot_be_opened_is_one_warning_and_documents_are_still_read() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 10);
    write_pdf(&t, "b.pdf", 11);
    t.file("blocked", "a file where the cache's directory would be\n");
    let args = ["--docs", "--sort", "path", "-c", "Dijkstra", "a.pdf", "b.pdf"];
    let without = t.trawl().args(["--no-cache"]).args(args).run();
    let r = t.trawl().env("XDG_CACHE_HOME", t.path().join("blocked")).args(args).run();
    r.assert_code(without.code).assert_stdout(&without.stdout);
    let dir = t.path().join("blocked/trawl");
    assert_eq!(
        r.stderr_str(),
        format!(
            "trawl: warning: extraction cache: {}: Not a directory; text is extracted without it\n",
            dir.display()
        )
    );
    // find's -docs too: a warning, not a failure.
    let found = t
        .trawl()
        .env("XDG_CACHE_HOME", t.path().join("blocked"))
        .args(["find", "a.pdf", "b.pdf", "-docs", "-contains", "Dijkstra"])
        .run();
    found.assert_code(0).assert_stdout("a.pdf\nb.pdf\n");
    assert_eq!(found.stderr_str(), r.stderr_str());
}
