//! Documents read by a tool (PDFs through `pdftotext`, the others of
//! [`crate::tools`]): their text from the cache when a run before made it
//! (see [`crate::cache`]), else from the tool.

use std::fs::File;
use std::io::{self, Read};

use crate::cache::{content_key, stat_key, Cache, Recorder};
use crate::external::{Outcome, Subject};
use crate::kind::Kind;
use crate::ole::Office;
use crate::tools::{OnFailure, Tool};
use crate::{Extractor, Flow, Layout, Origin, Positional, Visit};

/// What tells a document's identity to the cache.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Identity<'p> {
    /// A file of the tree, opened by this path: its inode and times first,
    /// its bytes on a miss.
    File(&'p [u8]),
    /// Bytes of an archive member (in an anonymous file): their hash.
    Member,
    /// The decoded bytes of this compressed file of the tree (in an
    /// anonymous file): the file's inode and times (with the tool's
    /// identity and a tag: see [`decoded_key`]) first, their hash on a
    /// miss.
    Decoded(&'p File),
}

/// The cache key of the text of the document that the compressed file
/// `file` decodes to, read by the tool whose identity is `tool_id` (the
/// same bytes always decode the same way).
fn decoded_key(file: &File, tool_id: &[u8]) -> io::Result<Vec<u8>> {
    stat_key(file, &[tool_id, b"\0decoded"].concat())
}

/// Texts larger than this are searched but not cached.
const MAX_CACHED: u64 = 256 << 20;

impl Extractor {
    /// The cache, opened at the first call; a cache that cannot be used
    /// (another user's, on a read-only file system) is reported once, as a
    /// warning naming its directory, and the run goes on without it; a
    /// damaged one is made again, with a warning too.
    pub(crate) fn cache_for(&self, visit: &mut dyn Visit) -> Option<&Cache> {
        let mut note = None;
        let cache = self.cache.get_or_init(|| {
            let dir = self.cache_dir.as_ref()?;
            match Cache::open(dir, self.cache_limit) {
                Ok((cache, rebuilt)) => {
                    note = rebuilt.map(io::Error::other);
                    Some(cache)
                }
                Err(e) => {
                    let reason = trawl_diag::io_message(&e);
                    let why = format!("{}: {reason}; text is extracted without it", dir.display());
                    note = Some(io::Error::new(e.kind(), why));
                    None
                }
            }
        });
        if let Some(e) = note {
            visit.warning(b"extraction cache", &e);
        }
        cache.as_ref()
    }

    /// The tool that reads a document of this kind; None when none does
    /// (an OLE2 file that is no Office document: it is searched as bytes).
    fn tool_for(&self, kind: Kind, document: &File) -> io::Result<Option<&Tool>> {
        let b = &self.builtins;
        Ok(match kind {
            Kind::Ole => crate::ole::office(document)?.map(|office| match office {
                Office::Word => &b.word,
                Office::Excel => &b.excel,
            }),
            kind => self.tool_of(kind),
        })
    }

    /// The tool that reads every document of this kind (not OLE2 files:
    /// their tool depends on what is inside).
    fn tool_of(&self, kind: Kind) -> Option<&Tool> {
        let b = &self.builtins;
        match (kind, &self.ocr) {
            (Kind::Pdf, Some(ocr)) => Some(&ocr.pdf_reader),
            (Kind::Pdf, None) => Some(&b.pdf),
            (Kind::PostScript, _) => Some(&b.postscript),
            (Kind::Dvi, _) => Some(&b.dvi),
            (Kind::Image(crate::ImageFormat::Tiff), Some(ocr)) => Some(&ocr.tiff_reader),
            (Kind::Image(_), Some(ocr)) => Some(&ocr.image_reader),
            (Kind::Configured(i), _) => self.configured.get(i).map(|c| &c.tool),
            _ => None,
        }
    }

    /// Searches the text of `document`, of a kind [`Kind::is_document`]
    /// tells. None when no tool reads it (or its tool is missing) and it
    /// must be searched as bytes.
    pub(crate) fn document(
        &self,
        name: &[u8],
        document: File,
        kind: Kind,
        identity: Identity<'_>,
        origin: Origin<'_>,
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        let tool = match self.tool_for(kind, &document) {
            Ok(Some(tool)) => tool,
            Ok(None) => return None,
            Err(e) => {
                visit.error(name, &e);
                return Some(Flow::Continue);
            }
        };
        let tool_id = tool.identity();
        let cache = match tool_id {
            Some(_) => self.cache_for(visit),
            None => None,
        };
        // The keys: the file's (fast, on every run) and its bytes' (on a
        // miss: copies, moves and members hit).
        let mut keys: Vec<Vec<u8>> = Vec::new();
        if let (Some(cache), Some(tool_id)) = (cache, tool_id) {
            match identity {
                Identity::File(_) => {
                    if let Ok(key) = stat_key(&document, tool_id) {
                        let doc = Some(&document);
                        if let Some(flow) =
                            self.cached(cache, tool, (&key, &[]), doc, name, origin, visit)
                        {
                            return Some(flow);
                        }
                        keys.push(key);
                    }
                }
                // Asked before the file was decoded (decoded_cached).
                Identity::Decoded(file) => keys.extend(decoded_key(file, tool_id).ok()),
                Identity::Member => {}
            }
            if let Ok(key) = content_key(Positional { file: &document, at: 0 }, tool_id) {
                let aliases: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                let asked = (&key[..], &aliases[..]);
                if let Some(flow) =
                    self.cached(cache, tool, asked, Some(&document), name, origin, visit)
                {
                    return Some(flow);
                }
                keys.insert(0, key);
            }
        }
        let path = match identity {
            Identity::File(path) => Some(path),
            Identity::Member | Identity::Decoded(_) => None,
        };
        // A tool that reads the path reads what is there when it runs: if
        // the file was replaced meanwhile, its text is not cached.
        let reads_path = tool.input == crate::tools::Input::Path && path.is_some();
        let opened = if reads_path { document.metadata().ok() } else { None };
        let mut recorder = Recorder::new(MAX_CACHED);
        // A document whose bytes are text: its tool's text is held until
        // the tool ends well, so that if it fails the bytes are searched
        // instead and nothing of the text was printed.
        let bytes = match tool.on_failure {
            OnFailure::SearchBytes => document.try_clone().ok(),
            OnFailure::Report => None,
        };
        let mut held: Option<Vec<u8>> = bytes.as_ref().map(|_| Vec::new());
        let outcome = {
            let mut text = |r: &mut dyn Read| {
                if let Some(h) = held.as_mut() {
                    match r.take(HELD + 1).read_to_end(h) {
                        Ok(_) if h.len() as u64 <= HELD => return Flow::Continue,
                        // Too much to hold (or unreadable): searched as it
                        // comes, as any other document's.
                        _ => {
                            let start = held.take().unwrap_or_default();
                            let mut all = io::Read::chain(&start[..], r);
                            return recorded(
                                name,
                                &mut all,
                                tool.layout,
                                origin,
                                &mut recorder,
                                visit,
                            );
                        }
                    }
                }
                recorded(name, r, tool.layout, origin, &mut recorder, visit)
            };
            let subject = Subject { file: document, path, name };
            self.extract_by(tool, subject, &mut text)
        };
        if reads_path && path.is_some_and(|p| !same_file(p, opened.as_ref())) {
            keys.clear();
        }
        let store = |recorder: Recorder, failure: Option<String>| {
            let entry = recorder.finish(failure).map(|e| e.named(name));
            if let (Some(cache), Some((key, aliases)), Some(entry)) =
                (cache, keys.split_first(), entry)
            {
                let aliases: Vec<&[u8]> = aliases.iter().map(Vec::as_slice).collect();
                if let Err(e) = cache.put(key, &aliases, &entry) {
                    return Some(crate::cache::sql_io(e));
                }
            }
            None
        };
        match outcome {
            Ok(Outcome::Ran(flow)) => {
                let flow = match held.take() {
                    Some(text) => {
                        recorded(name, &mut &text[..], tool.layout, origin, &mut recorder, visit)
                    }
                    None => flow,
                };
                if flow == Flow::Continue {
                    if let Some(e) = store(recorder, None) {
                        visit.warning(name, &io::Error::other(format!("extraction cache: {e}")));
                    }
                }
                Some(flow)
            }
            Ok(Outcome::Missing(e)) => {
                visit.error(name, &e);
                None
            }
            Ok(Outcome::MissingBefore) => None,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Some(Flow::Stop),
            Err(e) => {
                // The same document fails the same way: remembered, with
                // the text made before the failure (searched already), or
                // none when its bytes are searched instead.
                if let (Some(_), Some(bytes)) = (held, &bytes) {
                    let _ = store(Recorder::new(0), Some(e.to_string()));
                    return Some(searched_as_bytes(bytes, name, origin, &e, visit));
                }
                let _ = store(recorder, Some(e.to_string()));
                visit.error(name, &e);
                Some(Flow::Continue)
            }
        }
    }

    /// Answers from the cache for the document of kind `kind` that the
    /// compressed file `file` of the tree decodes to, when a run before
    /// read it (None: decode it). Office files are not: their tool
    /// depends on what is inside.
    pub(crate) fn decoded_cached(
        &self,
        file: &File,
        name: &[u8],
        kind: Kind,
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        let tool = self.tool_of(kind)?;
        let key = decoded_key(file, tool.identity()?).ok()?;
        let cache = self.cache_for(visit)?;
        self.cached(cache, tool, (&key, &[]), None, name, Origin::Whole, visit)
    }

    /// Answers from the cache, if it holds `key`; then makes each alias
    /// find it too. A failure it remembers is handed over as remembered,
    /// or, for a document whose bytes are text, the bytes of `document`
    /// are searched again (None without `document`: read it).
    #[allow(clippy::too_many_arguments)]
    fn cached(
        &self,
        cache: &Cache,
        tool: &Tool,
        (key, aliases): (&[u8], &[&[u8]]),
        document: Option<&File>,
        name: &[u8],
        origin: Origin<'_>,
        visit: &mut dyn Visit,
    ) -> Option<Flow> {
        let entry = cache.get(key).ok()??;
        let as_bytes = entry.failure.is_some() && tool.on_failure == OnFailure::SearchBytes;
        if as_bytes && document.is_none() {
            return None;
        }
        if !aliases.is_empty() {
            let _ = cache.put(key, aliases, &entry);
        }
        let failure =
            entry.failure.as_ref().map(|f| io::Error::new(io::ErrorKind::InvalidData, f.as_str()));
        if let (true, Some(document), Some(failure)) = (as_bytes, document, &failure) {
            return Some(searched_as_bytes(document, name, origin, failure, visit));
        }
        let flow = tool.layout.hand(visit, name, &mut entry.text(), origin);
        if let Some(failure) = failure {
            visit.remembered_failure(name, &failure);
        }
        Some(flow)
    }
}

/// How much of a text-like document's extracted text is held until its
/// tool ends (see [`OnFailure::SearchBytes`]); past it, the text is searched
/// as it comes.
const HELD: u64 = 64 << 20;

/// Searches the bytes of `document`, whose tool failed with `why`, as they
/// are (a document whose bytes are text), and says so.
fn searched_as_bytes(
    document: &File,
    name: &[u8],
    origin: Origin<'_>,
    why: &io::Error,
    visit: &mut dyn Visit,
) -> Flow {
    let flow = visit.text(name, &mut Positional { file: document, at: 0 }, origin);
    visit.searched_as_bytes(name, why);
    flow
}

/// Hands `r` to the visitor, recording what is read for the cache; a
/// search that stopped early (-l, -m) has the rest read for the cache, so
/// the next run needs no process.
pub(crate) fn recorded(
    name: &[u8],
    r: &mut dyn Read,
    layout: Layout,
    origin: Origin<'_>,
    recorder: &mut Recorder,
    visit: &mut dyn Visit,
) -> Flow {
    let mut tee = Tee { inner: r, recorder, eof: false };
    let flow = layout.hand(visit, name, &mut tee, origin);
    if flow == Flow::Continue && !tee.eof {
        let _ = io::copy(&mut tee, &mut io::sink());
    }
    if !tee.eof {
        tee.recorder.abandon();
    }
    flow
}

/// Records what is read through it.
pub(crate) struct Tee<'a> {
    pub(crate) inner: &'a mut dyn Read,
    pub(crate) recorder: &'a mut Recorder,
    pub(crate) eof: bool,
}

impl Read for Tee<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.eof = true;
        }
        self.recorder.add(&buf[..n]);
        Ok(n)
    }
}

/// Whether `path` is still the file whose metadata is `opened`.
fn same_file(path: &[u8], opened: Option<&std::fs::Metadata>) -> bool {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let (Some(a), Ok(b)) = (opened, std::fs::metadata(std::ffi::OsStr::from_bytes(path))) else {
        return false;
    };
    (a.dev(), a.ino(), a.size(), a.mtime(), a.mtime_nsec(), a.ctime(), a.ctime_nsec())
        == (b.dev(), b.ino(), b.size(), b.mtime(), b.mtime_nsec(), b.ctime(), b.ctime_nsec())
}
