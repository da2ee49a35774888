//! The index file's layout, shared by its writer and its reader.
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
//!
//! [`ID_LIMIT`]: super::model::ID_LIMIT
//! [`EXTRACTED`]: super::model::EXTRACTED
//! [`STREAM`]: super::model::STREAM

/// The first bytes of an index file.
pub(crate) const MAGIC: &[u8; 8] = b"TRAWLIX\x01";
/// Bumped whenever the layout or the meaning of a field changes: an index
/// of another version is rebuilt, not misread.
pub(crate) const VERSION: u32 = 10;

pub(crate) const TAG_META: u32 = 1;
pub(crate) const TAG_DIRS: u32 = 2;
pub(crate) const TAG_ENTRIES: u32 = 3;
pub(crate) const TAG_NAMES: u32 = 4;
pub(crate) const TAG_GRAMS: u32 = 5;
pub(crate) const TAG_POSTINGS: u32 = 6;
pub(crate) const TAG_FENCES: u32 = 7;
pub(crate) const TAG_SIDES: u32 = 8;
pub(crate) const TAG_BLOBS: u32 = 9;
pub(crate) const SECTIONS: usize = 9;
pub(crate) const HEADER: usize = 16 + SECTIONS * 32;

pub(crate) const DIR_SIZE: usize = 56;
pub(crate) const ENTRY_SIZE: usize = 48;
pub(crate) const GRAM_SIZE: usize = 20;
/// The gram table is checked in blocks of this many rows, as a search
/// reaches them (a big corpus's table is hundreds of megabytes: checking
/// it whole would cost each search more than its answer). The fences, a
/// row per block (its first gram and its checksum), are checked whole.
pub(crate) const BLOCK_ROWS: usize = 1024;
pub(crate) const FENCE_SIZE: usize = 8;
pub(crate) const SIDE_SIZE: usize = 24;
/// The fixed part of `META`: when the build began, the next free entry
/// and stream numbers, the length of the extraction's signature.
pub(crate) const META_FIXED: usize = 20;

/// The little-endian u32 at `at` of `b`.
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The little-endian u64 at `at` of `b`.
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
