//! The shared part of reading a document's XML: events with namespace
//! prefixes dropped, text with its references resolved, and a limit on how
//! much text one document may produce.

use std::io::{self, BufRead};

use quick_xml::events::{BytesRef, Event};
use quick_xml::Reader;

/// An XML event reduced to what text extraction needs.
pub(super) enum Node<'a> {
    /// An element opens (`empty`: it closes at once, `<x/>`).
    Open { name: &'a [u8], attrs: &'a quick_xml::events::BytesStart<'a>, empty: bool },
    /// An element closes.
    Close { name: &'a [u8] },
    /// Character data, references resolved.
    Text(&'a [u8]),
}

/// The most text one document may produce.
pub(super) const MAX_TEXT: usize = 1 << 30;

/// Calls `each` for every event of the XML in `r`.
pub(super) fn walk(
    r: impl BufRead,
    mut each: impl FnMut(Node<'_>) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader = Reader::from_reader(r);
    reader.config_mut().check_end_names = false;
    let mut buf = Vec::new();
    let mut text = Vec::new();
    loop {
        buf.clear();
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
        match event {
            Event::Start(e) => each(Node::Open {
                name: local(e.name().into_inner().as_bytes()),
                attrs: &e,
                empty: false,
            })?,
            Event::Empty(e) => each(Node::Open {
                name: local(e.name().into_inner().as_bytes()),
                attrs: &e,
                empty: true,
            })?,
            Event::End(e) => each(Node::Close { name: local(e.name().into_inner().as_bytes()) })?,
            Event::Text(t) => each(Node::Text(t.xml10_content().as_bytes()))?,
            Event::CData(t) => each(Node::Text(t.as_bytes()))?,
            Event::GeneralRef(r) => {
                text.clear();
                resolve(&r, &mut text);
                each(Node::Text(&text))?;
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// The name without its namespace prefix (`w:p` → `p`).
fn local(name: &[u8]) -> &[u8] {
    match memchr_colon(name) {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

fn memchr_colon(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b':')
}

/// Appends the text an entity or character reference stands for (the XML
/// ones, and the HTML ones e-books use most; others are dropped).
fn resolve(r: &BytesRef<'_>, out: &mut Vec<u8>) {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        let mut b = [0u8; 4];
        out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
        return;
    }
    let s: &str = match &**r {
        "lt" => "<",
        "gt" => ">",
        "amp" => "&",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => "\u{a0}",
        "mdash" => "\u{2014}",
        "ndash" => "\u{2013}",
        "hellip" => "\u{2026}",
        "rsquo" => "\u{2019}",
        "lsquo" => "\u{2018}",
        "ldquo" => "\u{201c}",
        "rdquo" => "\u{201d}",
        "copy" => "\u{a9}",
        _ => "",
    };
    out.extend_from_slice(s.as_bytes());
}

/// The value of attribute `name` (prefix ignored) of an element.
pub(super) fn attr(e: &quick_xml::events::BytesStart<'_>, name: &[u8]) -> Option<Vec<u8>> {
    let a = e.attributes().flatten().find(|a| local(a.key.into_inner().as_bytes()) == name)?;
    let value = a
        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .map(|v| v.into_owned())
        .unwrap_or_else(|_| a.value.into_owned());
    Some(value.into_bytes())
}

/// Text being built, one paragraph per line; fails past [`MAX_TEXT`].
#[derive(Default)]
pub(super) struct Lines {
    pub(super) text: Vec<u8>,
}

impl Lines {
    pub(super) fn push(&mut self, b: &[u8]) -> io::Result<()> {
        if self.text.len() + b.len() > MAX_TEXT {
            return Err(io::Error::other("document text over 1 GiB: not searched further"));
        }
        self.text.extend_from_slice(b);
        Ok(())
    }

    /// Ends the current line (never two empty lines for one break).
    pub(super) fn end_line(&mut self) -> io::Result<()> {
        self.push(b"\n")
    }

    /// Ends the current line unless it is empty.
    pub(super) fn end_nonempty_line(&mut self) -> io::Result<()> {
        if self.text.last().is_some_and(|&b| b != b'\n') {
            self.push(b"\n")?;
        }
        Ok(())
    }
}
