//! Searching bytes for selected lines, with grep's semantics.
//!
//! A [`Searcher`] reads a file into a reusable buffer and hands the whole
//! buffer (every complete line in it) to the matcher at once; line boundaries
//! are located only around the matches it returns, and newlines are counted
//! only when line numbers are wanted, incrementally from the last counted
//! point. Lines longer than the buffer grow it; the tail of a buffer that ends
//! mid-line, plus the lines needed for before-context, is moved to the front
//! before the next read.
//!
//! Results go to a [`Sink`], whose callbacks return `Ok(false)` to stop.
//!
//! The crate's files: `lib.rs` (the [`Searcher`] entry points), `config`,
//! `sink` and `part` (the public types), `scan` (one search; its steps —
//! buffer refill, binary detection, line counting, context, long lines —
//! in `scan/`), `file` (the policy for regular files), `parallel` and
//! `mapped` (one file in parts on every thread, read or mapped), `cancel`.
//!
//! How a source is searched is decided here too ([`Searcher::search_file`]
//! for regular files: one pass or parts on every thread, mapped or read;
//! [`Searcher::search_stream`] for any other byte stream), and every search
//! stops at its next read once the run's [`Cancel`] token is set.
//!
//! ```
//! use trawl_matcher::MatcherBuilder;
//! use trawl_search::{LineInfo, Searcher, SearcherConfig, Sink};
//!
//! struct Lines(Vec<String>);
//! impl Sink for Lines {
//!     fn matched(&mut self, line: &[u8], _: LineInfo) -> std::io::Result<bool> {
//!         self.0.push(String::from_utf8_lossy(line).into_owned());
//!         Ok(true)
//!     }
//! }
//! let m = MatcherBuilder::new().build(&[b"b+".to_vec()]).unwrap();
//! let mut s = Searcher::new(SearcherConfig::default());
//! let mut sink = Lines(vec![]);
//! s.search_slice(&m, b"a\nbb\nc", &mut sink).unwrap();
//! assert_eq!(sink.0, ["bb\n"]);
//! ```
#![deny(missing_docs)]

use std::fs::File;
use std::io::{self, Read};

use trawl_matcher::Matcher;

mod cancel;
mod config;
mod encoding;
mod file;
mod mapped;
mod multiline;
mod parallel;
mod part;
mod scan;
mod sink;

pub use cancel::Cancel;
pub use config::{BinaryMode, LineTerminator, SearcherConfig, LONG_LINE, READ_SIZE};
pub use encoding::{has_bom, Encoding};
pub use file::{FileHints, MapParts, SearchOutcome, SearchedAs, ShortRead};
pub use mapped::MmapChoice;
pub use parallel::{search_file as search_file_parallel, PARALLEL_MIN, PART_SIZE};
pub use part::Part;
pub use scan::{count_newlines, count_terminators};
use scan::{Buf, Scan};
pub use sink::{ContextKind, LineInfo, SearchError, SearchSummary, Sink};

/// A buffer grown past this for one long line is given back after the file.
const SHRINK_ABOVE: usize = 16 * 1024 * 1024;

/// Searches inputs one at a time, reusing its buffer (one per thread).
#[derive(Debug)]
pub struct Searcher {
    config: SearcherConfig,
    buf: Vec<u8>,
}

impl Searcher {
    /// A searcher with its own buffer.
    pub fn new(config: SearcherConfig) -> Searcher {
        Searcher { config, buf: Vec::new() }
    }

    /// The configuration.
    pub fn config(&self) -> &SearcherConfig {
        &self.config
    }

    /// Searches everything `reader` yields.
    pub fn search_reader<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
    ) -> Result<SearchSummary, SearchError> {
        self.search_part(matcher, reader, sink, Part::WHOLE)
    }

    /// Searches the lines of `reader` that start inside `part`, reading no
    /// further past its end than the last such line and after-context need.
    pub fn search_part<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
        part: Part,
    ) -> Result<SearchSummary, SearchError> {
        self.search_owned(matcher, reader, sink, part, 0, None)
    }

    /// Searches with the searcher's own buffer, whose first `prefilled`
    /// bytes were already read from `reader`; `reread`: the file `reader`
    /// reads from its start, when it may be read again.
    fn search_owned<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        sink: &mut S,
        part: Part,
        prefilled: usize,
        reread: Option<&File>,
    ) -> Result<SearchSummary, SearchError> {
        if self.config.max_count == Some(0) {
            return Ok(SearchSummary::default());
        }
        let mut buf = std::mem::take(&mut self.buf);
        let read_size = self.config.read_size();
        crate::scan::grow_zeroed(&mut buf, read_size);
        let buf_ref = Buf::Owned(&mut buf);
        let mut scan =
            Scan::new(&self.config, matcher, sink, reader, buf_ref, part, prefilled, reread);
        let result = scan.run();
        if buf.len() > SHRINK_ABOVE {
            buf = Vec::new();
        }
        self.buf = buf;
        result
    }

    /// Searches the lines of a mapped file that start inside `part`, as
    /// [`Searcher::search_part`] does with a reader: `data` holds the file
    /// from `part.origin` to its end. Returns None, having told `sink` some
    /// lines, when the data holds a NUL that binary detection must rewrite,
    /// or a line to stream through a buffer: the part must then be searched
    /// from a reader.
    pub fn search_mapped<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        data: &[u8],
        sink: &mut S,
        part: Part,
    ) -> Result<Option<SearchSummary>, SearchError> {
        if self.config.max_count == Some(0) {
            return Ok(Some(SearchSummary::default()));
        }
        let buf = Buf::Mapped { data, off: 0 };
        let mut scan = Scan::new(&self.config, matcher, sink, io::empty(), buf, part, 0, None);
        let summary = scan.run()?;
        Ok((!scan.needs_copy()).then_some(summary))
    }

    /// Searches a byte slice as a whole file.
    pub fn search_slice<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        data: &[u8],
        sink: &mut S,
    ) -> Result<SearchSummary, SearchError> {
        if self.config.multiline {
            return multiline::search(&self.config, matcher, data, sink);
        }
        self.search_reader(matcher, data, sink)
    }
}

#[cfg(test)]
mod tests;
