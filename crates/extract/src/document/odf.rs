//! OpenDocument (ODT, ODS, ODP): `content.xml`, paragraphs and headings as
//! lines, table rows as lines of tab-separated cells.

use std::io::{self, BufReader, Read, Seek};

use zip::ZipArchive;

use super::xml::{attr, walk, Lines, Node};

/// The text of an OpenDocument file.
pub(super) fn text<R: Read + Seek>(zip: &mut ZipArchive<R>) -> io::Result<Vec<u8>> {
    let f = zip.by_name("content.xml").map_err(crate::zip_error::zip_io)?;
    let mut out = Lines::default();
    // Table cells open (paragraphs inside a cell do not end lines).
    let mut cells = 0usize;
    let mut first_cell = true;
    // Paragraphs and headings open: text outside them is layout.
    let mut paragraphs = 0usize;
    walk(BufReader::new(f), |node| match node {
        Node::Open { name: b"table-row", .. } => {
            first_cell = true;
            Ok(())
        }
        Node::Close { name: b"table-row" } => out.end_line(),
        Node::Open { name: b"table-cell" | b"covered-table-cell", empty, .. } => {
            let sep = if first_cell { Ok(()) } else { out.push(b"\t") };
            first_cell = false;
            if !empty {
                cells += 1;
            }
            sep
        }
        Node::Close { name: b"table-cell" | b"covered-table-cell" } => {
            cells = cells.saturating_sub(1);
            Ok(())
        }
        Node::Open { name: b"p" | b"h", empty: false, .. } => {
            paragraphs += 1;
            Ok(())
        }
        Node::Open { name: b"p" | b"h", empty: true, .. } if cells == 0 => out.end_line(),
        Node::Close { name: b"p" | b"h" } => {
            paragraphs = paragraphs.saturating_sub(1);
            if cells == 0 {
                out.end_line()
            } else {
                out.push(b" ")
            }
        }
        Node::Open { name: b"s", attrs, .. } => {
            let n = attr(attrs, b"c")
                .and_then(|c| std::str::from_utf8(&c).ok()?.parse().ok())
                .unwrap_or(1usize);
            out.push(&b" ".repeat(n.min(1000)))
        }
        Node::Open { name: b"tab", .. } => out.push(b"\t"),
        Node::Open { name: b"line-break", .. } => out.end_line(),
        Node::Text(t) if paragraphs > 0 => out.push(t),
        _ => Ok(()),
    })?;
    Ok(out.text)
}
