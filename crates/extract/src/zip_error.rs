//! The zip crate's errors as I/O errors, for archives and for the
//! documents that are zip files inside (DOCX, ODF, EPUB).

use std::io;

/// A zip error as an I/O error with the zip crate's words.
pub(crate) fn zip_io(e: zip::result::ZipError) -> io::Error {
    match e {
        zip::result::ZipError::Io(e) => e,
        e => io::Error::new(io::ErrorKind::InvalidData, e.to_string()),
    }
}
