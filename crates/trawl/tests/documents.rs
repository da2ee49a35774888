//! `--docs`: PDFs through pdftotext (compared with `pdftotext FILE - |
//! grep`), alone and inside archives; the extractor processes' faults
//! (damaged input, a crash, a hang, a missing tool) and their reaping.

use std::path::Path;
use std::process::Command;

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
    let out = Command::new("pdftotext")
        .args([file, "-"])
        .current_dir(dir)
        .output()
        .expect("pdftotext (poppler-utils, installed by .ci/deps)");
    assert!(out.status.success(), "pdftotext {file}");
    out.stdout
}

fn grep_prefixed(dir: &Path, pattern: &str, text: &[u8], prefix: &str) -> String {
    let run = Cmd::grep(dir).args(["-P", "-a", "-n", "-e", pattern]).stdin(text).run();
    lines(&run.stdout).iter().map(|l| format!("{prefix}{}\n", String::from_utf8_lossy(l))).collect()
}

#[test]
fn pdf_text_is_what_pdftotext_gives_grep() {
    let t = Tree::new();
    write_pdf(&t, "a.pdf", 1);
    let text = pdftotext(t.path(), "a.pdf");
    assert!(text.contains(&b'\x0c'), "pages end with a form feed");
    for p in PATTERNS {
        let want = grep_prefixed(t.path(), p, &text, "");
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
    assert!(Command::new("zip")
        .args(["-q", "../docs.zip", "in-zip.pdf"])
        .current_dir(&w)
        .status()
        .unwrap()
        .success());
    assert!(Command::new("tar")
        .args(["-czf", "../docs.tgz", "in-tar.pdf"])
        .current_dir(&w)
        .status()
        .unwrap()
        .success());
    for p in PATTERNS {
        let mut want = grep_prefixed(&w, p, &pdftotext(&w, "in-zip.pdf"), "docs.zip{in-zip.pdf}:");
        want += &grep_prefixed(&w, p, &pdftotext(&w, "in-tar.pdf"), "docs.tgz{in-tar.pdf}:");
        let got = t
            .trawl()
            .args(["--docs", "--sort", "path", "-n", "-e", p, "docs.zip", "docs.tgz"])
            .run();
        got.assert_code(0).assert_no_stderr().assert_stdout(&want);
    }
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
    errs.sort();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("trawl: cut.pdf: damaged"), "{errs:?}");
    assert!(errs[1].starts_with("trawl: random.pdf: damaged"), "{errs:?}");
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
    assert_eq!(got.stderr_str(), "trawl: a.pdf: pdftotext was killed by signal 9\n");
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
    assert_eq!(got.stderr_str(), "trawl: a.pdf: pdftotext ran longer than 1 s; killed\n");
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
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("trawl: a.pdf: cannot run pdftotext (poppler-utils): "), "{err}");
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
