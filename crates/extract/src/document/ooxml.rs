//! Office Open XML: DOCX (paragraphs), PPTX (each slide's paragraphs, slide
//! by slide) and XLSX (each row a line, cells separated by tabs).

use std::io::{self, BufReader, Read, Seek};

use zip::ZipArchive;

use super::xml::{attr, walk, Lines, Node};

/// The text of a DOCX: the body, then footnotes and endnotes.
pub(super) fn docx<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<Vec<u8>> {
    let mut out = Lines::default();
    for part in ["word/document.xml", "word/footnotes.xml", "word/endnotes.xml"] {
        if let Ok(f) = zip.by_name(part) {
            paragraphs(BufReader::new(f), &mut out)?;
        }
    }
    Ok(out.text)
}

/// The text of a PPTX, slide 1 first.
pub(super) fn pptx<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<Vec<u8>> {
    let mut slides: Vec<(u32, String)> = zip
        .file_names()
        .filter_map(|n| {
            let n = n.ok()?;
            let num = n.strip_prefix("ppt/slides/slide")?.strip_suffix(".xml")?;
            Some((num.parse().ok()?, n.to_string()))
        })
        .collect();
    slides.sort();
    let mut out = Lines::default();
    for (_, name) in slides {
        let f = zip.by_name(&name).map_err(crate::zip_error::zip_io)?;
        paragraphs(BufReader::new(f), &mut out)?;
    }
    Ok(out.text)
}

/// Paragraphs of WordprocessingML or DrawingML: `p` ends a line, `t` holds
/// text, `tab` is a tab and `br`/`cr` a line break.
fn paragraphs(r: impl io::BufRead, out: &mut Lines) -> io::Result<()> {
    let mut in_text = false;
    walk(r, |node| match node {
        Node::Open { name: b"t", empty: false, .. } => {
            in_text = true;
            Ok(())
        }
        Node::Close { name: b"t" } => {
            in_text = false;
            Ok(())
        }
        Node::Text(t) if in_text => out.push(t),
        Node::Open { name: b"tab", .. } => out.push(b"\t"),
        Node::Open { name: b"br" | b"cr", .. } => out.end_line(),
        Node::Close { name: b"p" } | Node::Open { name: b"p", empty: true, .. } => out.end_line(),
        _ => Ok(()),
    })
}

/// The text of an XLSX: every sheet, each row a line of tab-separated
/// cells (shared strings resolved, numbers as written).
pub(super) fn xlsx<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<Vec<u8>> {
    let mut shared: Vec<Vec<u8>> = Vec::new();
    if let Ok(f) = zip.by_name("xl/sharedStrings.xml") {
        let mut cur: Option<Vec<u8>> = None;
        let mut in_text = false;
        walk(BufReader::new(f), |node| {
            match node {
                Node::Open { name: b"si", .. } => cur = Some(Vec::new()),
                Node::Close { name: b"si" } => shared.push(cur.take().unwrap_or_default()),
                Node::Open { name: b"t", empty: false, .. } => in_text = true,
                Node::Close { name: b"t" } => in_text = false,
                Node::Text(t) if in_text => {
                    if let Some(c) = &mut cur {
                        c.extend_from_slice(t);
                    }
                }
                _ => {}
            }
            Ok(())
        })?;
    }
    let mut sheets: Vec<(u32, String)> = zip
        .file_names()
        .filter_map(|n| {
            let n = n.ok()?;
            let num = n.strip_prefix("xl/worksheets/sheet")?.strip_suffix(".xml")?;
            Some((num.parse().ok()?, n.to_string()))
        })
        .collect();
    sheets.sort();
    let mut out = Lines::default();
    for (_, name) in sheets {
        let f = zip.by_name(&name).map_err(crate::zip_error::zip_io)?;
        let mut shared_cell = false;
        let mut in_value = false;
        let mut first_cell = true;
        walk(BufReader::new(f), |node| match node {
            Node::Open { name: b"row", .. } => {
                first_cell = true;
                Ok(())
            }
            Node::Close { name: b"row" } => out.end_line(),
            Node::Open { name: b"c", attrs, .. } => {
                shared_cell = attr(attrs, b"t").as_deref() == Some(b"s");
                let sep = if first_cell { Ok(()) } else { out.push(b"\t") };
                first_cell = false;
                sep
            }
            Node::Open { name: b"v" | b"t", empty: false, .. } => {
                in_value = true;
                Ok(())
            }
            Node::Close { name: b"v" | b"t" } => {
                in_value = false;
                Ok(())
            }
            Node::Text(t) if in_value && shared_cell => {
                let i: usize = std::str::from_utf8(t)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(usize::MAX);
                match shared.get(i) {
                    Some(s) => out.push(s),
                    None => Ok(()),
                }
            }
            Node::Text(t) if in_value => out.push(t),
            _ => Ok(()),
        })?;
    }
    Ok(out.text)
}
