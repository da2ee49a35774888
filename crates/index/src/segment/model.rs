//! What an index holds, as plain data: directories with their stamps and
//! entries, each entry's stat key, class and extraction, the side rows of
//! numbers (filters, archives' member lists), and what the numbers mean.
//! Made by a build or an update, or read in place from an index file.

use std::borrow::Cow;

use super::layout::{u32_at, u64_at, ENTRY_SIZE};

/// A file changed twice within one tick of the file system's clock keeps
/// its stamps (a coarse clock: 1 to 10 ms; a network file system's server
/// clock may be further off): anything stamped less than this long before
/// a build began, or later, is searched as changed ("racily clean", as
/// git calls it), so a change made while the index was built is never
/// missed.
pub const RACY_MARGIN_NS: i64 = 1_000_000_000;

/// A time in nanoseconds since the epoch, from stat's seconds and
/// nanoseconds (the one form stamps and keys are kept and compared in).
fn nanos(secs: i64, nsec: i64) -> i64 {
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

    /// The key in `md` (the same fields, as the standard library reads
    /// them).
    pub fn from_metadata(md: &std::fs::Metadata) -> StatKey {
        use std::os::unix::fs::MetadataExt;
        StatKey {
            ino: md.ino(),
            size: md.size(),
            mtime_ns: nanos(md.mtime(), md.mtime_nsec()),
            ctime_ns: nanos(md.ctime(), md.ctime_nsec()),
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

    /// The type the walk is handed for an entry of this type (Other: the
    /// walk stats it, as an entry whose type the directory did not say).
    pub fn for_walk(self) -> trawl_walk::FileType {
        match self {
            EntryType::File => trawl_walk::FileType::File,
            EntryType::Dir => trawl_walk::FileType::Dir,
            EntryType::Symlink => trawl_walk::FileType::Symlink,
            EntryType::Other => trawl_walk::FileType::Unknown,
        }
    }
}

impl From<trawl_walk::FileType> for EntryType {
    /// The type of an entry as the walk met it.
    fn from(t: trawl_walk::FileType) -> EntryType {
        match t {
            trawl_walk::FileType::File => EntryType::File,
            trawl_walk::FileType::Dir => EntryType::Dir,
            trawl_walk::FileType::Symlink => EntryType::Symlink,
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
    /// Its bytes.
    pub(crate) fn blob(&self) -> &Blob<'_> {
        match &self.side {
            Side::Filter(b) | Side::Streams(b) => b,
        }
    }

    /// Its kind's code in the side table (a filter 1, a list of streams 2).
    pub(crate) fn what(&self) -> u8 {
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
                EntryType::from_code(rows[j * ENTRY_SIZE + 12]).unwrap_or(EntryType::Other)
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
                    kind: EntryType::from_code(row[12]).unwrap_or(EntryType::Other),
                    class: Class::from_code(row[13]).unwrap_or(Class::Unknown),
                    extracted: Extracted::from_code(row[14]).unwrap_or_default(),
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

impl Extracted {
    /// Its code in an entry row.
    pub(crate) fn code(self) -> u8 {
        match self {
            Extracted::Nothing => 0,
            Extracted::Text => 1,
            Extracted::Failed => 2,
            Extracted::Unindexed => 3,
            Extracted::Streams => 4,
            Extracted::StreamsReported => 5,
        }
    }

    /// The one whose code is `code`, if any.
    pub(crate) fn from_code(code: u8) -> Option<Extracted> {
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
}

impl EntryType {
    /// Its code in an entry row.
    pub(crate) fn code(self) -> u8 {
        match self {
            EntryType::File => 1,
            EntryType::Dir => 2,
            EntryType::Symlink => 3,
            EntryType::Other => 4,
        }
    }

    /// The one whose code is `code`, if any.
    pub(crate) fn from_code(code: u8) -> Option<EntryType> {
        Some(match code {
            1 => EntryType::File,
            2 => EntryType::Dir,
            3 => EntryType::Symlink,
            4 => EntryType::Other,
            _ => return None,
        })
    }
}

impl Class {
    /// Its code in an entry row.
    pub(crate) fn code(self) -> u8 {
        match self {
            Class::Unknown => 0,
            Class::Text => 1,
            Class::Binary => 2,
            Class::Unreadable => 3,
            Class::Unindexed => 4,
            Class::Transcoded => 5,
        }
    }

    /// The one whose code is `code`, if any.
    pub(crate) fn from_code(code: u8) -> Option<Class> {
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
