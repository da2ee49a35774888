//! Writing an index file: the sections in order, the postings streamed
//! gram by gram (each bitmap freed once written), the header last.

use std::fs::File;
use std::io::{self, Write};
use std::iter::Peekable;

use roaring::RoaringBitmap;

use super::layout::*;
use super::model::*;
use super::reader::{Refused, Segment};
use crate::spill::Blobs;

/// A segment made by a build or an update, ready to be written: the same
/// data whichever made it.
pub struct NewSegment<'s> {
    /// When its build began, the next free entry and stream numbers.
    pub numbers: Numbers,
    /// The directories, each with its entries (numbered from its
    /// `first_id`).
    pub dirs: Vec<Dir<'s>>,
    /// What some numbers have beside postings, in any order (a spilled
    /// row's bytes are in `blobs`; an update's kept rows borrow the old
    /// index's).
    pub sides: Vec<SideRow<'s>>,
    /// The bytes of the side rows made by the build.
    pub blobs: Blobs,
    /// Every gram's postings, by growing gram.
    pub postings: Postings<'s>,
}

/// Writes `segment`, the index of `root` holding the text of the
/// extraction whose signature is `extraction`.
pub fn write(
    out: &mut File,
    root: &[u8],
    extraction: &[u8],
    segment: NewSegment<'_>,
) -> io::Result<()> {
    let NewSegment { numbers, dirs, sides, blobs, postings } = segment;
    if numbers.next_id > ID_LIMIT || numbers.next_stream > ID_LIMIT {
        return Err(io::Error::other("too many entries for one index"));
    }
    let meta = [
        &numbers.started_ns.to_le_bytes()[..],
        &numbers.next_id.to_le_bytes(),
        &numbers.next_stream.to_le_bytes(),
        &(extraction.len() as u32).to_le_bytes(),
        extraction,
        root,
    ]
    .concat();
    let mut order: Vec<&SideRow> = sides.iter().collect();
    order.sort_by_key(|r| (r.number, r.what()));
    // The rows first (each filter's place in BLOBS from the lengths), the
    // bits streamed after.
    let mut side_bytes = Vec::with_capacity(order.len() * SIDE_SIZE);
    let mut blobs_len = 0u64;
    for row in &order {
        let (b, crc) = match row.blob() {
            Blob::Bytes(bits) => (bits.len() as u32, side_checksum(&row.side, bits)),
            Blob::Spilled(_, len, crc) => (*len, *crc),
        };
        let a = blobs_len;
        blobs_len += u64::from(b);
        side_bytes.extend_from_slice(&row.number.to_le_bytes());
        side_bytes.extend_from_slice(&[row.what(), 0, 0, 0]);
        side_bytes.extend_from_slice(&a.to_le_bytes());
        side_bytes.extend_from_slice(&b.to_le_bytes());
        side_bytes.extend_from_slice(&crc.to_le_bytes());
    }
    let mut names = Vec::new();
    let mut dir_bytes = Vec::with_capacity(dirs.len() * DIR_SIZE);
    let mut entry_bytes = Vec::new();
    let mut first = 0u32;
    for d in &dirs {
        let at = names.len() as u64;
        names.extend_from_slice(&d.path);
        dir_bytes.extend_from_slice(&at.to_le_bytes());
        dir_bytes.extend_from_slice(&(d.path.len() as u32).to_le_bytes());
        dir_bytes.extend_from_slice(&first.to_le_bytes());
        dir_bytes.extend_from_slice(&(d.entries.len() as u32).to_le_bytes());
        dir_bytes.extend_from_slice(&d.first_id.to_le_bytes());
        dir_bytes.extend_from_slice(&d.stamp.dev.to_le_bytes());
        dir_bytes.extend_from_slice(&d.stamp.ino.to_le_bytes());
        dir_bytes.extend_from_slice(&d.stamp.mtime_ns.to_le_bytes());
        dir_bytes.extend_from_slice(&d.stamp.ctime_ns.to_le_bytes());
        first += d.entries.len() as u32;
        for e in d.entries.iter() {
            let at = names.len() as u64;
            names.extend_from_slice(&e.name);
            entry_bytes.extend_from_slice(&at.to_le_bytes());
            entry_bytes.extend_from_slice(&(e.name.len() as u32).to_le_bytes());
            entry_bytes.push(e.kind.code());
            entry_bytes.push(e.class.code());
            entry_bytes.push(e.extracted.code());
            entry_bytes.push(0);
            entry_bytes.extend_from_slice(&e.key.ino.to_le_bytes());
            entry_bytes.extend_from_slice(&e.key.size.to_le_bytes());
            entry_bytes.extend_from_slice(&e.key.mtime_ns.to_le_bytes());
            entry_bytes.extend_from_slice(&e.key.ctime_ns.to_le_bytes());
        }
    }
    // Written in this order, the postings streamed (each bitmap freed once
    // written), the header last, once every offset and checksum is known.
    use std::io::{Seek, SeekFrom};
    let mut w = io::BufWriter::with_capacity(1 << 20, out);
    w.write_all(&[0; HEADER])?;
    let mut offset = HEADER as u64;
    let mut table = [(0u64, 0u64, 0u32); SECTIONS];
    for (tag, data) in [
        (TAG_META, &meta[..]),
        (TAG_DIRS, &dir_bytes),
        (TAG_ENTRIES, &entry_bytes),
        (TAG_NAMES, &names),
        (TAG_SIDES, &side_bytes),
    ] {
        w.write_all(data)?;
        table[tag as usize - 1] = (offset, data.len() as u64, crc32fast::hash(data));
        offset += data.len() as u64;
    }
    drop((dir_bytes, entry_bytes, names, side_bytes));
    // The rows' bytes, each checked against its row when read.
    for row in &order {
        match row.blob() {
            Blob::Bytes(bits) => w.write_all(bits)?,
            Blob::Spilled(at, len, _) => w.write_all(&blobs.read(*at, *len)?)?,
        }
    }
    table[TAG_BLOBS as usize - 1] = (offset, blobs_len, 0);
    offset += blobs_len;
    let postings_at = offset;
    let mut gram_bytes = Vec::new();
    let mut one = Vec::new();
    for item in postings {
        let (gram, posting) = item?;
        let (bytes, crc) = match posting {
            Posting::Bitmap(bitmap) => {
                one.clear();
                bitmap.serialize_into(&mut one)?;
                (&one[..], crc32fast::hash(&one))
            }
            Posting::Serialized(bytes, crc) => (bytes, crc),
        };
        w.write_all(bytes)?;
        gram_bytes.extend_from_slice(&gram.to_le_bytes());
        gram_bytes.extend_from_slice(&(offset - postings_at).to_le_bytes());
        gram_bytes.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        gram_bytes.extend_from_slice(&crc.to_le_bytes());
        offset += bytes.len() as u64;
    }
    // The postings are checked gram by gram, the gram table block by
    // block (against the fences).
    table[TAG_POSTINGS as usize - 1] = (postings_at, offset - postings_at, 0);
    w.write_all(&gram_bytes)?;
    table[TAG_GRAMS as usize - 1] = (offset, gram_bytes.len() as u64, 0);
    offset += gram_bytes.len() as u64;
    let mut fences = Vec::with_capacity(gram_bytes.len() / (BLOCK_ROWS * GRAM_SIZE) * 8 + 8);
    for block in gram_bytes.chunks(BLOCK_ROWS * GRAM_SIZE) {
        fences.extend_from_slice(&block[..4]);
        fences.extend_from_slice(&crc32fast::hash(block).to_le_bytes());
    }
    w.write_all(&fences)?;
    table[TAG_FENCES as usize - 1] = (offset, fences.len() as u64, crc32fast::hash(&fences));
    let mut header = Vec::with_capacity(HEADER);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(SECTIONS as u32).to_le_bytes());
    for (i, (at, len, crc)) in table.iter().enumerate() {
        header.extend_from_slice(&(i as u32 + 1).to_le_bytes());
        header.extend_from_slice(&[0; 4]);
        header.extend_from_slice(&at.to_le_bytes());
        header.extend_from_slice(&len.to_le_bytes());
        header.extend_from_slice(&crc.to_le_bytes());
        header.extend_from_slice(&[0; 4]);
    }
    w.seek(SeekFrom::Start(0))?;
    w.write_all(&header)?;
    w.flush()
}

/// A gram's postings, to be written.
pub enum Posting<'a> {
    /// As a bitmap.
    Bitmap(RoaringBitmap),
    /// Serialized already (copied from another index), with its checksum.
    Serialized(&'a [u8], u32),
}

type OldPostings<'s> = Box<dyn Iterator<Item = Result<(u32, &'s [u8], u32), Refused>> + 's>;
type NewPostings<'s> = Box<dyn Iterator<Item = io::Result<(u32, RoaringBitmap)>> + 's>;

/// Every gram's postings for a new segment, by growing gram: those made
/// now (a build's, merged from its spilled runs), and for an update the
/// old index's, copied as they are where nothing was added (the new
/// numbers all come after the old ones).
pub struct Postings<'s> {
    old: Peekable<OldPostings<'s>>,
    new: Peekable<NewPostings<'s>>,
}

impl<'s> Postings<'s> {
    /// The postings `new` gives, gram by gram.
    pub fn new(new: impl Iterator<Item = io::Result<(u32, RoaringBitmap)>> + 's) -> Self {
        let old: OldPostings<'s> = Box::new(std::iter::empty());
        Postings { old: old.peekable(), new: (Box::new(new) as NewPostings<'s>).peekable() }
    }

    /// These postings (made now, for numbers after all of `old`'s) added
    /// to those of `old`.
    pub fn added_to(self, old: &'s Segment) -> Self {
        Postings {
            old: (Box::new(old.all_postings()) as OldPostings<'s>).peekable(),
            new: self.new,
        }
    }
}

fn refused(r: Refused) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("the old index: {r}"))
}

impl<'s> Iterator for Postings<'s> {
    type Item = io::Result<(u32, Posting<'s>)>;

    fn next(&mut self) -> Option<Self::Item> {
        let old_gram = match self.old.peek() {
            Some(Ok((g, _, _))) => Some(*g),
            Some(Err(_)) => {
                let e = self.old.next().and_then(Result::err)?;
                return Some(Err(refused(e)));
            }
            None => None,
        };
        let new_gram = match self.new.peek() {
            Some(Ok((g, _))) => Some(*g),
            Some(Err(_)) => return self.new.next().and_then(Result::err).map(Err),
            None => None,
        }
        .map(|g| g as u64);
        Some(Ok(match (old_gram.map(u64::from), new_gram) {
            (None, None) => return None,
            (Some(o), n) if n.is_none_or(|n| o < n) => {
                let Some(Ok((g, bytes, crc))) = self.old.next() else { return None };
                (g, Posting::Serialized(bytes, crc))
            }
            (o, Some(n)) if o.is_none_or(|o| n < o) => {
                let Some(Ok((g, bitmap))) = self.new.next() else { return None };
                (g, Posting::Bitmap(bitmap))
            }
            _ => {
                let Some(Ok((g, bytes, _))) = self.old.next() else { return None };
                let Some(Ok((_, new))) = self.new.next() else { return None };
                let mut bitmap = match RoaringBitmap::deserialize_from(bytes) {
                    Ok(b) => b,
                    Err(_) => return Some(Err(refused(Refused::Corrupt("postings")))),
                };
                bitmap |= new;
                (g, Posting::Bitmap(bitmap))
            }
        }))
    }
}
