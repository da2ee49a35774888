//! trawl's source layer: the text inside compressed files, archives and
//! documents, handed to the searcher as streams with display names.
//!
//! With [`Limits::documents`], office files and e-books become their text
//! (`document`), and PDFs the text of `pdftotext`, run as a child process
//! (`external`: a bounded pool, time and output limits, always reaped);
//! what extractor processes make, and what slow codecs decode, is kept in
//! a [`cache`] so that it is made once. With [`Extractor::with_ocr`],
//! images and PDF pages without text are recognised by Tesseract
//! ([`ocr`]), one page at a time per job, through the same pool and cache.
//!
//! A file's kind is told by its first bytes ([`detect`]), not by its name.
//! Compressed streams (gzip, bzip2, xz, zstd, lz4) are decoded in-process
//! and looked at again, so a `.tar.gz` is a tar and a `.gz` of a zip is a
//! zip; tar and zip members are visited in archive order, each one again
//! told by its bytes, down to [`Limits::max_depth`] containers. Nothing is
//! held whole but a zip inside another archive (its directory is at its
//! end): in memory when small, else in an anonymous temporary file.
//!
//! A member's name is its archive's name followed by the member path in
//! braces, `outer.tgz{dir/inner.zip}{file.txt}`, so `NAME:LINE:` output
//! stays parseable. Damaged input is reported through [`Visit::error`]
//! naming the file and member, and the rest is still visited; a stream
//! that decodes to more than [`BombLimits`] allow ends with an error.
//!
//! ```
//! use std::io::{Read, Write};
//! use trawl_extract::{Extractor, Flow, Origin, Visit};
//!
//! #[derive(Default)]
//! struct Texts(Vec<(String, String)>);
//! impl Visit for Texts {
//!     fn text(&mut self, name: &[u8], data: &mut dyn Read, _: Origin<'_>) -> Flow {
//!         let mut s = String::new();
//!         data.read_to_string(&mut s).unwrap();
//!         self.0.push((String::from_utf8_lossy(name).into_owned(), s));
//!         Flow::Continue
//!     }
//!     fn error(&mut self, _: &[u8], e: &std::io::Error) {
//!         panic!("{e}");
//!     }
//! }
//! let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
//! gz.write_all(b"hello\n").unwrap();
//! let gz = gz.finish().unwrap();
//! let mut texts = Texts::default();
//! Extractor::default().stream(b"a.gz", &mut &gz[..], 0, &mut texts);
//! assert_eq!(texts.0, [("a.gz".to_string(), "hello\n".to_string())]);
//! ```
#![deny(missing_docs)]

use std::fs::File;
use std::io::{self, Read, Seek};
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

mod archive;
mod by_tool;
pub mod cache;
pub mod configured;
mod decode;
mod decoded;
mod document;
mod external;
mod guard;
mod kind;
pub mod ocr;
mod ole;
pub mod pack;
mod spool;
pub mod tools;
mod zip_error;

pub use document::Document;
pub use external::ExternalLimits;
pub use guard::BombLimits;
pub use kind::{detect, image, Codec, ImageFormat, Kind, HEAD};

/// Whether a visit goes on.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Flow {
    /// Go on with the next member.
    Continue,
    /// Stop everything (the search is over: `-q` matched, output closed).
    Stop,
}

/// Where a text stream came from.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Origin<'m> {
    /// The whole source, decoded (a `.gz` of a text): one file.
    Whole,
    /// A member of an archive, one of many; its display name is
    /// `outer{member}`.
    Member(&'m Member<'m>),
}

/// A member of an archive, and the member holding that archive, if any.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Member<'m> {
    /// Its path in its archive (for globs).
    pub path: &'m [u8],
    /// The member its archive is, when the archive is itself a member.
    pub parent: Option<&'m Member<'m>>,
}

impl<'m> Member<'m> {
    /// The member paths from the outermost archive's member down to this
    /// one.
    pub fn chain(&self) -> Vec<&'m [u8]> {
        let mut chain = vec![self.path];
        let mut up = self.parent;
        while let Some(m) = up {
            chain.push(m.path);
            up = m.parent;
        }
        chain.reverse();
        chain
    }
}

impl<'m> Origin<'m> {
    /// The member this stream is, if it is one.
    pub fn member(&self) -> Option<&'m Member<'m>> {
        match *self {
            Origin::Whole => None,
            Origin::Member(m) => Some(m),
        }
    }
}

/// How a text is laid out: lines, or the pages of a document (each page
/// after the first starting with a form feed: pdftotext's and catdvi's
/// text), whose lines say their page (`FILE#page=N`).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Layout {
    /// Lines.
    Lines,
    /// Pages of lines, a form feed before each after the first.
    Pages,
}

impl Layout {
    /// Hands `data` to `visit` as this layout's text.
    pub fn hand(
        self,
        visit: &mut dyn Visit,
        name: &[u8],
        data: &mut dyn Read,
        origin: Origin<'_>,
    ) -> Flow {
        match self {
            Layout::Lines => visit.text(name, data, origin),
            Layout::Pages => visit.pages(name, data, origin),
        }
    }
}

/// Receives the text streams found inside a source, and what went wrong.
pub trait Visit {
    /// A stream to search, named `outer{member}...`.
    fn text(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow;

    /// A document's text whose pages each start with a form feed (PDF
    /// text from pdftotext), so a match can say its page. By default, as
    /// [`Visit::text`].
    fn pages(&mut self, name: &[u8], data: &mut dyn Read, origin: Origin<'_>) -> Flow {
        self.text(name, data, origin)
    }

    /// Part of a source could not be read; the visit goes on where it can.
    fn error(&mut self, name: &[u8], err: &io::Error);

    /// Something was passed over on purpose (an encrypted member). By
    /// default reported as an error.
    fn note(&mut self, name: &[u8], err: &io::Error) {
        self.error(name, err);
    }

    /// Something the user should know that does not fail the search (the
    /// cache was rebuilt). By default reported as an error.
    fn warning(&mut self, name: &[u8], err: &io::Error) {
        self.error(name, err);
    }

    /// The extractor of a document whose bytes are text (PostScript, or a
    /// configured extractor's `text = true` files) failed, now or in a run
    /// the cache remembers, and its bytes were handed to [`Visit::text`]
    /// instead, as grep would search them. Not an error; by default
    /// nothing.
    fn searched_as_bytes(&mut self, _name: &[u8], _why: &io::Error) {}

    /// The cache remembers that this document's text could not be (all)
    /// extracted; what was extracted was handed over. By default reported
    /// as an error, as the first time.
    fn remembered_failure(&mut self, name: &[u8], err: &io::Error) {
        self.error(name, err);
    }
}

/// How deep and how large extraction may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Containers (compressed streams and archives) opened one inside
    /// another; a deeper one is searched as the bytes it is.
    pub max_depth: usize,
    /// How far a compressed stream may grow.
    pub bombs: BombLimits,
    /// A zip inside an archive is held in memory up to this size, else in
    /// a temporary file.
    pub spool_in_memory: usize,
    /// Documents are read as their text: office files and e-books (not
    /// as zips of XML), PDFs through `pdftotext`.
    pub documents: bool,
    /// The children that extract text.
    pub external: ExternalLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 8,
            bombs: BombLimits::default(),
            spool_in_memory: 64 << 20,
            documents: false,
            external: ExternalLimits::default(),
        }
    }
}

/// The limits a command line may set (grep's and find's
/// `--max-archive-depth`, `--extract-jobs`, `--extract-timeout`); what is
/// not set keeps [`Limits::default`]'s value.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct AskedLimits {
    /// Containers opened one inside another.
    pub max_depth: Option<usize>,
    /// Extractor processes at once.
    pub jobs: Option<usize>,
    /// Seconds an extractor process may run.
    pub timeout_secs: Option<u64>,
}

impl Limits {
    /// The limits of a search that reads documents or not, with what the
    /// command line asked: the one place a command's limits are made.
    pub fn new(documents: bool, asked: AskedLimits) -> Limits {
        let mut limits = Limits { documents, ..Limits::default() };
        if let Some(n) = asked.max_depth {
            limits.max_depth = n;
        }
        if let Some(n) = asked.jobs {
            limits.external.jobs = n;
        }
        if let Some(s) = asked.timeout_secs {
            limits.external.timeout = std::time::Duration::from_secs(s);
        }
        limits
    }
}

/// Opens compressed files, archives and documents (see the crate's
/// documentation). One is shared by every search thread of a run.
#[derive(Debug)]
pub struct Extractor {
    limits: Limits,
    runner: external::Runner,
    /// Where the cache of extracted text is (None: no cache).
    cache_dir: Option<std::path::PathBuf>,
    cache_limit: u64,
    /// Opened at the first document that needs it (None inside: it could
    /// not be opened, which was reported once).
    cache: std::sync::OnceLock<Option<cache::Cache>>,
    /// The built-in document readers.
    builtins: tools::Builtins,
    /// The user's, asked first.
    configured: Vec<configured::Configured>,
    /// Images and PDF pages without text recognised (None: not asked).
    ocr: Option<ocr::Ocr>,
    /// The hash of [`Extractor::signature`], made once.
    signature_hash: std::sync::OnceLock<[u8; 32]>,
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor::new(Limits::default(), Arc::default())
    }
}

impl Extractor {
    /// An extractor with these limits and no cache; setting `cancel` kills
    /// the children it runs.
    pub fn new(limits: Limits, cancel: Arc<AtomicBool>) -> Self {
        Extractor {
            limits,
            runner: external::Runner::new(limits.external, cancel),
            cache_dir: None,
            cache_limit: cache::DEFAULT_LIMIT,
            cache: std::sync::OnceLock::new(),
            builtins: tools::Builtins::default(),
            configured: Vec::new(),
            ocr: None,
            signature_hash: std::sync::OnceLock::new(),
        }
    }

    /// Documents that `configured` claim are read by them (asked in order,
    /// before the built-in readers).
    pub fn with_configured(mut self, configured: Vec<configured::Configured>) -> Self {
        self.configured = configured;
        self
    }

    /// Images, and PDF pages whose text layer is empty or nearly so, read
    /// through OCR with `options` (see [`ocr`]); only when documents are
    /// read.
    pub fn with_ocr(mut self, options: ocr::OcrOptions) -> Self {
        if self.limits.documents {
            self.ocr = Some(ocr::Ocr::new(options, &self.builtins.pdf));
        }
        self
    }

    /// The OCR this extractor runs, if any: its options and the programs
    /// it starts, each with what it is for.
    pub fn ocr(&self) -> Option<(&ocr::OcrOptions, [(&tools::Tool, &'static str); 3])> {
        self.ocr.as_ref().map(|o| (&o.options, o.programs()))
    }

    /// The configured extractors, then the built-in tools.
    pub fn tools(&self) -> (&[configured::Configured], [&tools::Tool; 5]) {
        (&self.configured, self.builtins.all())
    }

    /// What the text this extractor finds depends on: its limits, what
    /// each configured extractor claims and runs, and each tool's
    /// identity (its executable's inode, size and mtime; a new version is
    /// a new identity). Text extracted under another signature may differ.
    pub fn signature(&self) -> Vec<u8> {
        let l = &self.limits;
        let mut sig = format!(
            "documents={} depth={} bombs={:?} timeout={:?} output={}\n",
            l.documents, l.max_depth, l.bombs, l.external.timeout, l.external.max_output
        )
        .into_bytes();
        if l.documents {
            let (configured, builtins) = self.tools();
            let tools = configured.iter().map(|c| (format!("{c:?}"), &c.tool));
            for (what, tool) in tools.chain(builtins.iter().map(|t| (String::new(), *t))) {
                sig.extend_from_slice(what.as_bytes());
                sig.extend_from_slice(tool.identity().unwrap_or(b"(missing)"));
                sig.push(b'\n');
            }
        }
        // Without OCR, the signature stays what it was before OCR existed
        // (indexes and packs made then still serve).
        if let Some(ocr) = &self.ocr {
            sig.extend_from_slice(ocr.options.signature_line().as_bytes());
            for tool in [&ocr.pdf_reader, &ocr.image_reader, &ocr.tiff_reader] {
                sig.extend_from_slice(tool.identity().unwrap_or(b"(missing)"));
                sig.push(b'\n');
            }
        }
        sig
    }

    /// Whether an extraction whose [`Extractor::signature`] is `sig` read
    /// documents (not only compressed files and archives).
    pub fn signature_reads_documents(sig: &[u8]) -> bool {
        sig.starts_with(b"documents=true ")
    }

    /// The kind of `name` (a file or member) with first bytes `head`, as
    /// this extractor reads it: documents only when they are read as text,
    /// a configured extractor's files as [`Kind::Configured`].
    fn kind_of(&self, name: &[u8], head: &[u8]) -> Kind {
        if !self.limits.documents {
            return match detect(head) {
                kind if kind.is_document() => Kind::Plain,
                kind => kind,
            };
        }
        match self.configured.iter().position(|c| c.claims(name, head)) {
            Some(i) => Kind::Configured(i),
            None => match (detect(head), &self.ocr) {
                (Kind::Plain, Some(_)) => image(head).map_or(Kind::Plain, Kind::Image),
                (kind, _) => kind,
            },
        }
    }

    /// Keeps the text extractor processes make in a cache in `dir` (see
    /// [`cache`]), of at most `limit` stored bytes.
    pub fn with_cache(mut self, dir: std::path::PathBuf, limit: u64) -> Self {
        self.cache_dir = Some(dir);
        self.cache_limit = limit;
        self
    }

    /// The kind of the open file `path` as this extractor reads it, from
    /// its first bytes (read without moving its offset) and, for a
    /// configured extractor, its name: [`Kind::Plain`] when it is searched
    /// as it is.
    pub fn sniff(&self, path: &[u8], file: &File) -> io::Result<Kind> {
        let mut head = [0u8; HEAD];
        let n = read_head(&mut Positional { file, at: 0 }, &mut head)?;
        Ok(self.kind_of(path, &head[..n]))
    }

    /// Visits the text inside `file`, opened by the path `path` (also its
    /// display name), whose kind [`Extractor::sniff`] told (a zip is read
    /// through its directory; anything else as a stream).
    pub fn file(&self, path: &[u8], file: &File, kind: Kind, visit: &mut dyn Visit) -> Flow {
        let name = path;
        match kind {
            Kind::Zip if self.limits.max_depth > 0 => self.zip(name, file, 1, Origin::Whole, visit),
            Kind::Compressed(codec) if decoded::is_slow(codec) && self.limits.max_depth > 0 => {
                match self.slow_decoded(name, file, codec, visit) {
                    Some(flow) => flow,
                    None => {
                        self.stream_from(name, &mut &*file, (0, Some(file)), Origin::Whole, visit)
                    }
                }
            }
            kind if kind.is_document() && self.limits.documents => match file.try_clone() {
                Ok(document) => {
                    let identity = by_tool::Identity::File(path);
                    match self.document(name, document, kind, identity, Origin::Whole, visit) {
                        Some(flow) => flow,
                        None => visit.text(name, &mut Positional { file, at: 0 }, Origin::Whole),
                    }
                }
                Err(e) => {
                    visit.error(name, &e);
                    Flow::Continue
                }
            },
            _ => self.stream_from(name, &mut &*file, (0, Some(file)), Origin::Whole, visit),
        }
    }

    /// Visits the text inside the stream `r`, `depth` containers down.
    pub fn stream(
        &self,
        name: &[u8],
        r: &mut dyn Read,
        depth: usize,
        visit: &mut dyn Visit,
    ) -> Flow {
        self.stream_from(name, r, (depth, None), Origin::Whole, visit)
    }

    /// Visits the text inside `r`, which is `origin`, `depth` containers
    /// down; `whole` is the file of the tree `r` is all of (decoded), if
    /// any (a document inside it is known to the cache by the file's stat
    /// key too, so a later run needs not decode it).
    fn stream_from(
        &self,
        name: &[u8],
        r: &mut dyn Read,
        (depth, whole): (usize, Option<&File>),
        origin: Origin<'_>,
        visit: &mut dyn Visit,
    ) -> Flow {
        let mut head = [0u8; HEAD];
        let n = match read_head(r, &mut head) {
            Ok(n) => n,
            Err(e) => {
                visit.error(name, &e);
                return Flow::Continue;
            }
        };
        let kind = if depth < self.limits.max_depth {
            self.kind_of(origin.member().map_or(name, |m| m.path), &head[..n])
        } else {
            Kind::Plain
        };
        let mut rest = (&head[..n]).chain(r);
        match kind {
            Kind::Plain => visit.text(name, &mut rest, origin),
            Kind::Compressed(codec) => match decode::guarded(codec, rest, self.limits.bombs) {
                Ok(mut decoded) => {
                    self.stream_from(name, &mut decoded, (depth + 1, whole), origin, visit)
                }
                Err(e) => {
                    visit.error(name, &e);
                    Flow::Continue
                }
            },
            Kind::Pdf
            | Kind::PostScript
            | Kind::Dvi
            | Kind::Ole
            | Kind::Image(_)
            | Kind::Configured(_) => {
                // A compressed document of the tree: known by its file's
                // stat key when a run before read it.
                let file = whole.filter(|_| depth > 0 && origin == Origin::Whole);
                if let Some(flow) = file.and_then(|f| self.decoded_cached(f, name, kind, visit)) {
                    return flow;
                }
                let mut document = match spool::Spooled::copy(rest, 0) {
                    Ok(spool::Spooled::File(f)) => f,
                    Ok(spool::Spooled::Memory(_)) => unreachable!("nothing is held in memory"),
                    Err(e) => {
                        visit.error(name, &e);
                        return Flow::Continue;
                    }
                };
                let for_child = match document.try_clone() {
                    Ok(f) => f,
                    Err(e) => {
                        visit.error(name, &e);
                        return Flow::Continue;
                    }
                };
                let identity = match file {
                    Some(file) => by_tool::Identity::Decoded(file),
                    None => by_tool::Identity::Member,
                };
                match self.document(name, for_child, kind, identity, origin, visit) {
                    Some(flow) => flow,
                    None => match document.rewind() {
                        Ok(()) => visit.text(name, &mut document, origin),
                        Err(e) => {
                            visit.error(name, &e);
                            Flow::Continue
                        }
                    },
                }
            }
            Kind::Tar => self.tar(name, rest, depth + 1, origin, visit),
            Kind::Zip => match spool::Spooled::copy(rest, self.limits.spool_in_memory) {
                Ok(spooled) => self.zip(name, spooled, depth + 1, origin, visit),
                Err(e) => {
                    visit.error(name, &e);
                    Flow::Continue
                }
            },
        }
    }
}

/// Reads up to `head.len()` bytes (fewer only at the end of the stream).
fn read_head(r: &mut dyn Read, head: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < head.len() {
        match r.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads a file with pread, leaving its offset (shared with a child's
/// standard input, or not yet used) where it is.
pub(crate) struct Positional<'f> {
    pub(crate) file: &'f File,
    pub(crate) at: u64,
}

impl Read for Positional<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

impl Seek for Positional<'_> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        let at = match pos {
            io::SeekFrom::Start(n) => Some(n),
            io::SeekFrom::Current(d) => self.at.checked_add_signed(d),
            io::SeekFrom::End(d) => self.file.metadata()?.len().checked_add_signed(d),
        };
        self.at = at.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.at)
    }
}

/// The display name of `member` inside `outer`: `outer{member}`.
pub fn member_name(outer: &[u8], member: &[u8]) -> Vec<u8> {
    let mut name = Vec::with_capacity(outer.len() + member.len() + 2);
    name.extend_from_slice(outer);
    name.push(b'{');
    name.extend_from_slice(member);
    name.push(b'}');
    name
}

#[cfg(test)]
mod tests;
