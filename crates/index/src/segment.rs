//! The index file: one immutable segment, written whole and then renamed
//! into place (see [`crate::store`]), read through a memory map.
//!
//! Layout (little-endian): an 8-byte magic, the format version, the
//! section count, then a table of sections (tag, offset, length, CRC-32C),
//! then the sections. Every section but the postings is checked when the
//! file is opened (a few MB for the Linux tree); each gram's postings
//! carry their own checksum, checked when they are read. A file that fails
//! a check is refused as corrupt, never read as if it were right.
//!
//! Entries are numbered: a directory's entries have consecutive numbers
//! from its `first_id`; an update gives a changed directory a new block
//! after every number used so far (the postings of the old block are
//! left in place, unreferenced), so the postings of everything unchanged
//! are copied as they are.
//!
//! Sections: `META` (when the build began, the next free entry and
//! stream numbers, the extraction's signature, then the root), `DIRS`
//! (each directory's path and stamps, and its range of entries),
//! `ENTRIES` (name, type, stat key, class of every entry), `NAMES` (the
//! bytes of paths and names), `SIDES` (what some numbers have beside
//! postings, by number: the [`crate::filter`] of a text that looks random,
//! the range of stream numbers of an archive whose members are indexed
//! one by one) and `BLOBS` (the filters' bits, each checked against its
//! side row's checksum when read), `GRAMS` (each gram's postings: offset,
//! length, checksum, sorted by gram; checked block by block against
//! `FENCES`, a row per block: its first gram and checksum) and `POSTINGS`
//! (roaring bitmaps of numbers).
//!
//! Numbers: an entry's bytes are posted under its number (below
//! [`ID_LIMIT`]), its extracted text under the number with [`EXTRACTED`]
//! set, and the text of each member of an archive indexed member by
//! member under a stream number with [`STREAM`] set.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Write};

use roaring::RoaringBitmap;

/// The first bytes of an index file.
pub const MAGIC: &[u8; 8] = b"TRAWLIX\x01";
/// Bumped whenever the layout or the meaning of a field changes: an index
/// of another version is rebuilt, not misread.
pub const VERSION: u32 = 10;

const TAG_META: u32 = 1;
const TAG_DIRS: u32 = 2;
const TAG_ENTRIES: u32 = 3;
const TAG_NAMES: u32 = 4;
const TAG_GRAMS: u32 = 5;
const TAG_POSTINGS: u32 = 6;
const TAG_FENCES: u32 = 7;
const TAG_SIDES: u32 = 8;
const TAG_BLOBS: u32 = 9;
const SECTIONS: usize = 9;
const HEADER: usize = 16 + SECTIONS * 32;

/// A file changed twice within one tick of the file system's clock keeps
/// its stamps (a coarse clock: 1 to 10 ms; a network file system's server
/// clock may be further off): anything stamped less than this long before
/// a build began, or later, is searched as changed ("racily clean", as
/// git calls it), so a change made while the index was built is never
/// missed.
pub const RACY_MARGIN_NS: i64 = 1_000_000_000;

const DIR_SIZE: usize = 56;
const ENTRY_SIZE: usize = 48;
const GRAM_SIZE: usize = 20;
/// The gram table is checked in blocks of this many rows, as a search
/// reaches them (a big corpus's table is hundreds of megabytes: checking
/// it whole would cost each search more than its answer). The fences, a
/// row per block (its first gram and its checksum), are checked whole.
const BLOCK_ROWS: usize = 1024;
const FENCE_SIZE: usize = 8;
const SIDE_SIZE: usize = 24;
/// The fixed part of `META`: when the build began, the next free entry
/// and stream numbers, the length of the extraction's signature.
const META_FIXED: usize = 20;

/// A time in nanoseconds since the epoch, from stat's seconds and
/// nanoseconds (the one form stamps and keys are kept and compared in).
pub(crate) fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// A directory's stamps: any change to its entries changes them.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Stamp {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i64,
    /// Status change time, ns since the epoch.
    pub ctime_ns: i64,
}

/// A file's stat key: when it holds, the file's bytes are the ones indexed.
#[derive(Clone, Copy, Debug, Default, Eq, Hash, PartialEq)]
pub struct StatKey {
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i64,
    /// Status change time, ns since the epoch.
    pub ctime_ns: i64,
}

impl Stamp {
    /// The stamps in `st`.
    pub fn from_stat(st: &libc::stat) -> Stamp {
        Stamp {
            dev: st.st_dev,
            ino: st.st_ino,
            mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec),
        }
    }

    /// Stamped at or after `racy_after` (see [`RACY_MARGIN_NS`]).
    pub fn is_racy(&self, racy_after: i64) -> bool {
        self.mtime_ns >= racy_after || self.ctime_ns >= racy_after
    }
}

impl StatKey {
    /// The key in `st`.
    pub fn from_stat(st: &libc::stat) -> StatKey {
        StatKey {
            ino: st.st_ino,
            size: st.st_size as u64,
            mtime_ns: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime_ns: nanos(st.st_ctime, st.st_ctime_nsec),
        }
    }

    /// Stamped at or after `racy_after` (see [`RACY_MARGIN_NS`]).
    pub fn is_racy(&self, racy_after: i64) -> bool {
        self.mtime_ns >= racy_after || self.ctime_ns >= racy_after
    }
}

/// What a directory entry is.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum EntryType {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl EntryType {
    /// The type of a directory entry as read (None: it could not be told).
    pub fn of(t: Option<std::fs::FileType>) -> EntryType {
        match t {
            Some(t) if t.is_file() => EntryType::File,
            Some(t) if t.is_dir() => EntryType::Dir,
            Some(t) if t.is_symlink() => EntryType::Symlink,
            _ => EntryType::Other,
        }
    }
}

/// The path (relative to the index's root) of `name` in the directory
/// `dir` ("" for the root).
pub fn child_path(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(dir.len() + 1 + name.len());
    child_path_into(&mut p, dir, name);
    p
}

/// [`child_path`] into `out` (cleared first).
pub fn child_path_into(out: &mut Vec<u8>, dir: &[u8], name: &[u8]) {
    out.clear();
    out.extend_from_slice(dir);
    if !out.is_empty() {
        out.push(b'/');
    }
    out.extend_from_slice(name);
}

/// What a regular file's bytes were found to be.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Class {
    /// Not a regular file, or not read.
    Unknown,
    /// Text: its grams are indexed.
    Text,
    /// Binary (a NUL byte in its first block): its grams are indexed too
    /// (a search reports "binary file matches").
    Binary,
    /// Could not be read when indexed: always searched.
    Unreadable,
    /// Bytes that look random (compressed, images: nearly every gram is
    /// new): not posted (a `.gz` held 2 GB of such postings in the
    /// documents corpus's index) but filtered: a [`Side::Filter`] under
    /// its number.
    Unindexed,
    /// Starts with a byte-order mark: a search reads its text transcoded
    /// (UTF-16 to UTF-8), which its bytes' grams do not tell: always
    /// searched.
    Transcoded,
}

/// Whether a text's distinct grams say its bytes look random: too many to
/// be worth indexing (text repeats its grams: the Linux tree's largest
/// files have one distinct gram per 20 bytes or more).
pub fn looks_random(distinct: usize, bytes: u64) -> bool {
    distinct > 50_000 && distinct as u64 * 3 > bytes
}

/// An entry of a directory.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Entry<'a> {
    /// Its name in its directory (borrowed from a segment when read).
    pub name: Cow<'a, [u8]>,
    /// Its type.
    pub kind: EntryType,
    /// Its stat key (regular files).
    pub key: StatKey,
    /// What its bytes are (regular files).
    pub class: Class,
    /// Whether text was extracted from it (see [`EXTRACTED`]).
    pub extracted: Extracted,
}

/// The postings of a file's extracted text hold its number with this bit
/// set (those of its bytes, the number itself).
pub const EXTRACTED: u32 = 1 << 31;

/// The postings of an archive member's text (archives indexed member by
/// member, see [`Extracted::Streams`]) hold its stream number with these
/// bits set.
pub const STREAM: u32 = 3 << 30;

/// Entry and stream numbers stay below this (the bits above tell what a
/// posted number is).
pub const ID_LIMIT: u32 = 1 << 30;

/// What a number has beside its postings.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Side<'a> {
    /// Its text looks random: not posted, but filtered (see
    /// [`crate::filter`]).
    Filter(Blob<'a>),
    /// Its text is an archive's members, each indexed under its own
    /// stream number: the numbers (without [`STREAM`]; with
    /// [`FILTERED`] when the member's text is filtered rather than
    /// posted), little-endian, in the order a search visits the members.
    Streams(Blob<'a>),
}

/// In a [`Side::Streams`] list, a stream number with this bit has a
/// filter instead of postings (its text looks random).
pub const FILTERED: u32 = 1 << 30;

/// The bytes of a side row (a filter, a list of streams): in memory or an index being read, or
/// spilled by a build.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum Blob<'a> {
    /// These bytes.
    Bytes(Cow<'a, [u8]>),
    /// Bytes a build spilled: offset, length and checksum in
    /// [`crate::spill::Blobs`].
    Spilled(u64, u32, u32),
}

impl Blob<'_> {
    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Blob::Bytes(b) => b.len() as u64,
            Blob::Spilled(_, len, _) => u64::from(*len),
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A side row: what `number` has beside its postings.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct SideRow<'a> {
    /// The number (with [`EXTRACTED`] or [`STREAM`] as posted).
    pub number: u32,
    /// What it has.
    pub side: Side<'a>,
}

/// The checksum a side row keeps of its bytes: a filter's that of its
/// blocks' checksums (see [`crate::filter`]), a list's that of the list.
pub fn side_checksum(side: &Side<'_>, bytes: &[u8]) -> u32 {
    match side {
        Side::Filter(_) => crate::filter::checksum(bytes).unwrap_or(0),
        Side::Streams(_) => crc32fast::hash(bytes),
    }
}

impl SideRow<'_> {
    fn blob(&self) -> &Blob<'_> {
        match &self.side {
            Side::Filter(b) | Side::Streams(b) => b,
        }
    }

    fn what(&self) -> u8 {
        match self.side {
            Side::Filter(_) => 1,
            Side::Streams(_) => 2,
        }
    }
}

/// What extraction (when the index was built with it) made of a file.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Extracted {
    /// Nothing: it is searched as its bytes (or the index has no
    /// extracted text).
    #[default]
    Nothing,
    /// Its text (members, a document's text) is indexed under
    /// `number | EXTRACTED`.
    Text,
    /// Its text could not all be extracted: a search that extracts
    /// always reads it (and reports why).
    Failed,
    /// Its text looks random (binary members): not posted but filtered
    /// (a [`Side::Filter`] under `number | EXTRACTED`).
    Unindexed,
    /// An archive whose members' texts are indexed one by one (a
    /// [`Side::Streams`] under `number | EXTRACTED` gives their stream
    /// numbers), so a search can read only the members that may match
    /// from the cache of extracted text.
    Streams,
    /// As [`Extracted::Streams`], for an archive some of whose text could
    /// not be extracted (a damaged or encrypted member): a search that
    /// extracts always visits it, reading the members that may match and
    /// replaying the messages from the cache.
    StreamsReported,
}

/// A directory and its entries.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Dir<'a> {
    /// Its path, as the walk gave it (borrowed from a segment when read).
    pub path: Cow<'a, [u8]>,
    /// Its stamps.
    pub stamp: Stamp,
    /// The number of its first entry (the others follow).
    pub first_id: u32,
    /// Its entries, in name order.
    pub entries: Entries<'a>,
}

/// A directory's entries, in name order: made by a build or an update, or
/// read in place from an index file (decoded one at a time, as asked:
/// a search of a big tree touches each once, and allocates nothing for
/// them).
#[derive(Clone, Debug)]
pub enum Entries<'a> {
    /// Made in memory.
    Made(Vec<Entry<'a>>),
    /// Rows of an index's entry table (checked when read: names in
    /// bounds, codes known), and its names.
    Rows {
        /// The directory's rows.
        rows: &'a [u8],
        /// The index's names section.
        names: &'a [u8],
    },
}

impl<'a> From<Vec<Entry<'a>>> for Entries<'a> {
    fn from(v: Vec<Entry<'a>>) -> Self {
        Entries::Made(v)
    }
}

impl PartialEq for Entries<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Entries<'_> {}

impl Entries<'_> {
    /// How many.
    pub fn len(&self) -> usize {
        match self {
            Entries::Made(v) => v.len(),
            Entries::Rows { rows, .. } => rows.len() / ENTRY_SIZE,
        }
    }

    /// None at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `j`th one's name (panics past the end, as indexing does).
    pub fn name(&self, j: usize) -> &[u8] {
        match self {
            Entries::Made(v) => &v[j].name,
            Entries::Rows { rows, names } => {
                let row = &rows[j * ENTRY_SIZE..(j + 1) * ENTRY_SIZE];
                let at = u64_at(row, 0) as usize;
                &names[at..at + u32_at(row, 8) as usize]
            }
        }
    }

    /// The `j`th one's type (panics past the end, as indexing does).
    pub fn kind(&self, j: usize) -> EntryType {
        match self {
            Entries::Made(v) => v[j].kind,
            // (Codes were checked when the rows were read.)
            Entries::Rows { rows, .. } => {
                type_of(rows[j * ENTRY_SIZE + 12]).unwrap_or(EntryType::Other)
            }
        }
    }

    /// The `j`th one (panics past the end, as indexing does).
    pub fn get(&self, j: usize) -> Entry<'_> {
        match self {
            Entries::Made(v) => {
                let e = &v[j];
                Entry {
                    name: Cow::Borrowed(&e.name),
                    kind: e.kind,
                    key: e.key,
                    class: e.class,
                    extracted: e.extracted,
                }
            }
            Entries::Rows { rows, .. } => {
                let row = &rows[j * ENTRY_SIZE..(j + 1) * ENTRY_SIZE];
                // (Codes were checked when the rows were read.)
                Entry {
                    name: Cow::Borrowed(self.name(j)),
                    kind: type_of(row[12]).unwrap_or(EntryType::Other),
                    class: class_of(row[13]).unwrap_or(Class::Unknown),
                    extracted: extracted_of(row[14]).unwrap_or_default(),
                    key: StatKey {
                        ino: u64_at(row, 16),
                        size: u64_at(row, 24),
                        mtime_ns: u64_at(row, 32) as i64,
                        ctime_ns: u64_at(row, 40) as i64,
                    },
                }
            }
        }
    }

    /// Every one, in order.
    pub fn iter(&self) -> impl Iterator<Item = Entry<'_>> + '_ {
        (0..self.len()).map(|j| self.get(j))
    }

    /// The place of the one named `name`, if any.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.name(mid).cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

fn extracted_code(x: Extracted) -> u8 {
    match x {
        Extracted::Nothing => 0,
        Extracted::Text => 1,
        Extracted::Failed => 2,
        Extracted::Unindexed => 3,
        Extracted::Streams => 4,
        Extracted::StreamsReported => 5,
    }
}

fn extracted_of(code: u8) -> Option<Extracted> {
    Some(match code {
        0 => Extracted::Nothing,
        1 => Extracted::Text,
        2 => Extracted::Failed,
        3 => Extracted::Unindexed,
        4 => Extracted::Streams,
        5 => Extracted::StreamsReported,
        _ => return None,
    })
}

fn type_code(t: EntryType) -> u8 {
    match t {
        EntryType::File => 1,
        EntryType::Dir => 2,
        EntryType::Symlink => 3,
        EntryType::Other => 4,
    }
}

fn type_of(code: u8) -> Option<EntryType> {
    Some(match code {
        1 => EntryType::File,
        2 => EntryType::Dir,
        3 => EntryType::Symlink,
        4 => EntryType::Other,
        _ => return None,
    })
}

fn class_code(c: Class) -> u8 {
    match c {
        Class::Unknown => 0,
        Class::Text => 1,
        Class::Binary => 2,
        Class::Unreadable => 3,
        Class::Unindexed => 4,
        Class::Transcoded => 5,
    }
}

fn class_of(code: u8) -> Option<Class> {
    Some(match code {
        0 => Class::Unknown,
        1 => Class::Text,
        2 => Class::Binary,
        3 => Class::Unreadable,
        4 => Class::Unindexed,
        5 => Class::Transcoded,
        _ => return None,
    })
}

/// The numbers of an index's `META`.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Numbers {
    /// When its build began (ns since the epoch).
    pub started_ns: i64,
    /// The next free entry number.
    pub next_id: u32,
    /// The next free stream number.
    pub next_stream: u32,
}

/// Writes a segment: the root, its [`Numbers`], the extraction's
/// signature, the directories (each with its entries' numbers from its
/// `first_id`), the side rows (any order; a spilled filter's bits are read
/// from `spilled`) and each gram's numbers, in gram order.
pub fn write<'a>(
    out: &mut File,
    root: &[u8],
    numbers: Numbers,
    extraction: &[u8],
    dirs: &[Dir],
    (sides, spilled): (&[SideRow], Option<&crate::spill::Blobs>),
    postings: impl IntoIterator<Item = io::Result<(u32, Posting<'a>)>>,
) -> io::Result<()> {
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
    for d in dirs {
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
            entry_bytes.push(type_code(e.kind));
            entry_bytes.push(class_code(e.class));
            entry_bytes.push(extracted_code(e.extracted));
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
            Blob::Spilled(at, len, _) => match spilled {
                Some(blobs) => w.write_all(&blobs.read(*at, *len)?)?,
                None => return Err(io::Error::other("spilled bytes without their file")),
            },
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

/// An opened segment, checked.
pub struct Segment {
    map: memmap2::Mmap,
    /// (offset, length) of each section, in tag order.
    sections: [(usize, usize); SECTIONS],
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
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
                type_of(e[12]).ok_or(Refused::Corrupt("entry type"))?;
                class_of(e[13]).ok_or(Refused::Corrupt("entry class"))?;
                extracted_of(e[14]).ok_or(Refused::Corrupt("entry extraction"))?;
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
    use std::io::{Seek, SeekFrom};

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
        write(
            &mut f,
            b"/the/root",
            NUMBERS,
            b"docs",
            &dirs,
            (&sample_sides(), None),
            postings.into_iter().map(|(g, b)| Ok((g, Posting::Bitmap(b)))),
        )
        .unwrap();
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
        let postings = grams.map(|g| Ok((g, Posting::Bitmap(RoaringBitmap::from([g % 9])))));
        let mut f = tempfile::tempfile().unwrap();
        write(&mut f, b"/r", NUMBERS, b"", &sample().0, (&[], None), postings).unwrap();
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
