//! Extracted text for the index: how the caller (which knows extraction:
//! archive members, documents' text) hands a build the text streams a
//! search that extracts would read inside a file.

use std::fs::File;
use std::path::Path;

/// Extracted text for the index: what a search that extracts (archive
/// members, documents' text) reads of a file.
pub trait Texts: Sync {
    /// Feeds the text streams inside `file` (opened as `path`) to `out`,
    /// each begun with [`TextSink::begin`] and given in pieces; None when
    /// the file is searched as its bytes.
    fn texts(&self, path: &Path, file: &File, out: &mut dyn TextSink) -> Option<Extraction>;
}

/// What extraction made of a file.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Extraction {
    /// All its text was extracted.
    Complete,
    /// Some of it could not be: a search that extracts always reads the
    /// file (and says why).
    Failed,
    /// Some could not be, but what a search needs was kept: an archive
    /// whose members' texts and messages are in the cache (a pack), so a
    /// search reads the members that may match and replays the messages.
    Replayable,
}

/// How a text stream of a file is indexed.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum StreamKind {
    /// As part of the file's one text (a document's, a compressed file's,
    /// a small archive's members together).
    Part,
    /// As a member of its own: an archive whose members' texts a search
    /// can read one by one. A file's streams are all parts or all members.
    Member,
}

/// Receives the text streams of a file.
pub trait TextSink {
    /// A new stream begins.
    fn begin(&mut self, kind: StreamKind);
    /// More of the stream's text.
    fn add(&mut self, text: &[u8]);
}
