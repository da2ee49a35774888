//! JSON Lines output, in ripgrep's message format, written by serde_json
//! from typed messages.

use std::cell::Cell;

use base64::Engine as _;
use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;
use trawl_matcher::Matcher;
use trawl_search::{LineInfo, SearchSummary};

use crate::stats::{ExtractionStats, IndexStats, Stats};

/// Where a member of an archive is: the file holding the outermost archive,
/// and the member paths from there down to it.
#[derive(Clone, Debug)]
pub struct Within<'p> {
    /// The file on disk.
    pub archive: &'p [u8],
    /// Member paths, outermost first.
    pub members: Vec<&'p [u8]>,
}

/// Bytes as ripgrep's JSON carries them: `{"text":...}` for UTF-8 data,
/// else `{"bytes":base64}`.
#[derive(Serialize)]
#[serde(untagged)]
enum Data<'a> {
    Text { text: &'a str },
    Bytes { bytes: String },
}

impl<'a> Data<'a> {
    fn of(bytes: &'a [u8]) -> Data<'a> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Data::Text { text },
            Err(_) => {
                Data::Bytes { bytes: base64::engine::general_purpose::STANDARD.encode(bytes) }
            }
        }
    }
}

/// One message: `{"type":...,"data":...}`.
#[derive(Serialize)]
#[serde(tag = "type", content = "data", rename_all = "lowercase")]
enum Message<'a, S> {
    Begin {
        path: Data<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<&'a str>,
    },
    Match(LineMessage<'a, S>),
    Context(LineMessage<'a, S>),
    End {
        path: Data<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        host: Option<&'a str>,
        binary_offset: Option<u64>,
        stats: FileStats,
    },
    Summary {
        elapsed_total: Elapsed,
        stats: TotalStats,
        /// How an index served the search (when one did).
        #[serde(skip_serializing_if = "Option::is_none")]
        index: Option<IndexStats>,
        /// What became of documents (when anything did not go as asked).
        #[serde(skip_serializing_if = "Option::is_none")]
        extraction: Option<ExtractionStats>,
    },
}

/// A message without submatches (begin, end, summary).
type Plain<'a> = Message<'a, ()>;

#[derive(Serialize)]
struct LineMessage<'a, S> {
    path: Data<'a>,
    /// A shard's worker (see [`crate::PrinterConfig::host`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    host: Option<&'a str>,
    /// For a member of an archive: the file holding it.
    #[serde(skip_serializing_if = "Option::is_none")]
    archive: Option<Data<'a>>,
    /// For a member of an archive: the member paths, outermost first.
    #[serde(skip_serializing_if = "Option::is_none")]
    members: Option<Vec<Data<'a>>>,
    /// The page of a document's line (PDF text).
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u64>,
    lines: Data<'a>,
    line_number: Option<u64>,
    absolute_offset: u64,
    submatches: S,
}

/// A line's matches, found while they are written (no list is built);
/// `count` says how many there were.
struct Submatches<'a, M> {
    matcher: Option<&'a M>,
    /// `--replace`: each submatch carries its replacement.
    replace: Option<&'a crate::shape::Template>,
    body: &'a [u8],
    count: Cell<u64>,
}

impl<M: Matcher> Serialize for Submatches<'_, M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if let Some(m) = self.matcher {
            let mut at = 0;
            let (mut groups, mut replaced) = (Vec::new(), Vec::new());
            while let Some(x) = crate::util::next_match(m, self.body, &mut at) {
                let body = self.body;
                let matched = Data::of(&body[x.start..x.end]);
                let replacement = self.replace.map(|t| {
                    replaced.clear();
                    t.expand(m, body, x, &mut groups, &mut replaced);
                    Data::of(&replaced)
                });
                let sub = Submatch { matched, replacement, start: x.start, end: x.end };
                seq.serialize_element(&sub)?;
                self.count.set(self.count.get() + 1);
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Submatch<'a> {
    #[serde(rename = "match")]
    matched: Data<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replacement: Option<Data<'a>>,
    start: usize,
    end: usize,
}

#[derive(Serialize)]
struct FileStats {
    elapsed: Elapsed,
    searches: u64,
    searches_with_match: u64,
    bytes_searched: u64,
    bytes_printed: u64,
    matched_lines: u64,
    matches: u64,
}

/// One file's totals, for its `end` message.
pub(crate) struct FileTotals {
    pub(crate) elapsed: std::time::Duration,
    pub(crate) selected: u64,
    pub(crate) matches: u64,
    pub(crate) bytes_printed: u64,
}

#[derive(Serialize)]
struct Elapsed {
    secs: u64,
    nanos: u32,
    human: String,
}

impl Elapsed {
    fn of(d: std::time::Duration) -> Elapsed {
        Elapsed {
            secs: d.as_secs(),
            nanos: d.subsec_nanos(),
            human: format!("{:.6}s", d.as_secs_f64()),
        }
    }
}

#[derive(Serialize)]
struct TotalStats {
    /// The files' searches' time, summed.
    elapsed: Elapsed,
    searches: u64,
    searches_with_match: u64,
    bytes_searched: u64,
    bytes_printed: u64,
    matched_lines: u64,
    matches: u64,
    /// Files whose matched lines were binary: their matches are not in
    /// `matches`.
    binary_searches_with_match: u64,
}

/// Writes one message and its newline.
fn write<S: Serialize>(out: &mut Vec<u8>, message: &Message<'_, S>) {
    serde_json::to_writer(&mut *out, message).expect("writing to a Vec cannot fail");
    out.push(b'\n');
}

/// How a stream is named in messages: its path, and a shard's host.
#[derive(Clone, Copy)]
pub(crate) struct Name<'a> {
    pub(crate) path: &'a [u8],
    pub(crate) host: Option<&'a str>,
}

pub(crate) fn begin(out: &mut Vec<u8>, name: Name<'_>) {
    write(out, &Plain::Begin { path: Data::of(name.path), host: name.host });
}

/// Where a line is: its stream's name, its page in a document, its offset
/// and number.
pub(crate) struct Place<'a> {
    pub(crate) name: Name<'a>,
    pub(crate) page: Option<u64>,
    pub(crate) within: Option<&'a Within<'a>>,
    pub(crate) info: LineInfo,
}

/// Writes a match or context message; returns the number of submatches.
pub(crate) fn line<M: Matcher>(
    out: &mut Vec<u8>,
    place: Place<'_>,
    line: &[u8],
    matcher: Option<&M>,
    with_submatches: bool,
    replace: Option<&crate::shape::Template>,
) -> u64 {
    let Place { name, page, within, info } = place;
    let submatches = Submatches {
        matcher: matcher.filter(|_| with_submatches),
        replace,
        body: line.strip_suffix(b"\n").unwrap_or(line),
        count: Cell::new(0),
    };
    let message = LineMessage {
        path: Data::of(name.path),
        host: name.host,
        archive: within.map(|w| Data::of(w.archive)),
        members: within.map(|w| w.members.iter().map(|m| Data::of(m)).collect()),
        page,
        lines: Data::of(line),
        line_number: info.line_number,
        absolute_offset: info.offset,
        submatches: &submatches,
    };
    let message =
        if matcher.is_some() { Message::Match(message) } else { Message::Context(message) };
    write(out, &message);
    submatches.count.get()
}

pub(crate) fn end(out: &mut Vec<u8>, name: Name<'_>, summary: &SearchSummary, file: FileTotals) {
    let stats = FileStats {
        elapsed: Elapsed::of(file.elapsed),
        searches: 1,
        searches_with_match: u64::from(file.selected > 0),
        bytes_searched: crate::util::bytes_searched(summary),
        bytes_printed: file.bytes_printed,
        matched_lines: file.selected,
        matches: file.matches,
    };
    let (path, host) = (Data::of(name.path), name.host);
    write(out, &Plain::End { path, host, binary_offset: summary.binary_offset, stats });
}

/// Writes the closing summary message (with how an index served the
/// search, when one did, and what became of documents, when anything
/// did not go as asked).
pub(crate) fn summary(
    out: &mut Vec<u8>,
    stats: &Stats,
    elapsed: std::time::Duration,
    index: Option<IndexStats>,
    extraction: ExtractionStats,
) {
    let elapsed_total = Elapsed::of(elapsed);
    let stats = TotalStats {
        elapsed: Elapsed::of(stats.search_time),
        searches: stats.files_searched,
        searches_with_match: stats.files_matched,
        bytes_searched: stats.bytes_searched,
        bytes_printed: stats.bytes_printed,
        matched_lines: stats.matched_lines,
        matches: stats.matches,
        binary_searches_with_match: stats.binary_files_matched,
    };
    let extraction = (!extraction.is_empty()).then_some(extraction);
    write(out, &Plain::Summary { elapsed_total, stats, index, extraction });
}
