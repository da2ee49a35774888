//! The records of a shard's stream, one JSON object a line
//! (`{"type": TYPE, "data": {...}}`): written by [`crate::ShardWriter`],
//! read by the merge.

use serde::{Deserialize, Serialize};
use trawl_printer::{Chunk, ExtractionStats, IndexStats, Stats};

use crate::bytes::{Bytes, BytesRef};

/// A chunk's kind: the printer's [`Chunk`], by name.
#[derive(Clone, Copy, Debug, Deserialize, Eq, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// [`Chunk::Lines`].
    Lines,
    /// [`Chunk::Continued`].
    Continued,
    /// [`Chunk::EmptyGroup`].
    EmptyGroup,
    /// [`Chunk::Notice`].
    Notice,
    /// [`Chunk::Other`].
    Other,
}

impl From<Chunk> for Kind {
    fn from(c: Chunk) -> Kind {
        match c {
            Chunk::Lines => Kind::Lines,
            Chunk::Continued => Kind::Continued,
            Chunk::EmptyGroup => Kind::EmptyGroup,
            Chunk::Notice => Kind::Notice,
            Chunk::Other => Kind::Other,
        }
    }
}

impl From<Kind> for Chunk {
    fn from(k: Kind) -> Chunk {
        match k {
            Kind::Lines => Chunk::Lines,
            Kind::Continued => Chunk::Continued,
            Kind::EmptyGroup => Chunk::EmptyGroup,
            Kind::Notice => Chunk::Notice,
            Kind::Other => Chunk::Other,
        }
    }
}

/// What ends a run's output.
#[derive(Clone, Copy, Debug, Default, Deserialize, Eq, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// Nothing.
    #[default]
    None,
    /// `--stats`'s text.
    Stats,
    /// JSON's summary message.
    Json,
}

/// How a shard's output is joined with the others', as its options say
/// (so that the merge needs not read them again).
#[derive(Clone, Debug, Default, Deserialize, Eq, PartialEq, Serialize)]
pub struct Format {
    /// What goes between groups of different files (`--` with context,
    /// colored when coloring; an empty line under `--heading`), if files
    /// are separated.
    pub separator: Option<Bytes>,
    /// What ends the output.
    pub ending: Ending,
    /// `-q`: a selected line makes the exit status 0, errors or not.
    pub quiet: bool,
    /// `--line-buffered`: each piece is written as it comes.
    pub line_buffered: bool,
    /// Messages about unreadable files are said (not `-s`).
    pub messages: bool,
}

/// The totals a shard's `shard_end` carries.
#[derive(Clone, Copy, Debug, Default, Deserialize, Eq, PartialEq, Serialize)]
pub struct Totals {
    /// As [`Stats::matches`], and so on.
    pub matches: u64,
    /// Lines selected.
    pub matched_lines: u64,
    /// Files with a selected line.
    pub files_matched: u64,
    /// Files searched.
    pub files_searched: u64,
    /// Bytes of output.
    pub bytes_printed: u64,
    /// Bytes read.
    pub bytes_searched: u64,
    /// Files whose selected lines were binary.
    pub binary_files_matched: u64,
    /// Time spent searching files, summed.
    pub search_time_ns: u64,
}

impl From<&Stats> for Totals {
    fn from(s: &Stats) -> Totals {
        Totals {
            matches: s.matches,
            matched_lines: s.matched_lines,
            files_matched: s.files_matched,
            files_searched: s.files_searched,
            bytes_printed: s.bytes_printed,
            bytes_searched: s.bytes_searched,
            binary_files_matched: s.binary_files_matched,
            search_time_ns: s.search_time.as_nanos() as u64,
        }
    }
}

impl From<&Totals> for Stats {
    fn from(t: &Totals) -> Stats {
        Stats {
            matches: t.matches,
            matched_lines: t.matched_lines,
            files_matched: t.files_matched,
            files_searched: t.files_searched,
            bytes_searched: t.bytes_searched,
            bytes_printed: t.bytes_printed,
            binary_files_matched: t.binary_files_matched,
            search_time: std::time::Duration::from_nanos(t.search_time_ns),
        }
    }
}

/// What became of documents, as a shard's `shard_end` carries it.
#[derive(Clone, Copy, Debug, Default, Deserialize, Eq, PartialEq, Serialize)]
pub struct Extraction {
    /// As [`ExtractionStats::failed`], and so on.
    pub failed: u64,
    /// Documents the cache remembers failing.
    pub failed_remembered: u64,
    /// Documents searched as bytes after their extractor failed.
    pub searched_as_bytes: u64,
}

impl From<&ExtractionStats> for Extraction {
    fn from(x: &ExtractionStats) -> Extraction {
        Extraction {
            failed: x.failed,
            failed_remembered: x.failed_remembered,
            searched_as_bytes: x.searched_as_bytes,
        }
    }
}

impl From<&Extraction> for ExtractionStats {
    fn from(x: &Extraction) -> ExtractionStats {
        ExtractionStats {
            failed: x.failed,
            failed_remembered: x.failed_remembered,
            searched_as_bytes: x.searched_as_bytes,
        }
    }
}

/// How a shard's worker's index served its search, as its `shard_end`
/// carries it (when one did).
#[derive(Clone, Copy, Debug, Default, Deserialize, Eq, PartialEq, Serialize)]
pub struct Indexed {
    /// As [`IndexStats::files_skipped`], and so on.
    pub files_skipped: u64,
    /// Unchanged files searched as candidates.
    pub files_candidates: u64,
    /// Files searched because they changed or are new.
    pub files_changed: u64,
    /// What changed came from the index's watcher.
    pub watched: bool,
}

impl From<&IndexStats> for Indexed {
    fn from(x: &IndexStats) -> Indexed {
        Indexed {
            files_skipped: x.files_skipped,
            files_candidates: x.files_candidates,
            files_changed: x.files_changed,
            watched: x.watched,
        }
    }
}

impl Indexed {
    /// Adds these counts to `sum` (made when first needed).
    pub fn add_to(&self, sum: &mut Option<IndexStats>) {
        let s = sum.get_or_insert_with(IndexStats::default);
        s.files_skipped += self.files_skipped;
        s.files_candidates += self.files_candidates;
        s.files_changed += self.files_changed;
        s.watched |= self.watched;
    }
}

/// A record as written.
#[derive(Serialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub(crate) enum Out<'a> {
    ShardBegin {
        protocol: u32,
        shard: &'a str,
        host: &'a str,
        trawl_version: &'a str,
    },
    Output(&'a Format),
    Root {
        operand: u64,
        display: BytesRef<'a>,
    },
    Chunk {
        kind: Kind,
        bytes: BytesRef<'a>,
    },
    Error {
        message: BytesRef<'a>,
    },
    Refused {
        reason: &'a str,
    },
    ShardEnd {
        status: u8,
        stats: Totals,
        extraction: Extraction,
        #[serde(skip_serializing_if = "Option::is_none")]
        index: Option<Indexed>,
    },
}

/// A record as read.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub(crate) enum In {
    ShardBegin {
        #[allow(dead_code)] // read for the stream's sake, checked by the shard
        protocol: u32,
        shard: String,
        #[allow(dead_code)]
        host: String,
        #[allow(dead_code)]
        trawl_version: String,
    },
    Output(Format),
    Root {
        operand: u64,
        display: Bytes,
    },
    Chunk {
        kind: Kind,
        bytes: Bytes,
    },
    Error {
        message: Bytes,
    },
    Refused {
        reason: String,
    },
    ShardEnd {
        status: u8,
        #[serde(default)]
        stats: Totals,
        #[serde(default)]
        extraction: Extraction,
        #[serde(default)]
        index: Option<Indexed>,
    },
}

/// Writes `record` as one line into `out`.
pub(crate) fn write(out: &mut Vec<u8>, record: &Out<'_>) {
    serde_json::to_writer(&mut *out, record).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

/// Reads one line's record.
pub(crate) fn read(line: &[u8]) -> serde_json::Result<In> {
    serde_json::from_slice(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chunk_kind_has_a_name_and_comes_back() {
        for chunk in Chunk::ALL {
            let mut line = Vec::new();
            write(&mut line, &Out::Chunk { kind: chunk.into(), bytes: BytesRef(b"a\xff\n") });
            match read(&line).unwrap() {
                In::Chunk { kind, bytes } => {
                    assert_eq!(Chunk::from(kind), chunk);
                    assert_eq!(bytes.0, b"a\xff\n");
                }
                other => panic!("{other:?}"),
            }
        }
        let mut line = Vec::new();
        write(&mut line, &Out::Chunk { kind: Kind::EmptyGroup, bytes: BytesRef(b"") });
        assert_eq!(
            line,
            b"{\"type\":\"chunk\",\"data\":{\"kind\":\"empty_group\",\"bytes\":{\"text\":\"\"}}}\n"
        );
    }

    #[test]
    fn totals_carry_the_printers_stats() {
        let stats = Stats {
            matches: 3,
            search_time: std::time::Duration::from_nanos(7),
            ..Default::default()
        };
        let back = Stats::from(&Totals::from(&stats));
        assert_eq!((back.matches, back.search_time), (3, stats.search_time));
        let end = br#"{"type":"shard_end","data":{"status":1}}"#;
        assert!(matches!(read(end).unwrap(), In::ShardEnd { status: 1, .. }));
    }
}
