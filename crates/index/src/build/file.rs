//! Reading one regular file for the index: its stat key, its class (text,
//! binary, transcoded, looks random) and the trigrams of its bytes, posted
//! under its number; with extraction, the trigrams of the text a search
//! that extracts reads inside it (one text, or each member of a big
//! archive under a stream number of its own).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::Ordering;

use super::pending::Pending;
use super::shared::Shared;
use crate::grams::GramSet;
use crate::segment::{
    looks_random, Class, Entry, Extracted, Side, StatKey, EXTRACTED, FILTERED, STREAM,
};
use crate::texts::{Extraction, StreamKind, TextSink};

/// What a walking thread reads files with.
pub(crate) struct Reading<'s, 'a> {
    pub(crate) shared: &'s Shared<'a>,
    pub(crate) grams: GramSet,
    pub(crate) postings: Pending,
    /// Reads go here: the size of a search's first read, whose NUL makes
    /// the file binary (trawl_search::READ_SIZE: a search with `-I` passes
    /// over a file the index found binary unopened).
    pub(crate) buf: Vec<u8>,
}

impl<'s, 'a> Reading<'s, 'a> {
    /// A thread's reading, its pairs spilled beside the index.
    pub(crate) fn new(shared: &'s Shared<'a>) -> Self {
        Reading {
            shared,
            grams: GramSet::default(),
            postings: Pending::new(shared.spill_dir),
            buf: vec![0u8; trawl_search::READ_SIZE],
        }
    }

    /// Reads the regular file `opened` as (`path`), numbered `id`, into
    /// `entry` (its key, class and extraction) and the postings.
    pub(crate) fn file(
        &mut self,
        path: &Path,
        opened: io::Result<File>,
        id: u32,
        entry: &mut Entry,
    ) {
        let shared = self.shared;
        let buf = &mut self.buf[..];
        let grams = &mut self.grams;
        let read = opened.and_then(|mut f: File| {
            let md = f.metadata()?;
            if !md.is_file() {
                return Err(io::Error::other("not a regular file"));
            }
            entry.key = StatKey::from_metadata(&md);
            let mut first = true;
            let mut binary = false;
            let mut transcoded = false;
            let mut total = 0u64;
            loop {
                let n = match f.read(buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                if first {
                    binary = buf[..n].contains(&0);
                    transcoded = trawl_search::has_bom(&buf[..n]);
                    first = false;
                }
                grams.add(&buf[..n]);
                total += n as u64;
            }
            shared.progress.bytes.fetch_add(total, Ordering::Relaxed);
            Ok((binary, transcoded, f))
        });
        let (binary, transcoded, f) = match read {
            Ok(read) => read,
            Err(e) => {
                self.grams.take_sorted();
                entry.class = Class::Unreadable;
                shared.unreadable(path.to_path_buf(), e);
                return;
            }
        };
        entry.class = match (transcoded, binary) {
            (true, _) => Class::Transcoded,
            (false, true) => Class::Binary,
            (false, false) => Class::Text,
        };
        shared.progress.files.fetch_add(1, Ordering::Relaxed);
        let raw = self.grams.take_sorted();
        let random = looks_random(raw.len(), entry.key.size);
        if random {
            entry.class = Class::Unindexed;
        } else {
            self.postings.add(id, &raw);
        }
        if let Some(texts) = shared.texts {
            use std::io::Seek;
            let mut sink = Sink {
                shared,
                grams: &mut self.grams,
                postings: &mut self.postings,
                fed: 0,
                parts: 0,
                member_open: false,
                members: Vec::new(),
            };
            let found = match (&f).seek(io::SeekFrom::Start(0)) {
                Ok(_) => texts.texts(path, &f, &mut sink),
                Err(_) => Some(Extraction::Failed),
            };
            entry.extracted = sink.finish(id, found);
        }
        // Random bytes are filtered when they are what searches read: a
        // file with extracted text (a PDF, a zip) is read as its bytes only
        // by a search that does not extract, which reads it whole (a filter
        // of the compressed streams of every PDF would be half their size).
        if random && entry.extracted == Extracted::Nothing {
            shared.filter(id, &raw);
        }
    }
}

/// Where a file's extracted text goes: the grams of its parts are
/// gathered into one set, each member's are posted under a stream number
/// of its own when it ends.
struct Sink<'r, 's, 'a> {
    shared: &'s Shared<'a>,
    grams: &'r mut GramSet,
    postings: &'r mut Pending,
    /// Bytes of the open member, or of all the parts.
    fed: u64,
    /// Parts begun.
    parts: u64,
    /// A member's stream is open.
    member_open: bool,
    /// Members ended: their stream numbers (with FILTERED when filtered).
    members: Vec<u32>,
}

impl TextSink for Sink<'_, '_, '_> {
    fn begin(&mut self, kind: StreamKind) {
        if self.member_open {
            self.end_member();
        }
        match kind {
            StreamKind::Part => self.parts += 1,
            StreamKind::Member => self.member_open = true,
        }
    }

    fn add(&mut self, text: &[u8]) {
        self.fed += text.len() as u64;
        self.grams.add(text);
    }
}

impl Sink<'_, '_, '_> {
    /// Posts (or filters) the member whose text was fed since it began.
    fn end_member(&mut self) {
        let grams = self.grams.take_sorted();
        let n = self.shared.next_stream.fetch_add(1, Ordering::Relaxed);
        if looks_random(grams.len(), self.fed) {
            self.shared.filter(STREAM | n, &grams);
            self.members.push(n | FILTERED);
        } else {
            self.postings.add(STREAM | n, &grams);
            self.members.push(n);
        }
        self.fed = 0;
        self.member_open = false;
    }

    /// What the extraction (`found`, as [`crate::texts::Texts::texts`]
    /// returned it) made of the file numbered `id`; its text posted.
    fn finish(mut self, id: u32, found: Option<Extraction>) -> Extracted {
        if self.member_open {
            self.end_member();
        }
        let text = self.grams.take_sorted();
        let members = !self.members.is_empty();
        let done = match found {
            None => return Extracted::Nothing,
            Some(Extraction::Failed) => return Extracted::Failed,
            // Parts and members together are not told apart: the file is
            // always read.
            Some(_) if members && self.parts > 0 => return Extracted::Failed,
            Some(done) => done,
        };
        match (done, members) {
            (Extraction::Complete | Extraction::Replayable, true) => {
                let list: Vec<u8> = self.members.iter().flat_map(|n| n.to_le_bytes()).collect();
                self.shared.side(id | EXTRACTED, &list, Side::Streams);
                match done {
                    Extraction::Complete => Extracted::Streams,
                    _ => Extracted::StreamsReported,
                }
            }
            (Extraction::Complete, false) if looks_random(text.len(), self.fed) => {
                self.shared.filter(id | EXTRACTED, &text);
                Extracted::Unindexed
            }
            (Extraction::Complete, false) => {
                self.postings.add(id | EXTRACTED, &text);
                Extracted::Text
            }
            _ => Extracted::Failed,
        }
    }
}
