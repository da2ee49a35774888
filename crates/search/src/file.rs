//! How a source is searched: the policy for regular files (one pass, or
//! in parts on every thread; mapped or read; short reads; the size asked
//! for only when the first read shows the file is not small) and the entry
//! point for any other byte stream (standard input, and later decompressed
//! streams, archive members and extractor output).

use std::fs::File;
use std::io::{self, Read};

use trawl_matcher::Matcher;

use crate::encoding::{decoded, has_bom, peek, Encoding};
use crate::{
    parallel, MmapChoice, Part, SearchError, SearchSummary, Searcher, SearcherConfig, Sink,
};

/// What the caller knows about a regular file before it is searched.
#[derive(Clone, Copy, Debug)]
pub struct FileHints {
    /// Its size, when the walk already stat'd it. None: the file is stat'd
    /// only if its first read fills the buffer (most files fit in one).
    pub size: Option<u64>,
    /// Whether its parts may be read from a memory mapping.
    pub mapping: MapParts,
    /// What a read returning less than asked means.
    pub short_read: ShortRead,
}

/// Whether a large file's parts may be searched from a memory mapping.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum MapParts {
    /// Mapped unless the configuration says `--no-mmap` (files named on
    /// the command line).
    Allowed,
    /// Always read: mapped pages count in the resident set, and a large
    /// file met in a tree would raise a search's peak RSS from ~7 MB to
    /// ~30 MB for little gain.
    Never,
}

/// What a short read of a regular file means.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ShortRead {
    /// The end of the file: the file system fills every read it can (local
    /// ones; see trawl-walk's `Entry::short_read_is_end`), so the read that
    /// would return 0 is skipped (one `read` call in two in a source tree).
    IsEnd,
    /// Nothing: read until a read returns 0.
    MayContinue,
}

/// How a source was searched.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SearchedAs {
    /// Not read: it is shorter than any match.
    Skipped,
    /// Read once, from start to end, by the calling thread.
    OnePass,
    /// Cut into parts searched by several threads and replayed in order.
    Parts,
}

/// The result of searching one source.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct SearchOutcome {
    /// Totals, as for any search.
    pub summary: SearchSummary,
    /// How it was searched.
    pub how: SearchedAs,
}

impl SearchOutcome {
    fn new(summary: SearchSummary, how: SearchedAs) -> SearchOutcome {
        SearchOutcome { summary, how }
    }
}

impl SearcherConfig {
    /// Files at least this large are searched in parts ([`PARALLEL_MIN`]
    /// with the default part size).
    ///
    /// [`PARALLEL_MIN`]: crate::PARALLEL_MIN
    pub(crate) fn parallel_min(&self) -> u64 {
        parallel::PARTS_MIN * self.part_size()
    }

    /// Threads that may search one large file in parts (0: one per CPU).
    pub(crate) fn part_threads(&self) -> usize {
        match self.threads {
            0 => trawl_diag::cpus(),
            n => n,
        }
    }
}

impl Searcher {
    /// Searches a regular file: in parts on every thread when it is large
    /// (its size given, or asked for once a first full read shows the file
    /// is not small), else in one pass.
    pub fn search_file<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        file: &File,
        hints: FileHints,
        sink: &mut S,
    ) -> Result<SearchOutcome, SearchError> {
        if self.too_short(matcher, hints.size) {
            return Ok(SearchOutcome::new(SearchSummary::default(), SearchedAs::Skipped));
        }
        if self.config.multiline {
            let data =
                crate::multiline::read_all(&self.config, FileReader::new(file, hints.short_read))?;
            let summary = crate::multiline::search(&self.config, matcher, &data, sink)?;
            return Ok(SearchOutcome::new(summary, SearchedAs::OnePass));
        }
        let sniff = match self.config.encoding {
            Encoding::Forced(e) => return self.search_decoded(matcher, file, Some(e), sink),
            Encoding::Sniff => true,
            Encoding::Raw => false,
        };
        let mut reader = FileReader::new(file, hints.short_read);
        if self.config.threads == 1 || self.config.stream {
            return match sniff {
                true => self.search_sniffed(matcher, file, reader, sink),
                false => {
                    let summary = self.search_reader(matcher, reader, sink)?;
                    Ok(SearchOutcome::new(summary, SearchedAs::OnePass))
                }
            };
        }
        let size = match hints.size {
            Some(size) => size,
            None => {
                let first = self.read_first(&mut reader)?;
                let len = match first {
                    FirstRead::Filled(_) => self.config.read_size(),
                    FirstRead::Partial(len) => len,
                };
                if sniff && has_bom(&self.buf[..len]) {
                    return self.search_decoded(matcher, file, None, sink);
                }
                match first {
                    FirstRead::Filled(size) => size,
                    FirstRead::Partial(len) => {
                        let summary = self.search_prefilled(matcher, reader, sink, len)?;
                        return Ok(SearchOutcome::new(summary, SearchedAs::OnePass));
                    }
                }
            }
        };
        // The CPUs are counted only for a file worth splitting.
        // -o alone with bounded matches on a file whose parts would be read
        // (not mapped): one pass, which streams a line too long to hold
        // (read parts would copy it whole; mapped ones only map its pages).
        let mapped = hints.mapping == MapParts::Allowed && self.config.mmap.is_enabled();
        let one_pass =
            size < self.config.parallel_min() || (!mapped && self.config.streams_matches(matcher));
        let threads = match one_pass {
            true => 1,
            false => self.config.part_threads(),
        };
        if threads < 2 {
            // A file stat'd after its first read goes on from the bytes read.
            let summary = match hints.size {
                Some(_) if sniff => return self.search_sniffed(matcher, file, reader, sink),
                Some(_) => self.search_reader(matcher, reader, sink)?,
                None => {
                    let len = self.config.read_size();
                    self.search_prefilled(matcher, reader, sink, len)?
                }
            };
            return Ok(SearchOutcome::new(summary, SearchedAs::OnePass));
        }
        let read_config;
        let config = if hints.mapping == MapParts::Allowed || !self.config.mmap.is_enabled() {
            &self.config
        } else {
            read_config = SearcherConfig { mmap: MmapChoice::never(), ..self.config.clone() };
            &read_config
        };
        if sniff && hints.size.is_some() {
            // Its first bytes were not read yet (a large file: one more read).
            let mut start = [0u8; 3];
            let n = std::os::unix::fs::FileExt::read_at(file, &mut start, 0)?;
            if has_bom(&start[..n]) {
                return self.search_decoded(matcher, file, None, sink);
            }
        }
        let summary = parallel::search_file(config, matcher, file, size, threads, sink)?;
        Ok(SearchOutcome::new(summary, SearchedAs::Parts))
    }

    /// Searches a file in one pass from its first read: decoded when that
    /// read starts with a byte-order mark, else on from the bytes read.
    fn search_sniffed<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        file: &File,
        mut reader: FileReader<'_>,
        sink: &mut S,
    ) -> Result<SearchOutcome, SearchError> {
        let len = self.read_some(&mut reader)?;
        if has_bom(&self.buf[..len]) {
            return self.search_decoded(matcher, file, None, sink);
        }
        let summary = self.search_prefilled(matcher, reader, sink, len)?;
        Ok(SearchOutcome::new(summary, SearchedAs::OnePass))
    }

    /// Searches the text of a file's bytes decoded from `forced`, or as
    /// its byte-order mark says (read from its start, whatever was read).
    fn search_decoded<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        file: &File,
        forced: Option<&'static encoding_rs::Encoding>,
        sink: &mut S,
    ) -> Result<SearchOutcome, SearchError> {
        let reader = ReadAt { file, at: 0 };
        let summary = self.search_reader(matcher, decoded(reader, forced), sink)?;
        Ok(SearchOutcome::new(summary, SearchedAs::OnePass))
    }

    /// Searches a stream that is not a regular file: standard input, a
    /// FIFO, a decompressed stream, an archive member, an extractor's
    /// output. `size`, when known, lets a source shorter than any match go
    /// unread.
    pub fn search_stream<M: Matcher, R: Read, S: Sink>(
        &mut self,
        matcher: &M,
        reader: R,
        size: Option<u64>,
        sink: &mut S,
    ) -> Result<SearchOutcome, SearchError> {
        if self.too_short(matcher, size) {
            return Ok(SearchOutcome::new(SearchSummary::default(), SearchedAs::Skipped));
        }
        if self.config.multiline {
            let data = crate::multiline::read_all(&self.config, reader)?;
            let summary = crate::multiline::search(&self.config, matcher, &data, sink)?;
            return Ok(SearchOutcome::new(summary, SearchedAs::OnePass));
        }
        let summary = match self.config.encoding {
            Encoding::Raw => self.search_reader(matcher, reader, sink)?,
            Encoding::Forced(e) => self.search_reader(matcher, decoded(reader, Some(e)), sink)?,
            Encoding::Sniff => {
                let (start, rest) = peek(reader)?;
                let whole = io::Cursor::new(start).chain(rest);
                match has_bom(whole.get_ref().0.get_ref()) {
                    true => self.search_reader(matcher, decoded(whole, None), sink)?,
                    false => self.search_reader(matcher, whole, sink)?,
                }
            }
        };
        Ok(SearchOutcome::new(summary, SearchedAs::OnePass))
    }

    /// Whether a source of `size` bytes is shorter than any match (and
    /// nothing is selected by `-v`). Decoded, a byte may become up to
    /// three (windows-1252's euro sign in UTF-8).
    fn too_short<M: Matcher>(&self, matcher: &M, size: Option<u64>) -> bool {
        let most = match self.config.encoding {
            Encoding::Raw => size,
            _ => size.map(|s| s.saturating_mul(3)),
        };
        !self.config.invert && most.is_some_and(|s| s < matcher.min_len() as u64)
    }

    /// Reads once into the searcher's buffer; returns how much.
    fn read_some(&mut self, reader: &mut FileReader<'_>) -> Result<usize, SearchError> {
        let read_size = self.config.read_size();
        crate::scan::grow_zeroed(&mut self.buf, read_size);
        loop {
            match reader.read(&mut self.buf[..read_size]) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Reads the file's first buffer into the searcher's buffer; when it
    /// fills, asks for the file's size.
    fn read_first(&mut self, reader: &mut FileReader<'_>) -> Result<FirstRead, SearchError> {
        let read_size = self.config.read_size();
        let n = self.read_some(reader)?;
        if n < read_size {
            return Ok(FirstRead::Partial(n));
        }
        let size = reader.file.metadata().map_or(0, |m| m.len());
        Ok(FirstRead::Filled(size))
    }

    /// Searches a file whose first `len` bytes are already in the buffer.
    fn search_prefilled<M: Matcher, S: Sink>(
        &mut self,
        matcher: &M,
        reader: FileReader<'_>,
        sink: &mut S,
        len: usize,
    ) -> Result<SearchSummary, SearchError> {
        let file = reader.file;
        self.search_owned(matcher, reader, sink, Part::WHOLE, len, Some(file))
    }
}

/// What the first read of a file of unknown size found.
enum FirstRead {
    /// It filled the buffer; the file's size, asked for.
    Filled(u64),
    /// It read this many bytes, fewer than the buffer holds: the file is
    /// small (or a short read came early): search it in one pass.
    Partial(usize),
}

/// Reads a file from an offset on, whatever its own offset (a file whose
/// first bytes were read already is decoded from its start).
struct ReadAt<'f> {
    file: &'f File,
    at: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The most Linux transfers in one read: a longer request returns short.
const MAX_READ: usize = 0x7fff_f000;

/// Reads a regular file for a search in one pass, skipping the read that
/// would return 0 where a short read means the end.
struct FileReader<'f> {
    file: &'f File,
    short_read: ShortRead,
    ended: bool,
}

impl<'f> FileReader<'f> {
    fn new(file: &'f File, short_read: ShortRead) -> Self {
        FileReader { file, short_read, ended: false }
    }
}

impl Read for FileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended {
            return Ok(0);
        }
        let n = (&mut &*self.file).read(buf)?;
        self.ended = self.short_read == ShortRead::IsEnd && n < buf.len() && buf.len() <= MAX_READ;
        Ok(n)
    }
}
