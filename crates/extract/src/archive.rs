//! Archives: the members of a tar (read as a stream) and of a zip (read
//! through its central directory), each handed back to the extractor, so a
//! member may itself be compressed or an archive.

use std::cell::Cell;
use std::io::{self, Read, Seek};
use std::rc::Rc;

use crate::guard::Guard;

use crate::{member_name, Extractor, Flow, Member, Origin, Visit};

impl Extractor {
    /// Visits the regular files of a tar archive, in archive order. A
    /// damaged header ends the archive (a stream cannot skip it) with an
    /// error naming it.
    pub(crate) fn tar(
        &self,
        name: &[u8],
        r: impl Read,
        depth: usize,
        origin: Origin<'_>,
        visit: &mut dyn Visit,
    ) -> Flow {
        let mut archive = tar::Archive::new(r);
        let entries = match archive.entries() {
            Ok(entries) => entries,
            Err(e) => {
                visit.error(name, &e);
                return Flow::Continue;
            }
        };
        for (n, entry) in entries.enumerate() {
            let mut entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let what = format!("damaged tar archive after {n} members: {}", plain(&e));
                    visit.error(name, &io::Error::new(e.kind(), what));
                    return Flow::Continue;
                }
            };
            if !entry.header().entry_type().is_file() {
                continue;
            }
            let path = entry.path_bytes().into_owned();
            let member = member_name(name, &path);
            let inner = Member { path: &path, parent: origin.member() };
            if self.stream_from(&member, &mut entry, (depth, None), Origin::Member(&inner), visit)
                == Flow::Stop
            {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }

    /// Visits the files of a zip archive, in central-directory order. An
    /// encrypted member gets one note and its siblings are still searched;
    /// a damaged member is reported and skipped.
    pub(crate) fn zip(
        &self,
        name: &[u8],
        r: impl Read + Seek,
        depth: usize,
        origin: Origin<'_>,
        visit: &mut dyn Visit,
    ) -> Flow {
        let mut archive = match zip::ZipArchive::new(r) {
            Ok(archive) => archive,
            Err(e) => {
                visit.error(name, &crate::zip_error::zip_io(e));
                return Flow::Continue;
            }
        };
        if self.limits.documents {
            if let Some(doc) = crate::document::detect(&mut archive) {
                return match crate::document::text(&mut archive, doc) {
                    Ok(text) => visit.text(name, &mut &text[..], origin),
                    Err(e) => {
                        visit.error(name, &e);
                        Flow::Continue
                    }
                };
            }
        }
        for i in 0..archive.len() {
            let (path, encrypted, packed) = match archive.by_index_raw(i) {
                Ok(f) if f.is_dir() => continue,
                Ok(f) => (f.name_raw().to_vec(), f.encrypted(), f.compressed_size()),
                Err(e) => {
                    visit.error(name, &crate::zip_error::zip_io(e));
                    continue;
                }
            };
            let member = member_name(name, &path);
            if encrypted {
                let e = io::Error::other("encrypted member, not searched");
                visit.note(&member, &e);
                continue;
            }
            let flow = match archive.by_index(i) {
                Ok(f) => {
                    // The member's compressed size bounds how far it may grow.
                    let packed = Rc::new(Cell::new(packed));
                    let mut f = Guard::new(f, packed, self.limits.bombs);
                    let inner = Member { path: &path, parent: origin.member() };
                    self.stream_from(&member, &mut f, (depth, None), Origin::Member(&inner), visit)
                }
                Err(e) => {
                    visit.error(&member, &crate::zip_error::zip_io(e));
                    Flow::Continue
                }
            };
            if flow == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Continue
    }
}

/// An error's text with what a terminal should not see replaced, and cut
/// short (the tar crate quotes whole damaged headers).
fn plain(e: &io::Error) -> String {
    let text: String = e
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' })
        .take(100)
        .collect();
    text
}
