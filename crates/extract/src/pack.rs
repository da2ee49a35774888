//! The texts of a big archive's members, kept in the cache one by one (a
//! pack), so that a search that knows which members may match (from
//! trawl's index) reads only those, without decoding the archive: a
//! 24 MB `.tar.xz` of 300 MB is otherwise decoded whole for one member.
//!
//! A pack is made while the archive is visited for the index
//! ([`Extractor::file_packing`]), and only when every member's text was
//! extracted (no error, no note). It is keyed by the archive's stat key
//! and the extraction's signature, so it is never read for an archive
//! that changed since, or under another extraction. Each member is a row
//! (see [`crate::cache`]): its member path (nested members: the chain),
//! whether its text comes in pages, the length of its text, and its zstd
//! frame with the frame's BLAKE3 hash: every frame a search reads is
//! checked before any of it is given to the search, so a damaged pack is
//! a miss (the archive is then read whole), never half an answer.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;

use crate::cache::{stat_key, Cache};
use crate::{Extractor, Flow, Kind, Member, Origin, Visit};

/// Archives smaller than this are decoded whole each time (cheap).
pub const PACK_MIN: u64 = 1 << 20;

/// A pack is at most this big (the cache holds 4 GiB by default).
const MAX_PACK: u64 = 900 << 20;

/// How a member's text was given: lines, or pages (a document).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Layout {
    Lines,
    Pages,
}

/// What a pack says of a member, beside its frame.
#[derive(Debug, Eq, PartialEq)]
struct Meta {
    layout: Layout,
    /// Member paths from the outermost archive's member down (not empty).
    chain: Vec<Vec<u8>>,
    /// The length of its text.
    text_len: u64,
    /// The first 16 bytes of its frame's BLAKE3 hash.
    hash: [u8; 16],
}

impl Meta {
    fn write(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.push(match self.layout {
            Layout::Lines => 0,
            Layout::Pages => 1,
        });
        out.extend_from_slice(&self.text_len.to_le_bytes());
        out.extend_from_slice(&self.hash);
        for p in &self.chain {
            out.extend_from_slice(&(p.len() as u32).to_le_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    /// Reads what [`Meta::write`] wrote (None: it is not that).
    fn read(b: &[u8]) -> Option<Meta> {
        let layout = match *b.first()? {
            0 => Layout::Lines,
            1 => Layout::Pages,
            _ => return None,
        };
        let text_len = u64::from_le_bytes(b.get(1..9)?.try_into().ok()?);
        let hash = b.get(9..25)?.try_into().ok()?;
        let mut rest = b.get(25..)?;
        let mut chain = Vec::new();
        while !rest.is_empty() {
            let n = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
            chain.push(rest.get(4..4 + n)?.to_vec());
            rest = &rest[4 + n..];
        }
        (!chain.is_empty()).then_some(Meta { layout, chain, text_len, hash })
    }
}

fn frame_hash(frame: &[u8]) -> [u8; 16] {
    let mut h = [0; 16];
    h.copy_from_slice(&blake3::hash(frame).as_bytes()[..16]);
    h
}

/// Records the members' texts of an archive as they go by to the visitor
/// of its visit.
struct Packing<'v> {
    inner: &'v mut dyn Visit,
    /// The frames, in an unnamed temporary file (None: not packed).
    frames: Option<File>,
    end: u64,
    /// Each member's description, and where its frame is.
    members: Vec<(Meta, u64, u64)>,
}

impl Packing<'_> {
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
        let mut tee = Tee { inner: data, enc: Some(enc), read: 0 };
        let flow = self.pass(name, &mut tee, origin, layout);
        // The rest, had the visitor not read to the end, for the frame.
        if io::copy(&mut tee, &mut io::sink()).is_err() {
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
                let meta = Meta { layout, chain, text_len: tee.read, hash: frame_hash(&frame) };
                self.members.push((meta, self.end, frame.len() as u64));
                self.end += frame.len() as u64;
            }
            _ => self.abandon(),
        }
        flow
    }

    fn pass(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>, l: Layout) -> Flow {
        match l {
            Layout::Lines => self.inner.text(name, data, origin),
            Layout::Pages => self.inner.pages(name, data, origin),
        }
    }
}

impl Visit for Packing<'_> {
    fn text(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow {
        self.record(name, data, origin, Layout::Lines)
    }

    fn pages(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow {
        self.record(name, data, origin, Layout::Pages)
    }

    fn error(&mut self, name: &[u8], err: &io::Error) {
        self.abandon();
        self.inner.error(name, err);
    }

    fn note(&mut self, name: &[u8], err: &io::Error) {
        self.abandon();
        self.inner.note(name, err);
    }

    fn warning(&mut self, name: &[u8], err: &io::Error) {
        self.inner.warning(name, err);
    }
}

/// Compresses what is read through it.
struct Tee<'r, 'e> {
    inner: &'r mut dyn Read,
    enc: Option<zstd::stream::Encoder<'e, Vec<u8>>>,
    read: u64,
}

impl Read for Tee<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if let Some(enc) = &mut self.enc {
            if io::Write::write_all(enc, &buf[..n]).is_err() {
                self.enc = None;
            }
        }
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
        let mut tool = b"pack 1 ".to_vec();
        tool.extend_from_slice(sig);
        stat_key(file, &tool)
    }

    /// Visits the text inside `file` as [`Extractor::file`] does; when
    /// [`Extractor::packs`] says so, also keeps each member's text in the
    /// cache (a pack), so that a search that knows which members may match
    /// reads only those ([`Extractor::members_from_pack`]). The flow, and
    /// whether a pack was kept.
    pub fn file_packing(
        &self,
        path: &[u8],
        file: &File,
        kind: Kind,
        visit: &mut dyn Visit,
    ) -> (Flow, bool) {
        let size = file.metadata().map_or(0, |m| m.len());
        if !self.packs(kind, size) {
            return (self.file(path, file, kind, visit), false);
        }
        let key = self.pack_key(file);
        let frames = self.cache_dir.as_deref().and_then(|d| tempfile::tempfile_in(d).ok());
        let mut packing = Packing { inner: visit, frames, end: 0, members: Vec::new() };
        let flow = self.file(path, file, kind, &mut packing);
        let (Some(frames), Ok(key)) = (packing.frames, key) else { return (flow, false) };
        if flow != Flow::Continue || packing.members.is_empty() {
            return (flow, false);
        }
        let members = packing.members.iter().map(|(meta, at, len)| {
            let mut frame = vec![0; *len as usize];
            frames.read_exact_at(&mut frame, *at)?;
            Ok((meta.write(), frame))
        });
        let kept = match self.cache_for(path, packing.inner) {
            Some(cache) => cache.put_pack(&key, members).is_ok(),
            None => false,
        };
        (flow, kept)
    }

    /// Visits, from `file`'s pack, the members at the places `wanted`
    /// (growing; of `count` members with text, in the order
    /// [`Extractor::file`] visits them) as [`Extractor::file`] would
    /// visit them. None when the cache holds no pack of the file as it is
    /// now under this extraction, or it is damaged (nothing was visited:
    /// the caller visits the file whole).
    pub fn members_from_pack(
        &self,
        path: &[u8],
        file: &File,
        (count, wanted): (u32, &[u32]),
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        let cache: &Cache = self.cache_for(path, visit)?;
        let key = self.pack_key(file).ok()?;
        let (row, stored) = cache.pack(&key).ok()??;
        if stored != count {
            return None;
        }
        // Every frame read and checked before anything is visited.
        let mut frames = Vec::with_capacity(wanted.len());
        for &k in wanted {
            let (meta, frame) = cache.pack_member(row, k).ok()??;
            let meta = Meta::read(&meta)?;
            if frame_hash(&frame) != meta.hash {
                return None;
            }
            frames.push((meta, frame));
        }
        let mut decoder = zstd::bulk::Decompressor::new().ok()?;
        for (meta, frame) in frames {
            let text = match decoder.decompress(&frame, meta.text_len as usize) {
                Ok(t) if t.len() as u64 == meta.text_len => t,
                _ => {
                    let err = io::Error::other("extraction cache: a damaged member text");
                    visit.error(path, &err);
                    return Some(Flow::Continue);
                }
            };
            let mut name = path.to_vec();
            for p in &meta.chain {
                name = crate::member_name(&name, p);
            }
            let flow = with_member(&meta.chain, None, |m| {
                let origin = Origin::Member(m);
                match meta.layout {
                    Layout::Lines => visit.text(&name, &mut &text[..], origin),
                    Layout::Pages => visit.pages(&name, &mut &text[..], origin),
                }
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
    fn a_members_description_is_read_back_and_a_damaged_one_refused() {
        let meta = Meta {
            layout: Layout::Pages,
            chain: vec![b"in.zip".to_vec(), b"doc.pdf".to_vec()],
            text_len: 40,
            hash: [9; 16],
        };
        let bytes = meta.write();
        assert_eq!(Meta::read(&bytes).unwrap(), meta);
        assert!(Meta::read(&bytes[..bytes.len() - 1]).is_none());
        assert!(Meta::read(&bytes[..25]).is_none(), "no member path");
        let mut bad = bytes.clone();
        bad[0] = 2;
        assert!(Meta::read(&bad).is_none());
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
