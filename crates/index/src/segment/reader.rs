//! Reading an index file: opened through a memory map and checked (all
//! sections but the postings, the gram table and the side rows' bytes,
//! which are checked as they are read), then answered in place.

use std::borrow::Cow;
use std::fs::File;
use std::io;

use roaring::RoaringBitmap;

use super::layout::*;
use super::model::*;

/// Why an index file cannot be used.
#[derive(Debug)]
pub enum Refused {
    /// It could not be read.
    Io(io::Error),
    /// Another trawl's format: it is rebuilt.
    Version(u32),
    /// A check failed: it is reported and rebuilt.
    Corrupt(&'static str),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Io(e) => write!(f, "{e}"),
            Refused::Version(v) => write!(f, "made by another version of trawl (format {v})"),
            Refused::Corrupt(what) => write!(f, "corrupt ({what})"),
        }
    }
}

impl std::error::Error for Refused {}

/// An opened segment, checked.
pub struct Segment {
    map: memmap2::Mmap,
    /// (offset, length) of each section, in tag order.
    sections: [(usize, usize); SECTIONS],
}

/// The stamps in a row of the directory table.
fn dir_stamp(d: &[u8]) -> Stamp {
    Stamp {
        dev: u64_at(d, 24),
        ino: u64_at(d, 32),
        mtime_ns: u64_at(d, 40) as i64,
        ctime_ns: u64_at(d, 48) as i64,
    }
}

impl Segment {
    /// Opens and checks `file` (all but the postings, which are checked as
    /// they are read).
    pub fn open(file: &File) -> Result<Segment, Refused> {
        // SAFETY: index files are written whole to a new name and renamed
        // into place, never changed after; a reader maps a file no writer
        // has open. Were it truncated by someone else, reads would fault,
        // as with any mapped file.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(Refused::Io)?;
        if map.len() < 16 || &map[..8] != MAGIC {
            return Err(Refused::Corrupt("not a trawl index"));
        }
        let version = u32_at(&map, 8);
        if version != VERSION {
            return Err(Refused::Version(version));
        }
        if u32_at(&map, 12) as usize != SECTIONS || map.len() < HEADER {
            return Err(Refused::Corrupt("section table"));
        }
        let mut sections = [(0, 0); SECTIONS];
        for (i, s) in sections.iter_mut().enumerate() {
            let at = 16 + i * 32;
            let (tag, off, len, crc) = (
                u32_at(&map, at),
                u64_at(&map, at + 8),
                u64_at(&map, at + 16),
                u32_at(&map, at + 24),
            );
            let end = off.checked_add(len).filter(|&e| e <= map.len() as u64);
            if tag != i as u32 + 1 || end.is_none() {
                return Err(Refused::Corrupt("section table"));
            }
            let (off, len) = (off as usize, len as usize);
            let checked_later = tag == TAG_POSTINGS || tag == TAG_GRAMS || tag == TAG_BLOBS;
            if !checked_later && crc32fast::hash(&map[off..off + len]) != crc {
                return Err(Refused::Corrupt("checksum"));
            }
            *s = (off, len);
        }
        let seg = Segment { map, sections };
        let meta = seg.section(TAG_META);
        if meta.len() < META_FIXED
            || meta.len() - META_FIXED < u32_at(meta, 16) as usize
            || !seg.section(TAG_SIDES).len().is_multiple_of(SIDE_SIZE)
            || !seg.section(TAG_DIRS).len().is_multiple_of(DIR_SIZE)
            || !seg.section(TAG_ENTRIES).len().is_multiple_of(ENTRY_SIZE)
            || !seg.section(TAG_GRAMS).len().is_multiple_of(GRAM_SIZE)
            || seg.section(TAG_FENCES).len()
                != (seg.section(TAG_GRAMS).len() / GRAM_SIZE).div_ceil(BLOCK_ROWS) * FENCE_SIZE
        {
            return Err(Refused::Corrupt("section size"));
        }
        // Side rows in order, of known kinds (their blobs are checked
        // when read).
        let mut prev = None;
        for row in seg.section(TAG_SIDES).chunks_exact(SIDE_SIZE) {
            let key = (u32_at(row, 0), row[4]);
            if !(1..=2).contains(&row[4]) || prev.is_some_and(|p| p >= key) {
                return Err(Refused::Corrupt("side rows"));
            }
            prev = Some(key);
        }
        Ok(seg)
    }

    fn section(&self, tag: u32) -> &[u8] {
        let (off, len) = self.sections[tag as usize - 1];
        &self.map[off..off + len]
    }

    /// The root the index is of.
    pub fn root(&self) -> &[u8] {
        let meta = self.section(TAG_META);
        &meta[META_FIXED + u32_at(meta, 16) as usize..]
    }

    /// The signature of the extraction whose text it holds (empty: none).
    pub fn extraction(&self) -> &[u8] {
        let meta = self.section(TAG_META);
        &meta[META_FIXED..META_FIXED + u32_at(meta, 16) as usize]
    }

    /// The next free entry number (every number below it may appear in
    /// the postings).
    pub fn next_id(&self) -> u32 {
        u32_at(self.section(TAG_META), 8)
    }

    /// The next free stream number.
    pub fn next_stream(&self) -> u32 {
        u32_at(self.section(TAG_META), 12)
    }

    /// Its numbers.
    #[cfg(test)]
    pub fn numbers(&self) -> Numbers {
        Numbers {
            started_ns: self.started_ns(),
            next_id: self.next_id(),
            next_stream: self.next_stream(),
        }
    }

    /// The side row of `number` of kind `what`, if any.
    fn side_row(&self, number: u32, what: u8) -> Option<&[u8]> {
        let sides = self.section(TAG_SIDES);
        let (mut lo, mut hi) = (0, sides.len() / SIDE_SIZE);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let row = &sides[mid * SIDE_SIZE..(mid + 1) * SIDE_SIZE];
            match (u32_at(row, 0), row[4]).cmp(&(number, what)) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(row),
            }
        }
        None
    }

    /// The bytes of a side row, checked (a filter's bits are checked
    /// block by block as they are read: see [`crate::filter`]).
    fn blob_of_row(&self, row: &[u8]) -> Result<&[u8], Refused> {
        let blobs = self.section(TAG_BLOBS);
        let (at, len, crc) = (u64_at(row, 8) as usize, u32_at(row, 16) as usize, u32_at(row, 20));
        let bytes = at
            .checked_add(len)
            .filter(|&e| e <= blobs.len())
            .map(|e| &blobs[at..e])
            .ok_or(Refused::Corrupt("side offset"))?;
        let sum = match row[4] {
            1 => crate::filter::checksum(bytes).ok_or(Refused::Corrupt("filter size"))?,
            _ if !bytes.len().is_multiple_of(4) => return Err(Refused::Corrupt("stream list")),
            _ => crc32fast::hash(bytes),
        };
        match sum == crc {
            true => Ok(bytes),
            false => Err(Refused::Corrupt("side checksum")),
        }
    }

    /// The filter of `number`'s text, if it has one (checked).
    pub fn filter(&self, number: u32) -> Result<Option<crate::filter::Filter<'_>>, Refused> {
        let Some(row) = self.side_row(number, 1) else { return Ok(None) };
        Ok(crate::filter::Filter::new(self.blob_of_row(row)?))
    }

    /// The stream numbers of the archive numbered `number` (its number
    /// with [`EXTRACTED`]), if it is indexed member by member (checked):
    /// each without [`STREAM`], with [`FILTERED`] when filtered.
    pub fn streams(&self, number: u32) -> Result<Option<Vec<u32>>, Refused> {
        let Some(row) = self.side_row(number, 2) else { return Ok(None) };
        let list = self.blob_of_row(row)?;
        Ok(Some(list.chunks_exact(4).map(|c| u32_at(c, 0)).collect()))
    }

    /// Every side row, in order (checked).
    pub fn sides(&self) -> impl Iterator<Item = Result<SideRow<'_>, Refused>> {
        self.section(TAG_SIDES).chunks_exact(SIDE_SIZE).map(move |row| {
            let blob = Blob::Bytes(Cow::Borrowed(self.blob_of_row(row)?));
            let side = if row[4] == 1 { Side::Filter(blob) } else { Side::Streams(blob) };
            Ok(SideRow { number: u32_at(row, 0), side })
        })
    }

    /// When its build began (ns since the epoch).
    pub fn started_ns(&self) -> i64 {
        i64::from_le_bytes(self.section(TAG_META)[..8].try_into().unwrap_or_default())
    }

    /// Files and directories stamped at or after this time (ns) may have
    /// changed without changing their stamps (see [`RACY_MARGIN_NS`]).
    pub fn racy_after(&self) -> i64 {
        self.started_ns().saturating_sub(RACY_MARGIN_NS)
    }

    fn name(&self, at: u64, len: u32) -> Result<&[u8], Refused> {
        let names = self.section(TAG_NAMES);
        let end = (at as usize).checked_add(len as usize).filter(|&e| e <= names.len());
        end.map(|e| &names[at as usize..e]).ok_or(Refused::Corrupt("name offset"))
    }

    /// Every directory with its entries, in the order written.
    pub fn dirs(&self) -> Result<Vec<Dir<'_>>, Refused> {
        let dirs = self.section(TAG_DIRS);
        let entries = self.section(TAG_ENTRIES);
        let n_entries = entries.len() / ENTRY_SIZE;
        let mut out = Vec::with_capacity(dirs.len() / DIR_SIZE);
        for d in dirs.chunks_exact(DIR_SIZE) {
            let path = Cow::Borrowed(self.name(u64_at(d, 0), u32_at(d, 8))?);
            let (first, n) = (u32_at(d, 12) as usize, u32_at(d, 16) as usize);
            if first.checked_add(n).is_none_or(|end| end > n_entries) {
                return Err(Refused::Corrupt("entry range"));
            }
            let first_id = u32_at(d, 20);
            if first_id.checked_add(n as u32).is_none_or(|end| end > self.next_id()) {
                return Err(Refused::Corrupt("entry numbers"));
            }
            let stamp = dir_stamp(d);
            let rows = &entries[first * ENTRY_SIZE..(first + n) * ENTRY_SIZE];
            for e in rows.chunks_exact(ENTRY_SIZE) {
                self.name(u64_at(e, 0), u32_at(e, 8))?;
                EntryType::from_code(e[12]).ok_or(Refused::Corrupt("entry type"))?;
                Class::from_code(e[13]).ok_or(Refused::Corrupt("entry class"))?;
                Extracted::from_code(e[14]).ok_or(Refused::Corrupt("entry extraction"))?;
            }
            let list = Entries::Rows { rows, names: self.section(TAG_NAMES) };
            out.push(Dir { path, stamp, first_id, entries: list });
        }
        Ok(out)
    }

    /// The `i`th block of the gram table, checked against its fence.
    fn gram_block(&self, i: usize) -> Result<&[u8], Refused> {
        let grams = self.section(TAG_GRAMS);
        let start = i * BLOCK_ROWS * GRAM_SIZE;
        let block = &grams[start..grams.len().min(start + BLOCK_ROWS * GRAM_SIZE)];
        let fence = &self.section(TAG_FENCES)[i * FENCE_SIZE..(i + 1) * FENCE_SIZE];
        match crc32fast::hash(block) == u32_at(fence, 4) && block[..4] == fence[..4] {
            true => Ok(block),
            false => Err(Refused::Corrupt("gram table checksum")),
        }
    }

    /// The row of `gram` in the gram table, if any: the block it would be
    /// in is found by the fences, checked, then searched.
    fn gram_row(&self, gram: u32) -> Result<Option<&[u8]>, Refused> {
        let fences = self.section(TAG_FENCES);
        let blocks = fences.len() / FENCE_SIZE;
        // The last block whose first gram is at most `gram`.
        let (mut lo, mut hi) = (0, blocks);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match u32_at(fences, mid * FENCE_SIZE) <= gram {
                true => lo = mid + 1,
                false => hi = mid,
            }
        }
        let Some(block) = lo.checked_sub(1) else { return Ok(None) };
        let grams = self.gram_block(block)?;
        let (mut lo, mut hi) = (0, grams.len() / GRAM_SIZE);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match u32_at(grams, mid * GRAM_SIZE).cmp(&gram) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    return Ok(Some(&grams[mid * GRAM_SIZE..(mid + 1) * GRAM_SIZE]))
                }
            }
        }
        Ok(None)
    }

    /// The size of `gram`'s postings in bytes (0 when no entry holds it):
    /// rare grams first makes an intersection cheap (0 too for a damaged
    /// row, which [`Segment::postings`] then refuses).
    pub fn postings_size(&self, gram: u32) -> u64 {
        self.gram_row(gram).ok().flatten().map_or(0, |g| u64::from(u32_at(g, 12)))
    }

    /// The entries holding `gram` (checked against its checksum); None
    /// when no entry does.
    pub fn postings(&self, gram: u32) -> Result<Option<RoaringBitmap>, Refused> {
        let Some(g) = self.gram_row(gram)? else { return Ok(None) };
        let (bytes, _) = self.checked_postings(g)?;
        RoaringBitmap::deserialize_from(bytes).map(Some).map_err(|_| Refused::Corrupt("postings"))
    }

    /// The serialized postings of a row of the gram table, checked, and
    /// their checksum.
    fn checked_postings(&self, row: &[u8]) -> Result<(&[u8], u32), Refused> {
        let (at, len, crc) = (u64_at(row, 4) as usize, u32_at(row, 12) as usize, u32_at(row, 16));
        let postings = self.section(TAG_POSTINGS);
        let bytes = at
            .checked_add(len)
            .filter(|&e| e <= postings.len())
            .map(|e| &postings[at..e])
            .ok_or(Refused::Corrupt("postings offset"))?;
        if crc32fast::hash(bytes) != crc {
            return Err(Refused::Corrupt("postings checksum"));
        }
        Ok((bytes, crc))
    }

    /// Every gram (growing) with its serialized postings, checked, and
    /// their checksum.
    pub fn all_postings(&self) -> impl Iterator<Item = Result<(u32, &[u8], u32), Refused>> {
        let blocks = self.section(TAG_FENCES).len() / FENCE_SIZE;
        (0..blocks).flat_map(move |i| {
            let rows: Box<dyn Iterator<Item = _>> = match self.gram_block(i) {
                Ok(block) => Box::new(block.chunks_exact(GRAM_SIZE).map(|row| {
                    let (bytes, crc) = self.checked_postings(row)?;
                    Ok((u32_at(row, 0), bytes, crc))
                })),
                Err(e) => Box::new(std::iter::once(Err(e))),
            };
            rows
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{write, NewSegment, Postings};
    use crate::spill::Blobs;
    use std::io::{Seek, SeekFrom, Write};

    /// A segment of `dirs`, `sides` and `postings`, with [`NUMBERS`].
    fn new_segment<'s>(
        dirs: Vec<Dir<'s>>,
        sides: Vec<SideRow<'s>>,
        postings: impl Iterator<Item = (u32, RoaringBitmap)> + 's,
    ) -> NewSegment<'s> {
        NewSegment {
            numbers: NUMBERS,
            dirs,
            sides,
            blobs: Blobs::new(&std::env::temp_dir()).unwrap(),
            postings: Postings::new(postings.map(Ok)),
        }
    }

    fn sample() -> (Vec<Dir<'static>>, Vec<(u32, RoaringBitmap)>) {
        let entry = |name: &str, kind, class, size| Entry {
            name: name.as_bytes().to_vec().into(),
            kind,
            key: StatKey { ino: size + 100, size, mtime_ns: -5, ctime_ns: 7 },
            extracted: if size == 20 { Extracted::Failed } else { Extracted::Nothing },
            class,
        };
        let dirs = vec![
            Dir {
                path: b"root".to_vec().into(),
                stamp: Stamp { dev: 1, ino: 2, mtime_ns: 3, ctime_ns: 4 },
                first_id: 0,
                entries: Entries::Made(vec![
                    entry("a.c", EntryType::File, Class::Text, 10),
                    entry("sub", EntryType::Dir, Class::Unknown, 0),
                ]),
            },
            Dir {
                path: b"root/sub".to_vec().into(),
                stamp: Stamp { dev: 1, ino: 9, mtime_ns: 8, ctime_ns: 7 },
                // An updated directory: its block after a dead one.
                first_id: 5,
                entries: Entries::Made(vec![entry("b.bin", EntryType::File, Class::Binary, 20)]),
            },
        ];
        let postings = vec![
            (0x616263, RoaringBitmap::from_iter([0u32, 2])),
            (0x787978, RoaringBitmap::from_iter([2u32])),
        ];
        (dirs, postings)
    }

    fn sample_sides() -> Vec<SideRow<'static>> {
        let bits = Blob::Bytes(Cow::Owned(crate::filter::make(&[1, 2, 3])));
        vec![
            // Given out of order: written in order.
            SideRow {
                number: 2 | EXTRACTED,
                side: Side::Streams(Blob::Bytes(
                    [3u32, 4, 5 | FILTERED].map(u32::to_le_bytes).concat().into(),
                )),
            },
            SideRow { number: 2, side: Side::Filter(bits.clone()) },
            SideRow {
                number: STREAM | 4,
                side: Side::Filter(Blob::Bytes(crate::filter::make(&[7]).into())),
            },
        ]
    }

    const NUMBERS: Numbers = Numbers { started_ns: 1234, next_id: 9, next_stream: 7 };

    fn written() -> File {
        let (dirs, postings) = sample();
        let mut f = tempfile::tempfile().unwrap();
        let segment = new_segment(dirs, sample_sides(), postings.into_iter());
        write(&mut f, b"/the/root", b"docs", segment).unwrap();
        f
    }

    /// The side rows of `seg` as written (in order).
    fn sides_of(seg: &Segment) -> Vec<SideRow<'_>> {
        seg.sides().map(|r| r.unwrap()).collect()
    }

    fn sample_sides_in_order() -> Vec<SideRow<'static>> {
        let mut v = sample_sides();
        v.sort_by_key(|r| (r.number, r.what()));
        v
    }

    #[test]
    fn what_is_written_is_read_back() {
        let f = written();
        let seg = Segment::open(&f).unwrap();
        assert_eq!(seg.root(), b"/the/root");
        assert_eq!(seg.numbers(), NUMBERS);
        assert_eq!(seg.extraction(), b"docs");
        assert_eq!(sides_of(&seg), sample_sides_in_order());
        assert_eq!(seg.streams(2 | EXTRACTED).unwrap(), Some(vec![3, 4, 5 | FILTERED]));
        assert_eq!(seg.streams(2).unwrap(), None);
        let f2 = seg.filter(2).unwrap().unwrap();
        assert!(f2.may_hold(1) && f2.may_hold(3));
        assert!(seg.filter(STREAM | 4).unwrap().is_some());
        assert!(seg.filter(3).unwrap().is_none());
        let raw: Vec<u32> = seg.all_postings().map(|r| r.unwrap().0).collect();
        assert_eq!(raw, [0x616263, 0x787978]);
        assert_eq!(seg.dirs().unwrap(), sample().0);
        assert_eq!(seg.postings(0x616263).unwrap().unwrap().iter().collect::<Vec<_>>(), [0, 2]);
        assert_eq!(seg.postings(0x787978).unwrap().unwrap().len(), 1);
        assert!(seg.postings(0x000001).unwrap().is_none());
    }

    #[test]
    fn every_flipped_byte_is_refused_or_harmless_and_never_misread() {
        let f = written();
        let len = f.metadata().unwrap().len();
        let mut good = Vec::new();
        let mut g = f.try_clone().unwrap();
        g.seek(SeekFrom::Start(0)).unwrap();
        std::io::Read::read_to_end(&mut g, &mut good).unwrap();
        for at in 0..len {
            let mut bad = good.clone();
            bad[at as usize] ^= 0x20;
            let mut t = tempfile::tempfile().unwrap();
            t.write_all(&bad).unwrap();
            let Ok(seg) = Segment::open(&t) else { continue };
            // Opened: then what it says is what was written (the flipped
            // byte was padding or a posting, whose own check refuses it).
            assert_eq!(seg.root(), b"/the/root", "byte {at}");
            assert_eq!(seg.dirs().unwrap(), sample().0, "byte {at}");
            assert_eq!(seg.numbers(), NUMBERS, "byte {at}");
            // A side row's bytes flipped: refused when read (a filter's
            // bits, by the block they are in).
            match seg.sides().collect::<Result<Vec<_>, _>>() {
                Ok(rows) if rows == sample_sides_in_order() => {}
                Ok(_) => {
                    let q = |g: u32| crate::plan::Query::Gram(crate::grams::gram_of(g));
                    let damaged = |n: u32, g: u32| {
                        seg.filter(n).map_or(true, |f| f.unwrap().admits(&q(g)).is_none())
                    };
                    assert!(damaged(2, 1) || damaged(STREAM | 4, 7), "byte {at}");
                }
                Err(_) => assert!(
                    seg.filter(2).is_err()
                        || seg.filter(STREAM | 4).is_err()
                        || seg.streams(2 | EXTRACTED).is_err()
                ),
            }
            for (gram, bitmap) in sample().1 {
                match seg.postings(gram) {
                    Ok(Some(b)) => assert_eq!(b, bitmap, "byte {at}"),
                    Ok(None) => panic!("byte {at}: gram lost"),
                    Err(_) => {}
                }
            }
        }
        // A truncated file is refused.
        let mut t = tempfile::tempfile().unwrap();
        t.write_all(&good[..good.len() - 3]).unwrap();
        assert!(Segment::open(&t).is_err());
    }

    #[test]
    fn grams_are_found_across_the_blocks_of_a_big_table_and_a_damaged_block_is_refused() {
        // Grams 10, 20, ... over three and a half blocks.
        let n = BLOCK_ROWS as u32 * 7 / 2;
        let grams = (1..=n).map(|i| i * 10);
        let postings = grams.map(|g| (g, RoaringBitmap::from([g % 9])));
        let mut f = tempfile::tempfile().unwrap();
        write(&mut f, b"/r", b"", new_segment(sample().0, Vec::new(), postings)).unwrap();
        let seg = Segment::open(&f).unwrap();
        for g in
            [0, 5, 10, 15, 10 * BLOCK_ROWS as u32, 10 * BLOCK_ROWS as u32 + 10, n * 10, n * 10 + 1]
        {
            let want =
                (g % 10 == 0 && (10..=n * 10).contains(&g)).then(|| RoaringBitmap::from([g % 9]));
            assert_eq!(seg.postings(g).unwrap(), want, "gram {g}");
        }
        for g in (1..=n).map(|i| i * 10) {
            assert_eq!(seg.postings(g).unwrap(), Some(RoaringBitmap::from([g % 9])), "gram {g}");
        }
        assert_eq!(seg.all_postings().count(), n as usize);
        // A byte of the third block flipped: that block is refused when
        // reached, the others still answer.
        let table = seg.sections[TAG_GRAMS as usize - 1].0;
        let at = table + (2 * BLOCK_ROWS + 5) * GRAM_SIZE + 1;
        use std::os::unix::fs::FileExt;
        let mut byte = [0];
        f.read_exact_at(&mut byte, at as u64).unwrap();
        f.write_all_at(&[byte[0] ^ 1], at as u64).unwrap();
        let seg = Segment::open(&f).unwrap();
        let third = 10 * (2 * BLOCK_ROWS as u32 + 7);
        assert!(matches!(seg.postings(third), Err(Refused::Corrupt(_))));
        assert_eq!(seg.postings(10).unwrap(), Some(RoaringBitmap::from([10 % 9])));
        assert!(seg.all_postings().any(|r| r.is_err()));
    }

    #[test]
    fn another_version_is_refused_as_such() {
        let f = written();
        use std::os::unix::fs::FileExt;
        f.write_at(&(VERSION + 1).to_le_bytes(), 8).unwrap();
        assert!(matches!(Segment::open(&f), Err(Refused::Version(v)) if v == VERSION + 1));
    }
}
