//! A shard's stream: every record written whole under a lock, so that the
//! printers' pieces (through [`Output`]), the messages caught from standard
//! error and the records around them never split each other's lines. A
//! piece larger than [`RECORD_BYTES`] (a file's output handed over whole,
//! a long line) becomes several records, the first of its kind and the
//! others `continued`, so that no reader ever holds a record larger than
//! that.

use std::io::{self, Write};
use std::sync::Mutex;

use trawl_printer::{Chunk, ExtractionStats, IndexStats, Output, Stats};

use crate::bytes::BytesRef;
use crate::record::{self, Format, Indexed, Out};
use crate::PROTOCOL;

/// The most bytes of output one `chunk` record carries.
pub const RECORD_BYTES: usize = 1 << 20;

/// Writes a shard's records to `W` (standard output).
pub struct ShardWriter<W> {
    out: Mutex<Sink<W>>,
}

struct Sink<W> {
    w: W,
    /// A record being made (kept to reuse its room).
    line: Vec<u8>,
}

impl<W: Write + Send> ShardWriter<W> {
    /// Records to `w`.
    pub fn new(w: W) -> ShardWriter<W> {
        ShardWriter { out: Mutex::new(Sink { w, line: Vec::new() }) }
    }

    /// The writer, once every record was written.
    pub fn into_inner(self) -> W {
        self.out.into_inner().unwrap_or_else(|p| p.into_inner()).w
    }

    fn put(&self, record: &Out<'_>) -> io::Result<()> {
        self.out.lock().unwrap_or_else(|p| p.into_inner()).put(record)
    }

    /// The first record: the shard's name, its host and trawl's version.
    pub fn begin(&self, shard: &str, host: &str, trawl_version: &str) -> io::Result<()> {
        self.put(&Out::ShardBegin { protocol: PROTOCOL, shard, host, trawl_version })
    }

    /// How the shard's output is joined with the others'.
    pub fn format(&self, format: &Format) -> io::Result<()> {
        self.put(&Out::Output(format))
    }

    /// A root's output follows.
    pub fn root(&self, operand: u64, display: &[u8]) -> io::Result<()> {
        self.put(&Out::Root { operand, display: BytesRef(display) })
    }

    /// A message trawl would have written to standard error (one line,
    /// without its newline).
    pub fn error(&self, message: &[u8]) -> io::Result<()> {
        self.put(&Out::Error { message: BytesRef(message) })
    }

    /// The request is not run.
    pub fn refused(&self, reason: &str) -> io::Result<()> {
        self.put(&Out::Refused { reason })
    }

    /// The last record: the exit status one trawl over these roots would
    /// give, and the totals; then everything is written out.
    pub fn end(&self, status: u8, stats: &Stats, extraction: &ExtractionStats) -> io::Result<()> {
        self.end_indexed(status, stats, extraction, None)
    }

    /// [`ShardWriter::end`], with how the worker's index served the search
    /// (`--stats` and JSON's summary say it).
    pub fn end_indexed(
        &self,
        status: u8,
        stats: &Stats,
        extraction: &ExtractionStats,
        index: Option<&IndexStats>,
    ) -> io::Result<()> {
        let (stats, extraction) = (stats.into(), extraction.into());
        let index = index.map(Indexed::from);
        self.put(&Out::ShardEnd { status, stats, extraction, index })?;
        self.flush()
    }
}

impl<W: Write> Sink<W> {
    fn put(&mut self, record: &Out<'_>) -> io::Result<()> {
        self.line.clear();
        record::write(&mut self.line, record);
        self.w.write_all(&self.line)
    }
}

/// Where a piece's first record ends: at most [`RECORD_BYTES`] in, after
/// the last line end there (else not inside a UTF-8 character, so that
/// text stays text).
fn record_end(bytes: &[u8]) -> usize {
    if bytes.len() <= RECORD_BYTES {
        return bytes.len();
    }
    let window = &bytes[..RECORD_BYTES];
    if let Some(i) = window.iter().rposition(|&b| b == b'\n') {
        return i + 1;
    }
    // Back over continuation bytes (10xxxxxx) to a character's start.
    (RECORD_BYTES - 3..=RECORD_BYTES)
        .rev()
        .find(|&i| bytes[i] & 0xc0 != 0x80)
        .filter(|&i| i > 0)
        .unwrap_or(RECORD_BYTES)
}

impl<W: Write + Send> Output for ShardWriter<W> {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        if !chunk.is_output(bytes) {
            return Ok(());
        }
        // One piece's records together (a message may not come between).
        let mut sink = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let mut kind = chunk;
        let mut rest = bytes;
        loop {
            let (now, later) = rest.split_at(record_end(rest));
            sink.put(&Out::Chunk { kind: kind.into(), bytes: BytesRef(now) })?;
            if later.is_empty() {
                return Ok(());
            }
            (rest, kind) = (later, Chunk::Continued);
        }
    }

    fn flush(&self) -> io::Result<()> {
        self.out.lock().unwrap_or_else(|p| p.into_inner()).w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_whole_lines_in_order() {
        let w = ShardWriter::new(Vec::new());
        w.begin("fs1:/a", "host", "0.1.0").unwrap();
        w.root(0, b"fs1:/a").unwrap();
        w.write(b"fs1:/a/x:1\n", Chunk::Lines).unwrap();
        w.write(b"", Chunk::Lines).unwrap();
        w.write(b"", Chunk::EmptyGroup).unwrap();
        w.error(b"trawl: fs1:/a/y: Permission denied").unwrap();
        w.end(2, &Stats::default(), &ExtractionStats::default()).unwrap();
        let out = w.out.into_inner().unwrap().w;
        let types: Vec<String> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice::<serde_json::Value>(l).unwrap()["type"].to_string())
            .collect();
        let want = ["shard_begin", "root", "chunk", "chunk", "error", "shard_end"];
        assert_eq!(types, want.map(|t| format!("\"{t}\"")));
    }

    /// The chunk records of `bytes` written as one piece of kind `chunk`.
    fn records(bytes: &[u8], chunk: Chunk) -> Vec<(Chunk, Vec<u8>)> {
        let w = ShardWriter::new(Vec::new());
        w.write(bytes, chunk).unwrap();
        let out = w.into_inner();
        let lines = out.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        lines
            .map(|l| match record::read(l).unwrap() {
                record::In::Chunk { kind, bytes } => (Chunk::from(kind), bytes.0),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// The records' bytes, one after the other.
    fn joined(records: &[(Chunk, Vec<u8>)]) -> Vec<u8> {
        records.iter().flat_map(|(_, b)| b.iter().copied()).collect()
    }

    #[test]
    fn a_large_piece_is_split_into_bounded_records_at_line_ends() {
        let line = b"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
        let piece = line.repeat(3 * RECORD_BYTES / line.len() + 5);
        let got = records(&piece, Chunk::Lines);
        assert!(got.len() >= 4, "{} records", got.len());
        assert_eq!(got[0].0, Chunk::Lines);
        assert!(got[1..].iter().all(|(k, _)| *k == Chunk::Continued));
        assert!(got.iter().all(|(_, b)| b.len() <= RECORD_BYTES && b.ends_with(b"\n")));
        assert_eq!(joined(&got), piece);
    }

    #[test]
    fn a_long_line_is_split_between_characters_and_stays_text() {
        let piece = "é".repeat(RECORD_BYTES).into_bytes();
        let w = ShardWriter::new(Vec::new());
        w.write(&piece, Chunk::Other).unwrap();
        let out = w.into_inner();
        let base64 = b"{\"bytes\":\"";
        assert!(!out.windows(base64.len()).any(|w| w == base64), "split inside a character");
        let got = records(&piece, Chunk::Other);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0, got[1].0), (Chunk::Other, Chunk::Continued));
        assert!(got.iter().all(|(_, b)| b.len() <= RECORD_BYTES));
        assert_eq!(joined(&got), piece);
    }
}
