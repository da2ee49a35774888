//! A shard's stream: every record written whole under a lock, so that the
//! printers' pieces (through [`Output`]), the messages caught from standard
//! error and the records around them never split each other's lines.

use std::io::{self, Write};
use std::sync::Mutex;

use trawl_printer::{Chunk, ExtractionStats, Output, Stats};

use crate::bytes::BytesRef;
use crate::record::{self, Format, Out};
use crate::PROTOCOL;

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
        let mut sink = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let Sink { w, line } = &mut *sink;
        line.clear();
        record::write(line, record);
        w.write_all(line)
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
        let (stats, extraction) = (stats.into(), extraction.into());
        self.put(&Out::ShardEnd { status, stats, extraction })?;
        self.flush()
    }
}

impl<W: Write + Send> Output for ShardWriter<W> {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        if !chunk.is_output(bytes) {
            return Ok(());
        }
        self.put(&Out::Chunk { kind: chunk.into(), bytes: BytesRef(bytes) })
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
}
