//! Office files and e-books, read in-process: a zip whose members say it
//! is a DOCX, PPTX, XLSX, ODT/ODS/ODP or EPUB becomes one text stream, a
//! paragraph (or table row) per line, taken from its XML.

use std::io::{self, Read, Seek};

use zip::ZipArchive;

mod epub;
mod odf;
mod ooxml;
mod xml;

/// A document format inside a zip container.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Document {
    /// Word (Office Open XML).
    Docx,
    /// PowerPoint (Office Open XML).
    Pptx,
    /// Excel (Office Open XML).
    Xlsx,
    /// OpenDocument text, spreadsheet or presentation.
    OpenDocument,
    /// EPUB e-book.
    Epub,
}

/// Which document a zip holds, if any (told by its members).
pub(crate) fn detect<R: Read + Seek>(zip: &mut ZipArchive<R>) -> Option<Document> {
    if let Ok(mut f) = zip.by_name("mimetype") {
        let mut mime = Vec::new();
        if f.by_ref().take(100).read_to_end(&mut mime).is_ok() {
            let mime = mime.trim_ascii();
            if mime == b"application/epub+zip" {
                return Some(Document::Epub);
            }
            if mime.starts_with(b"application/vnd.oasis.opendocument.") {
                return Some(Document::OpenDocument);
            }
        }
    }
    let has = |zip: &ZipArchive<R>, name: &str| zip.index_for_name(name).is_some();
    if has(zip, "word/document.xml") {
        Some(Document::Docx)
    } else if has(zip, "ppt/presentation.xml") {
        Some(Document::Pptx)
    } else if has(zip, "xl/workbook.xml") {
        Some(Document::Xlsx)
    } else {
        None
    }
}

/// The text of `doc`, read from `zip`.
pub(crate) fn text<R: Read + Seek>(zip: &mut ZipArchive<R>, doc: Document) -> io::Result<Vec<u8>> {
    match doc {
        Document::Docx => ooxml::docx(zip),
        Document::Pptx => ooxml::pptx(zip),
        Document::Xlsx => ooxml::xlsx(zip),
        Document::OpenDocument => odf::text(zip),
        Document::Epub => epub::text(zip),
    }
}

#[cfg(test)]
mod tests;
