//! The texts of a big archive's members, kept in the cache one by one (a
//! pack), so that a search that knows which members may match (from
//! trawl's index) reads only those, without decoding the archive: a
//! 24 MB `.tar.xz` of 300 MB is otherwise decoded whole for one member.
//!
//! A pack is made while the archive is visited for the index
//! ([`Extractor::file_packing`]). It is keyed by the archive's stat key
//! and the extraction's signature, so it is never read for an archive
//! that changed since, or under another extraction. Each row (see
//! [`crate::cache`]) is what the visit met, in order: a member's text
//! (its member path — nested members: the chain —, whether its text comes
//! in pages, its length, and its zstd frame with the frame's BLAKE3
//! hash), or a message (a damaged member, an encrypted one: the name, the
//! text), so a search replays the messages of a damaged archive with the
//! members it reads. Every frame a search reads is checked before any of
//! it is given to the search, so a damaged pack is a miss (the archive is
//! then read whole), never half an answer.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use crate::cache::{stat_key, Cache};
use crate::{Extractor, Flow, Kind, Layout, Member, Origin, Visit};

/// Archives smaller than this are decoded whole each time (cheap).
pub const PACK_MIN: u64 = 256 << 10;

/// A pack is at most this big (the cache holds 4 GiB by default).
const MAX_PACK: u64 = 900 << 20;

/// A row of a pack, beside its frame.
#[derive(Debug, Eq, PartialEq)]
enum Row {
    /// A member's text.
    Member {
        layout: Layout,
        /// Member paths from the outermost archive's member down (not
        /// empty).
        chain: Vec<Vec<u8>>,
        /// The length of its text.
        text_len: u64,
        /// The first 16 bytes of its frame's BLAKE3 hash.
        hash: [u8; 16],
        /// Why its text ended early (a read failed after `text_len`
        /// bytes: a truncated archive).
        failure: Option<String>,
    },
    /// A message the visit gave: an error, or a note (passed over on
    /// purpose).
    Message {
        note: bool,
        /// The name it was given under, after the archive's own name.
        suffix: Vec<u8>,
        text: String,
    },
}

impl Row {
    fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Row::Member { layout, chain, text_len, hash, failure } => {
                let failed = if failure.is_some() { 4 } else { 0 };
                out.push(
                    failed
                        + match layout {
                            Layout::Lines => 0,
                            Layout::Pages => 1,
                        },
                );
                out.extend_from_slice(&text_len.to_le_bytes());
                out.extend_from_slice(hash);
                if let Some(why) = failure {
                    out.extend_from_slice(&(why.len() as u32).to_le_bytes());
                    out.extend_from_slice(why.as_bytes());
                }
                for p in chain {
                    out.extend_from_slice(&(p.len() as u32).to_le_bytes());
                    out.extend_from_slice(p);
                }
            }
            Row::Message { note, suffix, text } => {
                out.push(if *note { 3 } else { 2 });
                out.extend_from_slice(&(suffix.len() as u32).to_le_bytes());
                out.extend_from_slice(suffix);
                out.extend_from_slice(text.as_bytes());
            }
        }
        out
    }

    /// Reads what [`Row::write`] wrote (None: it is not that).
    fn read(b: &[u8]) -> Option<Row> {
        let u32_at = |b: &[u8], at: usize| -> Option<usize> {
            Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize)
        };
        let kind = *b.first()?;
        let layout = match kind {
            0 | 4 => Layout::Lines,
            1 | 5 => Layout::Pages,
            2 | 3 => {
                let n = u32_at(b, 1)?;
                let suffix = b.get(5..5 + n)?.to_vec();
                let text = String::from_utf8(b.get(5 + n..)?.to_vec()).ok()?;
                return Some(Row::Message { note: kind == 3, suffix, text });
            }
            _ => return None,
        };
        let text_len = u64::from_le_bytes(b.get(1..9)?.try_into().ok()?);
        let hash = b.get(9..25)?.try_into().ok()?;
        let mut rest = b.get(25..)?;
        let failure = match kind {
            4 | 5 => {
                let n = u32_at(rest, 0)?;
                let why = String::from_utf8(rest.get(4..4 + n)?.to_vec()).ok()?;
                rest = &rest[4 + n..];
                Some(why)
            }
            _ => None,
        };
        let mut chain = Vec::new();
        while !rest.is_empty() {
            let n = u32_at(rest, 0)?;
            chain.push(rest.get(4..4 + n)?.to_vec());
            rest = &rest[4 + n..];
        }
        (!chain.is_empty()).then_some(Row::Member { layout, chain, text_len, hash, failure })
    }
}

fn frame_hash(frame: &[u8]) -> [u8; 16] {
    let mut h = [0; 16];
    h.copy_from_slice(&blake3::hash(frame).as_bytes()[..16]);
    h
}

/// Whether [`Extractor::file_packing`] kept a pack.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Packed {
    /// No (not a big archive, nothing to keep, or the cache refused it).
    No,
    /// Yes: every member's text was extracted.
    Whole,
    /// Yes, with the messages the visit gave (a damaged or encrypted
    /// member): a search replays them.
    WithMessages,
}

/// Records what an archive's visit gives its visitor.
struct Packing<'v, 'p> {
    inner: &'v mut dyn Visit,
    /// The archive's own name (messages are kept by what follows it).
    path: &'p [u8],
    /// The frames, in an unnamed temporary file (None: not packed).
    frames: Option<File>,
    end: u64,
    /// Each row, with where its frame is.
    rows: Vec<(Row, u64, u64)>,
}

impl Packing<'_, '_> {
    fn abandon(&mut self) {
        self.frames = None;
    }

    fn record(
        &mut self,
        name: &[u8],
        data: &mut dyn Read,
        origin: Origin<'_>,
        layout: Layout,
    ) -> Flow {
        // Only members are packed: a file whose text is one stream is
        // not an archive.
        let Some(member) = origin.member() else {
            self.abandon();
            return self.pass(name, data, origin, layout);
        };
        if self.frames.is_none() {
            return self.pass(name, data, origin, layout);
        }
        let enc = zstd::stream::Encoder::new(Vec::new(), 3)
            .and_then(|mut e| e.include_checksum(true).map(|()| e));
        let Ok(enc) = enc else {
            self.abandon();
            return self.pass(name, data, origin, layout);
        };
        let mut tee = Tee { inner: data, enc: Some(enc), read: 0, failure: None };
        let flow = self.pass(name, &mut tee, origin, layout);
        // The rest, had the visitor not read to the end, for the frame; a
        // text whose reading failed is kept as far as it was read, with
        // the failure (its search reads that much, then fails the same
        // way).
        if tee.failure.is_none() && io::copy(&mut tee, &mut io::sink()).is_err() {
            self.abandon();
        }
        let failure = tee.failure.take();
        if failure.as_ref().is_some_and(|f| memchr::memmem::find(f.as_bytes(), self.path).is_some())
        {
            self.abandon();
        }
        let frame = tee.enc.take().and_then(|e| e.finish().ok());
        match (frame, &self.frames) {
            (Some(frame), Some(file)) if self.end + frame.len() as u64 <= MAX_PACK => {
                if file.write_all_at(&frame, self.end).is_err() {
                    self.abandon();
                    return flow;
                }
                let chain = member.chain().into_iter().map(<[u8]>::to_vec).collect();
                let (text_len, hash) = (tee.read, frame_hash(&frame));
                let row = Row::Member { layout, chain, text_len, hash, failure };
                self.rows.push((row, self.end, frame.len() as u64));
                self.end += frame.len() as u64;
            }
            _ => self.abandon(),
        }
        flow
    }

    /// Keeps a message, to be replayed as it was given: one naming the
    /// archive's path in its text could not be (a search may name the
    /// archive otherwise), and is not packed.
    fn message(&mut self, name: &[u8], err: &io::Error, note: bool) {
        let text = err.to_string();
        let suffix = name.strip_prefix(self.path);
        let names_path = memchr::memmem::find(text.as_bytes(), self.path).is_some();
        match suffix {
            Some(suffix) if !names_path && !self.path.is_empty() => {
                let row = Row::Message { note, suffix: suffix.to_vec(), text };
                self.rows.push((row, self.end, 0));
            }
            _ => self.abandon(),
        }
    }

    fn pass(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>, l: Layout) -> Flow {
        l.hand(self.inner, name, data, origin)
    }
}

impl Visit for Packing<'_, '_> {
    fn text(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow {
        self.record(name, data, origin, Layout::Lines)
    }

    fn pages(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow {
        self.record(name, data, origin, Layout::Pages)
    }

    fn error(&mut self, name: &[u8], err: &io::Error) {
        self.message(name, err, false);
        self.inner.error(name, err);
    }

    fn note(&mut self, name: &[u8], err: &io::Error) {
        self.message(name, err, true);
        self.inner.note(name, err);
    }

    /// Warnings are of the run (the cache), not of the archive.
    fn warning(&mut self, name: &[u8], err: &io::Error) {
        self.inner.warning(name, err);
    }
}

/// Compresses what is read through it.
struct Tee<'r, 'e> {
    inner: &'r mut dyn Read,
    enc: Option<zstd::stream::Encoder<'e, Vec<u8>>>,
    read: u64,
    /// Why a read failed.
    failure: Option<String>,
}

impl Read for Tee<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf).inspect_err(|e| {
            if e.kind() != io::ErrorKind::Interrupted {
                self.failure.get_or_insert_with(|| e.to_string());
            }
        })?;
        self.read += n as u64;
        if let Some(enc) = &mut self.enc {
            if io::Write::write_all(enc, &buf[..n]).is_err() {
                self.enc = None;
            }
        }
        Ok(n)
    }
}

/// A member's text from a pack: its bytes, then the failure that ended
/// it, if one did.
struct Replayed<'t> {
    text: &'t [u8],
    at: usize,
    failure: Option<String>,
}

impl Read for Replayed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.text[self.at..];
        if rest.is_empty() {
            return match self.failure.take() {
                Some(why) => Err(io::Error::other(why)),
                None => Ok(0),
            };
        }
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

/// Calls `f` with the member whose chain of paths is `chain` (outermost
/// first; not empty).
fn with_member<R>(
    chain: &[Vec<u8>],
    parent: Option<&Member<'_>>,
    f: impl FnOnce(&Member<'_>) -> R,
) -> R {
    let m = Member { path: &chain[0], parent };
    match chain.len() {
        1 => f(&m),
        _ => with_member(&chain[1..], Some(&m), f),
    }
}

impl Extractor {
    /// Whether [`Extractor::file_packing`] packs a file of kind `kind`
    /// and `size` bytes (whose members are then indexed one by one).
    pub fn packs(&self, kind: Kind, size: u64) -> bool {
        let archive = matches!(kind, Kind::Tar | Kind::Zip | Kind::Compressed(_));
        archive && size >= PACK_MIN && self.cache_dir.is_some() && self.limits.max_depth > 0
    }

    /// The cache key of `file`'s pack under this extraction.
    fn pack_key(&self, file: &File) -> io::Result<Vec<u8>> {
        let sig = self.signature_hash.get_or_init(|| *blake3::hash(&self.signature()).as_bytes());
        let mut tool = b"pack 2 ".to_vec();
        tool.extend_from_slice(sig);
        stat_key(file, &tool)
    }

    /// Visits the text inside `file` as [`Extractor::file`] does; when
    /// [`Extractor::packs`] says so, also keeps each member's text (and
    /// each message) in the cache (a pack), so that a search that knows
    /// which members may match reads only those
    /// ([`Extractor::members_from_pack`]).
    pub fn file_packing(
        &self,
        path: &[u8],
        file: &File,
        kind: Kind,
        visit: &mut dyn Visit,
    ) -> (Flow, Packed) {
        let size = file.metadata().map_or(0, |m| m.len());
        if !self.packs(kind, size) {
            return (self.file(path, file, kind, visit), Packed::No);
        }
        let key = self.pack_key(file);
        let frames = self.cache_dir.as_deref().and_then(|d| tempfile::tempfile_in(d).ok());
        let mut packing = Packing { inner: visit, path, frames, end: 0, rows: Vec::new() };
        let flow = self.file(path, file, kind, &mut packing);
        let (Some(frames), Ok(key)) = (packing.frames, key) else { return (flow, Packed::No) };
        let members = packing.rows.iter().filter(|(r, ..)| matches!(r, Row::Member { .. })).count();
        if flow != Flow::Continue || members == 0 {
            return (flow, Packed::No);
        }
        let failed = |r: &Row| matches!(r, Row::Member { failure: Some(_), .. });
        let messages = packing.rows.len() > members || packing.rows.iter().any(|(r, ..)| failed(r));
        let rows = packing.rows.iter().map(|(row, at, len)| {
            let mut frame = vec![0; *len as usize];
            frames.read_exact_at(&mut frame, *at)?;
            let member = matches!(row, Row::Member { .. });
            let replay = !member || failed(row);
            Ok(crate::cache::PackRow { meta: row.write(), member, replay, frame })
        });
        let kept = match self.cache_for(packing.inner) {
            Some(cache) => cache.put_pack(&key, rows).is_ok(),
            None => false,
        };
        let packed = match (kept, messages) {
            (false, _) => Packed::No,
            (true, false) => Packed::Whole,
            (true, true) => Packed::WithMessages,
        };
        (flow, packed)
    }

    /// Visits, from `file`'s pack, the members at the places `wanted`
    /// (growing; of `count` members with text, in the order
    /// [`Extractor::file`] visits them), and replays every message of the
    /// visit, in order, as [`Extractor::file`] would give them. None when
    /// the cache holds no pack of the file as it is now under this
    /// extraction, or it is damaged (nothing was visited: the caller
    /// visits the file whole).
    pub fn members_from_pack(
        &self,
        path: &[u8],
        file: &File,
        (count, wanted): (u32, &[u32]),
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        let cache: &Cache = self.cache_for(visit)?;
        let key = self.pack_key(file).ok()?;
        let (pack, stored) = cache.pack(&key).ok()??;
        if stored != count {
            return None;
        }
        // Every row read and checked before anything is visited; the
        // messages and the members wanted, in the order of the visit.
        let mut found = cache.pack_replays(pack).ok()?;
        for &ordinal in wanted {
            found.push(cache.pack_member(pack, ordinal).ok()??);
        }
        found.sort_by_key(|(k, ..)| *k);
        found.dedup_by_key(|(k, ..)| *k);
        let mut rows = Vec::with_capacity(found.len());
        for (k, meta, frame) in found {
            match Row::read(&meta)? {
                row @ Row::Message { .. } => rows.push((k, row, frame)),
                row @ Row::Member { hash, .. } if frame_hash(&frame) == hash => {
                    rows.push((k, row, frame))
                }
                _ => return None,
            }
        }
        let mut decoder = zstd::bulk::Decompressor::new().ok()?;
        for (_, row, frame) in rows {
            let (layout, chain, text_len, failure) = match row {
                Row::Message { note, suffix, text } => {
                    let name = [path, &suffix].concat();
                    let err = io::Error::other(text);
                    match note {
                        true => visit.note(&name, &err),
                        false => visit.error(&name, &err),
                    }
                    continue;
                }
                Row::Member { layout, chain, text_len, failure, .. } => {
                    (layout, chain, text_len, failure)
                }
            };
            let text = match decoder.decompress(&frame, text_len as usize) {
                Ok(t) if t.len() as u64 == text_len => t,
                _ => {
                    let err = io::Error::other("extraction cache: a damaged member text");
                    visit.error(path, &err);
                    return Some(Flow::Continue);
                }
            };
            let mut name = path.to_vec();
            for p in &chain {
                name = crate::member_name(&name, p);
            }
            let mut read = Replayed { text: &text, at: 0, failure };
            let flow = with_member(&chain, None, |m| {
                let origin = Origin::Member(m);
                layout.hand(visit, &name, &mut read, origin)
            });
            if flow == Flow::Stop {
                return Some(Flow::Stop);
            }
        }
        Some(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_description_is_read_back_and_a_damaged_one_refused() {
        let member = Row::Member {
            layout: Layout::Pages,
            chain: vec![b"in.zip".to_vec(), b"doc.pdf".to_vec()],
            text_len: 40,
            hash: [9; 16],
            failure: None,
        };
        let bytes = member.write();
        assert_eq!(Row::read(&bytes).unwrap(), member);
        assert!(Row::read(&bytes[..bytes.len() - 1]).is_none());
        assert!(Row::read(&bytes[..25]).is_none(), "no member path");
        let mut bad = bytes.clone();
        bad[0] = 6;
        assert!(Row::read(&bad).is_none());
        let message =
            Row::Message { note: true, suffix: b"{x.txt}".to_vec(), text: "encrypted".into() };
        assert_eq!(Row::read(&message.write()).unwrap(), message);
        let error = Row::Message { note: false, suffix: Vec::new(), text: String::new() };
        assert_eq!(Row::read(&error.write()).unwrap(), error);
        let cut = Row::Member {
            layout: Layout::Lines,
            chain: vec![b"a.c".to_vec()],
            text_len: 7,
            hash: [1; 16],
            failure: Some("incomplete deflate stream".into()),
        };
        assert_eq!(Row::read(&cut.write()).unwrap(), cut);
    }

    #[test]
    fn a_nested_member_is_given_with_its_chain() {
        let chain = vec![b"x.tgz".to_vec(), b"y.zip".to_vec(), b"z.txt".to_vec()];
        let got = with_member(&chain, None, |m| {
            m.chain().into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>()
        });
        assert_eq!(got, chain);
    }
}
