//! EPUB: the XHTML documents of the spine, in reading order; block
//! elements end lines, runs of white space are one space (HTML's rule).

use std::io::{self, BufReader, Read, Seek};

use zip::ZipArchive;

use super::xml::{attr, walk, Lines, Node};

/// The text of an EPUB.
pub(super) fn text<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<Vec<u8>> {
    let opf = rootfile(zip)?;
    let base = match opf.rfind('/') {
        Some(i) => opf[..=i].to_string(),
        None => String::new(),
    };
    let mut manifest: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut spine: Vec<Vec<u8>> = Vec::new();
    let f = zip.by_name(&opf).map_err(crate::zip_error::zip_io)?;
    walk(BufReader::new(f), |node| {
        match node {
            Node::Open { name: b"item", attrs, .. } => {
                if let (Some(id), Some(href)) = (attr(attrs, b"id"), attr(attrs, b"href")) {
                    manifest.push((id, href));
                }
            }
            Node::Open { name: b"itemref", attrs, .. } => spine.extend(attr(attrs, b"idref")),
            _ => {}
        }
        Ok(())
    })?;
    let mut out = Lines::default();
    for idref in spine {
        let Some((_, href)) = manifest.iter().find(|(id, _)| *id == idref) else { continue };
        let path = format!("{base}{}", percent_decode(href));
        let Ok(f) = zip.by_name(&path) else { continue };
        xhtml(BufReader::new(f), &mut out)?;
    }
    Ok(out.text)
}

/// Where META-INF/container.xml says the package document is.
fn rootfile<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<String> {
    let f = zip.by_name("META-INF/container.xml").map_err(crate::zip_error::zip_io)?;
    let mut path = None;
    walk(BufReader::new(f), |node| {
        if let Node::Open { name: b"rootfile", attrs, .. } = node {
            if path.is_none() {
                path = attr(attrs, b"full-path");
            }
        }
        Ok(())
    })?;
    let path =
        path.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "EPUB without a rootfile"))?;
    Ok(String::from_utf8_lossy(&path).into_owned())
}

/// `%20` and the like in an href.
fn percent_decode(href: &[u8]) -> String {
    let mut out = Vec::with_capacity(href.len());
    let mut i = 0;
    while i < href.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if href[i] == b'%' && i + 2 < href.len() {
            if let (Some(h), Some(l)) = (hex(href[i + 1]), hex(href[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(href[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text of one XHTML document.
fn xhtml(r: impl io::BufRead, out: &mut Lines) -> io::Result<()> {
    // Inside head, script or style: not text.
    let mut hidden = 0usize;
    let mut in_body = false;
    // A space is owed before the next word.
    let mut space = false;
    walk(r, |node| match node {
        Node::Open { name: b"head" | b"script" | b"style", empty: false, .. } => {
            hidden += 1;
            Ok(())
        }
        Node::Close { name: b"head" | b"script" | b"style" } => {
            hidden = hidden.saturating_sub(1);
            Ok(())
        }
        Node::Open { name: b"body", .. } => {
            in_body = true;
            Ok(())
        }
        Node::Open { name, .. } | Node::Close { name } if is_block(name) => {
            space = false;
            out.end_nonempty_line()
        }
        Node::Text(t) if hidden == 0 && in_body => {
            for word in t.split(|b| b.is_ascii_whitespace()) {
                if word.is_empty() {
                    space = true;
                    continue;
                }
                if space && out.text.last().is_some_and(|&b| b != b'\n') {
                    out.push(b" ")?;
                }
                space = false;
                out.push(word)?;
            }
            if t.last().is_some_and(|b| b.is_ascii_whitespace()) {
                space = true;
            }
            Ok(())
        }
        _ => Ok(()),
    })?;
    out.end_nonempty_line()
}

/// Elements whose start and end break lines.
fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"p" | b"div"
            | b"br"
            | b"li"
            | b"tr"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"blockquote"
            | b"pre"
            | b"section"
            | b"article"
            | b"title"
            | b"dt"
            | b"dd"
            | b"hr"
            | b"table"
            | b"figcaption"
    )
}
