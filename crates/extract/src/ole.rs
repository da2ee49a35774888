//! Which legacy Office document an OLE2 compound file holds, from the
//! streams at its root (read through the `cfb` crate).

use std::fs::File;
use std::io;

/// A legacy Office document.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Office {
    /// Word 97–2003 (`WordDocument`).
    Word,
    /// Excel 5–2003 (`Workbook`, or `Book` before Excel 97).
    Excel,
}

/// The document `file` holds; None for another kind of compound file
/// (PowerPoint, an installer, a mail message…: searched as bytes); an
/// error when it is damaged.
pub(crate) fn office(file: &File) -> io::Result<Option<Office>> {
    let compound = cfb::CompoundFile::open(crate::Positional { file, at: 0 }).map_err(|e| {
        io::Error::new(io::ErrorKind::InvalidData, format!("damaged OLE2 compound file: {e}"))
    })?;
    Ok(if compound.is_stream("/WordDocument") {
        Some(Office::Word)
    } else if compound.is_stream("/Workbook") || compound.is_stream("/Book") {
        Some(Office::Excel)
    } else {
        None
    })
}
